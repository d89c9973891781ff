//! Comparisons within a run: a candidate against its baseline case by case, tested on
//! per-process medians, or why a pair could not be compared.

use super::*;
use crate::record::{Test, VerdictOptions};

/// What a comparison sets side by side: that decides its words, its colours and whether
/// `--fail-on-regression` reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// Two implementations (an experiment's pair, `--against`): that one is slower is a
    /// finding, said as *faster* or *slower*, and no gate fails on it.
    Rivals,
    /// One implementation against its own baseline: a compile variant against the one it
    /// varies (c-variants), the next version of an algorithm (Spook v1 -> v2), the same
    /// case in a baseline run. Slower is a *regression*, and the gate fails on it.
    Variant,
}

impl Relation {
    /// The word for a verdict between such sides.
    pub fn word(self, verdict: Verdict) -> &'static str {
        match (self, verdict) {
            (Relation::Variant, Verdict::Improved) => "improved",
            (Relation::Variant, Verdict::Regressed) => "regressed",
            (Relation::Variant, Verdict::NoChange) => "no change",
            (Relation::Rivals, Verdict::Improved) => "faster",
            (Relation::Rivals, Verdict::Regressed) => "slower",
            (Relation::Rivals, Verdict::NoChange) => "no difference",
            (_, Verdict::WithinNoise) => "within noise",
        }
    }
}

/// Why the host's state leaves a comparison's verdict undecided: its figures are
/// printed, and no gate decides on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Undecided {
    /// A case compared mixed the host's states (the canary moved in most of its
    /// processes, too many to set aside), or a run never settled.
    HostUnsteady,
    /// The two runs were measured in different states of the host (by their canaries).
    HostInAnotherState,
}

impl Undecided {
    /// What the verdict column adds to the verdict.
    pub fn words(self) -> &'static str {
        match self {
            Undecided::HostUnsteady => "undecided: host unsteady",
            Undecided::HostInAnotherState => "undecided: host in another state",
        }
    }

    /// Why, in a sentence's words, as the regression gate says it.
    pub fn reason(self) -> &'static str {
        match self {
            Undecided::HostUnsteady => "the host was unsteady while a case compared ran",
            Undecided::HostInAnotherState => {
                "the host was in another state than in the baseline run"
            }
        }
    }
}

/// A candidate case against its baseline case, tested on their per-process medians.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Comparison {
    /// What the two sides are to each other: it decides the verdict's word and whether
    /// the gate reads it.
    pub relation: Relation,
    /// The baseline's implementation, or `run N` for a comparison across runs.
    pub baseline: String,
    /// The candidate's implementation, or its case key for a comparison across runs.
    pub candidate: String,
    /// The operation both sides measured.
    pub operation: String,
    /// The candidate's parameters, which the baseline shares.
    pub params: Params,
    /// The median of the baseline's process medians, in counts per call.
    pub median_baseline: f64,
    /// The median of the candidate's process medians, in counts per call.
    pub median_candidate: f64,
    /// baseline - candidate, as the seed's "Difference" column (positive = candidate
    /// faster): the change estimate in the run's counter unit (cycles, ns or
    /// instructions), at the baseline's median.
    pub difference: f64,
    /// The candidate against the baseline in percent: the test's own estimate of the
    /// ratio and its interval at level `1 - significance` (the estimate always inside).
    pub change_pct: Interval,
    /// Standard deviation of the per-cluster medians, the unit the test compares.
    pub stdev_baseline: f64,
    /// The same for the candidate.
    pub stdev_candidate: f64,
    /// The test's p-value (Mann-Whitney or Welch's t, as the verdict options say).
    pub p_value: f64,
    /// The independent measurements (processes) on each side, baseline first.
    pub processes: [usize; 2],
    /// The smallest p-value the test can give with that many ([`stats::mann_whitney_p_floor`];
    /// `None` for Welch's t, which has none).
    pub p_floor: Option<f64>,
    /// What `change_pct`'s interval says against the noise threshold.
    pub verdict: Verdict,
    /// Where the counter measured the core clock (tsc-core): the candidate's clock
    /// against the baseline's, in %, and the change in time (reference cycles) that
    /// follows from the two. Code that moves the clock can take fewer cycles and more time.
    pub clock_change_pct: Option<f64>,
    /// The change in time, in %, from the change in cycles and the change of clock.
    pub time_change_pct: Option<f64>,
    /// Where the canary says the host's state leaves the verdict undecided.
    pub undecided: Option<Undecided>,
}

impl Comparison {
    /// The verdict in the words of its relation: *slower* between two implementations,
    /// *regressed* for one against its own baseline.
    pub fn verdict_word(&self) -> &'static str {
        self.relation.word(self.verdict)
    }

    /// The verdict as a report's verdict column says it: its word, and whether the host
    /// left it undecided, so that a row never reads *regressed* where no gate decides.
    pub fn verdict_said(&self) -> String {
        match self.undecided {
            Some(u) => format!("{} ({})", self.verdict_word(), u.words()),
            None => self.verdict_word().to_string(),
        }
    }
}

/// A comparison that was asked for and could not be made.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct NotCompared {
    /// What the two sides are to each other, as in a [`Comparison`].
    pub relation: Relation,
    /// The baseline's implementation, or `run N` for a comparison across runs.
    pub baseline: String,
    /// The candidate's implementation, or its case key for a comparison across runs.
    pub candidate: String,
    /// The candidate's operation (for a pair with nothing alike, every one it has).
    pub operation: String,
    /// The candidate's parameters (none for a pair with nothing alike).
    pub params: Params,
    /// Why it could not be made, in words.
    pub why: String,
    /// A regression gate cannot pass what it could not check (wrong output, a crash,
    /// too few processes); a side this CPU cannot run at all does not stop it.
    pub blocks_gate: bool,
}

/// A candidate's name with its parameters, which a comparison across runs has in its
/// name already (a case id).
pub fn with_params(candidate: &str, params: &Params) -> String {
    let p = params.to_string();
    if p.is_empty() || candidate.ends_with(&p) {
        candidate.to_string()
    } else {
        format!("{candidate} {p}")
    }
}

/// Compare two cases on their per-cluster medians: clusters (worker processes) are the
/// independent units; samples within one are not. The names in the result are the
/// cases' implementations; callers comparing across runs rename them.
// Both outcomes are kept and both are large (the comparison more so): no box helps.
#[allow(clippy::result_large_err)]
pub(super) fn compare_cases(
    base: &StoredCase,
    cand: &StoredCase,
    opts: &VerdictOptions,
    relation: Relation,
) -> Result<Comparison, NotCompared> {
    let not_compared = |why: String, blocks_gate: bool| NotCompared {
        relation,
        baseline: base.implementation.clone(),
        candidate: cand.implementation.clone(),
        operation: cand.operation.clone(),
        params: cand.params.clone(),
        why,
        blocks_gate,
    };
    for (side, case) in [("baseline", base), ("candidate", cand)] {
        if case.status != CaseStatus::Ok {
            let message = case.message.as_deref();
            let what = match (case.status, message) {
                (CaseStatus::Wrong, m) => format!(
                    "gave wrong output{}",
                    m.map(|m| format!(" ({})", m.trim_start_matches("wrong output: ")))
                        .unwrap_or_default()
                ),
                // The runner's messages read as what happened: "crashed (…)", "timed out …".
                (CaseStatus::Failed, Some(m)) => m.to_string(),
                (CaseStatus::Failed, None) => "failed".into(),
                (CaseStatus::Unsupported, m) => format!(
                    "cannot run on this CPU{}",
                    m.map(|m| format!(" ({m})")).unwrap_or_default()
                ),
                (CaseStatus::Pending | CaseStatus::Ok, _) => {
                    "was not measured (interrupted?)".into()
                }
            };
            // Only a candidate that is now broken can hide a regression: a baseline that
            // was broken leaves nothing to regress from (a change that fixes it must pass).
            return Err(not_compared(
                format!("the {side} {what}"),
                side == "candidate" && case.status != CaseStatus::Unsupported,
            ));
        }
    }
    let a = cluster_medians(base);
    let b = cluster_medians(cand);
    // The interval is the test's own, at the level the significance asks for, so the
    // verdict, which reads the interval alone, says what the test says.
    let level = 1.0 - opts.significance;
    if !stats::interval_reachable(a.len(), b.len(), level) {
        let fewest = (1..=10_000)
            .find(|&n| stats::interval_reachable(n, n, level))
            .map_or("more than 10000".to_string(), |n| n.to_string());
        // Uneven sides reach the default level too; said where they are known.
        let uneven = match fmt_level(level).as_str() {
            "95" => "; 3 and 5, 2 and 8 or 1 and 40 reach it too",
            _ => "",
        };
        return Err(not_compared(
            format!(
                "{} and {} independent measurements (worker processes, bulk runs or imported \
                 tables) are too few for a {level_pct} % interval of the change: {fewest} a \
                 side is the fewest at {level_pct} % when both sides have as many{uneven} \
                 (run --processes, bulk --runs)",
                a.len(),
                b.len(),
                level_pct = fmt_level(level)
            ),
            true,
        ));
    }
    // One estimator with its own interval: the ratio of the candidate to the baseline,
    // from the test's own procedure (Hodges-Lehmann with Moses' interval for the ranks,
    // Welch's interval of the mean logarithms for Welch's t), as a change in percent.
    let compared = match opts.test {
        // The p of the test the interval inverts: with ties, the rank-sum test over mid-ranks
        // can reject where the interval still holds 1.
        Test::MannWhitney => stats::hodges_lehmann_ratio_test(&a, &b, level),
        Test::Welch => stats::welch_ratio(&a, &b, level).map(|(t, ratio)| (t.p_value, ratio)),
    };
    let Some((p_value, ratio)) = compared else {
        return Err(not_compared(
            "the per-process medians admit no test (not finite and positive, or all equal)".into(),
            true,
        ));
    };
    let change = stats::as_percent(ratio);
    let (ma, mb) = (median_of(&a), median_of(&b));
    let clocks = stats::median(&base.core_clocks).zip(stats::median(&cand.core_clocks));
    Ok(Comparison {
        relation,
        baseline: base.implementation.clone(),
        candidate: cand.implementation.clone(),
        operation: cand.operation.clone(),
        params: cand.params.clone(),
        median_baseline: ma,
        median_candidate: mb,
        // The estimated change in cycles at the baseline's median, so that it says
        // what the change column says (the difference of the two medians can disagree
        // with it, even in sign, where processes split into modes).
        difference: ma * (1.0 - ratio.estimate),
        change_pct: change,
        stdev_baseline: stats::std_dev(&a).unwrap_or(0.0),
        stdev_candidate: stats::std_dev(&b).unwrap_or(0.0),
        p_value,
        processes: [a.len(), b.len()],
        p_floor: match opts.test {
            Test::MannWhitney => stats::mann_whitney_p_floor(a.len(), b.len()),
            Test::Welch => None,
        },
        verdict: stats::verdict(&change, opts.noise_threshold_pct, true),
        clock_change_pct: clocks.map(|(ca, cb)| 100.0 * (cb / ca - 1.0)),
        // Time is cycles over clock.
        time_change_pct: clocks.map(|(ca, cb)| 100.0 * (ratio.estimate * ca / cb - 1.0)),
        // The analysis judges the host's state over the whole run.
        undecided: None,
    })
}

/// A confidence level as a percentage without needless decimals: 95, 99, 99.9.
pub fn fmt_level(level: f64) -> String {
    // Six decimals: a significance of 0.000001 is a 99.9999 % interval, not 100 %.
    let pct = format!("{:.6}", 100.0 * level);
    pct.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A pair asked to be compared (`--against`) of which no case does what a case of the
/// other does: said once, rather than left out in silence. Not a gate matter: nothing
/// that could regress went unchecked.
pub(super) fn unlike(run: &StoredRun, baseline: &str, candidate: &str) -> Option<NotCompared> {
    use std::collections::BTreeSet;
    let distinct = |name: &str, shape: &dyn Fn(&StoredCase) -> String| -> BTreeSet<String> {
        run.cases
            .iter()
            .filter(|c| c.implementation == name)
            .map(shape)
            .collect()
    };
    let list = |set: &BTreeSet<String>| set.iter().cloned().collect::<Vec<_>>().join(", ");
    let operation = |c: &StoredCase| c.operation.clone();
    let (ours, theirs) = (
        distinct(candidate, &operation),
        distinct(baseline, &operation),
    );
    if ours.is_empty() || theirs.is_empty() {
        return None;
    }
    let why = if ours.is_disjoint(&theirs) {
        format!("another operation ({}, not {})", list(&ours), list(&theirs))
    } else {
        let params = |c: &StoredCase| with_params(&c.operation, &c.params);
        format!(
            "no case at the same parameters ({}, not {})",
            list(&distinct(candidate, &params)),
            list(&distinct(baseline, &params))
        )
    };
    Some(NotCompared {
        relation: Relation::Rivals,
        baseline: baseline.to_string(),
        candidate: candidate.to_string(),
        operation: list(&ours),
        params: Params::new(),
        why,
        blocks_gate: false,
    })
}

/// Each C build whose algorithm (or compile variant, as `part` says) is `candidate`
/// against the build that differs from it only in having `baseline` there, at the same
/// operation and parameters.
pub(super) fn counterpart_comparisons(
    run: &StoredRun,
    part: Counterpart,
    baseline: &str,
    candidate: &str,
    verdict: &VerdictOptions,
) -> Vec<Result<Comparison, NotCompared>> {
    let mut out = Vec::new();
    for cb in &run.cases {
        let name = ImplName::parse(&cb.implementation);
        // Only C builds have variants and targets to hold their counterparts apart.
        if name.variant().is_none() || name.target().is_none() {
            continue;
        }
        let name_a = match part {
            Counterpart::Algorithm if name.algorithm() == candidate => {
                name.with_algorithm(baseline)
            }
            Counterpart::Variant if name.variant() == Some(candidate) => {
                name.with_variant(baseline)
            }
            _ => continue,
        }
        .to_string();
        if let Some(ca) = run.cases.iter().find(|c| {
            c.implementation == name_a && c.operation == cb.operation && c.params == cb.params
        }) {
            out.push(compare_cases(ca, cb, verdict, Relation::Variant));
        }
    }
    out
}

/// The part of a C build's name that a counterpart comparison swaps.
#[derive(Clone, Copy)]
pub(super) enum Counterpart {
    /// Spook v1 -> v2: the same variant and target of another algorithm.
    Algorithm,
    /// The Jasmin seed's baseline -> variant: the same algorithm and target, another
    /// compile variant.
    Variant,
}
