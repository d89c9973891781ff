//! One run's life, whatever measures it: begun in the store, measured with Ctrl-C kept,
//! finished (and saved as a baseline), loaded back, printed as every report of it is,
//! what went wrong said, and the exit status chosen. `run` measures in worker rounds
//! ([`crate::runner`]), `bulk` on pinned threads (the CLI's `bulk`); both live it here.

use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use anyhow::{Context, Result};

use crate::analysis::fleet::RunFigures;
use crate::analysis::{self, Analysis};
use crate::build_info::Library;
use crate::exit::Exit;
use crate::machine::Machine;
use crate::output::{emit, write_atomically};
use crate::plan::Plan;
use crate::preflight::{
    check_baseline, check_baseline_not_narrowed, left_out_of, narrows_baseline,
    warn_of_another_machine,
};
use crate::record::{
    AnalysisOptions, CaseStatus, CodeRevision, MachineRecord, RunHeader, RunOptions, RunOrigin,
    RunPlace, VerdictOptions, now,
};
use crate::report::{self, Doc, Format};
use crate::runner::{Ended, Progress};
use crate::store::{Store, StoredCase, StoredRun};

/// Where and how a run is printed once measured, and what ends it with a failure.
pub struct Finish<'a> {
    /// The format of the report printed (or written to `file`).
    pub format: Format,
    /// `-o`: the report written here instead of standard output.
    pub file: Option<&'a Path>,
    /// `--html`: the HTML report written here as well.
    pub html: Option<&'a Path>,
    /// `--save-baseline`: a finished run is saved under this name, if it passes the
    /// baseline's quality check ([`baseline_faults`]) or `force_baseline` is set.
    pub save_baseline: Option<&'a str>,
    /// `--force-baseline`: save the baseline even if it fails the quality check.
    pub force_baseline: bool,
    /// `--fail-on-regression`: a regression beyond the noise threshold ends the run with
    /// [`Exit::Regression`].
    pub fail_on_regression: bool,
}

/// How a plan is measured and judged: what `cryptobench run` and a `cargo bench` harness
/// share, so that the two cannot drift apart.
pub struct Measurement<'a> {
    /// The worker rounds: counter, CPU, processes, layouts, samples, time limit, seed,
    /// re-measuring, canary.
    pub options: RunOptions,
    /// The verdicts' test, significance and noise threshold.
    pub verdict: VerdictOptions,
    /// `--baseline`: the saved run of this testbed to compare with.
    pub baseline: Option<&'a str>,
    /// `--force`: compare with a baseline measured with other options.
    pub force: bool,
    /// `--testbed`: the machine's name in the store.
    pub testbed: Option<&'a str>,
    /// Whose git revision the run records.
    pub revision: CodeRevision,
    /// The libraries the plan's implementations come from, for the run's record: those of
    /// its catalog implementations (`cryptobench_providers::libraries_of`), or none that
    /// the caller knows of.
    pub libraries: Vec<Library>,
}

/// Measure `plan` into `store` as `how` says, and finish it as `finish` says: the machine
/// recorded (with the simulated CPU's features under `--counter instructions`), the
/// baseline resolved on this testbed and checked against the plan, the manifests' static
/// estimates stored beside the run, the CPU claimed, and the cases measured in worker
/// rounds. The checks that need no store (the gate, memory) are the caller's, before it
/// opens one. The exit status, and the run's UUID (what `--push-to` copies).
pub fn measure_plan(
    store: &mut Store,
    plan: &Plan,
    how: Measurement<'_>,
    finish: Finish<'_>,
    progress: &dyn Progress,
) -> Result<(ExitCode, String)> {
    let counter = how.options.counter;
    if let Some(left_out) = crate::preflight::tables_left_out(
        &plan.analysis,
        how.options.processes,
        &how.options.remeasure,
    ) {
        eprintln!("warning: {left_out}");
    }
    let mut machine = Machine::detect();
    if let Some(build) = &mut machine.build {
        build.libraries = how.libraries.clone();
    }
    // Held until the run ends; a run already measuring on the CPU is said in this run's
    // record, which every report of it repeats, not only on this terminal.
    let (_claim, shared) = how.options.cpu.map(crate::machine::claim_cpu).unzip();
    if let Some(warning) = shared.flatten() {
        eprintln!("warning: {warning}");
        machine.warnings.push(warning);
    }
    if counter.simulated() {
        machine.simulated_with(crate::runner::simulated_crypto_flags(how.options.timeout)?);
    }
    let place = RunPlace::new_run(
        &MachineRecord::Measured(Box::new(machine.clone())),
        &machine.cpu_identity(),
        how.testbed,
    );
    warn_of_another_machine(store, &place)?;
    // `--baseline main` is main on this testbed.
    let baseline_run = match how.baseline {
        Some(name) => Some(
            store
                .resolve_baseline_of_run(name, &place.testbed, &plan.name)
                .with_context(|| format!("--baseline {name}"))?,
        ),
        None => None,
    };
    // Its UUID travels with the run: the id means another run in a store it is pushed to.
    let baseline_uuid = match baseline_run {
        Some(id) => store.uuid_of_run(id)?.filter(|u| !u.is_empty()),
        None => None,
    };
    if let Some(name) = finish.save_baseline
        && !finish.force_baseline
    {
        check_baseline_not_narrowed(store, name, &place.testbed, &plan.name, &plan.cases)?;
    }
    let mut header = RunHeader::measured_now(
        &plan.name,
        counter,
        machine,
        RunOrigin::Measured {
            run: how.options.clone(),
            analysis: AnalysisOptions {
                spec: plan.analysis.clone(),
                verdict: how.verdict,
                baseline_run,
                baseline_uuid,
                force: how.force,
            },
        },
        None,
    );
    header.place = place;
    if let CodeRevision::Checkout(revision) = &how.revision {
        header.git_revision = revision.clone();
    }
    if let (Some(id), Some(name)) = (baseline_run, how.baseline) {
        let gate = finish
            .fail_on_regression
            .then_some((how.verdict, how.options.processes));
        check_baseline(store, id, name, &header, &plan.cases, how.force, gate)?;
    }
    let uuid = header.place.uuid.clone();
    run(store, &header, finish, |store, run_id, interrupted| {
        for (name, spec) in &plan.external {
            if let Some(e) = &spec.estimate {
                store.add_estimate(run_id, name, e)?;
            }
        }
        let ended = crate::runner::execute(
            &plan.cases,
            &plan.external,
            &how.options,
            store,
            run_id,
            progress,
            interrupted,
        );
        progress.finish();
        ended
    })
    .map(|exit| (exit, uuid))
}

/// Run `run_id`'s figures for reports across machines: as stored beside it, else computed
/// from its samples and stored, where the store can be written (a store this user may
/// only read is still reported from).
pub fn figures_of_run(store: &Store, run_id: i64) -> Result<RunFigures> {
    if let Some(figures) = RunFigures::stored(store, run_id)? {
        return Ok(figures);
    }
    let figures = RunFigures::computed(store, run_id)?;
    let _ = save_figures(store, run_id, &figures);
    Ok(figures)
}

fn save_figures(store: &Store, run_id: i64, figures: &RunFigures) -> Result<()> {
    store.save_figures(
        run_id,
        crate::analysis::fleet::FIGURES_VERSION,
        &serde_json::to_string(figures).expect("figures serialise"),
    )
}

/// Begin a run of `header` in `store`, `measure` it (until done, or until Ctrl-C sets the
/// flag it is given), and finish it: everything measured is in the store before anything
/// is printed, so a failure to print, or to measure the rest, loses none of it.
pub fn run(
    store: &mut Store,
    header: &RunHeader,
    finish: Finish<'_>,
    measure: impl FnOnce(&mut Store, i64, &AtomicBool) -> Result<Ended>,
) -> Result<ExitCode> {
    let run_id = store.begin_run(header)?;
    // The command that prints a stored run, whole: a bench's store is not the CLI's
    // default, and its author may not have the CLI at hand.
    let report = format!(
        "`cryptobench report {run_id} --db {}`",
        store.path().display()
    );
    let interrupted = crate::interrupt::on_ctrl_c();
    let ended = match measure(store, run_id, &interrupted) {
        Ok(ended) => ended,
        Err(e) => {
            // Marked stopped where the store still takes writes (a server back after a
            // lost connection), or every report says "or still measuring" for good.
            let _ = store.stop_run(run_id, &now());
            return Err(e.context(format!(
                "run {run_id} stopped; the cases measured before are kept in `{}` ({report} prints them)",
                store.path().display()
            )));
        }
    };
    let finished = ended == Ended::Finished;
    let stored_as = || {
        format!(
            "the results are stored as run {run_id} in `{}`: {report} prints them again",
            store.path().display()
        )
    };
    // Every case is in the store by now: whatever fails from here on says where they are.
    let kept = || {
        format!(
            "every case of run {run_id} is kept in `{}` ({report} prints them once the store can be read)",
            store.path().display()
        )
    };
    if finished {
        store.finish_run(run_id, &now()).with_context(kept)?;
    } else if let Err(e) = store.stop_run(run_id, &now()) {
        // Its report then cannot tell it stopped from still measuring; nothing measured
        // is lost, so the report is still printed.
        eprintln!("warning: {:#}", e.context(kept()));
    }

    let stored = store.load_run(run_id).with_context(kept)?;
    let analysed = match &stored.header.options {
        RunOrigin::Bulk { .. } => None,
        _ => Some(analyse_stored(store, &stored).with_context(kept)?),
    };
    if finished
        && let Some(a) = &analysed
        // Kept beside the run, for reports across machines (`report --machines`): a
        // cache, computed again where missing, so failing to keep it must not stand
        // between the run and its report, its baseline and its gate.
        && let Err(e) = save_figures(store, run_id, &RunFigures::of(a))
    {
        eprintln!(
            "warning: {:#}",
            e.context(format!(
                "run {run_id}'s figures were not kept beside it (`report --machines` computes them again)"
            ))
        );
    }
    // A baseline every later run is judged against must itself be steady and whole, and
    // must not judge fewer cases than the one it replaces.
    let replaced = match finish.save_baseline {
        Some(name) if finished => store
            .baseline(
                name,
                &stored.header.place.testbed,
                &stored.header.experiment,
            )
            .with_context(kept)?,
        _ => None,
    };
    let baseline_refused = match (finished, finish.save_baseline, &analysed) {
        (true, Some(name), Some(a)) if !finish.force_baseline => {
            let mut faults = baseline_faults(a);
            faults.extend(slower_than_known(store, a).with_context(kept)?);
            if let Some(old) = replaced {
                faults.extend(dropped_from(store, name, old, &stored).with_context(kept)?);
            }
            faults
        }
        _ => Vec::new(),
    };
    if finished
        && baseline_refused.is_empty()
        && let Some(name) = finish.save_baseline
    {
        store
            .save_baseline(name, run_id)
            .with_context(|| format!("not saved as baseline `{name}`"))
            .with_context(kept)?;
    }
    let render = |format| match &analysed {
        Some(a) => Ok(report::render(a, format)),
        None => render_stored(store, &stored, format),
    };
    emit(finish.file, &render(finish.format)?).with_context(stored_as)?;
    if let Some(path) = finish.html {
        write_atomically(path, &render(Format::Html)?).with_context(stored_as)?;
        eprintln!("wrote the HTML report to {}", path.display());
    }
    if !finished {
        // Its report says INCOMPLETE; a part of a run is no baseline, and its cases that
        // were never measured are not failures.
        eprintln!(
            "interrupted: run {run_id} keeps what was measured before it was stopped (Ctrl-C, SIGTERM), marked incomplete ({}){}",
            stored_as(),
            if finish.save_baseline.is_some() {
                "; not saved as a baseline"
            } else {
                ""
            }
        );
        return Ok(Exit::Interrupted.into());
    }
    if let Some(name) = finish.save_baseline {
        if !baseline_refused.is_empty() {
            eprintln!(
                "not saved as baseline `{name}`: run {run_id} is not fit to judge later runs by ({}); measure again, or save it anyway with --force-baseline:",
                stored_as()
            );
            for fault in &baseline_refused {
                eprintln!("  {fault}");
            }
        } else {
            eprintln!(
                "saved run {run_id} as baseline `{name}` in {}{}",
                store.path().display(),
                match replaced {
                    Some(old) if old != run_id => format!(" (it was run {old})"),
                    _ => String::new(),
                }
            );
        }
    }
    let unfit = unfit_cases(&stored);
    if !unfit.is_empty() {
        let count = stored.cases.iter().filter(|c| is_unfit(c)).count();
        eprintln!(
            "{count} case{} gave wrong output or failed (results stored as run {run_id}):",
            if count == 1 { "" } else { "s" }
        );
        for u in &unfit {
            eprintln!("  {u}");
        }
    }
    if finish.fail_on_regression
        && let Some(analysed) = &analysed
    {
        let gate = analysed.gate();
        if !gate.regressions.is_empty() {
            eprintln!(
                "regressions beyond the noise threshold, or comparisons that could not be made ({}):",
                gate.regressions.len()
            );
            for r in &gate.regressions {
                eprintln!("  {r}");
            }
        }
        if !gate.undecided.is_empty() {
            eprintln!(
                "the regression gate could not decide ({}); measure again, e.g. retry the job:",
                gate.undecided.len()
            );
            for u in &gate.undecided {
                eprintln!("  {u}");
            }
        }
        if !gate.regressions.is_empty() {
            return Ok(Exit::Regression.into());
        }
        if !gate.undecided.is_empty() {
            return Ok(Exit::Undecided.into());
        }
    }
    Ok(if !unfit.is_empty() {
        Exit::CasesFailed.into()
    } else if !baseline_refused.is_empty() {
        Exit::Undecided.into()
    } else {
        ExitCode::SUCCESS
    })
}

/// A stored run in `format`, as `run` or `bulk` printed it: a bulk run in the tables
/// `bulk` prints; the exports (Bencher, github-action-benchmark) take its cases like any
/// run's.
pub fn render_stored(store: &Store, stored: &StoredRun, format: Format) -> Result<String> {
    Doc::Run.check(format)?;
    if matches!(stored.header.options, RunOrigin::Bulk { .. })
        && let Some(tables) = report::bulk::render(stored, format)
    {
        return Ok(tables);
    }
    Ok(report::render(&analyse_stored(store, stored)?, format))
}

/// Analyse a stored run with what it refers to in the store: its baseline run and the
/// estimates of its C builds.
pub fn analyse_stored(store: &Store, run: &StoredRun) -> Result<Analysis> {
    let (baseline, baseline_left_out) = match analysis::options_of(&run.header)? {
        Some(options) => baseline_in(store, &run.header, &options)?,
        None => (None, None),
    };
    let context = analysis::Context {
        baseline,
        estimates: store.estimates(run.header.id)?,
    };
    let mut analysed = analysis::analyse(run, &context)?;
    analysed.baseline_left_out = baseline_left_out;
    Ok(analysed)
}

/// The baseline `options` name for run `header`, as found in `store`, or why this run is
/// printed without it. A run names its baseline by UUID, which means the same run in
/// every store it is pushed to; one recorded before the UUID was names it by the row id
/// of the store it was measured in, which a store it was pushed into cannot tell from
/// its own run of that id: that id is taken only where its run could have been the
/// baseline (docs/fleet.md). In either case no verdict is given across two machines.
fn baseline_in(
    store: &Store,
    header: &RunHeader,
    options: &AnalysisOptions,
) -> Result<(Option<StoredRun>, Option<String>)> {
    let left_out = |why: String| Ok((None, Some(why)));
    let base = match (&options.baseline_uuid, options.baseline_run) {
        (Some(uuid), _) => match store.run_by_uuid(uuid)? {
            Some(id) => store.load_run(id)?,
            None => {
                return left_out(format!(
                    "baseline run {uuid} is not in this store: push it too to see this run against it"
                ));
            }
        },
        (None, Some(id)) => {
            let by_id = || {
                format!(
                    "baseline run {id} (named by the row id of the store this run was measured in, as versions before the baseline's UUID was recorded did)"
                )
            };
            if id == header.id || store.uuid_of_run(id)?.is_none() {
                return left_out(format!(
                    "{} is not in this store: the run was pushed here from another",
                    by_id()
                ));
            }
            let base = store.load_run(id)?;
            if base.header.started_at > header.started_at {
                return left_out(format!(
                    "{} is not this store's run {id}, which started after this run: the run was pushed here from another",
                    by_id()
                ));
            }
            base
        }
        (None, None) => return Ok((None, None)),
    };
    if let Some((there, here)) = analysis::other_machines(&base.header, header) {
        return left_out(format!(
            "baseline run {} was measured on another machine ({there}) than this run ({here}): not compared, as {}",
            base.header.id,
            analysis::NO_VERDICT_ACROSS_MACHINES
        ));
    }
    Ok((Some(base), None))
}

/// Why a finished run should not become a baseline: cases whose processes ran while the
/// host was in another state too often to be set aside (by the canary), and cases whose
/// steady processes still disagree by more than the noise threshold (the third quartile
/// of their medians over the first), so that a later run's verdict would hang on how
/// this one's processes fell.
pub fn baseline_faults(a: &Analysis) -> Vec<String> {
    let threshold = a.verdict_options.noise_threshold_pct;
    a.cases
        .iter()
        .filter_map(|c| {
            // A broken case in the baseline would let the same case pass broken later.
            if matches!(c.status, CaseStatus::Wrong | CaseStatus::Failed) {
                return Some(format!(
                    "{}: {}",
                    c.key,
                    match c.status {
                        CaseStatus::Wrong => "gave wrong output",
                        _ => "failed",
                    }
                ));
            }
            if c.unsteady {
                return Some(format!(
                    "{}: the host moved (by the canary) in most of its processes",
                    c.key
                ));
            }
            let spread = c.measured.as_ref()?.process_spread_pct?;
            (spread > threshold).then(|| {
                format!(
                    "{}: its processes' medians lie {spread:.1} % apart (more than the {threshold} % noise threshold)",
                    c.key
                )
            })
        })
        .collect()
}

/// Why run `run_id`, pushed into `store` under a baseline name of its source, should not
/// be that name's run there: the checks `--save-baseline` makes ([`baseline_faults`],
/// and the canary against the fastest state `store`'s own runs of the machine have shown),
/// so that a name the source's checks let through is judged by the runs the target
/// knows, not only by those the source did. A run saved with `--force-baseline` (as its
/// recorded command line says) passed them by its user's word, and is taken so here too;
/// as at the source, a run `run` does not analyse (`bulk`'s, an import's) has none. The
/// narrowing check is the store's own ([`crate::store::BaselineReceived::KeptWider`]).
pub fn faults_as_pushed_baseline(store: &Store, run_id: i64) -> Result<Vec<String>> {
    let stored = store.load_run(run_id)?;
    let RunOrigin::Measured { run, .. } = &stored.header.options else {
        return Ok(Vec::new());
    };
    if run.command_line.iter().any(|a| a == "--force-baseline") {
        return Ok(Vec::new());
    }
    let analysed = analyse_stored(store, &stored)?;
    let mut faults = baseline_faults(&analysed);
    faults.extend(slower_than_known(store, &analysed)?);
    Ok(faults)
}

/// The cases of baseline `name` (run `old`) that `run` would drop from every later gate,
/// said as one fault: a run of a few cases saved over a whole baseline would otherwise
/// leave the others unjudged, and a regression in them would pass.
fn dropped_from(store: &Store, name: &str, old: i64, run: &StoredRun) -> Result<Vec<String>> {
    if old == run.header.id {
        return Ok(Vec::new());
    }
    let dropped = left_out_of(store, old, |key| run.cases.iter().any(|c| c.key == key))?;
    Ok((!dropped.is_empty())
        .then(|| {
            format!(
                "{}; measure them too, or name another baseline",
                narrows_baseline(name, old, &dropped, "did not measure")
            )
        })
        .into_iter()
        .collect())
}

/// Why a steady run is still a poor baseline: its canary says the host was in a slower
/// state than the fastest one this store has seen on this machine (a baseline taken in
/// the slow state would call every later run in the normal one "improved", and hide a
/// regression as large as the difference). Another machine of the same CPU model (a
/// faster sibling, bare metal beside a VM) is no state this one could be in.
fn slower_than_known(store: &Store, a: &Analysis) -> Result<Vec<String>> {
    let Some(host) = a.host.as_ref().filter(|h| h.settled()) else {
        return Ok(Vec::new());
    };
    let place = &a.header.place;
    let stored = store.canary_readings(
        &host.canary,
        &place.testbed,
        &place.fingerprint,
        &a.header.counter.to_string(),
    )?;
    Ok(analysis::best_known_state(host, a.header.id, &stored)
        .filter(|(_, best)| 100.0 * (host.reference / best - 1.0) > host.threshold_pct)
        .map(|(run, best)| {
            format!(
                "the host was in a slower state than it has been: the canary took {:+.1} % over run {run}'s on this machine, testbed `{}` (steady within ±{:.1} %)",
                100.0 * (host.reference / best - 1.0),
                place.testbed,
                host.threshold_pct
            )
        })
        .into_iter()
        .collect())
}

/// Whether a case gave wrong output, crashed, hung, could not be loaded or was never
/// measured: a run with any of them ends with [`Exit::CasesFailed`]. A case this CPU
/// cannot run is not one.
fn is_unfit(case: &StoredCase) -> bool {
    matches!(
        case.status,
        CaseStatus::Wrong | CaseStatus::Failed | CaseStatus::Pending
    )
}

/// The cases that gave wrong output, failed or were never measured, a line each; the
/// cases of one implementation that failed the same way share a line (a build wrong at
/// one length is refused at every length of the run, for the one reason).
fn unfit_cases(run: &StoredRun) -> Vec<String> {
    let mut groups: Vec<(&str, &str, Vec<&StoredCase>)> = Vec::new();
    for c in run.cases.iter().filter(|c| is_unfit(c)) {
        let why = c.message.as_deref().unwrap_or("not measured");
        match groups
            .iter_mut()
            .find(|(imp, msg, _)| *imp == c.implementation && *msg == why)
        {
            Some((_, _, cases)) => cases.push(c),
            None => groups.push((&c.implementation, why, vec![c])),
        }
    }
    groups
        .into_iter()
        .map(|(imp, why, cases)| match cases.as_slice() {
            [one] => format!("{}: {why}", one.key),
            many => {
                let which: Vec<String> = many
                    .iter()
                    .map(|c| {
                        format!("{} {}", c.operation, c.params)
                            .trim_end()
                            .to_string()
                    })
                    .collect();
                format!("{imp} ({} cases: {}): {why}", many.len(), which.join(", "))
            }
        })
        .collect()
}
