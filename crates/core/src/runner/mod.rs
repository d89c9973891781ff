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

use crate::record::{Case, CaseStatus, RunOptions};
use crate::store::Store;
use worker::{Outcome, Reply, Request, Task};

/// Something to tell the user about as the run goes.
pub trait Progress {
    fn start(&self, total_steps: u64);
    fn step(&self, what: &str);
    fn note(&self, line: &str);
}

/// How a run's measuring ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
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
    progress.start((gate.len() + cases.len() * opts.processes) as u64);
    for (imp, verdict) in gate.iter_mut() {
        progress.step(&format!("checking {imp}"));
        let checked = verify(imp, external, opts.cpu, opts.timeout)?;
        if stop() {
            return Ok(Ended::Interrupted);
        }
        *verdict = match checked {
            Verdict::Checked(notes) => {
                for n in &notes {
                    progress.note(n);
                }
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
    for round in 0..opts.processes {
        shuffle(&mut live, &mut rng);
        let mut failed = Vec::new();
        for &i in &live {
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
                    seed: opts.seed ^ layout_seed(&case.key()),
                },
            };
            let outcome = worker::run(&request, opts.timeout)?;
            if stop() {
                return Ok(Ended::Interrupted);
            }
            match outcome {
                Outcome::Replied(Reply::Measured(samples)) => {
                    store.add_samples(rows[i], round, &samples)?
                }
                Outcome::Replied(Reply::Unsupported(why)) => {
                    store.set_status(rows[i], CaseStatus::Unsupported, Some(&why))?;
                    failed.push(i);
                }
                other => {
                    let why = describe(&other);
                    progress.note(&format!("{}: {why}", case.key()));
                    store.set_status(rows[i], CaseStatus::Failed, Some(&why))?;
                    failed.push(i);
                }
            }
        }
        live.retain(|i| !failed.contains(i));
    }
    Ok(Ended::Finished)
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

/// The correctness gate of `implementation`, in a worker of its own (what `run` does
/// before timing it, and all that `check` does).
pub fn verify(
    implementation: &str,
    external: &crate::cimpl::External,
    cpu: Option<usize>,
    timeout: Duration,
) -> Result<Verdict> {
    let request = Request {
        implementation: implementation.to_string(),
        c: external.get(implementation).cloned(),
        cpu,
        task: Task::Verify,
    };
    Ok(match worker::run(&request, timeout)? {
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
        other => Verdict::Unfit(
            CaseStatus::Failed,
            format!("correctness check {}", describe(&other)),
        ),
    })
}

fn describe(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Replied(Reply::Refused(why)) => format!("refused: {why}"),
        Outcome::Replied(r) => format!("unexpected reply {r:?}"),
        Outcome::Crashed(why) => format!("crashed ({why})"),
        Outcome::TimedOut(t) => format!("timed out after {:.1} s (hang?)", t.as_secs_f64()),
    }
}

/// Per case, so that every process of a case lays its memory out the same way.
fn layout_seed(key: &str) -> u64 {
    key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
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
