//! A case's median run after run, from the store: the data behind `cryptobench history`.
//!
//! Runs are only comparable when they counted the same thing on the same machine (testbed and
//! hardware fingerprint; the CPU model is said first where it differs). For
//! each case, the latest run that measured it is the reference, and every other point
//! says whether it is comparable with it, so that reports mark the others instead of
//! joining figures in different units or from different machines.

use anyhow::{Result, bail};

use crate::record::{CaseStatus, RunCounter, RunHeader};
use crate::stats;
use crate::store::Store;

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

/// One measured value of a case.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Point {
    /// Index into [`History::runs`].
    pub run: usize,
    /// Median counts per call over all samples, as the run's report gives it.
    pub median: f64,
    /// The core clock beside the samples (tsc-core runs that kept it).
    pub core_clock_hz: Option<f64>,
    /// Whether it can stand beside the case's latest run: a complete run with the same
    /// counter, machine (testbed and fingerprint) and environment; `caveats` say why not.
    pub comparable: bool,
    /// Why not, when not.
    pub caveats: Vec<String>,
}

/// One case's medians over the runs that measured it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CaseHistory {
    /// The case's stable id, e.g. `rustcrypto/chacha20/xor len=16384`.
    pub key: String,
    /// Oldest run first; the last is the reference the others are compared with.
    pub points: Vec<Point>,
}

impl CaseHistory {
    /// Index into [`History::runs`] of the case's latest run.
    pub fn reference(&self) -> usize {
        self.points.last().map_or(0, |p| p.run)
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
    for id in store.runs()? {
        // The whole run, so that the canary is judged over all of it, as its report does.
        let run = match store.load_run(id) {
            Ok(run) => crate::analysis::steady_view(&run).0,
            Err(e) => {
                unreadable.push(format!("{e:#}"));
                continue;
            }
        };
        if testbed.is_some_and(|t| t != run.header.place.testbed) {
            continue;
        }
        let measured: Vec<(String, f64, Option<f64>)> = run
            .cases
            .iter()
            .filter(|c| c.status == CaseStatus::Ok)
            .filter(|c| filter.is_none_or(|f| c.key.contains(f)))
            .filter_map(|c| {
                let all: Vec<f64> = c.per_process.iter().flatten().copied().collect();
                let clock = stats::median(&c.core_clocks)
                    .zip(run.header.tsc_hz)
                    .map(|(ratio, hz)| ratio * hz);
                stats::median(&all).map(|m| (c.key.clone(), m, clock))
            })
            .collect();
        if measured.is_empty() {
            continue;
        }
        let index = runs.len();
        runs.push(RunInfo::of(&run.header));
        for (key, median, core_clock_hz) in measured {
            let point = Point {
                run: index,
                median,
                core_clock_hz,
                comparable: true,
                caveats: Vec::new(),
            };
            match cases.iter_mut().find(|c| c.key == key) {
                Some(c) => c.points.push(point),
                None => cases.push(CaseHistory {
                    key,
                    points: vec![point],
                }),
            }
        }
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
    for case in &mut cases {
        let latest = &runs[case.reference()];
        for p in &mut case.points {
            let r = &runs[p.run];
            if !r.complete {
                p.caveats.push(
                    "incomplete run (interrupted, or still running): fewer samples than asked"
                        .into(),
                );
            }
            if r.counter != latest.counter {
                p.caveats
                    .push(format!("counter {}, not {}", r.counter, latest.counter));
            }
            if r.cpu_model != latest.cpu_model {
                p.caveats.push(format!("another CPU: {}", r.cpu_model));
            } else if (&r.testbed, &r.fingerprint) != (&latest.testbed, &latest.fingerprint) {
                // The same model name on other hardware (flags, stepping) or another
                // testbed: another machine's cycles, never one line with these.
                p.caveats.push(format!(
                    "another machine: testbed {} (fingerprint {})",
                    r.testbed, r.fingerprint
                ));
            }
            if r.environment != latest.environment {
                p.caveats.push(if r.environment.is_empty() {
                    format!("measured without {}", latest.environment.join(" "))
                } else {
                    format!("measured with {}", r.environment.join(" "))
                });
            }
            p.comparable = p.caveats.is_empty();
        }
    }
    Ok(History {
        filter: filter.map(str::to_string),
        runs,
        cases,
        unreadable,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::{header, imported_case};

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
