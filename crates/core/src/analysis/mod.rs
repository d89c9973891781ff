//! From a stored run to figures: per-case statistics, ratios and comparisons.
//!
//! Everything here is computed from the store alone (raw samples grouped in clusters),
//! deterministically, so `run` and `report` print the same thing.

use anyhow::{Result, bail};

use crate::counter::CounterKind;
use crate::name::ImplName;
use crate::record::{
    AnalysisOptions, CaseStatus, Params, RunCounter, RunHeader, RunOrigin, VerdictOptions,
};
use crate::stats::{self, BoxPlot, Interval, Outliers, Summary, Verdict};
use crate::store::{StoredCase, StoredRun};

mod case;
mod compare;
mod derived;
mod host;
mod runs;

pub mod bulk;
pub mod fleet;
pub use case::*;
pub use compare::*;
pub use derived::*;
pub use host::*;
pub use runs::*;

/// The confidence level of every interval the analysis gives.
pub const LEVEL: f64 = stats::LEVEL;
/// Outliers kept per side for a box plot: enough to show where they lie without
/// carrying every sample of a heavy tail into the report.
pub const MARKED_OUTLIERS: usize = 12;

/// A stored run's figures, as every report prints them: each case's statistics and what
/// the run's options asked to derive and compare. Runs that asked nothing (imported, bulk)
/// have the cases' statistics alone.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Analysis {
    /// The run analysed, as stored.
    pub header: RunHeader,
    /// What counted the samples (the header's counter).
    pub counter: RunCounter,
    /// The header's unit in words, e.g. `core cycles`.
    pub unit: String,
    /// The counter's unit as tables print it: `cycles`, `ns` or `instructions`.
    pub short_unit: String,
    /// Every case's statistics, in the run's order, from the processes the host left steady.
    pub cases: Vec<CaseStats>,
    /// Each member against its reference at the same parameters (the options' ratios).
    pub ratios: Vec<Ratio>,
    /// Cost per byte between the two lengths the options name; empty without them.
    pub slopes: Vec<Slope>,
    /// What each N-lane case gains over single-lane calls, where the options ask for it.
    pub lanes: Vec<LaneSpeedup>,
    /// The comparisons within the run that could be made: the options' pairs of
    /// implementations ([`Relation::Rivals`]) and of C builds ([`Relation::Variant`]).
    pub comparisons: Vec<Comparison>,
    /// The comparisons within the run that were asked for and could not be made, and why.
    pub not_compared: Vec<NotCompared>,
    /// Every case against the same case of the baseline run (`--baseline`), where one
    /// was given.
    pub against_baseline: Option<RunComparison>,
    /// Why the baseline the run names is not compared with, where it is not: not in the
    /// store read (the run was pushed without it), or another machine's run. Set by the
    /// caller that looked for it in a store (`session::analyse_stored`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_left_out: Option<String>,
    /// What the run's comparisons were judged by (the defaults where a run has none).
    pub verdict_options: VerdictOptions,
    /// llvm-mca estimates of C builds, by implementation (with `--estimate`).
    pub estimates: std::collections::BTreeMap<String, crate::record::Estimate>,
    /// What the canary said of the host, for runs that read it.
    pub host: Option<HostCheck>,
}

/// What a regression gate found: the regressions it can stand behind, and why it could
/// not decide on the rest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Gate {
    /// One line per regression, and per comparison not made for a reason that could
    /// hide one (a broken candidate, too few processes); the gate fails on any.
    pub regressions: Vec<String>,
    /// One line per comparison the host's state left undecided, or the one note that the
    /// baseline was measured in another state of the host.
    pub undecided: Vec<String>,
}

impl Analysis {
    /// The regression gate: every comparison of an implementation against its own
    /// baseline ([`Relation::Variant`]) that regressed beyond the noise threshold, and
    /// every such one that could not be made for a reason that could hide a regression.
    /// Against a stored baseline only the comparisons with it count. Comparisons of two
    /// implementations (ChaCha20's RNG against rand_chacha's, `--against`) never do: there
    /// "slower" is a finding, not a regression.
    ///
    /// It cannot decide where the host was not steady: against a baseline measured in
    /// another state of the host (by the canaries), nothing is decided; within a run, a
    /// comparison of a case whose processes mixed the host's states is not.
    pub fn gate(&self) -> Gate {
        let (comparisons, not_compared) = match &self.against_baseline {
            Some(r) => (&r.comparisons, &r.not_compared),
            None => (&self.comparisons, &self.not_compared),
        };
        if let Some(shift) = self
            .against_baseline
            .as_ref()
            .and_then(|r| r.host.as_ref())
            .filter(|h| h.differs)
        {
            return Gate {
                regressions: Vec::new(),
                undecided: vec![shift.note.clone()],
            };
        }
        let gated = |relation: Relation| relation == Relation::Variant;
        let mut gate = Gate::default();
        for c in comparisons.iter().filter(|c| gated(c.relation)) {
            if let Some(why) = c.undecided {
                gate.undecided.push(format!(
                    "{} vs {}: {}",
                    with_params(&c.candidate, &c.params),
                    c.baseline,
                    why.reason()
                ));
            } else if c.verdict == Verdict::Regressed {
                gate.regressions.push(format!(
                    "{} vs {}: {:+.2} % [{:+.2}, {:+.2}], p {}",
                    with_params(&c.candidate, &c.params),
                    c.baseline,
                    c.change_pct.estimate,
                    c.change_pct.lo,
                    c.change_pct.hi,
                    match stats::fmt_p(c.p_value) {
                        p if p.starts_with('<') => p,
                        p => format!("= {p}"),
                    }
                ));
            }
        }
        gate.regressions.extend(
            not_compared
                .iter()
                .filter(|n| gated(n.relation) && n.blocks_gate)
                .map(|n| {
                    format!(
                        "{} vs {}: not compared: {}",
                        with_params(&n.candidate, &n.params),
                        n.baseline,
                        n.why
                    )
                }),
        );
        gate
    }
}

fn median_of(xs: &[f64]) -> f64 {
    stats::median(xs).unwrap_or(f64::NAN)
}

/// What a run's analysis needs besides the run, read from the store by the caller: the
/// analysis itself does no I/O.
#[derive(Default)]
pub struct Context {
    /// The run its options name as baseline (`--baseline`), to compare every case with.
    pub baseline: Option<StoredRun>,
    /// llvm-mca estimates of its C builds, by implementation.
    pub estimates: std::collections::BTreeMap<String, crate::record::Estimate>,
}

/// How a run asked to be analysed; `None` for runs that asked nothing (imported ones).
/// Options no `run` could have stored (an edited store, or one a faulty version wrote)
/// are refused, naming the run: the figures derived from them would be wrong.
pub fn options_of(header: &RunHeader) -> Result<Option<AnalysisOptions>> {
    let options = stored_options_of(header)?;
    if let Some((short, long)) = options.as_ref().and_then(|o| o.spec.slope)
        && let Some(why) = crate::record::slope_fault(short, long)
    {
        anyhow::bail!(
            "run {}'s stored options ask for the slope from {short} to {long} bytes, which no run can ask ({why}): was its store edited, or written by a faulty version of cryptobench?",
            header.id
        );
    }
    Ok(options)
}

fn stored_options_of(header: &RunHeader) -> Result<Option<AnalysisOptions>> {
    match &header.options {
        RunOrigin::Measured { analysis, .. } => Ok(Some(analysis.clone())),
        RunOrigin::Bulk { .. } | RunOrigin::Imported(_) => Ok(None),
        // Another version's options: the analysis needs only its own part of them.
        RunOrigin::Unreadable(stored) if stored["analysis"].is_null() => Ok(None),
        RunOrigin::Unreadable(stored) => serde_json::from_value(stored["analysis"].clone())
            .map(Some)
            .map_err(|e| {
                anyhow::anyhow!(
                    "run {}'s analysis options cannot be read ({e}): was it stored by another version of cryptobench?",
                    header.id
                )
            }),
    }
}

/// Analyse a stored run: every case's statistics from the processes the host left steady,
/// and the ratios, slopes, lane speed-ups and comparisons its options ask for. Errs where
/// its options cannot be read, or its baseline cannot be compared with it.
pub fn analyse(run: &StoredRun, context: &Context) -> Result<Analysis> {
    let header = &run.header;
    let options = options_of(header)?;
    // Every figure below comes from the processes the host left steady.
    let (steady, host) = steady_view(run);
    let asked = match &header.options {
        RunOrigin::Measured { run, .. } if !run.remeasure.is_off() => Some(run.processes),
        _ => None,
    };
    let added = |key: &str| {
        let measured = run
            .cases
            .iter()
            .find(|c| c.key == key)
            .map_or(0, |c| c.per_process.len());
        asked.map_or(0, |asked| measured.saturating_sub(asked))
    };
    // Against a baseline, `compare_runs` takes the steady views of both stored runs
    // itself: given this view, it would judge the canary a second time, on fewer
    // processes, and set aside more.
    let stored = run;
    let run = &steady;
    let cases = run
        .cases
        .iter()
        .map(|c| CaseStats {
            set_aside: host
                .as_ref()
                .and_then(|h| h.set_aside.get(&c.key).copied())
                .unwrap_or(0),
            unsteady: host.as_ref().is_some_and(|h| h.unsteady.contains(&c.key)),
            processes_added: added(&c.key),
            key: c.key.clone(),
            implementation: c.implementation.clone(),
            operation: c.operation.clone(),
            params: c.params.clone(),
            bytes: c.bytes,
            lanes: c.lanes,
            status: c.status,
            message: c.message.clone(),
            measured: measure_case(c, header),
        })
        .collect();

    let mut ratios = Vec::new();
    let mut slopes = Vec::new();
    let mut lanes = Vec::new();
    let mut comparisons = Vec::new();
    let mut not_compared = Vec::new();
    let mut against_baseline = None;
    if let Some(opts) = &options {
        for (reference, member) in &opts.spec.ratios {
            for m in run
                .cases
                .iter()
                .filter(|c| &c.implementation == member && c.status == CaseStatus::Ok)
            {
                // The reference's case at the member's parameters, of the member's own
                // operation where it has that one too (encrypt over encrypt).
                let Some(r) = run
                    .cases
                    .iter()
                    .filter(|r| &r.implementation == reference && r.params == m.params)
                    .min_by_key(|r| r.operation != m.operation)
                    .filter(|r| r.status == CaseStatus::Ok)
                else {
                    continue;
                };
                // The same estimator as every comparison: Hodges-Lehmann of the ratio of
                // the process medians, with Moses' interval.
                if let Some(ratio) =
                    stats::hodges_lehmann_ratio(&cluster_medians(r), &cluster_medians(m), LEVEL)
                {
                    ratios.push(Ratio {
                        reference: reference.clone(),
                        member: member.clone(),
                        operation: m.operation.clone(),
                        reference_operation: r.operation.clone(),
                        speed_limit: derived::is_speed_limit(&header.experiment, reference, member),
                        params: m.params.clone(),
                        ratio,
                    });
                }
            }
        }
        for (baseline, candidate) in &opts.spec.comparisons {
            let mut like_found = false;
            for cand in run.cases.iter().filter(|c| &c.implementation == candidate) {
                // Like with like: the same operation at the same parameters.
                if let Some(base) = run.cases.iter().find(|c| {
                    &c.implementation == baseline
                        && c.operation == cand.operation
                        && c.params == cand.params
                }) {
                    like_found = true;
                    match compare_cases(base, cand, &opts.verdict, Relation::Rivals) {
                        Ok(cmp) => comparisons.push(cmp),
                        Err(n) => not_compared.push(n),
                    }
                }
            }
            if !like_found {
                not_compared.extend(unlike(run, baseline, candidate));
            }
        }
        if opts.spec.lane_speedups {
            lanes = lane_speedups(run);
        }
        if let Some((short, long)) = opts.spec.slope {
            slopes = slopes_of(run, short, long);
        }
        let counterparts = (opts.spec.algorithm_comparisons.iter())
            .map(|pair| (Counterpart::Algorithm, pair))
            .chain((opts.spec.variant_comparisons.iter()).map(|pair| (Counterpart::Variant, pair)));
        for (part, (baseline, candidate)) in counterparts {
            for compared in counterpart_comparisons(run, part, baseline, candidate, &opts.verdict) {
                match compared {
                    Ok(cmp) => comparisons.push(cmp),
                    Err(n) => not_compared.push(n),
                }
            }
        }
        if let Some(base) = &context.baseline {
            against_baseline = Some(compare_runs(base, stored, &opts.verdict, opts.force)?);
        }
    }
    mark_unsteady(&mut comparisons, run, host.as_ref());
    Ok(Analysis {
        header: header.clone(),
        counter: header.counter,
        unit: header.unit.clone(),
        short_unit: header.counter.short_unit().to_string(),
        cases,
        ratios,
        slopes,
        lanes,
        comparisons,
        not_compared,
        against_baseline,
        baseline_left_out: None,
        verdict_options: options.map(|o| o.verdict).unwrap_or_default(),
        estimates: estimates_of_their_calls(header, &context.estimates),
        host,
    })
}

/// The run's estimates, each with the function it read and the operation whose call that
/// is, as the run's record of its C builds says; as stored where it says nothing (runs
/// stored before it was recorded), so that no operation is claimed for them.
fn estimates_of_their_calls(
    header: &RunHeader,
    stored: &std::collections::BTreeMap<String, crate::record::Estimate>,
) -> std::collections::BTreeMap<String, crate::record::Estimate> {
    let builds: &[crate::record::CBuild] = match &header.options {
        RunOrigin::Measured { run, .. } => &run.c_builds,
        _ => &[],
    };
    let mut estimates = stored.clone();
    for (name, e) in &mut estimates {
        if let Some(b) = builds.iter().find(|b| b.implementation == *name) {
            e.function = Some(b.estimated_function.clone());
            e.operation = Some(b.estimated_operation.clone());
        }
    }
    estimates
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::Machine;
    use crate::record::{MachineRecord, Param, Test};

    fn case(implementation: &str, per_process: &[f64], core_clocks: &[f64]) -> StoredCase {
        StoredCase {
            row: 0,
            key: format!("{implementation}/xof"),
            implementation: implementation.into(),
            operation: "xof".into(),
            params: Params::new(),
            bytes: Some(1000),
            lanes: 1,
            status: CaseStatus::Ok,
            message: None,
            calls_per_sample: Some(1),
            overhead: Some(0.0),
            per_process: per_process
                .iter()
                .map(|&m| vec![m - 1.0, m, m + 1.0])
                .collect(),
            core_clocks: core_clocks.to_vec(),
            canary: Vec::new(),
        }
    }

    #[test]
    fn a_pair_with_nothing_alike_is_said_not_compared_and_why() {
        let at = |name: &str, operation: &str, len: u64| StoredCase {
            operation: operation.into(),
            params: Params::new().with(Param::Len, len),
            ..case(name, &[100.0], &[])
        };
        let run = |cases: Vec<StoredCase>| StoredRun {
            header: header(None),
            cases,
        };
        let other_op = run(vec![
            at("base", "xor", 64),
            at("hash", "hash", 64),
            at("hash", "hash", 1024),
        ]);
        let n = unlike(&other_op, "base", "hash").unwrap();
        assert_eq!(n.why, "another operation (hash, not xor)");
        assert_eq!(n.operation, "hash");
        assert!(!n.blocks_gate);
        // Operations in common, parameters not: said as such, not as another operation.
        let other_len = run(vec![
            at("base", "encrypt", 64),
            at("aead", "decrypt", 1024),
            at("aead", "encrypt", 1024),
        ]);
        let n = unlike(&other_len, "base", "aead").unwrap();
        assert_eq!(
            n.why,
            "no case at the same parameters (decrypt len=1024, encrypt len=1024, not encrypt len=64)"
        );
        // A side with no case at all (filtered out, never planned) says nothing.
        assert!(unlike(&other_len, "base", "absent").is_none());
    }

    /// Identical code measured in 4 + 4 worker processes whose medians spread by 2 %
    /// (neighbours, clock, layout), as the A/A test of `--fail-on-regression` runs it:
    /// Welch's test finds a "significant" difference now and then, and the 5 % noise
    /// threshold is what keeps every one of them from being called a regression.
    #[test]
    fn identical_code_is_never_called_regressed_at_a_five_percent_threshold() {
        let mut rng = crate::stats::test_rng::TestRng::new(23);
        let mut process_medians = || -> Vec<f64> {
            (0..4)
                .map(|_| 1000.0 * (0.02 * rng.normal()).exp())
                .collect()
        };
        let pairs: Vec<(StoredCase, StoredCase)> = (0..200)
            .map(|_| {
                (
                    case("a", &process_medians(), &[]),
                    case("b", &process_medians(), &[]),
                )
            })
            .collect();
        let verdicts = |noise_threshold_pct: f64| -> Vec<Verdict> {
            let opts = VerdictOptions {
                noise_threshold_pct,
                test: Test::Welch,
                ..VerdictOptions::DEFAULT
            };
            pairs
                .iter()
                .map(|(a, b)| {
                    compare_cases(a, b, &opts, Relation::Variant)
                        .unwrap()
                        .verdict
                })
                .collect()
        };
        let regressed = |v: &[Verdict]| v.iter().filter(|v| **v == Verdict::Regressed).count();
        assert_eq!(regressed(&verdicts(5.0)), 0);
        // Without the threshold, chance alone calls some of the same pairs regressed: the
        // samples are noisy enough for the threshold to matter.
        assert!(regressed(&verdicts(0.0)) > 0);
    }

    #[test]
    fn only_a_broken_candidate_or_too_few_processes_stop_the_gate() {
        let fine = |name: &str| case(name, &[100.0, 101.0, 99.0, 100.0, 102.0], &[]);
        let broken = |name: &str, status| StoredCase {
            status,
            message: Some("crashed (killed by signal 11 (SIGSEGV))".into()),
            per_process: Vec::new(),
            ..fine(name)
        };
        let gate = |base: &StoredCase, cand: &StoredCase| {
            compare_cases(base, cand, &OPTS, Relation::Variant)
                .map(|_| ())
                .map_err(|n| (n.blocks_gate, n.why))
        };
        assert!(gate(&fine("a"), &fine("b")).is_ok());
        let (blocks, why) = gate(&fine("a"), &broken("b", CaseStatus::Failed)).unwrap_err();
        assert!(blocks && why.starts_with("the candidate crashed"), "{why}");
        let (blocks, why) = gate(&fine("a"), &broken("b", CaseStatus::Wrong)).unwrap_err();
        assert!(
            blocks && why.starts_with("the candidate gave wrong output"),
            "{why}"
        );
        // A baseline that was broken leaves nothing to regress from: a fix must pass.
        let (blocks, why) = gate(&broken("a", CaseStatus::Failed), &fine("b")).unwrap_err();
        assert!(!blocks && why.starts_with("the baseline crashed"), "{why}");
        let (blocks, _) = gate(&fine("a"), &broken("b", CaseStatus::Unsupported)).unwrap_err();
        assert!(!blocks, "a CPU that cannot run the candidate hides nothing");
        let three = case("b", &[100.0, 101.0, 99.0], &[]);
        let (blocks, why) = gate(&case("a", &[1.0, 2.0, 3.0], &[]), &three).unwrap_err();
        assert!(
            blocks && why.contains("3 and 3 independent measurements"),
            "{why}"
        );
        assert!(why.contains("4 a side is the fewest at 95 %"), "{why}");
        // At another level, that level's figures.
        let strict = VerdictOptions {
            significance: 0.001,
            ..OPTS
        };
        let why = compare_cases(&fine("a"), &fine("b"), &strict, Relation::Variant)
            .map(|_| ())
            .unwrap_err()
            .why;
        assert!(
            why.contains(
                "too few for a 99.9 % interval of the change: 7 a side is the fewest at 99.9 %"
            ) && !why.contains("3 and 5"),
            "{why}"
        );
    }

    #[test]
    fn a_level_and_a_p_floor_are_said_as_asked() {
        assert_eq!(fmt_level(0.95), "95");
        assert_eq!(fmt_level(1.0 - 0.000001), "99.9999");
        assert_eq!(stats::fmt_p_exact(1.08e-5), "1.1e-5");
        assert_eq!(stats::fmt_p_exact(0.0123), stats::fmt_p(0.0123));
    }

    /// A tsc-core run at a 2 GHz TSC.
    pub(super) fn header(core_clock_hz: Option<f64>) -> RunHeader {
        RunHeader {
            id: 1,
            started_at: String::new(),
            finished_at: None,
            status: crate::record::RunStatus::Complete,
            experiment: "t".into(),
            tool_version: "0".into(),
            git_revision: None,
            counter: RunCounter::Measured(CounterKind::TscCore),
            unit: "core cycles".into(),
            tsc_hz: Some(2.0e9),
            cpu_model: "t".into(),
            machine: MachineRecord::Measured(Box::new(Machine::example(core_clock_hz))),
            // Not read by these tests.
            options: RunOrigin::Unreadable(serde_json::Value::Null),
            place: Default::default(),
        }
    }

    #[test]
    fn runs_measured_in_another_environment_are_not_comparable() {
        let a = header(None);
        let mut b = header(None);
        assert!(differences(&a, &b).is_empty());
        if let MachineRecord::Measured(m) = &mut b.machine {
            m.glibc_tunables = Some("glibc.cpu.hwcaps=-AVX512F".into());
        }
        assert_eq!(
            differences(&a, &b),
            [(
                "GLIBC_TUNABLES",
                "unset".to_string(),
                "glibc.cpu.hwcaps=-AVX512F".to_string()
            )]
        );
        let both = StoredRun {
            header: b.clone(),
            cases: Vec::new(),
        };
        let one = StoredRun {
            header: a,
            cases: Vec::new(),
        };
        let refused = compare_runs(&one, &both, &OPTS, false).unwrap_err();
        assert!(
            refused.to_string().contains(
                "GLIBC_TUNABLES differs: run 1 `unset`, run 1 `glibc.cpu.hwcaps=-AVX512F`"
            ),
            "{refused}"
        );
        assert!(compare_runs(&one, &both, &OPTS, true).is_ok());
    }

    const OPTS: VerdictOptions = VerdictOptions {
        significance: 0.05,
        noise_threshold_pct: 1.0,
        test: Test::MannWhitney,
    };

    #[test]
    fn process_spread_is_the_interquartile_range_of_process_medians() {
        // Two modes 10 % apart, five processes each: q25 = 100, q75 = 110.
        let modes = [
            100.0, 110.0, 100.0, 110.0, 100.0, 110.0, 100.0, 110.0, 100.0, 110.0,
        ];
        let spread = process_spread_pct(&modes).unwrap();
        assert!((spread - 10.0).abs() < 1e-9, "{spread}");
        // A lone wild process does not count; three of ten in a slow mode do, in part
        // (q75 sits at 6.75 of 0..=9: three quarters of the way into the slow mode).
        let one_off = [
            100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 200.0,
        ];
        assert_eq!(process_spread_pct(&one_off), Some(0.0));
        let three = [
            100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 108.0, 108.0, 108.0,
        ];
        let spread = process_spread_pct(&three).unwrap();
        assert!((spread - 6.0).abs() < 1e-9, "{spread}");
        assert_eq!(process_spread_pct(&[100.0, 200.0, 300.0]), None);
        let m = measure_case(&case("ours", &modes, &[]), &header(None)).unwrap();
        assert!((m.process_spread_pct.unwrap() - 10.0).abs() < 1e-9);
    }

    #[test]
    fn fewer_cycles_at_a_slower_clock_can_be_the_same_time() {
        // 5 % fewer cycles at a 5 % slower clock: (95 / 0.95) / (100 / 1) = 1, no change in time.
        let base = case(
            "ours",
            &[100.0, 100.0, 100.0, 100.0],
            &[1.40, 1.41, 1.39, 1.40],
        );
        let cand = case(
            "theirs",
            &[95.0, 95.0, 95.0, 95.0],
            &[1.33, 1.34, 1.32, 1.33],
        );
        let c = compare_cases(&base, &cand, &OPTS, Relation::Variant).unwrap();
        assert!(
            (c.change_pct.estimate - -5.0).abs() < 1e-9,
            "{:?}",
            c.change_pct
        );
        let clock = c.clock_change_pct.unwrap();
        assert!((clock - -5.0).abs() < 1e-9, "{clock}");
        let time = c.time_change_pct.unwrap();
        assert!(time.abs() < 1e-9, "{time}");
    }

    #[test]
    fn fewer_processes_than_an_interval_needs_give_the_figure_and_no_interval() {
        let h = header(None);
        let five =
            case::measure_case(&case("x", &[100.0, 101.0, 99.0, 102.0, 98.0], &[]), &h).unwrap();
        assert!(!five.has_interval());
        assert_eq!(five.median.estimate, 100.0);
        assert_eq!((five.median.lo, five.median.hi), (100.0, 100.0));
        let six = case::measure_case(
            &case("x", &[100.0, 101.0, 99.0, 102.0, 98.0, 100.5], &[]),
            &h,
        )
        .unwrap();
        assert!(six.has_interval());
        assert!(six.median.lo < six.median.estimate && six.median.estimate < six.median.hi);
        // One process measured here: its samples share its offset, so no interval either.
        let one = case::measure_case(&case("x", &[100.0], &[]), &h).unwrap();
        assert!(!one.has_interval());
    }

    #[test]
    fn a_lane_speedup_in_time_is_the_cycles_speedup_times_the_clock_ratio() {
        let single = case("cryptobench/shake256-x1-scalar", &[4000.0; 6], &[1.40; 6]);
        // Four lanes in 2000 cycles (2x) at a clock 10 % lower: 1.8x in time.
        let lanes = StoredCase {
            lanes: 4,
            ..case("cryptobench/shake256-x4-avx2", &[8000.0; 6], &[1.26; 6])
        };
        let run = StoredRun {
            header: header(None),
            cases: vec![single, lanes],
        };
        let [l] = &lane_speedups(&run)[..] else {
            panic!("one N-lane case")
        };
        assert!((l.speedup.estimate - 2.0).abs() < 1e-9, "{:?}", l.speedup);
        assert!((l.clock_change_pct.unwrap() - -10.0).abs() < 1e-9);
        assert!((l.speedup_in_time.unwrap() - 1.8).abs() < 1e-9);
    }

    /// The default under its alias and the backend it names are one code: the reference is
    /// the backend's reading, not the lower of the two.
    #[test]
    fn a_default_s_alias_is_not_a_second_chance_at_the_fastest_single_lane() {
        let alias = case("cryptobench/shake256-x1@asm", &[3900.0; 6], &[]);
        let backend = case("cryptobench/shake256-x1-asm", &[4000.0; 6], &[]);
        let scalar = case("cryptobench/shake256-x1-scalar", &[4100.0; 6], &[]);
        let lanes = StoredCase {
            lanes: 4,
            ..case("cryptobench/shake256-x4-avx2", &[8000.0; 6], &[])
        };
        let run = StoredRun {
            header: header(None),
            cases: vec![alias, backend, scalar, lanes],
        };
        let [l] = &lane_speedups(&run)[..] else {
            panic!("one N-lane case")
        };
        assert_eq!(l.single, "cryptobench/shake256-x1-asm");
        assert!((l.speedup.estimate - 2.0).abs() < 1e-9, "{:?}", l.speedup);
        // Without its backend in the run, the alias is the single lane it names.
        let run = StoredRun {
            cases: vec![
                run.cases[0].clone(),
                run.cases[2].clone(),
                run.cases[3].clone(),
            ],
            ..run
        };
        assert_eq!(lane_speedups(&run)[0].single, "cryptobench/shake256-x1@asm");
    }

    #[test]
    fn no_clock_without_a_clock_on_both_sides() {
        let base = case("ours", &[100.0, 100.0, 100.0, 100.0], &[]);
        let cand = case("theirs", &[90.0, 90.0, 90.0, 90.0], &[1.3, 1.3, 1.3, 1.3]);
        let c = compare_cases(&base, &cand, &OPTS, Relation::Variant).unwrap();
        assert_eq!((c.clock_change_pct, c.time_change_pct), (None, None));
    }

    #[test]
    fn throughput_uses_the_clock_beside_the_samples() {
        let mut header = header(Some(4.0e9));
        // 1000 bytes in 1000 cycles at 1.5 x 2 GHz = 3 GB/s, not the 4 GHz of the start.
        let with_clock = measure_case(&case("a", &[1000.0, 1000.0], &[1.5, 1.5]), &header).unwrap();
        assert_eq!(with_clock.core_clock_hz, Some(3.0e9));
        assert!((with_clock.throughput_bytes_per_s.unwrap() - 3.0e9).abs() < 1.0);
        let without = measure_case(&case("a", &[1000.0, 1000.0], &[]), &header).unwrap();
        assert!((without.throughput_bytes_per_s.unwrap() - 4.0e9).abs() < 1.0);
        header.counter = RunCounter::Measured(CounterKind::Tsc);
        let tsc = measure_case(&case("a", &[1000.0, 1000.0], &[]), &header).unwrap();
        assert!((tsc.throughput_bytes_per_s.unwrap() - 2.0e9).abs() < 1.0);
    }
}
