use std::process::ExitCode;

use cryptobench::exit::Exit;
use cryptobench::{cli, commands, providers, runner};

fn main() -> ExitCode {
    let cli = cli::Cli::parse_args();
    if let cli::Command::Worker = cli.command {
        return match runner::worker::serve(&providers::builtin()) {
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
            Exit::for_error(&e).into()
        }
    }
}
