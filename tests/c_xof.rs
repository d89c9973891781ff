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

/// A manifest in a directory `name` of `env`: one SHAKE256 `xof` variant built from
/// `source` (`x.c`) on the FIPS 202 code of examples/c/ml-kem, with `api_h`.
fn shake256_manifest(env: &Env, name: &str, api_h: &str, source: &str) -> std::path::PathBuf {
    let dir = env.path(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("api.h"), api_h).unwrap();
    std::fs::write(dir.join("x.c"), source).unwrap();
    let fips = repo("examples/c/ml-kem");
    std::fs::write(
        dir.join("manifest.toml"),
        format!(
            "name = \"{name}\"\nsources = [\"x.c\", \"{fips}/fips202.c\"]\n\
             include_dirs = [\".\", \"{fips}\"]\ntargets = [\"x86-64\"]\nflags = [\"-O1\"]\n\
             [[implementation]]\nvariant = \"v\"\nalgorithm = \"shake256\"\nkind = \"xof\"\n"
        ),
    )
    .unwrap();
    dir.join("manifest.toml")
}

#[test]
fn a_lane_that_reads_its_neighbours_message_is_wrong_output() {
    let env = Env::new();
    let manifest = shake256_manifest(
        &env,
        "lazy",
        "#define CRYPTO_LANES 2\n",
        "#include \"api.h\"\n#include \"fips202.h\"\n\
         int crypto_xof(unsigned char *out, unsigned long long outlen,\n\
                        const unsigned char *in, unsigned long long inlen) {\n\
           for (int l = 0; l < CRYPTO_LANES; l++) shake256(out + l * outlen, outlen, in, inlen);\n\
           return 0;\n}\n",
    );
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

/// The gate's output buffer lies between guards for an XOF too: one that writes a byte
/// past its output (a squeeze rounded up to the rate) is wrong output, said so.
#[test]
fn an_xof_that_writes_past_its_output_is_wrong_output() {
    let env = Env::new();
    let manifest = shake256_manifest(
        &env,
        "past",
        "",
        "#include \"fips202.h\"\n\
         int crypto_xof(unsigned char *out, unsigned long long outlen,\n\
                        const unsigned char *in, unsigned long long inlen) {\n\
           shake256(out, outlen, in, inlen);\n\
           out[outlen] = 0x5a;\n\
           return 0;\n}\n",
    );
    let out = env.cmd(&["check", manifest.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("WRONG OUTPUT"), "{said}");
    assert!(
        said.contains("crypto_xof wrote 1 byte past the end of its"),
        "{said}"
    );
}

/// A SHAKE256 wrong for 4096-byte messages only, a length the gate's own leave out:
/// refused where a run times that length (at every length of that run, for the one
/// reason), measured where it does not.
#[test]
fn an_xof_wrong_only_at_a_timed_length_is_refused_before_it_is_timed() {
    let env = Env::new();
    let manifest = shake256_manifest(
        &env,
        "wrong-at-4096",
        "",
        "#include \"fips202.h\"\n\
         int crypto_xof(unsigned char *out, unsigned long long outlen,\n\
                        const unsigned char *in, unsigned long long inlen) {\n\
           shake256(out, outlen, in, inlen);\n\
           if (inlen == 4096 && outlen > 0) out[0] ^= 1;\n\
           return 0;\n}\n",
    );
    let args = |sizes: &'static str| -> Vec<String> {
        ["run", manifest.to_str().unwrap()]
            .iter()
            .chain(QUICK)
            .map(|a| a.to_string())
            .map(|a| if a == "64" { sizes.to_string() } else { a })
            .collect()
    };
    let long: Vec<String> = args("64,4096");
    let run = env.json_with_failures(&long.iter().map(String::as_str).collect::<Vec<_>>());
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{run}");
    for r in results {
        assert_eq!(r["status"], "wrong", "{r}");
        let message = r["message"].as_str().unwrap();
        assert!(
            message.contains("4096-byte messages (a length the run times)")
                && message.contains("against the reference implementation"),
            "{message}"
        );
    }
    let short: Vec<String> = args("64");
    let run = env.json(&short.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(run["results"][0]["status"], "ok", "{run}");
}

/// `CRYPTO_LANES` multiplies the bytes a call handles: a negative one (read as a huge
/// unsigned size) or one beyond any register's states is a manifest error, named.
#[test]
fn a_lane_count_out_of_range_is_refused_naming_it() {
    let env = Env::new();
    for (lanes, said) in [
        ("-1", "`CRYPTO_LANES` is -1 in `api.h`"),
        ("65", "`CRYPTO_LANES` is 65 in `api.h`"),
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
