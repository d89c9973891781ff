//! How report tables write numbers: counts, per-byte costs, intervals, percentages,
//! p-values and throughput, each to the precision it can claim.

use crate::stats::{Interval, Outliers};

/// "1 worker process", "10 worker processes".
pub(super) fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `text`, a number as `format!` wrote it, without the sign of a figure it rounded to
/// zero: `-0`, `-0.00` and `+0.00` read as a change that is not there; they are `0`,
/// `0.00`.
fn unsigned_zero(text: String) -> String {
    let digits = text.trim_start_matches(['-', '+']);
    if digits.len() < text.len() && digits.chars().all(|c| c == '0' || c == '.') {
        digits.to_string()
    } else {
        text
    }
}

pub(super) fn fmt_count(x: f64) -> String {
    fmt_count_as(x, x)
}

/// `x` with the decimals [`fmt_count`] gives `like`: a difference printed as precisely as
/// the counts it is the difference of.
pub(super) fn fmt_count_as(x: f64, like: f64) -> String {
    let like = like.abs();
    unsigned_zero(if like >= 1000.0 {
        format!("{x:.0}")
    } else if like >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    })
}

pub(super) fn fmt_per_byte(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.1}")
    } else if x >= 10.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

pub(super) fn fmt_interval(i: &Interval, f: fn(f64) -> String) -> String {
    format!("{} [{} {}]", f(i.estimate), f(i.lo), f(i.hi))
}

pub(super) fn fmt_rel(i: &Interval) -> String {
    format!("±{:.2} %", 100.0 * i.half_width_rel())
}

/// Bytes per second in the largest decimal unit that keeps the rate at 1 or above (GB/s,
/// MB/s, kB/s, B/s), so that a slow rate is not printed as 0.0 MB/s; under 1 B/s, to
/// three significant digits.
pub(super) fn fmt_throughput(bytes_per_s: f64) -> String {
    if bytes_per_s >= 1e9 {
        format!("{:.3} GB/s", bytes_per_s / 1e9)
    } else if bytes_per_s >= 1e6 {
        format!("{:.1} MB/s", bytes_per_s / 1e6)
    } else if bytes_per_s >= 1e3 {
        format!("{:.1} kB/s", bytes_per_s / 1e3)
    } else if bytes_per_s >= 1.0 || bytes_per_s <= 0.0 || !bytes_per_s.is_finite() {
        format!("{bytes_per_s:.1} B/s")
    } else {
        let decimals = (2.0 - bytes_per_s.log10().floor()) as usize;
        format!("{bytes_per_s:.decimals$} B/s")
    }
}

/// Outliers as criterion counts them, e.g. "6 (5 high mild, 1 high severe)".
pub(super) fn fmt_outliers(o: &Outliers, n: usize) -> String {
    if o.total() == 0 {
        return "0".into();
    }
    let parts: Vec<String> = [
        (o.low_severe, "low severe"),
        (o.low_mild, "low mild"),
        (o.high_mild, "high mild"),
        (o.high_severe, "high severe"),
    ]
    .iter()
    .filter(|(k, _)| *k > 0)
    .map(|(k, what)| format!("{k} {what}"))
    .collect();
    format!(
        "{} ({:.1} %: {})",
        o.total(),
        100.0 * o.total() as f64 / n as f64,
        parts.join(", ")
    )
}

/// A change with its sign, two decimals: `+1.25`, `-0.50`, `0.00`.
pub(super) fn fmt_signed(x: f64) -> String {
    unsigned_zero(format!("{x:+.2}"))
}

pub(super) fn fmt_pct(i: &Interval) -> String {
    format!(
        "{} % [{}, {}]",
        fmt_signed(i.estimate),
        fmt_signed(i.lo),
        fmt_signed(i.hi)
    )
}

pub(super) use crate::stats::fmt_p;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_rounded_to_zero_have_no_sign() {
        assert_eq!(fmt_count_as(-0.2, 5000.0), "0");
        assert_eq!(fmt_count_as(-0.001, 5.0), "0.00");
        assert_eq!(fmt_count_as(-3.0, 5000.0), "-3");
        assert_eq!(fmt_count(-0.0), "0.00");
        let i = Interval {
            estimate: -0.001,
            lo: -1.5,
            hi: 0.001,
            level: 0.95,
        };
        assert_eq!(fmt_pct(&i), "0.00 % [-1.50, 0.00]");
        let up = Interval {
            estimate: 2.0,
            lo: 1.0,
            hi: 3.0,
            level: 0.95,
        };
        assert_eq!(fmt_pct(&up), "+2.00 % [+1.00, +3.00]");
    }

    #[test]
    fn rates_are_in_the_unit_that_shows_them() {
        assert_eq!(fmt_throughput(2.5e9), "2.500 GB/s");
        assert_eq!(fmt_throughput(452.1e6), "452.1 MB/s");
        assert_eq!(fmt_throughput(12_345.0), "12.3 kB/s");
        assert_eq!(fmt_throughput(640.0), "640.0 B/s");
        assert_eq!(fmt_throughput(0.0123), "0.0123 B/s");
        assert_eq!(fmt_throughput(0.5), "0.500 B/s");
    }
}
