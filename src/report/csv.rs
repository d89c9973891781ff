//! CSV for spreadsheets: one rectangular table per output.

use crate::analysis::{Analysis, Comparison, NotCompared, RunComparison};
use crate::catalog::Params;

/// A CSV field (RFC 4180): quoted where it holds a comma, a quote or a line break, a
/// bare `\r` included (readers end a record there).
pub(crate) fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
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
        "run_id,id,implementation,operation,params,bytes,status,unit,counter,median,median_lo,median_hi,per_byte,per_byte_lo,per_byte_hi,throughput_bytes_per_s,samples,outliers,core_clock_hz,baseline,{VERDICT_COLUMNS}\n",
    );
    for c in &a.cases {
        let m = c.measured.as_ref();
        let pb = m.and_then(|m| m.per_byte);
        // A single measurement has no interval: its ends are left empty, not the point.
        let ci = m.filter(|m| m.has_interval());
        let pb_ci = ci.and_then(|m| m.per_byte);
        let case = [
            a.header.id.to_string(),
            field(&c.key),
            field(&c.implementation),
            field(&c.operation),
            field(&c.params.to_string()),
            c.bytes.map_or(String::new(), |b| b.to_string()),
            format!("{:?}", c.status).to_lowercase(),
            field(&a.short_unit),
            field(&a.counter.to_string()),
            opt(m.map(|m| m.median.estimate)),
            opt(ci.map(|m| m.median.lo)),
            opt(ci.map(|m| m.median.hi)),
            opt(pb.map(|p| p.estimate)),
            opt(pb_ci.map(|p| p.lo)),
            opt(pb_ci.map(|p| p.hi)),
            opt(m.and_then(|m| m.throughput_bytes_per_s)),
            m.map_or(String::new(), |m| m.samples.to_string()),
            m.map_or(String::new(), |m| m.outliers.total().to_string()),
            opt(m.and_then(|m| m.core_clock_hz)),
        ]
        .join(",");
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
            .filter(|x| is_candidate(&x.candidate, &x.operation, &x.params));
        let not_compared = a
            .not_compared
            .iter()
            .chain(across.flat_map(|r| r.not_compared.iter()))
            .filter(|x| is_candidate(&x.candidate, &x.operation, &x.params));
        let mut rows = 0;
        for x in compared {
            out += &format!("{case},{},{}\n", field(&x.baseline), verdict_fields(x));
            rows += 1;
        }
        for x in not_compared {
            out += &format!("{case},{},{}\n", field(&x.baseline), not_compared_fields(x));
            rows += 1;
        }
        if rows == 0 {
            let empty = ",".repeat(1 + VERDICT_COLUMNS.split(',').count());
            out += &format!("{case}{empty}\n");
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
        field(c.verdict_word()),
        opt(c.clock_change_pct),
        opt(c.time_change_pct),
    ]
    .join(",")
}

/// The verdict columns of a comparison that could not be made: no figures, and the
/// reason as its verdict.
fn not_compared_fields(n: &NotCompared) -> String {
    VERDICT_COLUMNS
        .split(',')
        .map(|column| match column {
            "verdict" => field(&format!("not compared: {}", n.why)),
            _ => String::new(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// `compare RUN_A RUN_B`: one row per comparison, then one per comparison not made.
pub fn render_comparisons(rc: &RunComparison) -> String {
    let cs = &rc.comparisons;
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
    for n in &rc.not_compared {
        let row = [
            field(&n.baseline),
            field(&n.candidate),
            field(&n.operation),
            field(&n.params.to_string()),
            String::new(),
            String::new(),
            String::new(),
            not_compared_fields(n),
        ];
        out += &row.join(",");
        out += "\n";
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn fields_with_line_breaks_or_separators_are_quoted() {
        assert_eq!(super::field("plain"), "plain");
        assert_eq!(super::field("a,b"), "\"a,b\"");
        assert_eq!(super::field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(super::field("a\nb"), "\"a\nb\"");
        assert_eq!(super::field("a\rb"), "\"a\rb\"");
    }
}
