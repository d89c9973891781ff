//! From a plan of cases to stored samples: the correctness gate first, then every case
//! measured in several fresh worker processes, in interleaved rounds.
//!
//! Rounds go over all cases in a shuffled order before any case gets its next process,
//! so slow drift of the machine (clock, neighbours, temperature) spreads over every case
//! instead of landing on whichever was measured last.

pub mod worker;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Result;

use crate::record::{Case, CaseStatus, Params, RunOptions};
use crate::stats::{Kept, LEVEL};
use crate::store::Store;
use worker::{Outcome, Reply, Request, Task};

/// Something to tell the user about as the run goes.
pub trait Progress {
    /// Called once, before the first step, with the steps planned: a correctness check
    /// per implementation and a worker per case and process (re-measuring adds more).
    fn start(&self, total_steps: u64);
    /// A step begins: a check (`what` says of which implementation) or a worker (`what`
    /// is the case's key).
    fn step(&self, what: &str);
    /// A line for the user as the run goes: a case that failed, a check not made.
    fn note(&self, line: &str);
    /// Measuring is over, and the report is about to be printed.
    fn finish(&self) {}
}

/// How a run's measuring ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Measuring went to its end: every case measured, or not timed for a reason its
    /// status gives.
    Finished,
    /// Ctrl-C: what was measured before it is stored; the worker it stopped is not
    /// counted against its case.
    Interrupted,
}

/// Measure `cases`, writing every result to `store` under `run_id` as it arrives, until
/// done or until `interrupted` is set. Checks the gate could not make are kept as the
/// cases' messages.
pub fn execute(
    cases: &[Case],
    external: &crate::cimpl::External,
    opts: &RunOptions,
    store: &mut Store,
    run_id: i64,
    progress: &dyn Progress,
    interrupted: &AtomicBool,
) -> Result<Ended> {
    // Checked after each worker, before its outcome is recorded: a worker killed by the
    // Ctrl-C did not crash. The handler sets the flag before it signals the worker.
    let stop = || interrupted.load(Ordering::SeqCst);
    let rows: Vec<i64> = cases
        .iter()
        .enumerate()
        .map(|(seq, c)| store.add_case(run_id, seq, c))
        .collect::<Result<_>>()?;

    let mut caveats: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut gate: BTreeMap<&str, Option<(CaseStatus, String)>> = BTreeMap::new();
    for c in cases {
        gate.entry(&c.implementation).or_insert(None);
    }
    let implementations: Vec<&str> = gate.keys().copied().collect();
    progress.start((gate_steps(&implementations, external) + cases.len() * opts.processes) as u64);
    let Some(verdicts) = verify_all(
        &implementations,
        cases,
        external,
        opts.cpu,
        opts.timeout,
        opts.counter.simulated(),
        &mut |what| {
            if stop() {
                return false;
            }
            progress.step(what);
            true
        },
    )?
    else {
        return Ok(Ended::Interrupted);
    };
    if stop() {
        return Ok(Ended::Interrupted);
    }
    for ((imp, verdict), checked) in gate.iter_mut().zip(verdicts) {
        *verdict = match checked {
            // Not said here: the report gives each case's notes, and saying them twice
            // buried the run's own lines.
            Verdict::Checked(notes) => {
                caveats.insert(imp, notes);
                None
            }
            Verdict::Unfit(status, why) => Some((status, why)),
        };
        if let Some((_, why)) = verdict {
            progress.note(&format!("{imp}: {why}; not timed"));
        }
    }

    let mut live: Vec<usize> = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        match &gate[c.implementation.as_str()] {
            None => {
                // Kept with the case (the status stays pending until samples arrive), so
                // the report can say which checks were not made.
                if let Some(notes) = caveats
                    .get(c.implementation.as_str())
                    .filter(|n| !n.is_empty())
                {
                    store.set_status(rows[i], CaseStatus::Pending, Some(&notes.join("; ")))?;
                }
                live.push(i)
            }
            Some((status, why)) => store.set_status(rows[i], *status, Some(why))?,
        }
    }

    let mut rng = SplitMix(opts.seed);
    let mut tallies: Vec<Tally> = vec![Tally::default(); cases.len()];
    // Case `i` in a fresh worker, as process `round` of it; false once Ctrl-C stopped it.
    // A case that fails is marked in its tally and measured no more.
    let measure = |store: &mut Store,
                   i: usize,
                   round: usize,
                   tallies: &mut Vec<Tally>|
     -> Result<bool> {
        let case = &cases[i];
        progress.step(&case.key());
        let request = Request {
            implementation: case.implementation.clone(),
            c: external.get(&case.implementation).cloned(),
            cpu: opts.cpu,
            task: Task::Measure {
                operation: case.operation.clone(),
                params: case.params.clone(),
                counter: opts.counter,
                layouts: opts.layouts,
                plan: opts.plan,
                // Per case, so that every process of a case lays its memory out alike.
                seed: opts.seed ^ crate::stats::seed_of(&case.key()),
                // The simulator counts instructions, not time: no host to watch.
                canary: !opts.no_canary && !opts.counter.simulated(),
            },
            simulate: opts.counter.simulated(),
        };
        let outcome = worker::run(&request, opts.timeout)?;
        if stop() {
            return Ok(false);
        }
        match outcome {
            Outcome::Replied(Reply::Measured(samples)) => {
                store.add_samples(rows[i], round, &samples)?;
                tallies[i].add(&samples);
                return Ok(true);
            }
            Outcome::Replied(Reply::Unsupported(why)) => {
                store.set_status(rows[i], CaseStatus::Unsupported, Some(&why))?;
            }
            // The call made after timing gave other output than before it: every sample
            // of the case is suspect, those of earlier processes too.
            Outcome::Replied(Reply::Wrong(why)) => {
                progress.note(&format!("{}: wrong output: {why}", case.key()));
                store.set_status(rows[i], CaseStatus::Wrong, Some(&why))?;
            }
            Outcome::Crashed(why) if opts.counter.simulated() && simulator_refused(&why) => {
                store.set_status(rows[i], CaseStatus::Unsupported, Some(&not_countable(&why)))?;
            }
            other => {
                let why = describe(&other);
                progress.note(&format!("{}: {why}", case.key()));
                store.set_status(rows[i], CaseStatus::Failed, Some(&why))?;
            }
        }
        tallies[i].failed = true;
        Ok(true)
    };
    let first_pass = std::time::Instant::now();
    let interrupted_before = store.interrupted();
    for round in 0..opts.processes {
        shuffle(&mut live, &mut rng);
        for &i in &live {
            if !measure(store, i, round, &mut tallies)? {
                return Ok(Ended::Interrupted);
            }
        }
        live.retain(|&i| !tallies[i].failed);
    }

    // Re-measure, in later rounds, the cases the host moved or whose intervals are wider
    // than asked, until they are steady and precise or the budget is spent.
    let remeasure = &opts.remeasure;
    if remeasure.is_off() {
        return Ok(Ended::Finished);
    }
    // Time lost to the store's server (its connection lost and made again) is neither the
    // first pass's measuring nor re-measuring's.
    let interrupted_at_start = store.interrupted();
    let budget = remeasure.budget.unwrap_or_else(|| {
        first_pass
            .elapsed()
            .saturating_sub(interrupted_at_start - interrupted_before)
    });
    let remeasure_start = std::time::Instant::now();
    let spent = |store: &Store| {
        remeasure_start
            .elapsed()
            .saturating_sub(store.interrupted() - interrupted_at_start)
    };
    let most = opts.processes * remeasure.most_processes_factor;
    let mut round = opts.processes;
    loop {
        // Judged once a round over every process measured so far, as the analysis does.
        let canaries: Vec<f64> = tallies
            .iter()
            .flat_map(|t| t.canaries.iter().flatten().copied())
            .collect();
        let steadiness = crate::stats::steadiness(&canaries);
        let mut wanting: Vec<usize> = live
            .iter()
            .copied()
            .filter(|&i| tallies[i].processes() < most)
            .filter(|&i| {
                wants_more(
                    &tallies[i],
                    &cases[i].key(),
                    steadiness,
                    opts.processes,
                    remeasure.precision_pct,
                )
            })
            .collect();
        if wanting.is_empty() || spent(store) >= budget {
            break;
        }
        if round == opts.processes {
            progress.note(&format!(
                "re-measuring {} (the host moved while they ran, or their intervals are wider than ±{} %), for up to {:.1} s",
                match wanting.len() {
                    1 => "1 case".to_string(),
                    n => format!("{n} cases"),
                },
                remeasure.precision_pct,
                budget.as_secs_f64()
            ));
        }
        shuffle(&mut wanting, &mut rng);
        for &i in &wanting {
            if spent(store) >= budget {
                break;
            }
            if !measure(store, i, round, &mut tallies)? {
                return Ok(Ended::Interrupted);
            }
        }
        live.retain(|&i| !tallies[i].failed);
        round += 1;
    }
    Ok(Ended::Finished)
}

/// What the runner keeps of a case to decide whether it needs more processes: each
/// process's samples and canary (the store keeps everything).
#[derive(Clone, Default)]
struct Tally {
    per_process: Vec<Vec<f64>>,
    canaries: Vec<Option<f64>>,
    failed: bool,
}

impl Tally {
    fn add(&mut self, samples: &crate::record::Samples) {
        self.per_process
            .push(samples.per_layout.iter().flatten().copied().collect());
        self.canaries
            .push((samples.canary.as_ref()).and_then(|c| crate::stats::median(&c.readings)));
    }

    fn processes(&self) -> usize {
        self.per_process.len()
    }
}

/// Whether a case needs another process, judged by the rule the analysis sets processes
/// aside by ([`crate::stats::kept`], over `steadiness`, the canary of every process of the
/// run): fewer than `asked` of its processes ran on a steady host, or the steady ones are
/// no majority, or the interval the report will give (from the processes it keeps, with
/// its resamples and seed, [`crate::stats::seed_of`] of the case `key`) is wider than
/// `precision_pct` either side.
fn wants_more(
    tally: &Tally,
    key: &str,
    steadiness: Option<crate::stats::Steadiness>,
    asked: usize,
    precision_pct: f64,
) -> bool {
    let moved: Vec<bool> = tally
        .canaries
        .iter()
        .map(|c| match (steadiness, c) {
            (Some(s), Some(c)) => s.moved(*c),
            _ => false,
        })
        .collect();
    let settled = steadiness.is_none_or(|s| s.settled());
    let processes = |keep_moved: bool| -> Vec<&[f64]> {
        tally
            .per_process
            .iter()
            .zip(&moved)
            .filter(|&(_, &m)| keep_moved || !m)
            .map(|(p, _)| p.as_slice())
            .collect()
    };
    let steady = processes(false);
    if steady.len() < asked {
        return true;
    }
    let used = match crate::stats::kept(&moved, settled, LEVEL) {
        Kept::All | Kept::Steady => steady,
        // The report keeps every process of a run that never settled: its interval is
        // of all of them (more may still settle the run).
        Kept::Unsteady if !settled => processes(true),
        // More processes may make the steady ones a majority again.
        Kept::Unsteady => return true,
    };
    // Too few processes asked for any interval: the precision is not for us to chase.
    if asked < crate::stats::min_clusters(LEVEL) {
        return false;
    }
    let median = |xs: &[f64]| crate::stats::median(xs).unwrap_or(f64::NAN);
    match crate::stats::cluster_bootstrap_ci(
        &used,
        median,
        crate::stats::RESAMPLES,
        LEVEL,
        crate::stats::seed_of(key),
    ) {
        Some(ci) => 100.0 * ci.half_width_rel() > precision_pct,
        None => false,
    }
}

/// What the correctness gate found of one implementation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Fit to be timed: verified where there are no notes, else checked in part, the
    /// notes saying what was not checked.
    Checked(Vec<String>),
    /// Not to be timed: wrong output, failed (crashed, hung, could not be loaded) or not
    /// supported on this CPU, and why.
    Unfit(CaseStatus, String),
}

impl Verdict {
    /// The verdict in `check`'s words ("verified", "checked in part", "WRONG OUTPUT",
    /// "FAILED", "not supported on this CPU"), why, and whether it fails the check (a CPU
    /// that lacks what an implementation needs does not).
    pub fn describe(&self) -> (&'static str, String, bool) {
        match self {
            Verdict::Checked(notes) if notes.is_empty() => ("verified", String::new(), false),
            Verdict::Checked(notes) => ("checked in part", notes.join("; "), false),
            Verdict::Unfit(status, why) => match status {
                CaseStatus::Wrong => (
                    "WRONG OUTPUT",
                    why.trim_start_matches("wrong output: ").to_string(),
                    true,
                ),
                CaseStatus::Unsupported => ("not supported on this CPU", why.clone(), false),
                _ => ("FAILED", why.clone(), true),
            },
        }
    }
}

/// The correctness gate of each of `implementations` (what `run` does before timing
/// them, and all that `check` does), in the order given; `None` where `step`, told of
/// each worker before it starts, said to stop (Ctrl-C).
///
/// A C build is checked alone first, in a worker of its own. Then each that passed is
/// compared, in another, with the builds of its algorithm that passed alone too
/// ([`gate_peers`](crate::cimpl::gate_peers)): a build that crashes, hangs or is wrong
/// fails its own cases, never those of a right one compared with it. A peer that dies
/// only when called for a comparison is failed for it, and the comparison is made again
/// without it.
pub fn verify_all(
    implementations: &[&str],
    measured: &[Case],
    external: &crate::cimpl::External,
    cpu: Option<usize>,
    timeout: Duration,
    simulate: bool,
    step: &mut dyn FnMut(&str) -> bool,
) -> Result<Option<Vec<Verdict>>> {
    let gate_alone = |spec: Option<&crate::cimpl::CSpec>, name: &str| {
        let alone = spec.map(|s| crate::cimpl::CSpec {
            peers: Vec::new(),
            ..s.clone()
        });
        verify(name, measured, alone.as_ref(), cpu, timeout, simulate)
    };
    let mut alone: BTreeMap<String, Verdict> = BTreeMap::new();
    for &imp in implementations {
        if !step(&format!("checking {imp}")) {
            return Ok(None);
        }
        alone.insert(imp.to_string(), gate_alone(external.get(imp), imp)?);
    }
    let mut compared: BTreeMap<String, Verdict> = BTreeMap::new();
    // Peers that passed alone and died when called for a comparison, and why.
    let mut died_as_peer: BTreeMap<String, String> = BTreeMap::new();
    for &imp in implementations {
        let Some(spec) = external.get(imp).filter(|s| !s.peers.is_empty()) else {
            continue;
        };
        if !matches!(alone[imp], Verdict::Checked(_)) {
            continue;
        }
        // A candidate left out of this check (`operation=` kept none of its cases) is
        // checked alone all the same before it is compared with.
        for p in &spec.peers {
            if let std::collections::btree_map::Entry::Vacant(unchecked) = alone.entry(p.name()) {
                if !step(&format!("checking {}", p.name())) {
                    return Ok(None);
                }
                unchecked.insert(gate_alone(Some(p), &p.name())?);
            }
        }
        loop {
            let peers = crate::cimpl::gate_peers(spec, |p| {
                matches!(alone.get(&p.name()), Some(Verdict::Checked(_)))
                    && !died_as_peer.contains_key(&p.name())
            });
            if peers.is_empty() {
                break;
            }
            if !step(&format!("comparing {imp} with its other variants")) {
                return Ok(None);
            }
            let with_peers = crate::cimpl::CSpec {
                peers,
                ..spec.clone()
            };
            let verdict = verify(imp, measured, Some(&with_peers), cpu, timeout, simulate)?;
            if let Verdict::Unfit(CaseStatus::Failed, why) = &verdict
                && let Some(peer) = crate::cimpl::peer_that_died(why, &with_peers.peers)
            {
                died_as_peer.insert(
                    peer.name(),
                    format!("called by the gate to compare {imp} with it: {why}"),
                );
                continue;
            }
            compared.insert(imp.to_string(), verdict);
            break;
        }
    }
    Ok(Some(
        implementations
            .iter()
            .map(|&imp| match died_as_peer.get(imp) {
                Some(why) => Verdict::Unfit(CaseStatus::Failed, why.clone()),
                None => compared.remove(imp).unwrap_or_else(|| alone[imp].clone()),
            })
            .collect(),
    ))
}

/// The number of workers [`verify_all`] starts for `implementations` where each of their
/// builds passes alone: one each, and one more for each C build with candidates to be
/// compared with.
pub fn gate_steps(implementations: &[&str], external: &crate::cimpl::External) -> usize {
    implementations.len()
        + (implementations.iter())
            .filter(|imp| external.get(**imp).is_some_and(|s| !s.peers.is_empty()))
            .count()
}

/// The correctness gate of `implementation`, in a worker of its own, with its output
/// checked at each point of `measured` (the run's cases; those of other implementations
/// are passed over); `c` is its spec where it is a C build, with the peers it is to be
/// compared with.
/// Under the simulator (`simulate`, for the instruction counter) the gate checks the code
/// the simulated CPU's dispatch picks, which is the code then counted; an implementation
/// that needs what the simulator lacks is *not countable*, not failed.
fn verify(
    implementation: &str,
    measured: &[Case],
    c: Option<&crate::cimpl::CSpec>,
    cpu: Option<usize>,
    timeout: Duration,
    simulate: bool,
) -> Result<Verdict> {
    let mut points: Vec<(String, Params)> = Vec::new();
    let mut cases: Vec<&Case> = Vec::new();
    for case in measured
        .iter()
        .filter(|c| c.implementation == implementation)
    {
        let point = (case.operation.clone(), case.params.clone());
        if !points.contains(&point) {
            points.push(point);
            cases.push(case);
        }
    }
    let verified = |points: Vec<(String, Params)>| {
        let request = |c| Request {
            implementation: implementation.to_string(),
            c,
            cpu,
            task: Task::Verify { points },
            simulate,
        };
        gate(c, request, timeout, "correctness check")
    };
    let verdict = verified(points.clone())?;
    // A crash or hang says nothing of where: where the gate's own checks pass, the
    // measured points are tried one worker each, so that the failure names its case.
    if let Verdict::Unfit(CaseStatus::Failed, _) = verdict
        && !points.is_empty()
        && !simulate
        && let Verdict::Checked(_) = verified(Vec::new())?
    {
        for case in cases {
            if let unfit @ Verdict::Unfit(..) = rehearse_in(case, c, cpu, timeout)? {
                return Ok(unfit);
            }
        }
    }
    Ok(verdict)
}

/// One call of `case`, untimed, in a worker of its own, prepared as a measurement of it
/// would be: whether the call a run would time works at the case's parameters, which the
/// gate ([`verify`]) does not ask for (`cargo test --benches` at the bench's sizes).
pub fn rehearse(
    case: &Case,
    external: &crate::cimpl::External,
    cpu: Option<usize>,
    timeout: Duration,
) -> Result<Verdict> {
    rehearse_in(case, external.get(&case.implementation), cpu, timeout)
}

/// [`rehearse`] of a case whose C build, where it is one, is `c`.
fn rehearse_in(
    case: &Case,
    c: Option<&crate::cimpl::CSpec>,
    cpu: Option<usize>,
    timeout: Duration,
) -> Result<Verdict> {
    let request = |c| Request {
        implementation: case.implementation.clone(),
        c,
        cpu,
        task: Task::Rehearse {
            operation: case.operation.clone(),
            params: case.params.clone(),
        },
        simulate: false,
    };
    let at = if case.params.is_empty() {
        case.operation.clone()
    } else {
        format!("{} {}", case.operation, case.params)
    };
    Ok(match gate(c, request, timeout, "the call")? {
        Verdict::Unfit(status, why) => Verdict::Unfit(status, format!("{at}: {why}")),
        checked => checked,
    })
}

/// The verdict of a worker given the `request` of a gate (or a rehearsal) of an
/// implementation, built from `c` where it is a C build: `what` names the task where the
/// worker ended without a reply.
fn gate(
    c: Option<&crate::cimpl::CSpec>,
    request: impl FnOnce(Option<crate::cimpl::CSpec>) -> Request,
    timeout: Duration,
    what: &str,
) -> Result<Verdict> {
    // A build that did not compile (`--keep-going`) has nothing to load.
    if let Some(why) = c.and_then(|s| s.not_built.clone()) {
        return Ok(Verdict::Unfit(CaseStatus::Failed, why));
    }
    let request = request(c.cloned());
    let simulate = request.simulate;
    Ok(match worker::run(&request, timeout)? {
        Outcome::Crashed(why) if simulate && simulator_refused(&why) => {
            Verdict::Unfit(CaseStatus::Unsupported, not_countable(&why))
        }
        Outcome::Replied(Reply::Verified(notes)) => Verdict::Checked(notes),
        Outcome::Replied(Reply::Wrong(why)) => {
            Verdict::Unfit(CaseStatus::Wrong, format!("wrong output: {why}"))
        }
        Outcome::Replied(Reply::Unsupported(why)) => Verdict::Unfit(CaseStatus::Unsupported, why),
        Outcome::Replied(Reply::Refused(why)) => {
            Verdict::Unfit(CaseStatus::Failed, format!("cannot be loaded: {why}"))
        }
        Outcome::Replied(other) => {
            Verdict::Unfit(CaseStatus::Failed, describe(&Outcome::Replied(other)))
        }
        other => Verdict::Unfit(CaseStatus::Failed, format!("{what} {}", describe(&other))),
    })
}

/// The crypto features Valgrind's simulated CPU shows a worker: the dispatch that
/// instruction counts measure.
pub fn simulated_crypto_flags(timeout: Duration) -> Result<Vec<String>> {
    let request = Request {
        implementation: String::new(),
        c: None,
        cpu: None,
        task: Task::Features,
        simulate: true,
    };
    match worker::run(&request, timeout)? {
        Outcome::Replied(Reply::Features(flags)) => Ok(flags),
        other => anyhow::bail!("cannot run a worker under Valgrind: {}", describe(&other)),
    }
}

/// Whether a worker under the simulator died of an instruction the simulator does not
/// have (Valgrind 3.19 stops on AVX-512 with SIGILL).
fn simulator_refused(why: &str) -> bool {
    why.contains("SIGILL") || why.contains("unhandled instruction")
}

fn not_countable(why: &str) -> String {
    format!(
        "not countable: Valgrind's simulated CPU lacks an instruction it uses (AVX-512 and others; docs/measurement.md): {why}"
    )
}

fn describe(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Replied(Reply::Refused(why)) => format!("refused: {why}"),
        Outcome::Replied(r) => format!("unexpected reply {r:?}"),
        Outcome::Crashed(why) => format!("crashed ({why})"),
        Outcome::TimedOut(t, None) => format!("timed out after {:.1} s (hang?)", t.as_secs_f64()),
        Outcome::TimedOut(t, Some(call)) => {
            format!("timed out after {:.1} s (hang?) in {call}", t.as_secs_f64())
        }
    }
}

/// SplitMix64: a tiny deterministic generator for orders and layout seeds, so that a run
/// is reproducible from its seed.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn shuffle<T>(v: &mut [T], rng: &mut SplitMix) {
    for i in (1..v.len()).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A case's processes: each with 64 samples around `level` (spread ±`spread`) and
    /// its canary.
    fn tally(processes: &[(f64, f64, Option<f64>)]) -> Tally {
        let mut t = Tally::default();
        for &(level, spread, canary) in processes {
            t.per_process.push(
                (0..64)
                    .map(|i| level + spread * ((i % 7) as f64 - 3.0) / 3.0)
                    .collect(),
            );
            t.canaries.push(canary);
        }
        t
    }

    #[test]
    fn a_case_is_remeasured_by_the_rule_its_report_keeps_processes_by() {
        let run_wide = crate::stats::steadiness(&[1000.0; 30]);
        // Ten steady processes that agree: steady and precise.
        let agreeing = tally(&[(100.0, 0.1, Some(1000.0)); 10]);
        assert!(!wants_more(&agreeing, "k", run_wide, 10, 0.5));
        // Processes 5 % apart: an interval wider than ±0.5 %.
        let apart: Vec<_> = (0..10)
            .map(|p| (100.0 + 5.0 * (p % 2) as f64, 0.1, Some(1000.0)))
            .collect();
        assert!(wants_more(&tally(&apart), "k", run_wide, 10, 0.5));
        // Six steady of 13: as many as asked, and precise, but no majority: the report
        // keeps all 13 and calls the case unsteady, so more are measured.
        let mut few = vec![(100.0, 0.1, Some(1000.0)); 6];
        few.extend([(130.0, 0.1, Some(1300.0)); 7]);
        assert!(wants_more(&tally(&few), "k", run_wide, 6, 0.5));
        // Seven of 13 are a majority: the moved six are set aside, and the rest agree.
        let mut most = vec![(100.0, 0.1, Some(1000.0)); 7];
        most.extend([(130.0, 0.1, Some(1300.0)); 6]);
        assert!(!wants_more(&tally(&most), "k", run_wide, 6, 0.5));
    }

    #[test]
    fn shuffle_is_a_deterministic_permutation() {
        let mut a: Vec<u32> = (0..20).collect();
        let mut b = a.clone();
        shuffle(&mut a, &mut SplitMix(7));
        shuffle(&mut b, &mut SplitMix(7));
        assert_eq!(a, b);
        assert_ne!(a, (0..20).collect::<Vec<_>>());
        a.sort();
        assert_eq!(a, (0..20).collect::<Vec<_>>());
    }
}
