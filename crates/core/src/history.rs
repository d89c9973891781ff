//! A case's median run after run, from the store: the data behind `cryptobench history`.
//!
//! Runs are only comparable when they counted the same thing on the same machine (testbed and
//! hardware fingerprint), so each case's history is followed per machine: a
//! [`CaseHistory`] is one case on one machine. Its latest run is the reference, and every
//! other point says whether it is comparable with it, so that reports mark the others
//! instead of joining figures in different units.
//!
//! Each point carries its 95 % interval and what the canary said of the host while it
//! ran, as `report` gives them; a point whose processes mixed the host's states is not
//! comparable. The change from one comparable point to the next is judged as `compare`
//! judges a case ([`analysis::compare_case_across_runs`]): only a change the test tells
//! from noise, on a host that was steady, is a step.
//!
//! A point's figures are read from those stored beside its run when it finished
//! ([`analysis::fleet::RunFigures`]); only runs without them (stored by an older version,
//! interrupted, imported) are bootstrapped again, on every core. Both give the report's
//! figures to the last bit.

use std::collections::HashMap;

use anyhow::{Result, bail};
use rayon::prelude::*;

use crate::analysis::{self, HostCheck, RunSide};
use crate::record::{CaseStatus, RunCounter, RunHeader, VerdictArgs, VerdictOptions};
use crate::stats::{Interval, Verdict};
use crate::store::{Store, StoredCase};

/// One stored run that holds at least one matching measured case.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunInfo {
    /// The run's id in the store.
    pub id: i64,
    /// When the run started, as stored.
    pub started_at: String,
    /// The git revision of the code measured, where known.
    pub git_revision: Option<String>,
    /// The cryptobench version that measured (or imported) the run.
    pub tool_version: String,
    /// The experiment the run belongs to.
    pub experiment: String,
    /// What counted the samples.
    pub counter: RunCounter,
    /// The counter's unit in words, e.g. `core cycles`.
    pub unit: String,
    /// The counter's unit as tables print it: `cycles`, `ns` or `instructions`.
    pub short_unit: String,
    /// The CPU the run was measured on.
    pub cpu_model: String,
    /// Whether the run finished: an interrupted one has fewer samples than asked.
    pub complete: bool,
    /// When Ctrl-C or SIGTERM stopped it, where one did ([`RunHeader::stopped_at`]).
    #[serde(skip)]
    stopped_at: Option<String>,
    /// What the environment told the C library or OpenSSL to run (`NAME=value`), where
    /// it told them anything.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub environment: Vec<String>,
    /// The machine's name (`--testbed`, or the hardware's default name).
    pub testbed: String,
    /// A hash of what the machine's hardware is.
    pub fingerprint: String,
}

impl RunInfo {
    fn of(h: &RunHeader) -> RunInfo {
        RunInfo {
            id: h.id,
            started_at: h.started_at.clone(),
            git_revision: h.git_revision.clone(),
            tool_version: h.tool_version.clone(),
            experiment: h.experiment.clone(),
            counter: h.counter,
            unit: h.unit.clone(),
            short_unit: h.counter.short_unit().to_string(),
            cpu_model: h.cpu_model.clone(),
            complete: h.status == crate::record::RunStatus::Complete,
            stopped_at: h.stopped_at().map(String::from),
            testbed: h.place.testbed.clone(),
            fingerprint: h.place.fingerprint.clone(),
            environment: h.machine.measured().map_or(Vec::new(), |m| {
                m.measuring_environment()
                    .into_iter()
                    .filter_map(|(name, value)| Some(format!("{name}={}", value?)))
                    .collect()
            }),
        }
    }

    /// e.g. "run 7, tsc on Intel Xeon …".
    pub fn label(&self) -> String {
        format!("run {}, {} on {}", self.id, self.counter, self.cpu_model)
    }
}

/// What the canary said of the host while a case's processes ran, as the case's row of
/// the run's report says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HostState {
    /// The run read no canary (`--no-canary`, imported, bulk, or stored before the
    /// canary existed): nothing says whether the host stayed steady.
    NotChecked,
    /// Every process's canary stayed within its noise.
    Steady,
    /// This many processes whose canary moved were left out of the figure; enough
    /// steady ones remained.
    SetAside(usize),
    /// The canary moved in too many of its processes to leave them out: the figure
    /// mixes the host's states.
    Unsteady,
}

impl HostState {
    /// The state in a word or three, as every format of `history` names it.
    pub fn words(self) -> &'static str {
        match self {
            HostState::NotChecked => "not checked",
            HostState::Steady => "steady",
            HostState::SetAside(_) => "processes set aside",
            HostState::Unsteady => "unsteady",
        }
    }

    /// The processes set aside: 0 unless [`HostState::SetAside`].
    pub fn processes_set_aside(self) -> usize {
        match self {
            HostState::SetAside(n) => n,
            _ => 0,
        }
    }

    /// The state as a table cell: with how many processes were set aside.
    pub fn cell(self) -> String {
        match self {
            HostState::SetAside(n) => format!("{n} processes set aside"),
            state => state.words().to_string(),
        }
    }

    fn of(host: Option<&HostCheck>, key: &str) -> HostState {
        match host {
            None => HostState::NotChecked,
            Some(h) if h.unsteady.iter().any(|k| k == key) => HostState::Unsteady,
            Some(h) => h
                .set_aside
                .get(key)
                .map_or(HostState::Steady, |&n| HostState::SetAside(n)),
        }
    }
}

/// A point against the case's previous comparable point.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Change {
    /// Index into [`History::runs`] of the previous comparable point's run.
    pub previous: usize,
    /// The change in %: the test's estimate where it could be made (as `compare` gives
    /// it), else the ratio of the two medians.
    pub change_pct: f64,
    /// The test's 95 % interval of the change, where it could be made.
    pub interval: Option<Interval>,
    /// What the interval says against the noise threshold, where the test was made.
    pub verdict: Option<Verdict>,
    /// A step, and which way, or why it is none.
    pub outcome: Outcome,
    /// Why it is no step, in a sentence that starts with [`Outcome::words`]; `None` for
    /// a step.
    pub caveat: Option<String>,
}

impl Change {
    /// Whether it is a step to read: tested, beyond the noise, with the host steady in
    /// both runs.
    pub fn is_step(&self) -> bool {
        self.outcome.is_step()
    }
}

/// What a point's change against the previous comparable point says: a step, the way
/// `compare` would call it, or why it is none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Fewer counts per call than before, clear of the noise, the host steady in both runs.
    Improved,
    /// More counts per call than before, clear of the noise, the host steady in both runs.
    Regressed,
    /// The change's interval is not clear of the noise threshold.
    WithinNoise,
    /// The canary moved in too many of the case's processes, in either run, to set them
    /// aside: the change may be the host's.
    HostUnsteady,
    /// The canary says the host was in another state in one run than in the other.
    HostInAnotherState,
    /// No test could be made (too few processes, a side not measured, ...): only the
    /// medians' ratio is known.
    Untested,
}

impl Outcome {
    /// Every outcome: the steps, then those that are none.
    #[cfg(test)]
    pub(crate) const ALL: [Outcome; 6] = [
        Outcome::Improved,
        Outcome::Regressed,
        Outcome::WithinNoise,
        Outcome::HostUnsteady,
        Outcome::HostInAnotherState,
        Outcome::Untested,
    ];

    /// The outcomes that are no step, in the order history's documents list them.
    pub const NOT_STEPS: [Outcome; 4] = [
        Outcome::WithinNoise,
        Outcome::HostUnsteady,
        Outcome::HostInAnotherState,
        Outcome::Untested,
    ];

    /// A step to read: [`Outcome::Improved`] or [`Outcome::Regressed`].
    pub fn is_step(self) -> bool {
        matches!(self, Outcome::Improved | Outcome::Regressed)
    }

    /// The outcome in a word or three, as every format of `history` names it: the
    /// table's cell, and the start of the caveat.
    pub fn words(self) -> &'static str {
        match self {
            Outcome::Improved => "improved",
            Outcome::Regressed => "regressed",
            Outcome::WithinNoise => "within noise",
            Outcome::HostUnsteady => "host unsteady",
            Outcome::HostInAnotherState => "host in another state",
            Outcome::Untested => "untested",
        }
    }
}

/// One measured value of a case.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Point {
    /// Index into [`History::runs`].
    pub run: usize,
    /// Median counts per call over all samples, as the run's report gives it.
    pub median: f64,
    /// The median's 95 % interval, as the run's report gives it; `None` where the run
    /// has too few processes for one (or a single figure).
    pub interval: Option<Interval>,
    /// What the canary said of the host while the case ran.
    pub host: HostState,
    /// The core clock beside the samples (tsc-core runs that kept it).
    pub core_clock_hz: Option<f64>,
    /// Whether it can stand beside the case's latest run on its machine: a complete run
    /// with the same counter and environment, on a host that did not mix its states;
    /// `caveats` say why not.
    pub comparable: bool,
    /// Why not, when not.
    pub caveats: Vec<String>,
    /// Against the previous comparable point; `None` for the first, and for a point not
    /// comparable for another reason than its host.
    pub change: Option<Change>,
}

/// One case's medians over the runs of one machine that measured it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CaseHistory {
    /// The case's stable id, e.g. `rustcrypto/chacha20/xor len=16384`.
    pub key: String,
    /// The machine's testbed.
    pub testbed: String,
    /// The machine's hardware fingerprint.
    pub fingerprint: String,
    /// Oldest run first; the last is the reference the others are compared with.
    pub points: Vec<Point>,
}

impl CaseHistory {
    /// Index into [`History::runs`] (`runs`) of the run every point of the case is judged
    /// comparable with: its newest complete run, or its newest where none is complete. A
    /// run stopped or still measuring (on a shared store, always some machine's newest)
    /// would otherwise make every earlier point "not comparable", and only it is.
    pub fn reference(&self, runs: &[RunInfo]) -> usize {
        self.points
            .iter()
            .rev()
            .find(|p| runs[p.run].complete)
            .or(self.points.last())
            .map_or(0, |p| p.run)
    }
}

/// Every matching case's medians over the stored runs, and those runs.
#[derive(Clone, Debug, serde::Serialize)]
pub struct History {
    /// What the case keys were filtered on (a substring); `None` for every case.
    pub filter: Option<String>,
    /// Oldest first.
    pub runs: Vec<RunInfo>,
    /// In the order the cases first appear.
    pub cases: Vec<CaseHistory>,
    /// Runs this version cannot read (stored by another one), each with why: left out,
    /// so that one of them does not hide the history of all the others.
    pub unreadable: Vec<String>,
}

impl History {
    /// Whether some case was measured on more than one machine: its histories are then
    /// headed by their machines.
    pub fn several_machines(&self) -> bool {
        self.cases.iter().any(|c| self.on_several_machines(c))
    }

    fn on_several_machines(&self, case: &CaseHistory) -> bool {
        self.cases
            .iter()
            .filter(|c| c.key == case.key)
            .nth(1)
            .is_some()
    }

    /// A case's heading: its id, and its machine where the case has several.
    pub fn title(&self, case: &CaseHistory) -> String {
        if self.on_several_machines(case) {
            format!("{} on {} ({})", case.key, case.testbed, case.fingerprint)
        } else {
            case.key.clone()
        }
    }
}

/// The median of every case whose key contains `filter`, over every stored run.
pub fn collect(store: &Store, filter: Option<&str>) -> Result<History> {
    collect_on(store, filter, None)
}

/// [`collect`], of only the runs of `testbed` where one is given.
pub fn collect_on(store: &Store, filter: Option<&str>, testbed: Option<&str>) -> Result<History> {
    if let Some(t) = testbed {
        let machines = store.machines()?;
        if !machines.iter().any(|m| m.testbed == t) {
            let mut names: Vec<&str> = machines.iter().map(|m| m.testbed.as_str()).collect();
            names.dedup();
            bail!(
                "--testbed {t}: no run in `{}` was measured on a testbed of that name ({}); `cryptobench machines` lists them",
                store.path().display(),
                if names.is_empty() {
                    "it has none yet".to_string()
                } else {
                    format!("it has {}", names.join(", "))
                }
            );
        }
    }
    let mut runs: Vec<RunInfo> = Vec::new();
    let mut cases: Vec<CaseHistory> = Vec::new();
    let mut unreadable = Vec::new();
    // Every run is read first, keeping the cases shown, with the figures stored beside
    // the run where it has them (a run finished by this version has). The bootstraps of
    // the others, nearly all of history's time, then run on every core at once. Each is
    // seeded by its case's key (`stats::seed_of`), so the figures are the run's report's
    // whichever thread computes them, and whether stored or computed.
    let mut read: Vec<(RunHeader, Option<HostCheck>, Vec<StoredCase>, StoredFigures)> = Vec::new();
    for id in store.runs()? {
        // The whole run, so that the canary is judged over all of it, as its report does.
        let (run, host) = match store.load_run(id) {
            Ok(run) => analysis::steady_view(&run),
            Err(e) => {
                unreadable.push(format!("{e:#}"));
                continue;
            }
        };
        if testbed.is_some_and(|t| t != run.header.place.testbed) {
            continue;
        }
        let shown: Vec<StoredCase> = run
            .cases
            .into_iter()
            .filter(|c| c.status == CaseStatus::Ok)
            .filter(|c| filter.is_none_or(|f| c.key.contains(f)))
            .collect();
        if !shown.is_empty() {
            let stored = stored_figures(store, id);
            read.push((run.header, host, shown, stored));
        }
    }
    let figures: Vec<Vec<Option<Figure>>> = read
        .par_iter()
        .map(|(header, _, shown, stored)| {
            shown
                .par_iter()
                .map(|c| {
                    stored.get(&c.key).copied().or_else(|| {
                        analysis::measure_case(c, header).map(|m| Figure {
                            median: m.median,
                            interval: m.has_interval(),
                            core_clock_hz: m.core_clock_hz,
                        })
                    })
                })
                .collect()
        })
        .collect();
    // Beside the runs and the cases' points, index for index: what each run's canary
    // said, and each point's case as its figures were computed, to test the changes on.
    let mut hosts: Vec<Option<HostCheck>> = Vec::new();
    let mut steady_cases: Vec<Vec<StoredCase>> = Vec::new();
    for ((header, host, shown, _), figures) in read.into_iter().zip(figures) {
        let measured: Vec<(StoredCase, Figure)> = shown
            .into_iter()
            .zip(figures)
            .filter_map(|(c, m)| Some((c, m?)))
            .collect();
        if measured.is_empty() {
            continue;
        }
        let index = runs.len();
        runs.push(RunInfo::of(&header));
        let (testbed, fingerprint) = (&header.place.testbed, &header.place.fingerprint);
        for (case, m) in measured {
            let point = Point {
                run: index,
                median: m.median.estimate,
                interval: m.interval.then_some(m.median),
                host: HostState::of(host.as_ref(), &case.key),
                core_clock_hz: m.core_clock_hz,
                comparable: true,
                caveats: Vec::new(),
                change: None,
            };
            match cases.iter().position(|c| {
                c.key == case.key && (&c.testbed, &c.fingerprint) == (testbed, fingerprint)
            }) {
                Some(i) => {
                    cases[i].points.push(point);
                    steady_cases[i].push(case);
                }
                None => {
                    cases.push(CaseHistory {
                        key: case.key.clone(),
                        testbed: testbed.clone(),
                        fingerprint: fingerprint.clone(),
                        points: vec![point],
                    });
                    steady_cases.push(vec![case]);
                }
            }
        }
        hosts.push(host);
    }
    if runs.is_empty()
        && let Some(first) = unreadable.first()
    {
        bail!(
            "`{}`: no run to show, and {} run{} this version cannot read ({first}{})",
            store.path().display(),
            unreadable.len(),
            if unreadable.len() == 1 { "" } else { "s" },
            if unreadable.len() > 1 { "; ..." } else { "" }
        );
    }
    if runs.is_empty() {
        match filter {
            Some(f) => bail!(
                "no measured case in `{}` has an id containing `{f}`; `cryptobench report` shows a run's case ids",
                store.path().display()
            ),
            None => bail!(
                "the store `{}` holds no measured runs yet: run `cryptobench run` first",
                store.path().display()
            ),
        }
    }
    // A case's machines one after the other, in the order the case first appears.
    let mut order: Vec<usize> = (0..cases.len()).collect();
    order.sort_by_key(|&i| cases.iter().position(|c| c.key == cases[i].key));
    let mut taken: Vec<Option<(CaseHistory, Vec<StoredCase>)>> =
        cases.into_iter().zip(steady_cases).map(Some).collect();
    let (mut cases, steady_cases): (Vec<CaseHistory>, Vec<Vec<StoredCase>>) = order
        .into_iter()
        .map(|i| taken[i].take().expect("each index once"))
        .unzip();
    for case in &mut cases {
        let latest = &runs[case.reference(&runs)];
        for p in &mut case.points {
            let r = &runs[p.run];
            if !r.complete {
                // In few words: a table's cell holds it.
                let when = r
                    .stopped_at
                    .as_deref()
                    .map_or("stopped, or still measuring".to_string(), |at| {
                        format!("stopped at {at}")
                    });
                p.caveats
                    .push(format!("incomplete run ({when}): fewer samples than asked"));
            }
            if r.counter != latest.counter {
                p.caveats
                    .push(format!("counter {}, not {}", r.counter, latest.counter));
            }
            // One machine's runs, but a run stored without a fingerprint is known by its
            // testbed alone.
            if r.cpu_model != latest.cpu_model {
                p.caveats.push(format!("another CPU: {}", r.cpu_model));
            }
            if r.environment != latest.environment {
                p.caveats.push(if r.environment.is_empty() {
                    format!("measured without {}", latest.environment.join(" "))
                } else {
                    format!("measured with {}", r.environment.join(" "))
                });
            }
            if p.host == HostState::Unsteady {
                p.caveats.push(UNSTEADY.into());
            }
            p.comparable = p.caveats.is_empty();
        }
    }
    // Each case's changes on its own: the tests run on every core too.
    cases
        .par_iter_mut()
        .zip(&steady_cases)
        .for_each(|(case, steady)| {
            let mut previous: Option<usize> = None;
            for i in 0..case.points.len() {
                let p = &case.points[i];
                // Another counter or environment has no change to say; an unsteady
                // point has, as why it is no step.
                if p.caveats.iter().any(|c| c != UNSTEADY) {
                    continue;
                }
                if let Some(j) = previous {
                    let change = change(
                        (&case.points[j], &steady[j]),
                        (p, &steady[i]),
                        &runs,
                        &hosts,
                    );
                    case.points[i].change = Some(change);
                }
                if case.points[i].comparable {
                    previous = Some(i);
                }
            }
        });
    Ok(History {
        filter: filter.map(str::to_string),
        runs,
        cases,
        unreadable,
    })
}

/// What a point shows of its case's statistics, as the run's report gives them.
#[derive(Clone, Copy, Debug)]
struct Figure {
    /// The median per call, with its 95 % interval where `interval`.
    median: Interval,
    /// Whether the median has an interval ([`analysis::Measured::has_interval`]).
    interval: bool,
    /// The core clock beside the samples, where kept.
    core_clock_hz: Option<f64>,
}

/// A run's figures as stored beside it, by case key.
type StoredFigures = HashMap<String, Figure>;

/// Run `id`'s figures as its report computed them when it finished, where they are
/// stored in a form that holds history's; empty otherwise (then they are computed
/// again). The store is only a cache here: a figure it cannot give is computed.
fn stored_figures(store: &Store, id: i64) -> StoredFigures {
    let Ok(Some(figures)) = analysis::fleet::RunFigures::stored(store, id) else {
        return StoredFigures::new();
    };
    figures
        .cases
        .into_iter()
        .filter_map(|c| {
            let per_call = c.per_call?;
            Some((
                per_call.key,
                Figure {
                    median: per_call.median,
                    interval: c.interval,
                    core_clock_hz: per_call.core_clock_hz,
                },
            ))
        })
        .collect()
}

/// The caveat of a point whose processes mixed the host's states.
const UNSTEADY: &str = "host unsteady: the canary moved in too many of its processes to set them aside, so its figure mixes the host's states";

/// Why a change between run `shift.baseline_run` and run `run` may be the host's, in
/// history's words: the previous point, not a baseline, and no gate to decide.
fn host_moved(shift: &analysis::HostShift, run: i64) -> String {
    match shift.change_pct.zip(shift.threshold_pct) {
        Some((change, threshold)) if change.abs() > threshold => format!(
            "the canary took {change:+.1} % from run {} to run {run} (steady within ±{threshold:.1} %), so the change may be the host's",
            shift.baseline_run
        ),
        // Within the threshold, and still another state: one of the runs never settled.
        _ => format!(
            "the host never settled in run {} or in run {run}, so whether it was in the same state for both cannot be told, nor whose the change is",
            shift.baseline_run
        ),
    }
}

/// Point `b` against the earlier point `a`, each with its case as its figures were
/// computed, judged as `compare` judges the case with its default options.
fn change(
    (a, case_a): (&Point, &StoredCase),
    (b, case_b): (&Point, &StoredCase),
    runs: &[RunInfo],
    hosts: &[Option<HostCheck>],
) -> Change {
    let (run_a, run_b) = (&runs[a.run], &runs[b.run]);
    let sides = (
        RunSide {
            id: run_a.id,
            host: hosts[a.run].as_ref(),
        },
        RunSide {
            id: run_b.id,
            host: hosts[b.run].as_ref(),
        },
    );
    // `compare`'s options when none are given.
    let opts = VerdictArgs {
        significance: VerdictOptions::DEFAULT.significance,
        noise_threshold: None,
        test: VerdictOptions::DEFAULT.test,
    }
    .for_stored(run_b.counter);
    let shift = analysis::host_shift(sides.0.host, run_a.id, sides.1.host);
    let compared = analysis::compare_case_across_runs(case_a, case_b, sides, shift.as_ref(), &opts);
    let mut change = Change {
        previous: a.run,
        change_pct: 100.0 * (b.median / a.median - 1.0),
        interval: None,
        verdict: None,
        outcome: Outcome::Untested,
        caveat: None,
    };
    let unsteady_in = [(b, run_b), (a, run_a)]
        .into_iter()
        .find(|(p, _)| p.host == HostState::Unsteady)
        .map(|(_, r)| r.id);
    // The outcome, and why it is no step where it is none.
    let (outcome, why): (Outcome, Option<String>) = match compared {
        _ if unsteady_in.is_some() => (
            Outcome::HostUnsteady,
            Some(format!(
                "the canary moved in too many of this case's processes in run {} to set them aside, so the change may be the host's",
                unsteady_in.unwrap_or_default()
            )),
        ),
        Err(n) => (Outcome::Untested, Some(n.why)),
        Ok(c) => {
            change.change_pct = c.change_pct.estimate;
            change.interval = Some(c.change_pct);
            change.verdict = Some(c.verdict);
            match (c.undecided, c.verdict) {
                (Some(why @ analysis::Undecided::HostUnsteady), _) => {
                    (Outcome::HostUnsteady, Some(why.reason().to_string()))
                }
                (Some(analysis::Undecided::HostInAnotherState), _) => (
                    Outcome::HostInAnotherState,
                    Some(shift.map_or(String::new(), |s| host_moved(&s, run_b.id))),
                ),
                (None, Verdict::NoChange | Verdict::WithinNoise) => (
                    Outcome::WithinNoise,
                    Some(format!(
                        "the change's 95 % interval [{:+.2} %, {:+.2} %] is not clear of ±{} % (as `compare` judges it)",
                        c.change_pct.lo, c.change_pct.hi, opts.noise_threshold_pct
                    )),
                ),
                (None, Verdict::Improved) => (Outcome::Improved, None),
                (None, Verdict::Regressed) => (Outcome::Regressed, None),
            }
        }
    };
    change.outcome = outcome;
    change.caveat = why.map(|why| format!("{}: {why}", outcome.words()));
    change
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::{header, imported_case};

    /// Every outcome's words, which every format of `history` shows, and which of them
    /// are steps.
    #[test]
    fn each_outcome_says_itself_in_history_s_words() {
        let said: Vec<(Outcome, &str, bool)> = Outcome::ALL
            .into_iter()
            .map(|o| (o, o.words(), o.is_step()))
            .collect();
        assert_eq!(
            said,
            [
                (Outcome::Improved, "improved", true),
                (Outcome::Regressed, "regressed", true),
                (Outcome::WithinNoise, "within noise", false),
                (Outcome::HostUnsteady, "host unsteady", false),
                (Outcome::HostInAnotherState, "host in another state", false),
                (Outcome::Untested, "untested", false),
            ]
        );
        assert!(Outcome::NOT_STEPS.iter().all(|o| !o.is_step()));
    }

    #[test]
    fn history_leaves_out_a_run_it_cannot_read_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let mut store = Store::open(&path).unwrap();
        for _ in 0..2 {
            store.import_run(&header(), &[imported_case()]).unwrap();
        }
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute("UPDATE runs SET counter = 'rdpmc' WHERE id = 1", [])
            .unwrap();
        let err = store.load_run(1).unwrap_err();
        assert!(
            format!("{err:#}").contains("unknown counter `rdpmc`"),
            "{err:#}"
        );
        let h = collect(&store, None).unwrap();
        assert_eq!(h.runs.len(), 1);
        assert_eq!(h.runs[0].id, 2);
        assert_eq!(h.unreadable.len(), 1);
        assert!(h.unreadable[0].contains("run 1"), "{:?}", h.unreadable);
    }
}
