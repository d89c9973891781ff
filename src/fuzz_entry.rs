//! Entry points for the fuzz targets (`fuzz/fuzz_targets/`) and for the test that
//! replays their corpora (`tests/fuzz_corpus.rs`): not an API.
//!
//! Each takes one input as bytes and hands it to the real parser, as the file it reads
//! would (text that is not UTF-8 stops where `read_to_string` would refuse it). Where a
//! parser reads several texts (a criterion benchmark's two files, a stored run's
//! columns) the input holds them separated by NUL bytes. What a parser accepts is then
//! used as its callers use it, and where its module promises a round trip (sizes,
//! names) that is asserted too: a panic anywhere is a bug found.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::cimpl::{Manifest, kat};
use crate::import::{criterion, openssl_speed};
use crate::name::ImplName;
use crate::record::CaseStatus;
use crate::size::{format_size, parse_bytes};
use crate::store::{RunRow, decode_params, decode_samples};

/// A target's entry point: one input, parsed; it returns only if nothing panicked.
pub type Entry = fn(&[u8]);

/// Every target, by the name of its folders under `fuzz/corpus/` and `fuzz/regressions/`
/// and of its file in `fuzz/fuzz_targets/`.
pub const TARGETS: &[(&str, Entry)] = &[
    ("manifest", manifest),
    ("kat", kat),
    ("criterion_benchmark", criterion_benchmark),
    ("criterion_raw_csv", criterion_raw_csv),
    ("criterion_report", criterion_report),
    ("openssl_speed", openssl_speed),
    ("size", size),
    ("name", name),
    ("store_run", store_run),
    ("store_case", store_case),
    ("store_samples", store_samples),
];

/// The first `n - 1` NUL-separated parts of `data` and the rest as the last; `None`
/// where there are fewer than `n` or one is not UTF-8.
fn parts(data: &[u8], n: usize) -> Option<Vec<&str>> {
    let parts: Vec<&str> = data
        .splitn(n, |&b| b == 0)
        .map(std::str::from_utf8)
        .collect::<Result<_, _>>()
        .ok()?;
    (parts.len() == n).then_some(parts)
}

/// Where the manifest target's input is read as being: `fuzz/manifest-dir/`, which
/// holds empty files named as the sources of the repository's manifests, so that an
/// input gets past the check that its sources exist to the checks after it.
pub fn manifest_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/manifest-dir/manifest.toml")
}

/// A C manifest, as `Manifest::load` reads and checks it (not compiled).
pub fn manifest(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(m) = Manifest::from_toml(text, &manifest_path()) {
        let _ = m.targets();
        for i in &m.implementations {
            if let Some(k) = &i.kat {
                let _ = m.kat_path(k, None);
            }
        }
    }
}

/// A NIST LWC genkat_aead KAT file, then checked against the sizes of its first entry,
/// and against sizes an `api.h` may give whatever the file says (a `#define` of -1 is
/// 2^64 - 1 by the time cryptobench reads it from the build).
pub fn kat(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(vectors) = kat::parse(text) {
        let first = &vectors[0];
        let key = first.key.len() as u64;
        let nonce = first.nonce.len() as u64;
        let tag = first.ciphertext.len().saturating_sub(first.plaintext.len()) as u64;
        for abytes in [tag, 0, u64::MAX, u64::MAX - tag] {
            let sizes: BTreeMap<&str, u64> = [
                ("CRYPTO_KEYBYTES", key),
                ("CRYPTO_NPUBBYTES", nonce),
                ("CRYPTO_ABYTES", abytes),
            ]
            .into();
            let _ = kat::check_lengths(&vectors, &sizes, "api.h");
        }
    }
}

/// A criterion benchmark: `benchmark.json`, NUL, `sample.json`.
pub fn criterion_benchmark(data: &[u8]) {
    let Some(p) = parts(data, 2) else {
        return;
    };
    let new = Path::new("fuzz/criterion/group/bench/new");
    if let Ok((case, _)) = criterion::benchmark_from_json(new, p[0], || Ok(p[1].to_string())) {
        let _ = case.case.key();
    }
}

/// criterion's `raw.csv`, for its unit column.
pub fn criterion_raw_csv(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = criterion::unit_in_raw_csv(text);
    }
}

/// criterion's HTML report (`report/index.html`), for the unit it prints.
pub fn criterion_report(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = criterion::unit_in_report(text);
    }
}

/// The output of `openssl speed -mr`.
pub fn openssl_speed(data: &[u8]) {
    let _ = openssl_speed::parse(data, Path::new("fuzz/openssl-speed.txt"), || None);
}

/// A size with a unit, as `run --len` and `bulk --sizes` take it, and a thread count;
/// a size read prints as one that reads back the same.
pub fn size(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(bytes) = parse_bytes(text) {
        let printed = format_size(bytes);
        assert_eq!(
            parse_bytes(&printed),
            Ok(bytes),
            "{text:?} printed as {printed:?}"
        );
    }
    let _ = crate::bulk::size::parse_size(text);
    let _ = crate::bulk::size::parse_threads(text);
}

/// An implementation's name, which writes back unchanged (as `ImplName::parse` says).
pub fn name(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let name = ImplName::parse(text);
    assert_eq!(name.to_string(), text, "{name:?}");
    let _ = name.family().to_string();
    let _ = name.without_provider().to_string();
}

/// A stored run's typed columns: status, NUL, counter, NUL, `machine_json`, NUL,
/// `options_json`.
pub fn store_run(data: &[u8]) {
    let Some(p) = parts(data, 4) else {
        return;
    };
    let row = RunRow {
        id: 1,
        started_at: "2026-01-01T00:00:00Z".into(),
        finished_at: None,
        status: p[0].into(),
        experiment: "fuzz".into(),
        tool_version: "0".into(),
        git_revision: None,
        counter: p[1].into(),
        unit: "ns".into(),
        tsc_hz: None,
        cpu_model: "fuzz".into(),
        machine_json: p[2].into(),
        options_json: p[3].into(),
    };
    if let Ok(header) = row.decode() {
        let _ = header.imported();
        let _ = header.machine.warnings();
        let _ = header.machine.core_clock_hz();
        let _ = header.counter.short_unit();
        let _ = header.counter.to_string();
    }
}

/// A stored case's typed columns: status, NUL, `params_json`.
pub fn store_case(data: &[u8]) {
    let Some(p) = parts(data, 2) else {
        return;
    };
    let _ = CaseStatus::parse(p[0]);
    if let Ok(params) = decode_params(p[1]) {
        let _ = params.to_string();
    }
}

/// A stored cluster of samples (the `samples` blob).
pub fn store_samples(data: &[u8]) {
    if let Ok(samples) = decode_samples(data, 1) {
        let _ = samples.count();
    }
}
