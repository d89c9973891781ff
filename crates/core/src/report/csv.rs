//! CSV for spreadsheets: one rectangular table per output, written by the `csv` crate
//! from typed records, so that every table is quoted the same way (RFC 4180) and its
//! header is the names of its record's fields: a column cannot be added to the rows
//! and not to the header, nor quoted in one table and not in another.

use serde::{Serialize, Serializer};

use super::Doc;
use super::export::Exporter;
use crate::analysis::bulk::BulkAnalysis;
use crate::analysis::fleet::Fleet;
use crate::analysis::{Analysis, CaseStats, Comparison, NotCompared, RunComparison};
use crate::history::History;
use crate::record::Params;
use crate::record::VerdictOptions;
use crate::store::{MachineRow, StoredRun};

/// A figure as Rust writes it (`0.5`, `1234`, `0.0000001`: never an exponent), or an
/// empty field where there is none.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Num(pub Option<f64>);

impl Num {
    pub(crate) fn of(x: f64) -> Num {
        Num(Some(x))
    }
}

impl Serialize for Num {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(x) => s.serialize_str(&x.to_string()),
            None => s.serialize_none(),
        }
    }
}

/// One CSV table: a header of `R`'s field names (a tuple of records gives theirs one
/// after another), then one line per record. A table without records still has its
/// header.
pub(crate) fn table<R: Serialize + Default>(records: impl IntoIterator<Item = R>) -> String {
    let write = |records: &mut dyn Iterator<Item = R>| {
        let mut w = csv::Writer::from_writer(Vec::new());
        for r in records {
            w.serialize(r)
                .expect("a record of strings and numbers serialises");
        }
        let bytes = w.into_inner().expect("writing to memory cannot fail");
        String::from_utf8(bytes).expect("records of UTF-8 strings")
    };
    let mut records = records.into_iter().peekable();
    if records.peek().is_some() {
        write(&mut records)
    } else {
        let with_one = write(&mut std::iter::once(R::default()));
        let header = with_one.lines().next().unwrap_or_default();
        format!("{header}\n")
    }
}

/// The columns of one case in a run's table.
#[derive(Default, Serialize)]
struct CaseColumns<'a> {
    run_id: i64,
    /// `complete`, or `incomplete` (interrupted, or still measuring): an incomplete run's
    /// cases may have fewer processes than asked, or none.
    run_status: &'a str,
    id: &'a str,
    implementation: &'a str,
    operation: &'a str,
    params: String,
    bytes: Option<u64>,
    status: String,
    /// Whether the gate checked it in full here (not where it was checked in part, or
    /// imported).
    verified: bool,
    /// Why it failed, was not timed or was checked in part, where anything says so.
    message: &'a str,
    unit: &'a str,
    counter: String,
    median: Num,
    median_lo: Num,
    median_hi: Num,
    per_byte: Num,
    per_byte_lo: Num,
    per_byte_hi: Num,
    /// The level of `median_lo/hi` and `per_byte_lo/hi` (0.95); empty without them.
    ci_level: Num,
    throughput_bytes_per_s: Num,
    samples: Option<usize>,
    /// Worker processes in the figures (JSON's `clusters`).
    processes: Option<usize>,
    outliers: Option<usize>,
    core_clock_hz: Num,
    /// What the canary said of the host while the case ran (empty without a canary).
    host: String,
}

impl<'a> CaseColumns<'a> {
    fn of(a: &'a Analysis, c: &'a CaseStats) -> CaseColumns<'a> {
        let m = c.measured.as_ref();
        let pb = m.and_then(|m| m.per_byte);
        // A single measurement has no interval: its ends are left empty, not the point.
        let ci = m.filter(|m| m.has_interval());
        let pb_ci = ci.and_then(|m| m.per_byte);
        CaseColumns {
            run_id: a.header.id,
            run_status: a.header.status.reported(),
            id: &c.key,
            implementation: &c.implementation,
            operation: &c.operation,
            params: c.params.to_string(),
            bytes: c.bytes,
            status: format!("{:?}", c.status).to_lowercase(),
            verified: c.verified() && a.header.imported().is_none(),
            message: c.message.as_deref().unwrap_or(""),
            unit: &a.short_unit,
            counter: a.counter.to_string(),
            median: Num(m.map(|m| m.median.estimate)),
            median_lo: Num(ci.map(|m| m.median.lo)),
            median_hi: Num(ci.map(|m| m.median.hi)),
            per_byte: Num(pb.map(|p| p.estimate)),
            per_byte_lo: Num(pb_ci.map(|p| p.lo)),
            per_byte_hi: Num(pb_ci.map(|p| p.hi)),
            ci_level: Num(ci.map(|m| m.median.level)),
            throughput_bytes_per_s: Num(m.and_then(|m| m.throughput_bytes_per_s)),
            samples: m.map(|m| m.samples),
            processes: m.map(|m| m.processes),
            outliers: m.map(|m| m.outliers.total()),
            core_clock_hz: Num(m.and_then(|m| m.core_clock_hz)),
            host: host_cell(a, c),
        }
    }
}

fn host_cell(a: &Analysis, c: &CaseStats) -> String {
    let Some(host) = &a.host else {
        return if super::run::host_not_checked(a) {
            super::run::NOT_CHECKED.to_string()
        } else {
            String::new()
        };
    };
    let mut cell = if c.unsteady {
        "unsteady: the canary moved in most of its processes".to_string()
    } else if c.set_aside > 0 {
        format!("{} processes set aside: the canary moved", c.set_aside)
    } else {
        format!("steady within ±{:.1} %", host.threshold_pct)
    };
    if let Some(shift) = a.against_baseline.as_ref().and_then(|r| r.host.as_ref()) {
        cell += &match (shift.differs, shift.change_pct) {
            (true, Some(change)) => format!(
                "; another state than baseline run {} (canary {change:+.1} %): undecided",
                shift.baseline_run
            ),
            (false, Some(_)) => String::new(),
            (_, None) => format!("; baseline run {} has no canary", shift.baseline_run),
        };
    }
    cell
}

/// What a case or a pair of runs is compared with.
#[derive(Default, Serialize)]
struct Baseline<'a> {
    baseline: &'a str,
}

/// The columns every comparison row ends with: a verdict and its figures, or, for a
/// comparison that could not be made, no figures and the reason as its verdict.
#[derive(Default, Serialize)]
struct VerdictColumns {
    change_pct: Num,
    change_lo: Num,
    change_hi: Num,
    /// The level of `change_lo/hi`: 1 - significance, which need not be `ci_level`.
    change_ci_level: Num,
    p_value: Num,
    verdict: String,
    clock_change_pct: Num,
    time_change_pct: Num,
}

impl VerdictColumns {
    fn of(c: &Comparison) -> VerdictColumns {
        VerdictColumns {
            change_pct: Num::of(c.change_pct.estimate),
            change_lo: Num::of(c.change_pct.lo),
            change_hi: Num::of(c.change_pct.hi),
            change_ci_level: Num::of(c.change_pct.level),
            p_value: Num::of(c.p_value),
            verdict: c.verdict_said(),
            clock_change_pct: Num(c.clock_change_pct),
            time_change_pct: Num(c.time_change_pct),
        }
    }

    fn not_compared(n: &NotCompared) -> VerdictColumns {
        VerdictColumns {
            verdict: format!("not compared: {}", n.why),
            ..VerdictColumns::default()
        }
    }
}

/// One rectangular table, one row per case: a case that is the candidate of a comparison
/// carries it in the last columns (one row per comparison, should there be several), so
/// that a spreadsheet or `pandas.read_csv` reads the whole file as one table.
pub fn render(a: &Analysis) -> String {
    let mut rows: Vec<(CaseColumns, Baseline, VerdictColumns)> = Vec::new();
    for c in &a.cases {
        // Within the run a candidate is named by its implementation; against a baseline
        // run, by its case id.
        let is_candidate = |name: &str, operation: &str, params: &Params| {
            name == c.key
                || (name == c.implementation && operation == c.operation && params == &c.params)
        };
        let across = a.against_baseline.iter();
        let compared = a
            .comparisons
            .iter()
            .chain(across.clone().flat_map(|r| r.comparisons.iter()))
            .filter(|x| is_candidate(&x.candidate, &x.operation, &x.params))
            .map(|x| (x.baseline.as_str(), VerdictColumns::of(x)));
        let not_compared = a
            .not_compared
            .iter()
            .chain(across.flat_map(|r| r.not_compared.iter()))
            .filter(|x| is_candidate(&x.candidate, &x.operation, &x.params))
            .map(|x| (x.baseline.as_str(), VerdictColumns::not_compared(x)));
        let before = rows.len();
        for (baseline, verdict) in compared.chain(not_compared) {
            rows.push((CaseColumns::of(a, c), Baseline { baseline }, verdict));
        }
        if rows.len() == before {
            rows.push((
                CaseColumns::of(a, c),
                Baseline::default(),
                VerdictColumns::default(),
            ));
        }
    }
    table(rows)
}

/// The columns of a comparison of two runs, before its verdict: the same case in each,
/// named by its id, and both runs by theirs, with what the medians are in (as a run's
/// CSV says).
#[derive(Default, Serialize)]
struct PairColumns<'a> {
    baseline_run: i64,
    candidate_run: i64,
    id: &'a str,
    operation: &'a str,
    params: String,
    unit: &'a str,
    counter: String,
    median_baseline: Num,
    median_candidate: Num,
    difference: Num,
}

/// `compare RUN_A RUN_B`: one row per comparison, then one per comparison not made.
pub fn render_comparisons(rc: &RunComparison, pair: &super::Pair) -> String {
    let columns = |id, operation, params: &Params| PairColumns {
        baseline_run: rc.run_a,
        candidate_run: rc.run_b,
        id,
        operation,
        params: params.to_string(),
        unit: pair.counter.short_unit(),
        counter: pair.counter.to_string(),
        ..PairColumns::default()
    };
    let compared = rc.comparisons.iter().map(|c| {
        (
            PairColumns {
                median_baseline: Num::of(c.median_baseline),
                median_candidate: Num::of(c.median_candidate),
                difference: Num::of(c.difference),
                ..columns(&c.candidate, &c.operation, &c.params)
            },
            VerdictColumns::of(c),
        )
    });
    let not_compared = rc.not_compared.iter().map(|n| {
        (
            columns(&n.candidate, &n.operation, &n.params),
            VerdictColumns::not_compared(n),
        )
    });
    table(compared.chain(not_compared))
}

/// Comma-separated values through the `csv` crate, from typed records.
pub(super) struct Csv;

impl Exporter for Csv {
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
        Some(super::bulk::csv(run, t))
    }
    fn comparison(
        &self,
        c: &RunComparison,
        pair: &super::Pair,
        _: &VerdictOptions,
    ) -> Option<String> {
        Some(render_comparisons(c, pair))
    }
    fn history(&self, h: &History) -> Option<String> {
        Some(super::history::csv(h))
    }
    fn fleet(&self, f: &Fleet) -> Option<String> {
        Some(super::fleet::csv(f))
    }
    fn machines(&self, m: &[MachineRow]) -> Option<String> {
        Some(table(super::fleet::machine_list(m)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default, Serialize)]
    struct Row<'a> {
        name: &'a str,
        figure: Num,
        count: Option<u64>,
    }

    #[test]
    fn fields_with_line_breaks_or_separators_are_quoted() {
        let field = |s: &str| {
            let t = table([Row {
                name: s,
                ..Row::default()
            }]);
            let row = t.split_once('\n').unwrap().1;
            row.strip_suffix(",,\n").unwrap().to_string()
        };
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(field("a\nb"), "\"a\nb\"");
        assert_eq!(field("a\rb"), "\"a\rb\"");
    }

    #[test]
    fn figures_are_written_as_rust_writes_them_and_none_is_empty() {
        let t = table([
            Row {
                name: "x",
                figure: Num::of(1e-7),
                count: Some(3),
            },
            Row {
                name: "y",
                figure: Num::of(2.0),
                count: None,
            },
        ]);
        assert_eq!(t, "name,figure,count\nx,0.0000001,3\ny,2,\n");
    }

    #[test]
    fn a_table_without_records_keeps_its_header() {
        assert_eq!(table(Vec::<Row>::new()), "name,figure,count\n");
        assert_eq!(
            table(Vec::<(Row, Baseline)>::new()),
            "name,figure,count,baseline\n"
        );
    }
}
