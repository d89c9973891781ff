//! Every input kept from the fuzzing campaigns (docs/fuzzing.md), replayed through the
//! entry points the fuzz targets call: the corpora under `fuzz/corpus/TARGET/` and the
//! inputs that once crashed a parser, kept under `fuzz/regressions/TARGET/`. None may
//! panic; a parser's error is fine. Runs on stable, without cargo-fuzz.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use cryptobench::fuzz_entry::TARGETS;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// The files of `dir`, sorted; none where it does not exist.
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

#[test]
fn every_kept_fuzz_input_is_parsed_without_a_panic() {
    // The panic hook would print every caught panic's message: say them once, below.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failed = Vec::new();
    let mut replayed = 0;
    for (target, entry) in TARGETS {
        let corpus = files(&fuzz_dir().join("corpus").join(target));
        assert!(
            !corpus.is_empty(),
            "fuzz/corpus/{target} holds no inputs: every target keeps its corpus"
        );
        let regressions = files(&fuzz_dir().join("regressions").join(target));
        for file in corpus.iter().chain(&regressions) {
            let data = std::fs::read(file).unwrap();
            if let Err(e) = catch_unwind(AssertUnwindSafe(|| entry(&data))) {
                let why = e
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| e.downcast_ref::<&str>().copied())
                    .unwrap_or("(a panic without a message)");
                failed.push(format!("{target}: {}: {why}", file.display()));
            }
            replayed += 1;
        }
    }
    std::panic::set_hook(hook);
    assert!(
        failed.is_empty(),
        "{} of {replayed} inputs panicked:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn every_target_has_a_fuzz_target_and_every_folder_a_target() {
    for (target, _) in TARGETS {
        let source = fuzz_dir().join("fuzz_targets").join(format!("{target}.rs"));
        let text = std::fs::read_to_string(&source)
            .unwrap_or_else(|e| panic!("{}: {e}", source.display()));
        assert!(
            text.contains(&format!("cryptobench::fuzz_entry::{target}(data)")),
            "{} does not call fuzz_entry::{target}",
            source.display()
        );
    }
    for folder in ["corpus", "regressions"] {
        let Ok(dirs) = std::fs::read_dir(fuzz_dir().join(folder)) else {
            continue;
        };
        for dir in dirs {
            let dir = dir.unwrap();
            if !dir.path().is_dir() {
                continue;
            }
            let name = dir.file_name();
            assert!(
                TARGETS.iter().any(|(t, _)| name == *t),
                "fuzz/{folder}/{} is no target's",
                name.to_string_lossy()
            );
        }
    }
}
