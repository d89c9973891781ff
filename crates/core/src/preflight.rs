//! The checks every host of a run makes before measuring (`cryptobench run`, a crate's
//! `cargo bench`): a baseline name that reads as one, a regression gate that can fail, a
//! baseline that can be compared with the run, and a testbed that changed hardware. Each
//! refuses in one line, before anything is measured, what would otherwise be found only
//! after a run that then could not be used; so does a case too large for this machine's
//! memory.

use anyhow::{Result, bail};

use crate::analysis;
use crate::record::{
    AnalysisSpec, Case, Param, Remeasure, RunHeader, RunPlace, Test, VerdictOptions,
};
use crate::store::Store;

/// The first few of `keys`, quoted, for a message about many cases.
pub fn some_of(keys: &[String]) -> String {
    const SHOWN: usize = 3;
    let shown: Vec<String> = keys.iter().take(SHOWN).map(|k| format!("`{k}`")).collect();
    match keys.len() {
        0 => "no case".into(),
        n if n <= SHOWN => shown.join(", "),
        n => format!("{} and {} more", shown.join(", "), n - SHOWN),
    }
}

/// The cases of baseline run `old` that a run of `measured` cases would leave out:
/// saved over it under the same name, they would no longer be judged.
pub fn left_out_of(
    store: &Store,
    old: i64,
    measured: impl Fn(&str) -> bool,
) -> Result<Vec<String>> {
    let mut keys = store.case_keys(old)?;
    keys.retain(|key| !measured(key));
    Ok(keys)
}

/// Why saving over baseline `name` (run `old`) would narrow it: `left_out` are its cases
/// the new run does not have.
pub fn narrows_baseline(name: &str, old: i64, left_out: &[String], tense: &str) -> String {
    format!(
        "baseline `{name}` is run {old}, which has {} case{} this run {tense} ({}): saved over it, they would no longer be judged",
        left_out.len(),
        if left_out.len() == 1 { "" } else { "s" },
        some_of(left_out)
    )
}

/// `--save-baseline NAME` over a baseline with cases this plan does not measure: refused
/// now, since the finished run would be refused as that baseline anyway (and measuring
/// again the same plan could never pass).
pub fn check_baseline_not_narrowed(
    store: &Store,
    name: &str,
    testbed: &str,
    experiment: &str,
    cases: &[Case],
) -> Result<()> {
    let Some(old) = store.baseline(name, testbed, experiment)? else {
        return Ok(());
    };
    let planned: std::collections::HashSet<String> = cases.iter().map(Case::key).collect();
    let left_out = left_out_of(store, old, |key| planned.contains(key))?;
    if !left_out.is_empty() {
        bail!(
            "--save-baseline {name}: {}; measure them too, name another baseline, or replace it anyway with --force-baseline",
            narrows_baseline(name, old, &left_out, "would not measure")
        );
    }
    Ok(())
}

/// Each memory layout of a case holds its own message, output and associated-data
/// buffers, and a worker prepares all its layouts up front: refuse what would run the
/// machine out of memory (the worker would die of it, with the real reason buried in its
/// stderr).
pub fn check_memory(cases: &[Case], layouts: u64) -> Result<()> {
    let Some(available) = crate::machine::available_memory() else {
        return Ok(());
    };
    check_memory_within(cases, layouts, available)
}

/// [`check_memory`] against `available` bytes.
fn check_memory_within(cases: &[Case], layouts: u64, available: u64) -> Result<()> {
    const MARGIN: u64 = 256 << 20;
    // Input and output (`Case::bytes` each), and the associated data, of one layout.
    let per_layout = |c: &Case| {
        let ad = c.params.get(Param::Ad).unwrap_or(0);
        let bytes = c.bytes().unwrap_or(0);
        (bytes.saturating_mul(2).saturating_add(ad), bytes, ad)
    };
    let Some((held, bytes, ad)) = cases.iter().map(per_layout).max() else {
        return Ok(());
    };
    if held == 0 {
        return Ok(());
    }
    let needed = held.saturating_mul(layouts).saturating_add(MARGIN);
    if needed > available {
        let with_ad = if ad > 0 {
            format!(" with {} of associated data", crate::size::format_size(ad))
        } else {
            String::new()
        };
        bail!(
            "{} layouts of {}{with_ad} need about {} MiB (input, output and associated data per layout), but {} MiB are available (MemAvailable): use fewer --layouts or smaller --sizes",
            layouts,
            crate::size::format_size(bytes),
            needed >> 20,
            available >> 20
        );
    }
    Ok(())
}

/// A testbed seen before with other hardware: said, never silently joined (its runs are
/// stored as another machine of that testbed, and compared only with their own).
pub fn warn_of_another_machine(store: &Store, place: &RunPlace) -> Result<()> {
    let seen = store.testbed_fingerprints(&place.testbed)?;
    if !seen.is_empty() && !seen.iter().any(|(f, _)| *f == place.fingerprint) {
        let (fingerprint, cpu) = seen.last().expect("not empty");
        eprintln!(
            "warning: testbed `{}` was until now a machine with CPU `{cpu}` (fingerprint {fingerprint}); this machine differs (fingerprint {}): its runs are kept apart as another machine, and compared only with their own",
            place.testbed, place.fingerprint
        );
    }
    Ok(())
}

/// The derived tables a run asks for (its experiment's, or `--ratio-to`, `--slope`) that
/// `processes` worker processes per case cannot give, said before measuring: each figure
/// in them is an interval between process medians, and the report leaves out a table
/// with none. Comparisons say so in the report themselves ("Not compared").
pub fn tables_left_out(
    spec: &AnalysisSpec,
    processes: usize,
    remeasure: &Remeasure,
) -> Option<String> {
    let reachable = |n: usize| crate::stats::interval_reachable(n, n, analysis::LEVEL);
    if reachable(processes) {
        return None;
    }
    let tables: Vec<&str> = [
        (!spec.ratios.is_empty(), "ratio"),
        (spec.slope.is_some(), "slope"),
        (spec.lane_speedups, "lane speed-up"),
    ]
    .into_iter()
    .filter_map(|(asked, table)| asked.then_some(table))
    .collect();
    if tables.is_empty() {
        return None;
    }
    let fewest = (1..=64).find(|&n| reachable(n)).unwrap_or(64);
    // Re-measuring may give a noisy case enough processes, and a steady one none: the
    // tables may then hold some rows and not others, so nothing is promised either way.
    let most = processes * remeasure.most_processes_factor;
    let fate = if !remeasure.is_off() && reachable(most) {
        format!(
            "are left out where re-measuring (up to {most} processes, for a case that misses --precision or whose host moved) does not add enough"
        )
    } else {
        "will be left out".to_string()
    };
    Some(format!(
        "--processes {processes}: the {} table{} this run asks for need{} {fewest} or more worker processes per case (each figure is a {} % interval between their medians), and {fate}",
        tables.join(" and "),
        if tables.len() == 1 { "" } else { "s" },
        if tables.len() == 1 { "s" } else { "" },
        analysis::fmt_level(analysis::LEVEL),
    ))
}

/// A regression gate that could not fail must not be offered: refuse, before measuring,
/// one whose run compares nothing or has too few processes for any interval.
pub fn check_gate_can_decide(
    spec: &AnalysisSpec,
    processes: usize,
    verdict: &VerdictOptions,
    has_baseline: bool,
) -> Result<()> {
    // The comparisons' intervals are at the level the significance asks for (95 % at the
    // default 0.05); under the rank test its p-value must also be able to fall below the
    // significance, which is the same but where the smallest p equals it.
    let level = 1.0 - verdict.significance;
    let floor = |n: usize| match verdict.test {
        Test::MannWhitney => crate::stats::mann_whitney_p_floor(n, n),
        Test::Welch => None,
    };
    let decides = |n: usize| {
        crate::stats::interval_reachable(n, n, level)
            && floor(n).is_none_or(|p| p < verdict.significance)
    };
    if !decides(processes) {
        let fewest = (1..=64)
            .find(|&n| decides(n))
            .map_or("many more".to_string(), |n| format!("{n} or more"));
        let why = floor(processes)
            .map(|p| {
                format!(
                    ": the smallest p-value a Mann-Whitney test of {processes} against {processes} processes can give is {}",
                    crate::stats::fmt_p_exact(p)
                )
            })
            .unwrap_or_default();
        bail!(
            "--fail-on-regression with --processes {processes}: that few worker processes per case cannot give a {} % interval of a change at --significance {}{why}, so no comparison could be made and the gate could only pass; use --processes {fewest}, or a larger --significance",
            analysis::fmt_level(level),
            verdict.significance,
        );
    }
    if !has_baseline && !spec.compares_variants() {
        if spec.compares() {
            bail!(
                "--fail-on-regression: this run only compares implementations with each other (--against, or the experiment's pairs), where slower is a finding, not a regression, so the gate could only pass; gate a change with --baseline NAME (these cases against a run saved with --save-baseline NAME)"
            );
        }
        bail!(
            "--fail-on-regression: this run compares nothing, so the gate could only pass; add --baseline NAME (these cases against a run saved with --save-baseline NAME)"
        );
    }
    Ok(())
}

/// Found out after measuring, a baseline that cannot be compared with the run would leave
/// a run no report can show, or a gate that looked at nothing: refuse it first.
pub fn check_baseline(
    store: &Store,
    id: i64,
    name: &str,
    header: &RunHeader,
    cases: &[Case],
    force: bool,
    gate: Option<(VerdictOptions, usize)>,
) -> Result<()> {
    let base = store.load_run(id)?;
    // `compare`'s rule, and first for the same reason: no `--force` passes it.
    if let Some((there, here)) = analysis::other_machines(&base.header, header) {
        bail!(
            "--baseline {name}: run {id} was measured on another machine ({there}) than this run ({here}): {}; measure a baseline on this machine (`--save-baseline NAME` on testbed `{}`), or put the two side by side with `cryptobench report --machines`",
            analysis::NO_VERDICT_ACROSS_MACHINES,
            header.place.testbed
        );
    }
    if !force && let Some(why) = analysis::incomplete(&base.header) {
        bail!(
            "--baseline {name}: {why}; measure the baseline again, or use --force to compare with what it has"
        );
    }
    let differs: Vec<String> = analysis::differences(&base.header, header)
        .into_iter()
        .map(|(what, was, is)| format!("{what} `{was}` there, `{is}` here"))
        .collect();
    if !differs.is_empty() && !force {
        bail!(
            "--baseline {name}: run {id} is not comparable with this run ({}); measure the baseline again, or use --force",
            differs.join("; ")
        );
    }
    let (there, here) = (base.header.counter, header.counter);
    if there.short_unit() != here.short_unit() {
        let way = match there {
            crate::record::RunCounter::Measured(kind) => {
                format!("run with --counter {kind}, or measure the baseline again")
            }
            crate::record::RunCounter::Imported(_) => {
                "measure a baseline with cryptobench itself".into()
            }
        };
        bail!(
            "--baseline {name}: run {id} counts {} ({there}) and this run would count {} ({here}), which no --force makes comparable; {way}",
            there.short_unit(),
            here.short_unit()
        );
    }
    let keys: Vec<String> = cases.iter().map(Case::key).collect();
    if !base.cases.iter().any(|c| keys.contains(&c.key)) {
        let base_keys: Vec<String> = base.cases.iter().map(|c| c.key.clone()).collect();
        bail!(
            "--baseline {name}: run {id} measured none of this run's cases, so nothing could be compared with it (it has {}; this run would measure {}); measure the same implementations at the same --sizes",
            some_of(&base_keys),
            some_of(&keys)
        );
    }
    // A gate whose every comparison with the baseline's processes would fall short of an
    // interval could only pass: the fewest processes of a shared case decide.
    let fewest = base
        .cases
        .iter()
        .filter(|c| keys.contains(&c.key) && !c.per_process.is_empty())
        .map(|c| c.per_process.len())
        .min();
    if let (Some((verdict, processes)), Some(theirs)) = (gate, fewest) {
        let level = 1.0 - verdict.significance;
        if !crate::stats::interval_reachable(theirs, processes, level) {
            bail!(
                "--fail-on-regression with --baseline {name}: run {id} has {theirs} worker processes for some case, and {theirs} against this run's {processes} cannot give a {} % interval of a change at --significance {} (the smallest p-value a Mann-Whitney test of them can give is {}), so the gate could only pass; measure the baseline again with more --processes, or use a larger --significance",
                analysis::fmt_level(level),
                verdict.significance,
                crate::stats::fmt_p_exact(
                    crate::stats::mann_whitney_p_floor(theirs, processes).unwrap_or(1.0)
                ),
            );
        }
    }
    Ok(())
}

/// A baseline is found again by its name, so it must not read as anything else
/// `--baseline` accepts: a run id or `latest`.
pub fn check_baseline_name(name: &str) -> Result<()> {
    if name.trim().is_empty() || name == "latest" || name.parse::<i64>().is_ok() {
        bail!(
            "--save-baseline {name:?}: a baseline needs a name that is not empty, not a number (run ids are) and not `latest`, e.g. `main`"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Params;

    #[test]
    fn the_memory_check_counts_associated_data_and_never_a_wrapped_size() {
        const GIB: u64 = 1 << 30;
        let case = |params: Params| Case::new("a/aes-128-gcm", "encrypt", params);
        let aead = case(Params::new().with(Param::Len, 64).with(Param::Ad, GIB));
        // 8 layouts of 1 GiB of associated data do not fit in 4 GiB.
        let err = check_memory_within(std::slice::from_ref(&aead), 8, 4 * GIB)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("8 layouts of 64 B with 1 GiB of associated data need about 8448 MiB"),
            "{err}"
        );
        assert!(check_memory_within(&[aead], 2, 4 * GIB).is_ok());
        // A size past the cap (never planned) saturates rather than wraps to a few bytes.
        let huge = case(Params::new().with(Param::Len, u64::MAX).with(Param::Out, 1));
        assert!(check_memory_within(&[huge], 1, 64 * GIB).is_err());
        let none = case(Params::new());
        assert!(check_memory_within(&[none], 256, 0).is_ok());
    }

    #[test]
    fn derived_tables_too_few_processes_cannot_give_are_named() {
        let spec = AnalysisSpec {
            ratios: vec![("a/x".into(), "b/x".into())],
            slope: Some((1024, 4096)),
            ..AnalysisSpec::default()
        };
        let off = Remeasure::OFF;
        let said = tables_left_out(&spec, 3, &off).expect("3 processes give no interval");
        assert!(
            said.starts_with(
                "--processes 3: the ratio and slope tables this run asks for need 4 or more worker processes per case"
            ),
            "{said}"
        );
        assert!(said.ends_with("and will be left out"), "{said}");
        assert_eq!(tables_left_out(&spec, 4, &off), None);
        assert_eq!(tables_left_out(&AnalysisSpec::default(), 1, &off), None);
        // Re-measuring may reach the processes, so the tables are not promised gone.
        let remeasure = Remeasure::to_precision(0.5, None);
        let said = tables_left_out(&spec, 3, &remeasure).unwrap();
        assert!(
            said.ends_with("are left out where re-measuring (up to 9 processes, for a case that misses --precision or whose host moved) does not add enough"),
            "{said}"
        );
        // One process re-measured thrice is still three.
        assert!(
            tables_left_out(&spec, 1, &remeasure)
                .unwrap()
                .ends_with("will be left out")
        );
        let lanes = AnalysisSpec {
            lane_speedups: true,
            ..AnalysisSpec::default()
        };
        assert!(
            tables_left_out(&lanes, 2, &off)
                .unwrap()
                .contains("the lane speed-up table this run asks for needs 4")
        );
    }
}
