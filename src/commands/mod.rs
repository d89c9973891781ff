//! One module per subcommand (validate, call the pipeline, print), and the dispatch to
//! them. A command that measures lives its run through [`crate::session`].

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::Command;

mod bulk;
mod cache;
mod check;
mod info;
mod list;
mod progress;
mod push;
mod run;
mod stored;

pub fn dispatch(command: Command) -> Result<ExitCode> {
    if matches!(
        command,
        Command::Run(_) | Command::Check(_) | Command::List { .. }
    ) {
        // Every worker inherits KECCAK_LANES_BACKEND: a mistake in it is refused in one
        // line before anything runs, never quietly replaced by another default.
        crate::keccak::Backend::check_override()?;
    }
    match command {
        Command::Info { format } => info::info(format),
        Command::List { filter } => list::list(filter.as_deref()),
        Command::Run(args) => run::run(*args),
        Command::Check(args) => check::check(args),
        Command::Cache { action } => cache::cache(action),
        Command::Report {
            run,
            machines: true,
            testbed,
            revision,
            format,
            output,
        } => stored::report_machines(&run, &testbed, revision.as_deref(), format, &output),
        Command::Report {
            run,
            testbed,
            format,
            output,
            ..
        } => {
            // A list is for --machines' columns; one run is of one testbed.
            if let [_, _, ..] = testbed.as_slice() {
                anyhow::bail!(
                    "--testbed {}: a run is of one testbed; name one, or add --machines for a column per testbed",
                    testbed.join(",")
                );
            }
            stored::report_run(&run, testbed.first().map(String::as_str), format, &output)
        }
        Command::Machines { format, output } => stored::machines(format, &output),
        Command::Push { to, from, db } => push::push(&to, &from, &db),
        Command::Compare {
            run_a,
            run_b,
            verdict,
            force,
            testbed,
            format,
            output,
        } => stored::compare(
            &run_a,
            &run_b,
            verdict,
            force,
            testbed.testbed.as_deref(),
            format,
            &output,
        ),
        Command::History {
            filter,
            testbed,
            format,
            output,
        } => stored::history(filter.as_deref(), testbed.as_deref(), format, &output),
        Command::Import { source } => stored::import_run(source),
        Command::Bulk(args) => bulk::bulk(args),
        Command::Worker => unreachable!("handled in main"),
    }
}
