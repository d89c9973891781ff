//! NIST LWC `genkat_aead` known-answer files: `Count`, `Key`, `Nonce`, `PT`, `AD`, `CT`
//! (ciphertext followed by the tag), one blank line between entries.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};

/// One entry of a `genkat_aead` file, its hex fields decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AeadVector {
    /// `Count`: the entry's number in the file.
    pub count: u64,
    /// `Key`: the secret key.
    pub key: Vec<u8>,
    /// `Nonce`: the public nonce (`npub`).
    pub nonce: Vec<u8>,
    /// `PT`: the message.
    pub plaintext: Vec<u8>,
    /// `AD`: the associated data.
    pub ad: Vec<u8>,
    /// `CT`: the ciphertext followed by the tag.
    pub ciphertext: Vec<u8>,
    /// The line of each field (`Key`, `Nonce`, ...), for errors that name it.
    pub lines: BTreeMap<&'static str, usize>,
}

/// Whether every entry fits a build of these `api.h` sizes; if not, the first that does
/// not, by line, field and lengths. The C functions read CRYPTO_KEYBYTES of key and
/// CRYPTO_NPUBBYTES of nonce whatever the file gives, so a shorter field would be read
/// past its end and the file's mistake blamed on the build. `api_h` names the file the
/// sizes were read from.
pub fn check_lengths(
    vectors: &[AeadVector],
    sizes: &BTreeMap<&str, u64>,
    api_h: &str,
) -> Result<(), String> {
    let size = |n: &str| sizes.get(n).copied().unwrap_or(0) as usize;
    let abytes = size("CRYPTO_ABYTES");
    for v in vectors {
        for (field, got, name) in [
            ("Key", v.key.len(), "CRYPTO_KEYBYTES"),
            ("Nonce", v.nonce.len(), "CRYPTO_NPUBBYTES"),
        ] {
            if got != size(name) {
                return Err(format!(
                    "line {}: `{field}` has {}, `{api_h}` gives {name} = {}; this file is not for \
                     this build, or the line is wrong",
                    v.lines[field],
                    bytes(got),
                    size(name)
                ));
            }
        }
        // Subtracted, not added: api.h may give any size (a `#define` of -1 reads as
        // 2^64 - 1), and the sum would overflow, into a length the file can match.
        if v.ciphertext.len().checked_sub(v.plaintext.len()) != Some(abytes) {
            return Err(format!(
                "line {}: `CT` has {}, but `PT` has {} and `{api_h}` gives CRYPTO_ABYTES = {abytes} \
                 (the ciphertext is the message's length plus the tag's); this file is not for \
                 this build, or the line is wrong",
                v.lines["CT"],
                bytes(v.ciphertext.len()),
                bytes(v.plaintext.len())
            ));
        }
    }
    Ok(())
}

fn bytes(n: usize) -> String {
    if n == 1 {
        "1 byte".into()
    } else {
        format!("{n} bytes")
    }
}

/// The entries of the KAT file at `path`; an error naming the file where it cannot be
/// read or does not [`parse`].
pub fn read(path: &Path) -> Result<Vec<AeadVector>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read KAT file `{}`", path.display()))?;
    parse(&text).with_context(|| format!("KAT file `{}`", path.display()))
}

/// The fields of an entry, as `genkat_aead` writes them.
const FIELDS: [&str; 6] = ["Count", "Key", "Nonce", "PT", "AD", "CT"];

/// The entries of a `genkat_aead` file's `text`. An entry missing a field, a field that
/// is not hex, an unknown or repeated field is an error naming its line; a text with no
/// entries is an error too.
pub fn parse(text: &str) -> Result<Vec<AeadVector>> {
    let mut out = Vec::new();
    let mut fields: Vec<(usize, &str, &str)> = Vec::new();
    let flush = |fields: &mut Vec<(usize, &str, &str)>, out: &mut Vec<AeadVector>| -> Result<()> {
        if fields.is_empty() {
            return Ok(());
        }
        let get = |name: &str| -> Result<(usize, &str)> {
            fields
                .iter()
                .find(|(_, k, _)| *k == name)
                .map(|(l, _, v)| (*l, *v))
                .with_context(|| format!("entry at line {} has no `{name}`", fields[0].0))
        };
        let (line, count) = get("Count")?;
        let count = count
            .parse()
            .with_context(|| format!("line {line}: `Count` is not a number"))?;
        let mut lines = BTreeMap::from([("Count", line)]);
        let mut hex_field = |name: &'static str| -> Result<Vec<u8>> {
            let (line, v) = get(name)?;
            lines.insert(name, line);
            hex::decode(v).map_err(|e| match e {
                hex::FromHexError::OddLength => anyhow::anyhow!(
                    "line {line}: `{name}` has an odd number of hex digits ({}); each byte is two",
                    v.len()
                ),
                _ => anyhow::anyhow!("line {line}: `{name}` is not hex"),
            })
        };
        let (key, nonce) = (hex_field("Key")?, hex_field("Nonce")?);
        let (plaintext, ad, ciphertext) = (hex_field("PT")?, hex_field("AD")?, hex_field("CT")?);
        out.push(AeadVector {
            count,
            key,
            nonce,
            plaintext,
            ad,
            ciphertext,
            lines,
        });
        fields.clear();
        Ok(())
    };
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            flush(&mut fields, &mut out)?;
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            bail!("line {}: expected `Name = value`, found `{line}`", i + 1);
        };
        let k = k.trim();
        // A field the gate would not read (a typo, `Tag`) would leave the check weaker
        // than the file says, and a second one would leave it unclear which counts.
        if !FIELDS.contains(&k) {
            bail!(
                "line {}: `{k}` is no field of a genkat_aead entry ({})",
                i + 1,
                FIELDS.join(", ")
            );
        }
        if let Some((first, _, _)) = fields.iter().find(|(_, name, _)| *name == k) {
            bail!(
                "line {}: a second `{k}` in one entry (the first is on line {first}); entries are separated by a blank line",
                i + 1
            );
        }
        fields.push((i + 1, k, v.trim()));
    }
    flush(&mut fields, &mut out)?;
    if out.is_empty() {
        bail!("no entries");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_parse_and_bad_lines_are_named() {
        let good = "Count = 1\nKey = 0001\nNonce = 02\nPT = \nAD = \nCT = AABB\n\nCount = 2\nKey = 00\nNonce = 02\nPT = 03\nAD = 04\nCT = FF\n";
        let v = parse(good).unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].key, vec![0, 1]);
        assert!(v[0].plaintext.is_empty());
        assert_eq!(v[1].ad, vec![4]);
        let err = format!(
            "{:#}",
            parse("Count = 1\nKey = zz\nNonce = 00\nPT =\nAD =\nCT = 00\n").unwrap_err()
        );
        assert!(err.contains("line 2: `Key` is not hex"), "{err}");
        let err = format!(
            "{:#}",
            parse("Count = 1\nKey = 000\nNonce = 00\nPT =\nAD =\nCT = 00\n").unwrap_err()
        );
        assert!(
            err.contains("line 2: `Key` has an odd number of hex digits (3); each byte is two"),
            "{err}"
        );
        let err = format!("{:#}", parse("Count = 1\nKey = 00\n").unwrap_err());
        assert!(err.contains("has no `Nonce`"), "{err}");
        let err = format!(
            "{:#}",
            parse("Count = 1\nKey = 00\nTag = 00\nNonce = 00\nPT =\nAD =\nCT = 00\n").unwrap_err()
        );
        assert!(
            err.contains(
                "line 3: `Tag` is no field of a genkat_aead entry (Count, Key, Nonce, PT, AD, CT)"
            ),
            "{err}"
        );
        let err = format!(
            "{:#}",
            parse("Count = 1\nKey = 00\nNonce = 00\nPT =\nAD =\nCT = 00\nCount = 2\n").unwrap_err()
        );
        assert!(
            err.contains("line 7: a second `Count` in one entry (the first is on line 1)"),
            "{err}"
        );
        let err = format!("{:#}", parse("garbage\n").unwrap_err());
        assert!(err.contains("line 1: expected"), "{err}");
        assert!(parse("\n\n").is_err());
    }

    #[test]
    fn entries_that_do_not_fit_the_api_sizes_are_named_by_line_and_field() {
        let sizes: BTreeMap<&str, u64> = [
            ("CRYPTO_KEYBYTES", 2),
            ("CRYPTO_NPUBBYTES", 1),
            ("CRYPTO_ABYTES", 1),
        ]
        .into();
        let entry = |key: &str, ct: &str| {
            parse(&format!(
                "Count = 1\nKey = 0001\nNonce = 02\nPT = 03\nAD =\nCT = AABB\n\n\
                 Count = 2\nKey = {key}\nNonce = 02\nPT = 03\nAD =\nCT = {ct}\n"
            ))
            .unwrap()
        };
        assert_eq!(
            check_lengths(&entry("0001", "AABB"), &sizes, "api.h"),
            Ok(())
        );
        let err = check_lengths(&entry("00", "AABB"), &sizes, "ref/api.h").unwrap_err();
        assert!(
            err.starts_with("line 9: `Key` has 1 byte, `ref/api.h` gives CRYPTO_KEYBYTES = 2;"),
            "{err}"
        );
        // A tag of 2^64 - 1 bytes, with a message of 1: no ciphertext is that long, and
        // the sum wrapped to 0 once (or panicked, with overflow checks).
        let mut huge = sizes.clone();
        huge.insert("CRYPTO_ABYTES", u64::MAX);
        let one = parse("Count = 1\nKey = 0001\nNonce = 02\nPT = 03\nAD =\nCT =\n").unwrap();
        let err = check_lengths(&one, &huge, "api.h").unwrap_err();
        assert!(
            err.starts_with("line 6: `CT` has 0 bytes, but `PT` has 1 byte and `api.h` gives CRYPTO_ABYTES = 18446744073709551615"),
            "{err}"
        );
        let err = check_lengths(&entry("0001", "AA"), &sizes, "api.h").unwrap_err();
        assert!(
            err.starts_with(
                "line 13: `CT` has 1 byte, but `PT` has 1 byte and `api.h` gives CRYPTO_ABYTES = 1"
            ),
            "{err}"
        );
    }
}
