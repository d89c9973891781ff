//! One case's statistics: its median and interval per call and per byte, throughput,
//! outliers, the spread between processes and the box plot of its raw samples.

use super::*;

/// Statistics of one measured case.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Measured {
    /// Raw samples in all, over every process.
    pub samples: usize,
    /// Worker processes measured (independent runs), shown as `clusters` in JSON.
    #[serde(rename = "clusters")]
    pub processes: usize,
    /// Calls timed back to back in each sample; `None` for cases imported from another
    /// tool, which does not say.
    pub calls_per_sample: Option<u64>,
    /// Summary of the raw samples (counts per call), every process's together.
    pub summary: Summary,
    /// Median counts per call with its 95 % interval (clusters resampled); without one
    /// ([`Measured::has_interval`]) the interval is the point.
    pub median: Interval,
    /// `median` over the bytes one call processes; `None` where the case has no bytes.
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
    /// Raw samples beyond Tukey's fences, every process's together.
    pub outliers: Outliers,
    /// The raw samples' shape, for box plots, with at most [`MARKED_OUTLIERS`] outliers
    /// marked a side.
    pub distribution: BoxPlot,
    /// Whether `median` and `per_byte` have an interval at all.
    interval: bool,
}

/// One case of a run as reports show it: what it is, how its measuring ended and its
/// statistics.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CaseStats {
    /// The case's stable id, e.g. `rustcrypto/chacha20/xor len=16384`.
    pub key: String,
    /// The implementation measured, e.g. `rustcrypto/chacha20`.
    pub implementation: String,
    /// The operation measured, e.g. `xor`.
    pub operation: String,
    /// The operation's parameters, e.g. `len=16384`.
    pub params: Params,
    /// Bytes one call processes, every lane's together; `None` where the operation has
    /// no length.
    pub bytes: Option<u64>,
    /// Independent inputs per call (N for an N-lane implementation).
    #[serde(skip)]
    pub lanes: usize,
    /// How the case's measuring ended.
    pub status: CaseStatus,
    /// Why it failed, or the correctness check's caveats; `None` where there is nothing
    /// to say.
    pub message: Option<String>,
    /// Its statistics; `None` unless it ended `ok` with samples.
    pub measured: Option<Measured>,
    /// Processes left out of the figures because the canary moved while they ran.
    pub set_aside: usize,
    /// Too few of its processes ran on a steady host to leave the others out: its
    /// figures mix the host's states, and no gate decides on them.
    pub unsteady: bool,
    /// Processes measured beyond those asked, by re-measuring (`--precision`).
    pub processes_added: usize,
}

impl CaseStats {
    /// Measured after a correctness check that left nothing out. Where the check had
    /// caveats (no known answers to check against, a KAT file missing) they are the
    /// case's message.
    pub fn verified(&self) -> bool {
        self.measured.is_some() && self.status == CaseStatus::Ok && self.message.is_none()
    }
}

/// Counts per second, where the counter ticks at a known rate (TSC, nanoseconds), or
/// at the core clock measured when the run started (estimated core cycles, for runs
/// stored before each case kept the clock beside its samples).
pub(super) fn counts_per_second(header: &RunHeader) -> Option<f64> {
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
pub(super) fn single_sample(x: f64) -> Option<(Summary, Interval)> {
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

/// A case's statistics as every report gives them; `None` unless it ended `ok` with samples.
pub fn measure_case(c: &StoredCase, header: &RunHeader) -> Option<Measured> {
    if c.status != CaseStatus::Ok || c.per_process.is_empty() {
        return None;
    }
    let all: Vec<f64> = c.per_process.iter().flatten().copied().collect();
    let (summary, median, interval) = match all[..] {
        [x] => single_sample(x).map(|(s, m)| (s, m, false))?,
        _ => {
            let summary = Summary::of(&all)?;
            let refs: Vec<&[f64]> = c.per_process.iter().map(Vec::as_slice).collect();
            let ci = if refs.len() >= stats::min_clusters(LEVEL) {
                Some(stats::cluster_bootstrap_ci(
                    &refs,
                    median_of,
                    stats::RESAMPLES,
                    LEVEL,
                    stats::seed_of(&c.key),
                )?)
            } else if refs.len() == 1 && header.imported().is_some() {
                // One criterion benchmark: its samples are taken as independent, as
                // criterion takes them. Measured here, one process's samples share its
                // offset, and an interval from them would be far too narrow.
                let mut sorted = all.clone();
                sorted.sort_by(f64::total_cmp);
                stats::median_ci(&sorted, LEVEL)
            } else {
                // Too few processes for any 95 % interval: the figure, and no claim.
                None
            };
            let point = Interval {
                estimate: summary.median,
                lo: summary.median,
                hi: summary.median,
                level: LEVEL,
            };
            (summary, ci.unwrap_or(point), ci.is_some())
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
        processes: c.per_process.len(),
        calls_per_sample: c.calls_per_sample,
        summary,
        median,
        per_byte,
        throughput_bytes_per_s,
        core_clock_hz,
        process_spread_pct,
        outliers: stats::tukey(&all),
        distribution: BoxPlot::of(&all, MARKED_OUTLIERS),
        interval,
    })
}

impl Measured {
    /// Whether the figures come with an interval: a single measurement has none, nor
    /// has a run of fewer processes than a 95 % interval needs
    /// ([`stats::min_clusters`]); a zero-width one printed as `±0.00 %` would claim a
    /// precision nobody measured.
    pub fn has_interval(&self) -> bool {
        self.interval
    }
}

pub(super) fn process_spread_pct(per_process: &[f64]) -> Option<f64> {
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

pub(super) fn cluster_medians(c: &StoredCase) -> Vec<f64> {
    c.per_process.iter().map(|cl| median_of(cl)).collect()
}
