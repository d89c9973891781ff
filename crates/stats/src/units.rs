//! Conversions from cycle counts to throughput units.

/// Cycles per byte: `cycles / bytes`.
///
/// `bytes` must be positive; `bytes == 0` gives +∞ (or NaN for zero cycles)
/// by IEEE division rather than a panic.
pub fn cycles_per_byte(cycles: f64, bytes: u64) -> f64 {
    cycles / bytes as f64
}

/// Bytes per second at a clock of `hz` cycles per second: `bytes * hz / cycles`.
///
/// Only meaningful when the cycle counter ticks at `hz` (e.g. an invariant TSC
/// at its nominal frequency). `cycles` must be positive; zero gives +∞ or NaN.
pub fn bytes_per_second(cycles: f64, bytes: u64, hz: f64) -> f64 {
    bytes as f64 * hz / cycles
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_per_byte_known_values() {
        // 4096 bytes in 5120 cycles is 1.25 cycles/byte.
        assert_eq!(cycles_per_byte(5120.0, 4096), 1.25);
        assert_eq!(cycles_per_byte(1.0, 3), 1.0 / 3.0);
        assert_eq!(cycles_per_byte(10.0, 0), f64::INFINITY);
    }

    #[test]
    fn bytes_per_second_known_values() {
        // 1.25 cycles/byte at 3 GHz is 3e9 / 1.25 = 2.4e9 bytes/s.
        assert_eq!(bytes_per_second(5120.0, 4096, 3.0e9), 2.4e9);
        // One byte per cycle runs at the clock rate.
        assert_eq!(bytes_per_second(1000.0, 1000, 2.5e9), 2.5e9);
        // The two conversions are reciprocal up to the clock.
        let (c, b, hz) = (123_456.0, 65_536, 3.7e9);
        let cpb = cycles_per_byte(c, b);
        assert!((bytes_per_second(c, b, hz) - hz / cpb).abs() < 1e-6);
    }
}
