//! `cryptobench run`: a plan of cases checked before anything is measured, then measured in
//! worker rounds through the one [`crate::session`].

use std::process::ExitCode;

use anyhow::{Result, bail};

use crate::cli::RunArgs;
use crate::experiment::{self};
use crate::machine;
use crate::output::check_outputs;
use crate::record::{RunOptions, SamplePlan};

use super::progress::Bar;
use crate::preflight::{check_baseline_name, check_gate_can_decide, check_memory};
use crate::session::{Finish, Measurement};
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
            (crate::store::db_option(), Some(&args.output.db)),
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
        &crate::cimpl::BuildOptions {
            kat_dir: args.kat_dir.as_deref(),
            estimates: args.estimate,
            keep_going: args.keep_going,
        },
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
    // A target that cannot be opened is found now, not after the whole run; one lost
    // later keeps the run here, with the command that pushes it. It is opened before the
    // local store, which a refusal would otherwise leave behind empty.
    if let Some(target) = &args.push_to {
        Store::open_named(target, "--push-to")?;
    }
    let mut store = Store::open(&args.output.db)?;
    let measured = crate::session::measure_plan(
        &mut store,
        &plan,
        Measurement {
            options: RunOptions {
                counter,
                cpu: Some(cpu),
                processes,
                layouts: args.layouts as usize,
                plan: SamplePlan::spread(args.samples as usize, processes, args.layouts as usize),
                timeout,
                seed: args.seed,
                remeasure: crate::record::Remeasure::to_precision(
                    args.precision,
                    args.remeasure_budget,
                ),
                no_canary: args.no_canary,
                command_line: crate::record::this_command_line(),
                bench_target: None,
                c_builds: crate::cimpl::c_builds(&plan.external),
                // Other lengths than the experiment's own measure another set of its
                // cases: a machine's column across machines prefers a whole run.
                narrowed: args.sizes.as_deref().map(|sizes| {
                    let sizes: Vec<String> = sizes.iter().map(u64::to_string).collect();
                    format!("--sizes {}", sizes.join(","))
                }),
            },
            verdict: args.verdict.for_counter(counter),
            baseline: args.baseline.as_deref(),
            force: args.force,
            testbed: args.testbed.testbed.as_deref(),
            revision: crate::record::CodeRevision::Instrument,
            // The catalog's, of those measured: a C build's are not the catalog's to say.
            libraries: crate::providers::libraries_of(
                (plan.cases.iter())
                    .map(|c| c.implementation.as_str())
                    .filter(|name| !plan.external.contains_key(*name)),
            ),
        },
        Finish {
            format: args.format,
            file: args.output.file.as_deref(),
            html: args.html.as_deref(),
            save_baseline: args.save_baseline.as_deref(),
            force_baseline: args.force_baseline,
            fail_on_regression: args.fail_on_regression,
        },
        &Bar::new(),
    );
    let (exit, uuid) = match measured {
        Ok(measured) => measured,
        Err(refused) => {
            store.discard_if_unused();
            return Err(refused);
        }
    };
    match &args.push_to {
        Some(target) => super::push::push_finished_run(&store, &uuid, target, exit),
        None => Ok(exit),
    }
}
