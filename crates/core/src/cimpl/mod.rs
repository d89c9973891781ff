//! C and assembly implementations behind the SUPERCOP / NIST LWC API.
//!
//! A TOML manifest declares sources, compile variants and targets
//! ([`manifest`]); every variant x target is compiled into a cached shared object
//! ([`compile`]), loaded with `dlopen` ([`library`]) and wrapped as an ordinary catalog
//! [`Implementation`](crate::catalog::Implementation) ([`implementation`]). Nothing else
//! in cryptobench knows that an implementation is written in C.

pub mod cache;
pub mod compile;
pub mod crash_note;
pub mod estimate;
pub mod implementation;
pub mod kat;
pub mod library;
pub mod manifest;
pub mod randomness;
pub mod target;

pub use implementation::{CImplementation, CSpec, peer_that_died};
pub use manifest::{Manifest, Selection};

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::catalog::Operation;
use manifest::ManifestImplementation;
use rayon::prelude::*;
use target::Target;

/// Implementations built from manifests, by name: what a worker needs to load them.
pub type External = std::collections::BTreeMap<String, CSpec>;

/// A `run`, `check` or `list` argument that names a manifest: `PATH.toml`, or
/// `PATH.toml:KEY=VALUE,...` to keep some of its builds (see [`Selection`]); `None`
/// where it names none (a filter over the catalog's names, an experiment).
pub fn manifest_arg(arg: &str) -> Option<Result<(PathBuf, Selection)>> {
    if arg.ends_with(".toml") {
        return Some(Ok((PathBuf::from(arg), Selection::default())));
    }
    let (path, filters) = arg.rsplit_once(".toml:")?;
    let path = PathBuf::from(format!("{path}.toml"));
    Some(Selection::parse(arg, filters).map(|s| (path, s)))
}

/// What a `run`, `check` or `list` argument that names nothing was likely meant to be:
/// a manifest whose file name lacks `.toml` (which makes it a filter), said as such.
pub fn file_hint(arg: &str) -> String {
    let path = Path::new(arg);
    if path.is_file() {
        format!(
            " (`{arg}` is a file: a manifest is read only from a name that ends in `.toml`; rename it)"
        )
    } else if let Some(manifest) = manifest_in(path) {
        format!(
            " (`{arg}` is a directory: name its manifest, `{}`)",
            manifest.display()
        )
    } else {
        String::new()
    }
}

/// The `manifest.toml` in directory `dir`, where it is one that holds one.
pub fn manifest_in(dir: &Path) -> Option<PathBuf> {
    Some(dir.join("manifest.toml")).filter(|m| dir.is_dir() && m.is_file())
}

/// The operations a build of `imp` is timed at, known from the manifest alone.
pub fn operations_of(
    manifest: &Manifest,
    imp: &manifest::ManifestImplementation,
) -> &'static [Operation] {
    let spec = CSpec {
        provider: manifest.name.clone(),
        algorithm: imp.algorithm.clone(),
        variant: imp.variant.clone(),
        target: String::new(),
        kind: imp.kind,
        library: PathBuf::new(),
        unsupported: None,
        not_built: None,
        kat: None,
        caveats: Vec::new(),
        vectors: imp.vectors.clone(),
        expected_sizes: imp.sizes.clone(),
        peers: Vec::new(),
        estimate: None,
        lanes: 1,
        timed_lengths: Vec::new(),
        prototypes_checked: compile::prototypes_checked(manifest, imp),
        api_h: implementation::API_H.to_string(),
        compiler: manifest.compiler.clone(),
        compiler_version: String::new(),
        flags: Vec::new(),
    };
    (implementation::info(imp.kind).operations)(&spec)
}

/// A manifest as `list` shows it, read without building anything.
pub struct Listing {
    /// The manifest's `name`, the provider its builds are listed under.
    pub provider: String,
    /// The manifest's `description` (empty where it has none).
    pub description: String,
    /// Every implementation x target the selection keeps.
    pub implementations: Vec<Listed>,
}

/// One implementation x target of a manifest, as `list` shows it.
pub struct Listed {
    /// `provider/algorithm/variant@target`.
    pub name: String,
    /// The catalog kind its rows fall under (`hash`, `aead`, ...; `dh` for `scalarmult`).
    pub kind: String,
    /// The operations it is timed at, narrowed by the selection's `operation` filter.
    pub operations: Vec<&'static str>,
    /// The parameter names those operations take (e.g. `len`), each once.
    pub params: Vec<&'static str>,
    /// `Ok` when it is built and this CPU runs it; else why not.
    pub runnable: std::result::Result<(), String>,
    /// What the gate will check it against ([`implementation::checked_against`]).
    pub checked_against: String,
}

/// Every implementation x target of the manifest at `path`, narrowed by `selection`.
pub fn listing(path: &Path, selection: &Selection) -> Result<Listing> {
    let mut manifest = Manifest::load(path)?;
    manifest.select(selection)?;
    let host = target::host_flags();
    let mut listed = Vec::new();
    for imp in &manifest.implementations {
        let operations: Vec<&Operation> = operations_of(&manifest, imp)
            .iter()
            .filter(|o| {
                selection.operation.is_empty() || selection.operation.iter().any(|s| s == o.name)
            })
            .collect();
        let mut params: Vec<&'static str> = Vec::new();
        for p in operations.iter().flat_map(|o| o.params.iter()) {
            if !params.contains(&p.name()) {
                params.push(p.name());
            }
        }
        // A KAT file that is not where the manifest says is a note when a run checks, not
        // an error: said here too, so that `list` does not promise a check `run` skips.
        let kat = imp.kat.as_ref().map(|name| {
            let path = manifest.kat_path(name, None);
            if path.is_file() {
                name.clone()
            } else {
                format!(
                    "{name} (not found at `{}`: give its directory with --kat-dir)",
                    path.display()
                )
            }
        });
        for t in manifest.targets() {
            let runnable = if !t.provides(&imp.requires, &host) {
                let lacks: Vec<&str> = imp
                    .requires
                    .iter()
                    .filter(|f| !t.provides(std::slice::from_ref(f), &host))
                    .map(String::as_str)
                    .collect();
                Err(format!(
                    "not built: the variant requires {}, which target `{}` lacks",
                    lacks.join(", "),
                    t.name
                ))
            } else {
                t.runnable_on(&host)
            };
            listed.push(Listed {
                name: crate::name::ImplName::new(&manifest.name, &imp.algorithm)
                    .with_variant(&imp.variant)
                    .at(t.name)
                    .to_string(),
                kind: implementation::info(imp.kind).kind.to_string(),
                checked_against: implementation::checked_against(
                    imp.kind,
                    &imp.algorithm,
                    imp.vectors.len(),
                    kat.as_deref(),
                ),
                operations: operations.iter().map(|o| o.name).collect(),
                params: params.clone(),
                runnable,
            });
        }
    }
    Ok(Listing {
        provider: manifest.name,
        description: manifest.description,
        implementations: listed,
    })
}

/// Every buildable variant x target of `manifest`, compiled (or taken from the cache).
///
/// A variant whose `requires` a target lacks is skipped: an empty cell, not an error. A
/// target this CPU cannot run is still built (for static estimates) and marked
/// unsupported, so it is never run.
pub fn specs(manifest: &Manifest, options: &BuildOptions) -> Result<Vec<CSpec>> {
    let BuildOptions {
        kat_dir,
        estimates: with_estimates,
        keep_going,
    } = *options;
    // Asked for by name, a directory that is not there is a typo, not a missing check.
    if let Some(d) = kat_dir
        && !d.is_dir()
    {
        anyhow::bail!(
            "--kat-dir `{}` is not a directory: give the directory that holds the manifests' `kat` files",
            d.display()
        );
    }
    let host = target::host_flags();
    // Each variant's KAT file first, in the manifest's order, so that a malformed one is
    // said before anything is built.
    let known = manifest
        .implementations
        .iter()
        .map(|imp| known_answers(manifest, imp, kat_dir))
        .collect::<Result<Vec<_>>>()?;
    let builds: Vec<_> = manifest
        .implementations
        .iter()
        .zip(&known)
        .flat_map(|(imp, checks)| {
            manifest
                .targets()
                .into_iter()
                .filter(|t| t.provides(&imp.requires, &host))
                .map(move |t| (imp, t, checks))
        })
        .collect();
    // Builds are compiler processes, and a manifest of a hundred of them took minutes one
    // at a time. Collected in the builds' order, so that the first failure in the
    // manifest's order is the one said, as one build after another would have stopped at
    // it.
    let built: Vec<Result<CSpec>> = builds
        .par_iter()
        .map(|(imp, t, checks)| build(manifest, imp, t, checks, &host, with_estimates))
        .collect();
    let mut specs = Vec::with_capacity(built.len());
    for ((imp, t, checks), built) in builds.iter().zip(built) {
        match built {
            // Kept going: the build's cases fail with the compiler's words, the others
            // are built and measured. Said here, in the manifest's order.
            Err(e) if keep_going && e.is::<compile::DidNotCompile>() => {
                let refused = e.downcast::<compile::DidNotCompile>().expect("checked");
                eprintln!(
                    "warning: {}\n(going on without it: --keep-going)",
                    refused.said
                );
                specs.push(CSpec {
                    not_built: Some(format!(
                        "did not compile for target `{}`: {}",
                        t.name, refused.first_error
                    )),
                    compiler_version: compile::compiler_version(manifest).unwrap_or_default(),
                    ..described(manifest, imp, t, checks)
                });
            }
            Err(e) if keep_going && e.is::<BuildRefused>() => {
                let refused = e.downcast::<BuildRefused>().expect("checked");
                eprintln!(
                    "warning: {}\n(going on without it: --keep-going)",
                    refused.said
                );
                specs.push(CSpec {
                    not_built: Some(format!("refused for target `{}`: {}", t.name, refused.why)),
                    compiler_version: compile::compiler_version(manifest).unwrap_or_default(),
                    ..described(manifest, imp, t, checks)
                });
            }
            built => specs.push(built?),
        }
    }
    // The builds each one may be compared with, in the manifest's order; which of them
    // it is compared with is decided once each has been checked alone ([`gate_peers`]).
    let runnable: Vec<CSpec> = specs
        .iter()
        .filter(|p| p.unsupported.is_none() && p.not_built.is_none())
        .cloned()
        .collect();
    for spec in &mut specs {
        spec.peers = (runnable.iter())
            .filter(|p| p.algorithm == spec.algorithm && p.kind == spec.kind)
            .filter(|p| p.name() != spec.name())
            .cloned()
            .collect();
    }
    Ok(specs)
}

/// The builds the gate compares `spec` with, of its candidates (`spec.peers`: every other
/// runnable build of its algorithm and kind, in the manifest's order), given which of them
/// `passed` the gate alone. Where known answers say what each must output, the first that
/// passed: variants agree with each other. Without them, every one that passed: agreeing
/// with the first alone would leave the first checked against nothing. A candidate that
/// failed alone is none: its crash, hang or wrong output is its own, not charged to a
/// build that was right.
pub fn gate_peers(spec: &CSpec, passed: impl Fn(&CSpec) -> bool) -> Vec<CSpec> {
    let mut passing = spec.peers.iter().filter(|p| passed(p));
    if implementation::has_known_answers(spec) {
        passing.next().into_iter().cloned().collect()
    } else {
        passing.cloned().collect()
    }
}

/// How a run builds the C implementations of its manifests.
#[derive(Clone, Copy, Debug, Default)]
pub struct BuildOptions<'a> {
    /// Where the manifests' `kat` files are (`--kat-dir`), where not beside them.
    pub kat_dir: Option<&'a Path>,
    /// Whether to estimate each build's cycles statically (`--estimate`).
    pub estimates: bool,
    /// Whether a build that does not compile fails its own cases only (`--keep-going`),
    /// rather than stopping the run before anything is measured.
    pub keep_going: bool,
}

/// A variant for a target as its manifest describes it, before anything is built: no
/// library, one lane, no peers, no estimate.
fn described(
    manifest: &Manifest,
    imp: &ManifestImplementation,
    t: &Target,
    (kat, caveats): &KnownAnswers,
) -> CSpec {
    CSpec {
        estimate: None,
        provider: manifest.name.clone(),
        algorithm: imp.algorithm.clone(),
        variant: imp.variant.clone(),
        target: t.name.to_string(),
        kind: imp.kind,
        library: PathBuf::new(),
        unsupported: None,
        not_built: None,
        kat: kat.as_ref().map(|(path, _)| path.clone()),
        caveats: caveats.to_vec(),
        vectors: imp.vectors.clone(),
        expected_sizes: imp.sizes.clone(),
        peers: Vec::new(),
        lanes: 1,
        timed_lengths: Vec::new(),
        prototypes_checked: compile::prototypes_checked(manifest, imp),
        api_h: implementation::API_H.to_string(),
        compiler: manifest.compiler.clone(),
        // Read when it is built; a build that did not compile reads it again.
        compiler_version: String::new(),
        flags: compile::recorded_flags(manifest, imp, t),
    }
}

/// What a variant's output is checked against: its KAT file and the file's vectors, and
/// the caveats where there is none.
type KnownAnswers = (Option<(PathBuf, Vec<kat::AeadVector>)>, Vec<String>);

/// A variant's KAT file, read now (a malformed one is the manifest's error), after its
/// `vectors` are checked against cryptobench's reference of a known algorithm (a wrong one
/// is the manifest's error too: once for the variant, not each build's wrong output).
fn known_answers(
    manifest: &Manifest,
    imp: &ManifestImplementation,
    kat_dir: Option<&Path>,
) -> Result<KnownAnswers> {
    implementation::check_vectors_against_reference(imp.kind, &imp.algorithm, &imp.vectors)
        .map_err(|why| {
            anyhow::anyhow!(
                "{}: `{}` ({}): {why}",
                manifest.path.display(),
                imp.variant,
                imp.algorithm
            )
        })?;
    Ok(match &imp.kat {
        Some(name) => {
            let p = manifest.kat_path(name, kat_dir);
            if p.is_file() {
                // Read now, so that a malformed file is the manifest's error, said
                // before anything is built or measured, not the build's wrong output.
                let vectors = kat::read(&p).with_context(|| {
                    format!(
                        "{}: `{}` ({})",
                        manifest.path.display(),
                        imp.variant,
                        imp.algorithm
                    )
                })?;
                (Some((p, vectors)), Vec::new())
            } else {
                let why = format!(
                    "{}/{}: KAT file `{}` not found (give its directory with --kat-dir): checked by round trips and agreement between variants only",
                    imp.algorithm,
                    imp.variant,
                    p.display()
                );
                (None, vec![why])
            }
        }
        None => (None, Vec::new()),
    })
}

/// A build that compiled but is not what its manifest entry, or its kind, asks for (sizes
/// its `api.h` gives that its vectors, KAT file or algorithm's name do not fit, a function
/// it does not export): that build's fault, not the whole manifest's, so `--keep-going`
/// goes on without it as it does without a build that does not compile.
#[derive(Debug)]
struct BuildRefused {
    /// The error as a stopped run says it: the manifest, build and target, and why.
    said: String,
    /// Why, as the build's cases fail with it.
    why: String,
}

impl std::fmt::Display for BuildRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.said)
    }
}

impl std::error::Error for BuildRefused {}

/// The most lanes an N-way build may declare (`CRYPTO_LANES`).
const MAX_LANES: u64 = 64;

/// One variant built for one target (or taken from the cache), checked against what its
/// manifest entry says, and estimated where asked.
fn build(
    manifest: &Manifest,
    imp: &ManifestImplementation,
    t: &Target,
    checks: &KnownAnswers,
    host: &[String],
    with_estimates: bool,
) -> Result<CSpec> {
    let (kat, _) = checks;
    let compile::Built {
        library,
        api_h,
        compiler_version,
    } = compile::shared_object(manifest, imp, t)?;
    // What a refusal of its sizes names: the api.h it read, from the manifest's directory.
    let api_h = api_h.map_or_else(|| "api.h".to_string(), |p| manifest.shown(&p));
    let refused = |why: String| {
        anyhow::Error::new(BuildRefused {
            said: format!(
                "{}: `{}` ({}) for target `{}`: {why}",
                manifest.path.display(),
                imp.variant,
                imp.algorithm,
                t.name
            ),
            why,
        })
    };
    let mut lanes = 1;
    // A manifest error, found before anything runs (the worker checks again).
    if let Some(sizes) = compile::api_sizes(&library) {
        let declared = sizes.get("CRYPTO_LANES").copied().unwrap_or(0);
        // Bytes per call multiply by the lanes: a negative define read as a huge one
        // would overflow them, and no SIMD register holds more than 64 states.
        if declared > MAX_LANES {
            return Err(refused(format!(
                "`CRYPTO_LANES` is {} in `{api_h}`; an N-way function takes 1 to {MAX_LANES} lanes (0 or undefined: one)",
                declared as i64
            )));
        }
        lanes = declared.max(1) as usize;
        implementation::check_sizes(imp.kind, &imp.sizes, &sizes, &api_h).map_err(refused)?;
        implementation::check_known_sizes(imp.kind, &imp.algorithm, &sizes, &api_h)
            .map_err(refused)?;
        implementation::check_vectors(imp.kind, &imp.vectors, &sizes, &api_h).map_err(refused)?;
        if let Some((path, vectors)) = kat {
            kat::check_lengths(vectors, &sizes, &api_h)
                .map_err(|why| refused(format!("KAT file `{}`: {why}", path.display())))?;
        }
    }
    let functions = implementation::info(imp.kind).functions;
    if let Some((missing, others)) = compile::missing_functions(&library, functions)
        && !missing.is_empty()
    {
        let kind = format!("{:?}", imp.kind).to_lowercase();
        let exported = match others.as_slice() {
            [] => String::new(),
            [one] if functions.len() == 1 => format!(
                "; it exports `{one}`: if that is the function, name it `{}` (e.g. `-D{one}={}` in `flags`)",
                functions[0], functions[0]
            ),
            many => format!("; it exports `{}`", many.join("`, `")),
        };
        return Err(refused(format!(
            "the build does not export {}, which a `{kind}` build must (docs/c-api.md){exported}",
            missing.join(", ")
        )));
    }
    let estimate = if with_estimates {
        let asm = compile::assembly(manifest, imp, t, &library)?;
        Some(estimate::estimate(&asm, imp.kind, t))
    } else {
        None
    };
    Ok(CSpec {
        estimate,
        library,
        unsupported: t.runnable_on(host).err(),
        lanes,
        api_h,
        compiler_version,
        ..described(manifest, imp, t, checks)
    })
}

/// How each of a run's C builds was compiled, as the run records it, in their names'
/// order.
pub fn c_builds(external: &External) -> Vec<crate::record::CBuild> {
    external.values().map(CSpec::c_build).collect()
}

/// Cases for every build of the manifest at `path` that `selection` keeps, and the specs
/// workers load them by.
pub fn plan(
    path: &Path,
    selection: &Selection,
    sizes: &[u64],
    options: &BuildOptions,
) -> Result<(Vec<crate::record::Case>, External)> {
    let mut manifest = Manifest::load(path)?;
    manifest.select(selection)?;
    let mut cases = Vec::new();
    let mut external = External::new();
    for mut spec in specs(&manifest, options)? {
        let kind = implementation::info(spec.kind);
        let param_sets = (kind.params)(sizes);
        spec.timed_lengths = (param_sets.iter())
            .filter_map(|p| p.get(crate::record::Param::Len))
            .map(|l| l as usize)
            .collect();
        let operations = (kind.operations)(&spec)
            .iter()
            .map(|o| o.name)
            .filter(|o| {
                selection.operation.is_empty() || selection.operation.iter().any(|s| s == o)
            })
            .collect::<Vec<_>>();
        if operations.is_empty() {
            continue;
        }
        for op in operations {
            for p in &param_sets {
                cases.push(crate::record::Case {
                    implementation: spec.name(),
                    operation: op.to_string(),
                    params: p.clone(),
                    lanes: spec.lanes,
                });
            }
        }
        external.insert(spec.name(), spec);
    }
    Ok((cases, external))
}
