//! CSV for spreadsheets: one rectangular table per output.

use crate::analysis::{Analysis, Comparison};

pub(crate) fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub(crate) fn opt(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| v.to_string())
}

/// One rectangular table, one row per case: a case that is the candidate of a comparison
/// carries it in the last columns (one row per comparison, should there be several), so
/// that a spreadsheet or `pandas.read_csv` reads the whole file as one table.
pub fn render(a: &Analysis) -> String {
    let mut out = format!(
        "run_id,id,implementation,operation,params,bytes,status,unit,median,median_lo,median_hi,per_byte,per_byte_lo,per_byte_hi,throughput_bytes_per_s,samples,outliers,core_clock_hz,baseline,{VERDICT_COLUMNS}\n",
    );
    for c in &a.cases {
        let m = c.measured.as_ref();
        let pb = m.and_then(|m| m.per_byte);
        let case = [
            a.header.id.to_string(),
            field(&c.key),
            field(&c.implementation),
            field(&c.operation),
            field(&c.params.to_string()),
            c.bytes.map_or(String::new(), |b| b.to_string()),
            format!("{:?}", c.status).to_lowercase(),
            field(&a.short_unit),
            opt(m.map(|m| m.median.estimate)),
            opt(m.map(|m| m.median.lo)),
            opt(m.map(|m| m.median.hi)),
            opt(pb.map(|p| p.estimate)),
            opt(pb.map(|p| p.lo)),
            opt(pb.map(|p| p.hi)),
            opt(m.and_then(|m| m.throughput_bytes_per_s)),
            m.map_or(String::new(), |m| m.samples.to_string()),
            m.map_or(String::new(), |m| m.outliers.total().to_string()),
            opt(m.and_then(|m| m.core_clock_hz)),
        ]
        .join(",");
        let against: Vec<&Comparison> = a
            .comparisons
            .iter()
            .filter(|x| {
                x.candidate == c.implementation
                    && x.operation == c.operation
                    && x.params == c.params
            })
            .collect();
        if against.is_empty() {
            let empty = ",".repeat(1 + VERDICT_COLUMNS.split(',').count());
            out += &format!("{case}{empty}\n");
        }
        for x in against {
            out += &format!("{case},{},{}\n", field(&x.baseline), verdict_fields(x));
        }
    }
    out
}

/// The columns every comparison row ends with, and their values.
const VERDICT_COLUMNS: &str =
    "change_pct,change_lo,change_hi,p_value,verdict,clock_change_pct,time_change_pct";

fn verdict_fields(c: &Comparison) -> String {
    [
        c.change_pct.estimate.to_string(),
        c.change_pct.lo.to_string(),
        c.change_pct.hi.to_string(),
        c.p_value.to_string(),
        field(&c.verdict.to_string()),
        opt(c.clock_change_pct),
        opt(c.time_change_pct),
    ]
    .join(",")
}

/// `compare RUN_A RUN_B`: one row per comparison.
pub fn render_comparisons(cs: &[Comparison]) -> String {
    let mut out = format!(
        "baseline,candidate,operation,params,median_baseline,median_candidate,difference,{VERDICT_COLUMNS}\n"
    );
    for c in cs {
        let row = [
            field(&c.baseline),
            field(&c.candidate),
            field(&c.operation),
            field(&c.params.to_string()),
            c.median_baseline.to_string(),
            c.median_candidate.to_string(),
            c.difference.to_string(),
            verdict_fields(c),
        ];
        out += &row.join(",");
        out += "\n";
    }
    out
}
