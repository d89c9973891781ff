//! One JSON object per run: `run_id`, `machine`, `counter`, `results`, and the
//! comparisons.

use serde_json::{Value, json};

use super::Doc;
use super::export::Exporter;
use crate::analysis::bulk::BulkAnalysis;
use crate::analysis::fleet::Fleet;
use crate::analysis::{Analysis, Comparison, RunComparison};
use crate::history::History;
use crate::record::VerdictOptions;
use crate::store::{MachineRow, StoredRun};

fn comparison(c: &Comparison) -> Value {
    let mut v = json!({
        "baseline": c.baseline,
        "candidate": c.candidate,
        "operation": c.operation,
        "params": c.params,
        "median_baseline": c.median_baseline,
        "median_candidate": c.median_candidate,
        "difference": c.difference,
        "change_pct": c.change_pct.estimate,
        // At the level `1 - significance`: 95 % unless the run asked for another.
        "change_ci": [c.change_pct.lo, c.change_pct.hi],
        "change_ci_level": c.change_pct.level,
        "stdev_baseline": c.stdev_baseline,
        "stdev_candidate": c.stdev_candidate,
        "p_value": c.p_value,
        "verdict": c.verdict_word(),
        "relation": c.relation,
        "clock_change_pct": c.clock_change_pct,
        "time_change_pct": c.time_change_pct,
    });
    // Only where the host left it undecided, as a case's `host_unsteady`.
    if let Some(why) = c.undecided {
        v["undecided"] = json!(why);
    }
    v
}

pub fn render(a: &Analysis) -> String {
    let (median_key, per_byte_key, ci_key) = match a.short_unit.as_str() {
        "cycles" => ("median_cycles", "cpb", "cpb_ci95"),
        "ref-cycles" => ("median_ref_cycles", "ref_cpb", "ref_cpb_ci95"),
        "instructions" => (
            "median_instructions",
            "instructions_per_byte",
            "instructions_per_byte_ci95",
        ),
        _ => ("median_ns", "ns_per_byte", "ns_per_byte_ci95"),
    };
    let results: Vec<Value> = a
        .cases
        .iter()
        .map(|c| {
            let mut r = json!({
                "id": c.key,
                "implementation": c.implementation,
                "operation": c.operation,
                "params": c.params,
                "status": c.status,
                // Imported figures were not checked against known answers here.
                "verified": c.verified() && a.header.imported().is_none(),
            });
            if let Some(msg) = &c.message {
                r["message"] = json!(msg);
            }
            if let Some(m) = &c.measured {
                r[median_key] = json!(m.median.estimate);
                // A single measurement has no interval: null, not [x, x].
                let ci = |i: &crate::stats::Interval| m.has_interval().then(|| json!([i.lo, i.hi]));
                r["median_ci95"] = json!(ci(&m.median));
                if let Some(pb) = &m.per_byte {
                    r[per_byte_key] = json!(pb.estimate);
                    r[ci_key] = json!(ci(pb));
                }
                r["throughput_bytes_per_s"] = json!(m.throughput_bytes_per_s);
                r["core_clock_hz"] = json!(m.core_clock_hz);
                r["process_spread_pct"] = json!(m.process_spread_pct);
                r["samples"] = json!(m.samples);
                r["clusters"] = json!(m.processes);
                r["calls_per_sample"] = json!(m.calls_per_sample);
                r["summary"] = json!(m.summary);
                r["outliers"] = json!(m.outliers);
            }
            if c.set_aside > 0 {
                r["processes_set_aside"] = json!(c.set_aside);
            }
            if c.unsteady {
                r["host_unsteady"] = json!(true);
            }
            if c.processes_added > 0 {
                r["processes_added"] = json!(c.processes_added);
            }
            r
        })
        .collect();
    let ratios: Vec<Value> = a
        .ratios
        .iter()
        .map(|r| {
            json!({
                "implementation": r.member, "operation": r.operation,
                "reference": r.reference, "reference_operation": r.reference_operation,
                "params": r.params,
                "ratio": r.ratio.estimate, "ratio_ci95": [r.ratio.lo, r.ratio.hi],
            })
        })
        .collect();
    let mut doc = json!({
        "run_id": a.header.id,
        "experiment": a.header.experiment,
        "started_at": a.header.started_at,
        // `incomplete` (stopped, or still measuring), not the store's `running`.
        "status": a.header.status.reported(),
        "stopped_at": a.header.stopped_at(),
        "tool_version": a.header.tool_version,
        "git_revision": a.header.git_revision,
        "machine": a.header.machine.untagged(),
        "counter": { "kind": a.counter, "unit": a.unit, "tsc_hz": a.header.tsc_hz },
        "options": a.header.options.untagged(),
        "results": results,
        "ratios": ratios,
        "comparisons": a.comparisons.iter().map(comparison).collect::<Vec<_>>(),
        "not_compared": a.not_compared,
        "slopes": a.slopes,
        "lane_speedups": a.lanes,
        "estimates": a.estimates,
        "against_baseline": a.against_baseline.as_ref().map(run_comparison_value),
    });
    if let Some(why) = &a.baseline_left_out {
        doc["baseline_left_out"] = json!(why);
    }
    // Where it was measured and what it is known by in every store it is pushed to.
    let place = &a.header.place;
    for (key, value) in [
        ("uuid", &place.uuid),
        ("testbed", &place.testbed),
        ("fingerprint", &place.fingerprint),
    ] {
        if !value.is_empty() {
            doc[key] = json!(value);
        }
    }
    // Which scheduler's job measured it, where one did (absent otherwise).
    if let Some(ci) = &a.header.place.ci {
        doc["ci"] = json!(ci);
    }
    if let Some(host) = &a.host {
        doc["host"] = json!(host);
    } else if super::run::host_not_checked(a) {
        doc["host_not_checked"] = json!(super::run::NOT_CHECKED);
    }
    serde_json::to_string_pretty(&doc).expect("JSON values serialise") + "\n"
}

fn run_comparison_value(c: &RunComparison) -> Value {
    let mut v = json!({
        "run_a": c.run_a,
        "run_b": c.run_b,
        "comparisons": c.comparisons.iter().map(comparison).collect::<Vec<_>>(),
        "not_compared": c.not_compared,
        "only_in_a": c.only_in_a,
        "only_in_b": c.only_in_b,
        "caveats": c.caveats,
        "warnings": c.warnings,
    });
    if let Some(host) = &c.host {
        v["host"] = json!(host);
    }
    v
}

/// One JSON value per document.
pub(super) struct Json;

impl Exporter for Json {
    fn documents(&self) -> &'static [Doc] {
        &[
            Doc::Run,
            Doc::Comparison,
            Doc::History,
            Doc::Machines,
            Doc::Fleet,
        ]
    }
    fn run(&self, a: &Analysis) -> String {
        render(a)
    }
    fn bulk(&self, run: &StoredRun, t: &BulkAnalysis) -> Option<String> {
        Some(super::bulk::json(run, t))
    }
    fn comparison(
        &self,
        c: &RunComparison,
        pair: &super::Pair,
        _: &VerdictOptions,
    ) -> Option<String> {
        let mut v = run_comparison_value(c);
        // What the medians and differences are in, as a run's `counter` says.
        v["counter"] = json!({ "kind": pair.counter, "unit": pair.counter.short_unit() });
        Some(serde_json::to_string_pretty(&v).expect("JSON values serialise") + "\n")
    }
    fn history(&self, h: &History) -> Option<String> {
        Some(super::history::json(h))
    }
    fn fleet(&self, f: &Fleet) -> Option<String> {
        Some(super::fleet::json(f))
    }
    fn machines(&self, m: &[MachineRow]) -> Option<String> {
        let rows = super::fleet::machine_list(m);
        Some(serde_json::to_string_pretty(&rows).expect("JSON values serialise") + "\n")
    }
}
