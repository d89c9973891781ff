//! What the canary says of a run's host ([`crate::canary`]): whether it stayed in one
//! state, which processes ran while it was in another, and whether it was in the same
//! state as a baseline run's.
//!
//! The canary only flags. A process whose canary moved is set aside from its case's
//! figures while enough steady ones remain (the samples stay in the store, and the report
//! says how many were set aside); its figures are never scaled by the canary's change,
//! since a neighbour slows each code differently.

use std::collections::BTreeMap;

use super::*;
use crate::stats::{Kept, Steadiness};

/// The canary over a whole run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct HostCheck {
    /// Which canary (its version and the parts it ran on this CPU).
    pub canary: String,
    /// The median of the processes' canaries, in the run's counts.
    pub reference: f64,
    /// The processes' canaries' robust spread, in % of the reference.
    pub noise_pct: f64,
    /// How far a process's canary may lie from the reference and count as steady, in %.
    pub threshold_pct: f64,
    /// Processes with a canary.
    pub processes: usize,
    /// Processes whose canary moved beyond the threshold.
    pub moved: usize,
    /// The farthest a process's canary moved, in % (signed).
    pub largest_move_pct: f64,
    /// Cases some of whose processes were set aside, and how many of them.
    pub set_aside: BTreeMap<String, usize>,
    /// Cases with too few steady processes to set the others aside: their figures mix
    /// the host's states, and no gate decides on them.
    pub unsteady: Vec<String>,
}

impl HostCheck {
    /// Whether the host held one state for the whole run: it settled, and no process's
    /// canary moved.
    pub fn steady(&self) -> bool {
        self.moved == 0 && self.settled()
    }

    /// Whether the canary held still enough within the run to judge anything by: a
    /// canary whose own spread makes its threshold wider than [`UNSETTLED_PCT`] ran on a
    /// host that never settled (on the Zen 4 guest, whole runs in the host's other state
    /// had canaries spread ±34-63 % and every case moved by 1.5-6 %), and no gate decides
    /// on such a run.
    pub fn settled(&self) -> bool {
        self.threshold_pct <= UNSETTLED_PCT
    }
}

/// The widest canary threshold, in %, of a run whose host counts as settled
/// ([`stats::steadiness::UNSETTLED`]).
pub const UNSETTLED_PCT: f64 = 100.0 * stats::steadiness::UNSETTLED;

/// A process's canary: the median of its readings.
fn process_canary(c: &StoredCase, p: usize) -> Option<(&str, f64)> {
    let readings = c.canary.get(p)?.as_ref()?;
    Some((readings.kind.as_str(), stats::median(&readings.readings)?))
}

/// The canary's kind that most of a run's processes read (a run has one).
fn kind_of(run: &StoredRun) -> Option<String> {
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &run.cases {
        for p in 0..c.per_process.len() {
            if let Some((kind, _)) = process_canary(c, p) {
                *kinds.entry(kind).or_default() += 1;
            }
        }
    }
    kinds
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .map(|(k, _)| k.to_string())
}

/// The run's canary steadiness over every process that read the canary of `kind`.
fn steadiness_of(run: &StoredRun, kind: &str) -> Option<(Steadiness, usize)> {
    let canaries: Vec<f64> = run
        .cases
        .iter()
        .flat_map(|c| (0..c.per_process.len()).filter_map(move |p| process_canary(c, p)))
        .filter(|(k, _)| *k == kind)
        .map(|(_, v)| v)
        .collect();
    Some((stats::steadiness(&canaries)?, canaries.len()))
}

/// The run as its figures are computed: each case without the processes whose canary
/// moved, where enough steady ones remain; and what the canary said. A run without a
/// canary (measured before it existed, imported, bulk) is returned as it is, with `None`.
pub fn steady_view(run: &StoredRun) -> (StoredRun, Option<HostCheck>) {
    let Some(kind) = kind_of(run) else {
        return (run.clone(), None);
    };
    let Some((steadiness, processes)) = steadiness_of(run, &kind) else {
        return (run.clone(), None);
    };
    let mut moved = 0;
    let mut largest: f64 = 0.0;
    let mut set_aside = BTreeMap::new();
    let mut unsteady = Vec::new();
    let settled = steadiness.settled();
    let mut view = run.clone();
    for c in view.cases.iter_mut() {
        let flags: Vec<bool> = (0..c.per_process.len())
            .map(|p| match process_canary(c, p) {
                Some((k, v)) if k == kind => {
                    let d = steadiness.deviation(v);
                    if d.abs() > largest.abs() {
                        largest = d;
                    }
                    steadiness.moved(v)
                }
                _ => false,
            })
            .collect();
        let n_moved = flags.iter().filter(|&&m| m).count();
        moved += n_moved;
        // The runner re-measures by the same rule (`stats::kept`).
        match stats::kept(&flags, settled, LEVEL) {
            Kept::All => {}
            Kept::Steady => {
                without(&mut c.per_process, &flags);
                without(&mut c.canary, &flags);
                without(&mut c.core_clocks, &flags);
                set_aside.insert(c.key.clone(), n_moved);
            }
            // Nothing measured is nothing unsteady.
            Kept::Unsteady if c.per_process.is_empty() => {}
            Kept::Unsteady => unsteady.push(c.key.clone()),
        }
    }
    let check = HostCheck {
        canary: kind,
        reference: steadiness.reference,
        noise_pct: 100.0 * steadiness.noise,
        threshold_pct: 100.0 * steadiness.threshold,
        processes,
        moved,
        largest_move_pct: 100.0 * largest,
        set_aside,
        unsteady,
    };
    (view, Some(check))
}

/// Marks undecided each comparison of `comparisons` that sets a case of `run` which
/// `host` found unsteady against another: within a run a side is named by its
/// implementation, across runs the candidate by its case key.
pub(super) fn mark_unsteady(
    comparisons: &mut [Comparison],
    run: &StoredRun,
    host: Option<&HostCheck>,
) {
    let Some(host) = host else {
        return;
    };
    for c in comparisons.iter_mut() {
        let on_unsteady = run.cases.iter().any(|case| {
            host.unsteady.contains(&case.key)
                && case.operation == c.operation
                && case.params == c.params
                && (c.candidate == case.key
                    || c.candidate == case.implementation
                    || c.baseline == case.implementation)
        });
        if on_unsteady {
            c.undecided = Some(Undecided::HostUnsteady);
        }
    }
}

/// `per_process` without the processes `flags` marks (where it has one entry each).
fn without<T>(per_process: &mut Vec<T>, flags: &[bool]) {
    if per_process.len() == flags.len() {
        let mut marked = flags.iter();
        per_process.retain(|_| !marked.next().copied().unwrap_or(false));
    }
}

/// The fastest settled state the canary has shown on this machine in other runs: the
/// run, and its reference. A run whose canary lies beyond its threshold above it was
/// measured while the host was slower than it can be: a poor baseline, however steady.
pub fn best_known_state(
    check: &HostCheck,
    this_run: i64,
    stored: &std::collections::BTreeMap<i64, Vec<Vec<f64>>>,
) -> Option<(i64, f64)> {
    stored
        .iter()
        .filter(|(run, _)| **run != this_run)
        .filter_map(|(run, processes)| {
            let medians: Vec<f64> = processes.iter().filter_map(|r| stats::median(r)).collect();
            let s = stats::steadiness(&medians)?;
            s.settled().then_some((*run, s.reference))
        })
        .filter(|(_, reference)| *reference < check.reference)
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// Whether the host was in the same state for a run as for its baseline: it was not
/// where the two canaries' references are apart by more than the smaller of the runs'
/// thresholds, and it cannot be told where either run's host never settled.
#[derive(Clone, Debug, serde::Serialize)]
pub struct HostShift {
    /// The baseline run's id.
    pub baseline_run: i64,
    /// The run's canary against the baseline's, in % (`None` where the baseline has no
    /// canary, or another one).
    pub change_pct: Option<f64>,
    /// How far `change_pct` may go with the host in the same state, in %: the smaller
    /// of the two runs' canary thresholds (`None` as for `change_pct`).
    pub threshold_pct: Option<f64>,
    /// Whether the host differs, or cannot be told to be the same: the gate cannot
    /// decide on such a comparison.
    pub differs: bool,
    /// Said in words, for every report.
    pub note: String,
}

/// Whether the host was in the same state for a run as for its baseline run
/// (`baseline_run`), by their canaries; `None` where the run has no canary.
pub fn host_shift(
    baseline: Option<&HostCheck>,
    baseline_run: i64,
    run: Option<&HostCheck>,
) -> Option<HostShift> {
    let run = run?;
    let Some(base) = baseline.filter(|b| b.canary == run.canary) else {
        return Some(HostShift {
            baseline_run,
            change_pct: None,
            threshold_pct: None,
            differs: false,
            note: format!(
                "baseline run {baseline_run} has no readings of this run's canary (measured before it existed, or with another): whether the host was in the same state for both cannot be checked"
            ),
        });
    };
    let change = 100.0 * (run.reference / base.reference - 1.0);
    // The steadier run's noise decides: a canary that spread widely in one run must not
    // hide that its whole level moved.
    let threshold = run.threshold_pct.min(base.threshold_pct);
    let differs = change.abs() > threshold || !run.settled() || !base.settled();
    Some(HostShift {
        baseline_run,
        change_pct: Some(change),
        threshold_pct: Some(threshold),
        differs,
        note: if !run.settled() || !base.settled() {
            format!(
                "the host never settled in {} (the canary spread ±{:.0} % within it): whether it was in the same state for both runs cannot be told (the canary took {change:+.1} %); the gate cannot decide (measure again, e.g. retry the job)",
                if run.settled() {
                    format!("baseline run {baseline_run}")
                } else {
                    "this run".to_string()
                },
                if run.settled() {
                    base.threshold_pct
                } else {
                    run.threshold_pct
                },
            )
        } else if differs {
            format!(
                "the host was in another state than for baseline run {baseline_run}: the canary took {change:+.1} % (steady within ±{threshold:.1} %), so a change below may be the host's; the gate cannot decide (measure again, e.g. retry the job)"
            )
        } else {
            format!(
                "the host was in the same state as for baseline run {baseline_run}: the canary within {change:+.1} % (steady within ±{threshold:.1} %)"
            )
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{CanaryReadings, VerdictOptions};

    fn case(key: &str, canaries: &[f64]) -> StoredCase {
        StoredCase {
            row: 0,
            key: key.into(),
            implementation: key.into(),
            operation: "xof".into(),
            params: Params::new(),
            bytes: Some(64),
            lanes: 1,
            status: CaseStatus::Ok,
            message: None,
            calls_per_sample: Some(1),
            overhead: Some(0.0),
            per_process: canaries.iter().map(|&c| vec![c / 100.0]).collect(),
            core_clocks: Vec::new(),
            canary: canaries
                .iter()
                .map(|&c| {
                    Some(CanaryReadings {
                        kind: "canary/test".into(),
                        readings: vec![c, c + 1.0, c - 1.0],
                    })
                })
                .collect(),
        }
    }

    fn run(cases: Vec<StoredCase>) -> StoredRun {
        StoredRun {
            header: super::super::tests::header(None),
            cases,
        }
    }

    #[test]
    fn processes_in_another_mode_are_set_aside_where_enough_steady_ones_remain() {
        let steady = [1000.0, 1001.0, 999.0, 1000.5, 1000.0, 999.5, 1000.0, 1001.0];
        let mut two_moved = steady.to_vec();
        two_moved.extend([1300.0, 1320.0]);
        let mut most_moved = vec![1000.0; 3];
        most_moved.extend([1300.0; 7]);
        let r = run(vec![
            case("a", &two_moved),
            case("b", &steady),
            case("c", &most_moved),
        ]);
        let (view, check) = steady_view(&r);
        let check = check.unwrap();
        assert_eq!(check.processes, 28);
        assert_eq!(check.moved, 9);
        assert_eq!(check.reference, 1000.0);
        let farthest = 100.0 * (1320.0 / 1000.0 - 1.0);
        assert!(
            (check.largest_move_pct - farthest).abs() < 1e-9,
            "{check:?}"
        );
        assert_eq!(check.set_aside, BTreeMap::from([("a".to_string(), 2)]));
        assert_eq!(check.unsteady, vec!["c".to_string()]);
        assert_eq!(view.cases[0].per_process.len(), 8);
        assert!(view.cases[0].per_process.iter().all(|p| p[0] < 11.0));
        assert_eq!(view.cases[0].canary.len(), 8);
        assert_eq!(view.cases[1].per_process.len(), 8);
        assert_eq!(view.cases[2].per_process.len(), 10, "kept whole, unsteady");
        assert!(!check.steady());
    }

    #[test]
    fn a_run_without_a_canary_is_left_as_it_is() {
        let mut c = case("a", &[1000.0; 6]);
        c.canary = vec![None; 6];
        let (view, check) = steady_view(&run(vec![c]));
        assert!(check.is_none());
        assert_eq!(view.cases[0].per_process.len(), 6);
    }

    #[test]
    fn a_run_whose_canary_never_settled_decides_nothing() {
        // Spread by ±30 % throughout, its level 30 % above the baseline's: the run's own
        // threshold would hide the move; the steadier baseline's does not, and the run
        // itself is unsettled.
        let wild_readings = [
            1000.0, 1300.0, 1600.0, 1150.0, 1450.0, 1700.0, 1250.0, 1550.0,
        ];
        let (view, wild) = steady_view(&run(vec![
            case("a", &wild_readings),
            case("b", &wild_readings),
        ]));
        let wild = wild.unwrap();
        assert!(!wild.settled() && !wild.steady(), "{wild:?}");
        assert_eq!(wild.unsteady, vec!["a".to_string(), "b".to_string()]);
        assert!(wild.set_aside.is_empty());
        assert_eq!(view.cases[0].per_process.len(), 8);
        let (_, calm) = steady_view(&run(vec![case("a", &[1000.0, 1001.0, 999.0, 1000.0])]));
        let shift = host_shift(calm.as_ref(), 3, Some(&wild)).unwrap();
        // Every comparison with such a run is undecided for its own unsteadiness.
        let calm_run = run(vec![case("a", &[1000.0, 1001.0, 999.0, 1000.0, 1000.5])]);
        let wild_run = run(vec![case("a", &wild_readings)]);
        let cmp = compare_runs(&calm_run, &wild_run, &VerdictOptions::default(), false).unwrap();
        assert_eq!(cmp.comparisons[0].undecided, Some(Undecided::HostUnsteady));
        assert!(shift.differs);
        assert!(
            shift.note.contains("never settled in this run"),
            "{}",
            shift.note
        );
        assert!(shift.note.contains("cannot decide"));
    }

    #[test]
    fn a_baseline_in_another_state_or_without_a_canary_is_said() {
        let (_, a) = steady_view(&run(vec![case("a", &[1000.0, 1001.0, 999.0, 1000.0])]));
        let (_, b) = steady_view(&run(vec![case("a", &[1300.0, 1301.0, 1299.0, 1300.0])]));
        let (_, c) = steady_view(&run(vec![case("a", &[1005.0, 1006.0, 1004.0, 1005.0])]));
        let shift = host_shift(a.as_ref(), 7, b.as_ref()).unwrap();
        assert!(shift.differs);
        assert!((shift.change_pct.unwrap() - 30.0).abs() < 1e-9);
        assert!(shift.note.contains("cannot decide"), "{}", shift.note);
        let same = host_shift(a.as_ref(), 7, c.as_ref()).unwrap();
        assert!(!same.differs, "{same:?}");
        let unknown = host_shift(None, 7, b.as_ref()).unwrap();
        assert!(!unknown.differs);
        assert!(unknown.note.contains("cannot be checked"));
        assert!(host_shift(a.as_ref(), 7, None).is_none());
    }

    #[test]
    fn a_comparison_the_host_leaves_undecided_says_so_in_its_verdict() {
        let steady = [1000.0, 1001.0, 999.0, 1000.5, 1000.0, 999.5, 1000.0, 1001.0];
        let mut most_moved = vec![1000.0; 3];
        most_moved.extend([1300.0; 5]);
        let baseline = run(vec![case("a", &steady), case("c", &steady)]);
        let candidate = run(vec![case("a", &steady), case("c", &most_moved)]);
        let opts = VerdictOptions::default();
        let within = compare_runs(&baseline, &candidate, &opts, false).unwrap();
        let undecided: Vec<_> = within.comparisons.iter().map(|c| c.undecided).collect();
        assert_eq!(undecided, [None, Some(Undecided::HostUnsteady)]);
        // The baseline's unsteady cases count as well.
        let reversed = compare_runs(&candidate, &baseline, &opts, false).unwrap();
        assert_eq!(
            reversed.comparisons[1].undecided,
            Some(Undecided::HostUnsteady)
        );
        let c = &within.comparisons[1];
        assert_eq!(
            c.verdict_said(),
            format!("{} (undecided: host unsteady)", c.verdict_word())
        );
        assert_eq!(within.comparisons[0].verdict_said(), "no change");

        let slower = steady.map(|c| c * 1.3);
        let moved = run(vec![case("a", &slower), case("c", &slower)]);
        let across = compare_runs(&baseline, &moved, &opts, false).unwrap();
        assert!(across.host.as_ref().unwrap().differs);
        assert!(
            across
                .comparisons
                .iter()
                .all(|c| c.undecided == Some(Undecided::HostInAnotherState)),
            "{:?}",
            across.comparisons
        );
        assert_eq!(
            across.comparisons[0].verdict_said(),
            "regressed (undecided: host in another state)"
        );
    }
}
