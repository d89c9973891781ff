//! Core cycles estimated from the TSC, for hosts that hide the PMU.
//!
//! The TSC ticks at a fixed rate while the core's clock moves: on a shared host the
//! core steps between turbo bins (100 MHz apart, about 2.7 % at 3.7 GHz) as other guests
//! load the package, within milliseconds, so the same call measures several percent
//! apart from one process to the next. A chain of dependent register adds runs at
//! exactly one add per core cycle, so timing a short chain with the TSC gives the core
//! clock over TSC ticks at that moment. Each reading runs such a chain next to the
//! region (before `start`, after `stop`, never inside it) and advances a virtual clock
//! by TSC ticks x that ratio: differences of readings are core cycles.
//!
//! The estimate assumes the clock measured beside a sample is the clock during it; a
//! sample that straddles a change is off by part of one bin and lands in the tails,
//! which medians ignore. `open` refuses where the add chain does not run at one add per
//! cycle (checked against a multiply chain of latency 3).

use super::{Counter, Tsc};

/// Adds per probe: ~2000 cycles (about half a microsecond), long enough that the TSC's
/// read cost and granularity are below 0.1 % of it.
const PROBE_ITERATIONS: u64 = 250;
const ADDS_PER_ITERATION: u64 = 8;

/// Estimated core cycles: TSC ticks scaled by the core clock that a dependent-add chain
/// measures beside each reading (see the module docs).
pub struct TscCore {
    tsc: Tsc,
    /// Ticks of an empty `start`/`stop` pair, removed from each probe.
    tsc_overhead: f64,
    /// Virtual core-cycle clock at `last_tick`.
    clock: f64,
    last_tick: u64,
    ratio_at_start: f64,
    /// The ratio the last `stop` applied.
    last_ratio: Option<f64>,
}

impl TscCore {
    /// Open and check that the add chain is a clock here (a multiply chain agrees).
    pub fn open() -> Result<TscCore, String> {
        let mut c = Self::open_checked_elsewhere()?;
        // A host busy on every CPU can preempt most probes of one check, and a counter
        // choice that flips with the load makes two runs incomparable (`--counter auto`
        // took tsc for one and tsc-core for the next under load): a core that fails the
        // check three times running does not run the chain at one add per cycle.
        let mut last = Ok(());
        for _ in 0..3 {
            last = c.check_clock();
            if last.is_ok() {
                break;
            }
        }
        last.map(|()| c)
    }

    /// Open without the clock check, in a worker of a run whose counter choice ran it:
    /// a check failing by chance in one worker (a preempted probe) must not fail a case.
    pub fn open_checked_elsewhere() -> Result<TscCore, String> {
        let tsc = Tsc::open()?;
        #[cfg(target_arch = "x86_64")]
        {
            let mut c = TscCore {
                tsc,
                tsc_overhead: 0.0,
                clock: 0.0,
                last_tick: 0,
                ratio_at_start: 1.0,
                last_ratio: None,
            };
            c.tsc_overhead = c.empty_region_ticks();
            c.last_tick = c.tsc.start();
            Ok(c)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = tsc;
            Err("the TSC exists only on x86-64".into())
        }
    }

    #[cfg(target_arch = "x86_64")]
    fn check_clock(&mut self) -> Result<(), String> {
        // Interleaved, so that a change of the clock between them cannot decide.
        let (mut adds, mut agreement) = (Vec::new(), Vec::new());
        for _ in 0..101 {
            let before = self.probe();
            let muls = self.probe_multiply();
            let after = self.probe();
            adds.push(before);
            agreement.push((before + after) / 2.0 / muls);
        }
        let (adds, agreement) = (median(adds), median(agreement));
        if !(0.2..5.0).contains(&adds) {
            return Err(format!(
                "the add-chain clock reads {adds:.3} core cycles per TSC tick, which is not plausible"
            ));
        }
        // Far looser than a turbo bin: this catches a core that runs the chain at two
        // adds per cycle (or half of one), not noise.
        if (agreement - 1.0).abs() > 0.1 {
            return Err(format!(
                "a dependent add chain does not run at one add per cycle here (it reads \
                 {agreement:.3} x the clock of a multiply chain), so it cannot be a clock"
            ));
        }
        Ok(())
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn check_clock(&mut self) -> Result<(), String> {
        unreachable!("open fails on this architecture")
    }

    /// Core cycles per TSC tick right now.
    pub fn ratio(&mut self) -> f64 {
        self.probe()
    }

    #[cfg(target_arch = "x86_64")]
    fn empty_region_ticks(&mut self) -> f64 {
        median(
            (0..201)
                .map(|_| {
                    let t0 = self.tsc.start();
                    let t1 = self.tsc.stop();
                    t1.wrapping_sub(t0) as f64
                })
                .collect(),
        )
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(never)]
    fn probe(&mut self) -> f64 {
        let t0 = self.tsc.start();
        add_chain(PROBE_ITERATIONS);
        let t1 = self.tsc.stop();
        let ticks = (t1.wrapping_sub(t0) as f64 - self.tsc_overhead).max(1.0);
        (PROBE_ITERATIONS * ADDS_PER_ITERATION) as f64 / ticks
    }

    #[cfg(target_arch = "x86_64")]
    fn probe_multiply(&mut self) -> f64 {
        const MULS: u64 = 4 * PROBE_ITERATIONS;
        let t0 = self.tsc.start();
        multiply_chain(PROBE_ITERATIONS);
        let t1 = self.tsc.stop();
        let ticks = (t1.wrapping_sub(t0) as f64 - self.tsc_overhead).max(1.0);
        (MULS * 3) as f64 / ticks
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn probe(&mut self) -> f64 {
        unreachable!("open fails on this architecture")
    }
}

/// The clock during a sample, from the probes before and after it: their mean, but where
/// they disagree by more than a bin or two, the faster one (a probe the hypervisor
/// interrupted reads far slower than the clock; none reads faster).
fn sample_ratio(before: f64, after: f64) -> f64 {
    let (lo, hi) = if after < before {
        (after, before)
    } else {
        (before, after)
    };
    if hi / lo > 1.05 { hi } else { (lo + hi) / 2.0 }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `iterations` x 8 dependent `add reg, reg` (not `add reg, imm`: some cores fold chains
/// of immediate adds at rename and run several per cycle).
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn add_chain(iterations: u64) -> u64 {
    let mut x = 0u64;
    // SAFETY: register arithmetic only.
    unsafe {
        std::arch::asm!(
            "2:",
            "add {x}, {one}",
            "add {x}, {one}",
            "add {x}, {one}",
            "add {x}, {one}",
            "add {x}, {one}",
            "add {x}, {one}",
            "add {x}, {one}",
            "add {x}, {one}",
            "dec {n}",
            "jnz 2b",
            x = inout(reg) x,
            one = in(reg) 1u64,
            n = inout(reg) iterations => _,
            options(nomem, nostack),
        );
    }
    x
}

/// `iterations` x 4 dependent `imul reg, reg` (latency 3 on every x86-64 core in use).
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn multiply_chain(iterations: u64) -> u64 {
    let mut x = 3u64;
    // SAFETY: register arithmetic only.
    unsafe {
        std::arch::asm!(
            "2:",
            "imul {x}, {k}",
            "imul {x}, {k}",
            "imul {x}, {k}",
            "imul {x}, {k}",
            "dec {n}",
            "jnz 2b",
            x = inout(reg) x,
            k = in(reg) 5u64,
            n = inout(reg) iterations => _,
            options(nomem, nostack),
        );
    }
    x
}

#[cfg(target_arch = "x86_64")]
impl Counter for TscCore {
    #[inline(always)]
    fn start(&mut self) -> u64 {
        self.ratio_at_start = self.probe();
        let t = self.tsc.start();
        self.clock += t.wrapping_sub(self.last_tick) as f64 * self.ratio_at_start;
        self.last_tick = t;
        self.clock as u64
    }

    #[inline(always)]
    fn stop(&mut self) -> u64 {
        let t = self.tsc.stop();
        let after = self.probe();
        let ratio = sample_ratio(self.ratio_at_start, after);
        self.clock += t.wrapping_sub(self.last_tick) as f64 * ratio;
        self.last_tick = t;
        self.last_ratio = Some(ratio);
        self.clock as u64
    }

    fn last_clock(&self) -> Option<f64> {
        self.last_ratio
    }

    /// The TSC's own step in core cycles (consecutive `start`s here include a probe).
    fn granularity(&mut self) -> Option<f64> {
        let ratio = self.probe();
        let step = (0..101)
            .map(|_| {
                let a = self.tsc.start();
                let mut b = self.tsc.start();
                while b == a {
                    b = self.tsc.start();
                }
                b - a
            })
            .min()
            .unwrap_or(1);
        Some(step as f64 * ratio)
    }
}

#[cfg(not(target_arch = "x86_64"))]
impl Counter for TscCore {
    fn start(&mut self) -> u64 {
        unreachable!("open fails on this architecture")
    }
    fn stop(&mut self) -> u64 {
        unreachable!("open fails on this architecture")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_takes_the_mean_clock_unless_one_probe_was_interrupted() {
        assert_eq!(sample_ratio(1.40, 1.44), 1.42);
        assert_eq!(sample_ratio(1.44, 1.40), 1.42);
        // A probe descheduled for as long as it ran reads half the clock.
        assert_eq!(sample_ratio(0.71, 1.42), 1.42);
        assert_eq!(sample_ratio(1.42, 0.71), 1.42);
    }

    #[test]
    fn the_add_chain_clock_is_plausible_and_advances() {
        let Ok(mut c) = TscCore::open() else {
            eprintln!("skipped: no usable TSC here");
            return;
        };
        let r = c.ratio();
        assert!((0.2..5.0).contains(&r), "{r}");
        assert_eq!(c.last_clock(), None, "no region measured yet");
        // The median of several tries: a try whose region was preempted counts the time
        // it was away as well and reads high, and one whose clock probes were both
        // interrupted reads the clock, and so the region, low. The fewest, taken before,
        // is the try a low clock reading made: in 40 runs beside two busy loops it came
        // down to 74 813 (the median of 9: 79 420 at the lowest).
        let mut tries: Vec<u64> = (0..9)
            .map(|_| {
                let a = c.start();
                add_chain(10_000);
                c.stop() - a
            })
            .collect();
        tries.sort_unstable();
        let typical = tries[tries.len() / 2];
        // 80 000 dependent adds take at least 80 000 core cycles. The figure is an
        // estimate, from a clock read beside the region: a clock that moved between the
        // two reads it a few percent low (77 540 was seen under load). Reference cycles
        // counted instead would be below 60 000 on every host seen (TSC 2.2-2.6 GHz,
        // cores at 3.5-3.7 GHz).
        assert!(typical >= 72_000, "{tries:?}");
        assert!(typical < 400_000, "{tries:?}");
        let clock = c.last_clock().expect("the clock beside the region");
        assert!((0.2..5.0).contains(&clock), "{clock}");
    }
}
