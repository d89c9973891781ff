//! `cryptobench history` in every format: a table per case, JSON, CSV, or a page with a
//! line chart per case.

use anyhow::Result;
use serde_json::json;

use super::Format;
use crate::history::History;

use super::csv::Num;
use super::format::{fmt_count, fmt_interval, fmt_rel, fmt_signed};
use super::{Block, Document};
use crate::history::{Change, HostState, Point};

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
    blocks.push(Block::Line(
        "Medians per call with their 95 % intervals, as `report` gives them, oldest run first. Runs that counted with another counter, ran on another CPU model, or in another environment (GLIBC_TUNABLES, OPENSSL_ia32cap) than a case's latest run are marked not comparable, and so are incomplete runs (interrupted: fewer samples than asked) and points whose processes mixed the host's states (host unsteady, by the canary). A change against the previous comparable point is given only where `compare` would call it one, with the host steady in both runs; otherwise the column says why not (within noise, host unsteady, host in another state, untested).".into(),
    ));
    blocks.extend(
        h.unreadable
            .iter()
            .map(|why| Block::Warning(format!("Left out: {why}"))),
    );
    for c in &h.cases {
        blocks.push(Block::Heading(c.key.clone()));
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
        let rows = c
            .points
            .iter()
            .map(|p| {
                let run = &h.runs[p.run];
                let unit = match one_unit {
                    Some(_) => String::new(),
                    None => format!(" {}", run.short_unit),
                };
                vec![
                    run.id.to_string(),
                    run.started_at.clone(),
                    run.git_revision.clone().unwrap_or_default(),
                    run.tool_version.clone(),
                    run.counter.to_string(),
                    format!("{}{unit}", median_cell(p)),
                    p.interval.as_ref().map_or("—".into(), fmt_rel),
                    p.host.cell(),
                    p.core_clock_hz
                        .map_or(String::new(), |hz| format!("{:.2} GHz", hz / 1e9)),
                    p.change.as_ref().map_or(String::new(), change_cell),
                    if p.comparable {
                        "yes".into()
                    } else {
                        format!("NOT COMPARABLE: {}", p.caveats.join("; "))
                    },
                ]
            })
            .collect();
        blocks.push(Block::Table {
            headers: vec![
                "Run".into(),
                "Started".into(),
                "Git revision".into(),
                "cryptobench".into(),
                "Counter".into(),
                match one_unit {
                    Some(unit) => format!("Median ({unit}) [95 % interval]"),
                    None => "Median [95 % interval]".into(),
                },
                "± (95 %)".into(),
                "Host".into(),
                "Core clock".into(),
                "Change vs previous".into(),
                "Comparable".into(),
            ],
            rows,
        });
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
    match c.said {
        None => format!("{} %", fmt_signed(c.change_pct)),
        Some("untested") => format!("{} % untested", fmt_signed(c.change_pct)),
        Some(said) => said.to_string(),
    }
}

/// A point's change as JSON, run ids for indexes.
fn change_json(h: &History, c: &Change) -> serde_json::Value {
    json!({
        "previous_run_id": h.runs[c.previous].id,
        "change_pct": c.change_pct,
        "interval": c.interval.map(|i| json!({"lo": i.lo, "hi": i.hi, "level": i.level})),
        "verdict": c.verdict,
        "comparable": c.comparable,
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
                "reference_run": h.runs[c.reference()].id,
                "points": c.points.iter().map(|p| json!({
                    "run_id": h.runs[p.run].id,
                    "median": p.median,
                    "interval": p.interval.map(|i| json!({"lo": i.lo, "hi": i.hi, "level": i.level})),
                    "host": p.host.words(),
                    "processes_set_aside": match p.host {
                        HostState::SetAside(n) => n,
                        _ => 0,
                    },
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
                processes_set_aside: match p.host {
                    HostState::SetAside(n) => n,
                    _ => 0,
                },
                comparable: p.comparable,
                caveats: p.caveats.join("; "),
                core_clock_hz: Num(p.core_clock_hz),
                previous_run_id: p.change.as_ref().map(|c| h.runs[c.previous].id),
                change_pct: Num(p.change.as_ref().map(|c| c.change_pct)),
                change_comparable: p.change.as_ref().map(|c| c.comparable),
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
