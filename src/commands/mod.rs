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
mod run;
mod stored;

pub fn dispatch(command: Command) -> Result<ExitCode> {
    match command {
        Command::Info { format } => info::info(format),
        Command::List { filter } => list::list(filter.as_deref()),
        Command::Run(args) => run::run(*args),
        Command::Check(args) => check::check(args),
        Command::Cache { action } => cache::cache(action),
        Command::Report {
            run,
            format,
            output,
        } => stored::report_run(&run, format, &output),
        Command::Compare {
            run_a,
            run_b,
            verdict,
            force,
            format,
            output,
        } => stored::compare(&run_a, &run_b, verdict, force, format, &output),
        Command::History {
            filter,
            format,
            output,
        } => stored::history(filter.as_deref(), format, &output),
        Command::Import { source } => stored::import_run(source),
        Command::Bulk(args) => bulk::bulk(args),
        Command::Worker => unreachable!("handled in main"),
    }
}
