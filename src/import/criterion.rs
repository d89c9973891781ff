//! criterion.rs's saved results. For every benchmark criterion keeps
//! `<group>/<bench>[/<value>]/new/benchmark.json` (its id and declared throughput) and
//! `sample.json` (per sample, an iteration count `iters` and the total measured over
//! them, `times`). Each benchmark becomes a case whose samples are `times[i] / iters[i]`,
//! in one cluster: criterion measures in one process and one memory layout.
//!
//! criterion does not record what it measured in. Its default is wall-clock
//! nanoseconds; `criterion-cycles-per-byte` counts reference cycles (rdtsc) instead.
//! Its HTML report, where there is one, prints the unit beside every figure, so that is
//! read; without one, nanoseconds are assumed and the note says so.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use super::{Imported, MAX_BYTES, PER_CALL};
use crate::catalog::Params;
use crate::cli::CriterionUnit;
use crate::runner::Case;
use crate::store::{ImportedCase, ImportedCounter};

#[derive(Deserialize)]
struct BenchmarkId {
    group_id: String,
    function_id: Option<String>,
    value_str: Option<String>,
    throughput: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct SampleFile {
    iters: Vec<f64>,
    times: Vec<f64>,
}

pub fn read(dir: &Path, unit: CriterionUnit) -> Result<Imported> {
    if !dir.is_dir() {
        bail!(
            "`{}` is not a directory: point `import criterion` at criterion's output (usually target/criterion)",
            dir.display()
        );
    }
    let mut found = Vec::new();
    find_benchmarks(dir, &mut found)?;
    found.sort();
    if found.is_empty() {
        bail!(
            "`{}` holds no criterion benchmarks: expected `<group>/<benchmark>/new/benchmark.json` and `sample.json` below it (criterion writes them under target/criterion)",
            dir.display()
        );
    }
    let mut cases: Vec<ImportedCase> = Vec::new();
    let mut sources: Vec<&Path> = Vec::new();
    let mut detected: Vec<(CriterionUnit, PathBuf)> = Vec::new();
    let mut measured_at: Option<SystemTime> = None;
    for new in &found {
        let case = read_benchmark(new)?;
        let key = case.case.key();
        if let Some(i) = cases.iter().position(|c| c.case.key() == key) {
            bail!(
                "`{}` and `{}` both become the case `{key}`: import them separately",
                sources[i].display(),
                new.display()
            );
        }
        if let Some(u) = unit_in_report(new) {
            detected.push(u);
        }
        let modified = fs::metadata(new.join("sample.json")).and_then(|m| m.modified());
        if let Ok(t) = modified {
            measured_at = Some(measured_at.map_or(t, |m| m.max(t)));
        }
        cases.push(case);
        sources.push(new);
    }
    let (unit, why) = match unit {
        CriterionUnit::Auto => match detected.as_slice() {
            [] => (
                CriterionUnit::Ns,
                "unit ns assumed: criterion's default wall clock (no HTML report said otherwise; pass --unit cycles for criterion-cycles-per-byte)".to_string(),
            ),
            [(first, path), rest @ ..] => {
                if let Some((other, other_path)) = rest.iter().find(|(u, _)| u != first) {
                    bail!(
                        "criterion's reports disagree on the unit: `{}` says {}, `{}` says {}; import them separately, or pass --unit",
                        path.display(),
                        unit_name(*first),
                        other_path.display(),
                        unit_name(*other)
                    );
                }
                (
                    *first,
                    format!("unit {} read from criterion's HTML report", unit_name(*first)),
                )
            }
        },
        given => (given, format!("unit {} as given by --unit", unit_name(given))),
    };
    let counter = match unit {
        CriterionUnit::Cycles => ImportedCounter::CriterionCycles,
        _ => ImportedCounter::CriterionNs,
    };
    Ok(Imported {
        source: "criterion",
        origin: dir.to_path_buf(),
        counter,
        note: format!(
            "criterion.rs, {} benchmarks from {}; {why}; one process per benchmark, so intervals are of the samples alone",
            cases.len(),
            dir.display()
        ),
        measured_at,
        cases,
    })
}

fn unit_name(u: CriterionUnit) -> &'static str {
    match u {
        CriterionUnit::Cycles => "cycles",
        _ => "ns",
    }
}

/// Every `new/` directory with a `benchmark.json` at or below `dir`. Saved baselines
/// (`base/`, named ones) are older measurements of the same benchmarks: left out.
fn find_benchmarks(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    if dir.file_name().is_some_and(|n| n == "new") && dir.join("benchmark.json").is_file() {
        out.push(dir.to_path_buf());
        return Ok(());
    }
    let entries = fs::read_dir(dir)
        .with_context(|| format!("cannot read the directory `{}`", dir.display()))?;
    for entry in entries {
        let entry =
            entry.with_context(|| format!("cannot read the directory `{}`", dir.display()))?;
        if entry.file_type().is_ok_and(|t| t.is_dir()) && entry.file_name() != "report" {
            find_benchmarks(&entry.path(), out)?;
        }
    }
    Ok(())
}

fn parse<T: for<'de> Deserialize<'de>>(path: &Path, what: &str) -> Result<T> {
    let text =
        fs::read_to_string(path).with_context(|| format!("cannot read `{}`", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| anyhow::anyhow!("`{}` is not criterion's {what}: {e}", path.display()))
}

fn read_benchmark(new: &Path) -> Result<ImportedCase> {
    let id_path = new.join("benchmark.json");
    let id: BenchmarkId = parse(
        &id_path,
        "benchmark.json (expected `group_id`, `function_id`, `value_str`, `throughput`)",
    )?;
    // group_id is the implementation's name, the others part of the operation's: a
    // blank one would be a case with a blank (or `/`-ended) name.
    for (field, value) in [
        ("group_id", Some(&id.group_id)),
        ("function_id", id.function_id.as_ref()),
        ("value_str", id.value_str.as_ref()),
    ] {
        if value.is_some_and(|v| v.trim().is_empty()) {
            bail!(
                "`{}`: `{field}` is empty, so the case would have no name: criterion writes a name there{}",
                id_path.display(),
                if field == "group_id" { "" } else { " or null" }
            );
        }
    }
    let sample_path = new.join("sample.json");
    let sample: SampleFile = parse(
        &sample_path,
        "sample.json (expected arrays of numbers `iters` and `times`)",
    )?;
    if sample.iters.is_empty() || sample.iters.len() != sample.times.len() {
        bail!(
            "`{}`: `iters` and `times` must be non-empty and of the same length ({} and {})",
            sample_path.display(),
            sample.iters.len(),
            sample.times.len()
        );
    }
    let mut per_iteration: Vec<f64> = Vec::with_capacity(sample.iters.len());
    for (i, (&n, &t)) in sample.iters.iter().zip(&sample.times).enumerate() {
        if !(n >= 1.0 && n.is_finite() && n.fract() == 0.0) {
            bail!(
                "`{}`: `iters[{i}]` is {n}: every `iters` must be a whole count of at least 1",
                sample_path.display()
            );
        }
        if !(t >= 0.0 && t.is_finite()) {
            bail!(
                "`{}`: `times[{i}]` is {t}: every `times` must be a finite non-negative value",
                sample_path.display()
            );
        }
        let per = t / n;
        if per != 0.0 && !PER_CALL.contains(&per) {
            bail!(
                "`{}`: `times[{i}]` / `iters[{i}]` is {per:e} per iteration, outside {:e} to {:e}: not a measurement (a damaged file or another unit)",
                sample_path.display(),
                PER_CALL.start(),
                PER_CALL.end()
            );
        }
        per_iteration.push(per);
    }
    // criterion reports such a benchmark as fine; stored, it is a case with no figures.
    if per_iteration.iter().all(|&t| t == 0.0) {
        bail!(
            "`{}`: every `times` is 0, so criterion measured nothing in this benchmark: re-run it, or remove its directory `{}`",
            sample_path.display(),
            new.parent().unwrap_or(new).display()
        );
    }
    let bytes = id.throughput.as_ref().and_then(throughput_bytes);
    if let Some(b) = bytes.filter(|&b| b > MAX_BYTES) {
        bail!(
            "`{}`: `throughput` declares {b} bytes per iteration, more than 2^53: not a benchmark's message length",
            id_path.display()
        );
    }
    let mut operation = id.function_id.clone().unwrap_or_else(|| "bench".into());
    // A parameter that is the byte count becomes `len`; any other stays in the name.
    if let Some(v) = id.value_str.as_deref()
        && bytes.map(|b| b.to_string()).as_deref() != Some(v)
    {
        operation = format!("{operation}/{v}");
    }
    let params = bytes.map_or_else(Params::new, |b| Params::new().with("len", b));
    Ok(ImportedCase {
        case: Case {
            implementation: id.group_id,
            operation,
            params,
        },
        clusters: vec![per_iteration],
        calls_per_sample: None,
        message: None,
    })
}

/// Bytes per iteration from criterion's `throughput`: `{"Bytes": n}`, `{"BytesDecimal": n}`
/// or `{"ElementsAndBytes": {"elements": e, "bytes": n}}`; elements alone are not bytes.
fn throughput_bytes(t: &serde_json::Value) -> Option<u64> {
    t.get("Bytes")
        .or_else(|| t.get("BytesDecimal"))
        .or_else(|| t.get("ElementsAndBytes").and_then(|e| e.get("bytes")))
        .and_then(serde_json::Value::as_u64)
        .filter(|&b| b > 0)
}

/// The unit criterion's HTML report for this benchmark prints its figures in, if any.
fn unit_in_report(new: &Path) -> Option<(CriterionUnit, PathBuf)> {
    let path = new.parent()?.join("report").join("index.html");
    let html = fs::read_to_string(&path).ok()?;
    let has = |suffixes: &[&str]| suffixes.iter().any(|s| html.contains(&format!(" {s}<")));
    if has(&["cycles", "cpb"]) {
        Some((CriterionUnit::Cycles, path))
    } else if has(&["ps", "ns", "µs", "us", "ms", "s"]) {
        Some((CriterionUnit::Ns, path))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throughput_in_bytes_in_every_shape_criterion_writes() {
        let j = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap();
        assert_eq!(throughput_bytes(&j(r#"{"Bytes": 1024}"#)), Some(1024));
        assert_eq!(throughput_bytes(&j(r#"{"BytesDecimal": 64}"#)), Some(64));
        assert_eq!(
            throughput_bytes(&j(r#"{"ElementsAndBytes": {"elements": 1, "bytes": 32}}"#)),
            Some(32)
        );
        assert_eq!(throughput_bytes(&j(r#"{"Elements": 8}"#)), None);
    }
}
