//! Timing: every run of a size in rounds, each checked after it is timed, and its figures
//! stored as soon as it is verified.

use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Result;
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use super::buffer::Buffer;
use super::competitors::{self, BulkCipher, Secret};
use super::plan::{Combo, Subject};
use super::{size, threads};
use crate::counter::{self, Counter, Nanoseconds};
use crate::record::{CaseStatus, Samples};
use crate::store::Store;

/// What every size of a bulk run shares.
pub struct Session<'a> {
    /// The key and IV every cipher encrypts with.
    pub secret: &'a Secret,
    /// The key of the keystream the buffers are filled with.
    pub fill_secret: &'a Secret,
    pub calibration: &'a counter::Calibration,
    /// Set by Ctrl-C: stop after the timed run in flight.
    pub interrupted: &'a AtomicBool,
}

/// Every run of every live combo of size `len`, in rounds: each round times every combo
/// once, so that drift of the machine spreads over all of them.
pub fn measure_size(
    len: u64,
    runs: usize,
    combos: &mut [Combo],
    session: &Session,
    store: &mut Store,
) -> Result<()> {
    let Session {
        secret,
        fill_secret,
        calibration,
        interrupted,
    } = *session;
    let everywhere = threads::cpu_order().len();
    let mut plain = Buffer::new(len as usize)?;
    let mut work = Buffer::new(len as usize)?;
    eprintln!("bulk: {}: filling the buffers", size::format_size(len));
    fill_random(&mut plain, fill_secret);
    competitors::memcpy(&mut work, &plain, everywhere);
    let mut live: Vec<usize> = (0..combos.len())
        .filter(|&i| combos[i].len == len && !combos[i].dead)
        .collect();
    for round in 0..runs {
        eprintln!("bulk: {}: run {}/{runs}", size::format_size(len), round + 1);
        for &i in &live {
            let mut bench = Bench {
                plain: &plain,
                work: &mut work,
                secret,
                calibration,
                round,
            };
            let outcome = bench.measure(&combos[i]);
            record(store, &mut combos[i], round, outcome, calibration)?;
            if interrupted.load(Ordering::SeqCst) {
                return Ok(());
            }
            if combos[i].dead {
                competitors::memcpy(&mut work, &plain, everywhere);
            }
        }
        live.retain(|&i| !combos[i].dead);
        // The next round starts one further along, so that no combo always follows the
        // same one (whose leftovers in the caches it would inherit).
        if !live.is_empty() {
            live.rotate_left(1);
        }
    }
    Ok(())
}

/// What became of one run of one combo.
enum Outcome {
    /// Nanoseconds per operation, in the combo's operation order; verified.
    Verified(Vec<f64>),
    Wrong(String),
    Failed(String),
}

/// Bytes each thread of an operation runs untimed just before it is timed: enough to run
/// its code's paths (bulk's sizes are mostly far larger; its smallest, one AES block,
/// is not, and is timed warm all the same).
const WARM_UP_PER_THREAD: usize = 16 * 1024;

/// Everything one timed run needs.
struct Bench<'a> {
    plain: &'a [u8],
    work: &'a mut [u8],
    secret: &'a Secret,
    calibration: &'a counter::Calibration,
    round: usize,
}

impl Bench<'_> {
    /// Time the combo's operations on the working buffer (which holds the input), then
    /// verify outside the timed regions.
    ///
    /// Before each timed operation, the same operation runs untimed on a small scratch
    /// buffer on its own threads, and then both buffers are read on those threads and
    /// split, as the check after it does: every operation then starts from the same state
    /// of the code's and the data's caches, whatever ran before it. Without the first, the
    /// operation timed first after the previous case (and the store's write) paid a cold
    /// start: OpenSSL's CTR encryption of 256 KiB took 2.4 times its decryption, the same
    /// keystream. Without the second, an encryption would start from the previous case's
    /// leftovers and a decryption from the data its encryption just cached.
    fn measure(&mut self, combo: &Combo) -> Outcome {
        let threads = combo.threads;
        let mut scratch = vec![0u8; threads * WARM_UP_PER_THREAD];
        match combo.subject {
            Subject::Memcpy => {
                // Without this the copy could do nothing and still leave equal buffers.
                for page in self.work.chunks_mut(threads::CHUNK_ALIGN) {
                    page[0] ^= 0xff;
                }
                let (to, from) = scratch.split_at_mut(threads * WARM_UP_PER_THREAD / 2);
                competitors::memcpy(to, from, threads);
                self.settle(threads);
                let plain = self.plain;
                let ns = self.time(|w| {
                    competitors::memcpy(w, plain, threads);
                    Ok(())
                });
                match ns {
                    Err(e) => Outcome::Failed(format!("{e:#}")),
                    Ok(_) if !self.restored(threads) => {
                        Outcome::Wrong(format!("run {}: the copy differs", self.round + 1))
                    }
                    Ok(ns) => Outcome::Verified(vec![ns]),
                }
            }
            Subject::Cipher(cipher) => {
                // A failure here fails the timed call too, which says so.
                let _ = cipher.encrypt(&mut scratch, threads);
                self.settle(threads);
                let enc = match self.time(|w| cipher.encrypt(w, threads)) {
                    Ok(ns) => ns,
                    Err(e) => return Outcome::Failed(format!("encryption failed: {e:#}")),
                };
                if let Some(block) = self.wrong_block(cipher, threads) {
                    return Outcome::Wrong(format!(
                        "run {}: ciphertext block {block} differs from the reference",
                        self.round + 1
                    ));
                }
                let _ = cipher.decrypt(&mut scratch, threads);
                self.settle(threads);
                let dec = match self.time(|w| cipher.decrypt(w, threads)) {
                    Ok(ns) => ns,
                    Err(e) => return Outcome::Failed(format!("decryption failed: {e:#}")),
                };
                if !self.restored(threads) {
                    return Outcome::Wrong(format!(
                        "run {}: decryption did not restore the input",
                        self.round + 1
                    ));
                }
                Outcome::Verified(vec![enc, dec])
            }
        }
    }

    /// Wall-clock nanoseconds of `f` on the working buffer, the clock's own cost removed.
    fn time(&mut self, f: impl FnOnce(&mut [u8]) -> Result<()>) -> Result<f64> {
        let mut clock = Nanoseconds;
        let t0 = clock.start();
        let r = f(self.work);
        let t1 = clock.stop();
        r.map(|()| t1.wrapping_sub(t0) as f64 - self.calibration.overhead)
    }

    /// Whether the working buffer equals the input again, compared on `threads` threads.
    fn restored(&mut self, threads: usize) -> bool {
        threads::for_each_pair(self.work, self.plain, threads, |w, p| w == p)
            .into_iter()
            .all(|same| same)
    }

    /// Every byte of both buffers read on `threads` threads, split as the operations split
    /// them, for the effect on the caches alone. Not [`Bench::restored`]'s comparison, which
    /// stops at the first byte that differs: before a decryption the working buffer holds
    /// ciphertext, and the pass then read nothing (OpenSSL's encryption at 256 KiB took 2.4
    /// times its decryption of the same CTR stream).
    fn settle(&mut self, threads: usize) {
        let folded =
            threads::for_each_pair(self.work, self.plain, threads, |w, p| fold(w) ^ fold(p));
        std::hint::black_box(folded);
    }

    /// A ciphertext block that differs from the reference, among the first and last block
    /// of every thread's chunk and 32 blocks drawn at random.
    fn wrong_block(&self, cipher: &dyn BulkCipher, threads: usize) -> Option<u64> {
        let blocks = (self.work.len() / 16) as u64;
        let mut rng = ChaCha8Rng::seed_from_u64(self.round as u64);
        let mut picks: Vec<u64> = threads::split(self.work.len(), threads)
            .into_iter()
            .filter(|r| !r.is_empty())
            .flat_map(|r| [r.start as u64 / 16, (r.end as u64 - 1) / 16])
            .collect();
        picks.extend((0..32).map(|_| rng.next_u64() % blocks));
        picks.into_iter().find(|&b| {
            let at = b as usize * 16;
            let expected = competitors::reference_block(
                cipher.algorithm(),
                self.secret,
                b,
                &self.plain[at..at + 16],
            );
            self.work[at..at + 16] != expected
        })
    }
}

/// Store a verified run's figures as cluster `round` of each operation's case; mark the
/// combo dead otherwise.
fn record(
    store: &mut Store,
    combo: &mut Combo,
    round: usize,
    outcome: Outcome,
    calibration: &counter::Calibration,
) -> Result<()> {
    let (status, why) = match outcome {
        Outcome::Verified(ns) => {
            for (&row, ns) in combo.rows.iter().zip(ns) {
                let samples = Samples {
                    calls_per_sample: 1,
                    calibration: *calibration,
                    per_layout: vec![vec![ns]],
                    core_clock: None,
                    canary: None,
                };
                store.add_samples(row, round, &samples)?;
            }
            return Ok(());
        }
        Outcome::Wrong(why) => (CaseStatus::Wrong, why),
        Outcome::Failed(why) => (CaseStatus::Failed, why),
    };
    eprintln!(
        "{} at {} with {} threads: {why}; not timed again",
        combo.subject.name(),
        size::format_size(combo.len),
        combo.threads
    );
    for &row in &combo.rows {
        store.set_status(row, status, Some(&why))?;
    }
    combo.dead = true;
    Ok(())
}

/// Random bytes at memory speed on every CPU: the AES-CTR key stream (RustCrypto, not the
/// code under test) XORed into the freshly mapped, zeroed buffer, which also takes every
/// first-touch page fault before anything is timed.
fn fill_random(buf: &mut [u8], secret: &Secret) {
    let key = secret.key(competitors::Algorithm::new(256, competitors::Mode::Ctr));
    threads::for_each_chunk(buf, threads::cpu_order().len(), |offset, chunk| {
        competitors::rustcrypto_ctr(key, secret.iv, offset, chunk)
    });
}

/// The XOR of `bytes` taken as 64-bit words (and its tail as bytes): a read of every byte
/// that the compiler cannot drop, as its result is used.
fn fold(bytes: &[u8]) -> u64 {
    let (words, tail) = bytes.as_chunks::<8>();
    let folded = words
        .iter()
        .fold(0u64, |acc, w| acc ^ u64::from_ne_bytes(*w));
    tail.iter().fold(folded, |acc, &b| acc ^ u64::from(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bulk::gate::check;

    /// Wraps a correct implementation and breaks it only on buffers larger than the gate's,
    /// so that only the checks after each timed run can catch it.
    struct BrokenWhenLarge {
        inner: Box<dyn BulkCipher>,
        break_decryption: bool,
    }

    impl BulkCipher for BrokenWhenLarge {
        fn name(&self) -> String {
            "broken-when-large".into()
        }
        fn crates(&self) -> &'static [&'static str] {
            self.inner.crates()
        }
        fn algorithm(&self) -> competitors::Algorithm {
            self.inner.algorithm()
        }
        fn encrypt(&self, buf: &mut [u8], threads: usize) -> Result<()> {
            self.inner.encrypt(buf, threads)?;
            if buf.len() > 4 << 20 && !self.break_decryption {
                // One bit in the last block of the first thread's chunk.
                buf[threads::split(buf.len(), threads)[0].end - 1] ^= 1;
            }
            Ok(())
        }
        fn decrypt(&self, buf: &mut [u8], threads: usize) -> Result<()> {
            if buf.len() > 4 << 20 && self.break_decryption {
                return Ok(());
            }
            self.inner.decrypt(buf, threads)
        }
    }

    /// What a [`Bench`] borrows: a key, `len` bytes of random input, the clock's
    /// calibration.
    fn fixture(len: usize) -> (Secret, Vec<u8>, counter::Calibration) {
        let mut plain = vec![0u8; len];
        fill_random(&mut plain, &Secret::new([6; 32], 1));
        let calibration = counter::calibrate(&mut Nanoseconds);
        (Secret::new([5; 32], 1234), plain, calibration)
    }

    /// One run (round `round`) of `subject` on two threads, over a fresh copy of `plain`.
    fn measured_once(
        (secret, plain, calibration): &(Secret, Vec<u8>, counter::Calibration),
        subject: Subject,
        round: usize,
    ) -> Outcome {
        let mut work = plain.clone();
        let mut bench = Bench {
            plain,
            work: &mut work,
            secret,
            calibration,
            round,
        };
        bench.measure(&Combo {
            len: plain.len() as u64,
            subject,
            threads: 2,
            rows: Vec::new(),
            dead: false,
        })
    }

    #[test]
    fn every_run_is_checked_after_it_is_timed() {
        let fixed = fixture(8 << 20);
        let secret = &fixed.0;
        for break_decryption in [false, true] {
            let broken = BrokenWhenLarge {
                inner: competitors::all(secret, false).remove(0),
                break_decryption,
            };
            assert!(check(&broken, 2, secret).is_ok(), "the gate cannot see it");
            let why = match measured_once(&fixed, Subject::Cipher(&broken), 0) {
                Outcome::Wrong(why) => why,
                Outcome::Verified(_) => panic!("a wrong run passed"),
                Outcome::Failed(why) => panic!("failed instead: {why}"),
            };
            let expected = if break_decryption {
                "decryption did not restore the input"
            } else {
                "ciphertext block 262143 differs"
            };
            assert!(why.contains(expected), "{why}");
        }
        // The same run of a correct implementation passes, and so does memcpy.
        let good = competitors::all(secret, false).remove(0);
        for subject in [Subject::Cipher(&*good), Subject::Memcpy] {
            assert!(
                matches!(measured_once(&fixed, subject, 1), Outcome::Verified(ns) if ns.iter().all(|&t| t > 0.0))
            );
        }
    }

    /// Records every call it passes on: which operation, on how many bytes.
    struct Recording {
        inner: Box<dyn BulkCipher>,
        calls: std::sync::Mutex<Vec<(&'static str, usize)>>,
    }

    impl BulkCipher for Recording {
        fn name(&self) -> String {
            "recording".into()
        }
        fn crates(&self) -> &'static [&'static str] {
            self.inner.crates()
        }
        fn algorithm(&self) -> competitors::Algorithm {
            self.inner.algorithm()
        }
        fn encrypt(&self, buf: &mut [u8], threads: usize) -> Result<()> {
            self.calls.lock().unwrap().push(("encrypt", buf.len()));
            self.inner.encrypt(buf, threads)
        }
        fn decrypt(&self, buf: &mut [u8], threads: usize) -> Result<()> {
            self.calls.lock().unwrap().push(("decrypt", buf.len()));
            self.inner.decrypt(buf, threads)
        }
    }

    /// Each timed operation follows the same operation run untimed on scratch, on the same
    /// threads, so that neither is timed from a cold start (OpenSSL's encryption, timed
    /// first after the previous case, measured 2.4 times its decryption at 256 KiB).
    #[test]
    fn every_timed_operation_follows_an_untimed_one() {
        let len = 1 << 20;
        let fixed = fixture(len);
        let recording = Recording {
            inner: competitors::all(&fixed.0, false).remove(0),
            calls: Default::default(),
        };
        assert!(matches!(
            measured_once(&fixed, Subject::Cipher(&recording), 0),
            Outcome::Verified(_)
        ));
        let warm = 2 * WARM_UP_PER_THREAD;
        assert_eq!(
            recording.calls.into_inner().unwrap(),
            [
                ("encrypt", warm),
                ("encrypt", len),
                ("decrypt", warm),
                ("decrypt", len)
            ]
        );
    }

    #[test]
    fn the_fold_reads_every_byte() {
        let bytes: Vec<u8> = (0..37u8).collect();
        for i in 0..bytes.len() {
            let mut changed = bytes.clone();
            changed[i] ^= 0x40;
            assert_ne!(fold(&changed), fold(&bytes), "byte {i}");
        }
    }
}
