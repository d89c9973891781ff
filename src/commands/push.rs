//! `cryptobench push` and `run --push-to`: complete runs copied to another store, one
//! transaction per run, keyed by UUID.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use crate::exit::Exit;
use crate::output::print;
use crate::record::RunOrigin;
use crate::store::raw::{Conflict, DamagedDigest, Received, short_digest};
use crate::store::{BaselineReceived, Store};

/// What a push did, run by run.
#[derive(Default)]
struct Tally {
    copied: usize,
    completed: usize,
    already: usize,
    /// Runs of the sources that never ended (stopped, killed, or still running).
    incomplete: usize,
    conflicts: Vec<String>,
    /// The UUIDs refused as conflicts, whose baselines are not pushed either.
    refused: Vec<String>,
    /// Baselines the target takes from the sources, as `NAME (TESTBED)`.
    baselines: Vec<String>,
    /// The target's hardware fingerprints (and CPUs) of each testbed met so far.
    machines: HashMap<String, Vec<(String, String)>>,
}

pub(super) fn push(to: &Path, from: &[PathBuf], db: &Path) -> Result<ExitCode> {
    let (sources, option): (Vec<PathBuf>, _) = if from.is_empty() {
        (vec![db.to_path_buf()], crate::store::db_option())
    } else {
        (from.to_vec(), "--from")
    };
    // Every source is opened before the target is written: a misspelt one is found
    // before anything is copied.
    let sources = sources
        .iter()
        .map(|s| Store::open_existing_named(s, option))
        .collect::<Result<Vec<Store>>>()?;
    let target = Store::open_named(to, "--to")?;
    // Pushing a store into itself copies nothing, and says so rather than "0 copied,
    // N already there", which reads as a push that went through.
    if let Some(same) = sources.iter().find(|s| s.is_same_store(&target)) {
        bail!(
            "--to `{}` is the store {option} `{}` names: a push copies runs from one store into another; name another --to",
            target.path().display(),
            same.path().display()
        );
    }
    let mut tally = Tally::default();
    for source in &sources {
        copy_all(source, &target, &mut tally)?;
        let set = copy_baselines(source, &target, |uuid| {
            !tally.refused.iter().any(|r| r == uuid)
        })?;
        tally.baselines.extend(set);
    }
    let names: Vec<String> = sources
        .iter()
        .map(|s| format!("`{}`", s.path().display()))
        .collect();
    print(&format!(
        "pushed {} to `{}`: {} run{} copied, {} completed (an incomplete copy replaced), {} already there{}{}{}\n",
        names.join(", "),
        target.path().display(),
        tally.copied,
        if tally.copied == 1 { "" } else { "s" },
        tally.completed,
        tally.already,
        match tally.refused.len() {
            0 => String::new(),
            n => format!(", {n} refused (other content there under the same UUID)"),
        },
        match tally.incomplete {
            0 => String::new(),
            n => format!(
                "; {n} incomplete run{} left out (stopped before it ended, or still running: only complete runs are pushed)",
                if n == 1 { "" } else { "s" }
            ),
        },
        baselines_said(&tally.baselines),
    ))?;
    if tally.conflicts.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    for c in &tally.conflicts {
        eprintln!("error: {c}");
    }
    Ok(Exit::Error.into())
}

/// Every complete run of `source` into `target`; a run that conflicts is refused and
/// the push goes on with the others; a failure of the target stops it, naming the run
/// and what reached the target before it (kept there: each run is its own transaction).
fn copy_all(source: &Store, target: &Store, tally: &mut Tally) -> Result<()> {
    let complete = source.complete_runs()?;
    tally.incomplete += source.runs()?.len().saturating_sub(complete.len());
    for (id, uuid) in complete {
        let kept = tally.copied + tally.completed;
        let (raw, digest) = source.raw_run(id).with_context(|| {
            format!(
                "reading run {id} ({uuid}) of `{}`: it was not pushed; {kept} run{} copied before it {} kept in `{}`",
                source.path().display(),
                if kept == 1 { "" } else { "s" },
                if kept == 1 { "is" } else { "are" },
                target.path().display()
            )
        })?;
        let (testbed, fingerprint, cpu_model) = raw.machine();
        // The target's machines of that testbed, read once and kept as runs arrive.
        let seen = match tally.machines.entry(testbed.clone()) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(target.testbed_fingerprints(&testbed)?),
        };
        let new_hardware = !seen.iter().any(|(f, _)| *f == fingerprint);
        let received = target.receive_run(&raw, &digest);
        if new_hardware && received.is_ok() {
            // A testbed seen before on other hardware is said, as `run` says it, never
            // silently joined.
            if let Some((was, cpu)) = seen.last() {
                eprintln!(
                    "warning: testbed `{testbed}` in `{}` was until now a machine with CPU `{cpu}` (fingerprint {was}); run {id} of `{}` is from other hardware (fingerprint {fingerprint}): kept apart as another machine of that testbed, compared only with its own",
                    target.path().display(),
                    source.path().display()
                );
            }
            seen.push((fingerprint, cpu_model));
        }
        match received {
            Ok(Received::Copied) => tally.copied += 1,
            Ok(Received::Completed) => tally.completed += 1,
            Ok(Received::AlreadyThere) => tally.already += 1,
            Err(e) if e.is::<Conflict>() => {
                let conflict = e.downcast_ref::<Conflict>().expect("checked");
                tally.conflicts.push(format!(
                    "run {id} of `{}` ({uuid}) is also in `{}` with other content (digest {} there, {} here): refused, neither changed",
                    source.path().display(),
                    target.path().display(),
                    short_digest(&conflict.theirs),
                    short_digest(&conflict.ours)
                ));
                tally.refused.push(uuid);
            }
            // Pushing again would meet it again: refused as a conflict is, naming it.
            Err(e) if e.is::<DamagedDigest>() => {
                tally.conflicts.push(format!("{e:#}"));
                tally.refused.push(uuid);
            }
            Err(e) => {
                return Err(e.context(format!(
                    "pushing run {id} ({uuid}) of `{}` to `{}`: it was not copied; the {} run{} copied before it are kept there, and pushing again copies the rest",
                    source.path().display(),
                    target.path().display(),
                    tally.copied + tally.completed,
                    if tally.copied + tally.completed == 1 { "" } else { "s" }
                )));
            }
        }
    }
    Ok(())
}

/// The baselines of `source` whose runs `wanted` takes by UUID, given to `target` (which
/// holds those runs by now); what the target took, as `NAME (TESTBED)`. A baseline the
/// target has on a run that started later is kept, and said.
fn copy_baselines(
    source: &Store,
    target: &Store,
    wanted: impl Fn(&str) -> bool,
) -> Result<Vec<String>> {
    let mut set = Vec::new();
    for (testbed, name, uuid) in source.baselines()? {
        if !wanted(&uuid) {
            continue;
        }
        let context = || {
            format!(
                "pushing baseline `{name}` of testbed `{testbed}` from `{}` to `{}` (its runs are there)",
                source.path().display(),
                target.path().display()
            )
        };
        // Judged by the target's runs of the machine, as `--save-baseline` there would
        // judge it; a name the target has on that run already needs no judging.
        let faults = match target.run_by_uuid(&uuid)? {
            Some(run) => {
                // A baseline is a name of its run's experiment (the header alone is read).
                let experiment = target.load_run_where(run, |_| false)?.header.experiment;
                if target.baseline(&name, &testbed, &experiment)? != Some(run) {
                    crate::session::faults_as_pushed_baseline(target, run).with_context(context)?
                } else {
                    Vec::new()
                }
            }
            None => Vec::new(),
        };
        match target
            .receive_baseline(&testbed, &name, &uuid, &faults)
            .with_context(context)?
        {
            BaselineReceived::Set => set.push(format!("{name} ({testbed})")),
            BaselineReceived::AlreadyThere => {}
            BaselineReceived::KeptNewer(theirs) => eprintln!(
                "note: baseline `{name}` of testbed `{testbed}` in `{}` is run {theirs}, which started after run {uuid} that `{}` saves under that name: kept",
                target.path().display(),
                source.path().display()
            ),
            BaselineReceived::KeptWider {
                run,
                uuid: theirs,
                left_out,
            } => eprintln!(
                "note: baseline `{name}` of testbed `{testbed}` in `{}` is run {run} ({theirs}), which has {} case{} that run {uuid}, which `{}` saves under that name, did not measure ({}): kept, so that they are still judged (there, `--save-baseline {name}` refuses such a run too)",
                target.path().display(),
                left_out.len(),
                if left_out.len() == 1 { "" } else { "s" },
                source.path().display(),
                crate::preflight::some_of(&left_out)
            ),
            BaselineReceived::KeptUnfit { kept, faults } => eprintln!(
                "note: baseline `{name}` of testbed `{testbed}` in `{}` {}: run {uuid}, which `{}` saves under that name, is not fit to judge later runs by there ({}): the run is pushed, not the name (there, `--save-baseline {name}` refuses such a run too)",
                target.path().display(),
                match kept {
                    Some((run, theirs)) => format!("stays run {run} ({theirs})"),
                    None => "is not set".to_string(),
                },
                source.path().display(),
                faults.join("; ")
            ),
        }
    }
    Ok(set)
}

/// What became of the baseline run a pushed run was measured against.
enum CarriedBaseline {
    /// The run names none, or the target has it already.
    Nothing,
    /// Copied (or an incomplete copy there completed): "its baseline run 1 (UUID)".
    Copied(String),
    /// Not copied, as push leaves such a run: why, in one line.
    Left(String),
    /// The target holds its UUID with other content: refused, as push refuses it.
    Refused(String),
}

/// The baseline run that run `id` of `source` was measured against (`--baseline`),
/// copied into `target` where it lacks it, by the rules of every push: complete runs
/// only, keyed by UUID. Only the run travels, not a name it has in `source`: the run's
/// comparison reads it by UUID, and a name is pushed with the run saved under it.
fn carry_baseline_run(source: &Store, id: i64, target: &Store) -> Result<CarriedBaseline> {
    let header = source.load_run_where(id, |_| false)?.header;
    let RunOrigin::Measured { analysis, .. } = &header.options else {
        return Ok(CarriedBaseline::Nothing);
    };
    let Some(uuid) = &analysis.baseline_uuid else {
        return Ok(CarriedBaseline::Nothing);
    };
    let left = |why: &str| {
        Ok(CarriedBaseline::Left(format!(
            "run {id}'s baseline run {uuid} {why}, so it was not pushed to `{}`: there, run {id} is printed without its comparison",
            target.path().display()
        )))
    };
    let Some(base) = source.run_by_uuid(uuid)? else {
        return left(&format!("is not in `{}`", source.path().display()));
    };
    if !source.complete_runs()?.iter().any(|(r, _)| *r == base) {
        return left(&format!(
            "(run {base} of `{}`) is incomplete",
            source.path().display()
        ));
    }
    let (raw, digest) = source.raw_run(base)?;
    match target.receive_run(&raw, &digest) {
        Ok(Received::AlreadyThere) => Ok(CarriedBaseline::Nothing),
        Ok(Received::Copied | Received::Completed) => Ok(CarriedBaseline::Copied(format!(
            "its baseline run {base} ({uuid})"
        ))),
        Err(e) if e.is::<Conflict>() => {
            let conflict = e.downcast_ref::<Conflict>().expect("checked");
            Ok(CarriedBaseline::Refused(format!(
                "run {id}'s baseline run {base} of `{}` ({uuid}) is also in `{}` with other content (digest {} there, {} here): refused, neither changed",
                source.path().display(),
                target.path().display(),
                short_digest(&conflict.theirs),
                short_digest(&conflict.ours)
            )))
        }
        Err(e) if e.is::<DamagedDigest>() => Ok(CarriedBaseline::Refused(format!("{e:#}"))),
        Err(e) => Err(e.context(format!(
            "pushing run {id}'s baseline run {base} ({uuid}) of `{}`",
            source.path().display()
        ))),
    }
}

/// "; baseline main (zen4-ci) set", for a push's summary; nothing where none was.
fn baselines_said(set: &[String]) -> String {
    match set {
        [] => String::new(),
        [one] => format!("; baseline {one} set"),
        many => format!("; baselines {} set", many.join(", ")),
    }
}

/// A `--push-to` as messages name it: a PostgreSQL URL without its password.
fn shown(target: &Path) -> String {
    crate::record::shown_argument(&target.display().to_string())
}

/// `run --push-to`: the run just measured, copied once it is complete. Whatever happens
/// there, the run stays in the local store, and the message says how to push it later.
pub(super) fn push_finished_run(
    store: &Store,
    uuid: &str,
    target: &Path,
    exit: ExitCode,
) -> Result<ExitCode> {
    let Some(id) = store.run_by_uuid(uuid)? else {
        return Ok(exit);
    };
    if !store.complete_runs()?.iter().any(|(r, _)| *r == id) {
        eprintln!(
            "note: run {id} is incomplete, so it was not pushed to `{}`",
            shown(target)
        );
        return Ok(exit);
    }
    // The run it was measured against goes first (the run names it by UUID: without it
    // there, its comparison cannot be read there), and a baseline the run was saved as
    // (`--save-baseline`) goes with it.
    let pushed = Store::open_named(target, "--push-to").and_then(|t| {
        let along = carry_baseline_run(store, id, &t)?;
        let (raw, digest) = store.raw_run(id)?;
        t.receive_run(&raw, &digest)?;
        Ok((along, copy_baselines(store, &t, |u| u == uuid)?))
    });
    match pushed {
        Ok((along, baselines)) => {
            eprintln!(
                "pushed run {id} ({uuid}) to `{}`{}{}",
                shown(target),
                match &along {
                    CarriedBaseline::Copied(said) => format!(" with {said}"),
                    _ => String::new(),
                },
                baselines_said(&baselines)
            );
            match along {
                CarriedBaseline::Refused(why) => {
                    eprintln!("error: {why}");
                    Ok(if exit == ExitCode::SUCCESS {
                        Exit::Error.into()
                    } else {
                        exit
                    })
                }
                CarriedBaseline::Left(why) => {
                    eprintln!("note: {why}");
                    Ok(exit)
                }
                _ => Ok(exit),
            }
        }
        Err(e) => {
            eprintln!(
                "error: {e:#}; run {id} is kept in `{}`: push it later with `cryptobench push --to {} --from {}`",
                store.path().display(),
                shown(target),
                store.path().display()
            );
            // A gate's verdict (regression, or measure again) outranks the push: CI
            // branches on it, and the run is kept to push later.
            Ok(if exit == ExitCode::SUCCESS {
                Exit::for_error(&e).into()
            } else {
                exit
            })
        }
    }
}
