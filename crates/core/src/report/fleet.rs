//! `report --machines` and `machines`: an experiment across machines, a column per
//! testbed, and the machines of a store.

use anyhow::Result;
use serde_json::json;

use super::csv::Num;
use super::format::{fmt_count, fmt_interval, fmt_per_byte, ratio_operation};
use super::{Block, Doc, Document, Format};
use crate::analysis::fleet::{Fleet, FleetCell, FleetColumn};
use crate::stats::Interval;
use crate::store::MachineRow;

/// An experiment across machines (`report --machines`) in `format`; errs for the formats
/// that carry one run's figures only (Bencher, github-action-benchmark).
pub fn render(f: &Fleet, format: Format) -> Result<String> {
    Doc::Fleet.check(format)?;
    Ok(format
        .exporter()
        .fleet(f)
        .expect("the exporters of the formats Doc::Fleet lists write it"))
}

fn cell_text(c: &Option<FleetCell>) -> String {
    match c {
        None => "—".into(),
        Some(c) => {
            let f = if c.per_byte { fmt_per_byte } else { fmt_count };
            let figure = match c.interval {
                true => fmt_interval(&c.figure, f),
                false => format!("{} [—]", f(c.figure.estimate)),
            };
            match &c.note {
                Some(n) => format!("{figure} ({n})"),
                None => figure,
            }
        }
    }
}

/// How a column is named: its testbed, and the start of its fingerprint where another
/// column is of the same testbed on other hardware (else the two heads read the same).
fn column_name(f: &Fleet, c: &crate::analysis::fleet::FleetColumn) -> String {
    let shared = f.columns.iter().filter(|o| o.testbed == c.testbed).count() > 1;
    if shared {
        let short: String = c.fingerprint.chars().take(8).collect();
        format!("{} ({short})", c.testbed)
    } else {
        c.testbed.clone()
    }
}

/// A run's UUID as the machines table names it: its first group of hex digits, enough to
/// tell a store's runs apart and to find the run again (`report UUID` takes it whole).
fn short_uuid(uuid: &str) -> &str {
    uuid.split('-').next().unwrap_or(uuid)
}

/// The experiment across machines as titled tables.
pub(super) fn document(f: &Fleet) -> Document {
    let mut blocks = vec![Block::Heading(format!(
        "{} on {} machine{}",
        f.experiment,
        f.columns.len(),
        if f.columns.len() == 1 { "" } else { "s" }
    ))];
    // A median's interval needs several processes: a run of fewer has none to show.
    let without_interval = (f.rows.iter())
        .flat_map(|r| r.cells.iter().flatten())
        .any(|c| !c.interval);
    blocks.push(Block::Line(format!(
        "Each column is one machine's newest complete run of the experiment's whole plan (its newest partial one where it has none, said below; the Run column names each): the median per byte (per call where a case has no bytes) with its 95 % interval{}, in that machine's own counter. Figures of different CPUs are side by side, never compared: no verdict is drawn across columns. The ratios below, each measured within one run on one machine, are what compare across CPUs.",
        if without_interval {
            format!(
                " where its run has one (`[—]`: measured in fewer than the {} worker processes an interval of the median needs)",
                crate::stats::min_clusters(crate::analysis::LEVEL)
            )
        } else {
            String::new()
        }
    )));
    blocks.extend(
        f.left_out
            .iter()
            .map(|why| Block::Warning(format!("Left out: {why}"))),
    );
    for c in &f.columns {
        if let Some(host) = &c.host {
            blocks.push(Block::Warning(format!("{}: {host}", column_name(f, c))));
        }
        if let Some(narrowed) = &c.partial {
            blocks.push(Block::Warning(format!(
                "{}: run {} ({}) is partial ({narrowed}): the machine has no complete run of the experiment's whole plan, and the rows the run did not measure read — in its column",
                column_name(f, c),
                c.run_id,
                short_uuid(&c.run_uuid)
            )));
        }
    }
    let machine_rows = f
        .columns
        .iter()
        .map(|c| {
            vec![
                c.testbed.clone(),
                c.cpu_model.clone(),
                c.fingerprint.clone(),
                format!("{} ({})", c.counter, c.unit),
                format!(
                    "{} {} ({}){}",
                    c.run_id,
                    short_uuid(&c.run_uuid),
                    c.started_at,
                    if c.partial.is_some() { ", partial" } else { "" }
                ),
                c.git_revision.clone().unwrap_or_default(),
            ]
        })
        .collect();
    blocks.push(Block::Table {
        headers: [
            "Testbed",
            "CPU",
            "Fingerprint",
            "Counter",
            "Run",
            "Revision",
        ]
        .map(String::from)
        .to_vec(),
        rows: machine_rows,
    });
    let mut headers = vec![
        "Implementation".to_string(),
        "Operation".into(),
        "Params".into(),
    ];
    // Each column names its machine's CPU and counter: its figures are in those.
    headers.extend(f.columns.iter().map(|c| {
        format!(
            "{}: {}, {} {}/byte",
            column_name(f, c),
            c.cpu_model,
            c.counter,
            c.unit
        )
    }));
    let rows = f
        .rows
        .iter()
        .map(|r| {
            let mut row = vec![
                r.implementation.clone(),
                r.operation.clone(),
                r.params.to_string(),
            ];
            row.extend(r.cells.iter().map(cell_text));
            row
        })
        .collect();
    blocks.push(Block::Table { headers, rows });
    if !f.ratios.is_empty() {
        blocks.push(Block::Heading(
            "Ratios within each machine's run (candidate over reference)".into(),
        ));
        let mut headers = vec![
            "Candidate".to_string(),
            "Operation".into(),
            "Reference".into(),
            "Params".into(),
        ];
        headers.extend(f.columns.iter().map(|c| column_name(f, c)));
        let rows = f
            .ratios
            .iter()
            .map(|r| {
                let mut row = vec![
                    r.member.clone(),
                    ratio_operation(&r.operation, &r.reference_operation),
                    r.reference.clone(),
                    r.params.to_string(),
                ];
                row.extend(r.cells.iter().map(|c| {
                    c.as_ref()
                        .map_or("—".into(), |i| fmt_interval(i, |x| format!("{x:.4}")))
                }));
                row
            })
            .collect();
        blocks.push(Block::Table { headers, rows });
    }
    Document { blocks }
}

/// The experiment across machines as one JSON object.
pub(super) fn json(f: &Fleet) -> String {
    serde_json::to_string_pretty(&json!({
        "experiment": f.experiment,
        "machines": f.columns,
        "cases": f.rows,
        "ratios": f.ratios,
        "left_out": f.left_out,
    }))
    .expect("JSON values serialise")
        + "\n"
}

/// One row of `report --machines --format csv`: a case (or a ratio) on one machine.
#[derive(Default, serde::Serialize)]
struct FleetCsvRow<'a> {
    testbed: &'a str,
    cpu_model: &'a str,
    fingerprint: &'a str,
    counter: &'a str,
    run_uuid: &'a str,
    /// How the run narrowed the experiment's plan, where it did (empty for a whole run).
    run_partial: &'a str,
    kind: &'static str,
    implementation: &'a str,
    reference: &'a str,
    operation: &'a str,
    /// A ratio's reference's operation (empty for a case).
    reference_operation: &'a str,
    params: String,
    unit: String,
    estimate: Num,
    lo: Num,
    hi: Num,
    note: &'a str,
}

impl<'a> FleetCsvRow<'a> {
    /// A row of machine `c`'s column: its machine's fields, the figure's interval.
    fn of(
        c: &'a FleetColumn,
        kind: &'static str,
        figure: &Interval,
        interval: bool,
    ) -> FleetCsvRow<'a> {
        // No interval: its ends are left empty, never the median.
        let end = |x: f64| Num(interval.then_some(x));
        FleetCsvRow {
            testbed: &c.testbed,
            cpu_model: &c.cpu_model,
            fingerprint: &c.fingerprint,
            counter: &c.counter,
            run_uuid: &c.run_uuid,
            run_partial: c.partial.as_deref().unwrap_or(""),
            kind,
            estimate: Num::of(figure.estimate),
            lo: end(figure.lo),
            hi: end(figure.hi),
            ..Default::default()
        }
    }
}

/// The experiment across machines as CSV, a row per case or ratio and machine.
pub(super) fn csv(f: &Fleet) -> String {
    let mut rows = Vec::new();
    for r in &f.rows {
        for (cell, c) in r.cells.iter().zip(&f.columns) {
            let Some(cell) = cell else { continue };
            let kind = if cell.per_byte {
                "per_byte"
            } else {
                "per_call"
            };
            rows.push(FleetCsvRow {
                implementation: &r.implementation,
                operation: &r.operation,
                params: r.params.to_string(),
                unit: c.unit.clone(),
                note: cell.note.as_deref().unwrap_or(""),
                ..FleetCsvRow::of(c, kind, &cell.figure, cell.interval)
            });
        }
    }
    for r in &f.ratios {
        for (cell, c) in r.cells.iter().zip(&f.columns) {
            let Some(ratio) = cell else { continue };
            rows.push(FleetCsvRow {
                implementation: &r.member,
                operation: &r.operation,
                reference: &r.reference,
                reference_operation: &r.reference_operation,
                params: r.params.to_string(),
                unit: "ratio".into(),
                ..FleetCsvRow::of(c, "ratio", ratio, true)
            });
        }
    }
    super::csv::table(rows)
}

/// `cryptobench machines` in `format`.
pub fn render_machines(machines: &[MachineRow], format: Format) -> Result<String> {
    Doc::Machines.check(format)?;
    Ok(format
        .exporter()
        .machines(machines)
        .expect("the exporters of the formats Doc::Machines lists write it"))
}

/// A machine of `cryptobench machines`, as the structural formats write it.
#[derive(Default, serde::Serialize)]
pub(super) struct MachineListRow<'a> {
    testbed: &'a str,
    fingerprint: &'a str,
    cpu_model: &'a str,
    first_seen: &'a str,
    runs: i64,
    complete_runs: i64,
    last_run: &'a str,
    last_run_complete: bool,
    last_counter: &'a str,
}

/// The machines of a store, a row each.
pub(super) fn machine_list(machines: &[MachineRow]) -> Vec<MachineListRow<'_>> {
    machines
        .iter()
        .map(|m| MachineListRow {
            testbed: &m.testbed,
            fingerprint: &m.fingerprint,
            cpu_model: &m.cpu_model,
            first_seen: &m.first_seen,
            runs: m.runs,
            complete_runs: m.complete_runs,
            last_run: m.last_run.as_ref().map_or("", |(t, _)| t.as_str()),
            last_run_complete: m.last_run_complete,
            last_counter: m.last_run.as_ref().map_or("", |(_, c)| c.as_str()),
        })
        .collect()
}

/// The machines of a store as a titled table.
pub(super) fn machines_document(machines: &[MachineRow]) -> Document {
    let rows = machine_list(machines);
    Document {
        blocks: vec![
            Block::Heading(format!(
                "{} machine{}",
                machines.len(),
                if machines.len() == 1 { "" } else { "s" }
            )),
            Block::Table {
                headers: [
                    "Testbed",
                    "Fingerprint",
                    "CPU",
                    "First seen",
                    "Runs",
                    "Complete",
                    "Newest run",
                    "Counter",
                ]
                .map(String::from)
                .to_vec(),
                rows: rows
                    .iter()
                    .map(|r| {
                        vec![
                            r.testbed.into(),
                            r.fingerprint.into(),
                            r.cpu_model.into(),
                            r.first_seen.into(),
                            r.runs.to_string(),
                            r.complete_runs.to_string(),
                            // A run stopped or killed is no machine's result: said, as
                            // `report --machines` passes over it.
                            if r.last_run_complete || r.last_run.is_empty() {
                                r.last_run.into()
                            } else {
                                format!("{} (incomplete)", r.last_run)
                            },
                            r.last_counter.into(),
                        ]
                    })
                    .collect(),
            },
        ],
    }
}
