//! One function per subcommand: validate, call the pipeline, print.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};

use crate::record::{AnalysisSpec, Case, Test, VerdictOptions};

use crate::analysis::{self};
use crate::catalog::registry::Registry;
use crate::cli::{CacheAction, CheckArgs, Command, ImportSource, InfoFormat, OutputArgs, RunArgs};
use crate::exit::Exit;
use crate::experiment::{self, BUILTIN};
use crate::history;
use crate::import;
use crate::machine::{self, Machine};
use crate::output::{check_writable, emit, print, write_atomically};
use crate::record::{AnalysisOptions, RunHeader, RunOptions, RunOrigin, SamplePlan, now};
use crate::report;
use crate::report::Format;
use crate::runner::{self, Progress};

use crate::store::Store;

pub fn dispatch(command: Command) -> Result<ExitCode> {
    match command {
        Command::Info { format } => info(format),
        Command::List { filter } => list(filter.as_deref()),
        Command::Run(args) => run(*args),
        Command::Check(args) => check(args),
        Command::Cache { action } => cache(action),
        Command::Report {
            run,
            format,
            output,
        } => report_run(&run, format, &output),
        Command::Compare {
            run_a,
            run_b,
            verdict,
            force,
            format,
            output,
        } => {
            check_writable(output.file.as_deref(), &output.db)?;
            let store = Store::open_existing(&output.db)?;
            let (id_a, id_b) = (store.resolve_run(&run_a)?, store.resolve_run(&run_b)?);
            if id_a == id_b {
                bail!(
                    "`{run_a}` and `{run_b}` are the same run ({id_a}): compare two different runs"
                );
            }
            let a = store.load_run(id_a)?;
            let b = store.load_run(id_b)?;
            if !force
                && let Some(why) = [&a.header, &b.header]
                    .into_iter()
                    .find_map(analysis::incomplete)
            {
                bail!(
                    "{why}; compare it once it is measured again in full, or use --force to compare what it has"
                );
            }
            let opts = verdict.into();
            let cmp = analysis::compare_runs(&a, &b, &opts, force)?;
            if cmp.comparisons.is_empty() && cmp.not_compared.is_empty() {
                bail!(
                    "runs {id_a} and {id_b} share no case, so there is nothing to compare (run {id_a} has {}; run {id_b} has {}); compare runs of the same implementations at the same sizes",
                    some_of(&cmp.only_in_a),
                    some_of(&cmp.only_in_b)
                );
            }
            let unit = b.header.counter.short_unit();
            emit(
                output.file.as_deref(),
                &report::render_comparison(&cmp, unit, &opts, format)?,
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Command::History {
            filter,
            format,
            output,
        } => {
            check_writable(output.file.as_deref(), &output.db)?;
            let store = Store::open_existing(&output.db)?;
            let h = history::collect(&store, filter.as_deref())?;
            emit(
                output.file.as_deref(),
                &report::history::render(&h, format)?,
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Import { source } => import_run(source),
        Command::Bulk(args) => crate::bulk::run(args),
        Command::Worker => unreachable!("handled in main"),
    }
}

fn info(format: InfoFormat) -> Result<ExitCode> {
    let m = Machine::detect();
    let chosen = crate::counter::CounterChoice::Auto
        .resolve()
        .map_err(anyhow::Error::msg)?;
    match format {
        InfoFormat::Json => {
            let mut v = serde_json::to_value(&m)?;
            v["chosen_counter"] = serde_json::json!({"counter": chosen, "unit": chosen.unit()});
            v["c_native"] = serde_json::to_value(crate::cimpl::estimate::native())?;
            print(&(serde_json::to_string_pretty(&v)? + "\n"))?;
        }
        InfoFormat::Text => {
            let n = crate::cimpl::estimate::native();
            let estimated = match (&n.mca_program, &n.mca_note) {
                (None, _) => "llvm-mca is not installed".to_string(),
                (Some(p), None) => {
                    format!("{p} estimates native builds with -mcpu={}", n.mca_model)
                }
                (Some(p), Some(why)) => {
                    format!(
                        "{p} estimates native builds with -mcpu={} ({why})",
                        n.mca_model
                    )
                }
            };
            print(&format!(
                "{}C native:   cc -march=native is {} here; {estimated}\n",
                report::machine_text(&m, chosen),
                n.cc_march.as_deref().unwrap_or("unknown (cc did not say)")
            ))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn list(filter: Option<&str>) -> Result<ExitCode> {
    if let Some(e) = BUILTIN.iter().find(|e| Some(e.name) == filter) {
        print(&experiment_plan(e))?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(arg) = filter.and_then(crate::cimpl::manifest_arg) {
        let (path, selection) = arg?;
        return list_manifest(&path, &selection);
    }
    let registry = Registry::builtin();
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
                op.params.join(", "),
            ]);
        }
    }
    if shown == 0 {
        bail!(
            "no implementation matches `{}`; run `cryptobench list` to see them all",
            filter.unwrap_or("")
        );
    }
    let mut text = format!("{table}\n\nExperiments:\n");
    for e in BUILTIN {
        text += &format!("  {:<16} {}\n", e.name, e.description);
    }
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// Every implementation x target of a manifest, read from it: nothing is built.
fn list_manifest(path: &std::path::Path, selection: &crate::cimpl::Selection) -> Result<ExitCode> {
    let listed = crate::cimpl::listing(path, selection)?;
    let mut table = report::text_table(&[
        "implementation",
        "kind",
        "operations",
        "parameters",
        "this CPU",
    ]);
    for l in &listed {
        table.add_row(vec![
            l.name.clone(),
            l.kind.clone(),
            l.operations.join(", "),
            l.params.join(", "),
            match &l.runnable {
                Ok(()) => "runs it".to_string(),
                Err(why) => why.clone(),
            },
        ]);
    }
    print(&format!(
        "{table}\n\n`cryptobench check {}` builds and checks them without timing; `cryptobench run {}` measures them.\n",
        path.display(),
        path.display()
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// The correctness gate alone, for every implementation of the plan: nothing is timed
/// or stored.
fn check(args: CheckArgs) -> Result<ExitCode> {
    let cpu = args.cpu.unwrap_or_else(machine::default_cpu);
    machine::check_cpu(cpu)?;
    let registry = Registry::builtin();
    let plan = experiment::plan(
        &args.targets,
        None,
        args.kat_dir.as_deref(),
        false,
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
    let progress = Bar::new();
    progress.start(implementations.len() as u64);
    let mut table = report::text_table(&["implementation", "verdict", "why"]);
    let mut unfit = 0;
    for imp in implementations {
        progress.step(&format!("checking {imp}"));
        let (verdict, why) = match runner::verify(imp, &plan.external, Some(cpu), args.timeout)? {
            runner::Verdict::Checked(notes) if notes.is_empty() => ("verified", String::new()),
            runner::Verdict::Checked(notes) => ("checked in part", notes.join("; ")),
            runner::Verdict::Unfit(status, why) => {
                use crate::record::CaseStatus;
                let word = match status {
                    CaseStatus::Wrong => "WRONG OUTPUT",
                    CaseStatus::Unsupported => "not supported on this CPU",
                    _ => "FAILED",
                };
                if status != CaseStatus::Unsupported {
                    unfit += 1;
                }
                (word, why)
            }
        };
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

fn cache(action: Option<CacheAction>) -> Result<ExitCode> {
    use crate::cimpl::cache;
    let format_size = cache::human;
    match action {
        None => {
            let s = cache::summary()?;
            print(&format!(
                "Build cache: {}{}\nBuilds:      {} ({} in all)\n`cryptobench cache clean` removes them (`--older-than 30d`: those not used for 30 days); the path is $CRYPTOBENCH_CACHE, else $XDG_CACHE_HOME/cryptobench, else ~/.cache/cryptobench.\n",
                s.path.display(),
                if s.exists { "" } else { " (not created yet)" },
                s.builds,
                format_size(s.bytes)
            ))?;
        }
        Some(CacheAction::Clean { older_than }) => {
            let c = cache::clean(older_than)?;
            print(&format!(
                "removed {} build{} ({}) from {}{}\n",
                c.removed_builds,
                if c.removed_builds == 1 { "" } else { "s" },
                format_size(c.removed_bytes),
                c.path.display(),
                if older_than.is_some() {
                    format!("; kept {} used more recently", c.kept_builds)
                } else {
                    String::new()
                }
            ))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What `run EXPERIMENT` would measure and compare, read from its definition: nothing is
/// built or measured.
fn experiment_plan(e: &experiment::Experiment) -> String {
    // A group's members share its parameters: the parameters once, above its members
    // (side by side, a member and a parameter point on one line would read as a pair).
    let mut groups = String::new();
    let mut cases = 0;
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
            groups += &format!("  {implementation} ({operation})\n");
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

fn experiment_counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A group's parameter points in a few words: a full grid by the values of each
/// parameter (`8 parameter points (ad 0, 13 x len 64, 576)`), else each point.
fn describe_points(points: &[crate::record::Params]) -> String {
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

fn run(args: RunArgs) -> Result<ExitCode> {
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
    let registry = Registry::builtin();
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
            &args.verdict.into(),
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
    let baseline_run = match &args.baseline {
        Some(name) => Some(
            store
                .resolve_run(name)
                .with_context(|| format!("--baseline {name}"))?,
        ),
        None => None,
    };

    let layouts = args.layouts as usize;
    let per_layout = (args.samples as usize).div_ceil(processes * layouts).max(1);
    let options = RunOptions {
        counter,
        cpu: Some(cpu),
        processes,
        layouts,
        plan: SamplePlan {
            samples: per_layout,
            ..SamplePlan::default()
        },
        timeout,
        seed: args.seed,
    };
    let analysis_options = AnalysisOptions {
        spec: plan.analysis.clone(),
        verdict: args.verdict.into(),
        baseline_run,
        force: args.force,
    };

    let machine = Machine::detect();
    let header = RunHeader::measured_now(
        &plan.name,
        counter,
        machine,
        RunOrigin::Measured {
            run: options.clone(),
            analysis: analysis_options,
        },
    );
    if let (Some(id), Some(name)) = (baseline_run, &args.baseline) {
        let gate = args
            .fail_on_regression
            .then(|| (args.verdict.into(), processes));
        check_baseline(&store, id, name, &header, &plan.cases, args.force, gate)?;
    }
    let run_id = store.begin_run(&header)?;
    for (name, spec) in &plan.external {
        if let Some(e) = &spec.estimate {
            store.add_estimate(run_id, name, e)?;
        }
    }
    let (_claim, shared) = machine::claim_cpu(cpu);
    if let Some(warning) = shared {
        eprintln!("warning: {warning}");
    }
    let interrupted = crate::interrupt::on_ctrl_c();
    let progress = Bar::new();
    let ended = runner::execute(
        &plan.cases,
        &plan.external,
        &options,
        &mut store,
        run_id,
        &progress,
        &interrupted,
    )
    .with_context(|| {
        format!(
            "run {run_id} stopped; the cases measured before are kept in `{}` (`cryptobench report {run_id}` prints them)",
            store.path().display()
        )
    })?;
    progress.finish();
    let finished = ended == runner::Ended::Finished;
    if finished {
        store.finish_run(run_id, &now())?;
        if let Some(name) = &args.save_baseline {
            store.save_baseline(name, run_id)?;
        }
    }

    let stored = store.load_run(run_id)?;
    let analysed = analyse_stored(&store, &stored)?;
    let stored_as = || {
        format!(
            "the results are stored as run {run_id} in `{}`: `cryptobench report {run_id}` prints them again",
            store.path().display()
        )
    };
    emit(
        args.output.file.as_deref(),
        &report::render(&analysed, args.format),
    )
    .with_context(stored_as)?;
    if let Some(path) = &args.html {
        write_atomically(path, &report::render(&analysed, Format::Html)).with_context(stored_as)?;
        eprintln!("wrote the HTML report to {}", path.display());
    }
    if !finished {
        // Its report says INCOMPLETE; a part of a run is no baseline, and its cases that
        // were never measured are not failures.
        eprintln!(
            "interrupted: run {run_id} keeps what was measured before Ctrl-C, marked incomplete ({}){}",
            stored_as(),
            if args.save_baseline.is_some() {
                "; not saved as a baseline"
            } else {
                ""
            }
        );
        return Ok(Exit::Interrupted.into());
    }
    if let Some(name) = &args.save_baseline {
        eprintln!(
            "saved run {run_id} as baseline `{name}` in {}",
            store.path().display()
        );
    }
    let unfit = unfit_cases(&stored);
    if !unfit.is_empty() {
        eprintln!(
            "{} case{} gave wrong output or failed (results stored as run {run_id}):",
            unfit.len(),
            if unfit.len() == 1 { "" } else { "s" }
        );
        for u in &unfit {
            eprintln!("  {u}");
        }
    }
    if args.fail_on_regression {
        let regressed = analysed.regressions();
        if !regressed.is_empty() {
            eprintln!(
                "regressions beyond the noise threshold, or comparisons that could not be made ({}):",
                regressed.len()
            );
            for r in regressed {
                eprintln!("  {r}");
            }
            return Ok(Exit::Regression.into());
        }
    }
    Ok(if unfit.is_empty() {
        ExitCode::SUCCESS
    } else {
        Exit::CasesFailed.into()
    })
}

/// A regression gate that could not fail must not be offered: refuse, before measuring,
/// one whose run compares nothing or has too few processes for any interval.
fn check_gate_can_decide(
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
fn check_baseline(
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
        .filter(|c| keys.contains(&c.key) && !c.clusters.is_empty())
        .map(|c| c.clusters.len())
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

/// The first few of `keys`, for an error message.
fn some_of(keys: &[String]) -> String {
    const SHOWN: usize = 3;
    let shown: Vec<String> = keys.iter().take(SHOWN).map(|k| format!("`{k}`")).collect();
    match keys.len() {
        0 => "no case".into(),
        n if n <= SHOWN => shown.join(", "),
        n => format!("{} and {} more", shown.join(", "), n - SHOWN),
    }
}

/// Each memory layout of a case holds its own message and output buffers, and a worker
/// prepares all its layouts up front: refuse what would run the machine out of memory
/// (the worker would die of it, with the real reason buried in its stderr).
fn check_memory(cases: &[Case], layouts: u64) -> Result<()> {
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
fn check_baseline_name(name: &str) -> Result<()> {
    if name.trim().is_empty() || name == "latest" || name.parse::<i64>().is_ok() {
        bail!(
            "--save-baseline {name:?}: a baseline needs a name that is not empty, not a number (run ids are) and not `latest`, e.g. `main`"
        );
    }
    Ok(())
}

/// The cases that gave wrong output, crashed, hung or could not be loaded: a run with
/// any of them ends with [`Exit::CasesFailed`]. A case this CPU cannot run is not one.
fn unfit_cases(run: &crate::store::StoredRun) -> Vec<String> {
    use crate::record::CaseStatus;
    run.cases
        .iter()
        .filter(|c| {
            matches!(
                c.status,
                CaseStatus::Wrong | CaseStatus::Failed | CaseStatus::Pending
            )
        })
        .map(|c| {
            format!(
                "{}: {}",
                c.key,
                c.message.as_deref().unwrap_or("not measured")
            )
        })
        .collect()
}

fn report_run(run: &str, format: Format, output: &OutputArgs) -> Result<ExitCode> {
    check_writable(output.file.as_deref(), &output.db)?;
    let store = Store::open_existing(&output.db)?;
    let stored = store.load_run(store.resolve_run(run)?)?;
    emit(
        output.file.as_deref(),
        &render_stored(&store, &stored, format)?,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// A stored run in `format`, as `run` or `bulk` printed it: a bulk run in the tables
/// `bulk` prints; the exports (Bencher, github-action-benchmark) take its cases like any
/// run's.
pub(crate) fn render_stored(
    store: &Store,
    stored: &crate::store::StoredRun,
    format: Format,
) -> Result<String> {
    crate::report::Doc::Run.check(format)?;
    if matches!(stored.header.options, RunOrigin::Bulk { .. }) && crate::bulk::prints(format) {
        crate::bulk::render(stored, format)
    } else {
        Ok(report::render(&analyse_stored(store, stored)?, format))
    }
}

fn import_run(source: ImportSource) -> Result<ExitCode> {
    let (db, parsed) = match &source {
        ImportSource::Criterion { dir, unit, db } => (db, import::criterion::read(dir, *unit)?),
        ImportSource::OpensslSpeed { file, db } => (db, import::openssl_speed::read(file)?),
    };
    let mut store = Store::open(db)?;
    let run_id = import::store(&mut store, &parsed, &now())?;
    for w in &parsed.warnings {
        eprintln!("warning: {w}");
    }
    print(&format!(
        "imported {} case{} from {} as run {run_id} ({}) into {}\n",
        parsed.cases.len(),
        if parsed.cases.len() == 1 { "" } else { "s" },
        parsed.source,
        parsed.counter.unit(),
        store.path().display()
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// Analyse a stored run with what it refers to in the store: its baseline run and the
/// estimates of its C builds.
fn analyse_stored(store: &Store, run: &crate::store::StoredRun) -> Result<analysis::Analysis> {
    let baseline = analysis::options_of(&run.header)?
        .and_then(|o| o.baseline_run)
        .map(|id| store.load_run(id))
        .transpose()?;
    let context = analysis::Context {
        baseline,
        estimates: store.estimates(run.header.id)?,
    };
    analysis::analyse(run, &context)
}

/// A progress bar on stderr when it is a terminal; plain notes otherwise.
struct Bar(Option<ProgressBar>);

impl Bar {
    fn new() -> Bar {
        Bar(std::io::stderr().is_terminal().then(|| {
            let pb = ProgressBar::new(0);
            pb.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed_precise} {msg}")
                    .expect("valid template"),
            );
            pb
        }))
    }
    fn finish(&self) {
        if let Some(pb) = &self.0 {
            pb.finish_and_clear();
        }
    }
}

impl Progress for Bar {
    fn start(&self, total_steps: u64) {
        if let Some(pb) = &self.0 {
            pb.set_length(total_steps);
        }
    }
    fn step(&self, what: &str) {
        if let Some(pb) = &self.0 {
            pb.inc(1);
            pb.set_message(what.to_string());
        }
    }
    fn note(&self, line: &str) {
        match &self.0 {
            Some(pb) => pb.println(line),
            None => eprintln!("{line}"),
        }
    }
}
