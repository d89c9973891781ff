//! Collecting samples of prepared calls on the current (pinned) thread.
//!
//! A *sample* is the counter difference around `calls_per_sample` back-to-back calls,
//! less the counter's own overhead, divided by the number of calls: counts per call.
//! Samples are taken round-robin over several *layouts* (the same call prepared at
//! different memory addresses) so that one lucky or unlucky placement of state and
//! buffers cannot decide the figure. Each layout's samples are kept apart here and in the
//! store; the statistics resample worker processes, the independent units, each with
//! all of its layouts.

use std::time::Instant;

use crate::canary::Canary;
use crate::catalog::Call;
use crate::counter::{self, Calibration, Counter, CounterKind, calibrate};
use crate::record::{CanaryReadings, SamplePlan, Samples};

/// [`collect`] with the counter of this kind, opened here: the one place a counter kind
/// becomes a counter. The choice is made once, outside every timed region.
pub fn collect_with(
    kind: CounterKind,
    layouts: &mut [Box<dyn Call>],
    plan: &SamplePlan,
    canary: Option<&mut Canary>,
) -> Result<Samples, String> {
    Ok(match kind {
        CounterKind::Tsc => collect(&mut counter::Tsc::open()?, layouts, plan, canary),
        CounterKind::Perf => collect(&mut counter::PerfCycles::open()?, layouts, plan, canary),
        // The run's counter choice checked the clock; one worker's unlucky probe must not
        // fail its case.
        CounterKind::TscCore => collect(
            &mut counter::TscCore::open_checked_elsewhere()?,
            layouts,
            plan,
            canary,
        ),
        CounterKind::Ns => collect(&mut counter::Nanoseconds, layouts, plan, canary),
        // The simulator has no clock to calibrate against, and no host to be unsteady.
        CounterKind::Instructions => count_instructions(layouts)?,
    })
}

/// Calls per counted region: a fixed number, as the simulator cannot be timed to choose
/// one, and the same in every run so that two runs count the same work.
pub const COUNTED_CALLS: u64 = 16;

/// The region Valgrind counts in (its symbol is [`counter::valgrind::COUNTED_REGION`]):
/// `n` calls, and nothing else.
#[unsafe(no_mangle)]
#[inline(never)]
pub fn cryptobench_counted_region(call: &mut dyn Call, n: u64) {
    for _ in 0..n {
        call.call();
    }
}

/// A call that does nothing: the region's own instructions per call.
struct Nothing;

impl Call for Nothing {
    fn call(&mut self) {}
}

/// Instructions per call of each layout, counted by the simulator this worker runs on:
/// one region of [`COUNTED_CALLS`] calls per layout after two uncounted ones (first-call
/// work such as lazy tables stays out), less an empty region's count.
fn count_instructions(layouts: &mut [Box<dyn Call>]) -> Result<Samples, String> {
    let mut regions = 0;
    let mut count = |call: &mut dyn Call| {
        regions += 1;
        cryptobench_counted_region(call, COUNTED_CALLS);
        counter::valgrind::counted(regions)
    };
    let empty = count(&mut Nothing)? as f64;
    let mut per_layout = Vec::with_capacity(layouts.len());
    for layout in layouts.iter_mut() {
        layout.call();
        layout.call();
        let counted = count(layout.as_mut())? as f64;
        per_layout.push(vec![(counted - empty) / COUNTED_CALLS as f64]);
    }
    Ok(Samples {
        calls_per_sample: COUNTED_CALLS,
        calibration: Calibration {
            overhead: empty / COUNTED_CALLS as f64,
            resolution: 1.0 / COUNTED_CALLS as f64,
        },
        per_layout,
        core_clock: None,
        canary: None,
    })
}

/// Readings of the canary per process: before the first sample, then after each
/// quarter of them, so that a host that moved during the process shows.
pub const CANARY_READINGS: usize = 5;
/// Runs of the canary per reading.
const CANARY_REPEATS: usize = 3;

/// Time `layouts` (the same call, differently placed) with counter `c`, and the
/// `canary`, where there is one, between the samples with the same counter.
pub fn collect<C: Counter>(
    c: &mut C,
    layouts: &mut [Box<dyn Call>],
    plan: &SamplePlan,
    mut canary: Option<&mut Canary>,
) -> Samples {
    assert!(!layouts.is_empty(), "at least one layout");
    let calibration = calibrate(c);

    // Warm up caches, branch predictors and the core's clock before anything is kept.
    let until = Instant::now() + plan.warmup;
    while Instant::now() < until {
        for l in layouts.iter_mut() {
            l.call();
        }
    }

    let calls_per_sample = calls_per_sample(c, layouts[0].as_mut(), &calibration, plan);
    let mut clusters = vec![Vec::with_capacity(plan.samples); layouts.len()];
    let mut clocks = Vec::with_capacity(plan.samples * layouts.len());
    let mut canary_readings = Vec::with_capacity(CANARY_READINGS);
    let mut read_canary = |c: &mut C| {
        if let Some(canary) = canary.as_deref_mut() {
            // The fastest of a few back to back: the first after the measured code
            // refills the canary's caches and predictors, which that code evicted to a
            // degree of its own; the host's mode slows all of them.
            let fastest = (0..CANARY_REPEATS)
                .map(|_| {
                    let t0 = c.start();
                    canary.run();
                    let t1 = c.stop();
                    t1.wrapping_sub(t0)
                })
                .min()
                .expect("repeated");
            canary_readings.push(fastest as f64 - calibration.overhead);
        }
    };
    let quarter = plan.samples.div_ceil(CANARY_READINGS - 1).max(1);
    for s in 0..plan.samples {
        if s % quarter == 0 {
            read_canary(c);
        }
        for (l, (layout, cluster)) in layouts.iter_mut().zip(clusters.iter_mut()).enumerate() {
            let mut timed = || {
                let t0 = c.start();
                for _ in 0..calls_per_sample {
                    layout.call();
                }
                let t1 = c.stop();
                t1.wrapping_sub(t0)
            };
            let counts =
                at_stack_depth(stack_depth(s, l), &mut timed) as f64 - calibration.overhead;
            cluster.push(counts / calls_per_sample as f64);
            clocks.extend(c.last_clock());
        }
    }
    read_canary(c);
    Samples {
        calls_per_sample,
        calibration,
        per_layout: clusters,
        core_clock: crate::stats::median(&clocks),
        canary: canary.is_some().then(|| CanaryReadings {
            kind: Canary::describe(),
            readings: canary_readings,
        }),
    }
}

/// Frames of [`at_stack_depth`] step the stack pointer by at least this much.
const STACK_STEP: usize = 64;
/// Sample `s` of layout `l` runs this many frames deep: successive samples walk over
/// about a page of stack offsets, each layout from another starting point.
fn stack_depth(s: usize, l: usize) -> usize {
    const DEPTHS: usize = 4096 / STACK_STEP;
    (s * 23 + l * 7) % DEPTHS
}

/// Run `f` with the stack pointer lowered by `depth` frames, so that the measured call's
/// stack temporaries sit at another offset within a page. Where a call's stack lands
/// relative to its buffers can change its speed by several percent (4K aliasing between
/// loads and stores); the process's random stack base would otherwise pick one such
/// offset per process.
#[inline(never)]
fn at_stack_depth(depth: usize, f: &mut dyn FnMut() -> u64) -> u64 {
    if depth == 0 {
        return f();
    }
    let pad = [0u8; STACK_STEP];
    std::hint::black_box(&pad);
    let r = at_stack_depth(depth - 1, f);
    std::hint::black_box(&pad);
    r
}

/// Enough calls per sample that overhead and resolution are negligible.
fn calls_per_sample<C: Counter>(
    c: &mut C,
    call: &mut dyn Call,
    cal: &Calibration,
    plan: &SamplePlan,
) -> u64 {
    let mut one = [0u64; 15];
    for t in one.iter_mut() {
        let t0 = c.start();
        call.call();
        let t1 = c.stop();
        *t = t1.wrapping_sub(t0);
    }
    one.sort_unstable();
    let per_call = (one[one.len() / 2] as f64 - cal.overhead).max(1.0);
    let need = (cal.overhead * plan.overhead_factor).max(cal.resolution * plan.resolution_factor);
    (need / per_call).ceil().clamp(1.0, 1e7) as u64
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// A counter that advances by a fixed amount per read, and a call that advances it by
    /// a known amount: the sampler must recover exactly the call's cost.
    struct Fake(std::rc::Rc<std::cell::Cell<u64>>);
    impl Counter for Fake {
        fn start(&mut self) -> u64 {
            self.0.set(self.0.get() + 7);
            self.0.get()
        }
        fn stop(&mut self) -> u64 {
            self.0.set(self.0.get() + 7);
            self.0.get()
        }
    }
    struct Costs(std::rc::Rc<std::cell::Cell<u64>>, u64);
    impl Call for Costs {
        fn call(&mut self) {
            self.0.set(self.0.get() + self.1);
        }
    }

    #[test]
    fn overhead_is_removed_and_calls_per_sample_scale() {
        let clock = std::rc::Rc::new(std::cell::Cell::new(0));
        let mut layouts: Vec<Box<dyn Call>> = vec![
            Box::new(Costs(clock.clone(), 100)),
            Box::new(Costs(clock.clone(), 100)),
        ];
        let plan = SamplePlan {
            samples: 10,
            warmup: Duration::ZERO,
            ..SamplePlan::default()
        };
        let s = collect(&mut Fake(clock), &mut layouts, &plan, None);
        assert_eq!(s.calibration.overhead, 7.0);
        // max(200 x overhead 7, 1000 x resolution 7) = 7000 counts at 100 per call.
        assert_eq!(s.calls_per_sample, 70);
        assert_eq!(s.per_layout.len(), 2);
        for cluster in &s.per_layout {
            assert_eq!(cluster.len(), 10);
            assert!(cluster.iter().all(|&x| x == 100.0), "{cluster:?}");
        }
        assert_eq!(
            s.core_clock, None,
            "a counter that does not measure the clock"
        );
    }

    /// A counter that reports the clock beside each region: 1.0, 2.0, 3.0, 1.0, ...
    struct Clocked(Fake, u64);
    impl Counter for Clocked {
        fn start(&mut self) -> u64 {
            self.0.start()
        }
        fn stop(&mut self) -> u64 {
            self.1 += 1;
            self.0.stop()
        }
        fn last_clock(&self) -> Option<f64> {
            Some((self.1 % 3 + 1) as f64)
        }
    }

    #[test]
    fn the_clock_is_the_median_beside_the_kept_samples() {
        let clock = std::rc::Rc::new(std::cell::Cell::new(0));
        let mut layouts: Vec<Box<dyn Call>> = vec![Box::new(Costs(clock.clone(), 100))];
        let plan = SamplePlan {
            samples: 9,
            warmup: Duration::ZERO,
            ..SamplePlan::default()
        };
        let s = collect(&mut Clocked(Fake(clock), 0), &mut layouts, &plan, None);
        assert_eq!(s.core_clock, Some(2.0));
    }
}
