//! Bencher Metric Format: a JSON object keyed by case id, each holding measures with
//! `value`, `lower_value` and `upper_value`, for `bencher run --adapter json`.
//!
//! Measures: the median per call (`cycles`, `ref-cycles` or `ns`, see
//! [`measure_unit`]), per byte where the case has a length (`cycles-per-byte`...), and
//! `bytes-per-second` where the counter ticks at a known rate (not Bencher's built-in
//! `throughput`, which is operations per second; Bencher creates a measure it does not
//! know on first sight). Bounds are our 95 % intervals. An incomplete run's cases are
//! named `CASE (incomplete run)`, apart from the whole runs' series.

use serde_json::{Map, Value, json};

use super::Doc;
use super::export::Exporter;
use crate::analysis::Analysis;
use crate::record::RunCounter;
use crate::stats::Interval;

/// The unit the exports name a run's counts in ([`RunCounter::short_unit`]). Bencher
/// and github-action-benchmark compare series by measure and unit name only, so the two
/// kinds of cycles must not share one: a run moved from one counter to the other would
/// read as a change of speed of a third or more.
pub(crate) fn measure_unit(counter: RunCounter) -> &'static str {
    counter.short_unit()
}

/// What the exports append to a case's name where its run is incomplete (interrupted, or
/// still measuring): nothing for a complete run.
pub(crate) fn incomplete_suffix(a: &Analysis) -> &'static str {
    match a.header.status {
        crate::record::RunStatus::Complete => "",
        crate::record::RunStatus::Running => " (incomplete run)",
    }
}

/// A measure, with its interval's ends where it has one: a single measurement (or a run of
/// fewer than 6 processes) has none, and bounds equal to the value would claim a precision
/// nobody measured.
fn metric(i: &Interval, has_interval: bool) -> Value {
    if has_interval {
        json!({ "value": i.estimate, "lower_value": i.lo, "upper_value": i.hi })
    } else {
        json!({ "value": i.estimate })
    }
}

pub fn render(a: &Analysis) -> String {
    let u = measure_unit(a.counter);
    // An incomplete run's figures (fewer processes than asked) get names of their own,
    // so that Bencher never joins them to the series of whole runs; BMF has no other
    // place to say so.
    let suffix = incomplete_suffix(a);
    let mut out: Vec<(String, Value)> = Vec::new();
    for c in &a.cases {
        let Some(m) = &c.measured else { continue };
        let mut measures = Map::new();
        measures.insert(u.into(), metric(&m.median, m.has_interval()));
        if let Some(pb) = &m.per_byte {
            measures.insert(format!("{u}-per-byte"), metric(pb, m.has_interval()));
        }
        if let Some(tp) = m.throughput_bytes_per_s {
            // Throughput is inverse to the count: the interval's ends swap.
            let at = |count: f64| tp * m.median.estimate / count;
            let metric = if m.has_interval() {
                json!({ "value": tp, "lower_value": at(m.median.hi), "upper_value": at(m.median.lo) })
            } else {
                json!({ "value": tp })
            };
            measures.insert("bytes-per-second".into(), metric);
        }
        out.push((format!("{}{suffix}", c.key), Value::Object(measures)));
    }
    in_order(&out)
}

/// A pretty JSON object of `entries` in their order (the run's, as every other format
/// lists its cases), where a `serde_json::Map` would sort them by name: serde writes a map
/// in the order it is handed its entries.
fn in_order(entries: &[(String, Value)]) -> String {
    struct Ordered<'a>(&'a [(String, Value)]);
    impl serde::Serialize for Ordered<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(self.0.iter().map(|(name, value)| (name, value)))
        }
    }
    serde_json::to_string_pretty(&Ordered(entries)).expect("JSON values serialise") + "\n"
}

/// Bencher Metric Format: one run's figures only.
pub(super) struct Bencher;

impl Exporter for Bencher {
    fn documents(&self) -> &'static [Doc] {
        &[Doc::Run]
    }
    fn run(&self, a: &Analysis) -> String {
        render(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::CounterKind;
    use crate::record::ImportedCounter;

    #[test]
    fn entries_keep_their_order_and_read_back_as_json() {
        let entries = vec![
            ("b/x len=64".to_string(), json!({ "ns": { "value": 1.5 } })),
            ("a/\"y\"".to_string(), json!({})),
        ];
        let text = in_order(&entries);
        assert!(
            text.find("b/x").unwrap() < text.find("a/").unwrap(),
            "{text}"
        );
        let back: serde_json::Map<String, Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back["b/x len=64"]["ns"]["value"], 1.5);
        // As serde_json writes a map, so that only the order changes.
        let sorted: Map<String, Value> = entries.into_iter().collect();
        let mut reversed = vec![];
        for (k, v) in sorted.iter() {
            reversed.push((k.clone(), v.clone()));
        }
        assert_eq!(
            in_order(&reversed),
            serde_json::to_string_pretty(&Value::Object(sorted)).unwrap() + "\n"
        );
        assert_eq!(in_order(&[]), "{}\n");
    }

    #[test]
    fn each_kind_of_count_has_a_unit_of_its_own() {
        for (counter, unit) in [
            (RunCounter::Measured(CounterKind::Perf), "cycles"),
            (RunCounter::Measured(CounterKind::TscCore), "cycles"),
            (RunCounter::Measured(CounterKind::Tsc), "ref-cycles"),
            (RunCounter::Measured(CounterKind::Ns), "ns"),
            (
                RunCounter::Imported(ImportedCounter::CriterionCycles),
                "ref-cycles",
            ),
            (RunCounter::Imported(ImportedCounter::CriterionNs), "ns"),
            (RunCounter::Imported(ImportedCounter::OpensslSpeed), "ns"),
        ] {
            assert_eq!(measure_unit(counter), unit, "{counter}");
        }
    }
}
