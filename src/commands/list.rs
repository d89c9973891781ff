//! `cryptobench list`: implementations, experiments, and what a manifest or an experiment measures.

use std::process::ExitCode;

use anyhow::{Result, bail};

use crate::experiment::{self, BUILTIN};
use crate::output::print;
use crate::report;

pub(super) fn list(filter: Option<&str>) -> Result<ExitCode> {
    if let Some(e) = BUILTIN.iter().find(|e| Some(e.name) == filter) {
        print(&experiment_plan(e))?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(arg) = filter.and_then(crate::cimpl::manifest_arg) {
        let (path, selection) = arg?;
        return list_manifest(filter.unwrap_or_default(), &path, &selection);
    }
    let registry = crate::providers::builtin();
    let mut table = report::text_table(&["implementation", "kind", "operation", "parameters"]);
    let mut shown = 0;
    for imp in registry.all() {
        for op in imp.operations() {
            let full = format!("{}/{}", imp.name(), op.name);
            if filter.is_some_and(|f| !full.contains(f)) {
                continue;
            }
            shown += 1;
            table.add_row(vec![
                imp.name(),
                imp.kind().to_string(),
                op.name.to_string(),
                op.params
                    .iter()
                    .map(|p| p.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            ]);
        }
    }
    // `list sha` beside a directory `sha/` of C code lists the catalog's SHA
    // implementations, which is what a filter does; the manifest may be what was meant.
    if let Some(manifest) = filter.and_then(|f| crate::cimpl::manifest_in(std::path::Path::new(f)))
        && shown > 0
    {
        eprintln!(
            "note: `{}` is also a directory with a manifest: `cryptobench list {}` lists its builds",
            filter.unwrap_or_default(),
            manifest.display()
        );
    }
    if shown == 0 {
        let filter = filter.unwrap_or("");
        bail!(
            "no implementation matches `{filter}`{}; run `cryptobench list` to see them all",
            crate::cimpl::file_hint(filter)
        );
    }
    let mut text = format!("{table}\n\nExperiments:\n");
    for e in BUILTIN {
        text += &format!("  {:<16} {}\n", e.name, e.description);
    }
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// Every implementation x target of a manifest, read from it: nothing is built. `named`
/// is the argument as given, filters and all, so that the commands it suggests act on
/// what was listed, not on the whole manifest.
pub(super) fn list_manifest(
    named: &str,
    path: &std::path::Path,
    selection: &crate::cimpl::Selection,
) -> Result<ExitCode> {
    let listing = crate::cimpl::listing(path, selection)?;
    let mut table = report::text_table(&[
        "implementation",
        "kind",
        "operations",
        "parameters",
        "checked against",
        "this CPU",
    ]);
    for l in &listing.implementations {
        table.add_row(vec![
            l.name.clone(),
            l.kind.clone(),
            l.operations.join(", "),
            l.params.join(", "),
            l.checked_against.clone(),
            match &l.runnable {
                Ok(()) => "runs it".to_string(),
                Err(why) => why.clone(),
            },
        ]);
    }
    let about = if listing.description.trim().is_empty() {
        String::new()
    } else {
        format!("{}: {}\n\n", listing.provider, listing.description.trim())
    };
    print(&format!(
        "{about}{table}\n\n`cryptobench check {named}` builds and checks them without timing; `cryptobench run {named}` measures them.\n"
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// What `run EXPERIMENT` would measure and compare, read from its definition: nothing is
/// built or measured.
pub(super) fn experiment_plan(e: &experiment::Experiment) -> String {
    // A group's members share its parameters: the parameters once, above its members
    // (side by side, a member and a parameter point on one line would read as a pair).
    let mut groups = String::new();
    let mut cases = 0;
    let registry = crate::providers::builtin();
    for g in e.groups {
        let points = g.params.expand(None);
        cases += points.len() * g.members.len();
        groups += &format!(
            "{} x {}:\n",
            experiment_counted(
                g.members.len(),
                "implementation (operation)",
                "implementations (operation)"
            ),
            describe_points(&points)
        );
        for (implementation, operation) in g.members {
            groups += &format!("  {implementation} ({operation})");
            if let Some(here) = experiment::path_chosen_here(implementation, &registry) {
                groups += &format!(": here {here}");
            }
            groups += "\n";
        }
    }
    let mut text = format!("{}: {}\n\n", e.name, e.description);
    if cases > 0 {
        text += &format!(
            "{cases} cases of the catalog, each implementation at each of its group's parameter points:\n{groups}\n"
        );
    }
    for m in e.manifests {
        let lens: Vec<String> = m.lens.iter().map(u64::to_string).collect();
        let operations = if m.operations.is_empty() {
            "every operation".to_string()
        } else {
            m.operations.join(", ")
        };
        text += &format!(
            "Every variant x target of {}: {operations}, len {}\n",
            m.path,
            if lens.is_empty() {
                "none".into()
            } else {
                lens.join(", ")
            }
        );
    }
    let pairs = |what: &str, pairs: &[(&str, &str)], sep: &str| {
        pairs
            .iter()
            .map(|(a, b)| format!("{what}: {b} {sep} {a}\n"))
            .collect::<String>()
    };
    text += &pairs("Ratio", e.ratios, "over");
    text += &pairs("Comparison", e.comparisons, "against");
    text += &pairs("Across algorithms", e.algorithm_comparisons, "against");
    text += &pairs("Across compile variants", e.variant_comparisons, "against");
    if let Some((short, long)) = e.slope {
        text +=
            &format!("Slope: cost per byte at maximum throughput, from {short} to {long} bytes\n");
    }
    if e.lane_speedups {
        text += "Lane speed-ups: each N-lane implementation against N calls of the fastest single-lane one\n";
    }
    text
}

pub(super) fn experiment_counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A group's parameter points in a few words: a full grid by the values of each
/// parameter (`8 parameter points (ad 0, 13 x len 64, 576)`), else each point.
pub(super) fn describe_points(points: &[crate::record::Params]) -> String {
    use std::collections::{BTreeMap, BTreeSet};
    let mut values: BTreeMap<&str, BTreeSet<u64>> = BTreeMap::new();
    for p in points {
        for (name, v) in p.iter() {
            values.entry(name).or_default().insert(v);
        }
    }
    let counted = experiment_counted(points.len(), "parameter point", "parameter points");
    if values.is_empty() {
        return format!("{counted} (no parameters)");
    }
    let grid = values.values().map(BTreeSet::len).product::<usize>() == points.len()
        && points.iter().all(|p| p.iter().count() == values.len());
    let each = if grid {
        values
            .iter()
            .map(|(name, vs)| {
                let vs: Vec<String> = vs.iter().map(u64::to_string).collect();
                format!("{name} {}", vs.join(", "))
            })
            .collect::<Vec<_>>()
            .join(" x ")
    } else {
        points
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ")
    };
    format!("{counted} ({each})")
}
