//! Progress on stderr: a bar on a terminal, plain notes otherwise.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

use crate::runner::Progress;

/// A progress bar on stderr when it is a terminal; plain notes otherwise (and, where
/// asked, each step as a line of its own).
pub(super) struct Bar(Option<ProgressBar>, bool);

impl Bar {
    pub(super) fn new() -> Bar {
        Bar::on_stderr(false)
    }

    /// A bar that, off a terminal, says each step as a line: where a step may take
    /// minutes (a check that hangs until its timeout), a CI log says which.
    pub(super) fn with_step_lines() -> Bar {
        Bar::on_stderr(true)
    }

    fn on_stderr(step_lines: bool) -> Bar {
        let bar = std::io::stderr().is_terminal().then(|| {
            let pb = ProgressBar::new(0);
            pb.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed_precise} {msg}")
                    .expect("valid template"),
            );
            pb
        });
        Bar(bar, step_lines)
    }
}

impl Progress for Bar {
    fn start(&self, total_steps: u64) {
        if let Some(pb) = &self.0 {
            pb.set_length(total_steps);
        }
    }
    fn step(&self, what: &str) {
        match &self.0 {
            Some(pb) => {
                pb.inc(1);
                pb.set_message(what.to_string());
            }
            None if self.1 => eprintln!("{what}"),
            None => {}
        }
    }
    fn note(&self, line: &str) {
        match &self.0 {
            Some(pb) => pb.println(line),
            None => eprintln!("{line}"),
        }
    }
    fn finish(&self) {
        if let Some(pb) = &self.0 {
            pb.finish_and_clear();
        }
    }
}
