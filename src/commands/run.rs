//! `cryptobench run`: a plan of cases checked before anything is measured, then measured in
//! worker rounds through the one [`crate::session`].

use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use crate::analysis::{self};
use crate::cli::RunArgs;
use crate::experiment::{self};
use crate::machine::{self, Machine};
use crate::output::check_writable;
use crate::record::{
    AnalysisOptions, AnalysisSpec, Case, MachineRecord, RunHeader, RunOptions, RunOrigin, RunPlace,
    SamplePlan, Test, VerdictOptions,
};
use crate::runner::{self};

use super::progress::Bar;
use super::stored::some_of;
use crate::session::Finish;
use crate::store::Store;

pub(super) fn run(args: RunArgs) -> Result<ExitCode> {
    let counter = args.counter.resolve().map_err(anyhow::Error::msg)?;
    // Before measuring: finding out afterwards that the report cannot be written wastes the run.
    check_writable(args.output.file.as_deref(), &args.output.db)?;
    check_writable(args.html.as_deref(), &args.output.db)?;
    let cpu = args.cpu.unwrap_or_else(machine::default_cpu);
    machine::check_cpu(cpu)?;
    let timeout = args.timeout;
    if let Some(name) = &args.save_baseline {
        check_baseline_name(name)?;
    }
    let processes = args.processes as usize;
    let registry = crate::providers::builtin();
    let mut plan = experiment::plan(
        &args.targets,
        args.sizes.as_deref(),
        args.kat_dir.as_deref(),
        args.estimate,
        &registry,
    )?;
    if let Some(base) = &args.against {
        plan.compare_all_against(base)?;
    }
    if let Some(reference) = &args.ratio_to {
        plan.ratio_to(reference)?;
    }
    if let Some((short, long)) = args.slope {
        plan.slope(short, long)?;
    }
    if plan.cases.is_empty() {
        bail!(
            "nothing to measure in `{}`: no implementation x target of its manifests can be built (see each variant's `requires` against its `targets`)",
            plan.name
        );
    }
    if args.fail_on_regression {
        check_gate_can_decide(
            &plan.analysis,
            processes,
            &args.verdict.for_counter(counter),
            args.baseline.is_some(),
        )?;
    }
    if (args.estimate || args.kat_dir.is_some()) && plan.external.is_empty() {
        eprintln!(
            "warning: --estimate and --kat-dir apply to C implementations (manifests), and this run has none"
        );
    }
    check_memory(&plan.cases, args.layouts)?;
    let mut store = Store::open(&args.output.db)?;
    let mut machine = Machine::detect();
    if counter.simulated() {
        machine.simulated_crypto_flags = Some(runner::simulated_crypto_flags(timeout)?);
    }
    let place = RunPlace::new_run(
        &MachineRecord::Measured(Box::new(machine.clone())),
        &machine.cpu_identity(),
        args.testbed.testbed.as_deref(),
    );
    warn_of_another_machine(&store, &place)?;
    // `--baseline main` is main on this testbed.
    let baseline_run = match &args.baseline {
        Some(name) => Some(
            store
                .resolve_run_on(name, Some(&place.testbed))
                .with_context(|| format!("--baseline {name}"))?,
        ),
        None => None,
    };

    let layouts = args.layouts as usize;
    let options = RunOptions {
        counter,
        cpu: Some(cpu),
        processes,
        layouts,
        plan: SamplePlan::spread(args.samples as usize, processes, layouts),
        timeout,
        seed: args.seed,
        remeasure: crate::record::Remeasure::to_precision(args.precision, args.remeasure_budget),
        no_canary: args.no_canary,
    };
    let analysis_options = AnalysisOptions {
        spec: plan.analysis.clone(),
        verdict: args.verdict.for_counter(counter),
        baseline_run,
        force: args.force,
    };

    let mut header = RunHeader::measured_now(
        &plan.name,
        counter,
        machine,
        RunOrigin::Measured {
            run: options.clone(),
            analysis: analysis_options,
        },
        None,
    );
    header.place = place;
    if let (Some(id), Some(name)) = (baseline_run, &args.baseline) {
        let gate = args
            .fail_on_regression
            .then(|| (args.verdict.for_counter(counter), processes));
        check_baseline(&store, id, name, &header, &plan.cases, args.force, gate)?;
    }
    let push_to = args.push_to.clone();
    let uuid = header.place.uuid.clone();
    let exit = crate::session::run(
        &mut store,
        &header,
        Finish {
            format: args.format,
            file: args.output.file.as_deref(),
            html: args.html.as_deref(),
            save_baseline: args.save_baseline.as_deref(),
            force_baseline: args.force_baseline,
            fail_on_regression: args.fail_on_regression,
        },
        |store, run_id, interrupted| {
            for (name, spec) in &plan.external {
                if let Some(e) = &spec.estimate {
                    store.add_estimate(run_id, name, e)?;
                }
            }
            let (_claim, shared) = machine::claim_cpu(cpu);
            if let Some(warning) = shared {
                eprintln!("warning: {warning}");
            }
            let progress = Bar::new();
            let ended = runner::execute(
                &plan.cases,
                &plan.external,
                &options,
                store,
                run_id,
                &progress,
                interrupted,
            );
            progress.finish();
            ended
        },
    )?;
    match push_to {
        Some(target) => super::push::push_finished_run(&store, &uuid, &target, exit),
        None => Ok(exit),
    }
}

/// A testbed seen before with other hardware: said, never silently joined (its runs are
/// stored as another machine of that testbed, and compared only with their own).
pub(super) fn warn_of_another_machine(store: &Store, place: &RunPlace) -> Result<()> {
    let seen = store.testbed_fingerprints(&place.testbed)?;
    if !seen.is_empty() && !seen.iter().any(|(f, _)| *f == place.fingerprint) {
        let (fingerprint, cpu) = seen.last().expect("not empty");
        eprintln!(
            "warning: testbed `{}` was until now a {cpu} (fingerprint {fingerprint}); this machine differs (fingerprint {}): its runs are kept apart as another machine, and compared only with their own",
            place.testbed, place.fingerprint
        );
    }
    Ok(())
}

/// A regression gate that could not fail must not be offered: refuse, before measuring,
/// one whose run compares nothing or has too few processes for any interval.
pub(super) fn check_gate_can_decide(
    spec: &AnalysisSpec,
    processes: usize,
    verdict: &VerdictOptions,
    has_baseline: bool,
) -> Result<()> {
    if !crate::stats::interval_reachable(processes, processes, analysis::LEVEL) {
        bail!(
            "--fail-on-regression with --processes {processes}: that few worker processes per case cannot give a {:.0} % interval of a change, so no comparison could be made and the gate could only pass; use --processes 4 or more",
            100.0 * analysis::LEVEL
        );
    }
    if verdict.test == Test::MannWhitney {
        let floor = crate::stats::mann_whitney_p_floor(processes, processes).unwrap_or(1.0);
        if floor >= verdict.significance {
            bail!(
                "--fail-on-regression with --processes {processes} and --significance {}: the smallest p-value a Mann-Whitney test of {processes} against {processes} processes can give is {}, so no change could ever be significant and the gate could only pass; use more processes or a larger --significance",
                verdict.significance,
                crate::stats::fmt_p(floor)
            );
        }
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
pub(super) fn check_baseline(
    store: &Store,
    id: i64,
    name: &str,
    header: &RunHeader,
    cases: &[Case],
    force: bool,
    gate: Option<(VerdictOptions, usize)>,
) -> Result<()> {
    let base = store.load_run(id)?;
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
                crate::stats::fmt_p(
                    crate::stats::mann_whitney_p_floor(theirs, processes).unwrap_or(1.0)
                ),
            );
        }
    }
    Ok(())
}

/// Each memory layout of a case holds its own message and output buffers, and a worker
/// prepares all its layouts up front: refuse what would run the machine out of memory
/// (the worker would die of it, with the real reason buried in its stderr).
pub(super) fn check_memory(cases: &[Case], layouts: u64) -> Result<()> {
    const MARGIN: u64 = 256 << 20;
    let Some(available) = crate::bulk::buffer::available_memory() else {
        return Ok(());
    };
    let Some(largest) = cases.iter().filter_map(Case::bytes).max() else {
        return Ok(());
    };
    // Input and output of the largest case in every layout.
    let needed = largest
        .saturating_mul(2)
        .saturating_mul(layouts)
        .saturating_add(MARGIN);
    if needed > available {
        bail!(
            "{} layouts of {} need about {} MiB (input and output per layout), but {} MiB are available (MemAvailable): use fewer --layouts or smaller --sizes",
            layouts,
            crate::size::format_size(largest),
            needed >> 20,
            available >> 20
        );
    }
    Ok(())
}

/// A baseline is found again by its name, so it must not read as anything else
/// `--baseline` accepts: a run id or `latest`.
pub(super) fn check_baseline_name(name: &str) -> Result<()> {
    if name.trim().is_empty() || name == "latest" || name.parse::<i64>().is_ok() {
        bail!(
            "--save-baseline {name:?}: a baseline needs a name that is not empty, not a number (run ids are) and not `latest`, e.g. `main`"
        );
    }
    Ok(())
}
