//! Spook, written for this project in C: every variant this CPU can run against the LWC
//! known-answer files (all four), the primitive vectors and the portable build, and the
//! same variants through cryptobench's own manifest path.

use std::path::Path;
use std::process::Command;

/// `$SPOOK_KAT_DIR`, else `../shared/kat/spook` beside the repository (the files are not
/// ours to copy in). Without them these tests skip; `scripts/test.sh` says so up front,
/// since libtest hides a passing test's output.
fn kat_dir() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("SPOOK_KAT_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/kat/spook"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED: {} not found: the Spook known-answer tests need it",
            dir.display()
        );
        None
    }
}

#[test]
fn every_runnable_variant_passes_the_known_answers() {
    let Some(kat) = kat_dir() else { return };
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("implementations/c/spook/test/run_tests.sh");
    let out = Command::new("bash")
        .arg(&script)
        .arg(&kat)
        .output()
        .expect("run the Spook test script");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "Spook KAT script failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // "summary: P passed, F failed, S skipped (...)"
    let summary = stdout
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("summary: "))
        .unwrap_or_else(|| panic!("no summary line in:\n{stdout}"));
    let count = |what: &str| -> u64 {
        summary
            .split(", ")
            .find_map(|part| {
                let mut words = part.split_whitespace();
                let n = words.next()?.parse().ok()?;
                (words.next() == Some(what)).then_some(n)
            })
            .unwrap_or_else(|| panic!("no `{what}` count in `{summary}`"))
    };
    assert_eq!(count("failed"), 0, "{stdout}");
    assert!(count("passed") > 0, "nothing was checked: {stdout}");
}

#[test]
fn the_spook_files_parse() {
    let Some(kat) = kat_dir() else { return };
    let v = cryptobench::cimpl::kat::read(&kat.join("spook128su512v1_LWC_AEAD_KAT_128_128.txt"))
        .unwrap();
    assert_eq!(v.len(), 1089);
    assert_eq!(v[0].ciphertext.len(), 16);
}

#[test]
fn the_manifest_path_verifies_every_variant_against_the_kat_files() {
    let Some(kat) = kat_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let manifest =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("implementations/c/spook/manifest.toml");
    let out = Command::new(env!("CARGO_BIN_EXE_cryptobench"))
        .args([
            "run",
            manifest.to_str().unwrap(),
            "--sizes",
            "64",
            "--format",
            "json",
        ])
        .args([
            "--samples",
            "8",
            "--processes",
            "1",
            "--layouts",
            "1",
            "--kat-dir",
            kat.to_str().unwrap(),
        ])
        .env("CRYPTOBENCH_DB", dir.path().join("s.db"))
        .env("CRYPTOBENCH_CACHE", dir.path().join("cache"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = run["results"].as_array().unwrap();
    assert!(results.len() >= 40, "{} cases", results.len());
    let mut ok = 0;
    for r in results {
        let status = r["status"].as_str().unwrap();
        assert!(status == "ok" || status == "unsupported", "{r}");
        if status == "ok" {
            ok += 1;
            assert_eq!(r["verified"], true);
            assert!(r.get("message").is_none(), "a check was skipped: {r}");
        }
    }
    // The portable build runs anywhere: some variant was checked.
    assert!(ok > 0, "every case unsupported: {run}");
}
