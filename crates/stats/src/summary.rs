//! Descriptive statistics of one sample.

use serde::{Deserialize, Serialize};

/// Whether no value is NaN or infinite (the shared input contract).
pub(crate) fn all_finite(xs: &[f64]) -> bool {
    xs.iter().all(|x| x.is_finite())
}

/// Quantile `q` of an ascending slice, by linear interpolation between order
/// statistics.
///
/// This is definition 7 of Hyndman & Fan (1996): R's `quantile(type = 7)`,
/// numpy's default `method="linear"`, and the definition criterion.rs uses.
/// With `h = (n - 1) q` and 0-based indices, the result is
/// `x[⌊h⌋] + (h - ⌊h⌋) (x[⌊h⌋ + 1] - x[⌊h⌋])`.
///
/// Contract: `sorted` must be in ascending order; that is not checked, because
/// callers sort once and then ask for several quantiles. `q` is clamped to
/// `[0, 1]`. Returns NaN for an empty slice or a NaN `q`.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() || q.is_nan() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * q.clamp(0.0, 1.0);
    let i = h.floor() as usize;
    let frac = h - i as f64;
    match sorted.get(i + 1) {
        // Skipping the interpolation at frac == 0 keeps the result exactly an
        // order statistic, as the definition says.
        Some(&next) if frac > 0.0 => sorted[i] + frac * (next - sorted[i]),
        _ => sorted[i],
    }
}

/// Median of `xs`, which need not be sorted: the type-7 quantile at 1/2, i.e.
/// the middle value, or the mean of the two middle values for even `n`.
///
/// Runs in O(n) time on a copy of the input (selection, not sorting).
/// Returns `None` if `xs` is empty or contains a non-finite value.
pub fn median(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || !all_finite(xs) {
        return None;
    }
    let mut buf = xs.to_vec();
    let n = buf.len();
    let (lower, &mut upper, _) = buf.select_nth_unstable_by(n / 2, f64::total_cmp);
    if n % 2 == 1 {
        return Some(upper);
    }
    let below = lower.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // Same expression as `quantile_sorted` at q = 1/2, so both agree bit for bit.
    Some(below + 0.5 * (upper - below))
}

/// Arithmetic mean of `xs`.
///
/// Returns `None` if `xs` is empty or contains a non-finite value.
pub fn mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || !all_finite(xs) {
        return None;
    }
    Some(xs.iter().sum::<f64>() / xs.len() as f64)
}

/// Sample standard deviation of `xs`, with the unbiased-variance denominator
/// `n - 1` (numpy's `std(ddof=1)`, R's `sd`).
///
/// Returns `None` if `xs` has fewer than two values or contains a non-finite
/// value.
pub fn std_dev(xs: &[f64]) -> Option<f64> {
    if xs.len() < 2 {
        return None;
    }
    let m = mean(xs)?;
    // Two passes (mean first) rather than the sum-of-squares shortcut, which
    // cancels catastrophically for cycle counts that are large but close.
    let ss: f64 = xs.iter().map(|x| (x - m) * (x - m)).sum();
    Some((ss / (xs.len() - 1) as f64).sqrt())
}

/// Coefficient of variation: [`std_dev`] divided by [`mean`] (a ratio, not a
/// percentage; negative if the mean is).
///
/// Returns `None` where [`std_dev`] does, and when the mean is zero.
pub fn coefficient_of_variation(xs: &[f64]) -> Option<f64> {
    let sd = std_dev(xs)?;
    let m = mean(xs)?;
    (m != 0.0).then(|| sd / m)
}

/// Five-number summary plus mean, standard deviation and coefficient of
/// variation of one sample.
///
/// Quartiles and median use [`quantile_sorted`] (type 7); `std_dev` is the
/// sample standard deviation (`n - 1`) and `cv = std_dev / mean`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of values (at least 2).
    pub n: usize,
    /// Smallest value.
    pub min: f64,
    /// First quartile.
    pub q1: f64,
    /// Median (type 7: the mean of the middle two for an even count).
    pub median: f64,
    /// Third quartile.
    pub q3: f64,
    /// Largest value.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (`n - 1` denominator).
    pub std_dev: f64,
    /// Coefficient of variation, `std_dev / mean` (a ratio, not a percentage).
    pub cv: f64,
}

impl Summary {
    /// Summarises `xs` (any order).
    ///
    /// Returns `None` if `xs` has fewer than two values (no standard
    /// deviation), contains a non-finite value, or has mean zero (no
    /// coefficient of variation), so every field of a `Summary` is finite.
    pub fn of(xs: &[f64]) -> Option<Summary> {
        let cv = coefficient_of_variation(xs)?;
        let mut sorted = xs.to_vec();
        sorted.sort_unstable_by(f64::total_cmp);
        Some(Summary {
            n: xs.len(),
            min: sorted[0],
            q1: quantile_sorted(&sorted, 0.25),
            median: quantile_sorted(&sorted, 0.5),
            q3: quantile_sorted(&sorted, 0.75),
            max: sorted[sorted.len() - 1],
            mean: mean(xs)?,
            std_dev: std_dev(xs)?,
            cv,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unsorted, even length, no ties.
    const XS: [f64; 10] = [12.0, 7.5, 3.25, 9.0, 15.5, 4.0, 8.0, 11.0, 6.5, 10.0];
    /// Odd length, with a large outlier and a negative value.
    const ODD: [f64; 7] = [5.0, 1.0, 4.0, 2.0, 3.0, 100.0, -7.0];

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    fn sorted(xs: &[f64]) -> Vec<f64> {
        let mut v = xs.to_vec();
        v.sort_unstable_by(f64::total_cmp);
        v
    }

    #[test]
    fn quantile_matches_numpy_linear() {
        // [float(np.quantile(XS, q)) for q in (0, 0.1, 0.25, 0.5, 0.75, 0.9, 1)]
        let expected = [3.25, 3.925, 6.75, 8.5, 10.75, 12.35, 15.5];
        let s = sorted(&XS);
        for (q, e) in [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]
            .into_iter()
            .zip(expected)
        {
            let got = quantile_sorted(&s, q);
            assert!(close(got, e), "q={q}: {got} != {e}");
        }
        // np.quantile(XS, 0.33) == 7.470000000000001
        assert!(close(quantile_sorted(&s, 0.33), 7.47));
    }

    #[test]
    fn quantile_edge_cases() {
        assert!(quantile_sorted(&[], 0.5).is_nan());
        assert!(quantile_sorted(&[1.0, 2.0], f64::NAN).is_nan());
        assert_eq!(quantile_sorted(&[42.0], 0.3), 42.0);
        // Out-of-range q is clamped rather than indexing out of bounds.
        assert_eq!(quantile_sorted(&[1.0, 2.0, 3.0], -1.0), 1.0);
        assert_eq!(quantile_sorted(&[1.0, 2.0, 3.0], 7.0), 3.0);
    }

    #[test]
    fn median_matches_numpy() {
        // np.median(XS) == 8.5 ; np.median(ODD) == 3.0
        assert_eq!(median(&XS), Some(8.5));
        assert_eq!(median(&ODD), Some(3.0));
        assert_eq!(median(&[7.0]), Some(7.0));
        // Selection must give the same bits as sorting + interpolation.
        let v: Vec<f64> = (0..1000)
            .map(|i| ((i * 7919) % 1000) as f64 * 0.1)
            .collect();
        assert_eq!(median(&v), Some(quantile_sorted(&sorted(&v), 0.5)));
    }

    #[test]
    fn mean_std_cv_match_numpy() {
        // XS.mean() == 8.675 ; XS.std(ddof=1) == 3.6931806526804687
        // XS.std(ddof=1) / XS.mean() == 0.4257268763896794
        assert!(close(mean(&XS).unwrap(), 8.675));
        assert!(close(std_dev(&XS).unwrap(), 3.6931806526804687));
        assert!(close(
            coefficient_of_variation(&XS).unwrap(),
            0.4257268763896794
        ));
        // ODD.mean() == 15.428571428571429 ; ODD.std(ddof=1) == 37.5004761874528
        assert!(close(mean(&ODD).unwrap(), 15.428571428571429));
        assert!(close(std_dev(&ODD).unwrap(), 37.5004761874528));
    }

    #[test]
    fn std_dev_is_stable_for_large_close_values() {
        // np.std([1e9 + 1, 1e9 + 2, 1e9 + 3], ddof=1) == 1.0 exactly; the
        // one-pass formula would lose most digits here.
        assert_eq!(std_dev(&[1e9 + 1.0, 1e9 + 2.0, 1e9 + 3.0]), Some(1.0));
    }

    #[test]
    fn bad_input_gives_none() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[1.0, f64::NAN]), None);
        assert_eq!(median(&[1.0, f64::INFINITY]), None);
        assert_eq!(mean(&[]), None);
        assert_eq!(mean(&[f64::NAN]), None);
        assert_eq!(std_dev(&[1.0]), None);
        assert_eq!(std_dev(&[1.0, f64::NAN]), None);
        assert_eq!(coefficient_of_variation(&[-1.0, 1.0]), None);
        assert_eq!(Summary::of(&[]), None);
        assert_eq!(Summary::of(&[3.0]), None);
        assert_eq!(Summary::of(&[3.0, f64::NEG_INFINITY]), None);
    }

    #[test]
    fn summary_of_known_sample() {
        let s = Summary::of(&XS).unwrap();
        assert_eq!(s.n, 10);
        assert_eq!((s.min, s.max), (3.25, 15.5));
        // np.quantile(XS, [0.25, 0.5, 0.75]) == [6.75, 8.5, 10.75]
        assert_eq!((s.q1, s.median, s.q3), (6.75, 8.5, 10.75));
        assert!(close(s.mean, 8.675));
        assert!(close(s.std_dev, 3.6931806526804687));
        assert!(close(s.cv, 0.4257268763896794));

        // ODD: np.quantile(ODD, [0.25, 0.75]) == [1.5, 4.5]
        let o = Summary::of(&ODD).unwrap();
        assert_eq!(
            (o.min, o.q1, o.median, o.q3, o.max),
            (-7.0, 1.5, 3.0, 4.5, 100.0)
        );
    }

    #[test]
    fn summary_round_trips_through_json() {
        let s = Summary::of(&XS).unwrap();
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains("\"median\":8.5"), "{json}");
        assert_eq!(serde_json::from_str::<Summary>(&json).unwrap(), s);
    }
}
