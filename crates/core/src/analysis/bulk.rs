//! The figures of a stored bulk run, computed from the store alone: every run, a summary
//! per implementation, operation, size and thread count, and scaling against one thread,
//! OpenSSL on one thread and memcpy's rate. [`crate::report::bulk`] only formats them.

use crate::name::ImplName;
use crate::record::Param;
use crate::record::{CaseStatus, MEMCPY};
use crate::size::format_size;
use crate::stats::{self, Summary};
use crate::store::{StoredCase, StoredRun};

/// Bytes per MB: rates are reckoned in MB/s (and shown in MiB/s beside, with [`MIB`]).
pub const MB: f64 = 1e6;
/// Bytes per MiB.
pub const MIB: f64 = 1_048_576.0;

/// One stored case with the figures the tables use.
pub struct Series<'a> {
    /// The stored case: an implementation's operation at one size and thread count.
    pub case: &'a StoredCase,
    /// The buffer's size in bytes (`len`); 0 where the case has none.
    pub len: u64,
    /// The threads the operation ran on (`threads`); 0 where the case has none.
    pub threads: u64,
    /// Nanoseconds of each run, in run order.
    pub ns: Vec<f64>,
}

impl Series<'_> {
    /// The rate of each run, in MB/s, in run order.
    pub fn rates(&self) -> Vec<f64> {
        self.ns.iter().map(|&ns| mb_per_s(self.len, ns)).collect()
    }

    fn median_rate(&self) -> Option<f64> {
        stats::median(&self.rates())
    }

    /// Whether the case was measured and verified (status `ok`).
    pub fn ok(&self) -> bool {
        self.case.status == CaseStatus::Ok
    }
}

/// The rate of `bytes` processed in `ns` nanoseconds, in MB/s (decimal megabytes).
pub fn mb_per_s(bytes: u64, ns: f64) -> f64 {
    bytes as f64 / (ns * 1e-9) / MB
}

/// One run of a case: a row of the table of every run.
pub struct RunRow<'a> {
    /// The case run: encryption's, or the copy's.
    pub series: &'a Series<'a>,
    /// The run's index in the session, from 0.
    pub run: usize,
    /// Nanoseconds of this run of the case.
    pub first_ns: f64,
    /// Decryption's, beside encryption's; none for the copy.
    pub second_ns: Option<f64>,
}

/// A case's rates over its runs: a row of the summary table.
pub struct SummaryRow<'a> {
    /// The case summarised.
    pub series: &'a Series<'a>,
    /// Statistics of the rates of its runs, in MB/s.
    pub rate: Summary,
    /// The median rate's distribution-free 95 % interval (order statistics), in MB/s;
    /// `None` for fewer than 6 runs, which cannot reach 95 %.
    pub median_ci: Option<stats::Interval>,
    /// The median nanoseconds of one run.
    pub median_ns: f64,
}

/// A case's median rate against references: a row of the scaling table.
pub struct ScalingRow<'a> {
    /// The case.
    pub series: &'a Series<'a>,
    /// The median rate of its runs, in MB/s.
    pub median: f64,
    /// Its rate over the same implementation's on one thread (same operation and size);
    /// `None` without that case.
    pub speedup: Option<RateRatio>,
    /// Its rate over OpenSSL's for the same algorithm on one thread (same operation and
    /// size); `None` for memcpy, or without that case.
    pub vs_openssl: Option<RateRatio>,
    /// `median` over memcpy's fastest median rate at the same size, at any thread count;
    /// `None` without a memcpy case of that size.
    pub of_memcpy: Option<f64>,
}

/// One case's rate over another's: the Hodges-Lehmann ratio of their runs' rates with its
/// 95 % interval, as lane speed-ups are given, so that a speed-up says how sure it is.
/// Where too few runs reach 95 % (fewer than 4 each), the ratio of their median rates
/// and no interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateRatio {
    /// The ratio.
    pub estimate: f64,
    /// Its interval; `None` where the runs cannot reach 95 %.
    pub ci: Option<stats::Interval>,
}

impl RateRatio {
    /// `of`'s rate over `to`'s: exactly 1 for a case against itself (one thread's own
    /// row), whose runs are not two samples.
    fn of(of: &Series, to: &Series) -> Option<RateRatio> {
        if std::ptr::eq(of, to) {
            return Some(RateRatio {
                estimate: 1.0,
                ci: None,
            });
        }
        if let Some(ci) =
            stats::hodges_lehmann_ratio(&to.rates(), &of.rates(), crate::analysis::LEVEL)
        {
            return Some(RateRatio {
                estimate: ci.estimate,
                ci: Some(ci),
            });
        }
        let ratio = of.median_rate()? / to.median_rate()?;
        Some(RateRatio {
            estimate: ratio,
            ci: None,
        })
    }
}

/// The rows of the three tables, over the series of a run.
pub struct BulkAnalysis<'a> {
    /// Every case of the run, in store order (the charts draw from them).
    pub series: &'a [Series<'a>],
    /// Every run of every measured case but decryption, which is given beside its
    /// encryption.
    pub runs: Vec<RunRow<'a>>,
    /// Each measured case's rates over its runs.
    pub summary: Vec<SummaryRow<'a>>,
    /// Each measured case's median rate against one thread, OpenSSL and memcpy.
    pub scaling: Vec<ScalingRow<'a>>,
    /// Cases with no figures, and why.
    pub problems: Vec<String>,
}

/// Every case of a stored bulk run as a series, in store order (a bulk case keeps one
/// cluster per run, holding that run's nanoseconds).
pub fn series(run: &StoredRun) -> Vec<Series<'_>> {
    run.cases
        .iter()
        .map(|case| Series {
            case,
            len: case.params.get(Param::Len).unwrap_or(0),
            threads: case.params.get(Param::Threads).unwrap_or(0),
            ns: case
                .per_process
                .iter()
                .filter_map(|c| c.first().copied())
                .collect(),
        })
        .collect()
}

fn find<'a>(
    all: &'a [Series<'a>],
    implementation: &str,
    operation: &str,
    len: u64,
    threads: u64,
) -> Option<&'a Series<'a>> {
    all.iter().find(|s| {
        s.ok()
            && s.case.implementation == implementation
            && s.case.operation == operation
            && s.len == len
            && s.threads == threads
    })
}

/// `openssl/aes-128-ctr` for `cryptobench/aes-128-ctr@aesni`; none for memcpy, which has
/// no provider.
fn openssl_twin(implementation: &str) -> Option<String> {
    let name = ImplName::parse(implementation);
    name.provider()
        .map(|_| ImplName::new("openssl", name.algorithm()).to_string())
}

impl<'a> BulkAnalysis<'a> {
    /// The tables' rows over a run's series, and the cases with no figures.
    pub fn of(all: &'a [Series<'a>]) -> Self {
        let mut t = BulkAnalysis {
            series: all,
            runs: Vec::new(),
            summary: Vec::new(),
            scaling: Vec::new(),
            problems: Vec::new(),
        };
        for s in all {
            if !s.ok() {
                t.problems.push(format!(
                    "{} {} at {} with {} threads: {} — {}",
                    s.case.implementation,
                    s.case.operation,
                    format_size(s.len),
                    s.threads,
                    status_word(s.case.status),
                    s.case.message.as_deref().unwrap_or("no reason recorded")
                ));
                continue;
            }
            if s.case.operation != "decrypt" {
                let partner = find(all, &s.case.implementation, "decrypt", s.len, s.threads);
                for (run, &first_ns) in s.ns.iter().enumerate() {
                    t.runs.push(RunRow {
                        series: s,
                        run,
                        first_ns,
                        second_ns: partner.and_then(|p| p.ns.get(run).copied()),
                    });
                }
            }
            let mut sorted = s.rates();
            sorted.sort_by(f64::total_cmp);
            if let (Some(rate), Some(median_ns)) = (Summary::of(&sorted), stats::median(&s.ns)) {
                t.summary.push(SummaryRow {
                    series: s,
                    rate,
                    median_ci: stats::median_ci(&sorted, crate::analysis::LEVEL),
                    median_ns,
                });
            }
            let Some(median) = s.median_rate() else {
                continue;
            };
            let one_thread =
                |implementation: &str| find(all, implementation, &s.case.operation, s.len, 1);
            let memcpy = all
                .iter()
                .filter(|m| m.ok() && m.case.implementation == MEMCPY && m.len == s.len)
                .filter_map(Series::median_rate)
                .reduce(f64::max);
            t.scaling.push(ScalingRow {
                series: s,
                median,
                speedup: one_thread(&s.case.implementation).and_then(|one| RateRatio::of(s, one)),
                vs_openssl: openssl_twin(&s.case.implementation)
                    .and_then(|o| one_thread(&o))
                    .and_then(|o| RateRatio::of(s, o)),
                of_memcpy: memcpy.map(|c| median / c),
            });
        }
        t
    }
}

fn status_word(status: CaseStatus) -> &'static str {
    match status {
        CaseStatus::Wrong => "WRONG OUTPUT, not shown",
        CaseStatus::Failed => "FAILED",
        CaseStatus::Unsupported => "not supported on this CPU",
        CaseStatus::Pending => "not measured (interrupted)",
        CaseStatus::Ok => "ok",
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn rates_are_decimal_megabytes_per_second() {
        // 1 GiB in one second.
        assert_eq!(mb_per_s(1 << 30, 1e9), 1073.741824);
        // A MB in a millisecond.
        assert_eq!(mb_per_s(1_000_000, 1e6), 1000.0);
    }

    #[test]
    fn openssl_twins() {
        assert_eq!(
            openssl_twin("cryptobench/aes-128-ctr@aesni").as_deref(),
            Some("openssl/aes-128-ctr")
        );
        assert_eq!(
            openssl_twin("rustcrypto/aes-256-ecb").as_deref(),
            Some("openssl/aes-256-ecb")
        );
        assert_eq!(openssl_twin(MEMCPY), None);
    }

    fn case(threads: u64, runs_ns: &[f64]) -> StoredCase {
        bulk_case("cryptobench/aes-128-ctr@aesni", 1_000_000, threads, runs_ns)
    }

    /// A bulk case of `implementation` encrypting `len` bytes over `threads`, a run
    /// taking each of `runs_ns`.
    pub(crate) fn bulk_case(
        implementation: &str,
        len: u64,
        threads: u64,
        runs_ns: &[f64],
    ) -> StoredCase {
        StoredCase {
            row: 0,
            key: String::new(),
            implementation: implementation.into(),
            operation: "encrypt".into(),
            params: crate::record::Params::new()
                .with(Param::Len, len)
                .with(Param::Threads, threads),
            bytes: Some(len),
            lanes: 1,
            status: CaseStatus::Ok,
            message: None,
            calls_per_sample: Some(1),
            overhead: None,
            per_process: runs_ns.iter().map(|&ns| vec![ns]).collect(),
            core_clocks: Vec::new(),
            canary: Vec::new(),
        }
    }

    /// The series `series` makes of a run holding `cases`.
    pub(crate) fn of_cases(cases: &[StoredCase]) -> Vec<Series<'_>> {
        (cases.iter())
            .map(|case| Series {
                case,
                len: case.params.get(Param::Len).unwrap_or(0),
                threads: case.params.get(Param::Threads).unwrap_or(0),
                ns: case.per_process.iter().map(|c| c[0]).collect(),
            })
            .collect()
    }

    /// A speed-up is the Hodges-Lehmann ratio of the runs' rates with its interval, as
    /// lane speed-ups are; a ratio of medians without one where runs are too few.
    #[test]
    fn a_speed_up_says_how_sure_it_is() {
        // One thread: 1000 MB/s give or take; four threads: exactly four times each.
        let one_ns = [1000.0, 1010.0, 990.0, 1020.0, 980.0, 1005.0].map(|x| x * 1e3);
        let cases = [case(1, &one_ns), case(4, &one_ns.map(|ns| ns / 4.0))];
        let all = of_cases(&cases);
        let t = BulkAnalysis::of(&all);
        let four = t.scaling.iter().find(|r| r.series.threads == 4).unwrap();
        let speedup = four.speedup.unwrap();
        let ci = speedup.ci.expect("6 runs each reach 95 %");
        assert!((speedup.estimate - 4.0).abs() < 1e-9, "{speedup:?}");
        let one = t.scaling.iter().find(|r| r.series.threads == 1).unwrap();
        assert_eq!(
            one.speedup,
            Some(RateRatio {
                estimate: 1.0,
                ci: None
            })
        );
        // The pairs of rates differ by up to 1020/980: the interval is that wide, and
        // holds the estimate.
        assert!(ci.lo < 4.0 && 4.0 < ci.hi, "{ci:?}");
        assert!(
            ci.lo > 4.0 * 980.0 / 1020.0 && ci.hi < 4.0 * 1020.0 / 980.0,
            "{ci:?}"
        );
        // Three runs each cannot reach 95 %: the ratio of the medians, and no interval.
        let cases = [case(1, &one_ns[..3]), case(4, &[250e3, 260e3, 240e3])];
        let all = of_cases(&cases);
        let t = BulkAnalysis::of(&all);
        let four = t.scaling.iter().find(|r| r.series.threads == 4).unwrap();
        let speedup = four.speedup.unwrap();
        assert_eq!(speedup.ci, None);
        assert!(
            (speedup.estimate - 1000.0 / 250.0).abs() < 1e-9,
            "{speedup:?}"
        );
    }
}
