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
    /// The store's server could not be reached, or the connection to it was lost (at
    /// the start, while measuring, or pushing): not bad input. What was measured is kept
    /// (in the local store with `--push-to`; on the server up to the case in flight);
    /// retry the job or the push. Bad input stays [`Exit::Error`], which a retry cannot
    /// mend.
    Unreachable = 5,
    /// Ctrl-C stopped a measurement (128 + SIGINT, as a shell reports it); what was
    /// measured is printed and stored first.
    Interrupted = 130,
}

impl Exit {
    /// How a command that stopped on error `e` exits: [`Exit::Unreachable`] where a
    /// server went away, else [`Exit::Error`].
    pub fn for_error(e: &anyhow::Error) -> Exit {
        if e.chain().any(|c| c.is::<Unreachable>()) {
            Exit::Unreachable
        } else {
            Exit::Error
        }
    }

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

/// The store's server could not be reached, or the connection to it was lost: no fault
/// of the input, and what was measured is kept. The error a store returns for it, so
/// that the command exits [`Exit::Unreachable`] and a scheduler knows to retry.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Unreachable(pub String);
