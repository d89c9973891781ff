//! Reports of stored runs do not change under the code: every run of a store written by
//! schema 2 (measured, against a baseline, N-lane, ratio and slope, bulk, both imports, a
//! wrong implementation, an interrupted run), printed in every format, against the output
//! the build that wrote it printed. The store is copied first, so opening it (which may
//! migrate it) never touches the fixture.
//!
//! After a deliberate change to what reports print: `GOLDEN_BLESS=1 cargo test --test
//! golden` rewrites the expected files; review their diff before committing it.

mod common;

use std::path::{Path, PathBuf};

const FORMATS: &[&str] = &[
    "table",
    "md",
    "json",
    "csv",
    "html",
    "bencher",
    "github-action-benchmark",
];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden")
}

/// What a command printed, in one file: stdout, stderr, exit status.
fn printed(env: &common::Env, args: &[&str]) -> String {
    let out = env.cmd(args);
    format!(
        "{}--- stderr ---\n{}--- exit {} ---\n",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        out.status.code().map_or("signal".into(), |c| c.to_string()),
    )
}

#[test]
fn reports_of_a_stored_schema_2_store_print_as_they_did() {
    let env = common::Env::new();
    std::fs::copy(golden_dir().join("store.db"), env.db()).expect("copy the fixture store");

    let mut documents: Vec<(String, Vec<String>)> = Vec::new();
    for format in FORMATS {
        for run in 1..=9 {
            documents.push((
                format!("report-{run}.{format}"),
                vec![
                    "report".into(),
                    run.to_string(),
                    "--format".into(),
                    format.to_string(),
                ],
            ));
        }
        documents.push((
            format!("compare-1-2.{format}"),
            vec![
                "compare".into(),
                "1".into(),
                "2".into(),
                "--format".into(),
                format.to_string(),
            ],
        ));
    }
    for format in ["table", "json", "csv"] {
        documents.push((
            format!("history.{format}"),
            vec!["history".into(), "--format".into(), format.into()],
        ));
    }

    let bless = std::env::var_os("GOLDEN_BLESS").is_some_and(|v| v == "1");
    let mut differ = Vec::new();
    for (file, args) in &documents {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let got = printed(&env, &args);
        let path = golden_dir().join("expected").join(file);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (GOLDEN_BLESS=1 writes it)", path.display()));
        if got != want {
            let line = got
                .lines()
                .zip(want.lines())
                .position(|(g, w)| g != w)
                .unwrap_or_else(|| got.lines().count().min(want.lines().count()));
            differ.push(format!(
                "{file} (`cryptobench {}`), first at line {}:\n  got:  {:?}\n  want: {:?}",
                args.join(" "),
                line + 1,
                got.lines().nth(line).unwrap_or("<end>"),
                want.lines().nth(line).unwrap_or("<end>"),
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} documents print differently:\n{}",
        differ.len(),
        documents.len(),
        differ.join("\n")
    );
}
