//! Compile targets (`-march` values) and whether this CPU can run their code.

use anyhow::{Result, bail};

/// A target a manifest may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The name manifests use, also the `-march` value (`native`: this CPU's own).
    pub name: &'static str,
    /// `/proc/cpuinfo` flags the target's code may use (beyond x86-64's baseline), in
    /// groups that targets share.
    pub features: &'static [&'static [&'static str]],
    /// The `-mcpu` llvm-mca models it with, where it makes sense.
    pub mca_cpu: Option<&'static str>,
}

const HASWELL: &[&str] = &[
    "sse2",
    "ssse3",
    "sse4_1",
    "sse4_2",
    "avx",
    "avx2",
    "bmi1",
    "bmi2",
    "fma",
    "pclmulqdq",
    "aes",
];
/// AVX-512 as Skylake-AVX512 has it (`x86-64-v4`).
const AVX512: &[&str] = &["avx512f", "avx512vl", "avx512bw", "avx512dq", "avx512cd"];
/// The AVX-512 extensions Ice Lake and Zen 4 add to it (VBMI2, VNNI, ...): a
/// Skylake-AVX512 lacks them, so code built for either must not be called runnable there.
const AVX512_ICELAKE: &[&str] = &[
    "avx512ifma",
    "avx512vbmi",
    "avx512_vbmi2",
    "avx512_vnni",
    "avx512_bitalg",
    "avx512_vpopcntdq",
];
/// Vector AES, carry-less multiplication and SHA (Ice Lake, Zen 3 and later).
const VECTOR_CRYPTO: &[&str] = &["vaes", "vpclmulqdq", "sha_ni"];
/// What Sapphire Rapids adds to Ice Lake (BF16, FP16, AMX, AVX-VNNI): a Zen 4 lacks FP16
/// and AMX, so such code is not called runnable there.
const SAPPHIRERAPIDS: &[&str] = &[
    "avx512_bf16",
    "avx512_fp16",
    "avx_vnni",
    "amx_tile",
    "amx_int8",
    "amx_bf16",
];

/// Every target a manifest may name.
pub const KNOWN: &[Target] = &[
    Target {
        name: "x86-64",
        features: &[&["sse2"]],
        mca_cpu: Some("x86-64"),
    },
    Target {
        name: "x86-64-v2",
        features: &[&["sse2", "ssse3", "sse4_1", "sse4_2", "popcnt"]],
        mca_cpu: Some("nehalem"),
    },
    Target {
        name: "x86-64-v3",
        features: &[HASWELL],
        mca_cpu: Some("haswell"),
    },
    Target {
        name: "x86-64-v4",
        features: &[HASWELL, AVX512],
        mca_cpu: Some("x86-64-v4"),
    },
    Target {
        name: "haswell",
        features: &[HASWELL],
        mca_cpu: Some("haswell"),
    },
    Target {
        name: "skylake",
        features: &[HASWELL],
        mca_cpu: Some("skylake"),
    },
    Target {
        name: "skylake-avx512",
        features: &[HASWELL, AVX512],
        mca_cpu: Some("skylake-avx512"),
    },
    Target {
        name: "icelake-server",
        features: &[HASWELL, AVX512, AVX512_ICELAKE, VECTOR_CRYPTO, &["gfni"]],
        mca_cpu: Some("icelake-server"),
    },
    Target {
        name: "sapphirerapids",
        features: &[
            HASWELL,
            AVX512,
            AVX512_ICELAKE,
            VECTOR_CRYPTO,
            &["gfni"],
            SAPPHIRERAPIDS,
        ],
        mca_cpu: Some("sapphirerapids"),
    },
    Target {
        name: "znver3",
        features: &[HASWELL, VECTOR_CRYPTO],
        mca_cpu: Some("znver3"),
    },
    // gcc 13 and clang 16 know it; gcc 12 refuses `-march=znver4` (the compiler's
    // message says so, and `compiler` in the manifest names another).
    Target {
        name: "znver4",
        features: &[
            HASWELL,
            VECTOR_CRYPTO,
            AVX512,
            AVX512_ICELAKE,
            &["gfni", "avx512_bf16"],
        ],
        mca_cpu: Some("znver4"),
    },
    Target {
        name: "native",
        features: &[],
        mca_cpu: None,
    },
];

/// The CPU features a variant may `require`, as /proc/cpuinfo names them (x86-64 and
/// AArch64): every known target's, and the others a `native` build may use. A fixed list,
/// so that a manifest is valid or not whatever machine reads it.
pub const KNOWN_FEATURES: &[&str] = &[
    // x86-64
    "abm",
    "adx",
    "aes",
    "amx_bf16",
    "amx_int8",
    "amx_tile",
    "avx",
    "avx2",
    "avx512_bf16",
    "avx512_bitalg",
    "avx512_fp16",
    "avx512_vbmi2",
    "avx512_vnni",
    "avx512_vp2intersect",
    "avx512_vpopcntdq",
    "avx512bw",
    "avx512cd",
    "avx512dq",
    "avx512f",
    "avx512ifma",
    "avx512vbmi",
    "avx512vl",
    "avx_vnni",
    "bmi1",
    "bmi2",
    "clflushopt",
    "clwb",
    "f16c",
    "fma",
    "fsrm",
    "gfni",
    "lzcnt",
    "movbe",
    "movdir64b",
    "movdiri",
    "pclmulqdq",
    "popcnt",
    "rdpid",
    "rdrand",
    "rdseed",
    "sha_ni",
    "sse",
    "sse2",
    "sse3",
    "sse4_1",
    "sse4_2",
    "sse4a",
    "ssse3",
    "vaes",
    "vpclmulqdq",
    "xsave",
    // AArch64
    "asimd",
    "asimddp",
    "asimdhp",
    "pmull",
    "sha1",
    "sha2",
    "sha3",
    "sha512",
    "sm3",
    "sm4",
    "sve",
    "sve2",
];

/// Whether `requires` may name `feature`: a known feature, or a flag this CPU reports
/// (`host`, which a `native` build may use; the fixed list should hold every flag worth
/// requiring, so that this second test rarely decides).
pub fn known_feature(feature: &str, host: &[String]) -> bool {
    KNOWN_FEATURES.contains(&feature) || host.iter().any(|h| h == feature)
}

/// The known target called `name`; an error listing the known ones where there is none.
pub fn find(name: &str) -> Result<Target> {
    match KNOWN.iter().find(|t| t.name == name) {
        Some(t) => Ok(*t),
        None => bail!(
            "unknown target `{name}`; known targets: {}",
            KNOWN.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The flags this CPU has, as /proc/cpuinfo names them.
pub fn host_flags() -> Vec<String> {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("flags"))
                .map(|l| l.split_whitespace().skip(2).map(str::to_string).collect())
        })
        .unwrap_or_default()
}

impl Target {
    /// Whether code built for this target can run on a CPU with `host` flags; the error
    /// names what is missing.
    pub fn runnable_on(&self, host: &[String]) -> Result<(), String> {
        if !cfg!(target_arch = "x86_64") && self.name != "native" {
            return Err(format!("`{}` is an x86-64 target", self.name));
        }
        let missing: Vec<&str> = self
            .features()
            .filter(|f| !host.iter().any(|h| h == f))
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "not supported on this CPU (target `{}` needs {})",
                self.name,
                missing.join(", ")
            ))
        }
    }

    /// Every feature the target's code may use, each once.
    pub fn features(&self) -> impl Iterator<Item = &'static str> {
        let mut seen: Vec<&'static str> = Vec::new();
        for f in self.features.iter().flat_map(|group| group.iter().copied()) {
            if !seen.contains(&f) {
                seen.push(f);
            }
        }
        seen.into_iter()
    }

    /// Whether a variant that needs `requires` can be built for this target at all.
    pub fn provides(&self, requires: &[String], host: &[String]) -> bool {
        let has = |f: &String| {
            if self.name == "native" {
                host.contains(f)
            } else {
                self.features().any(|t| t == f)
            }
        };
        requires.iter().all(has)
    }

    /// The compiler flag that builds for this target: `-march=NAME`.
    pub fn march_flag(&self) -> String {
        format!("-march={}", self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_know_what_they_need() {
        let host: Vec<String> = ["sse2", "avx2"].iter().map(|s| s.to_string()).collect();
        let avx512 = find("skylake-avx512").unwrap();
        let err = avx512.runnable_on(&host).unwrap_err();
        assert!(
            err.contains("not supported on this CPU") && err.contains("avx512f"),
            "{err}"
        );
        assert!(find("x86-64").unwrap().runnable_on(&host).is_ok());
        assert!(find("native").unwrap().runnable_on(&host).is_ok());
        assert!(!find("x86-64").unwrap().provides(&["avx2".into()], &host));
        assert!(find("haswell").unwrap().provides(&["avx2".into()], &host));
        assert!(find("native").unwrap().provides(&["avx2".into()], &host));
        assert!(!find("native").unwrap().provides(&["avx512f".into()], &host));
        for t in KNOWN {
            for f in t.features() {
                assert!(KNOWN_FEATURES.contains(&f), "{f} of {} is known", t.name);
            }
        }
        assert!(known_feature("avx512f", &[]));
        // As /proc/cpuinfo spells them, whatever this machine has.
        assert!(known_feature("avx512_vbmi2", &[]) && known_feature("avx512_vnni", &[]));
        assert!(!known_feature("avx512vbmi2", &[]));
        for f in crate::machine::CRYPTO_FLAGS {
            assert!(
                KNOWN_FEATURES.contains(f),
                "{f}, worth knowing, can be required"
            );
        }
        // Code for Ice Lake may use VBMI2 (a Skylake-AVX512 lacks it); code for Sapphire
        // Rapids FP16 and AMX (a Zen 4 lacks them), and code for Zen 4 runs on a Zen 4.
        let skylake_avx512: Vec<String> = find("skylake-avx512")
            .unwrap()
            .features()
            .map(String::from)
            .collect();
        let icelake = find("icelake-server").unwrap().runnable_on(&skylake_avx512);
        assert!(icelake.unwrap_err().contains("avx512_vbmi2"));
        let zen4: Vec<String> = find("znver4")
            .unwrap()
            .features()
            .map(String::from)
            .collect();
        let spr = find("sapphirerapids")
            .unwrap()
            .runnable_on(&zen4)
            .unwrap_err();
        assert!(
            spr.contains("avx512_fp16") && spr.contains("amx_tile"),
            "{spr}"
        );
        assert!(find("znver4").unwrap().runnable_on(&zen4).is_ok());
        assert!(find("x86-64-v4").unwrap().runnable_on(&zen4).is_ok());
        assert!(known_feature("avx9000", &["avx9000".into()]));
        assert!(!known_feature("avx9000", &host));
        assert!(
            find("pentium9")
                .unwrap_err()
                .to_string()
                .contains("unknown target `pentium9`")
        );
    }
}
