//! criterion.rs's saved results. For every benchmark criterion keeps
//! `<group>/<bench>[/<value>]/new/benchmark.json` (its id and declared throughput) and
//! `sample.json` (per sample, an iteration count `iters` and the total measured over
//! them, `times`). Each benchmark becomes a case whose samples are `times[i] / iters[i]`,
//! in one cluster: criterion measures in one process and one memory layout.
//!
//! criterion does not record what it measured in. Its default is wall-clock
//! nanoseconds; `criterion-cycles-per-byte` counts reference cycles (rdtsc) instead.
//! Its `raw.csv` (feature `csv_output`) has a unit column, and its HTML report prints the
//! unit beside every figure: where there is either, it is read (a unit that is neither
//! is refused unless `--unit` says); without one, nanoseconds are assumed and the note
//! says so. Results left from earlier runs are merged with the latest by criterion's
//! layout: the span of the files' times is noted, and a warning given past an hour.
//!
//! Beside `new/`, criterion keeps `base/` (the measurement before the latest) and one
//! directory per `--save-baseline NAME`: `--saved` reads one of those instead, so that a
//! crate's saved sets become runs of their own, oldest imported first.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use super::{Imported, MAX_BYTES, PER_CALL};

use crate::record::{Case, ImportedCounter, Param, Params};
use crate::store::ImportedCase;

/// What criterion's figures count, as `import criterion --unit` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CriterionUnit {
    Auto,
    Ns,
    Cycles,
}

#[derive(Deserialize)]
struct BenchmarkId {
    group_id: String,
    function_id: Option<String>,
    value_str: Option<String>,
    throughput: Option<serde_json::Value>,
}

/// criterion's `Throughput` as its benchmark.json holds it (serde's external tagging:
/// `{"Bytes": 1024}`). `Bits` and `ElementsAndBytes` are newer than criterion 0.5.
// Counts of elements are read only so that a damaged one is refused, never used.
#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
enum Throughput {
    Bits(u64),
    Bytes(u64),
    BytesDecimal(u64),
    Elements(u64),
    ElementsAndBytes { elements: u64, bytes: u64 },
}

/// What a benchmark's declared throughput says about its message length.
#[derive(Debug, PartialEq)]
enum Declared {
    /// Nothing (none declared, or elements, which are not bytes).
    Nothing,
    Bytes(u64),
    /// Bits that make no whole number of bytes: kept without a byte count, and said.
    OddBits(u64),
}

#[derive(Deserialize)]
struct SampleFile {
    iters: Vec<f64>,
    times: Vec<f64>,
}

/// The criterion results in `dir`: each benchmark's set `saved` (`new`, `base`, or a
/// name given to criterion's `--save-baseline`).
pub fn read(dir: &Path, unit: CriterionUnit, saved: &str) -> Result<Imported> {
    if saved.is_empty() || saved.contains(['/', '\\']) || [".", "..", "report"].contains(&saved) {
        bail!(
            "--saved `{saved}` is not one of criterion's result sets: give `new` (the latest), `base` (the one before it) or a name given to criterion's --save-baseline"
        );
    }
    if !dir.is_dir() {
        bail!(
            "`{}` is not a directory: point `import criterion` at criterion's output (usually target/criterion)",
            dir.display()
        );
    }
    let mut found = Vec::new();
    find_benchmarks(dir, saved, &mut found, &mut Vec::new())?;
    found.sort();
    if found.is_empty() {
        bail!(
            "`{}` holds no criterion benchmarks: expected `<group>/<benchmark>/{saved}/benchmark.json` and `sample.json` below it (criterion writes them under target/criterion){}",
            dir.display(),
            if holds_cbor(dir, 0) {
                "; it holds cargo-criterion's data (`.cbor` files), which is not supported: run the benchmarks with `cargo bench` and criterion's default output"
            } else {
                ""
            }
        );
    }
    let mut cases: Vec<ImportedCase> = Vec::new();
    let mut sources: Vec<&Path> = Vec::new();
    let mut detected: Vec<(CriterionUnit, PathBuf)> = Vec::new();
    let mut unrecognised: Option<(String, PathBuf)> = None;
    let mut measured_at: Option<SystemTime> = None;
    let mut earliest: Option<SystemTime> = None;
    let mut in_bits: Vec<String> = Vec::new();
    for new in &found {
        let (case, odd_bits) = read_benchmark(new)?;
        let key = case.case.key();
        if let Some(i) = cases.iter().position(|c| c.case.key() == key) {
            bail!(
                "`{}` and `{}` both become the case `{key}`: import them separately",
                sources[i].display(),
                new.display()
            );
        }
        match unit_said(new)? {
            Some((UnitSaid::Known(u), path)) => detected.push((u, path)),
            Some((UnitSaid::Unknown(what), path)) => {
                unrecognised.get_or_insert((what, path));
            }
            None => {}
        }
        let modified = fs::metadata(new.join("sample.json")).and_then(|m| m.modified());
        if let Ok(t) = modified {
            measured_at = Some(measured_at.map_or(t, |m| m.max(t)));
            earliest = Some(earliest.map_or(t, |m| m.min(t)));
        }
        if let Some(b) = odd_bits {
            in_bits.push(format!("{key} ({b} bits)"));
        }
        cases.push(case);
        sources.push(new);
    }
    if let (CriterionUnit::Auto, Some((what, path))) = (unit, &unrecognised) {
        bail!(
            "`{}` gives criterion's figures in {what}, neither ns nor cycles (a custom measurement?): pass --unit ns or --unit cycles if they are one of those; other units cannot be imported",
            path.display()
        );
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
                    format!(
                        "unit {} read from criterion's {}",
                        unit_name(*first),
                        if path.ends_with("raw.csv") {
                            "raw.csv"
                        } else {
                            "HTML report"
                        }
                    ),
                )
            }
        },
        given => {
            // The report prints what criterion measured: a --unit against it would store
            // cycles as nanoseconds (or the reverse) without a word. One left from an
            // earlier measurement, with HTML reports since turned off, can be deleted.
            if let Some((said, path)) = detected.iter().find(|(u, _)| *u != given) {
                bail!(
                    "--unit {} contradicts `{}`, criterion's report of that benchmark, which prints its figures in {}: leave --unit out to take the report's unit, or delete the report if it is left from an earlier measurement",
                    unit_name(given),
                    path.display(),
                    unit_name(*said)
                );
            }
            (given, format!("unit {} as given by --unit", unit_name(given)))
        }
    };
    let counter = match unit {
        CriterionUnit::Cycles => ImportedCounter::CriterionCycles,
        _ => ImportedCounter::CriterionNs,
    };
    // criterion rewrites only the benchmarks a run measured (`cargo bench -- NAME`), and
    // leaves the others' `new/` from earlier runs, perhaps of other code: merged, they
    // look like one run.
    let mut warnings = Vec::new();
    let span = match (earliest, measured_at) {
        (Some(from), Some(to)) if cases.len() > 1 => {
            let apart = to.duration_since(from).unwrap_or_default();
            let apart = std::time::Duration::from_secs(apart.as_secs());
            let at = |t: SystemTime| humantime::format_rfc3339_seconds(t).to_string();
            let said = format!(
                "; the files were written from {} to {} ({} apart)",
                at(from),
                at(to),
                if apart.is_zero() {
                    "0s".to_string()
                } else {
                    humantime::format_duration(apart).to_string()
                }
            );
            if apart > STALE {
                warnings.push(format!(
                    "the benchmarks in `{}` were written up to {} apart, from {} to {}: criterion leaves the results of earlier runs beside those of the latest (`cargo bench -- NAME` rewrites only NAME), so they may be of different code; remove the directory and re-run `cargo bench` to import one run",
                    dir.display(),
                    humantime::format_duration(apart),
                    at(from),
                    at(to)
                ));
            }
            said
        }
        _ => String::new(),
    };
    Ok(Imported {
        source: "criterion",
        origin: dir.to_path_buf(),
        counter,
        note: format!(
            "criterion.rs, {} benchmark{} from {}{}; {why}; one process per benchmark, so intervals are of the samples alone{span}{}",
            cases.len(),
            if cases.len() == 1 { "" } else { "s" },
            dir.display(),
            if saved == "new" {
                String::new()
            } else {
                format!(" (its saved set `{saved}`)")
            },
            if in_bits.is_empty() {
                String::new()
            } else {
                format!(
                    "; no byte count, as the throughput declared is in bits that make no whole byte: {}",
                    in_bits.join(", ")
                )
            }
        ),
        measured_at,
        cases,
        warnings,
    })
}

fn unit_name(u: CriterionUnit) -> &'static str {
    match u {
        CriterionUnit::Cycles => "cycles",
        _ => "ns",
    }
}

/// Results written further apart than this are probably not of one `cargo bench`.
const STALE: std::time::Duration = std::time::Duration::from_secs(3600);

/// Whether cargo-criterion's data (`.cbor` files) lies at or a few levels below `dir`.
fn holds_cbor(dir: &Path, depth: usize) -> bool {
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let path = e.path();
        path.extension().is_some_and(|x| x == "cbor")
            || (depth < 6 && path.is_dir() && holds_cbor(&path, depth + 1))
    })
}

/// Every directory named `saved` (`new/` by default) with a `benchmark.json` at or below
/// `dir`. The other sets (`base/`, named baselines) are other measurements of the same
/// benchmarks: left out. Symbolic links are followed; `seen` holds the directories
/// already searched (as canonical paths), so that a link back up is not followed round
/// for ever.
fn find_benchmarks(
    dir: &Path,
    saved: &str,
    out: &mut Vec<PathBuf>,
    seen: &mut Vec<PathBuf>,
) -> Result<()> {
    let real = fs::canonicalize(dir)
        .with_context(|| format!("cannot read the directory `{}`", dir.display()))?;
    if seen.contains(&real) {
        return Ok(());
    }
    seen.push(real);
    if dir.file_name().is_some_and(|n| n == saved) {
        if dir.join("benchmark.json").is_file() {
            out.push(dir.to_path_buf());
            return Ok(());
        }
        // The id cannot be rebuilt from the path: criterion's directory names replace
        // characters and do not say which part is the function and which the value, and
        // the throughput is nowhere else. Skipped, the benchmark would be lost unseen.
        // (A `new/` with neither file is a group named `new`: searched below.)
        if let Some(file) = ["sample.json", "estimates.json"]
            .into_iter()
            .find(|f| dir.join(f).is_file())
        {
            let bench = dir.parent().unwrap_or(dir);
            bail!(
                "`{}` holds criterion's `{file}` but no `benchmark.json`, which names the benchmark and its throughput: re-run the benchmark (criterion writes both), or remove its directory `{}` to import the others",
                dir.display(),
                bench.display()
            );
        }
    }
    let entries = fs::read_dir(dir)
        .with_context(|| format!("cannot read the directory `{}`", dir.display()))?;
    for entry in entries {
        let entry =
            entry.with_context(|| format!("cannot read the directory `{}`", dir.display()))?;
        let path = entry.path();
        // Through a symbolic link too: a benchmark directory linked in is imported. A
        // link to nothing might have been one, so it is refused rather than passed over.
        let is_dir = match fs::metadata(&path) {
            Ok(m) => m.is_dir(),
            Err(e) if entry.file_type().is_ok_and(|t| t.is_symlink()) => bail!(
                "`{}` is a symbolic link that cannot be followed ({e}): it may hold benchmarks; fix or remove it",
                path.display()
            ),
            Err(e) => bail!("cannot read `{}`: {e}", path.display()),
        };
        // criterion's HTML reports (`report/`) hold no `new/`, and are searched in vain;
        // a benchmark function named `report` is `<group>/report/new/`, and found.
        if is_dir {
            find_benchmarks(&path, saved, out, seen)?;
        }
    }
    Ok(())
}

fn read_text(path: &Path) -> Result<String> {
    fs::read_to_string(path).with_context(|| format!("cannot read `{}`", path.display()))
}

fn parse<T: for<'de> Deserialize<'de>>(text: &str, path: &Path, what: &str) -> Result<T> {
    serde_json::from_str(text)
        .map_err(|e| anyhow::anyhow!("`{}` is not criterion's {what}: {e}", path.display()))
}

/// The benchmark in `new/` as a case, with the bits per iteration it declares where
/// they make no whole byte (kept without a byte count).
fn read_benchmark(new: &Path) -> Result<(ImportedCase, Option<u64>)> {
    let benchmark = read_text(&new.join("benchmark.json"))?;
    benchmark_from_json(new, &benchmark, || read_text(&new.join("sample.json")))
}

/// [`read_benchmark`] of the text of `new/benchmark.json` and, read only once that is
/// found good, of `new/sample.json`.
pub(crate) fn benchmark_from_json(
    new: &Path,
    benchmark: &str,
    sample: impl FnOnce() -> Result<String>,
) -> Result<(ImportedCase, Option<u64>)> {
    let id_path = new.join("benchmark.json");
    let id: BenchmarkId = parse(
        benchmark,
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
    // group_id is the whole implementation name (an algorithm, no provider), so it must
    // be one name part; function_id and value_str make the operation, `function/value`,
    // whose parts must be too. Spaces become `-`, as in `openssl speed` names.
    let group_id = crate::name::one_word(&id.group_id);
    let parts = [
        ("group_id", Some(&group_id)),
        ("function_id", id.function_id.as_ref()),
        ("value_str", id.value_str.as_ref()),
    ];
    for (field, value) in parts {
        let Some(value) = value else { continue };
        if let Some(why) = crate::name::bad_part(&crate::name::one_word(value)) {
            bail!(
                "`{}`: `{field}` {why}: it becomes part of the case's name (`group/function/value`), which these would split or break",
                id_path.display()
            );
        }
    }
    let sample_path = new.join("sample.json");
    let sample: SampleFile = parse(
        &sample()?,
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
    let declared = match &id.throughput {
        None | Some(serde_json::Value::Null) => Declared::Nothing,
        Some(t) => declared(t).map_err(|why| {
            anyhow::anyhow!(
                "`{}`: `throughput` is `{t}`, {why}; re-run the benchmark, or remove its directory `{}`",
                id_path.display(),
                new.parent().unwrap_or(new).display()
            )
        })?,
    };
    let bytes = match declared {
        Declared::Bytes(b) => Some(b),
        Declared::Nothing | Declared::OddBits(_) => None,
    };
    if let Some(b) = bytes.filter(|&b| b > MAX_BYTES) {
        bail!(
            "`{}`: `throughput` declares {b} bytes per iteration, more than 2^53: not a benchmark's message length",
            id_path.display()
        );
    }
    let mut operation = id
        .function_id
        .as_deref()
        .map_or_else(|| "bench".into(), crate::name::one_word);
    // A parameter that is the byte count becomes `len`; any other stays in the name.
    if let Some(v) = id.value_str.as_deref().map(crate::name::one_word)
        && bytes.map(|b| b.to_string()) != Some(v.clone())
    {
        operation = format!("{operation}/{v}");
    }
    let params = bytes.map_or_else(Params::new, |b| Params::new().with(Param::Len, b));
    let odd_bits = match declared {
        Declared::OddBits(b) => Some(b),
        _ => None,
    };
    let case = ImportedCase {
        case: Case {
            implementation: group_id,
            operation,
            params,
            lanes: 1,
        },
        per_process: vec![per_iteration],
        calls_per_sample: None,
        message: None,
    };
    Ok((case, odd_bits))
}

/// The message length criterion's `throughput` declares, or why it is unreadable.
/// Elements are not bytes; bits are, eight to one.
fn declared(t: &serde_json::Value) -> Result<Declared, String> {
    let t: Throughput = serde_json::from_value(t.clone())
        .map_err(|e| format!("not a throughput criterion writes ({e})"))?;
    let bytes = match t {
        Throughput::Elements(_) => return Ok(Declared::Nothing),
        Throughput::Bits(b) if b % 8 != 0 => return Ok(Declared::OddBits(b)),
        Throughput::Bits(b) => b / 8,
        Throughput::Bytes(b)
        | Throughput::BytesDecimal(b)
        | Throughput::ElementsAndBytes { bytes: b, .. } => b,
    };
    // criterion divides by it without a word; here it would be a case of no bytes,
    // with no per-byte figure and a throughput of 0.
    if bytes == 0 {
        return Err(
            "0 bytes per iteration, so no figure per byte follows (a benchmark of no input declares no throughput)"
                .into(),
        );
    }
    Ok(Declared::Bytes(bytes))
}

/// What a file of criterion's says the unit of a benchmark's figures is.
#[derive(Debug, PartialEq)]
pub(crate) enum UnitSaid {
    Known(CriterionUnit),
    /// A unit that is neither time nor cycles, as the file names it.
    Unknown(String),
}

/// The unit this benchmark's figures are in, from criterion's `raw.csv` (written with
/// its `csv_output` feature) or, failing that, its HTML report; with the file that says it.
fn unit_said(new: &Path) -> Result<Option<(UnitSaid, PathBuf)>> {
    let csv = new.join("raw.csv");
    if csv.is_file() {
        let text =
            fs::read_to_string(&csv).with_context(|| format!("cannot read `{}`", csv.display()))?;
        return unit_in_raw_csv(&text)
            .map(|u| Some((u, csv.clone())))
            .map_err(|why| {
                anyhow::anyhow!("`{}` is not criterion's raw.csv: {why}", csv.display())
            });
    }
    let Some(bench) = new.parent() else {
        return Ok(None);
    };
    let path = bench.join("report").join("index.html");
    let Ok(html) = fs::read_to_string(&path) else {
        return Ok(None);
    };
    Ok(Some((unit_in_report(&html), path)))
}

/// The unit column of criterion's raw.csv: `group,function,value,throughput_num,
/// throughput_type,sample_measured_value,unit,iteration_count`, one row per sample. The
/// first columns are names that may hold commas (quoted); the last two never do.
pub(crate) fn unit_in_raw_csv(text: &str) -> Result<UnitSaid, String> {
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default().trim();
    if !header.ends_with(",unit,iteration_count") {
        return Err(format!(
            "its first line, `{header}`, does not end with the columns `unit,iteration_count`"
        ));
    }
    let row = lines.next().ok_or("it has no row")?;
    let mut from_end = row.trim().rsplit(',');
    let unit = from_end.nth(1).ok_or("its first row has no unit column")?;
    Ok(match unit {
        "ns" => UnitSaid::Known(CriterionUnit::Ns),
        "cycles" => UnitSaid::Known(CriterionUnit::Cycles),
        other => UnitSaid::Unknown(format!("`{other}`")),
    })
}

/// The unit criterion's HTML report prints its figures in.
pub(crate) fn unit_in_report(html: &str) -> UnitSaid {
    let has = |suffixes: &[&str]| suffixes.iter().any(|s| html.contains(&format!(" {s}<")));
    if has(&["cycles", "cpb"]) {
        UnitSaid::Known(CriterionUnit::Cycles)
    } else if has(&["ps", "ns", "µs", "us", "ms", "s"]) {
        UnitSaid::Known(CriterionUnit::Ns)
    } else {
        UnitSaid::Unknown("a unit not recognised".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared_by(json: &str) -> Result<Declared, String> {
        declared(&serde_json::from_str(json).unwrap())
    }

    #[test]
    fn the_unit_of_raw_csv_is_its_unit_column() {
        let header = "group,function,value,throughput_num,throughput_type,sample_measured_value,unit,iteration_count\n";
        for (row, said) in [
            (
                "xor,\"a,b\",64,64,bytes,1234.5,ns,10\n",
                UnitSaid::Known(CriterionUnit::Ns),
            ),
            (
                "xor,f,,,,1234.5,cycles,10\n",
                UnitSaid::Known(CriterionUnit::Cycles),
            ),
            (
                "xor,f,,,,1234.5,instructions,10\n",
                UnitSaid::Unknown("`instructions`".into()),
            ),
        ] {
            assert_eq!(
                unit_in_raw_csv(&format!("{header}{row}")),
                Ok(said),
                "{row}"
            );
        }
        assert!(
            unit_in_raw_csv("a,b\n1,2\n")
                .unwrap_err()
                .contains("`unit,iteration_count`")
        );
        assert_eq!(unit_in_raw_csv(header), Err("it has no row".into()));
    }

    #[test]
    fn a_report_in_an_unknown_unit_is_not_taken_for_ns() {
        assert_eq!(
            unit_in_report("<td>1234.0000 instructions</td>"),
            UnitSaid::Unknown("a unit not recognised".into())
        );
        assert_eq!(
            unit_in_report("<td>12.3 ns</td>"),
            UnitSaid::Known(CriterionUnit::Ns)
        );
    }

    #[test]
    fn throughput_in_bytes_in_every_shape_criterion_writes() {
        assert_eq!(declared_by(r#"{"Bytes": 1024}"#), Ok(Declared::Bytes(1024)));
        assert_eq!(
            declared_by(r#"{"BytesDecimal": 64}"#),
            Ok(Declared::Bytes(64))
        );
        assert_eq!(
            declared_by(r#"{"ElementsAndBytes": {"elements": 1, "bytes": 32}}"#),
            Ok(Declared::Bytes(32))
        );
        assert_eq!(declared_by(r#"{"Bits": 256}"#), Ok(Declared::Bytes(32)));
        assert_eq!(declared_by(r#"{"Bits": 12}"#), Ok(Declared::OddBits(12)));
        assert_eq!(declared_by(r#"{"Elements": 8}"#), Ok(Declared::Nothing));
    }

    #[test]
    fn unreadable_throughput_is_an_error_not_nothing() {
        for (json, says) in [
            (r#"{"Bytes": "1024"}"#, "invalid type: string"),
            (r#"{"Bytes": -1024}"#, "invalid value: integer `-1024`"),
            (r#"{"Bytes": 1.5}"#, "invalid type: floating point"),
            (r#"{"Kilobytes": 1}"#, "unknown variant `Kilobytes`"),
            (
                r#"{"ElementsAndBytes": {"elements": 1}}"#,
                "missing field `bytes`",
            ),
            (
                r#"{"Bytes": 1, "Elements": 1}"#,
                "not a throughput criterion writes",
            ),
            ("1024", "not a throughput criterion writes"),
            (r#"{"Bytes": 0}"#, "0 bytes per iteration"),
            (r#"{"Bits": 0}"#, "0 bytes per iteration"),
            (
                r#"{"ElementsAndBytes": {"elements": 4, "bytes": 0}}"#,
                "0 bytes",
            ),
        ] {
            let why = declared_by(json).expect_err(json);
            assert!(why.contains(says), "{json}: {why}");
        }
    }
}
