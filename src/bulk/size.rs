//! Sizes with units (`512MiB`, `1GB`) and thread counts, as `bulk` accepts them.

use std::num::IntErrorKind;

/// Every size must hold whole AES blocks, so that ECB can run on it as CTR does.
pub const BLOCK: u64 = 16;

/// The most threads a run may ask for: beyond any machine this is meant for, and a bound
/// that keeps a typo (`--threads 10000`) from spawning thousands of threads.
pub const MAX_THREADS: usize = 1024;

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

/// `512MiB`, `1 GiB`, `64KB`, `1048576` (bytes): a whole number and a unit, case ignored.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
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
        return Err(format!("`{s}` has an unknown unit ({help})"));
    };
    let Some(bytes) = n.checked_mul(scale).filter(|&b| b <= isize::MAX as u64) else {
        return Err(format!("`{s}` is too large"));
    };
    if bytes == 0 {
        return Err("a size must be at least 16 bytes (one AES block)".into());
    }
    if !bytes.is_multiple_of(BLOCK) {
        return Err(format!(
            "`{s}` is {bytes} bytes, not a whole number of 16-byte AES blocks (ECB needs them)"
        ));
    }
    Ok(bytes)
}

pub fn parse_threads(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("a thread count must be at least 1".into()),
        Ok(n) if n > MAX_THREADS => Err(format!(
            "{n} threads is more than the limit of {MAX_THREADS}"
        )),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "`{s}` is not a thread count (example: --threads 1,2,4)"
        )),
    }
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
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("2 gib"), Ok(2 << 30));
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("2KB"), Ok(2000));
        assert_eq!(parse_size("3MB"), Ok(3_000_000));
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("32B"), Ok(32));
    }

    #[test]
    fn bad_sizes_say_why() {
        assert!(parse_size("0").unwrap_err().contains("at least 16 bytes"));
        assert!(
            parse_size("0GiB")
                .unwrap_err()
                .contains("at least 16 bytes")
        );
        assert!(parse_size("12XB").unwrap_err().contains("unknown unit"));
        assert!(parse_size("MiB").unwrap_err().contains("not a size"));
        assert!(parse_size("").unwrap_err().contains("not a size"));
        assert!(parse_size("-1GiB").unwrap_err().contains("not a size"));
        assert!(parse_size("1.5GiB").unwrap_err().contains("unknown unit"));
        assert!(
            parse_size("1000")
                .unwrap_err()
                .contains("16-byte AES blocks")
        );
        assert!(
            parse_size("99999999999999GiB")
                .unwrap_err()
                .contains("too large")
        );
        assert!(
            parse_size("99999999999999999999")
                .unwrap_err()
                .contains("too large")
        );
    }

    #[test]
    fn thread_counts_are_bounded() {
        assert_eq!(parse_threads("1"), Ok(1));
        assert_eq!(parse_threads("1024"), Ok(1024));
        assert!(parse_threads("0").unwrap_err().contains("at least 1"));
        assert!(parse_threads("1025").unwrap_err().contains("limit of 1024"));
        assert!(
            parse_threads("two")
                .unwrap_err()
                .contains("not a thread count")
        );
    }

    #[test]
    fn sizes_print_in_the_largest_exact_unit() {
        assert_eq!(format_size(512 << 20), "512 MiB");
        assert_eq!(format_size(2 << 30), "2 GiB");
        assert_eq!(format_size(1_000_000_000), "1 GB");
        assert_eq!(format_size(48), "48 B");
        for s in ["8MiB", "3MB", "64KiB", "1GiB"] {
            let b = parse_size(s).unwrap();
            assert_eq!(parse_size(&format_size(b)), Ok(b), "{s}");
        }
    }
}
