//! scripts/spook-best.py against a Spook run whose answers are known: the best
//! verified variant of each side per target, operation and measure, and a faster
//! variant that gave wrong output left unranked.

use std::process::Output;

mod common;

/// One case at 2048 bytes, as `cryptobench run --format json` writes it.
fn at_2048(implementation: &str, operation: &str, cpb: f64, verified: bool) -> serde_json::Value {
    serde_json::json!({
        "implementation": implementation,
        "operation": operation,
        "params": {"ad": 0, "len": 2048},
        "status": if verified { "ok" } else { "wrong output" },
        "verified": verified,
        "cpb": cpb,
        "cpb_ci95": [cpb - 0.01, cpb + 0.01],
    })
}

fn slope(implementation: &str, operation: &str, per_byte: f64, half: f64) -> serde_json::Value {
    serde_json::json!({
        "implementation": implementation,
        "operation": operation,
        "from_len": 8192,
        "to_len": 32768,
        "per_byte": {"estimate": per_byte, "lo": per_byte - half, "hi": per_byte + half, "level": 0.95},
    })
}

fn best(run: &serde_json::Value) -> Output {
    common::table_script("spook-best.py", "spook.json", run)
}

fn best_printed(run: &serde_json::Value) -> String {
    common::table_script_printed("spook-best.py", "spook.json", run)
}

fn row<'a>(out: &'a str, target: &str, operation: &str, measure: &str) -> &'a str {
    let start = format!("| {target} | {operation} | {measure} |");
    out.lines()
        .find(|l| l.starts_with(&start))
        .unwrap_or_else(|| panic!("no row {start} in\n{out}"))
}

#[test]
fn the_fastest_verified_variant_of_each_side_is_compared() {
    const OURS: &str = "spook/spook-128-512-su-v1";
    const THEIRS: &str = "spook-he/spook-128-512-su-v1";
    let results = vec![
        at_2048(
            &format!("{OURS}/clyde_32bit-shadow_128bit@haswell"),
            "encrypt",
            10.0,
            true,
        ),
        at_2048(
            &format!("{OURS}/clyde_32bit-shadow_256bit@haswell"),
            "encrypt",
            9.5,
            true,
        ),
        // Faster than every other, but wrong: never ranked.
        at_2048(
            &format!("{OURS}/clyde_32bit-shadow_512bit@haswell"),
            "encrypt",
            5.0,
            false,
        ),
        at_2048(
            &format!("{THEIRS}/clyde_64bit-shadow_256bit-ofast@haswell"),
            "encrypt",
            10.0,
            true,
        ),
        at_2048(
            &format!("{THEIRS}/clyde_32bit-shadow_128bit@haswell"),
            "encrypt",
            10.4,
            true,
        ),
        // Only the designers' build at x86-64.
        at_2048(
            &format!("{THEIRS}/clyde_32bit-shadow_128bit@x86-64"),
            "encrypt",
            12.0,
            true,
        ),
        // Someone else's implementation in the same run: not a side.
        at_2048(
            "other/spook-128-512-su-v1/fast@haswell",
            "encrypt",
            1.0,
            true,
        ),
    ];
    let slopes = vec![
        slope(
            &format!("{OURS}/clyde_32bit-shadow_256bit@haswell"),
            "encrypt",
            9.6,
            0.05,
        ),
        slope(
            &format!("{OURS}/clyde_32bit-shadow_512bit@haswell"),
            "encrypt",
            4.0,
            0.05,
        ),
        slope(
            &format!("{THEIRS}/clyde_64bit-shadow_256bit-ofast@haswell"),
            "encrypt",
            9.63,
            0.05,
        ),
    ];
    let out = best_printed(
        &serde_json::json!({"run_id": 1, "results": results, "slopes": slopes, "counter": {"kind": "tsc-core"}, "machine": {"cpu_model": "Test CPU", "cpu_signature": "25/17/1", "online_cpus": 2, "cc": "cc 12"}}),
    );
    assert!(
        out.starts_with("Run 1 on Test CPU (25/17/1, 2 CPUs, cc 12), counter tsc-core,"),
        "the table names the host it was measured on: {out}"
    );

    let short = row(&out, "haswell", "encrypt", "2048 B");
    assert!(
        short.contains("9.500 [9.490 9.510] clyde_32bit-shadow_256bit |"),
        "{short}"
    );
    assert!(
        short.contains("10.00 [9.990 10.01] clyde_64bit-shadow_256bit-ofast"),
        "{short}"
    );
    assert!(short.ends_with("| -5.0 % | apart |"), "{short}");

    let long = row(&out, "haswell", "encrypt", "slope");
    assert!(
        long.contains("9.600 [9.550 9.650] clyde_32bit-shadow_256bit"),
        "{long}"
    );
    assert!(long.ends_with("| -0.3 % | overlap |"), "{long}");

    let alone = row(&out, "x86-64", "encrypt", "2048 B");
    assert!(alone.contains("| none verified | 12.00"), "{alone}");
    assert!(
        !out.contains("| decrypt |"),
        "no decrypt case, no decrypt row:\n{out}"
    );
    assert!(!out.contains("fast@haswell"), "{out}");
    assert!(
        out.contains("Not ranked")
            && out.contains("clyde_32bit-shadow_512bit@haswell encrypt: wrong output"),
        "{out}"
    );
}

#[test]
fn a_file_that_is_not_a_run_is_refused_in_one_line_naming_it() {
    let out = best(&serde_json::json!([1, 2]));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("spook.json") && err.contains("not a `cryptobench run"),
        "{err}"
    );

    let out = best(&serde_json::json!({"results": [{"status": "ok"}]}));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("'implementation'"),
        "names the missing key: {err}"
    );
}

#[test]
fn figures_without_intervals_are_compared_without_a_verdict() {
    let mut ours = at_2048(
        "spook/spook-128-512-su-v1/clyde_32bit-shadow_128bit@native",
        "decrypt",
        7.5,
        true,
    );
    ours["cpb_ci95"] = serde_json::Value::Null;
    let theirs = at_2048(
        "spook-he/spook-128-512-su-v1/clyde_32bit-shadow_128bit@native",
        "decrypt",
        8.0,
        true,
    );
    let out = best_printed(
        &serde_json::json!({"run_id": 3, "status": "running", "results": [ours, theirs]}),
    );
    assert!(
        out.lines().next().unwrap().contains("Incomplete (running)"),
        "{out}"
    );
    let r = row(&out, "native", "decrypt", "2048 B");
    assert!(
        r.contains("7.500 [no interval] clyde_32bit-shadow_128bit"),
        "{r}"
    );
    assert!(r.ends_with("| -6.2 % | no interval |"), "{r}");
}
