//! Built-in experiments: data saying what to measure and what to compare, never how.

use std::path::Path;

use anyhow::{Result, bail};

use crate::catalog::Params;
use crate::catalog::registry::Registry;
use crate::runner::Case;

/// What to compute from the measurements besides per-case statistics.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct AnalysisSpec {
    /// (reference, member): the member's cost as a multiple of the reference's, per
    /// parameter set (e.g. an RNG over the cipher that is its "speed limit").
    pub ratios: Vec<(String, String)>,
    /// (baseline, candidate): change of the candidate against the baseline.
    pub comparisons: Vec<(String, String)>,
}

pub struct Experiment {
    pub name: &'static str,
    pub description: &'static str,
    /// (implementation, operation) pairs, in table order.
    pub members: &'static [(&'static str, &'static str)],
    /// Message lengths (`len`), unless `--sizes` overrides them.
    pub sizes: &'static [u64],
    pub ratios: &'static [(&'static str, &'static str)],
    pub comparisons: &'static [(&'static str, &'static str)],
}

pub const DEFAULT: &str = "chacha20-rng";

pub const BUILTIN: &[Experiment] = &[Experiment {
    name: "chacha20-rng",
    description: "ChaCha20 cipher vs the ChaCha20 RNGs of `chacha20` and `rand_chacha`, 1-16 KiB (seed: chacha20-rng-bench.md)",
    members: &[
        ("rustcrypto/chacha20", "xor"),
        ("rustcrypto/chacha20-rng", "fill_bytes"),
        ("rand_chacha/chacha20-rng", "fill_bytes"),
    ],
    sizes: &[1024, 2048, 4096, 8192, 16384],
    ratios: &[
        ("rustcrypto/chacha20", "rustcrypto/chacha20-rng"),
        ("rustcrypto/chacha20", "rand_chacha/chacha20-rng"),
    ],
    comparisons: &[("rand_chacha/chacha20-rng", "rustcrypto/chacha20-rng")],
}];

/// Sizes used when the user names implementations rather than an experiment.
pub const DEFAULT_FILTER_SIZES: &[u64] = &[64, 1024, 16384];

pub fn find(name: &str) -> Option<&'static Experiment> {
    BUILTIN.iter().find(|e| e.name == name)
}

/// A run's plan: cases in table order, and what to analyse.
#[derive(Debug)]
pub struct Plan {
    pub name: String,
    pub cases: Vec<Case>,
    pub analysis: AnalysisSpec,
    /// Implementations built from manifests for this plan.
    pub external: crate::runner::External,
}

impl Plan {
    /// Replace the plan's comparisons with: every other implementation against `base`.
    pub fn compare_all_against(&mut self, base: &str) -> Result<()> {
        if !self.cases.iter().any(|c| c.implementation == base) {
            bail!(
                "--against `{base}`: that implementation is not part of this run; add it to the targets"
            );
        }
        let mut others: Vec<String> = Vec::new();
        for c in &self.cases {
            if c.implementation != base && !others.contains(&c.implementation) {
                others.push(c.implementation.clone());
            }
        }
        self.analysis.comparisons = others.into_iter().map(|o| (base.to_string(), o)).collect();
        Ok(())
    }
}

fn cases_for(members: &[(String, String)], sizes: &[u64]) -> Vec<Case> {
    members
        .iter()
        .flat_map(|(imp, op)| {
            sizes.iter().map(move |&len| Case {
                implementation: imp.clone(),
                operation: op.clone(),
                params: Params::new().with("len", len),
            })
        })
        .collect()
}

/// Turn `run`'s positional arguments into a plan: one experiment name, or filters over
/// `provider/algorithm/operation` names, and manifests (`*.toml`) of C implementations.
pub fn plan(
    targets: &[String],
    sizes: Option<&[u64]>,
    kat_dir: Option<&Path>,
    estimates: bool,
    registry: &Registry,
) -> Result<Plan> {
    if targets.is_empty() || (targets.len() == 1 && find(&targets[0]).is_some()) {
        let name = targets.first().map(String::as_str).unwrap_or(DEFAULT);
        let e = find(name).expect("checked above");
        let members: Vec<(String, String)> = e
            .members
            .iter()
            .map(|(i, o)| (i.to_string(), o.to_string()))
            .collect();
        let own = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        return Ok(Plan {
            name: e.name.to_string(),
            cases: cases_for(&members, sizes.unwrap_or(e.sizes)),
            analysis: AnalysisSpec {
                ratios: own(e.ratios),
                comparisons: own(e.comparisons),
            },
            external: Default::default(),
        });
    }
    let mut members = Vec::new();
    let mut manifest_cases = Vec::new();
    let mut external = crate::runner::External::new();
    for t in targets {
        if t.ends_with(".toml") {
            let (cases, specs) = crate::cimpl::plan(
                Path::new(t),
                sizes.unwrap_or(DEFAULT_FILTER_SIZES),
                kat_dir,
                estimates,
            )?;
            manifest_cases.extend(cases);
            external.extend(specs);
            continue;
        }
        let before = members.len();
        for imp in registry.all() {
            for op in imp.operations() {
                let full = format!("{}/{}", imp.name(), op.name);
                if full.contains(t.as_str())
                    && !members.contains(&(imp.name(), op.name.to_string()))
                {
                    members.push((imp.name(), op.name.to_string()));
                }
            }
        }
        if members.len() == before {
            let experiments: Vec<&str> = BUILTIN.iter().map(|e| e.name).collect();
            bail!(
                "`{t}` matches no experiment and no implementation; experiments: {}; see `cryptobench list` for implementations",
                experiments.join(", ")
            );
        }
    }
    let mut cases = cases_for(&members, sizes.unwrap_or(DEFAULT_FILTER_SIZES));
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
        let p = plan(&[], None, None, false, &Registry::builtin()).unwrap();
        assert_eq!(p.name, "chacha20-rng");
        assert_eq!(p.cases.len(), 15);
        assert_eq!(p.cases[0].key(), "rustcrypto/chacha20/xor len=1024");
        assert_eq!(p.analysis.comparisons.len(), 1);
    }

    #[test]
    fn filters_select_implementations_and_unknown_names_are_refused() {
        let r = Registry::builtin();
        let p = plan(&["rand_chacha".into()], Some(&[64]), None, false, &r).unwrap();
        assert_eq!(p.cases.len(), 1);
        assert_eq!(
            p.cases[0].key(),
            "rand_chacha/chacha20-rng/fill_bytes len=64"
        );
        let err = plan(&["no-such-thing".into()], None, None, false, &r)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`no-such-thing` matches no experiment"),
            "{err}"
        );
    }

    #[test]
    fn every_experiment_names_registered_implementations() {
        let r = Registry::builtin();
        for e in BUILTIN {
            for (imp, op) in e.members {
                let i = r
                    .get(imp)
                    .unwrap_or_else(|| panic!("{}: unknown {imp}", e.name));
                assert!(i.operation(op).is_ok(), "{}: {imp} has no {op}", e.name);
            }
            for (a, b) in e.ratios.iter().chain(e.comparisons) {
                assert!(
                    e.members.iter().any(|(m, _)| m == a) && e.members.iter().any(|(m, _)| m == b)
                );
            }
        }
    }
}
