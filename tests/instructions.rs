//! `--counter instructions`: Valgrind's callgrind counts the worker's instructions on its
//! simulated CPU. The counts repeat exactly; a plant of half a percent more instructions
//! is a regression and no plant is none; code the simulator cannot run is not countable
//! and does not stop the run. Needs `valgrind` (scripts/setup.sh installs it).

mod common;

use std::ffi::OsStr;

use serde_json::Value;

use common::Env;

fn medians(run: &Value) -> Vec<f64> {
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["median_instructions"].as_f64().expect("a count"))
        .collect()
}

#[test]
fn counts_repeat_exactly_across_processes_and_runs() {
    let env = Env::new();
    let args = [
        "run",
        "rustcrypto/chacha20/",
        "--sizes",
        "64,1024",
        "--counter",
        "instructions",
        "--processes",
        "2",
        "--layouts",
        "2",
        "--format",
        "json",
    ];
    let first = env.json(&args);
    let second = env.json(&args);
    assert_eq!(medians(&first), medians(&second), "{first}\n{second}");
    for r in first["results"].as_array().unwrap() {
        assert_eq!(r["summary"]["min"], r["summary"]["max"], "{r}");
        assert_eq!(r["samples"], 4, "{r}");
    }
    let verdict = &first["options"]["analysis"]["verdict"];
    assert_eq!(verdict["noise_threshold_pct"], 0.1, "{verdict}");
    assert!(
        first.get("host").is_none(),
        "no canary on the simulator: {first}"
    );
    let flags = first["machine"]["simulated_crypto_flags"]
        .as_array()
        .unwrap();
    assert!(!flags.iter().any(|f| f == "avx512f"), "{flags:?}");

    let text = env.run_ok(&["report", "latest"]);
    assert!(
        text.contains("Dispatch: counted on Valgrind's simulated CPU"),
        "{text}"
    );
    assert!(text.contains("Median (instructions)"), "{text}");
}

#[test]
fn half_a_percent_more_instructions_is_a_regression_and_none_is_not() {
    let env = Env::new();
    let run = |adds: &str, extra: &[&str]| {
        let args: Vec<&str> = [
            "run",
            "test-planted",
            "--sizes",
            "1024",
            "--counter",
            "instructions",
            "--processes",
            "4",
            "--layouts",
            "1",
            "--format",
            "json",
        ]
        .iter()
        .chain(extra)
        .copied()
        .collect();
        env.cmd_with(
            &args,
            &[
                ("CRYPTOBENCH_TEST_IMPLEMENTATIONS", OsStr::new("1")),
                ("CRYPTOBENCH_TEST_PLANT_ADDS", OsStr::new(adds)),
            ],
        )
    };
    let base = run("0", &["--save-baseline", "main"]);
    assert!(
        base.status.success(),
        "{}",
        String::from_utf8_lossy(&base.stderr)
    );
    let gate = ["--baseline", "main", "--fail-on-regression"];

    let same = run("0", &gate);
    let err = String::from_utf8_lossy(&same.stderr);
    assert_eq!(same.status.code(), Some(0), "{err}");
    let same: Value = serde_json::from_slice(&same.stdout).unwrap();
    let c = &same["against_baseline"]["comparisons"][0];
    assert_eq!(c["verdict"], "no change", "{c}");
    assert_eq!(c["change_pct"], 0.0, "{c}");

    // Four more links of the add chain: about 22 instructions on 3750, +0.6 %.
    let planted = run("4", &gate);
    let err = String::from_utf8_lossy(&planted.stderr);
    assert_eq!(planted.status.code(), Some(3), "{err}");
    let planted: Value = serde_json::from_slice(&planted.stdout).unwrap();
    let c = &planted["against_baseline"]["comparisons"][0];
    assert_eq!(c["verdict"], "regressed", "{c}");
    let change = c["change_pct"].as_f64().unwrap();
    assert!((0.3..1.0).contains(&change), "{c}");
    // `compare` judges the stored counts by the instructions' threshold too: at the
    // default 1 % this change would be within noise.
    let compared = env.json(&["compare", "main", "latest", "--format", "json"]);
    let c = &compared["comparisons"][0];
    assert_eq!(c["verdict"], "regressed", "{c}");
}

#[test]
fn code_the_simulator_cannot_run_is_not_countable() {
    let env = Env::new();
    // One EVEX (AVX-512) instruction, which Valgrind 3.19 cannot decode on any host; the
    // native run is never asked to execute it.
    let manifest = env.c_hash(
        "evex",
        "evex.c",
        "#include \"api.h\"\n\
         int crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long n) {\n\
         __asm__ volatile(\"vpxord %%zmm0, %%zmm0, %%zmm0\" ::: \"xmm0\");\n\
         for (int i = 0; i < CRYPTO_BYTES; i++) out[i] = (unsigned char)(n + i + (n ? in[0] : 0));\n\
         return 0;\n}\n",
        "name = \"evex\"\nsources = [\"evex.c\"]\ntargets = [\"x86-64\"]\nflags = [\"-O1\"]\n\
         [[implementation]]\nvariant = \"v\"\nalgorithm = \"evex-hash\"\nkind = \"hash\"\n",
    );
    let out = env.cmd(&[
        "run",
        manifest.to_str().unwrap(),
        "rustcrypto/sha-256",
        "--sizes",
        "64",
        "--counter",
        "instructions",
        "--processes",
        "1",
        "--layouts",
        "1",
        "--format",
        "json",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    // Not a failure of the run: the other implementation is counted.
    assert_eq!(out.status.code(), Some(0), "{err}");
    let run: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = run["results"].as_array().unwrap();
    let evex = results
        .iter()
        .find(|r| r["implementation"].as_str().unwrap().starts_with("evex/"))
        .unwrap();
    assert_eq!(evex["status"], "unsupported", "{evex}");
    let message = evex["message"].as_str().unwrap();
    assert!(message.starts_with("not countable"), "{message}");
    assert!(message.contains("Illegal opcode at address"), "{message}");
    let sha = results
        .iter()
        .find(|r| r["implementation"] == "rustcrypto/sha-256")
        .unwrap();
    assert!(sha["median_instructions"].as_f64().unwrap() > 0.0, "{sha}");
}
