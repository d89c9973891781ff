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
//! | `mod.rs` | arguments; the run from start to report |
//! | `plan` | what is measured: memcpy and each implementation at each size and thread count |
//! | `gate` | every implementation against the reference before anything is timed |
//! | `bench` | timing in rounds, verification after every run, the store |
//! | [`aes`], `aes_ctr`, `aes_ecb` | our AES: key schedule, code paths, CTR and ECB |
//! | [`competitors`] | every implementation behind [`competitors::BulkCipher`], and memcpy |
//! | `threads` | CPU order, splitting a buffer, a pool of pinned worker threads |
//! | `buffer` | the buffers, and whether they fit in memory |
//! | [`size`] | sizes with units, thread counts |
//! | `analysis` | the figures of a stored run: medians, speed-ups, memcpy's rate |
//! | `report` | those figures as table, md, json, csv or html |

#[cfg(target_arch = "x86_64")]
pub mod aes;
#[cfg(target_arch = "x86_64")]
mod aes_ctr;
#[cfg(target_arch = "x86_64")]
mod aes_ecb;
mod analysis;
mod bench;
pub(crate) mod buffer;
pub mod competitors;
mod gate;
mod plan;
mod report;
pub mod size;
mod threads;

use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::record::BulkOptions;

use crate::cli::OutputArgs;
use crate::counter::{self, CounterKind, Nanoseconds};
use crate::exit::Exit;
use crate::machine::{self, Machine};
use crate::record::{Case, CaseStatus, Params, RunHeader, RunOrigin};

use crate::store::Store;
use bench::{Session, measure_size};
use competitors::{BulkCipher, Secret};
use gate::gate;
use plan::{plan, thread_counts};
/// The bulk tables of a stored bulk run, as `bulk` printed them.
pub use report::{prints, render};

/// The name memcpy, the reference, is stored under.
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
    /// Only implementations whose name contains one of these, comma-separated (e.g. `aes-128-ctr`, `openssl`); memcpy, the reference, is always measured.
    #[arg(long = "impl", value_name = "FILTER", value_delimiter = ',')]
    pub filters: Vec<String>,
    /// Also measure every code path of our AES this CPU has, each on its own (e.g. `cryptobench/aes-128-ctr@aesni`).
    #[arg(long)]
    pub paths: bool,
    /// How to print the results: the bulk tables, or an export of the run's figures.
    #[arg(long, default_value = "table", value_parser = crate::report::Doc::Run.parser())]
    pub format: crate::report::Format,
    #[command(flatten)]
    pub output: OutputArgs,
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
    let mut _claims = Vec::new();
    for &cpu in cpus {
        let (claim, shared) = machine::claim_cpu(cpu);
        _claims.extend(claim);
        if let Some(warning) = shared {
            eprintln!("warning: {warning}");
        }
    }

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
                lanes: 1,
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
        store.finish_run(run_id, &crate::record::now())?;
    }

    let stored = store.load_run(run_id)?;
    let text = crate::commands::render_stored(&store, &stored, args.format)?;
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
        return Ok(Exit::Interrupted.into());
    }
    let wrong = stored
        .cases
        .iter()
        .any(|c| matches!(c.status, CaseStatus::Wrong | CaseStatus::Failed));
    Ok(if wrong {
        Exit::CasesFailed.into()
    } else {
        ExitCode::SUCCESS
    })
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
