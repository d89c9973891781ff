//! Counting instructions with Valgrind's callgrind: the worker runs on Valgrind's
//! simulated CPU, which counts every instruction executed inside
//! [`COUNTED_REGION`] and writes one profile per call of it.
//!
//! What it cannot do, said wherever its counts are shown (docs/measurement.md):
//! - Valgrind 3.19 (Debian 12) has no AVX-512: an EVEX instruction stops the program, so
//!   code that uses it is *not countable*.
//! - It presents one fixed CPU whatever the host (an AVX2-era x86-64 without SHA-NI, ADX,
//!   VAES, VPCLMULQDQ or GFNI), so runtime dispatch picks other code than a native run:
//!   every run records which features that CPU showed.
//! - Instructions are not time: a change that trades instructions for latency, or the
//!   reverse, shows the wrong way round. The count is for gates, cycles for figures.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The function the simulator counts in: the sampler calls it once per layout, around a
/// fixed number of calls.
pub const COUNTED_REGION: &str = "cryptobench_counted_region";

/// Where the worker finds the profiles the simulator writes (set by the parent).
pub const OUT_ENV: &str = "CRYPTOBENCH_CALLGRIND_OUT";

/// The version line of the installed Valgrind, or why there is none.
pub fn version() -> Result<String, String> {
    let out = Command::new("valgrind")
        .arg("--version")
        .output()
        .map_err(|e| {
            format!(
                "Valgrind is not installed ({e}): `apt-get install valgrind` (scripts/setup.sh does)"
            )
        })?;
    if !out.status.success() {
        return Err("`valgrind --version` failed".into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The command that runs `exe` (with its arguments added by the caller) under
/// callgrind, writing its profiles as `out.1`, `out.2`, … one per counted region.
pub fn command(exe: &Path, out: &Path) -> Command {
    let mut c = Command::new("valgrind");
    c.args([
        "--tool=callgrind",
        "-q",
        "--collect-atstart=no",
        &format!("--toggle-collect={COUNTED_REGION}"),
        &format!("--dump-after={COUNTED_REGION}"),
        "--dump-instr=no",
        "--compress-strings=no",
        "--error-exitcode=0",
    ])
    .arg(format!("--callgrind-out-file={}", out.display()))
    .arg(exe)
    .env(OUT_ENV, out);
    c
}

/// The instructions counted in the `n`th region (from 1) of this process.
pub fn counted(n: usize) -> Result<u64, String> {
    let out = std::env::var_os(OUT_ENV)
        .map(PathBuf::from)
        .ok_or("the instruction counter runs only in a worker under Valgrind")?;
    let path = PathBuf::from(format!("{}.{n}", out.display()));
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("callgrind wrote no profile {}: {e}", path.display()))?;
    parse_total(&text).ok_or_else(|| format!("{}: no `totals:` line", path.display()))
}

/// The `totals:` (or `summary:`) figure of a callgrind profile with the single event Ir.
pub fn parse_total(profile: &str) -> Option<u64> {
    profile
        .lines()
        .find_map(|l| {
            l.strip_prefix("totals:")
                .or_else(|| l.strip_prefix("summary:"))
        })
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_are_read_and_garbage_is_not() {
        let profile = "version: 1\ncreator: callgrind-3.19.0\nevents: Ir\n\nfl=(1) x.c\nfn=(1) f\n3 6\n\nsummary: 6006\ntotals: 6006\n";
        assert_eq!(parse_total(profile), Some(6006));
        assert_eq!(parse_total("events: Ir\n"), None);
        assert_eq!(parse_total("totals: many\n"), None);
    }
}
