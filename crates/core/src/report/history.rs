//! `cryptobench history` in every format: a table per case, JSON, CSV, or a page with a
//! line chart per case.

use anyhow::Result;
use serde_json::json;

use super::Format;
use crate::history::History;

use super::csv::Num;
use super::format::{fmt_count, fmt_interval, fmt_rel, fmt_signed, interval_heading};
use super::{Block, Document};
use crate::history::{Change, Outcome, Point};
use crate::stats::Interval;

/// The history of the stored runs (`history`) in `format`; errs for the formats that
/// carry one run's figures only (Bencher, github-action-benchmark).
pub fn render(h: &History, format: Format) -> Result<String> {
    crate::report::Doc::History.check(format)?;
    Ok(format
        .exporter()
        .history(h)
        .expect("the exporters of the formats Doc::History lists write it"))
}

/// The history as titled tables, a table per case.
pub(super) fn document(h: &History) -> Document {
    let mut blocks = vec![Block::Heading(format!(
        "History of {} case{} over {} run{}{}",
        h.cases.len(),
        if h.cases.len() == 1 { "" } else { "s" },
        h.runs.len(),
        if h.runs.len() == 1 { "" } else { "s" },
        h.filter
            .as_deref()
            .map_or(String::new(), |f| format!(" (case ids containing `{f}`)"))
    ))];
    blocks.push(Block::Line(format!(
        "Medians per call with their 95 % intervals where they have one, as `report` gives them, oldest run first{}. Runs that counted with another counter, ran on another CPU model, or in another environment (GLIBC_TUNABLES, OPENSSL_ia32cap) than a case's latest run are marked not comparable, and so are incomplete runs (interrupted: fewer samples than asked) and points whose processes mixed the host's states (host unsteady, by the canary). A change against the previous comparable point is given only where `compare` would call it one, with the host steady in both runs; otherwise the column says why not ({}).",
        if h.several_machines() {
            ", each case per machine (testbed and hardware fingerprint), as one machine's runs are comparable with none of another's"
        } else {
            ""
        },
        Outcome::NOT_STEPS.map(Outcome::words).join(", ")
    )));
    blocks.extend(
        h.unreadable
            .iter()
            .map(|why| Block::Warning(format!("Left out: {why}"))),
    );
    for c in &h.cases {
        blocks.push(Block::Heading(h.title(c)));
        // One unit for the case: in the heading. Counters of several units: each figure
        // with its own, and none in the heading, which would claim them all.
        let units: std::collections::BTreeSet<&str> = c
            .points
            .iter()
            .map(|p| h.runs[p.run].short_unit.as_str())
            .collect();
        let one_unit = match units.iter().collect::<Vec<_>>()[..] {
            [unit] => Some(*unit),
            _ => None,
        };
        // Dashes under a heading that promises intervals say nothing: the column is
        // there only where some point has one.
        let spread_column = c.points.iter().any(|p| p.interval.is_some());
        let rows = c
            .points
            .iter()
            .map(|p| {
                let run = &h.runs[p.run];
                let unit = match one_unit {
                    Some(_) => String::new(),
                    None => format!(" {}", run.short_unit),
                };
                let mut row = vec![
                    run.id.to_string(),
                    run.started_at.clone(),
                    run.git_revision.clone().unwrap_or_default(),
                    run.tool_version.clone(),
                    run.counter.to_string(),
                    format!("{}{unit}", median_cell(p)),
                ];
                if spread_column {
                    row.push(p.interval.as_ref().map_or("—".into(), fmt_rel));
                }
                row.extend([
                    p.host.cell(),
                    p.core_clock_hz
                        .map_or(String::new(), |hz| format!("{:.2} GHz", hz / 1e9)),
                    p.change.as_ref().map_or(String::new(), change_cell),
                    if p.comparable {
                        "yes".into()
                    } else {
                        format!("NOT COMPARABLE: {}", p.caveats.join("; "))
                    },
                ]);
                row
            })
            .collect();
        let intervals = interval_heading(c.points.iter().map(|p| p.interval.is_some()), "interval");
        let mut headers: Vec<String> = ["Run", "Started", "Git revision", "cryptobench", "Counter"]
            .map(String::from)
            .to_vec();
        headers.push(match one_unit {
            Some(unit) => format!("Median ({unit}){intervals}"),
            None => format!("Median{intervals}"),
        });
        if spread_column {
            headers.push("± (95 %)".into());
        }
        headers
            .extend(["Host", "Core clock", "Change vs previous", "Comparable"].map(String::from));
        blocks.push(Block::Table { headers, rows });
    }
    Document { blocks }
}

/// The median with its interval, as `report` writes a figure with one.
fn median_cell(p: &Point) -> String {
    match &p.interval {
        Some(i) => fmt_interval(i, fmt_count),
        None => fmt_count(p.median),
    }
}

/// A change that is a step as a signed percentage; otherwise why it is none (with the
/// medians' change beside an untested one, which no test judged either way).
fn change_cell(c: &Change) -> String {
    match c.outcome {
        Outcome::Improved | Outcome::Regressed => format!("{} %", fmt_signed(c.change_pct)),
        Outcome::Untested => format!("{} % {}", fmt_signed(c.change_pct), c.outcome.words()),
        Outcome::WithinNoise | Outcome::HostUnsteady | Outcome::HostInAnotherState => {
            c.outcome.words().to_string()
        }
    }
}

/// An interval as history's JSON gives it: its ends and level (the estimate beside it).
fn interval_json(i: Interval) -> serde_json::Value {
    json!({"lo": i.lo, "hi": i.hi, "level": i.level})
}

/// A point's change as JSON, run ids for indexes.
fn change_json(h: &History, c: &Change) -> serde_json::Value {
    json!({
        "previous_run_id": h.runs[c.previous].id,
        "change_pct": c.change_pct,
        "interval": c.interval.map(interval_json),
        "verdict": c.verdict,
        "comparable": c.is_step(),
        "caveat": c.caveat,
    })
}

/// The history as one JSON object.
pub(super) fn json(h: &History) -> String {
    let runs: Vec<serde_json::Value> = h
        .runs
        .iter()
        .map(|r| {
            json!({
                "run_id": r.id,
                "started_at": r.started_at,
                "git_revision": r.git_revision,
                "tool_version": r.tool_version,
                "experiment": r.experiment,
                "counter": r.counter,
                "unit": r.unit,
                "cpu_model": r.cpu_model,
                "testbed": r.testbed,
                "fingerprint": r.fingerprint,
                "complete": r.complete,
            })
        })
        .collect();
    let cases: Vec<serde_json::Value> = h
        .cases
        .iter()
        .map(|c| {
            json!({
                "id": c.key,
                "testbed": c.testbed,
                "fingerprint": c.fingerprint,
                "reference_run": h.runs[c.reference(&h.runs)].id,
                "points": c.points.iter().map(|p| json!({
                    "run_id": h.runs[p.run].id,
                    "median": p.median,
                    "interval": p.interval.map(interval_json),
                    "host": p.host.words(),
                    "processes_set_aside": p.host.processes_set_aside(),
                    "core_clock_hz": p.core_clock_hz,
                    "unit": h.runs[p.run].short_unit,
                    "comparable": p.comparable,
                    "caveats": p.caveats,
                    "change": p.change.as_ref().map(|c| change_json(h, c)),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let doc = json!({
        "filter": h.filter,
        "runs": runs,
        "cases": cases,
        "unreadable_runs": h.unreadable,
    });
    serde_json::to_string_pretty(&doc).expect("JSON values serialise") + "\n"
}

/// One row of `history --format csv`: a case's median in one run.
#[derive(Default, serde::Serialize)]
struct PointRow<'a> {
    id: &'a str,
    run_id: i64,
    started_at: &'a str,
    git_revision: &'a str,
    tool_version: &'a str,
    counter: String,
    unit: &'a str,
    cpu_model: &'a str,
    testbed: &'a str,
    median: Num,
    ci_low: Num,
    ci_high: Num,
    host: &'static str,
    processes_set_aside: usize,
    comparable: bool,
    caveats: String,
    core_clock_hz: Num,
    previous_run_id: Option<i64>,
    change_pct: Num,
    change_comparable: Option<bool>,
    change_caveat: &'a str,
}

/// The history as CSV, a row per case and run.
pub(super) fn csv(h: &History) -> String {
    let rows = h.cases.iter().flat_map(|c| {
        c.points.iter().map(|p| {
            let r = &h.runs[p.run];
            PointRow {
                id: &c.key,
                run_id: r.id,
                started_at: &r.started_at,
                git_revision: r.git_revision.as_deref().unwrap_or(""),
                tool_version: &r.tool_version,
                counter: r.counter.to_string(),
                unit: &r.short_unit,
                cpu_model: &r.cpu_model,
                testbed: &r.testbed,
                median: Num::of(p.median),
                ci_low: Num(p.interval.map(|i| i.lo)),
                ci_high: Num(p.interval.map(|i| i.hi)),
                host: p.host.words(),
                processes_set_aside: p.host.processes_set_aside(),
                comparable: p.comparable,
                caveats: p.caveats.join("; "),
                core_clock_hz: Num(p.core_clock_hz),
                previous_run_id: p.change.as_ref().map(|c| h.runs[c.previous].id),
                change_pct: Num(p.change.as_ref().map(|c| c.change_pct)),
                change_comparable: p.change.as_ref().map(Change::is_step),
                change_caveat: p
                    .change
                    .as_ref()
                    .and_then(|c| c.caveat.as_deref())
                    .unwrap_or(""),
            }
        })
    });
    super::csv::table(rows)
}

/// History's documents of a store whose canary readings are fixed: what each point's
/// interval and host state, and each change, read as in every format.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::fleet::{FIGURES_VERSION, RunFigures};
    use crate::counter::Calibration;
    use crate::history::collect;
    use crate::record::{CanaryReadings, Case, CaseStatus, Params, RunCounter, RunHeader, Samples};
    use crate::store::Store;
    use crate::store::tests::{header, imported_case};

    /// A process as the runner stores it: five samples near `cycles` (each process a little
    /// apart, as processes are), and the canary
    /// read beside them at `canary`.
    fn process(cycles: f64, canary: f64, p: usize) -> Samples {
        Samples {
            calls_per_sample: 1,
            calibration: Calibration::default(),
            per_layout: vec![
                (0..5)
                    .map(|s| cycles * (1.0 + 0.002 * (p % 4) as f64 + 0.0005 * s as f64))
                    .collect(),
            ],
            core_clock: None,
            canary: Some(CanaryReadings {
                kind: "canary/test".into(),
                readings: vec![canary, canary + 1.0, canary - 1.0],
            }),
        }
    }

    /// A run of three cases, each process at `cycles` (or 1.3 times it, where its
    /// canary moved 30 %): `a` with `moved_a` of its ten processes moved, `b` with none
    /// of its eight, `c` with `moved_c` of its ten.
    fn store_run(store: &mut Store, cycles: f64, moved_a: usize, moved_c: usize) {
        store_run_on(store, cycles, 1.0, moved_a, moved_c);
    }

    /// [`store_run`] with every canary reading `host` times as high: the whole run on a
    /// host in another state.
    fn store_run_on(store: &mut Store, cycles: f64, host: f64, moved_a: usize, moved_c: usize) {
        let id = store.begin_run(&header()).unwrap();
        for (seq, (name, processes, moved)) in [("a", 10, moved_a), ("b", 8, 0), ("c", 10, moved_c)]
            .into_iter()
            .enumerate()
        {
            let case = Case {
                implementation: format!("x/{name}"),
                operation: "hash".into(),
                params: Params::new(),
                lanes: 1,
            };
            let row = store.add_case(id, seq, &case).unwrap();
            for p in 0..processes {
                let canary = host * [1000.0, 1001.0, 999.0, 1000.5][p % 4];
                let (cycles, canary) = if p >= processes - moved {
                    (1.3 * cycles, 1.3 * canary)
                } else {
                    (cycles, canary)
                };
                store
                    .add_samples(row, p, &process(cycles, canary, p))
                    .unwrap();
            }
            store.set_status(row, CaseStatus::Ok, None).unwrap();
        }
        store.finish_run(id, "2026-11-22T00:01:00Z").unwrap();
    }

    /// The audit's: a run whose case mixed the host's states read as a +2 % step and its
    /// recovery. Run 2's `x/c` is unsteady (7 of 10 processes moved) and `x/a` has two
    /// set aside; run 3 measures what run 1 did; run 4 is 20 % slower.
    fn unsteady_history() -> History {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("h.db")).unwrap();
        store_run(&mut store, 1000.0, 0, 0);
        store_run(&mut store, 1000.0, 2, 7);
        store_run(&mut store, 1000.0, 0, 0);
        store_run(&mut store, 1200.0, 0, 0);
        collect(&store, None).unwrap()
    }

    fn json_points(h: &History, case: &str) -> Vec<serde_json::Value> {
        let json: serde_json::Value =
            serde_json::from_str(&render(h, Format::Json).unwrap()).unwrap();
        let case = json["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == case)
            .unwrap_or_else(|| panic!("no {case} in {json}"))
            .clone();
        case["points"].as_array().unwrap().clone()
    }

    #[test]
    fn every_point_carries_its_interval_and_its_host_state() {
        let h = unsteady_history();
        let c = json_points(&h, "x/c/hash");
        assert_eq!(c.len(), 4);
        for p in &c {
            let (lo, hi) = (p["interval"]["lo"].as_f64(), p["interval"]["hi"].as_f64());
            let median = p["median"].as_f64().unwrap();
            assert!(
                lo.zip(hi)
                    .is_some_and(|(lo, hi)| lo <= median && median <= hi && lo < hi),
                "the report's 95 % interval around the median: {p}"
            );
        }
        assert_eq!(c[0]["host"], "steady", "{c:?}");
        assert_eq!(c[1]["host"], "unsteady", "{c:?}");
        let a = json_points(&h, "x/a/hash");
        assert_eq!(a[1]["host"], "processes set aside", "{a:?}");
        assert_eq!(a[1]["processes_set_aside"], 2, "{a:?}");

        let csv = render(&h, Format::Csv).unwrap();
        let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        for column in ["ci_low", "ci_high", "host"] {
            assert!(header.contains(&column), "{csv}");
        }
        let row = csv.lines().find(|l| l.starts_with("x/c/hash,2,")).unwrap();
        assert!(row.contains(",unsteady"), "{row}");

        let text = render(&h, Format::Table).unwrap();
        assert!(text.contains("95 % interval"), "{text}");
        assert!(text.contains("±"), "{text}");
        let html = render(&h, Format::Html).unwrap();
        assert!(
            html.contains("95 % interval as a vertical bar"),
            "the chart says what its bars are: {html}"
        );
    }

    #[test]
    fn a_change_while_the_host_was_in_another_state_is_no_step_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("h.db")).unwrap();
        store_run(&mut store, 1000.0, 0, 0);
        // The code as fast as before, the whole host 20 % slower, canary and all.
        store_run_on(&mut store, 1200.0, 1.2, 0, 0);
        let h = collect(&store, None).unwrap();
        let c = json_points(&h, "x/b/hash");
        assert_eq!(c[1]["change"]["comparable"], false, "{c:?}");
        let caveat = c[1]["change"]["caveat"].as_str().unwrap();
        assert!(
            caveat.starts_with("host in another state: the canary took +20.0 % from run 1 to run 2 (steady within ±"),
            "{caveat}"
        );
        assert!(
            caveat.ends_with("so the change may be the host's"),
            "{caveat}"
        );
        // History has no gate and no baseline to speak of.
        assert!(
            !caveat.contains("gate") && !caveat.contains("baseline"),
            "{caveat}"
        );
    }

    #[test]
    fn an_unsteady_point_or_a_change_within_noise_is_no_step() {
        let h = unsteady_history();
        let c = json_points(&h, "x/c/hash");
        // Run 2 mixed the host's states: not comparable, and no change is read from it.
        assert_eq!(c[1]["comparable"], false, "{c:?}");
        assert!(
            c[1]["caveats"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w.as_str().unwrap().contains("host unsteady")),
            "{c:?}"
        );
        assert_eq!(c[1]["change"]["comparable"], false, "{c:?}");
        // Run 3 measured what run 1 did: within noise, not a step, and against run 1,
        // not against the unsteady run 2 (the audit's "recovery").
        assert_eq!(c[2]["change"]["previous_run_id"], 1, "{c:?}");
        assert_eq!(c[2]["change"]["comparable"], false, "{c:?}");
        assert!(
            c[2]["change"]["caveat"]
                .as_str()
                .unwrap()
                .contains("within noise"),
            "{c:?}"
        );
        // Run 4 is 20 % slower: a step.
        assert_eq!(c[3]["change"]["comparable"], true, "{c:?}");
        let step = c[3]["change"]["change_pct"].as_f64().unwrap();
        assert!((step - 20.0).abs() < 1.0, "{c:?}");

        let text = render(&h, Format::Table).unwrap();
        let table = text.split("x/c/hash").nth(1).unwrap();
        let row = |run: &str| {
            table
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{run} ")))
                .unwrap()
                .to_string()
        };
        assert!(row("2").contains("host unsteady"), "{table}");
        assert!(
            !row("2").contains("+29.") && !row("2").contains("+30."),
            "no change figure: {table}"
        );
        assert!(!row("3").contains("-23."), "no recovery: {table}");
        assert!(row("3").contains("within noise"), "{table}");
        assert!(row("4").contains("+20."), "{table}");
    }

    /// Run `id` of `store` analysed as its report analyses it.
    fn analysed(store: &Store, id: i64) -> crate::analysis::Analysis {
        crate::analysis::analyse(
            &store.load_run(id).unwrap(),
            &crate::analysis::Context::default(),
        )
        .unwrap()
    }

    /// Runs with processes set aside and a case unsteady, as [`unsteady_history`]'s.
    fn unsteady_store(dir: &std::path::Path) -> Store {
        let mut store = Store::open(&dir.join("h.db")).unwrap();
        store_run(&mut store, 1000.0, 0, 0);
        store_run(&mut store, 1000.0, 2, 7);
        store_run(&mut store, 1200.0, 0, 0);
        store
    }

    /// Keep run `id`'s figures beside it, as a run does when it finishes.
    fn save_figures(store: &Store, id: i64, figures: &RunFigures) {
        store
            .save_figures(
                id,
                FIGURES_VERSION,
                &serde_json::to_string(figures).unwrap(),
            )
            .unwrap();
    }

    /// Each point's median, interval and core clock are those its run's report gives
    /// (the same bootstrap, seeded by the case's key), whether history computes them or
    /// reads them from the figures stored beside the run: every format prints the same.
    #[test]
    fn every_point_s_figures_are_its_run_s_report_s_computed_or_stored() {
        let dir = tempfile::tempdir().unwrap();
        let store = unsteady_store(dir.path());
        let computed = collect(&store, None).unwrap();
        let mut checked = 0;
        for (run, info) in computed.runs.iter().enumerate() {
            let report = analysed(&store, info.id);
            for case in &report.cases {
                let m = case.measured.as_ref().unwrap();
                let point = computed
                    .cases
                    .iter()
                    .find(|c| c.key == case.key)
                    .and_then(|c| c.points.iter().find(|p| p.run == run))
                    .unwrap_or_else(|| panic!("no point of {} in run {}", case.key, info.id));
                assert_eq!(point.median, m.median.estimate, "{}", case.key);
                assert!(m.has_interval(), "{}", case.key);
                assert_eq!(point.interval, Some(m.median), "{}", case.key);
                assert_eq!(point.core_clock_hz, m.core_clock_hz, "{}", case.key);
                checked += 1;
            }
            save_figures(&store, info.id, &RunFigures::of(&report));
        }
        assert_eq!(checked, 9);
        let stored = collect(&store, None).unwrap();
        for format in [Format::Json, Format::Csv, Format::Table] {
            assert_eq!(
                render(&computed, format).unwrap(),
                render(&stored, format).unwrap(),
                "{format:?}"
            );
        }
    }

    /// History takes a run's figures from those stored beside it, and bootstraps only
    /// where none are stored, or stored by a version that did not keep history's.
    #[test]
    fn history_reads_the_figures_stored_beside_a_run() {
        let dir = tempfile::tempdir().unwrap();
        let store = unsteady_store(dir.path());
        let computed = collect(&store, None).unwrap();
        // Figures unlike the samples' (no store would hold such), to tell which were read.
        let mut figures = RunFigures::of(&analysed(&store, 1));
        for case in &mut figures.cases {
            // Each end with it: figures outside their interval are not taken.
            let median = &mut case.per_call.as_mut().unwrap().median;
            (median.estimate, median.lo, median.hi) =
                (2.0 * median.estimate, 2.0 * median.lo, 2.0 * median.hi);
        }
        save_figures(&store, 1, &figures);
        // Run 2's figures as a version that did not keep history's stored them.
        let mut older = RunFigures::of(&analysed(&store, 2));
        for case in &mut older.cases {
            case.per_call = None;
        }
        save_figures(&store, 2, &older);
        let h = collect(&store, None).unwrap();
        for (c, before) in h.cases.iter().zip(&computed.cases) {
            assert_eq!(
                c.points[0].median,
                2.0 * before.points[0].median,
                "{}",
                c.key
            );
            assert_eq!(c.points[1].median, before.points[1].median, "{}", c.key);
            assert_eq!(c.points[1].interval, before.points[1].interval, "{}", c.key);
        }
    }

    /// A change of `outcome`, +4.2 % by the medians.
    fn change_of(outcome: Outcome) -> Change {
        Change {
            previous: 0,
            change_pct: 4.2,
            interval: None,
            verdict: None,
            outcome,
            caveat: (!outcome.is_step()).then(|| format!("{}: why", outcome.words())),
        }
    }

    /// The table's change column: a step's figure, an untested change's figure said so,
    /// and for the others why there is no step, without a figure to misread as one.
    #[test]
    fn each_outcome_has_its_own_cell() {
        let step = format!("{} %", fmt_signed(4.2));
        assert!(step.starts_with("+4.2"), "{step}");
        let cells: Vec<(Outcome, String)> = Outcome::ALL
            .into_iter()
            .map(|o| (o, change_cell(&change_of(o))))
            .collect();
        assert_eq!(
            cells,
            [
                (Outcome::Improved, step.clone()),
                (Outcome::Regressed, step.clone()),
                (Outcome::WithinNoise, "within noise".to_string()),
                (Outcome::HostUnsteady, "host unsteady".to_string()),
                (
                    Outcome::HostInAnotherState,
                    "host in another state".to_string()
                ),
                (Outcome::Untested, format!("{step} untested")),
            ]
        );
    }

    /// Runs of one process each admit no test: the change is untested, with the medians'
    /// change beside it, in every format.
    #[test]
    fn a_change_no_test_can_judge_is_untested() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("h.db")).unwrap();
        let complete = RunHeader {
            status: crate::record::RunStatus::Complete,
            ..header()
        };
        store.import_run(&complete, &[imported_case()]).unwrap();
        let slower = crate::store::ImportedCase {
            per_process: vec![vec![110.0, 111.0, 112.0]],
            ..imported_case()
        };
        store.import_run(&complete, &[slower]).unwrap();
        let h = collect(&store, None).unwrap();
        let change = h.cases[0].points[1].change.as_ref().unwrap();
        assert_eq!(change.outcome, Outcome::Untested, "{change:?}");
        let c = json_points(&h, "a/b/hash");
        assert_eq!(c[1]["change"]["comparable"], false, "{c:?}");
        let caveat = c[1]["change"]["caveat"].as_str().unwrap();
        assert!(caveat.starts_with("untested: "), "{caveat}");
        let text = render(&h, Format::Table).unwrap();
        let row = text
            .lines()
            .find(|l| l.trim_start().starts_with("2 "))
            .unwrap();
        assert!(row.contains("+9.90 % untested"), "{text}");
        let csv = render(&h, Format::Csv).unwrap();
        let row = csv.lines().find(|l| l.starts_with("a/b/hash,2,")).unwrap();
        assert!(row.contains("untested: "), "{row}");
    }

    #[test]
    fn the_median_s_unit_follows_each_row_s_counter() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("h.db")).unwrap();
        let ns = RunHeader {
            counter: RunCounter::Measured(crate::counter::CounterKind::Ns),
            unit: "ns".into(),
            ..header()
        };
        store.import_run(&ns, &[imported_case()]).unwrap();
        store.import_run(&header(), &[imported_case()]).unwrap();
        let h = collect(&store, None).unwrap();
        let text = render(&h, Format::Table).unwrap();
        let ns_row = text
            .lines()
            .find(|l| l.trim_start().starts_with("1 "))
            .unwrap();
        assert!(
            !text.contains("Median (cycles)"),
            "an ns row under a cycles heading: {text}"
        );
        // Three samples of one process: too few for a 95 % interval of their median, and
        // no heading promises one.
        let heading = text.lines().find(|l| l.starts_with(" Run ")).unwrap();
        assert!(heading.contains(" Median "), "{text}");
        assert!(!text.contains("[95 % interval"), "{text}");
        assert!(!text.contains("± (95 %)"), "{text}");
        assert!(ns_row.contains("101.0 ns"), "{text}");
        let html = render(&h, Format::Html).unwrap();
        assert!(
            html.contains("Left out, as counted in another unit: run 1 (ns)."),
            "no ns point on a cycles axis: {html}"
        );
    }
}
