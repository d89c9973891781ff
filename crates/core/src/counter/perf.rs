//! Core cycles through `perf_event_open(2)`, where the kernel exposes a hardware PMU.

use super::{Counter, Tsc};

/// This thread's core cycles in user space, from a `perf_event_open` hardware counter.
pub struct PerfCycles {
    fd: libc::c_int,
    /// Read just inside each region too, where there is a TSC, so that the clock the
    /// region ran at (cycles per TSC tick) is known: the code itself can move it.
    tsc: Option<Tsc>,
    start: (u64, u64),
    last_clock: Option<f64>,
}

/// The first 64 bytes of `struct perf_event_attr` (PERF_ATTR_SIZE_VER0): all we set.
#[repr(C)]
#[derive(Default)]
struct PerfEventAttr {
    type_: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
}

const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_COUNT_HW_CPU_CYCLES: u64 = 0;
const FLAG_EXCLUDE_KERNEL: u64 = 1 << 5;
const FLAG_EXCLUDE_HV: u64 = 1 << 6;

impl PerfCycles {
    /// Open the cycle counter for this thread; the error says why not (no hardware PMU,
    /// `perf_event_paranoid`, or a counter that cannot be read).
    pub fn open() -> Result<PerfCycles, String> {
        let attr = PerfEventAttr {
            type_: PERF_TYPE_HARDWARE,
            size: std::mem::size_of::<PerfEventAttr>() as u32,
            config: PERF_COUNT_HW_CPU_CYCLES,
            flags: FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV,
            ..Default::default()
        };
        // SAFETY: `attr` is a valid VER0 perf_event_attr; pid 0 / cpu -1 = this thread on
        // any CPU; no group fd; no flags.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_perf_event_open,
                &attr as *const PerfEventAttr,
                0,
                -1,
                -1,
                0,
            )
        } as libc::c_int;
        if fd < 0 {
            let err = std::io::Error::last_os_error();
            let hint = match err.raw_os_error() {
                Some(libc::ENOENT) | Some(libc::EOPNOTSUPP) => {
                    " (no hardware PMU: usual under a hypervisor)"
                }
                Some(libc::EACCES) | Some(libc::EPERM) => {
                    " (see /proc/sys/kernel/perf_event_paranoid)"
                }
                _ => "",
            };
            return Err(format!("perf_event_open(cycles) failed: {err}{hint}"));
        }
        let mut c = PerfCycles {
            fd,
            tsc: Tsc::open().ok(),
            start: (0, 0),
            last_clock: None,
        };
        let Some(before) = c.read_count() else {
            return Err("perf cycles counter opened but cannot be read".into());
        };
        // Some virtual PMUs open the event and never count: every region would read 0
        // and calibration would wait for a step forever.
        let mut x = 0u64;
        for i in 0..100_000u64 {
            x = std::hint::black_box(x.wrapping_add(i));
        }
        if c.read_count().is_none_or(|after| after == before) {
            return Err(
                "perf cycles counter opened but does not count (a virtual PMU without cycles)"
                    .into(),
            );
        }
        Ok(c)
    }

    #[inline(always)]
    fn read_count(&mut self) -> Option<u64> {
        let mut v = 0u64;
        // SAFETY: reading 8 bytes into a u64 from our own perf fd.
        let n = unsafe { libc::read(self.fd, (&mut v as *mut u64).cast(), 8) };
        (n == 8).then_some(v)
    }
}

impl Drop for PerfCycles {
    fn drop(&mut self) {
        // SAFETY: we own the fd.
        unsafe { libc::close(self.fd) };
    }
}

impl Counter for PerfCycles {
    /// The TSC is read after the count and before the count at the end, so that its
    /// interval holds the region, not the kernel's time inside `read`, which the
    /// user-mode count leaves out.
    #[inline(always)]
    fn start(&mut self) -> u64 {
        let count = self.read_count().unwrap_or(0);
        let tick = self.tsc.as_mut().map_or(0, Counter::start);
        self.start = (count, tick);
        count
    }
    #[inline(always)]
    fn stop(&mut self) -> u64 {
        let tick = self.tsc.as_mut().map_or(0, Counter::stop);
        let count = self.read_count().unwrap_or(0);
        let (count0, tick0) = self.start;
        self.last_clock = (self.tsc.is_some() && tick > tick0)
            .then(|| count.wrapping_sub(count0) as f64 / (tick - tick0) as f64);
        count
    }
    fn last_clock(&self) -> Option<f64> {
        self.last_clock
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perf_cycles_advance_and_report_the_clock_beside_them() {
        let Ok(mut c) = PerfCycles::open() else {
            eprintln!("skipped: no hardware PMU here");
            return;
        };
        let a = c.start();
        let mut x = 0u64;
        for i in 0..1_000_000u64 {
            x = std::hint::black_box(x.wrapping_add(i));
        }
        let b = c.stop();
        assert!(b - a >= 1_000_000, "a million dependent adds: {}", b - a);
        if c.tsc.is_some() {
            let clock = c.last_clock().expect("the clock beside the region");
            assert!((0.2..5.0).contains(&clock), "{clock}");
        }
    }
}
