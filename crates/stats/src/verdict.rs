//! The one-word conclusion of a comparison.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::interval::Interval;

/// Outcome of comparing a new measurement against a baseline.
///
/// Serialised in snake_case (`"no_change"`); displayed in words
/// (`"no change"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A significant change beyond the noise threshold, in the better direction.
    Improved,
    /// A significant change beyond the noise threshold, in the worse direction.
    Regressed,
    /// The test found no significant difference.
    NoChange,
    /// Significant, but the change may be smaller than the noise threshold.
    WithinNoise,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Improved => "improved",
            Verdict::Regressed => "regressed",
            Verdict::NoChange => "no change",
            Verdict::WithinNoise => "within noise",
        })
    }
}

/// Classifies a change by its interval alone, with criterion.rs's rule.
///
/// The interval is the test's own: at level `1 - significance` it holds exactly the
/// changes the test would not reject (for [`relative_change`](super::compare::relative_change)
/// and Mann–Whitney without ties, and for [`welch_ratio`](super::compare::welch_ratio)),
/// so the verdict cannot contradict the interval printed beside it:
///
/// * [`Verdict::NoChange`] if the interval holds 0 (or is NaN);
/// * otherwise, with `t = |noise_threshold_pct|`: a change whose whole interval lies
///   above `+t` (`lo > t`) is an increase, one whose whole interval lies below `-t`
///   (`hi < -t`) a decrease, and anything else [`Verdict::WithinNoise`]. As in
///   criterion, "within noise" thus means the interval reaches into the band
///   `[-t, t]`, not that it fits inside it: a change is only claimed when even its
///   most favourable end exceeds the threshold.
/// * An increase is [`Verdict::Regressed`] when `smaller_is_better` (cycles) and
///   [`Verdict::Improved`] otherwise (throughput); a decrease the reverse.
///
/// `change_pct` and `noise_threshold_pct` are in percent.
pub fn verdict(
    change_pct: &Interval,
    noise_threshold_pct: f64,
    smaller_is_better: bool,
) -> Verdict {
    if !(change_pct.lo > 0.0 || change_pct.hi < 0.0) {
        return Verdict::NoChange;
    }
    let threshold = noise_threshold_pct.abs();
    let increased = if change_pct.lo > threshold {
        true
    } else if change_pct.hi < -threshold {
        false
    } else {
        return Verdict::WithinNoise;
    };
    if increased == smaller_is_better {
        Verdict::Regressed
    } else {
        Verdict::Improved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{mann_whitney, relative_change};
    use crate::test_rng::TestRng;

    fn pct(lo: f64, hi: f64) -> Interval {
        Interval {
            estimate: (lo + hi) / 2.0,
            lo,
            hi,
            level: 0.95,
        }
    }

    #[test]
    fn classification_table() {
        use Verdict::*;
        // (interval, smaller_is_better, expected) at a 2 % noise threshold.
        let cases = [
            (pct(3.0, 5.0), true, Regressed),
            (pct(3.0, 5.0), false, Improved),
            (pct(-5.0, -3.0), true, Improved),
            (pct(-5.0, -3.0), false, Regressed),
            // An interval that holds 0 is no change, however wide.
            (pct(-1.0, 1.5), true, NoChange),
            (pct(-0.5, 9.0), true, NoChange),
            (pct(0.0, 5.0), true, NoChange),
            (pct(-5.0, 0.0), true, NoChange),
            (pct(f64::NAN, f64::NAN), true, NoChange),
            // Clear of 0, reaching into the band: within noise.
            (pct(1.0, 6.0), true, WithinNoise),
            (pct(-6.0, -1.9), true, WithinNoise),
            (pct(0.1, 0.5), true, WithinNoise),
            // The band's edges belong to the band (strict comparisons).
            (pct(2.0, 4.0), true, WithinNoise),
            (pct(2.0001, 4.0), true, Regressed),
            (pct(-4.0, -2.0), true, WithinNoise),
        ];
        for (ci, smaller_is_better, expected) in cases {
            assert_eq!(verdict(&ci, 2.0, smaller_is_better), expected, "{ci:?}");
        }
        // The sign of the threshold does not matter; zero means "any change".
        assert_eq!(verdict(&pct(1.0, 6.0), -2.0, true), WithinNoise);
        assert_eq!(verdict(&pct(0.1, 0.2), 0.0, true), Regressed);
    }

    #[test]
    fn display_and_serde_forms() {
        use Verdict::*;
        let forms = [
            (Improved, "improved", "\"improved\""),
            (Regressed, "regressed", "\"regressed\""),
            (NoChange, "no change", "\"no_change\""),
            (WithinNoise, "within noise", "\"within_noise\""),
        ];
        for (v, shown, json) in forms {
            assert_eq!(v.to_string(), shown);
            assert_eq!(serde_json::to_string(&v).unwrap(), json);
            assert_eq!(serde_json::from_str::<Verdict>(json).unwrap(), v);
        }
    }

    /// 40 cycle counts with 2 % log-normal noise around `centre`.
    fn noisy(rng: &mut TestRng, centre: f64) -> Vec<f64> {
        (0..40)
            .map(|_| centre * (0.02 * rng.normal()).exp())
            .collect()
    }

    fn judge(a: &[f64], b: &[f64]) -> (Verdict, Interval) {
        let change = relative_change(a, b, 0.95).unwrap();
        (verdict(&change, 1.0, true), change)
    }

    #[test]
    fn a_a_comparisons_find_nothing() {
        let mut rng = TestRng::new(17);
        let quiet = (0..20)
            .filter(|_| {
                let (a, b) = (noisy(&mut rng, 1000.0), noisy(&mut rng, 1000.0));
                matches!(judge(&a, &b).0, Verdict::NoChange | Verdict::WithinNoise)
            })
            .count();
        assert!(quiet >= 19, "only {quiet} of 20 A/A comparisons were quiet");
    }

    /// "Quiet" above also counts a significant change inside the noise band, so a test
    /// whose p-values were far too small would pass it: here the p-values themselves
    /// must be significant about as often as the level says, and no more.
    #[test]
    fn a_a_p_values_are_significant_at_about_their_level() {
        let mut rng = TestRng::new(19);
        let trials = 400;
        let significant = (0..trials)
            .filter(|_| {
                let (a, b) = (noisy(&mut rng, 1000.0), noisy(&mut rng, 1000.0));
                mann_whitney(&a, &b).unwrap().p_value < 0.05
            })
            .count();
        // Binomial(400, 0.05): mean 20, sd 4.4; 8..=36 is beyond 2.7 sd either side.
        assert!(
            (8..=36).contains(&significant),
            "{significant} of {trials} A/A p-values below 0.05"
        );
    }

    #[test]
    fn planted_three_percent_slowdown_is_found() {
        // Each comparison's shift estimate has a standard error of about
        // 0.46 %, so the 95 % interval clears the 1 % threshold nearly always
        // and contains the true 3 % in about 19 of 20 comparisons.
        let mut rng = TestRng::new(18);
        let (mut regressed, mut covered) = (0, 0);
        for _ in 0..20 {
            let a = noisy(&mut rng, 1000.0);
            let b = noisy(&mut rng, 1030.0);
            let (v, change) = judge(&a, &b);
            regressed += usize::from(v == Verdict::Regressed);
            covered += usize::from(change.contains(3.0));
        }
        assert!(regressed >= 19, "only {regressed} of 20 found as regressed");
        assert!(covered >= 17, "only {covered} of 20 intervals contain 3 %");
    }
}
