//! The time-stamp counter, read with fences so that the timed region cannot leak out.

use super::Counter;

/// The x86-64 time-stamp counter, in reference cycles (ticks at a fixed nominal rate).
pub struct Tsc(());

impl Tsc {
    /// The TSC, if usable here: errs without `rdtscp`, without a constant-rate TSC
    /// (`constant_tsc`), and on every architecture but x86-64.
    pub fn open() -> Result<Tsc, String> {
        #[cfg(target_arch = "x86_64")]
        {
            if !cpu_flag("rdtscp") {
                return Err("the CPU lacks rdtscp".into());
            }
            if !cpu_flag("constant_tsc") {
                return Err("the TSC is not constant-rate (no `constant_tsc` flag), so its ticks are not comparable".into());
            }
            Ok(Tsc(()))
        }
        #[cfg(not(target_arch = "x86_64"))]
        Err("the TSC exists only on x86-64".into())
    }
}

#[cfg(target_arch = "x86_64")]
fn cpu_flag(flag: &str) -> bool {
    std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("flags"))
            .is_some_and(|l| l.split_whitespace().any(|f| f == flag))
    })
}

#[cfg(target_arch = "x86_64")]
impl Counter for Tsc {
    /// `lfence; rdtsc; lfence`: earlier instructions finish before the read, and the
    /// region's instructions do not start before it (Intel SDM, RDTSC; AMD documents
    /// LFENCE as dispatch-serialising when the OS enables it, as Linux does).
    #[inline(always)]
    fn start(&mut self) -> u64 {
        use std::arch::x86_64::{_mm_lfence, _rdtsc};
        // SAFETY: rdtsc and lfence are available on every x86-64 CPU.
        unsafe {
            _mm_lfence();
            let t = _rdtsc();
            _mm_lfence();
            t
        }
    }

    /// `rdtscp; lfence`: rdtscp waits for the region's instructions to complete, the
    /// fence keeps later instructions from starting before the read.
    #[inline(always)]
    fn stop(&mut self) -> u64 {
        use std::arch::x86_64::{__rdtscp, _mm_lfence};
        let mut aux = 0u32;
        // SAFETY: `open` checked that the CPU has rdtscp.
        unsafe {
            let t = __rdtscp(&mut aux);
            _mm_lfence();
            t
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
impl Counter for Tsc {
    fn start(&mut self) -> u64 {
        unreachable!("Tsc::open fails on this architecture")
    }
    fn stop(&mut self) -> u64 {
        unreachable!("Tsc::open fails on this architecture")
    }
}

/// The TSC's rate, measured against CLOCK_MONOTONIC_RAW over `window`.
///
/// Read at run time every time: hosts differ (2.2, 2.45 and 2.6 GHz have been seen) and
/// a hard-coded figure would silently mislabel every number.
pub fn tsc_frequency_hz(window: std::time::Duration) -> Option<f64> {
    let mut tsc = Tsc::open().ok()?;
    let ns0 = super::ns::monotonic_raw_ns();
    let c0 = tsc.start();
    let target = ns0 + window.as_nanos() as u64;
    let mut ns1 = ns0;
    while ns1 < target {
        ns1 = super::ns::monotonic_raw_ns();
    }
    let c1 = tsc.stop();
    // Unpinned, the thread may have moved to a CPU whose counter is behind: no rate.
    let ticks = c1.checked_sub(c0).filter(|&t| t > 0)?;
    Some(ticks as f64 * 1e9 / (ns1 - ns0) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsc_is_monotonic_and_its_frequency_plausible() {
        let Ok(mut t) = Tsc::open() else {
            eprintln!("skipped: no usable TSC here");
            return;
        };
        let a = t.start();
        let b = t.stop();
        assert!(b > a);
        let hz = tsc_frequency_hz(std::time::Duration::from_millis(20)).unwrap();
        assert!((5e8..1e10).contains(&hz), "TSC at {hz} Hz");
    }
}
