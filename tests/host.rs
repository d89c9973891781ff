//! The canary, end to end: read beside every process, stored and reported; a host that
//! moved since the baseline stops the gate from deciding (exit 4); a run too unsteady to
//! judge later runs by is not saved as a baseline; cases are re-measured within a budget.
//!
//! The host is moved by `CRYPTOBENCH_TEST_CANARY_REPEAT`, which makes the canary do more
//! work, as a neighbour on the core would make it take longer; the code measured does
//! not change.

mod common;

use std::ffi::OsStr;

use serde_json::Value;

use common::Env;

const QUICK: &[&str] = &[
    "rustcrypto/chacha20/",
    "--sizes",
    "64",
    "--samples",
    "64",
    "--processes",
    "4",
    "--layouts",
    "1",
    "--remeasure-budget",
    "0",
    // Wide enough that the same code in two runs is never beyond it: what is tested
    // here is the host, not the code.
    "--noise-threshold",
    "40",
];

fn run(extra: &[&str]) -> Vec<String> {
    ["run"]
        .iter()
        .chain(QUICK)
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn the_canary_is_read_beside_every_process_and_reported() {
    let env = Env::new();
    let json = env.json(&args(&run(&["--format", "json"])));
    let host = &json["host"];
    assert!(
        host["canary"].as_str().unwrap().starts_with("canary/1:"),
        "{host}"
    );
    assert_eq!(host["processes"], 4, "{host}");
    assert!(host["threshold_pct"].as_f64().unwrap() >= 2.0, "{host}");
    assert!(host["reference"].as_f64().unwrap() > 0.0, "{host}");

    let text = env.run_ok(&["report", "latest"]);
    assert!(
        [
            "Host: steady by the canary",
            "Warning: the host moved",
            "Warning: the host never settled"
        ]
        .iter()
        .any(|said| text.contains(said)),
        "{text}"
    );
    let csv = env.run_ok(&["report", "latest", "--format", "csv"]);
    assert!(csv.lines().next().unwrap().contains(",host,"), "{csv}");

    // Without it, every format says that the host was not checked, from what is stored,
    // rather than look like a checked run.
    let json = env.json(&args(&run(&["--no-canary", "--format", "json"])));
    assert!(json.get("host").is_none(), "{json}");
    assert!(
        json["host_not_checked"]
            .as_str()
            .is_some_and(|s| s.starts_with("not checked (--no-canary)")),
        "{json}"
    );
    for format in ["table", "md", "html"] {
        let text = env.run_ok(&["report", "latest", "--format", format]);
        assert!(
            text.contains("Host: not checked (--no-canary)"),
            "{format}: {text}"
        );
    }
    let csv = env.run_ok(&["report", "latest", "--format", "csv"]);
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert!(!rows.is_empty());
    for row in rows {
        assert!(row.contains(",not checked (--no-canary)"), "{row}");
    }
    let gab = env.json(&["report", "latest", "--format", "github-action-benchmark"]);
    for e in gab.as_array().unwrap() {
        assert!(
            e["extra"]
                .as_str()
                .unwrap()
                .contains("host not checked (--no-canary)"),
            "{e}"
        );
    }
}

#[test]
fn a_host_that_moved_since_the_baseline_leaves_the_gate_undecided() {
    let env = Env::new();
    env.run_ok(&args(&run(&[
        "--save-baseline",
        "main",
        "--force-baseline",
    ])));
    let gate = run(&[
        "--baseline",
        "main",
        "--fail-on-regression",
        "--format",
        "json",
    ]);
    let out = env.cmd_with(
        &args(&gate),
        &[("CRYPTOBENCH_TEST_CANARY_REPEAT", OsStr::new("3"))],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(
        err.contains("the regression gate could not decide"),
        "{err}"
    );
    // (Under the other tests' load either run may not have settled: undecided as well,
    // and said so.)
    assert!(
        err.contains("another state than for baseline run 1") || err.contains("never settled"),
        "{err}"
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let host = &json["against_baseline"]["host"];
    assert_eq!(host["differs"], true, "{host}");
    assert!(host["change_pct"].as_f64().unwrap() > 100.0, "{host}");
    let comparisons = json["against_baseline"]["comparisons"].as_array().unwrap();
    assert!(!comparisons.is_empty());
    for c in comparisons {
        assert!(
            c["undecided"] == "host_in_another_state" || c["undecided"] == "host_unsteady",
            "{c}"
        );
    }
    let text = env.run_ok(&["report", "latest"]);
    assert!(text.contains("the gate cannot decide"), "{text}");
    // No row reads a bare verdict where no gate decides.
    assert!(text.contains("(undecided: host "), "{text}");
    let csv = env.run_ok(&["report", "latest", "--format", "csv"]);
    assert!(csv.contains("undecided"), "{csv}");
}

#[test]
fn a_baseline_without_a_canary_is_compared_with_a_caveat() {
    let env = Env::new();
    env.run_ok(&args(&run(&[
        "--no-canary",
        "--save-baseline",
        "old",
        "--force-baseline",
    ])));
    let json = env.json(&args(&run(&["--baseline", "old", "--format", "json"])));
    let caveats = json["against_baseline"]["caveats"].to_string();
    assert!(caveats.contains("cannot be checked"), "{caveats}");
}

#[test]
fn a_run_too_unsteady_to_judge_by_is_not_saved_as_a_baseline() {
    let env = Env::new();
    // Processes never agree within a millionth of a percent.
    // Without the canary, so that the processes' spread is what refuses it.
    let mut strict = run(&["--save-baseline", "main", "--no-canary"]);
    let at = strict
        .iter()
        .position(|a| a == "--noise-threshold")
        .unwrap();
    strict[at + 1] = "0.000001".into();
    // Enough processes that a few set aside (the canary moving as other tests run)
    // leave the four a spread needs.
    let at = strict.iter().position(|a| a == "--processes").unwrap();
    strict[at + 1] = "8".into();
    let out = env.cmd(&args(&strict));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(err.contains("not saved as baseline `main`"), "{err}");
    assert!(
        err.contains("rustcrypto/chacha20/xor len=64: its processes' medians lie"),
        "{err}"
    );
    let missing = env.cmd(&["compare", "main", "latest"]);
    assert_eq!(missing.status.code(), Some(2));

    let mut forced = strict.clone();
    forced.push("--force-baseline".into());
    env.run_ok(&args(&forced));
    env.run_ok(&["compare", "1", "main"]);
}

#[test]
fn cases_that_miss_the_precision_are_remeasured_within_the_budget() {
    let env = Env::new();
    let mut asked = run(&["--format", "json"]);
    let at = asked.iter().position(|a| a == "--processes").unwrap();
    asked[at + 1] = "6".into();
    let at = asked
        .iter()
        .position(|a| a == "--remeasure-budget")
        .unwrap();
    asked[at + 1] = "2".into();
    asked.extend(["--precision".into(), "0.0000001".into()]);
    let out = env.cmd(&args(&asked));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("re-measuring"), "{err}");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let processes = json["results"][0]["clusters"].as_u64().unwrap()
        + json["results"][0]["processes_set_aside"]
            .as_u64()
            .unwrap_or(0);
    assert!((7..=18).contains(&processes), "{json}");
}

#[test]
fn a_baseline_measured_while_the_host_was_slower_than_it_has_been_is_refused() {
    let env = Env::new();
    // Three runs in the host's usual state: one of them settles, even beside other tests.
    for _ in 0..3 {
        env.run_ok(&args(&run(&[])));
    }
    let slow = run(&["--save-baseline", "slow"]);
    let out = env.cmd_with(
        &args(&slow),
        &[("CRYPTOBENCH_TEST_CANARY_REPEAT", OsStr::new("3"))],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(err.contains("not saved as baseline `slow`"), "{err}");
    assert!(
        err.contains("the host was in a slower state than it has been")
            || err.contains("the host moved (by the canary) in most of its processes"),
        "{err}"
    );
}
