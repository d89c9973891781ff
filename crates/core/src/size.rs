//! Sizes with units, as the command line takes them (`512MiB`, `1GB`, `16KiB`) and as
//! reports print them back.

use std::num::IntErrorKind;

const UNITS: &[(&str, u64)] = &[
    ("kib", 1 << 10),
    ("mib", 1 << 20),
    ("gib", 1 << 30),
    ("kb", 1_000),
    ("mb", 1_000_000),
    ("gb", 1_000_000_000),
    ("b", 1),
    ("", 1),
];

/// `512MiB`, `1 GiB`, `64KB`, `1048576` (bytes): a whole number and a unit, case
/// ignored. Zero is left to the caller, which knows its own least size.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if t.starts_with('-') {
        return Err(format!(
            "`{s}` is negative, not a size: a size is a whole number of bytes"
        ));
    }
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let unit = unit.trim().to_ascii_lowercase();
    let help = "examples: 512MiB, 1GiB, 64KB, 1048576; units KiB, MiB, GiB (powers of 1024), KB, MB, GB (powers of 1000)";
    let n = match number.parse::<u64>() {
        Ok(n) => n,
        Err(e) if *e.kind() == IntErrorKind::PosOverflow => {
            return Err(format!("`{s}` is too large"));
        }
        Err(_) => return Err(format!("`{s}` is not a size ({help})")),
    };
    let Some(&(_, scale)) = UNITS.iter().find(|(u, _)| *u == unit) else {
        let exponent = unit.strip_prefix('e').is_some_and(|e| {
            !e.is_empty()
                && e.trim_start_matches(['+', '-'])
                    .chars()
                    .all(|c| c.is_ascii_digit())
        });
        let hex = number == "0" && unit.starts_with('x');
        if unit.starts_with(['.', ',']) || exponent || hex {
            return Err(format!(
                "`{s}` is not a whole number of bytes or units: write it as a whole number, e.g. 1536 for 1.5KiB ({help})"
            ));
        }
        return Err(format!("`{s}` has an unknown unit ({help})"));
    };
    n.checked_mul(scale)
        .filter(|&b| b <= isize::MAX as u64)
        .ok_or_else(|| format!("`{s}` is too large"))
}

/// The most bytes one buffer of a per-call measurement may hold (its message, its output,
/// its associated data): sizes past it are `cryptobench bulk`'s, which splits them over
/// threads. Capped, no sum or product of a case's sizes can overflow ([`crate::record::Case::bytes`]).
pub const MAX_PER_CALL: u64 = 1 << 30;

/// `n` bytes in one buffer of a per-call measurement: refused past [`MAX_PER_CALL`]. The
/// one rule for `--sizes`, a bench's sizes and the `len`, `out` and `ad` of a case's id.
pub fn check_per_call(n: u64) -> Result<u64, String> {
    if n > MAX_PER_CALL {
        return Err(format!(
            "{n} bytes is too large for a per-call measurement (max {}); use `cryptobench bulk` for bulk sizes",
            format_size(MAX_PER_CALL)
        ));
    }
    Ok(n)
}

/// A message length a list of sizes (`--sizes`, `Bench::sizes`) may name: at least a
/// byte (a list of lengths is for cycles per byte), at most [`check_per_call`]'s cap.
pub fn check_message_len(n: u64) -> Result<u64, String> {
    if n == 0 {
        return Err("a size must be at least 1 byte".into());
    }
    check_per_call(n)
}

/// The size as the user most likely wrote it: `512 MiB`, `1 GB`, else bytes.
pub fn format_size(bytes: u64) -> String {
    UNITS
        .iter()
        .filter(|(u, scale)| !u.is_empty() && *scale > 1 && bytes.is_multiple_of(*scale))
        .max_by_key(|(_, scale)| *scale)
        .map_or(format!("{bytes} B"), |(u, scale)| {
            let unit = match *u {
                "kib" => "KiB",
                "mib" => "MiB",
                "gib" => "GiB",
                "kb" => "KB",
                "mb" => "MB",
                _ => "GB",
            };
            format!("{} {unit}", bytes / scale)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_with_units() {
        assert_eq!(parse_bytes("512MiB"), Ok(512 << 20));
        assert_eq!(parse_bytes("1GiB"), Ok(1 << 30));
        assert_eq!(parse_bytes("2 gib"), Ok(2 << 30));
        assert_eq!(parse_bytes("64KiB"), Ok(65536));
        assert_eq!(parse_bytes("2KB"), Ok(2000));
        assert_eq!(parse_bytes("3MB"), Ok(3_000_000));
        assert_eq!(parse_bytes("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("32B"), Ok(32));
        assert_eq!(parse_bytes("0"), Ok(0));
    }

    #[test]
    fn fractions_and_other_notations_are_told_apart_from_unknown_units() {
        for s in ["1.5KiB", "1e3", "0x40"] {
            let err = parse_bytes(s).unwrap_err();
            assert!(err.contains("not a whole number"), "{s}: {err}");
        }
        for s in ["12x", "12q", "3eb"] {
            assert!(parse_bytes(s).unwrap_err().contains("unknown unit"), "{s}");
        }
    }

    #[test]
    fn bad_sizes_say_why() {
        assert!(parse_bytes("12XB").unwrap_err().contains("unknown unit"));
        assert!(parse_bytes("MiB").unwrap_err().contains("not a size"));
        assert!(parse_bytes("").unwrap_err().contains("not a size"));
        assert!(parse_bytes("-1GiB").unwrap_err().contains("not a size"));
        assert!(parse_bytes("-1").unwrap_err().contains("`-1` is negative"));
        assert!(
            parse_bytes("1.5GiB")
                .unwrap_err()
                .contains("not a whole number")
        );
        assert!(
            parse_bytes("99999999999999GiB")
                .unwrap_err()
                .contains("too large")
        );
        assert!(
            parse_bytes("99999999999999999999")
                .unwrap_err()
                .contains("too large")
        );
    }

    #[test]
    fn one_cap_for_every_per_call_size() {
        assert_eq!(check_per_call(0), Ok(0));
        assert_eq!(check_per_call(MAX_PER_CALL), Ok(1 << 30));
        for n in [MAX_PER_CALL + 1, 1 << 40, u64::MAX] {
            let err = check_per_call(n).unwrap_err();
            assert!(err.contains("max 1 GiB"), "{n}: {err}");
            assert!(err.contains("cryptobench bulk"), "{n}: {err}");
            assert_eq!(check_message_len(n), Err(err));
        }
        assert_eq!(check_message_len(1), Ok(1));
        assert_eq!(check_message_len(MAX_PER_CALL), Ok(MAX_PER_CALL));
        assert!(
            check_message_len(0)
                .unwrap_err()
                .contains("at least 1 byte")
        );
    }

    #[test]
    fn sizes_print_in_the_largest_exact_unit() {
        assert_eq!(format_size(512 << 20), "512 MiB");
        assert_eq!(format_size(2 << 30), "2 GiB");
        assert_eq!(format_size(1_000_000_000), "1 GB");
        assert_eq!(format_size(48), "48 B");
        assert_eq!(format_size(1040), "1040 B");
        for s in ["8MiB", "3MB", "64KiB", "1GiB", "1040"] {
            let b = parse_bytes(s).unwrap();
            assert_eq!(parse_bytes(&format_size(b)), Ok(b), "{s}");
        }
    }
}
