//! Two-sample comparisons: Mann–Whitney U test, Hodges–Lehmann shift with
//! Moses' confidence interval, Welch's t test, and relative change.
//!
//! The samples are expected to be small (per-cluster medians, tens to a few
//! hundred per side); the rank methods are preferred because cycle counts have
//! heavy right tails.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

use super::interval::{Interval, valid_level};
use super::summary::{all_finite, mean, quantile_sorted, std_dev};
use super::u_dist::{tied_rank_sum_p, u_cdf};

/// How a [`MannWhitney`] p-value was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Exact null distribution of U.
    Exact,
    /// Normal approximation with tie and continuity corrections.
    Normal,
}

/// Result of [`mann_whitney`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MannWhitney {
    /// U statistic of the first sample `a`: the number of pairs with
    /// `a_i > b_j`, ties counting 1/2 (`scipy.stats.mannwhitneyu(a, b).statistic`).
    pub u: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// Whether `p_value` came from the exact distribution or the normal approximation.
    pub method: Method,
}

/// Result of [`welch_t`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Welch {
    /// `(mean(a) - mean(b)) / sqrt(var(a)/n_a + var(b)/n_b)`.
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value.
    pub p_value: f64,
}

/// Two-sided Mann–Whitney U (Wilcoxon rank-sum) test of `a` against `b`.
///
/// `u` is the U statistic of `a` (rank sum of `a` with mid-ranks for ties,
/// minus `n_a (n_a + 1) / 2`). The p-value is `2 P(U >= max(U_a, U_b))`,
/// capped at 1:
///
/// * [`Method::Exact`] when there are no ties (within or between samples) and
///   the exact distribution is small enough to compute (at least up to 60 + 60,
///   or 10 + 10 000); this equals `scipy.stats.mannwhitneyu(a, b,
///   method="exact")`;
/// * [`Method::Exact`] too with ties, up to 80 values in all: the distribution of
///   the rank sum over the arrangements of these mid-ranks, twice the smaller tail
///   (scipy's `permutation_test` of the rank sum, two-sided, enumerated);
/// * [`Method::Normal`] otherwise: normal approximation with the tie-corrected
///   variance and a continuity correction of 1/2, equal to
///   `scipy.stats.mannwhitneyu(a, b, method="asymptotic", use_continuity=True)`.
///   When every value is tied the variance is zero and the p-value is 1.
///
/// Returns `None` if either sample is empty or contains a non-finite value.
pub fn mann_whitney(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    if !valid_pair(a, b) {
        return None;
    }
    let (n1, n2) = (a.len() as f64, b.len() as f64);
    let ranks = Ranks::of(a, b);
    let u = ranks.sum_a - n1 * (n1 + 1.0) / 2.0;
    let u_max = u.max(n1 * n2 - u);

    if ranks.tie_term == 0.0
        && let Some(cdf) = u_cdf(a.len(), b.len())
    {
        // Without ties U is an integer, and P(U >= u) = P(U <= mn - u) by symmetry.
        let p = 2.0 * cdf[(n1 * n2 - u_max) as usize];
        return Some(MannWhitney {
            u,
            p_value: p.min(1.0),
            method: Method::Exact,
        });
    }

    // Ties: exact over the arrangements of these very ranks while that is cheap. The
    // normal approximation can give a p below any the data allow (4 against 4, all
    // tied within each side: 0.013 where no arrangement is rarer than 2/70).
    if ranks.tie_term > 0.0
        && let Some(p_value) = tied_rank_sum_p(&ranks.doubled, a.len(), ranks.doubled_sum_a)
    {
        return Some(MannWhitney {
            u,
            p_value,
            method: Method::Exact,
        });
    }

    let n = n1 + n2;
    let sigma = (n1 * n2 / 12.0 * ((n + 1.0) - ranks.tie_term / (n * (n - 1.0)))).sqrt();
    let p_value = if sigma > 0.0 {
        let z = (u_max - n1 * n2 / 2.0 - 0.5) / sigma;
        (2.0 * Normal::standard().sf(z)).min(1.0)
    } else {
        1.0
    };
    Some(MannWhitney {
        u,
        p_value,
        method: Method::Normal,
    })
}

/// Hodges–Lehmann estimate of the shift from `a` to `b`, with Moses'
/// distribution-free confidence interval.
///
/// The estimate is the median of all `n_a n_b` differences `b_j - a_i`. With
/// those differences sorted, `D_(1) <= ... <= D_(N)`, the interval is
/// `[D_(k), D_(N+1-k)]` where `k` is the number of values `u` with
/// `P(U <= u) < (1 - level) / 2` under the null distribution of the
/// Mann–Whitney U (Moses 1953; Hollander & Wolfe, *Nonparametric Statistical
/// Methods*, §4.3). That is R's `wilcox.test(b, a, conf.int = TRUE)` in its
/// exact mode, except where the level is out of reach (R then widens to the
/// full range with a warning; this returns `None`). The exact distribution is used whenever it is small enough (see
/// [`mann_whitney`]), with or without ties: ties only make the interval
/// conservative. Otherwise `k = ⌈n_a n_b / 2 - 1/2 - z σ⌉` with
/// `σ² = n_a n_b (n_a + n_b + 1) / 12` and `z` the standard normal
/// `(1 + level) / 2` quantile: the continuity-corrected normal approximation
/// of the same rule, within a rank or two of the exact `k`. (R's asymptotic
/// mode instead inverts the test numerically, so it differs slightly there.)
///
/// All `n_a n_b` differences are materialised and sorted, which is fine for
/// the intended sizes (up to a few tens of thousands of pairs).
///
/// Returns `None` if either sample is empty or contains a non-finite value,
/// if `level` is not strictly between 0 and 1, or if the samples are too
/// small to reach `level` even with the full range of differences (e.g.
/// 3 + 3 at 95 %).
pub fn hodges_lehmann(a: &[f64], b: &[f64], level: f64) -> Option<Interval> {
    if !valid_pair(a, b) || !valid_level(level) {
        return None;
    }
    let k = moses_rank(a.len(), b.len(), level)?;
    let mut diffs: Vec<f64> = b
        .iter()
        .flat_map(|&y| a.iter().map(move |&x| y - x))
        .collect();
    diffs.sort_unstable_by(f64::total_cmp);
    Some(Interval {
        estimate: quantile_sorted(&diffs, 0.5),
        lo: diffs[k - 1],
        hi: diffs[diffs.len() - k],
        level,
    })
}

/// Welch's unequal-variances t test of `a` against `b`, two-sided; equal to
/// `scipy.stats.ttest_ind(a, b, equal_var=False)`.
///
/// Returns `None` if either sample has fewer than two values or contains a
/// non-finite value, or if both samples are constant and equal (t is 0/0). Both
/// constant and different give t = ±∞ and p = 0, as scipy does.
pub fn welch_t(a: &[f64], b: &[f64]) -> Option<Welch> {
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let var_mean_a = std_dev(a)?.powi(2) / na;
    let var_mean_b = std_dev(b)?.powi(2) / nb;
    let se2 = var_mean_a + var_mean_b;
    if se2 == 0.0 {
        // Both constant: t is 0/0 or ±∞. Equal, no test; different, as sure as can be
        // (scipy: t = ±inf, p = 0).
        let (ma, mb) = (mean(a)?, mean(b)?);
        return (ma != mb).then_some(Welch {
            t: if ma > mb {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            },
            df: na + nb - 2.0,
            p_value: 0.0,
        });
    }
    let t = (mean(a)? - mean(b)?) / se2.sqrt();
    let df = se2 * se2 / (var_mean_a.powi(2) / (na - 1.0) + var_mean_b.powi(2) / (nb - 1.0));
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    Some(Welch {
        t,
        df,
        p_value: 2.0 * dist.sf(t.abs()),
    })
}

/// Welch's t test of `ln b` against `ln a` with the interval that goes with it: the
/// ratio of the geometric means `b / a`, and Welch's interval of the difference of the
/// mean logarithms mapped back by `exp`. Test and interval are one procedure (the
/// interval holds exactly the ratios the test would not reject at `1 - level`), and on
/// the log scale a ratio cannot reach zero, so no bound is ever at or below -100 %.
/// (Welch's interval of the plain means over `mean(a)` could: a half-width larger than
/// the mean says "-120 %".) Equal to `scipy.stats.ttest_ind(np.log(b), np.log(a),
/// equal_var=False)` and `np.exp` of its `confidence_interval(level)`. Both sides
/// constant and different give p = 0 and a point interval.
///
/// Returns `None` if a side has fewer than two values, a value is not finite and
/// positive, `level` is not strictly between 0 and 1, or both sides are constant and
/// equal (there is nothing to test).
pub fn welch_ratio(a: &[f64], b: &[f64], level: f64) -> Option<(Welch, Interval)> {
    if !valid_level(level) || a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (la, lb) = (logs(a)?, logs(b)?);
    // `welch_t`'s convention, `a` against `b`; the interval is of `b` over `a`.
    let test = welch_t(&la, &lb)?;
    let diff = mean(&lb)? - mean(&la)?;
    let se =
        (std_dev(&la)?.powi(2) / la.len() as f64 + std_dev(&lb)?.powi(2) / lb.len() as f64).sqrt();
    let half = if se == 0.0 {
        0.0
    } else {
        StudentsT::new(0.0, 1.0, test.df)
            .ok()?
            .inverse_cdf((1.0 + level) / 2.0)
            * se
    };
    Some((test, exp_interval(diff, diff - half, diff + half, level)))
}

/// Hodges–Lehmann estimate of the ratio `b / a` with Moses' interval: [`hodges_lehmann`]
/// of the logarithms, mapped back by `exp`. The estimate is the median of the `n_a n_b`
/// ratios `b_j / a_i` (the midpoint of the middle two taken in logs), and the interval
/// holds the ratios that [`mann_whitney`] (which ranks `ln x` as it ranks `x`) would
/// not reject at `1 - level`, exactly so without ties. A ratio rather than a
/// difference, because cycle counts scale: a layout or a clock that slows a case slows
/// it by a factor, and a ratio's interval can never reach zero. Equal to `exp` of R's
/// `wilcox.test(log(b), log(a), conf.int = TRUE)` estimate and interval in its exact mode.
///
/// Returns `None` where [`hodges_lehmann`] does, and when a value is not positive.
pub fn hodges_lehmann_ratio(a: &[f64], b: &[f64], level: f64) -> Option<Interval> {
    let shift = hodges_lehmann(&logs(a)?, &logs(b)?, level)?;
    Some(exp_interval(shift.estimate, shift.lo, shift.hi, level))
}

/// The [`hodges_lehmann_ratio`] with the p-value of the test its interval inverts
/// ([`moses_p_value`] of the logarithms): at any significance `s`, the interval at
/// `1 - s` holds 1 exactly when the p-value is at least `s`, ties or not, so a verdict
/// read off the interval and the p printed beside it never disagree.
///
/// Returns `None` where [`hodges_lehmann_ratio`] does.
pub fn hodges_lehmann_ratio_test(a: &[f64], b: &[f64], level: f64) -> Option<(f64, Interval)> {
    let (la, lb) = (logs(a)?, logs(b)?);
    let shift = hodges_lehmann(&la, &lb, level)?;
    let p_value = moses_p_value(&la, &lb)?;
    Some((
        p_value,
        exp_interval(shift.estimate, shift.lo, shift.hi, level),
    ))
}

/// The two-sided p-value of the rank test that Moses' interval ([`hodges_lehmann`])
/// inverts, for a shift of zero: `2 P(U <= c)`, where `c` is the smaller of the numbers
/// of pairs with `b_j - a_i <= 0` and with `b_j - a_i >= 0`, and `U` has the
/// distribution without ties that the interval's rank comes from (exact while
/// [`mann_whitney`]'s is, else its continuity-corrected normal approximation). The
/// interval at `level` excludes 0 exactly when this is below `1 - level`.
///
/// Without ties it is [`mann_whitney`]'s p-value. A pair tied across the samples
/// counts on both sides, against the shift, as the interval's closed ends count it, so
/// with ties it is at least `mann_whitney`'s exact p over the tied ranks, which can
/// reject where the interval still holds 0 (1000, 1000, 1001, 1001, 1002, 1002 against
/// four 1002 and two 1003: 0.032 there, 61/462 = 0.132 here, and the 95 %
/// interval of the shift [0, 2]).
///
/// Returns `None` if either sample is empty or contains a non-finite value.
pub fn moses_p_value(a: &[f64], b: &[f64]) -> Option<f64> {
    if !valid_pair(a, b) {
        return None;
    }
    let (mut at_or_below, mut at_or_above) = (0usize, 0usize);
    for &y in b {
        for &x in a {
            // The very differences the interval's ends are taken from.
            let d = y - x;
            at_or_below += usize::from(d <= 0.0);
            at_or_above += usize::from(d >= 0.0);
        }
    }
    let c = at_or_below.min(at_or_above);
    let (n1, n2) = (a.len(), b.len());
    let tail = match u_cdf(n1, n2) {
        Some(cdf) => cdf[c],
        None => {
            let (m, n) = (n1 as f64, n2 as f64);
            let sigma = (m * n * (m + n + 1.0) / 12.0).sqrt();
            Normal::standard().cdf((c as f64 + 0.5 - m * n / 2.0) / sigma)
        }
    };
    Some((2.0 * tail).min(1.0))
}

/// Change of `b` relative to `a`, in percent: the [`hodges_lehmann_ratio`] and its
/// interval, as `100 (r - 1)`. The estimate lies inside its interval, and both bounds
/// above -100 % (for ratios above about 1e-15, which f64 can still tell from zero).
///
/// Returns `None` where [`hodges_lehmann_ratio`] does.
pub fn relative_change(a: &[f64], b: &[f64], level: f64) -> Option<Interval> {
    hodges_lehmann_ratio(a, b, level).map(as_percent)
}

/// A ratio and its interval as a change in percent, `100 (r - 1)`.
pub fn as_percent(ratio: Interval) -> Interval {
    let pct = |r: f64| 100.0 * (r - 1.0);
    Interval {
        estimate: pct(ratio.estimate),
        lo: pct(ratio.lo),
        hi: pct(ratio.hi),
        level: ratio.level,
    }
}

/// The natural logarithms of `xs`, or `None` if one is not finite and positive.
fn logs(xs: &[f64]) -> Option<Vec<f64>> {
    xs.iter()
        .map(|&x| (x > 0.0 && x.is_finite()).then(|| x.ln()))
        .collect()
}

/// An interval found on the log scale, on the ratio scale. `exp` is monotone, so the
/// order holds; the clamp only guards the estimate against a last-bit rounding of it.
fn exp_interval(estimate: f64, lo: f64, hi: f64, level: f64) -> Interval {
    let (lo, hi) = (lo.exp(), hi.exp());
    Interval {
        estimate: estimate.exp().clamp(lo, hi),
        lo,
        hi,
        level,
    }
}

/// A p-value as reports print it: three significant digits, cut rather than rounded, so
/// that a p below a significance never prints at or above it (0.04996 beside
/// "regressed" at 0.05 reads 0.0499, not 0.0500); below 0.001, "< 0.001".
pub fn fmt_p(p: f64) -> String {
    fmt_p_with(p, "< 0.001".into())
}

/// A p-value as [`fmt_p`] prints it, and one below 0.001 in two significant digits
/// (`1.1e-5`): for messages that set it against a significance below 0.001.
pub fn fmt_p_exact(p: f64) -> String {
    fmt_p_with(p, format!("{p:.1e}"))
}

fn fmt_p_with(p: f64, below: String) -> String {
    if p < 0.001 {
        below
    } else {
        let decimals = (2 - p.log10().floor() as i32).max(0);
        let scale = 10f64.powi(decimals);
        // The nudge keeps a p that is a whole number of the last digit (0.29, held as
        // 0.28999…) from losing it.
        let cut = (p * scale * (1.0 + 1e-12)).floor() / scale;
        format!("{cut:.prec$}", prec = decimals as usize)
    }
}

fn valid_pair(a: &[f64], b: &[f64]) -> bool {
    !a.is_empty() && !b.is_empty() && all_finite(a) && all_finite(b)
}

/// Rank information of the pooled sample `a ∪ b`.
struct Ranks {
    /// Sum of the (mid-)ranks, 1-based, of the values of `a`.
    sum_a: f64,
    /// `Σ (t³ - t)` over groups of `t` tied values; zero iff there are no ties.
    tie_term: f64,
    /// Twice each pooled value's mid-rank (integers), in sorted order, and twice `sum_a`.
    doubled: Vec<u64>,
    doubled_sum_a: u64,
}

impl Ranks {
    fn of(a: &[f64], b: &[f64]) -> Ranks {
        let mut pooled: Vec<(f64, bool)> = a.iter().map(|&x| (x, true)).collect();
        pooled.extend(b.iter().map(|&x| (x, false)));
        pooled.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));

        let (mut sum_a, mut tie_term) = (0.0, 0.0);
        let (mut doubled, mut doubled_sum_a) = (Vec::with_capacity(pooled.len()), 0);
        let mut start = 0;
        for group in pooled.chunk_by(|x, y| x.0 == y.0) {
            let t = group.len() as f64;
            // Ranks start+1 ..= start+t share their mean.
            let mid_rank = start as f64 + (t + 1.0) / 2.0;
            let from_a = group.iter().filter(|x| x.1).count();
            sum_a += mid_rank * from_a as f64;
            tie_term += t * t * t - t;
            let twice = (2 * start + group.len() + 1) as u64;
            doubled.extend(std::iter::repeat_n(twice, group.len()));
            doubled_sum_a += twice * from_a as u64;
            start += group.len();
        }
        Ranks {
            sum_a,
            tie_term,
            doubled,
            doubled_sum_a,
        }
    }
}

/// The smallest two-sided p-value [`mann_whitney`] can give for samples of `n1` and `n2`
/// values: `2 / C(n1 + n2, n1)`, when every value of one sample lies beyond every value
/// of the other (with no ties). With few samples the test cannot be surer than this,
/// however large the difference. `None` for an empty sample.
pub fn mann_whitney_p_floor(n1: usize, n2: usize) -> Option<f64> {
    if n1 == 0 || n2 == 0 {
        return None;
    }
    // C(n1 + n2, k) as a product of ratios, exact enough in f64 and free of overflow.
    let k = n1.min(n2);
    let ways = (1..=k).fold(1.0, |c, i| c * (n1 + n2 - k + i) as f64 / i as f64);
    Some((2.0 / ways).min(1.0))
}

/// Whether samples of `n1` and `n2` values can give a [`hodges_lehmann`] interval at
/// `level` at all: 3 + 3 cannot at 95 %, whatever the values (the full range of the
/// differences covers only 90 %).
pub fn interval_reachable(n1: usize, n2: usize, level: f64) -> bool {
    valid_level(level) && n1 > 0 && n2 > 0 && moses_rank(n1, n2, level).is_some()
}

/// The 1-based rank `k` of the lower end of Moses' interval, or `None` if
/// even `k = 1` does not reach `level`.
fn moses_rank(n1: usize, n2: usize, level: f64) -> Option<usize> {
    let tail = (1.0 - level) / 2.0;
    let k = match u_cdf(n1, n2) {
        Some(cdf) => cdf.partition_point(|&c| c < tail),
        None => moses_rank_normal(n1, n2, tail),
    };
    (k >= 1).then_some(k)
}

/// Normal approximation of `#{u : P(U <= u) < tail}`: with the continuity
/// correction, `P(U <= u) ≈ Φ((u + 1/2 - mn/2) / σ)` (as [`moses_p_value`] takes it),
/// which is below `tail` exactly for `u < mn/2 - 1/2 - z σ`.
fn moses_rank_normal(n1: usize, n2: usize, tail: f64) -> usize {
    let (m, n) = (n1 as f64, n2 as f64);
    let sigma = (m * n * (m + n + 1.0) / 12.0).sqrt();
    let z = Normal::standard().inverse_cdf(1.0 - tail);
    (m * n / 2.0 - 0.5 - z * sigma).ceil().max(0.0) as usize
}

#[cfg(test)]
mod tests {

    #[test]
    fn welch_ratio_of_geometric_means_matches_scipy() {
        // scipy 1.17.1: r = stats.ttest_ind(np.log(B1), np.log(A1), equal_var=False)
        // ci = r.confidence_interval(0.95); d = mean(log(B1)) - mean(log(A1))
        // exp(d), exp(ci.low), exp(ci.high), r.pvalue
        //   -> 1.234529390953622 1.0695027946743088 1.425019948257767 0.008906825110815465
        let (test, c) = welch_ratio(&A1, &B1, 0.95).unwrap();
        assert_close(c.estimate, 1.234529390953622, 1e-12);
        assert_close(c.lo, 1.0695027946743088, 1e-9);
        assert_close(c.hi, 1.425019948257767, 1e-9);
        assert_close(test.p_value, 0.008906825110815465, 1e-9);
        // One wild process widens the interval, as it raises Welch's p (same recipe):
        //   -> 0.982678767431972 0.8835783273931876 1.092894121577868 0.7186212688300897
        let a = [
            1000.2, 999.8, 1000.5, 999.6, 1000.1, 1000.3, 999.9, 1000.0, 1000.4, 1600.0,
        ];
        let b = [
            1030.1, 1029.8, 1030.4, 1030.0, 1029.9, 1030.2, 1030.3, 1029.7, 1030.0, 1030.1,
        ];
        let (test, c) = welch_ratio(&a, &b, 0.95).unwrap();
        assert_close(c.estimate, 0.982678767431972, 1e-12);
        assert_close(c.lo, 0.8835783273931876, 1e-9);
        assert_close(c.hi, 1.092894121577868, 1e-9);
        assert_close(test.p_value, 0.7186212688300897, 1e-9);
        // Both constant and different: p = 0 and the interval is the point.
        let (test, c) = welch_ratio(&[100.0, 100.0], &[102.0, 102.0], 0.95).unwrap();
        assert_eq!(test.p_value, 0.0);
        assert_eq!((c.lo, c.hi), (c.estimate, c.estimate));
        assert!((c.estimate - 1.02).abs() < 1e-12);
        assert_eq!(welch_ratio(&[5.0, 5.0], &[5.0, 5.0], 0.95), None);
        assert_eq!(welch_ratio(&[5.0, 0.0], &[5.0, 6.0], 0.95), None);
        // A half-width larger than the mean took the plain interval below -100 %; on
        // the log scale the bound stays above it.
        let (_, c) = welch_ratio(&[10.0, 1000.0], &[1.0, 2.0], 0.95).unwrap();
        assert!(as_percent(c).lo > -100.0, "{c:?}");
    }

    #[test]
    fn p_values_print_with_three_significant_digits() {
        assert_eq!(fmt_p(0.0496), "0.0496");
        assert_eq!(fmt_p(0.04996), "0.0499");
        assert_eq!(fmt_p(0.0999), "0.0999");
        assert_eq!(fmt_p(0.00999), "0.00999");
        assert_eq!(fmt_p(0.05), "0.0500");
        assert_eq!(fmt_p(2.0 / 70.0), "0.0285");
        assert_eq!(fmt_p(0.29), "0.290");
        assert_eq!(fmt_p(0.57), "0.570");
        assert_eq!(fmt_p(0.5), "0.500");
        assert_eq!(fmt_p(1.0), "1.00");
        assert_eq!(fmt_p(0.00124), "0.00124");
        assert_eq!(fmt_p(0.000999), "< 0.001");
    }

    #[test]
    fn p_floor_is_the_p_of_two_samples_that_do_not_overlap() {
        // 2 / C(8, 4) = 2 / 70; scipy.stats.mannwhitneyu([1,2,3,4], [5,6,7,8],
        // method="exact").pvalue = 0.02857142857142857.
        assert!((mann_whitney_p_floor(4, 4).unwrap() - 2.0 / 70.0).abs() < 1e-15);
        let separated = mann_whitney(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0]).unwrap();
        assert!((separated.p_value - mann_whitney_p_floor(4, 4).unwrap()).abs() < 1e-15);
        // 2 / C(20, 10) = 2 / 184756.
        assert!((mann_whitney_p_floor(10, 10).unwrap() - 2.0 / 184_756.0).abs() < 1e-18);
        assert_eq!(mann_whitney_p_floor(3, 5), mann_whitney_p_floor(5, 3));
        // 2 / C(3, 1) would be 2/3; 2 / C(2, 1) = 1.
        assert!((mann_whitney_p_floor(1, 2).unwrap() - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(mann_whitney_p_floor(1, 1), Some(1.0));
        assert_eq!(mann_whitney_p_floor(0, 4), None);
    }

    use super::*;

    // Reference data. The formula-generated sets have no ties: 7919 and 6007
    // are coprime to 1000, and the 3.05 offset keeps b off a's grid. The
    // Python expressions below build the same f64 values.
    // A1, B1 = the literals below.
    const A1: [f64; 6] = [19.1, 22.4, 17.8, 25.0, 21.3, 18.6];
    const B1: [f64; 7] = [24.7, 26.1, 23.3, 28.9, 22.0, 27.5, 25.8];
    // A3, B3: integer cycle counts with many ties.
    const A3: [f64; 10] = [100., 102., 101., 100., 103., 104., 102., 101., 100., 105.];
    // Process medians split into modes, a third of them 25-45 % slower, on both sides.
    const BIMODAL_A: [f64; 10] = [
        1000.3, 1001.2, 999.7, 1000.9, 1002.1, 1280.4, 1301.7, 1350.2, 999.1, 1000.6,
    ];
    const BIMODAL_B: [f64; 10] = [
        1020.7, 1019.8, 1021.9, 1022.4, 1431.5, 1402.3, 1020.1, 1021.3, 1019.2, 1388.8,
    ];
    const B3: [f64; 11] = [
        103., 105., 104., 106., 103., 107., 105., 104., 108., 106., 103.,
    ];

    /// A(n) = [((i * 7919) % 1000) / 10.0 for i in range(n)]
    fn gen_a(n: usize) -> Vec<f64> {
        (0..n).map(|i| ((i * 7919) % 1000) as f64 / 10.0).collect()
    }

    /// B(n) = [((j * 6007) % 1000) / 10.0 + 3.05 for j in range(n)]
    fn gen_b(n: usize) -> Vec<f64> {
        (0..n)
            .map(|j| ((j * 6007) % 1000) as f64 / 10.0 + 3.05)
            .collect()
    }

    fn assert_close(got: f64, expected: f64, rel: f64) {
        assert!(
            (got - expected).abs() <= rel * expected.abs(),
            "got {got}, expected {expected}"
        );
    }

    #[test]
    fn mann_whitney_exact_small() {
        // stats.mannwhitneyu(A1, B1, method='exact')
        //   -> statistic 4.0, pvalue 0.013986013986013986
        let r = mann_whitney(&A1, &B1).unwrap();
        assert_eq!((r.u, r.method), (4.0, Method::Exact));
        assert_close(r.p_value, 0.013986013986013986, 1e-12);
        // Swapping the samples gives U_b = n_a n_b - U_a and the same p.
        let s = mann_whitney(&B1, &A1).unwrap();
        assert_eq!(s.u, 38.0);
        assert_eq!(s.p_value, r.p_value);
        // stats.mannwhitneyu([1,2,3,4], [5,6,7,8], method='exact')
        //   -> statistic 0.0, pvalue 0.02857142857142857 (= 2 / 70)
        let e = mann_whitney(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0]).unwrap();
        assert_eq!(e.u, 0.0);
        assert_close(e.p_value, 2.0 / 70.0, 1e-14);
    }

    #[test]
    fn mann_whitney_exact_medium() {
        // stats.mannwhitneyu(A(15), B(12), method='exact')
        //   -> statistic 156.0, pvalue 0.0007516167295410801
        let r = mann_whitney(&gen_a(15), &gen_b(12)).unwrap();
        assert_eq!((r.u, r.method), (156.0, Method::Exact));
        assert_close(r.p_value, 0.0007516167295410801, 1e-10);
        // stats.mannwhitneyu(A(40), B(45), method='exact')
        //   -> statistic 1428.0, pvalue 1.3965240959372343e-06
        let r = mann_whitney(&gen_a(40), &gen_b(45)).unwrap();
        assert_eq!((r.u, r.method), (1428.0, Method::Exact));
        assert_close(r.p_value, 1.3965240959372343e-06, 1e-9);
    }

    #[test]
    fn mann_whitney_small_ties_are_exact_over_their_arrangements() {
        // Enumerated: every choice of 10 of the 21 pooled positions for A3, with
        // scipy.stats.rankdata mid-ranks, p = 2 min(#(S >= s), #(S <= s)) / C(21, 10)
        //   -> 0.0012361219791560349. (The normal approximation,
        // stats.mannwhitneyu(A3, B3, method='asymptotic'), says 0.002266793558073938.)
        let r = mann_whitney(&A3, &B3).unwrap();
        assert_eq!((r.u, r.method), (11.5, Method::Exact));
        assert_close(r.p_value, 0.0012361219791560349, 1e-10);
        // All tied within each side, 4 against 4: no arrangement is rarer than 1 in 70,
        // so p is 2/70, the floor (the normal approximation gave 0.013, below it).
        let r = mann_whitney(&[100.0; 4], &[95.0; 4]).unwrap();
        assert_close(r.p_value, mann_whitney_p_floor(4, 4).unwrap(), 1e-12);
    }

    #[test]
    fn mann_whitney_large_ties_use_corrected_normal() {
        // stats.mannwhitneyu(A3 * 5, B3 * 5, method='asymptotic', use_continuity=True)
        //   -> statistic 287.5, pvalue 1.9323682087880326e-12 (105 values: beyond the
        // exact count with ties)
        let a: Vec<f64> = A3.repeat(5);
        let b: Vec<f64> = B3.repeat(5);
        let r = mann_whitney(&a, &b).unwrap();
        assert_eq!((r.u, r.method), (287.5, Method::Normal));
        assert_close(r.p_value, 1.9323682087880326e-12, 1e-8);
    }

    #[test]
    fn mann_whitney_large_uses_normal() {
        // stats.mannwhitneyu(A(120), B(150), method='asymptotic')
        //   -> statistic 8858.0, pvalue 0.8243643376726557
        let r = mann_whitney(&gen_a(120), &gen_b(150)).unwrap();
        assert_eq!((r.u, r.method), (8858.0, Method::Normal));
        assert_close(r.p_value, 0.8243643376726557, 1e-10);
    }

    #[test]
    fn mann_whitney_identical_samples_give_p_one() {
        // stats.mannwhitneyu([1,2,3,4,5], [1,2,3,4,5]) -> 12.5, 1.0
        let s = [1.0, 2.0, 3.0, 4.0, 5.0];
        let r = mann_whitney(&s, &s).unwrap();
        assert_eq!((r.u, r.p_value, r.method), (12.5, 1.0, Method::Exact));
        // stats.mannwhitneyu([7.]*4, [7.]*5) -> 10.0, 1.0 (zero variance)
        let r = mann_whitney(&[7.0; 4], &[7.0; 5]).unwrap();
        assert_eq!((r.u, r.p_value), (10.0, 1.0));
        // stats.mannwhitneyu([1, 4], [2, 3], method='exact') -> 2.0, 1.0
        let r = mann_whitney(&[1.0, 4.0], &[2.0, 3.0]).unwrap();
        assert_eq!((r.u, r.p_value, r.method), (2.0, 1.0, Method::Exact));
    }

    #[test]
    fn mann_whitney_bad_input() {
        assert_eq!(mann_whitney(&[], &[1.0]), None);
        assert_eq!(mann_whitney(&[1.0], &[]), None);
        assert_eq!(mann_whitney(&[1.0, f64::NAN], &[2.0]), None);
        assert_eq!(mann_whitney(&[1.0], &[f64::INFINITY]), None);
    }

    #[test]
    fn hodges_lehmann_matches_r_exact() {
        // R: wilcox.test(B1, A1, conf.int=TRUE, conf.level=L) -> conf.int, estimate
        //   L = 0.95: 0.90000000000000213 8.3000000000000007, 4.75
        //   L = 0.90: 2 7.5999999999999979, 4.75
        let ci = hodges_lehmann(&A1, &B1, 0.95).unwrap();
        assert_close(ci.estimate, 4.75, 1e-12);
        assert_close(ci.lo, 0.9000000000000021, 1e-12);
        assert_close(ci.hi, 8.3, 1e-12);
        let ci = hodges_lehmann(&A1, &B1, 0.90).unwrap();
        assert_close(ci.lo, 2.0, 1e-12);
        assert_close(ci.hi, 7.599999999999998, 1e-12);
        assert_eq!(ci.level, 0.90);

        // R (exact, since both n < 50 and no ties):
        //   wilcox.test(B(45), A(40), conf.int=TRUE, conf.level=L)
        //   L = 0.95: -44.950000000000003 -18.449999999999999, -31.699999999999999
        //   L = 0.99: -49.150000000000006 -14.25, -31.699999999999999
        let (a, b) = (gen_a(40), gen_b(45));
        let ci = hodges_lehmann(&a, &b, 0.95).unwrap();
        assert_close(ci.estimate, -31.7, 1e-12);
        assert_close(ci.lo, -44.95, 1e-12);
        assert_close(ci.hi, -18.45, 1e-12);
        let ci = hodges_lehmann(&a, &b, 0.99).unwrap();
        assert_close(ci.lo, -49.150000000000006, 1e-12);
        assert_close(ci.hi, -14.25, 1e-12);
    }

    #[test]
    fn hodges_lehmann_normal_approximation() {
        // Python re-implementation of the documented rule:
        //   d = np.sort(np.subtract.outer(B, A).ravel()); mn = m * n
        //   k = math.ceil(mn/2 - 0.5 - stats.norm.ppf(1 - (1-L)/2)
        //                 * math.sqrt(mn * (m + n + 1) / 12))
        //   (np.median(d), k, d[k-1], d[mn-k])
        // with A = A(120), B = B(150):
        //   L = 0.95 -> (0.8499999999999943, 7750, -6.65, 7.950000000000001)
        //   L = 0.90 -> (0.8499999999999943, 7951, -5.449999999999999, 6.75)
        let (a, b) = (gen_a(120), gen_b(150));
        assert_eq!(moses_rank(120, 150, 0.95), Some(7750));
        assert_eq!(moses_rank(120, 150, 0.90), Some(7951));
        let ci = hodges_lehmann(&a, &b, 0.95).unwrap();
        assert_close(ci.estimate, 0.8499999999999943, 1e-12);
        assert_close(ci.lo, -6.65, 1e-12);
        assert_close(ci.hi, 7.950000000000001, 1e-12);
        let ci = hodges_lehmann(&a, &b, 0.90).unwrap();
        assert_close(ci.lo, -5.449999999999999, 1e-12);
        assert_close(ci.hi, 6.75, 1e-12);
    }

    #[test]
    fn too_few_values_cannot_reach_a_95_percent_interval() {
        // Exact null distributions: P(U = 0) = 1 / C(n1 + n2, n1) must be below 0.025.
        assert!(!interval_reachable(3, 3, 0.95)); // 1/20
        assert!(!interval_reachable(3, 4, 0.95)); // 1/35
        assert!(interval_reachable(3, 5, 0.95)); // 1/56
        assert!(interval_reachable(4, 4, 0.95)); // 1/70
        assert!(interval_reachable(3, 3, 0.80)); // 1/20 < 0.1
        assert!(!interval_reachable(0, 10, 0.95));
        for (n1, n2) in [(3, 3), (3, 4), (3, 5), (4, 4), (10, 10)] {
            let a: Vec<f64> = (0..n1).map(|i| i as f64).collect();
            let b: Vec<f64> = (0..n2).map(|i| 100.0 + i as f64).collect();
            assert_eq!(
                interval_reachable(n1, n2, 0.95),
                hodges_lehmann(&a, &b, 0.95).is_some(),
                "{n1} + {n2}"
            );
        }
    }

    #[test]
    fn moses_rank_normal_is_close_to_exact() {
        // Exact k from scipy: cdf = _MWU(m, n).cdf(np.arange(m*n//2 + 1));
        //   k = int(np.sum(cdf < (1 - L) / 2))
        // (40, 45, .95) -> 678, (60, 60, .95) -> 1427, (30, 50, .99) -> 493.
        for (m, n, level, exact) in [
            (40, 45, 0.95, 678),
            (60, 60, 0.95, 1427),
            (30, 50, 0.99, 493),
        ] {
            assert_eq!(moses_rank(m, n, level), Some(exact));
            let approx = moses_rank_normal(m, n, (1.0 - level) / 2.0);
            assert!(
                approx.abs_diff(exact) <= 2,
                "{m} {n} {level}: {approx} vs {exact}"
            );
        }
    }

    /// Ties across the samples count against the shift, as the interval's closed ends
    /// do; without ties the p is Mann-Whitney's.
    #[test]
    fn moses_p_is_the_p_the_interval_inverts() {
        let a = [1000.0, 1000.0, 1001.0, 1001.0, 1002.0, 1002.0];
        let b = [1002.0, 1002.0, 1002.0, 1002.0, 1003.0, 1003.0];
        // 8 of the 36 pairs at or below 0 (the tied 1002s): 2 P(U <= 8) for 6 + 6,
        // counted by enumerating the 924 orderings.
        assert_close(moses_p_value(&a, &b).unwrap(), 61.0 / 462.0, 1e-12);
        let shift = hodges_lehmann(&a, &b, 0.95).unwrap();
        assert!(shift.contains(0.0), "{shift:?}");
        // The rank-sum test over the tied mid-ranks rejects at 5 %; printed beside
        // that interval, its p would contradict the "no change" read off it.
        assert!(mann_whitney(&a, &b).unwrap().p_value < 0.05);
        let (p, ratio) = hodges_lehmann_ratio_test(&a, &b, 0.95).unwrap();
        assert!(p >= 0.05 && ratio.contains(1.0), "{p} {ratio:?}");

        let (a, b) = (gen_a(12), gen_b(9));
        assert_close(
            moses_p_value(&a, &b).unwrap(),
            mann_whitney(&a, &b).unwrap().p_value,
            1e-12,
        );
        // Beyond the exact distribution: the same rule in the normal approximation.
        let a: Vec<f64> = (0..1100).map(|i| f64::from(i) * 1.001).collect();
        let b: Vec<f64> = (0..1000).map(|j| f64::from(j) * 1.1 + 0.37).collect();
        let mw = mann_whitney(&a, &b).unwrap();
        assert_eq!(mw.method, Method::Normal);
        assert_close(moses_p_value(&a, &b).unwrap(), mw.p_value, 1e-9);
        assert_eq!(moses_p_value(&[], &b), None);
        assert_eq!(moses_p_value(&[f64::NAN], &b), None);
    }

    #[test]
    fn hodges_lehmann_bad_input() {
        // 3 + 3: P(U <= 0) = 1/20 is not below 0.025 (95 %) or 0.05 (90 %),
        // so those levels are out of reach; 85 % (tail 0.075) gives k = 1,
        // the full range of the differences 1..=5.
        let (a, b) = ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]);
        assert_eq!(hodges_lehmann(&a, &b, 0.95), None);
        assert_eq!(hodges_lehmann(&a, &b, 0.90), None);
        let ci = hodges_lehmann(&a, &b, 0.85).unwrap();
        assert_eq!((ci.estimate, ci.lo, ci.hi), (3.0, 1.0, 5.0));
        assert_eq!(hodges_lehmann(&[], &b, 0.5), None);
        assert_eq!(hodges_lehmann(&a, &[f64::NAN; 4], 0.5), None);
        assert_eq!(hodges_lehmann(&A1, &B1, 1.0), None);
        assert_eq!(hodges_lehmann(&A1, &B1, f64::NAN), None);
    }

    #[test]
    fn welch_matches_scipy() {
        // stats.ttest_ind(a, b, equal_var=False) -> statistic, df, pvalue
        let cases: [(Vec<f64>, Vec<f64>, [f64; 3]); 4] = [
            // (A1, B1)
            (
                A1.to_vec(),
                B1.to_vec(),
                [
                    -3.340233824551866,
                    10.064217005791123,
                    0.0074228201063186675,
                ],
            ),
            // (A(15), B(12))
            (
                gen_a(15),
                gen_b(12),
                [5.0265565461414, 14.203735101639303, 0.00017726956997967422],
            ),
            // (A3, B3)
            (
                A3.to_vec(),
                B3.to_vec(),
                [
                    -4.119983580778248,
                    18.685077136550635,
                    0.0006004826702030524,
                ],
            ),
            // (A(120), B(150))
            (
                gen_a(120),
                gen_b(150),
                [-0.2267795763756689, 259.111081017039, 0.820773955638772],
            ),
        ];
        for (a, b, [t, df, p]) in cases {
            let w = welch_t(&a, &b).unwrap();
            assert_close(w.t, t, 1e-12);
            assert_close(w.df, df, 1e-12);
            assert_close(w.p_value, p, 1e-9);
        }
    }

    #[test]
    fn welch_bad_input() {
        assert_eq!(welch_t(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(welch_t(&[1.0, 2.0], &[]), None);
        assert_eq!(welch_t(&[1.0, f64::NAN], &[1.0, 2.0]), None);
        assert_eq!(welch_t(&[3.0, 3.0], &[3.0, 3.0, 3.0]), None);
        // Both constant and different: scipy.stats.ttest_ind([3, 3], [4, 4, 4],
        // equal_var=False) -> t = -inf, p = 0.
        let w = welch_t(&[3.0, 3.0], &[4.0, 4.0, 4.0]).unwrap();
        assert_eq!((w.t, w.p_value), (f64::NEG_INFINITY, 0.0));
        // One constant side is fine: df falls back to the other side's n - 1.
        let w = welch_t(&[3.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
        assert_eq!(w.df, 2.0);
    }

    /// Two samples, a level, and the estimate and interval expected.
    type KnownRatio<'a> = (&'a [f64], &'a [f64], f64, [f64; 3]);

    #[test]
    // The figures are as R printed them, to the last digit it gave.
    #[allow(clippy::excessive_precision)]
    fn ratio_and_its_interval_match_r() {
        // R 4.2.2: r <- wilcox.test(log(b), log(a), conf.int=TRUE, conf.level=L, exact=TRUE);
        // exp(r$estimate), exp(r$conf.int). Each set below: (a, b, L, estimate, lo, hi).
        let cases: [KnownRatio; 5] = [
            (
                &A1,
                &B1,
                0.95,
                [1.2318098626495515, 1.0401785714285714, 1.449438202247191],
            ),
            (
                &A1,
                &B1,
                0.90,
                [1.2318098626495515, 1.0938967136150231, 1.4032258064516128],
            ),
            // Bimodal: a third of the processes in a mode 25-45 % slower, on both sides.
            // The ratio of the medians of the process medians is 1.0205; the old
            // estimator could print such a ratio outside the interval of the shift.
            (
                &BIMODAL_A,
                &BIMODAL_B,
                0.95,
                [1.020540646936863, 1.0179622792136518, 1.0952046235551387],
            ),
            // Tiny: 4 against 4, the fewest processes that reach 95 %.
            (
                &[2231.5, 2230.2, 2233.9, 2229.4],
                &[2258.8, 2256.1, 2261.3, 2255.7],
                0.95,
                [1.0118866022850799, 1.0097587179372398, 1.014308782632098],
            ),
            // Wildly skewed: six orders of magnitude.
            (
                &[3.1, 47.9, 1210.5, 88000.2, 5.5e6, 17.3, 640.1],
                &[9.4, 150.2, 3999.7, 2.9e5, 1.6e7, 51.8, 2100.9, 7.7],
                0.95,
                [
                    2.6880860201289885,
                    0.0063610078479966982,
                    453.05421027964343,
                ],
            ),
        ];
        for (a, b, level, [estimate, lo, hi]) in cases {
            let r = hodges_lehmann_ratio(a, b, level).unwrap();
            assert_close(r.estimate, estimate, 1e-12);
            assert_close(r.lo, lo, 1e-12);
            assert_close(r.hi, hi, 1e-12);
            assert_eq!(r.level, level);
            let pct = relative_change(a, b, level).unwrap();
            assert_close(pct.estimate, 100.0 * (estimate - 1.0), 1e-9);
            assert_close(pct.lo, 100.0 * (lo - 1.0), 1e-9);
        }
        // R: wilcox.test(BIMODAL_B, BIMODAL_A, exact=TRUE)$p.value -> 0.028805559765312086;
        // the interval excludes 1 as the test rejects at 0.05.
        let p = mann_whitney(&BIMODAL_A, &BIMODAL_B).unwrap().p_value;
        assert_close(p, 0.028805559765312086, 1e-10);

        // A pure 3 % scaling of the same values, a constant ratio.
        let a: Vec<f64> = (0..30).map(|i| 1000.0 + i as f64).collect();
        let b: Vec<f64> = a.iter().map(|x| x * 1.03).collect();
        let ci = relative_change(&a, &b, 0.95).unwrap();
        assert_close(ci.estimate, 3.0, 1e-12);
        assert!(ci.lo < 3.0 && ci.hi > 3.0, "{ci:?}");
    }

    #[test]
    fn relative_change_bad_input() {
        assert_eq!(relative_change(&[], &[1.0], 0.95), None);
        assert_eq!(relative_change(&[-1.0; 10], &[1.0; 10], 0.95), None);
        assert_eq!(relative_change(&[0.0; 10], &[1.0; 10], 0.95), None);
        assert_eq!(relative_change(&[1.0, 2.0], &[3.0, 4.0], 0.95), None);
    }

    #[test]
    fn method_serialises_snake_case() {
        assert_eq!(serde_json::to_string(&Method::Exact).unwrap(), "\"exact\"");
        assert_eq!(
            serde_json::to_string(&Method::Normal).unwrap(),
            "\"normal\""
        );
    }
}

/// Properties of the one estimator every change and ratio is reported with, over the
/// shapes the host gives: process medians split into modes, quantised (tied) counts,
/// the fewest processes that give an interval, and values over orders of magnitude.
#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;
    use crate::verdict::{Verdict, verdict};

    /// Around `centre`, with 0.5 % noise, `slow` of them in a mode `factor` slower.
    fn bimodal(n: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Vec<f64>> {
        (500.0..5000.0f64, 1.25..1.45f64).prop_flat_map(move |(centre, factor)| {
            prop::collection::vec((-0.005..0.005f64, any::<bool>()), n.clone()).prop_map(
                move |xs| {
                    xs.into_iter()
                        .map(|(noise, slow)| {
                            centre * (1.0 + noise) * if slow { factor } else { 1.0 }
                        })
                        .collect()
                },
            )
        })
    }

    /// Whole cycle counts from a handful of values: ties within and across sides.
    fn tied(n: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Vec<f64>> {
        prop::collection::vec((1000u32..1004).prop_map(f64::from), n)
    }

    /// Log-uniform over twelve orders of magnitude.
    fn skewed(n: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Vec<f64>> {
        prop::collection::vec((-3.0..9.0f64).prop_map(|e| 10f64.powf(e)), n)
    }

    /// Continuous, so without ties: where test and interval are exact duals.
    fn smooth(n: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Vec<f64>> {
        (0.97..1.03f64).prop_flat_map(move |shift| {
            prop::collection::vec(-0.02..0.02f64, n.clone())
                .prop_map(move |xs| xs.into_iter().map(|x| 1000.0 * shift * (1.0 + x)).collect())
        })
    }

    /// Every change either test reports, at two significance levels: the estimate in
    /// its interval, no bound at or below -100 %, and a verdict the interval bears out.
    fn holds_everywhere(a: &[f64], b: &[f64]) -> Result<(), TestCaseError> {
        for significance in [0.05, 0.01] {
            let level = 1.0 - significance;
            let ratios = [
                hodges_lehmann_ratio(a, b, level),
                welch_ratio(a, b, level).map(|(_, r)| r),
            ];
            // The p printed beside the rank interval is the one it inverts, ties or not.
            if let Some((p, ratio)) = hodges_lehmann_ratio_test(a, b, level) {
                prop_assert_eq!(Some(ratio), hodges_lehmann_ratio(a, b, level));
                if (p - significance).abs() > 1e-9 {
                    prop_assert_eq!(
                        ratio.contains(1.0),
                        p >= significance,
                        "{:?} p {}",
                        ratio,
                        p
                    );
                }
            }
            for ratio in ratios.into_iter().flatten() {
                // No time can fall by 100 %: on the ratio scale the bound is above zero.
                prop_assert!(ratio.lo > 0.0, "{ratio:?}");
                let change = as_percent(ratio);
                let Interval {
                    estimate, lo, hi, ..
                } = change;
                prop_assert!(lo.is_finite() && hi.is_finite(), "{change:?}");
                prop_assert!(lo <= estimate && estimate <= hi, "{change:?}");
                // In percent, `100 (r - 1)` is -100 in f64 once r is below its epsilon
                // (Welch at 4 a side over twelve decades gets there); above, never.
                prop_assert!(lo > -100.0 || ratio.lo < f64::EPSILON, "{change:?}");
                let threshold = 1.0;
                let judged = verdict(&change, threshold, true);
                let holds_zero = lo <= 0.0 && 0.0 <= hi;
                prop_assert_eq!(judged == Verdict::NoChange, holds_zero, "{:?}", change);
                match judged {
                    Verdict::Regressed => prop_assert!(lo > threshold),
                    Verdict::Improved => prop_assert!(hi < -threshold),
                    Verdict::WithinNoise => prop_assert!(lo <= threshold && hi >= -threshold),
                    Verdict::NoChange => {}
                }
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn bimodal_process_medians(a in bimodal(6..=40), b in bimodal(6..=40)) {
            holds_everywhere(&a, &b)?;
        }

        #[test]
        fn tied_counts(a in tied(4..=30), b in tied(4..=30)) {
            holds_everywhere(&a, &b)?;
        }

        #[test]
        fn the_fewest_processes(a in smooth(4..=5), b in bimodal(4..=5)) {
            holds_everywhere(&a, &b)?;
            // 4 a side is the fewest with a 95 % interval; the ratio then always has one.
            prop_assert!(hodges_lehmann_ratio(&a, &b, 0.95).is_some());
        }

        #[test]
        fn wildly_skewed(a in skewed(4..=30), b in skewed(4..=30)) {
            holds_everywhere(&a, &b)?;
        }

        /// Without ties the interval holds 1 exactly when the test does not reject: a
        /// verdict read off the interval is the test's verdict.
        #[test]
        fn interval_and_test_are_duals(a in smooth(4..=40), b in smooth(4..=40)) {
            for significance in [0.05, 0.01] {
                let level = 1.0 - significance;
                let ratio = hodges_lehmann_ratio(&a, &b, level);
                let p = mann_whitney(&a, &b).unwrap().p_value;
                if let Some(r) = ratio {
                    prop_assert_eq!(r.contains(1.0), p >= significance, "{:?} p {}", r, p);
                }
                let (w, r) = welch_ratio(&a, &b, level).unwrap();
                if (w.p_value - significance).abs() > 1e-9 {
                    prop_assert_eq!(r.contains(1.0), w.p_value >= significance, "{:?} p {}", r, w.p_value);
                }
            }
        }
    }
}
