//! Progress on stderr: a bar on a terminal, plain lines otherwise.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::runner::Progress;

/// How often a run off a terminal says how far it is: a CI log that stays silent for
/// minutes looks hung, and a line per worker (hundreds a run) would bury its notes.
const PROGRESS_LINE_EVERY: Duration = Duration::from_secs(30);

/// A progress bar on stderr when it is a terminal; off a terminal, plain lines: the
/// notes, and where asked, each step or the count of steps now and then.
pub(super) struct Bar {
    bar: Option<ProgressBar>,
    lines: StepLines,
    counted: Mutex<Counted>,
}

/// What a bar off a terminal says of its steps.
#[derive(Clone, Copy)]
enum StepLines {
    /// Each step, as it begins.
    Each,
    /// Steps done of those planned, at most once per period.
    Every(Duration),
}

struct Counted {
    done: u64,
    total: u64,
    started: Instant,
    last_said: Instant,
}

impl Bar {
    /// A bar that, off a terminal, says every [`PROGRESS_LINE_EVERY`] how many steps are
    /// done: for `run`, whose steps are its workers.
    pub(super) fn new() -> Bar {
        Bar::on_stderr(StepLines::Every(PROGRESS_LINE_EVERY))
    }

    /// A bar that, off a terminal, says each step as a line: where a step may take
    /// minutes (a check that hangs until its timeout), a CI log says which.
    pub(super) fn with_step_lines() -> Bar {
        Bar::on_stderr(StepLines::Each)
    }

    fn on_stderr(lines: StepLines) -> Bar {
        let bar = std::io::stderr().is_terminal().then(|| {
            let pb = ProgressBar::new(0);
            pb.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed_precise} {msg}")
                    .expect("valid template"),
            );
            pb
        });
        let now = Instant::now();
        Bar {
            bar,
            lines,
            counted: Mutex::new(Counted {
                done: 0,
                total: 0,
                started: now,
                last_said: now,
            }),
        }
    }

    fn counted(&self) -> std::sync::MutexGuard<'_, Counted> {
        self.counted.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The line a run off a terminal prints now and then, e.g.
/// "measuring: 120 of 480 steps begun, 2 min 30 s so far (now rustcrypto/chacha20/xor len=1024)".
fn count_line(done: u64, total: u64, elapsed: Duration, what: &str) -> String {
    let secs = elapsed.as_secs();
    let so_far = if secs >= 60 {
        format!("{} min {} s", secs / 60, secs % 60)
    } else {
        format!("{secs} s")
    };
    // Re-measuring adds steps beyond those planned at the start.
    let of = if done <= total {
        format!("{done} of {total} steps begun")
    } else {
        format!("{done} steps begun ({total} planned, more to re-measure)")
    };
    format!("measuring: {of}, {so_far} so far (now {what})")
}

impl Progress for Bar {
    fn start(&self, total_steps: u64) {
        if let Some(pb) = &self.bar {
            pb.set_length(total_steps);
        }
        let mut c = self.counted();
        c.total = total_steps;
        c.started = Instant::now();
        c.last_said = c.started;
    }
    fn step(&self, what: &str) {
        if let Some(pb) = &self.bar {
            pb.inc(1);
            pb.set_message(what.to_string());
            return;
        }
        match self.lines {
            StepLines::Each => eprintln!("{what}"),
            StepLines::Every(period) => {
                let mut c = self.counted();
                c.done += 1;
                let now = Instant::now();
                if now.duration_since(c.last_said) >= period {
                    c.last_said = now;
                    eprintln!(
                        "{}",
                        count_line(c.done, c.total, now.duration_since(c.started), what)
                    );
                }
            }
        }
    }
    fn note(&self, line: &str) {
        match &self.bar {
            Some(pb) => pb.println(line),
            None => eprintln!("{line}"),
        }
    }
    fn finish(&self) {
        if let Some(pb) = &self.bar {
            pb.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::count_line;
    use std::time::Duration;

    #[test]
    fn the_count_line_says_steps_and_time() {
        assert_eq!(
            count_line(120, 480, Duration::from_secs(150), "a/b/xor len=64"),
            "measuring: 120 of 480 steps begun, 2 min 30 s so far (now a/b/xor len=64)"
        );
        assert_eq!(
            count_line(3, 480, Duration::from_millis(31_900), "x"),
            "measuring: 3 of 480 steps begun, 31 s so far (now x)"
        );
        assert_eq!(
            count_line(500, 480, Duration::from_secs(60), "x"),
            "measuring: 500 steps begun (480 planned, more to re-measure), 1 min 0 s so far (now x)"
        );
    }
}
