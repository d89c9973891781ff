//! Exact null distribution of the Mann–Whitney U statistic, without ties and, for
//! small samples, conditional on the ties.

/// Largest number of arrangements `C(n1 + n2, n1)` handled exactly. Every
/// intermediate count is bounded by this, far inside `i128`.
const MAX_ARRANGEMENTS: u128 = 1 << 120;

/// Largest number of distinct values of U (`n1 * n2 + 1`) handled exactly,
/// to bound memory when one sample is tiny and the other huge.
const MAX_SUPPORT: usize = 1 << 20;

/// `P(U <= u)` for `u = 0..=n1 * n2`, where U is the Mann–Whitney statistic of
/// samples of sizes `n1` and `n2` under the null hypothesis (every ordering of
/// the pooled sample equally likely, no ties).
///
/// Returns `None` when the distribution is too large to compute exactly (see
/// `MAX_ARRANGEMENTS` and `MAX_SUPPORT`); callers then fall back on the normal
/// approximation, which is accurate at those sizes. 50 + 50 or 10 + 10 000
/// are still exact.
pub(crate) fn u_cdf(n1: usize, n2: usize) -> Option<Vec<f64>> {
    let (m, n) = (n1.min(n2), n1.max(n2));
    let support = m.checked_mul(n)?.checked_add(1)?;
    if support > MAX_SUPPORT {
        return None;
    }
    let total = arrangements(m, n)?;

    // The number of orderings with U = u is the coefficient of q^u in the
    // Gaussian binomial [m + n choose m]_q, built up by the exact recurrence
    // [n + i choose i]_q = [n + i - 1 choose i - 1]_q (1 - q^(n+i)) / (1 - q^i).
    // Integer arithmetic makes the intermediate cancellations exact: O(m^2 n)
    // additions instead of the O(m^2 n^2) of the textbook recurrence.
    let mut coef = vec![0i128; support + m];
    coef[0] = 1;
    for i in 1..=m {
        let degree = (i - 1) * n;
        let s = n + i;
        // Multiply by (1 - q^s), from the top so each read is still the old value.
        for j in (s..=degree + s).rev() {
            coef[j] -= coef[j - s];
        }
        // Divide by (1 - q^i): the inverse of the multiplication, from the bottom.
        for j in i..=degree + s {
            coef[j] += coef[j - i];
        }
    }
    debug_assert!(coef[support..].iter().all(|&c| c == 0));

    let total = total as f64;
    let mut cumulative = 0i128;
    Some(
        coef[..support]
            .iter()
            .map(|&c| {
                cumulative += c;
                cumulative as f64 / total
            })
            .collect(),
    )
}

/// Largest pooled sample whose null distribution with ties is computed exactly: the
/// count runs over (values, chosen, rank sum), about `N² n1 N / 2` additions, 20 million
/// at 40 + 40.
pub(crate) const MAX_TIED_POOLED: usize = 80;

/// Two-sided exact p-value of the rank sum of the first sample, conditional on the
/// ties: under the null every choice of `n1` of the pooled (mid-)ranks is equally
/// likely, tied ranks included, and the p-value is twice the smaller tail,
/// `2 min(P(S >= s), P(S <= s))`, capped at 1 (scipy's `permutation_test` with
/// `alternative="two-sided"` over the same arrangements). Without ties it equals the
/// exact p from [`u_cdf`].
///
/// `doubled_ranks` are twice the pooled sample's mid-ranks (integers: a tie group
/// starting after `k` values with `t` members has mid-rank `k + (t + 1) / 2`), and
/// `observed` is twice the first sample's rank sum. `None` when the pooled sample is
/// larger than [`MAX_TIED_POOLED`] or `n1` is not below its size.
pub(crate) fn tied_rank_sum_p(doubled_ranks: &[u64], n1: usize, observed: u64) -> Option<f64> {
    let n = doubled_ranks.len();
    if n > MAX_TIED_POOLED || n1 == 0 || n1 >= n {
        return None;
    }
    let mut sorted = doubled_ranks.to_vec();
    sorted.sort_unstable();
    let top = sorted[n - n1..].iter().sum::<u64>() as usize;
    // ways[j][s]: subsets of j of the ranks seen so far with doubled rank sum s. Counts
    // reach C(80, 40) ~ 1e23, beyond exact integers in f64 but not its relative precision.
    let mut ways = vec![vec![0.0f64; top + 1]; n1 + 1];
    ways[0][0] = 1.0;
    for (i, &r) in doubled_ranks.iter().enumerate() {
        let r = r as usize;
        for j in (1..=n1.min(i + 1)).rev() {
            let (below, above) = ways.split_at_mut(j);
            let (from, to) = (&below[j - 1], &mut above[0]);
            for s in (r..=top).rev() {
                to[s] += from[s - r];
            }
        }
    }
    let dist = &ways[n1];
    let total: f64 = dist.iter().sum();
    let observed = observed as usize;
    if observed > top {
        return None;
    }
    let at_most: f64 = dist[..=observed].iter().sum();
    let at_least: f64 = dist[observed..].iter().sum();
    Some((2.0 * at_most.min(at_least) / total).min(1.0))
}

/// `C(m + n, m)` if it is at most `MAX_ARRANGEMENTS`.
fn arrangements(m: usize, n: usize) -> Option<u128> {
    let mut c: u128 = 1;
    for i in 1..=m as u128 {
        // c = C(n + i - 1, i - 1) here, so c (n + i) / i = C(n + i, i) exactly.
        c = c.checked_mul(n as u128 + i)? / i;
        if c > MAX_ARRANGEMENTS {
            return None;
        }
    }
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: U of `a` for every choice of which pooled ranks belong to
    /// `a`, counted over all `C(m + n, m)` subsets.
    fn brute_force_counts(m: usize, n: usize) -> Vec<u64> {
        let mut counts = vec![0u64; m * n + 1];
        for mask in 0u32..(1 << (m + n)) {
            if mask.count_ones() as usize != m {
                continue;
            }
            // U counts pairs (a_i, b_j) with a_i > b_j: for each member of a,
            // the number of b-positions below it.
            let mut u = 0;
            let mut b_below = 0;
            for pos in 0..m + n {
                if mask & (1 << pos) != 0 {
                    u += b_below;
                } else {
                    b_below += 1;
                }
            }
            counts[u] += 1;
        }
        counts
    }

    #[test]
    fn matches_brute_force_enumeration() {
        for (m, n) in [
            (1, 1),
            (1, 5),
            (2, 3),
            (3, 3),
            (4, 7),
            (7, 4),
            (6, 8),
            (9, 9),
        ] {
            let counts = brute_force_counts(m, n);
            let total: u64 = counts.iter().sum();
            let cdf = u_cdf(m, n).unwrap();
            let mut acc = 0;
            for (u, &c) in counts.iter().enumerate() {
                acc += c;
                let expected = acc as f64 / total as f64;
                assert!((cdf[u] - expected).abs() < 1e-15, "m={m} n={n} u={u}");
            }
        }
    }

    #[test]
    fn known_tail_probabilities() {
        // scipy.stats._mannwhitneyu._MWU(5, 6).cdf(3) == 0.015151515151515152
        // i.e. 1 + 1 + 2 + 3 = 7 of the C(11, 5) = 462 orderings have U <= 3.
        assert!((u_cdf(5, 6).unwrap()[3] - 7.0 / 462.0).abs() < 1e-16);
        // Symmetry P(U <= u) = P(U >= mn - u) and total mass 1, at 50 + 50.
        let cdf = u_cdf(50, 50).unwrap();
        assert_eq!(cdf[2500], 1.0);
        for u in [0, 100, 1000, 1249] {
            let upper_tail = 1.0 - cdf[2500 - u - 1];
            assert!((cdf[u] - upper_tail).abs() < 1e-14, "u={u}");
        }
    }

    fn doubled_midranks(a: &[f64], b: &[f64]) -> (Vec<u64>, u64) {
        let pooled: Vec<f64> = a.iter().chain(b).copied().collect();
        let doubled: Vec<u64> = pooled
            .iter()
            .map(|x| {
                let below = pooled.iter().filter(|y| *y < x).count() as u64;
                let tied = pooled.iter().filter(|y| *y == x).count() as u64;
                2 * below + tied + 1
            })
            .collect();
        let observed = doubled[..a.len()].iter().sum();
        (doubled, observed)
    }

    #[test]
    fn tied_exact_p_matches_enumeration() {
        // Enumerated over every choice of a's positions with scipy.stats.rankdata
        // mid-ranks, p = min(1, 2 min(#(S >= s), #(S <= s)) / C(n, n1)).
        for (a, b, want) in [
            (
                &[96.5, 100.5, 102.5, 102.5, 103.0, 103.5, 103.5][..],
                &[102.0, 106.5, 107.0, 107.0, 109.5][..],
                0.050505050505050504,
            ),
            (&[100.0; 4][..], &[95.0; 4][..], 0.02857142857142857),
            (
                &[100., 102., 101., 100., 103., 104., 102., 101., 100., 105.][..],
                &[
                    103., 105., 104., 106., 103., 107., 105., 104., 108., 106., 103.,
                ][..],
                0.0012361219791560349,
            ),
            (
                &[1.0, 2.0, 2.0, 3.0][..],
                &[2.0, 3.0, 3.0, 4.0, 5.0][..],
                0.15873015873015872,
            ),
        ] {
            let (ranks, observed) = doubled_midranks(a, b);
            let p = tied_rank_sum_p(&ranks, a.len(), observed).unwrap();
            assert!(
                (p - want).abs() < 1e-12 * want,
                "{a:?} {b:?}: {p} vs {want}"
            );
        }
    }

    #[test]
    fn without_ties_the_tied_p_is_the_exact_one() {
        let a = [1.0, 4.0, 5.0, 9.0, 11.0, 12.5];
        let b = [2.0, 6.0, 7.0, 8.0, 13.0, 14.0, 15.0];
        let (ranks, observed) = doubled_midranks(&a, &b);
        let u = (observed / 2) as usize - 6 * 7 / 2;
        let cdf = u_cdf(6, 7).unwrap();
        let exact = (2.0 * cdf[u.min(42 - u)]).min(1.0);
        let tied = tied_rank_sum_p(&ranks, 6, observed).unwrap();
        assert!((tied - exact).abs() < 1e-15, "{tied} vs {exact}");
        assert_eq!(tied_rank_sum_p(&vec![3; 81], 40, 120), None);
    }

    #[test]
    fn too_large_falls_back() {
        assert!(u_cdf(60, 60).is_some());
        assert!(u_cdf(80, 80).is_none());
        assert!(u_cdf(10, 10_000).is_some());
        assert!(u_cdf(2, 1_000_000).is_none());
    }
}
