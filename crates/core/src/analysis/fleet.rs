//! One experiment across machines (`report --machines`): each machine's newest complete
//! run of it (of its whole plan, where the machine has one), a column each. Cycle counts belong to one CPU, so no verdict is drawn
//! across columns; the figures that do compare across CPUs are each machine's own ratios
//! within its run (candidate over reference, measured interleaved).

use anyhow::{Result, bail};

use crate::record::Params;
use crate::stats::Interval;
use crate::store::{MachineRun, Store};

/// A machine's column: which run it shows and in what counts.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FleetColumn {
    /// The machine's name (`--testbed`, or the hardware's default name).
    pub testbed: String,
    /// A hash of what the machine's hardware is.
    pub fingerprint: String,
    /// The CPU the run was measured on.
    pub cpu_model: String,
    /// The run's counter, by name (e.g. `tsc-core`).
    pub counter: String,
    /// The unit of the column's figures as tables print it (`cycles`, `ref-cycles`, `ns` or
    /// `instructions`): the run's counter's, as the run's own report says.
    pub unit: String,
    /// The run shown: the machine's newest complete run of the experiment's whole plan,
    /// or its newest partial one where it has none ([`Store::latest_complete_runs`]).
    pub run_id: i64,
    /// That run's UUID, the same in every store it was pushed to.
    pub run_uuid: String,
    /// When the run started, as stored.
    pub started_at: String,
    /// The git revision of the code measured, where known.
    pub git_revision: Option<String>,
    /// What the run's own report warns of about the host, in one line, if anything.
    pub host: Option<String>,
    /// How the run narrowed the experiment's plan (`--sizes 64`), where it did: the
    /// machine has no complete run of the whole plan, and the cases the run left out read
    /// as not measured in its column.
    pub partial: Option<String>,
}

/// A case's figure on one machine: counts per byte (per call where the case has no
/// bytes), the median with its 95 % interval.
#[derive(Clone, Debug)]
pub struct FleetCell {
    /// The median with its interval, in counts per byte or per call (`per_byte` says).
    pub figure: Interval,
    /// Whether `figure` has an interval: a run of fewer processes than one needs has its
    /// median alone (its ends are then the median, and are not said).
    pub interval: bool,
    /// Whether `figure` is per byte rather than per call.
    pub per_byte: bool,
    /// The case's status where it is not simply verified (unsteady, checked in part…).
    pub note: Option<String>,
}

impl serde::Serialize for FleetCell {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // As a run's JSON does: no interval is null ends, never ends at the median.
        let figure = match self.interval {
            true => serde_json::json!(self.figure),
            false => serde_json::json!({
                "estimate": self.figure.estimate, "lo": null, "hi": null, "level": null,
            }),
        };
        serde_json::json!({"figure": figure, "per_byte": self.per_byte, "note": self.note})
            .serialize(s)
    }
}

/// One case across the machines: a row of the table.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FleetRow {
    /// The implementation measured.
    pub implementation: String,
    /// The operation measured.
    pub operation: String,
    /// The operation's parameters.
    pub params: Params,
    /// One per column, in the columns' order; `None` where that run has no such case.
    pub cells: Vec<Option<FleetCell>>,
}

/// One within-run ratio (member over reference), per machine.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FleetRatio {
    /// The implementation set against the reference.
    pub member: String,
    /// The member's operation.
    pub operation: String,
    /// The implementation the member is divided by.
    pub reference: String,
    /// The reference's operation (the member's, or the reference's only one).
    pub reference_operation: String,
    /// The parameters both cases share.
    pub params: Params,
    /// The ratio with its interval, one per column in the columns' order; `None` where
    /// that run has no such ratio.
    pub cells: Vec<Option<Interval>>,
}

/// One experiment across machines: a column per testbed, a row per case and per ratio.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Fleet {
    /// The experiment shown.
    pub experiment: String,
    /// One per machine, each showing its newest complete run of the experiment.
    pub columns: Vec<FleetColumn>,
    /// One per case measured on any of the machines: each implementation and operation
    /// where first seen, its parameters in order.
    pub rows: Vec<FleetRow>,
    /// One per within-run ratio computed on any of the machines.
    pub ratios: Vec<FleetRatio>,
    /// The machines whose run this version cannot read (stored by another one), each
    /// with why: left out, so that one of them does not hide every other column.
    pub left_out: Vec<String>,
}

/// What a report across machines needs of one run, computed once (when the run is
/// finished, or on the first such report) and stored beside it, so that a report over
/// many machines reads a row per machine instead of analysing every run again. The same
/// analysis as the run's own report: the figures are the same.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct RunFigures {
    /// Where the host moved in some processes, how many and what was set aside, in one
    /// line; `None` where it did not.
    pub host: Option<String>,
    /// The figure of every measured case.
    pub cases: Vec<CaseFigure>,
    /// The run's ratios.
    pub ratios: Vec<RatioFigure>,
}

/// A measured case's figure in a run, as a [`FleetCell`] shows it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CaseFigure {
    /// The implementation measured.
    pub implementation: String,
    /// The operation measured.
    pub operation: String,
    /// The operation's parameters.
    pub params: Params,
    /// The median with its interval, per byte where the case has bytes, else per call.
    pub figure: Interval,
    /// Whether `figure` has an interval (see [`FleetCell::interval`]).
    pub interval: bool,
    /// Whether `figure` is per byte rather than per call.
    pub per_byte: bool,
    /// `host unsteady`, or the case's message (else status) where it is not simply
    /// verified; `None` otherwise.
    pub note: Option<String>,
    /// The case's figure per call, as `history` shows it; `None` in figures stored by a
    /// version before history read them (their form is otherwise the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_call: Option<PerCallFigure>,
}

/// A measured case's median per call in a run, with what else `history` shows of it:
/// kept with the run's figures so that history need not bootstrap every run again.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PerCallFigure {
    /// The case's stable id, e.g. `rustcrypto/chacha20/xor len=16384`.
    pub key: String,
    /// The median per call with its 95 % interval (the point itself where
    /// [`CaseFigure::interval`] is false).
    pub median: Interval,
    /// The core clock beside the samples (tsc-core runs that kept it).
    pub core_clock_hz: Option<f64>,
}

/// A ratio of a run (member over reference), as stored with its figures.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct RatioFigure {
    /// The implementation set against the reference.
    pub member: String,
    /// The member's operation.
    pub operation: String,
    /// The implementation the member is divided by.
    pub reference: String,
    /// The reference's operation (the member's, or the reference's only one).
    pub reference_operation: String,
    /// The parameters both cases share.
    pub params: Params,
    /// Member over reference, with its interval.
    pub ratio: Interval,
}

/// The version of [`RunFigures`]' stored form and of the analysis that made them: figures
/// of another version are computed again. Raise it with any change to the analysis that
/// changes a stored figure (a median, an interval, a ratio, a note), or `report --machines`
/// and `history` go on showing the old analysis' figures for every run stored before.
/// 3: a ratio divides by the reference's case of the member's own operation (version 2
/// took the reference's first case at the parameters), and the unit is no longer stored
/// (version 2 stored `cycles` for TSC runs, since called `ref-cycles`).
pub const FIGURES_VERSION: i64 = 3;

impl RunFigures {
    /// The figures a report across machines needs, from a run's analysis.
    pub fn of(analysis: &crate::analysis::Analysis) -> RunFigures {
        let cases = analysis
            .cases
            .iter()
            .filter_map(|case| {
                let m = case.measured.as_ref()?;
                let (figure, per_byte) = match &m.per_byte {
                    Some(pb) => (*pb, true),
                    None => (m.median, false),
                };
                let note = (!case.verified() || case.unsteady).then(|| {
                    if case.unsteady {
                        "host unsteady".to_string()
                    } else {
                        case.message
                            .clone()
                            .unwrap_or_else(|| case.status.as_str().to_string())
                    }
                });
                Some(CaseFigure {
                    implementation: case.implementation.clone(),
                    operation: case.operation.clone(),
                    params: case.params.clone(),
                    figure,
                    interval: m.has_interval(),
                    per_byte,
                    note,
                    per_call: Some(PerCallFigure {
                        key: case.key.clone(),
                        median: m.median,
                        core_clock_hz: m.core_clock_hz,
                    }),
                })
            })
            .collect();
        let ratios = analysis
            .ratios
            .iter()
            .map(|r| RatioFigure {
                member: r.member.clone(),
                operation: r.operation.clone(),
                reference: r.reference.clone(),
                reference_operation: r.reference_operation.clone(),
                params: r.params.clone(),
                ratio: r.ratio,
            })
            .collect();
        RunFigures {
            host: analysis.host.as_ref().and_then(|h| {
                if !h.settled() {
                    return Some(format!(
                        "the host never settled (the canary spread ±{:.0} %): no gate decides on this run",
                        h.threshold_pct
                    ));
                }
                (h.moved > 0).then(|| {
                    format!(
                        "the host moved in {} of {} processes (set aside in {} case{}; {} unsteady)",
                        h.moved,
                        h.processes,
                        h.set_aside.len(),
                        if h.set_aside.len() == 1 { "" } else { "s" },
                        h.unsteady.len()
                    )
                })
            }),
            cases,
            ratios,
        }
    }

    /// Run `run_id`'s figures as stored beside it, where they are of this version.
    pub fn stored(store: &Store, run_id: i64) -> Result<Option<RunFigures>> {
        Ok(store
            .figures(run_id, FIGURES_VERSION)?
            .and_then(|json| serde_json::from_str::<RunFigures>(&json).ok())
            .filter(RunFigures::sound))
    }

    /// Whether every figure is one an analysis could have made: finite, inside its
    /// interval. Stored figures are a cache outside the run's digest; a row another
    /// program wrote, or a disk damaged, is computed again from the samples rather than
    /// printed as `1.000 [5.000, 0.100]`.
    fn sound(&self) -> bool {
        let inside = |i: &Interval| {
            [i.estimate, i.lo, i.hi].iter().all(|x| x.is_finite())
                && i.lo <= i.estimate
                && i.estimate <= i.hi
        };
        let sound = |figure: &Interval, interval: bool| {
            figure.estimate.is_finite() && (!interval || inside(figure))
        };
        self.cases.iter().all(|c| {
            sound(&c.figure, c.interval)
                && c.per_call
                    .as_ref()
                    .is_none_or(|p| sound(&p.median, c.interval))
        }) && self.ratios.iter().all(|r| inside(&r.ratio))
    }

    /// Run `run_id`'s figures computed from its samples, for a run stored without them
    /// (or with another version's): the caller may store them
    /// (`session::figures_of_run`); the analysis writes nothing.
    pub fn computed(store: &Store, run_id: i64) -> Result<RunFigures> {
        let run = store.load_run(run_id)?;
        let analysis = crate::analysis::analyse(
            &run,
            &crate::analysis::Context {
                baseline: None,
                estimates: Default::default(),
            },
        )?;
        Ok(RunFigures::of(&analysis))
    }
}

/// Where a new row goes among `rows`: before the first of its group (`same`) that comes
/// after it (`after`), else after the group's last, else at the end; so that the rows of
/// one implementation stay in size order whichever machine measured which sizes.
fn in_order<R>(rows: &[R], same: impl Fn(&R) -> bool, after: impl Fn(&R) -> bool) -> usize {
    rows.iter()
        .position(|r| same(r) && after(r))
        .or_else(|| rows.iter().rposition(&same).map(|i| i + 1))
        .unwrap_or(rows.len())
}

/// `what` on every machine of the store, or on `testbeds` only; only runs at git
/// revision `revision` (exactly, or a hash prefix) where one is given. `what` is an
/// experiment stored (default: the newest complete run's), or else a filter over the case
/// ids of that run's experiment. Each run's figures come from `figures_of` (stored, or computed).
pub fn collect(
    store: &Store,
    what: Option<&str>,
    testbeds: &[String],
    revision: Option<&str>,
    figures_of: &dyn Fn(i64) -> Result<RunFigures>,
) -> Result<Fleet> {
    // The newest complete run's: a run still measuring (on any machine of a shared
    // store) or one interrupted has no figures to show.
    let newest = || -> Result<String> {
        match store.latest_complete_experiment()? {
            Some(experiment) => Ok(experiment),
            None if store.latest_run()?.is_some() => bail!(
                "the store `{}` holds no complete run yet: the runs in it were interrupted or are still measuring",
                store.path().display()
            ),
            None => bail!(
                "the store `{}` holds no runs yet: run or push some first",
                store.path().display()
            ),
        }
    };
    let (experiment, filter) = match what {
        Some(e) if !store.latest_complete_runs(e, None)?.is_empty() => (e.to_string(), None),
        Some(f) => (newest()?, Some(f)),
        None => (newest()?, None),
    };
    let latest = store.latest_complete_runs(&experiment, revision)?;
    if latest.is_empty() {
        bail!(
            "no complete run of `{experiment}`{} in `{}`: see `cryptobench machines` and `cryptobench history`",
            revision.map_or(String::new(), |r| format!(" at revision {r}")),
            store.path().display()
        );
    }
    for t in testbeds {
        if !latest.iter().any(|m| m.testbed == *t) {
            // A testbed seen on two machines has two columns, but is one name to give.
            let mut known: Vec<&str> = latest.iter().map(|m| m.testbed.as_str()).collect();
            known.dedup();
            bail!(
                "--testbed {t}: no complete run of `{experiment}` on that testbed in `{}` (it has {})",
                store.path().display(),
                known.join(", ")
            );
        }
    }
    let mut fleet = Fleet {
        experiment,
        columns: Vec::new(),
        rows: Vec::new(),
        ratios: Vec::new(),
        left_out: Vec::new(),
    };
    for MachineRun {
        testbed,
        fingerprint,
        run: run_id,
        partial,
    } in latest
    {
        if !testbeds.is_empty() && !testbeds.contains(&testbed) {
            continue;
        }
        // A run another version wrote (a counter this one does not know) leaves its
        // column out, not the report of every other machine.
        let read = store
            .load_run_where(run_id, |_| false)
            .and_then(|run| Ok((run.header, figures_of(run_id)?)));
        let (header, figures) = match read {
            Ok(read) => read,
            Err(e) => {
                fleet.left_out.push(format!("testbed {testbed}: {e:#}"));
                continue;
            }
        };
        let column = fleet.columns.len();
        fleet.columns.push(FleetColumn {
            testbed,
            fingerprint,
            cpu_model: header.cpu_model.clone(),
            counter: header.counter.to_string(),
            // From the run's counter, as its own report takes it: a unit stored with the
            // figures could name another version's word for the same counts.
            unit: header.counter.short_unit().to_string(),
            run_id,
            run_uuid: header.place.uuid.clone(),
            started_at: header.started_at.clone(),
            git_revision: header.git_revision.clone(),
            host: figures.host.clone(),
            partial,
        });
        let wanted = |implementation: &str, operation: &str, params: &Params| {
            filter.is_none_or(|f| format!("{implementation}/{operation} {params}").contains(f))
        };
        for case in figures.cases {
            if !wanted(&case.implementation, &case.operation, &case.params) {
                continue;
            }
            let row = match fleet.rows.iter().position(|r| {
                r.implementation == case.implementation
                    && r.operation == case.operation
                    && r.params == case.params
            }) {
                Some(i) => i,
                None => {
                    // A size another machine did not measure goes among its
                    // implementation's rows in size order, not after them all.
                    let same = |r: &FleetRow| {
                        r.implementation == case.implementation && r.operation == case.operation
                    };
                    let at = in_order(&fleet.rows, same, |r| r.params > case.params);
                    fleet.rows.insert(
                        at,
                        FleetRow {
                            implementation: case.implementation.clone(),
                            operation: case.operation.clone(),
                            params: case.params.clone(),
                            cells: Vec::new(),
                        },
                    );
                    at
                }
            };
            let cells = &mut fleet.rows[row].cells;
            cells.resize(column + 1, None);
            cells[column] = Some(FleetCell {
                figure: case.figure,
                interval: case.interval,
                per_byte: case.per_byte,
                note: case.note,
            });
        }
        for ratio in figures.ratios {
            if !wanted(&ratio.member, &ratio.operation, &ratio.params)
                && !wanted(&ratio.reference, &ratio.reference_operation, &ratio.params)
            {
                continue;
            }
            // Keyed on both operations: an AEAD's encryption and decryption ratios share
            // their implementations and parameters.
            let same = |r: &FleetRatio| {
                r.member == ratio.member
                    && r.operation == ratio.operation
                    && r.reference == ratio.reference
                    && r.reference_operation == ratio.reference_operation
            };
            let i = match fleet
                .ratios
                .iter()
                .position(|r| same(r) && r.params == ratio.params)
            {
                Some(i) => i,
                None => {
                    let at = in_order(&fleet.ratios, same, |r| r.params > ratio.params);
                    fleet.ratios.insert(
                        at,
                        FleetRatio {
                            member: ratio.member.clone(),
                            operation: ratio.operation.clone(),
                            reference: ratio.reference.clone(),
                            reference_operation: ratio.reference_operation.clone(),
                            params: ratio.params.clone(),
                            cells: Vec::new(),
                        },
                    );
                    at
                }
            };
            let cells = &mut fleet.ratios[i].cells;
            cells.resize(column + 1, None);
            cells[column] = Some(ratio.ratio);
        }
    }
    if fleet.columns.is_empty()
        && let Some(first) = fleet.left_out.first()
    {
        bail!(
            "`{}`: no column to show of `{}`, and {} run{} this version cannot read ({first}{})",
            store.path().display(),
            fleet.experiment,
            fleet.left_out.len(),
            if fleet.left_out.len() == 1 { "" } else { "s" },
            if fleet.left_out.len() > 1 {
                "; ..."
            } else {
                ""
            }
        );
    }
    if let Some(f) = filter
        && fleet.rows.is_empty()
    {
        bail!(
            "`{f}` is no experiment of `{}` and matches no case of its newest, `{}`",
            store.path().display(),
            fleet.experiment
        );
    }
    let width = fleet.columns.len();
    for row in &mut fleet.rows {
        row.cells.resize(width, None);
    }
    for ratio in &mut fleet.ratios {
        ratio.cells.resize(width, None);
    }
    Ok(fleet)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Figures as a store holds them are a cache outside the run's digest: any that no
    /// analysis could have made are computed again, not printed.
    #[test]
    fn stored_figures_outside_their_interval_are_not_taken() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let run = store.begin_run(&crate::store::tests::header()).unwrap();
        let interval = |estimate, lo, hi| Interval {
            estimate,
            lo,
            hi,
            level: 0.95,
        };
        let figures = |figure: Interval, ratio: Interval| RunFigures {
            host: None,
            cases: vec![CaseFigure {
                implementation: "a/b".into(),
                operation: "hash".into(),
                params: Params::new(),
                figure,
                interval: true,
                per_byte: true,
                note: None,
                per_call: Some(PerCallFigure {
                    key: "a/b/hash".into(),
                    median: figure,
                    core_clock_hz: None,
                }),
            }],
            ratios: vec![RatioFigure {
                member: "a/b".into(),
                operation: "hash".into(),
                reference: "a/c".into(),
                reference_operation: "hash".into(),
                params: Params::new(),
                ratio,
            }],
        };
        let stored = |f: &RunFigures| {
            store
                .save_figures(run, FIGURES_VERSION, &serde_json::to_string(f).unwrap())
                .unwrap();
            RunFigures::stored(&store, run).unwrap().is_some()
        };
        let good = interval(1.0, 0.9, 1.1);
        assert!(stored(&figures(good, good)));
        assert!(!stored(&figures(interval(1.0, 5.0, 0.1), good)));
        assert!(!stored(&figures(good, interval(1.0, 1.01, 1.1))));
        assert!(!stored(&figures(interval(f64::NAN, 0.9, 1.1), good)));
        let mut per_call_outside = figures(good, good);
        per_call_outside.cases[0].per_call.as_mut().unwrap().median = interval(1.0, 2.0, 3.0);
        assert!(!stored(&per_call_outside));
        // A figure without an interval is taken whatever its bounds say.
        let mut no_interval = figures(interval(1.0, 5.0, 0.1), good);
        no_interval.cases[0].interval = false;
        assert!(stored(&no_interval));
    }

    /// A TSC run's figures stored by a version-2 build said `"unit":"cycles"` (the word for
    /// reference cycles before they were `ref-cycles`) and divided a decryption by the
    /// reference's encryption: such figures are computed again, and a column's unit is
    /// its run's counter's whatever figures it is shown with.
    #[test]
    fn a_column_s_unit_is_its_counter_s_and_version_2_figures_are_not_taken() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let header = crate::record::RunHeader {
            counter: crate::record::RunCounter::Measured(crate::counter::CounterKind::Tsc),
            ..crate::store::tests::header()
        };
        let run = store.begin_run(&header).unwrap();
        store.finish_run(run, "2026-11-22T00:01:00Z").unwrap();
        let version_2 = r#"{"unit":"cycles","host":null,"cases":[],"ratios":[]}"#;
        store.save_figures(run, 2, version_2).unwrap();
        assert!(RunFigures::stored(&store, run).unwrap().is_none());
        // A row whose unit disagrees with its run's counter, as a store edited or a
        // figure pushed in from another build could hold.
        store.save_figures(run, FIGURES_VERSION, version_2).unwrap();
        let fleet = collect(&store, None, &[], None, &|id| {
            Ok(RunFigures::stored(&store, id)?.expect("stored figures"))
        })
        .unwrap();
        assert_eq!(fleet.columns[0].counter, "tsc");
        assert_eq!(fleet.columns[0].unit, "ref-cycles");
    }

    /// An AEAD's encryption and decryption ratios share their implementations and
    /// parameters: `report --machines` kept only the one it read last, unnamed.
    #[test]
    fn an_aead_s_encrypt_and_decrypt_ratios_are_two_rows_named_by_operation() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let run = store.begin_run(&crate::store::tests::header()).unwrap();
        store.finish_run(run, "2026-11-22T00:01:00Z").unwrap();
        let ratio = |operation: &str, estimate: f64| {
            format!(
                r#"{{"member":"b/aead","operation":"{operation}","reference":"a/aead","reference_operation":"{operation}","params":{{"ad":0,"len":64}},"ratio":{{"estimate":{estimate},"lo":{estimate},"hi":{estimate},"level":0.95}}}}"#
            )
        };
        let json = format!(
            r#"{{"host":null,"cases":[],"ratios":[{},{}]}}"#,
            ratio("encrypt", 2.0),
            ratio("decrypt", 3.0)
        );
        store.save_figures(run, FIGURES_VERSION, &json).unwrap();
        let fleet = collect(&store, None, &[], None, &|id| {
            Ok(RunFigures::stored(&store, id)?.expect("stored figures"))
        })
        .unwrap();
        let rows: Vec<(String, f64)> = serde_json::to_value(&fleet.ratios)
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["operation"].as_str().unwrap_or("").to_string(),
                    r["cells"][0]["estimate"].as_f64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [("encrypt".to_string(), 2.0), ("decrypt".to_string(), 3.0)]
        );
    }

    /// A complete run of experiment `test` on testbed `testbed`, started at `at`.
    fn complete_run(store: &Store, testbed: &str, at: &str) -> i64 {
        let header = crate::record::RunHeader {
            started_at: at.into(),
            place: crate::record::RunPlace {
                testbed: testbed.into(),
                fingerprint: format!("fp-{testbed}"),
                ..Default::default()
            },
            ..crate::store::tests::header()
        };
        let id = store.begin_run(&header).unwrap();
        store.finish_run(id, at).unwrap();
        id
    }

    /// Figures of one case, `a/b` `hash`.
    fn one_case(_: i64) -> Result<RunFigures> {
        Ok(serde_json::from_str(
            r#"{"host":null,"cases":[{"implementation":"a/b","operation":"hash","params":{},"figure":{"estimate":1.0,"lo":1.0,"hi":1.0,"level":0.95},"interval":false,"per_byte":false,"note":null}],"ratios":[]}"#,
        )
        .unwrap())
    }

    /// A run measuring (on any machine of a shared store), or one interrupted, is the
    /// store's newest: `report --machines` took its experiment, found no complete run
    /// of it and failed for everyone.
    #[test]
    fn the_default_experiment_is_the_newest_complete_run_s() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let complete = complete_run(&store, "a", "2026-11-22T10:00:00Z");
        let measuring = crate::record::RunHeader {
            started_at: "2026-11-22T11:00:00Z".into(),
            experiment: "other".into(),
            ..crate::store::tests::header()
        };
        let stopped = store.begin_run(&measuring).unwrap();
        store.stop_run(stopped, "2026-11-22T11:01:00Z").unwrap();
        store.begin_run(&measuring).unwrap();
        for what in [None, Some("a/b")] {
            let fleet = collect(&store, what, &[], None, &one_case).unwrap();
            assert_eq!(fleet.experiment, "test");
            assert_eq!(fleet.columns.len(), 1);
            assert_eq!(fleet.columns[0].run_id, complete);
            assert_eq!(fleet.rows.len(), 1);
        }
    }

    /// One machine's run stored by a newer version (a counter this one does not know)
    /// made `report --machines` fail for the whole store: its column is left out, with
    /// why, as `history` leaves such a run out.
    #[test]
    fn a_run_this_version_cannot_read_leaves_its_column_out_not_the_report() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let store = Store::open(&path).unwrap();
        let unknown = complete_run(&store, "newer", "2026-11-22T10:00:00Z");
        let known = complete_run(&store, "older", "2026-11-22T10:00:00Z");
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute("UPDATE runs SET counter = 'rdpru' WHERE id = ?1", [unknown])
            .unwrap();
        let fleet = collect(&store, None, &[], None, &one_case).unwrap();
        let testbeds: Vec<&str> = fleet.columns.iter().map(|c| c.testbed.as_str()).collect();
        assert_eq!(testbeds, ["older"]);
        assert_eq!(fleet.columns[0].run_id, known);
        let left_out = serde_json::to_value(&fleet).unwrap()["left_out"].clone();
        assert_eq!(left_out.as_array().map(Vec::len), Some(1), "{left_out}");
        let why = left_out[0].as_str().unwrap();
        assert!(
            why.starts_with("testbed newer: ") && why.contains("unknown counter `rdpru`"),
            "{why}"
        );
        // With no column left, the report fails, naming why.
        let err = collect(&store, None, &["newer".to_string()], None, &one_case).unwrap_err();
        assert!(
            format!("{err:#}").contains("unknown counter `rdpru`"),
            "{err:#}"
        );
    }

    /// `report --machines` listed `len=1024, 4096, 2048, 8192, 16384` where a second
    /// machine measured sizes the first had not: each new size goes among its
    /// implementation's rows in size order.
    #[test]
    fn a_size_another_machine_adds_goes_in_size_order() {
        let mut rows: Vec<(&str, u64)> = vec![("a", 1024), ("a", 4096), ("b", 1024)];
        for new in [("a", 2048), ("a", 8192), ("a", 16384), ("b", 64), ("c", 1)] {
            let at = in_order(&rows, |r| r.0 == new.0, |r| r.1 > new.1);
            rows.insert(at, new);
        }
        assert_eq!(
            rows,
            [
                ("a", 1024),
                ("a", 2048),
                ("a", 4096),
                ("a", 8192),
                ("a", 16384),
                ("b", 64),
                ("b", 1024),
                ("c", 1)
            ]
        );
    }
}
