//! A run's plan: the cases to measure, in table order, and what to analyse of them;
//! built from filters over a registry's implementations (an experiment's own cases are
//! the CLI's), and narrowed or widened by `--against`, `--ratio-to` and `--slope`.

use anyhow::{Result, bail};

use crate::catalog::registry::Registry;
use crate::record::{AnalysisSpec, Case, Param, Params};

/// Sizes used when the user names implementations rather than an experiment.
pub const DEFAULT_FILTER_SIZES: &[u64] = &[64, 1024, 16384];

/// Output length of an XOF named by a filter: a 256-bit value, as a KDF would draw.
pub const DEFAULT_XOF_OUT: u64 = crate::catalog::kinds::xof::DEFAULT_OUT;

/// A run's plan: cases in table order, and what to analyse.
#[derive(Debug)]
pub struct Plan {
    /// The run's name: the experiment's, or the command line's filters and manifests
    /// joined by spaces.
    pub name: String,
    /// The cases to measure, in table order.
    pub cases: Vec<Case>,
    /// The ratios, comparisons and slope to compute from them.
    pub analysis: AnalysisSpec,
    /// Implementations built from manifests for this plan.
    pub external: crate::cimpl::External,
}

impl Plan {
    /// Replace the plan's comparisons with: every other implementation against `base`.
    pub fn compare_all_against(&mut self, base: &str) -> Result<()> {
        // Written as the filter that selected it (`rustcrypto/chacha20/`), it is that one.
        let base = base.trim_end_matches('/');
        let mut others: Vec<String> = Vec::new();
        for c in &self.cases {
            if c.implementation != base && !others.contains(&c.implementation) {
                others.push(c.implementation.clone());
            }
        }
        if !self.cases.iter().any(|c| c.implementation == base) {
            let near: Vec<&str> = others
                .iter()
                .filter(|o| o.contains(base))
                .map(String::as_str)
                .collect();
            match near.as_slice() {
                [] => bail!(
                    "--against `{base}`: that implementation is not part of this run; name it too (a target of `run`, a filter of `cargo bench`)"
                ),
                _ => bail!(
                    "--against `{base}` names no implementation of this run exactly; did you mean {}?",
                    near.iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
            }
        }
        if others.is_empty() {
            bail!(
                "--against `{base}`: it is the only implementation in this run, so there is nothing to compare with it"
            );
        }
        let like_base = |c: &Case| {
            c.implementation != base
                && self.cases.iter().any(|b| {
                    b.implementation == base && b.operation == c.operation && b.params == c.params
                })
        };
        if !self.cases.iter().any(like_base) {
            bail!(
                "--against `{base}`: no other implementation in this run does its operation at the same parameters, so nothing could be compared with it; add one that does (`cryptobench list` shows each one's operation)"
            );
        }
        self.analysis.comparisons = others.into_iter().map(|o| (base.to_string(), o)).collect();
        Ok(())
    }

    /// Add the ratio of every other implementation of the run over `reference`, at the
    /// same operation and parameters (`--ratio-to`): the seed's "RNG over the cipher"
    /// table, for any run.
    pub fn ratio_to(&mut self, reference: &str) -> Result<()> {
        let reference = reference.trim_end_matches('/');
        if !self.cases.iter().any(|c| c.implementation == reference) {
            bail!(
                "--ratio-to `{reference}`: that implementation is not part of this run; add it to the targets (named in full, as `cryptobench list` shows it)"
            );
        }
        let mut members: Vec<String> = Vec::new();
        for c in &self.cases {
            // At the same parameters, whatever the operation: an RNG's fill_bytes over the
            // cipher's xor is the chacha20-rng experiment's own table.
            let alike = self
                .cases
                .iter()
                .any(|r| r.implementation == reference && r.params == c.params);
            if c.implementation != reference && alike && !members.contains(&c.implementation) {
                members.push(c.implementation.clone());
            }
        }
        if members.is_empty() {
            bail!(
                "--ratio-to `{reference}`: no other implementation in this run is measured at its parameters (the same sizes)"
            );
        }
        let pairs = members.into_iter().map(|m| (reference.to_string(), m));
        for pair in pairs {
            if !self.analysis.ratios.contains(&pair) {
                self.analysis.ratios.push(pair);
            }
        }
        Ok(())
    }

    /// Report each implementation's cost per byte at maximum throughput, the slope of its
    /// median from `short` to `long` bytes (`--slope`), for any run measured at both.
    pub fn slope(&mut self, short: u64, long: u64) -> Result<()> {
        if let Some(why) = crate::record::slope_fault(short, long) {
            bail!("--slope {short},{long}: {why}");
        }
        for len in [short, long] {
            if !self
                .cases
                .iter()
                .any(|c| c.params.get(Param::Len) == Some(len))
            {
                bail!(
                    "--slope {short},{long}: this run measures no case at {len} bytes; add it to --sizes"
                );
            }
        }
        self.analysis.slope = Some((short, long));
        Ok(())
    }
}

/// Cases for members named by filters: each operation at the default values of its
/// parameters, the lengths from `sizes`.
pub fn filter_cases(members: &[(String, String, Vec<Param>)], sizes: &[u64]) -> Result<Vec<Case>> {
    // `--sizes` is checked as it is parsed; a bench's `.sizes(…)` is checked here.
    if sizes.contains(&0) {
        bail!("a size of 0 bytes: a size must be at least 1 byte");
    }
    let sizes = &distinct(sizes)[..];
    let mut cases = Vec::new();
    for (imp, op, names) in members {
        let mut points = vec![Params::new()];
        for name in names {
            let values: &[u64] = match *name {
                Param::Len => sizes,
                Param::Out => &[DEFAULT_XOF_OUT],
                Param::Ad => &[0],
                other => bail!(
                    "`{imp}/{op}` takes `{other}`, which has no default; name an experiment instead"
                ),
            };
            points = points
                .iter()
                .flat_map(|p| values.iter().map(move |&v| p.clone().with(*name, v)))
                .collect();
        }
        cases.extend(points.into_iter().map(|p| Case::new(imp, op, p)));
    }
    Ok(cases)
}

/// The cases a case's id names, as `history`, a run's JSON and its messages print it
/// (`rustcrypto/chacha20/xor len=1024`): the operation whose `provider/algorithm/operation`
/// name is its first word (or every operation of the implementation so named), at the
/// parameters after it; a parameter it leaves out takes its default (`sizes` for the
/// length). `None` where `target` has no parameters: it is a filter then.
pub fn case_id_cases(
    registry: &Registry,
    target: &str,
    sizes: &[u64],
) -> Result<Option<Vec<Case>>> {
    let mut words = target.split_whitespace();
    let (Some(name), given) = (words.next(), words.collect::<Vec<_>>()) else {
        return Ok(None);
    };
    if given.is_empty() {
        return Ok(None);
    }
    let mut fixed = Vec::new();
    for word in given {
        let parsed = word
            .split_once('=')
            .and_then(|(k, v)| Some((Param::parse(k)?, v.parse::<u64>().ok()?)));
        match parsed {
            Some((param, _)) if fixed.iter().any(|(p, _)| *p == param) => {
                bail!("`{target}`: `{param}` is given twice")
            }
            Some((param, value)) => {
                // `len`, `out` and `ad` are bytes per call; `threads` is refused below by
                // every operation a case's id can name (none takes it).
                if param != Param::Threads
                    && let Err(why) = crate::size::check_per_call(value)
                {
                    bail!("`{target}`: `{param}={value}`: {why}");
                }
                fixed.push((param, value));
            }
            None => bail!(
                "`{target}`: `{word}` is not a parameter; a case's id is its `provider/algorithm/operation` name, then `len=N`, `out=N` or `ad=N`"
            ),
        }
    }
    let mut members = Vec::new();
    if !add_exact_members(registry, name, &mut members) {
        bail!(
            "`{target}`: no implementation or operation is named `{name}` (a case's id begins with its whole `provider/algorithm/operation` name; `cryptobench list` names them)"
        );
    }
    let mut cases = Vec::new();
    for (imp, op, takes) in members {
        if let Some((param, _)) = fixed.iter().find(|(p, _)| !takes.contains(p)) {
            let takes: Vec<&str> = takes.iter().map(|p| p.name()).collect();
            bail!(
                "`{target}`: `{imp}/{op}` takes no `{param}` (it takes {})",
                if takes.is_empty() {
                    "none".to_string()
                } else {
                    takes.join(", ")
                }
            );
        }
        let free: Vec<Param> = takes
            .into_iter()
            .filter(|p| fixed.iter().all(|(f, _)| f != p))
            .collect();
        let defaults = filter_cases(&[(imp, op, free)], sizes)?;
        cases.extend(defaults.into_iter().map(|mut c| {
            for &(param, value) in &fixed {
                c.params = c.params.with(param, value);
            }
            c
        }));
    }
    Ok(Some(cases))
}

/// The values in their first order, each once: `--sizes 64,64` is one size.
pub fn distinct(values: &[u64]) -> Vec<u64> {
    let mut seen = std::collections::BTreeSet::new();
    values.iter().copied().filter(|v| seen.insert(*v)).collect()
}

/// Add to `members` every operation of `registry` whose `provider/algorithm/operation`
/// name contains `filter`, each once; whether any matched.
pub fn add_members(
    registry: &Registry,
    filter: &str,
    members: &mut Vec<(String, String, Vec<Param>)>,
) -> bool {
    add_members_where(registry, |_, full| full.contains(filter), members)
}

/// [`add_members`] by whole names: `filter` is an implementation's name, or its name and
/// an operation's (libtest's `--exact`).
pub fn add_exact_members(
    registry: &Registry,
    filter: &str,
    members: &mut Vec<(String, String, Vec<Param>)>,
) -> bool {
    add_members_where(
        registry,
        |imp, full| imp == filter || full == filter,
        members,
    )
}

/// Add to `members` every operation of `registry` that `matches` takes by its
/// implementation's name and its `provider/algorithm/operation` name, each once;
/// whether any matched.
fn add_members_where(
    registry: &Registry,
    matches: impl Fn(&str, &str) -> bool,
    members: &mut Vec<(String, String, Vec<Param>)>,
) -> bool {
    let mut matched = false;
    for imp in registry.all() {
        for op in imp.operations() {
            let full = format!("{}/{}", imp.name(), op.name);
            if !matches(&imp.name(), &full) {
                continue;
            }
            matched = true;
            // Overlapping filters (`sha-256 rustcrypto/sha-256`) name a case once.
            if !members
                .iter()
                .any(|(i, o, _)| *i == imp.name() && *o == op.name)
            {
                members.push((imp.name(), op.name.to_string(), op.params.to_vec()));
            }
        }
    }
    matched
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_cases_take_each_size_once_and_refuse_none() {
        let members = vec![("a/x".to_string(), "hash".to_string(), vec![Param::Len])];
        let cases = filter_cases(&members, &[64, 1024, 64]).unwrap();
        let keys: Vec<String> = cases.iter().map(|c| c.key()).collect();
        assert_eq!(keys, ["a/x/hash len=64", "a/x/hash len=1024"]);
        let zero = filter_cases(&members, &[0, 64]).unwrap_err();
        assert!(zero.to_string().contains("at least 1 byte"), "{zero}");
    }
}
