use std::process::ExitCode;

use clap::Parser;
use cryptobench::{cli, commands, runner};

/// Exit status for an error that stops a command: bad input (arguments, files, names),
/// as clap uses for usage errors, and the rare failure around it (a store that cannot be
/// written). Failed cases (1) and regressions (3) have their own statuses.
const EXIT_ERROR: u8 = 2;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    if let cli::Command::Worker = cli.command {
        return match runner::worker::serve() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("worker: {e:#}");
                ExitCode::from(1)
            }
        };
    }
    match commands::dispatch(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}
