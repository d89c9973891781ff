//! Many machines, one store: runs pushed between SQLite files and into a real
//! PostgreSQL server (started by the test from Debian's packages), reports across
//! machines, and what a killed writer or a restarted server leaves.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use common::pg::PgServer;
use common::{Env, assert_bad_input, assert_one_line};

/// A small run of the default experiment on `testbed` into `db`, with `extra` options.
fn small_run(env: &Env, db: &str, testbed: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "chacha20-rng",
        "--sizes",
        "64",
        "--samples",
        "12",
        "--processes",
        "6",
        "--layouts",
        "1",
        "--remeasure-budget",
        "0",
        "--no-canary",
        "--testbed",
        testbed,
        "--db",
        db,
        "--format",
        "json",
    ];
    args.extend(extra);
    env.cmd(&args)
}

/// `run` of one implementation in four processes, too few for an interval, into `db`,
/// with `extra` options.
fn few_process_run<'a>(db: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "run",
        "rand_chacha",
        "--sizes",
        "64",
        "--samples",
        "12",
        "--processes",
        "4",
        "--layouts",
        "1",
        "--remeasure-budget",
        "0",
        "--no-canary",
        "--db",
        db,
    ];
    args.extend(extra);
    args
}

/// A small complete run of the default experiment on `testbed`, into `db`.
fn quick_run(env: &Env, db: &Path, testbed: &str) {
    let out = small_run(env, db.to_str().unwrap(), testbed, &[]);
    assert!(
        out.status.success(),
        "run on {testbed}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
}

/// Each process's `push` summary, as numbers: (copied, completed, already there).
fn pushed(summary: &str) -> (u64, u64, u64) {
    let n = |after: &str| -> u64 {
        let (_, rest) = summary
            .split_once(after)
            .unwrap_or_else(|| panic!("{summary}"));
        rest.split_whitespace().next().unwrap().parse().unwrap()
    };
    (
        n(": "),
        n("copied, "),
        n("completed (an incomplete copy replaced), "),
    )
}

fn push(env: &Env, to: &str, from: &[&Path]) -> Output {
    let mut args = vec!["push".to_string(), "--to".into(), to.into()];
    for f in from {
        args.push("--from".into());
        args.push(f.to_str().unwrap().into());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    env.cmd(&args)
}

#[test]
fn a_push_carries_baselines_and_keeps_a_later_one_the_target_has() {
    let env = Env::new();
    let (old, new, merged) = (
        env.path("old.db"),
        env.path("new.db"),
        env.path("merged.db"),
    );
    let save = ["--save-baseline", "main", "--force-baseline"];
    let started = |out: Output| -> String {
        let run: serde_json::Value = serde_json::from_str(&ok(out)).unwrap();
        run["started_at"].as_str().unwrap().to_string()
    };
    let old_start = started(small_run(&env, old.to_str().unwrap(), "zen", &save));
    // Start times are kept to the second.
    std::thread::sleep(Duration::from_millis(1100));
    let new_start = started(small_run(&env, new.to_str().unwrap(), "zen", &save));
    assert!(new_start > old_start);
    let merged_s = merged.to_str().unwrap();
    let baseline_start = || {
        started(env.cmd(&[
            "report",
            "main",
            "--testbed",
            "zen",
            "--db",
            merged_s,
            "--format",
            "json",
        ]))
    };

    let summary = ok(push(&env, merged_s, &[&new]));
    assert!(summary.contains("baseline main (zen) set"), "{summary}");
    assert_eq!(baseline_start(), new_start);
    // A store pushed late does not take the name back to its older run.
    let out = push(&env, merged_s, &[&old]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let summary = ok(out);
    assert!(!summary.contains("baseline"), "{summary}");
    assert!(
        err.contains("note: baseline `main` of testbed `zen`") && err.contains(": kept"),
        "{err}"
    );
    assert_eq!(baseline_start(), new_start);
    // Pushed again: nothing to say.
    let out = push(&env, merged_s, &[&new]);
    assert!(String::from_utf8_lossy(&out.stderr).is_empty());
    assert!(!ok(out).contains("baseline"));

    // `run --save-baseline --push-to` sends the baseline with the run.
    let (local, shared) = (env.path("local.db"), env.path("shared.db"));
    let out = small_run(
        &env,
        local.to_str().unwrap(),
        "zen",
        &[
            "--save-baseline",
            "main",
            "--force-baseline",
            "--push-to",
            shared.to_str().unwrap(),
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let pushed_start = started(out);
    assert!(err.contains("; baseline main (zen) set"), "{err}");
    let there: serde_json::Value = serde_json::from_str(&ok(env.cmd(&[
        "report",
        "main",
        "--testbed",
        "zen",
        "--db",
        shared.to_str().unwrap(),
        "--format",
        "json",
    ])))
    .unwrap();
    assert_eq!(there["started_at"], pushed_start.as_str());
}

/// A pushed baseline that lacks cases of the target's is not taken, later or not: the
/// target's own `--save-baseline` refuses such a run, and taken, its other cases would
/// no longer be gated. One that covers them is.
#[test]
fn a_push_keeps_the_targets_baseline_over_a_narrower_one() {
    let env = Env::new();
    let (wide, narrow, wider) = (
        env.path("wide.db"),
        env.path("narrow.db"),
        env.path("wider.db"),
    );
    let save = ["--save-baseline", "main", "--force-baseline"];
    let uuid_of = |out: Output| -> String {
        let run: serde_json::Value = serde_json::from_str(&ok(out)).unwrap();
        run["uuid"].as_str().unwrap().to_string()
    };
    // One experiment (`rand_chacha`) throughout: a baseline is a name per experiment.
    let rng_run = |db: &Path, sizes: &'static str| {
        let mut args = few_process_run(db.to_str().unwrap(), &save);
        args.extend(["--testbed", "zen", "--format", "json"]);
        let at = args.iter().position(|a| *a == "--sizes").unwrap();
        args[at + 1] = sizes;
        env.cmd(&args)
    };
    let wide_s = wide.to_str().unwrap();
    let kept = uuid_of(rng_run(&wide, "64,128"));
    // Start times are kept to the second: the narrower baseline is the later one.
    std::thread::sleep(Duration::from_millis(1100));
    ok(rng_run(&narrow, "64"));
    let main_there = || {
        let main: serde_json::Value = serde_json::from_str(&ok(env.cmd(&[
            "report",
            "main",
            "--testbed",
            "zen",
            "--db",
            wide_s,
            "--format",
            "json",
        ])))
        .unwrap();
        main["uuid"].as_str().unwrap().to_string()
    };

    let out = push(&env, wide_s, &[&narrow]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let summary = ok(out);
    assert!(!summary.contains("baseline main"), "{summary}");
    assert!(
        err.contains(&format!("note: baseline `main` of testbed `zen` in `{wide_s}` is run 1 ({kept}), which has 1 case that run "))
            && err.contains("did not measure (`rand_chacha/chacha20-rng/fill_bytes len=128`")
            && err.contains(": kept, so that they are still judged"),
        "{err}"
    );
    assert_eq!(main_there(), kept);

    // A later one of every case the target's has is taken.
    std::thread::sleep(Duration::from_millis(1100));
    let taken = uuid_of(rng_run(&wider, "64,128"));
    let summary = ok(push(&env, wide_s, &[&wider]));
    assert!(summary.contains("baseline main (zen) set"), "{summary}");
    assert_eq!(main_there(), taken);
}

/// A pushed baseline name meets in the target the checks `--save-baseline` made where it
/// was saved, judged by the target's runs: a run the source took as `main` while the
/// host was slower than the target has seen that machine be is pushed, and its name is
/// not taken.
#[test]
fn a_pushed_baseline_slower_than_the_target_has_seen_keeps_its_name_out() {
    let env = Env::new();
    let (src, tgt) = (env.path("src.db"), env.path("tgt.db"));
    let (src_s, tgt_s) = (src.to_str().unwrap(), tgt.to_str().unwrap());
    // With the canary, which these checks read; a noise threshold wide enough that the
    // processes' spread refuses no run here: what is tested is the host's state.
    let canary_run = |db: &str, extra: &[&str]| {
        let mut args = vec![
            "run",
            "rustcrypto/chacha20/",
            "--sizes",
            "64",
            "--samples",
            "64",
            "--processes",
            "8",
            "--layouts",
            "1",
            "--remeasure-budget",
            "0",
            "--noise-threshold",
            "40",
            "--testbed",
            "zen",
            "--db",
            db,
            "--format",
            "json",
        ];
        args.extend(extra);
        env.cmd(&args)
    };
    ok(canary_run(tgt_s, &[]));
    // The canaries are set by hand, so that the host's real state decides nothing: the
    // target has seen the machine at one count a reading, steady; the source's run read
    // two, as steady, and was saved as a plain `--save-baseline` would save it. Forced
    // (a noisy host may refuse a run), with `--force-baseline` then struck from its
    // recorded command line, which is what exempts a run from the target's checks.
    let set_canaries = |db: &Path, reading: f64| {
        let conn = rusqlite::Connection::open(db).unwrap();
        let blobs: Vec<(i64, i64, i64)> = conn
            .prepare("SELECT case_id, process, length(readings) FROM canaries")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(!blobs.is_empty());
        for (case, process, len) in blobs {
            let steady: Vec<u8> = std::iter::repeat_n(reading.to_le_bytes(), len as usize / 8)
                .flatten()
                .collect();
            conn.execute(
                "UPDATE canaries SET readings = ?1 WHERE case_id = ?2 AND process = ?3",
                rusqlite::params![steady, case, process],
            )
            .unwrap();
        }
        conn
    };
    set_canaries(&tgt, 1.0);

    let out = canary_run(src_s, &["--save-baseline", "main", "--force-baseline"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("saved run 1 as baseline `main`"), "{err}");
    let run: serde_json::Value = serde_json::from_str(&ok(out)).unwrap();
    let struck = set_canaries(&src, 2.0).execute(
        "UPDATE runs SET options_json = replace(options_json, ',\"--force-baseline\"', '')",
        [],
    );
    assert_eq!(struck.unwrap(), 1);
    let uuid = run["uuid"].as_str().unwrap();

    let out = push(&env, tgt_s, &[&src]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let summary = ok(out);
    assert_eq!(pushed(&summary), (1, 0, 0), "{summary}");
    assert!(!summary.contains("baseline main"), "{summary}");
    assert!(
        err.contains(&format!(
            "note: baseline `main` of testbed `zen` in `{tgt_s}` is not set: run {uuid}, which `{src_s}` saves under that name, is not fit to judge later runs by there (the host was in a slower state than it has been: the canary took "
        )) && err.contains("over run 1's on this machine, testbed `zen`"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    ok(env.cmd(&["report", uuid, "--db", tgt_s]));
    assert_bad_input(
        &env.cmd(&["report", "main", "--testbed", "zen", "--db", tgt_s]),
        "`main` is neither a run id",
    );
}

/// `report --machines` took each machine's newest complete run, and a later run of a few
/// sizes hid the rows of an earlier whole one. A machine's whole run is taken over a
/// later partial one; a partial one only where the machine has no whole run, and then
/// said, with the run each column is.
#[test]
fn across_machines_a_whole_run_is_taken_over_a_later_partial_one() {
    let env = Env::new();
    let db = env.path("fleet.db");
    let db_s = db.to_str().unwrap();
    let run = |testbed: &str, sizes: Option<&str>| -> serde_json::Value {
        let mut args = vec![
            "run",
            "chacha20-rng",
            "--samples",
            "12",
            "--processes",
            "4",
            "--layouts",
            "1",
            "--remeasure-budget",
            "0",
            "--no-canary",
            "--testbed",
            testbed,
            "--db",
            db_s,
            "--format",
            "json",
        ];
        if let Some(sizes) = sizes {
            args.extend(["--sizes", sizes]);
        }
        serde_json::from_str(&ok(env.cmd(&args))).unwrap()
    };
    let whole = run("zen", None);
    run("zen", Some("1024"));
    let partial = run("spr", Some("1024"));
    let fleet: serde_json::Value = serde_json::from_str(&ok(env.cmd(&[
        "report",
        "--machines",
        "chacha20-rng",
        "--db",
        db_s,
        "--format",
        "json",
    ])))
    .unwrap();
    let columns = fleet["machines"].as_array().unwrap();
    let taken: Vec<(&str, &serde_json::Value, &serde_json::Value)> = columns
        .iter()
        .map(|c| {
            (
                c["testbed"].as_str().unwrap(),
                &c["run_uuid"],
                &c["partial"],
            )
        })
        .collect();
    assert_eq!(
        taken,
        [
            ("spr", &partial["uuid"], &serde_json::json!("--sizes 1024")),
            ("zen", &whole["uuid"], &serde_json::Value::Null),
        ]
    );
    // Every length of the whole run has its row, the partial run's one of them.
    let lengths: Vec<(String, usize)> = fleet["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["implementation"] == "rustcrypto/chacha20")
        .map(|c| {
            let measured = c["cells"].as_array().unwrap();
            let on = measured.iter().filter(|cell| !cell.is_null()).count();
            (c["params"].to_string(), on)
        })
        .collect();
    assert!(lengths.len() > 1, "{lengths:?}");
    assert_eq!(
        lengths.iter().filter(|(_, on)| *on == 2).count(),
        1,
        "{lengths:?}"
    );

    let table = ok(env.cmd(&["report", "--machines", "chacha20-rng", "--db", db_s]));
    let short = |run: &serde_json::Value| run["uuid"].as_str().unwrap()[..8].to_string();
    assert!(
        table.contains(&format!(
            "spr: run 3 ({}) is partial (--sizes 1024): the machine has no complete run of the experiment's whole plan",
            short(&partial)
        )),
        "{table}"
    );
    assert!(
        table.contains(&format!("3 {} (", short(&partial))) && table.contains("), partial"),
        "{table}"
    );
    assert!(table.contains(&format!("1 {} (", short(&whole))), "{table}");
    assert!(!table.contains("zen: run"), "{table}");
    // Runs of 4 processes have no interval of a median: the heading says what `[—]` is.
    assert!(
        table.contains("with its 95 % interval where its run has one (`[—]`: measured in fewer than the 6 worker processes"),
        "{table}"
    );
}

/// A stored digest is read from a store, which may be damaged or edited: one that is
/// not a SHA-256 (not even ASCII) is refused naming the run, never a panic.
#[test]
fn a_damaged_digest_in_the_target_is_named_not_a_panic() {
    let env = Env::new();
    let (a, b) = (env.path("a.db"), env.path("b.db"));
    quick_run(&env, &a, "zen");
    let b_s = b.to_str().unwrap();
    ok(push(&env, b_s, &[&a]));
    rusqlite::Connection::open(&b)
        .unwrap()
        .execute("UPDATE runs SET digest = 'abcdefghijké'", [])
        .unwrap();
    let out = push(&env, b_s, &[&a]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains("error: run 1 (") && err.contains(&format!(
            ") in `{b_s}` has a damaged record: its stored digest \"abcdefghijké\" is not a SHA-256"
        )),
        "{err}"
    );
    assert!(stdout(&out).contains("1 refused"), "{}", stdout(&out));
}

#[test]
fn sqlite_stores_merge_without_a_server_and_pushing_twice_changes_nothing() {
    let env = Env::new();
    let (a, b, merged) = (env.path("a.db"), env.path("b.db"), env.path("merged.db"));
    quick_run(&env, &a, "left");
    quick_run(&env, &b, "right");
    let merged_s = merged.to_str().unwrap();
    assert_eq!(pushed(&ok(push(&env, merged_s, &[&a, &b]))), (2, 0, 0));
    assert_eq!(pushed(&ok(push(&env, merged_s, &[&a, &b]))), (0, 0, 2));
    let machines = ok(env.cmd(&["machines", "--db", merged_s, "--format", "csv"]));
    assert_eq!(machines.lines().count(), 3, "{machines}");
    let fleet: serde_json::Value = serde_json::from_str(&ok(env.cmd(&[
        "report",
        "--machines",
        "chacha20-rng",
        "--db",
        merged_s,
        "--format",
        "json",
    ])))
    .unwrap();
    let testbeds: Vec<&str> = fleet["machines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["testbed"].as_str().unwrap())
        .collect();
    assert_eq!(testbeds, ["left", "right"]);
    assert!(!fleet["ratios"].as_array().unwrap().is_empty());
    // CRYPTOBENCH_TESTBED names a job's machine: across machines it is no filter (a
    // merge job inheriting it once showed one column without a word); empty, it is unset.
    for (var, value) in [("CRYPTOBENCH_TESTBED", "left"), ("CRYPTOBENCH_TESTBED", "")] {
        let with = [(var, std::ffi::OsStr::new(value))];
        let across = ok(env.cmd_with(
            &["report", "--machines", "--db", merged_s, "--format", "csv"],
            &with,
        ));
        assert!(
            across.contains("left,") && across.contains("right,"),
            "{across}"
        );
        let history = ok(env.cmd_with(&["history", "--db", merged_s, "--format", "csv"], &with));
        let mut runs: Vec<&str> = history
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(1).unwrap())
            .collect();
        runs.sort();
        runs.dedup();
        assert_eq!(runs, ["1", "2"], "both testbeds' runs: {history}");
    }
    let empty_db = [("CRYPTOBENCH_DB", std::ffi::OsStr::new(""))];
    assert_bad_input(
        &env.cmd_with(&["machines"], &empty_db),
        "no result store at `cryptobench.db`",
    );
    let html = ok(env.cmd(&["report", "--machines", "--db", merged_s, "--format", "html"]));
    assert!(html.contains("<svg") && html.contains("left") && html.contains("right"));
    let md = ok(env.cmd(&["report", "--machines", "--db", merged_s, "--format", "md"]));
    let head = md
        .lines()
        .find(|l| l.starts_with("| Implementation"))
        .unwrap_or_else(|| panic!("{md}"));
    let cells: Vec<&str> = head.split('|').map(str::trim).collect();
    // Each column head names its testbed, CPU and counter.
    for (cell, testbed) in [(cells[4], "left"), (cells[5], "right")] {
        assert!(cell.starts_with(&format!("{testbed}: ")), "{head}");
        assert!(cell.ends_with(" cycles/byte"), "{head}");
    }
    // A filter instead of an experiment: the rows of those cases only.
    let filtered: serde_json::Value = serde_json::from_str(&ok(env.cmd(&[
        "report",
        "--machines",
        "rand_chacha",
        "--db",
        merged_s,
        "--format",
        "json",
    ])))
    .unwrap();
    let ids: Vec<&str> = filtered["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["implementation"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["rand_chacha/chacha20-rng"]);
    let out = env.cmd(&["report", "--machines", "nothing-like-it", "--db", merged_s]);
    assert_bad_input(&out, "`nothing-like-it` is no experiment");
    let out = env.cmd(&[
        "report",
        "--machines",
        "--db",
        merged_s,
        "--format",
        "bencher",
    ]);
    assert_bad_input(&out, "bencher");
    let out = env.cmd(&[
        "report",
        "--machines",
        "--testbed",
        "nowhere",
        "--db",
        merged_s,
    ]);
    assert_bad_input(&out, "--testbed nowhere: no complete run");
    // history names the testbed it has no run of, and those it has.
    let out = env.cmd(&["history", "--testbed", "nowhere", "--db", merged_s]);
    assert_bad_input(&out, "--testbed nowhere: no run in `");
    assert_bad_input(&out, "it has left, right");

    // `run --push-to` copies the finished run; the local store keeps it.
    let c = env.path("c.db");
    let out = small_run(&env, c.to_str().unwrap(), "third", &["--push-to", merged_s]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.contains("pushed run 1"),
        "{err}"
    );
    assert_eq!(pushed(&ok(push(&env, merged_s, &[&c]))), (0, 0, 1));

    // Runs of two testbeds are not compared with a verdict.
    let out = env.cmd(&["compare", "1", "2", "--db", merged_s]);
    assert_bad_input(&out, "measured on different machines");
    // Baselines are per testbed.
    ok(small_run(
        &env,
        merged_s,
        "left",
        &["--save-baseline", "main", "--force-baseline"],
    ));
    let out = env.cmd(&["report", "main", "--testbed", "right", "--db", merged_s]);
    assert_bad_input(&out, "no baseline `main` on testbed `right`");
    ok(env.cmd(&["report", "main", "--testbed", "left", "--db", merged_s]));
    // For one run CRYPTOBENCH_TESTBED still says whose baseline.
    fn on(testbed: &str) -> [(&'static str, &std::ffi::OsStr); 1] {
        [("CRYPTOBENCH_TESTBED", std::ffi::OsStr::new(testbed))]
    }
    let out = env.cmd_with(&["report", "main", "--db", merged_s], &on("right"));
    assert_bad_input(&out, "no baseline `main` on testbed `right`");
    ok(env.cmd_with(&["report", "main", "--db", merged_s], &on("left")));
}

/// `run --baseline` applies `compare`'s machine rule, and neither offers a `--force` that
/// cannot help: a gate must not pass or fail a change on another machine's cycle counts.
#[test]
fn a_baseline_of_another_machine_is_refused_as_compare_refuses_it() {
    let env = Env::new();
    let db = env.path("base.db");
    let db_s = db.to_str().unwrap();
    let runs = || -> i64 {
        rusqlite::Connection::open(&db)
            .unwrap()
            .query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
            .unwrap()
    };
    ok(small_run(
        &env,
        db_s,
        "alpha",
        &["--save-baseline", "main", "--force-baseline"],
    ));
    // Another testbed, by run id: refused before measuring, forced or gating alike.
    for extra in [
        &["--baseline", "1"][..],
        &["--baseline", "1", "--force"],
        &["--baseline", "1", "--fail-on-regression"],
    ] {
        let out = small_run(&env, db_s, "gamma", extra);
        assert_bad_input(
            &out,
            "--baseline 1: run 1 was measured on another machine (testbed `alpha`, ",
        );
        assert_bad_input(&out, "never compared with a verdict, not even with --force");
    }
    assert_eq!(runs(), 1, "nothing measured");
    // A name saved on another testbed only: on `run`, --testbed would relabel this run.
    let out = small_run(&env, db_s, "gamma", &["--baseline", "main"]);
    assert_bad_input(&out, "no baseline `main` on testbed `gamma` in `");
    assert_bad_input(
        &out,
        "measure one on this testbed with --save-baseline main",
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("--testbed"));

    // Testbed `alpha` on other hardware since: its baseline is the old machine's run.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE machines SET fingerprint = 'another0machine0'", [])
        .unwrap();
    conn.execute("UPDATE runs SET cpu_model = 'Another CPU (6/207/2)'", [])
        .unwrap();
    drop(conn);
    let out = small_run(&env, db_s, "alpha", &["--baseline", "main", "--force"]);
    // A warning that the testbed moved comes first: one error line after it.
    common::assert_refused(
        &out,
        "error: --baseline main: run 1 was measured on another machine (testbed `alpha` (another0), Another CPU (6/207/2)) than this run (testbed `alpha` (",
    );
    assert_eq!(runs(), 1, "nothing measured");
    ok(small_run(&env, db_s, "alpha", &[]));
    // `compare`'s first answer is its last: no hint of a --force it would refuse.
    for force in [&[][..], &["--force"]] {
        let out = env.cmd(&[&["compare", "1", "2", "--db", db_s][..], force].concat());
        assert_bad_input(&out, "runs 1 and 2 were measured on different machines");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("use --force"));
    }
}

/// A run names its baseline by UUID: pushed, it is compared with that run wherever the
/// baseline went too, whatever its id there, and with no other run (another one of the
/// id, itself, another machine's) where it did not: the report says why.
#[test]
fn a_pushed_run_is_compared_with_its_own_baseline_or_with_none() {
    let env = Env::new();
    let (src, tgt, lone) = (env.path("src.db"), env.path("tgt.db"), env.path("lone.db"));
    let (src_s, tgt_s, lone_s) = (
        src.to_str().unwrap(),
        tgt.to_str().unwrap(),
        lone.to_str().unwrap(),
    );
    let json = |out: Output| -> serde_json::Value { serde_json::from_str(&ok(out)).unwrap() };
    let report =
        |db: &str, run: &str| json(env.cmd(&["report", run, "--db", db, "--format", "json"]));
    let base = json(small_run(
        &env,
        src_s,
        "zen",
        &["--save-baseline", "main", "--force-baseline"],
    ));
    let base_uuid = base["uuid"].as_str().unwrap().to_string();
    // Measured against main (run 1 here), and pushed to a store of its own: its
    // baseline run goes first, so that its comparison reads there too.
    let out = small_run(
        &env,
        src_s,
        "zen",
        &["--baseline", "main", "--push-to", lone_s],
    );
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let gated = json(out);
    assert_eq!(gated["against_baseline"]["run_a"], 1);
    assert!(
        err.contains(&format!(
            "pushed run 2 ({}) to `{lone_s}` with its baseline run 1 ({base_uuid})",
            gated["uuid"].as_str().unwrap()
        )),
        "{err}"
    );
    let verdicts = |r: &serde_json::Value| -> Vec<(serde_json::Value, serde_json::Value)> {
        r["against_baseline"]["comparisons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["change_pct"].clone(), c["verdict"].clone()))
            .collect()
    };
    assert!(!verdicts(&gated).is_empty());

    // The target has a run 1 of its own, on the same machine: the pushed baseline
    // becomes run 2 there, and the gated run 3.
    ok(small_run(&env, tgt_s, "zen", &[]));
    ok(push(&env, tgt_s, &[&src]));
    let there = report(tgt_s, "3");
    assert_eq!(there["uuid"], gated["uuid"]);
    assert_eq!(there["against_baseline"]["run_a"], 2, "{there}");
    assert_eq!(verdicts(&there), verdicts(&gated));
    assert!(there.get("baseline_left_out").is_none());
    // Where `--push-to` took it: the baseline is run 1 there, and the gated run 2. Its
    // name stays behind: the run measured against it was pushed, not saved as it.
    let carried = report(lone_s, "2");
    assert_eq!(carried["uuid"], gated["uuid"]);
    assert_eq!(carried["against_baseline"]["run_a"], 1, "{carried}");
    assert_eq!(verdicts(&carried), verdicts(&gated));
    assert_bad_input(
        &env.cmd(&["report", "main", "--testbed", "zen", "--db", lone_s]),
        "`main` is neither a run id",
    );
    // Pushed again, nothing more is copied.
    assert_eq!(pushed(&ok(push(&env, lone_s, &[&src]))), (0, 0, 2));

    // Without its baseline (there the run is run 1), as `--push-to` left a run before it
    // took the baseline along: no comparison, and why.
    std::fs::remove_file(&lone).unwrap();
    std::fs::copy(&tgt, &lone).unwrap();
    drop_runs_but(&lone, 3);
    let alone = report(lone_s, "1");
    assert!(alone["against_baseline"].is_null(), "{alone}");
    let why = format!("baseline run {base_uuid} is not in this store: push it too");
    assert!(
        alone["baseline_left_out"].as_str().unwrap().contains(&why),
        "{alone}"
    );
    let table = ok(env.cmd(&["report", "1", "--db", lone_s]));
    assert!(
        table.contains(&format!("Not against its baseline: {why}")),
        "{table}"
    );
    // Pushed too, later: compared with it.
    ok(push(&env, lone_s, &[&src]));
    assert_eq!(report(lone_s, "1")["against_baseline"]["run_a"], 2);

    // Its baseline measured on another machine (a record edited to say so): as
    // `compare` and `run --baseline`, no verdict across two machines.
    let conn = rusqlite::Connection::open(&tgt).unwrap();
    conn.execute(
        "INSERT INTO machines (testbed, fingerprint, cpu_model, first_seen)
         SELECT 'elsewhere', fingerprint, cpu_model, first_seen FROM machines LIMIT 1",
        [],
    )
    .unwrap();
    conn.execute(
        "UPDATE runs SET machine_id = last_insert_rowid() WHERE id = 2",
        [],
    )
    .unwrap();
    drop(conn);
    let moved = report(tgt_s, "3");
    assert!(moved["against_baseline"].is_null(), "{moved}");
    let why = moved["baseline_left_out"].as_str().unwrap();
    assert!(
        why.contains("baseline run 2 was measured on another machine (testbed `elsewhere`"),
        "{why}"
    );

    // A run recorded before the baseline's UUID was names it by the row id of the store
    // it was measured in (1); in `lone` that id is the run itself: no comparison.
    let conn = rusqlite::Connection::open(&lone).unwrap();
    conn.execute(
        "UPDATE runs SET options_json = replace(options_json, ?1, '') WHERE id = 1",
        [format!(r#","baseline_uuid":"{base_uuid}""#)],
    )
    .unwrap();
    drop(conn);
    let old = report(lone_s, "1");
    assert!(old["against_baseline"].is_null(), "{old}");
    assert!(
        old["baseline_left_out"]
            .as_str()
            .unwrap()
            .contains("baseline run 1 (named by the row id of the store this run was measured in"),
        "{old}"
    );
}

/// Leaves in the SQLite store `db` its run `kept` alone, as run 1: a store a run was
/// pushed into without the runs it names.
fn drop_runs_but(db: &Path, kept: i64) {
    let conn = rusqlite::Connection::open(db).unwrap();
    // The run's rows are renumbered one table at a time.
    conn.execute_batch(&format!(
        "PRAGMA foreign_keys = OFF;
         DELETE FROM clusters WHERE case_id IN (SELECT id FROM cases WHERE run_id <> {kept});
         DELETE FROM canaries WHERE case_id IN (SELECT id FROM cases WHERE run_id <> {kept});
         DELETE FROM cases WHERE run_id <> {kept};
         DELETE FROM figures WHERE run_id <> {kept};
         DELETE FROM estimates WHERE run_id <> {kept};
         DELETE FROM baselines;
         DELETE FROM runs WHERE id <> {kept};
         UPDATE runs SET id = 1 WHERE id = {kept};
         UPDATE cases SET run_id = 1 WHERE run_id = {kept};
         UPDATE figures SET run_id = 1 WHERE run_id = {kept};
         UPDATE estimates SET run_id = 1 WHERE run_id = {kept};"
    ))
    .unwrap();
}

/// `compare main latest` on a store other machines push to: `latest` is the newest run of
/// main's machine, not the run stored last (another machine's, which compare refuses).
#[test]
fn compare_main_latest_takes_the_newest_run_of_the_baseline_s_machine() {
    let env = Env::new();
    let db = env.path("shared.db");
    let db_s = db.to_str().unwrap();
    ok(small_run(
        &env,
        db_s,
        "alpha",
        &["--save-baseline", "main", "--force-baseline"],
    ));
    ok(small_run(&env, db_s, "alpha", &[]));
    ok(small_run(&env, db_s, "beta", &[]));
    let runs_of = |args: &[&str]| {
        let out = env.cmd(&[&["compare", "--db", db_s, "--format", "json"][..], args].concat());
        let v: serde_json::Value = serde_json::from_str(&ok(out)).unwrap();
        (v["run_a"].as_i64().unwrap(), v["run_b"].as_i64().unwrap())
    };
    assert_eq!(runs_of(&["main", "latest"]), (1, 2));
    assert_eq!(runs_of(&["latest", "1"]), (2, 1));
    // Named outright, the testbed decides.
    assert_eq!(runs_of(&["main", "latest", "--testbed", "alpha"]), (1, 2));
    let out = env.cmd(&["compare", "3", "latest", "--db", db_s]);
    assert_bad_input(&out, "`3` and `latest` are the same run (3)");
}

/// A store damaged in one run: the push copies the runs before it, then stops naming the
/// run it could not read and what was kept.
#[test]
fn a_push_from_a_damaged_store_names_the_run_it_could_not_read() {
    let env = Env::new();
    let (a, merged) = (env.path("a.db"), env.path("merged.db"));
    quick_run(&env, &a, "zen");
    quick_run(&env, &a, "zen");
    rusqlite::Connection::open(&a)
        .unwrap()
        .execute("UPDATE runs SET machine_id = NULL WHERE id = 2", [])
        .unwrap();
    let out = push(&env, merged.to_str().unwrap(), &[&a]);
    assert_bad_input(&out, "reading run 2 (");
    assert_bad_input(
        &out,
        "it was not pushed; 1 run copied before it is kept in `",
    );
}

/// A run of too few processes for an interval has its median alone in its own report,
/// and in the table across machines too: never an interval whose ends are the median.
#[test]
fn a_figure_without_an_interval_gets_none_across_machines() {
    let env = Env::new();
    let db = env.db();
    let db = db.to_str().unwrap();
    let out = env.cmd(&few_process_run(db, &["--testbed", "few"]));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = ok(env.cmd(&["report", "--machines", "--db", db]));
    assert!(table.contains(" [—]"), "{table}");
    let json: serde_json::Value = serde_json::from_str(&ok(env.cmd(&[
        "report",
        "--machines",
        "--db",
        db,
        "--format",
        "json",
    ])))
    .unwrap();
    let figure = &json["cases"][0]["cells"][0]["figure"];
    assert!(figure["estimate"].as_f64().unwrap() > 0.0, "{json}");
    assert!(figure["lo"].is_null() && figure["hi"].is_null(), "{json}");
    let csv = ok(env.cmd(&["report", "--machines", "--db", db, "--format", "csv"]));
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    assert!(!row[col("estimate")].is_empty(), "{csv}");
    assert!(
        row[col("lo")].is_empty() && row[col("hi")].is_empty(),
        "{csv}"
    );

    // `latest` of a testbed is its own newest run, not the store's.
    quick_run(&env, Path::new(db), "other");
    let run_of = |args: &[&str]| -> serde_json::Value {
        serde_json::from_str::<serde_json::Value>(&ok(env.cmd(args))).unwrap()["run_id"].clone()
    };
    let latest = ["report", "latest", "--db", db, "--format", "json"];
    assert_eq!(run_of(&latest), 2);
    assert_eq!(run_of(&[&latest[..], &["--testbed", "few"]].concat()), 1);
    assert_bad_input(
        &env.cmd(&[&latest[..], &["--testbed", "none-such"]].concat()),
        "testbed `none-such` has no runs",
    );
}

#[test]
fn a_run_pushed_to_postgres_reads_back_as_it_was_and_a_conflict_is_refused() {
    let env = Env::new();
    let server = PgServer::start();
    let url = server.new_database("roundtrip");
    let a = env.path("a.db");
    quick_run(&env, &a, "zen");
    assert_eq!(pushed(&ok(push(&env, &url, &[&a]))), (1, 0, 0));
    assert_eq!(pushed(&ok(push(&env, &url, &[&a]))), (0, 0, 1));
    // Field for field: every export of the run reads the same from both stores.
    for format in ["json", "csv"] {
        let here = ok(env.cmd(&[
            "report",
            "latest",
            "--db",
            a.to_str().unwrap(),
            "--format",
            format,
        ]));
        let there = ok(env.cmd(&["report", "latest", "--db", &url, "--format", format]));
        assert_eq!(here, there, "--format {format}");
    }
    // Sample blobs byte for byte.
    let blobs = |db: &str| -> Vec<Vec<u8>> {
        let sql = "SELECT samples FROM clusters ORDER BY case_id, process, layout";
        if db.starts_with("postgres") {
            server
                .psql(
                    "roundtrip",
                    &format!("SELECT encode(samples, 'hex') FROM ({sql}) s"),
                )
                .lines()
                .map(|h| hex::decode(h).unwrap())
                .collect()
        } else {
            let conn = rusqlite::Connection::open(db).unwrap();
            let mut q = conn.prepare(sql).unwrap();
            q.query_map([], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        }
    };
    assert_eq!(blobs(a.to_str().unwrap()), blobs(&url));

    // The same run with one sample changed: refused, naming both stores, neither changed.
    let forged = env.path("forged.db");
    std::fs::copy(&a, &forged).unwrap();
    rusqlite::Connection::open(&forged)
        .unwrap()
        .execute(
            "UPDATE clusters SET samples = zeroblob(length(samples)) WHERE rowid = (SELECT min(rowid) FROM clusters)",
            [],
        )
        .unwrap();
    let before = server.psql("roundtrip", "SELECT digest FROM runs");
    let out = push(&env, &url, &[&forged]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("with other content (digest ") && err.contains("): refused, neither changed"),
        "{err}"
    );
    assert_eq!(err.matches("other content").count(), 1, "said once: {err}");
    assert!(
        err.contains("forged.db") && err.contains("roundtrip"),
        "{err}"
    );
    assert!(
        stdout(&out).contains("0 already there, 1 refused (other content there"),
        "the refused run is counted: {}",
        stdout(&out)
    );
    assert_eq!(server.psql("roundtrip", "SELECT digest FROM runs"), before);

    // A store pushed into itself: said, not "0 copied, 1 already there".
    let out = push(&env, &url, &[Path::new(&url)]);
    assert_bad_input(&out, "is the store --from");
    // Another database of the same server is another store.
    let copy = server.new_database("roundtrip_copy");
    let copied = ok(push(&env, &copy, &[Path::new(&url)]));
    assert!(pushed(&copied).0 >= 1, "{copied}");
    let link = env.path("a-link.db");
    std::os::unix::fs::symlink(&a, &link).unwrap();
    let out = push(&env, link.to_str().unwrap(), &[&a]);
    assert_bad_input(&out, "is the store --from");
}

#[test]
fn concurrent_first_opens_and_four_machines_pushing_at_once() {
    let env = Env::new();
    let server = PgServer::start();
    let url = server.new_database("fleet");
    let stores: Vec<PathBuf> = (0..4).map(|i| env.path(&format!("m{i}.db"))).collect();
    for (i, s) in stores.iter().enumerate() {
        quick_run(&env, s, &format!("machine-{i}"));
    }
    // Eight processes open the empty database at once (two pushes of each store): all
    // succeed, every run is there exactly once.
    let children: Vec<_> = (0..8)
        .map(|i| {
            env.command(&[
                "push",
                "--to",
                &url,
                "--from",
                stores[i % 4].to_str().unwrap(),
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    for child in children {
        ok(child.wait_with_output().unwrap());
    }
    assert_eq!(
        server.psql("fleet", "SELECT count(*), count(DISTINCT uuid) FROM runs"),
        "4|4"
    );
    assert_eq!(server.psql("fleet", "SELECT count(*) FROM machines"), "4");
    let table = ok(env.cmd(&["report", "--machines", "--db", &url, "--format", "csv"]));
    for i in 0..4 {
        assert!(table.contains(&format!("machine-{i},")), "{table}");
    }
    // And a direct run writing there beside them.
    quick_run(&env, Path::new(&url), "machine-0");
    assert_eq!(
        server.psql(
            "fleet",
            "SELECT count(*) FROM runs WHERE status = 'complete'"
        ),
        "5"
    );
    // The newest run is the one that started last, not the one stored last (a run
    // pushed late): dated back, the direct run is no longer machine-0's column or its
    // `latest`.
    let direct = server.psql("fleet", "SELECT max(id) FROM runs");
    server.psql(
        "fleet",
        &format!("UPDATE runs SET started_at = '2000-01-01T00:00:00Z' WHERE id = {direct}"),
    );
    let table = ok(env.cmd(&["report", "--machines", "--db", &url]));
    assert!(!table.contains("2000-01-01"), "{table}");
    let latest = ok(env.cmd(&[
        "report",
        "latest",
        "--testbed",
        "machine-0",
        "--db",
        &url,
        "--format",
        "json",
    ]));
    let latest: serde_json::Value = serde_json::from_str(&latest).unwrap();
    assert_ne!(latest["run_id"].to_string(), direct, "{latest}");
}

/// A command stopped at a test pause point (in its open transaction): its child and the
/// pause file, once it is there.
fn paused_at(
    env: &Env,
    point: &str,
    args: &[&str],
    vars: &[(&str, &str)],
) -> (std::process::Child, PathBuf) {
    let file = env.path(&format!("paused-{point}"));
    let child = env
        .command(args)
        .envs(vars.iter().copied())
        .env("CRYPTOBENCH_TEST_PAUSE", point)
        .env("CRYPTOBENCH_TEST_PAUSE_FILE", &file)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !file.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "never reached {point}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, file)
}

/// A small direct run into `url`, stopped at the test pause point "samples".
fn run_paused_at_samples(
    env: &Env,
    url: &str,
    layouts: &str,
    vars: &[(&str, &str)],
) -> (std::process::Child, PathBuf) {
    let mut args = small_run_args(url);
    let at = args.len() - 3;
    args[at] = layouts;
    paused_at(env, "samples", &args, vars)
}

/// A small direct run of two processes into `url`, one layout each.
fn small_run_args(url: &str) -> Vec<&str> {
    vec![
        "run",
        "chacha20-rng",
        "--sizes",
        "64",
        "--samples",
        "16",
        "--processes",
        "2",
        "--remeasure-budget",
        "0",
        "--no-canary",
        "--layouts",
        "1",
        "--db",
        url,
    ]
}

fn open_transactions(server: &PgServer, db: &str) -> String {
    // The server notices a dead client's socket at once; give it a moment to roll back.
    let start = Instant::now();
    loop {
        let open = server.psql(
            "postgres",
            &format!("SELECT count(*) FROM pg_stat_activity WHERE datname = '{db}' AND state LIKE 'idle in transaction%'"),
        );
        if open == "0" || start.elapsed() > Duration::from_secs(10) {
            return open;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_writer_killed_mid_push_or_mid_run_leaves_no_half_and_a_repush_completes() {
    let env = Env::new();
    let server = PgServer::start();
    let url = server.new_database("killed");
    let a = env.path("a.db");
    quick_run(&env, &a, "zen");
    let (mut child, _) = paused_at(
        &env,
        "push",
        &["push", "--to", &url, "--from", a.to_str().unwrap()],
        &[],
    );
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert_eq!(open_transactions(&server, "killed"), "0");
    assert_eq!(server.psql("killed", "SELECT count(*) FROM runs"), "0");
    assert_eq!(pushed(&ok(push(&env, &url, &[&a]))), (1, 0, 0));

    // A direct run killed while a worker's samples are being stored: the run reads as
    // incomplete, and no process of any case is stored in part.
    let (mut child, _) = run_paused_at_samples(&env, &url, "2", &[]);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(open_transactions(&server, "killed"), "0");
    assert_eq!(
        server.psql("killed", "SELECT status FROM runs ORDER BY id DESC LIMIT 1"),
        "running"
    );
    // Pushed on, it is left out, and said to be.
    let copy = env.path("copy.db");
    let said = ok(push(&env, copy.to_str().unwrap(), &[Path::new(&url)]));
    assert!(said.contains("1 incomplete run left out"), "{said}");
    assert_eq!(pushed(&said), (1, 0, 0));
    let partial = server.psql(
        "killed",
        "SELECT count(*) FROM (SELECT case_id, process FROM clusters
         WHERE case_id IN (SELECT id FROM cases WHERE run_id = (SELECT max(id) FROM runs))
         GROUP BY case_id, process HAVING count(*) <> 2) p",
    );
    assert_eq!(partial, "0", "a process stored in part");
    let out = env.cmd(&["history", "--db", &url, "--format", "json"]);
    ok(out);
}

#[test]
fn a_server_restarted_mid_push_or_mid_run_is_connected_to_again_and_nothing_is_lost() {
    let env = Env::new();
    let server = PgServer::start();
    let url = server.new_database("restarted");
    let (a, b) = (env.path("a.db"), env.path("b.db"));
    quick_run(&env, &a, "zen");
    quick_run(&env, &b, "sapphire");
    let (child, file) = paused_at(
        &env,
        "push",
        &[
            "push",
            "--to",
            &url,
            "--from",
            a.to_str().unwrap(),
            "--from",
            b.to_str().unwrap(),
        ],
        &[],
    );
    server.stop();
    server.start_again();
    std::fs::remove_file(&file).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("lost the connection to the PostgreSQL server")
            && err.contains("connected again"),
        "{err}"
    );
    // The transaction the restart cut short was done again, whole.
    assert_eq!(pushed(&ok(out)), (2, 0, 0));
    assert_eq!(pushed(&ok(push(&env, &url, &[&a, &b]))), (0, 0, 2));

    // A direct run whose server restarts while it stores a worker's samples: it connects
    // again, stores them, and ends complete, every case with all its processes.
    let (child, file) = run_paused_at_samples(&env, &url, "1", &[]);
    server.stop();
    server.start_again();
    std::fs::remove_file(&file).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("connected again"), "{err}");
    ok(out);
    let run = "(SELECT max(id) FROM runs)";
    assert_eq!(
        server.psql(
            "restarted",
            &format!("SELECT status FROM runs WHERE id = {run}")
        ),
        "complete"
    );
    assert_eq!(
        server.psql(
            "restarted",
            &format!("SELECT count(*) FROM cases WHERE run_id = {run} AND status <> 'ok'")
        ),
        "0"
    );
    let processes = format!(
        "SELECT count(*) FROM clusters k JOIN cases c ON c.id = k.case_id WHERE c.run_id = {run}"
    );
    let cases = server.psql(
        "restarted",
        &format!("SELECT count(*) FROM cases WHERE run_id = {run}"),
    );
    assert_eq!(
        server.psql("restarted", &processes),
        (cases.parse::<u64>().unwrap() * 2).to_string(),
        "each case's two processes, once each"
    );

    // A restart just after a commit the server made, before its answer came back: the
    // run looks for what it wrote instead of writing it twice (a second run row under
    // the same UUID would be refused).
    let runs_before = server.psql("restarted", "SELECT count(*) FROM runs");
    let (child, file) = paused_at(&env, "committed", &small_run_args(&url), &[]);
    server.stop();
    server.start_again();
    std::fs::remove_file(&file).unwrap();
    ok(child.wait_with_output().unwrap());
    assert_eq!(
        server
            .psql("restarted", "SELECT count(*) FROM runs")
            .parse::<u64>()
            .unwrap(),
        runs_before.parse::<u64>().unwrap() + 1
    );
}

#[test]
fn a_server_back_from_a_restart_is_connected_to_again_within_a_second_or_so() {
    let env = Env::new();
    let server = PgServer::start();
    let url = server.new_database("back");
    let (child, file) = run_paused_at_samples(&env, &url, "1", &[]);
    server.stop();
    std::fs::remove_file(&file).unwrap();
    let lost = Instant::now();
    std::thread::sleep(Duration::from_secs(6));
    server.start_again();
    let up = lost.elapsed().as_secs_f64();
    let out = ended_within(child, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let after: f64 = err
        .split_once("connected again to ")
        .and_then(|(_, rest)| rest.split_once(" after "))
        .and_then(|(_, rest)| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    // Tries that back off to several seconds apart would find it seconds after it is up.
    assert!(
        after < up + 2.0,
        "up again after {up:.1} s, connected again after {after:.1} s: {err}"
    );
    ok(out);
}

#[test]
fn a_server_gone_for_longer_than_the_reconnect_window_keeps_what_was_stored() {
    let env = Env::new();
    let server = PgServer::start();
    let url = server.new_database("gone");
    let (child, file) =
        run_paused_at_samples(&env, &url, "1", &[("CRYPTOBENCH_RECONNECT_SECS", "1")]);
    server.stop();
    std::fs::remove_file(&file).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // Not bad input: a status of its own, which a scheduler retries.
    assert_eq!(out.status.code(), Some(5), "{err}");
    assert!(
        err.contains("lost the connection to the PostgreSQL server")
            && err.contains("tried to connect again for 1 s"),
        "{err}"
    );
    assert!(err.contains("the cases measured before are kept"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    server.start_again();
    assert_eq!(
        server.psql("gone", "SELECT count(*) FROM runs WHERE status = 'running'"),
        "1"
    );

    let out = env.cmd_with(
        &["machines", "--db", &url],
        &[("CRYPTOBENCH_RECONNECT_SECS", std::ffi::OsStr::new("soon"))],
    );
    assert_bad_input(
        &out,
        "CRYPTOBENCH_RECONNECT_SECS `soon` is not a whole number",
    );
}

/// The pid of the server process serving the cryptobench connection to `db`.
fn backend_of(server: &PgServer, db: &str) -> i32 {
    server
        .psql(
            "postgres",
            &format!(
                "SELECT pid FROM pg_stat_activity WHERE datname = '{db}' AND application_name = 'cryptobench'"
            ),
        )
        .parse()
        .expect("one cryptobench connection")
}

/// What `child` writes on its stderr, line by line as it writes it: for a test to act
/// when the command says something, rather than after a sleep.
fn stderr_lines(child: &mut std::process::Child) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let stderr = child.stderr.take().expect("piped stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// `child`'s output once it has ended, which it must within `limit`.
fn ended_within(mut child: std::process::Child, limit: Duration) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            panic!("still waiting after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_server_process_that_stops_answering_mid_run_is_given_up_on() {
    let env = Env::new();
    let server = PgServer::start();
    let url = server.new_database("frozen");
    let signal = |pid: i32, sig: i32| assert_eq!(unsafe { libc::kill(pid, sig) }, 0);

    // Frozen for good (its socket stays open, and the kernel still acknowledges what is
    // sent): the statement waits its limit, the retries wait on the rows the frozen
    // transaction holds, and the command ends, unreachable, keeping what was stored.
    let limits = [
        ("CRYPTOBENCH_STATEMENT_SECS", "1"),
        ("CRYPTOBENCH_RECONNECT_SECS", "2"),
    ];
    let (child, file) = run_paused_at_samples(&env, &url, "1", &limits);
    let backend = backend_of(&server, "frozen");
    signal(backend, libc::SIGSTOP);
    std::fs::remove_file(&file).unwrap();
    let out = ended_within(child, Duration::from_secs(20));
    signal(backend, libc::SIGCONT);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{err}");
    assert!(
        err.contains("lost the connection to the PostgreSQL server")
            && err.contains("no answer within 1 s"),
        "{err}"
    );
    assert!(err.contains("the cases measured before are kept"), "{err}");
    assert_eq!(
        server.psql(
            "frozen",
            "SELECT count(*) FROM runs WHERE status = 'running'"
        ),
        "1"
    );

    // Frozen for a moment: the run connects again and ends complete. The backend is let
    // go once the run has said that it gave up on it, not after a guess at when that is
    // (1.5 s): a run held up for 0.6 s after the pause, as a loaded host may hold it, had
    // its answer before the 1 s limit, and never lost the connection.
    let (mut child, file) = run_paused_at_samples(&env, &url, "1", &limits[..1]);
    let backend = backend_of(&server, "frozen");
    signal(backend, libc::SIGSTOP);
    let said = stderr_lines(&mut child);
    std::fs::remove_file(&file).unwrap();
    let mut err = String::new();
    while !err.contains("no answer within 1 s") {
        let line = said
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|e| panic!("{e} before the run gave up on the frozen server: {err}"));
        err += &line;
        err.push('\n');
    }
    signal(backend, libc::SIGCONT);
    let out = ended_within(child, Duration::from_secs(20));
    err.extend(said.iter().map(|line| line + "\n"));
    assert!(err.contains("connected again"), "{err}");
    assert!(out.status.success(), "failed: {err}");
    assert_eq!(
        server.psql(
            "frozen",
            "SELECT status FROM runs WHERE id = (SELECT max(id) FROM runs)"
        ),
        "complete"
    );
}

#[test]
fn bad_urls_wrong_passwords_servers_down_and_other_databases_are_one_line_each() {
    let env = Env::new();
    let server = PgServer::start();
    let wrong = server
        .url_as("guarded", "guarded")
        .replace("guarded@", "guarded:wrong@");
    let out = env.cmd(&["machines", "--db", &wrong]);
    assert_bad_input(&out, "refused user `guarded`");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("wrong@"));
    // The right password in a --push-to: the run is pushed, and neither its record (the
    // local store's and the server's, printed by every report) nor a message holds it.
    let right = wrong.replace("guarded:wrong@", "guarded:right@");
    let local = env.path("pw.db");
    let out = small_run(&env, local.to_str().unwrap(), "pw", &["--push-to", &right]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.contains("pushed run 1"),
        "{err}"
    );
    for db in [local.to_str().unwrap(), right.as_str()] {
        let json = ok(env.cmd(&["report", "latest", "--db", db, "--format", "json"]));
        let md = ok(env.cmd(&["report", "latest", "--db", db, "--format", "md"]));
        for said in [&json, &md, &err.to_string()] {
            assert!(!said.contains("right@"), "{db}: {said}");
        }
        assert!(md.contains("--push-to 'postgres://guarded:***@"), "{md}");
    }
    // No password at all (a CI secret unset) is said as such, not as a server down.
    let out = env.cmd_with(
        &["machines", "--db", &server.url_as("guarded", "guarded")],
        &[("PGPASSFILE", std::ffi::OsStr::new("/nonexistent"))],
    );
    assert_bad_input(
        &out,
        "asks user `guarded` for a password, and none was given (PGPASSFILE names `/nonexistent`, which does not exist)",
    );

    let out = env.cmd(&["machines", "--db", &server.url_as("postgres", "nosuchdb")]);
    assert_bad_input(&out, "has no database `nosuchdb`");

    server.psql("postgres", "CREATE DATABASE other");
    server.psql("other", "CREATE TABLE invoices (id int)");
    let out = env.cmd(&[
        "push",
        "--to",
        &server.url_as("postgres", "other"),
        "--from",
        "x.db",
    ]);
    assert_bad_input(&out, "no result store at `x.db`");
    let a = env.path("a.db");
    quick_run(&env, &a, "zen");
    let out = env.cmd(&[
        "push",
        "--to",
        &server.url_as("postgres", "other"),
        "--from",
        a.to_str().unwrap(),
    ]);
    assert_bad_input(&out, "is another application's database (tables invoices)");
    // Also where this role may not read the other application's tables (which
    // information_schema then hides): they are still there, and still not ours.
    server.psql("postgres", "CREATE DATABASE hidden");
    server.psql(
        "hidden",
        "CREATE TABLE payroll (id int); REVOKE ALL ON payroll FROM PUBLIC; GRANT CREATE ON SCHEMA public TO guarded",
    );
    let out = env.cmd_with(
        &[
            "push",
            "--to",
            &server.url_as("guarded", "hidden"),
            "--from",
            a.to_str().unwrap(),
        ],
        &[("PGPASSWORD", std::ffi::OsStr::new("right"))],
    );
    assert_bad_input(&out, "is another application's database (tables payroll)");

    let out = env.cmd(&["machines", "--db", "postgres://u@[::1"]);
    assert_bad_input(&out, "is not a PostgreSQL URL");
    // The part at fault is named.
    let socket = server.url_as("postgres", "postgres");
    for (query, said) in [
        ("?foo=bar", "unknown parameter `foo`"),
        ("?sslmode=allow", "sslmode=allow is not supported"),
        ("?sslmode=bogus", "sslmode=bogus is not supported"),
        (
            "?connect_timeout=soon",
            "`connect_timeout=soon`: not a value it takes",
        ),
    ] {
        let out = env.cmd(&["machines", "--db", &format!("{socket}{query}")]);
        assert_bad_input(&out, said);
    }
    let out = env.cmd(&["machines", "--db", "postgres://u@db.example:notaport/r"]);
    assert_bad_input(&out, "port `notaport` is not a number");
    // TLS over a Unix socket, which the server never offers: what asked for it is the
    // URL's sslmode, not the server's place.
    let out = env.cmd(&["machines", "--db", &format!("{socket}?sslmode=require")]);
    assert_bad_input(&out, "does not offer TLS, which the URL's sslmode");

    let down = server.url_as("postgres", "postgres");
    server.stop();
    let out = env.cmd(&["machines", "--db", &down]);
    assert_one_line(&out, 5, "cannot reach the PostgreSQL server");
    // `run --push-to` a server that is down: refused before measuring, with that status,
    // and without leaving an empty local store behind.
    let local = env.path("kept.db");
    let out = small_run(&env, local.to_str().unwrap(), "t", &["--push-to", &down]);
    assert_one_line(&out, 5, "cannot reach the PostgreSQL server");
    assert!(!local.exists(), "an empty {} left behind", local.display());
    server.start_again();

    let out = env.cmd(&["run", "--testbed", "a b"]);
    assert_bad_input(&out, "testbed `a b` is not a name");
    // A value from the environment is blamed on its variable, not on an option that was
    // not given.
    let out = env.cmd_with(
        &["run", "--sizes", "64"],
        &[("CRYPTOBENCH_TESTBED", std::ffi::OsStr::new("bad name"))],
    );
    assert_bad_input(
        &out,
        "invalid value 'bad name' for CRYPTOBENCH_TESTBED (in the environment; --testbed was not given): testbed `bad name` is not a name",
    );
    let out = env.cmd_with(
        &["machines"],
        &[(
            "CRYPTOBENCH_DB",
            std::ffi::OsStr::new("postgres://u@db.example:notaport/r"),
        )],
    );
    assert_bad_input(
        &out,
        "CRYPTOBENCH_DB `postgres://u@db.example:notaport/r` is not a PostgreSQL URL (port `notaport` is not a number)",
    );
    // The spaces after a list's commas are no part of the names.
    ok(env.cmd(&["history", "--testbed", " zen", "--db", a.to_str().unwrap()]));
    let out = env.cmd(&[
        "report",
        "--machines",
        "--testbed",
        "zen, nosuch",
        "--db",
        a.to_str().unwrap(),
    ]);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("' nosuch'"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // history's --testbed does not read CRYPTOBENCH_TESTBED, and its help does not say
    // it does; machines' CSV is described as its own.
    let help = stdout(&env.cmd(&["history", "--help"]));
    assert!(!help.contains("[env: CRYPTOBENCH_TESTBED"), "{help}");
    let help = stdout(&env.cmd(&["machines", "--help"]));
    assert!(help.contains("a row per machine"), "{help}");
    assert!(
        help.contains("One JSON array: an object per machine"),
        "{help}"
    );
}

/// A password holding `/` and `?` (which the driver keeps in it, up to the first `@`):
/// it connects, and neither the run's record, local or pushed and printed by every
/// report, nor any message holds it or a piece of it; a wrong password is said to be
/// the one its source gave.
#[test]
fn a_password_holding_a_slash_or_question_mark_is_never_stored_nor_printed() {
    let env = Env::new();
    let server = PgServer::start();
    server.psql("postgres", "ALTER ROLE guarded PASSWORD 'Tr0ub/4dor?x'");
    let socket = server.url_as("guarded", "guarded");
    let url = socket.replace("guarded@", "guarded:Tr0ub/4dor?x@");
    let direct = small_run(&env, &url, "slash", &[]);
    let local = env.path("local.db");
    let pushed = small_run(&env, local.to_str().unwrap(), "slash", &["--push-to", &url]);
    let err = String::from_utf8_lossy(&pushed.stderr).into_owned();
    assert!(err.contains("pushed run 1"), "{err}");
    let mut said = vec![ok(direct), ok(pushed), err];
    for db in [local.to_str().unwrap(), url.as_str()] {
        let md = ok(env.cmd(&["report", "latest", "--db", db, "--format", "md"]));
        assert!(md.contains(" 'postgres://guarded:***@"), "{md}");
        said.push(md);
        said.push(ok(
            env.cmd(&["report", "latest", "--db", db, "--format", "json"])
        ));
    }
    // The run measured straight into the server, as its record says it.
    let first = ok(env.cmd(&["report", "1", "--db", &url, "--format", "md"]));
    assert!(first.contains("--db 'postgres://guarded:***@"), "{first}");
    said.push(first);
    for text in &said {
        assert!(!text.contains("4dor"), "{text}");
    }
    // Wrong: the source to correct is named, the password not.
    let out = env.cmd(&["machines", "--db", &url.replace("4dor?x@", "4dor?y@")]);
    assert_bad_input(&out, "wrong password (the one the URL gives)");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("4dor"));
    let out = env.cmd_with(
        &["machines", "--db", &socket],
        &[("PGPASSWORD", std::ffi::OsStr::new("nope"))],
    );
    assert_bad_input(&out, "wrong password (the one PGPASSWORD gives)");
    // Unencoded `@`s: the driver would read the password's tail as the host or database.
    for typo in ["guarded:p@ss:w/rd%x@", "guarded:p@ss@"] {
        let out = env.cmd(&["machines", "--db", &socket.replace("guarded@", typo)]);
        assert_bad_input(&out, "an `@` after the one that ends the user and password");
        let err = String::from_utf8_lossy(&out.stderr);
        for tail in ["ss:w", "rd%x", "ss%40", "ss@"] {
            assert!(!err.contains(tail), "{err}");
        }
    }
}

/// A server that takes the connection and never answers (hung, overloaded, a proxy with
/// no backend) ends a command within the connection's time limit, exit 5, so that a
/// scheduler retries it rather than waiting out the job's own limit.
#[test]
fn a_server_that_never_answers_ends_the_command_within_connect_timeout() {
    use std::ffi::OsStr;
    let env = Env::new();
    // The kernel completes the handshake for a listener that never accepts: the client
    // is connected, and waits for an answer that never comes.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "postgres://u@127.0.0.1:{}/x",
        silent.local_addr().unwrap().port()
    );
    let bounded = format!("{url}?connect_timeout=2");
    let timed = |args: &[&str], vars: &[(&str, &OsStr)]| {
        let start = Instant::now();
        let out = env.cmd_with(args, vars);
        let took = start.elapsed();
        assert!(took < Duration::from_secs(8), "{took:?} for {args:?}");
        out
    };
    let out = timed(&["machines", "--db", &bounded], &[]);
    assert_one_line(&out, 5, "no answer within 2 s");
    let out = timed(
        &["machines", "--db", &url],
        &[("PGCONNECT_TIMEOUT", OsStr::new("2"))],
    );
    assert_one_line(&out, 5, "no answer within 2 s");
    // `run --push-to` opens its target first: it stops before measuring.
    let kept = env.path("kept.db");
    let start = Instant::now();
    let out = small_run(&env, kept.to_str().unwrap(), "t", &["--push-to", &bounded]);
    assert!(start.elapsed() < Duration::from_secs(8));
    assert_one_line(&out, 5, "no answer within 2 s");
    let out = env.cmd_with(
        &["machines", "--db", &url],
        &[("PGCONNECT_TIMEOUT", OsStr::new("soon"))],
    );
    assert_bad_input(
        &out,
        "PGCONNECT_TIMEOUT `soon` is not a whole number of seconds",
    );
    drop(silent);
}

/// Messages name a server by a URL that can be pasted back (a socket's directory
/// percent-encoded, an IPv6 address in brackets), and the undecoded form is bad input,
/// not a server down that a scheduler would retry for ever.
#[test]
fn a_server_is_named_by_a_url_that_reads_back_as_the_same_server() {
    let env = Env::new();
    let unreachable = |url: &str| -> String {
        let out = env.cmd(&["machines", "--db", url]);
        assert_one_line(&out, 5, "cannot reach the PostgreSQL server ");
        let err = String::from_utf8_lossy(&out.stderr);
        let named = err.split("server ").nth(1).unwrap();
        named.split(' ').next().unwrap().to_string()
    };
    let dir = env.path("no-server-here");
    let dir = dir.to_str().unwrap();
    let encoded = format!("postgres://ci@{}:5432/db", dir.replace('/', "%2F"));
    // Given as libpq's `host` parameter, named in the URL's own form, which pastes back.
    let named = unreachable(&format!("postgres:///db?host={dir}&user=ci"));
    assert_eq!(named, encoded);
    assert_eq!(unreachable(&named), encoded);
    assert_eq!(
        unreachable("postgres://ci@[::1]:1/db"),
        "postgres://ci@[::1]:1/db"
    );
    let out = env.cmd(&["machines", "--db", &format!("postgres://ci@{dir}:5432/db")]);
    assert_bad_input(
        &out,
        "holds a `/`: a Unix socket's directory goes in the host",
    );
}

/// A role that may log in but not write is refused when the target is opened, as a
/// direct `run --db` is: `run --push-to` must not measure a whole run it cannot push.
#[test]
fn a_role_that_may_not_write_is_refused_before_measuring() {
    let env = Env::new();
    let server = PgServer::start();
    let shared = server.new_database("shared");
    let a = env.path("a.db");
    quick_run(&env, &a, "zen");
    ok(push(&env, &shared, &[&a]));
    server.psql(
        "shared",
        "CREATE ROLE reader LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader",
    );
    let as_reader = server.url_as("reader", "shared");
    let local = env.path("local.db");
    let out = small_run(
        &env,
        local.to_str().unwrap(),
        "zen",
        &["--push-to", &as_reader],
    );
    assert_bad_input(
        &out,
        "role `reader` may not write to this store (it lacks INSERT on machines; ",
    );
    assert_bad_input(
        &out,
        "GRANT INSERT ON machines TO reader; GRANT INSERT, UPDATE, DELETE ON runs, cases, estimates, figures, baselines TO reader; GRANT INSERT, DELETE ON clusters, canaries TO reader",
    );
    let measured = |local: &Path| -> i64 {
        rusqlite::Connection::open(local)
            .unwrap()
            .query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
            .unwrap_or(0)
    };
    assert_eq!(measured(&local), 0, "nothing measured");
    // INSERT alone is not writing: a run updates its cases as they are measured, and a
    // push replaces an incomplete copy.
    server.psql(
        "shared",
        "CREATE ROLE inserter LOGIN; GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO inserter",
    );
    let local = env.path("inserter.db");
    let out = small_run(
        &env,
        local.to_str().unwrap(),
        "zen",
        &["--push-to", &server.url_as("inserter", "shared")],
    );
    assert_bad_input(
        &out,
        "role `inserter` may not write to this store (it lacks UPDATE, DELETE on runs; UPDATE, DELETE on cases; DELETE on clusters; ",
    );
    assert_bad_input(
        &out,
        "GRANT UPDATE, DELETE ON runs, cases, estimates, figures, baselines TO inserter; GRANT DELETE ON clusters, canaries TO inserter",
    );
    assert_eq!(measured(&local), 0, "nothing measured");
    // What the check asks for is all a run and its push need.
    server.psql(
        "shared",
        "CREATE ROLE writer LOGIN; GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO writer;
         GRANT UPDATE, DELETE ON runs, cases, estimates, figures, baselines TO writer;
         GRANT DELETE ON clusters, canaries TO writer",
    );
    let as_writer = server.url_as("writer", "shared");
    ok(small_run(
        &env,
        &as_writer,
        "zen",
        &["--save-baseline", "main", "--force-baseline"],
    ));
    let local = env.path("writer.db");
    ok(small_run(
        &env,
        local.to_str().unwrap(),
        "zen",
        &[
            "--push-to",
            &as_writer,
            "--save-baseline",
            "main",
            "--force-baseline",
        ],
    ));
    let out = small_run(&env, &as_reader, "zen", &[]);
    assert_bad_input(&out, "role `reader` may not write to this store");
    // Reading is all it may do, and still does.
    ok(env.cmd(&["machines", "--db", &as_reader]));
    // A role with no grant at all is told what it lacks, not that the store could not be
    // set up.
    server.psql("shared", "CREATE ROLE stranger LOGIN");
    assert_bad_input(
        &env.cmd(&["machines", "--db", &server.url_as("stranger", "shared")]),
        "this role may not use the store (permission denied for table",
    );
}

#[test]
fn an_incomplete_copy_is_replaced_and_a_testbed_on_new_hardware_is_warned_of() {
    let env = Env::new();
    let (a, target) = (env.path("a.db"), env.path("target.db"));
    quick_run(&env, &a, "bench");
    // A copy of the store taken while its run was still measuring.
    std::fs::copy(&a, &target).unwrap();
    let conn = rusqlite::Connection::open(&target).unwrap();
    conn.execute(
        "UPDATE runs SET status = 'running', finished_at = NULL, digest = NULL",
        [],
    )
    .unwrap();
    conn.execute("DELETE FROM clusters WHERE process > 0", [])
        .unwrap();
    drop(conn);
    let target_s = target.to_str().unwrap();
    assert_eq!(pushed(&ok(push(&env, target_s, &[&a]))), (0, 1, 0));
    let here = ok(env.cmd(&[
        "report",
        "latest",
        "--db",
        a.to_str().unwrap(),
        "--format",
        "csv",
    ]));
    let there = ok(env.cmd(&["report", "latest", "--db", target_s, "--format", "csv"]));
    assert_eq!(here, there);
    assert_eq!(pushed(&ok(push(&env, target_s, &[&a]))), (0, 0, 1));

    // The testbed was another machine until now: said, and kept apart.
    rusqlite::Connection::open(&target)
        .unwrap()
        .execute("UPDATE machines SET fingerprint = 'another0machine0'", [])
        .unwrap();
    let out = small_run(&env, target_s, "bench", &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("testbed `bench` was until now"), "{err}");
    let machines = ok(env.cmd(&["machines", "--db", target_s, "--format", "csv"]));
    assert_eq!(machines.matches("\nbench,").count(), 2, "{machines}");
    let out = env.cmd(&["compare", "1", "2", "--db", target_s]);
    assert_bad_input(&out, "measured on different machines");
    // Side by side, the two columns of one testbed are told apart by their fingerprints.
    let md = ok(env.cmd(&["report", "--machines", "--db", target_s, "--format", "md"]));
    let head = md
        .lines()
        .find(|l| l.starts_with("| Implementation"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(head.contains("| bench (another0): "), "{head}");
    assert_eq!(head.matches("| bench (").count(), 2, "{head}");
    // Two columns, one name: a testbed not there lists `bench` once.
    let out = env.cmd(&[
        "report",
        "--machines",
        "--testbed",
        "nowhere",
        "--db",
        target_s,
    ]);
    assert_bad_input(&out, "(it has bench)");
    // A push that brings the testbed on other hardware into a store says so, as a run
    // does, once.
    let fresh = env.path("fresh.db");
    quick_run(&env, &fresh, "bench");
    quick_run(&env, &fresh, "bench");
    rusqlite::Connection::open(&fresh)
        .unwrap()
        .execute("UPDATE machines SET fingerprint = 'yet0another0one'", [])
        .unwrap();
    let out = push(&env, target_s, &[&fresh]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        err.matches("warning: testbed `bench` in `").count(),
        1,
        "{err}"
    );
    assert!(
        err.contains("is from other hardware (fingerprint yet0another0one)"),
        "{err}"
    );
}

#[test]
fn tls_is_used_where_asked_and_verified_against_the_given_authority() {
    let env = Env::new();
    let server = PgServer::start_with_tls();
    server.psql("postgres", "CREATE DATABASE secured");
    let a = env.path("a.db");
    quick_run(&env, &a, "zen");
    let ca = server.certificate();
    let ca = ca.to_str().unwrap();
    // Over TLS, its certificate verified: the push goes through.
    let url = server.tcp_url("secured", "?sslmode=require");
    let out = env.cmd_with(
        &["push", "--to", &url, "--from", a.to_str().unwrap()],
        &[("PGSSLROOTCERT", std::ffi::OsStr::new(ca))],
    );
    assert_eq!(pushed(&ok(out)), (1, 0, 0));
    // A certificate no authority given vouches for: refused, in one line, in words.
    let out = env.cmd(&["machines", "--db", &url]);
    assert_bad_input(&out, "the PostgreSQL server postgres://postgres@127.0.0.1");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("TLS certificate cannot be verified (") && !err.contains("error:0A"),
        "the server answered: not said as one that is down, nor in OpenSSL's internals: {err}"
    );
    // The authority given, the certificate not for the name connected to (`hostaddr`
    // reaches the server under another name): the name is at fault, not the authority.
    let elsewhere = server
        .tcp_url("secured", &format!("?hostaddr=127.0.0.1&sslrootcert={ca}"))
        .replace("@127.0.0.1:", "@db.invalid:");
    assert_bad_input(
        &env.cmd(&["machines", "--db", &elsewhere]),
        "TLS certificate does not name `db.invalid` (hostname mismatch): connect by a name the certificate lists",
    );
    let not_pem = env.path("not-a-certificate.crt");
    std::fs::write(&not_pem, "not a certificate\n").unwrap();
    let out = env.cmd(&[
        "machines",
        "--db",
        &server.tcp_url(
            "secured",
            &format!("?sslmode=verify-full&sslrootcert={}", not_pem.display()),
        ),
    ]);
    assert_bad_input(&out, "holds no certificate in PEM form");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("routines"));
    // Plain text to loopback is the client's to allow; this server refuses it, and says
    // by which rule.
    let plain = server.tcp_url("secured", "?sslmode=disable");
    let out = env.cmd(&["machines", "--db", &plain]);
    assert_bad_input(
        &out,
        "refused user `postgres`: pg_hba.conf rejects connection",
    );
    // libpq's own words for a verified connection are taken: the authority in the URL,
    // or in ~/.postgresql/root.crt, where libpq looks for it.
    let verified = server.tcp_url("secured", &format!("?sslmode=verify-full&sslrootcert={ca}"));
    ok(env.cmd(&["machines", "--db", &verified]));
    let home = env.path("home");
    std::fs::create_dir_all(home.join(".postgresql")).unwrap();
    std::fs::copy(ca, home.join(".postgresql/root.crt")).unwrap();
    let verify_full = server.tcp_url("secured", "?sslmode=verify-full");
    ok(env.cmd_with(
        &["machines", "--db", &verify_full],
        &[("HOME", home.as_os_str())],
    ));
    let missing = server.tcp_url(
        "secured",
        "?sslmode=verify-full&sslrootcert=/nonexistent/ca.crt",
    );
    assert_bad_input(
        &env.cmd(&["machines", "--db", &missing]),
        "sslrootcert `/nonexistent/ca.crt` (or PGSSLROOTCERT): cannot read it: No such file or directory",
    );
    // On loopback without sslmode (libpq's `prefer`) nothing is verified, as libpq does:
    // a Debian server's self-signed certificate is no obstacle there.
    let default = server.tcp_url("secured", "");
    ok(env.cmd(&["machines", "--db", &default]));

    // A role the server authenticates by certificate (`cert` in pg_hba.conf).
    server.psql(
        "secured",
        "GRANT SELECT ON ALL TABLES IN SCHEMA public TO certified",
    );
    let certified = |query: &str| {
        server
            .tcp_url(
                "secured",
                &format!("?sslmode=verify-full&sslrootcert={ca}{query}"),
            )
            .replacen("postgres@", "certified@", 1)
    };
    assert_bad_input(
        &env.cmd(&["machines", "--db", &certified("")]),
        "refused user `certified`: connection requires a valid client certificate; give this client's certificate with sslcert=PATH&sslkey=PATH",
    );
    let (cert, key) = server.client_certificate("client");
    let (cert, key) = (cert.to_str().unwrap(), key.to_str().unwrap());
    // libpq's words in the URL, its variables, and its files in ~/.postgresql.
    ok(env.cmd(&[
        "machines",
        "--db",
        &certified(&format!("&sslcert={cert}&sslkey={key}")),
    ]));
    ok(env.cmd_with(
        &["machines", "--db", &certified("")],
        &[
            ("PGSSLCERT", std::ffi::OsStr::new(cert)),
            ("PGSSLKEY", std::ffi::OsStr::new(key)),
        ],
    ));
    std::fs::copy(cert, home.join(".postgresql/postgresql.crt")).unwrap();
    std::fs::copy(key, home.join(".postgresql/postgresql.key")).unwrap();
    ok(env.cmd_with(
        &["machines", "--db", &certified("")],
        &[("HOME", home.as_os_str())],
    ));
    // A certificate the server's authority did not sign; half a pair; a key of another
    // certificate: one line each.
    let (stranger, stranger_key) = server.client_certificate("stranger");
    let (stranger, stranger_key) = (stranger.to_str().unwrap(), stranger_key.to_str().unwrap());
    assert_bad_input(
        &env.cmd(&[
            "machines",
            "--db",
            &certified(&format!("&sslcert={stranger}&sslkey={stranger_key}")),
        ]),
        "refused this client's TLS certificate",
    );
    assert_bad_input(
        &env.cmd(&["machines", "--db", &certified(&format!("&sslcert={cert}"))]),
        "without sslkey: give the certificate's key too",
    );
    assert_bad_input(
        &env.cmd(&[
            "machines",
            "--db",
            &certified(&format!("&sslcert={cert}&sslkey={stranger_key}")),
        ]),
        "is not the key of sslcert",
    );
}

/// A merged store's `history`: each case per machine, as its help says, every machine's
/// runs judged against that machine's own, not marked "another machine" against the
/// store's newest.
#[test]
fn history_follows_each_case_per_machine() {
    let env = Env::new();
    let db = env.path("h.db");
    let db_s = db.to_str().unwrap();
    // Interleaved, as a merged store holds them: each machine's newest is not the
    // store's.
    for testbed in ["first", "second", "first", "second"] {
        quick_run(&env, &db, testbed);
    }
    let h: serde_json::Value = serde_json::from_str(&ok(env.cmd(&[
        "history",
        "rustcrypto/chacha20/xor",
        "--db",
        db_s,
        "--format",
        "json",
    ])))
    .unwrap();
    let cases = h["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2, "{h}");
    for (case, testbed, runs) in [(&cases[0], "first", [1, 3]), (&cases[1], "second", [2, 4])] {
        assert_eq!(case["testbed"], testbed, "{h}");
        assert_eq!(case["reference_run"], runs[1], "{h}");
        let points = case["points"].as_array().unwrap();
        assert_eq!(points.len(), 2, "{h}");
        for (p, run) in points.iter().zip(runs) {
            assert_eq!(p["run_id"], run, "{h}");
            assert_eq!(p["comparable"], true, "{h}");
        }
        // Judged against its own machine's previous run.
        assert_eq!(points[1]["change"]["previous_run_id"], runs[0], "{h}");
    }
    let table = ok(env.cmd(&["history", "rustcrypto/chacha20/xor", "--db", db_s]));
    assert!(
        table.contains("rustcrypto/chacha20/xor len=64 on first ("),
        "{table}"
    );
    assert!(table.contains("each case per machine"), "{table}");
    assert!(!table.contains("NOT COMPARABLE"), "{table}");
    // One testbed's history alone: its own runs.
    let h: serde_json::Value = serde_json::from_str(&ok(env.cmd(&[
        "history",
        "rustcrypto/chacha20/xor",
        "--testbed",
        "first",
        "--db",
        db_s,
        "--format",
        "json",
    ])))
    .unwrap();
    assert_eq!(h["cases"][0]["points"].as_array().unwrap().len(), 2, "{h}");
    let table = ok(env.cmd(&["history", "--testbed", "first", "--db", db_s]));
    assert!(!table.contains(" on first ("), "{table}");
}

/// Schema 6 tags machine records, which a complete run's digest seals: a store and a
/// server both left at schema 5 migrate apart (the pushed file in memory only: a push
/// or a report reads it, never rewrites it) and still agree on every run's digest, so
/// pushing again finds the run there instead of calling it a conflict.
#[test]
fn a_schema_5_server_and_store_migrate_apart_and_still_agree() {
    let env = Env::new();
    let server = PgServer::start();
    let url = server.new_database("five");
    let a = env.path("a.db");
    quick_run(&env, &a, "zen");
    assert_eq!(pushed(&ok(push(&env, &url, &[&a]))), (1, 0, 0));
    let tagged = server.psql("five", "SELECT machine_json FROM runs");
    assert!(tagged.starts_with(r#"{"record":"measured/1""#), "{tagged}");

    // Both back to what schema 5 stored: the record untagged, a digest sealed over it.
    server.psql(
        "five",
        "UPDATE runs SET machine_json = (machine_json::jsonb - 'record')::text, digest = 'schema-5';
         UPDATE cryptobench_schema SET version = 5;",
    );
    let conn = rusqlite::Connection::open(&a).unwrap();
    conn.execute_batch(
        "UPDATE runs SET machine_json = json_remove(machine_json, '$.record'), digest = 'schema-5';
         PRAGMA user_version = 5;",
    )
    .unwrap();
    drop(conn);

    assert_eq!(pushed(&ok(push(&env, &url, &[&a]))), (0, 0, 1));
    assert_eq!(
        server.psql("five", "SELECT version FROM cryptobench_schema"),
        "7"
    );
    let migrated = server.psql("five", "SELECT machine_json FROM runs");
    assert!(
        migrated.starts_with(r#"{"record":"measured/1""#),
        "{migrated}"
    );
    let digest = server.psql("five", "SELECT digest FROM runs");
    assert_ne!(digest, "schema-5");
    // The pushed file was read, not rewritten: an older cryptobench may read it next,
    // and a reader may not be allowed to write it. Its copy in memory was upgraded, and
    // agrees with the server's run again on a second push.
    let before = std::fs::read(&a).unwrap();
    assert_eq!(pushed(&ok(push(&env, &url, &[&a]))), (0, 0, 1));
    ok(env.cmd(&["report", "latest", "--db", a.to_str().unwrap()]));
    assert_eq!(
        std::fs::read(&a).unwrap(),
        before,
        "the store was rewritten"
    );
    let conn = rusqlite::Connection::open(&a).unwrap();
    let here: String = conn
        .query_row("SELECT digest FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(here, "schema-5");
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, 5);
    // The machine reads as measured on both sides.
    let machines = ok(env.cmd(&["machines", "--db", &url]));
    assert!(machines.contains("zen"), "{machines}");
}

/// The scheduler's job that measured a run (stored with it) is in its report: a line
/// under the machine's, and `ci` in its JSON; a run no scheduler ran has neither.
#[test]
fn the_job_that_measured_a_run_is_named_in_its_report() {
    let env = Env::new();
    let db = env.path("ci.db");
    let db = db.to_str().unwrap();
    let os = std::ffi::OsStr::new;
    // Whatever scheduler runs this test, only the one set here is seen.
    let unset = [
        ("GITHUB_ACTIONS", os("")),
        ("GITLAB_CI", os("")),
        ("SLURM_JOB_ID", os("")),
        ("KUBERNETES_SERVICE_HOST", os("")),
    ];
    let github = [
        ("GITLAB_CI", os("")),
        ("SLURM_JOB_ID", os("")),
        ("KUBERNETES_SERVICE_HOST", os("")),
        ("GITHUB_ACTIONS", os("true")),
        ("GITHUB_RUN_ID", os("4242")),
        ("GITHUB_JOB", os("bench")),
    ];
    let run = |vars: &[(&str, &std::ffi::OsStr)]| {
        let out = env.cmd_with(&few_process_run(db, &[]), vars);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let live = run(&github);
    assert!(live.contains("Measured by github-actions ("), "{live}");
    let text = ok(env.cmd(&["report", "latest", "--db", db]));
    assert!(
        text.contains("GITHUB_JOB=bench") && text.contains("GITHUB_RUN_ID=4242"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&ok(
        env.cmd(&["report", "latest", "--db", db, "--format", "json"])
    ))
    .unwrap();
    assert_eq!(json["ci"]["system"], "github-actions", "{json}");
    assert_eq!(json["ci"]["vars"]["GITHUB_RUN_ID"], "4242", "{json}");

    let live = run(&unset);
    assert!(!live.contains("Measured by"), "{live}");
    let json: serde_json::Value = serde_json::from_str(&ok(
        env.cmd(&["report", "latest", "--db", db, "--format", "json"])
    ))
    .unwrap();
    assert!(json.get("ci").is_none(), "{json}");
}

/// `report --testbed` takes a list for `--machines`' columns; without it, a list once
/// printed the first testbed's run in silence.
#[test]
fn report_of_one_run_refuses_a_list_of_testbeds() {
    let env = Env::new();
    assert_bad_input(
        &env.cmd(&["report", "latest", "--testbed", "zen-a,zen-b"]),
        "--testbed zen-a,zen-b: a run is of one testbed; name one, or add --machines for a column per testbed",
    );
}

/// Schema 7 keeps a baseline per experiment as well as per testbed: a server left at
/// schema 6, its baselines a name per testbed, keeps each as its run's experiment's, and
/// a baseline of that name for another experiment is then kept beside it.
#[test]
fn a_schema_6_server_keeps_its_baselines_each_its_runs_experiments() {
    let env = Env::new();
    let server = PgServer::start();
    let url = server.new_database("six");
    let a = env.path("a.db");
    let save = ["--save-baseline", "main", "--force-baseline"];
    ok(small_run(&env, a.to_str().unwrap(), "zen", &save));
    assert_eq!(pushed(&ok(push(&env, &url, &[&a]))), (1, 0, 0));
    let experiment = server.psql("six", "SELECT experiment FROM runs");
    server.psql(
        "six",
        "CREATE TABLE baselines_v6 (testbed TEXT NOT NULL, name TEXT NOT NULL,
             run_id BIGINT NOT NULL REFERENCES runs(id), PRIMARY KEY (testbed, name));
         INSERT INTO baselines_v6 SELECT testbed, name, run_id FROM baselines;
         DROP TABLE baselines;
         ALTER TABLE baselines_v6 RENAME TO baselines;
         UPDATE cryptobench_schema SET version = 6;",
    );
    let report = ok(env.cmd(&["report", "main", "--db", &url, "--format", "json"]));
    assert!(report.contains("\"run_id\""), "{report}");
    assert_eq!(
        server.psql("six", "SELECT version FROM cryptobench_schema"),
        "7"
    );
    assert_eq!(
        server.psql("six", "SELECT experiment || ' ' || name FROM baselines"),
        format!("{experiment} main")
    );
    // Another experiment's `main` on the same testbed is kept beside it.
    let b = env.path("b.db");
    let out = env.cmd(&[
        "run",
        "rustcrypto/chacha20/",
        "--sizes",
        "64",
        "--samples",
        "12",
        "--processes",
        "4",
        "--layouts",
        "1",
        "--remeasure-budget",
        "0",
        "--no-canary",
        "--testbed",
        "zen",
        "--db",
        b.to_str().unwrap(),
        "--save-baseline",
        "main",
        "--force-baseline",
    ]);
    ok(out);
    assert_eq!(pushed(&ok(push(&env, &url, &[&b]))), (1, 0, 0));
    assert_eq!(
        server.psql("six", "SELECT count(*) FROM baselines WHERE name = 'main'"),
        "2"
    );
}
