//! How a run was asked to measure and analyse, as the store keeps it.

use std::time::Duration;

use crate::counter::CounterKind;

/// How a run was asked to measure, as the store keeps it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct RunOptions {
    /// The counter every sample is in.
    pub counter: CounterKind,
    /// The CPU the worker processes were pinned to; `None`: not pinned.
    pub cpu: Option<usize>,
    /// Fresh processes per case.
    pub processes: usize,
    /// Memory layouts per process.
    pub layouts: usize,
    /// How each process samples each of its layouts.
    pub plan: SamplePlan,
    /// Limit for each worker process.
    pub timeout: Duration,
    /// Seed of the order of the cases in each round and of the memory layouts: a run
    /// is reproducible from it.
    pub seed: u64,
    /// More processes for the cases that need them, after the first pass. Runs stored
    /// before it existed read as [`Remeasure::OFF`] and print without it.
    #[serde(default = "Remeasure::off", skip_serializing_if = "Remeasure::is_off")]
    pub remeasure: Remeasure,
    /// `--no-canary`: measured without the canary ([`crate::canary`]), so nothing says
    /// whether the host stayed steady.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_canary: bool,
    /// The command line the run was started with, as the program received it (argv);
    /// empty in runs stored before it was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command_line: Vec<String>,
    /// The `cargo bench` target a bench harness ran as, by the name `--bench` takes: cargo
    /// names the binary after it with `-` made `_`, so argv alone cannot say `my-bench`.
    /// `None` for `cryptobench run`, and where the harness found no such target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bench_target: Option<String>,
    /// How each C build the run measured was compiled: its compiler and flags are the
    /// manifest's, which a later edit changes, not cryptobench's. Empty for runs without
    /// C builds, and for those stored before it was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub c_builds: Vec<CBuild>,
    /// What narrowed the cases measured from the experiment's whole plan, as asked
    /// (`--sizes 64`, a bench's filters): a partial run, which `report --machines` takes
    /// for its machine only where it has no whole one. `None` for a whole plan, and in
    /// runs stored before it was recorded ([`RunOptions::partial`] reads those from their
    /// command line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub narrowed: Option<String>,
}

impl RunOptions {
    /// How the run narrowed its experiment's plan, if it did: as recorded, or, for a run
    /// stored before that was, the `--sizes` of its recorded command line (which replace
    /// the experiment's lengths); a run recorded with neither counts as whole.
    pub fn partial(&self) -> Option<String> {
        if self.narrowed.is_some() {
            return self.narrowed.clone();
        }
        let mut args = self.command_line.iter();
        while let Some(arg) = args.next() {
            if arg == "--sizes" {
                return Some(format!(
                    "--sizes {}",
                    args.next().map_or("", String::as_str)
                ));
            }
            if let Some(sizes) = arg.strip_prefix("--sizes=") {
                return Some(format!("--sizes {sizes}"));
            }
        }
        None
    }
}

/// How one C build (`provider/algorithm/variant@target`) was compiled, as its run records
/// it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CBuild {
    /// The build, as the run's cases name it.
    pub implementation: String,
    /// The compiler the manifest names (its `compiler`: `cc`, `clang-19`), as it was run.
    pub compiler: String,
    /// The first line of that compiler's `--version`; empty where it could not be read.
    pub version: String,
    /// The flags the build was compiled with, in the order the compiler got them: the
    /// target's `-march`, the manifest's `flags`, the variant's, and last the libraries
    /// they name. What cryptobench gives every build besides is docs/c-api.md's.
    pub flags: Vec<String>,
    /// The function a static estimate of the build reads (`crypto_kem_enc`)...
    pub estimated_function: String,
    /// ... and the operation whose timed call it is (`encaps`): the one row of the build
    /// an estimate is of.
    pub estimated_operation: String,
}

/// The experiment (a name `src/experiment.rs` declares, here so that the analysis below
/// it can know it too) whose declared ratios are the seed's "speed limit" table.
pub const RNG_EXPERIMENT: &str = "chacha20-rng";

/// That experiment's ratios, (reference, member): each ChaCha20 RNG over the cipher,
/// whose keystream is all an RNG has to compute.
pub const RNG_OVER_CIPHER: &[(&str, &str)] = &[
    ("rustcrypto/chacha20", "rustcrypto/chacha20-rng"),
    ("rustcrypto/chacha20", "rand_chacha/chacha20-rng"),
];

/// When a case is measured in more processes than asked: its interval misses the
/// precision target, or the canary moved in some of its processes.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Remeasure {
    /// The half-width each case's 95 % interval should reach, in % of its median.
    pub precision_pct: f64,
    /// The time re-measuring may take in all; `None`: as long as the first pass took.
    pub budget: Option<Duration>,
    /// The most processes a case gets, as a multiple of those asked.
    pub most_processes_factor: usize,
}

impl Remeasure {
    /// No re-measuring; what runs stored before re-measuring existed read as.
    pub const OFF: Remeasure = Remeasure {
        precision_pct: f64::INFINITY,
        budget: Some(Duration::ZERO),
        most_processes_factor: 1,
    };

    fn off() -> Remeasure {
        Remeasure::OFF
    }

    /// Re-measuring to `precision_pct` within `budget` (`None`: as long as the first pass
    /// took), up to three times the processes asked: what `run` and `cargo bench` do.
    pub fn to_precision(precision_pct: f64, budget: Option<Duration>) -> Remeasure {
        Remeasure {
            precision_pct,
            budget,
            most_processes_factor: 3,
        }
    }

    /// Whether this re-measures nothing: no time for it, or no processes beyond those
    /// asked.
    pub fn is_off(&self) -> bool {
        self.budget == Some(Duration::ZERO) || self.most_processes_factor <= 1
    }
}

/// How one worker process samples each of its layouts.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct SamplePlan {
    /// Samples per layout.
    pub samples: usize,
    /// How long the layouts are called in turn before any sample is kept.
    pub warmup: Duration,
    /// Minimum counts a sample must span, as a multiple of the counter's overhead and of
    /// its resolution, so that both are negligible.
    pub overhead_factor: f64,
    /// The multiple of the counter's resolution a sample must span (see
    /// `overhead_factor`).
    pub resolution_factor: f64,
}

impl SamplePlan {
    /// `total` samples a case spread over `processes` x `layouts`: each layout's share,
    /// rounded up, at least one.
    pub fn spread(total: usize, processes: usize, layouts: usize) -> SamplePlan {
        SamplePlan {
            samples: total.div_ceil(processes * layouts).max(1),
            ..SamplePlan::default()
        }
    }
}

impl Default for SamplePlan {
    fn default() -> Self {
        SamplePlan {
            samples: 64,
            warmup: Duration::from_millis(10),
            overhead_factor: 200.0,
            resolution_factor: 1000.0,
        }
    }
}

/// What a run asked to be analysed, stored with it so that `report` repeats it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct AnalysisOptions {
    /// What to compute besides per-case statistics.
    pub spec: AnalysisSpec,
    /// How comparisons reach their verdicts.
    pub verdict: VerdictOptions,
    /// The id of the stored run compared against (`--baseline`), if any: a row id of the
    /// store the run was measured in, which means another run (or none) in a store it is
    /// pushed to. Kept for versions that read only it; [`AnalysisOptions::baseline_uuid`]
    /// is what this version resolves where it is recorded.
    pub baseline_run: Option<i64>,
    /// The UUID of the baseline run, the same in every store it is pushed to; absent in
    /// runs recorded before it was (which name their baseline by `baseline_run` alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_uuid: Option<String>,
    /// `--force`: compare with the baseline even where its counter, CPU model, tool
    /// version or measuring environment differ from this run's.
    pub force: bool,
}

/// How a comparison's verdict is reached: the test, its significance and the noise
/// threshold.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct VerdictOptions {
    /// A difference counts only when its p-value is below this (0.05 by default).
    pub significance: f64,
    /// Significant changes smaller than this, in percent, are within noise.
    pub noise_threshold_pct: f64,
    /// The test behind the p-value.
    #[serde(default)]
    pub test: Test,
}

impl VerdictOptions {
    /// criterion's defaults, which `run` and `compare` take unless told otherwise.
    pub const DEFAULT: VerdictOptions = VerdictOptions {
        significance: 0.05,
        noise_threshold_pct: 1.0,
        test: Test::MannWhitney,
    };

    /// The noise threshold of instruction counts: the same code counts the same to a few
    /// instructions in every run (docs/measurement.md), so a tenth of a percent is a change.
    pub const INSTRUCTIONS_NOISE_THRESHOLD_PCT: f64 = 0.1;

    /// [`VerdictOptions::DEFAULT`] for a run that counts with `counter`: instruction
    /// counts take [`VerdictOptions::INSTRUCTIONS_NOISE_THRESHOLD_PCT`].
    pub fn default_for(counter: crate::counter::CounterKind) -> VerdictOptions {
        VerdictOptions {
            noise_threshold_pct: if counter.simulated() {
                VerdictOptions::INSTRUCTIONS_NOISE_THRESHOLD_PCT
            } else {
                VerdictOptions::DEFAULT.noise_threshold_pct
            },
            ..VerdictOptions::DEFAULT
        }
    }

    /// The options a run asked for: its significance and test, and its noise threshold
    /// where it gave one, else `counter`'s default ([`VerdictOptions::default_for`]).
    pub fn asked(
        significance: f64,
        noise_threshold_pct: Option<f64>,
        test: Test,
        counter: crate::counter::CounterKind,
    ) -> VerdictOptions {
        VerdictOptions {
            significance,
            noise_threshold_pct: noise_threshold_pct
                .unwrap_or(VerdictOptions::default_for(counter).noise_threshold_pct),
            test,
        }
    }
}

/// `command` (and its subcommands) with every option whose environment variable is set
/// but empty reading it as unset, for the CLI and a crate's `cargo bench` alike: a CI
/// matrix or a job template that leaves `CRYPTOBENCH_DB` empty means it unset, where
/// clap refuses the empty value, or asks for one of an option that has a default.
pub fn unset_empty_env(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| {
            let empty = arg
                .get_env()
                .and_then(std::env::var_os)
                .is_some_and(|v| v.is_empty());
            if empty { arg.env(None::<&str>) } else { arg }
        })
        .mut_subcommands(unset_empty_env)
}

/// A command-line error `e` of `command`, parsed from `args`, as one line, as every other
/// refusal is; a bad value that came from an option's environment variable names the
/// variable, where clap names the option, which was not given.
pub fn clap_error_line(
    command: &clap::Command,
    e: &clap::Error,
    args: &[std::ffi::OsString],
) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let line = one_line(&e.render().to_string());
    if !matches!(
        e.kind(),
        ErrorKind::ValueValidation | ErrorKind::InvalidValue
    ) {
        return line;
    }
    let Some(ContextValue::String(shown)) = e.get(ContextKind::InvalidArg) else {
        return line;
    };
    // `--testbed <TESTBED>`
    let long = shown.split_whitespace().next().unwrap_or_default();
    let given = args.iter().any(|a| {
        a.to_str()
            .is_some_and(|a| a == long || a.starts_with(&format!("{long}=")))
    });
    match long
        .strip_prefix("--")
        .and_then(|name| env_of(command, name))
    {
        Some(var) if !given => line.replace(
            &format!("'{shown}'"),
            &format!("{var} (in the environment; {long} was not given)"),
        ),
        _ => line,
    }
}

/// The environment variable option `--long` reads, in `command` or a subcommand.
fn env_of(command: &clap::Command, long: &str) -> Option<String> {
    command
        .get_arguments()
        .find(|a| a.get_long() == Some(long))
        .and_then(|a| a.get_env())
        .map(|v| v.to_string_lossy().into_owned())
        .or_else(|| command.get_subcommands().find_map(|c| env_of(c, long)))
}

/// clap's rendered message on one line: what it lists on lines of their own (the
/// arguments missing, the possible values, the usage, a similar name) joined onto the
/// first. Its tip to pass an option as a value after `--` is left out: there the option
/// would become a target (a filter, under `cargo bench`), which is never what was meant.
fn one_line(rendered: &str) -> String {
    let mut line = String::new();
    for part in rendered.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if part.starts_with("For more information") || part.starts_with("tip: to pass") {
            continue;
        }
        if line.is_empty() {
            line.push_str(part);
        } else if line.ends_with(':') || part.starts_with('[') {
            line.push(' ');
            line.push_str(part);
        } else {
            line.push_str("; ");
            line.push_str(&part.replacen("Usage:", "usage:", 1));
        }
    }
    if line.is_empty() {
        "error: bad arguments".into()
    } else {
        line
    }
}

/// How a command asks for verdicts: `--significance`, `--noise-threshold` and `--test`,
/// the same options for `run`, `compare` and a crate's `cargo bench`.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct VerdictArgs {
    /// A difference counts only when its p-value is below this.
    #[arg(long, default_value_t = VerdictOptions::DEFAULT.significance, value_parser = parse_probability)]
    pub significance: f64,
    /// Significant changes smaller than this many percent are reported as within noise. Default: 1, or 0.1 for instructions (a deterministic count, whose own spread is a few instructions).
    #[arg(long, value_parser = parse_percent)]
    pub noise_threshold: Option<f64>,
    /// The test behind the p-value: Mann-Whitney U (no assumption on the distribution) or Welch's t (means, unequal variances).
    #[arg(long, value_enum, default_value_t = VerdictOptions::DEFAULT.test)]
    pub test: Test,
}

impl VerdictArgs {
    /// The options for runs counted with `counter`: instructions take a noise threshold
    /// of their own, 0.1 %, unless one was given.
    pub fn for_counter(self, counter: crate::counter::CounterKind) -> VerdictOptions {
        VerdictOptions::asked(self.significance, self.noise_threshold, self.test, counter)
    }

    /// The options for stored runs counted with `counter`: imported counts (another
    /// tool's, never simulated) take the default threshold.
    pub fn for_stored(self, counter: super::RunCounter) -> VerdictOptions {
        match counter {
            super::RunCounter::Measured(counter) => self.for_counter(counter),
            super::RunCounter::Imported(_) => VerdictOptions {
                significance: self.significance,
                noise_threshold_pct: self
                    .noise_threshold
                    .unwrap_or(VerdictOptions::DEFAULT.noise_threshold_pct),
                test: self.test,
            },
        }
    }
}

/// `--significance`: a probability strictly between 0 and 1.
pub fn parse_probability(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if p > 0.0 && p < 1.0 => Ok(p),
        _ => Err(format!(
            "`{s}` is not a probability between 0 and 1 (example: 0.05)"
        )),
    }
}

/// `--noise-threshold`, `--precision`: a percentage from 0 to 100, `%` optional.
pub fn parse_percent(s: &str) -> Result<f64, String> {
    match s.trim_end_matches('%').parse::<f64>() {
        Ok(p) if (0.0..100.0).contains(&p) => Ok(p),
        _ => Err(format!(
            "`{s}` is not a percentage between 0 and 100 (example: 1 or 1%)"
        )),
    }
}

impl Default for VerdictOptions {
    fn default() -> Self {
        VerdictOptions::DEFAULT
    }
}

/// The two-sample test behind a comparison's p-value.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Test {
    /// Mann-Whitney U: ranks, no assumption on the distribution.
    #[default]
    MannWhitney,
    /// Welch's t: means, unequal variances.
    Welch,
}

impl std::fmt::Display for Test {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Test::MannWhitney => "Mann-Whitney U",
            Test::Welch => "Welch t",
        })
    }
}

/// Why `short` to `long` bytes cannot give a slope (a cost per byte over `long - short`
/// bytes), or `None`: the rule for `--slope` and for the options a stored run reads back.
pub fn slope_fault(short: u64, long: u64) -> Option<&'static str> {
    (short >= long).then_some("the first length must be the shorter")
}

/// What to compute from the measurements besides per-case statistics.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct AnalysisSpec {
    /// (reference, member): the member's cost as a multiple of the reference's, per
    /// parameter set (e.g. an RNG over the cipher that is its "speed limit").
    pub ratios: Vec<(String, String)>,
    /// (baseline, candidate): two implementations side by side (faster or slower; no
    /// gate reads them).
    pub comparisons: Vec<(String, String)>,
    /// (short, long) message lengths: report each implementation's cost per byte at
    /// maximum throughput as the slope of its median between them.
    #[serde(default)]
    pub slope: Option<(u64, u64)>,
    /// (baseline algorithm, candidate algorithm): compare each variant@target of C builds
    /// across two algorithms (e.g. Spook v1 -> v2).
    #[serde(default)]
    pub algorithm_comparisons: Vec<(String, String)>,
    /// (baseline variant, candidate variant): compare each algorithm@target of C builds
    /// across two compile variants (the Jasmin seed's baseline vs variant).
    #[serde(default)]
    pub variant_comparisons: Vec<(String, String)>,
    /// Report what N lanes buy: each N-lane implementation against N calls of the
    /// fastest single-lane implementation of the same algorithm in the run.
    #[serde(default)]
    pub lane_speedups: bool,
}

impl AnalysisSpec {
    /// Whether the run compares anything with anything (within itself).
    pub fn compares(&self) -> bool {
        !self.comparisons.is_empty()
            || !self.algorithm_comparisons.is_empty()
            || !self.variant_comparisons.is_empty()
    }

    /// Whether the run compares an implementation with its own baseline (a compile
    /// variant, an algorithm's next version): what `--fail-on-regression` gates within
    /// a run. Two implementations side by side are a finding, not a regression.
    pub fn compares_variants(&self) -> bool {
        !self.algorithm_comparisons.is_empty() || !self.variant_comparisons.is_empty()
    }
}

/// What a bulk run was asked, stored with it for its report.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct BulkOptions {
    /// Buffer sizes, in bytes.
    pub sizes: Vec<u64>,
    /// Thread counts measured.
    pub threads: Vec<usize>,
    /// Timed runs per implementation, size and thread count.
    pub runs: u64,
    /// `--impl`: only implementations whose name contains one of these (memcpy is
    /// always measured); empty for all.
    #[serde(rename = "impl")]
    pub filters: Vec<String>,
    /// `--paths`: every code path of our AES measured on its own (earlier builds did not store it).
    #[serde(default)]
    pub paths: bool,
    /// The CPUs threads were pinned to, in the order they were taken.
    pub cpu_order: Vec<usize>,
    /// How huge pages were asked for the buffers, in words ("asked for (madvise)").
    pub huge_pages: String,
    /// The command line the run was started with, as the program received it (argv);
    /// empty in runs stored before it was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command_line: Vec<String>,
    /// Each timed operation followed the same operation run untimed on scratch, and a read
    /// of every byte of both buffers. Runs stored before (`false`) were timed without the
    /// first, and their read before a decryption stopped at the first byte: an operation
    /// timed first after another case started cold.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub warmed_up: bool,
}

/// This process's command line, as it received it (argv), for a run's record: an argument
/// that is not UTF-8 with its odd bytes replaced, as the record is text, and a PostgreSQL
/// URL's password replaced (`--push-to postgres://ci:***@host/db`), as the record is
/// pushed to shared stores and printed by every report.
pub fn this_command_line() -> Vec<String> {
    std::env::args_os()
        .map(|a| super::url::shown_argument(&a.to_string_lossy()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::CounterKind;
    use crate::record::{ImportedCounter, RunCounter};

    #[test]
    fn clap_errors_are_told_in_one_line() {
        for (rendered, line) in [
            (
                "error: the following required arguments were not provided:\n  <RUN_B>\n\nUsage: cryptobench compare <RUN_A> <RUN_B>\n\nFor more information, try '--help'.\n",
                "error: the following required arguments were not provided: <RUN_B>; usage: cryptobench compare <RUN_A> <RUN_B>",
            ),
            (
                "error: invalid value 'xml' for '--format <FORMAT>'\n  [possible values: table, md, json]\n\n  tip: a similar value exists: 'html'\n\nFor more information, try '--help'.\n",
                "error: invalid value 'xml' for '--format <FORMAT>' [possible values: table, md, json]; tip: a similar value exists: 'html'",
            ),
            (
                "error: unexpected argument '--bogus' found\n\n  tip: to pass '--bogus' as a value, use '-- --bogus'\n\nUsage: cargo bench -- [OPTIONS] [FILTERS]...\n\nFor more information, try '--help'.\n",
                "error: unexpected argument '--bogus' found; usage: cargo bench -- [OPTIONS] [FILTERS]...",
            ),
            ("", "error: bad arguments"),
        ] {
            assert_eq!(one_line(rendered), line);
        }
    }

    #[test]
    fn verdict_parameters_are_validated() {
        assert_eq!(parse_percent("1%"), Ok(1.0));
        assert!(parse_percent("-3").is_err());
        assert!(parse_probability("1.5").is_err());
        assert_eq!(parse_probability("0.01"), Ok(0.01));
    }

    #[test]
    fn instructions_take_their_own_noise_threshold_unless_one_is_given() {
        let asked = |noise_threshold| VerdictArgs {
            significance: 0.01,
            noise_threshold,
            test: Test::Welch,
        };
        let counted = asked(None).for_counter(CounterKind::Instructions);
        assert_eq!(counted.noise_threshold_pct, 0.1);
        assert_eq!((counted.significance, counted.test), (0.01, Test::Welch));
        assert_eq!(
            asked(None)
                .for_counter(CounterKind::Tsc)
                .noise_threshold_pct,
            1.0
        );
        let stored = asked(None).for_stored(RunCounter::Measured(CounterKind::Instructions));
        assert_eq!(stored.noise_threshold_pct, 0.1);
        let imported = asked(None).for_stored(RunCounter::Imported(ImportedCounter::OpensslSpeed));
        assert_eq!(imported.noise_threshold_pct, 1.0);
        let given = asked(Some(2.5)).for_stored(RunCounter::Measured(CounterKind::Instructions));
        assert_eq!(given.noise_threshold_pct, 2.5);
    }
}
