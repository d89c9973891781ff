//! How report tables write numbers: counts, per-byte costs, intervals, percentages,
//! p-values and throughput, each to the precision it can claim.

use crate::stats::{Interval, Outliers};

/// "1 worker process", "10 worker processes".
pub(super) fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

pub(super) fn fmt_count(x: f64) -> String {
    fmt_count_as(x, x)
}

/// `x` with the decimals [`fmt_count`] gives `like`: a difference printed as precisely as
/// the counts it is the difference of.
pub(super) fn fmt_count_as(x: f64, like: f64) -> String {
    let like = like.abs();
    if like >= 1000.0 {
        format!("{x:.0}")
    } else if like >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
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

pub(super) fn fmt_throughput(bytes_per_s: f64) -> String {
    if bytes_per_s >= 1e9 {
        format!("{:.3} GB/s", bytes_per_s / 1e9)
    } else {
        format!("{:.1} MB/s", bytes_per_s / 1e6)
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

pub(super) fn fmt_pct(i: &Interval) -> String {
    format!("{:+.2} % [{:+.2}, {:+.2}]", i.estimate, i.lo, i.hi)
}

pub(super) use crate::stats::fmt_p;
