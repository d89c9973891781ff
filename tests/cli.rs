//! The binary end to end: runs, the store round trip, the correctness gate, the worker's
//! isolation, comparisons and every kind of bad input.

mod common;

use serde_json::Value;
use std::path::Path;
use std::process::Command;

use common::assert_bad_input;
use common::{Env, WITH_INTERVALS};

/// Small, fast runs: the tests check behaviour, not figures.
/// Small runs; no re-measuring, so that what a test counts is what it asked for.
const QUICK: &[&str] = &[
    "--samples",
    "128",
    "--processes",
    "4",
    "--layouts",
    "2",
    "--remeasure-budget",
    "0",
];

fn with_quick<'a>(args: &[&'a str]) -> Vec<&'a str> {
    args.iter().chain(QUICK).copied().collect()
}

fn results(v: &Value) -> &Vec<Value> {
    v["results"].as_array().expect("results array")
}

fn result<'a>(v: &'a Value, implementation: &str) -> &'a Value {
    results(v)
        .iter()
        .find(|r| r["implementation"] == implementation)
        .unwrap_or_else(|| panic!("no result for {implementation}"))
}

/// A case that ended with `status` and says `says` in its message.
fn assert_case(case: &Value, status: &str, says: &str) {
    assert_eq!(case["status"], status, "{case}");
    let message = case["message"].as_str().unwrap_or_default();
    assert!(message.contains(says), "expected `{says}` in: {case}");
}

#[test]
fn seed_experiment_runs_verified_and_report_repeats_it() {
    let env = Env::new();
    // 6 processes, the fewest a 95 % interval is given for (ratios need them too).
    let run = env.json(&[&["run", "chacha20-rng", "--format", "json"], WITH_INTERVALS].concat());
    let rs = results(&run);
    assert_eq!(rs.len(), 15);
    for r in rs {
        assert_eq!(r["verified"], true, "{r}");
        let cpb = r["cpb"].as_f64().expect("cpb");
        let ci = r["cpb_ci95"].as_array().expect("interval");
        let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
        assert!(lo <= cpb && cpb <= hi, "{r}");
        assert!(cpb > 0.0 && cpb < 1000.0, "{r}");
        assert!(r["params"]["len"].as_u64().is_some());
        assert!(r["median_cycles"].as_f64().is_some());
        assert!(r["outliers"].is_object());
    }
    let sizes: Vec<u64> = rs
        .iter()
        .map(|r| r["params"]["len"].as_u64().unwrap())
        .collect();
    assert_eq!(&sizes[..5], &[1024, 2048, 4096, 8192, 16384]);
    let kind = run["counter"]["kind"].as_str().unwrap();
    assert!(
        ["tsc", "perf", "tsc-core"].contains(&kind),
        "cycle figures come from a cycle counter, not {kind}"
    );
    assert!(run["counter"]["unit"].as_str().unwrap().contains("cycles"));
    assert_eq!(run["comparisons"].as_array().unwrap().len(), 5);
    assert_eq!(run["ratios"].as_array().unwrap().len(), 10);

    let again = env.json(&["report", "latest", "--format", "json"]);
    assert_eq!(run, again, "report must print exactly what run printed");
    let by_id = env.json(&["report", &run["run_id"].to_string(), "--format", "json"]);
    assert_eq!(run, by_id);

    for format in ["table", "md", "csv"] {
        let text = env.run_ok(&["report", "latest", "--format", format]);
        assert!(
            text.contains("rand_chacha/chacha20-rng"),
            "{format}: {text}"
        );
    }

    // One rectangular table: the comparisons ride on their candidates' rows (no field
    // here holds a comma, so splitting on commas is exact).
    let csv = env.run_ok(&["report", "latest", "--format", "csv"]);
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    let header = &rows[0];
    assert!(rows.iter().all(|r| r.len() == header.len()), "{csv}");
    assert_eq!(rows.len(), 1 + 15, "one row per case: {csv}");
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let compared: Vec<&Vec<&str>> = rows[1..]
        .iter()
        .filter(|r| !r[col("verdict")].is_empty())
        .collect();
    assert_eq!(compared.len(), 5, "{csv}");
    for r in compared {
        assert_eq!(r[col("implementation")], "rustcrypto/chacha20-rng", "{csv}");
        assert_eq!(r[col("baseline")], "rand_chacha/chacha20-rng", "{csv}");
        assert!(r[col("change_pct")].parse::<f64>().is_ok(), "{csv}");
    }
}

#[test]
fn wrong_output_is_refused_and_never_timed() {
    let env = Env::new();
    let run = env.json_with_failures(&with_quick(&[
        "run",
        "test-wrong",
        "rustcrypto/chacha20/",
        "--sizes",
        "1024",
        "--format",
        "json",
    ]));
    let wrong = result(&run, "test-wrong/chacha20");
    assert_eq!(wrong["verified"], false);
    assert_case(wrong, "wrong", "RFC 8439");
    assert!(
        wrong.get("median_cycles").is_none(),
        "a refused implementation has no figures"
    );
    assert_eq!(result(&run, "rustcrypto/chacha20")["verified"], true);
}

/// Wrong at one length alone, which the gate's own lengths pass over and the run
/// measures: refused at all its cases, never timed.
#[test]
fn output_wrong_only_at_a_measured_length_is_refused() {
    let env = Env::new();
    let run = env.json_with_failures(&with_quick(&[
        "run",
        "test-bad-at-length",
        "--sizes",
        "1024,4000",
        "--format",
        "json",
    ]));
    for r in run["results"].as_array().unwrap() {
        assert_eq!(r["implementation"], "test-bad-at-length/chacha20", "{run}");
        assert_eq!(r["verified"], false, "{run}");
        assert_case(r, "wrong", "4000-byte message");
        assert!(r.get("median_cycles").is_none(), "{run}");
    }
    assert_eq!(run["results"].as_array().unwrap().len(), 2, "{run}");
    // Measured at the gate's lengths alone, it is right.
    let run = env.json(&with_quick(&[
        "run",
        "test-bad-at-length",
        "--sizes",
        "1024",
        "--format",
        "json",
    ]));
    assert_eq!(
        result(&run, "test-bad-at-length/chacha20")["verified"],
        true
    );
}

#[test]
fn crashing_and_hanging_implementations_fail_alone() {
    let env = Env::new();
    let run = env.json_with_failures(&with_quick(&[
        "run",
        "test-crash",
        "test-hang",
        "rustcrypto/chacha20/",
        "--sizes",
        "16384",
        "--timeout",
        "3",
        "--format",
        "json",
    ]));
    let crash = result(&run, "test-crash/chacha20");
    assert_case(crash, "failed", "SIGSEGV");
    let hang = result(&run, "test-hang/chacha20");
    assert_case(hang, "failed", "timed out");
    let fine = result(&run, "rustcrypto/chacha20");
    assert_eq!(fine["verified"], true);
    assert!(fine["median_cycles"].as_f64().unwrap() > 0.0);
    // And the store kept it all.
    assert_eq!(env.json(&["report", "--format", "json"]), run);
}

/// A crash or a hang inside the correctness check itself (not in a timed call) fails that
/// implementation's case alone, says it was the check, and leaves the rest measured.
#[test]
fn a_crash_or_hang_in_the_correctness_check_fails_that_case_alone() {
    let env = Env::new();
    let run = env.json_with_failures(&with_quick(&[
        "run",
        "test-gate-crash",
        "test-gate-hang",
        "rustcrypto/chacha20/",
        "--sizes",
        "1024",
        "--timeout",
        "2",
        "--format",
        "json",
    ]));
    let crash = result(&run, "test-gate-crash/chacha20");
    assert_case(
        crash,
        "failed",
        "correctness check crashed (killed by signal 11 (SIGSEGV))",
    );
    let hang = result(&run, "test-gate-hang/chacha20");
    assert_case(hang, "failed", "correctness check timed out after 2.0 s");
    for r in [crash, hang] {
        assert_eq!(r["verified"], false, "{r}");
        assert!(r["median_cycles"].is_null(), "timed: {r}");
        assert!(r["cpb"].is_null(), "timed: {r}");
        assert_eq!(r["samples"].as_u64().unwrap_or(0), 0, "{r}");
    }
    let fine = result(&run, "rustcrypto/chacha20");
    assert_eq!(fine["verified"], true, "{fine}");
    assert!(fine["median_cycles"].as_f64().unwrap() > 0.0, "{fine}");
}

/// A store that refuses a run's samples (a full disk, a server gone for good) stops the
/// run, and the run is marked stopped where the store still takes that write, so that
/// its reports say when it stopped, not "or still measuring" for good. One that refuses
/// only the figures kept beside a finished run (a cache, computed again where missing)
/// does not stand between the run and its report, baseline and gate.
#[test]
fn a_store_refusing_samples_or_figures_leaves_each_run_said_as_it_ended() {
    let env = Env::new();
    let args = with_quick(&[
        "run",
        "rand_chacha",
        "--sizes",
        "64",
        "--no-canary",
        "--format",
        "json",
    ]);
    env.json(&args);
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    conn.execute_batch(
        "CREATE TRIGGER no_figures BEFORE INSERT ON figures BEGIN SELECT RAISE(ABORT, 'figures refused'); END;",
    )
    .unwrap();
    let out = env.cmd(&[&args[..], &["--save-baseline", "main", "--force-baseline"]].concat());
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{err}");
    let run: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(run["run_id"], 2, "the report printed");
    assert!(
        err.contains("warning: run 2's figures were not kept beside it")
            && err.contains("figures refused"),
        "{err}"
    );
    assert!(err.contains("saved run 2 as baseline `main`"), "{err}");

    conn.execute_batch(
        "CREATE TRIGGER no_samples BEFORE INSERT ON clusters BEGIN SELECT RAISE(ABORT, 'samples refused'); END;",
    )
    .unwrap();
    let out = env.cmd(&args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("run 3 stopped"), "{err}");
    let (status, stopped_at): (String, Option<String>) = conn
        .query_row(
            "SELECT status, finished_at FROM runs WHERE id = 3",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(status, "running", "not complete");
    assert!(stopped_at.is_some(), "marked stopped");
}

/// A case whose worker crashes in a later round, after earlier rounds stored samples,
/// fails: its earlier figures are not presented as a result, nor compared.
#[test]
fn a_case_that_crashes_after_samples_were_stored_fails_without_figures() {
    let env = Env::new();
    let state = tempfile::tempdir().unwrap();
    let out = env.cmd_with(
        &with_quick(&[
            "run",
            "test-crash-later",
            "rustcrypto/chacha20/",
            "--sizes",
            "20000",
            "--against",
            "rustcrypto/chacha20",
            "--format",
            "json",
        ]),
        &[("CRYPTOBENCH_TEST_STATE_DIR", state.path().as_os_str())],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // The gate checked it at the measured length, two processes measured it, the third
    // crashed, and no fourth was started; the store holds the two's samples (2 layouts
    // each).
    assert_eq!(std::fs::read_dir(state.path()).unwrap().count(), 4);
    let stored: i64 = rusqlite::Connection::open(env.db())
        .unwrap()
        .query_row(
            "SELECT COUNT(*) FROM clusters JOIN cases ON cases.id = clusters.case_id
             WHERE cases.implementation = 'test-crash-later/chacha20'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(stored, 4);
    let run: Value = serde_json::from_slice(&out.stdout).unwrap();
    let late = result(&run, "test-crash-later/chacha20");
    assert_case(late, "failed", "SIGSEGV");
    assert_eq!(late["verified"], false, "{late}");
    assert!(late["median_cycles"].is_null(), "{late}");
    assert!(late["cpb"].is_null(), "{late}");
    let fine = result(&run, "rustcrypto/chacha20");
    assert!(fine["median_cycles"].as_f64().unwrap() > 0.0, "{fine}");
    assert_eq!(run["comparisons"].as_array().unwrap().len(), 0, "{run}");
    let n = &run["not_compared"][0];
    assert_eq!(n["candidate"], "test-crash-later/chacha20", "{run}");
    assert!(
        n["why"]
            .as_str()
            .unwrap()
            .starts_with("the candidate crashed"),
        "{n}"
    );
    // The text report shows no figure on the failed case's row either.
    let text = env.run_ok(&["report", "latest"]);
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("test-crash-later/chacha20"))
        .unwrap_or_else(|| panic!("no row in {text}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cells,
        ["test-crash-later/chacha20", "xor", "20000", "FAILED"],
        "{text}"
    );
    assert_eq!(env.json(&["report", "--format", "json"]), run);
}

/// Two implementations side by side: the slower one is *slower*, a finding, in the words
/// of the table and the JSON alike; no gate reads it, and one asked for is refused.
#[test]
fn two_implementations_are_faster_or_slower_and_no_gate_reads_them() {
    let env = Env::new();
    let args = [
        "run",
        "rustcrypto/chacha20/",
        "test-slower",
        "--sizes",
        "4096",
        "--against",
        "rustcrypto/chacha20",
        "--samples",
        "512",
        // 7 against 7, as in `against_a_baseline_only_the_changes_since_it_gate`: 4
        // against 4 give an interval from the smallest to the largest difference between
        // processes, so one reference process a loaded host stalled spreads it over 0 and
        // the planted slowdown reads as no difference; of 7 against 7 it takes two.
        "--processes",
        "7",
        "--layouts",
        "4",
    ];
    let run = env.json(&[args.as_slice(), &["--format", "json"]].concat());
    let c = &run["comparisons"][0];
    assert_eq!(c["candidate"], "test-slower/chacha20", "{c}");
    assert_eq!(
        (&c["verdict"], &c["relation"]),
        (&"slower".into(), &"rivals".into()),
        "{c}"
    );
    // The plant doubles the cipher work: about +100 %, never a small change (the bound
    // is loose, as a loaded machine measures either side less steadily).
    let change = c["change_pct"].as_f64().unwrap();
    assert!(change > 25.0, "{c}");
    let text = env.run_ok(&["report"]);
    assert!(text.contains("slower"), "{text}");
    assert!(!text.contains("regressed"), "{text}");

    assert_bad_input(
        &env.cmd(&[args.as_slice(), &["--fail-on-regression"]].concat()),
        "this run only compares implementations with each other",
    );
}

/// A C hash in a directory of the test's own, whose work per call and return status
/// a header sets: the same implementation, made slower or broken between two runs.
struct ToyHash {
    manifest: std::path::PathBuf,
}

impl ToyHash {
    fn new(env: &Env) -> ToyHash {
        let dir = env.dir.path().join("toy-hash");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("api.h"), "#define CRYPTO_BYTES 8\n").unwrap();
        std::fs::write(
            dir.join("toy.c"),
            "#include \"api.h\"\n#include \"work.h\"\n\
             int crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long n) {\n\
             volatile unsigned long long acc = n;\n\
             for (int r = 0; r < ROUNDS; r++) for (unsigned long long i = 0; i < n; i++) acc += in[i] * (r + 1);\n\
             for (int i = 0; i < CRYPTO_BYTES; i++) out[i] = (unsigned char)(acc >> i);\n\
             return STATUS;\n}\n",
        )
        .unwrap();
        let manifest = dir.join("manifest.toml");
        std::fs::write(
            &manifest,
            "name = \"toy\"\nsources = [\"toy.c\"]\ntargets = [\"native\"]\nflags = [\"-O1\"]\n\
             [[implementation]]\nvariant = \"v\"\nalgorithm = \"toy-hash\"\nkind = \"hash\"\n",
        )
        .unwrap();
        let toy = ToyHash { manifest };
        toy.set(1, 0);
        toy
    }

    /// Passes over the input per call, and what the call returns.
    fn set(&self, rounds: u32, status: i32) {
        let header = format!("#define ROUNDS {rounds}\n#define STATUS {status}\n");
        std::fs::write(self.manifest.with_file_name("work.h"), header).unwrap();
    }

    fn run<'a>(&'a self, extra: &[&'a str]) -> Vec<&'a str> {
        let mut args = vec!["run", self.manifest.to_str().unwrap(), "--sizes", "4096"];
        args.extend_from_slice(extra);
        args.extend_from_slice(QUICK);
        args
    }
}

/// The gate's purpose, end to end: the same implementation, sixteen times the work since the
/// saved baseline, is *regressed* and exits 3; put back, it passes; broken, it cannot
/// pass as "no regression".
#[test]
fn a_real_regression_against_the_baseline_exits_3() {
    let env = Env::new();
    let toy = ToyHash::new(&env);
    env.run_ok(&toy.run(&["--save-baseline", "main", "--force-baseline", "--no-canary"]));

    // Sixteen times the work against a threshold of 99 %: tests that measure at the
    // same time on the same CPU have moved an unchanged case by +62 %, not yet by +99 %.
    toy.set(16, 0);
    // Without the canary: on a host shared with the other tests, it would rightly say
    // the host moved between the runs, and the gate could not decide.
    let gate = toy.run(&[
        "--no-canary",
        "--baseline",
        "main",
        "--fail-on-regression",
        "--noise-threshold",
        "99",
        "--format",
        "json",
    ]);
    let out = env.cmd(&gate);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("len=4096 vs run 1"), "{err}");
    let run: Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &run["against_baseline"]["comparisons"][0];
    assert_eq!(
        (&c["verdict"], &c["relation"]),
        (&"regressed".into(), &"variant".into()),
        "{c}"
    );
    assert!(c["change_pct"].as_f64().unwrap() > 200.0, "{c}");

    toy.set(1, 0);
    let out = env.cmd(&gate);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A candidate that now fails cannot pass the gate as "no regression".
    toy.set(1, -1);
    let out = env.cmd(&gate);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("vs run 1: not compared: the candidate"),
        "{err}"
    );

    // The baseline's 4 processes against 5 cannot reach a 99 % interval (the smallest
    // p-value is 2/126): refused before measuring, though 5 against 5 could.
    toy.set(1, 0);
    let mut five = toy.run(&["--baseline", "main", "--fail-on-regression"]);
    let at = five.iter().position(|a| *a == "--processes").unwrap();
    five[at + 1] = "5";
    five.extend(["--significance", "0.01"]);
    assert_bad_input(
        &env.cmd(&five),
        "run 1 has 4 worker processes for some case",
    );
}

/// Against a stored baseline, the gate looks at the change since the baseline, not at the
/// run's own comparison of two implementations (where "slower" is what is being shown).
#[test]
fn against_a_baseline_only_the_changes_since_it_gate() {
    let env = Env::new();
    let pair = [
        "run",
        "rustcrypto/chacha20/",
        "test-slower",
        "--against",
        "rustcrypto/chacha20",
        "--sizes",
        "1024",
        "--samples",
        "64",
        "--layouts",
        "1",
        // 7 against 7: the 95 % interval of a change then leaves out every ratio of one
        // process that a loaded host stalled (with 4, one such process in a CI run spread
        // the run's own comparison over 0 and called the planted slowdown no difference).
        "--processes",
        "7",
        // Wide enough that the same code in two runs is never beyond it, narrow enough
        // that the plant (about +100 %) always is.
        "--noise-threshold",
        "40",
        // The gate's choice of comparisons is tested here, not the host's steadiness.
        "--no-canary",
    ];
    env.run_ok(
        &[
            pair.as_slice(),
            &["--save-baseline", "main", "--force-baseline"],
        ]
        .concat(),
    );
    let out = env.cmd(
        &[
            pair.as_slice(),
            &[
                "--baseline",
                "main",
                "--fail-on-regression",
                "--format",
                "json",
            ],
        ]
        .concat(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let run: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(run["comparisons"][0]["verdict"], "slower", "{run}");

    // Without a baseline the run's own comparison is of two implementations: nothing
    // for a gate to read, and refused.
    assert_bad_input(
        &env.cmd(&[pair.as_slice(), &["--fail-on-regression"]].concat()),
        "only compares implementations with each other",
    );
}

/// End to end, identical code is not called slower. The threshold is loose (25 %, the
/// planted difference's bound above): processes measured on a loaded machine can differ
/// by more than 5 %; that identical code is not called regressed at 5 % is shown on
/// synthetic samples (`identical_code_is_never_called_regressed_at_a_five_percent_threshold`).
#[test]
fn an_identical_implementation_is_not_called_slower() {
    let env = Env::new();
    let args = [
        "run",
        "rustcrypto/chacha20/",
        "test-same",
        "--sizes",
        "4096",
        "--against",
        "rustcrypto/chacha20",
        "--noise-threshold",
        "25",
        "--test",
        "welch",
        "--format",
        "json",
        "--samples",
        "512",
        "--processes",
        "4",
        "--layouts",
        "4",
    ];
    let run = env.json(&args);
    let c = &run["comparisons"][0];
    assert_eq!(c["candidate"], "test-same/chacha20", "{run}");
    assert_ne!(c["verdict"], "slower", "{c}");
}

#[test]
fn a_comparison_that_cannot_be_made_says_why_and_stops_the_gate() {
    let env = Env::new();
    let quick = [
        "--sizes",
        "1024",
        "--samples",
        "64",
        "--layouts",
        "1",
        "--remeasure-budget",
        "0",
    ];
    let pair = [
        "run",
        "rustcrypto/chacha20/",
        "test-slower",
        "--against",
        "rustcrypto/chacha20",
    ];
    let three: Vec<&str> = pair
        .iter()
        .chain(&quick)
        .chain(&["--processes", "3"])
        .copied()
        .collect();

    // 3 + 3 per-process medians cannot give a 95 % interval: said, not silently dropped.
    let run = env.json(&[three.as_slice(), &["--format", "json"]].concat());
    assert_eq!(run["comparisons"].as_array().unwrap().len(), 0, "{run}");
    let n = &run["not_compared"][0];
    assert_eq!(n["candidate"], "test-slower/chacha20", "{n}");
    assert!(n["why"].as_str().unwrap().contains("too few"), "{n}");
    let text = env.run_ok(&three);
    assert!(
        text.contains("Not compared: test-slower/chacha20 len=1024 vs rustcrypto/chacha20"),
        "{text}"
    );
    // Nor has a case of 3 processes an interval of its own: said, and none printed.
    assert!(text.contains("no intervals"), "{text}");
    assert_eq!(run["results"][0]["median_ci95"], Value::Null, "{run}");

    // Asked to gate on it, the run is refused before anything is measured.
    let before = env.json(&["history", "--format", "json"]);
    assert_bad_input(
        &env.cmd(&[three.as_slice(), &["--fail-on-regression"]].concat()),
        "use --processes 4 or more",
    );
    // 4 + 4 can give an interval, but no p-value under 2/70 = 0.0286: neither a
    // significance below it nor one equal to it (p must be below) can be reached.
    for significance in ["0.01", "0.02857142857142857"] {
        assert_bad_input(
            &env.cmd(
                &[
                    pair.as_slice(),
                    &quick,
                    &[
                        "--processes",
                        "4",
                        "--significance",
                        significance,
                        "--fail-on-regression",
                    ],
                ]
                .concat(),
            ),
            "the smallest p-value a Mann-Whitney test of 4 against 4 processes can give is 0.0285",
        );
    }
    assert_eq!(env.json(&["history", "--format", "json"]), before);

    // Asked to gate two implementations side by side, refused too (a candidate with
    // wrong output still fails the run: exit 1, as `json_with_failures` checks).
    let wrong = [
        "run",
        "rustcrypto/chacha20/",
        "test-wrong",
        "--against",
        "rustcrypto/chacha20",
        "--processes",
        "4",
    ];
    assert_bad_input(
        &env.cmd(&[wrong.as_slice(), &quick, &["--fail-on-regression"]].concat()),
        "only compares implementations with each other",
    );
    let run = env.json_with_failures(&[wrong.as_slice(), &quick, &["--format", "json"]].concat());
    let n = &run["not_compared"][0];
    assert!(
        n["why"]
            .as_str()
            .unwrap()
            .contains("the candidate gave wrong output"),
        "{n}"
    );
}

#[test]
fn baselines_across_runs() {
    let env = Env::new();
    let base = &with_quick(&[
        "run",
        "rand_chacha",
        "--sizes",
        "1024",
        "--save-baseline",
        "main",
        "--force-baseline",
        "--format",
        "json",
    ]);
    env.run_ok(base);
    let run = env.json(&with_quick(&[
        "run",
        "rand_chacha",
        "--sizes",
        "1024,2048",
        "--baseline",
        "main",
        "--format",
        "json",
    ]));
    let against = &run["against_baseline"];
    assert_eq!(against["comparisons"].as_array().unwrap().len(), 1);
    assert_eq!(
        against["only_in_b"][0],
        "rand_chacha/chacha20-rng/fill_bytes len=2048"
    );
    let cmp = env.json(&["compare", "main", "latest", "--format", "json"]);
    assert_eq!(cmp["comparisons"].as_array().unwrap().len(), 1);
    assert_bad_input(
        &env.cmd(&["compare", "main", "nope"]),
        "`nope` is neither a run id",
    );
}

/// A baseline is judged before it is saved over another: a run of fewer cases would
/// leave the rest unjudged, and a broken case would let the same case pass broken.
#[test]
fn a_baseline_is_not_saved_over_by_a_narrower_or_broken_run() {
    let env = Env::new();
    let save = |sizes: &str, extra: &[&str]| {
        let args: Vec<&str> = ["run", "rand_chacha", "test-wrong", "--sizes", sizes]
            .iter()
            .chain(&["--save-baseline", "main", "--format", "json"])
            .chain(extra)
            .chain(QUICK)
            .copied()
            .collect();
        let out = env.cmd(&args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let baseline_run = || env.json(&["report", "main", "--format", "json"])["run_id"].clone();
    let (code, err) = save("1024,2048", &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("not saved as baseline `main`"), "{err}");
    assert!(
        err.contains("test-wrong/chacha20/xor len=1024: gave wrong output"),
        "{err}"
    );
    let (code, err) = save("1024,2048", &["--force-baseline"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("saved run 2 as baseline `main`"), "{err}");
    assert_eq!(baseline_run(), 2);

    // Known before measuring: the same plan measured again could never be saved.
    let (code, err) = save("1024", &[]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        err.trim(),
        "error: --save-baseline main: baseline `main` is run 2, which has 2 cases this run would not measure (`rand_chacha/chacha20-rng/fill_bytes len=2048`, `test-wrong/chacha20/xor len=2048`): saved over it, they would no longer be judged; measure them too, name another baseline, or replace it anyway with --force-baseline"
    );
    assert_eq!(baseline_run(), 2, "kept");
    let (_, err) = save("1024", &["--force-baseline"]);
    assert!(
        err.contains("saved run 3 as baseline `main` in") && err.contains("(it was run 2)"),
        "nothing was measured by the refused run: {err}"
    );
    assert_eq!(baseline_run(), 3);
}

/// A case's id takes its sizes from the user as `--sizes` does, and under the same cap:
/// past it a worker would die allocating (or a wrapped size would pass as a few bytes).
#[test]
fn case_id_sizes_past_the_per_call_cap_are_refused_before_measuring() {
    let env = Env::new();
    let refused = |id: &str, expect: &str| {
        let out = env.cmd(&["run", id, "--processes", "2", "--samples", "16"]);
        assert_bad_input(&out, &format!("`{id}`: {expect}"));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("max 1 GiB"), "{err}");
        assert!(!env.db().exists(), "nothing was measured or stored: {err}");
    };
    refused(
        "rustcrypto/aes-128-gcm/encrypt len=64 ad=99999999999999",
        "`ad=99999999999999`: 99999999999999 bytes is too large for a per-call measurement",
    );
    refused(
        &format!("rustcrypto/shake128/xof len={} out=1", u64::MAX),
        &format!("`len={}`: {} bytes is too large", u64::MAX, u64::MAX),
    );
    refused(
        "rustcrypto/shake128/xof len=64 out=1073741825",
        "`out=1073741825`: 1073741825 bytes is too large",
    );
    refused(
        "rustcrypto/chacha20/xor len=1073741825",
        "`len=1073741825`: 1073741825 bytes is too large",
    );
}

/// A run's `--slope` is read back from the store for every report: lengths no `run` takes
/// (edited in the store, or written by a faulty version) are refused, naming the run,
/// rather than printed as a wrapped or infinite cost per byte.
#[test]
fn a_stored_slope_no_run_could_ask_is_refused_naming_the_run() {
    let env = Env::new();
    env.run_ok(&[
        "run",
        "rustcrypto/chacha20/xor",
        "--sizes",
        "64,1024",
        "--slope",
        "64,1024",
        "--processes",
        "4",
        "--samples",
        "16",
        "--layouts",
        "1",
    ]);
    assert!(
        env.run_ok(&["report", "latest"])
            .contains("slope from 64 to 1024 bytes")
    );
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    let mut was = "[64,1024]".to_string();
    for slope in ["[1024,64]", "[1024,1024]"] {
        let edited = conn
            .execute(
                "UPDATE runs SET options_json = replace(options_json, ?1, ?2)",
                [format!("\"slope\":{was}"), format!("\"slope\":{slope}")],
            )
            .unwrap();
        assert_eq!(edited, 1);
        was = slope.to_string();
        let (short, long) = slope[1..slope.len() - 1].split_once(',').unwrap();
        for format in ["table", "json"] {
            assert_bad_input(
                &env.cmd(&["report", "latest", "--format", format]),
                &format!(
                    "run 1's stored options ask for the slope from {short} to {long} bytes, which no run can ask (the first length must be the shorter)"
                ),
            );
        }
    }
}

#[test]
fn bad_input_gets_one_clear_line_and_status_2() {
    let env = Env::new();
    assert_bad_input(
        &env.cmd(&["run", "no-such-experiment"]),
        "`no-such-experiment` matches no experiment",
    );
    assert_bad_input(&env.cmd(&["run", "--sizes", "0"]), "at least 1 byte");
    // clap's own refusals too: what it lists on lines of their own joins the first.
    assert_bad_input(
        &env.cmd(&["compare", "1"]),
        "error: the following required arguments were not provided: <RUN_B>; usage: cryptobench compare ",
    );
    assert_bad_input(
        &env.cmd(&["report", "--format", "xml"]),
        "error: invalid value 'xml' for '--format <FORMAT>' [possible values: table, md, json,",
    );
    assert_bad_input(
        &env.cmd(&["export"]),
        "error: unrecognized subcommand 'export'; tip: some similar subcommands exist: 'import', 'report'",
    );
    let bare = env.cmd(&[]);
    assert_eq!(bare.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bare.stderr).contains("\nCommands:\n"),
        "no command: the help, as it is"
    );
    assert_bad_input(
        &env.cmd(&[
            "run",
            "rustcrypto/chacha20/",
            "--sizes",
            "1GiB",
            "--layouts",
            "256",
        ]),
        "256 layouts of 1 GiB need about",
    );
    assert_bad_input(
        &env.cmd(&["run", "--sizes", "1.5KiB"]),
        "not a whole number",
    );
    assert_bad_input(
        &env.cmd(&["run", "--sizes", "12x"]),
        "`12x` has an unknown unit",
    );
    assert_bad_input(
        &env.cmd(&["run", "--cpu", "4096"]),
        "CPU 4096 does not exist",
    );
    assert_bad_input(
        &env.cmd(&["run", "--db", "/nonexistent/dir/x.db"]),
        "cannot open the result store `/nonexistent/dir/x.db`",
    );
    assert_bad_input(
        &env.cmd(&["report", "7", "--db", env.db().to_str().unwrap()]),
        "no result store",
    );
    // A mistyped server URL is not taken for a file's name.
    for url in ["postgresql:bench@127.0.0.1", "mysql://h/db"] {
        assert_bad_input(&env.cmd(&["machines", "--db", url]), "reads as a URL");
        assert_bad_input(&env.cmd(&["run", "--db", url]), "reads as a URL");
        assert!(!env.path(url).exists());
    }
    // Nor a URL's password echoed where it is refused.
    for url in ["mysql://root:hunter2@h/db", "postgresql:root:hunter2@h/db"] {
        let out = env.cmd(&["machines", "--db", url]);
        assert_bad_input(&out, "reads as a URL");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("hunter2"));
    }
    // A libpq connection string is refused, not taken as a file's name, its password
    // echoed nowhere.
    let conninfo = "host=127.0.0.1 port=55432 user=bench password=sekrit123 dbname=fleet";
    let golden = env.path("golden.db");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/golden/store.db"),
        &golden,
    )
    .unwrap();
    for args in [
        &["run", "--db", conninfo][..],
        &["machines", "--db", conninfo],
        &["report", "latest", "--db", conninfo],
        &["run", "--push-to", conninfo],
        &["push", "--to", conninfo, "--from", golden.to_str().unwrap()],
        &["push", "--to", "elsewhere.db", "--from", conninfo],
    ] {
        let out = env.cmd(args);
        assert_bad_input(&out, "is a libpq `key=value` connection string");
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("sekrit123"),
            "{args:?}"
        );
        assert!(!env.path(conninfo).exists(), "{args:?}");
    }
    assert_bad_input(
        &env.cmd(&["run", "rand_chacha", "--against", "openssl/nothing"]),
        "--against `openssl/nothing`",
    );
    assert_bad_input(
        &env.cmd(&["list", "zzz"]),
        "no implementation matches `zzz`",
    );
    if Command::new(env!("CARGO_BIN_EXE_cryptobench"))
        .args(["info", "--format", "json"])
        .output()
        .is_ok_and(|o| {
            serde_json::from_slice::<Value>(&o.stdout).is_ok_and(|v| {
                v["counters"].as_array().is_some_and(|cs| {
                    cs.iter()
                        .any(|c| c["counter"] == "perf" && c["available"] == false)
                })
            })
        })
    {
        assert_bad_input(
            &env.cmd(&["run", "--counter", "perf"]),
            "counter `perf` is not available here",
        );
    }
}

/// Before measuring: a report written over the store a run is pushed to, two outputs
/// of one file, and a push target that cannot be opened are refused, naming the option
/// at fault (a report once replaced the `--push-to` store, runs and all).
#[test]
fn outputs_over_a_store_or_each_other_and_a_bad_push_target_are_refused_first() {
    let env = Env::new();
    let central = env.path("central.db");
    std::fs::write(&central, "not to be overwritten").unwrap();
    let central = central.to_str().unwrap();
    let report = env.path("report");
    let report = report.to_str().unwrap();
    let run = |more: &[&str]| env.cmd(&[&["run", "rustcrypto/sha-256"], more].concat());
    assert_bad_input(
        &run(&["--push-to", central, "--html", central]),
        "it is the result store (--push-to)",
    );
    assert_eq!(
        std::fs::read_to_string(central).unwrap(),
        "not to be overwritten"
    );
    assert_bad_input(
        &run(&["-o", report, "--html", report]),
        "-o and --html both name",
    );
    assert_bad_input(
        &run(&["--push-to", "/no/such/dir/central.db"]),
        "choose another with --push-to",
    );
    assert_bad_input(
        &run(&["--push-to", "postgres://u@127.0.0.1:99999/db"]),
        "--push-to `postgres://u@127.0.0.1:99999/db` is not a PostgreSQL URL",
    );
    // Refused before measuring, none of these runs left an empty store behind.
    assert!(!env.db().exists());
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/golden/store.db"),
        env.db(),
    )
    .unwrap();
    assert_bad_input(
        &env.cmd(&["push", "--to", env.dir.path().to_str().unwrap()]),
        "--to names the store's file",
    );
    assert!(!Path::new(report).exists());
}

/// A run refused after its store was opened (a baseline that is not there) leaves no
/// store it created behind, and keeps one that was there before.
#[test]
fn a_run_refused_in_its_session_leaves_no_store_it_created() {
    let env = Env::new();
    let run = || env.cmd(&["run", "rustcrypto/sha-256", "--baseline", "nope"]);
    let refused = "--baseline nope: `nope` is neither a run id";
    assert_bad_input(&run(), refused);
    assert!(!env.db().exists(), "an empty store was left behind");
    let mut journal = env.db().into_os_string();
    journal.push("-journal");
    assert!(!Path::new(&journal).exists());
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/golden/store.db"),
        env.db(),
    )
    .unwrap();
    assert_bad_input(&run(), refused);
    assert!(env.db().exists(), "a store that was there was removed");
}

/// The gate's intervals are at 1 - significance: 4 processes a side reach 95 %, not 99 %,
/// and 3 a side reach 80 % (refused here only for the baseline it lacks).
#[test]
fn the_gate_asks_for_the_processes_its_significance_needs() {
    let env = Env::new();
    let gate = |processes: &str, significance: &str| {
        env.cmd(&[
            "run",
            "rustcrypto/sha-256",
            "--test",
            "welch",
            "--processes",
            processes,
            "--significance",
            significance,
            "--baseline",
            "nothing-saved",
            "--fail-on-regression",
        ])
    };
    assert_bad_input(
        &gate("4", "0.01"),
        "cannot give a 99 % interval of a change at --significance 0.01, so no comparison could be made and the gate could only pass; use --processes 5 or more",
    );
    assert_bad_input(&gate("3", "0.2"), "--baseline nothing-saved");
}

#[test]
fn targets_and_names_that_cannot_mean_what_they_say_are_refused() {
    let env = Env::new();
    assert_bad_input(&env.cmd(&["run", ""]), "an empty target");
    assert_bad_input(
        &env.cmd(&["run", "rustcrypto/sha-256", "--save-baseline", "5"]),
        "--save-baseline \"5\"",
    );
    assert_bad_input(&env.cmd(&["bulk", "--impl", ","]), "holds an empty filter");
    assert_bad_input(
        &env.cmd(&["run", "rustcrypto/sha-256", "--fail-on-regression"]),
        "this run compares nothing",
    );
    assert_bad_input(
        &env.cmd(&[
            "run",
            "rustcrypto/chacha20/",
            "test-same",
            "--against",
            "test-same",
        ]),
        "did you mean `test-same/chacha20`?",
    );
    assert_bad_input(
        &env.cmd(&[
            "run",
            "rustcrypto/sha-256",
            "--against",
            "rustcrypto/sha-256",
        ]),
        "the only implementation in this run",
    );
    // Written with the slash a filter ends in, it is still that implementation.
    for base in ["rustcrypto/sha-256", "rustcrypto/sha-256/"] {
        assert_bad_input(
            &env.cmd(&[
                "run",
                "rustcrypto/sha-256",
                "rustcrypto/chacha20/",
                "--against",
                base,
            ]),
            "no other implementation in this run does its operation",
        );
    }
    for (timeout, expect) in [
        (
            "1e300",
            "`1e300` seconds is too large: the most is 604800 (a week)",
        ),
        ("1e20", "`1e20` seconds is too large: the most is 604800"),
        ("1e-300", "`1e-300` is too short to be a time limit"),
        ("0", "must be a positive number of seconds"),
        ("-1", "must be a positive number of seconds"),
    ] {
        let out = env.cmd(&["run", "rustcrypto/sha-256", "--timeout", timeout]);
        assert_bad_input(
            &out,
            &format!("invalid value '{timeout}' for '--timeout <TIMEOUT>'"),
        );
        assert_bad_input(&out, expect);
    }
    // A negative number is a value, said what is wrong with, not taken for an option.
    for (option, value, expect) in [
        (
            "--sizes",
            "-1",
            "`-1` is negative, not a size: a size is a whole number of bytes",
        ),
        ("--sizes", "64,-1", "`-1` is negative"),
        ("--processes", "-3", "'--processes <PROCESSES>'"),
        ("--significance", "-0.5", "is not a probability"),
    ] {
        let out = env.cmd(&["run", "rustcrypto/sha-256", option, value]);
        assert_bad_input(&out, expect);
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("tip:"),
            "{option} {value}"
        );
    }
    // Nothing above was measured or stored.
    assert!(!env.db().exists());

    // Overlapping filters and repeated sizes name each case once.
    let quick = [
        "--samples",
        "8",
        "--processes",
        "1",
        "--layouts",
        "1",
        "--format",
        "json",
    ];
    let run = env.json(
        &[
            &["run", "sha-256", "rustcrypto/sha-256", "--sizes", "64,64"],
            &quick[..],
        ]
        .concat(),
    );
    let ours: Vec<&Value> = results(&run)
        .iter()
        .filter(|r| r["implementation"] == "rustcrypto/sha-256")
        .collect();
    assert_eq!(ours.len(), 1, "{run}");

    assert_bad_input(
        &env.cmd(&["compare", "1", "latest"]),
        "are the same run (1)",
    );

    // --against with an implementation of another operation says so, not nothing.
    let run = env.json(
        &[
            &[
                "run",
                "rustcrypto/chacha20/",
                "rustcrypto/aes-128-ctr",
                "rustcrypto/sha-256",
                "--sizes",
                "64",
                "--against",
                "rustcrypto/chacha20",
            ],
            &quick[..],
        ]
        .concat(),
    );
    let unlike: Vec<&Value> = run["not_compared"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["candidate"] == "rustcrypto/sha-256")
        .collect();
    assert_eq!(unlike.len(), 1, "{run}");
    assert_eq!(unlike[0]["why"], "another operation (hash, not xor)");
    assert_eq!(unlike[0]["blocks_gate"], false);

    // A baseline taken with another counter is refused before measuring, not after.
    let quick_run = |args: &[&'static str]| -> Vec<&str> {
        [&["run", "--sizes", "64"][..], args, &quick[..]].concat()
    };
    let ns = quick_run(&["rustcrypto/sha-256", "--counter", "ns"]);
    env.run_ok(
        &[
            ns.as_slice(),
            &["--save-baseline", "nsb", "--force-baseline"],
        ]
        .concat(),
    );
    let before = env.json(&["history", "--format", "json"]);
    assert_bad_input(
        &env.cmd(&quick_run(&[
            "rustcrypto/sha-256",
            "--counter",
            "tsc",
            "--baseline",
            "nsb",
        ])),
        "is not comparable with this run (counter `ns` there, `tsc` here)",
    );
    // Nor does --force make nanoseconds comparable with cycles, here or in `compare`.
    assert_bad_input(
        &env.cmd(&quick_run(&[
            "rustcrypto/sha-256",
            "--baseline",
            "nsb",
            "--force",
        ])),
        "which no --force makes comparable",
    );
    // Run 1 counted with whichever cycle counter this host offers (perf where it has a
    // PMU, tsc-core where not).
    let first = env.json(&["report", "1", "--format", "json"]);
    let counter = first["counter"]["kind"].as_str().expect("run 1's counter");
    assert!(["tsc", "perf", "tsc-core"].contains(&counter), "{first}");
    // Without --force too: the refusal does not advise a --force that cannot lift it.
    let refused = env.cmd(&["compare", "1", "nsb"]);
    assert!(
        !String::from_utf8_lossy(&refused.stderr).contains("use --force"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert_bad_input(
        &env.cmd(&["compare", "1", "nsb", "--force"]),
        &format!(
            "run 1 counts cycles ({counter}) and run 3 counts ns (ns), which no --force makes comparable"
        ),
    );
    // A baseline that shares no case with the run would leave the gate nothing to look at.
    let other = quick_run(&["rustcrypto/sha-512", "--counter", "ns"]);
    assert_bad_input(
        &env.cmd(&[other.as_slice(), &["--baseline", "3"]].concat()),
        "run 3 measured none of this run's cases, so nothing could be compared with it (it has `rustcrypto/sha-256/hash len=64`; this run would measure `rustcrypto/sha-512/hash len=64`)",
    );
    // By name, a baseline is another experiment's: said so, not looked for elsewhere.
    assert_bad_input(
        &env.cmd(&[other.as_slice(), &["--baseline", "nsb"]].concat()),
        "no baseline `nsb` of experiment `rustcrypto/sha-512` on testbed",
    );
    assert_eq!(env.json(&["history", "--format", "json"]), before);
    env.run_ok(&other);
    assert_bad_input(
        &env.cmd(&["compare", "nsb", "latest"]),
        "runs 3 and 4 share no case, so there is nothing to compare",
    );
    // Reference cycles are not core cycles: their ratio is the core's clock over the TSC's.
    if counter != "tsc" {
        env.run_ok(&quick_run(&["rustcrypto/sha-256", "--counter", "tsc"]));
        assert_bad_input(
            &env.cmd(&["compare", "1", "latest", "--force"]),
            &format!(
                "run 1 counts cycles ({counter}) and run 5 counts ref-cycles (tsc), which no --force makes comparable"
            ),
        );
    }
}

#[test]
fn reports_never_overwrite_the_store_and_unwritable_outputs_are_found_first() {
    let env = Env::new();
    let db = env.db();
    let quick = ["--samples", "8", "--processes", "1", "--layouts", "1"];
    env.run_ok(&[&["run", "rustcrypto/sha-256", "--sizes", "64"], &quick[..]].concat());
    let stored = std::fs::read(&db).unwrap();
    for flag in ["-o", "--html"] {
        assert_bad_input(
            &env.cmd(
                &[
                    &["run", "rustcrypto/sha-256", flag, db.to_str().unwrap()],
                    &quick[..],
                ]
                .concat(),
            ),
            "it is the result store",
        );
    }
    assert_bad_input(
        &env.cmd(&["report", "-o", "results.db"]),
        "it is the result store",
    );
    assert_eq!(
        std::fs::read(&db).unwrap(),
        stored,
        "the store is untouched"
    );
    assert_bad_input(
        &env.cmd(&["run", "rustcrypto/sha-256", "--html", "/proc/report.html"]),
        "cannot create a file in `/proc`",
    );
    assert_bad_input(&env.cmd(&["history", "--db", "/tmp"]), "is a directory");
    let other = env.dir.path().join("other.db");
    let conn = rusqlite::Connection::open(&other).unwrap();
    conn.execute_batch("CREATE TABLE users (name TEXT)")
        .unwrap();
    drop(conn);
    assert_bad_input(
        &env.cmd(&["history", "--db", other.to_str().unwrap()]),
        "another program's SQLite database (tables users)",
    );
    // Reading leaves a file that is not a store as it was, even one with a `runs` table.
    let theirs = env.dir.path().join("theirs.db");
    let conn = rusqlite::Connection::open(&theirs).unwrap();
    conn.execute_batch("CREATE TABLE runs (lap REAL)").unwrap();
    drop(conn);
    let empty = env.dir.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    for (file, expect) in [
        (&theirs, "another program's SQLite database (tables runs)"),
        (&empty, "is empty, not a cryptobench store"),
    ] {
        let before = std::fs::read(file).unwrap();
        for command in ["report", "history"] {
            assert_bad_input(&env.cmd(&[command, "--db", file.to_str().unwrap()]), expect);
        }
        assert_eq!(std::fs::read(file).unwrap(), before, "{}", file.display());
    }
    // A store cut short is called damaged, not another kind of file.
    let whole = std::fs::read(&db).unwrap();
    for (name, len) in [("cut.db", 3000), ("header-only.db", 50)] {
        let cut = env.dir.path().join(name);
        std::fs::write(&cut, &whole[..len]).unwrap();
        assert_bad_input(
            &env.cmd(&["history", "--db", cut.to_str().unwrap()]),
            &format!("the result store `{}` is damaged", cut.display()),
        );
    }
    let text = env.dir.path().join("notes.db");
    std::fs::write(&text, "x".repeat(4096)).unwrap();
    assert_bad_input(
        &env.cmd(&["history", "--db", text.to_str().unwrap()]),
        "is not a cryptobench store (not an SQLite database)",
    );
    // A full disk is an error in words; a reader that goes away is none.
    let full = Command::new(env!("CARGO_BIN_EXE_cryptobench"))
        .args(["report", "--db", db.to_str().unwrap()])
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_bad_input(&full, "cannot write to standard output");
    let mut child = Command::new(env!("CARGO_BIN_EXE_cryptobench"))
        .arg("list")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader is gone before the first line is written
    let gone = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&gone.stderr);
    assert!(
        gone.status.success() && err.is_empty(),
        "{:?}: {err}",
        gone.status
    );
}

#[test]
fn a_file_that_is_not_a_store_is_named() {
    let env = Env::new();
    let bogus = env.dir.path().join("bogus.db");
    std::fs::write(
        &bogus,
        "this is not sqlite, just text that is long enough to have a header....",
    )
    .unwrap();
    let out = env.cmd(&["report", "--db", bogus.to_str().unwrap()]);
    assert_bad_input(&out, "bogus.db");
    assert!(Path::new(&bogus).exists());
}

#[test]
fn info_and_list_describe_the_machine_and_catalog() {
    let env = Env::new();
    let info = env.json(&["info", "--format", "json"]);
    assert!(info["cpu_model"].is_string());
    assert!(
        info["counters"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["counter"] == "ns" && c["available"] == true)
    );
    assert!(info["chosen_counter"]["unit"].is_string());
    let text = env.run_ok(&["info"]);
    assert!(
        text.contains("Counters:") && text.contains("Chosen:"),
        "{text}"
    );
    let list = env.run_ok(&["list"]);
    for name in [
        "rustcrypto/chacha20",
        "rustcrypto/chacha20-rng",
        "rand_chacha/chacha20-rng",
        "chacha20-rng",
    ] {
        assert!(list.contains(name), "{name} missing from: {list}");
    }
    // An experiment's name shows its plan, the cipher it compares against included.
    let plan = env.run_ok(&["list", "chacha20-rng"]);
    assert!(plan.contains("15 cases of the catalog"), "{plan}");
    assert!(
        plan.contains("3 implementations (operation) x 5 parameter points (len 1024, 2048, 4096, 8192, 16384):\n  rustcrypto/chacha20 (xor)\n"),
        "{plan}"
    );
    // Members one a line, their parameter points once above them: no line pairs an
    // implementation with a point.
    let aead = env.run_ok(&["list", "aead"]);
    assert!(
        aead.contains("x 8 parameter points (ad 0, 13 x len 64, 576, 1536, 16384):"),
        "{aead}"
    );
    for line in aead
        .lines()
        .filter(|l| l.contains(" (encrypt)") || l.contains(" (decrypt)"))
    {
        assert!(!line.contains("len") && !line.contains("ad="), "{line}");
    }
    assert!(plan.contains("rustcrypto/chacha20 "), "{plan}");
    assert!(
        plan.contains("Comparison: rustcrypto/chacha20-rng against rand_chacha/chacha20-rng"),
        "{plan}"
    );
    assert!(!env.db().exists(), "listing measures nothing");
}

fn repo(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn c_implementations_crash_hang_and_wrong_output_fail_alone() {
    let env = Env::new();
    let manifest = repo("tests/c/faulty/manifest.toml");
    let out = env.cmd(&[
        "run",
        &manifest,
        "--sizes",
        "20000",
        "--timeout",
        "3",
        "--format",
        "json",
        "--samples",
        "64",
        "--processes",
        "2",
        "--layouts",
        "2",
    ]);
    // Each forked child sleeps for ten minutes holding its worker's pipes, in the worker's
    // process group: the run kills that whole group, so none outlives its worker.
    let pids = std::fs::read_to_string(env.dir.path().join("fork-children.pid"))
        .expect("the fork variant forked");
    let pids: Vec<i32> = pids.lines().map(|l| l.parse().unwrap()).collect();
    assert!(!pids.is_empty());
    for pid in pids {
        common::assert_gone(pid);
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "cases failed: {err}");
    assert!(err.contains("7 cases gave wrong output or failed"), "{err}");
    let run: Value = serde_json::from_slice(&out.stdout).unwrap();
    let fine = result(&run, "faulty/sha-256/fine@native");
    assert_eq!(fine["verified"], true, "{fine}");
    let wrong = result(&run, "faulty/sha-256/wrong@native");
    assert_eq!(wrong["status"], "wrong", "{wrong}");
    assert!(
        wrong["message"]
            .as_str()
            .unwrap()
            .contains("sha-256 of 3 bytes (FIPS 180-4"),
        "{wrong}"
    );
    let crash = result(&run, "faulty/sha-256/crash@native");
    assert_case(crash, "failed", "SIGSEGV");
    // Which call it died in, from the note the worker left.
    // What it points at: not a prototype, which the compiler checked in C.
    assert_case(
        crash,
        "failed",
        "died in faulty/sha-256/crash@native hash at len=20000, the case's call (memory read or written out of bounds)",
    );
    let hang = result(&run, "faulty/sha-256/hang@native");
    assert_case(hang, "failed", "timed out");
    // Which call it hung in, as for a crash, and what that points at.
    assert_case(
        hang,
        "failed",
        "(hang?) in faulty/sha-256/hang@native hash at len=20000, the case's call (a loop that does not end at this length, or code slower than --timeout allows)",
    );
    // Gone without a reply: the case fails alone, named, and the run goes on.
    let exit = result(&run, "faulty/sha-256/exit@native");
    assert_case(exit, "failed", "before replying");
    assert_case(
        exit,
        "failed",
        "exited in faulty/sha-256/exit@native hash at len=20000, the case's call (the implementation called exit())",
    );
    // A worker that exits with an error status, or aborts, fails its case alone too.
    let exit1 = result(&run, "faulty/sha-256/exit1@native");
    assert_case(exit1, "failed", "exited with status 1");
    let abort = result(&run, "faulty/sha-256/abort@native");
    assert_case(abort, "failed", "SIGABRT");
    let fork = result(&run, "faulty/sha-256/fork@native");
    assert_eq!(fork["verified"], true, "{fork}");
    // A SIGINT nobody typed is the measured code's crash: the run goes on.
    let sigint = result(&run, "faulty/sha-256/sigint@native");
    assert_case(sigint, "failed", "SIGINT");
    for failed in [crash, hang, exit, exit1, abort, sigint] {
        assert!(failed["median_cycles"].is_null(), "timed: {failed}");
    }
    // What the C code prints on stdout does not corrupt the worker's reply.
    let print = result(&run, "faulty/sha-256/print@native");
    assert_eq!(print["verified"], true, "{print}");
    assert!(print["median_cycles"].as_f64().unwrap() > 0.0, "{print}");
    assert_eq!(
        env.json(&["report", "--format", "json"]),
        run,
        "the store kept every case"
    );
}

/// A hang in the correctness gate is killed at the timeout and names the gate's call it
/// hung in (it once said only "timed out after 2.0 s").
#[test]
fn a_c_function_that_hangs_in_the_gate_is_named_with_its_call() {
    let env = Env::new();
    let out = env.cmd(&["check", &repo("tests/c/faulty/hang.toml"), "--timeout", "2"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("timed out after 2.0 s (hang?) in crypto_hash(inlen = 3), called by the correctness gate (a loop that does not end at this length, or code slower than --timeout allows)"),
        "{said}"
    );
    // Off a terminal (a CI log), what it waits on is said as it starts, not only at the end.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.lines()
            .next()
            .is_some_and(|l| l == "checking faulty-hang/sha-256/hang-in-gate@native (up to 2 s)"),
        "{err}"
    );
}

/// A C hash is checked at the lengths the Rust catalog's are: every one up to two blocks.
#[test]
fn a_c_hash_wrong_at_one_boundary_length_is_refused() {
    let env = Env::new();
    let run = env.json_with_failures(&with_quick(&[
        "run",
        &repo("tests/c/faulty/boundary.toml"),
        "--sizes",
        "64",
        "--format",
        "json",
    ]));
    let wrong = result(&run, "faulty-boundary/sha-256/wrong-at-119@native");
    assert_case(
        wrong,
        "wrong",
        "119-byte message against the reference implementation",
    );
}

/// A length the run times is compared too where the gate's own lengths leave it out
/// (4096 bytes): a C hash wrong there alone is refused, naming the length, and not
/// timed; a run that does not time it finds nothing to refuse.
#[test]
fn a_c_hash_wrong_at_a_timed_length_beyond_the_gates_is_refused() {
    let env = Env::new();
    let manifest = repo("tests/c/faulty/beyond.toml");
    let out = env.cmd(&with_quick(&[
        "run", &manifest, "--sizes", "64,4096", "--format", "json",
    ]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // Refused at every length for the one reason: said once in the closing list.
    assert!(
        err.contains("2 cases gave wrong output or failed")
            && err.contains("faulty-beyond/sha-256/wrong-at-4096@native (2 cases: hash len=64, hash len=4096): wrong output"),
        "{err}"
    );
    let run: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for r in results(&run) {
        assert_case(
            r,
            "wrong",
            "4096-byte message (a length the run times) against the reference implementation",
        );
    }
    let out = env.cmd(&with_quick(&[
        "run", &manifest, "--sizes", "64", "--format", "json",
    ]));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A variant that does not compile stops the run before anything is measured; with
/// --keep-going its cases fail with the compiler's first error and the others are
/// measured (and `check` says the same).
#[test]
fn a_variant_that_does_not_compile_stops_the_run_unless_it_keeps_going() {
    let env = Env::new();
    let manifest = repo("tests/c/faulty/broken.toml");
    let out = env.cmd(&with_quick(&[
        "run", &manifest, "--sizes", "64", "--format", "json",
    ]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("compiling `broken` (sha-256) for target `native` failed; the compiler said:"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing measured");

    let out = env.cmd(&with_quick(&[
        "run",
        &manifest,
        "--sizes",
        "64",
        "--format",
        "json",
        "--keep-going",
    ]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("(going on without it: --keep-going)"), "{err}");
    let run: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        result(&run, "faulty-broken/sha-256/fine@native")["verified"],
        true,
        "{run}"
    );
    assert_case(
        result(&run, "faulty-broken/sha-256/broken@native"),
        "failed",
        "did not compile for target `native`: ",
    );
    assert_case(
        result(&run, "faulty-broken/sha-256/broken@native"),
        "failed",
        "this variant does not compile (FAULT_BROKEN)",
    );

    let out = env.cmd(&["check", &manifest, "--keep-going"]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{table}");
    assert!(
        table.lines().any(|l| l.contains("broken@native")
            && l.contains("FAILED")
            && l.contains("did not compile")),
        "{table}"
    );
}

/// Glue that writes half a digest, shared by both variants of an algorithm the gate has no
/// known answers for: the variants agree, so only output buffers filled two ways show the
/// unwritten half. Both are refused, naming the bytes.
#[test]
fn a_c_hash_that_leaves_output_bytes_unwritten_is_refused_though_its_variants_agree() {
    let env = Env::new();
    let run = env.json_with_failures(&with_quick(&[
        "run",
        &repo("tests/c/faulty/half.toml"),
        "--sizes",
        "64",
        "--format",
        "json",
    ]));
    for variant in ["o1", "o2"] {
        let case = result(&run, &format!("faulty-half/half-digest/{variant}@native"));
        assert_case(
            case,
            "wrong",
            "crypto_hash left 16 of its 32 output bytes (from byte 16 to 31)",
        );
    }
}

/// Without known answers variants are checked only against each other: where a wrong
/// one is the first (the one the others were compared with), none is timed, and each
/// refusal says that nothing tells which is right. The first was once timed as
/// "checked in part" and the two right ones called wrong.
#[test]
fn c_variants_that_disagree_without_known_answers_are_none_of_them_timed() {
    let env = Env::new();
    let run = env.json_with_failures(&with_quick(&[
        "run",
        &repo("tests/c/faulty/disagree.toml"),
        "--sizes",
        "64",
        "--format",
        "json",
    ]));
    for (variant, against) in [
        ("wrong-first", "o1"),
        ("o1", "wrong-first"),
        ("o2", "wrong-first"),
    ] {
        let case = result(
            &run,
            &format!("faulty-disagree/some-digest/{variant}@native"),
        );
        assert_case(
            case,
            "wrong",
            &format!("against variant faulty-disagree/some-digest/{against}@native"),
        );
        assert_case(
            case,
            "wrong",
            "no known answers say which is right, so none is timed",
        );
    }
}

/// Each build is checked alone before it is compared with its variants, and compared only
/// with those that passed alone: a build that crashes, hangs or is wrong ahead of right
/// ones fails its own cases only, and the right ones are timed. The first build of an
/// algorithm was once the peer of every later one, in the same worker, whatever its own
/// verdict: its crash and its wrong output failed the right builds, and an algorithm's
/// hanging build without known answers took the others down. A build that passes alone
/// and crashes only when called to be compared with (`crash-as-peer`) is failed for it,
/// named, not the build compared with it.
#[test]
fn a_c_build_that_fails_fails_alone_not_the_variants_compared_with_it() {
    let env = Env::new();
    let run = env.json_with_failures(&with_quick(&[
        "run",
        &repo("tests/c/faulty/first.toml"),
        "--sizes",
        "64",
        "--timeout",
        "2",
        "--format",
        "json",
    ]));
    let case = |variant: &str| result(&run, &format!("faulty-first/{variant}@native"));
    assert_case(
        case("sha-256/crash-in-gate"),
        "failed",
        "died in crypto_hash(inlen = 3), called by the correctness gate",
    );
    assert_case(case("sha-256/wrong"), "wrong", "FIPS 180-4");
    assert_case(
        case("sha-256/crash-as-peer"),
        "failed",
        "called by the gate to compare faulty-first/sha-256/fine@native with it: correctness check crashed (killed by signal 11 (SIGSEGV): cryptobench: died in crypto_hash(inlen = 0) of the peer variant faulty-first/sha-256/crash-as-peer@native, called by the correctness gate",
    );
    assert_case(
        case("some-digest/hang-in-gate"),
        "failed",
        "timed out after 2.0 s (hang?) in crypto_hash(inlen = 3)",
    );
    let fine = case("sha-256/fine");
    assert_eq!(fine["status"], "ok", "{fine}");
    assert_eq!(fine["verified"], true, "{fine}");
    let unknown = case("some-digest/fine");
    assert_eq!(unknown["status"], "ok", "{unknown}");
    assert!(unknown["cpb"].as_f64().is_some(), "{unknown}");
}

/// A C function that returns an error at a length the gate never tries (20000 bytes)
/// fails that case, named with its status, and is not timed doing nothing (it once was,
/// at thousands of GB/s, and called verified), nor when it starts failing only while it
/// is timed, nor when its output goes wrong while it is timed; decryption is timed on a
/// real ciphertext, so an encryption that fails at that length fails both operations'
/// cases.
#[test]
fn a_c_function_that_fails_at_a_timed_length_fails_that_case() {
    let env = Env::new();
    let run = env.json_with_failures(&with_quick(&[
        "run",
        &repo("tests/c/faulty/ret.toml"),
        &repo("tests/c/aead/limit.toml"),
        "--sizes",
        "64,20000",
        "--format",
        "json",
    ]));
    let case = |name: &str, op: &str, len: u64| {
        results(&run)
            .iter()
            .find(|r| {
                r["implementation"] == name && r["operation"] == op && r["params"]["len"] == len
            })
            .unwrap_or_else(|| panic!("no {name} {op} len={len} in {run}"))
    };
    let check = |name: &str, op: &str, failure: Option<&str>| {
        let short = case(name, op, 64);
        assert_eq!(short["status"], "ok", "{short}");
        let long = case(name, op, 20000);
        match failure {
            None => assert_eq!(long["status"], "ok", "{long}"),
            Some(why) => {
                assert_eq!(long["status"], "failed", "{long}");
                assert!(long["median_cycles"].is_null(), "timed: {long}");
                assert!(long["message"].as_str().unwrap().contains(why), "{long}");
            }
        }
    };
    check(
        "faulty-ret/sha-256/fails-at-20000@native",
        "hash",
        Some("crypto_hash returned -1 at len=20000"),
    );
    check(
        "faulty-ret/sha-256/fails-while-timed@native",
        "hash",
        Some("crypto_hash returned -1 at len=20000 after it was timed"),
    );
    let wrong = case("faulty-ret/sha-256/wrong-while-timed@native", "hash", 20000);
    assert_eq!(wrong["status"], "wrong", "{wrong}");
    assert!(wrong["median_cycles"].is_null(), "reported: {wrong}");
    assert!(
        wrong["message"]
            .as_str()
            .unwrap()
            .contains("crypto_hash at len=20000 gave other output after it was timed than before"),
        "{wrong}"
    );
    assert_eq!(
        case("faulty-ret/sha-256/wrong-while-timed@native", "hash", 64)["status"],
        "ok"
    );
    let encrypt_fails = Some("crypto_aead_encrypt returned -1 at ad=0 len=20000");
    let limits = "toy-aead-limits/toy-aead";
    check(
        &format!("{limits}/encrypt-limit@native"),
        "encrypt",
        encrypt_fails,
    );
    check(
        &format!("{limits}/encrypt-limit@native"),
        "decrypt",
        encrypt_fails,
    );
    check(&format!("{limits}/decrypt-limit@native"), "encrypt", None);
    check(
        &format!("{limits}/decrypt-limit@native"),
        "decrypt",
        Some("crypto_aead_decrypt returned -1 at ad=0 len=20000"),
    );
}

/// The build cache is keyed on what the build reads, wherever it lies: a source in a
/// subdirectory of the manifest's, and a header that source includes from its own
/// directory (neither beside the manifest nor in `include_dirs`). Each edit must be what
/// runs next; an edit to either once left the stale build to be measured.
#[test]
fn an_edit_to_a_source_or_header_in_a_subdirectory_rebuilds() {
    let env = Env::new();
    let dir = env.dir.path().join("tree");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("api.h"), "#define CRYPTO_BYTES 8\n").unwrap();
    std::fs::write(
        dir.join("manifest.toml"),
        "name = \"sub\"\nsources = [\"src/toy.c\"]\ntargets = [\"native\"]\n\
         [[implementation]]\nvariant = \"v\"\nalgorithm = \"toy-hash\"\nkind = \"hash\"\n",
    )
    .unwrap();
    let source = |status: &str| {
        format!(
            "#include \"api.h\"\n#include \"status.h\"\n\
             int crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long n) {{\n\
             for (int i = 0; i < CRYPTO_BYTES; i++) out[i] = (unsigned char)(n + i);\n\
             (void)in;\nreturn {status};\n}}\n"
        )
    };
    std::fs::write(dir.join("src/toy.c"), source("STATUS")).unwrap();
    std::fs::write(dir.join("src/status.h"), "#define STATUS 0\n").unwrap();
    let manifest = dir.join("manifest.toml");
    let args = with_quick(&[
        "run",
        manifest.to_str().unwrap(),
        "--sizes",
        "64",
        "--format",
        "json",
    ]);
    let run = env.json(&args);
    // A toy hash has nothing to be checked against: measured, but not called verified.
    assert_case(
        &run["results"][0],
        "ok",
        "no known answers or independent implementation",
    );

    std::fs::write(dir.join("src/status.h"), "#define STATUS -1\n").unwrap();
    let run = env.json_with_failures(&args);
    let r = &run["results"][0];
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("crypto_hash returned -1"),
        "the edited header was not built: {r}"
    );

    std::fs::write(dir.join("src/toy.c"), source("7")).unwrap();
    let run = env.json_with_failures(&args);
    let r = &run["results"][0];
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("crypto_hash returned 7"),
        "the edited source was not built: {r}"
    );

    // What else lies beside the manifest (a result store, a run's output) is no source:
    // it rebuilds nothing. A new header there may shadow another: that rebuilds.
    let builds = || {
        let shown = env.run_ok(&["cache"]);
        shown
            .lines()
            .find(|l| l.starts_with("Builds:"))
            .unwrap_or_else(|| panic!("{shown}"))
            .to_string()
    };
    let before = builds();
    std::fs::write(dir.join("cryptobench.db"), "stored runs").unwrap();
    std::fs::write(dir.join("run.out"), "a report").unwrap();
    env.json_with_failures(&args);
    assert_eq!(builds(), before, "a file that is no source rebuilt");
    std::fs::write(dir.join("shadow.h"), "#define SHADOW 1\n").unwrap();
    env.json_with_failures(&args);
    assert_ne!(
        builds(),
        before,
        "a new header beside the manifest did not rebuild"
    );
}

/// A C stream cipher XORs a message, not zeros, against the reference at the Rust
/// catalog's lengths: one that writes the bare keystream is refused.
#[test]
fn a_c_stream_cipher_that_ignores_the_message_is_refused() {
    let env = Env::new();
    let run = env.json_with_failures(&with_quick(&[
        "run",
        &repo("tests/c/stream/manifest.toml"),
        "--sizes",
        "64",
        "--format",
        "json",
    ]));
    let wrong = result(&run, "faulty-stream/chacha20/keystream-only@native");
    assert_case(wrong, "wrong", "RFC 8439");
}

/// A C AEAD faces the Rust catalog's forgeries: each of these opens its own ciphertexts
/// and refuses a changed last tag byte, and is refused for the forgery it lets through.
#[test]
fn c_aeads_that_accept_forgeries_are_refused() {
    let env = Env::new();
    let run = env.json_with_failures(&with_quick(&[
        "run",
        &repo("tests/c/aead/manifest.toml"),
        "--sizes",
        "64",
        "--format",
        "json",
    ]));
    for name in [
        "toy-aeads/toy-aead/o1@native",
        "toy-aeads/toy-aead/o2@native",
    ] {
        // Round trips and forgeries pass, but with no known answers nothing says the
        // ciphertext is right: measured, and not called verified.
        let fine = result(&run, name);
        assert_case(fine, "ok", "no known answers or independent implementation");
        assert_eq!(fine["verified"], false, "{fine}");
    }
    let text = env.run_ok(&["report", "latest"]);
    assert!(text.contains("checked in part (see note)"), "{text}");
    for (name, forgery) in [
        ("unauthenticated-ad", "accepted changed associated data"),
        ("unauthenticated-last-byte", "accepted a changed ciphertext"),
        ("half-tag-compared", "accepted a tag with one bit flipped"),
    ] {
        let wrong = result(&run, &format!("toy-aeads/{name}/faulty@native"));
        assert_eq!(wrong["status"], "wrong", "{wrong}");
        assert!(
            wrong["message"].as_str().unwrap().contains(forgery),
            "{wrong}"
        );
    }
}

/// A C AEAD with a NIST LWC known-answer file: verified against the file as committed
/// (written from the same source by tests/c/aead/genkat.c); refused, naming the entry,
/// against a copy with one ciphertext byte changed; and, without the file, run with a
/// caveat saying which check was not made.
#[test]
fn a_c_aead_is_checked_against_its_kat_file() {
    let env = Env::new();
    let manifest = repo("tests/c/aead/kat.toml");
    let name = "toy-aead-kat/toy-aead/kat@native";
    let args = [
        "run",
        manifest.as_str(),
        "--sizes",
        "64",
        "--format",
        "json",
    ];
    let with_kat_dir = |dir: &Path| -> Vec<String> {
        with_quick(&args)
            .into_iter()
            .chain(["--kat-dir", dir.to_str().unwrap()])
            .map(str::to_string)
            .collect()
    };

    let run = env.json(&with_quick(&args));
    for r in results(&run) {
        assert_eq!(r["implementation"], name, "{r}");
        assert_eq!(r["verified"], true, "{r}");
        assert!(r.get("message").is_none(), "checked, so no caveat: {r}");
    }

    // Entry 10 (a 1-byte message, 1 byte of AD): its CT's first byte changed.
    let good = std::fs::read_to_string(repo("tests/c/aead/toy_aead_kat.txt")).unwrap();
    let entry = good.find("Count = 10\n").expect("entry 10");
    let count_line = good[..entry].lines().count() + 1;
    let ct = entry + good[entry..].find("CT = ").unwrap() + "CT = ".len();
    let flipped = if &good[ct..ct + 1] == "0" { "1" } else { "0" };
    let corrupt = format!("{}{flipped}{}", &good[..ct], &good[ct + 1..]);
    let dir = env.path("corrupt");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("toy_aead_kat.txt"), corrupt).unwrap();
    let args_corrupt = with_kat_dir(&dir);
    let run = env.json_with_failures(&args_corrupt.iter().map(String::as_str).collect::<Vec<_>>());
    for r in results(&run) {
        assert_case(
            r,
            "wrong",
            &format!("toy_aead_kat.txt line {count_line}, Count = 10 (encrypt)"),
        );
        assert!(r["median_cycles"].is_null(), "timed: {r}");
    }

    let empty = env.path("empty");
    std::fs::create_dir(&empty).unwrap();
    let args_empty = with_kat_dir(&empty);
    let run = env.json(&args_empty.iter().map(String::as_str).collect::<Vec<_>>());
    for r in results(&run) {
        assert_case(r, "ok", "toy-aead/kat: KAT file `");
        assert_case(
            r,
            "ok",
            "toy_aead_kat.txt` not found (give its directory with --kat-dir): checked by round trips and agreement between variants only",
        );
        // Measured, but only checked in part: not called verified.
        assert_eq!(r["verified"], false, "{r}");
    }
}

/// A C core named after an algorithm of the Rust catalog is checked against its known
/// answers and reference, vectors in the manifest or not.
#[test]
fn a_c_core_of_a_known_algorithm_meets_its_known_answers() {
    let env = Env::new();
    let run = env.json_with_failures(&with_quick(&[
        "run",
        &repo("tests/c/core/manifest.toml"),
        "--format",
        "json",
    ]));
    let fine = result(&run, "keccak-cores/keccak-f1600/little-endian@native");
    assert_eq!(fine["verified"], true, "{fine}");
    assert!(
        fine.get("message").is_none(),
        "checked, so no caveat: {fine}"
    );
    let wrong = result(&run, "keccak-cores/keccak-f1600/big-endian@native");
    assert_case(wrong, "wrong", "KeccakF-1600-IntermediateValues");
    // One vocabulary for C and Rust: an unkeyed core permutes, as the catalog's
    // Keccak-f[1600] does, so the two compare (a C `core` was never compared with a
    // built-in `permute`).
    assert_eq!(fine["operation"], "permute", "{fine}");
    let run = env.json_with_failures(&with_quick(&[
        "run",
        &repo("tests/c/core/manifest.toml"),
        "rustcrypto/keccak-f1600",
        "--against",
        "rustcrypto/keccak-f1600",
        "--format",
        "json",
    ]));
    let compared: Vec<&Value> = run["comparisons"].as_array().unwrap().iter().collect();
    assert!(
        compared
            .iter()
            .any(|c| c["candidate"] == "keccak-cores/keccak-f1600/little-endian@native"),
        "{run}"
    );
}

#[test]
fn c_examples_build_verify_and_print_the_variant_target_table() {
    let env = Env::new();
    let text = env.run_ok(&with_quick(&[
        "run",
        &repo("examples/c/sha256/manifest.toml"),
        &repo("examples/c/chacha20/manifest.toml"),
        "--sizes",
        "1024",
        "--estimate",
        "--format",
        "md",
    ]));
    for expect in [
        "| Variant",
        "| o3-unroll",
        "| lanes8",
        "x86-64",
        "haswell",
        "Static estimates",
    ] {
        assert!(text.contains(expect), "`{expect}` missing from:\n{text}");
    }
    assert!(!text.contains("WRONG OUTPUT"), "{text}");
    let avx512 = std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|s| s.contains(" avx512f"));
    if !avx512 {
        assert!(text.contains("not supported on this CPU"), "{text}");
    }
}

/// KEMs and scalar multiplications in C: the shipped ML-KEM-768 passes C2SP's known
/// answers fed through `randombytes`, the shipped X25519 RFC 7748's; impostors and a
/// broken decapsulation are refused, and a build with its own `randombytes` is checked by
/// round trips with a caveat saying so.
#[test]
fn c_kems_and_scalar_multiplications_are_checked_before_timing() {
    let env = Env::new();
    let run = env.json_with_failures(&with_quick(&[
        "run",
        &repo("tests/c/asymmetric/manifest.toml"),
        &repo("tests/c/own-randombytes/manifest.toml"),
        "--format",
        "json",
    ]));
    let status = |name: &str, op: &str| {
        let r = results(&run)
            .iter()
            .find(|r| r["implementation"] == name && r["operation"] == op)
            .unwrap_or_else(|| panic!("no {name} {op} in {run}"));
        (
            r["status"].as_str().unwrap_or("").to_string(),
            r["message"].as_str().unwrap_or("").to_string(),
        )
    };
    for op in ["keypair", "encaps", "decaps"] {
        let (s, m) = status("toys/toy-kem/fine@native", op);
        assert_eq!(s, "ok", "{m}");
        assert!(m.contains("no known answers"), "{m}");
        let (s, m) = status("toys/toy-kem-faulty/broken-decaps@native", op);
        assert_eq!(s, "wrong", "{m}");
        assert!(m.contains("round trip"), "{m}");
        // Its round trips hold; a key pair made twice from the same randomness, into
        // buffers of zeros and of 0xff bytes, shows the secret key's unwritten tail.
        let (s, m) = status("toys/toy-kem-sk-tail/sk-tail-unwritten@native", op);
        assert_eq!(s, "wrong", "{m}");
        assert!(
            m.contains(
                "crypto_kem_keypair left 2368 of its 2400 secret key bytes (from byte 32 to 2399)"
            ),
            "{m}"
        );
        let (s, m) = status("toys/ml-kem-768/impostor@native", op);
        assert_eq!(s, "wrong", "{m}");
        let (s, m) = status("own-randombytes/ml-kem-768/o2@native", op);
        assert_eq!(s, "ok", "{m}");
        assert!(m.contains("brings its own randombytes"), "{m}");
        // Unfed, the same tail shows in buffers of four fills.
        let (s, m) = status(
            "own-randombytes/toy-kem-sk-tail/sk-tail-unwritten@native",
            op,
        );
        assert_eq!(s, "wrong", "{m}");
        assert!(
            m.contains(
                "crypto_kem_keypair left 2368 of its 2400 secret key bytes (from byte 32 to 2399)"
            ) && m.contains("four fills"),
            "{m}"
        );
    }
    for op in ["base", "shared"] {
        let (s, m) = status("toys/x25519/impostor@native", op);
        assert_eq!(s, "wrong", "{m}");
        assert!(m.contains("RFC 7748"), "{m}");
    }

    let run = env.json(&with_quick(&[
        "run",
        &repo("examples/c/ml-kem/manifest.toml"),
        &repo("examples/c/x25519/manifest.toml"),
        "--format",
        "json",
    ]));
    let verified: Vec<&Value> = results(&run)
        .iter()
        .filter(|r| r["status"] != "unsupported")
        .collect();
    assert!(verified.len() >= 2 * 3 + 2 * 2, "{run}");
    for r in verified {
        assert_eq!(r["verified"], true, "{r}");
        assert!(
            r["message"].is_null() || r["message"] == "",
            "a checked build needs no caveat: {r}"
        );
    }
}

#[test]
fn manifest_errors_name_the_file_and_exit_2() {
    let env = Env::new();
    let dir = env.dir.path();
    std::fs::write(
        dir.join("x.c"),
        "int crypto_hash(unsigned char *o, const unsigned char *i, unsigned long long n) { (void)o; (void)i; (void)n; return 0; }\nthis does not compile;\n",
    )
    .unwrap();
    std::fs::write(dir.join("api.h"), "#define CRYPTO_BYTES 32\n").unwrap();
    let m = dir.join("m.toml");
    let base = "name = \"bad\"\nsources = [\"x.c\"]\ntargets = [\"native\"]\n[[implementation]]\nvariant = \"v\"\nalgorithm = \"sha-256\"\nkind = \"hash\"\n";
    std::fs::write(&m, base).unwrap();
    let out = env.cmd(&["run", m.to_str().unwrap()]);
    common::assert_refused(
        &out,
        "m.toml: compiling `v` (sha-256) for target `native` failed; the compiler said:",
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("x.c"),
        "the compiler's message is shown"
    );
    std::fs::write(&m, base.replace("native", "pentium9")).unwrap();
    assert_bad_input(
        &env.cmd(&["run", m.to_str().unwrap()]),
        "unknown target `pentium9`",
    );
    std::fs::write(dir.join("x.c"), "int crypto_hashh(void) { return 0; }\n").unwrap();
    std::fs::write(&m, base).unwrap();
    // Found when it is built, as bad input, not when a worker loads it.
    assert_bad_input(
        &env.cmd(&["run", m.to_str().unwrap(), "--samples", "8"]),
        "m.toml: `v` (sha-256) for target `native`: the build does not export `crypto_hash`, which a `hash` build must (docs/c-api.md); it exports `crypto_hashh`",
    );
}

/// Ctrl-C, as a terminal sends it (to the run and its worker at once): the run stops,
/// prints and keeps what it measured, and no case is blamed for the worker it stopped.
#[test]
fn ctrl_c_keeps_and_prints_what_was_measured() {
    let env = Env::new();
    // Interrupted once the first samples are stored, long before its 40 rounds end.
    let measured = |run: &Value| {
        run["results"]
            .as_array()
            .is_some_and(|rs| rs.iter().any(|r| r["samples"].as_u64().unwrap_or(0) > 0))
    };
    let out = env.interrupt_when(
        &[
            "run",
            "chacha20-rng",
            "--processes",
            "40",
            "--save-baseline",
            "partial",
        ],
        measured,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "stderr: {stderr}");
    assert!(
        stderr.contains("interrupted: run 1 keeps what was measured"),
        "{stderr}"
    );
    assert!(stderr.contains("not saved as a baseline"), "{stderr}");
    let printed = String::from_utf8_lossy(&out.stdout);
    // Said stopped, not "or still measuring": the run wrote down when it was stopped.
    assert!(
        printed.contains("INCOMPLETE: stopped at 20") && !printed.contains("still measuring"),
        "{printed}"
    );
    // Its cases got fewer processes than the 40 asked, and the header says so.
    assert!(
        printed.contains("Each case: up to 40 worker processes (the run stopped with "),
        "{printed}"
    );

    let run = env.json(&["report", "1", "--format", "json"]);
    assert_eq!(
        run["status"], "incomplete",
        "an interrupted run stays incomplete"
    );
    assert!(
        run["stopped_at"].as_str().is_some_and(|t| t.ends_with('Z')),
        "{}",
        run["stopped_at"]
    );
    for r in results(&run) {
        assert_ne!(r["status"], "failed", "blamed for the interruption: {r}");
    }
    assert!(
        measured(&run),
        "what was measured before Ctrl-C is kept: {run}"
    );
    assert!(!env.cmd(&["report", "partial"]).status.success());
}

/// A scheduler's time limit or a pod's eviction sends SIGTERM: the run stops as at Ctrl-C,
/// keeping what was measured, marked incomplete.
#[test]
fn sigterm_keeps_what_was_measured_as_ctrl_c_does() {
    let env = Env::new();
    let measured = |run: &Value| {
        run["results"]
            .as_array()
            .is_some_and(|rs| rs.iter().any(|r| r["samples"].as_u64().unwrap_or(0) > 0))
    };
    let mut running = env.spawn_in_terminal(&["run", "chacha20-rng", "--processes", "40"]);
    env.wait_for_run(&mut running, measured);
    running.signal(libc::SIGTERM);
    let out = running.wait_with_output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "stderr: {stderr}");
    assert!(
        stderr.contains("interrupted: run 1 keeps what was measured before it was stopped"),
        "{stderr}"
    );
    let run = env.json(&["report", "1", "--format", "json"]);
    assert_eq!(run["status"], "incomplete", "{run}");
    assert!(measured(&run), "{run}");
}

/// A worker that ignores Ctrl-C (measured code may) keeps the run waiting after the first;
/// a second, later than the half second within which it would be the first delivered
/// twice, ends the run at once with status 130 and takes the worker with it.
#[test]
fn a_second_ctrl_c_quits_at_once_and_leaves_no_worker() {
    let env = Env::new();
    // Its correctness check hangs with SIGINT ignored; only the ten-minute limit or a
    // second Ctrl-C would end it.
    let mut run = env.spawn_in_terminal(&["run", "test-gate-hang", "--timeout", "600"]);
    let main = run.pid();
    let ignores_sigint = |worker: i32| {
        std::fs::read_to_string(format!("/proc/{worker}/status")).is_ok_and(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("SigIgn:"))
                .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
                .is_some_and(|mask| mask & (1 << (libc::SIGINT - 1)) != 0)
        })
    };
    run.wait_until(|| common::children(main).into_iter().any(ignores_sigint));
    let workers = common::children(main);
    run.ctrl_c();
    // Well past the half second: the run counts it from when its handler ran, which a
    // loaded host may delay, and a gap of 800 ms let a delay of 300 ms turn the second
    // Ctrl-C into the first delivered twice: ignored, the run waits out its ten minutes.
    std::thread::sleep(std::time::Duration::from_secs(2));
    assert!(
        run.running(),
        "the first Ctrl-C waits for the worker in flight"
    );
    run.ctrl_c();
    // Ignored, the run would end when the worker's ten minutes are up.
    let out = run.wait_ended_within(std::time::Duration::from_secs(120));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "stderr: {stderr}");
    assert!(out.stdout.is_empty(), "quit without its report: {out:?}");
    assert!(!workers.is_empty());
    for worker in workers {
        common::assert_gone(worker);
    }
}

/// glibc's memcpy alone moves ChaCha20 RNGs by 15 %: runs measured under another
/// GLIBC_TUNABLES are marked in the history and refused by `compare` without --force.
#[test]
fn runs_in_another_environment_are_not_taken_for_comparable() {
    let env = Env::new();
    let args = [
        "run",
        "rustcrypto/sha-256/hash",
        "--sizes",
        "64",
        "--samples",
        "8",
        "--processes",
        "1",
        "--layouts",
        "1",
    ];
    env.run_ok(&args);
    let tuned = env
        .command(&args)
        .env("GLIBC_TUNABLES", "glibc.cpu.hwcaps=-AVX512F")
        .output()
        .unwrap();
    assert!(tuned.status.success(), "{tuned:?}");
    let h = env.json(&["history", "--format", "json"]);
    let first = &h["cases"][0]["points"][0];
    assert_eq!(first["comparable"], false, "{h}");
    assert_eq!(
        first["caveats"][0], "measured without GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F",
        "{h}"
    );
    assert_bad_input(
        &env.cmd(&["compare", "1", "2"]),
        "GLIBC_TUNABLES differs: run 1 `unset`, run 2 `glibc.cpu.hwcaps=-AVX512F`",
    );
    assert!(env.cmd(&["compare", "1", "2", "--force"]).status.success());
}

/// The cells of one Markdown table row.
fn md_cells(line: &str) -> Vec<String> {
    line.trim()
        .trim_matches('|')
        .split(" | ")
        .map(|c| c.trim().to_string())
        .collect()
}

/// The `aead` experiment measures AES-GCM at 64 bytes with no associated data and with
/// 13 bytes of it: two cases, whose rows say which is which in every format that prints
/// the table, not only in JSON and CSV.
#[test]
fn every_parameter_that_varies_within_a_table_is_a_column() {
    let env = Env::new();
    let one = [
        "--sizes",
        "64",
        "--samples",
        "8",
        "--processes",
        "1",
        "--layouts",
        "1",
    ];
    let mut args = vec!["run", "aead"];
    args.extend(one);
    env.run_ok(&args);
    let md = env.run_ok(&["report", "latest", "--format", "md"]);
    let header = md_cells(
        md.lines()
            .find(|l| l.starts_with("| Implementation"))
            .expect(&md),
    );
    let ad = header
        .iter()
        .position(|h| h == "ad")
        .expect("an `ad` column");
    let bytes = header.iter().position(|h| h == "Bytes").unwrap();
    let rows: Vec<Vec<String>> = md
        .lines()
        .filter(|l| l.starts_with("| rustcrypto/aes-128-gcm ") && l.contains(" encrypt "))
        .map(md_cells)
        .collect();
    let shown: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r[ad].as_str(), r[bytes].as_str()))
        .collect();
    assert_eq!(shown, [("0", "64"), ("13", "64")], "{md}");

    let table = env.run_ok(&["report", "latest"]);
    let header = table
        .lines()
        .find(|l| l.contains("Implementation"))
        .unwrap();
    assert!(
        header.split_whitespace().any(|h| h == "ad"),
        "the text table has the column too: {header}"
    );
    let html = env.run_ok(&["report", "latest", "--format", "html"]);
    assert!(html.contains("<th>ad</th>"), "and the page");
    // Where only the length varies, the Bytes column is it: no column repeats it.
    let mut args = vec!["run", "rustcrypto/chacha20/xor", "--sizes", "64,128"];
    args.extend(&one[2..]);
    let md = env.run_ok(
        &args
            .iter()
            .copied()
            .chain(["--format", "md"])
            .collect::<Vec<_>>(),
    );
    let header = md_cells(
        md.lines()
            .find(|l| l.starts_with("| Implementation"))
            .unwrap(),
    );
    assert_eq!(
        header[..3],
        ["Implementation", "Operation", "Bytes"],
        "{md}"
    );
}

/// A manifest's names are the user's: Markdown shows them as written, in the heading
/// and the notes as in the cells, never as HTML.
#[test]
fn markdown_escapes_names_in_headings_and_notes_too() {
    let env = Env::new();
    let manifest = env.c_hash(
        "dir<b>",
        "toy.c",
        "#include \"api.h\"\n\
         int crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long n) {\n\
         for (int i = 0; i < CRYPTO_BYTES; i++) out[i] = (unsigned char)(n + i);\n\
         (void)in;\nreturn 0;\n}\n",
        "name = \"<script>alert(1)\"\nsources = [\"toy.c\"]\ntargets = [\"native\"]\n\
         [[implementation]]\nvariant = \"v\"\nalgorithm = \"toy<i>perm\"\nkind = \"hash\"\n",
    );
    let md = env.run_ok(&with_quick(&[
        "run",
        manifest.to_str().unwrap(),
        "--sizes",
        "64",
        "--format",
        "md",
    ]));
    assert!(!md.contains("<script"), "{md}");
    assert!(!md.contains("<i>") && !md.contains("<b>"), "{md}");
    let heading = md.lines().find(|l| l.starts_with("## ")).expect(&md);
    assert!(heading.contains("dir&lt;b>/manifest.toml"), "{heading}");
    let note = md.lines().find(|l| l.starts_with("Note:")).expect(&md);
    assert!(note.contains("toy&lt;i>perm"), "{note}");
}

/// A run stopped by Ctrl-C has fewer samples than asked: `history` marks it not
/// comparable, and `compare` refuses it unless `--force`, which compares with a warning.
#[test]
fn an_interrupted_run_is_marked_incomplete_in_history_and_compare() {
    let env = Env::new();
    let case = ["run", "rustcrypto/chacha20/xor", "--sizes", "64"];
    let with =
        |more: &[&'static str]| -> Vec<&'static str> { case.iter().chain(more).copied().collect() };
    env.run_ok(&with(QUICK));
    let measured = |r: &Value| {
        r["run_id"] == 2
            && r["results"]
                .as_array()
                .is_some_and(|rs| rs.iter().any(|r| r["samples"].as_u64().unwrap_or(0) > 0))
    };
    let out = env.interrupt_when(&with(&["--processes", "200"]), measured);
    assert_eq!(out.status.code(), Some(130));

    let history = env.run_ok(&["history"]);
    let row = history
        .lines()
        .find(|l| l.trim_start().starts_with("2 "))
        .expect(&history);
    assert!(row.contains("NOT COMPARABLE: incomplete run"), "{history}");
    let json = env.json(&["history", "--format", "json"]);
    // It says when it was stopped, not "or still running": the run wrote that down.
    let caveats = json["cases"][0]["points"][1]["caveats"].to_string();
    assert!(
        caveats.contains("incomplete run (stopped at 20") && !caveats.contains("still"),
        "{caveats}"
    );
    assert_eq!(json["runs"][1]["complete"], false, "{json}");
    assert_eq!(json["cases"][0]["points"][1]["comparable"], false, "{json}");
    // The points are judged against the newest complete run, not the stopped one: on a
    // shared store some machine's newest run is always still measuring.
    // (Whether run 1's point is comparable is the host's to say: the canary may call it
    // unsteady.)
    assert_eq!(json["cases"][0]["reference_run"], 1, "{json}");
    // `machines` counts the complete runs apart, and says its newest is not one.
    let machines = env.json(&["machines", "--format", "json"]);
    assert_eq!(machines[0]["runs"], 2, "{machines}");
    assert_eq!(machines[0]["complete_runs"], 1, "{machines}");
    assert_eq!(machines[0]["last_run_complete"], false, "{machines}");
    let table = env.run_ok(&["machines"]);
    assert!(table.contains(" (incomplete)"), "{table}");

    let refused = env.cmd(&["compare", "1", "2"]);
    assert_bad_input(&refused, "run 2 is incomplete (stopped at 20");
    assert_bad_input(&refused, "--force");
    let forced = env.run_ok(&["compare", "1", "2", "--force"]);
    assert!(forced.contains("Warning: run 2 is incomplete"), "{forced}");
    // Nor is it a baseline: refused before measuring.
    assert_bad_input(
        &env.cmd(&with(&["--baseline", "2"])),
        "--baseline 2: run 2 is incomplete",
    );
    let runs = env.json(&["history", "--format", "json"])["runs"].clone();
    assert_eq!(runs.as_array().unwrap().len(), 2, "nothing measured");
}

/// The derived tables for any run, and an experiment with a manifest of one's own: the
/// manifest's cases join the experiment's run and tables, measured interleaved with it.
#[test]
fn any_run_can_ask_for_ratios_and_slopes_and_an_experiment_takes_extra_manifests() {
    let env = Env::new();
    let run = env.json(&with_quick(&[
        "run",
        "chacha20-rng",
        &repo("examples/c/chacha20/manifest.toml"),
        "--sizes",
        "1024,4096",
        "--ratio-to",
        "rustcrypto/chacha20",
        "--slope",
        "1024,4096",
        "--format",
        "json",
    ]));
    assert_eq!(
        run["experiment"],
        format!("chacha20-rng {}", repo("examples/c/chacha20/manifest.toml")),
        "{run}"
    );
    let implementations: Vec<&str> = results(&run)
        .iter()
        .map(|r| r["implementation"].as_str().unwrap())
        .collect();
    assert!(
        implementations.iter().any(|i| i.starts_with("c-chacha20/")),
        "{implementations:?}"
    );
    // The experiment's own comparison is kept beside the additions.
    assert!(!run["comparisons"].as_array().unwrap().is_empty(), "{run}");
    let ratios = run["ratios"].as_array().unwrap();
    assert!(
        ratios
            .iter()
            .any(|r| r["reference"] == "rustcrypto/chacha20"
                && r["implementation"]
                    .as_str()
                    .unwrap()
                    .starts_with("c-chacha20/")),
        "{run}"
    );
    let slopes = run["slopes"].as_array().unwrap();
    assert!(
        slopes
            .iter()
            .any(|s| s["implementation"] == "rustcrypto/chacha20"),
        "{run}"
    );

    // Across operations, as the experiment's own table: an RNG over the cipher it runs.
    let rng = env.json(&with_quick(&[
        "run",
        "rand_chacha/chacha20-rng",
        "rustcrypto/chacha20/xor",
        "--sizes",
        "1024",
        "--ratio-to",
        "rustcrypto/chacha20",
        "--format",
        "json",
    ]));
    let ratios = rng["ratios"].as_array().unwrap();
    assert_eq!(ratios.len(), 1, "{rng}");
    assert_eq!(ratios[0]["implementation"], "rand_chacha/chacha20-rng");
    let sha = ["run", "rustcrypto/sha-256", "--sizes", "64,1024"];
    // Too few processes for the slope's interval: said before measuring, not left to
    // a report without the table.
    let few = env.cmd(
        &[
            sha.as_slice(),
            &["--slope", "64,1024", "--processes", "3", "--samples", "8"],
            &["--remeasure-budget", "0", "--layouts", "1"],
            &["--format", "json"],
        ]
        .concat(),
    );
    let said = String::from_utf8_lossy(&few.stderr);
    assert!(few.status.success(), "{said}");
    assert!(
        said.contains("warning: --processes 3: the slope table this run asks for needs 4 or more worker processes per case"),
        "{said}"
    );
    assert!(said.contains("and will be left out"), "{said}");
    let few: Value = serde_json::from_slice(&few.stdout).unwrap();
    assert_eq!(few["slopes"], serde_json::json!([]), "{few}");
    assert_bad_input(
        &env.cmd(&[sha.as_slice(), &["--slope", "1024,64"]].concat()),
        "the first length must be the shorter",
    );
    assert_bad_input(
        &env.cmd(&[sha.as_slice(), &["--slope", "64,4096"]].concat()),
        "measures no case at 4096 bytes",
    );
    assert_bad_input(
        &env.cmd(&[sha.as_slice(), &["--ratio-to", "openssl/sha-256"]].concat()),
        "--ratio-to `openssl/sha-256`: that implementation is not part of this run",
    );
    assert_bad_input(
        &env.cmd(&["run", "chacha20-rng", "keccak-xn"]),
        "are both experiments",
    );
}

/// The N-lane Keccak default follows `KECCAK_LANES_BACKEND` and says so in its name; a
/// value that names no backend, or two of one lane count, is refused in one line before
/// anything is built or measured (every worker would inherit it).
#[test]
fn the_keccak_override_names_the_path_or_is_refused() {
    let env = Env::new();
    let with = |value: &str, args: &[&str]| {
        env.cmd_with(
            args,
            &[("KECCAK_LANES_BACKEND", std::ffi::OsStr::new(value))],
        )
    };
    let listed = with("x2-sse2,x4-avx2", &["list", "keccak-f1600-x"]);
    assert!(listed.status.success());
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.contains("cryptobench/keccak-f1600-x2@sse2 "),
        "{listed}"
    );
    assert!(
        listed.contains("cryptobench/keccak-f1600-x4@avx2 "),
        "{listed}"
    );
    assert!(!listed.contains("keccak-f1600-x2@avx512"), "{listed}");
    // An experiment names the default by lane count; `list` says which path it takes here.
    let plan = with("x2-sse2", &["list", "keccak-xn"]);
    let plan = String::from_utf8_lossy(&plan.stdout);
    assert!(
        plan.contains("cryptobench/shake128-x2 (xof): here cryptobench/shake128-x2@sse2\n"),
        "{plan}"
    );
    let info = with("x2-sse2", &["info"]);
    assert!(
        String::from_utf8_lossy(&info.stdout)
            .contains("x2: x2-sse2 (named by KECCAK_LANES_BACKEND)"),
        "{}",
        String::from_utf8_lossy(&info.stdout)
    );
    assert_bad_input(
        &with("x2-avx3", &["run", "keccak-f1600-x2", "--processes", "2"]),
        "KECCAK_LANES_BACKEND: \"x2-avx3\" is not a backend; the backends are x1-scalar",
    );
    assert_bad_input(
        &with("x4-avx2,x4-avx512vl", &["check", "keccak-f1600-x4"]),
        "x4-avx2 and x4-avx512vl both run 4 lanes",
    );
}

/// `list MANIFEST` shows every implementation x target of a manifest, read from it and
/// nothing built (it once said "no implementation matches"); filters after the path
/// narrow it, and one that matches nothing names the manifest and what it has.
#[test]
fn list_shows_a_manifests_builds_without_building_them() {
    let env = Env::new();
    let manifest = repo("examples/c/sha256/manifest.toml");
    // A keyed core is a block cipher, an unkeyed one a permutation, as the catalog names
    // them (Clyde-128's vectors carry a key; Shadow-512's do not).
    let spook = env.run_ok(&["list", &repo("implementations/c/spook/manifest.toml")]);
    for (build, operation) in [
        ("spook/clyde-128/clyde_32bit@native ", "encrypt"),
        ("spook/shadow-512-v1/shadow_32bit@native ", "permute"),
    ] {
        let line = spook.lines().find(|l| l.contains(build)).unwrap();
        assert!(line.contains(operation), "{line}");
    }
    let text = env.run_ok(&["list", &manifest]);
    for variant in ["o2", "o3-unroll"] {
        for target in ["x86-64", "haswell", "skylake-avx512", "native"] {
            let name = format!("c-sha256/sha-256/{variant}@{target}");
            let line = text
                .lines()
                .find(|l| l.contains(&format!("{name} ")))
                .unwrap_or_else(|| panic!("{name} not listed: {text}"));
            assert!(line.contains("hash") && line.contains("len"), "{line}");
            // What the gate will check it against, said before building.
            assert!(line.contains("known answers for sha-256"), "{line}");
        }
    }
    assert!(text.contains("runs it"), "{text}");
    // The manifest's description heads the listing, under its provider name.
    assert!(text.starts_with("c-sha256: portable C SHA-256"), "{text}");
    assert!(
        !env.path("build-cache").exists(),
        "list built something: {text}"
    );

    let narrowed = env.run_ok(&["list", &format!("{manifest}:variant=o2,target=native")]);
    let rows: Vec<&str> = narrowed
        .lines()
        .filter(|l| l.contains("c-sha256/"))
        .collect();
    assert_eq!(rows.len(), 1, "{narrowed}");
    assert!(rows[0].contains("c-sha256/sha-256/o2@native"), "{narrowed}");

    assert_bad_input(
        &env.cmd(&["list", &format!("{manifest}:variant=o4")]),
        "sha256/manifest.toml: `variant=o4` matches nothing in this manifest; its variants: o2, o3-unroll",
    );
    assert_bad_input(
        &env.cmd(&["list", &format!("{manifest}:target=znver9")]),
        "`target=znver9` matches nothing in this manifest; its targets: x86-64, haswell, skylake-avx512, native",
    );
    assert_bad_input(
        &env.cmd(&["list", &format!("{manifest}:colour=red")]),
        "`colour=red` is no filter of a manifest's builds",
    );
}

/// `check` builds and runs the correctness gate that `run` applies before timing, prints
/// each build's verdict and measures and stores nothing: exit 1 when one is wrong, 0
/// otherwise; built-in implementations are checked the same way.
#[test]
fn check_builds_and_checks_without_timing() {
    let env = Env::new();
    let faulty = repo("tests/c/faulty/manifest.toml");
    let out = env.cmd(&["check", &format!("{faulty}:variant=fine,variant=wrong")]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text}{err}");
    let line = |name: &str| {
        text.lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("{name} not in: {text}"))
            .to_string()
    };
    assert!(
        line("faulty/sha-256/fine@native").contains("verified"),
        "{text}"
    );
    assert!(
        line("faulty/sha-256/wrong@native").contains("WRONG OUTPUT"),
        "{text}"
    );
    assert!(
        !text.contains("faulty/sha-256/crash"),
        "not selected: {text}"
    );
    assert!(
        err.contains("1 implementation gave wrong output or failed"),
        "{err}"
    );

    let aead = repo("tests/c/aead/manifest.toml");
    let text = env.run_ok(&["check", &format!("{aead}:algorithm=toy-aead")]);
    assert!(
        line_of(&text, "toy-aeads/toy-aead/o1@native").contains("checked in part"),
        "{text}"
    );
    let text = env.run_ok(&["check", "rustcrypto/sha-256"]);
    assert!(
        line_of(&text, "rustcrypto/sha-256").contains("verified"),
        "{text}"
    );
    assert!(!env.db().exists(), "check stored something");
}

fn line_of(text: &str, what: &str) -> String {
    text.lines()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("{what} not in: {text}"))
        .to_string()
}

/// Filters after a manifest's path narrow what `run` builds and measures: an AEAD's
/// encryption alone (decryption was always measured too).
#[test]
fn a_manifest_is_narrowed_to_some_builds_and_operations() {
    let env = Env::new();
    let manifest = repo("tests/c/aead/manifest.toml");
    let run = env.json(&with_quick(&[
        "run",
        &format!("{manifest}:variant=o2,operation=encrypt"),
        "--sizes",
        "64",
        "--format",
        "json",
    ]));
    let rs = results(&run);
    assert_eq!(rs.len(), 1, "{run}");
    assert_eq!(rs[0]["implementation"], "toy-aeads/toy-aead/o2@native");
    assert_eq!(rs[0]["operation"], "encrypt");
    assert_bad_input(
        &env.cmd(&["run", &format!("{manifest}:operation=hash")]),
        "aead/manifest.toml: `operation=hash` matches nothing in this manifest; its operations: encrypt, decrypt",
    );
}

/// `cache` shows the build cache and `cache clean` empties it, all of it or the builds
/// not used for a while.
#[test]
fn the_build_cache_is_shown_and_cleaned() {
    let env = Env::new();
    let cache = env.path("build-cache");
    let shown = env.run_ok(&["cache"]);
    assert!(shown.contains(&cache.display().to_string()), "{shown}");
    assert!(shown.contains("Builds:      0"), "{shown}");
    let manifest = repo("tests/c/faulty/manifest.toml");
    env.run_ok(&["check", &format!("{manifest}:variant=fine")]);
    let shown = env.run_ok(&["cache"]);
    assert!(shown.contains("Builds:      1 ("), "{shown}");
    let kept = env.run_ok(&["cache", "clean", "--older-than", "1d"]);
    assert!(
        kept.contains("removed 0 builds") && kept.contains("kept 1"),
        "{kept}"
    );
    std::fs::write(cache.join("mine.txt"), "not cryptobench's").unwrap();
    let cleaned = env.run_ok(&["cache", "clean"]);
    assert!(cleaned.contains("removed 1 build ("), "{cleaned}");
    assert!(env.run_ok(&["cache"]).contains("Builds:      0 (0 B"));
    assert!(
        cache.join("mine.txt").exists(),
        "a file not cryptobench's was removed"
    );
    let bad = env.cmd(&["cache", "clean", "--older-than", "30"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// A KAT file that is not found (the shipped Spook manifest's lie outside a clone) is said
/// at the top of the report and in the status column, with the way to give it.
#[test]
fn a_missing_kat_file_is_said_at_the_top_and_in_the_status() {
    let env = Env::new();
    let empty = env.path("empty");
    std::fs::create_dir(&empty).unwrap();
    let manifest = repo("tests/c/aead/kat.toml");
    let text = env.run_ok(&with_quick(&[
        "run",
        &manifest,
        "--sizes",
        "64",
        "--kat-dir",
        empty.to_str().unwrap(),
    ]));
    let warning = line_of(
        &text,
        "Warning: toy-aead-kat/toy-aead/kat@native was checked without its KAT file",
    );
    assert!(warning.contains("--kat-dir DIR"), "{warning}");
    let table = text.find("Implementation").expect("table");
    assert!(
        text.find("Warning: toy-aead-kat").unwrap() < table,
        "{text}"
    );
    assert!(
        line_of(&text, "toy-aead-kat/toy-aead/kat@native  encrypt")
            .contains("checked in part: KAT file not found, see --kat-dir"),
        "{text}"
    );
}

/// Two runs measuring on one CPU at once share its core, and both runs' figures suffer:
/// the second is told (it measures all the same).
#[test]
fn a_second_run_on_a_cpu_in_use_is_warned() {
    let env = Env::new();
    let run = [
        "run",
        "rustcrypto/sha-256/hash",
        "--sizes",
        "64",
        "--cpu",
        "0",
    ];
    let args = with_quick(&run);
    let lock = env.dir.path().join("cryptobench-cpu0.lock");
    // `-o`: flock itself holds the lock, not the command, so killing it lets go.
    let mut holder = std::process::Command::new("flock")
        .arg("-o")
        .arg(&lock)
        .args(["sleep", "20"])
        .spawn()
        .expect("flock (util-linux) runs");
    // The holder has the lock once the file exists and a non-blocking try fails.
    let held = || {
        !std::process::Command::new("flock")
            .args(["-n"])
            .arg(&lock)
            .arg("true")
            .status()
            .unwrap()
            .success()
    };
    let start = std::time::Instant::now();
    while !held() && start.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = env.cmd(&args);
    holder.kill().unwrap();
    holder.wait().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("another cryptobench run is measuring on CPU 0 now"),
        "{err}"
    );
    // The run's record says so too, for every later report of it.
    let stored = env.run_ok(&["report", "1", "--format", "md"]);
    assert!(
        stored.contains("Warning: another cryptobench run is measuring on CPU 0 now"),
        "{stored}"
    );
    // Alone on the CPU: no such warning.
    let out = env.cmd(&args);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("another cryptobench run"));
    let stored = env.run_ok(&["report", "2", "--format", "md"]);
    assert!(!stored.contains("another cryptobench run"), "{stored}");
}

/// A run's md report names the command it was started with, its seed, its sizes and the
/// versions of the libraries its implementations come from, crates as Cargo.lock pins them.
/// JSON carries the same record.
#[test]
fn a_runs_report_says_what_built_and_ran_it() {
    let env = Env::new();
    let args = [
        "run",
        "rand_chacha",
        "--sizes",
        "1024,4096",
        "--seed",
        "4242",
        "--samples",
        "8",
        "--processes",
        "1",
        "--layouts",
        "1",
    ];
    env.run_ok(&args);
    let md = env.run_ok(&["report", "latest", "--format", "md"]);
    let line = |prefix: &str| {
        md.lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` line in:\n{md}"))
            .trim_end()
            .to_string()
    };
    // Quoted as a shell reads it back (shlex quotes the comma); the program by its name,
    // not by the path the test started it by.
    assert_eq!(
        line("Command: "),
        "Command: cryptobench run rand_chacha --sizes '1024,4096' --seed 4242 --samples 8 --processes 1 --layouts 1",
        "{md}"
    );
    assert!(
        line("Options: ").starts_with("Options: seed 4242; "),
        "{md}"
    );
    assert!(line("Options: ").contains("; len 1024, 4096; "), "{md}");
    // Only rand_chacha was measured: neither the OpenSSL it does not use nor the rest
    // of the catalog's crates.
    let lock = std::fs::read_to_string(repo("Cargo.lock")).unwrap();
    let libraries = line("Libraries: ");
    let rand_chacha = libraries
        .strip_prefix("Libraries: rand_chacha ")
        .expect(&libraries);
    assert!(
        lock.contains(&format!(
            "name = \"rand_chacha\"\nversion = \"{rand_chacha}\""
        )),
        "{libraries}"
    );
    assert!(line("Built: ").contains(" (opt-level "), "{md}");

    let json = env.json(&["report", "latest", "--format", "json"]);
    let argv: Vec<&str> = json["options"]["run"]["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(argv[1..], args, "{json}");
    assert_eq!(json["options"]["run"]["seed"], 4242);
    assert_eq!(
        json["machine"]["build"]["libraries"][0]["name"],
        "rand_chacha"
    );
    assert_eq!(
        json["machine"]["build"]["libraries"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}
