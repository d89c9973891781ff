//! From a stored run to figures: per-case statistics, ratios and comparisons.
//!
//! Everything here is computed from the store alone (raw samples grouped in clusters),
//! deterministically, so `run` and `report` print the same thing.

use anyhow::{Result, bail};

use crate::catalog::Params;
use crate::cli::VerdictArgs;
use crate::experiment::AnalysisSpec;
use crate::stats::{self, Interval, Outliers, Summary, Verdict};
use crate::store::{CaseStatus, RunHeader, Store, StoredCase, StoredRun};

const LEVEL: f64 = 0.95;
const RESAMPLES: usize = 2000;

#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct VerdictOptions {
    pub significance: f64,
    pub noise_threshold_pct: f64,
}

impl From<VerdictArgs> for VerdictOptions {
    fn from(v: VerdictArgs) -> Self {
        VerdictOptions {
            significance: v.significance,
            noise_threshold_pct: v.noise_threshold,
        }
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
    /// Only where the counter ticks at a known rate (TSC, ns).
    pub throughput_bytes_per_s: Option<f64>,
    pub outliers: Outliers,
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
    pub verdict: Verdict,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct RunComparison {
    pub run_a: i64,
    pub run_b: i64,
    pub comparisons: Vec<Comparison>,
    pub only_in_a: Vec<String>,
    pub only_in_b: Vec<String>,
    /// Why the runs are not comparable, when forced anyway.
    pub caveats: Vec<String>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Analysis {
    pub header: RunHeader,
    pub counter: String,
    pub unit: String,
    pub short_unit: String,
    pub cases: Vec<CaseStats>,
    pub ratios: Vec<Ratio>,
    pub comparisons: Vec<Comparison>,
    pub against_baseline: Option<RunComparison>,
    pub verdict_options: Option<VerdictOptions>,
    /// llvm-mca estimates of C builds, by implementation (with `--estimate`).
    pub estimates: std::collections::BTreeMap<String, crate::cimpl::estimate::Estimate>,
}

impl Analysis {
    /// Every comparison that regressed beyond the noise threshold, described.
    pub fn regressions(&self) -> Vec<String> {
        let within = self.comparisons.iter();
        let across = self
            .against_baseline
            .iter()
            .flat_map(|r| r.comparisons.iter());
        within
            .chain(across)
            .filter(|c| c.verdict == Verdict::Regressed)
            .map(|c| {
                format!(
                    "{} {} vs {}: {:+.2} % [{:+.2}, {:+.2}], p = {:.3}",
                    c.candidate,
                    c.params,
                    c.baseline,
                    c.change_pct.estimate,
                    c.change_pct.lo,
                    c.change_pct.hi,
                    c.p_value
                )
            })
            .collect()
    }

    pub fn case(&self, implementation: &str, params: &Params) -> Option<&CaseStats> {
        self.cases
            .iter()
            .find(|c| c.implementation == implementation && &c.params == params)
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

fn measure_case(c: &StoredCase, header: &RunHeader) -> Option<Measured> {
    if c.status != CaseStatus::Ok || c.clusters.is_empty() {
        return None;
    }
    let all: Vec<f64> = c.clusters.iter().flatten().copied().collect();
    let summary = Summary::of(&all)?;
    let refs: Vec<&[f64]> = c.clusters.iter().map(Vec::as_slice).collect();
    let median = if refs.len() >= 2 {
        stats::cluster_bootstrap_ci(&refs, median_of, RESAMPLES, LEVEL, seed_of(&c.key))?
    } else {
        let mut sorted = all.clone();
        sorted.sort_by(f64::total_cmp);
        stats::median_ci(&sorted, LEVEL)?
    };
    let per_byte = c.bytes.filter(|&b| b > 0).map(|b| Interval {
        estimate: median.estimate / b as f64,
        lo: median.lo / b as f64,
        hi: median.hi / b as f64,
        level: median.level,
    });
    let hz = match header.counter.as_str() {
        "tsc" => header.tsc_hz,
        "ns" => Some(1e9),
        _ => None,
    };
    let throughput_bytes_per_s = c
        .bytes
        .zip(hz)
        .map(|(b, hz)| stats::bytes_per_second(median.estimate, b, hz));
    Some(Measured {
        samples: all.len(),
        clusters: c.clusters.len(),
        calls_per_sample: c.calls_per_sample,
        summary,
        median,
        per_byte,
        throughput_bytes_per_s,
        outliers: stats::tukey(&all),
    })
}

fn cluster_medians(c: &StoredCase) -> Vec<f64> {
    c.clusters.iter().map(|cl| median_of(cl)).collect()
}

/// Compare two cases on their per-cluster medians: clusters (process x layout) are the
/// independent units; samples within one are not.
fn compare_cases(
    base: &StoredCase,
    cand: &StoredCase,
    opts: &VerdictOptions,
) -> Option<Comparison> {
    if base.status != CaseStatus::Ok || cand.status != CaseStatus::Ok {
        return None;
    }
    let a = cluster_medians(base);
    let b = cluster_medians(cand);
    let mw = stats::mann_whitney(&a, &b)?;
    let change = stats::relative_change(&a, &b, LEVEL)?;
    let (ma, mb) = (median_of(&a), median_of(&b));
    Some(Comparison {
        baseline: base.implementation.clone(),
        candidate: cand.implementation.clone(),
        params: cand.params.clone(),
        median_baseline: ma,
        median_candidate: mb,
        difference: ma - mb,
        change_pct: change,
        stdev_baseline: stats::std_dev(&a).unwrap_or(0.0),
        stdev_candidate: stats::std_dev(&b).unwrap_or(0.0),
        p_value: mw.p_value,
        verdict: stats::verdict(
            &change,
            mw.p_value,
            opts.significance,
            opts.noise_threshold_pct,
            true,
        ),
    })
}

fn find<'a>(run: &'a StoredRun, implementation: &str, params: &Params) -> Option<&'a StoredCase> {
    run.cases
        .iter()
        .find(|c| c.implementation == implementation && &c.params == params)
}

pub fn analyse(store: &Store, run: &StoredRun) -> Result<Analysis> {
    let header = &run.header;
    let options: Option<AnalysisOptions> =
        serde_json::from_value(header.options["analysis"].clone()).ok();
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
    let mut comparisons = Vec::new();
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
            for cand in run.cases.iter().filter(|c| &c.implementation == candidate) {
                if let Some(base) = find(run, baseline, &cand.params)
                    && let Some(cmp) = compare_cases(base, cand, &opts.verdict)
                {
                    comparisons.push(cmp);
                }
            }
        }
        if let Some(base_id) = opts.baseline_run {
            let base = store.load_run(base_id)?;
            against_baseline = Some(compare_runs(&base, run, &opts.verdict, opts.force)?);
        }
    }
    let kind: crate::counter::CounterKind =
        serde_json::from_value(serde_json::Value::String(header.counter.clone()))
            .unwrap_or(crate::counter::CounterKind::Ns);
    Ok(Analysis {
        header: header.clone(),
        counter: header.counter.clone(),
        unit: header.unit.clone(),
        short_unit: kind.short_unit().to_string(),
        cases,
        ratios,
        comparisons,
        against_baseline,
        verdict_options: options.map(|o| o.verdict),
        estimates: store.estimates(header.id)?,
    })
}

/// Why two runs cannot be compared case by case.
fn incomparability(a: &RunHeader, b: &RunHeader) -> Vec<String> {
    let mut why = Vec::new();
    if a.counter != b.counter {
        why.push(format!(
            "counter differs: run {} used `{}`, run {} used `{}`",
            a.id, a.counter, b.id, b.counter
        ));
    }
    if a.cpu_model != b.cpu_model {
        why.push(format!(
            "CPU differs: run {} ran on {}, run {} on {}",
            a.id, a.cpu_model, b.id, b.cpu_model
        ));
    }
    if a.tool_version != b.tool_version {
        why.push(format!(
            "tool version differs: run {} by cryptobench {}, run {} by {}",
            a.id, a.tool_version, b.id, b.tool_version
        ));
    }
    why
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
    let mut comparisons = Vec::new();
    let mut only_in_b = Vec::new();
    for cb in &b.cases {
        match a.cases.iter().find(|ca| ca.key == cb.key) {
            Some(ca) => {
                if let Some(mut c) = compare_cases(ca, cb, opts) {
                    c.baseline = format!("run {}", a.header.id);
                    c.candidate = cb.key.clone();
                    comparisons.push(c);
                }
            }
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
        only_in_a,
        only_in_b,
        caveats,
    })
}
