//! The monotonic clock in nanoseconds: available everywhere.

use super::Counter;

/// The monotonic clock (`CLOCK_MONOTONIC_RAW`, which NTP does not slew), in
/// nanoseconds.
pub struct Nanoseconds;

#[inline(always)]
fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC_RAW is not slewed by NTP.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_RAW, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Counter for Nanoseconds {
    #[inline(always)]
    fn start(&mut self) -> u64 {
        now_ns()
    }
    #[inline(always)]
    fn stop(&mut self) -> u64 {
        now_ns()
    }
}

pub(crate) fn monotonic_raw_ns() -> u64 {
    now_ns()
}
