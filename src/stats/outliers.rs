//! Outlier counts by Tukey's fences, as criterion.rs reports them.

use serde::{Deserialize, Serialize};

use super::summary::quantile_sorted;

/// Numbers of values outside Tukey's fences, by side and severity.
#[derive(Serialize, Deserialize, Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outliers {
    pub low_severe: usize,
    pub low_mild: usize,
    pub high_mild: usize,
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
    let q1 = quantile_sorted(&sorted, 0.25);
    let q3 = quantile_sorted(&sorted, 0.75);
    let iqr = q3 - q1;
    let (low_severe, low_mild) = (q1 - 3.0 * iqr, q1 - 1.5 * iqr);
    let (high_mild, high_severe) = (q3 + 1.5 * iqr, q3 + 3.0 * iqr);

    let mut out = Outliers::default();
    for &x in &sorted {
        if x < low_severe {
            out.low_severe += 1;
        } else if x < low_mild {
            out.low_mild += 1;
        } else if x > high_severe {
            out.high_severe += 1;
        } else if x > high_mild {
            out.high_mild += 1;
        }
    }
    out
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
}
