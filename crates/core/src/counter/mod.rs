//! Counters: what a timed region is measured in.
//!
//! - `tsc`: the x86-64 time-stamp counter (reference cycles: ticks at a fixed nominal
//!   frequency, whatever the core's clock does).
//! - `perf`: core cycles from `perf_event_open`, where the kernel exposes a hardware PMU
//!   (virtual machines often do not).
//! - `tsc-core`: core cycles estimated from the TSC and a dependent-add clock read beside
//!   every sample ([`tsc_core`]), for hosts whose core clock moves and whose PMU is hidden.
//! - `ns`: the monotonic clock, the portable fallback.
//! - `instructions`: instructions retired, counted by Valgrind's callgrind running the
//!   worker on its simulated CPU ([`valgrind`]): deterministic, for gates on shared hosts,
//!   but of the code that CPU's dispatch picks.
//!
//! Reading is `#[inline(always)]` and branch-free; the sampler is generic over
//! [`Counter`] so that the choice is made once, outside the timed region.

mod ns;
mod perf;
mod tsc;
pub mod tsc_core;
pub mod valgrind;

use std::fmt;

pub use ns::Nanoseconds;
pub use perf::PerfCycles;
pub use tsc::{Tsc, tsc_frequency_hz};
pub use tsc_core::TscCore;

/// The counters a user can ask for.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum CounterKind {
    /// Reference cycles from the x86-64 time-stamp counter.
    Tsc,
    /// Core cycles from `perf_event_open` (needs a hardware PMU).
    Perf,
    /// Core cycles estimated from the TSC and a dependent-add clock ([`tsc_core`]).
    TscCore,
    /// Nanoseconds from the monotonic clock.
    Ns,
    /// Instructions retired, counted by Valgrind's callgrind on its simulated CPU.
    Instructions,
}

impl CounterKind {
    /// The unit of one count, as printed beside every figure.
    pub fn unit(self) -> &'static str {
        match self {
            CounterKind::Tsc => "reference cycles (TSC)",
            CounterKind::Perf => "core cycles (perf)",
            CounterKind::TscCore => "core cycles (TSC x add-chain clock)",
            CounterKind::Ns => "ns",
            CounterKind::Instructions => "instructions (Valgrind callgrind, simulated CPU)",
        }
    }

    /// Short unit for table headers: "cycles" (core cycles), "ref-cycles" (TSC reference
    /// cycles, which tick at a fixed rate whatever the core's clock), "ns" or
    /// "instructions". The two kinds of cycles differ by the core's clock over the TSC's
    /// (a third or more): counts in one are no figure in the other.
    pub fn short_unit(self) -> &'static str {
        match self {
            CounterKind::Perf | CounterKind::TscCore => "cycles",
            CounterKind::Tsc => "ref-cycles",
            CounterKind::Ns => "ns",
            CounterKind::Instructions => "instructions",
        }
    }

    /// Whether the worker runs under a simulator to count (and so its correctness gate
    /// runs there too: the simulated CPU's dispatch is what is counted).
    pub fn simulated(self) -> bool {
        self == CounterKind::Instructions
    }

    /// Best first: core cycles are what the CPU spends, and do not move when the host
    /// changes the core's clock; estimated core cycles come next (see [`tsc_core`]);
    /// reference cycles are steadier than nanoseconds at this scale.
    pub const PREFERENCE: [CounterKind; 4] = [
        CounterKind::Perf,
        CounterKind::TscCore,
        CounterKind::Tsc,
        CounterKind::Ns,
    ];

    /// Whether this counter works here; the error says why not.
    pub fn probe(self) -> Result<(), String> {
        match self {
            CounterKind::Tsc => Tsc::open().map(drop),
            CounterKind::Perf => PerfCycles::open().map(drop),
            CounterKind::TscCore => {
                // The clock check fails for a moment while the host is in another state
                // (the add chain and the multiply chain then disagree); a run must not
                // fall back to another counter, and so mismatch its baseline, for that.
                let mut tries = 0;
                loop {
                    match TscCore::open() {
                        Ok(_) => return Ok(()),
                        Err(why) if tries == CLOCK_CHECK_TRIES - 1 => return Err(why),
                        Err(_) => {
                            tries += 1;
                            std::thread::sleep(std::time::Duration::from_millis(50));
                        }
                    }
                }
            }
            CounterKind::Ns => Ok(()),
            CounterKind::Instructions => valgrind::version().map(drop),
        }
    }
}

/// Tries of `tsc-core`'s clock check, 50 ms apart, before it counts as unavailable.
const CLOCK_CHECK_TRIES: usize = 10;

impl fmt::Display for CounterKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CounterKind::Tsc => "tsc",
            CounterKind::Perf => "perf",
            CounterKind::TscCore => "tsc-core",
            CounterKind::Ns => "ns",
            CounterKind::Instructions => "instructions",
        })
    }
}

/// `--counter`: a specific counter, or the best available.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CounterChoice {
    /// The first available of perf, tsc-core, tsc, ns
    Auto,
    /// Reference cycles: time-stamp counter ticks at a fixed nominal frequency
    Tsc,
    /// Core cycles from perf_event_open (needs a hardware PMU)
    Perf,
    /// Core cycles estimated from the TSC and a dependent-add clock read beside every sample
    TscCore,
    /// Nanoseconds from the monotonic clock
    Ns,
    /// Instructions, counted by Valgrind's callgrind on its simulated CPU: deterministic, for CI gates (never chosen by auto)
    Instructions,
}

impl CounterChoice {
    /// Resolve to an available counter, or say why the requested one is not.
    pub fn resolve(self) -> Result<CounterKind, String> {
        let want = match self {
            CounterChoice::Auto => {
                return Ok(CounterKind::PREFERENCE
                    .into_iter()
                    .find(|k| k.probe().is_ok())
                    .unwrap_or(CounterKind::Ns));
            }
            CounterChoice::Tsc => CounterKind::Tsc,
            CounterChoice::Perf => CounterKind::Perf,
            CounterChoice::TscCore => CounterKind::TscCore,
            CounterChoice::Ns => CounterKind::Ns,
            CounterChoice::Instructions => CounterKind::Instructions,
        };
        want.probe()
            .map(|()| want)
            .map_err(|why| format!("counter `{want}` is not available here: {why}; use `--counter auto` or see `cryptobench info`"))
    }
}

/// A counter the sampler can read around a timed region.
pub trait Counter {
    /// Read before the region; must not let the region's instructions start earlier.
    fn start(&mut self) -> u64;
    /// Read after the region; must not let the region's instructions finish later.
    fn stop(&mut self) -> u64;
    /// The smallest step of the readings, where reading twice in a row cannot show it
    /// (a counter that does work between regions).
    fn granularity(&mut self) -> Option<f64> {
        None
    }
    /// Core cycles per TSC tick beside the last `start`/`stop` pair, for a counter
    /// that measures the core clock (tsc-core): what the clock was while that region ran.
    fn last_clock(&self) -> Option<f64> {
        None
    }
}

/// A counter's own cost and granularity, measured where it is used.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Calibration {
    /// Median counts of an empty region: subtracted from every sample.
    pub overhead: f64,
    /// Smallest non-zero difference seen between two reads.
    pub resolution: f64,
}

/// Reads of an unchanged counter after which calibration gives up on it: far more than
/// the coarsest clock's step takes (a 4 ms tick at tens of ns a read is about 10^5).
const STUCK_READS: u64 = 1 << 24;

/// Measure a counter's overhead (median of empty regions) and resolution.
pub fn calibrate<C: Counter>(c: &mut C) -> Calibration {
    calibrate_giving_up_after(c, STUCK_READS)
}

fn calibrate_giving_up_after<C: Counter>(c: &mut C, stuck_reads: u64) -> Calibration {
    const N: usize = 2001;
    let mut empty = Vec::with_capacity(N);
    let mut resolution = u64::MAX;
    for _ in 0..N {
        let t0 = c.start();
        let t1 = c.stop();
        empty.push(t1.wrapping_sub(t0));
        let a = c.start();
        let mut b = c.start();
        let mut reads = 0u64;
        while b == a {
            b = c.start();
            reads += 1;
            // A counter that stopped would hold the worker until its time limit: fail
            // the case now, saying why.
            assert!(
                reads < stuck_reads,
                "the counter does not advance: {stuck_reads} reads in a row gave {a}"
            );
        }
        resolution = resolution.min(b.wrapping_sub(a));
    }
    empty.sort_unstable();
    Calibration {
        overhead: empty[N / 2] as f64,
        resolution: c.granularity().unwrap_or(resolution as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns_is_always_available_and_auto_resolves() {
        assert!(CounterKind::Ns.probe().is_ok());
        let auto = CounterChoice::Auto.resolve().unwrap();
        assert!(auto.probe().is_ok());
    }

    struct Stopped;
    impl Counter for Stopped {
        fn start(&mut self) -> u64 {
            7
        }
        fn stop(&mut self) -> u64 {
            7
        }
    }

    #[test]
    #[should_panic(expected = "the counter does not advance")]
    fn calibration_gives_up_on_a_counter_that_does_not_advance() {
        calibrate_giving_up_after(&mut Stopped, 1000);
    }

    #[test]
    fn calibration_of_the_clock_is_sane() {
        let cal = calibrate(&mut Nanoseconds);
        assert!(
            cal.resolution >= 1.0 && cal.resolution < 10_000.0,
            "{cal:?}"
        );
        assert!(cal.overhead < 100_000.0, "{cal:?}");
    }

    #[test]
    fn a_counter_that_is_missing_says_why() {
        // Whichever counters this machine lacks must explain themselves in words.
        for k in [CounterKind::Tsc, CounterKind::Perf, CounterKind::TscCore] {
            if let Err(why) = k.probe() {
                assert!(!why.is_empty());
                let msg = match k {
                    CounterKind::Tsc => CounterChoice::Tsc.resolve().unwrap_err(),
                    CounterKind::TscCore => CounterChoice::TscCore.resolve().unwrap_err(),
                    _ => CounterChoice::Perf.resolve().unwrap_err(),
                };
                assert!(msg.contains("not available here"), "{msg}");
            }
        }
    }
}
