//! CSV: one row per case (or per comparison), for spreadsheets.

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

pub fn render(a: &Analysis) -> String {
    let mut out = String::from(
        "run_id,id,implementation,operation,params,bytes,status,unit,median,median_lo,median_hi,per_byte,per_byte_lo,per_byte_hi,throughput_bytes_per_s,samples,outliers,core_clock_hz\n",
    );
    for c in &a.cases {
        let m = c.measured.as_ref();
        let pb = m.and_then(|m| m.per_byte);
        let row = [
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
        ];
        out += &row.join(",");
        out += "\n";
    }
    if !a.comparisons.is_empty() {
        out += "\n";
        out += &render_comparisons(&a.comparisons);
    }
    out
}

pub fn render_comparisons(cs: &[Comparison]) -> String {
    let mut out = String::from(
        "baseline,candidate,operation,params,median_baseline,median_candidate,difference,change_pct,change_lo,change_hi,p_value,verdict,clock_change_pct,time_change_pct\n",
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
            c.change_pct.estimate.to_string(),
            c.change_pct.lo.to_string(),
            c.change_pct.hi.to_string(),
            c.p_value.to_string(),
            field(&c.verdict.to_string()),
            opt(c.clock_change_pct),
            opt(c.time_change_pct),
        ];
        out += &row.join(",");
        out += "\n";
    }
    out
}
