//! Mistakes in a C manifest, its `api.h` or its C code: each gets a message naming the
//! file, the macro, the function or the name at fault, and manifest errors exit with
//! status 2 before anything is measured. Builds go into the test's own cache.

mod common;

use serde_json::Value;

use common::{Env, assert_bad_input, assert_refused};

/// Small, fast runs for the few tests that get as far as measuring.
const QUICK: &[&str] = &[
    "--sizes",
    "16",
    "--samples",
    "64",
    "--processes",
    "2",
    "--layouts",
    "1",
    "--format",
    "json",
];

/// A hash that is no known algorithm (so the gate asks for no reference): byte sums.
const TOY_HASH: &str = r#"#include "api.h"
int crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long inlen) {
    for (int i = 0; i < CRYPTO_BYTES; i++) out[i] = (unsigned char)i;
    for (unsigned long long j = 0; j < inlen; j++) out[j % CRYPTO_BYTES] += in[j];
    return 0;
}
"#;

const TOY_MANIFEST: &str = r#"name = "toys"
sources = ["toy.c"]
targets = ["native"]

[[implementation]]
variant = "o2"
algorithm = "toy-hash"
kind = "hash"
flags = ["-O2"]
"#;

/// Write `toy.c`, `api.h` and `manifest.toml` into the test's directory.
fn write(env: &Env, source: &str, api: &str, manifest: &str) -> String {
    let dir = env.dir.path();
    std::fs::write(dir.join("toy.c"), source).unwrap();
    std::fs::write(dir.join("api.h"), api).unwrap();
    let m = dir.join("manifest.toml");
    std::fs::write(&m, manifest).unwrap();
    m.to_str().unwrap().to_string()
}

fn run(env: &Env, manifest: &str) -> std::process::Output {
    let mut args = vec!["run", manifest];
    args.extend(QUICK);
    env.cmd(&args)
}

/// The one result of a run that succeeded, as JSON.
fn only_result(out: &std::process::Output) -> Value {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let run: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{run}");
    results[0].clone()
}

/// `cryptobench run manifest.toml` in the manifest's own directory: the bare name means
/// the current directory (it once gave the compiler an empty `-I` that swallowed the
/// next argument, and `api.h` was not found).
#[test]
fn a_manifest_named_without_a_directory_builds_from_the_current_one() {
    let env = Env::new();
    write(&env, TOY_HASH, "#define CRYPTO_BYTES 32\n", TOY_MANIFEST);
    let r = only_result(&run(&env, "manifest.toml"));
    assert_eq!(r["implementation"], "toys/toy-hash/o2@native", "{r}");
    assert_eq!(r["status"], "ok", "{r}");
    assert!(
        r["median_cycles"].as_f64().is_some(),
        "built and measured: {r}"
    );
}

/// A build without its api.h is told so, not shown a compiler error in a file of the
/// build cache's that it never wrote.
#[test]
fn a_missing_api_h_is_named() {
    let env = Env::new();
    let m = write(&env, TOY_HASH, "", TOY_MANIFEST);
    std::fs::remove_file(env.dir.path().join("api.h")).unwrap();
    assert_bad_input(
        &run(&env, &m),
        "manifest.toml: `o2` (toy-hash): no api.h beside the manifest, in `include_dirs` or in an -I flag",
    );
}

#[test]
fn a_target_listed_twice_is_refused_by_name() {
    let env = Env::new();
    let m = write(
        &env,
        TOY_HASH,
        "#define CRYPTO_BYTES 32\n",
        &TOY_MANIFEST.replace(r#"["native"]"#, r#"["x86-64", "native", "x86-64"]"#),
    );
    assert_bad_input(
        &run(&env, &m),
        "manifest.toml: target `x86-64` is listed twice in `targets`",
    );
}

/// A -march in `flags` would come after the target's and win: the build would be
/// credited to a target it is not built for.
#[test]
fn a_march_in_flags_is_refused_for_the_targets() {
    let env = Env::new();
    let m = write(
        &env,
        TOY_HASH,
        "#define CRYPTO_BYTES 32\n",
        &TOY_MANIFEST.replace(r#"["-O2"]"#, r#"["-O2", "-march=skylake-avx512"]"#),
    );
    assert_bad_input(
        &env.cmd(&["list", &m]),
        "flag `-march=skylake-avx512` would override the build's target",
    );
}

#[test]
fn an_unknown_cpu_feature_in_requires_is_refused_with_the_known_ones() {
    let env = Env::new();
    let m = write(
        &env,
        TOY_HASH,
        "#define CRYPTO_BYTES 32\n",
        &format!("{TOY_MANIFEST}requires = [\"avx2\", \"avx9000\"]\n"),
    );
    let out = run(&env, &m);
    assert_bad_input(
        &out,
        "manifest.toml: implementation `o2`: unknown CPU feature `avx9000` in `requires`",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("known features") && err.contains("avx512f") && err.contains("sha_ni"),
        "the known features are listed: {err}"
    );
}

#[test]
fn a_compiler_that_does_not_exist_is_named_with_the_manifest() {
    let env = Env::new();
    let m = write(
        &env,
        TOY_HASH,
        "#define CRYPTO_BYTES 32\n",
        &TOY_MANIFEST.replace("targets =", "compiler = \"tcc9\"\ntargets ="),
    );
    assert_bad_input(
        &run(&env, &m),
        "manifest.toml: cannot run the C compiler `tcc9` (`compiler` in the manifest): is it installed?",
    );
}

/// Every function of the C API returns a status; a build whose function returns one that
/// is not 0 is refused for that, not for the bytes it left in its buffers.
#[test]
fn a_c_function_that_returns_an_error_is_named_with_its_status() {
    let env = Env::new();
    let source = r#"#include "api.h"
int crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long inlen) {
    return -1;
}
int crypto_stream_xor(unsigned char *c, const unsigned char *m, unsigned long long mlen,
                      const unsigned char *n, const unsigned char *k) {
    return -2;
}
int crypto_core(unsigned char *out, const unsigned char *in, const unsigned char *k,
                const unsigned char *c) {
    return -3;
}
int crypto_aead_encrypt(unsigned char *c, unsigned long long *clen, const unsigned char *m,
                        unsigned long long mlen, const unsigned char *ad, unsigned long long adlen,
                        const unsigned char *nsec, const unsigned char *npub, const unsigned char *k) {
    *clen = mlen + CRYPTO_ABYTES;
    return -4;
}
int crypto_aead_decrypt(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,
                        const unsigned char *c, unsigned long long clen, const unsigned char *ad,
                        unsigned long long adlen, const unsigned char *npub, const unsigned char *k) {
    *mlen = clen - CRYPTO_ABYTES;
    return 0;
}
int crypto_kem_keypair(unsigned char *pk, unsigned char *sk) { return -6; }
int crypto_kem_enc(unsigned char *ct, unsigned char *ss, const unsigned char *pk) { return 0; }
int crypto_kem_dec(unsigned char *ss, const unsigned char *ct, const unsigned char *sk) { return 0; }
int crypto_scalarmult(unsigned char *q, const unsigned char *n, const unsigned char *p) { return 0; }
int crypto_scalarmult_base(unsigned char *q, const unsigned char *n) { return -7; }
"#;
    let api = "#define CRYPTO_BYTES 32\n#define CRYPTO_KEYBYTES 32\n#define CRYPTO_NONCEBYTES 12\n\
               #define CRYPTO_NPUBBYTES 12\n#define CRYPTO_ABYTES 16\n\
               #define CRYPTO_OUTPUTBYTES 16\n#define CRYPTO_INPUTBYTES 16\n\
               #define CRYPTO_PUBLICKEYBYTES 32\n#define CRYPTO_SECRETKEYBYTES 32\n\
               #define CRYPTO_CIPHERTEXTBYTES 32\n#define CRYPTO_SCALARBYTES 32\n";
    let manifest = r#"name = "failing"
sources = ["toy.c"]
targets = ["native"]

[[implementation]]
variant = "o2"
algorithm = "sha-256"
kind = "hash"

[[implementation]]
variant = "o2"
algorithm = "chacha20"
kind = "stream"

[[implementation]]
variant = "o2"
algorithm = "toy-block"
kind = "core"
vectors = [{ input = "00000000000000000000000000000000", key = "0000000000000000000000000000000000000000000000000000000000000000", output = "00000000000000000000000000000000" }]

[[implementation]]
variant = "o2"
algorithm = "toy-aead"
kind = "aead"

[[implementation]]
variant = "o2"
algorithm = "toy-kem"
kind = "kem"

[[implementation]]
variant = "o2"
algorithm = "toy-dh"
kind = "scalarmult"
"#;
    let m = write(&env, source, api, manifest);
    let out = run(&env, &m);
    let err = String::from_utf8_lossy(&out.stderr);
    // Every case refused: reported, stored, and the run ends with status 1.
    assert_eq!(out.status.code(), Some(1), "{err}");
    let run: Value = serde_json::from_slice(&out.stdout).unwrap();
    for (implementation, expect) in [
        ("failing/sha-256/o2@native", "crypto_hash returned -1"),
        (
            "failing/chacha20/o2@native",
            "crypto_stream_xor returned -2",
        ),
        ("failing/toy-block/o2@native", "crypto_core returned -3"),
        (
            "failing/toy-aead/o2@native",
            "crypto_aead_encrypt returned -4",
        ),
        (
            "failing/toy-kem/o2@native",
            "crypto_kem_keypair returned -6",
        ),
        (
            "failing/toy-dh/o2@native",
            "crypto_scalarmult_base returned -7",
        ),
    ] {
        let r = run["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["implementation"] == implementation)
            .unwrap_or_else(|| panic!("no {implementation} in {run}"));
        let message = r["message"].as_str().unwrap_or("");
        assert_eq!(r["status"], "wrong", "{r}");
        assert!(message.contains(expect), "expected `{expect}` in {r}");
        assert!(!message.contains("differs"), "{r}");
    }
}

/// Sizes the manifest states are checked against the build's `api.h` when it is built,
/// before anything runs: a disagreement is a manifest error (status 2), not a failed case.
#[test]
fn a_size_that_disagrees_with_api_h_is_refused_before_measuring() {
    let env = Env::new();
    let m = write(
        &env,
        TOY_HASH,
        "#define CRYPTO_BYTES 32\n",
        &format!("{TOY_MANIFEST}sizes = {{ CRYPTO_BYTES = 64 }}\n"),
    );
    assert_bad_input(
        &run(&env, &m),
        "manifest.toml: `o2` (toy-hash) for target `native`: `api.h` gives CRYPTO_BYTES = 32, \
         the manifest says 64; make them agree",
    );
    // A size api.h does not define is not said to be 0.
    let env = Env::new();
    let m = write(
        &env,
        TOY_HASH,
        "#define CRYPTO_BYTES 32\n",
        &format!("{TOY_MANIFEST}sizes = {{ CRYPTO_BYTES = 32, CRYPTO_KEYBYTES = 16 }}\n"),
    );
    assert_bad_input(
        &run(&env, &m),
        "`api.h` defines no CRYPTO_KEYBYTES (or defines it as 0), the manifest says 16",
    );
}

#[test]
fn a_size_that_is_no_api_h_macro_is_refused_with_the_known_ones() {
    let env = Env::new();
    let m = write(
        &env,
        TOY_HASH,
        "#define CRYPTO_BYTES 32\n",
        &format!("{TOY_MANIFEST}sizes = {{ CRYPTO_BYTEZ = 32 }}\n"),
    );
    let out = run(&env, &m);
    assert_bad_input(
        &out,
        "manifest.toml: implementation `o2`: `sizes` names `CRYPTO_BYTEZ`, which is not an api.h size cryptobench reads",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("CRYPTO_BYTES, CRYPTO_KEYBYTES"),
        "the known ones are listed: {err}"
    );
}

/// Every kind refuses, before anything runs, an `api.h` without a size it cannot do
/// without (it crashed in the gate, as if the C code were at fault).
#[test]
fn a_macro_missing_from_api_h_is_named_for_every_kind() {
    // With the API's prototypes: every source is compiled with them declared.
    let stubs = r#"#define UNUSED(x) (void)(x)
int crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long inlen) {
    UNUSED(out); UNUSED(in); UNUSED(inlen); return 0;
}
int crypto_stream_xor(unsigned char *c, const unsigned char *m, unsigned long long mlen,
                      const unsigned char *n, const unsigned char *k) {
    UNUSED(c); UNUSED(m); UNUSED(mlen); UNUSED(n); UNUSED(k); return 0;
}
int crypto_aead_encrypt(unsigned char *c, unsigned long long *clen, const unsigned char *m,
                        unsigned long long mlen, const unsigned char *ad, unsigned long long adlen,
                        const unsigned char *nsec, const unsigned char *npub, const unsigned char *k) {
    UNUSED(c); UNUSED(clen); UNUSED(m); UNUSED(mlen); UNUSED(ad); UNUSED(adlen);
    UNUSED(nsec); UNUSED(npub); UNUSED(k); return 0;
}
int crypto_aead_decrypt(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,
                        const unsigned char *c, unsigned long long clen, const unsigned char *ad,
                        unsigned long long adlen, const unsigned char *npub, const unsigned char *k) {
    UNUSED(m); UNUSED(mlen); UNUSED(nsec); UNUSED(c); UNUSED(clen); UNUSED(ad);
    UNUSED(adlen); UNUSED(npub); UNUSED(k); return 0;
}
int crypto_core(unsigned char *out, const unsigned char *in, const unsigned char *k,
                const unsigned char *c) {
    UNUSED(out); UNUSED(in); UNUSED(k); UNUSED(c); return 0;
}
"#;
    for (kind, api, missing) in [
        ("hash", "", "CRYPTO_BYTES"),
        (
            "stream",
            "#define CRYPTO_KEYBYTES 32\n",
            "CRYPTO_NONCEBYTES",
        ),
        (
            "aead",
            "#define CRYPTO_KEYBYTES 16\n#define CRYPTO_NPUBBYTES 16\n",
            "CRYPTO_ABYTES",
        ),
        (
            "core",
            "#define CRYPTO_INPUTBYTES 16\n",
            "CRYPTO_OUTPUTBYTES",
        ),
        (
            "kem",
            "#define CRYPTO_PUBLICKEYBYTES 32\n#define CRYPTO_SECRETKEYBYTES 32\n#define CRYPTO_BYTES 32\n",
            "CRYPTO_CIPHERTEXTBYTES",
        ),
    ] {
        let env = Env::new();
        let m = write(
            &env,
            stubs,
            api,
            &TOY_MANIFEST.replace("kind = \"hash\"", &format!("kind = \"{kind}\"")),
        );
        let article = if kind == "aead" { "an" } else { "a" };
        assert_bad_input(
            &run(&env, &m),
            &format!(
                "manifest.toml: `o2` (toy-hash) for target `native`: `api.h` defines no {missing} \
                 (or defines it as 0); {article} {kind} build needs it (or is `kind = \"{kind}\"` \
                 not what this code is?)"
            ),
        );
    }
}

/// An AEAD that round-trips and rejects a changed tag, but is no ChaCha20-Poly1305: the
/// RFC's examples must refuse it by name, where a round trip alone would pass it.
const XOR_AEAD: &str = r#"#include <string.h>
#include "api.h"
int crypto_aead_encrypt(unsigned char *c, unsigned long long *clen, const unsigned char *m,
                        unsigned long long mlen, const unsigned char *ad, unsigned long long adlen,
                        const unsigned char *nsec, const unsigned char *npub, const unsigned char *k) {
    (void)ad; (void)adlen; (void)nsec; (void)npub;
    for (unsigned long long i = 0; i < mlen; i++) c[i] = m[i] ^ k[i % 32];
    memset(c + mlen, 0xa5, CRYPTO_ABYTES);
    *clen = mlen + CRYPTO_ABYTES;
    return 0;
}
int crypto_aead_decrypt(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,
                        const unsigned char *c, unsigned long long clen, const unsigned char *ad,
                        unsigned long long adlen, const unsigned char *npub, const unsigned char *k) {
    (void)nsec; (void)ad; (void)adlen; (void)npub;
    if (clen < CRYPTO_ABYTES) return -1;
    for (unsigned long long i = 0; i < CRYPTO_ABYTES; i++)
        if (c[clen - CRYPTO_ABYTES + i] != 0xa5) return -1;
    *mlen = clen - CRYPTO_ABYTES;
    for (unsigned long long i = 0; i < *mlen; i++) m[i] = c[i] ^ k[i % 32];
    return 0;
}
"#;

#[test]
fn a_c_aead_of_a_known_algorithm_meets_its_published_examples() {
    let env = Env::new();
    let api = "#define CRYPTO_KEYBYTES 32\n#define CRYPTO_NPUBBYTES 12\n#define CRYPTO_ABYTES 16\n";
    let manifest = r#"name = "pretender"
sources = ["toy.c"]
targets = ["native"]

[[implementation]]
variant = "o2"
algorithm = "chacha20-poly1305"
kind = "aead"
"#;
    let m = write(&env, XOR_AEAD, api, manifest);
    let out = run(&env, &m);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let run: Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &run["results"][0];
    assert_eq!(r["status"], "wrong", "{r}");
    let message = r["message"].as_str().unwrap();
    assert!(message.contains("chacha20-poly1305 (RFC 8439"), "{message}");
    assert!(message.contains("encrypt"), "{message}");
}

#[test]
fn a_manifest_that_can_build_nothing_is_refused() {
    let env = Env::new();
    let manifest = r#"name = "toys"
sources = ["toy.c"]
targets = ["x86-64"]

[[implementation]]
variant = "o2"
algorithm = "toy-hash"
kind = "hash"
requires = ["avx512f"]
"#;
    let m = write(&env, TOY_HASH, "#define CRYPTO_BYTES 32\n", manifest);
    assert_bad_input(&run(&env, &m), "nothing to measure");
}

/// A `core` build that copies its input block to its output and ignores its key.
const COPY_CORE: &str = r#"#include <string.h>
#include "api.h"
int crypto_core(unsigned char *out, const unsigned char *in, const unsigned char *k,
                const unsigned char *c) {
    (void)k; (void)c;
    memcpy(out, in, CRYPTO_OUTPUTBYTES);
    return 0;
}
"#;

/// `crypto_core` reads and writes the api.h sizes whatever a vector gives: a vector of
/// another length is the manifest's mistake, refused before anything runs (it was read
/// past its end and blamed on the build: a crash, or wrong output).
#[test]
fn a_core_vector_that_does_not_fit_api_h_is_refused_before_measuring() {
    let api =
        "#define CRYPTO_INPUTBYTES 4\n#define CRYPTO_OUTPUTBYTES 4\n#define CRYPTO_KEYBYTES 2\n";
    let good = r#"{ input = "00010203", key = "aabb", output = "00010203" }"#;
    for (vector, expect) in [
        (
            r#"{ input = "", key = "aabb", output = "" }"#,
            "`vectors[1]`: `input` has 0 bytes, `api.h` gives CRYPTO_INPUTBYTES = 4; give it as 8 hex digits",
        ),
        (
            r#"{ input = "00010203", key = "aabb", output = "00" }"#,
            "`vectors[1]`: `output` has 1 byte, `api.h` gives CRYPTO_OUTPUTBYTES = 4",
        ),
        (
            r#"{ input = "00010203", output = "00010203" }"#,
            "`vectors[1]`: `key` has 0 bytes, `api.h` gives CRYPTO_KEYBYTES = 2",
        ),
    ] {
        let env = Env::new();
        let manifest = format!(
            "name = \"cores\"\nsources = [\"toy.c\"]\ntargets = [\"native\"]\n\n\
             [[implementation]]\nvariant = \"o2\"\nalgorithm = \"copy\"\nkind = \"core\"\n\
             vectors = [{good}, {vector}]\n"
        );
        let m = write(&env, COPY_CORE, api, &manifest);
        assert_bad_input(
            &run(&env, &m),
            &format!("manifest.toml: `o2` (copy) for target `native`: {expect}"),
        );
    }
}

/// A NIST LWC known-answer file is read when the run is planned: a malformed one, or one
/// whose key, nonce or ciphertext does not fit the build's `api.h`, is refused with the
/// file, the line and the field, before anything runs (it was blamed on the build as
/// wrong output, after C code had read past a short key).
#[test]
fn a_kat_file_that_is_malformed_or_does_not_fit_api_h_is_refused_before_measuring() {
    let toy_aead = std::fs::read_to_string(format!(
        "{}/tests/c/aead/toy_aead.c",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let api = "#define CRYPTO_KEYBYTES 16\n#define CRYPTO_NPUBBYTES 12\n#define CRYPTO_ABYTES 16\n";
    let manifest = r#"name = "kats"
sources = ["toy.c"]
targets = ["native"]

[[implementation]]
variant = "o2"
algorithm = "toy-aead"
kind = "aead"
kat = "LWC_AEAD_KAT.txt"
"#;
    let key = "000102030405060708090A0B0C0D0E0F";
    let nonce = "000102030405060708090A0B";
    let tag = "00112233445566778899AABBCCDDEEFF";
    let entry = |key: &str, nonce: &str, ct: &str| {
        format!("Count = 2\nKey = {key}\nNonce = {nonce}\nPT = 01\nAD = \nCT = {ct}\n")
    };
    // The first entry fits; the second is at lines 8 to 13.
    let first = format!("Count = 1\nKey = {key}\nNonce = {nonce}\nPT = \nAD = \nCT = {tag}\n\n");
    for (second, expect) in [
        (
            entry("00", nonce, &format!("01{tag}")),
            "LWC_AEAD_KAT.txt`: line 9: `Key` has 1 byte, `api.h` gives CRYPTO_KEYBYTES = 16",
        ),
        (
            entry(key, "0001", &format!("01{tag}")),
            "LWC_AEAD_KAT.txt`: line 10: `Nonce` has 2 bytes, `api.h` gives CRYPTO_NPUBBYTES = 12",
        ),
        (
            entry(key, nonce, tag),
            "LWC_AEAD_KAT.txt`: line 13: `CT` has 16 bytes, but `PT` has 1 byte and `api.h` gives CRYPTO_ABYTES = 16",
        ),
        (
            entry("zz", nonce, &format!("01{tag}")),
            "LWC_AEAD_KAT.txt`: line 9: `Key` is not hex",
        ),
    ] {
        let env = Env::new();
        let m = write(&env, &toy_aead, api, manifest);
        std::fs::write(
            env.dir.path().join("LWC_AEAD_KAT.txt"),
            format!("{first}{second}"),
        )
        .unwrap();
        let out = run(&env, &m);
        assert_bad_input(&out, expect);
        assert_bad_input(&out, "manifest.toml: `o2` (toy-aead)");
    }
}

/// A `compiler` that exits 0 without writing the shared object is named, with what it
/// did not write (the error named no file: `No such file or directory`).
#[test]
fn a_compiler_that_writes_no_shared_object_is_named() {
    let env = Env::new();
    let m = write(
        &env,
        TOY_HASH,
        "#define CRYPTO_BYTES 32\n",
        &TOY_MANIFEST.replace("targets =", "compiler = \"true\"\ntargets ="),
    );
    let out = run(&env, &m);
    assert_bad_input(
        &out,
        "manifest.toml: the compiler `true` (`compiler` in the manifest) succeeded building `o2` \
         for target `native` but wrote no shared object to `-o ",
    );
    assert_bad_input(&out, "is it a C compiler (cc, gcc or clang)?");
}

/// `run` of the toy manifest in the test's directory with the build cache variables set
/// as given (the others removed).
fn run_with_cache(
    env: &Env,
    manifest: &str,
    vars: &[(&str, &std::path::Path)],
) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_cryptobench"));
    cmd.arg("run")
        .arg(manifest)
        .args(QUICK)
        .env("CRYPTOBENCH_DB", env.db())
        .env_remove("CRYPTOBENCH_CACHE")
        .env_remove("XDG_CACHE_HOME")
        .current_dir(env.dir.path());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.output().expect("run cryptobench")
}

/// An empty CRYPTOBENCH_CACHE is unset, as empty XDG variables are: builds go to the
/// next place in line. (It put them in the current directory under bare names, which
/// the worker's `dlopen` then looked for on the library path, and failed to load.)
#[test]
fn an_empty_cache_variable_is_unset() {
    let env = Env::new();
    let m = write(&env, TOY_HASH, "#define CRYPTO_BYTES 32\n", TOY_MANIFEST);
    let xdg = env.dir.path().join("xdg");
    let out = run_with_cache(
        &env,
        &m,
        &[
            ("CRYPTOBENCH_CACHE", std::path::Path::new("")),
            ("XDG_CACHE_HOME", &xdg),
        ],
    );
    let r = only_result(&out);
    assert!(
        r["median_cycles"].as_f64().is_some(),
        "built and measured: {r}"
    );
    let built = |dir: &std::path::Path| {
        std::fs::read_dir(dir)
            .map(|d| {
                d.filter(|e| {
                    e.as_ref()
                        .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "so"))
                })
                .count()
            })
            .unwrap_or(0)
    };
    assert_eq!(
        built(&xdg.join("cryptobench")),
        1,
        "not built in $XDG_CACHE_HOME"
    );
    assert_eq!(built(env.dir.path()), 0, "built in the current directory");
}

/// A build cache that cannot be created or written is named, with the variable that
/// moves it.
#[test]
fn a_cache_that_cannot_be_written_is_named_with_the_fix() {
    let env = Env::new();
    let m = write(&env, TOY_HASH, "#define CRYPTO_BYTES 32\n", TOY_MANIFEST);
    let file = env.dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let cache = file.join("cache");
    assert_bad_input(
        &run_with_cache(&env, &m, &[("CRYPTOBENCH_CACHE", &cache)]),
        &format!(
            "cannot create the build cache `{}` (set CRYPTOBENCH_CACHE to a directory you can write)",
            cache.display()
        ),
    );
}

/// Names become `provider/algorithm/variant@target`: each part must be non-empty and
/// hold no `/`, `@`, whitespace or control character, which would split the name
/// elsewhere or break the tables and files it is written to. (`algorithm` was not
/// checked at all, and a tab or newline passed in `name` and `variant`.)
#[test]
fn names_that_cannot_make_an_implementation_name_are_refused() {
    for (from, to, expect) in [
        (
            r#"name = "toys""#,
            r#"name = "to\tys""#,
            r#"manifest.toml: `name` must be non-empty without `/`, `@`, spaces or other whitespace or control characters: "to\tys" has '\t'"#,
        ),
        (
            r#"variant = "o2""#,
            r#"variant = "o\n2""#,
            r#"manifest.toml: [[implementation]] number 1 (of 1): `variant` must be non-empty without `/`, `@`, spaces or other whitespace or control characters: "o\n2" has '\n'"#,
        ),
        (
            r#"algorithm = "toy-hash""#,
            r#"algorithm = """#,
            "manifest.toml: [[implementation]] number 1 (of 1): `algorithm` must be non-empty",
        ),
        (
            r#"algorithm = "toy-hash""#,
            r#"algorithm = "toy/hash""#,
            r#"`algorithm` must be non-empty without `/`, `@`, spaces or other whitespace or control characters: "toy/hash" has '/'"#,
        ),
        (
            r#"algorithm = "toy-hash""#,
            r#"algorithm = "toy hash""#,
            r#"`algorithm` must be non-empty without `/`, `@`, spaces or other whitespace or control characters: "toy hash" has ' '"#,
        ),
    ] {
        let env = Env::new();
        assert!(TOY_MANIFEST.contains(from), "{from}");
        let m = write(
            &env,
            TOY_HASH,
            "#define CRYPTO_BYTES 32\n",
            &TOY_MANIFEST.replace(from, to),
        );
        assert_bad_input(&run(&env, &m), expect);
    }
}

/// A --kat-dir that is not there is a typo, refused before anything is built; a KAT file
/// missing from the default place stays a note (the Spook seed runs without ../shared).
#[test]
fn a_kat_dir_that_is_not_a_directory_is_refused() {
    let manifest = format!("{}/tests/c/aead/manifest.toml", env!("CARGO_MANIFEST_DIR"));
    let env = Env::new();
    let missing = env.dir.path().join("no-such-dir");
    let mut args = vec!["run", &manifest, "--kat-dir", missing.to_str().unwrap()];
    args.extend(QUICK);
    assert_bad_input(
        &env.cmd(&args),
        &format!(
            "--kat-dir `{}` is not a directory: give the directory that holds the manifests' `kat` files",
            missing.display()
        ),
    );
}

/// A relative `-I` in `flags` is taken from the manifest's directory, as every other path
/// in a manifest is, not from wherever cryptobench is started (it was given to the
/// compiler as written, so `api.h` in the manifest's `inc/` was not found).
#[test]
fn a_relative_include_flag_is_taken_from_the_manifests_directory() {
    let env = Env::new();
    let sub = env.path("sub");
    std::fs::create_dir_all(sub.join("inc")).unwrap();
    std::fs::write(sub.join("toy.c"), TOY_HASH).unwrap();
    std::fs::write(sub.join("inc/api.h"), "#define CRYPTO_BYTES 32\n").unwrap();
    std::fs::write(
        sub.join("manifest.toml"),
        TOY_MANIFEST.replace("flags = [\"-O2\"]", "flags = [\"-O2\", \"-Iinc\"]"),
    )
    .unwrap();
    // Started in the test's directory, above the manifest's.
    let r = only_result(&run(&env, "sub/manifest.toml"));
    assert_eq!(r["implementation"], "toys/toy-hash/o2@native", "{r}");
    assert_eq!(r["status"], "ok", "{r}");
    // Recorded as the absolute directory, not `-Isub/inc` (relative to where the run was
    // started, which a stored report does not say).
    let json = env.json(&["report", "latest", "--format", "json"]);
    let flags = &json["options"]["run"]["c_builds"][0]["flags"];
    // The test's directory as the run's current directory names it (symbolic links
    // resolved).
    let inc = format!("-I{}", sub.canonicalize().unwrap().join("inc").display());
    assert_eq!(
        flags,
        &serde_json::json!(["-march=native", "-O2", inc]),
        "{json}"
    );
}

/// Variants that are separate files defining the same symbols (a `ref/` and an `opt/`
/// directory) each compile their own sources and headers; one whose own file is missing
/// is named, and a variant with no sources anywhere is refused.
#[test]
fn a_variant_compiles_its_own_sources() {
    let env = Env::new();
    let dir = env.dir.path();
    for (sub, first) in [("ref", 0), ("opt", 0), ("bad", 1)] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        std::fs::write(
            dir.join(sub).join("toy.c"),
            TOY_HASH.replace(
                "(unsigned char)i;",
                &format!("(unsigned char)(i + {first});"),
            ),
        )
        .unwrap();
        std::fs::write(dir.join(sub).join("api.h"), "#define CRYPTO_BYTES 8\n").unwrap();
    }
    let manifest = |variants: &str| {
        let m = dir.join("manifest.toml");
        std::fs::write(
            &m,
            format!("name = \"split\"\ntargets = [\"native\"]\n{variants}"),
        )
        .unwrap();
        m.to_str().unwrap().to_string()
    };
    let variant = |name: &str, sub: &str| {
        format!(
            "[[implementation]]\nvariant = \"{name}\"\nalgorithm = \"toy-hash\"\nkind = \"hash\"\n\
             sources = [\"{sub}/toy.c\"]\ninclude_dirs = [\"{sub}\"]\n"
        )
    };
    // The two agree, so each built its own file with its own api.h (there is no
    // manifest-wide source or header to fall back on).
    let m = manifest(&(variant("ref", "ref") + &variant("opt", "opt")));
    let out = run(&env, &m);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["results"].as_array().unwrap().len(), 2, "{r}");
    // A variant whose own file computes something else is caught by the agreement check:
    // it was compiled from its own file, not the first variant's.
    let m = manifest(&(variant("ref", "ref") + &variant("bad", "bad")));
    let out = run(&env, &m);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let m = manifest(&variant("gone", "nowhere"));
    assert_bad_input(
        &run(&env, &m),
        "source `nowhere/toy.c` not found (implementation `gone`'s",
    );
    let m = manifest(
        "[[implementation]]\nvariant = \"bare\"\nalgorithm = \"toy-hash\"\nkind = \"hash\"\n",
    );
    assert_bad_input(&run(&env, &m), "implementation `bare` has no sources");
}

/// A core's known answers may come from a file of `[[vector]]` tables beside the
/// manifest (a permutation's 200-byte states need not sit inline): they are checked as
/// inline ones are, so a wrong one refuses the build; a file that is missing, not a file
/// or not such tables is named.
#[test]
fn core_vectors_come_from_a_file_too() {
    let env = Env::new();
    let dir = env.dir.path();
    std::fs::write(
        dir.join("api.h"),
        "#define CRYPTO_OUTPUTBYTES 8\n#define CRYPTO_INPUTBYTES 8\n#define CRYPTO_KEYBYTES 0\n#define CRYPTO_CONSTBYTES 0\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("toy.c"),
        "#include \"api.h\"\nint crypto_core(unsigned char *out, const unsigned char *in, \
         const unsigned char *k, const unsigned char *c) {\n(void)k; (void)c;\n\
         for (int i = 0; i < CRYPTO_OUTPUTBYTES; i++) out[i] = in[i] ^ 0x5a;\nreturn 0;\n}\n",
    )
    .unwrap();
    let manifest = |file: &str| {
        let m = dir.join("manifest.toml");
        std::fs::write(
            &m,
            format!(
                "name = \"toyperm\"\nsources = [\"toy.c\"]\ntargets = [\"native\"]\n\
                 [[implementation]]\nvariant = \"v\"\nalgorithm = \"toy-perm\"\nkind = \"core\"\n\
                 vectors_file = \"{file}\"\n"
            ),
        )
        .unwrap();
        m.to_str().unwrap().to_string()
    };
    let vectors = |output: &str| {
        format!(
            "[[vector]]\ninput = \"0001020304050607\"\noutput = \"{output}\"\nsource = \"by hand\"\n"
        )
    };
    std::fs::write(dir.join("right.toml"), vectors("5a5b58595e5f5c5d")).unwrap();
    std::fs::write(dir.join("wrong.toml"), vectors("5a5b58595e5f5c00")).unwrap();
    std::fs::write(dir.join("junk.toml"), "vector = 3\n").unwrap();

    let out = run(&env, &manifest("right.toml"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["results"][0]["verified"], true, "{r}");

    let out = run(&env, &manifest("wrong.toml"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("wrong output"), "{err}");

    assert_bad_input(&run(&env, &manifest("gone.toml")), "`vectors_file`");
    assert_bad_input(&run(&env, &manifest("/dev/null")), "is not a file");
    assert_bad_input(&run(&env, &manifest("junk.toml")), "junk.toml");

    // A bad vector among several is named by its file and the line its table starts on;
    // a wrong answer without a `source`, by the same.
    let second = |output: &str| {
        format!(
            "{}\n[[vector]]\ninput = \"0001020304050607\"\noutput = \"{output}\"\n",
            vectors("5a5b58595e5f5c5d")
        )
    };
    let at = |file: &str| format!("{}:6", dir.join(file).display());
    std::fs::write(dir.join("hex.toml"), second("5a5b58595e5f5c5g")).unwrap();
    assert_bad_input(
        &run(&env, &manifest("hex.toml")),
        &format!(
            "{}: [[vector]] of implementation `v`: `output` is not hex",
            at("hex.toml")
        ),
    );
    std::fs::write(dir.join("short.toml"), second("5a5b")).unwrap();
    assert_bad_input(
        &run(&env, &manifest("short.toml")),
        &format!(
            "[[vector]] at {}: `output` has 2 bytes, `api.h` gives CRYPTO_OUTPUTBYTES = 8",
            at("short.toml")
        ),
    );
    std::fs::write(dir.join("unsourced.toml"), second("5a5b58595e5f5c00")).unwrap();
    let out = run(&env, &manifest("unsourced.toml"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "wrong output: {}: output differs at byte 7",
            at("unsourced.toml")
        )),
        "{err}"
    );
}

/// `crypto_hash` in assembly, for x86-64 and AArch64: a jump to `swapped_hash`, whose
/// prototype the compiler cannot hold to the API's.
const JUMP_S: &str = r#"#if defined(__x86_64__)
    .text
    .globl crypto_hash
    .type crypto_hash, @function
crypto_hash:
    jmp swapped_hash@PLT
#elif defined(__aarch64__)
    .text
    .globl crypto_hash
    .type crypto_hash, %function
crypto_hash:
    b swapped_hash
#endif
    .section .note.GNU-stack,"",%progbits
"#;

/// A function whose prototype is not the API's (here `in` and `inlen` swapped), out of the
/// compiler's sight (behind assembly: in C it is refused when built), crashes in the
/// gate's first call: the failure names that call and where the prototypes are, not only
/// the signal.
#[test]
fn a_crash_in_the_gate_names_the_call_it_died_in() {
    let env = Env::new();
    let swapped = r#"#include "api.h"
int swapped_hash(unsigned char *out, unsigned long long inlen, const unsigned char *in) {
    for (unsigned long long j = 0; j < inlen; j++) out[j % CRYPTO_BYTES] += in[j];
    return 0;
}
"#;
    std::fs::write(env.path("jump.S"), JUMP_S).unwrap();
    let m = write(
        &env,
        swapped,
        "#define CRYPTO_BYTES 32\n",
        &TOY_MANIFEST.replace(r#"sources = ["toy.c"]"#, r#"sources = ["toy.c", "jump.S"]"#),
    );
    let out = env.cmd(&["check", &m]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("SIGSEGV")
            && said.contains(
                "died in crypto_hash(inlen = 0), called by the correctness gate (a prototype other than docs/c-api.md's, or memory written out of bounds)"
            ),
        "{said}"
    );
}

/// A call that does not return, behind assembly whose prototype the compiler could not
/// check (here a length swapped with a pointer, read as a count of about 2^46): the hang
/// names a prototype among what it points at, as it did before the causes were split by
/// signal. (In C the prototype is checked, and the hint says what is left:
/// cli.rs's `a_c_function_that_hangs_in_the_gate_is_named_with_its_call`.)
#[test]
fn a_hang_out_of_the_compilers_sight_points_at_a_prototype() {
    let env = Env::new();
    let swapped = r#"#include "api.h"
int swapped_hash(unsigned char *out, unsigned long long inlen, const unsigned char *in) {
    (void)in;
    for (int i = 0; i < CRYPTO_BYTES; i++) out[i] = 0;
    for (unsigned long long j = 0; j < inlen; j++) out[j % CRYPTO_BYTES] ^= (unsigned char)(j >> 3);
    return 0;
}
"#;
    std::fs::write(env.path("jump.S"), JUMP_S).unwrap();
    let m = write(
        &env,
        swapped,
        "#define CRYPTO_BYTES 32\n",
        &TOY_MANIFEST.replace(r#"sources = ["toy.c"]"#, r#"sources = ["toy.c", "jump.S"]"#),
    );
    let out = env.cmd(&["check", &m, "--timeout", "2"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("timed out after 2.0 s (hang?) in crypto_hash(inlen = ")
            && said.contains(
                "called by the correctness gate (a prototype other than docs/c-api.md's, whose length a loop reads as a huge count, or a loop that does not end at this length)"
            ),
        "{said}"
    );
}

/// A call that ends the worker with exit() leaves no signal: the note is written on the
/// way out, so the failure names the call and its length as a crash's does (it once said
/// only "exited with status 0 before replying").
#[test]
fn an_exit_in_the_gate_names_the_call_it_exited_in() {
    let env = Env::new();
    let exits = TOY_HASH.replace(
        "    return 0;\n}",
        "    if (inlen == 7) exit(0);\n    return 0;\n}",
    );
    let m = write(
        &env,
        &format!("#include <stdlib.h>\n{exits}"),
        "#define CRYPTO_BYTES 32\n",
        TOY_MANIFEST,
    );
    let out = env.cmd(&["check", &m]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(
            "exited with status 0 before replying: cryptobench: exited in crypto_hash(inlen = 7), called by the correctness gate (the implementation called exit())"
        ),
        "{said}"
    );
}

/// A manifest vector for an algorithm cryptobench knows, whose output is wrong (a typo),
/// is said to be wrong before any build is blamed for it: every build once failed it.
#[test]
fn a_wrong_vector_for_a_known_algorithm_is_said_to_be_the_vectors_fault() {
    let env = Env::new();
    let manifest = TOY_MANIFEST.replace("toy-hash", "sha-256")
        + "vectors = [{ input = \"616263\", output = \"ca7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\", source = \"my typo\" }]\n";
    let m = write(&env, TOY_HASH, "#define CRYPTO_BYTES 32\n", &manifest);
    assert_bad_input(
        &env.cmd(&["check", &m]),
        "`o2` (sha-256): `vectors[0]` (my typo): its `output` is not sha-256's: cryptobench's reference gives ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad for its fields; correct the vector",
    );
}

/// Errors the TOML reader cannot place (a build declared twice, an inline vector that is
/// not hex) name the line, as its own errors do.
#[test]
fn a_duplicate_build_and_a_bad_inline_vector_are_named_by_line() {
    let env = Env::new();
    let twice = format!(
        "{TOY_MANIFEST}\n{}",
        &TOY_MANIFEST[TOY_MANIFEST.find("[[").unwrap()..]
    );
    let m = write(&env, TOY_HASH, "#define CRYPTO_BYTES 32\n", &twice);
    assert_bad_input(
        &env.cmd(&["check", &m]),
        "manifest.toml: line 11: implementation `o2` of `toy-hash` is declared twice (first at line 5)",
    );
    let odd = format!("{TOY_MANIFEST}vectors = [{{ input = \"61626\", output = \"00\" }}]\n");
    let m = write(&env, TOY_HASH, "#define CRYPTO_BYTES 32\n", &odd);
    assert_bad_input(
        &env.cmd(&["check", &m]),
        "manifest.toml: line 10: implementation `o2`: `vectors[0]`: `input` has an odd number of hex digits (5)",
    );
}

/// `list` of a manifest narrowed by filters suggests `check` and `run` of what it listed,
/// filters and all: it once named the bare manifest, which checks every build of it.
#[test]
fn list_suggests_commands_for_what_it_listed() {
    let env = Env::new();
    let m = write(&env, TOY_HASH, "#define CRYPTO_BYTES 32\n", TOY_MANIFEST);
    let named = format!("{m}:variant=o2");
    let out = env.cmd(&["list", &named]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "`cryptobench check {named}` builds and checks them without timing; `cryptobench run {named}` measures them."
        )),
        "{said}"
    );
}

/// A toy stream cipher: each byte XORed with the key's and the nonce's, cyclically.
const TOY_STREAM: &str = r#"#include "api.h"
int crypto_stream_xor(unsigned char *c, const unsigned char *m, unsigned long long mlen,
                      const unsigned char *n, const unsigned char *k) {
    for (unsigned long long i = 0; i < mlen; i++)
        c[i] = m[i] ^ k[i % CRYPTO_KEYBYTES] ^ n[i % CRYPTO_NONCEBYTES];
    return 0;
}
"#;

/// A toy XOF: byte j of the output is the sum of the message's bytes plus j.
const TOY_XOF: &str = r#"#include "api.h"
int crypto_xof(unsigned char *out, unsigned long long outlen, const unsigned char *in,
               unsigned long long inlen) {
    unsigned char s = 0;
    for (unsigned long long i = 0; i < inlen; i++) s += in[i];
    for (unsigned long long j = 0; j < outlen; j++) out[j] = (unsigned char)(s + j);
    return 0;
}
"#;

/// A hash, stream cipher or XOF of the author's own, which the gate has no reference
/// for, is checked against the manifest's known answers as a `core` is: called verified
/// when they hold (not "checked in part"), wrong output naming the vector's source when
/// one does not.
#[test]
fn hash_stream_and_xof_builds_are_checked_against_the_manifests_vectors() {
    for (kind, source, api, right, wrong) in [
        (
            "hash",
            TOY_HASH,
            "#define CRYPTO_BYTES 4\n",
            r#"{ input = "616263", output = "61636503", source = "by hand" }"#,
            r#"{ input = "616263", output = "61636603", source = "by hand" }"#,
        ),
        (
            "stream",
            TOY_STREAM,
            "#define CRYPTO_KEYBYTES 1\n#define CRYPTO_NONCEBYTES 1\n",
            r#"{ input = "000102", key = "aa", nonce = "55", output = "fffefd", source = "by hand" }"#,
            r#"{ input = "000102", key = "aa", nonce = "55", output = "fffefc", source = "by hand" }"#,
        ),
        (
            "xof",
            TOY_XOF,
            "",
            r#"{ input = "0102", output = "030405", source = "by hand" }"#,
            r#"{ input = "0102", output = "030406", source = "by hand" }"#,
        ),
    ] {
        let env = Env::new();
        let manifest = |vector: &str| {
            format!(
                "name = \"toys\"\nsources = [\"toy.c\"]\ntargets = [\"native\"]\n\n\
                 [[implementation]]\nvariant = \"o2\"\nalgorithm = \"toy-{kind}\"\nkind = \"{kind}\"\n\
                 vectors = [{vector}]\n"
            )
        };
        let m = write(&env, source, api, &manifest(right));
        let r = only_result(&run(&env, &m));
        assert_eq!(r["verified"], true, "{kind}: {r}");
        assert_eq!(r["status"], "ok", "{kind}: {r}");

        let m = write(&env, source, api, &manifest(wrong));
        let out = run(&env, &m);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{kind}: {err}");
        let run: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let message = run["results"][0]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("by hand: output differs at byte 2"),
            "{kind}: {run}"
        );
    }
}

/// Known answers belong to the algorithm: given on one variant, every variant of that
/// algorithm is checked against them itself, so all are verified, or all refused when the
/// answers do not hold (agreeing with a refused variant once passed as "checked in part").
#[test]
fn vectors_given_on_one_variant_check_every_variant_of_the_algorithm() {
    for (output, verified) in [("61636503", true), ("61636603", false)] {
        let env = Env::new();
        let manifest = format!(
            "name = \"toys\"\nsources = [\"toy.c\"]\ntargets = [\"native\"]\n\n\
             [[implementation]]\nvariant = \"o1\"\nalgorithm = \"toy-hash\"\nkind = \"hash\"\n\
             flags = [\"-O1\"]\nvectors = [{{ input = \"616263\", output = \"{output}\" }}]\n\n\
             [[implementation]]\nvariant = \"o2\"\nalgorithm = \"toy-hash\"\nkind = \"hash\"\n\
             flags = [\"-O2\"]\n"
        );
        let m = write(&env, TOY_HASH, "#define CRYPTO_BYTES 4\n", &manifest);
        let listed = env.run_ok(&["list", &m]);
        assert_eq!(listed.matches("1 manifest vector ").count(), 2, "{listed}");
        let out = env.cmd(&["check", &m]);
        let said = String::from_utf8_lossy(&out.stdout);
        for variant in ["o1", "o2"] {
            let line = said
                .lines()
                .find(|l| l.contains(&format!("toys/toy-hash/{variant}@native")))
                .unwrap_or_else(|| panic!("no {variant} in {said}"));
            if verified {
                assert!(
                    line.contains("verified") && !line.contains("checked in part"),
                    "{said}"
                );
            } else {
                assert!(
                    line.contains("WRONG OUTPUT") && line.contains("manifest vector"),
                    "{said}"
                );
            }
        }
        assert_eq!(
            out.status.code(),
            Some(if verified { 0 } else { 1 }),
            "{said}"
        );
    }
}

/// An AEAD's known answers are its `kat` file, and belong to the algorithm as `vectors`
/// do: given on one variant, the file checks every variant of that algorithm, so both are
/// verified, or both refused when the file does not hold. The second was once only
/// "checked in part", against the first.
#[test]
fn a_kat_file_given_on_one_variant_checks_every_variant_of_the_algorithm() {
    let kat = include_str!("c/aead/toy_aead_kat.txt");
    let ct = kat.find("CT = ").expect("a CT") + "CT = ".len();
    let flipped = if &kat[ct..ct + 1] == "0" { "1" } else { "0" };
    let corrupt = format!("{}{flipped}{}", &kat[..ct], &kat[ct + 1..]);
    for (file, verified) in [(kat.to_string(), true), (corrupt, false)] {
        let env = Env::new();
        std::fs::write(env.path("api.h"), include_str!("c/aead/api.h")).unwrap();
        std::fs::write(env.path("toy_aead.c"), include_str!("c/aead/toy_aead.c")).unwrap();
        std::fs::write(env.path("toy_aead_kat.txt"), file).unwrap();
        let manifest = "name = \"toys\"\nsources = [\"toy_aead.c\"]\ntargets = [\"native\"]\n\n\
             [[implementation]]\nvariant = \"o1\"\nalgorithm = \"toy-aead\"\nkind = \"aead\"\n\
             flags = [\"-O1\"]\nkat = \"toy_aead_kat.txt\"\n\n\
             [[implementation]]\nvariant = \"o2\"\nalgorithm = \"toy-aead\"\nkind = \"aead\"\n\
             flags = [\"-O2\"]\n";
        std::fs::write(env.path("manifest.toml"), manifest).unwrap();
        let m = env.path("manifest.toml").to_str().unwrap().to_string();
        let listed = env.run_ok(&["list", &m]);
        assert_eq!(
            listed.matches("KAT file toy_aead_kat.txt").count(),
            2,
            "{listed}"
        );
        let out = env.cmd(&["check", &m]);
        let said = String::from_utf8_lossy(&out.stdout);
        for variant in ["o1", "o2"] {
            let line = said
                .lines()
                .find(|l| l.contains(&format!("toys/toy-aead/{variant}@native")))
                .unwrap_or_else(|| panic!("no {variant} in {said}"));
            if verified {
                assert!(
                    line.contains("verified") && !line.contains("checked in part"),
                    "{said}"
                );
            } else {
                assert!(
                    line.contains("WRONG OUTPUT")
                        && line.contains("toy_aead_kat.txt line 1, Count = 1 (encrypt)"),
                    "{said}"
                );
            }
        }
        assert_eq!(
            out.status.code(),
            Some(if verified { 0 } else { 1 }),
            "{said}"
        );
    }
}

/// Vectors are refused, naming the vector and the field, where the kind takes no such
/// field, where they cannot be what the kind's functions give, and for the kinds whose
/// answers come another way.
#[test]
fn a_vector_that_does_not_fit_its_kind_is_refused_naming_it() {
    for (kind, api, vector, expect) in [
        (
            "hash",
            "#define CRYPTO_BYTES 4\n",
            r#"{ input = "00", key = "aa", output = "00000000" }"#,
            "`vectors[0]`: a hash vector has no `key` (its fields: input, output)",
        ),
        (
            "hash",
            "#define CRYPTO_BYTES 4\n",
            r#"{ input = "00", output = "0000" }"#,
            "`o2` (toy) for target `native`: `vectors[0]`: `output` has 2 bytes, `api.h` gives CRYPTO_BYTES = 4",
        ),
        (
            "stream",
            "#define CRYPTO_KEYBYTES 1\n#define CRYPTO_NONCEBYTES 1\n",
            r#"{ input = "0001", key = "aa", nonce = "55", output = "ff" }"#,
            "`vectors[0]`: `output` has 1 bytes, `input` 2: a stream cipher's output is as long as its message",
        ),
        (
            "xof",
            "",
            r#"{ input = "0g", output = "00" }"#,
            "`vectors[0]`: `input` is not hex: `0g`",
        ),
        (
            "xof",
            "",
            r#"{ input = "61626", output = "00" }"#,
            "`vectors[0]`: `input` has an odd number of hex digits (5): `61626`; each byte is two",
        ),
        (
            "aead",
            "#define CRYPTO_KEYBYTES 16\n#define CRYPTO_NPUBBYTES 16\n#define CRYPTO_ABYTES 16\n",
            r#"{ input = "00", output = "00" }"#,
            "`vectors[0]`: an aead's known answers are a `kat` file",
        ),
    ] {
        let env = Env::new();
        let manifest = format!(
            "name = \"toys\"\nsources = [\"toy.c\"]\ntargets = [\"native\"]\n\n\
             [[implementation]]\nvariant = \"o2\"\nalgorithm = \"toy\"\nkind = \"{kind}\"\n\
             vectors = [{vector}]\n"
        );
        let m = write(&env, TOY_HASH, api, &manifest);
        assert_bad_input(&run(&env, &m), expect);
    }
}

/// Builds run several at a time; what the user is told must not depend on which finished
/// first. Of two variants that do not compile, the first in the manifest's order is the
/// one named, and builds that all succeed leave one shared object each in the cache and
/// nothing written aside.
#[test]
fn builds_made_at_once_report_the_first_failure_in_the_manifests_order() {
    let env = Env::new();
    let source = format!("#ifdef BROKEN\n#error this variant does not build\n#endif\n{TOY_HASH}");
    let variants = |broken: &[usize]| {
        (0..8)
            .map(|i| {
                let flags = if broken.contains(&i) {
                    format!("[\"-DV={i}\", \"-DBROKEN\"]")
                } else {
                    format!("[\"-DV={i}\"]")
                };
                format!(
                    "[[implementation]]\nvariant = \"v{i}\"\nalgorithm = \"toy-hash\"\n\
                     kind = \"hash\"\nflags = {flags}\n"
                )
            })
            .collect::<String>()
    };
    let head = "name = \"many\"\nsources = [\"toy.c\"]\ntargets = [\"native\"]\n";
    let m = write(
        &env,
        &source,
        "#define CRYPTO_BYTES 8\n",
        &format!("{head}{}", variants(&[2, 6])),
    );
    let out = env.cmd(&["check", &m]);
    assert_refused(
        &out,
        "manifest.toml: compiling `v2` (toy-hash) for target `native` failed; the compiler said:",
    );
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("`v6`"),
        "only the first failure is named"
    );

    // A fresh cache: the manifest is part of every build's key, so the builds above
    // would stay beside these.
    std::fs::remove_dir_all(env.dir.path().join("build-cache")).unwrap();
    let m = write(
        &env,
        &source,
        "#define CRYPTO_BYTES 8\n",
        &format!("{head}{}", variants(&[])),
    );
    let out = env.cmd(&["check", &m]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cache: Vec<String> = std::fs::read_dir(env.dir.path().join("build-cache"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for i in 0..8 {
        let prefix = format!("many-v{i}-native-");
        let built = cache
            .iter()
            .filter(|f| f.starts_with(&prefix) && f.ends_with(".so"));
        assert_eq!(built.count(), 1, "v{i} in {cache:?}");
    }
    assert!(!cache.iter().any(|f| f.ends_with(".tmp")), "{cache:?}");
}

/// A manifest saved under another extension is read as a filter (`.toml` is what makes an
/// argument a manifest): the refusal says that the file is there and what its name lacks.
#[test]
fn a_manifest_without_the_toml_extension_is_said_to_be_a_file() {
    let env = Env::new();
    let m = write(&env, "", "#define CRYPTO_BYTES 4\n", TOY_MANIFEST);
    let renamed = m.replace("manifest.toml", "toys.manifest");
    std::fs::rename(&m, &renamed).unwrap();
    let hint = "is a file: a manifest is read only from a name that ends in `.toml`";
    for command in ["run", "check", "list"] {
        assert_bad_input(&env.cmd(&[command, &renamed]), hint);
    }
    // A filter that is no file is not given the hint.
    let out = env.cmd(&["check", "no-such-thing"]);
    assert_bad_input(&out, "matches no experiment");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("is a file"));
}

/// A target the compiler does not know (gcc 12 and `znver4`) is one line naming the
/// compiler and the remedy, not three screens of the names it knows; where the compiler
/// knows it, the build is checked like any other.
#[test]
fn a_target_the_compiler_does_not_know_is_one_line() {
    let env = Env::new();
    let sha = include_str!("c/faulty/faulty.c");
    let manifest = TOY_MANIFEST
        .replace("[\"native\"]", "[\"znver4\"]")
        .replace("toy-hash", "sha-256");
    let m = write(&env, sha, "#define CRYPTO_BYTES 32\n", &manifest);
    let out = env.cmd(&["check", &m]);
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("does not know") {
        assert_bad_input(
            &out,
            "for target `znver4` failed: the compiler `cc` does not know `-march=znver4`",
        );
    } else {
        // gcc 13 or later: built; run here only where this CPU has what it needs.
        assert!(!err.contains("the compiler said"), "{err}");
    }
}

/// A build named after an algorithm with known answers, whose api.h sizes are not that
/// algorithm's (ChaCha20 with a 16-byte nonce, SHA-256 with a 64-byte digest), is a
/// misnamed build: refused when built, naming the size and the remedy, rather than
/// measured under the name unchecked (or failing the reference, for a hash). With
/// --keep-going, that build alone fails.
#[test]
fn a_known_name_at_other_sizes_is_refused_naming_the_size() {
    let env = Env::new();
    let manifest = "name = \"toys\"\nsources = [\"toy.c\"]\ntargets = [\"native\"]\n\n\
         [[implementation]]\nvariant = \"o2\"\nalgorithm = \"chacha20\"\nkind = \"stream\"\n";
    let m = write(
        &env,
        TOY_STREAM,
        "#define CRYPTO_KEYBYTES 32\n#define CRYPTO_NONCEBYTES 16\n",
        manifest,
    );
    assert_bad_input(
        &env.cmd(&["check", &m]),
        "`o2` (chacha20) for target `native`: `chacha20` has CRYPTO_NONCEBYTES = 12 (or, in its \
         other form, CRYPTO_NONCEBYTES = 8); this build's `api.h` says 16: name the algorithm \
         otherwise if the build is not chacha20, else correct `api.h`",
    );
    let m = write(
        &env,
        TOY_HASH,
        "#define CRYPTO_BYTES 64\n",
        &TOY_MANIFEST.replace("toy-hash", "sha-256"),
    );
    let said = "`sha-256` has CRYPTO_BYTES = 32; this build's `api.h` says 64: name the algorithm otherwise";
    assert_bad_input(&env.cmd(&["check", &m]), said);
    let out = env.cmd(&["check", &m, "--keep-going"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!("refused for target `native`: {said}")),
        "{stdout}"
    );
}

/// Two slips a C author makes on the way in: naming the manifest's directory rather than
/// the manifest, and a `kat` file that is not where the manifest says (which `check`
/// notes and goes on without: `list` said it would check against it).
#[test]
fn a_manifests_directory_and_a_missing_kat_file_are_said_where_they_are_given() {
    let env = Env::new();
    std::fs::create_dir(env.path("toy")).unwrap();
    std::fs::write(env.path("toy/manifest.toml"), TOY_MANIFEST).unwrap();
    assert_bad_input(
        &env.cmd(&["check", "toy"]),
        "(`toy` is a directory: name its manifest, `toy/manifest.toml`)",
    );
    let aead = env.path("aead");
    std::fs::create_dir(&aead).unwrap();
    for f in ["api.h", "toy_aead.c"] {
        std::fs::copy(
            format!("{}/tests/c/aead/{f}", env!("CARGO_MANIFEST_DIR")),
            aead.join(f),
        )
        .unwrap();
    }
    std::fs::write(
        aead.join("manifest.toml"),
        "name = \"k\"\nsources = [\"toy_aead.c\"]\ntargets = [\"native\"]\n\n[[implementation]]\nvariant = \"o1\"\nalgorithm = \"toy-aead\"\nkind = \"aead\"\nkat = \"NOPE.txt\"\n",
    )
    .unwrap();
    let listed = env.run_ok(&["list", "aead/manifest.toml"]);
    assert!(
        listed.contains(
            "KAT file NOPE.txt (not found at `aead/NOPE.txt`: give its directory with --kat-dir)"
        ),
        "{listed}"
    );
}

/// A manifest is read whole: one named by a FIFO (or a device) would be read without end,
/// so it is refused before it is opened, as a `vectors_file` is.
#[test]
fn a_manifest_that_is_a_fifo_or_a_device_is_refused_at_once() {
    let env = Env::new();
    let fifo = env.path("fifo.toml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("run mkfifo");
    assert!(made.success(), "mkfifo {}", fifo.display());
    let fifo = fifo.to_str().unwrap();
    // Bounded, so that a regression fails rather than hangs (not a speed test).
    let limit = std::time::Duration::from_secs(60);
    for args in [vec!["list", fifo], vec!["check", fifo]] {
        let out = env.spawn_in_terminal(&args).wait_ended_within(limit);
        assert_bad_input(
            &out,
            &format!("manifest `{fifo}` is not a file (a directory, a FIFO or a device)"),
        );
    }
    // A device too: /dev/zero would fill the memory, never ending a line.
    let zero = env.path("zero.toml");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let zero = zero.to_str().unwrap();
    let out = env
        .spawn_in_terminal(&["list", zero])
        .wait_ended_within(limit);
    assert_bad_input(&out, &format!("manifest `{zero}` is not a file"));
}
