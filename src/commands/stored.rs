//! `report`, `compare`, `history` and `import`: the commands that read or fill the store
//! without measuring.

use std::process::ExitCode;

use anyhow::{Result, bail};

use crate::analysis::{self};
use crate::cli::{ImportSource, OutputArgs};
use crate::history;
use crate::import;
use crate::output::{check_writable, emit, print};
use crate::preflight::some_of;
use crate::record::now;
use crate::report;
use crate::report::Format;

use crate::store::Store;

pub(super) fn report_run(
    run: &str,
    testbed: Option<&str>,
    format: Format,
    output: &OutputArgs,
) -> Result<ExitCode> {
    check_writable(output.file.as_deref(), &output.db)?;
    let store = Store::open_existing(&output.db)?;
    let stored = store.load_run(store.resolve_run_on(run, testbed)?)?;
    emit(
        output.file.as_deref(),
        &crate::session::render_stored(&store, &stored, format)?,
    )?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn import_run(source: ImportSource) -> Result<ExitCode> {
    let (db, parsed) = match &source {
        ImportSource::Criterion {
            dir,
            unit,
            saved,
            db,
        } => (db, import::criterion::read(dir, *unit, saved)?),
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

pub(super) fn compare(
    run_a: &str,
    run_b: &str,
    verdict: crate::record::VerdictArgs,
    force: bool,
    testbed: Option<&str>,
    format: Format,
    output: &OutputArgs,
) -> Result<ExitCode> {
    check_writable(output.file.as_deref(), &output.db)?;
    let store = Store::open_existing(&output.db)?;
    // `compare main latest`: the newest run of the machine the other was measured on,
    // not the run stored last, on a shared store mostly another machine's.
    let latest_beside = |other: i64| -> Result<i64> {
        let place = store.load_run_where(other, |_| false)?.header.place;
        store.resolve_run_on("latest", Some(&place.testbed))
    };
    let (id_a, id_b) = match (testbed, run_a == "latest", run_b == "latest") {
        (None, false, true) => {
            let a = store.resolve_run(run_a)?;
            (a, latest_beside(a)?)
        }
        (None, true, false) => {
            let b = store.resolve_run(run_b)?;
            (latest_beside(b)?, b)
        }
        _ => (
            store.resolve_run_on(run_a, testbed)?,
            store.resolve_run_on(run_b, testbed)?,
        ),
    };
    if id_a == id_b {
        bail!("`{run_a}` and `{run_b}` are the same run ({id_a}): compare two different runs");
    }
    let a = store.load_run(id_a)?;
    let b = store.load_run(id_b)?;
    // Before anything `--force` could pass: no flag compares two machines, and a hint
    // to use one would only lead to this refusal.
    if let Some((ma, mb)) = analysis::other_machines(&a.header, &b.header) {
        bail!(
            "runs {id_a} and {id_b} were measured on different machines ({ma}; {mb}): {}; `cryptobench report --machines` puts them side by side",
            analysis::NO_VERDICT_ACROSS_MACHINES
        );
    }
    if !force
        && let Some(why) = [&a.header, &b.header]
            .into_iter()
            .find_map(analysis::incomplete)
    {
        bail!(
            "{why}; compare it once it is measured again in full, or use --force to compare what it has"
        );
    }
    // Instructions take their own noise threshold, as `run --baseline` gives them.
    let opts = verdict.for_stored(b.header.counter);
    let cmp = analysis::compare_runs(&a, &b, &opts, force)?;
    if cmp.comparisons.is_empty() && cmp.not_compared.is_empty() {
        bail!(
            "runs {id_a} and {id_b} share no case, so there is nothing to compare (run {id_a} has {}; run {id_b} has {}); compare runs of the same implementations at the same sizes",
            some_of(&cmp.only_in_a),
            some_of(&cmp.only_in_b)
        );
    }
    // The names the user gave (`main`, `latest`), beside the ids they resolved to.
    fn named(given: &str, id: i64) -> Option<&str> {
        (given != id.to_string()).then_some(given)
    }
    let pair = report::Pair {
        counter: b.header.counter,
        named: (named(run_a, id_a), named(run_b, id_b)),
    };
    emit(
        output.file.as_deref(),
        &report::render_comparison(&cmp, &pair, &opts, format)?,
    )?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn history(
    filter: Option<&str>,
    testbed: Option<&str>,
    format: Format,
    output: &OutputArgs,
) -> Result<ExitCode> {
    check_writable(output.file.as_deref(), &output.db)?;
    let store = Store::open_existing(&output.db)?;
    let h = history::collect_on(&store, filter, testbed)?;
    emit(
        output.file.as_deref(),
        &report::history::render(&h, format)?,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `report --machines`: `experiment` across the store's machines.
pub(super) fn report_machines(
    experiment: &str,
    testbeds: &[String],
    revision: Option<&str>,
    format: Format,
    output: &OutputArgs,
) -> Result<ExitCode> {
    check_writable(output.file.as_deref(), &output.db)?;
    let store = Store::open_existing(&output.db)?;
    // `latest`, the default positional, means the newest run's experiment.
    let experiment = (experiment != "latest").then_some(experiment);
    let fleet = crate::analysis::fleet::collect(&store, experiment, testbeds, revision, &|run| {
        crate::session::figures_of_run(&store, run)
    })?;
    // Also on stderr: CSV has no line to say that a machine's column is missing.
    for why in &fleet.left_out {
        eprintln!("warning: left out: {why}");
    }
    emit(
        output.file.as_deref(),
        &report::fleet::render(&fleet, format)?,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `machines`: the store's testbeds and their hardware.
pub(super) fn machines(format: Format, output: &OutputArgs) -> Result<ExitCode> {
    check_writable(output.file.as_deref(), &output.db)?;
    let store = Store::open_existing(&output.db)?;
    emit(
        output.file.as_deref(),
        &report::fleet::render_machines(&store.machines()?, format)?,
    )?;
    Ok(ExitCode::SUCCESS)
}
