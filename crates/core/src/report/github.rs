//! github-action-benchmark's `customSmallerIsBetter` input: a JSON array of
//! `{ name, unit, value, range, extra }`, one entry per measured case.
//!
//! The value is the median per byte where the case has a length (comparable across
//! lengths) and per call otherwise; `range` is the larger half-width of its 95 %
//! interval, left out where the case has none (a single measurement, fewer than 6 processes); `extra` (shown in the action's tooltips) names the machine and counter, and what the canary said of the host where it was not steady.
//! An incomplete run's entries are named `CASE (incomplete run)` and say so in `extra`.
//! The unit names the kind of count (`cycles/byte`, `ref-cycles/byte`, `ns/byte`), as the
//! action compares entries by name and unit.

use serde_json::{Value, json};

use super::Doc;
use super::export::Exporter;
use crate::analysis::Analysis;

pub fn render(a: &Analysis) -> String {
    let u = super::bencher::measure_unit(a.counter);
    let h = &a.header;
    let suffix = super::bencher::incomplete_suffix(a);
    let extra = format!(
        "run {}{}; {}; counter {} ({}){}",
        h.id,
        h.incompleteness()
            .map_or(String::new(), |why| format!(" INCOMPLETE: {why}")),
        h.cpu_model,
        a.counter,
        a.unit,
        h.git_revision
            .as_deref()
            .map_or(String::new(), |r| format!("; revision {r}"))
    );
    let entries: Vec<Value> = a
        .cases
        .iter()
        .filter_map(|c| {
            let m = c.measured.as_ref()?;
            let (interval, unit) = match &m.per_byte {
                Some(pb) => (pb, format!("{u}/byte")),
                None => (&m.median, format!("{u}/call")),
            };
            // What the canary said of the host while this case ran, where it said more
            // than that it was steady.
            let host = if c.unsteady {
                "; host unsteady (canary): no gate decides on it"
            } else if c.set_aside > 0 {
                "; processes set aside: the host moved (canary)"
            } else {
                ""
            };
            let unchecked = if super::run::host_not_checked(a) {
                "; host not checked (--no-canary)"
            } else {
                ""
            };
            let shift = a
                .against_baseline
                .as_ref()
                .and_then(|r| r.host.as_ref())
                .filter(|h| h.differs)
                .map_or(String::new(), |h| {
                    format!(
                        "; host in another state than baseline run {}",
                        h.baseline_run
                    )
                });
            // Timed, but not checked in full (a crate's own algorithm without a reference).
            let checked = match c.verified() || a.header.imported().is_some() {
                true => "",
                false => "; checked in part",
            };
            let mut entry = json!({
                // The action joins entries by name: an incomplete run's are kept apart.
                "name": format!("{}{suffix}", c.key),
                "unit": unit,
                "value": interval.estimate,
                "extra": format!("{extra}{checked}{host}{unchecked}{shift}"),
            });
            // A single measurement has no interval: `± 0` would claim a precision
            // nobody measured. The action takes an entry without a range.
            if m.has_interval() {
                let half = (interval.hi - interval.estimate).max(interval.estimate - interval.lo);
                entry["range"] = json!(format!("± {}", significant(half)));
            }
            Some(entry)
        })
        .collect();
    serde_json::to_string_pretty(&Value::Array(entries)).expect("JSON values serialise") + "\n"
}

/// Three significant digits: a range is a rough guide, not a figure to compute with.
fn significant(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return "0".into();
    }
    let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.digits$}")
}

/// github-action-benchmark's array: one run's figures only.
pub(super) struct GithubActionBenchmark;

impl Exporter for GithubActionBenchmark {
    fn documents(&self) -> &'static [Doc] {
        &[Doc::Run]
    }
    fn run(&self, a: &Analysis) -> String {
        render(a)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ranges_keep_three_significant_digits() {
        assert_eq!(super::significant(0.012345), "0.0123");
        assert_eq!(super::significant(1.5), "1.50");
        assert_eq!(super::significant(1234.0), "1234");
        assert_eq!(super::significant(0.0), "0");
    }
}
