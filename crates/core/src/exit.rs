//! The exit statuses of every command other than success, in one place: CI jobs and
//! scripts branch on them.

use std::process::ExitCode;

/// How a command ended, as its exit status says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Some case gave wrong output or failed (`run` and `bulk`); its report is still
    /// printed and stored.
    CasesFailed = 1,
    /// An error stopped the command: bad input (arguments, files, names), as clap uses for
    /// usage errors, or the rare failure around it (a store that cannot be written).
    Error = 2,
    /// `--fail-on-regression` found a regression, or a comparison it could not make. It
    /// goes before [`Exit::CasesFailed`]: both fail a CI job.
    Regression = 3,
    /// `--fail-on-regression` could not decide: the host was not steady (by the canary)
    /// against the baseline, or while the compared cases ran. Not a verdict on the code: a
    /// CI job should measure again (retry the job, later or on another runner) and fail
    /// only if that cannot decide either. A regression found on a steady host goes first.
    Undecided = 4,
    /// Ctrl-C stopped a measurement (128 + SIGINT, as a shell reports it); what was
    /// measured is printed and stored first.
    Interrupted = 130,
}

impl Exit {
    /// The exit status, as the process returns it.
    pub fn code(self) -> u8 {
        self as u8
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}
