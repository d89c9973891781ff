//! The C `xof` kind: SHAKE through a manifest, one lane or `CRYPTO_LANES` a call, checked
//! per lane against FIPS 202 and the reference; a lane that reads its neighbour's message
//! is wrong output, never timed.

mod common;

use serde_json::Value;

use common::{Env, assert_bad_input};

fn repo(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

const QUICK: &[&str] = &[
    "--sizes",
    "64",
    "--samples",
    "8",
    "--processes",
    "1",
    "--layouts",
    "1",
    "--format",
    "json",
];

#[test]
fn shake_through_a_manifest_is_verified_lane_by_lane() {
    let env = Env::new();
    let manifest = repo("examples/c/shake/manifest.toml:target=x86-64");
    let args: Vec<&str> = ["run", manifest.as_str()]
        .iter()
        .chain(QUICK)
        .copied()
        .collect();
    let run = env.json(&args);
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 4, "{run}");
    for r in results {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["verified"], true, "{r}");
        assert_eq!(r["operation"], "xof", "{r}");
        assert_eq!(r["params"]["out"], 32, "{r}");
    }
    let two = results
        .iter()
        .find(|r| r["implementation"] == "c-shake/shake256/x2-loop@x86-64")
        .unwrap();
    // Two lanes of 64 bytes in and 32 out: 192 bytes a call.
    let one = results
        .iter()
        .find(|r| r["implementation"] == "c-shake/shake256/x1@x86-64")
        .unwrap();
    let per_call = |r: &Value| r["median_cycles"].as_f64().unwrap() / r["cpb"].as_f64().unwrap();
    assert!((per_call(two) - 192.0).abs() < 1e-6, "{two}");
    assert!((per_call(one) - 96.0).abs() < 1e-6, "{one}");
}

#[test]
fn a_lane_that_reads_its_neighbours_message_is_wrong_output() {
    let env = Env::new();
    let dir = env.path("lazy-lanes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("api.h"), "#define CRYPTO_LANES 2\n").unwrap();
    std::fs::write(
        dir.join("lazy.c"),
        "#include \"api.h\"\n#include \"fips202.h\"\n\
         int crypto_xof(unsigned char *out, unsigned long long outlen,\n\
                        const unsigned char *in, unsigned long long inlen) {\n\
           for (int l = 0; l < CRYPTO_LANES; l++) shake256(out + l * outlen, outlen, in, inlen);\n\
           return 0;\n}\n",
    )
    .unwrap();
    let fips = repo("examples/c/ml-kem");
    std::fs::write(
        dir.join("manifest.toml"),
        format!(
            "name = \"lazy\"\nsources = [\"lazy.c\", \"{fips}/fips202.c\"]\n\
             include_dirs = [\".\", \"{fips}\"]\ntargets = [\"x86-64\"]\nflags = [\"-O1\"]\n\
             [[implementation]]\nvariant = \"v\"\nalgorithm = \"shake256\"\nkind = \"xof\"\n"
        ),
    )
    .unwrap();
    let manifest = dir.join("manifest.toml");
    let args: Vec<&str> = ["run", manifest.to_str().unwrap()]
        .iter()
        .chain(QUICK)
        .copied()
        .collect();
    let run = env.json_with_failures(&args);
    let r = &run["results"][0];
    assert_eq!(r["status"], "wrong", "{r}");
    let message = r["message"].as_str().unwrap();
    assert!(message.contains("lane 1"), "{message}");
    assert!(r.get("median_cycles").is_none(), "{r}");
}

/// `CRYPTO_LANES` multiplies the bytes a call handles: a negative one (read as a huge
/// unsigned size) or one beyond any register's states is a manifest error, named.
#[test]
fn a_lane_count_out_of_range_is_refused_naming_it() {
    let env = Env::new();
    for (lanes, said) in [
        ("-1", "`CRYPTO_LANES` is -1"),
        ("65", "`CRYPTO_LANES` is 65"),
    ] {
        let dir = env.path(&format!("lanes{lanes}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("api.h"),
            format!("#define CRYPTO_LANES ({lanes})\n"),
        )
        .unwrap();
        std::fs::write(
            dir.join("x.c"),
            "#include \"api.h\"\n\
             int crypto_xof(unsigned char *out, unsigned long long outlen,\n\
                            const unsigned char *in, unsigned long long inlen) {\n\
               (void)out; (void)outlen; (void)in; (void)inlen; return 0;\n}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("manifest.toml"),
            "name = \"lanes\"\nsources = [\"x.c\"]\ntargets = [\"x86-64\"]\n\
             [[implementation]]\nvariant = \"v\"\nalgorithm = \"shake256\"\nkind = \"xof\"\n",
        )
        .unwrap();
        let manifest = dir.join("manifest.toml");
        assert_bad_input(&env.cmd(&["check", manifest.to_str().unwrap()]), said);
    }
}
