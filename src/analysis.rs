//! From a stored run to figures: per-case statistics, ratios and comparisons.
//!
//! Everything here is computed from the store alone (raw samples grouped in clusters),
//! deterministically, so `run` and `report` print the same thing.

use anyhow::{Result, bail};

use crate::catalog::Params;
use crate::counter::CounterKind;
use crate::experiment::AnalysisSpec;
use crate::name::ImplName;
use crate::stats::{self, BoxPlot, Interval, Outliers, Summary, Verdict};
use crate::store::{CaseStatus, RunCounter, RunHeader, RunOrigin, StoredCase, StoredRun};

/// The confidence level of every interval the analysis gives.
pub const LEVEL: f64 = 0.95;
const RESAMPLES: usize = 2000;
/// Outliers kept per side for a box plot: enough to show where they lie without
/// carrying every sample of a heavy tail into the report.
pub const MARKED_OUTLIERS: usize = 12;

#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct VerdictOptions {
    pub significance: f64,
    pub noise_threshold_pct: f64,
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
    #[default]
    MannWhitney,
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

/// What a run asked to be analysed, stored with it so that `report` repeats it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct AnalysisOptions {
    pub spec: AnalysisSpec,
    pub verdict: VerdictOptions,
    pub baseline_run: Option<i64>,
    pub force: bool,
}

/// Statistics of one measured case.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Measured {
    pub samples: usize,
    pub clusters: usize,
    pub calls_per_sample: Option<u64>,
    pub summary: Summary,
    /// Median counts per call with its 95 % interval (clusters resampled).
    pub median: Interval,
    pub per_byte: Option<Interval>,
    /// Where the counter ticks at a known rate (TSC, ns), or measured the core clock
    /// beside the samples (tsc-core).
    pub throughput_bytes_per_s: Option<f64>,
    /// The core clock beside the samples (tsc-core): median over the processes.
    pub core_clock_hz: Option<f64>,
    /// How far apart the worker processes' own medians lie: the third quartile of them
    /// over the first, in % (`None` with fewer than 4 processes). A lone wild process
    /// does not move it; processes split into modes do. The interval already includes
    /// this spread; it tells whether the median hangs on how the processes fell.
    pub process_spread_pct: Option<f64>,
    pub outliers: Outliers,
    /// The raw samples' shape, for box plots, with at most [`MARKED_OUTLIERS`] outliers
    /// marked a side.
    pub distribution: BoxPlot,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct CaseStats {
    pub key: String,
    pub implementation: String,
    pub operation: String,
    pub params: Params,
    pub bytes: Option<u64>,
    pub status: CaseStatus,
    pub message: Option<String>,
    pub measured: Option<Measured>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Ratio {
    pub reference: String,
    pub member: String,
    pub params: Params,
    /// member's median over reference's median.
    pub ratio: Interval,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Comparison {
    pub baseline: String,
    pub candidate: String,
    pub operation: String,
    pub params: Params,
    pub median_baseline: f64,
    pub median_candidate: f64,
    /// baseline - candidate, as the seed's "Difference" column (positive = candidate faster).
    pub difference: f64,
    pub change_pct: Interval,
    /// Standard deviation of the per-cluster medians, the unit the test compares.
    pub stdev_baseline: f64,
    pub stdev_candidate: f64,
    pub p_value: f64,
    /// The independent measurements (processes) on each side, baseline first.
    pub processes: [usize; 2],
    /// The smallest p-value the test can give with that many ([`stats::mann_whitney_p_floor`];
    /// `None` for Welch's t, which has none).
    pub p_floor: Option<f64>,
    pub verdict: Verdict,
    /// Where the counter measured the core clock (tsc-core): the candidate's clock
    /// against the baseline's, in %, and the change in time (reference cycles) that
    /// follows from the two. Code that moves the clock can take fewer cycles and more time.
    pub clock_change_pct: Option<f64>,
    pub time_change_pct: Option<f64>,
}

/// Cost per byte at maximum throughput: the slope of the median between two lengths,
/// so that fixed per-call costs (initialisation, finalisation) drop out.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Slope {
    pub implementation: String,
    pub operation: String,
    pub from_len: u64,
    pub to_len: u64,
    pub per_byte: Interval,
}

/// One N-lane call against N calls of the fastest single-lane implementation.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LaneSpeedup {
    pub implementation: String,
    /// What one lane computes, e.g. `shake128`: the single-lane implementations' algorithm.
    pub algorithm: String,
    pub lanes: usize,
    pub params: Params,
    /// The fastest single-lane implementation at these parameters.
    pub single: String,
    pub median_call: f64,
    pub median_single: f64,
    /// N x single / one N-lane call.
    pub speedup: Interval,
    pub per_byte_per_lane: Option<f64>,
    /// Where the counter measured the core clock (tsc-core): the N-lane code's clock
    /// against the single lane's, in %, and the speed-up in time that follows.
    pub clock_change_pct: Option<f64>,
    pub speedup_in_time: Option<f64>,
}

/// A comparison that was asked for and could not be made.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct NotCompared {
    pub baseline: String,
    pub candidate: String,
    pub operation: String,
    pub params: Params,
    pub why: String,
    /// A regression gate cannot pass what it could not check (wrong output, a crash,
    /// too few processes); a side this CPU cannot run at all does not stop it.
    pub blocks_gate: bool,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct RunComparison {
    pub run_a: i64,
    pub run_b: i64,
    pub comparisons: Vec<Comparison>,
    pub not_compared: Vec<NotCompared>,
    pub only_in_a: Vec<String>,
    pub only_in_b: Vec<String>,
    /// Why the runs are not comparable, when forced anyway.
    pub caveats: Vec<String>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Analysis {
    pub header: RunHeader,
    pub counter: RunCounter,
    pub unit: String,
    pub short_unit: String,
    pub cases: Vec<CaseStats>,
    pub ratios: Vec<Ratio>,
    pub slopes: Vec<Slope>,
    pub lanes: Vec<LaneSpeedup>,
    pub comparisons: Vec<Comparison>,
    pub not_compared: Vec<NotCompared>,
    pub against_baseline: Option<RunComparison>,
    /// What the run's comparisons were judged by (the defaults where a run has none).
    pub verdict_options: VerdictOptions,
    /// llvm-mca estimates of C builds, by implementation (with `--estimate`).
    pub estimates: std::collections::BTreeMap<String, crate::cimpl::estimate::Estimate>,
}

impl Analysis {
    /// What stops a regression gate, described: every comparison that regressed beyond
    /// the noise threshold, and every one that could not be made for a reason that
    /// could hide a regression.
    pub fn regressions(&self) -> Vec<String> {
        let across = self.against_baseline.iter();
        let comparisons = self
            .comparisons
            .iter()
            .chain(across.clone().flat_map(|r| r.comparisons.iter()));
        let not_compared = self
            .not_compared
            .iter()
            .chain(across.flat_map(|r| r.not_compared.iter()));
        comparisons
            .filter(|c| c.verdict == Verdict::Regressed)
            .map(|c| {
                format!(
                    "{} vs {}: {:+.2} % [{:+.2}, {:+.2}], p = {:.3}",
                    with_params(&c.candidate, &c.params),
                    c.baseline,
                    c.change_pct.estimate,
                    c.change_pct.lo,
                    c.change_pct.hi,
                    c.p_value
                )
            })
            .chain(not_compared.filter(|n| n.blocks_gate).map(|n| {
                format!(
                    "{} vs {}: not compared: {}",
                    with_params(&n.candidate, &n.params),
                    n.baseline,
                    n.why
                )
            }))
            .collect()
    }
}

/// A candidate's name with its parameters, which a comparison across runs has in its
/// name already (a case id).
pub fn with_params(candidate: &str, params: &Params) -> String {
    let p = params.to_string();
    if p.is_empty() || candidate.ends_with(&p) {
        candidate.to_string()
    } else {
        format!("{candidate} {p}")
    }
}

/// A stable seed per case, so the bootstrap gives the same interval every time.
fn seed_of(key: &str) -> u64 {
    key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

fn median_of(xs: &[f64]) -> f64 {
    stats::median(xs).unwrap_or(f64::NAN)
}

/// Counts per second, where the counter ticks at a known rate (TSC, nanoseconds), or
/// at the core clock measured when the run started (estimated core cycles, for runs
/// stored before each case kept the clock beside its samples).
fn counts_per_second(header: &RunHeader) -> Option<f64> {
    match header.counter {
        RunCounter::Measured(CounterKind::Tsc) => header.tsc_hz,
        RunCounter::Measured(CounterKind::TscCore) => header.machine.core_clock_hz(),
        counter if counter.short_unit() == "ns" => Some(1e9),
        _ => None,
    }
}

/// A single measurement (e.g. one `openssl speed` figure) is shown as it is: its
/// interval is the point itself, since nothing was repeated to estimate the spread;
/// reports print none for it ([`Measured::has_interval`]).
fn single_sample(x: f64) -> Option<(Summary, Interval)> {
    x.is_finite().then_some((
        Summary {
            n: 1,
            min: x,
            q1: x,
            median: x,
            q3: x,
            max: x,
            mean: x,
            std_dev: 0.0,
            cv: 0.0,
        },
        Interval {
            estimate: x,
            lo: x,
            hi: x,
            level: LEVEL,
        },
    ))
}

fn measure_case(c: &StoredCase, header: &RunHeader) -> Option<Measured> {
    if c.status != CaseStatus::Ok || c.clusters.is_empty() {
        return None;
    }
    let all: Vec<f64> = c.clusters.iter().flatten().copied().collect();
    let (summary, median) = match all[..] {
        [x] => single_sample(x)?,
        _ => {
            let refs: Vec<&[f64]> = c.clusters.iter().map(Vec::as_slice).collect();
            let median = if refs.len() >= 2 {
                stats::cluster_bootstrap_ci(&refs, median_of, RESAMPLES, LEVEL, seed_of(&c.key))?
            } else {
                let mut sorted = all.clone();
                sorted.sort_by(f64::total_cmp);
                stats::median_ci(&sorted, LEVEL)?
            };
            (Summary::of(&all)?, median)
        }
    };
    let per_byte = c.bytes.filter(|&b| b > 0).map(|b| Interval {
        estimate: median.estimate / b as f64,
        lo: median.lo / b as f64,
        hi: median.hi / b as f64,
        level: median.level,
    });
    let core_clock_hz = stats::median(&c.core_clocks)
        .zip(header.tsc_hz)
        .map(|(ratio, tsc_hz)| ratio * tsc_hz);
    let throughput_bytes_per_s = c
        .bytes
        .zip(core_clock_hz.or_else(|| counts_per_second(header)))
        .map(|(b, hz)| stats::bytes_per_second(median.estimate, b, hz));
    let process_spread_pct = process_spread_pct(&cluster_medians(c));
    Some(Measured {
        samples: all.len(),
        clusters: c.clusters.len(),
        calls_per_sample: c.calls_per_sample,
        summary,
        median,
        per_byte,
        throughput_bytes_per_s,
        core_clock_hz,
        process_spread_pct,
        outliers: stats::tukey(&all),
        distribution: BoxPlot::of(&all, MARKED_OUTLIERS),
    })
}

impl Measured {
    /// Whether the figures come with an interval: a single measurement has none, and
    /// its zero-width one printed as `±0.00 %` would claim a precision nobody measured.
    pub fn has_interval(&self) -> bool {
        self.samples > 1
    }
}

fn process_spread_pct(per_process: &[f64]) -> Option<f64> {
    if per_process.len() < 4 {
        return None;
    }
    let mut sorted = per_process.to_vec();
    sorted.sort_by(f64::total_cmp);
    let (lo, hi) = (
        stats::quantile_sorted(&sorted, 0.25),
        stats::quantile_sorted(&sorted, 0.75),
    );
    (lo > 0.0).then(|| 100.0 * (hi / lo - 1.0))
}

fn cluster_medians(c: &StoredCase) -> Vec<f64> {
    c.clusters.iter().map(|cl| median_of(cl)).collect()
}

/// Compare two cases on their per-cluster medians: clusters (worker processes) are the
/// independent units; samples within one are not. The names in the result are the
/// cases' implementations; callers comparing across runs rename them.
// Both outcomes are kept and both are large (the comparison more so): no box helps.
#[allow(clippy::result_large_err)]
fn compare_cases(
    base: &StoredCase,
    cand: &StoredCase,
    opts: &VerdictOptions,
) -> Result<Comparison, NotCompared> {
    let not_compared = |why: String, blocks_gate: bool| NotCompared {
        baseline: base.implementation.clone(),
        candidate: cand.implementation.clone(),
        operation: cand.operation.clone(),
        params: cand.params.clone(),
        why,
        blocks_gate,
    };
    for (side, case) in [("baseline", base), ("candidate", cand)] {
        if case.status != CaseStatus::Ok {
            let message = case.message.as_deref();
            let what = match (case.status, message) {
                (CaseStatus::Wrong, m) => format!(
                    "gave wrong output{}",
                    m.map(|m| format!(" ({})", m.trim_start_matches("wrong output: ")))
                        .unwrap_or_default()
                ),
                // The runner's messages read as what happened: "crashed (…)", "timed out …".
                (CaseStatus::Failed, Some(m)) => m.to_string(),
                (CaseStatus::Failed, None) => "failed".into(),
                (CaseStatus::Unsupported, m) => format!(
                    "cannot run on this CPU{}",
                    m.map(|m| format!(" ({m})")).unwrap_or_default()
                ),
                (CaseStatus::Pending | CaseStatus::Ok, _) => {
                    "was not measured (interrupted?)".into()
                }
            };
            // Only a candidate that is now broken can hide a regression: a baseline that
            // was broken leaves nothing to regress from (a change that fixes it must pass).
            return Err(not_compared(
                format!("the {side} {what}"),
                side == "candidate" && case.status != CaseStatus::Unsupported,
            ));
        }
    }
    let a = cluster_medians(base);
    let b = cluster_medians(cand);
    if !stats::interval_reachable(a.len(), b.len(), LEVEL) {
        return Err(not_compared(
            format!(
                "{} and {} independent measurements (worker processes, bulk runs or imported \
                 tables) are too few for a {:.0} % interval of the change: each side needs 4 or \
                 more (run --processes, bulk --runs)",
                a.len(),
                b.len(),
                100.0 * LEVEL
            ),
            true,
        ));
    }
    let p_value = match opts.test {
        Test::MannWhitney => stats::mann_whitney(&a, &b).map(|t| t.p_value),
        Test::Welch => stats::welch_t(&a, &b).map(|t| t.p_value),
    };
    let (Some(p_value), Some(change)) = (p_value, stats::relative_change(&a, &b, LEVEL)) else {
        return Err(not_compared(
            "the per-process medians admit no test (not finite, or all equal)".into(),
            true,
        ));
    };
    let (ma, mb) = (median_of(&a), median_of(&b));
    let clocks = stats::median(&base.core_clocks).zip(stats::median(&cand.core_clocks));
    Ok(Comparison {
        baseline: base.implementation.clone(),
        candidate: cand.implementation.clone(),
        operation: cand.operation.clone(),
        params: cand.params.clone(),
        median_baseline: ma,
        median_candidate: mb,
        difference: ma - mb,
        change_pct: change,
        stdev_baseline: stats::std_dev(&a).unwrap_or(0.0),
        stdev_candidate: stats::std_dev(&b).unwrap_or(0.0),
        p_value,
        processes: [a.len(), b.len()],
        p_floor: match opts.test {
            Test::MannWhitney => stats::mann_whitney_p_floor(a.len(), b.len()),
            Test::Welch => None,
        },
        verdict: stats::verdict(
            &change,
            p_value,
            opts.significance,
            opts.noise_threshold_pct,
            true,
        ),
        clock_change_pct: clocks.map(|(ca, cb)| 100.0 * (cb / ca - 1.0)),
        time_change_pct: clocks.map(|(ca, cb)| 100.0 * ((mb / cb) / (ma / ca) - 1.0)),
    })
}

fn find<'a>(run: &'a StoredRun, implementation: &str, params: &Params) -> Option<&'a StoredCase> {
    run.cases
        .iter()
        .find(|c| c.implementation == implementation && &c.params == params)
}

/// What a run's analysis needs besides the run, read from the store by the caller: the
/// analysis itself does no I/O.
#[derive(Default)]
pub struct Context {
    /// The run its options name as baseline (`--baseline`), to compare every case with.
    pub baseline: Option<StoredRun>,
    /// llvm-mca estimates of its C builds, by implementation.
    pub estimates: std::collections::BTreeMap<String, crate::cimpl::estimate::Estimate>,
}

/// How a run asked to be analysed; `None` for runs that asked nothing (imported ones).
pub fn options_of(header: &RunHeader) -> Result<Option<AnalysisOptions>> {
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

pub fn analyse(run: &StoredRun, context: &Context) -> Result<Analysis> {
    let header = &run.header;
    let options = options_of(header)?;
    let cases = run
        .cases
        .iter()
        .map(|c| CaseStats {
            key: c.key.clone(),
            implementation: c.implementation.clone(),
            operation: c.operation.clone(),
            params: c.params.clone(),
            bytes: c.bytes,
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
                let Some(r) =
                    find(run, reference, &m.params).filter(|r| r.status == CaseStatus::Ok)
                else {
                    continue;
                };
                let a: Vec<&[f64]> = r.clusters.iter().map(Vec::as_slice).collect();
                let b: Vec<&[f64]> = m.clusters.iter().map(Vec::as_slice).collect();
                if let Some(ratio) = stats::cluster_bootstrap_ratio_ci(
                    &a,
                    &b,
                    median_of,
                    RESAMPLES,
                    LEVEL,
                    seed_of(&m.key),
                ) {
                    ratios.push(Ratio {
                        reference: reference.clone(),
                        member: member.clone(),
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
                    match compare_cases(base, cand, &opts.verdict) {
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
            against_baseline = Some(compare_runs(base, run, &opts.verdict, opts.force)?);
        }
    }
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
        verdict_options: options.map(|o| o.verdict).unwrap_or_default(),
        estimates: context.estimates.clone(),
    })
}

/// A pair asked to be compared (`--against`) of which no case does what a case of the
/// other does: said once, rather than left out in silence. Not a gate matter: nothing
/// that could regress went unchecked.
fn unlike(run: &StoredRun, baseline: &str, candidate: &str) -> Option<NotCompared> {
    use std::collections::BTreeSet;
    let distinct = |name: &str, shape: &dyn Fn(&StoredCase) -> String| -> BTreeSet<String> {
        run.cases
            .iter()
            .filter(|c| c.implementation == name)
            .map(shape)
            .collect()
    };
    let list = |set: &BTreeSet<String>| set.iter().cloned().collect::<Vec<_>>().join(", ");
    let operation = |c: &StoredCase| c.operation.clone();
    let (ours, theirs) = (
        distinct(candidate, &operation),
        distinct(baseline, &operation),
    );
    if ours.is_empty() || theirs.is_empty() {
        return None;
    }
    let why = if ours.is_disjoint(&theirs) {
        format!("another operation ({}, not {})", list(&ours), list(&theirs))
    } else {
        let params = |c: &StoredCase| with_params(&c.operation, &c.params);
        format!(
            "no case at the same parameters ({}, not {})",
            list(&distinct(candidate, &params)),
            list(&distinct(baseline, &params))
        )
    };
    Some(NotCompared {
        baseline: baseline.to_string(),
        candidate: candidate.to_string(),
        operation: list(&ours),
        params: Params::new(),
        why,
        blocks_gate: false,
    })
}

/// Each C build whose algorithm (or compile variant, as `part` says) is `candidate`
/// against the build that differs from it only in having `baseline` there, at the same
/// operation and parameters.
fn counterpart_comparisons(
    run: &StoredRun,
    part: Counterpart,
    baseline: &str,
    candidate: &str,
    verdict: &VerdictOptions,
) -> Vec<Result<Comparison, NotCompared>> {
    let mut out = Vec::new();
    for cb in &run.cases {
        let name = ImplName::parse(&cb.implementation);
        // Only C builds have variants and targets to hold their counterparts apart.
        if name.variant().is_none() || name.target().is_none() {
            continue;
        }
        let name_a = match part {
            Counterpart::Algorithm if name.algorithm() == candidate => {
                name.with_algorithm(baseline)
            }
            Counterpart::Variant if name.variant() == Some(candidate) => {
                name.with_variant(baseline)
            }
            _ => continue,
        }
        .to_string();
        if let Some(ca) = run.cases.iter().find(|c| {
            c.implementation == name_a && c.operation == cb.operation && c.params == cb.params
        }) {
            out.push(compare_cases(ca, cb, verdict));
        }
    }
    out
}

/// The part of a C build's name that a counterpart comparison swaps.
#[derive(Clone, Copy)]
enum Counterpart {
    /// Spook v1 -> v2: the same variant and target of another algorithm.
    Algorithm,
    /// The Jasmin seed's baseline -> variant: the same algorithm and target, another
    /// compile variant.
    Variant,
}

/// The algorithm one lane computes and the lane count: from `cryptobench/shake128-x4-avx2`
/// (N lanes) or a plain single-lane name such as `openssl/shake128`.
fn lane_shape(implementation: &str) -> (&str, usize) {
    crate::catalog::kinds::xof_lanes::lanes_of(implementation)
        .unwrap_or_else(|| (ImplName::parse(implementation).algorithm(), 1))
}

/// What one lane of an N-lane XOF call takes in and gives out.
fn lane_bytes(params: &Params) -> u64 {
    params.get("len").unwrap_or(0) + params.get("out").unwrap_or(0)
}

fn lane_speedups(run: &StoredRun) -> Vec<LaneSpeedup> {
    let ok: Vec<&StoredCase> = run
        .cases
        .iter()
        .filter(|c| c.status == CaseStatus::Ok)
        .collect();
    let mut out = Vec::new();
    for c in ok.iter().filter(|c| lane_shape(&c.implementation).1 > 1) {
        let (algorithm, n) = lane_shape(&c.implementation);
        let single = ok
            .iter()
            .filter(|s| s.params == c.params && lane_shape(&s.implementation) == (algorithm, 1))
            .min_by(|a, b| {
                median_of(&a.clusters.concat()).total_cmp(&median_of(&b.clusters.concat()))
            });
        let Some(single) = single else { continue };
        let a: Vec<&[f64]> = single.clusters.iter().map(Vec::as_slice).collect();
        let b: Vec<&[f64]> = c.clusters.iter().map(Vec::as_slice).collect();
        let lanes = n as f64;
        let Some(speedup) = stats::cluster_bootstrap_two_ci(
            &a,
            &b,
            median_of,
            |s, x| lanes * s / x,
            RESAMPLES,
            LEVEL,
            seed_of(&c.key),
        ) else {
            continue;
        };
        let median_call = median_of(&c.clusters.concat());
        let clocks = stats::median(&single.core_clocks).zip(stats::median(&c.core_clocks));
        out.push(LaneSpeedup {
            implementation: c.implementation.clone(),
            algorithm: algorithm.to_string(),
            lanes: n,
            params: c.params.clone(),
            single: single.implementation.clone(),
            median_call,
            median_single: median_of(&single.clusters.concat()),
            speedup,
            // From the parameters, not the stored byte count: runs stored before that
            // count took in every lane gave one lane's bytes.
            per_byte_per_lane: Some(lane_bytes(&c.params))
                .filter(|&b| b > 0)
                .map(|b| median_call / (lanes * b as f64)),
            clock_change_pct: clocks.map(|(single, lane)| 100.0 * (lane / single - 1.0)),
            // Time is cycles over clock: N x t_single / t_call = speed-up x clock ratio.
            speedup_in_time: clocks.map(|(single, lane)| speedup.estimate * lane / single),
        });
    }
    out
}

fn slopes_of(run: &StoredRun, short: u64, long: u64) -> Vec<Slope> {
    let mut out = Vec::new();
    for b in run
        .cases
        .iter()
        .filter(|c| c.status == CaseStatus::Ok && c.params.get("len") == Some(long))
    {
        let short_params = b.params.clone().with("len", short);
        let Some(a) = run.cases.iter().find(|c| {
            c.implementation == b.implementation
                && c.operation == b.operation
                && c.params == short_params
                && c.status == CaseStatus::Ok
        }) else {
            continue;
        };
        let ar: Vec<&[f64]> = a.clusters.iter().map(Vec::as_slice).collect();
        let br: Vec<&[f64]> = b.clusters.iter().map(Vec::as_slice).collect();
        let span = (long - short) as f64;
        if let Some(per_byte) = stats::cluster_bootstrap_two_ci(
            &ar,
            &br,
            median_of,
            |x, y| (y - x) / span,
            RESAMPLES,
            LEVEL,
            seed_of(&b.key),
        ) {
            out.push(Slope {
                implementation: b.implementation.clone(),
                operation: b.operation.clone(),
                from_len: short,
                to_len: long,
                per_byte,
            });
        }
    }
    out
}

/// What two runs differ in that makes their cycle counts incomparable: (what, in `a`,
/// in `b`) for the counter, the CPU model and the tool version.
pub fn differences(a: &RunHeader, b: &RunHeader) -> Vec<(&'static str, String, String)> {
    let mut all = vec![
        ("counter", a.counter.to_string(), b.counter.to_string()),
        ("CPU", a.cpu_model.clone(), b.cpu_model.clone()),
        (
            "cryptobench version",
            a.tool_version.clone(),
            b.tool_version.clone(),
        ),
    ];
    // What the environment tells the C library or OpenSSL to run: glibc's memcpy alone
    // moves ChaCha20 RNGs by 15 % (docs/validation.md).
    if let (Some(ma), Some(mb)) = (a.machine.measured(), b.machine.measured()) {
        let shown = |v: Option<&str>| v.map_or("unset".to_string(), str::to_string);
        for ((name, va), (_, vb)) in ma
            .measuring_environment()
            .into_iter()
            .zip(mb.measuring_environment())
        {
            all.push((name, shown(va), shown(vb)));
        }
    }
    all.into_iter().filter(|(_, x, y)| x != y).collect()
}

/// Why two runs cannot be compared case by case.
fn incomparability(a: &RunHeader, b: &RunHeader) -> Vec<String> {
    differences(a, b)
        .into_iter()
        .map(|(what, x, y)| format!("{what} differs: run {} `{x}`, run {} `{y}`", a.id, b.id))
        .collect()
}

/// Counts in nanoseconds and counts in cycles have no ratio that means anything: no
/// `--force` compares them.
pub fn check_same_unit(a: &RunHeader, b: &RunHeader) -> Result<()> {
    let (unit_a, unit_b) = (a.counter.short_unit(), b.counter.short_unit());
    if unit_a != unit_b {
        let imported = [a.counter, b.counter]
            .iter()
            .any(|c| matches!(c, RunCounter::Imported(_)));
        bail!(
            "run {} counts {unit_a} ({}) and run {} counts {unit_b} ({}), which no --force makes comparable{}",
            a.id,
            a.counter,
            b.id,
            b.counter,
            if imported {
                ""
            } else {
                "; measure one of them again with the other's --counter"
            }
        );
    }
    Ok(())
}

/// Compare every case of `b` with the same case (by key) of `a`.
pub fn compare_runs(
    a: &StoredRun,
    b: &StoredRun,
    opts: &VerdictOptions,
    force: bool,
) -> Result<RunComparison> {
    let caveats = incomparability(&a.header, &b.header);
    if !caveats.is_empty() && !force {
        bail!(
            "runs {} and {} are not comparable: {} (use --force to compare anyway)",
            a.header.id,
            b.header.id,
            caveats.join("; ")
        );
    }
    check_same_unit(&a.header, &b.header)?;
    let mut comparisons = Vec::new();
    let mut not_compared = Vec::new();
    let mut only_in_b = Vec::new();
    for cb in &b.cases {
        match a.cases.iter().find(|ca| ca.key == cb.key) {
            Some(ca) => match compare_cases(ca, cb, opts) {
                Ok(mut c) => {
                    c.baseline = format!("run {}", a.header.id);
                    c.candidate = cb.key.clone();
                    comparisons.push(c);
                }
                Err(mut n) => {
                    n.baseline = format!("run {}", a.header.id);
                    n.candidate = cb.key.clone();
                    not_compared.push(n);
                }
            },
            None => only_in_b.push(cb.key.clone()),
        }
    }
    let only_in_a = a
        .cases
        .iter()
        .filter(|ca| !b.cases.iter().any(|cb| cb.key == ca.key))
        .map(|ca| ca.key.clone())
        .collect();
    Ok(RunComparison {
        run_a: a.header.id,
        run_b: b.header.id,
        comparisons,
        not_compared,
        only_in_a,
        only_in_b,
        caveats,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::Machine;
    use crate::store::MachineRecord;

    fn case(implementation: &str, per_process: &[f64], core_clocks: &[f64]) -> StoredCase {
        StoredCase {
            row: 0,
            key: format!("{implementation}/xof"),
            implementation: implementation.into(),
            operation: "xof".into(),
            params: Params::new(),
            bytes: Some(1000),
            status: CaseStatus::Ok,
            message: None,
            calls_per_sample: Some(1),
            overhead: Some(0.0),
            clusters: per_process
                .iter()
                .map(|&m| vec![m - 1.0, m, m + 1.0])
                .collect(),
            core_clocks: core_clocks.to_vec(),
        }
    }

    #[test]
    fn a_pair_with_nothing_alike_is_said_not_compared_and_why() {
        let at = |name: &str, operation: &str, len: u64| StoredCase {
            operation: operation.into(),
            params: Params::new().with("len", len),
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

    #[test]
    fn only_a_broken_candidate_or_too_few_processes_stop_the_gate() {
        let fine = |name: &str| case(name, &[100.0, 101.0, 99.0, 100.0, 102.0], &[]);
        let broken = |name: &str, status| StoredCase {
            status,
            message: Some("crashed (killed by signal 11 (SIGSEGV))".into()),
            clusters: Vec::new(),
            ..fine(name)
        };
        let gate = |base: &StoredCase, cand: &StoredCase| {
            compare_cases(base, cand, &OPTS)
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
    }

    /// A tsc-core run at a 2 GHz TSC.
    fn header(core_clock_hz: Option<f64>) -> RunHeader {
        RunHeader {
            id: 1,
            started_at: String::new(),
            finished_at: None,
            status: crate::store::RunStatus::Complete,
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
        let c = compare_cases(&base, &cand, &OPTS).unwrap();
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
    fn a_lane_speedup_in_time_is_the_cycles_speedup_times_the_clock_ratio() {
        let single = case("cryptobench/shake256-x1-scalar", &[4000.0; 4], &[1.40; 4]);
        // Four lanes in 2000 cycles (2x) at a clock 10 % lower: 1.8x in time.
        let lanes = case("cryptobench/shake256-x4-avx2", &[8000.0; 4], &[1.26; 4]);
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

    #[test]
    fn no_clock_without_a_clock_on_both_sides() {
        let base = case("ours", &[100.0, 100.0, 100.0, 100.0], &[]);
        let cand = case("theirs", &[90.0, 90.0, 90.0, 90.0], &[1.3, 1.3, 1.3, 1.3]);
        let c = compare_cases(&base, &cand, &OPTS).unwrap();
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
