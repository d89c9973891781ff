//! The gate: every implementation against the single-threaded reference, before anything
//! is timed.

use anyhow::Result;

use super::competitors::{self, BulkCipher, Secret};
use super::plan::{Combo, Subject};
use super::threads;
use crate::record::CaseStatus;
use crate::store::Store;

/// Before anything is timed: every implementation, at every thread count of the run,
/// against the single-threaded reference on a buffer that every thread gets a chunk of.
/// Those that differ are marked wrong and not timed.
pub fn gate(combos: &mut [Combo], secret: &Secret, store: &Store) -> Result<()> {
    let mut verdicts: Vec<(String, usize, Option<String>)> = Vec::new();
    for c in combos.iter_mut() {
        let Subject::Cipher(cipher) = c.subject else {
            continue;
        };
        let known = verdicts
            .iter()
            .find(|(n, t, _)| *n == cipher.name() && *t == c.threads);
        let verdict = match known {
            Some((_, _, v)) => v.clone(),
            None => {
                let v = check(cipher, c.threads, secret).err();
                if let Some(why) = &v {
                    eprintln!(
                        "{} with {} threads: {why}; not timed",
                        cipher.name(),
                        c.threads
                    );
                }
                verdicts.push((cipher.name(), c.threads, v.clone()));
                v
            }
        };
        if let Some(why) = verdict {
            for &row in &c.rows {
                store.set_status(row, CaseStatus::Wrong, Some(&why))?;
            }
            c.dead = true;
        }
    }
    Ok(())
}

pub fn check(cipher: &dyn BulkCipher, threads: usize, secret: &Secret) -> Result<(), String> {
    // Two pages per thread and a few blocks more: every chunk boundary is crossed.
    let len = (threads * 2 * threads::CHUNK_ALIGN).max(1 << 20) + 48;
    // Input unlike the key stream itself, different in every block.
    let mut plain = vec![0u8; len];
    competitors::rustcrypto_ctr(secret.key(cipher.algorithm()), !secret.iv, 0, &mut plain);
    let mut expected = plain.clone();
    competitors::reference(cipher.algorithm(), secret, &mut expected);
    let mut data = plain.clone();
    cipher
        .encrypt(&mut data, threads)
        .map_err(|e| format!("encryption failed: {e:#}"))?;
    if let Some(at) = first_difference(&data, &expected) {
        return Err(format!(
            "wrong ciphertext from byte {at} of {len} (vs the single-threaded reference)"
        ));
    }
    cipher
        .decrypt(&mut data, threads)
        .map_err(|e| format!("decryption failed: {e:#}"))?;
    if let Some(at) = first_difference(&data, &plain) {
        return Err(format!(
            "decryption does not restore the input, from byte {at}"
        ));
    }
    Ok(())
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An implementation that gets one byte wrong at a chunk boundary must not pass.
    #[test]
    fn the_gate_catches_a_wrong_implementation() {
        struct OffByOne(Box<dyn BulkCipher>);
        impl BulkCipher for OffByOne {
            fn name(&self) -> String {
                "broken".into()
            }
            fn crates(&self) -> &'static [&'static str] {
                self.0.crates()
            }
            fn algorithm(&self) -> competitors::Algorithm {
                self.0.algorithm()
            }
            fn encrypt(&self, buf: &mut [u8], threads: usize) -> Result<()> {
                self.0.encrypt(buf, threads)?;
                if threads > 1 {
                    buf[threads::split(buf.len(), threads)[1].start] ^= 1;
                }
                Ok(())
            }
            fn decrypt(&self, buf: &mut [u8], threads: usize) -> Result<()> {
                self.0.decrypt(buf, threads)
            }
        }
        let secret = Secret::new([3; 32], 99);
        let good = competitors::all(&secret, false).remove(0);
        assert!(check(&*good, 3, &secret).is_ok());
        let bad = OffByOne(good);
        assert!(check(&bad, 1, &secret).is_ok());
        let why = check(&bad, 2, &secret).unwrap_err();
        let boundary = threads::split((1 << 20) + 48, 2)[1].start;
        assert!(
            why.contains(&format!("wrong ciphertext from byte {boundary} ")),
            "{why}"
        );
    }
}
