//! `cryptobench bulk`: multi-threaded AES over hundreds of MiB to GiB, against OpenSSL,
//! RustCrypto and a memory reference (`memcpy` of the same size).
//!
//! Its own runner rather than `runner`'s worker processes: what it times is our own code
//! and libraries, each checked against the reference before it is timed, and each run is
//! checked after it is timed. Results go to the same store as `run` (experiment `bulk`,
//! counter `ns`): a case per implementation, operation, size and thread count, one
//! cluster per run holding that run's nanoseconds, written as soon as the run is verified.
//!
//! | file | its job |
//! |---|---|
//! | `mod.rs` | from a request to a prepared run, and its measuring |
//! | `plan` | what is measured: memcpy and each implementation at each size and thread count |
//! | `gate` | every implementation against the reference before anything is timed |
//! | `bench` | timing in rounds, verification after every run, the store |
//! | [`aes`] | our AES (the `cryptobench-aes-bulk` crate): key schedule, code paths, CTR and ECB |
//! | [`competitors`] | every implementation behind [`competitors::BulkCipher`], and memcpy |
//! | `threads` | CPU order, splitting a buffer, a pool of pinned worker threads |
//! | `buffer` | the buffers, and whether they fit in memory |
//! | [`size`] | sizes with units, thread counts |

#[cfg(target_arch = "x86_64")]
pub use cryptobench_aes_bulk as aes;
mod bench;
pub(crate) mod buffer;
pub mod competitors;
mod gate;
mod plan;
pub mod size;
mod threads;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Result, bail};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::counter::{self, CounterKind, Nanoseconds};
use crate::machine::{self, Machine};
use crate::record::{BulkOptions, Case, Param, Params, RunHeader, RunOrigin};
use crate::runner::Ended;
use crate::store::Store;
use bench::{Session, measure_size};
use competitors::{BulkCipher, Secret};
use gate::gate;
use plan::{plan, thread_counts};

pub use crate::record::MEMCPY;

/// What `bulk` is asked to measure.
pub struct Request {
    pub sizes: Vec<u64>,
    /// Default: 1 and every CPU available to this process.
    pub threads: Option<Vec<usize>>,
    pub runs: u64,
    pub filters: Vec<String>,
    pub paths: bool,
    /// The testbed the run is stored under (`--testbed`); default: the hardware's name.
    pub testbed: Option<String>,
}

/// A bulk run ready to measure: its implementations chosen, memory checked, this thread
/// pinned and the CPUs claimed (for as long as it lives).
pub struct Prepared {
    request: Request,
    ciphers: Vec<Box<dyn BulkCipher>>,
    secret: Secret,
    fill_secret: Secret,
    cpus: &'static [usize],
    thread_counts: Vec<usize>,
    machine: Machine,
    _claims: Vec<machine::CpuClaim>,
}

/// Check `request` against this machine and get ready to measure it; warnings (memory
/// unknown, more threads than CPUs, CPUs shared with another cryptobench) on stderr.
pub fn prepare(mut request: Request) -> Result<Prepared> {
    // `--sizes 1GiB,1GiB` is one size, as `--threads 1,1` is one count.
    let mut seen = std::collections::BTreeSet::new();
    request.sizes.retain(|s| seen.insert(*s));
    if request.filters.iter().any(|f| f.trim().is_empty()) {
        bail!(
            "--impl {:?} holds an empty filter, which would match every implementation; name them, e.g. --impl aes-128-ctr,openssl",
            request.filters.join(",")
        );
    }
    let cpus = threads::cpu_order();
    let thread_counts = thread_counts(request.threads.as_deref(), cpus.len());
    match crate::machine::available_memory() {
        Some(available) => buffer::check_fits(&request.sizes, available)?,
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
    let matches = |c: &dyn BulkCipher| {
        request.filters.is_empty() || request.filters.iter().any(|f| c.name().contains(f))
    };
    let ciphers: Vec<Box<dyn BulkCipher>> = competitors::all(&secret, request.paths)
        .into_iter()
        .filter(|c| matches(c.as_ref()))
        .collect();
    if ciphers.is_empty() {
        let names: Vec<String> = competitors::all(&secret, request.paths)
            .iter()
            .map(|c| c.name())
            .collect();
        bail!(
            "no implementation matches --impl {}; there are: {}",
            request.filters.join(","),
            names.join(", ")
        );
    }
    // Before pinning: the machine's CPU count is this process's affinity mask, and workers
    // started by a pinned thread would first queue behind it on its CPU.
    let mut machine = Machine::detect();
    // The competitors measured use the same crates as the catalog (one lock), so the
    // catalog's record of their versions is theirs.
    if let Some(build) = &mut machine.build {
        let crates: Vec<&str> = ciphers.iter().flat_map(|c| c.crates()).copied().collect();
        build.libraries = crate::providers::libraries_of_crates(&crates);
    }
    threads::prepare(max_threads.max(cpus.len()))?;
    machine::pin_to_cpu(cpus[0])?;
    let mut claims = Vec::new();
    for &cpu in cpus {
        let (claim, shared) = machine::claim_cpu(cpu);
        claims.extend(claim);
        if let Some(warning) = shared {
            eprintln!("warning: {warning}");
        }
    }
    Ok(Prepared {
        request,
        ciphers,
        secret,
        fill_secret,
        cpus,
        thread_counts,
        machine,
        _claims: claims,
    })
}

impl Prepared {
    /// The run's header: where, and what was asked.
    pub fn header(&self) -> RunHeader {
        let r = &self.request;
        RunHeader::measured_now(
            "bulk",
            CounterKind::Ns,
            self.machine.clone(),
            RunOrigin::Bulk {
                bulk: BulkOptions {
                    sizes: r.sizes.clone(),
                    threads: self.thread_counts.clone(),
                    runs: r.runs,
                    filters: r.filters.clone(),
                    paths: r.paths,
                    cpu_order: self.cpus.to_vec(),
                    huge_pages: "asked for (madvise)".into(),
                    command_line: crate::record::this_command_line(),
                    warmed_up: true,
                },
            },
            r.testbed.as_deref(),
        )
    }

    /// Every implementation through the gate, then timed size by size, each run stored
    /// as it is verified, until done or `interrupted`.
    pub fn measure(
        &self,
        store: &mut Store,
        run_id: i64,
        interrupted: &AtomicBool,
    ) -> Result<Ended> {
        let mut combos = plan(&self.request.sizes, &self.ciphers, &self.thread_counts);
        let mut seq = 0;
        for c in &mut combos {
            for op in c.subject.operations() {
                let case = Case::new(
                    &c.subject.name(),
                    op,
                    Params::new()
                        .with(Param::Len, c.len)
                        .with(Param::Threads, c.threads as u64),
                );
                c.rows.push(store.add_case(run_id, seq, &case)?);
                seq += 1;
            }
        }
        gate(&mut combos, &self.secret, store)?;

        let calibration = counter::calibrate(&mut Nanoseconds);
        let session = Session {
            secret: &self.secret,
            fill_secret: &self.fill_secret,
            calibration: &calibration,
            interrupted,
        };
        for &len in &self.request.sizes {
            if interrupted.load(Ordering::SeqCst) {
                break;
            }
            measure_size(
                len,
                self.request.runs as usize,
                &mut combos,
                &session,
                store,
            )?;
        }
        Ok(if interrupted.load(Ordering::SeqCst) {
            Ended::Interrupted
        } else {
            Ended::Finished
        })
    }
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
