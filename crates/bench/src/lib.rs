//! cryptobench as a `cargo bench` harness. A crate registers its implementations through
//! the catalog's kind traits and hands over:
//!
//! ```no_run
//! use cryptobench_bench::Bench;
//! # struct MyChaCha;
//! fn main() {
//!     Bench::new("chacha20")
//!         // .register(Stream::<MyChaCha>::new("mycrate"))
//!         .ratio("mycrate/chacha20-rng", "mycrate/chacha20")
//!         .main();
//! }
//! ```
//!
//! with `[[bench]] name = "chacha20" harness = false` in `Cargo.toml`. `cargo bench`
//! then runs what `cryptobench run` runs: every implementation through its correctness
//! gate, each case in worker processes (the bench binary itself, re-executed), pinned,
//! interleaved, into a result store under the target directory, with its statistics,
//! reports, baselines and regression gate. `cargo test --benches` runs each
//! implementation's gate only, in seconds. `cargo bench -- --help` lists the options.

#![deny(missing_docs)]
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{CommandFactory, FromArgMatches, Parser};

pub use cryptobench_core::catalog;
pub use cryptobench_core::catalog::Implementation;
use cryptobench_core::catalog::registry::Registry;
use cryptobench_core::counter::CounterChoice;
use cryptobench_core::exit::Exit;
use cryptobench_core::plan::{
    DEFAULT_FILTER_SIZES, Plan, add_exact_members, add_members, filter_cases,
};
use cryptobench_core::record::{
    AnalysisSpec, CodeRevision, RunOptions, SamplePlan, VerdictArgs, checkout_revision,
};
use cryptobench_core::report::{Doc, Format};
use cryptobench_core::runner::{self, Progress, worker};
use cryptobench_core::{machine, preflight, session};

/// A bench target: its implementations, and what to compare of them.
pub struct Bench {
    name: String,
    registry: Registry,
    sizes: Vec<u64>,
    ratios: Vec<(String, String)>,
    comparisons: Vec<(String, String)>,
    /// The names of the implementations the catalog added (not those this bench
    /// registered under the same names): a run records the libraries of those it measures.
    #[cfg(feature = "catalog")]
    catalog_names: Vec<String>,
}

impl Bench {
    /// A bench named `name` (the run's experiment name in the store and reports).
    pub fn new(name: &str) -> Bench {
        Bench {
            name: name.to_string(),
            registry: Registry::new(),
            sizes: DEFAULT_FILTER_SIZES.to_vec(),
            ratios: Vec::new(),
            comparisons: Vec::new(),
            #[cfg(feature = "catalog")]
            catalog_names: Vec::new(),
        }
    }

    /// Register an implementation: a kind adapter of the catalog (`catalog::kinds`) over
    /// the crate's type, named `provider/algorithm` by the adapter.
    pub fn register(mut self, implementation: impl Implementation + 'static) -> Bench {
        self.registry.add(implementation);
        self
    }

    /// Whatever `register` adds to this bench's registry: another crate's set of
    /// implementations, registered by a function it exports (`Bench::with_catalog` adds
    /// the CLI's whole catalog).
    pub fn with(mut self, register: impl FnOnce(&mut Registry)) -> Bench {
        register(&mut self.registry);
        self
    }

    /// Every implementation of the `cryptobench` CLI's catalog (RustCrypto, ring,
    /// aws-lc-rs, OpenSSL, dalek, libcrux, our Keccak) beside this bench's own, measured
    /// interleaved with them: "mine against ring's". A name this bench registered itself
    /// keeps its own implementation. Needs the `catalog` feature (which builds OpenSSL,
    /// ring and aws-lc-rs); narrow a run to some with filters (`-- chacha20-poly1305`).
    #[cfg(feature = "catalog")]
    pub fn with_catalog(mut self) -> Bench {
        let catalog = cryptobench_providers::builtin();
        self.catalog_names = (catalog.all())
            .map(|i| i.name())
            .filter(|name| self.registry.get(name).is_none())
            .collect();
        self.registry.extend(catalog);
        self
    }

    /// The message lengths measured (default 64, 1024, 16384; `-- --sizes` overrides).
    pub fn sizes(mut self, sizes: &[u64]) -> Bench {
        self.sizes = sizes.to_vec();
        self
    }

    /// A table of `member`'s median over `reference`'s at each common parameter point,
    /// with intervals (the seed's "RNG over the cipher").
    pub fn ratio(mut self, member: &str, reference: &str) -> Bench {
        self.ratios
            .push((reference.to_string(), member.to_string()));
        self
    }

    /// Compare `candidate` against `baseline`, measured interleaved, with a p-value and a
    /// verdict (faster or slower: a finding, never a regression).
    pub fn compare(mut self, candidate: &str, baseline: &str) -> Bench {
        self.comparisons
            .push((baseline.to_string(), candidate.to_string()));
        self
    }

    /// Run as cargo asked: a worker, the gates alone (`cargo test --benches`), or the
    /// measurement (`cargo bench`); exits with the status `cryptobench run` would.
    pub fn main(self) -> ! {
        let args: Vec<String> = std::env::args().collect();
        if args.get(1).map(String::as_str) == Some(worker::SUBCOMMAND) {
            let code = match worker::serve(&self.registry) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("worker: {e:#}");
                    1
                }
            };
            std::process::exit(code);
        }
        let args = without_libtest_format(args);
        let command = cryptobench_core::record::unset_empty_env(BenchArgs::command());
        let parsed = match command.clone().try_get_matches_from(&args).and_then(|m| {
            // Messages then blame the variable, not a `--db` the user never typed.
            if m.value_source("db") == Some(clap::parser::ValueSource::EnvVariable) {
                cryptobench_core::store::db_from_environment();
            }
            BenchArgs::from_arg_matches(&m)
        }) {
            Ok(parsed) => parsed,
            Err(e)
                if !e.use_stderr()
                    || e.kind()
                        == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
            {
                e.exit()
            }
            // One line, as the harness's own errors; without clap's tip to pass the option
            // as a value after `--` (a filter, here), which would mislead under cargo.
            Err(e) => {
                let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
                eprintln!(
                    "{}",
                    cryptobench_core::record::clap_error_line(&command, &e, &args)
                );
                std::process::exit(Exit::Error.code() as i32);
            }
        };
        let code = match self.dispatch(parsed) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("error: {e:#}");
                Exit::for_error(&e).code()
            }
        };
        std::process::exit(code as i32);
    }

    fn dispatch(self, args: BenchArgs) -> Result<u8> {
        if let Some(why) = bench_name_fault(&self.name) {
            bail!("Bench::new({:?}): {why}", self.name);
        }
        let twice = self.registry.duplicate_names();
        if !twice.is_empty() {
            bail!(
                "this bench registers {} more than once; give each implementation its own provider name",
                twice.join(", ")
            );
        }
        let faults: Vec<String> = (self.registry.all())
            .flat_map(|i| {
                let name = i.name();
                let faults = i.description_faults();
                faults.into_iter().map(move |f| format!("{name}: {f}"))
            })
            .collect();
        if !faults.is_empty() {
            bail!(
                "this bench describes its algorithm wrongly: {}",
                faults.join("; ")
            );
        }
        for name in self.registry.all().map(|i| i.name()) {
            if let Some(why) = name_fault(&name) {
                bail!("this bench registers `{name}`: {why}");
            }
        }
        for (pairs, method) in [(&self.ratios, "ratio"), (&self.comparisons, "compare")] {
            // Stored (reference, member), given (member, reference).
            for (second, first) in pairs {
                if let Some(unknown) = [first, second]
                    .into_iter()
                    .find(|n| self.registry.get(n).is_none())
                {
                    let names: Vec<String> = self.registry.all().map(|i| i.name()).collect();
                    bail!(
                        ".{method}(\"{first}\", \"{second}\"): this bench registers no `{unknown}`; it has {}",
                        names.join(", ")
                    );
                }
            }
        }
        if self.sizes.is_empty() {
            bail!(
                "Bench::sizes was given no length: give it at least one (in bytes), or leave it out for 64, 1024 and 16384"
            );
        }
        if let Some(why) = self
            .sizes
            .iter()
            .find_map(|&n| cryptobench_core::size::check_message_len(n).err())
        {
            bail!("Bench::sizes({:?}): {why}", self.sizes);
        }
        if let Some(t) = &args.testbed {
            cryptobench_core::record::check_testbed(t)?;
        }
        let Some(plan) = self.plan(&args)? else {
            // libtest's answer to a filter meant for another target of the crate
            // (`cargo test --all-targets -- a_unit_test`, `cargo bench -- mine/` with two
            // bench targets): nothing to run here, which is no failure.
            // On stderr: stdout is the report, in the format asked (JSON, CSV).
            let names: Vec<String> = self.registry.all().map(|i| i.name()).collect();
            let (filters, skip) = (quoted(&args.filters), quoted(&args.libtest.skip));
            let why = match (args.filters.is_empty(), args.libtest.skip.is_empty()) {
                (true, _) => format!("--skip {skip} leaves out every implementation"),
                (false, true) => format!("{filters} matches no implementation"),
                (false, false) => {
                    format!("{filters}, less --skip {skip}, matches no implementation")
                }
            };
            eprintln!(
                "nothing {}: {why} of this bench (it has {})",
                if args.bench { "measured" } else { "checked" },
                names.join(", ")
            );
            return Ok(0);
        };
        if args.libtest.ignored {
            // libtest runs only the ignored tests; this harness ignores none.
            println!("nothing checked: this bench ignores no implementation (`--ignored`)");
            return Ok(0);
        }
        if args.libtest.list {
            let mut listed: Vec<&str> = Vec::new();
            for case in &plan.cases {
                if !listed.contains(&case.implementation.as_str()) {
                    listed.push(&case.implementation);
                    let kind = if args.bench { "bench" } else { "test" };
                    println!("{}: {kind}", case.implementation);
                }
            }
            return Ok(0);
        }
        if args.bench {
            self.measure(plan, args)
        } else {
            self.check(&plan, std::time::Duration::from_secs(args.timeout))
        }
    }

    /// The cases `args` asks for: the filters (all by default) at the sizes, less those
    /// `--skip` names; `None` where the filters match none, as libtest has it, for
    /// filters meant for another target of the crate.
    fn plan(&self, args: &BenchArgs) -> Result<Option<Plan>> {
        if self.registry.all().next().is_none() {
            bail!("this bench registers no implementation: add some with Bench::register");
        }
        let add = match args.libtest.exact {
            true => add_exact_members,
            false => add_members,
        };
        let mut members = Vec::new();
        if args.filters.is_empty() {
            add_members(&self.registry, "", &mut members);
        }
        let unmatched: Vec<&String> = (args.filters.iter())
            .filter(|f| !add(&self.registry, f, &mut members))
            .collect();
        if !args.libtest.skip.is_empty() {
            let mut skipped = Vec::new();
            for f in &args.libtest.skip {
                add(&self.registry, f, &mut skipped);
            }
            members.retain(|m| !skipped.contains(m));
        }
        if members.is_empty() {
            return Ok(None);
        }
        if !unmatched.is_empty() {
            // Run as libtest runs: what the others match. Said, for a misspelt name.
            eprintln!(
                "note: {} matches no implementation of this bench",
                quoted(&unmatched)
            );
        }
        let sizes = args.sizes.clone().unwrap_or_else(|| self.sizes.clone());
        let mut cases = filter_cases(&members, &sizes)?;
        for case in &mut cases {
            if let Some(implementation) = self.registry.get(&case.implementation) {
                case.lanes = implementation.lanes();
            }
        }
        let present = |name: &str| cases.iter().any(|c| c.implementation == name);
        let keep = |pairs: &[(String, String)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .filter(|(a, b)| present(a) && present(b))
                .cloned()
                .collect()
        };
        let mut plan = Plan {
            name: self.name.clone(),
            analysis: AnalysisSpec {
                ratios: keep(&self.ratios),
                comparisons: keep(&self.comparisons),
                ..AnalysisSpec::default()
            },
            cases,
            external: Default::default(),
        };
        if let Some(base) = &args.against {
            plan.compare_all_against(base)?;
        }
        Ok(Some(plan))
    }

    /// `cargo test --benches`: each implementation's correctness gate, then one call of
    /// each case `cargo bench` would measure, each in a worker given `timeout`, and
    /// nothing timed.
    fn check(&self, plan: &Plan, timeout: std::time::Duration) -> Result<u8> {
        let cpu = machine::default_cpu();
        let mut seen: Vec<&str> = Vec::new();
        let mut unfit = 0;
        for case in &plan.cases {
            if seen.contains(&case.implementation.as_str()) {
                continue;
            }
            seen.push(&case.implementation);
            // One at a time, so that each line is said as soon as it is known.
            let Some(mut verdict) = runner::verify_all(
                &[case.implementation.as_str()],
                &plan.cases,
                &plan.external,
                Some(cpu),
                timeout,
                false,
                &mut |_| true,
            )?
            .and_then(|verdicts| verdicts.into_iter().next()) else {
                bail!("the gate of {} gave no verdict", case.implementation);
            };
            // The gate checks the algorithm at its vectors' lengths; `cargo bench` calls
            // it at the bench's: each of those once, so that a failure there fails here.
            if !matches!(verdict, runner::Verdict::Unfit(..)) {
                let measured = plan
                    .cases
                    .iter()
                    .filter(|c| c.implementation == case.implementation);
                for case in measured {
                    let said = runner::rehearse(case, &plan.external, Some(cpu), timeout)?;
                    if let runner::Verdict::Unfit(..) = said {
                        verdict = said;
                        break;
                    }
                }
            }
            let (word, why, fails) = verdict.describe();
            unfit += usize::from(fails);
            // The line names the implementation already.
            let why = why
                .strip_prefix(&format!("{}: ", case.implementation))
                .unwrap_or(&why);
            let said = if why.is_empty() {
                word.to_string()
            } else {
                format!("{word}: {why}")
            };
            println!("test {} ... {said}", case.implementation);
        }
        println!(
            "\n{} implementation{} checked, and called once in each case `cargo bench` measures; nothing timed (that is `cargo bench`)",
            seen.len(),
            if seen.len() == 1 { "" } else { "s" }
        );
        Ok(if unfit > 0 {
            Exit::CasesFailed.code()
        } else {
            0
        })
    }

    /// The libraries the catalog's implementations among `plan`'s come from, at the
    /// versions the lock this bench's crate was built with pins; the bench's own
    /// implementations' are the bench's to name, so none for them.
    #[cfg(feature = "catalog")]
    fn libraries_of(&self, plan: &Plan) -> Vec<cryptobench_core::build_info::Library> {
        cryptobench_providers::libraries_of_at(
            (plan.cases.iter())
                .map(|c| c.implementation.as_str())
                .filter(|name| self.catalog_names.iter().any(|n| n == name)),
            cryptobench_providers::catalog_versions_in(&crate_dir()),
        )
    }

    /// Without the catalog, every implementation is the bench's own.
    #[cfg(not(feature = "catalog"))]
    fn libraries_of(&self, _: &Plan) -> Vec<cryptobench_core::build_info::Library> {
        Vec::new()
    }

    /// `cargo bench`: the plan measured as `cryptobench run` measures, into the store.
    fn measure(self, plan: Plan, args: BenchArgs) -> Result<u8> {
        let counter = args.counter.resolve().map_err(anyhow::Error::msg)?;
        let cpu = machine::default_cpu();
        machine::check_cpu(cpu)?;
        // The default store's directory is made; one named with --db must exist, as for
        // the CLI (a typo would otherwise start a new store elsewhere without a word).
        let db = match &args.db {
            Some(db) if cryptobench_core::store::is_server_url(db) => {
                let option = cryptobench_core::store::db_option();
                let url = cryptobench_core::record::without_password(&db.to_string_lossy());
                let named = match option.starts_with('-') {
                    true => format!("{option} {url}"),
                    false => format!("{option}={url}"),
                };
                bail!(
                    "`{named}`: a `cargo bench` harness stores into an SQLite file only; {}, and push its runs to the server with `cryptobench push --from {} --to URL`",
                    match option.starts_with('-') {
                        true =>
                            "leave --db out (the store is then target/cryptobench/cryptobench.db) or name a file",
                        false =>
                            "unset CRYPTOBENCH_DB for `cargo bench` (the store is then target/cryptobench/cryptobench.db) or set it to a file",
                    },
                    default_store()?.display()
                );
            }
            Some(db) => db.clone(),
            None => {
                let db = default_store()?;
                if let Some(dir) = db.parent() {
                    std::fs::create_dir_all(dir)
                        .with_context(|| format!("cannot create {}", dir.display()))?;
                }
                db
            }
        };
        let processes = args.processes as usize;
        let verdict = args.verdict.for_counter(counter);
        cryptobench_core::output::check_outputs(
            &[("--html", args.html.as_deref())],
            &[("--db", Some(&db))],
        )?;
        if let Some(name) = &args.save_baseline {
            preflight::check_baseline_name(name)?;
        }
        if args.fail_on_regression {
            preflight::check_gate_can_decide(
                &plan.analysis,
                processes,
                &verdict,
                args.baseline.is_some(),
            )?;
        }
        preflight::check_memory(&plan.cases, args.layouts)?;
        let mut store = cryptobench_core::store::Store::open(&db)?;
        let layouts = args.layouts as usize;
        let measured = session::measure_plan(
            &mut store,
            &plan,
            session::Measurement {
                options: RunOptions {
                    counter,
                    cpu: Some(cpu),
                    processes,
                    layouts,
                    plan: SamplePlan::spread(args.samples as usize, processes, layouts),
                    timeout: std::time::Duration::from_secs(args.timeout),
                    seed: 1,
                    remeasure: cryptobench_core::record::Remeasure::to_precision(0.5, None),
                    no_canary: false,
                    command_line: cryptobench_core::record::this_command_line(),
                    bench_target: std::env::args()
                        .next()
                        .and_then(|program| bench_target(&crate_dir(), &program)),
                    c_builds: cryptobench_core::cimpl::c_builds(&plan.external),
                    narrowed: narrowed_by(&args),
                },
                verdict,
                baseline: args.baseline.as_deref(),
                force: args.force,
                testbed: args.testbed.as_deref(),
                // The crate's: its history is what a bench follows, commit by commit.
                revision: CodeRevision::Checkout(checkout_revision(&crate_dir())),
                libraries: self.libraries_of(&plan),
            },
            session::Finish {
                format: args.format,
                file: None,
                html: args.html.as_deref(),
                save_baseline: args.save_baseline.as_deref(),
                force_baseline: args.force_baseline,
                fail_on_regression: args.fail_on_regression,
            },
            &Notes,
        );
        let (code, uuid) = match measured {
            Ok(measured) => measured,
            Err(refused) => {
                store.discard_if_unused();
                return Err(refused);
            }
        };
        // The store is under the target directory, where its author may not look for it.
        if let Some(id) = store.run_by_uuid(&uuid)? {
            eprintln!(
                "stored as run {id} in {} (`cryptobench history --db {0}`, `cryptobench report {id} --db {0}`)",
                store.path().display()
            );
        }
        Ok(exit_code(code))
    }
}

/// libtest's output formats, which `cargo test -- --format terse` passes to every target.
const LIBTEST_FORMATS: [&str; 3] = ["pretty", "terse", "junit"];

/// `args` without a `--format` of libtest's under `cargo test` (no `--bench`): the gates
/// print their lines as they do whatever libtest was asked. Under `cargo bench`,
/// `--format` is the report's, and such a value is refused.
fn without_libtest_format(args: Vec<String>) -> Vec<String> {
    if args.iter().any(|a| a == "--bench") {
        return args;
    }
    let mut kept = Vec::with_capacity(args.len());
    let mut args = args.into_iter().peekable();
    while let Some(arg) = args.next() {
        if arg == "--format"
            && let Some(value) = args.peek()
            && LIBTEST_FORMATS.contains(&value.as_str())
        {
            args.next();
            continue;
        }
        if let Some(value) = arg.strip_prefix("--format=")
            && LIBTEST_FORMATS.contains(&value)
        {
            continue;
        }
        kept.push(arg);
    }
    kept
}

/// `a`, `b`: filters as a line names them.
fn quoted<S: AsRef<str>>(filters: &[S]) -> String {
    let quoted: Vec<String> = (filters.iter())
        .map(|f| format!("`{}`", f.as_ref()))
        .collect();
    quoted.join(", ")
}

/// Why `name` cannot name a bench (the run's experiment, which reports print as their
/// heading and baselines are kept under), if it cannot.
fn bench_name_fault(name: &str) -> Option<&'static str> {
    if name.trim().is_empty() {
        Some("a bench needs a name: the experiment its runs and baselines are stored under")
    } else if name.chars().any(char::is_control) || name.trim() != name {
        Some("a bench's name is one line, without control characters or spaces around it")
    } else {
        None
    }
}

/// Why `name` cannot be a registered implementation's name, if it cannot. Read as the
/// store reads it back ([`ImplName::parse`]), it must be `provider/algorithm`, or
/// `provider/algorithm@path` as the catalog's Keccak backends have it, each part within
/// the names' grammar: a `/` or `@` more would read as a C build's variant or target,
/// and whitespace would end the name in a case's id.
///
/// [`ImplName::parse`]: cryptobench_core::name::ImplName::parse
fn name_fault(name: &str) -> Option<String> {
    use cryptobench_core::name::{ImplName, bad_part};
    let read = ImplName::parse(name);
    let (Some(provider), None) = (read.provider(), read.variant()) else {
        return Some("a name is `provider/algorithm`, with no other `/`".to_string());
    };
    [
        ("provider", Some(provider)),
        ("algorithm", Some(read.algorithm())),
        ("part after `@`", read.target()),
    ]
    .into_iter()
    .find_map(|(part, text)| {
        text.and_then(bad_part)
            .map(|why| format!("its {part} {why}"))
    })
}

/// The store of a bench: `cryptobench.db` in cargo's target directory (criterion keeps
/// `target/criterion`), found from the bench binary's own path
/// (`target/<profile>/deps/NAME-HASH`, `target/<triple>/<profile>/deps/NAME-HASH` under
/// `--target`) unless `CARGO_TARGET_DIR` says.
fn default_store() -> Result<PathBuf> {
    // A relative CARGO_TARGET_DIR is relative to where cargo was run, which the bench
    // (run in the crate's directory) does not know: the binary's own path is then right.
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
    {
        return Ok(dir.join("cryptobench").join("cryptobench.db"));
    }
    let exe = std::env::current_exe().context("cannot find the bench binary")?;
    let target = target_dir_of(&exe)
        .context("the bench binary is not under a target directory: pass --db")?;
    Ok(target.join("cryptobench").join("cryptobench.db"))
}

/// The target directory a bench binary at `exe` was built into: the one that holds
/// cargo's `CACHEDIR.TAG`, whether `exe` is in `<profile>/deps` or, built with
/// `--target`, in `<triple>/<profile>/deps` (a store there would hide the history and
/// baselines of plain `cargo bench`); three levels up where no tag says.
fn target_dir_of(exe: &Path) -> Option<&Path> {
    let above_profile = exe.ancestors().nth(3)?;
    let tagged = |dir: &Path| dir.join("CACHEDIR.TAG").is_file();
    match above_profile.parent() {
        Some(outer) if !tagged(above_profile) && tagged(outer) => Some(outer),
        _ => Some(above_profile),
    }
}

/// The benched crate's directory: cargo runs a bench there and says so in
/// `CARGO_MANIFEST_DIR`; the current directory otherwise.
fn crate_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The bench target `program` was built from, by the name `cargo bench --bench` takes.
/// Cargo names a bench's binary after its target with `-` made `_` (`deps/my_bench-HASH`
/// for `my-bench`), so the target is the crate's one whose name reads so: among its
/// `[[bench]]` sections and, unless `autobenches = false`, what cargo finds in `benches/`.
/// `None` where none or several do, and for a program not named as cargo names benches.
fn bench_target(crate_dir: &Path, program: &str) -> Option<String> {
    let file = Path::new(program).file_name()?.to_str()?;
    let (built_as, hash) = file.rsplit_once('-')?;
    if hash.len() != 16 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let manifest: toml::Table = std::fs::read_to_string(crate_dir.join("Cargo.toml"))
        .ok()?
        .parse()
        .ok()?;
    let mut targets: Vec<String> = manifest
        .get("bench")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|bench| Some(bench.get("name")?.as_str()?.to_string()))
        .collect();
    let discovered = manifest
        .get("package")
        .and_then(|p| p.get("autobenches"))
        .and_then(toml::Value::as_bool)
        .unwrap_or(true);
    if discovered && let Ok(entries) = std::fs::read_dir(crate_dir.join("benches")) {
        for entry in entries.flatten() {
            let path = entry.path();
            let name = if path.extension().is_some_and(|e| e == "rs") {
                path.file_stem()
            } else if path.join("main.rs").is_file() {
                path.file_name()
            } else {
                None
            };
            targets.extend(name.and_then(|n| n.to_str()).map(String::from));
        }
    }
    targets.sort();
    targets.dedup();
    let mut matching = targets
        .into_iter()
        .filter(|target| target.replace('-', "_") == built_as);
    let target = matching.next()?;
    matching.next().is_none().then_some(target)
}

fn exit_code(code: ExitCode) -> u8 {
    // ExitCode hides its value; the session's statuses are the Exit codes or success.
    for exit in [
        Exit::CasesFailed,
        Exit::Error,
        Exit::Regression,
        Exit::Undecided,
        Exit::Interrupted,
    ] {
        if code == ExitCode::from(exit.code()) {
            return exit.code();
        }
    }
    0
}

/// Progress as plain notes on stderr.
struct Notes;

impl Progress for Notes {
    fn start(&self, _: u64) {}
    fn step(&self, _: &str) {}
    fn note(&self, line: &str) {
        eprintln!("{line}");
    }
}

/// What narrowed a bench's run to some of its cases (`cargo bench -- FILTER`,
/// `--sizes`), as its record says it; `None` for all of them at the bench's sizes.
fn narrowed_by(args: &BenchArgs) -> Option<String> {
    let mut asked = Vec::new();
    if !args.filters.is_empty() {
        asked.push(format!("filters {}", args.filters.join(" ")));
    }
    if let Some(sizes) = &args.sizes {
        let sizes: Vec<String> = sizes.iter().map(u64::to_string).collect();
        asked.push(format!("--sizes {}", sizes.join(",")));
    }
    (!asked.is_empty()).then(|| asked.join(", "))
}

/// What `cargo bench -- …` takes (the options of `cryptobench run` that fit a bench).
#[derive(Parser, Debug)]
#[command(
    name = "cargo bench --",
    bin_name = "cargo bench --",
    about = "Measure this crate's registered implementations as `cryptobench run` does: each checked for correct output first, measured in worker processes (this binary, re-executed), pinned, interleaved, stored, with intervals and verdicts. Under `cargo test --benches` (no --bench), only the correctness gates run."
)]
struct BenchArgs {
    /// Only implementations whose `provider/algorithm/operation` contains one of these.
    filters: Vec<String>,
    #[command(flatten)]
    libtest: Libtest,
    /// Message lengths, comma-separated: bytes or with a unit (1024,16KiB).
    #[arg(long, value_delimiter = ',', value_parser = parse_size)]
    sizes: Option<Vec<u64>>,
    /// Samples per case, spread over all processes and memory layouts.
    #[arg(long, default_value_t = 2048, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    samples: u64,
    /// Fresh worker processes per case.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
    processes: u64,
    /// Memory layouts per process.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=256))]
    layouts: u64,
    /// What to count; every figure names its counter.
    #[arg(long, value_enum, default_value_t = CounterChoice::Auto)]
    counter: CounterChoice,
    /// Seconds a worker may take before it is killed and its case marked failed.
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..=604_800))]
    timeout: u64,
    /// Compare every other implementation against this one (faster or slower).
    #[arg(long, value_name = "IMPLEMENTATION")]
    against: Option<String>,
    /// Keep this run as a named baseline (of this testbed).
    #[arg(long, value_name = "NAME")]
    save_baseline: Option<String>,
    /// With --save-baseline: save it even if it fails the baseline's quality check.
    #[arg(long, requires = "save_baseline")]
    force_baseline: bool,
    /// Compare every case with the same case in the named baseline.
    #[arg(long, value_name = "NAME")]
    baseline: Option<String>,
    /// With --baseline: compare even when the baseline was taken with another counter, CPU
    /// model, tool version, GLIBC_TUNABLES or OPENSSL_ia32cap (never another machine's).
    #[arg(long, requires = "baseline")]
    force: bool,
    /// Exit with status 3 when a case regressed against --baseline.
    #[arg(long, requires = "baseline")]
    fail_on_regression: bool,
    #[command(flatten)]
    verdict: VerdictArgs,
    /// How to print the results.
    #[arg(long, default_value = "table", value_parser = Doc::Run.parser())]
    format: Format,
    /// Also write the run as a self-contained HTML report to PATH.
    #[arg(long, value_name = "PATH")]
    html: Option<PathBuf>,
    /// The result store, an SQLite file (as the CLI's CRYPTOBENCH_DB, where that is set).
    /// Default: cryptobench/cryptobench.db in cargo's target directory.
    #[arg(long, env = "CRYPTOBENCH_DB")]
    db: Option<PathBuf>,
    /// The testbed the run belongs to (baselines are per testbed).
    #[arg(long, env = "CRYPTOBENCH_TESTBED")]
    testbed: Option<String>,
    /// Passed by `cargo bench`; without it (`cargo test --benches`) only the gates run.
    #[arg(long, hide = true)]
    bench: bool,
}

fn parse_size(s: &str) -> Result<u64, String> {
    cryptobench_core::size::check_message_len(cryptobench_core::size::parse_bytes(s)?)
}

/// libtest's options, which `cargo test` and CI jobs pass to every test target
/// (`cargo test --all-targets -- --nocapture`): taken, so that adding this harness breaks
/// no such job. Those about output and threads change nothing here.
#[derive(clap::Args, Debug)]
struct Libtest {
    /// List the implementations a run would check or measure, and exit.
    #[arg(long)]
    list: bool,
    /// Filters name whole implementations (or `implementation/operation`), not parts.
    #[arg(long)]
    exact: bool,
    /// Run only ignored tests: this harness ignores none, so nothing runs.
    #[arg(long, hide = true)]
    ignored: bool,
    #[arg(long, hide = true)]
    include_ignored: bool,
    /// Leave out implementations (or `implementation/operation`) whose name contains
    /// this (with --exact: is this); may be given more than once.
    #[arg(long, value_name = "FILTER")]
    skip: Vec<String>,
    #[arg(long, hide = true, alias = "no-capture")]
    nocapture: bool,
    #[arg(long, hide = true)]
    show_output: bool,
    #[arg(short, long, hide = true)]
    quiet: bool,
    #[arg(long, hide = true, value_name = "N")]
    test_threads: Option<String>,
    #[arg(long, hide = true, value_name = "WHEN")]
    color: Option<String>,
    #[arg(short = 'Z', hide = true, value_name = "FLAG")]
    unstable: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_harness_options_are_consistent() {
        use clap::CommandFactory;
        BenchArgs::command().debug_assert();
        let args = BenchArgs::try_parse_from(["bench", "--bench", "--noise-threshold", "2%"])
            .expect("the options cargo bench passes, and a verdict option");
        assert_eq!(args.verdict.noise_threshold, Some(2.0));
        // What `cargo test --all-targets -- …` passes along.
        let libtest = [
            "bench",
            "--nocapture",
            "--test-threads=1",
            "--show-output",
            "-q",
            "--color",
            "never",
            "--exact",
            "sha3/",
        ];
        let args = BenchArgs::try_parse_from(libtest).expect("libtest's options");
        assert!(args.libtest.exact && !args.bench);
        assert_eq!(args.filters, ["sha3/"]);
        // Both of libtest's spellings, its --skip, and its --format under `cargo test`.
        let args: Vec<String> = [
            "bench",
            "--no-capture",
            "--skip",
            "toy",
            "--format",
            "terse",
            "--format=junit",
            "--skip=x",
        ]
        .map(String::from)
        .to_vec();
        let args =
            BenchArgs::try_parse_from(without_libtest_format(args)).expect("libtest's options");
        assert!(args.libtest.nocapture);
        assert_eq!(args.libtest.skip, ["toy", "x"]);
        assert!(args.filters.is_empty());
        // Under `cargo bench`, --format is the report's.
        let bench: Vec<String> = ["bench", "--format", "terse", "--bench"]
            .map(String::from)
            .to_vec();
        assert!(BenchArgs::try_parse_from(without_libtest_format(bench)).is_err());
    }

    /// A XOR with nothing, registered under two names: enough to plan with.
    struct Nothing;

    impl catalog::kinds::stream::StreamCipher for Nothing {
        const ALGORITHM: &'static catalog::kinds::stream::StreamAlgorithm =
            &catalog::kinds::stream::CHACHA20;
        fn new(_: &[u8], _: &[u8]) -> Self {
            Nothing
        }
        fn apply_keystream(&mut self, _: &mut [u8]) {}
    }

    /// As libtest: filters meant for another target of the crate run nothing here, and
    /// that is no error; a filter beside them that matches still runs; --skip leaves out.
    #[test]
    fn filters_for_another_target_plan_nothing() {
        use catalog::kinds::stream::Stream;
        let bench = Bench::new("b")
            .register(Stream::<Nothing>::new("one"))
            .register(Stream::<Nothing>::new("two"));
        let plan = |args: &[&str]| {
            let args = BenchArgs::try_parse_from([&["bench"], args].concat()).unwrap();
            let plan = bench.plan(&args).unwrap();
            plan.map(|p| {
                let mut names: Vec<String> =
                    p.cases.into_iter().map(|c| c.implementation).collect();
                names.dedup();
                names
            })
        };
        assert_eq!(plan(&["a_unit_test"]), None);
        assert_eq!(plan(&["a_unit_test", "two/"]).unwrap(), ["two/chacha20"]);
        assert_eq!(plan(&["--skip", "one/"]).unwrap(), ["two/chacha20"]);
        assert_eq!(plan(&["--skip", "chacha20"]), None);
        assert_eq!(
            plan(&["--exact", "--skip", "one/chacha20"]).unwrap(),
            ["two/chacha20"]
        );
    }

    /// The store stays where plain `cargo bench` keeps it when `--target` adds the
    /// triple's directory between the target directory and the profile's.
    #[test]
    fn the_target_directory_is_found_under_a_target_triple_too() {
        let dir = tempfile_dir("target-dir");
        let target = dir.join("target");
        let bin = |path: &str| target.join(path).join("deps/hashes-0123456789abcdef");
        std::fs::create_dir_all(bin("x86_64-unknown-linux-gnu/release").parent().unwrap()).unwrap();
        std::fs::create_dir_all(bin("release").parent().unwrap()).unwrap();
        // No tag (a target directory cargo did not make): three levels up, as before.
        let untagged = target_dir_of(&bin("release")).map(Path::to_path_buf);
        std::fs::write(
            target.join("CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55\n",
        )
        .unwrap();
        let plain = target_dir_of(&bin("release")).map(Path::to_path_buf);
        let triple = target_dir_of(&bin("x86_64-unknown-linux-gnu/release")).map(Path::to_path_buf);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(untagged.as_deref(), Some(target.as_path()));
        assert_eq!(plain.as_deref(), Some(target.as_path()));
        assert_eq!(triple.as_deref(), Some(target.as_path()));
    }

    fn tempfile_dir(what: &str) -> PathBuf {
        std::env::temp_dir().join(format!("cryptobench-bench-{what}-{}", std::process::id()))
    }

    /// The target's name is found where cargo's binary name lost its `-`: from a
    /// `[[bench]]` section or a file under `benches/`, and only where one target reads so.
    #[test]
    fn the_bench_target_is_named_as_cargo_takes_it() {
        let dir =
            std::env::temp_dir().join(format!("cryptobench-bench-target-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("benches/multi-file")).unwrap();
        std::fs::write(dir.join("benches/multi-file/main.rs"), "").unwrap();
        std::fs::write(dir.join("benches/from-file.rs"), "").unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"x\"\n\n[[bench]]\nname = \"my-bench\"\nharness = false\n",
        )
        .unwrap();
        let target = |program: &str| bench_target(&dir, program);
        let hash = "0123456789abcdef";
        assert_eq!(
            target(&format!("/t/release/deps/my_bench-{hash}")).as_deref(),
            Some("my-bench")
        );
        assert_eq!(
            target(&format!("deps/from_file-{hash}")).as_deref(),
            Some("from-file")
        );
        assert_eq!(
            target(&format!("deps/multi_file-{hash}")).as_deref(),
            Some("multi-file")
        );
        assert_eq!(target(&format!("deps/other-{hash}")), None);
        assert_eq!(
            target("deps/my_bench"),
            None,
            "not a name cargo gives a bench"
        );
        // Two targets that cargo would both build as `from_file`: neither is said.
        std::fs::write(dir.join("benches/from_file.rs"), "").unwrap();
        assert_eq!(target(&format!("deps/from_file-{hash}")), None);
        // autobenches = false: the files under benches/ are not targets.
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"x\"\nautobenches = false\n",
        )
        .unwrap();
        let found = target(&format!("deps/multi_file-{hash}"));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(found, None);
    }
}

#[cfg(test)]
mod name_tests {
    use super::{bench_name_fault, name_fault};

    #[test]
    fn a_bench_name_is_one_line_of_text() {
        for good in ["chacha20", "my-second", "hashes v2"] {
            assert_eq!(bench_name_fault(good), None, "{good}");
        }
        for bad in ["", " ", "x\ny", "tab\t", " lead"] {
            assert!(bench_name_fault(bad).is_some(), "{bad:?} taken");
        }
    }

    #[test]
    fn a_registered_name_reads_back_as_one_implementation() {
        for good in [
            "mycrate/toy-xor",
            "rustcrypto/chacha20-rng",
            "cryptobench/keccak-f1600-x1@asm",
        ] {
            assert_eq!(name_fault(good), None, "{good}");
        }
        for (bad, why) in [
            ("my crate/toy-xor", "its provider must be non-empty without"),
            ("mycrate", "a name is `provider/algorithm`"),
            ("a/b/c", "a name is `provider/algorithm`, with no other `/`"),
            ("my@crate/x", "its provider must be non-empty without"),
            ("mycrate/x@", "its part after `@` must be non-empty"),
        ] {
            let said = name_fault(bad).unwrap_or_else(|| panic!("{bad} taken"));
            assert!(said.starts_with(why), "{bad}: {said}");
        }
    }
}
