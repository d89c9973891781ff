//! Built-in experiments: data saying what to measure and what to compare, never how.

use std::path::Path;

use anyhow::{Result, bail};

use crate::catalog::registry::Registry;
use crate::cimpl::BuildOptions;
pub use crate::plan::{
    DEFAULT_FILTER_SIZES, DEFAULT_XOF_OUT, Plan, add_members, distinct, filter_cases,
};
use crate::record::{AnalysisSpec, Case, Param, Params};

pub struct Experiment {
    pub name: &'static str,
    pub description: &'static str,
    /// Members with the parameters they are measured at, in table order.
    pub groups: &'static [Group],
    /// C implementations built from manifests shipped in the repository.
    pub manifests: &'static [ManifestGroup],
    pub ratios: &'static [(&'static str, &'static str)],
    pub comparisons: &'static [(&'static str, &'static str)],
    pub slope: Option<(u64, u64)>,
    pub algorithm_comparisons: &'static [(&'static str, &'static str)],
    pub variant_comparisons: &'static [(&'static str, &'static str)],
    pub lane_speedups: bool,
}

/// What most experiments leave empty, for `..BASE`.
const BASE: Experiment = Experiment {
    name: "",
    description: "",
    groups: &[],
    manifests: &[],
    ratios: &[],
    comparisons: &[],
    slope: None,
    algorithm_comparisons: &[],
    variant_comparisons: &[],
    lane_speedups: false,
};

/// Every build of a manifest, at these message lengths, for these operations (all if empty).
pub struct ManifestGroup {
    /// Relative to the repository root.
    pub path: &'static str,
    pub lens: &'static [u64],
    pub operations: &'static [&'static str],
}

impl ManifestGroup {
    /// The manifest in the source tree this binary was built from, or relative to the
    /// current directory.
    fn resolve(&self) -> Result<std::path::PathBuf> {
        let built = Path::new(env!("CARGO_MANIFEST_DIR")).join(self.path);
        if built.is_file() {
            return Ok(built);
        }
        let here = Path::new(self.path);
        if here.is_file() {
            return Ok(here.to_path_buf());
        }
        bail!(
            "this experiment needs `{}`: run it from a clone of the cryptobench repository",
            self.path
        )
    }
}

/// (implementation, operation) pairs measured over one parameter grid.
pub struct Group {
    pub members: &'static [(&'static str, &'static str)],
    pub params: ParamGrid,
}

/// The parameter sets of a group; `--sizes` replaces the `len` values of every grid that
/// has them.
#[derive(Clone, Copy, Debug)]
pub enum ParamGrid {
    /// Operations without parameters (kem, dh, core): one case each.
    None,
    /// Message lengths.
    Lens(&'static [u64]),
    /// (message length, output length) pairs, for extendable-output functions.
    LenOut(&'static [(u64, u64)]),
    /// Every message length with every length of associated data.
    LenAd {
        lens: &'static [u64],
        ads: &'static [u64],
    },
}

impl ParamGrid {
    /// The parameters of every set, as an operation declares them.
    pub fn names(&self) -> &'static [Param] {
        match self {
            ParamGrid::None => &[],
            ParamGrid::Lens(_) => &[Param::Len],
            ParamGrid::LenOut(_) => &[Param::Len, Param::Out],
            ParamGrid::LenAd { .. } => &[Param::Len, Param::Ad],
        }
    }

    pub fn expand(&self, sizes: Option<&[u64]>) -> Vec<Params> {
        let len = |l| Params::new().with(Param::Len, l);
        match *self {
            ParamGrid::None => vec![Params::new()],
            ParamGrid::Lens(lens) => sizes.unwrap_or(lens).iter().map(|&l| len(l)).collect(),
            ParamGrid::LenOut(pairs) => match sizes {
                None => pairs
                    .iter()
                    .map(|&(l, o)| len(l).with(Param::Out, o))
                    .collect(),
                // Every new length with every output length the grid had.
                Some(sizes) => {
                    let mut outs: Vec<u64> = Vec::new();
                    for &(_, o) in pairs {
                        if !outs.contains(&o) {
                            outs.push(o);
                        }
                    }
                    sizes
                        .iter()
                        .flat_map(|&l| outs.iter().map(move |&o| len(l).with(Param::Out, o)))
                        .collect()
                }
            },
            ParamGrid::LenAd { lens, ads } => sizes
                .unwrap_or(lens)
                .iter()
                .flat_map(|&l| ads.iter().map(move |&a| len(l).with(Param::Ad, a)))
                .collect(),
        }
    }
}

pub const DEFAULT: &str = "chacha20-rng";

/// The seed suite's members on every provider.
const SUITE_HASHES: &[(&str, &str)] = &[
    ("rustcrypto/sha-256", "hash"),
    ("ring/sha-256", "hash"),
    ("aws-lc-rs/sha-256", "hash"),
    ("openssl/sha-256", "hash"),
    ("rustcrypto/sha-512", "hash"),
    ("ring/sha-512", "hash"),
    ("aws-lc-rs/sha-512", "hash"),
    ("openssl/sha-512", "hash"),
];

const SUITE_STREAMS: &[(&str, &str)] =
    &[("rustcrypto/chacha20", "xor"), ("openssl/chacha20", "xor")];

const SUITE_XOFS: &[(&str, &str)] = &[
    ("rustcrypto/shake128", "xof"),
    ("openssl/shake128", "xof"),
    ("libcrux/shake128", "xof"),
    ("rustcrypto/shake256", "xof"),
    ("openssl/shake256", "xof"),
    ("libcrux/shake256", "xof"),
];

const SUITE_KEMS: &[(&str, &str)] = &[
    ("rustcrypto/ml-kem-768", "keypair"),
    ("rustcrypto/ml-kem-768", "keypair_derand"),
    ("rustcrypto/ml-kem-768", "encaps"),
    ("rustcrypto/ml-kem-768", "encaps_derand"),
    ("rustcrypto/ml-kem-768", "decaps"),
    ("aws-lc-rs/ml-kem-768", "keypair"),
    ("aws-lc-rs/ml-kem-768", "encaps"),
    ("aws-lc-rs/ml-kem-768", "decaps"),
];

const SUITE_DH: &[(&str, &str)] = &[
    ("dalek/x25519", "base"),
    ("dalek/x25519", "shared"),
    ("aws-lc-rs/x25519", "base"),
    ("aws-lc-rs/x25519", "shared"),
    ("openssl/x25519", "base"),
    ("openssl/x25519", "shared"),
];

const AEADS: &[(&str, &str)] = &[
    ("rustcrypto/aes-128-gcm", "encrypt"),
    ("rustcrypto/aes-128-gcm", "decrypt"),
    ("ring/aes-128-gcm", "encrypt"),
    ("ring/aes-128-gcm", "decrypt"),
    ("aws-lc-rs/aes-128-gcm", "encrypt"),
    ("aws-lc-rs/aes-128-gcm", "decrypt"),
    ("openssl/aes-128-gcm", "encrypt"),
    ("openssl/aes-128-gcm", "decrypt"),
    ("rustcrypto/aes-256-gcm", "encrypt"),
    ("rustcrypto/aes-256-gcm", "decrypt"),
    ("ring/aes-256-gcm", "encrypt"),
    ("ring/aes-256-gcm", "decrypt"),
    ("aws-lc-rs/aes-256-gcm", "encrypt"),
    ("aws-lc-rs/aes-256-gcm", "decrypt"),
    ("openssl/aes-256-gcm", "encrypt"),
    ("openssl/aes-256-gcm", "decrypt"),
    ("rustcrypto/chacha20-poly1305", "encrypt"),
    ("rustcrypto/chacha20-poly1305", "decrypt"),
    ("ring/chacha20-poly1305", "encrypt"),
    ("ring/chacha20-poly1305", "decrypt"),
    ("aws-lc-rs/chacha20-poly1305", "encrypt"),
    ("aws-lc-rs/chacha20-poly1305", "decrypt"),
    ("openssl/chacha20-poly1305", "encrypt"),
    ("openssl/chacha20-poly1305", "decrypt"),
];

pub const BUILTIN: &[Experiment] = &[
    Experiment {
        name: crate::record::RNG_EXPERIMENT,
        description: "ChaCha20 cipher vs the ChaCha20 RNGs of `chacha20` and `rand_chacha`, 1-16 KiB (seed: chacha20-rng-bench.md)",
        groups: &[Group {
            members: &[
                ("rustcrypto/chacha20", "xor"),
                ("rustcrypto/chacha20-rng", "fill_bytes"),
                ("rand_chacha/chacha20-rng", "fill_bytes"),
            ],
            params: ParamGrid::Lens(&[1024, 2048, 4096, 8192, 16384]),
        }],
        // The report titles these, and only these, the seed's "speed limit".
        ratios: crate::record::RNG_OVER_CIPHER,
        comparisons: &[("rand_chacha/chacha20-rng", "rustcrypto/chacha20-rng")],
        ..BASE
    },
    Experiment {
        name: "suite",
        description: "The Jasmin seed's suite on every provider: SHA-256/512, ChaCha20 and SHAKE128/256 at 64 B and 16 KiB (XOF output 32 B), ML-KEM-768, X25519 (seed: jasmin-mmx-experiment.md)",
        groups: &[
            Group {
                members: SUITE_HASHES,
                params: ParamGrid::Lens(&[64, 16384]),
            },
            Group {
                members: SUITE_STREAMS,
                params: ParamGrid::Lens(&[64, 16384]),
            },
            Group {
                members: SUITE_XOFS,
                params: ParamGrid::LenOut(&[(64, 32), (16384, 32)]),
            },
            Group {
                members: SUITE_KEMS,
                params: ParamGrid::None,
            },
            Group {
                members: SUITE_DH,
                params: ParamGrid::None,
            },
        ],
        ratios: &[],
        // RustCrypto against every other provider of the same algorithm, operation by
        // operation (a KEM's encaps against encaps): the seed's tables, across libraries.
        comparisons: &[
            ("rustcrypto/sha-256", "ring/sha-256"),
            ("rustcrypto/sha-256", "aws-lc-rs/sha-256"),
            ("rustcrypto/sha-256", "openssl/sha-256"),
            ("rustcrypto/sha-512", "ring/sha-512"),
            ("rustcrypto/sha-512", "aws-lc-rs/sha-512"),
            ("rustcrypto/sha-512", "openssl/sha-512"),
            ("rustcrypto/chacha20", "openssl/chacha20"),
            ("rustcrypto/shake128", "openssl/shake128"),
            ("rustcrypto/shake128", "libcrux/shake128"),
            ("rustcrypto/shake256", "openssl/shake256"),
            ("rustcrypto/shake256", "libcrux/shake256"),
            ("rustcrypto/ml-kem-768", "aws-lc-rs/ml-kem-768"),
            ("dalek/x25519", "aws-lc-rs/x25519"),
            ("dalek/x25519", "openssl/x25519"),
        ],
        ..BASE
    },
    Experiment {
        name: "aead",
        description: "AES-128-GCM, AES-256-GCM and ChaCha20-Poly1305 on every provider, encrypt and decrypt, 64 B to 16 KiB, with no associated data and with 13 bytes (a TLS record header)",
        groups: &[Group {
            members: AEADS,
            params: ParamGrid::LenAd {
                lens: &[64, 576, 1536, 16384],
                ads: &[0, 13],
            },
        }],
        ratios: &[],
        comparisons: &[],
        ..BASE
    },
    Experiment {
        name: "tour",
        description: "One case of every kind, RustCrypto against another library where there is one: a quick look",
        groups: &[
            Group {
                members: &[("rustcrypto/sha-256", "hash"), ("openssl/sha-256", "hash")],
                params: ParamGrid::Lens(&[4096]),
            },
            Group {
                members: &[("rustcrypto/shake128", "xof"), ("openssl/shake128", "xof")],
                params: ParamGrid::LenOut(&[(4096, 32)]),
            },
            Group {
                members: &[("rustcrypto/chacha20", "xor"), ("openssl/chacha20", "xor")],
                params: ParamGrid::Lens(&[4096]),
            },
            Group {
                members: &[
                    ("rustcrypto/aes-128-gcm", "encrypt"),
                    ("aws-lc-rs/aes-128-gcm", "encrypt"),
                ],
                params: ParamGrid::LenAd {
                    lens: &[4096],
                    ads: &[0],
                },
            },
            Group {
                members: &[
                    ("rustcrypto/keccak-f1600", "permute"),
                    ("rustcrypto/aes-128", "encrypt"),
                    ("rustcrypto/ml-kem-768", "encaps"),
                    ("aws-lc-rs/ml-kem-768", "encaps"),
                    ("dalek/x25519", "shared"),
                    ("aws-lc-rs/x25519", "shared"),
                ],
                params: ParamGrid::None,
            },
        ],
        ratios: &[],
        comparisons: &[
            ("rustcrypto/sha-256", "openssl/sha-256"),
            ("rustcrypto/shake128", "openssl/shake128"),
            ("rustcrypto/chacha20", "openssl/chacha20"),
            ("rustcrypto/aes-128-gcm", "aws-lc-rs/aes-128-gcm"),
            ("rustcrypto/ml-kem-768", "aws-lc-rs/ml-kem-768"),
            ("dalek/x25519", "aws-lc-rs/x25519"),
        ],
        ..BASE
    },
    Experiment {
        name: "keccak-xn",
        description: "N-way parallel SHAKE (cryptobench's own x2/x4/x8) vs N calls of the fastest single-lane SHAKE, for the seed's (input, output) pairs, and the bare permutation (seed: neon-keccak-x2.adoc)",
        groups: &[
            Group {
                members: KECCAK_SHAKE128,
                params: ParamGrid::LenOut(KECCAK_PAIRS),
            },
            Group {
                members: KECCAK_SHAKE256,
                params: ParamGrid::LenOut(KECCAK_PAIRS),
            },
            Group {
                members: KECCAK_PERMUTE,
                params: ParamGrid::None,
            },
        ],
        lane_speedups: true,
        ..BASE
    },
    Experiment {
        name: "spook",
        description: "Spook (written for cryptobench in C): Clyde-128 and Shadow-512 per call, Spook-128-512-su at 2048 bytes and at maximum throughput, v1 and v2, every variant x target (seed: spook-performance.md); add --estimate for llvm-mca",
        manifests: &[ManifestGroup {
            path: "implementations/c/spook/manifest.toml",
            lens: &[2048, 8192, 32768],
            operations: &["permute", "encrypt"],
        }],
        slope: Some((8192, 32768)),
        algorithm_comparisons: &[
            ("shadow-512-v1", "shadow-512-v2"),
            ("spook-128-512-su-v1", "spook-128-512-su-v2"),
        ],
        ..BASE
    },
    Experiment {
        name: "c-variants",
        description: "The shipped C examples (SHA-256, ChaCha20, ML-KEM-768, X25519), each in two compile variants for several targets, and each variant against its baseline: the C implementation path end to end, shaped like the Jasmin seed (jasmin-mmx-experiment.md)",
        manifests: &[
            ManifestGroup {
                path: "examples/c/sha256/manifest.toml",
                lens: &[64, 1024, 16384],
                operations: &[],
            },
            ManifestGroup {
                path: "examples/c/chacha20/manifest.toml",
                lens: &[64, 1024, 16384],
                operations: &[],
            },
            ManifestGroup {
                path: "examples/c/ml-kem/manifest.toml",
                lens: &[],
                operations: &[],
            },
            ManifestGroup {
                path: "examples/c/x25519/manifest.toml",
                lens: &[],
                operations: &[],
            },
        ],
        variant_comparisons: &[("o2", "o3-unroll"), ("scalar", "lanes8")],
        ..BASE
    },
];

/// The N-way Keccak seed's (input, output) pairs, plus one long pair.
const KECCAK_PAIRS: &[(u64, u64)] = &[
    (672, 42),
    (336, 294),
    (42, 1008),
    (1008, 2772),
    (504, 3318),
    (1008, 4074),
    (16384, 4096),
];

const KECCAK_SHAKE128: &[(&str, &str)] = &[
    ("cryptobench/shake128-x1", "xof"),
    ("cryptobench/shake128-x1-scalar", "xof"),
    ("cryptobench/shake128-x1-asm", "xof"),
    ("rustcrypto/shake128", "xof"),
    ("openssl/shake128", "xof"),
    ("libcrux/shake128", "xof"),
    ("cryptobench/shake128-x2", "xof"),
    ("cryptobench/shake128-x2-sse2", "xof"),
    ("cryptobench/shake128-x2-avx512vl", "xof"),
    ("cryptobench/shake128-x2-avx512vl-xor", "xof"),
    ("cryptobench/shake128-x4", "xof"),
    ("cryptobench/shake128-x4-avx2", "xof"),
    ("cryptobench/shake128-x4-avx2-asm", "xof"),
    ("cryptobench/shake128-x4-avx512vl", "xof"),
    ("cryptobench/shake128-x4-avx512vl-xor", "xof"),
    ("cryptobench/shake128-x8", "xof"),
    ("cryptobench/shake128-x8-avx512", "xof"),
    ("cryptobench/shake128-x8-avx512-xor", "xof"),
];

const KECCAK_SHAKE256: &[(&str, &str)] = &[
    ("cryptobench/shake256-x1", "xof"),
    ("cryptobench/shake256-x1-scalar", "xof"),
    ("cryptobench/shake256-x1-asm", "xof"),
    ("rustcrypto/shake256", "xof"),
    ("openssl/shake256", "xof"),
    ("libcrux/shake256", "xof"),
    ("cryptobench/shake256-x2", "xof"),
    ("cryptobench/shake256-x2-sse2", "xof"),
    ("cryptobench/shake256-x2-avx512vl", "xof"),
    ("cryptobench/shake256-x2-avx512vl-xor", "xof"),
    ("cryptobench/shake256-x4", "xof"),
    ("cryptobench/shake256-x4-avx2", "xof"),
    ("cryptobench/shake256-x4-avx2-asm", "xof"),
    ("libcrux/shake256-x4-avx2", "xof"),
    ("cryptobench/shake256-x4-avx512vl", "xof"),
    ("cryptobench/shake256-x4-avx512vl-xor", "xof"),
    ("cryptobench/shake256-x8", "xof"),
    ("cryptobench/shake256-x8-avx512", "xof"),
    ("cryptobench/shake256-x8-avx512-xor", "xof"),
];

const KECCAK_PERMUTE: &[(&str, &str)] = &[
    ("cryptobench/keccak-f1600-x1", "permute"),
    ("cryptobench/keccak-f1600-x1-scalar", "permute"),
    ("cryptobench/keccak-f1600-x1-asm", "permute"),
    ("rustcrypto/keccak-f1600", "permute"),
    ("cryptobench/keccak-f1600-x2", "permute"),
    ("cryptobench/keccak-f1600-x2-sse2", "permute"),
    ("cryptobench/keccak-f1600-x2-avx512vl", "permute"),
    ("cryptobench/keccak-f1600-x2-avx512vl-xor", "permute"),
    ("cryptobench/keccak-f1600-x4", "permute"),
    ("cryptobench/keccak-f1600-x4-avx2", "permute"),
    ("cryptobench/keccak-f1600-x4-avx2-asm", "permute"),
    ("cryptobench/keccak-f1600-x4-avx512vl", "permute"),
    ("cryptobench/keccak-f1600-x4-avx512vl-xor", "permute"),
    ("cryptobench/keccak-f1600-x8", "permute"),
    ("cryptobench/keccak-f1600-x8-avx512", "permute"),
    ("cryptobench/keccak-f1600-x8-avx512-xor", "permute"),
];

pub fn find(name: &str) -> Option<&'static Experiment> {
    BUILTIN.iter().find(|e| e.name == name)
}

/// An experiment's cases: every member of every group at every point of its grid.
fn experiment_cases(e: &Experiment, sizes: Option<&[u64]>) -> Vec<Case> {
    e.groups
        .iter()
        .flat_map(|g| {
            let points = g.params.expand(sizes);
            g.members.iter().flat_map(move |(imp, op)| {
                points
                    .clone()
                    .into_iter()
                    .map(move |p| Case::new(imp, op, p))
            })
        })
        .collect()
}

/// Turn `run`'s positional arguments into a plan: one experiment name, or filters over
/// `provider/algorithm/operation` names, and manifests (`*.toml`) of C implementations.
pub fn plan(
    targets: &[String],
    sizes: Option<&[u64]>,
    builds: &BuildOptions,
    registry: &Registry,
) -> Result<Plan> {
    let sizes = sizes.map(distinct);
    let sizes = sizes.as_deref();
    let mut plan = plan_cases(targets, sizes, builds, registry)?;
    for case in &mut plan.cases {
        if let Some(chosen) = path_chosen_here(&case.implementation, registry) {
            case.implementation = chosen;
        }
        if let Some(implementation) = registry.get(&case.implementation) {
            case.lanes = implementation.lanes();
        }
    }
    let mut keys = std::collections::BTreeSet::new();
    if let Some(twice) = plan
        .cases
        .iter()
        .map(Case::key)
        .find(|k| !keys.insert(k.clone()))
    {
        bail!(
            "two targets give the same case `{twice}`: are two manifests named alike? Give each its own `name`"
        );
    }
    Ok(plan)
}

/// An experiment names a default by its lane count alone (`cryptobench/shake128-x2`); the
/// registry knows it with the path this host takes (`cryptobench/shake128-x2@avx512vl-xor`),
/// and that full name is what the case is stored and reported under.
pub(crate) fn path_chosen_here(name: &str, registry: &Registry) -> Option<String> {
    if name.contains('@') || registry.get(name).is_some() {
        return None;
    }
    let prefix = format!("{name}@");
    let mut found = registry
        .all()
        .map(|i| i.name())
        .filter(|n| n.starts_with(&prefix));
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// An experiment's own cases, manifests and tables.
fn experiment_plan(e: &Experiment, sizes: Option<&[u64]>, builds: &BuildOptions) -> Result<Plan> {
    let own = |pairs: &[(&str, &str)]| {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    let mut cases = experiment_cases(e, sizes);
    let mut external = crate::cimpl::External::new();
    for m in e.manifests {
        let (mcases, specs) = crate::cimpl::plan(
            &m.resolve()?,
            &crate::cimpl::Selection::default(),
            sizes.unwrap_or(m.lens),
            builds,
        )?;
        cases.extend(
            mcases.into_iter().filter(|c| {
                m.operations.is_empty() || m.operations.contains(&c.operation.as_str())
            }),
        );
        external.extend(specs);
    }
    Ok(Plan {
        name: e.name.to_string(),
        cases,
        analysis: AnalysisSpec {
            ratios: own(e.ratios),
            comparisons: own(e.comparisons),
            slope: e.slope,
            algorithm_comparisons: own(e.algorithm_comparisons),
            variant_comparisons: own(e.variant_comparisons),
            lane_speedups: e.lane_speedups,
        },
        external,
    })
}

fn plan_cases(
    targets: &[String],
    sizes: Option<&[u64]>,
    builds: &BuildOptions,
    registry: &Registry,
) -> Result<Plan> {
    if let Some(empty) = targets.iter().find(|t| t.trim().is_empty()) {
        bail!(
            "an empty target ({empty:?}) would match every implementation; name an experiment, a filter such as `rustcrypto/` or a manifest"
        );
    }
    let experiments: Vec<&Experiment> = targets.iter().filter_map(|t| find(t)).collect();
    if let [first, second, ..] = experiments.as_slice() {
        bail!(
            "`{}` and `{}` are both experiments: run them one at a time (each has its own tables)",
            first.name,
            second.name
        );
    }
    if targets.is_empty() || !experiments.is_empty() {
        let e = experiments
            .first()
            .copied()
            .unwrap_or_else(|| find(DEFAULT).expect("built in"));
        let mut plan = experiment_plan(e, sizes, builds)?;
        // Beside an experiment, other targets add their cases to its run and tables: a
        // manifest of one's own beside spook's, measured interleaved with it.
        let extra: Vec<String> = targets
            .iter()
            .filter(|t| find(t).is_none())
            .cloned()
            .collect();
        if !extra.is_empty() {
            let lens = e.manifests.first().map_or(DEFAULT_FILTER_SIZES, |m| m.lens);
            let more = plan_cases(&extra, Some(sizes.unwrap_or(lens)), builds, registry)?;
            let known: std::collections::BTreeSet<String> =
                plan.cases.iter().map(Case::key).collect();
            plan.cases
                .extend(more.cases.into_iter().filter(|c| !known.contains(&c.key())));
            plan.external.extend(more.external);
            plan.name = targets.join(" ");
        }
        return Ok(plan);
    }
    let mut members = Vec::new();
    let mut manifest_cases = Vec::new();
    let mut named_cases: Vec<Case> = Vec::new();
    let mut external = crate::cimpl::External::new();
    let mut manifests_seen = std::collections::BTreeSet::new();
    for t in targets {
        if let Some(arg) = crate::cimpl::manifest_arg(t) {
            let (path, selection) = arg?;
            // The same manifest under two spellings (and the same filters) is one set
            // of cases.
            let resolved = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if !manifests_seen.insert((resolved, format!("{selection:?}"))) {
                continue;
            }
            let (cases, specs) = crate::cimpl::plan(
                &path,
                &selection,
                sizes.unwrap_or(DEFAULT_FILTER_SIZES),
                builds,
            )?;
            manifest_cases.extend(cases);
            external.extend(specs);
            continue;
        }
        let sizes_here = sizes.unwrap_or(DEFAULT_FILTER_SIZES);
        if let Some(named) = crate::plan::case_id_cases(registry, t, sizes_here)? {
            named_cases.extend(named);
            continue;
        }
        if !add_members(registry, t, &mut members) {
            let experiments: Vec<&str> = BUILTIN.iter().map(|e| e.name).collect();
            bail!(
                "`{t}` matches no experiment and no implementation{}; experiments: {}; see `cryptobench list` for implementations",
                crate::cimpl::file_hint(t),
                experiments.join(", ")
            );
        }
    }
    let mut cases = filter_cases(&members, sizes.unwrap_or(DEFAULT_FILTER_SIZES))?;
    // A case named by its id beside a filter that takes it is one case.
    for case in named_cases {
        if !cases.iter().any(|c| c.key() == case.key()) {
            cases.push(case);
        }
    }
    cases.extend(manifest_cases);
    Ok(Plan {
        name: targets.join(" "),
        cases,
        analysis: AnalysisSpec::default(),
        external,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_plan_is_the_seed_experiment() {
        let p = plan(
            &[],
            None,
            &BuildOptions::default(),
            &crate::providers::builtin(),
        )
        .unwrap();
        assert_eq!(p.name, "chacha20-rng");
        assert_eq!(p.cases.len(), 15);
        assert_eq!(p.cases[0].key(), "rustcrypto/chacha20/xor len=1024");
        assert_eq!(p.analysis.comparisons.len(), 1);
    }

    #[test]
    fn filters_select_implementations_and_unknown_names_are_refused() {
        let r = crate::providers::builtin();
        let p = plan(
            &["rand_chacha".into()],
            Some(&[64]),
            &BuildOptions::default(),
            &r,
        )
        .unwrap();
        assert_eq!(p.cases.len(), 1);
        assert_eq!(
            p.cases[0].key(),
            "rand_chacha/chacha20-rng/fill_bytes len=64"
        );
        let err = plan(
            &["no-such-thing".into()],
            None,
            &BuildOptions::default(),
            &r,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("`no-such-thing` matches no experiment"),
            "{err}"
        );
    }

    #[test]
    fn a_case_id_names_that_case_alone_and_bad_ones_are_refused() {
        let r = crate::providers::builtin();
        let keys = |targets: &[&str]| -> Vec<String> {
            let targets: Vec<String> = targets.iter().map(|t| t.to_string()).collect();
            plan(&targets, Some(&[64]), &BuildOptions::default(), &r)
                .unwrap()
                .cases
                .iter()
                .map(Case::key)
                .collect()
        };
        assert_eq!(
            keys(&["rustcrypto/chacha20/xor len=1024"]),
            ["rustcrypto/chacha20/xor len=1024"]
        );
        // Beside a filter that takes it, once; a length left out takes --sizes.
        assert_eq!(
            keys(&["rustcrypto/chacha20/xor", "rustcrypto/chacha20/xor len=64"]),
            ["rustcrypto/chacha20/xor len=64"]
        );
        assert_eq!(
            keys(&["aws-lc-rs/aes-128-gcm/encrypt ad=13"]),
            ["aws-lc-rs/aes-128-gcm/encrypt ad=13 len=64"]
        );
        let err = |target: &str| {
            plan(&[target.to_string()], None, &BuildOptions::default(), &r)
                .unwrap_err()
                .to_string()
        };
        assert!(err("rustcrypto/chacha20/xor len=x").contains("`len=x` is not a parameter"));
        assert!(err("rustcrypto/chacha20/xor out=32").contains("takes no `out` (it takes len)"));
        assert!(
            err("rustcrypto/chacha/xor len=4")
                .contains("no implementation or operation is named `rustcrypto/chacha/xor`")
        );
        assert!(err("rustcrypto/chacha20/xor len=1 len=2").contains("`len` is given twice"));
        assert!(
            err("rustcrypto/chacha20/xor len=1073741825")
                .contains("`len=1073741825`: 1073741825 bytes is too large")
        );
        assert!(
            err("aws-lc-rs/aes-128-gcm/encrypt ad=1073741825")
                .contains("`ad=1073741825`: 1073741825 bytes is too large")
        );
        // The cap is inclusive, as `--sizes 1GiB` is.
        assert_eq!(
            keys(&["rustcrypto/chacha20/xor len=1073741824"]),
            ["rustcrypto/chacha20/xor len=1073741824"]
        );
    }

    #[test]
    fn every_experiment_names_registered_implementations() {
        let r = crate::providers::builtin();
        for e in BUILTIN {
            let members: Vec<&(&str, &str)> = e.groups.iter().flat_map(|g| g.members).collect();
            for g in e.groups {
                for (imp, op) in g.members {
                    let here = path_chosen_here(imp, &r).unwrap_or(imp.to_string());
                    let i = r
                        .get(&here)
                        .unwrap_or_else(|| panic!("{}: unknown {imp}", e.name));
                    let o = i
                        .operation(op)
                        .unwrap_or_else(|_| panic!("{}: {imp} has no {op}", e.name));
                    assert_eq!(o.params, g.params.names(), "{}: {imp}/{op}", e.name);
                }
            }
            for (a, b) in e.ratios.iter().chain(e.comparisons) {
                assert!(members.iter().any(|(m, _)| m == a) && members.iter().any(|(m, _)| m == b));
            }
        }
    }

    /// The seed's suite is a table of comparisons: no member is measured and then compared
    /// with nothing, and each pair shares an operation (a pair that shares none would only
    /// ever be listed as not compared).
    #[test]
    fn the_suite_compares_every_member_with_a_rival_at_a_shared_operation() {
        let suite = BUILTIN.iter().find(|e| e.name == "suite").unwrap();
        let members: Vec<&(&str, &str)> = suite.groups.iter().flat_map(|g| g.members).collect();
        let ops = |imp: &str| -> Vec<&str> {
            (members.iter().filter(|(m, _)| *m == imp).map(|(_, o)| *o)).collect()
        };
        for (imp, _) in &members {
            assert!(
                suite.comparisons.iter().any(|(a, b)| a == imp || b == imp),
                "{imp} is compared with nothing"
            );
        }
        for (a, b) in suite.comparisons {
            assert!(
                ops(a).iter().any(|o| ops(b).contains(o)),
                "{a} and {b} share no operation"
            );
        }
    }

    /// keccak-xn names each lane count's default without its path; the plan stores it
    /// under the path this host takes, with its lanes, beside the backend of that name.
    #[test]
    fn defaults_are_planned_under_the_path_taken_here() {
        let r = crate::providers::builtin();
        let p = plan(&["keccak-xn".into()], None, &BuildOptions::default(), &r).unwrap();
        for lanes in crate::providers::keccak_lanes::CHOSEN_LANES {
            // A lane count no backend of which runs here (x8 without AVX-512) has no choice.
            let Ok(choice) = crate::keccak::Backend::default_for(lanes) else {
                continue;
            };
            let chosen = choice.backend;
            let want = format!(
                "cryptobench/keccak-f1600-x{lanes}@{}",
                chosen.instructions()
            );
            let case = p
                .cases
                .iter()
                .find(|c| c.implementation == want)
                .unwrap_or_else(|| panic!("no case {want}"));
            assert_eq!(case.lanes, lanes);
            let named = format!("cryptobench/keccak-f1600-{}", chosen.name());
            assert!(p.cases.iter().any(|c| c.implementation == named), "{named}");
        }
        assert!(
            p.cases
                .iter()
                .all(|c| c.implementation != "cryptobench/shake128-x2"),
            "a default left unresolved"
        );
        // Only a name without a path, one registered path, resolves.
        assert_eq!(
            path_chosen_here("cryptobench/keccak-f1600-x2-sse2", &r),
            None
        );
        assert_eq!(path_chosen_here("cryptobench/keccak-f1600-x3", &r), None);
        assert_eq!(
            path_chosen_here("cryptobench/keccak-f1600-x2@sse2", &r),
            None
        );
    }

    #[test]
    fn grids_expand_and_sizes_replace_lengths() {
        let r = crate::providers::builtin();
        let suite = plan(&["suite".into()], None, &BuildOptions::default(), &r).unwrap();
        let keys: Vec<String> = suite.cases.iter().map(|c| c.key()).collect();
        for key in [
            "rustcrypto/sha-512/hash len=64",
            "openssl/shake256/xof len=16384 out=32",
            "rustcrypto/ml-kem-768/encaps_derand",
            "aws-lc-rs/x25519/base",
        ] {
            assert!(keys.iter().any(|k| k == key), "{key}");
        }
        let aead = plan(&["aead".into()], Some(&[100]), &BuildOptions::default(), &r).unwrap();
        assert_eq!(aead.cases.len(), AEADS.len() * 2);
        assert_eq!(
            aead.cases[1].key(),
            "rustcrypto/aes-128-gcm/encrypt ad=13 len=100"
        );
        let grid = ParamGrid::LenOut(&[(64, 32), (16384, 32), (16384, 64)]);
        let points: Vec<String> = grid
            .expand(Some(&[8]))
            .iter()
            .map(|p| p.to_string())
            .collect();
        assert_eq!(points, ["len=8 out=32", "len=8 out=64"]);
    }

    #[test]
    fn filters_give_every_parameter_its_default() {
        let r = crate::providers::builtin();
        let targets = [
            "openssl/shake128".to_string(),
            "ml-kem-512/decaps".to_string(),
            "ring/aes-128-gcm/decrypt".to_string(),
        ];
        let p = plan(&targets, Some(&[64]), &BuildOptions::default(), &r).unwrap();
        let keys: Vec<String> = p.cases.iter().map(|c| c.key()).collect();
        assert_eq!(
            keys,
            [
                "openssl/shake128/xof len=64 out=32",
                "rustcrypto/ml-kem-512/decaps",
                "aws-lc-rs/ml-kem-512/decaps",
                "ring/aes-128-gcm/decrypt ad=0 len=64",
            ]
        );
    }
}
