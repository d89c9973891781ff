//! Imports: criterion's saved benchmarks and `openssl speed -mr` output become stored
//! runs with our statistics, marked with their source, refused beside native runs by
//! `compare`, and bad input is one clear line with nothing stored.

mod common;

use serde_json::Value;

use common::Env;
use common::assert_bad_input;

/// How many runs the store holds.
fn runs(env: &Env) -> usize {
    if !env.db().exists() {
        return 0;
    }
    let h = env.cmd(&["history", "--format", "json"]);
    serde_json::from_slice::<Value>(&h.stdout)
        .map_or(0, |v| v["runs"].as_array().map_or(0, Vec::len))
}

fn data(path: &str) -> String {
    format!("{}/tests/data/{path}", env!("CARGO_MANIFEST_DIR"))
}

fn result<'a>(run: &'a Value, id: &str) -> &'a Value {
    run["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no case {id} in {run}"))
}

#[test]
fn criterion_benchmarks_become_a_run_with_our_statistics() {
    let env = Env::new();
    let said = env.run_ok(&["import", "criterion", &data("criterion")]);
    assert!(said.contains("imported 3 cases"), "{said}");
    let run = env.json(&["report", "latest", "--format", "json"]);
    assert_eq!(run["experiment"], "import:criterion");
    assert_eq!(run["options"]["source"], "criterion");
    assert_eq!(run["counter"]["kind"], "criterion-ns");
    assert!(run["counter"]["unit"].as_str().unwrap().starts_with("ns"));

    // 12 samples of times[i] / iters[i], about 820 ns per iteration; `base/` is ignored
    // (its samples are about 990 ns).
    let xor = result(&run, "chacha20/xor len=1024");
    assert_eq!(xor["implementation"], "chacha20");
    assert_eq!(xor["operation"], "xor");
    assert_eq!(xor["params"]["len"], 1024);
    assert_eq!(xor["samples"], 12);
    assert_eq!(
        xor["verified"], false,
        "another tool's figures are not verified here"
    );
    let median = xor["median_ns"].as_f64().unwrap();
    assert!((815.0..826.0).contains(&median), "{xor}");
    let per_byte = xor["ns_per_byte"].as_f64().unwrap();
    assert!((per_byte - median / 1024.0).abs() < 1e-9);
    let tp = xor["throughput_bytes_per_s"].as_f64().unwrap();
    assert!((tp - 1024.0 / median * 1e9).abs() / tp < 1e-9, "{xor}");
    let sha = result(&run, "sha256/bench");
    assert!(sha["params"].as_object().unwrap().is_empty());
    assert!(
        sha.get("ns_per_byte").is_none(),
        "no throughput declared: no per-byte figure"
    );
    assert_eq!(run["results"].as_array().unwrap().len(), 3);

    let text = env.run_ok(&["report", "latest"]);
    assert!(text.contains("Imported from criterion"), "{text}");
    assert!(text.contains("imported, not verified"), "{text}");
}

/// criterion's other result sets (`base/`, `--save-baseline` names) import as runs of
/// their own, so a crate's saved history reads as a history.
#[test]
fn a_saved_criterion_set_imports_as_a_run_of_its_own() {
    let env = Env::new();
    let said = env.run_ok(&["import", "criterion", &data("criterion"), "--saved", "base"]);
    assert!(said.contains("imported 1 case "), "{said}");
    env.run_ok(&["import", "criterion", &data("criterion")]);
    let base = env.json(&["report", "1", "--format", "json"]);
    let xor = result(&base, "chacha20/xor len=1024");
    let median = xor["median_ns"].as_f64().unwrap();
    assert!(
        (980.0..1000.0).contains(&median),
        "base/ holds about 990 ns: {xor}"
    );
    let text = env.run_ok(&["report", "1"]);
    assert!(text.contains("(its saved set `base`)"), "{text}");
    let history = env.run_ok(&["history", "chacha20/xor"]);
    assert!(
        history.contains("-17."),
        "base then new, about 990 then 820 ns: {history}"
    );

    for bad in ["../new", "", "report"] {
        assert_bad_input(
            &env.cmd(&["import", "criterion", &data("criterion"), "--saved", bad]),
            "is not one of criterion's result sets",
        );
    }
    assert_bad_input(
        &env.cmd(&["import", "criterion", &data("criterion"), "--saved", "nope"]),
        "<group>/<benchmark>/nope/benchmark.json",
    );
}

#[test]
fn the_unit_comes_from_criterion_s_report_or_the_flag() {
    let env = Env::new();
    env.run_ok(&["import", "criterion", &data("criterion-cycles")]);
    let run = env.json(&["report", "latest", "--format", "json"]);
    assert_eq!(run["counter"]["kind"], "criterion-cycles");
    let r = result(&run, "aes-ctr/encrypt len=4096");
    // criterion-cycles-per-byte reads rdtsc: reference cycles, named as such.
    assert!(r["median_ref_cycles"].as_f64().unwrap() > 5000.0, "{r}");
    assert!(r["ref_cpb"].as_f64().is_some());
    assert!(r.get("median_cycles").is_none(), "{r}");
    assert!(
        run["options"]["note"]
            .as_str()
            .unwrap()
            .contains("read from criterion's HTML report")
    );

    env.run_ok(&[
        "import",
        "criterion",
        &data("criterion"),
        "--unit",
        "cycles",
    ]);
    let forced = env.json(&["report", "latest", "--format", "json"]);
    assert_eq!(forced["counter"]["kind"], "criterion-cycles");
    assert!(
        forced["counter"]["unit"]
            .as_str()
            .unwrap()
            .contains("cycles")
    );
}

#[test]
fn openssl_speed_lines_become_one_case_per_length() {
    let env = Env::new();
    let said = env.run_ok(&[
        "import",
        "openssl-speed",
        &data("openssl-speed-aes-128-gcm.txt"),
    ]);
    assert!(said.contains("imported 6 cases"), "{said}");
    let run = env.json(&["report", "latest", "--format", "json"]);
    assert_eq!(run["experiment"], "import:openssl-speed");
    assert_eq!(run["counter"]["kind"], "openssl-speed");
    assert!(run["counter"]["unit"].as_str().unwrap().starts_with("ns"));
    let lens: Vec<u64> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["params"]["len"].as_u64().unwrap())
        .collect();
    assert_eq!(lens, [16, 64, 256, 1024, 8192, 16384]);
    // The file's +F line says 47710793.85 bytes per second at 16 bytes.
    let r = result(&run, "openssl/aes-128-gcm/speed len=16");
    let ns = r["median_ns"].as_f64().unwrap();
    assert!((ns - 16.0 / 47_710_793.85 * 1e9).abs() < 1e-6, "{r}");
    assert_eq!(r["samples"], 1);
    let tp = r["throughput_bytes_per_s"].as_f64().unwrap();
    assert!((tp - 47_710_793.85).abs() < 1e-3, "{r}");
    // Named as the catalog names OpenSSL's algorithms, whatever case openssl prints.
    assert_eq!(r["implementation"], "openssl/aes-128-gcm");
    // One figure has no interval: none is printed, rather than a zero-width one.
    assert!(r["median_ci95"].is_null(), "{r}");
    assert!(r["ns_per_byte_ci95"].is_null(), "{r}");
    let text = env.run_ok(&["report", "latest"]);
    let row = text
        .lines()
        .find(|l| l.contains("openssl/aes-128-gcm") && l.contains(" 16 "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(!row.contains('±') && !row.contains('['), "{row}");
    // Nor does a heading promise one: no column of dashes under `± (95 %)`.
    let head = text
        .lines()
        .find(|l| l.contains("Implementation"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(!head.contains("95 %"), "{head}");
    let csv = env.run_ok(&["report", "latest", "--format", "csv"]);
    let mut rows = csv.lines().map(|l| l.split(',').collect::<Vec<_>>());
    let header = rows.next().unwrap();
    let first = rows.next().unwrap();
    let cell = |name: &str| first[header.iter().position(|h| *h == name).unwrap()];
    for end in ["median_lo", "median_hi", "per_byte_lo", "per_byte_hi"] {
        assert_eq!(cell(end), "", "{csv}");
    }
    assert!(!cell("per_byte").is_empty(), "{csv}");
}

#[test]
fn several_openssl_tables_are_several_clusters() {
    let env = Env::new();
    let one = std::fs::read_to_string(data("openssl-speed-aes-128-gcm.txt")).unwrap();
    let twice = env.dir.path().join("twice.txt");
    std::fs::write(
        &twice,
        one.replace(
            "+F:25:AES-128-GCM:47710793.85",
            "+F:25:AES-128-GCM:47000000.00",
        ) + &one,
    )
    .unwrap();
    env.run_ok(&["import", "openssl-speed", twice.to_str().unwrap()]);
    let run = env.json(&["report", "latest", "--format", "json"]);
    let r = result(&run, "openssl/aes-128-gcm/speed len=16");
    assert_eq!(r["samples"], 2);
    assert_eq!(r["clusters"], 2);
    // Two timed loops are too few for a 95 % interval (6 are the fewest).
    assert_eq!(r["median_ci95"], Value::Null, "{r}");
    let note = run["options"]["note"].as_str().unwrap();
    assert!(
        note.starts_with("openssl speed -mr, 2 tables from"),
        "{note}"
    );

    let six: String = (0..6)
        .map(|i| {
            one.replace(
                "+F:25:AES-128-GCM:47710793.85",
                &format!("+F:25:AES-128-GCM:4{i}000000.00"),
            )
        })
        .collect();
    std::fs::write(&twice, six).unwrap();
    env.run_ok(&["import", "openssl-speed", twice.to_str().unwrap()]);
    let run = env.json(&["report", "latest", "--format", "json"]);
    let r = result(&run, "openssl/aes-128-gcm/speed len=16");
    assert_eq!(r["clusters"], 6);
    let ci = r["median_ci95"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() < ci[1].as_f64().unwrap(), "{r}");
}

#[test]
fn a_table_of_several_algorithms_is_one_table() {
    let env = Env::new();
    let file = env.dir.path().join("two-algorithms.txt");
    std::fs::write(
        &file,
        "+H:16:64\n+F:25:AES-128-GCM:47710793.85:150000000.00\n+F:26:AES-256-GCM:40000000.00:120000000.00\n",
    )
    .unwrap();
    env.run_ok(&["import", "openssl-speed", file.to_str().unwrap()]);
    let run = env.json(&["report", "latest", "--format", "json"]);
    let note = run["options"]["note"].as_str().unwrap();
    assert!(
        note.starts_with("openssl speed -mr, 1 table from"),
        "{note}"
    );
    assert_eq!(
        result(&run, "openssl/aes-256-gcm/speed len=64")["clusters"],
        1
    );
}

#[test]
fn imported_runs_are_not_compared_with_native_ones() {
    let env = Env::new();
    env.run_ok(&[
        "run",
        "rand_chacha",
        "--sizes",
        "1024",
        "--samples",
        "64",
        "--processes",
        "2",
        "--layouts",
        "2",
        "--format",
        "csv",
    ]);
    env.run_ok(&["import", "criterion", &data("criterion")]);
    env.run_ok(&["import", "criterion", &data("criterion")]);
    // The imported run's machine is unrecorded, never this one: no --force compares them.
    for force in [&[][..], &["--force"]] {
        assert_bad_input(
            &env.cmd(&[&["compare", "1", "2"][..], force].concat()),
            "runs 1 and 2 were measured on different machines",
        );
    }
    // Two imports of the same kind are comparable.
    let cmp = env.json(&["compare", "2", "3", "--format", "json"]);
    assert_eq!(cmp["only_in_a"].as_array().unwrap().len(), 0, "{cmp}");
    // History marks them, never joins them.
    let h = env.json(&["history", "--format", "json"]);
    assert_eq!(h["runs"].as_array().unwrap().len(), 3);
}

#[test]
fn bad_input_is_one_clear_line_and_nothing_is_stored() {
    let env = Env::new();
    env.run_ok(&["import", "criterion", &data("criterion")]);
    assert_eq!(runs(&env), 1);

    let empty = env.dir.path().join("empty");
    std::fs::create_dir_all(empty.join("group/bench/base")).unwrap();
    assert_bad_input(
        &env.cmd(&["import", "criterion", empty.to_str().unwrap()]),
        "holds no criterion benchmarks",
    );
    assert_bad_input(
        &env.cmd(&["import", "criterion", "/nonexistent/criterion"]),
        "is not a directory",
    );

    // The first benchmark is fine, the second's sample.json has another shape: no run.
    let odd = env.dir.path().join("odd");
    for (bench, sample) in [
        ("a", r#"{"iters": [1, 2], "times": [10, 20]}"#),
        ("b", r#"{"iterations": [1, 2], "values": [10, 20]}"#),
    ] {
        let dir = odd.join(bench).join("new");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("benchmark.json"),
            format!(r#"{{"group_id": "{bench}", "function_id": null, "value_str": null, "throughput": null}}"#),
        )
        .unwrap();
        std::fs::write(dir.join("sample.json"), sample).unwrap();
    }
    assert_bad_input(
        &env.cmd(&["import", "criterion", odd.to_str().unwrap()]),
        "is not criterion's sample.json",
    );
    std::fs::write(odd.join("b/new/benchmark.json"), "[1, 2, 3]").unwrap();
    assert_bad_input(
        &env.cmd(&["import", "criterion", odd.to_str().unwrap()]),
        "is not criterion's benchmark.json",
    );

    let table = env.dir.path().join("table.txt");
    std::fs::write(
        &table,
        "type             16 bytes     64 bytes\nAES-128-GCM      47710.79k   181995.64k\n",
    )
    .unwrap();
    assert_bad_input(
        &env.cmd(&["import", "openssl-speed", table.to_str().unwrap()]),
        "has no `+F:` line",
    );
    assert_bad_input(
        &env.cmd(&["import", "openssl-speed", "/nonexistent/speed.txt"]),
        "cannot read `/nonexistent/speed.txt`",
    );
    assert_eq!(runs(&env), 1, "nothing was stored by the failed imports");

    assert_bad_input(&env.cmd(&["report", "99"]), "no run 99");
    let out = env.dir.path().join("missing-dir/report.html");
    assert_bad_input(
        &env.cmd(&[
            "report",
            "latest",
            "--format",
            "html",
            "-o",
            out.to_str().unwrap(),
        ]),
        "cannot write",
    );
    assert!(!out.parent().unwrap().exists(), "no directory was made");
    // A write that fails once its temporary file exists (here at a 1 KiB file-size
    // limit, which the page exceeds) leaves neither the page nor that file beside it.
    let mut limited = env.command(&["report", "latest", "--format", "html", "-o", "page.html"]);
    // SAFETY: signal(2) and setrlimit(2) are async-signal-safe; an ignored SIGXFSZ stays
    // ignored across exec, so an oversized write fails with EFBIG instead of killing.
    unsafe {
        use std::os::unix::process::CommandExt;
        limited.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 1024,
                rlim_max: 1024,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    assert_bad_input(&limited.output().unwrap(), "cannot write `page.html`");
    assert!(!env.path("page.html").exists());
    let leftovers: Vec<_> = std::fs::read_dir(env.dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "no temporary files left: {leftovers:?}"
    );
}

/// Imports `text` as an `openssl speed` file named `name` into a store that already
/// holds one run: refused with exit status 2, one line naming the file and holding
/// every one of `expect`, and still one run.
fn assert_openssl_refused(name: &str, text: &str, expect: &[&str]) {
    let env = Env::new();
    env.run_ok(&[
        "import",
        "openssl-speed",
        &data("openssl-speed-aes-128-gcm.txt"),
    ]);
    let file = env.dir.path().join(name);
    std::fs::write(&file, text).unwrap();
    let out = env.cmd(&["import", "openssl-speed", file.to_str().unwrap()]);
    assert_bad_input(&out, &format!("`{}`", file.display()));
    for e in expect {
        assert_bad_input(&out, e);
    }
    assert_eq!(runs(&env), 1, "nothing was stored: {text}");
}

#[test]
fn openssl_lengths_must_be_positive() {
    assert_openssl_refused(
        "zero.txt",
        "+H:0:64\n+F:6:sha256:100.00:200.00\n",
        &["line 1:", "`+H:` lists the length 0"],
    );
    assert_openssl_refused(
        "negative.txt",
        "+DT:sha256:1:16\n+H:-16:64\n+F:6:sha256:100.00:200.00\n",
        &["line 2:", "`+H:` lists the length -16"],
    );
    assert_openssl_refused(
        "huge.txt",
        "+H:16:18446744073709551615\n+F:6:sha256:100.00:200.00\n",
        &["line 1:", "`+H:` must list message lengths in bytes"],
    );
    assert_openssl_refused(
        "past-2-53.txt",
        "+H:16:9007199254740993\n+F:6:sha256:100.00:200.00\n",
        &["line 1:", "`+H:` lists the length 9007199254740993"],
    );
}

#[test]
fn openssl_duplicate_lengths_are_refused() {
    assert_openssl_refused(
        "dup.txt",
        "+H:16:64:16\n+F:6:sha256:100.00:200.00:300.00\n",
        &["line 1:", "`+H:` lists the length 16 twice"],
    );
}

#[test]
fn openssl_negative_figures_are_refused() {
    assert_openssl_refused(
        "negative.txt",
        "+H:16:64\n+F:6:sha256:100.00:200.00\n+F:6:sha256:-100.00:200.00\n",
        &[
            "line 3:",
            "the `sha256` figure for 16 bytes, `-100.00`, is negative",
        ],
    );
    // Every figure negative: the first is named, not "no `+F:` line".
    assert_openssl_refused(
        "all-negative.txt",
        "+H:16:64\n+F:6:sha256:-1.00:-2.00\n",
        &[
            "line 2:",
            "the `sha256` figure for 16 bytes, `-1.00`, is negative",
        ],
    );
}

#[test]
fn openssl_figures_must_give_a_time_per_call() {
    assert_openssl_refused(
        "zero.txt",
        "+H:16:64\n+F:6:sha256:0.00:0.00\n",
        &["every `+F:` figure is 0", "sha256 at 64 bytes (line 2)"],
    );
    assert_openssl_refused(
        "tiny.txt",
        "+H:16:16384\n+F:6:sha256:200.00:0.01\n",
        &[
            "line 2:",
            "the `sha256` figure for 16384 bytes, `0.01`, gives 1.6384e15 ns per call",
        ],
    );
    assert_openssl_refused(
        "huge.txt",
        "+H:16:64\n+F:6:sha256:100.00:1000000000000000000000000.00\n",
        &[
            "line 2:",
            "the `sha256` figure for 64 bytes, `1000000000000000000000000.00`, gives",
            "ns per call, outside",
        ],
    );
    assert_openssl_refused(
        "nan.txt",
        "+H:16:64\n+F:6:sha256:NaN:200.00\n",
        &["line 2:", "`NaN`, is not a number of bytes per second"],
    );
}

/// A criterion directory in the scratch directory of `env` with one benchmark,
/// `<name>/new/`, holding `benchmark` and `sample` as its two files.
fn criterion_dir(env: &Env, name: &str, benchmark: &str, sample: &str) -> std::path::PathBuf {
    let root = env.dir.path().join(format!("criterion-{name}"));
    let new = root.join(name).join("new");
    std::fs::create_dir_all(&new).unwrap();
    std::fs::write(new.join("benchmark.json"), benchmark).unwrap();
    std::fs::write(new.join("sample.json"), sample).unwrap();
    root
}

/// Imports a one-benchmark criterion directory into a store that already holds one
/// run: refused with exit status 2, one line naming `file` (`benchmark.json` or
/// `sample.json`) of benchmark `name` and holding `expect`, and still one run.
fn assert_criterion_refused(name: &str, benchmark: &str, sample: &str, file: &str, expect: &str) {
    let env = Env::new();
    env.run_ok(&["import", "criterion", &data("criterion")]);
    let root = criterion_dir(&env, name, benchmark, sample);
    let out = env.cmd(&["import", "criterion", root.to_str().unwrap()]);
    let path = root.join(name).join("new").join(file);
    assert_bad_input(&out, &format!("`{}`: ", path.display()));
    assert_bad_input(&out, expect);
    assert_eq!(runs(&env), 1, "nothing was stored: {benchmark} {sample}");
}

const SAMPLE: &str = r#"{"iters": [1, 2], "times": [10, 20]}"#;

#[test]
fn criterion_names_must_not_be_blank() {
    let bench = |group: &str, function: &str, value: &str| {
        format!(
            r#"{{"group_id": {group}, "function_id": {function}, "value_str": {value}, "throughput": null}}"#
        )
    };
    // The directory itself is fine: a valid benchmark with the same sample is imported.
    let env = Env::new();
    let ok = criterion_dir(&env, "g", &bench(r#""g""#, r#""f""#, r#""v""#), SAMPLE);
    assert!(
        env.run_ok(&["import", "criterion", ok.to_str().unwrap()])
            .contains("imported 1 case from")
    );

    for (benchmark, field) in [
        (bench(r#""""#, "null", "null"), "group_id"),
        (bench(r#""  ""#, r#""f""#, "null"), "group_id"),
        (bench(r#""g""#, r#""""#, "null"), "function_id"),
        (bench(r#""g""#, r#""f""#, r#""""#), "value_str"),
    ] {
        assert_criterion_refused(
            "blank",
            &benchmark,
            SAMPLE,
            "benchmark.json",
            &format!("`{field}` is empty, so the case would have no name"),
        );
    }
}

const BENCH: &str =
    r#"{"group_id": "g", "function_id": "f", "value_str": null, "throughput": null}"#;

#[test]
fn criterion_all_zero_times_are_refused() {
    assert_criterion_refused(
        "zero",
        BENCH,
        r#"{"iters": [1, 2, 3], "times": [0, 0.0, 0]}"#,
        "sample.json",
        "every `times` is 0, so criterion measured nothing in this benchmark",
    );
}

#[test]
fn criterion_absurd_per_iteration_figures_are_refused() {
    for (sample, expect) in [
        (
            r#"{"iters": [1], "times": [1e308]}"#,
            "`times[0]` / `iters[0]` is 1e308 per iteration, outside 1e-3 to 1e15",
        ),
        (
            r#"{"iters": [1, 2], "times": [10, 4e15]}"#,
            "`times[1]` / `iters[1]` is 2e15 per iteration",
        ),
        (
            r#"{"iters": [1, 1e9], "times": [10, 1]}"#,
            "`times[1]` / `iters[1]` is 1e-9 per iteration",
        ),
    ] {
        assert_criterion_refused("absurd", BENCH, sample, "sample.json", expect);
    }
    // 1e15 itself is the limit, taken.
    let env = Env::new();
    let ok = criterion_dir(&env, "edge", BENCH, r#"{"iters": [2], "times": [2e15]}"#);
    env.run_ok(&["import", "criterion", ok.to_str().unwrap()]);
    assert_eq!(runs(&env), 1);
}

#[test]
fn criterion_iteration_counts_must_be_whole_and_positive() {
    for (sample, expect) in [
        (
            r#"{"iters": [1, 0], "times": [10, 0]}"#,
            "`iters[1]` is 0: every `iters` must be a whole count of at least 1",
        ),
        (r#"{"iters": [1.5], "times": [10]}"#, "`iters[0]` is 1.5"),
        (
            r#"{"iters": [1, 2], "times": [10, -20]}"#,
            "`times[1]` is -20: every `times` must be a finite non-negative value",
        ),
    ] {
        assert_criterion_refused("iters", BENCH, sample, "sample.json", expect);
    }
}

#[test]
fn criterion_absurd_throughput_is_refused() {
    assert_criterion_refused(
        "throughput",
        r#"{"group_id": "g", "function_id": "f", "value_str": null, "throughput": {"Bytes": 18446744073709551615}}"#,
        SAMPLE,
        "benchmark.json",
        "`throughput` declares 18446744073709551615 bytes per iteration, more than 2^53",
    );
}

#[test]
fn openssl_algorithm_names_must_not_be_blank() {
    assert_openssl_refused(
        "blank.txt",
        "+H:16:64\n+F:6: :100.00:200.00\n",
        &["line 2:", "expected `+F:n:algorithm:bytes-per-second...`"],
    );
}

#[test]
fn openssl_zero_figures_are_left_out_and_said() {
    let env = Env::new();
    let file = env.dir.path().join("skipped.txt");
    // openssl prints 0 for a length it measured nothing at.
    std::fs::write(&file, "+H:16:64\n+F:6:sha256:16000000.00:0.00\n").unwrap();
    env.run_ok(&["import", "openssl-speed", file.to_str().unwrap()]);
    let run = env.json(&["report", "--format", "json"]);
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{run}");
    assert_eq!(results[0]["params"]["len"], 16);
    let text = env.run_ok(&["report"]);
    assert!(
        text.contains(
            "left out, as openssl printed 0 (measured nothing): sha256 at 64 bytes (line 2)"
        ),
        "{text}"
    );
}

#[test]
fn openssl_a_byte_order_mark_is_not_part_of_the_first_line() {
    let env = Env::new();
    let file = env.dir.path().join("bom.txt");
    std::fs::write(&file, "\u{feff}+H:16\n+F:25:AES-128-GCM:47710793.85\n").unwrap();
    let said = env.run_ok(&["import", "openssl-speed", file.to_str().unwrap()]);
    assert!(said.contains("imported 1 case"), "{said}");
    let run = env.json(&["report", "latest", "--format", "json"]);
    result(&run, "openssl/aes-128-gcm/speed len=16");
}

/// What `openssl speed -mr -multi 2 -evp aes-128-gcm -bytes 1024` prints (OpenSSL 3.0):
/// each child's lines, then the figures summed over the two, under no `+H:` of their own.
const MULTI: &str = "Forked child 0\nForked child 1\nGot: +H:1024 from 0\nGot: +F:25:AES-128-GCM:1199647744.00 from 0\nGot: +H:1024 from 1\nGot: +F:25:AES-128-GCM:1133070336.00 from 1\n+F:25:AES-128-GCM:2332718080.00\n";

#[test]
fn openssl_multi_output_is_refused_naming_the_flag() {
    // Alone, and after another run's table: there its summed figures were stored as one
    // process's, at the lengths of the table before.
    assert_openssl_refused(
        "multi.txt",
        MULTI,
        &[
            "line 1:",
            "`openssl speed -multi`, which is not supported",
            "summed over the processes",
        ],
    );
    assert_openssl_refused(
        "cat-multi.txt",
        &format!("+H:256\n+F:6:sha256:1062540656.18\n{MULTI}"),
        &["line 3:", "`openssl speed -multi`, which is not supported"],
    );
    // Only the summed lines left: the message says what they may be.
    assert_openssl_refused(
        "summed.txt",
        "+F:25:AES-128-GCM:2332718080.00\n",
        &["line 1:", "before any `+H:` line", "-multi"],
    );
}

#[test]
fn openssl_a_truncated_file_is_refused_naming_the_line() {
    // Cut off in the middle of `123456789.12`: read as 1234, it was a figure 1e5 off.
    assert_openssl_refused(
        "cut.txt",
        "+H:16:64\n+F:6:sha256:100.00:200.00\n+F:7:sha512:123456789.12:1234",
        &["line 3:", "no newline", "truncated"],
    );
    // Cut off at a newline, but not after the decimals.
    assert_openssl_refused(
        "cut-figure.txt",
        "+H:16:64\n+F:6:sha256:100.00:12345\n",
        &[
            "line 2:",
            "the `sha256` figure for 64 bytes, `12345`, lacks the two decimals",
        ],
    );
    assert_openssl_refused(
        "cut-point.txt",
        "+H:16:64\n+F:6:sha256:100.00:12345.\n",
        &["line 2:", "`12345.`, lacks the two decimals"],
    );
    assert_openssl_refused(
        "exponent.txt",
        "+H:16:64\n+F:6:sha256:1e-3:200.00\n",
        &["line 2:", "`1e-3`, lacks the two decimals"],
    );
}

/// What `openssl speed -mr rsa2048 ecdsap256` prints: tables of operations per second.
const PUBLIC_KEY: &str = "+F2:2:2048:3621.052632:66470.833333\n+F4:3:256:53008.955224:16598.734177\n+F4:4:384:1000.00:500.00\n";

#[test]
fn openssl_public_key_tables_are_counted_and_named() {
    assert_openssl_refused(
        "pk.txt",
        PUBLIC_KEY,
        &["holds only public-key tables (1 RSA line, 2 ECDSA lines), which are not imported"],
    );
    let env = Env::new();
    let file = env.dir.path().join("mixed.txt");
    std::fs::write(
        &file,
        format!("+H:64\n+F:6:sha256:453737142.86\n{PUBLIC_KEY}"),
    )
    .unwrap();
    let said = env.run_ok(&["import", "openssl-speed", file.to_str().unwrap()]);
    assert!(said.contains("imported 1 case"), "{said}");
    let text = env.run_ok(&["report"]);
    assert!(
        text.contains(
            "left out, as public-key tables are not imported (operations per second): 1 RSA line, 2 ECDSA lines"
        ),
        "{text}"
    );
}

#[test]
fn openssl_a_line_that_is_not_utf8_is_named() {
    let env = Env::new();
    let file = env.dir.path().join("latin1.txt");
    std::fs::write(&file, b"+H:16\n+F:6:sha256:100.00\nbuilt on: \xe9t\xe9\n").unwrap();
    let out = env.cmd(&["import", "openssl-speed", file.to_str().unwrap()]);
    assert_bad_input(&out, &format!("`{}` line 3: not UTF-8", file.display()));
    assert_eq!(runs(&env), 0);
}

#[test]
fn openssl_1_1_1_names_with_spaces_become_one_word() {
    let env = Env::new();
    let file = env.dir.path().join("111.txt");
    std::fs::write(
        &file,
        "+H:16:64\n+F:16:aes-128 cbc:900000000.00:1000000000.00\n+F:12:des ede3:30000000.00:30000000.00\n",
    )
    .unwrap();
    env.run_ok(&["import", "openssl-speed", file.to_str().unwrap()]);
    let run = env.json(&["report", "latest", "--format", "json"]);
    result(&run, "openssl/aes-128-cbc/speed len=16");
    result(&run, "openssl/des-ede3/speed len=64");
}

#[test]
fn openssl_a_second_figure_line_for_an_algorithm_in_one_table_is_refused() {
    assert_openssl_refused(
        "dup.txt",
        "+H:16:64\n+F:6:sha256:100.00:200.00\n+F:7:sha512:100.00:200.00\n+F:6:sha256:300.00:400.00\n",
        &[
            "line 4:",
            "a second `+F:` line for `sha256` in the table of line 1 (the first is line 2)",
            "re-run `openssl speed -mr`",
        ],
    );
    // The same algorithm, as openssl spells it in two places (the names are lowered).
    assert_openssl_refused(
        "dup-case.txt",
        "+H:16\n+F:6:AES-128-GCM:100.00\n+F:6:aes-128-gcm:300.00\n",
        &["line 3:", "a second `+F:` line for `aes-128-gcm`"],
    );
    // A table per run is fine (several_openssl_tables_are_several_clusters); a repeat
    // within the second is refused all the same, naming that table.
    assert_openssl_refused(
        "dup-second-table.txt",
        "+H:16\n+F:6:sha256:100.00\n+H:16\n+F:6:sha256:110.00\n+F:6:sha256:120.00\n",
        &["line 5:", "in the table of line 3 (the first is line 4)"],
    );
}

/// A copy of the fixture directory `name` in the scratch directory of `env`, to damage.
fn copy_of(env: &Env, name: &str) -> std::path::PathBuf {
    fn copy(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }
    let to = env.dir.path().join(format!("copy-{name}"));
    copy(std::path::Path::new(&data(name)), &to);
    to
}

#[test]
fn criterion_samples_without_their_benchmark_json_are_refused() {
    let env = Env::new();
    env.run_ok(&["import", "criterion", &data("criterion")]);
    let root = copy_of(&env, "criterion");
    std::fs::remove_file(root.join("sha256/new/benchmark.json")).unwrap();
    let out = env.cmd(&["import", "criterion", root.to_str().unwrap()]);
    assert_bad_input(
        &out,
        &format!(
            "`{}` holds criterion's `sample.json` but no `benchmark.json`",
            root.join("sha256/new").display()
        ),
    );
    assert_bad_input(
        &out,
        &format!("remove its directory `{}`", root.join("sha256").display()),
    );
    // estimates.json alone says as much: criterion measured something there.
    std::fs::remove_file(root.join("sha256/new/sample.json")).unwrap();
    assert_bad_input(
        &env.cmd(&["import", "criterion", root.to_str().unwrap()]),
        "holds criterion's `estimates.json` but no `benchmark.json`",
    );
    assert_eq!(runs(&env), 1, "nothing was stored");

    // A group named `new` is a directory `new/` without samples: searched, not refused.
    std::fs::remove_dir_all(root.join("sha256")).unwrap();
    let group = root.join("new/f/new");
    std::fs::create_dir_all(&group).unwrap();
    std::fs::write(
        group.join("benchmark.json"),
        r#"{"group_id": "new", "function_id": "f", "value_str": null, "throughput": null}"#,
    )
    .unwrap();
    std::fs::write(group.join("sample.json"), SAMPLE).unwrap();
    let said = env.run_ok(&["import", "criterion", root.to_str().unwrap()]);
    assert!(said.contains("imported 3 cases"), "{said}");
    let run = env.json(&["report", "latest", "--format", "json"]);
    result(&run, "new/f");
}

fn with_throughput(throughput: &str) -> String {
    format!(
        r#"{{"group_id": "chacha20", "function_id": "xor", "value_str": "1024", "throughput": {throughput}}}"#
    )
}

#[test]
fn criterion_unreadable_throughput_is_refused_not_dropped() {
    for (throughput, expect) in [
        (
            r#"{"Bytes": "1024"}"#,
            r#"`throughput` is `{"Bytes":"1024"}`, not a throughput criterion writes"#,
        ),
        (
            r#"{"Bytes": -1024}"#,
            r#"`throughput` is `{"Bytes":-1024}`, not a throughput criterion writes"#,
        ),
        (r#"{"Kilobytes": 1}"#, "unknown variant `Kilobytes`"),
        (
            r#"{"Bytes": 0}"#,
            r#"`throughput` is `{"Bytes":0}`, 0 bytes per iteration, so no figure per byte follows"#,
        ),
        (
            "1024",
            "`throughput` is `1024`, not a throughput criterion writes",
        ),
    ] {
        assert_criterion_refused(
            "xor",
            &with_throughput(throughput),
            SAMPLE,
            "benchmark.json",
            expect,
        );
    }
}

#[test]
fn criterion_throughput_in_every_variant_criterion_writes() {
    let env = Env::new();
    let root = env.dir.path().join("variants");
    for (bench, throughput) in [
        ("bytes", r#"{"Bytes": 1024}"#),
        ("decimal", r#"{"BytesDecimal": 1024}"#),
        ("bits", r#"{"Bits": 8192}"#),
        (
            "both",
            r#"{"ElementsAndBytes": {"elements": 16, "bytes": 1024}}"#,
        ),
        ("elements", r#"{"Elements": 16}"#),
        ("odd-bits", r#"{"Bits": 12}"#),
    ] {
        let new = root.join(bench).join("new");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(
            new.join("benchmark.json"),
            format!(
                r#"{{"group_id": "{bench}", "function_id": "f", "value_str": "1024", "throughput": {throughput}}}"#
            ),
        )
        .unwrap();
        // Enough samples for an interval, so that the figures are there to check.
        std::fs::write(
            new.join("sample.json"),
            r#"{"iters": [1, 2, 3, 4, 5, 6, 7, 8], "times": [10, 21, 29, 42, 48, 61, 69, 82]}"#,
        )
        .unwrap();
    }
    env.run_ok(&["import", "criterion", root.to_str().unwrap()]);
    let run = env.json(&["report", "latest", "--format", "json"]);
    for bytes in ["bytes", "decimal", "bits", "both"] {
        let r = result(&run, &format!("{bytes}/f len=1024"));
        assert!(r["ns_per_byte"].as_f64().is_some(), "{r}");
    }
    // Elements are not bytes: the parameter stays in the name, no per-byte figure.
    for none in ["elements", "odd-bits"] {
        let r = result(&run, &format!("{none}/f/1024"));
        assert!(r.get("ns_per_byte").is_none(), "{r}");
    }
    let note = run["options"]["note"].as_str().unwrap();
    assert!(
        note.ends_with(
            "no byte count, as the throughput declared is in bits that make no whole byte: odd-bits/f/1024 (12 bits)"
        ),
        "{note}"
    );
}

#[test]
fn criterion_a_unit_against_the_report_is_refused() {
    let env = Env::new();
    let out = env.cmd(&[
        "import",
        "criterion",
        &data("criterion-cycles"),
        "--unit",
        "ns",
    ]);
    assert_bad_input(
        &out,
        &format!(
            "--unit ns contradicts `{}`, criterion's report of that benchmark, which prints its figures in cycles",
            data("criterion-cycles/aes-ctr/encrypt/4096/report/index.html")
        ),
    );
    assert_bad_input(&out, "leave --unit out");
    assert_eq!(runs(&env), 0);
    // Saying what the report says is fine.
    env.run_ok(&[
        "import",
        "criterion",
        &data("criterion-cycles"),
        "--unit",
        "cycles",
    ]);
    let run = env.json(&["report", "latest", "--format", "json"]);
    assert_eq!(run["counter"]["kind"], "criterion-cycles");
}

/// A benchmark `group/function` (no value, no throughput) written below `root`.
fn add_benchmark(root: &std::path::Path, group: &str, function: &str) -> std::path::PathBuf {
    let new = root.join(group).join(function).join("new");
    std::fs::create_dir_all(&new).unwrap();
    std::fs::write(
        new.join("benchmark.json"),
        format!(
            r#"{{"group_id": "{group}", "function_id": "{function}", "value_str": null, "throughput": null}}"#
        ),
    )
    .unwrap();
    std::fs::write(new.join("sample.json"), SAMPLE).unwrap();
    new
}

#[test]
fn criterion_a_benchmark_named_report_is_imported() {
    let env = Env::new();
    let root = copy_of(&env, "criterion");
    add_benchmark(&root, "tls", "report");
    // criterion's HTML reports: the group's shares the function's directory.
    std::fs::write(root.join("tls/report/index.html"), "<td>1.5 ns</td>").unwrap();
    std::fs::create_dir_all(root.join("report")).unwrap();
    std::fs::write(root.join("report/index.html"), "<html></html>").unwrap();
    let said = env.run_ok(&["import", "criterion", root.to_str().unwrap()]);
    assert!(said.contains("imported 4 cases"), "{said}");
    let run = env.json(&["report", "latest", "--format", "json"]);
    result(&run, "tls/report");
}

#[test]
fn criterion_symbolic_links_are_followed_not_skipped() {
    let env = Env::new();
    let root = copy_of(&env, "criterion");
    let elsewhere = env.dir.path().join("elsewhere");
    add_benchmark(&elsewhere, "linked", "f");
    std::os::unix::fs::symlink(elsewhere.join("linked"), root.join("linked")).unwrap();
    // A link back up is searched once, not for ever.
    std::os::unix::fs::symlink(&root, root.join("loop")).unwrap();
    let said = env.run_ok(&["import", "criterion", root.to_str().unwrap()]);
    assert!(said.contains("imported 4 cases"), "{said}");
    let run = env.json(&["report", "latest", "--format", "json"]);
    result(&run, "linked/f");

    // A link to nothing might have been benchmarks: refused, named.
    let broken = root.join("broken");
    std::os::unix::fs::symlink(env.dir.path().join("gone"), &broken).unwrap();
    let out = env.cmd(&["import", "criterion", root.to_str().unwrap()]);
    assert_bad_input(
        &out,
        &format!(
            "`{}` is a symbolic link that cannot be followed",
            broken.display()
        ),
    );
    assert_eq!(runs(&env), 1);
}

#[test]
fn criterion_a_unit_it_does_not_know_is_refused_not_taken_for_ns() {
    let env = Env::new();
    let root = copy_of(&env, "criterion");
    let report = root.join("sha256/report/index.html");
    std::fs::create_dir_all(report.parent().unwrap()).unwrap();
    std::fs::write(&report, "<td>1234.0000 instructions</td>").unwrap();
    let out = env.cmd(&["import", "criterion", root.to_str().unwrap()]);
    assert_bad_input(
        &out,
        &format!(
            "`{}` gives criterion's figures in a unit not recognised",
            report.display()
        ),
    );
    assert_bad_input(&out, "pass --unit ns or --unit cycles");
    assert_eq!(runs(&env), 0);
    env.run_ok(&[
        "import",
        "criterion",
        root.to_str().unwrap(),
        "--unit",
        "ns",
    ]);

    // criterion's raw.csv (feature csv_output) names the unit in a column.
    std::fs::remove_file(&report).unwrap();
    let csv = root.join("sha256/new/raw.csv");
    let header = "group,function,value,throughput_num,throughput_type,sample_measured_value,unit,iteration_count\n";
    std::fs::write(
        &csv,
        format!("{header}sha256,,,,,20000.0,instructions,10\n"),
    )
    .unwrap();
    let out = env.cmd(&["import", "criterion", root.to_str().unwrap()]);
    assert_bad_input(
        &out,
        &format!(
            "`{}` gives criterion's figures in `instructions`",
            csv.display()
        ),
    );
    std::fs::write(&csv, format!("{header}sha256,,,,,20000.0,cycles,10\n")).unwrap();
    env.run_ok(&["import", "criterion", root.to_str().unwrap()]);
    let run = env.json(&["report", "latest", "--format", "json"]);
    assert_eq!(run["counter"]["kind"], "criterion-cycles");
    let note = run["options"]["note"].as_str().unwrap();
    assert!(
        note.contains("unit cycles read from criterion's raw.csv"),
        "{note}"
    );
}

#[test]
fn criterion_results_of_different_ages_are_noted_and_warned_of() {
    let env = Env::new();
    let root = copy_of(&env, "criterion");
    let out = env.cmd(&["import", "criterion", root.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));
    let run = env.json(&["report", "latest", "--format", "json"]);
    let note = run["options"]["note"].as_str().unwrap();
    assert!(note.contains("the files were written from"), "{note}");

    // A filtered `cargo bench -- sha256` two hours later rewrites only sha256.
    let latest = std::fs::metadata(root.join("sha256/new/sample.json"))
        .unwrap()
        .modified()
        .unwrap();
    let old = latest - std::time::Duration::from_secs(2 * 3600);
    for f in [
        "chacha20/xor/1024/new/sample.json",
        "chacha20/xor/16384/new/sample.json",
    ] {
        std::fs::File::options()
            .write(true)
            .open(root.join(f))
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    let out = env.cmd(&["import", "criterion", root.to_str().unwrap()]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("warning: the benchmarks in"), "{err}");
    assert!(err.contains("were written up to 2h"), "{err}");
    let run = env.json(&["report", "latest", "--format", "json"]);
    let note = run["options"]["note"].as_str().unwrap();
    assert!(note.contains("(2h apart)"), "{note}");
}

#[test]
fn cargo_criterion_s_layout_is_named() {
    let env = Env::new();
    let root = env.dir.path().join("target-criterion");
    let data = root.join("data/main/sha256");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("benchmark.cbor"), [0xa0]).unwrap();
    std::fs::write(data.join("measurement_260401120000.cbor"), [0xa0]).unwrap();
    let out = env.cmd(&["import", "criterion", root.to_str().unwrap()]);
    assert_bad_input(&out, "holds no criterion benchmarks");
    assert_bad_input(
        &out,
        "cargo-criterion's data (`.cbor` files), which is not supported",
    );
}

/// An algorithm becomes a part of the name `openssl/ALGORITHM`: a control character
/// (which would reach the terminal raw on `report`), `/` or `@` (read back as a variant
/// or a target) is refused, naming the file and the line.
#[test]
fn openssl_algorithm_names_obey_the_name_grammar() {
    for (alg, bad) in [
        ("\x1b[31mRED", "'\\u{1b}'"),
        ("a/b@c d", "'/'"),
        ("aes@x", "'@'"),
    ] {
        assert_openssl_refused(
            "names.txt",
            &format!("+H:16:64\n+F:25:{alg}:10.00:100.00\n"),
            &[
                "line 2",
                "the algorithm name must be non-empty without `/`, `@`",
                bad,
            ],
        );
    }
}

/// A criterion group is the implementation's whole name, its function and value the
/// operation's parts: each must be a name part (spaces become `-`, as in openssl's).
#[test]
fn criterion_names_obey_the_name_grammar() {
    let bench = |group: &str, function: &str| {
        format!(
            r#"{{"group_id": "{group}", "function_id": "{function}", "value_str": null, "throughput": null}}"#
        )
    };
    for (benchmark, field, bad) in [
        (bench("rust/crypto", "f"), "group_id", "'/'"),
        (bench("g@x", "f"), "group_id", "'@'"),
        (bench("g", "\\u001b[31mRED"), "function_id", "'\\u{1b}'"),
    ] {
        assert_criterion_refused(
            "names",
            &benchmark,
            SAMPLE,
            "benchmark.json",
            &format!("`{field}` must be non-empty without `/`, `@`"),
        );
        assert_criterion_refused("names", &benchmark, SAMPLE, "benchmark.json", bad);
    }
    let env = Env::new();
    let spaced = criterion_dir(&env, "spaced", &bench("ChaCha20 xor", "in place"), SAMPLE);
    env.run_ok(&["import", "criterion", spaced.to_str().unwrap()]);
    let run = env.json(&["report", "latest", "--format", "json"]);
    result(&run, "ChaCha20-xor/in-place");
}
