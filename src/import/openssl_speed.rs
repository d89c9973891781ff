//! `openssl speed -mr` output. Its machine-readable lines are `+DT:alg:count:len` and
//! `+R:count:alg:seconds` while it runs (on stderr), then `+H:len1:len2:...` and, per
//! algorithm, `+F:n:alg:v1:v2:...` with the bytes per second at each length. Each
//! (algorithm, length) becomes a case whose sample is the nanoseconds per call the
//! `+F` throughput implies; a file holding several runs (concatenated) gives one
//! cluster per run, so the interval says how much they differ.
//!
//! Only `+F:` is read: `+F2:`, `+F3:`... are the public-key tables, in operations per
//! second; they are counted, by kind, in the run's note. The output of `-multi` (figures
//! summed over processes) is refused, and so is a figure without the two decimals `-mr`
//! prints, or a last line without its newline: a file cut off mid-number.
//!
//! Algorithms are named in lower case (`openssl/aes-128-gcm`), as the catalog names
//! OpenSSL's: openssl prints `AES-128-GCM` for `-evp aes-128-gcm`, and `history`'s
//! filter and the case keys compare names exactly.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::{Imported, MAX_BYTES, PER_CALL};

use crate::name::ImplName;
use crate::record::{Case, ImportedCounter, Param, Params};
use crate::store::ImportedCase;

/// The public-key tables of `openssl speed -mr`, by the tag of their lines: operations
/// per second, not bytes, so not imported, but counted and named in the run's note.
const PUBLIC_KEY_TABLES: [(&str, &str); 9] = [
    ("+F2:", "RSA"),
    ("+F3:", "DSA"),
    ("+F4:", "ECDSA"),
    ("+F5:", "ECDH"),
    ("+F6:", "EdDSA"),
    ("+F7:", "SM2"),
    ("+F8:", "FFDH"),
    ("+F9:", "KEM"),
    ("+F10:", "signature"),
];

/// The kind of public-key table a `+Fn:` line (n from 2) belongs to.
fn public_key_table(line: &str) -> Option<&'static str> {
    if let Some((_, kind)) = PUBLIC_KEY_TABLES.iter().find(|(t, _)| line.starts_with(t)) {
        return Some(kind);
    }
    // A table newer than this list: still not bytes per second.
    let n = line.strip_prefix("+F")?.split_once(':')?.0;
    (n.parse::<u32>().is_ok_and(|n| n >= 2)).then_some("other public-key")
}

/// `-mr` prints every figure with `%.2f`: digits, a point and two decimals. A figure
/// without them is a file cut off in the middle of a number (`1234` of `123456.78`), which
/// would be read as a figure a thousand times off.
fn printed_by_openssl(v: &str) -> bool {
    let Some((whole, decimals)) = v.split_once('.') else {
        return false;
    };
    let whole = whole.strip_prefix('-').unwrap_or(whole);
    !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && decimals.len() == 2
        && decimals.bytes().all(|b| b.is_ascii_digit())
}

/// The lines of `bytes`, each with whether it ended with a newline; a line that is not
/// UTF-8 is refused, named (openssl prints ASCII).
fn lines_of(bytes: &[u8], name: &str) -> Result<Vec<(String, bool)>> {
    // Editors on Windows save UTF-8 with a byte-order mark; left on, it hides the first
    // `+H:` and every `+F:` would be "before any `+H:` line".
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    bytes
        .split_inclusive(|&b| b == b'\n')
        .enumerate()
        .map(|(n, line)| {
            let ended = line.ends_with(b"\n");
            let line = std::str::from_utf8(line).map_err(|_| {
                anyhow::anyhow!(
                    "`{name}` line {}: not UTF-8 text (openssl speed prints ASCII): is the file the output of `openssl speed -mr`, undamaged?",
                    n + 1
                )
            })?;
            Ok((line.to_string(), ended))
        })
        .collect()
}

pub fn read(file: &Path) -> Result<Imported> {
    let bytes = fs::read(file).with_context(|| format!("cannot read `{}`", file.display()))?;
    parse(&bytes, file, || {
        fs::metadata(file).and_then(|m| m.modified()).ok()
    })
}

/// [`read`] of the bytes of `file`; `measured_at` is asked for once they are found good.
pub(crate) fn parse(
    bytes: &[u8],
    file: &Path,
    measured_at: impl FnOnce() -> Option<std::time::SystemTime>,
) -> Result<Imported> {
    let name = file.display();
    let lines = lines_of(bytes, &name.to_string())?;
    let mut lengths: Option<Vec<u64>> = None;
    // The current table's `+H:` line and, per algorithm, the line of its `+F:`: one run
    // prints one `+F:` per algorithm, so a second under the same `+H:` is damage, where
    // a second table (concatenated runs) is another cluster.
    let mut table_line = 0;
    let mut in_table: Vec<(String, usize)> = Vec::new();
    // (algorithm, length) -> one value per +F line seen for it.
    let mut series: Vec<((String, u64), Vec<f64>)> = Vec::new();
    // Each run of `openssl speed` prints one `+H:` line, then a `+F:` line per algorithm.
    let mut tables = 0;
    let mut unmeasured: Vec<String> = Vec::new();
    // Public-key lines, skipped: (kind, how many).
    let mut public_key: Vec<(&str, usize)> = Vec::new();
    for (n, (line, ended)) in lines.iter().enumerate() {
        let line = line.trim();
        let at = || format!("`{name}` line {}", n + 1);
        // `-multi N` forks N processes, prints what each sends back (`Got: +H:... from 0`)
        // and then one `+F:` line per algorithm with the figures summed over them, under
        // no `+H:` of its own: read, they would be one process's, at the lengths of
        // whatever table came before.
        if line.starts_with("Forked child") || line.starts_with("Got: +") {
            bail!(
                "{}: `{line}` is the output of `openssl speed -multi`, which is not supported: its figures are summed over the processes; re-run without -multi (several runs, concatenated, are kept as several measurements)",
                at()
            );
        }
        if line.starts_with('+') && !ended {
            bail!(
                "{}: the last line has no newline, so the file is truncated (openssl speed ends every line with one, and a figure cut off would be read a thousand times off): re-run `openssl speed -mr`",
                at()
            );
        }
        if let Some(kind) = public_key_table(line) {
            match public_key.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, count)) => *count += 1,
                None => public_key.push((kind, 1)),
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("+H:") {
            let mut lens: Vec<u64> = Vec::new();
            for field in rest.split(':') {
                let len: i64 = field.trim().parse().with_context(|| {
                    format!(
                        "{}: `+H:` must list message lengths in bytes: `{line}`",
                        at()
                    )
                })?;
                // A length of 0 would be a case with no bytes: NaN per byte and per second.
                let len = u64::try_from(len)
                    .ok()
                    .filter(|l| (1..=MAX_BYTES).contains(l))
                    .with_context(|| {
                        format!(
                            "{}: `+H:` lists the length {len}: every length must be a whole number of bytes from 1 to 2^53",
                            at()
                        )
                    })?;
                if lens.contains(&len) {
                    bail!(
                        "{}: `+H:` lists the length {len} twice: the `+F:` figures under the two could not be told apart",
                        at()
                    );
                }
                lens.push(len);
            }
            lengths = Some(lens);
            tables += 1;
            table_line = n + 1;
            in_table.clear();
        } else if let Some(rest) = line.strip_prefix("+F:") {
            let lens = lengths.as_ref().with_context(|| {
                format!(
                    "{}: a `+F:` line before any `+H:` line says nothing about lengths (the summed figures of `openssl speed -multi`, which are printed so, are not supported)",
                    at()
                )
            })?;
            let fields: Vec<&str> = rest.split(':').collect();
            let (alg, values) = match fields.as_slice() {
                [_, alg, values @ ..] if !alg.trim().is_empty() => (alg.trim(), values),
                _ => bail!(
                    "{}: expected `+F:n:algorithm:bytes-per-second...`: `{line}`",
                    at()
                ),
            };
            // OpenSSL 1.1.1 names some ciphers with a space (`aes-128 cbc`); a case id
            // puts a space before its parameters, so it becomes `aes-128-cbc`.
            let key = crate::name::one_word(alg).to_ascii_lowercase();
            // The algorithm is a part of the name `openssl/ALGORITHM`: a `/` or `@` in it
            // would read back as a variant or a target, a control character would reach
            // the terminal.
            if let Some(why) = crate::name::bad_part(&key) {
                bail!(
                    "{}: the algorithm name {why}; is the file the output of `openssl speed -mr`, undamaged?",
                    at()
                );
            }
            if values.len() != lens.len() {
                bail!(
                    "{}: {} figures for {} lengths in `+H:`: `{line}`",
                    at(),
                    values.len(),
                    lens.len()
                );
            }
            for (&len, v) in lens.iter().zip(values) {
                let v = v.trim();
                let field = || format!("{}: the `{alg}` figure for {len} bytes, `{v}`,", at());
                let bytes_per_s: f64 = v
                    .parse()
                    .ok()
                    .filter(|x: &f64| x.is_finite())
                    .with_context(|| format!("{} is not a number of bytes per second", field()))?;
                if bytes_per_s < 0.0 {
                    bail!(
                        "{} is negative: openssl speed prints bytes per second, never below 0; the file is damaged",
                        field()
                    );
                }
                if !printed_by_openssl(v) {
                    bail!(
                        "{} lacks the two decimals openssl speed -mr prints every figure with: the file is truncated or not openssl's; re-run `openssl speed -mr`",
                        field()
                    );
                }
                // openssl prints 0 where it measured nothing (a length it skipped, e.g. past
                // -bytes, or one that failed): no time per call follows from it. Left out,
                // and said in the run's note, so that the gap is not hidden.
                if bytes_per_s == 0.0 {
                    unmeasured.push(format!("{alg} at {len} bytes (line {})", n + 1));
                    continue;
                }
                let ns_per_call = len as f64 / bytes_per_s * 1e9;
                if !PER_CALL.contains(&ns_per_call) {
                    bail!(
                        "{} gives {ns_per_call:e} ns per call, outside {:e} to {:e} ns: not a measurement",
                        field(),
                        PER_CALL.start(),
                        PER_CALL.end()
                    );
                }
                let key = (key.clone(), len);
                match series.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, v)) => v.push(ns_per_call),
                    None => series.push((key, vec![ns_per_call])),
                }
            }
            // After the figures, so that a line that is wrong in itself is named as such.
            if let Some((_, first)) = in_table.iter().find(|(a, _)| *a == key) {
                bail!(
                    "{}: a second `+F:` line for `{alg}` in the table of line {table_line} (the first is line {first}): one run of openssl speed prints one per algorithm, so the file is damaged; re-run `openssl speed -mr` (concatenated runs each begin with their own `+H:` line)",
                    at()
                );
            }
            in_table.push((key, n + 1));
        }
    }
    let skipped = if public_key.is_empty() {
        String::new()
    } else {
        let kinds: Vec<String> = public_key
            .iter()
            .map(|(kind, n)| format!("{n} {kind} line{}", if *n == 1 { "" } else { "s" }))
            .collect();
        kinds.join(", ")
    };
    if series.is_empty() && unmeasured.is_empty() && !skipped.is_empty() {
        bail!(
            "`{name}` holds only public-key tables ({skipped}), which are not imported (their figures are operations per second, not bytes); import the output of `openssl speed -mr` for ciphers and hashes"
        );
    }
    if series.is_empty() && !unmeasured.is_empty() {
        bail!(
            "`{name}`: every `+F:` figure is 0, so openssl measured nothing ({}); re-run `openssl speed -mr`",
            unmeasured.join(", ")
        );
    }
    if series.is_empty() {
        bail!(
            "`{name}` has no `+F:` line with a figure: is it the output of `openssl speed -mr`? (without -mr, openssl prints a table that is not read)"
        );
    }
    let measured_at = measured_at();
    let cases = series
        .into_iter()
        .map(|((alg, len), values)| ImportedCase {
            case: Case {
                implementation: ImplName::new("openssl", &alg).to_string(),
                operation: "speed".into(),
                params: Params::new().with(Param::Len, len),
                lanes: 1,
            },
            per_process: values.into_iter().map(|v| vec![v]).collect(),
            calls_per_sample: None,
            message: None,
        })
        .collect();
    Ok(Imported {
        source: "openssl-speed",
        origin: file.to_path_buf(),
        counter: ImportedCounter::OpensslSpeed,
        note: format!(
            "openssl speed -mr, {tables} table{} from {name}; each figure is one timed loop, so a single run has no interval{}{}",
            if tables == 1 { "" } else { "s" },
            if unmeasured.is_empty() {
                String::new()
            } else {
                format!(
                    "; left out, as openssl printed 0 (measured nothing): {}",
                    unmeasured.join(", ")
                )
            },
            if skipped.is_empty() {
                String::new()
            } else {
                format!(
                    "; left out, as public-key tables are not imported (operations per second): {skipped}"
                )
            }
        ),
        measured_at,
        cases,
        warnings: Vec::new(),
    })
}
