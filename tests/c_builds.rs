//! What a C build is made of and bound to: its own functions, never the same-named ones
//! of the process that loads it (cryptobench links OpenSSL, whose `SHA256` a build's
//! `SHA256` once silently became); the libraries its flags name; every function it calls
//! defined at build time; the functions its kind needs exported; sizes within reason.

mod common;

use std::process::Command;

use common::{Env, assert_bad_input, assert_refused};

/// A hash whose digest is `SHA256()`'s: the function of that name that wins decides it.
const CALLS_SHA256: &str = r#"#include <stddef.h>
#include "api.h"
unsigned char *SHA256(const unsigned char *d, size_t n, unsigned char *md);
int crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long inlen) {
    SHA256(in, (size_t)inlen, out);
    return 0;
}
"#;

/// A `SHA256` with OpenSSL's prototype and a wrong digest: were OpenSSL's taken instead,
/// the build would pass as SHA-256.
const WRONG_SHA256: &str = r#"#include <stddef.h>
#include <string.h>
unsigned char *SHA256(const unsigned char *d, size_t n, unsigned char *md) {
    memset(md, 0x42, 32);
    return md;
}
"#;

fn manifest(sources: &str, flags: &str) -> String {
    format!(
        r#"name = "bound"
sources = [{sources}]
targets = ["native"]

[[implementation]]
variant = "o2"
algorithm = "sha-256"
kind = "hash"
flags = ["-O2"{flags}]
"#
    )
}

/// `api.h` for a 32-byte hash and `files` in the scratch directory; the manifest's path.
fn write(env: &Env, files: &[(&str, &str)], manifest: &str) -> String {
    std::fs::write(env.path("api.h"), "#define CRYPTO_BYTES 32\n").unwrap();
    for (name, text) in files {
        std::fs::write(env.path(name), text).unwrap();
    }
    std::fs::write(env.path("manifest.toml"), manifest).unwrap();
    env.path("manifest.toml").to_str().unwrap().to_string()
}

/// `check` of a build of a new algorithm, with nothing to check it against: built, run
/// and passed, checked in part.
fn assert_checked_in_part(env: &Env, m: &str) {
    let out = env.cmd(&["check", m]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("checked in part"), "{said}");
}

/// `check` of a build whose own `SHA256` is wrong: refused for its own digest.
fn assert_own_sha256_checked(env: &Env, m: &str) {
    let out = env.cmd(&["check", m]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("WRONG OUTPUT"), "{said}");
    assert!(said.contains("got 4242424242424242"), "{said}");
}

#[test]
fn a_build_runs_its_own_function_not_the_same_named_one_of_cryptobench() {
    let env = Env::new();
    let own = format!(
        "{WRONG_SHA256}{}",
        CALLS_SHA256.replace("#include <stddef.h>\n", "")
    );
    let m = write(&env, &[("own.c", &own)], &manifest(r#""own.c""#, ""));
    assert_own_sha256_checked(&env, &m);
}

#[test]
fn a_library_named_in_flags_is_linked_and_its_functions_come_first() {
    let env = Env::new();
    let lib = env.path("lib");
    std::fs::create_dir(&lib).unwrap();
    std::fs::write(lib.join("mysha.c"), WRONG_SHA256).unwrap();
    let built = Command::new("cc")
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(lib.join("libmysha.so"))
        .arg(lib.join("mysha.c"))
        .status()
        .expect("cc runs");
    assert!(built.success());
    let lib = lib.display();
    let m = write(
        &env,
        &[("wrap.c", CALLS_SHA256)],
        // `-l` first: it must still be linked after the sources.
        &manifest(
            r#""wrap.c""#,
            &format!(r#", "-lmysha", "-L{lib}", "-Wl,-rpath,{lib}""#),
        ),
    );
    assert_own_sha256_checked(&env, &m);
}

#[test]
fn a_function_defined_nowhere_is_a_build_error_naming_it() {
    let env = Env::new();
    let m = write(
        &env,
        &[("wrap.c", CALLS_SHA256)],
        &manifest(r#""wrap.c""#, ""),
    );
    assert_refused(
        &env.cmd(&["check", &m]),
        "compiling `o2` (sha-256) for target `native` failed: `SHA256` is called but defined nowhere in the build: add the source that defines it to `sources`, or the library that has it to `flags`",
    );
    // With --keep-going, the build's case fails with that line alone.
    let out = env.cmd(&["check", &m, "--keep-going"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(
            "did not compile for target `native`: `SHA256` is called but defined nowhere"
        ),
        "{said}"
    );
}

#[test]
fn a_build_without_its_kinds_functions_is_refused_before_anything_runs() {
    let env = Env::new();
    let renamed = "#include \"api.h\"\nint crypto_hash_sha256(unsigned char *o, const unsigned char *i, unsigned long long n) { (void)i; (void)n; o[0] = 0; return 0; }\n";
    let m = write(&env, &[("h.c", renamed)], &manifest(r#""h.c""#, ""));
    assert_bad_input(
        &env.cmd(&["run", &m]),
        "`o2` (sha-256) for target `native`: the build does not export `crypto_hash`, which a `hash` build must (docs/c-api.md); it exports `crypto_hash_sha256`: if that is the function, name it `crypto_hash` (e.g. `-Dcrypto_hash_sha256=crypto_hash` in `flags`)",
    );
    // The build's fault, not the manifest's: with --keep-going, that build alone fails,
    // as one that does not compile.
    let out = env.cmd(&["check", &m, "--keep-going"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("refused for target `native`: the build does not export `crypto_hash`"),
        "{said}"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("(going on without it: --keep-going)"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The prototype docs/c-api.md gives `crypto_hash`, as a refusal quotes it.
const HASH_PROTOTYPE: &str =
    "int crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long inlen)";

/// A function declared otherwise than the C API declares it (a 32-bit length, a `const`
/// left out, `unsigned long` for `unsigned long long`, arguments swapped) once compiled,
/// and crashed or gave wrong output when called. Every source is now compiled with the
/// API's prototypes declared: the declaration at odds with them is refused in one line,
/// naming its file and line, with the prototype it must have.
#[test]
fn a_function_declared_otherwise_than_the_api_is_refused_naming_its_line() {
    let differs = |at: &str| {
        format!(
            "manifest.toml: `o2` (sha-256) for target `native`: {at}: the prototype of `crypto_hash` differs from docs/c-api.md's, `{HASH_PROTOTYPE}`, which cryptobench calls it by (the compiler: "
        )
    };
    let narrow = "#include \"api.h\"\n/* a 32-bit length */\nint crypto_hash(unsigned char *out, const unsigned char *in, unsigned int inlen) {\n    for (unsigned int j = 0; j < 32; j++) out[j] = j < inlen ? in[j] : 0;\n    return 0;\n}\n";
    let swapped = "#include \"api.h\"\nint crypto_hash(unsigned char *out, unsigned long long inlen, const unsigned char *in) {\n    for (unsigned long long j = 0; j < inlen; j++) out[j % 32] += in[j];\n    return 0;\n}\n";
    let plain = "#include \"api.h\"\nint crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long inlen) {\n    for (unsigned long long j = 0; j < 32; j++) out[j] = j < inlen ? in[j] : 0;\n    return 0;\n}\n";
    // Renamed by a flag, as docs/c-api.md suggests for SUPERCOP's names: checked as named.
    let renamed = "#include \"api.h\"\nint crypto_hash_blake2b(unsigned char *out, const unsigned char *in, unsigned long inlen) {\n    for (unsigned long j = 0; j < 32; j++) out[j] = j < inlen ? in[j] : 0;\n    return 0;\n}\n";
    for (source, api, flags, at) in [
        (narrow, "", "", "`h.c` line 3"),
        (swapped, "", "", "`h.c` line 2"),
        (
            plain,
            "int crypto_hash(unsigned char *out, unsigned char *in, unsigned long long inlen);\n",
            "",
            "`api.h` line 2",
        ),
        (
            renamed,
            "",
            r#", "-Dcrypto_hash_blake2b=crypto_hash""#,
            "`h.c` line 2",
        ),
    ] {
        let env = Env::new();
        let m = write(&env, &[("h.c", source)], &manifest(r#""h.c""#, flags));
        std::fs::write(env.path("api.h"), format!("#define CRYPTO_BYTES 32\n{api}")).unwrap();
        assert_bad_input(&env.cmd(&["check", &m]), &differs(at));
    }
    // The build's fault: with --keep-going it fails alone, with that line.
    let env = Env::new();
    let m = write(&env, &[("h.c", narrow)], &manifest(r#""h.c""#, ""));
    let out = env.cmd(&["check", &m, "--keep-going"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "did not compile for target `native`: `h.c` line 3: the prototype of `crypto_hash` differs from docs/c-api.md's, `{HASH_PROTOTYPE}`"
        )),
        "{said}"
    );
}

/// A build made with `-Wredundant-decls -Werror` whose header declares the API's function
/// as SUPERCOP's do compiled before the prototypes were declared for it, and then failed
/// on its own declaration, made redundant by cryptobench's. It builds; a declaration at
/// odds with the API is still refused under the same flags.
#[test]
fn a_build_made_with_redundant_decls_as_an_error_still_builds() {
    let supercop_h =
        "extern int crypto_hash(unsigned char *,const unsigned char *,unsigned long long);\n";
    let source = format!(
        "#include \"api.h\"\n#include \"crypto_hash.h\"\nint toy_zero(void);\nint toy_zero(void) {{ return 0; }}\n{TOY_HASH}"
    );
    let flags = r#", "-Wredundant-decls", "-Werror""#;
    let env = Env::new();
    let m = write(
        &env,
        &[("crypto_hash.h", supercop_h), ("h.c", &source)],
        &manifest(r#""h.c""#, flags).replace("sha-256", "toy-hash"),
    );
    assert_checked_in_part(&env, &m);
    let env = Env::new();
    let narrow = "extern int crypto_hash(unsigned char *,const unsigned char *,unsigned int);\n";
    let m = write(
        &env,
        &[("crypto_hash.h", narrow), ("h.c", &source)],
        &manifest(r#""h.c""#, flags).replace("sha-256", "toy-hash"),
    );
    assert_bad_input(
        &env.cmd(&["check", &m]),
        &format!(
            "`crypto_hash.h` line 1: the prototype of `crypto_hash` differs from docs/c-api.md's, `{HASH_PROTOTYPE}`"
        ),
    );
}

/// A length declared `uint64_t` (`unsigned long` on x86-64 Linux, not SUPERCOP's
/// `unsigned long long`) is refused saying what to write instead, not only that the types
/// conflict.
#[test]
fn a_uint64_t_length_is_refused_saying_to_declare_unsigned_long_long() {
    let wide = "#include <stdint.h>\n#include \"api.h\"\nint crypto_hash(unsigned char *out, const unsigned char *in,\n                uint64_t inlen) {\n    for (uint64_t j = 0; j < 32; j++) out[j] = j < inlen ? in[j] : 0;\n    return 0;\n}\n";
    let env = Env::new();
    let m = write(&env, &[("h.c", wide)], &manifest(r#""h.c""#, ""));
    let out = env.cmd(&["check", &m]);
    if out.status.code() == Some(0) {
        // Where uint64_t is `unsigned long long` (32-bit targets), there is nothing to refuse.
        println!("skipped: uint64_t is unsigned long long on this target");
        return;
    }
    assert_bad_input(
        &out,
        "`h.c` line 3: the prototype of `crypto_hash` differs from docs/c-api.md's",
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("declare the lengths `unsigned long long`, as SUPERCOP's API does; `uint64_t` is `unsigned long` here"),
        "{said}"
    );
}

/// The prototype checks read the compiler's words, and clang's are not gcc's: under
/// `compiler = "clang"` a conflicting declaration is refused naming its line, a `uint64_t`
/// length is told what to write, and a build made with `-Wredundant-decls -Werror` builds.
#[test]
fn clang_builds_are_held_to_the_prototypes_as_gcc_builds_are() {
    if Command::new("clang").arg("--version").output().is_err() {
        // scripts/setup.sh installs it; a machine set up otherwise may lack it.
        println!("skipped: no `clang` on PATH (scripts/setup.sh installs it)");
        return;
    }
    let with_clang = |flags: &str, algorithm: &str| {
        manifest(r#""h.c""#, flags)
            .replace("sha-256", algorithm)
            .replace(
                "targets = [\"native\"]",
                "targets = [\"native\"]\ncompiler = \"clang\"",
            )
    };
    let differs = |at: &str| {
        format!(
            "`o2` (sha-256) for target `native`: {at}: the prototype of `crypto_hash` differs from docs/c-api.md's, `{HASH_PROTOTYPE}`"
        )
    };
    let narrow = "#include \"api.h\"\n/* a 32-bit length */\nint crypto_hash(unsigned char *out, const unsigned char *in, unsigned int inlen) {\n    for (unsigned int j = 0; j < 32; j++) out[j] = j < inlen ? in[j] : 0;\n    return 0;\n}\n";
    let env = Env::new();
    let m = write(&env, &[("h.c", narrow)], &with_clang("", "sha-256"));
    assert!(
        std::fs::read_to_string(&m)
            .unwrap()
            .contains("compiler = \"clang\""),
        "the manifest names clang"
    );
    let out = env.cmd(&["check", &m]);
    assert_bad_input(&out, &differs("`h.c` line 3"));
    // gcc names the types it saw ("; have 'int(...)'"), clang does not: clang built it.
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("(the compiler: conflicting types for 'crypto_hash')"),
        "{said}"
    );

    let wide = "#include <stdint.h>\n#include \"api.h\"\nint crypto_hash(unsigned char *out, const unsigned char *in,\n                uint64_t inlen) {\n    for (uint64_t j = 0; j < 32; j++) out[j] = j < inlen ? in[j] : 0;\n    return 0;\n}\n";
    let env = Env::new();
    let m = write(&env, &[("h.c", wide)], &with_clang("", "sha-256"));
    let out = env.cmd(&["check", &m]);
    assert_bad_input(&out, &differs("`h.c` line 3"));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("declare the lengths `unsigned long long`, as SUPERCOP's API does; `uint64_t` is `unsigned long` here"),
        "{said}"
    );

    let supercop_h =
        "extern int crypto_hash(unsigned char *,const unsigned char *,unsigned long long);\n";
    let source = format!(
        "#include \"api.h\"\n#include \"crypto_hash.h\"\nint toy_zero(void);\nint toy_zero(void) {{ return 0; }}\n{TOY_HASH}"
    );
    let env = Env::new();
    let m = write(
        &env,
        &[("crypto_hash.h", supercop_h), ("h.c", &source)],
        &with_clang(r#", "-Wredundant-decls", "-Werror""#, "toy-hash"),
    );
    assert_checked_in_part(&env, &m);
}

/// A toy hash of 32 bytes (byte sums), no known algorithm: checked in part, and passed.
const TOY_HASH: &str = "int crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long inlen) {\n    for (int i = 0; i < 32; i++) out[i] = (unsigned char)(i + toy_zero());\n    for (unsigned long long j = 0; j < inlen; j++) out[j % 32] += in[j];\n    return 0;\n}\n";

/// `toy_zero`, returning 0, in assembly for x86-64 and AArch64: preprocessed (`.S`), so
/// the generated header is included in it too, and must say nothing there.
const ZERO_S: &str = "#if defined(__x86_64__)\n    .text\n    .globl toy_zero\n    .type toy_zero, @function\ntoy_zero:\n    xorl %eax, %eax\n    ret\n#elif defined(__aarch64__)\n    .text\n    .globl toy_zero\n    .type toy_zero, %function\ntoy_zero:\n    mov w0, #0\n    ret\n#endif\n    .section .note.GNU-stack,\"\",%progbits\n";

/// What the prototypes must not refuse: an `api.h` that declares them itself, in its own
/// words; SUPERCOP's names mapped in a header of the build's own (`#define crypto_hash
/// crypto_hash_toy_ref`, with `-Dcrypto_hash_toy_ref=crypto_hash` in `flags` to export the
/// plain name); an assembly source beside them.
#[test]
fn sources_that_declare_or_map_the_prototypes_themselves_still_build() {
    let env = Env::new();
    let supercop = "#ifndef crypto_hash_H\n#define crypto_hash_H\n#define crypto_hash crypto_hash_toy_ref\n\
                    extern int crypto_hash_toy_ref(unsigned char *, const unsigned char *, unsigned long long);\n#endif\n";
    let source =
        format!("#include \"api.h\"\n#include \"crypto_hash.h\"\nint toy_zero(void);\n{TOY_HASH}");
    let m = write(
        &env,
        &[
            ("crypto_hash.h", supercop),
            ("h.c", &source),
            ("zero.S", ZERO_S),
        ],
        &manifest(
            r#""h.c", "zero.S""#,
            r#", "-Dcrypto_hash_toy_ref=crypto_hash""#,
        )
        .replace("sha-256", "toy-hash"),
    );
    std::fs::write(
        env.path("api.h"),
        "#define CRYPTO_BYTES 32\n#include <stdint.h>\nint crypto_hash(uint8_t *digest, const uint8_t *message, unsigned long long int length);\n",
    )
    .unwrap();
    assert_checked_in_part(&env, &m);
}

/// C++ sources see the prototypes `extern "C"`: a definition with the API's prototype is
/// exported by its C name without `extern "C"` of its own (it was exported mangled, and
/// refused as missing), and one with another prototype is refused as a C source's is.
#[test]
fn a_cpp_source_is_held_to_the_prototypes_too() {
    let env = Env::new();
    let probe = env.path("probe.cpp");
    std::fs::write(&probe, "int main() { return 0; }\n").unwrap();
    let cpp = Command::new("cc")
        .args(["-fsyntax-only"])
        .arg(&probe)
        .status()
        .is_ok_and(|s| s.success());
    if !cpp {
        eprintln!("skipped: `cc` compiles no C++ here");
        return;
    }
    let source = format!("#include \"api.h\"\nstatic int toy_zero() {{ return 0; }}\n{TOY_HASH}");
    let m = write(
        &env,
        &[("h.cpp", &source)],
        &manifest(r#""h.cpp""#, "").replace("sha-256", "toy-hash"),
    );
    let out = env.cmd(&["check", &m]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let long = source.replace("unsigned long long inlen", "unsigned long inlen");
    std::fs::write(env.path("h.cpp"), format!("extern \"C\" {{\n{long}}}\n")).unwrap();
    assert_bad_input(
        &env.cmd(&["check", &m]),
        &format!(
            "manifest.toml: `o2` (toy-hash) for target `native`: `h.cpp` line 4: the prototype of `crypto_hash` differs from docs/c-api.md's, `{HASH_PROTOTYPE}`"
        ),
    );
}

#[test]
fn a_negative_or_absurd_size_in_api_h_is_refused_by_name() {
    let env = Env::new();
    let zero = "#include \"api.h\"\nint crypto_hash(unsigned char *o, const unsigned char *i, unsigned long long n) { (void)i; (void)n; o[0] = 0; return 0; }\n";
    let m = write(&env, &[("h.c", zero)], &manifest(r#""h.c""#, ""));
    for (define, said) in [
        (
            "-1",
            "`api.h` gives CRYPTO_BYTES = -1: no size of the C API is negative or above 64 MiB",
        ),
        (
            "4000000000",
            "`api.h` gives CRYPTO_BYTES = 4000000000: no size of the C API is negative or above 64 MiB",
        ),
    ] {
        std::fs::write(
            env.path("api.h"),
            format!("#define CRYPTO_BYTES {define}\n"),
        )
        .unwrap();
        assert_bad_input(&env.cmd(&["check", &m]), said);
    }
}

/// An AEAD that says its ciphertext is longer than the buffer it was given: the gate once
/// cut the buffer to that length, which kept it whole, and passed it.
#[test]
fn an_aead_that_claims_a_longer_ciphertext_than_it_wrote_is_wrong() {
    let env = Env::new();
    std::fs::write(env.path("api.h"), include_str!("c/aead/api.h")).unwrap();
    std::fs::write(env.path("toy_aead.c"), include_str!("c/aead/toy_aead.c")).unwrap();
    std::fs::write(
        env.path("manifest.toml"),
        r#"name = "long"
sources = ["toy_aead.c"]
targets = ["native"]

[[implementation]]
variant = "long-clen"
algorithm = "toy-aead"
kind = "aead"
flags = ["-O1", "-DFAULT_LONG_CLEN"]
"#,
    )
    .unwrap();
    let out = env.cmd(&["check", "manifest.toml"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("WRONG OUTPUT"), "{said}");
    assert!(
        said.contains("more than the message and its 16-byte tag (CRYPTO_ABYTES)"),
        "{said}"
    );
}

/// A hash of `CRYPTO_BYTES` bytes that writes every one of them.
const WIDE_HASH: &str = r#"#include "api.h"
int crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long inlen) {
    for (int i = 0; i < CRYPTO_BYTES; i++) out[i] = (unsigned char)i;
    for (unsigned long long j = 0; j < inlen; j++) out[j % CRYPTO_BYTES] ^= in[j];
    return 0;
}
"#;

/// The layout of NIST submissions: an `api.h` beside the manifest for one variant, and one
/// in a variant's own directory beside its source. The quoted include finds the source's
/// own; the sizes once came from the manifest's, and a 64-byte digest was written into a
/// 32-byte buffer (a heap corrupted, blamed on the prototypes).
#[test]
fn the_sizes_come_from_the_api_h_the_sources_include() {
    let env = Env::new();
    std::fs::create_dir(env.path("wide")).unwrap();
    std::fs::write(env.path("wide/api.h"), "#define CRYPTO_BYTES 64\n").unwrap();
    std::fs::write(env.path("wide/hash.c"), WIDE_HASH).unwrap();
    let m = write(
        &env,
        &[("narrow.c", WIDE_HASH)],
        r#"name = "layout"
targets = ["native"]

[[implementation]]
variant = "narrow"
algorithm = "toy-hash"
kind = "hash"
sources = ["narrow.c"]

[[implementation]]
variant = "wide"
algorithm = "wide-hash"
kind = "hash"
sources = ["wide/hash.c"]
sizes = { CRYPTO_BYTES = 64 }
"#,
    );
    let out = env.cmd(&["check", &m]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let wide = said
        .lines()
        .find(|l| l.contains("layout/wide-hash/wide@native"));
    assert!(
        wide.is_some_and(|l| l.contains("checked in part")),
        "{said}"
    );

    // Two sources of one build that read two api.h files: which sizes are the build's?
    std::fs::write(
        env.path("glue.c"),
        "#include \"api.h\"\nint glue(void) { return CRYPTO_BYTES; }\n",
    )
    .unwrap();
    std::fs::write(
        env.path("manifest.toml"),
        std::fs::read_to_string(&m).unwrap().replace(
            r#"sources = ["wide/hash.c"]"#,
            r#"sources = ["wide/hash.c", "glue.c"]"#,
        ),
    )
    .unwrap();
    let out = env.cmd(&["check", &m]);
    assert_bad_input(&out, "one build has one api.h (its sizes are the build's)");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("wide/api.h`") && err.contains("glue.c` reads `"),
        "{err}"
    );
}

/// A refusal of a build's `api.h` sizes names the `api.h` it read: a NIST tree has one per
/// variant (`ref/api.h`, `avx2/api.h`), and "api.h" alone did not say which. From the
/// manifest's directory where it lies there, else by its full path.
#[test]
fn a_refusal_of_api_h_sizes_names_the_api_h_it_read() {
    let env = Env::new();
    for dir in ["m/ref", "common"] {
        std::fs::create_dir_all(env.path(dir)).unwrap();
    }
    std::fs::write(env.path("m/ref/h.c"), WIDE_HASH).unwrap();
    let m = env.path("m/manifest.toml");
    let m = m.to_str().unwrap();
    let manifest = |algorithm: &str, more: &str| {
        format!(
            "name = \"paths\"\ntargets = [\"native\"]\n\n[[implementation]]\nvariant = \"ref\"\n\
             algorithm = \"{algorithm}\"\nkind = \"hash\"\n{more}"
        )
    };
    let own = r#"sources = ["ref/h.c"]"#;
    for (api_h, algorithm, more, said) in [
        (
            "m/ref/api.h",
            "toy-hash",
            format!("{own}\nsizes = {{ CRYPTO_BYTES = 32 }}\n"),
            "`ref/api.h` gives CRYPTO_BYTES = 64, the manifest says 32; make them agree",
        ),
        (
            "m/ref/api.h",
            "sha-256",
            format!("{own}\n"),
            "`sha-256` has CRYPTO_BYTES = 32; this build's `ref/api.h` says 64",
        ),
        (
            "m/ref/api.h",
            "toy-hash",
            format!("{own}\nvectors = [{{ input = \"\", output = \"00\", source = \"short\" }}]\n"),
            "`vectors[0]`: `output` has 1 byte, `ref/api.h` gives CRYPTO_BYTES = 64",
        ),
        // Found on the search path, outside the manifest's directory: its whole path.
        (
            "common/api.h",
            "sha-256",
            "sources = [\"ref/h.c\"]\ninclude_dirs = [\"../common\"]\n".to_string(),
            "this build's `",
        ),
    ] {
        let _ = std::fs::remove_file(env.path("m/ref/api.h"));
        std::fs::write(env.path(api_h), "#define CRYPTO_BYTES 64\n").unwrap();
        std::fs::write(m, manifest(algorithm, &more)).unwrap();
        assert_bad_input(&env.cmd(&["check", m]), said);
    }
    let full = std::fs::canonicalize(env.path("common/api.h")).unwrap();
    assert_bad_input(
        &env.cmd(&["check", m]),
        &format!("this build's `{}` says 64", full.display()),
    );
}

/// SUPERCOP's `try` guards every buffer; so does the gate: a byte written just past or
/// before the output passed as verified, and a few more corrupted the heap (a crash that
/// blamed something else).
#[test]
fn a_write_outside_the_output_is_wrong_output_naming_how_far() {
    let env = Env::new();
    let m = write(&env, &[("h.c", "")], &manifest(r#""h.c""#, ""));
    for (write, said) in [
        (
            "out[32] = 0x41;",
            "crypto_hash wrote 1 byte past the end of its 32-byte output",
        ),
        (
            "out[35] = 0x41;",
            "crypto_hash wrote 4 bytes past the end of its 32-byte output",
        ),
        (
            "out[-1] = 0;",
            "crypto_hash wrote 1 byte before the start of its 32-byte output",
        ),
    ] {
        std::fs::write(
            env.path("h.c"),
            format!(
                "#include \"api.h\"\nint crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long inlen) {{\n    for (int i = 0; i < CRYPTO_BYTES; i++) out[i] = (unsigned char)(i + inlen + (inlen ? in[0] : 0));\n    {write}\n    return 0;\n}}\n"
            ),
        )
        .unwrap();
        let out = env.cmd(&["check", &m]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        assert!(stdout.contains("WRONG OUTPUT"), "{stdout}");
        assert!(stdout.contains(said), "{write}: {stdout}");
    }
}

/// A function that writes to its `const` input: its second call on the "same" input read
/// the changed one, and the gate blamed output left unwritten. Each call is given a copy
/// of the input, compared after the call.
#[test]
fn a_function_that_writes_to_its_const_input_is_named_for_it() {
    let env = Env::new();
    let writes_input = "#include \"api.h\"\nint crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long inlen) {\n    for (int i = 0; i < CRYPTO_BYTES; i++) out[i] = (unsigned char)(i + inlen + (inlen ? in[0] : 0));\n    if (inlen) ((unsigned char *)in)[inlen - 1] ^= 0x55;\n    return 0;\n}\n";
    let m = write(&env, &[("h.c", writes_input)], &manifest(r#""h.c""#, ""));
    let out = env.cmd(&["check", &m]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "WRONG OUTPUT  sha-256 of 3 bytes (FIPS 180-4 example SHA-256 (one block, \"abc\")): crypto_hash modified its input (byte 2 of 3), which the C API passes `const`"
        ),
        "{stdout}"
    );
}

/// A KEM's key pair and ciphertext lie between guards too: one byte written past either
/// once passed (the gate checked them only by their fills).
#[test]
fn a_kem_that_writes_past_its_key_or_ciphertext_is_wrong() {
    let env = Env::new();
    for f in ["api.h", "toy.c"] {
        std::fs::copy(
            format!("{}/tests/c/asymmetric/{f}", env!("CARGO_MANIFEST_DIR")),
            env.path(f),
        )
        .unwrap();
    }
    std::fs::write(
        env.path("manifest.toml"),
        r#"name = "past"
sources = ["toy.c"]
targets = ["native"]

[[implementation]]
variant = "pk-past"
algorithm = "toy-kem-pk"
kind = "kem"
flags = ["-O1", "-DFAULT_PK_PAST"]

[[implementation]]
variant = "ct-past"
algorithm = "toy-kem-ct"
kind = "kem"
flags = ["-O1", "-DFAULT_CT_PAST"]
"#,
    )
    .unwrap();
    let out = env.cmd(&["check", "manifest.toml"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    for (variant, wrote) in [
        (
            "past/toy-kem-pk/pk-past@native",
            "crypto_kem_keypair wrote 1 byte past the end of its 1184-byte public key",
        ),
        (
            "past/toy-kem-ct/ct-past@native",
            "crypto_kem_enc wrote 1 byte past the end of its 1088-byte ciphertext",
        ),
    ] {
        let line = said.lines().find(|l| l.contains(variant));
        assert!(
            line.is_some_and(|l| l.contains("WRONG OUTPUT") && l.contains(wrote)),
            "{said}"
        );
    }
}

/// What the reader of a published table needs to rebuild it: each build's compiler (the
/// manifest's, not the host's `cc`), that compiler's version and the flags of the build,
/// in every format and kept with the run, whatever the manifest says later.
#[test]
fn a_report_names_each_builds_compiler_version_and_flags() {
    if Command::new("clang").arg("--version").output().is_err() {
        println!("skipped: no `clang` on PATH (scripts/setup.sh installs it)");
        return;
    }
    let sum = "#include \"api.h\"\nint crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long inlen) {\n    for (int i = 0; i < 32; i++) out[i] = (unsigned char)i;\n    for (unsigned long long j = 0; j < inlen; j++) out[j % 32] += in[j];\n    return 0;\n}\n";
    let env = Env::new();
    let m = write(
        &env,
        &[("h.c", sum)],
        &(manifest(r#""h.c""#, "")
            .replace("sha-256", "toy-hash")
            .replace(
                "targets = [\"native\"]",
                "targets = [\"native\"]\ncompiler = \"clang\"\nflags = [\"-fno-plt\"]",
            )
            + "\n[[implementation]]\nvariant = \"o3-unroll\"\nalgorithm = \"toy-hash\"\nkind = \"hash\"\nflags = [\"-O3\", \"-funroll-loops\"]\n"),
    );
    let clang = Command::new("clang").arg("--version").output().unwrap();
    let version = String::from_utf8_lossy(&clang.stdout)
        .lines()
        .next()
        .unwrap()
        .to_string();
    let quick = [
        "--sizes",
        "64",
        "--processes",
        "2",
        "--samples",
        "20",
        "--no-canary",
    ];
    let md = env.run_ok(&[&["run", &m, "--format", "md"][..], &quick].concat());
    assert!(md.contains("## C builds"), "{md}");
    for (build, flags) in [
        ("bound/toy-hash/o2@native", "-march=native -fno-plt -O2"),
        (
            "bound/toy-hash/o3-unroll@native",
            "-march=native -fno-plt -O3 -funroll-loops",
        ),
    ] {
        let (_, table) = md.split_once("## C builds").expect("a C builds table");
        let row = table
            .lines()
            .map(|l| l.split('|').map(str::trim).collect::<Vec<_>>())
            .find(|cells| cells.get(1) == Some(&build))
            .unwrap_or_else(|| panic!("no row of {build} in\n{md}"));
        assert_eq!(row[2..5], ["clang", version.as_str(), flags], "{md}");
    }
    // The host's `cc` built none of it, and is not said to have.
    assert!(
        md.contains("(the host's; the C builds' compilers are listed under C builds)"),
        "{md}"
    );

    // Kept with the run: the manifest edited, the stored run still says what built it.
    std::fs::write(
        &m,
        std::fs::read_to_string(&m).unwrap().replace("-O3", "-O1"),
    )
    .unwrap();
    let json = env.json(&["report", "latest", "--format", "json"]);
    let builds = json["options"]["run"]["c_builds"]
        .as_array()
        .expect("c_builds");
    assert_eq!(builds.len(), 2, "{builds:?}");
    assert_eq!(
        builds[1]["implementation"],
        "bound/toy-hash/o3-unroll@native"
    );
    assert_eq!(builds[1]["compiler"], "clang");
    assert_eq!(builds[1]["version"], version.as_str());
    assert_eq!(
        builds[1]["flags"],
        serde_json::json!(["-march=native", "-fno-plt", "-O3", "-funroll-loops"])
    );
    let html = env.run_ok(&["report", "latest", "--format", "html"]);
    assert!(
        html.contains("-march=native -fno-plt -O3 -funroll-loops"),
        "{html}"
    );
}

/// An llvm-mca estimate is of one function of a build, `crypto_scalarmult` of X25519's:
/// not of `base`, whose call is `crypto_scalarmult_base`, and, where that function only
/// calls the code that does the work (5 instructions here), of no operation at all. It is
/// named in the estimates table, and in JSON, with the operation whose call it is.
#[test]
fn an_estimate_is_of_the_function_it_read_and_not_of_every_operation() {
    let has_mca = ["llvm-mca-19", "llvm-mca"]
        .iter()
        .any(|p| Command::new(p).arg("--version").output().is_ok());
    if !has_mca {
        println!("skipped: no llvm-mca on PATH (scripts/setup.sh installs it)");
        return;
    }
    let env = Env::new();
    let manifest = format!(
        "{}/examples/c/x25519/manifest.toml:target=x86-64",
        env!("CARGO_MANIFEST_DIR")
    );
    let quick = [
        "--processes",
        "2",
        "--samples",
        "20",
        "--no-canary",
        "--estimate",
    ];
    let md = env.run_ok(&[&["run", &manifest, "--format", "md"][..], &quick].concat());
    let (matrices, estimates) = md
        .split_once("## Static estimates")
        .expect("an estimates table");
    assert!(matrices.contains("## c-x25519/x25519 base"), "{md}");
    assert!(!matrices.contains("(est."), "{md}");
    let row = estimates
        .lines()
        .map(|l| l.split('|').map(str::trim).collect::<Vec<_>>())
        .find(|cells| cells.get(1) == Some(&"c-x25519/x25519/o2@x86-64"))
        .unwrap_or_else(|| panic!("no estimate of o2 in\n{md}"));
    assert_eq!(row[2], "crypto_scalarmult (shared)", "{md}");
    assert!(row[5].starts_with("calls other functions"), "{md}");

    let json = env.json(&["report", "latest", "--format", "json"]);
    let e = &json["estimates"]["c-x25519/x25519/o2@x86-64"];
    assert_eq!(e["function"], "crypto_scalarmult", "{json}");
    assert_eq!(e["operation"], "shared", "{json}");
}
