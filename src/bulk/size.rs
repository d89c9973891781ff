//! The sizes and thread counts `bulk` accepts.

pub use crate::size::format_size;
use crate::size::parse_bytes;

/// Every size must hold whole AES blocks, so that ECB can run on it as CTR does.
pub const BLOCK: u64 = 16;

/// The most threads a run may ask for: beyond any machine this is meant for, and a bound
/// that keeps a typo (`--threads 10000`) from spawning thousands of threads.
pub const MAX_THREADS: usize = 1024;

/// A size with a unit ([`parse_bytes`]) that holds whole AES blocks.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let bytes = parse_bytes(s)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_sizes_hold_whole_aes_blocks() {
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("32B"), Ok(32));
        assert!(parse_size("0").unwrap_err().contains("at least 16 bytes"));
        assert!(
            parse_size("0GiB")
                .unwrap_err()
                .contains("at least 16 bytes")
        );
        assert!(
            parse_size("1000")
                .unwrap_err()
                .contains("16-byte AES blocks")
        );
        assert!(parse_size("12XB").unwrap_err().contains("unknown unit"));
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
}
