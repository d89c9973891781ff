//! `cryptobench check`: the correctness gate alone, nothing timed or stored.

use std::process::ExitCode;

use anyhow::{Result, bail};

use crate::cli::CheckArgs;
use crate::exit::Exit;
use crate::experiment::{self};
use crate::machine::{self};
use crate::output::print;
use crate::report;
use crate::runner::{self, Progress};

use super::progress::Bar;

/// The correctness gate alone, for every implementation of the plan: nothing is timed
/// or stored.
pub(super) fn check(args: CheckArgs) -> Result<ExitCode> {
    let cpu = args.cpu.unwrap_or_else(machine::default_cpu);
    machine::check_cpu(cpu)?;
    let registry = crate::providers::builtin();
    let plan = experiment::plan(
        &args.targets,
        None,
        &crate::cimpl::BuildOptions {
            kat_dir: args.kat_dir.as_deref(),
            estimates: false,
            keep_going: args.keep_going,
        },
        &registry,
    )?;
    if args.kat_dir.is_some() && plan.external.is_empty() {
        eprintln!(
            "warning: --kat-dir applies to C implementations (manifests), and this check has none"
        );
    }
    let mut implementations: Vec<&str> = Vec::new();
    for c in &plan.cases {
        if !implementations.contains(&c.implementation.as_str()) {
            implementations.push(&c.implementation);
        }
    }
    if implementations.is_empty() {
        bail!(
            "nothing to check in `{}`: no implementation x target of its manifests can be built (see each variant's `requires` against its `targets`)",
            plan.name
        );
    }
    let progress = Bar::with_step_lines();
    progress.start(runner::gate_steps(&implementations, &plan.external) as u64);
    let Some(verdicts) = runner::verify_all(
        &implementations,
        &plan.cases,
        &plan.external,
        Some(cpu),
        args.timeout,
        false,
        &mut |what| {
            // `--timeout 0.5` is half a second, not "0 s".
            progress.step(&format!("{what} (up to {} s)", args.timeout.as_secs_f64()));
            true
        },
    )?
    else {
        bail!("the correctness gate stopped before its end");
    };
    let mut table = report::text_table(&["implementation", "verdict", "why"]);
    let mut unfit = 0;
    for (imp, verdict) in implementations.iter().zip(verdicts) {
        let (verdict, why, fails) = verdict.describe();
        unfit += usize::from(fails);
        table.add_row(vec![imp.to_string(), verdict.to_string(), why]);
    }
    progress.finish();
    print(&format!("{table}\n"))?;
    if unfit > 0 {
        eprintln!(
            "{unfit} implementation{} gave wrong output or failed",
            if unfit == 1 { "" } else { "s" }
        );
        return Ok(Exit::CasesFailed.into());
    }
    Ok(ExitCode::SUCCESS)
}
