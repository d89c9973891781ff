//! Exact null distribution of the Mann–Whitney U statistic without ties.

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

    #[test]
    fn too_large_falls_back() {
        assert!(u_cdf(60, 60).is_some());
        assert!(u_cdf(80, 80).is_none());
        assert!(u_cdf(10, 10_000).is_some());
        assert!(u_cdf(2, 1_000_000).is_none());
    }
}
