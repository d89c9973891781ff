use std::process::ExitCode;

use clap::Parser;
use cryptobench::{cli, commands, runner};

/// Exit status for bad input (arguments, files, names), as clap uses for usage errors.
const EXIT_BAD_INPUT: u8 = 2;

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
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}
