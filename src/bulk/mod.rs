//! `cryptobench bulk`: multi-threaded AES over hundreds of MiB to GiB, against OpenSSL,
//! RustCrypto and the memory-bandwidth ceiling (`memcpy` of the same size).
//!
//! Its own runner rather than `runner`'s worker processes: what it times is our own code
//! and libraries, each checked against the reference before it is timed, and each run is
//! checked after it is timed. Results go to the same store as `run` (experiment `bulk`,
//! counter `ns`): a case per implementation, operation, size and thread count, one
//! cluster per run holding that run's nanoseconds, written as soon as the run is verified.
//!
//! | file | its job |
//! |---|---|
//! | `mod.rs` | arguments, plan, gate, timing, verification, store |
//! | [`aes`], `aes_ctr`, `aes_ecb` | our AES: key schedule, code paths, CTR and ECB |
//! | [`competitors`] | every implementation behind [`competitors::BulkCipher`], and memcpy |
//! | `threads` | CPU order, splitting a buffer, a pool of pinned worker threads |
//! | `buffer` | the buffers, and whether they fit in memory |
//! | [`size`] | sizes with units, thread counts |
//! | `report` | the per-run, summary and scaling tables, from the store |

#[cfg(target_arch = "x86_64")]
pub mod aes;
#[cfg(target_arch = "x86_64")]
mod aes_ctr;
#[cfg(target_arch = "x86_64")]
mod aes_ecb;
mod analysis;
pub(crate) mod buffer;
pub mod competitors;
mod report;
pub mod size;
mod threads;

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::catalog::Params;
use crate::cli::OutputArgs;
use crate::counter::{self, Counter, CounterKind, Nanoseconds};
use crate::machine::{self, Machine};
use crate::runner::Case;
use crate::sample::Samples;
use crate::store::{CaseStatus, RunHeader, RunOrigin, Store};
use buffer::Buffer;
use competitors::{BulkCipher, Secret};
/// The bulk tables of a stored bulk run, as `bulk` printed them.
pub use report::{check_format, render};

/// Exit status when an implementation produced wrong output (its figures are not shown).
const EXIT_WRONG: u8 = 1;

/// The name memcpy, the ceiling, is stored under.
pub const MEMCPY: &str = "memcpy";

#[derive(clap::Args, Debug)]
pub struct BulkArgs {
    /// Buffer sizes, comma-separated: a whole number with KiB, MiB, GiB (powers of 1024), KB, MB, GB (powers of 1000) or no unit (bytes), in whole 16-byte blocks.
    #[arg(
        long,
        value_delimiter = ',',
        value_parser = size::parse_size,
        default_value = "512MiB,1GiB,2GiB"
    )]
    pub sizes: Vec<u64>,
    /// Thread counts, comma-separated, 1 to 1024. Default: 1 and every CPU available to this process.
    #[arg(long, value_delimiter = ',', value_parser = size::parse_threads)]
    pub threads: Option<Vec<usize>>,
    /// Timed runs per implementation, size and thread count; each encrypts the buffer and decrypts it again.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(2..=1000))]
    pub runs: u64,
    /// Only implementations whose name contains one of these, comma-separated (e.g. `aes-128-ctr`, `openssl`); memcpy, the ceiling, is always measured.
    #[arg(long = "impl", value_name = "FILTER", value_delimiter = ',')]
    pub filters: Vec<String>,
    /// Also measure every code path of our AES this CPU has, each on its own (e.g. `cryptobench/aes-128-ctr@aesni`).
    #[arg(long)]
    pub paths: bool,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// What a bulk run was asked, stored with it for its report.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct BulkOptions {
    pub sizes: Vec<u64>,
    pub threads: Vec<usize>,
    pub runs: u64,
    #[serde(rename = "impl")]
    pub filters: Vec<String>,
    /// `--paths`: every code path of our AES measured on its own (earlier builds did not store it).
    #[serde(default)]
    pub paths: bool,
    /// The CPUs threads were pinned to, in the order they were taken.
    pub cpu_order: Vec<usize>,
    pub huge_pages: String,
}

/// What one case times: an implementation of an algorithm, or the ceiling.
#[derive(Clone, Copy)]
enum Subject<'a> {
    Cipher(&'a dyn BulkCipher),
    Memcpy,
}

impl Subject<'_> {
    fn name(&self) -> String {
        match self {
            Subject::Cipher(c) => c.name(),
            Subject::Memcpy => MEMCPY.into(),
        }
    }

    fn operations(&self) -> &'static [&'static str] {
        match self {
            Subject::Cipher(_) => &["encrypt", "decrypt"],
            Subject::Memcpy => &["copy"],
        }
    }
}

/// One subject at one size and thread count, with the store rows of its operations.
struct Combo<'a> {
    len: u64,
    subject: Subject<'a>,
    threads: usize,
    rows: Vec<i64>,
    /// Set once it failed or produced wrong output: not timed again.
    dead: bool,
}

pub fn run(mut args: BulkArgs) -> Result<ExitCode> {
    // `--sizes 1GiB,1GiB` is one size, as `--threads 1,1` is one count.
    let mut seen = std::collections::BTreeSet::new();
    args.sizes.retain(|s| seen.insert(*s));
    if args.filters.iter().any(|f| f.trim().is_empty()) {
        bail!(
            "--impl {:?} holds an empty filter, which would match every implementation; name them, e.g. --impl aes-128-ctr,openssl",
            args.filters.join(",")
        );
    }
    report::check_format(args.output.format)?;
    crate::output::check_writable(args.output.file.as_deref(), &args.output.db)?;
    let cpus = threads::cpu_order();
    let thread_counts = thread_counts(args.threads.as_deref(), cpus.len());
    match buffer::available_memory() {
        Some(available) => buffer::check_fits(&args.sizes, available)?,
        None => eprintln!(
            "warning: cannot read MemAvailable from /proc/meminfo, so cannot check that the sizes fit in memory"
        ),
    }
    let max_threads = thread_counts.iter().copied().max().unwrap_or(1);
    if max_threads > cpus.len() {
        eprintln!(
            "warning: {max_threads} threads on {} CPUs: threads share CPUs, so figures show oversubscription, not scaling",
            cpus.len()
        );
    }

    let mut rng = ChaCha8Rng::seed_from_u64(clock_seed());
    let secret = random_secret(&mut rng);
    let fill_secret = random_secret(&mut rng);
    let ciphers: Vec<Box<dyn BulkCipher>> = competitors::all(&secret, args.paths)
        .into_iter()
        .filter(|c| args.filters.is_empty() || args.filters.iter().any(|f| c.name().contains(f)))
        .collect();
    if ciphers.is_empty() {
        let names: Vec<String> = competitors::all(&secret, args.paths)
            .iter()
            .map(|c| c.name())
            .collect();
        bail!(
            "no implementation matches --impl {}; there are: {}",
            args.filters.join(","),
            names.join(", ")
        );
    }
    // Before pinning: the machine's CPU count is this process's affinity mask, and workers
    // started by a pinned thread would first queue behind it on its CPU.
    let machine = Machine::detect();
    threads::prepare(max_threads.max(cpus.len()))?;
    machine::pin_to_cpu(cpus[0])?;

    let mut store = Store::open(&args.output.db)?;
    let header = RunHeader::measured_now(
        "bulk",
        CounterKind::Ns,
        machine,
        RunOrigin::Bulk {
            bulk: BulkOptions {
                sizes: args.sizes.clone(),
                threads: thread_counts.clone(),
                runs: args.runs,
                filters: args.filters.clone(),
                paths: args.paths,
                cpu_order: cpus.to_vec(),
                huge_pages: "asked for (madvise)".into(),
            },
        },
    );
    let run_id = store.begin_run(&header)?;

    let mut combos = plan(&args.sizes, &ciphers, &thread_counts);
    let mut seq = 0;
    for c in &mut combos {
        for op in c.subject.operations() {
            let case = Case {
                implementation: c.subject.name(),
                operation: op.to_string(),
                params: Params::new()
                    .with("len", c.len)
                    .with("threads", c.threads as u64),
            };
            c.rows.push(store.add_case(run_id, seq, &case)?);
            seq += 1;
        }
    }
    // From here on the run is in the store: Ctrl-C keeps it and prints what it holds.
    let interrupted = crate::interrupt::on_ctrl_c();
    gate(&mut combos, &secret, &store)?;

    let calibration = counter::calibrate(&mut Nanoseconds);
    let session = Session {
        secret: &secret,
        fill_secret: &fill_secret,
        calibration: &calibration,
        interrupted: &interrupted,
    };
    for &len in &args.sizes {
        if interrupted.load(Ordering::SeqCst) {
            break;
        }
        measure_size(len, args.runs as usize, &mut combos, &session, &mut store)?;
    }
    let finished = !interrupted.load(Ordering::SeqCst);
    if finished {
        store.finish_run(run_id, &crate::store::now())?;
    }

    let stored = store.load_run(run_id)?;
    let text = report::render(&stored, args.output.format)?;
    crate::output::emit(args.output.file.as_deref(), &text).with_context(|| {
        format!(
            "the results are stored as run {run_id} in `{}`: `cryptobench report {run_id}` prints them again",
            store.path().display()
        )
    })?;
    if !finished {
        eprintln!(
            "interrupted: run {run_id} keeps the timed runs made before Ctrl-C, marked incomplete (`cryptobench report {run_id}` prints them again)"
        );
        return Ok(ExitCode::from(crate::interrupt::EXIT_INTERRUPTED));
    }
    let wrong = stored
        .cases
        .iter()
        .any(|c| matches!(c.status, CaseStatus::Wrong | CaseStatus::Failed));
    Ok(if wrong {
        ExitCode::from(EXIT_WRONG)
    } else {
        ExitCode::SUCCESS
    })
}

/// What every size of a bulk run shares.
struct Session<'a> {
    /// The key and IV every cipher encrypts with.
    secret: &'a Secret,
    /// The key of the keystream the buffers are filled with.
    fill_secret: &'a Secret,
    calibration: &'a counter::Calibration,
    /// Set by Ctrl-C: stop after the timed run in flight.
    interrupted: &'a AtomicBool,
}

/// Every run of every live combo of size `len`, in rounds: each round times every combo
/// once, so that drift of the machine spreads over all of them.
fn measure_size(
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

/// The thread counts asked for, in order, without repeats; by default 1 and every CPU.
fn thread_counts(asked: Option<&[usize]>, cpus: usize) -> Vec<usize> {
    let wanted = asked.map_or_else(|| vec![1, cpus], <[usize]>::to_vec);
    let mut out = Vec::new();
    for t in wanted {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// Every subject at every size and thread count, the ceiling first within each size.
fn plan<'a>(
    sizes: &[u64],
    ciphers: &'a [Box<dyn BulkCipher>],
    thread_counts: &[usize],
) -> Vec<Combo<'a>> {
    let mut out = Vec::new();
    for &len in sizes {
        let subjects =
            std::iter::once(Subject::Memcpy).chain(ciphers.iter().map(|c| Subject::Cipher(&**c)));
        for subject in subjects {
            for &threads in thread_counts {
                out.push(Combo {
                    len,
                    subject,
                    threads,
                    rows: Vec::new(),
                    dead: false,
                });
            }
        }
    }
    out
}

/// Before anything is timed: every implementation, at every thread count of the run,
/// against the single-threaded reference on a buffer that every thread gets a chunk of.
/// Those that differ are marked wrong and not timed.
fn gate(combos: &mut [Combo], secret: &Secret, store: &Store) -> Result<()> {
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

fn check(cipher: &dyn BulkCipher, threads: usize, secret: &Secret) -> Result<(), String> {
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

/// What became of one run of one combo.
enum Outcome {
    /// Nanoseconds per operation, in the combo's operation order; verified.
    Verified(Vec<f64>),
    Wrong(String),
    Failed(String),
}

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
    /// Before each timed operation both buffers are read on the operation's own threads and
    /// split, as the check after it does: every operation then starts from the same state
    /// of the caches, whatever ran before it (an encryption would otherwise start from the
    /// previous case's leftovers and a decryption from the data its encryption just
    /// cached; at sizes near the cache's, that alone made them differ twofold).
    fn measure(&mut self, combo: &Combo) -> Outcome {
        let threads = combo.threads;
        match combo.subject {
            Subject::Memcpy => {
                // Without this the copy could do nothing and still leave equal buffers.
                for page in self.work.chunks_mut(threads::CHUNK_ALIGN) {
                    page[0] ^= 0xff;
                }
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

    /// The pass of [`Bench::restored`], for its effect on the caches alone.
    fn settle(&mut self, threads: usize) {
        std::hint::black_box(self.restored(threads));
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
                    clusters: vec![vec![ns]],
                    core_clock: None,
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

fn random_secret(rng: &mut ChaCha8Rng) -> Secret {
    let mut key = [0u8; 32];
    rng.fill_bytes(&mut key);
    let iv = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
    Secret::new(key, iv)
}

/// A different seed on every run: the data and keys are random, not chosen.
fn clock_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ u64::from(std::process::id()).rotate_left(32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_default_to_one_and_all_without_repeats() {
        assert_eq!(thread_counts(None, 16), vec![1, 16]);
        assert_eq!(thread_counts(None, 1), vec![1]);
        assert_eq!(thread_counts(Some(&[4, 1, 4, 2]), 16), vec![4, 1, 2]);
    }

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

    #[test]
    fn every_run_is_checked_after_it_is_timed() {
        let secret = Secret::new([5; 32], 1234);
        let len = 8 << 20;
        let mut plain = vec![0u8; len];
        fill_random(&mut plain, &Secret::new([6; 32], 1));
        let calibration = counter::calibrate(&mut Nanoseconds);
        for break_decryption in [false, true] {
            let broken = BrokenWhenLarge {
                inner: competitors::all(&secret, false).remove(0),
                break_decryption,
            };
            assert!(check(&broken, 2, &secret).is_ok(), "the gate cannot see it");
            let mut work = plain.clone();
            let mut bench = Bench {
                plain: &plain,
                work: &mut work,
                secret: &secret,
                calibration: &calibration,
                round: 0,
            };
            let combo = Combo {
                len: len as u64,
                subject: Subject::Cipher(&broken),
                threads: 2,
                rows: Vec::new(),
                dead: false,
            };
            let why = match bench.measure(&combo) {
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
        // The same run of a correct implementation passes, and so does the ceiling.
        let good = competitors::all(&secret, false).remove(0);
        let mut work = plain.clone();
        let mut bench = Bench {
            plain: &plain,
            work: &mut work,
            secret: &secret,
            calibration: &calibration,
            round: 1,
        };
        for subject in [Subject::Cipher(&*good), Subject::Memcpy] {
            let combo = Combo {
                len: len as u64,
                subject,
                threads: 2,
                rows: Vec::new(),
                dead: false,
            };
            assert!(
                matches!(bench.measure(&combo), Outcome::Verified(ns) if ns.iter().all(|&t| t > 0.0))
            );
        }
    }

    /// An implementation that gets one byte wrong at a chunk boundary must not pass.
    #[test]
    fn the_gate_catches_a_wrong_implementation() {
        struct OffByOne(Box<dyn BulkCipher>);
        impl BulkCipher for OffByOne {
            fn name(&self) -> String {
                "broken".into()
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
