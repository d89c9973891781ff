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

/// An estimate and its interval, `1.13401 [1.13375, 1.13430]`, all three to the decimals
/// [`interval_decimals`] chooses from the interval's width; `fixed` writes them where the
/// interval has no width (or is not finite), as it writes a figure without one.
pub(super) fn fmt_interval(i: &Interval, fixed: fn(f64) -> String) -> String {
    match interval_decimals(i) {
        Some(d) => format!(
            "{} [{}, {}]",
            unsigned_zero(format!("{:.d$}", i.estimate)),
            unsigned_zero(format!("{:.d$}", i.lo)),
            unsigned_zero(format!("{:.d$}", i.hi))
        ),
        None => format!("{} [{}, {}]", fixed(i.estimate), fixed(i.lo), fixed(i.hi)),
    }
}

/// The most significant digits an estimate is printed to, however narrow its interval:
/// beyond six, the digits are the counter's, not the code's.
const MOST_SIGNIFICANT: i32 = 6;

/// How many decimals show an estimate with its interval: enough that the half-width
/// shows in two significant digits (`±0.00027` as `1.13401 [1.13375, 1.13430]`, where
/// fixed decimals printed `1.134 [1.134 1.134]`), one more where a bound that differs from the
/// estimate would still print as it does, and never so many that the estimate has more
/// than [`MOST_SIGNIFICANT`] significant digits. `None` for an interval without width (or
/// not finite), where the width says nothing.
pub(super) fn interval_decimals(i: &Interval) -> Option<usize> {
    let half = (i.hi - i.lo) / 2.0;
    if !(half > 0.0 && half.is_finite() && i.estimate.is_finite()) {
        return None;
    }
    let magnitude = |x: f64| x.abs().log10().floor() as i32;
    let largest = i.estimate.abs().max(i.lo.abs()).max(i.hi.abs());
    let most = (MOST_SIGNIFICANT - 1 - magnitude(largest)).max(0);
    let two_digits = (1 - magnitude(half)).clamp(0, most);
    let apart = |d: usize| {
        let at = |x: f64| format!("{x:.d$}");
        (i.lo == i.estimate || at(i.lo) != at(i.estimate))
            && (i.hi == i.estimate || at(i.hi) != at(i.estimate))
    };
    let d = two_digits as usize;
    Some(if apart(d) || two_digits == most {
        d
    } else {
        d + 1
    })
}

/// A ratio with its interval, `3.166x [3.084, 3.249]`: to the decimals the interval's width
/// supports ([`interval_decimals`]), two where it has none.
pub(super) fn fmt_ratio(i: &Interval) -> String {
    let d = interval_decimals(i).unwrap_or(2);
    format!("{:.d$}x [{:.d$}, {:.d$}]", i.estimate, i.lo, i.hi)
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

/// What a heading says of the 95 % intervals of the figures under it: ` [95 % CI]` where
/// every one has an interval, nothing where none has (a heading must not promise what
/// its cells lack: a median's needs 6 processes), and where only some have, that only
/// those do. `has` holds one entry per figure shown.
pub(super) fn ci_heading(has: impl IntoIterator<Item = bool>) -> String {
    interval_heading(has, "CI")
}

/// [`ci_heading`], the interval called `name` (`CI`, `interval`).
pub(super) fn interval_heading(has: impl IntoIterator<Item = bool>, name: &str) -> String {
    let (mut with, mut without) = (0, 0);
    for has in has {
        if has {
            with += 1;
        } else {
            without += 1;
        }
    }
    match (with, without) {
        (0, _) => String::new(),
        (_, 0) => format!(" [95 % {name}]"),
        _ => format!(" [95 % {name} where it has one]"),
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
/// A ratio's operations as a table cell: the member's, and the reference's after `over`
/// where it is another (`fill_bytes over xor`).
pub(super) fn ratio_operation(member: &str, reference: &str) -> String {
    if member == reference {
        member.to_string()
    } else {
        format!("{member} over {reference}")
    }
}

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

    fn interval(estimate: f64, lo: f64, hi: f64) -> Interval {
        Interval {
            estimate,
            lo,
            hi,
            level: 0.95,
        }
    }

    #[test]
    fn an_interval_is_printed_to_the_digits_its_width_supports() {
        let per_byte = |e, lo, hi| fmt_interval(&interval(e, lo, hi), fmt_per_byte);
        // The audit's: ±0.05 % that fixed decimals printed as `1.134 [1.134 1.134]`.
        assert_eq!(
            per_byte(1.13401, 1.13375, 1.13430),
            "1.13401 [1.13375, 1.13430]"
        );
        assert_eq!(
            per_byte(1.13401, 1.13345, 1.13459),
            "1.13401 [1.13345, 1.13459]"
        );
        assert_eq!(
            per_byte(0.214003, 0.213896, 0.214110),
            "0.21400 [0.21390, 0.21411]"
        );
        // A half-width of 0.04 shows in two digits, as it did.
        assert_eq!(per_byte(5.761, 5.719, 5.800), "5.761 [5.719, 5.800]");
        // A wide interval does not claim digits it cannot back.
        assert_eq!(per_byte(2.173, 1.851, 2.226), "2.17 [1.85, 2.23]");
        assert_eq!(per_byte(1655.3, 1000.0, 3000.0), "1655 [1000, 3000]");
        // A bound closer to the estimate than the last digit gets one more.
        assert_eq!(per_byte(5.7610, 5.7606, 5.800), "5.7610 [5.7606, 5.8000]");
        // No width: the fixed decimals, as for a figure without an interval.
        assert_eq!(per_byte(1.5, 1.5, 1.5), "1.500 [1.500, 1.500]");
        // However narrow, no more than six significant digits.
        assert_eq!(
            per_byte(1.0, 1.0 - 1e-12, 1.0 + 1e-12),
            "1.00000 [1.00000, 1.00000]"
        );
        assert_eq!(interval_decimals(&interval(1.0, f64::NAN, 2.0)), None);
    }

    #[test]
    fn a_ratio_is_printed_to_the_digits_its_interval_supports() {
        // A half-width of 0.07 in two significant digits, as `fmt_interval` writes it.
        assert_eq!(
            fmt_ratio(&interval(1.28, 1.21, 1.35)),
            "1.280x [1.210, 1.350]"
        );
        assert_eq!(
            fmt_ratio(&interval(3.166, 3.084, 3.249)),
            "3.166x [3.084, 3.249]"
        );
        assert_eq!(fmt_ratio(&interval(1.8, 0.01, 2.7)), "1.8x [0.0, 2.7]");
        assert_eq!(fmt_ratio(&interval(2.0, 2.0, 2.0)), "2.00x [2.00, 2.00]");
    }

    #[test]
    fn a_heading_promises_intervals_only_where_its_figures_have_them() {
        assert_eq!(ci_heading([true, true]), " [95 % CI]");
        assert_eq!(ci_heading([false, false]), "");
        assert_eq!(ci_heading([true, false]), " [95 % CI where it has one]");
        // No figure at all: nothing to promise either.
        assert_eq!(ci_heading([]), "");
        assert_eq!(interval_heading([true], "interval"), " [95 % interval]");
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
