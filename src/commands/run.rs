//! `cryptobench run`: a plan of cases checked before anything is measured, then measured in
//! worker rounds through the one [`crate::session`].

use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use crate::cli::RunArgs;
use crate::experiment::{self};
use crate::machine::{self, Machine};
use crate::output::check_outputs;
use crate::record::{
    AnalysisOptions, MachineRecord, RunHeader, RunOptions, RunOrigin, RunPlace, SamplePlan,
};
use crate::runner::{self};

use super::progress::Bar;
use crate::preflight::{
    check_baseline, check_baseline_name, check_gate_can_decide, check_memory,
    warn_of_another_machine,
};
use crate::session::Finish;
use crate::store::Store;

pub(super) fn run(args: RunArgs) -> Result<ExitCode> {
    let counter = args.counter.resolve().map_err(anyhow::Error::msg)?;
    // Before measuring: finding out afterwards that the report cannot be written wastes the run.
    check_outputs(
        &[
            ("-o", args.output.file.as_deref()),
            ("--html", args.html.as_deref()),
        ],
        &[
            ("--db", Some(&args.output.db)),
            ("--push-to", args.push_to.as_deref()),
        ],
    )?;
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
    // A target that cannot be opened is found now, not after the whole run; one lost
    // later keeps the run here, with the command that pushes it.
    if let Some(target) = &args.push_to {
        Store::open_named(target, "--push-to")?;
    }
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
