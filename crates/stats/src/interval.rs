//! Confidence intervals: the [`Interval`] type and the distribution-free
//! interval for a median.

use serde::{Deserialize, Serialize};
use statrs::distribution::{Binomial, DiscreteCDF};

use super::summary::{all_finite, quantile_sorted};

/// A point estimate with a confidence interval `[lo, hi]` at confidence
/// `level` (a fraction, e.g. 0.95).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The point estimate.
    pub estimate: f64,
    /// Lower end of the interval.
    pub lo: f64,
    /// Upper end of the interval.
    pub hi: f64,
    /// Confidence level of `[lo, hi]`, as a fraction (0.95 for 95 %).
    pub level: f64,
}

/// Whether `level` is a usable confidence level: strictly between 0 and 1
/// (false for NaN).
pub(crate) fn valid_level(level: f64) -> bool {
    level > 0.0 && level < 1.0
}

impl Interval {
    /// Larger of the distances from the estimate to either end, relative to
    /// the magnitude of the estimate: `max(estimate - lo, hi - estimate) /
    /// |estimate|`. A precision measure ("±2 %" is 0.02); ∞ or NaN when the
    /// estimate is zero.
    pub fn half_width_rel(&self) -> f64 {
        (self.estimate - self.lo).max(self.hi - self.estimate) / self.estimate.abs()
    }

    /// Whether `lo <= x <= hi` (both ends included).
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }
}

/// Distribution-free confidence interval for the population median, from
/// order statistics.
///
/// The number of observations below the true median is Binomial(n, 1/2), so
/// the interval `[x_(k), x_(n+1-k)]` (1-based order statistics) covers the
/// median with probability at least `1 - 2 P(B <= k - 1)` for any continuous
/// distribution. This picks the largest `k` whose coverage is at least `level`,
/// so the actual coverage is `level` or a little more (e.g. n = 100 at 95 %
/// gives `x_(40)`, `x_(61)` with coverage 96.5 %). It is the interval of
/// `scipy.stats.quantile_test(x, q=median).confidence_interval(level)`.
/// The estimate is the sample median.
///
/// Returns `None` if `sorted` is empty, contains a non-finite value, is not in
/// ascending order, if `level` is not strictly between 0 and 1, or if `n` is
/// too small for even the full range `[min, max]` to reach `level` (coverage
/// `1 - 2^(1-n)`: at 95 % that needs n >= 6). Claiming the full range at a
/// lower coverage than asked would be misleading, so no interval is given.
pub fn median_ci(sorted: &[f64], level: f64) -> Option<Interval> {
    if sorted.is_empty() || !all_finite(sorted) || !sorted.is_sorted() || !valid_level(level) {
        return None;
    }
    let n = sorted.len() as u64;
    let binom = Binomial::new(0.5, n).ok()?;
    let tail = (1.0 - level) / 2.0;
    if binom.cdf(0) > tail {
        return None;
    }
    // Largest j = k - 1 with P(B <= j) <= tail, by bisection on the CDF:
    // the invariant is cdf(lo) <= tail < cdf(hi), and cdf(n/2) >= 1/2 > tail.
    let (mut lo, mut hi) = (0, n / 2);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if binom.cdf(mid) <= tail {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let k = lo as usize + 1;
    Some(Interval {
        estimate: quantile_sorted(sorted, 0.5),
        lo: sorted[k - 1],
        hi: sorted[sorted.len() - k],
        level,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_to(n: usize) -> Vec<f64> {
        (1..=n).map(|i| i as f64).collect()
    }

    #[test]
    fn median_ci_known_order_statistics() {
        // Each case: (n, level, k, n + 1 - k), with data 1..=n so that the
        // i-th order statistic is i. k from
        //   max(k for k in range(1, n//2 + 1)
        //       if scipy.stats.binom.cdf(k - 1, n, 0.5) <= (1 - level) / 2)
        // n = 100 / 95 % is the classic textbook answer (40th and 61st), also
        //   scipy.stats.quantile_test(np.arange(1, 101), q=50)
        //       .confidence_interval(0.95) == (40.0, 61.0)
        // n = 20 / 95 %: quantile_test(np.arange(1, 21), q=10) gives (6, 15).
        let cases = [
            (100, 0.95, 40, 61),
            (100, 0.99, 37, 64),
            (6, 0.95, 1, 6),
            (10, 0.90, 2, 9),
            (20, 0.95, 6, 15),
            (37, 0.80, 15, 23),
            (1000, 0.95, 469, 532),
        ];
        for (n, level, lo, hi) in cases {
            let ci = median_ci(&one_to(n), level).unwrap();
            assert_eq!(
                (ci.lo, ci.hi),
                (lo as f64, hi as f64),
                "n={n} level={level}"
            );
            assert_eq!(ci.estimate, (n as f64 + 1.0) / 2.0);
            assert_eq!(ci.level, level);
        }
    }

    #[test]
    fn median_ci_rejects_bad_input() {
        // n = 5: the full range covers 1 - 2 / 2^5 = 93.75 % < 95 %.
        assert_eq!(median_ci(&one_to(5), 0.95), None);
        assert!(median_ci(&one_to(5), 0.90).is_some());
        assert_eq!(median_ci(&[], 0.95), None);
        assert_eq!(median_ci(&[3.0, 2.0, 1.0, 4.0, 5.0, 6.0], 0.95), None);
        let mut with_nan = one_to(10);
        with_nan[9] = f64::NAN;
        assert_eq!(median_ci(&with_nan, 0.9), None);
        for level in [0.0, 1.0, -0.5, f64::NAN] {
            assert_eq!(median_ci(&one_to(100), level), None);
        }
    }

    #[test]
    fn interval_helpers() {
        let ci = Interval {
            estimate: 100.0,
            lo: 97.0,
            hi: 104.0,
            level: 0.95,
        };
        assert_eq!(ci.half_width_rel(), 0.04);
        assert!(ci.contains(97.0) && ci.contains(104.0) && ci.contains(100.0));
        assert!(!ci.contains(96.9) && !ci.contains(104.1) && !ci.contains(f64::NAN));
        // A negative estimate still gives a positive relative width.
        let neg = Interval {
            estimate: -2.0,
            lo: -3.0,
            hi: -1.5,
            level: 0.9,
        };
        assert_eq!(neg.half_width_rel(), 0.5);
    }
}
