//! `cryptobench bulk` end to end: the three tables, every run verified, the store round
//! trip, each output format, and every kind of bad input. Sizes are small (8 MiB, 2 runs):
//! these tests check behaviour, not figures.

mod common;

use serde_json::Value;

use common::Env;
use common::assert_bad_input;

const SMALL: &[&str] = &["bulk", "--sizes", "8MiB", "--runs", "2", "--threads", "1,2"];

fn small<'a>(more: &[&'a str]) -> Vec<&'a str> {
    SMALL.iter().chain(more).copied().collect()
}

fn array<'a>(v: &'a Value, key: &str) -> &'a Vec<Value> {
    v[key].as_array().unwrap_or_else(|| panic!("`{key}` array"))
}

#[test]
fn every_competitor_runs_verified_in_the_three_tables() {
    let env = Env::new();
    let text = env.run_ok(&small(&[]));
    for heading in ["Every run", "Summary", "Scaling", "Every run verified"] {
        assert!(text.contains(heading), "no `{heading}` in:\n{text}");
    }
    for name in [
        "memcpy",
        "openssl/aes-128-ctr",
        "openssl/aes-256-ecb",
        "rustcrypto/aes-256-ctr",
        "rustcrypto/aes-128-ecb",
        "cryptobench/aes-128-ctr",
        "cryptobench/aes-256-ecb",
    ] {
        assert!(text.contains(name), "no `{name}` in:\n{text}");
    }
    assert!(text.contains("MB/s = 10^6 bytes/s"), "units stated");
}

#[test]
fn json_holds_every_run_and_figures_that_add_up() {
    let env = Env::new();
    let v = env.json(&small(&["--impl", "aes-128-ctr", "--format", "json"]));
    assert_eq!(v["experiment"], "bulk");
    assert_eq!(v["verified"], true, "{:#}", v["problems"]);
    // What built and ran it: the competitors' libraries (OpenSSL's as linked) and argv.
    let libraries = array(&v["machine"]["build"], "libraries");
    assert_eq!(libraries[0]["name"], "OpenSSL", "{libraries:?}");
    let names: Vec<&str> = libraries
        .iter()
        .filter_map(|l| l["name"].as_str())
        .collect();
    assert_eq!(names[1..], ["aes", "ctr", "openssl"], "{libraries:?}");
    assert_eq!(v["options"]["bulk"]["command_line"][1], "bulk");
    // memcpy and three implementations, at two thread counts, two runs each.
    let runs = array(&v, "runs");
    assert_eq!(runs.len(), 4 * 2 * 2);
    for r in runs {
        assert_eq!(r["size_bytes"], 8 << 20);
        let ns = r["ns"].as_f64().expect("ns");
        let rate = r["mb_per_s"].as_f64().expect("rate");
        assert!(ns > 0.0);
        assert!((rate - (8 << 20) as f64 / ns * 1e3).abs() < 1e-6 * rate);
        if r["implementation"] == "memcpy" {
            assert!(r.get("decrypt_ns").is_none());
        } else {
            assert!(r["decrypt_ns"].as_f64().is_some(), "{r}");
        }
    }
    // Encryption and decryption of three implementations, and the copy, per thread count.
    let summary = array(&v, "summary");
    assert_eq!(summary.len(), (3 * 2 + 1) * 2);
    for s in summary {
        let m = &s["mb_per_s"];
        let (min, median, max) = (m["min"].as_f64(), m["median"].as_f64(), m["max"].as_f64());
        assert!(min <= median && median <= max, "{s}");
        assert_eq!(s["runs"], 2);
        // Two runs reach no 95 % interval of a median: none is claimed.
        assert!(m["median_ci95"].is_null(), "{s}");
    }
    let scaling = array(&v, "scaling");
    let best_copy = scaling
        .iter()
        .filter(|s| s["implementation"] == "memcpy")
        .filter_map(|s| s["fraction_of_memcpy"].as_f64())
        .fold(0.0, f64::max);
    assert_eq!(best_copy, 1.0, "the reference is the fastest memcpy");
    let ours_two = scaling
        .iter()
        .find(|s| {
            s["implementation"] == "cryptobench/aes-128-ctr"
                && s["operation"] == "encrypt"
                && s["threads"] == 2
        })
        .expect("ours with 2 threads");
    for key in [
        "speedup_vs_1_thread",
        "vs_openssl_1_thread",
        "fraction_of_memcpy",
    ] {
        assert!(
            ours_two[key].as_f64().is_some_and(|x| x > 0.0),
            "{key}: {ours_two}"
        );
    }
}

#[test]
fn every_run_is_in_the_store_and_report_shows_the_run() {
    let env = Env::new();
    let printed = env.run_ok(&small(&[
        "--impl",
        "openssl/aes-256-ctr",
        "--format",
        "json",
    ]));
    // `report` prints a stored bulk run exactly as `bulk` printed it.
    assert_eq!(
        env.run_ok(&["report", "latest", "--format", "json"]),
        printed
    );
    let v: Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(v["experiment"], "bulk");
    // memcpy's copy and OpenSSL's encryption and decryption, at 1 and 2 threads, 2 runs.
    assert_eq!(array(&v, "runs").len(), 2 * 2 * 2);
    // The exports take the stored cases, one per operation and thread count.
    let bencher = env.json(&["report", "latest", "--format", "bencher"]);
    let ids: Vec<&String> = bencher.as_object().expect("keyed by case").keys().collect();
    assert_eq!(ids.len(), 6, "{ids:?}");
    for id in [
        "openssl/aes-256-ctr/decrypt len=8388608 threads=2",
        "memcpy/copy len=8388608 threads=1",
    ] {
        assert!(ids.iter().any(|k| k.as_str() == id), "{id} in {ids:?}");
    }

    // `bulk` prints the exports as `report` does (the second session's figures).
    let exported: Value = serde_json::from_str(&env.run_ok(&small(&[
        "--impl",
        "openssl/aes-256-ctr",
        "--format",
        "bencher",
    ])))
    .expect("Bencher's JSON");
    let keys: Vec<&String> = exported
        .as_object()
        .expect("keyed by case")
        .keys()
        .collect();
    assert_eq!(keys, ids, "the same cases as the first session's export");

    // Two sessions compared: the runs within each are not independent, and it says so.
    let cmp = env.json(&["compare", "1", "2", "--format", "json"]);
    let warnings = cmp["warnings"].as_array().expect("warnings");
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .unwrap()
            .contains("one process under the same load")),
        "{cmp}"
    );
    let text = env.run_ok(&["compare", "1", "2"]);
    assert!(text.contains("Warning: bulk runs:"), "{text}");
}

#[test]
fn csv_markdown_and_files_carry_the_same_tables() {
    let env = Env::new();
    let csv = env.run_ok(&small(&[
        "--impl",
        "rustcrypto/aes-128-ecb",
        "--format",
        "csv",
    ]));
    let sections: Vec<&str> = csv.split("\n\n").collect();
    assert_eq!(sections.len(), 3, "{csv}");
    assert!(
        sections[0].starts_with("run_status,implementation,operation,size_bytes,threads,run,ns"),
        "{csv}"
    );
    assert!(
        sections
            .iter()
            .all(|s| s.lines().skip(1).all(|l| l.starts_with("complete,"))),
        "{csv}"
    );
    assert_eq!(sections[0].lines().count(), 1 + 2 * 2 * 2);
    assert!(sections[1].contains("median_mb_per_s"));
    assert!(sections[2].contains("fraction_of_memcpy"));

    let md = env.run_ok(&small(&[
        "--impl",
        "rustcrypto/aes-128-ecb",
        "--format",
        "md",
    ]));
    assert!(md.contains("## Summary"), "{md}");
    assert!(md.contains("| rustcrypto/aes-128-ecb"), "{md}");

    let printed = env.run_ok(&small(&[
        "--impl",
        "openssl/aes-128-ecb",
        "-o",
        "out.json",
        "--format",
        "json",
    ]));
    assert!(printed.is_empty(), "written to the file instead: {printed}");
    let written = std::fs::read_to_string(env.dir.path().join("out.json")).expect("out.json");
    let v: Value = serde_json::from_str(&written).expect("valid JSON");
    assert_eq!(v["verified"], true);
}

#[test]
fn our_code_paths_can_be_measured_one_by_one() {
    let env = Env::new();
    let v = env.json(&[
        "bulk",
        "--sizes",
        "64KiB",
        "--runs",
        "2",
        "--threads",
        "1",
        "--paths",
        "--impl",
        "cryptobench/aes-256-ctr",
        "--format",
        "json",
    ]);
    assert_eq!(v["verified"], true);
    // Six runs: the median's 95 % interval is the order statistics', here the extremes.
    let six = env.json(&[
        "bulk",
        "--sizes",
        "64KiB",
        "--runs",
        "6",
        "--threads",
        "1",
        "--impl",
        "rustcrypto/aes-128-ctr",
        "--format",
        "json",
    ]);
    for s in array(&six, "summary") {
        let m = &s["mb_per_s"];
        assert_eq!(m["median_ci95"][0], m["min"], "{s}");
        assert_eq!(m["median_ci95"][1], m["max"], "{s}");
    }
    let names: Vec<&str> = array(&v, "summary")
        .iter()
        .filter_map(|s| s["implementation"].as_str())
        .collect();
    assert!(names.contains(&"cryptobench/aes-256-ctr"));
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("cryptobench/aes-256-ctr@")),
        "{names:?}"
    );
}

#[test]
fn bad_sizes_are_refused_with_status_2() {
    let env = Env::new();
    for (size, expect) in [
        ("0", "at least 16 bytes"),
        ("12XB", "unknown unit"),
        ("1.5GiB", "not a whole number"),
        ("1000", "16-byte AES blocks"),
        ("lots", "not a size"),
        ("1000GiB", "of memory is available"),
        ("99999999999999999999", "too large"),
    ] {
        let out = env.cmd(&["bulk", "--sizes", size, "--runs", "2"]);
        assert_bad_input(&out, expect);
        assert!(out.stdout.is_empty(), "nothing measured for {size}");
    }
}

#[test]
fn bad_thread_counts_runs_filters_and_formats_are_refused_with_status_2() {
    let env = Env::new();
    let cases: &[(&[&str], &str)] = &[
        (&["--threads", "0"], "at least 1"),
        (&["--threads", "1025"], "limit of 1024"),
        (&["--threads", "1,x"], "not a thread count"),
        (&["--runs", "1"], "--runs"),
        (&["--impl", "no-such-cipher"], "no implementation matches"),
    ];
    for (args, expect) in cases {
        let mut all = vec!["bulk", "--sizes", "64KiB"];
        all.extend_from_slice(args);
        assert_bad_input(&env.cmd(&all), expect);
    }
}

#[test]
fn the_html_page_has_a_thread_scaling_chart_per_algorithm() {
    let env = Env::new();
    let page = env.dir.path().join("bulk.html");
    let page_arg = page.to_str().unwrap();
    env.run_ok(&small(&[
        "--impl",
        "aes-128-ctr",
        "--format",
        "html",
        "-o",
        page_arg,
    ]));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("Thread scaling: aes-128-ctr encryption of 8 MiB"),
        "no scaling chart"
    );
    assert!(html.contains("memcpy (a reference)"));
    assert!(!html.contains("<script"), "the page must run no script");
    // `report` shows the stored bulk run with the same page.
    let again = env.run_ok(&["report", "latest", "--format", "html"]);
    assert!(again.contains("Thread scaling: aes-128-ctr encryption of 8 MiB"));
}

/// Ctrl-C in the middle of a long bulk run: the timed runs made so far are printed and
/// kept, the run is marked incomplete, the status is 130.
#[test]
fn ctrl_c_keeps_and_prints_the_runs_made() {
    let env = Env::new();
    let out = env.interrupt_when(
        &[
            "bulk",
            "--sizes",
            "8MiB",
            "--runs",
            "1000",
            "--threads",
            "1",
            "--impl",
            "openssl",
            "--format",
            "json",
        ],
        |run| run["runs"].as_array().is_some_and(|runs| !runs.is_empty()),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "stderr: {stderr}");
    assert!(
        stderr.contains("interrupted: run 1 keeps what was measured before it was stopped (Ctrl-C"),
        "{stderr}"
    );
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        printed["status"], "incomplete",
        "an interrupted run stays incomplete"
    );
    let runs = array(&printed, "runs").len();
    assert!((1..1000).contains(&runs), "{runs} runs printed");
    assert_eq!(env.json(&["report", "1", "--format", "json"]), printed);
    // Every CSV row says so too: a spreadsheet of it never reads as a finished run.
    let csv = env.run_ok(&["report", "1", "--format", "csv"]);
    assert!(
        csv.lines()
            .filter(|l| !l.is_empty() && !l.starts_with("run_status"))
            .all(|l| l.starts_with("incomplete,")),
        "{csv}"
    );
}
