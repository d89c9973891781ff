//! Command-line interface: arguments in, a request out. Nothing here measures or formats.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::counter::CounterChoice;
use crate::record::{VerdictArgs, parse_percent};
use crate::report::{Doc, Format};

#[derive(Parser, Debug)]
#[command(
    name = "cryptobench",
    version,
    about = "Measure how fast cryptographic implementations are, and say with statistics whether one is faster than another.",
    long_about = None,
    after_help = "Examples:\n  cryptobench run                       the default experiment (chacha20-rng)\n  cryptobench run chacha20-rng --format md\n  cryptobench run rand_chacha --sizes 64,1024\n  cryptobench report latest --format json\n  cryptobench report latest --format html -o report.html\n  cryptobench history chacha20 --format html -o history.html\n  cryptobench import criterion target/criterion\n  cryptobench list path/to/manifest.toml       a manifest's builds, without building\n  cryptobench check path/to/manifest.toml      build and check them, without timing\n  cryptobench run path/to/manifest.toml:variant=o3,target=native\n  cryptobench cache clean --older-than 30d\n  cryptobench info"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Describe this machine: CPU, crypto instruction sets, counters, and what makes numbers less trustworthy.
    Info {
        /// Text for people, or one JSON object.
        #[arg(long, value_enum, default_value_t = InfoFormat::Text)]
        format: InfoFormat,
    },
    /// List implementations and their operations (optionally only those whose name contains FILTER), and the built-in experiments; `list EXPERIMENT` shows what that experiment measures and compares, and `list path/to/manifest.toml` every implementation x target of a manifest, without building or measuring.
    List {
        /// Show only the operations whose `provider/algorithm/operation` name contains this; an experiment's name shows its plan; a manifest (path/to/manifest.toml, or path/to/manifest.toml:variant=o3,target=native) its builds.
        filter: Option<String>,
    },
    /// Measure an experiment, or every implementation matching the filters, store the run and print it.
    Run(Box<RunArgs>),
    /// Build and check without timing: put every implementation of the manifests (or matching the filters, or of an experiment) through the correctness gate `run` applies before timing, and print each one's verdict. Nothing is measured or stored; exit status 1 if any gave wrong output or failed.
    Check(CheckArgs),
    /// Show the build cache of C implementations (where it is, how many builds, their size); `cache clean` empties it.
    Cache {
        #[command(subcommand)]
        action: Option<CacheAction>,
    },
    /// Print a stored run again, exactly as `run` (or `bulk`) printed it; with --machines, an experiment across every machine of the store, a column per testbed.
    Report {
        /// A run id, its UUID, `latest`, or the name of a saved baseline (of --testbed, or of the only testbed that has one of that name). With --machines: the experiment (default: the newest run's).
        #[arg(default_value = "latest")]
        run: String,
        /// One column per testbed: each cell the median per byte of that machine's newest complete run of the experiment's whole plan (its newest partial one, marked, where it has none), with its interval; beside it, each machine's own ratios (candidate over reference, within its run), the figures that compare across CPUs. No verdict across machines.
        #[arg(long)]
        machines: bool,
        /// With --machines: only these testbeds (comma-separated; CRYPTOBENCH_TESTBED does not filter them); without: whose baseline RUN names.
        #[arg(long, env = "CRYPTOBENCH_TESTBED", value_delimiter = ',', value_parser = parse_testbed)]
        testbed: Vec<String>,
        /// With --machines: only runs measured at this git revision of the code measured (exactly, or a commit hash's leading hex digits; a build from a changed tree only as `<hash>-dirty`): cryptobench's for its catalog, a crate's for its bench.
        #[arg(long, value_name = "REVISION", requires = "machines")]
        revision: Option<String>,
        /// How to print the run.
        #[arg(long, default_value = "table", value_parser = Doc::Run.parser())]
        format: Format,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// The machines of the store: each testbed's hardware fingerprint, CPU, runs and newest run.
    Machines {
        /// How to print them.
        #[arg(long, default_value = "table", value_parser = Doc::Machines.parser())]
        format: Format,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Copy the complete runs another store lacks into it, one transaction per run, keyed by run UUID: pushing twice changes nothing, an incomplete copy there is replaced, the same UUID with other content is refused. The target may be PostgreSQL or another SQLite file (merging CI artifacts needs no server).
    Push {
        /// The store to copy into: a postgres:// URL or an SQLite file.
        #[arg(long, value_name = "URL|FILE")]
        to: PathBuf,
        /// The stores to copy from (repeat it); default: --db.
        #[arg(long, value_name = "URL|FILE")]
        from: Vec<PathBuf>,
        /// The default store to copy from.
        #[arg(long, default_value = "cryptobench.db", env = "CRYPTOBENCH_DB")]
        db: PathBuf,
    },
    /// Compare two stored runs case by case (RUN_A is the baseline).
    Compare {
        /// The baseline: a run id, `latest`, or the name of a saved baseline.
        run_a: String,
        /// The candidate, named the same ways. `latest` beside a run or baseline is the newest run of that run's testbed (`compare main latest`); with --testbed, of that testbed.
        run_b: String,
        #[command(flatten)]
        verdict: VerdictArgs,
        /// Compare even when the runs used another counter, CPU model or tool version.
        #[arg(long)]
        force: bool,
        /// Whose baselines RUN_A and RUN_B name (baselines are per testbed).
        #[command(flatten)]
        testbed: TestbedArgs,
        /// How to print the comparison.
        #[arg(long, default_value = "table", value_parser = Doc::Comparison.parser())]
        format: Format,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// The median of every case over the stored runs, oldest first (optionally only the cases whose id contains FILTER).
    History {
        /// Show only the cases whose id (`provider/algorithm/operation params`, e.g. `rustcrypto/chacha20/xor len=1024`) contains this.
        filter: Option<String>,
        /// Only this testbed's runs (CRYPTOBENCH_TESTBED, which names the machine a job runs on, does not filter them). Default: every testbed's, each case's history per machine (testbed and hardware fingerprint), each judged against its own machine's latest run.
        #[arg(long, value_parser = parse_testbed)]
        testbed: Option<String>,
        /// How to print the history.
        #[arg(long, default_value = "table", value_parser = Doc::History.parser())]
        format: Format,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Store results measured by another tool as a run, so that report, history and compare see them.
    Import {
        #[command(subcommand)]
        source: ImportSource,
    },
    /// Multi-threaded AES (CTR, ECB) over buffers of hundreds of MiB to GiB: ours, OpenSSL and RustCrypto beside memcpy (a memory reference).
    Bulk(BulkArgs),
    #[command(name = "__worker", hide = true)]
    Worker,
}

#[derive(Subcommand, Debug)]
pub enum CacheAction {
    /// Remove every build from the cache (builds again on the next run), or only those not used for a while.
    Clean {
        /// Remove only the builds not used for this long: a number and a unit, s, m, h, d or w (e.g. 30d).
        #[arg(long, value_name = "DURATION", value_parser = parse_age)]
        older_than: Option<std::time::Duration>,
    },
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Manifests (path/to/manifest.toml, optionally narrowed as path/to/manifest.toml:variant=o3,target=native), filters over `provider/algorithm/operation` names, or an experiment.
    #[arg(required = true)]
    pub targets: Vec<String>,
    /// Directory of known-answer files named by manifests (`kat = ...`).
    #[arg(long, value_name = "DIR")]
    pub kat_dir: Option<PathBuf>,
    /// For C manifests: a build that does not compile fails its own cases (with the compiler's first error, its whole output on stderr) and the others are built and checked. Without it, the first compiler error stops the check before anything is checked (exit 2).
    #[arg(long)]
    pub keep_going: bool,
    /// CPU to pin the checking processes to. Default: the last available CPU.
    #[arg(long)]
    pub cpu: Option<usize>,
    /// Seconds a check may take before its worker is killed and the implementation marked failed (at most a week, 604800).
    #[arg(long, default_value = "120", value_parser = parse_timeout)]
    pub timeout: std::time::Duration,
}

#[derive(Subcommand, Debug)]
pub enum ImportSource {
    /// criterion.rs's saved results: every benchmark under DIR (usually target/criterion) with a `new/` directory.
    Criterion {
        /// criterion's output directory, usually target/criterion.
        dir: PathBuf,
        /// What criterion measured: `ns` (its default wall clock), `cycles` (criterion-cycles-per-byte), or `auto` (read criterion's HTML report where there is one, else ns).
        #[arg(long, value_enum, default_value_t = crate::import::criterion::CriterionUnit::Auto)]
        unit: crate::import::criterion::CriterionUnit,
        /// Which of criterion's result sets to read in each benchmark's directory: `new` (the latest `cargo bench`), `base` (the one before it) or a name given to criterion's `--save-baseline`. Each import is a run of its own; import the oldest first, as `history` lists runs in the order they were stored.
        #[arg(long, default_value = "new", value_name = "NAME")]
        saved: String,
        /// The result store (SQLite).
        #[arg(long, default_value = "cryptobench.db", env = "CRYPTOBENCH_DB")]
        db: PathBuf,
    },
    /// The output of `openssl speed -mr` (its `+H:` and `+F:` lines), e.g. `openssl speed -mr -evp aes-128-gcm > speed.txt`.
    OpensslSpeed {
        /// A file holding the output of `openssl speed -mr`.
        file: PathBuf,
        /// The result store (SQLite).
        #[arg(long, default_value = "cryptobench.db", env = "CRYPTOBENCH_DB")]
        db: PathBuf,
    },
}

impl Cli {
    /// The command line, parsed; a bad one ends the process with clap's message on one
    /// line (status 2). A value that starts with `-` (`--sizes -1`) reaches its option's parser,
    /// which says what is wrong with it, instead of being taken for an option.
    pub fn parse_args() -> Cli {
        use clap::{CommandFactory, FromArgMatches};
        fn negatives(c: clap::Command) -> clap::Command {
            c.allow_negative_numbers(true).mut_subcommands(negatives)
        }
        let command = crate::record::unset_empty_env(negatives(Cli::command()));
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        let refuse = |e: clap::Error| -> ! {
            use clap::error::ErrorKind::*;
            if !e.use_stderr() || e.kind() == DisplayHelpOnMissingArgumentOrSubcommand {
                e.exit() // --help, --version, or no command at all: the help
            }
            eprintln!("{}", crate::record::clap_error_line(&command, &e, &args));
            std::process::exit(crate::exit::Exit::Error.code().into())
        };
        let matches = command
            .clone()
            .try_get_matches_from(&args)
            .unwrap_or_else(|e| refuse(e));
        let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| refuse(e));
        if matches.subcommand().is_some_and(|(_, m)| {
            m.try_get_raw("db").is_ok_and(|v| v.is_some())
                && m.value_source("db") == Some(clap::parser::ValueSource::EnvVariable)
        }) {
            crate::store::db_from_environment();
        }
        cli.forget_testbed_filters_from_the_environment(&matches);
        cli
    }

    /// CRYPTOBENCH_TESTBED names the machine a job runs on; across machines
    /// (`report --machines`) it is no filter: a merge job that inherits it showed one
    /// machine's column without a word. There only `--testbed` filters (`history`'s
    /// `--testbed` does not read the variable at all).
    fn forget_testbed_filters_from_the_environment(&mut self, matches: &clap::ArgMatches) {
        let from_env = |sub: &str| {
            matches.subcommand_matches(sub).is_some_and(|m| {
                m.value_source("testbed") == Some(clap::parser::ValueSource::EnvVariable)
            })
        };
        match &mut self.command {
            Command::Report {
                machines: true,
                testbed,
                ..
            } if from_env("report") => testbed.clear(),
            _ => {}
        }
    }
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// An experiment name (see `cryptobench list`), filters over `provider/algorithm/operation` names, case ids as `history` prints them, quoted ("rustcrypto/chacha20/xor len=1024": that case alone), or manifests (path/to/manifest.toml) of C implementations, each narrowed to some builds with filters after a colon: path/to/manifest.toml:variant=o3,target=native,operation=encrypt (keys variant, algorithm, target, operation; a key given twice takes either value). Default: chacha20-rng. Filters and manifests measure lengths 64, 1024 and 16384 (or --sizes), an XOF's output at 32 bytes and an AEAD without associated data; an experiment sets its own.
    pub targets: Vec<String>,
    /// Message lengths, comma-separated: bytes or with a unit (1024,16KiB), 1 byte to 1 GiB; overrides the experiment's.
    #[arg(long, value_delimiter = ',', value_parser = parse_size)]
    pub sizes: Option<Vec<u64>>,
    /// Samples per case, spread over all processes and memory layouts (rounded up to a whole number per layout: 2048 over 10 processes x 4 layouts is 2080).
    #[arg(long, default_value_t = 2048, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub samples: u64,
    /// Fresh worker processes per case; the interval includes the spread between them.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub processes: u64,
    /// Memory layouts per process (the same call prepared at different addresses).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub layouts: u64,
    /// What to count; every figure names its counter.
    #[arg(long, value_enum, default_value_t = CounterChoice::Auto)]
    pub counter: CounterChoice,
    /// CPU to pin the measuring process to. Default: the last available CPU.
    #[arg(long)]
    pub cpu: Option<usize>,
    /// Seconds a worker may take before it is killed and its case marked failed (at most a week, 604800).
    #[arg(long, default_value = "120", value_parser = parse_timeout)]
    pub timeout: std::time::Duration,
    /// Seed for the order of cases and the memory layouts (a run is reproducible from it).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The precision each case's 95 % interval should reach, in ± percent of its median. A case that misses it, or some of whose processes ran while the host was in another state (by the canary), is measured in more processes, up to three times --processes, within --remeasure-budget.
    #[arg(long, default_value_t = 0.5, value_parser = parse_percent)]
    pub precision: f64,
    /// Seconds that re-measuring may take in all; 0 never re-measures. Default: as long as the first pass over every case took.
    #[arg(long, value_name = "SECONDS", value_parser = parse_budget)]
    pub remeasure_budget: Option<std::time::Duration>,
    /// Measure without the canary, the fixed workload timed beside every process that tells a host that moved from code that changed: nothing then sets aside processes the host slowed, or stops the gate from deciding on them.
    #[arg(long)]
    pub no_canary: bool,
    /// For C implementations: put llvm-mca's static estimate of cycles per call beside each measurement.
    #[arg(long)]
    pub estimate: bool,
    /// Directory of known-answer files named by manifests (`kat = ...`).
    #[arg(long, value_name = "DIR")]
    pub kat_dir: Option<PathBuf>,
    /// For C manifests: a build that does not compile fails its own cases (with the compiler's first error, its whole output on stderr) and the others are built and measured. Without it, the first compiler error stops the run before anything is measured (exit 2).
    #[arg(long)]
    pub keep_going: bool,
    /// Compare every other implementation in this run against this one, case by case at the same operation and parameters (faster or slower: a finding, not a regression); named in full as `list` shows it (e.g. `rustcrypto/chacha20`); measured interleaved, as every comparison is. One of another operation is listed as not compared.
    #[arg(long, value_name = "IMPLEMENTATION")]
    pub against: Option<String>,
    /// Add a table of every other implementation's median over this one's at the same parameters (sizes), with intervals: of the same operation where this one has it, else of its own (an RNG's fill_bytes over a cipher's xor) (the seed's RNG-over-cipher table, for any run).
    #[arg(long, value_name = "IMPLEMENTATION")]
    pub ratio_to: Option<String>,
    /// Add a table of each implementation's cost per byte at maximum throughput: the slope of its median from the SHORT to the LONG message length (both among the run's sizes), so that fixed per-call costs drop out.
    #[arg(long, value_name = "SHORT,LONG", value_parser = parse_slope)]
    pub slope: Option<(u64, u64)>,
    /// Keep this run as a named baseline for later `--baseline NAME` comparisons. A run whose host moved in most of a case's processes (by the canary), or whose cases' processes disagree by more than the noise threshold, is refused (exit 4), naming the cases, unless --force-baseline.
    #[arg(long, value_name = "NAME")]
    pub save_baseline: Option<String>,
    /// With --save-baseline: save the run even if it fails the baseline's quality check.
    #[arg(long, requires = "save_baseline")]
    pub force_baseline: bool,
    /// Compare every case with the same case in the named baseline (or run id).
    #[arg(long, value_name = "NAME")]
    pub baseline: Option<String>,
    /// With --baseline: compare even when the baseline was taken with another counter, CPU model, tool version, GLIBC_TUNABLES or OPENSSL_ia32cap.
    #[arg(long)]
    pub force: bool,
    /// Exit with status 3 when an implementation regressed against its own baseline beyond the noise threshold, or could not be compared for a reason that could hide a regression (the candidate crashed or gave wrong output). With --baseline: every case against the same case of the saved run. Without: the run's compile variants against the variant they vary, or an algorithm's next version against the last (c-variants, spook). Two implementations side by side (--against, an experiment's pairs) are faster or slower, a finding that no gate reads.
    #[arg(long)]
    pub fail_on_regression: bool,
    /// Also write the run as a self-contained HTML report (tables and charts) to PATH.
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
    /// Once the run is complete, copy it to this store too (a postgres:// URL or another SQLite file), as `cryptobench push` does. It is opened before measuring; if the push fails at the end, the run stays in --db.
    #[arg(long, value_name = "URL|FILE")]
    pub push_to: Option<PathBuf>,
    #[command(flatten)]
    pub testbed: TestbedArgs,
    #[command(flatten)]
    pub verdict: VerdictArgs,
    /// How to print the results.
    #[arg(long, default_value = "table", value_parser = Doc::Run.parser())]
    pub format: Format,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `cryptobench bulk`.
#[derive(Args, Debug)]
pub struct BulkArgs {
    /// Buffer sizes, comma-separated: a whole number with KiB, MiB, GiB (powers of 1024), KB, MB, GB (powers of 1000) or no unit (bytes), in whole 16-byte blocks.
    #[arg(
        long,
        value_delimiter = ',',
        value_parser = crate::bulk::size::parse_size,
        default_value = "512MiB,1GiB,2GiB"
    )]
    pub sizes: Vec<u64>,
    /// Thread counts, comma-separated, 1 to 1024. Default: 1 and every CPU available to this process.
    #[arg(long, value_delimiter = ',', value_parser = crate::bulk::size::parse_threads)]
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
    #[arg(long, default_value = "table", value_parser = Doc::Run.parser())]
    pub format: Format,
    #[command(flatten)]
    pub testbed: TestbedArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Where a command writes (its `--format` is its own: see [`Doc`]).
#[derive(Args, Debug)]
pub struct OutputArgs {
    /// Write to PATH instead of standard output (whole or not at all).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// The result store: an SQLite file, or a shared PostgreSQL database as a URL (postgres://USER@HOST:PORT/DATABASE; the password from PGPASSWORD or ~/.pgpass: one in the URL is taken, and never printed, but shows in `ps` and shell history).
    #[arg(long, default_value = "cryptobench.db", env = "CRYPTOBENCH_DB")]
    pub db: PathBuf,
}

/// Which machine a run belongs to, by the user's name for it.
#[derive(Args, Debug, Default)]
pub struct TestbedArgs {
    /// The testbed: your name for this machine (or the one whose runs to read), e.g. `zen4-ci`. Default: a name made from the hardware (CPU model and fingerprint), never the hostname. Baselines are per testbed.
    #[arg(long, env = "CRYPTOBENCH_TESTBED", value_parser = parse_testbed)]
    pub testbed: Option<String>,
}

/// A testbed name; the spaces around it dropped, as a list's after its commas are
/// (`--testbed 'zen-a, zen-b'`).
fn parse_testbed(s: &str) -> Result<String, String> {
    let s = s.trim();
    crate::record::check_testbed(s).map_err(|e| e.to_string())?;
    Ok(s.to_string())
}

/// A message length, in bytes or with a unit (`16KiB`), up to 1 GiB.
fn parse_size(s: &str) -> Result<u64, String> {
    crate::size::check_message_len(crate::size::parse_bytes(s)?)
}

/// The longest a worker may be given: a week. Far longer, the deadline would overflow
/// the clock it is added to.
pub const MAX_TIMEOUT_S: u64 = 7 * 24 * 3600;

/// A worker's time limit in seconds: positive, at most [`MAX_TIMEOUT_S`].
fn parse_timeout(s: &str) -> Result<std::time::Duration, String> {
    match s.trim().parse::<f64>() {
        Ok(t) if t.is_nan() => Err(format!("`{s}` is not a number of seconds (example: 120)")),
        Ok(t) if t <= 0.0 => Err(format!(
            "`{s}`: a worker's time limit must be a positive number of seconds (the default is 120)"
        )),
        Ok(t) if t > MAX_TIMEOUT_S as f64 => Err(format!(
            "`{s}` seconds is too large: the most is {MAX_TIMEOUT_S} (a week)"
        )),
        Ok(t) => std::time::Duration::try_from_secs_f64(t)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| {
                format!("`{s}` is too short to be a time limit: give at least a nanosecond")
            }),
        Err(_) => Err(format!("`{s}` is not a number of seconds (example: 120)")),
    }
}

/// `--remeasure-budget`: seconds, 0 allowed (no re-measuring).
fn parse_budget(s: &str) -> Result<std::time::Duration, String> {
    if s.trim().parse::<f64>() == Ok(0.0) {
        return Ok(std::time::Duration::ZERO);
    }
    parse_timeout(s).map_err(|_| {
        format!("`{s}` is not a number of seconds from 0 to {MAX_TIMEOUT_S} (example: 60)")
    })
}

/// A duration as `cache clean --older-than` takes it: a whole number and a unit.
fn parse_age(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (n, unit) = t.split_at(split);
    let unit_s = match unit.trim() {
        "s" => 1,
        "m" | "min" => 60,
        "h" => 3600,
        "d" => 86400,
        "w" => 7 * 86400,
        _ => {
            return Err(format!(
                "`{s}` is not a duration: give a whole number and a unit, s, m, h, d or w (e.g. 30d)"
            ));
        }
    };
    match n.parse::<u64>() {
        Ok(n) => n
            .checked_mul(unit_s)
            .map(std::time::Duration::from_secs)
            .ok_or_else(|| format!("`{s}` is too long a duration")),
        Err(_) => Err(format!(
            "`{s}` is not a duration: give a whole number and a unit, s, m, h, d or w (e.g. 30d)"
        )),
    }
}

/// `--slope 8KiB,32KiB`: two message lengths.
fn parse_slope(s: &str) -> Result<(u64, u64), String> {
    let lens: Vec<u64> = s
        .split(',')
        .map(|part| crate::size::parse_bytes(part.trim()))
        .collect::<Result<_, _>>()?;
    match lens.as_slice() {
        [short, long] => Ok((*short, *long)),
        _ => Err(format!(
            "`{s}` is not two lengths SHORT,LONG (e.g. 8KiB,32KiB)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_validated_with_useful_messages() {
        assert_eq!(parse_size("1024"), Ok(1024));
        assert_eq!(parse_size("16KiB"), Ok(16384));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert!(parse_size("0").unwrap_err().contains("at least 1 byte"));
        assert!(parse_size("0KiB").unwrap_err().contains("at least 1 byte"));
        assert!(parse_size("12x").unwrap_err().contains("unknown unit"));
        assert!(parse_size("x").unwrap_err().contains("not a size"));
        assert!(parse_size("4294967296").unwrap_err().contains("too large"));
        assert!(parse_size("2GiB").unwrap_err().contains("cryptobench bulk"));
    }

    #[test]
    fn timeouts_are_positive_and_at_most_a_week() {
        assert_eq!(
            parse_timeout("1.5"),
            Ok(std::time::Duration::from_millis(1500))
        );
        assert!(parse_timeout("0").unwrap_err().contains("positive"));
        assert!(parse_timeout("-3").unwrap_err().contains("positive"));
        assert!(parse_timeout("NaN").unwrap_err().contains("not a number"));
        assert!(parse_timeout("x").unwrap_err().contains("not a number"));
        let huge = parse_timeout("1e300").unwrap_err();
        assert!(
            huge.contains("too large") && huge.contains("604800"),
            "{huge}"
        );
        assert!(parse_timeout("inf").unwrap_err().contains("too large"));
        assert!(parse_timeout("604800").is_ok());
    }

    #[test]
    fn ages_have_a_unit() {
        assert_eq!(
            parse_age("30d"),
            Ok(std::time::Duration::from_secs(30 * 86400))
        );
        assert_eq!(parse_age("90m"), Ok(std::time::Duration::from_secs(5400)));
        assert_eq!(parse_age("0s"), Ok(std::time::Duration::ZERO));
        assert!(parse_age("30").unwrap_err().contains("unit"));
        assert!(parse_age("d").unwrap_err().contains("not a duration"));
        assert!(parse_age("-1d").unwrap_err().contains("not a duration"));
        assert!(parse_age("99999999999999999999w").is_err());
    }

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InfoFormat {
    Text,
    Json,
}
