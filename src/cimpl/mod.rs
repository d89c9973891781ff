//! C and assembly implementations behind the SUPERCOP / NIST LWC API.
//!
//! A TOML manifest declares sources, compile variants and targets
//! ([`manifest`]); every variant x target is compiled into a cached shared object
//! ([`compile`]), loaded with `dlopen` ([`library`]) and wrapped as an ordinary catalog
//! [`Implementation`](crate::catalog::Implementation) ([`implementation`]). Nothing else
//! in cryptobench knows that an implementation is written in C.

pub mod compile;
pub mod estimate;
pub mod implementation;
pub mod kat;
pub mod library;
pub mod manifest;
pub mod randomness;
pub mod target;

pub use implementation::{CImplementation, CSpec};
pub use manifest::Manifest;

use std::path::Path;

use anyhow::{Context, Result};

/// Every buildable variant x target of `manifest`, compiled (or taken from the cache).
///
/// A variant whose `requires` a target lacks is skipped: an empty cell, not an error. A
/// target this CPU cannot run is still built (for static estimates) and marked
/// unsupported, so it is never run.
pub fn specs(
    manifest: &Manifest,
    kat_dir: Option<&Path>,
    with_estimates: bool,
) -> Result<Vec<CSpec>> {
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
    let mut specs: Vec<CSpec> = Vec::new();
    for imp in &manifest.implementations {
        let (kat, caveats) = match &imp.kat {
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
        };
        for t in manifest.targets() {
            if !t.provides(&imp.requires, &host) {
                continue;
            }
            let library = compile::shared_object(manifest, imp, &t)?;
            // A manifest error, found before anything runs (the worker checks again).
            if let Some(sizes) = compile::api_sizes(&library) {
                let refused = |why: String| {
                    anyhow::anyhow!(
                        "{}: `{}` ({}) for target `{}`: {why}",
                        manifest.path.display(),
                        imp.variant,
                        imp.algorithm,
                        t.name
                    )
                };
                implementation::check_sizes(imp.kind, &imp.sizes, &sizes).map_err(refused)?;
                implementation::check_vectors(&imp.vectors, &sizes).map_err(refused)?;
                if let Some((path, vectors)) = &kat {
                    kat::check_lengths(vectors, &sizes)
                        .map_err(|why| refused(format!("KAT file `{}`: {why}", path.display())))?;
                }
            }
            let estimate = if with_estimates {
                let asm = compile::assembly(manifest, imp, &t, &library)?;
                Some(estimate::estimate(&asm, imp.kind, &t))
            } else {
                None
            };
            specs.push(CSpec {
                estimate,
                provider: manifest.name.clone(),
                algorithm: imp.algorithm.clone(),
                variant: imp.variant.clone(),
                target: t.name.to_string(),
                kind: imp.kind,
                library,
                unsupported: t.runnable_on(&host).err(),
                kat: kat.as_ref().map(|(path, _)| path.clone()),
                caveats: caveats.clone(),
                vectors: imp.vectors.clone(),
                expected_sizes: imp.sizes.clone(),
                peer: None,
            });
        }
    }
    // Every variant must agree with the first runnable build of its algorithm (the
    // portable one, by the manifest's order).
    for i in 0..specs.len() {
        let peer = specs
            .iter()
            .find(|p| {
                p.algorithm == specs[i].algorithm
                    && p.unsupported.is_none()
                    && p.kind == specs[i].kind
            })
            .cloned();
        specs[i].peer = peer.filter(|p| p.name() != specs[i].name()).map(Box::new);
    }
    Ok(specs)
}

/// Cases for every build of the manifest at `path`, and the specs workers load them by.
pub fn plan(
    path: &Path,
    sizes: &[u64],
    kat_dir: Option<&Path>,
    with_estimates: bool,
) -> Result<(Vec<crate::runner::Case>, crate::runner::External)> {
    let manifest = Manifest::load(path)?;
    let mut cases = Vec::new();
    let mut external = crate::runner::External::new();
    for spec in specs(&manifest, kat_dir, with_estimates)? {
        let kind = implementation::info(spec.kind);
        let param_sets = (kind.params)(sizes);
        for op in (kind.operations)(&spec).iter().map(|o| o.name) {
            for p in &param_sets {
                cases.push(crate::runner::Case {
                    implementation: spec.name(),
                    operation: op.to_string(),
                    params: p.clone(),
                });
            }
        }
        external.insert(spec.name(), spec);
    }
    Ok((cases, external))
}
