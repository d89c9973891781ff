//! scripts/permutation-table.py against a run whose answers are known: calls
//! built as F + k P, so every per-permutation figure is P, and one build whose
//! 4-times call ran in another state (the case seen in session 19).

use std::process::Output;

mod common;

/// One result as `cryptobench run --format json` writes it, with a ±1 cycle interval.
fn result(implementation: &str, median: f64) -> serde_json::Value {
    serde_json::json!({
        "implementation": implementation,
        "status": "ok",
        "median_cycles": median,
        "median_ci95": [median - 1.0, median + 1.0],
    })
}

/// A build's calls 1, 2, 4 and 8 times (or only `times`), costing `fixed + k * per`.
fn calls(
    name: impl Fn(u32) -> String,
    times: &[u32],
    fixed: f64,
    per: f64,
) -> Vec<serde_json::Value> {
    times
        .iter()
        .map(|&k| result(&name(k), fixed + f64::from(k) * per))
        .collect()
}

fn ours(build: &str, fixed: f64, per: f64) -> Vec<serde_json::Value> {
    let suffix = |k| match k {
        1 => "",
        2 => "-twice",
        4 => "-4times",
        _ => "-8times",
    };
    calls(
        |k| format!("cryptobench/keccak-f1600-{build}-interleaved{}", suffix(k)),
        &[1, 2, 4, 8],
        fixed,
        per,
    )
}

fn xkcp(states: u32, build: &str, fixed: f64, per: f64) -> Vec<serde_json::Value> {
    let width = if states == 1 {
        String::new()
    } else {
        format!("-x{states}")
    };
    calls(
        |k| format!("xkcp/keccak-f1600{width}-{k}times/{build}"),
        &[4, 8],
        fixed,
        per,
    )
}

fn table(run: &serde_json::Value) -> Output {
    common::table_script("permutation-table.py", "run.json", run)
}

fn table_printed(run: &serde_json::Value) -> String {
    common::table_script_printed("permutation-table.py", "run.json", run)
}

/// The row of `states` in the table after the line starting with `heading`.
fn fastest_row<'a>(out: &'a str, heading: &str, states: u32) -> &'a str {
    let section = &out[out
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?} in\n{out}"))..];
    section
        .lines()
        .find(|l| l.starts_with(&format!("| {states} |")))
        .unwrap_or_else(|| panic!("no row for {states} states after {heading:?} in\n{out}"))
}

#[test]
fn each_side_fastest_steady_build_is_picked_with_and_without_avx512() {
    let mut results = Vec::new();
    results.extend(ours("x1-asm", 10.0, 882.0));
    results.extend(ours("x4-avx2-asm", 60.0, 1250.0));
    results.extend(ours("x4-avx512vl-xor", 50.0, 770.0));
    results.extend(xkcp(1, "opt64-ua-pad32@haswell", 50.0, 892.0));
    results.extend(xkcp(4, "times4-avx2-u6-pad0@haswell", 300.0, 1350.0));
    results.extend(xkcp(4, "times4-avx2-ua-pad48@native", 600.0, 780.0));
    // Its 4-times call ran in another state: (T8 - T4) / 4 = 667, F = 2 T4 - T8 = 1875.
    results.push(result(
        "xkcp/keccak-f1600-4times/opt64-ua-pad16@haswell",
        4544.0,
    ));
    results.push(result(
        "xkcp/keccak-f1600-8times/opt64-ua-pad16@haswell",
        7213.0,
    ));
    let machine = serde_json::json!({"cpu_model": "Test CPU", "cpu_signature": "6/207/2", "online_cpus": 16, "cc": "cc 13"});
    let run = serde_json::json!({"run_id": 1, "counter": {"kind": "tsc-core"}, "machine": machine, "results": results});

    let out = table_printed(&run);
    assert!(
        out.starts_with("Run 1 on Test CPU (6/207/2, 16 CPUs, cc 13), counter tsc-core,"),
        "the table names the host it was measured on: {out}"
    );

    let odd = out
        .lines()
        .find(|l| l.contains("`opt64-ua-pad16@haswell`"))
        .unwrap();
    assert!(
        odd.contains("667.2") && odd.ends_with("(not steady) |"),
        "{odd}"
    );
    let all = "Fastest per permutation";
    let x1 = fastest_row(&out, all, 1);
    assert!(
        x1.contains("882.0") && x1.contains("892.0 [") && x1.contains("`opt64-ua-pad32@haswell`"),
        "{x1}"
    );
    assert!(x1.contains("-1.1 %") && x1.ends_with("| apart |"), "{x1}");
    let x4 = fastest_row(&out, all, 4);
    assert!(
        x4.contains("`x4-avx512vl-xor`") && x4.contains("`times4-avx2-ua-pad48@native`"),
        "{x4}"
    );
    let avx2 = fastest_row(&out, "The same without AVX-512", 4);
    assert!(
        avx2.contains("1250.0 [") && avx2.contains("`x4-avx2-asm`"),
        "{avx2}"
    );
    assert!(
        avx2.contains("1350.0 [") && avx2.contains("`times4-avx2-u6-pad0@haswell`"),
        "{avx2}"
    );
    assert!(
        avx2.contains("-7.4 %") && avx2.ends_with("| apart |"),
        "{avx2}"
    );
}

#[test]
fn a_file_that_is_not_a_run_is_refused_in_one_line_naming_it() {
    let out = table(&serde_json::json!({"rows": []}));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("run.json") && err.contains("not a cryptobench run"),
        "{err}"
    );
}

#[test]
fn a_build_without_intervals_is_shown_but_never_ranked() {
    // A run stopped early: the faster build has one process a case, so no intervals.
    let mut results = ours("x1-asm", 10.0, 800.0);
    for r in &mut results {
        r["median_ci95"] = serde_json::Value::Null;
    }
    results.extend(ours("x1-scalar", 10.0, 900.0));
    results.extend(xkcp(1, "opt64-ua@haswell", 50.0, 950.0));
    let run = serde_json::json!({"run_id": 2, "status": "running", "results": results});

    let out = table_printed(&run);
    assert!(
        out.lines().next().unwrap().contains("Incomplete (running)"),
        "{out}"
    );
    let asm = out.lines().find(|l| l.contains("`x1-asm`")).unwrap();
    assert!(
        asm.contains("800.0 [no interval]") && asm.ends_with("(no interval: not ranked) |"),
        "{asm}"
    );
    let x1 = fastest_row(&out, "Fastest per permutation", 1);
    assert!(x1.contains("`x1-scalar`") && !x1.contains("x1-asm"), "{x1}");
}
