//! NIST LWC `genkat_aead` known-answer files: `Count`, `Key`, `Nonce`, `PT`, `AD`, `CT`
//! (ciphertext followed by the tag), one blank line between entries.

use std::path::Path;

use anyhow::{Context, Result, bail};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AeadVector {
    pub count: u64,
    pub key: Vec<u8>,
    pub nonce: Vec<u8>,
    pub plaintext: Vec<u8>,
    pub ad: Vec<u8>,
    pub ciphertext: Vec<u8>,
}

pub fn read(path: &Path) -> Result<Vec<AeadVector>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read KAT file `{}`", path.display()))?;
    parse(&text).with_context(|| format!("KAT file `{}`", path.display()))
}

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
        let hex_field = |name: &str| -> Result<Vec<u8>> {
            let (line, v) = get(name)?;
            hex::decode(v).with_context(|| format!("line {line}: `{name}` is not hex"))
        };
        let (line, count) = get("Count")?;
        out.push(AeadVector {
            count: count
                .parse()
                .with_context(|| format!("line {line}: `Count` is not a number"))?,
            key: hex_field("Key")?,
            nonce: hex_field("Nonce")?,
            plaintext: hex_field("PT")?,
            ad: hex_field("AD")?,
            ciphertext: hex_field("CT")?,
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
        fields.push((i + 1, k.trim(), v.trim()));
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
        let err = format!("{:#}", parse("Count = 1\nKey = 00\n").unwrap_err());
        assert!(err.contains("has no `Nonce`"), "{err}");
        let err = format!("{:#}", parse("garbage\n").unwrap_err());
        assert!(err.contains("line 1: expected"), "{err}");
        assert!(parse("\n\n").is_err());
    }

    #[test]
    fn the_spook_files_parse_when_present() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/kat/spook");
        if !dir.is_dir() {
            eprintln!("SKIPPED: ../shared/kat/spook not found");
            return;
        }
        let v = read(&dir.join("spook128su512v1_LWC_AEAD_KAT_128_128.txt")).unwrap();
        assert_eq!(v.len(), 1089);
        assert_eq!(v[0].ciphertext.len(), 16);
    }
}
