//! Continuous-benchmarking exports checked against their documented shapes (Bencher
//! Metric Format; github-action-benchmark's customSmallerIsBetter), and `history`.

mod common;

use serde_json::Value;

use common::{Env, WITH_INTERVALS, assert_refused};

/// rand_chacha at two lengths, small and quick, with the fewest processes that give
/// intervals (the exports carry them).
fn quick_run(env: &Env, counter: &str) {
    quick_run_with(env, counter, &[]);
}

/// [`quick_run`] with `extra` arguments.
fn quick_run_with(env: &Env, counter: &str, extra: &[&str]) {
    env.run_ok(
        &[
            &[
                "run",
                "rand_chacha",
                "--sizes",
                "1024,4096",
                "--counter",
                counter,
                "--format",
                "csv",
            ],
            WITH_INTERVALS,
            extra,
        ]
        .concat(),
    );
}

fn number(v: &Value, what: &str) -> f64 {
    v.as_f64()
        .unwrap_or_else(|| panic!("{what} is not a number: {v}"))
}

/// The unit the exports name a run's counts in: core cycles, TSC reference cycles or ns.
fn export_unit(run: &Value) -> &'static str {
    match run["counter"]["kind"].as_str().unwrap() {
        "ns" => "ns",
        "tsc" => "ref-cycles",
        "perf" | "tsc-core" => "cycles",
        other => panic!("counter {other}"),
    }
}

#[test]
fn bencher_metric_format_has_its_documented_shape() {
    let env = Env::new();
    quick_run(&env, "auto");
    let run = env.json(&["report", "latest", "--format", "json"]);
    let unit = export_unit(&run);
    let bmf = env.json(&["report", "latest", "--format", "bencher"]);
    let benchmarks = bmf
        .as_object()
        .expect("BMF is a JSON object keyed by benchmark");
    assert_eq!(benchmarks.len(), 2);
    for (name, measures) in benchmarks {
        assert!(
            name.starts_with("rand_chacha/chacha20-rng/fill_bytes len="),
            "{name}"
        );
        let measures = measures.as_object().expect("each benchmark maps measures");
        let mut keys: Vec<&str> = measures.keys().map(String::as_str).collect();
        keys.sort_unstable();
        let mut expected = vec![unit.to_string(), format!("{unit}-per-byte")];
        if unit == "ns" || run["counter"]["tsc_hz"].is_number() {
            // Not Bencher's built-in `throughput`, which is operations per second.
            expected.push("bytes-per-second".into());
        }
        expected.sort();
        assert_eq!(keys, expected, "{name}");
        for (measure, metric) in measures {
            let metric = metric.as_object().expect("a metric is an object");
            let mut fields: Vec<&str> = metric.keys().map(String::as_str).collect();
            fields.sort_unstable();
            assert_eq!(fields, ["lower_value", "upper_value", "value"], "{measure}");
            let (lo, v, hi) = (
                number(&metric["lower_value"], "lower_value"),
                number(&metric["value"], "value"),
                number(&metric["upper_value"], "upper_value"),
            );
            assert!(
                lo <= v && v <= hi && v > 0.0,
                "{name} {measure}: {lo} {v} {hi}"
            );
        }
    }
    let one = &bmf["rand_chacha/chacha20-rng/fill_bytes len=1024"];
    let per_call = number(&one[unit]["value"], unit);
    let per_byte = number(&one[format!("{unit}-per-byte")]["value"], "per byte");
    assert!((per_call / 1024.0 - per_byte).abs() < 1e-9 * per_call);
}

#[test]
fn github_action_benchmark_has_its_documented_shape() {
    let env = Env::new();
    quick_run(&env, "auto");
    let entries = env.json(&["report", "latest", "--format", "github-action-benchmark"]);
    let entries = entries
        .as_array()
        .expect("customSmallerIsBetter takes a JSON array");
    assert_eq!(entries.len(), 2);
    for e in entries {
        let mut keys: Vec<&str> = e
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(keys, ["extra", "name", "range", "unit", "value"], "{e}");
        assert!(e["name"].as_str().unwrap().starts_with("rand_chacha/"));
        assert!(e["unit"].as_str().unwrap().ends_with("/byte"), "{e}");
        assert!(number(&e["value"], "value") > 0.0);
        let range = e["range"].as_str().expect("range is a string");
        let half: f64 = range
            .strip_prefix("± ")
            .unwrap_or_else(|| panic!("range `{range}` is not `± x`"))
            .parse()
            .expect("a number after ±");
        assert!(half >= 0.0);
        let extra = e["extra"].as_str().expect("extra is a string");
        assert!(extra.contains("counter"), "{extra}");
    }
}

/// Reference cycles tick at the TSC's fixed rate, core cycles at the core's clock: the
/// same code counts a third fewer of the one than of the other on a turbo-boosted core.
/// Bencher and github-action-benchmark compare by measure and unit name, so the two
/// must not share one, or a change of counter reads as a change of speed.
#[test]
fn exports_name_the_kind_of_cycles() {
    let env = Env::new();
    quick_run(&env, "tsc");
    let bmf = env.json(&["report", "latest", "--format", "bencher"]);
    let one = bmf["rand_chacha/chacha20-rng/fill_bytes len=1024"]
        .as_object()
        .unwrap();
    assert!(one.contains_key("ref-cycles"), "{bmf}");
    assert!(one.contains_key("ref-cycles-per-byte"), "{bmf}");
    assert!(!one.contains_key("cycles"), "{bmf}");
    let gab = env.json(&["report", "latest", "--format", "github-action-benchmark"]);
    assert_eq!(gab[0]["unit"], "ref-cycles/byte", "{gab}");
    let csv = env.run_ok(&["report", "latest", "--format", "csv"]);
    let mut lines = csv.lines().map(|l| l.split(',').collect::<Vec<_>>());
    let header = lines.next().unwrap();
    let col = header
        .iter()
        .position(|h| *h == "counter")
        .expect("a counter column");
    for row in lines {
        assert_eq!(row[col], "tsc", "{csv}");
    }
}

/// `openssl speed` gives one figure per case: no interval, so none is exported (the
/// JSON report's `median_ci95` is null), not a zero-width one.
#[test]
fn a_single_measurement_is_exported_without_an_interval() {
    let env = Env::new();
    let file = format!(
        "{}/tests/data/openssl-speed-aes-128-gcm.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    env.run_ok(&["import", "openssl-speed", &file]);
    let bmf = env.json(&["report", "latest", "--format", "bencher"]);
    let one = bmf["openssl/aes-128-gcm/speed len=1024"]
        .as_object()
        .unwrap_or_else(|| panic!("{bmf}"));
    assert_eq!(one.len(), 3, "{bmf}");
    for (measure, metric) in one {
        let fields: Vec<&str> = metric
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(fields, ["value"], "{measure}: {bmf}");
    }
    let gab = env.json(&["report", "latest", "--format", "github-action-benchmark"]);
    for e in gab.as_array().unwrap() {
        assert!(e.get("range").is_none(), "{e}");
        assert!(e["value"].as_f64().unwrap() > 0.0, "{e}");
    }
}

/// Each command's `--help` lists exactly the formats it prints (one declaration per kind
/// of document), and it refuses the others, naming the ones it takes.
#[test]
fn each_command_offers_exactly_the_formats_it_prints() {
    let env = Env::new();
    quick_run(&env, "auto");
    quick_run(&env, "auto");
    let all = [
        "table",
        "md",
        "json",
        "csv",
        "html",
        "bencher",
        "github-action-benchmark",
    ];
    let commands: &[(&[&str], usize)] = &[
        (&["run"], 7),
        (&["report"], 7),
        (&["bulk"], 7),
        (&["compare", "1", "2"], 5),
        (&["history"], 5),
    ];
    for (command, takes) in commands {
        let help = env.run_ok(&[command[0], "--help"]);
        let section = help
            .split_once("--format <FORMAT>")
            .and_then(|(_, rest)| rest.split_once("[default: table]"))
            .unwrap_or_else(|| panic!("{command:?}: no --format in {help}"))
            .0;
        let offered: Vec<&str> = all
            .iter()
            .copied()
            .filter(|f| section.contains(&format!("- {f}:")))
            .collect();
        assert_eq!(offered, all[..*takes], "{command:?}: {section}");
        for refused in &all[*takes..] {
            let mut args = command.to_vec();
            args.extend(["--format", refused]);
            let out = env.cmd(&args);
            assert_refused(&out, &format!("invalid value '{refused}'"));
            assert!(
                String::from_utf8_lossy(&out.stderr)
                    .contains("[possible values: table, md, json, csv, html]"),
                "{args:?}"
            );
        }
    }
}

#[test]
fn history_gives_the_median_per_run_and_marks_what_is_not_comparable() {
    let env = Env::new();
    // Without the canary: on a loaded host it may rightly find a case unsteady, and mark
    // it not comparable; what is tested here is the counter.
    for counter in ["auto", "ns", "auto"] {
        quick_run_with(&env, counter, &["--no-canary"]);
    }
    let h = env.json(&["history", "len=1024", "--format", "json"]);
    let runs = h["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    for r in runs {
        assert!(
            r["run_id"].is_i64() && r["started_at"].is_string() && r["tool_version"].is_string()
        );
        assert!(r.get("git_revision").is_some());
    }
    let cases = h["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 1, "only the filtered case: {h}");
    assert_eq!(
        cases[0]["id"],
        "rand_chacha/chacha20-rng/fill_bytes len=1024"
    );
    let points = cases[0]["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    for p in points {
        assert_eq!(p["host"], "not checked", "--no-canary: {h}");
        let (lo, hi) = (
            number(&p["interval"]["lo"], "lo"),
            number(&p["interval"]["hi"], "hi"),
        );
        let median = number(&p["median"], "median");
        assert!(lo <= median && median <= hi, "{h}");
    }
    let latest = env.json(&["report", "latest", "--format", "json"]);
    let median = latest["results"][0]["median_cycles"]
        .as_f64()
        .or_else(|| latest["results"][0]["median_ns"].as_f64())
        .unwrap();
    assert_eq!(
        number(&points[2]["median"], "median"),
        median,
        "the report's median"
    );
    let ci = &latest["results"][0]["median_ci95"];
    assert_eq!(
        (
            points[2]["interval"]["lo"].as_f64(),
            points[2]["interval"]["hi"].as_f64()
        ),
        (ci[0].as_f64(), ci[1].as_f64()),
        "the report's interval: {latest}"
    );
    assert!(ci[0].is_f64(), "{latest}");
    // A tsc-core run keeps the clock its case ran at; other counters have none.
    let clocked = latest["counter"]["kind"] == "tsc-core";
    assert_eq!(points[2]["core_clock_hz"].is_f64(), clocked, "{h}");
    assert_eq!(
        latest["results"][0]["core_clock_hz"].is_f64(),
        clocked,
        "{latest}"
    );
    assert!(points[1]["core_clock_hz"].is_null(), "an ns run: {h}");
    let native_is_ns = latest["counter"]["kind"] == "ns";
    assert_eq!(points[1]["comparable"], native_is_ns, "{h}");
    assert_eq!(points[0]["comparable"], true);
    if !native_is_ns {
        assert!(
            points[1]["caveats"][0]
                .as_str()
                .unwrap()
                .contains("counter ns")
        );
        let table = env.run_ok(&["history", "len=1024"]);
        assert!(table.contains("NOT COMPARABLE: counter ns"), "{table}");
    }
    let csv = env.run_ok(&["history", "--format", "csv"]);
    assert_eq!(csv.lines().count(), 1 + 6, "{csv}");
    let html = env.run_ok(&["history", "--format", "html"]);
    assert_eq!(html.matches("<svg").count(), 2, "a line chart per case");

    let out = env.cmd(&["history", "no-such-case"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`no-such-case`"));
}

/// An incomplete run (the golden store's run 9, stopped while a case hung) is marked as
/// one in every export, not passed off as a whole run: JSON's status, a CSV column, and
/// the names (and tooltip) of the continuous-benchmarking entries, so that its figures
/// never join the series of whole runs.
#[test]
fn an_incomplete_run_is_marked_in_every_export() {
    let env = Env::new();
    let store = format!("{}/tests/data/golden/store.db", env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(store, env.db()).expect("copy the fixture store");

    let run = env.json(&["report", "9", "--format", "json"]);
    assert_eq!(run["status"], "incomplete", "not `running`: {run}");
    assert_eq!(
        env.json(&["report", "1", "--format", "json"])["status"],
        "complete"
    );

    let csv = env.run_ok(&["report", "9", "--format", "csv"]);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = header
        .iter()
        .position(|&c| c == "run_status")
        .unwrap_or_else(|| panic!("no run_status column: {header:?}"));
    for line in lines {
        assert_eq!(line.split(',').nth(column), Some("incomplete"), "{line}");
    }

    let bmf = env.json(&["report", "9", "--format", "bencher"]);
    let names: Vec<&String> = bmf.as_object().unwrap().keys().collect();
    assert!(!names.is_empty());
    for name in names {
        assert!(name.ends_with(" (incomplete run)"), "{name}");
    }
    let gab = env.json(&["report", "9", "--format", "github-action-benchmark"]);
    for e in gab.as_array().unwrap() {
        assert!(
            e["name"].as_str().unwrap().ends_with(" (incomplete run)"),
            "{e}"
        );
        assert!(e["extra"].as_str().unwrap().contains("INCOMPLETE"), "{e}");
    }
    let whole = env.json(&["report", "1", "--format", "github-action-benchmark"]);
    for e in whole.as_array().unwrap() {
        assert!(!e["name"].as_str().unwrap().contains("incomplete"), "{e}");
    }
}

/// Every interval in a CSV row says its level: a case's at 95 %, a change's at
/// 1 - significance, which may differ within one row.
#[test]
fn csv_says_the_level_of_every_interval() {
    let env = Env::new();
    let store = format!("{}/tests/data/golden/store.db", env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(store, env.db()).expect("copy the fixture store");
    let column = |csv: &str, name: &str| -> Vec<String> {
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let at = header
            .iter()
            .position(|&c| c == name)
            .unwrap_or_else(|| panic!("no {name} column: {header:?}"));
        lines
            .map(|l| l.split(',').nth(at).unwrap_or_default().to_string())
            .collect()
    };
    let run = env.run_ok(&["report", "1", "--format", "csv"]);
    assert!(
        column(&run, "ci_level").iter().all(|l| l == "0.95"),
        "{run}"
    );
    let changes = column(&run, "change_ci_level");
    assert!(changes.iter().any(|l| l == "0.95"), "{run}");
    let pair = env.run_ok(&[
        "compare",
        "1",
        "2",
        "--significance",
        "0.01",
        "--format",
        "csv",
    ]);
    let levels = column(&pair, "change_ci_level");
    assert!(
        !levels.is_empty() && levels.iter().all(|l| l == "0.99"),
        "{pair}"
    );
}

/// `compare --format csv` names both runs by their ids and the case by its id, each in a
/// column of its own, and says what the medians are in, as a run's CSV does.
#[test]
fn compare_csv_names_both_runs_and_what_the_medians_are_in() {
    let env = Env::new();
    let store = format!("{}/tests/data/golden/store.db", env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(store, env.db()).expect("copy the fixture store");
    let csv = env.run_ok(&["compare", "1", "2", "--format", "csv"]);
    let mut lines = csv.lines();
    assert!(
        lines.next().unwrap().starts_with(
            "baseline_run,candidate_run,id,operation,params,unit,counter,median_baseline,median_candidate,"
        ),
        "{csv}"
    );
    let first = lines.next().unwrap();
    assert!(
        first.starts_with("1,2,rustcrypto/chacha20/xor len=64,xor,len=64,cycles,tsc-core,"),
        "{first}"
    );
    let json = env.json(&["compare", "1", "2", "--format", "json"]);
    assert_eq!(json["counter"]["kind"], "tsc-core", "{json}");
    assert_eq!(json["counter"]["unit"], "cycles", "{json}");
}

/// One notation across a report: every interval `[lo, hi]` (cases, ratios and
/// comparisons alike), the CPU's signature in parentheses wherever it is printed, the
/// Bencher export in the run's order, and `compare` naming a baseline by the name it
/// was given as well as its id.
#[test]
fn a_report_keeps_one_notation_and_order() {
    let env = Env::new();
    let store = format!("{}/tests/data/golden/store.db", env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(store, env.db()).expect("copy the fixture store");

    // An interval with a space between its bounds: `[1.589 1.595]`.
    let spaced = |text: &str| -> Vec<String> {
        text.split('[')
            .skip(1)
            .filter_map(|rest| rest.split_once(']').map(|(inside, _)| inside))
            .filter(|inside| {
                inside.contains(' ')
                    && !inside.contains(',')
                    && inside
                        .chars()
                        .all(|c| c.is_ascii_digit() || " .+-".contains(c))
            })
            .map(str::to_string)
            .collect()
    };
    for run in ["1", "2", "3", "4"] {
        let table = env.run_ok(&["report", run]);
        assert!(table.contains(", "), "{table}");
        assert_eq!(spaced(&table), Vec::<String>::new(), "run {run}:\n{table}");
    }

    let html = env.run_ok(&["report", "1", "--format", "html"]);
    assert!(!html.contains("[25/17/1]"), "{html}");
    assert!(html.contains("AMD EPYC (25/17/1)"), "{html}");
    let info = env.run_ok(&["info"]);
    let cpu = info.lines().find(|l| l.starts_with("CPU:")).unwrap();
    assert!(!cpu.contains('['), "{cpu}");

    let run = env.json(&["report", "1", "--format", "json"]);
    let ids: Vec<&str> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let bmf = env.run_ok(&["report", "1", "--format", "bencher"]);
    let mut at = 0;
    for id in &ids {
        let found = bmf[at..]
            .find(&format!("\"{id}\": {{"))
            .unwrap_or_else(|| panic!("{id} not after the one before it in:\n{bmf}"));
        at += found + 1;
    }

    let compared = env.run_ok(&["compare", "golden", "2"]);
    assert!(
        compared.contains("Run 2 against baseline run 1 (`golden`)"),
        "{compared}"
    );
}
