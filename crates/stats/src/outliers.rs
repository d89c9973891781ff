//! Outlier counts by Tukey's fences, as criterion.rs reports them.

use serde::{Deserialize, Serialize};

use super::summary::quantile_sorted;

/// Numbers of values outside Tukey's fences, by side and severity.
#[derive(Serialize, Deserialize, Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outliers {
    /// Values below the low outer fence, `q1 - 3 iqr`.
    pub low_severe: usize,
    /// Values between the low outer and low inner fences (`q1 - 1.5 iqr`).
    pub low_mild: usize,
    /// Values between the high inner (`q3 + 1.5 iqr`) and high outer fences.
    pub high_mild: usize,
    /// Values above the high outer fence, `q3 + 3 iqr`.
    pub high_severe: usize,
}

impl Outliers {
    /// Number of outliers of any kind.
    pub fn total(&self) -> usize {
        self.low_severe + self.low_mild + self.high_mild + self.high_severe
    }
}

/// Counts the outliers of `xs` (any order) with Tukey's inner (1.5 IQR) and
/// outer (3 IQR) fences, with criterion.rs's conventions:
///
/// * quartiles `q1`, `q3` are type-7 quantiles ([`quantile_sorted`]), and
///   `iqr = q3 - q1`;
/// * low severe: `x < q1 - 3 iqr`;
///   low mild: `q1 - 3 iqr <= x < q1 - 1.5 iqr`;
///   high mild: `q3 + 1.5 iqr < x <= q3 + 3 iqr`;
///   high severe: `x > q3 + 3 iqr`.
///
/// A value exactly on a fence therefore belongs to the less extreme class.
/// NaN values are ignored (neither counted nor used for the quartiles);
/// an empty input has no outliers.
pub fn tukey(xs: &[f64]) -> Outliers {
    let mut sorted: Vec<f64> = xs.iter().copied().filter(|x| !x.is_nan()).collect();
    sorted.sort_unstable_by(f64::total_cmp);
    let f = Fences::of_sorted(&sorted);
    let mut out = Outliers::default();
    for &x in &sorted {
        if x < f.low_outer {
            out.low_severe += 1;
        } else if x < f.low_inner {
            out.low_mild += 1;
        } else if x > f.high_outer {
            out.high_severe += 1;
        } else if x > f.high_inner {
            out.high_mild += 1;
        }
    }
    out
}

/// Tukey's fences of ascending `sorted`: inner at 1.5 IQR beyond the quartiles, outer
/// at 3 IQR, quartiles as [`quantile_sorted`] gives them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fences {
    /// First quartile.
    pub q1: f64,
    /// Third quartile.
    pub q3: f64,
    /// `q1 - 3 iqr`: below it a value is a severe outlier.
    pub low_outer: f64,
    /// `q1 - 1.5 iqr`: below it a value is an outlier.
    pub low_inner: f64,
    /// `q3 + 1.5 iqr`: above it a value is an outlier.
    pub high_inner: f64,
    /// `q3 + 3 iqr`: above it a value is a severe outlier.
    pub high_outer: f64,
}

impl Fences {
    /// The fences of `sorted`, which must be ascending (not checked); all NaN when empty.
    pub fn of_sorted(sorted: &[f64]) -> Fences {
        let q1 = quantile_sorted(sorted, 0.25);
        let q3 = quantile_sorted(sorted, 0.75);
        let iqr = q3 - q1;
        Fences {
            q1,
            q3,
            low_outer: q1 - 3.0 * iqr,
            low_inner: q1 - 1.5 * iqr,
            high_inner: q3 + 1.5 * iqr,
            high_outer: q3 + 3.0 * iqr,
        }
    }
}

/// A box plot's worth of a sample: small enough to keep with every case instead of the
/// samples themselves.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct BoxPlot {
    /// First quartile (type 7, as [`quantile_sorted`]).
    pub q1: f64,
    /// Median (type 7: the mean of the middle two for an even count).
    pub median: f64,
    /// Third quartile (type 7).
    pub q3: f64,
    /// The smallest value inside the inner fences, as box plots draw their whiskers
    /// (the quartile itself where none is).
    pub whisker_lo: f64,
    /// The largest value inside the inner fences (`q3` where none is).
    pub whisker_hi: f64,
    /// At most `marked` values beyond each inner fence, ascending, evenly spaced by rank
    /// through them and always including the most extreme; [`tukey`] counts them all.
    pub outliers: Vec<f64>,
}

impl BoxPlot {
    /// The box plot of `xs` (any order, no NaN), marking at most `marked` outliers a side.
    pub fn of(xs: &[f64], marked: usize) -> BoxPlot {
        let mut sorted = xs.to_vec();
        sorted.sort_by(f64::total_cmp);
        let f = Fences::of_sorted(&sorted);
        let inside = |x: &&f64| (f.low_inner..=f.high_inner).contains(*x);
        let low: Vec<f64> = sorted
            .iter()
            .copied()
            .filter(|&x| x < f.low_inner)
            .collect();
        let high: Vec<f64> = sorted
            .iter()
            .copied()
            .filter(|&x| x > f.high_inner)
            .collect();
        let mut outliers = evenly_by_rank(&low, marked, true);
        outliers.extend(evenly_by_rank(&high, marked, false));
        BoxPlot {
            q1: f.q1,
            median: quantile_sorted(&sorted, 0.5),
            q3: f.q3,
            whisker_lo: sorted.iter().find(inside).copied().unwrap_or(f.q1),
            whisker_hi: sorted.iter().rev().find(inside).copied().unwrap_or(f.q3),
            outliers,
        }
    }
}

/// At most `k` values of ascending `xs`, evenly spaced by rank, first and last included
/// (for one, the most extreme: the first of `low` outliers, else the last).
fn evenly_by_rank(xs: &[f64], k: usize, low: bool) -> Vec<f64> {
    if xs.len() <= k {
        return xs.to_vec();
    }
    if k < 2 {
        // No room for both ends: the one farthest from the median, for one mark.
        let extreme = if low { xs.first() } else { xs.last() };
        return extreme.copied().into_iter().take(k).collect();
    }
    (0..k).map(|i| xs[i * (xs.len() - 1) / (k - 1)]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 17 values, so the quartiles are exactly the 5th and 13th order
    /// statistics: q1 = 0, q3 = 10, iqr = 10, fences at -30, -15, 25, 40.
    /// Several values sit exactly on a fence to pin down the inequalities.
    /// Reference (criterion's rules in numpy):
    ///   q1, q3 = np.quantile(xs, [.25, .75]); iqr = q3 - q1
    ///   -> (0.0, 10.0); fences (-30.0, -15.0, 25.0, 40.0)
    ///   counts {low severe: 1, low mild: 2, high mild: 2, high severe: 1}
    const XS: [f64; 17] = [
        40.5, 3.0, -15.0, 25.0, 0.0, 7.0, -30.0, 1.0, 10.0, 40.0, 2.0, -15.5, 25.5, 4.0, 6.0,
        -31.0, 5.0,
    ];

    #[test]
    fn known_counts_with_values_on_the_fences() {
        let expected = Outliers {
            low_severe: 1,
            low_mild: 2,
            high_mild: 2,
            high_severe: 1,
        };
        assert_eq!(tukey(&XS), expected);
        assert_eq!(expected.total(), 6);
    }

    #[test]
    fn nan_is_ignored() {
        let mut with_nan = XS.to_vec();
        with_nan.extend([f64::NAN, f64::NAN]);
        assert_eq!(tukey(&with_nan), tukey(&XS));
    }

    #[test]
    fn degenerate_inputs_have_no_outliers() {
        assert_eq!(tukey(&[]), Outliers::default());
        assert_eq!(tukey(&[f64::NAN]), Outliers::default());
        assert_eq!(tukey(&[5.0; 10]), Outliers::default());
        assert_eq!(Outliers::default().total(), 0);
    }

    #[test]
    fn constant_sample_makes_any_other_value_severe() {
        // iqr = 0 collapses all four fences onto the quartile.
        let xs = [5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 4.0, 6.0];
        let expected = Outliers {
            low_severe: 1,
            low_mild: 0,
            high_mild: 0,
            high_severe: 1,
        };
        assert_eq!(tukey(&xs), expected);
    }

    #[test]
    fn box_plot_of_the_fence_sample() {
        // numpy on XS: quartiles (0, 10), median 4; inner fences -15 and 25, so the
        // whiskers are the values on them (-15, 25); beyond: -31, -30, -15.5 and 25.5,
        // 40, 40.5.
        let b = BoxPlot::of(&XS, 12);
        assert_eq!((b.q1, b.median, b.q3), (0.0, 4.0, 10.0));
        assert_eq!((b.whisker_lo, b.whisker_hi), (-15.0, 25.0));
        assert_eq!(b.outliers, [-31.0, -30.0, -15.5, 25.5, 40.0, 40.5]);
        let outliers = tukey(&XS);
        assert_eq!(b.outliers.len(), outliers.total());
    }

    #[test]
    fn box_plot_marks_at_most_k_outliers_a_side_keeping_the_extremes() {
        // 0..=99 plus 20 high values 1000..1019: type-7 quartiles (numpy.quantile) at
        // ranks 29.75 and 89.25 of 120, so 29.75 and 89.25; the inner fence is 178.5, and
        // all 20 lie beyond it.
        let mut xs: Vec<f64> = (0..100).map(f64::from).collect();
        xs.extend((1000..1020).map(f64::from));
        let b = BoxPlot::of(&xs, 5);
        assert_eq!((b.q1, b.q3), (29.75, 89.25));
        assert_eq!(b.whisker_hi, 99.0);
        assert_eq!(b.whisker_lo, 0.0);
        // Ranks 0, 4, 9, 14, 19 of the 20.
        assert_eq!(b.outliers, [1000.0, 1004.0, 1009.0, 1014.0, 1019.0]);
    }

    #[test]
    fn one_mark_a_side_is_the_most_extreme_and_none_is_none() {
        // q1 0.5, q3 5.5: inner fences at -7 and 13.
        let xs = [
            -100.0, -90.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 90.0, 100.0,
        ];
        assert_eq!(BoxPlot::of(&xs, 1).outliers, [-100.0, 100.0]);
        assert!(BoxPlot::of(&xs, 0).outliers.is_empty());
        assert_eq!(
            BoxPlot::of(&xs, 2).outliers,
            xs[..2].iter().chain(&xs[9..]).copied().collect::<Vec<_>>()
        );
    }

    #[test]
    fn box_plot_of_a_constant_sample_is_a_point() {
        let b = BoxPlot::of(&[3.0; 7], 12);
        assert_eq!(
            (b.q1, b.median, b.q3, b.whisker_lo, b.whisker_hi),
            (3.0, 3.0, 3.0, 3.0, 3.0)
        );
        assert!(b.outliers.is_empty());
    }
}
