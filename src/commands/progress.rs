//! Progress on stderr: a bar on a terminal, plain notes otherwise.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

use crate::runner::Progress;

/// A progress bar on stderr when it is a terminal; plain notes otherwise.
pub(super) struct Bar(Option<ProgressBar>);

impl Bar {
    pub(super) fn new() -> Bar {
        Bar(std::io::stderr().is_terminal().then(|| {
            let pb = ProgressBar::new(0);
            pb.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed_precise} {msg}")
                    .expect("valid template"),
            );
            pb
        }))
    }
}

impl Progress for Bar {
    fn start(&self, total_steps: u64) {
        if let Some(pb) = &self.0 {
            pb.set_length(total_steps);
        }
    }
    fn step(&self, what: &str) {
        if let Some(pb) = &self.0 {
            pb.inc(1);
            pb.set_message(what.to_string());
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
