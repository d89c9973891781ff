//! Bencher Metric Format: a JSON object keyed by case id, each holding measures with
//! `value`, `lower_value` and `upper_value`, for `bencher run --adapter json`.
//!
//! Measures: the median per call (`cycles` or `ns`), per byte where the case has a
//! length (`cycles-per-byte` or `ns-per-byte`), and `throughput` in bytes per second
//! where the counter ticks at a known rate. Bounds are our 95 % intervals.

use serde_json::{Map, Value, json};

use crate::analysis::Analysis;
use crate::stats::Interval;

fn metric(i: &Interval) -> Value {
    json!({ "value": i.estimate, "lower_value": i.lo, "upper_value": i.hi })
}

pub fn render(a: &Analysis) -> String {
    let u = &a.short_unit;
    let mut out = Map::new();
    for c in &a.cases {
        let Some(m) = &c.measured else { continue };
        let mut measures = Map::new();
        measures.insert(u.clone(), metric(&m.median));
        if let Some(pb) = &m.per_byte {
            measures.insert(format!("{u}-per-byte"), metric(pb));
        }
        if let Some(tp) = m.throughput_bytes_per_s {
            // Throughput is inverse to the count: the interval's ends swap.
            let at = |count: f64| tp * m.median.estimate / count;
            measures.insert(
                "throughput".into(),
                json!({ "value": tp, "lower_value": at(m.median.hi), "upper_value": at(m.median.lo) }),
            );
        }
        out.insert(c.key.clone(), Value::Object(measures));
    }
    serde_json::to_string_pretty(&Value::Object(out)).expect("JSON values serialise") + "\n"
}
