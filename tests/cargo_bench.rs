//! The `cargo bench` harness as a third-party crate meets it: `examples/cargo-bench`, a
//! crate outside the workspace with its own lock file, built and run by cargo itself.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/cargo-bench")
}

/// One test at a time: a build in one (both CPUs busy) must not run beside another's
/// measurement, which a regression gate then reads.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `cargo ARGS` in the example crate, its builds kept under this workspace's target.
fn cargo(args: &[&str], vars: &[(&str, &str)]) -> Output {
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/example-cargo-bench");
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    // cargo's own options before the subcommand's `--`, which passes the rest on.
    c.arg(args[0])
        .arg("--locked")
        .arg("--target-dir")
        .arg(&target)
        .args(&args[1..])
        .current_dir(example())
        .env_remove("CRYPTOBENCH_DB")
        .env_remove("CRYPTOBENCH_TESTBED");
    for (k, v) in vars {
        c.env(k, v);
    }
    c.output().expect("run cargo")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn cargo_test_benches_runs_every_gate_and_refuses_a_planted_bug() {
    let _serial = serial();
    let out = cargo(&["test", "--benches"], &[]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    // cargo shows a path dependency's warnings in every build of the author's crate (and
    // replays them from its cache): cryptobench's must build clean without its
    // `postgres` feature, which only the CLI turns on.
    assert!(!said.contains("warning: `cryptobench"), "{said}");
    for imp in [
        "rustcrypto/chacha20",
        "rustcrypto/chacha20-rng",
        "rand_chacha/chacha20-rng",
        "example/chacha20",
    ] {
        assert!(said.contains(&format!("test {imp} ... verified")), "{said}");
    }
    // A new algorithm with its own vector and no reference function is checked in part.
    assert!(
        said.contains("test example/toy-xorshift ... checked in part: no reference function"),
        "{said}"
    );
    assert!(said.contains("nothing timed"), "{said}");

    // libtest's options, as CI jobs pass them to every target, are taken.
    let out = cargo(
        &[
            "test",
            "--benches",
            "--",
            "--nocapture",
            "--test-threads=1",
            "--exact",
            "rustcrypto/chacha20",
        ],
        &[],
    );
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("test rustcrypto/chacha20 ... verified"),
        "{said}"
    );
    assert!(said.contains("1 implementation checked"), "{said}");
    // A CI job's variables left empty are unset, not refused.
    let out = cargo(
        &["test", "--benches", "--", "--list"],
        &[("CRYPTOBENCH_DB", ""), ("CRYPTOBENCH_TESTBED", "")],
    );
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("example/toy-xorshift: test"), "{said}");

    let out = cargo(&["test", "--benches"], &[("CHACHA_BENCH_PLANT_WRONG", "1")]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("test planted/chacha20 ... WRONG OUTPUT"),
        "{said}"
    );
    assert!(
        !said.contains("WRONG OUTPUT: wrong output"),
        "said twice: {said}"
    );

    // Wrong at one length the bench measures (8192) and right at the gate's own: refused
    // where it is measured, right where it is not.
    let wrong_at = |sizes: &str| {
        cargo(
            &["test", "--benches", "--", "wrong-at/", "--sizes", sizes],
            &[("CHACHA_BENCH_PLANT_WRONG_AT", "1")],
        )
    };
    let out = wrong_at("1024,8192");
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("test wrong-at/chacha20 ... WRONG OUTPUT: 8192-byte message"),
        "{said}"
    );
    let out = wrong_at("1024");
    assert!(out.status.success(), "{}", text(&out));

    // The gate calls an implementation at its vectors' lengths; one that dies at a length
    // the bench measures (4000) fails here, with its case, not first under `cargo bench`.
    let crashing = |sizes: &str| {
        cargo(
            &["test", "--benches", "--", "crashing/", "--sizes", sizes],
            &[("CHACHA_BENCH_PLANT_CRASH", "1")],
        )
    };
    let out = crashing("1024,2048");
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("test crashing/chacha20 ... verified"),
        "{said}"
    );
    let out = crashing("1024,4000");
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("test crashing/chacha20 ... FAILED: xor len=4000: the call crashed (killed by signal 6 (SIGABRT)"),
        "{said}"
    );

    // A filter meant for another target (`cargo test --all-targets -- a_unit_test`) runs
    // nothing here, as libtest's, and fails nothing; libtest's --skip, --no-capture and
    // --format are taken.
    let out = cargo(&["test", "--benches", "--", "nothing-matches"], &[]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(
            "nothing checked: `nothing-matches` matches no implementation of this bench (it has rustcrypto/chacha20,"
        ),
        "{said}"
    );
    let out = cargo(
        &[
            "test",
            "--benches",
            "--",
            "--no-capture",
            "--format",
            "terse",
            "--skip",
            "example/",
            "--skip",
            "chacha20-rng",
        ],
        &[],
    );
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("1 implementation checked"), "{said}");
    assert!(
        said.contains("test rustcrypto/chacha20 ... verified"),
        "{said}"
    );

    // One name registered twice is refused in one line, before anything runs.
    let out = cargo(&["test", "--benches"], &[("CHACHA_BENCH_PLANT_TWICE", "1")]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("error: this bench registers example/chacha20 more than once"),
        "{said}"
    );
    assert!(!said.contains("panicked"), "{said}");

    // Mistakes in the bench's own code, each once passed in silence: a comparison of a
    // misspelt name was left out of the report, a name with a space was stored, and no
    // size at all made an empty run and a gate that checked nothing.
    for (mistake, said_first) in [
        (
            "compare",
            "error: .compare(\"rand_chacha/chacha20-rgn\", \"rustcrypto/chacha20-rng\"): this bench registers no `rand_chacha/chacha20-rgn`; it has rustcrypto/chacha20,",
        ),
        (
            "name",
            "error: this bench registers `my crate/chacha20`: its provider must be non-empty without",
        ),
        ("sizes", "error: Bench::sizes was given no length"),
        (
            "bench-name",
            "error: Bench::new(\"\"): a bench needs a name",
        ),
        (
            "size-zero",
            "error: Bench::sizes([0, 64]): a size must be at least 1 byte",
        ),
    ] {
        let out = cargo(
            &["test", "--benches"],
            &[("CHACHA_BENCH_PLANT_MISTAKE", mistake)],
        );
        let said = text(&out);
        assert!(!out.status.success(), "{said}");
        assert!(said.contains(said_first), "{mistake}: {said}");
        assert!(
            !said.contains("verified"),
            "refused before the gates: {said}"
        );
    }
}

#[test]
fn cargo_bench_measures_stores_and_refuses_unknown_options() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let quick = [
        "bench",
        "--",
        "chacha20-rng",
        "--sizes",
        "1024",
        "--samples",
        "24",
        "--processes",
        "6",
        "--layouts",
        "1",
        "--format",
        "json",
        "--db",
    ];
    let mut args = quick.to_vec();
    args.push(db.to_str().unwrap());
    let out = cargo(&args, &[]);
    assert!(out.status.success(), "{}", text(&out));
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    let measured: Vec<&str> = json["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        measured,
        [
            "rustcrypto/chacha20-rng/fill_bytes len=1024",
            "rand_chacha/chacha20-rng/fill_bytes len=1024"
        ]
    );
    assert_eq!(json["comparisons"].as_array().unwrap().len(), 1);
    assert!(json["results"][0]["verified"].as_bool().unwrap());
    // The target `cargo bench --bench` takes, found in the example's Cargo.toml.
    assert_eq!(json["options"]["run"]["bench_target"], "chacha", "{json}");
    assert!(db.exists(), "the run is stored");
    let said = String::from_utf8_lossy(&out.stderr);
    let db_path = db.display().to_string();
    assert!(
        said.contains(&format!(
            "stored as run 1 in {db_path} (`cryptobench history --db {db_path}`, `cryptobench report 1 --db {db_path}`)"
        )),
        "{said}"
    );

    // A store named in a directory that does not exist is refused, not made there.
    let missing = dir.path().join("no-such-dir/x.db");
    let out = cargo(&["bench", "--", "--db", missing.to_str().unwrap()], &[]);
    assert!(
        text(&out).contains("cannot open the result store"),
        "{}",
        text(&out)
    );
    assert!(!missing.parent().unwrap().exists());

    // CRYPTOBENCH_DB, as the CLI's, names the store: a server's URL there is refused in
    // one line that blames the variable, not a --db never typed, and hides the password.
    let out = cargo(
        &["bench", "--", "example/toy", "--sizes", "64"],
        &[("CRYPTOBENCH_DB", "postgres://u:pw@127.0.0.1/db")],
    );
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("error: `CRYPTOBENCH_DB=postgres://u:***@127.0.0.1")
            && said.contains("a `cargo bench` harness stores into an SQLite file only"),
        "{said}"
    );
    assert!(
        !said.contains(":pw@") && !said.contains("--db postgres"),
        "{said}"
    );

    // One line, without clap's usage or its tip to write `-- --bogus` (a filter here).
    let out = cargo(&["bench", "--", "--bogus"], &[]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains(
            "error: unexpected argument '--bogus' found; usage: cargo bench -- [OPTIONS]"
        ),
        "{said}"
    );
    assert!(said.contains("(exit status: 2)"), "{said}");
    for clap_said in ["tip:", "Usage:", "For more information"] {
        assert!(!said.contains(clap_said), "{said}");
    }

    // The checks `cryptobench run` makes before measuring, made here too: a gate that
    // could only pass, a baseline name that reads as a run id, cases larger than this
    // machine's memory and a report that cannot be written are refused first.
    for (args, said) in [
        (
            &[
                "--baseline",
                "main",
                "--fail-on-regression",
                "--processes",
                "2",
            ][..],
            "--fail-on-regression with --processes 2",
        ),
        (
            &[
                "--baseline",
                "main",
                "--fail-on-regression",
                "--significance",
                "0.001",
                "--processes",
                "6",
            ][..],
            "cannot give a 99.9 % interval of a change at --significance 0.001",
        ),
        (
            &["--significance", "1.5"][..],
            "is not a probability between 0 and 1",
        ),
        (&["--save-baseline", "7"][..], "--save-baseline \"7\""),
        (
            &["--sizes", "1GiB", "--layouts", "256"][..],
            "256 layouts of 1 GiB need about",
        ),
        (
            &["--html", "/proc/report.html"][..],
            "cannot create a file in `/proc`",
        ),
        (
            &["--against", "rustcrypto/chacha20"][..],
            "--against `rustcrypto/chacha20`: that implementation is not part of this run; name it too (a target of `run`, a filter of `cargo bench`)",
        ),
    ] {
        let mut all = vec!["bench", "--", "example/toy"];
        all.extend(args);
        let out = cargo(&all, &[]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains(said), "{}", text(&out));
        assert!(
            !text(&out).contains("cryptobench run"),
            "nothing measured: {}",
            text(&out)
        );
    }
}

#[test]
fn a_planted_twofold_slowdown_fails_the_gate_against_a_baseline() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gate.db");
    let db = db.to_str().unwrap();
    let run = |extra: &[&str], vars: &[(&str, &str)]| {
        let mut args = vec![
            "bench",
            "--",
            "example/chacha20",
            "--sizes",
            "1024",
            "--samples",
            "48",
            "--processes",
            "6",
            "--layouts",
            "1",
            // Between the plant's +100 % and the same code's 0 % on a log scale: at the
            // default 1 %, the same code measured while the host is busier than it was for
            // the baseline, in a way the canary does not see, is called regressed (exit 3).
            "--noise-threshold",
            "40",
            "--format",
            "json",
            "--db",
            db,
        ];
        args.extend(extra);
        cargo(&args, vars)
    };
    let saved = run(&["--save-baseline", "main", "--force-baseline"], &[]);
    assert!(saved.status.success(), "{}", text(&saved));
    // The same code again: no regression (or, on a host that moved, no decision).
    let same = run(&["--baseline", "main", "--fail-on-regression"], &[]);
    assert!(
        matches!(same.status.code(), Some(0) | Some(4)),
        "{}",
        text(&same)
    );
    // Twice the work, the same output: the gate fails it (3), unless the host moved so
    // much that it cannot decide (4).
    let slow = run(
        &["--baseline", "main", "--fail-on-regression"],
        &[("CHACHA_BENCH_PLANT_SLOW", "1")],
    );
    assert!(
        matches!(slow.status.code(), Some(3) | Some(4)),
        "{}",
        text(&slow)
    );
    if slow.status.code() == Some(3) {
        let json: serde_json::Value = serde_json::from_slice(&slow.stdout).unwrap();
        assert_eq!(
            json["against_baseline"]["comparisons"][0]["verdict"], "regressed",
            "{json}"
        );
    }
}

/// The `catalog` feature: a bench's own implementation measured beside the CLI's
/// catalog (`examples/bench_catalog.rs`, an example of this crate, built with its tests).
#[test]
fn a_bench_with_the_catalog_measures_its_own_beside_the_catalogs() {
    let _serial = serial();
    let exe = std::env::current_exe()
        .unwrap()
        .ancestors()
        .nth(2)
        .unwrap()
        .join("examples/bench_catalog");
    let run = |args: &[&str]| {
        let out = Command::new(&exe)
            .args(args)
            .env_remove("CRYPTOBENCH_DB")
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
        (out.status.success(), text(&out), out.stdout)
    };
    let (ok, said, _) = run(&["mine/", "openssl/chacha20/"]);
    assert!(ok, "{said}");
    assert!(said.contains("test mine/chacha20 ... verified"), "{said}");
    // An AEAD of the bench's own meets the catalog's AEAD gate (known answers, tag
    // checks, forgeries refused).
    assert!(
        said.contains("test mine/chacha20-poly1305 ... verified"),
        "{said}"
    );
    assert!(
        said.contains("test openssl/chacha20 ... verified"),
        "{said}"
    );

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("catalog.db");
    // A short measured run of `filters` against `against`, as JSON.
    let measure = |filters: &[&str], against: &str| {
        let mut args = filters.to_vec();
        args.extend([
            "--bench",
            "--sizes",
            "1024",
            "--samples",
            "24",
            "--processes",
            "6",
            "--layouts",
            "1",
            "--against",
            against,
            "--format",
            "json",
            "--db",
            db.to_str().unwrap(),
        ]);
        run(&args)
    };
    let (ok, said, stdout) = measure(&["mine/", "openssl/chacha20/"], "openssl/chacha20");
    assert!(ok, "{said}");
    let json: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    let comparisons = json["comparisons"].as_array().unwrap();
    assert_eq!(comparisons.len(), 1, "{json}");
    assert_eq!(comparisons[0]["candidate"], "mine/chacha20");
    assert_eq!(comparisons[0]["baseline"], "openssl/chacha20");

    // "Mine against ring's ChaCha20-Poly1305": both operations, compared interleaved.
    let (ok, said, stdout) = measure(
        &["mine/chacha20-poly1305/", "ring/chacha20-poly1305/"],
        "ring/chacha20-poly1305",
    );
    assert!(ok, "{said}");
    let json: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    let comparisons = json["comparisons"].as_array().unwrap();
    let operations: Vec<&str> = comparisons
        .iter()
        .inspect(|c| {
            assert_eq!(c["candidate"], "mine/chacha20-poly1305", "{json}");
            assert_eq!(c["baseline"], "ring/chacha20-poly1305", "{json}");
        })
        .map(|c| c["operation"].as_str().unwrap())
        .collect();
    assert_eq!(operations, ["encrypt", "decrypt"], "{json}");
    // The run's libraries: ring's, of the catalog's measured; the bench's own are its own.
    let libraries = json["machine"]["build"]["libraries"].as_array().unwrap();
    let names: Vec<&str> = libraries
        .iter()
        .filter_map(|l| l["name"].as_str())
        .collect();
    assert_eq!(names, ["ring"], "{json}");
}

#[test]
fn an_implementation_that_crashes_when_timed_fails_its_case_alone() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crash.db");
    let out = cargo(
        &[
            "bench",
            "--",
            "crashing/",
            "example/chacha20",
            "--sizes",
            "4000",
            "--samples",
            "12",
            "--processes",
            "2",
            "--layouts",
            "1",
            "--format",
            "json",
            "--db",
            db.to_str().unwrap(),
        ],
        &[("CHACHA_BENCH_PLANT_CRASH", "1")],
    );
    // Exit 1: a case failed; the run and its report are still there.
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let status = |id: &str| {
        json["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["implementation"] == id)
            .map(|r| r["status"].as_str().unwrap().to_string())
    };
    assert_eq!(
        status("crashing/chacha20").as_deref(),
        Some("failed"),
        "{json}"
    );
    assert_eq!(status("example/chacha20").as_deref(), Some("ok"), "{json}");
    assert!(db.exists());
}

/// docs/cargo-bench.md shows the example's bench, shortened where `…` stands: every other
/// line of its Rust block is in the file, in that order, so the page shows code that runs.
#[test]
fn the_bench_the_docs_show_is_the_one_the_tests_run() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/cargo-bench.md")).unwrap();
    let shown = doc
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("a Rust block in docs/cargo-bench.md");
    let source = std::fs::read_to_string(example().join("benches/chacha.rs")).unwrap();
    let mut lines = source.lines();
    for line in shown.lines().filter(|l| l.trim() != "…") {
        assert!(
            lines.any(|l| l == line),
            "docs/cargo-bench.md shows `{line}`, which examples/cargo-bench/benches/chacha.rs does not have there"
        );
    }
}
