//! The bulk tables of a stored run, from its [`crate::analysis::bulk`]: every run (the seed's
//! table), the summary and the scaling, as table, md, json, csv or html.

use serde_json::{Value, json};

use super::Format;
use super::csv::{Num, table};
use super::format::{ci_heading, fmt_ratio};
use super::{Block, Document, provenance};
use crate::analysis::bulk::{self as analysis, BulkAnalysis, MB, MIB, RateRatio, Series, mb_per_s};
use crate::name::ImplName;
use crate::record::{MEMCPY, RunOrigin};
use crate::size::format_size;
use crate::stats::{self, Summary};
use crate::store::StoredRun;

const MEMCPY_REFERENCE: &str = "memcpy: the fastest memcpy of the same size (median of its runs, at the thread count where it is fastest), a reference, not a ceiling. A copy streams two buffers (it reads one and writes the other); in-place encryption streams one (it reads and writes the same lines), so it can pass memcpy's rate, above all where the buffer fits the cache. Both rates count N bytes per pass of N bytes.";

/// A stored bulk run's own tables in `format`; `None` where the format takes a bulk
/// run's cases as any run's (the exports: Bencher, github-action-benchmark).
pub fn render(run: &StoredRun, format: Format) -> Option<String> {
    let all = analysis::series(run);
    format.exporter().bulk(run, &BulkAnalysis::of(&all))
}

/// One chart per buffer size and algorithm: each implementation's encryption rate against
/// threads, beside memcpy's copy rate of the same size (a reference).
pub(super) fn scaling_charts(t: &BulkAnalysis) -> Vec<crate::report::charts::Chart> {
    let all = t.series;
    let line = |s: &Series| {
        let rates = s.rates();
        let summary = Summary::of(&rates)?;
        Some((s.threads, stats::median(&rates)?, summary.min, summary.max))
    };
    let mut charts = Vec::new();
    let mut sizes: Vec<u64> = all.iter().map(|s| s.len).collect();
    sizes.sort_unstable();
    sizes.dedup();
    for len in sizes {
        let at_len: Vec<&Series> = all.iter().filter(|s| s.ok() && s.len == len).collect();
        let mut memcpy: Vec<_> = at_len
            .iter()
            .filter(|s| s.case.implementation == MEMCPY)
            .filter_map(|s| line(s))
            .collect();
        memcpy.sort_by_key(|p| p.0);
        // A code path of ours (`aes-128-ctr@aesni`) gets a chart of its own, away from
        // the libraries.
        let mut algorithms: Vec<ImplName> = Vec::new();
        for s in &at_len {
            let name = ImplName::parse(&s.case.implementation);
            let alg = name.without_provider();
            if name.provider().is_some() && !algorithms.contains(&alg) {
                algorithms.push(alg);
            }
        }
        for alg in algorithms {
            let mut lines: Vec<crate::report::charts::ScalingLine> = Vec::new();
            for s in at_len.iter().filter(|s| {
                s.case.operation == "encrypt"
                    && ImplName::parse(&s.case.implementation).without_provider() == alg
            }) {
                let Some(point) = line(s) else { continue };
                match lines.iter_mut().find(|(l, _)| *l == s.case.implementation) {
                    Some((_, points)) => points.push(point),
                    None => lines.push((s.case.implementation.clone(), vec![point])),
                }
            }
            // A run stopped early has sizes whose series have too few runs for a point.
            if lines.is_empty() {
                continue;
            }
            if !memcpy.is_empty() {
                lines.insert(0, ("memcpy (a reference)".into(), memcpy.clone()));
            }
            for (_, points) in lines.iter_mut() {
                points.sort_by_key(|p| p.0);
            }
            let title = format!("Thread scaling: {alg} encryption of {}", format_size(len));
            charts.push(crate::report::charts::thread_scaling(&title, lines, None));
        }
    }
    charts
}

/// Milliseconds to three decimals, and to four significant digits below 1 ms, so that a
/// time can be checked against the rate beside it (42 µs read `0.042`, two digits).
fn ms(ns: f64) -> String {
    let ms = ns / 1e6;
    let decimals = if ms > 0.0 && ms < 1.0 {
        (3 - ms.log10().floor() as i32).clamp(3, 9) as usize
    } else {
        3
    };
    format!("{ms:.decimals$}")
}

fn rate(x: f64) -> String {
    format!("{x:.1}")
}

/// `3.910x [3.850, 3.970]`, or `3.91x` where too few runs gave no interval.
fn ratio(x: Option<RateRatio>) -> String {
    match x {
        Some(RateRatio { ci: Some(i), .. }) => fmt_ratio(&i),
        Some(x) => format!("{:.2}x", x.estimate),
        None => String::new(),
    }
}

fn percent(x: Option<f64>) -> String {
    x.map_or(String::new(), |x| format!("{:.1} %", 100.0 * x))
}

/// A bulk run's tables, titled: per run, summary and scaling.
pub(super) fn document(run: &StoredRun, t: &BulkAnalysis) -> Document {
    let h = &run.header;
    let bulk = match &h.options {
        RunOrigin::Bulk { bulk } => Some(bulk),
        _ => None,
    };
    let cpu_order = bulk.map_or("(not recorded)".into(), |b| {
        format!("{:?}", b.cpu_order).replace(' ', "")
    });
    let mut blocks = vec![Block::Heading(format!("cryptobench bulk run {}", h.id))];
    blocks.extend(provenance(
        h,
        &h.machine
            .measured()
            .map_or(String::new(), |m| format!(", {} CPUs", m.online_cpus)),
    ));
    blocks.push(Block::Line(format!(
        "Threads: one per CPU, pinned, taking CPUs in the order {} (one per physical core first); the calling thread does the first chunk. Chunks start on 4 KiB boundaries; each CTR chunk starts at its own counter.",
        cpu_order
    )));
    if let Some(b) = bulk
        && let Some(&most) = b.threads.iter().max()
        && most > b.cpu_order.len()
    {
        blocks.push(Block::Warning(format!(
            "Warning: {most} threads on {} CPUs: threads shared CPUs, so the figures at more threads than CPUs show oversubscription, not scaling.",
            b.cpu_order.len()
        )));
    }
    let before_each = if bulk.is_some_and(|b| b.warmed_up) {
        "each after the same operation run untimed on 16 KiB per thread and a read of every byte of both buffers, on its own threads (so that every operation starts from the same state of the code's and the data's caches)"
    } else {
        "each after an untimed comparison of the two buffers on its own threads, which before a decryption stopped at the first byte; no operation ran untimed first, so one timed first after another case started cold (at sizes within the caches, encryption then measured up to 2.4 times slower than decryption of the same CTR keystream: measure again to compare the two)"
    };
    blocks.push(Block::Line(format!(
        "Buffers: page-aligned (huge pages asked for), filled with random data and touched before anything is timed. Each run encrypts the buffer in place and decrypts it again, each on the wall clock (CLOCK_MONOTONIC_RAW), {before_each}; after timing, every chunk's first and last ciphertext block and 32 random ones are checked against the reference, and the decrypted buffer against the input."
    )));
    blocks.push(Block::Line(
        "Units: MB/s = 10^6 bytes/s; MiB/s = 2^20 bytes/s (1 MB/s = 0.954 MiB/s); times in ms."
            .into(),
    ));

    blocks.push(Block::Heading(
        "Summary: MB/s over the runs (statistics of each run's rate; the median's 95 % interval from order statistics, none below 6 runs)".into(),
    ));
    // A column of intervals only where some series has one: below 6 runs it would be
    // dashes under a heading that promises intervals.
    let ci_column = t.summary.iter().any(|r| r.median_ci.is_some());
    let mut headers = [
        "Implementation",
        "Operation",
        "Size",
        "Threads",
        "Runs",
        "Median (MB/s)",
    ]
    .map(String::from)
    .to_vec();
    if ci_column {
        headers.push("95 % CI".into());
    }
    headers.extend(
        [
            "Mean",
            "Min",
            "Max",
            "Std dev",
            "Median (MiB/s)",
            "Median time (ms)",
        ]
        .map(String::from),
    );
    blocks.push(Block::Table {
        headers,
        rows: t
            .summary
            .iter()
            .map(|r| {
                let s = r.series;
                let mut row = vec![
                    s.case.implementation.clone(),
                    s.case.operation.clone(),
                    format_size(s.len),
                    s.threads.to_string(),
                    r.rate.n.to_string(),
                    rate(r.rate.median),
                ];
                if ci_column {
                    row.push(r.median_ci.map_or("—".into(), |i| {
                        format!("[{}, {}]", rate(i.lo), rate(i.hi))
                    }));
                }
                row.extend([
                    rate(r.rate.mean),
                    rate(r.rate.min),
                    rate(r.rate.max),
                    rate(r.rate.std_dev),
                    rate(r.rate.median * MB / MIB),
                    ms(r.median_ns),
                ]);
                row
            })
            .collect(),
    });

    blocks.push(Block::Heading(
        "Scaling: median MB/s against one thread, OpenSSL on one thread, and memcpy's rate (the ratios of the runs' rates: Hodges-Lehmann with a 95 % interval, a ratio of medians without one below 4 runs)".into(),
    ));
    blocks.push(Block::Line(MEMCPY_REFERENCE.into()));
    let cache = h.machine.measured().and_then(|m| m.last_level_cache_bytes);
    if let Some(note) = cache.and_then(|c| cache_note(c, t.series.iter().map(|s| s.len))) {
        blocks.push(Block::Warning(note));
    }
    let ratio_heading = |of: fn(&analysis::ScalingRow) -> Option<RateRatio>| {
        ci_heading(t.scaling.iter().filter_map(of).map(|x| x.ci.is_some()))
    };
    blocks.push(Block::Table {
        headers: vec![
            "Implementation".into(),
            "Operation".into(),
            "Size".into(),
            "Threads".into(),
            "Median (MB/s)".into(),
            format!("Speed-up vs 1 thread{}", ratio_heading(|r| r.speedup)),
            format!("vs OpenSSL 1 thread{}", ratio_heading(|r| r.vs_openssl)),
            "% of memcpy's rate".into(),
        ],
        rows: t
            .scaling
            .iter()
            .map(|r| {
                let s = r.series;
                vec![
                    s.case.implementation.clone(),
                    s.case.operation.clone(),
                    format_size(s.len),
                    s.threads.to_string(),
                    rate(r.median),
                    ratio(r.speedup),
                    ratio(r.vs_openssl),
                    percent(r.of_memcpy),
                ]
            })
            .collect(),
    });
    if t.problems.is_empty() {
        blocks.push(Block::Line(
            "Every run verified: all sampled ciphertext blocks matched the reference and every decryption restored the input.".into(),
        ));
    } else {
        blocks.extend(t.problems.iter().map(|p| Block::Line(format!("Note: {p}"))));
    }
    // Every run last: the summaries and the charts (which HTML places after the first
    // table) come before a table of hundreds of rows.
    let mut every_run = Vec::new();
    every_run.push(Block::Heading("Every run".into()));
    every_run.push(Block::Line(
        "memcpy rows hold the copy in the encryption columns.".into(),
    ));
    every_run.push(Block::Table {
        headers: [
            "Implementation",
            "Size",
            "Threads",
            "Run",
            "Encryption (ms)",
            "Encryption (MB/s)",
            "Decryption (ms)",
            "Decryption (MB/s)",
        ]
        .map(String::from)
        .to_vec(),
        rows: t
            .runs
            .iter()
            .map(|r| {
                let s = r.series;
                vec![
                    s.case.implementation.clone(),
                    format_size(s.len),
                    s.threads.to_string(),
                    (r.run + 1).to_string(),
                    ms(r.first_ns),
                    rate(mb_per_s(s.len, r.first_ns)),
                    r.second_ns.map_or(String::new(), ms),
                    r.second_ns
                        .map_or(String::new(), |ns| rate(mb_per_s(s.len, ns))),
                ]
            })
            .collect(),
    });

    blocks.extend(every_run);
    Document { blocks }
}

/// Sizes that fit in the last-level cache measure the cache, where in-place work (one
/// buffer) can pass a copy (two).
fn cache_note(cache: u64, sizes: impl Iterator<Item = u64>) -> Option<String> {
    let mut within: Vec<u64> = sizes.filter(|&len| len <= cache).collect();
    within.sort_unstable();
    within.dedup();
    let largest = *within.last()?;
    Some(format!(
        "Cache: {} fit{} in the {} last-level cache this machine reports; there the rates are the cache's, not memory's, and in-place work can pass memcpy's. Sizes well beyond it measure memory.",
        if within.len() == 1 {
            format_size(largest)
        } else {
            format!("sizes up to {}", format_size(largest))
        },
        if within.len() == 1 { "s" } else { "" },
        format_size(cache)
    ))
}

fn series_json(s: &Series) -> Value {
    json!({
        "implementation": s.case.implementation,
        "operation": s.case.operation,
        "size_bytes": s.len,
        "threads": s.threads,
    })
}

/// A ratio's 95 % interval as `[lo, hi]`, where it has one.
fn ci95(x: Option<RateRatio>) -> Option<[f64; 2]> {
    x.and_then(|x| x.ci).map(|i| [i.lo, i.hi])
}

/// A bulk run as one JSON object.
pub(super) fn json(run: &StoredRun, t: &BulkAnalysis) -> String {
    let h = &run.header;
    let runs: Vec<Value> = t
        .runs
        .iter()
        .map(|r| {
            let s = r.series;
            let mut v = series_json(s);
            v["run"] = json!(r.run + 1);
            v["ns"] = json!(r.first_ns);
            v["mb_per_s"] = json!(mb_per_s(s.len, r.first_ns));
            if let Some(ns) = r.second_ns {
                v["decrypt_ns"] = json!(ns);
                v["decrypt_mb_per_s"] = json!(mb_per_s(s.len, ns));
            }
            v
        })
        .collect();
    let summary: Vec<Value> = t
        .summary
        .iter()
        .map(|r| {
            let mut v = series_json(r.series);
            v["runs"] = json!(r.rate.n);
            v["mb_per_s"] = json!({
                "median": r.rate.median,
                "median_ci95": r.median_ci.map(|i| [i.lo, i.hi]),
                "mean": r.rate.mean,
                "min": r.rate.min,
                "max": r.rate.max,
                "std_dev": r.rate.std_dev,
            });
            v["median_mib_per_s"] = json!(r.rate.median * MB / MIB);
            v["median_ns"] = json!(r.median_ns);
            v
        })
        .collect();
    let scaling: Vec<Value> = t
        .scaling
        .iter()
        .map(|r| {
            let mut v = series_json(r.series);
            v["median_mb_per_s"] = json!(r.median);
            v["speedup_vs_1_thread"] = json!(r.speedup.map(|x| x.estimate));
            v["speedup_vs_1_thread_ci95"] = json!(ci95(r.speedup));
            v["vs_openssl_1_thread"] = json!(r.vs_openssl.map(|x| x.estimate));
            v["vs_openssl_1_thread_ci95"] = json!(ci95(r.vs_openssl));
            v["fraction_of_memcpy"] = json!(r.of_memcpy);
            v
        })
        .collect();
    let doc = json!({
        "run_id": h.id,
        "experiment": h.experiment,
        "started_at": h.started_at,
        "status": h.status.reported(),
        "tool_version": h.tool_version,
        "git_revision": h.git_revision,
        "machine": h.machine.untagged(),
        "options": h.options.untagged(),
        "units": { "time": "ns (CLOCK_MONOTONIC_RAW)", "rate": "MB/s = 10^6 bytes/s" },
        "memcpy_reference": MEMCPY_REFERENCE,
        "runs": runs,
        "summary": summary,
        "scaling": scaling,
        "problems": t.problems,
        "verified": t.problems.is_empty(),
    });
    serde_json::to_string_pretty(&doc).expect("JSON values serialise") + "\n"
}

/// Three sections (runs, summary, scaling), each with its header row, separated by a blank line.
/// The columns that name a series: the same in all three tables.
#[derive(Default, serde::Serialize)]
struct SeriesColumns<'a> {
    /// `complete`, or `incomplete` for a run stopped before its end, whose rows are
    /// fewer than asked: as every run's CSV says it.
    run_status: &'a str,
    implementation: &'a str,
    operation: &'a str,
    size_bytes: u64,
    threads: u64,
}

impl<'a> SeriesColumns<'a> {
    fn of(s: &'a Series, run_status: &'a str) -> SeriesColumns<'a> {
        SeriesColumns {
            run_status,
            implementation: &s.case.implementation,
            operation: &s.case.operation,
            size_bytes: s.len,
            threads: s.threads,
        }
    }
}

#[derive(Default, serde::Serialize)]
struct RunColumns {
    run: usize,
    ns: Num,
    mb_per_s: Num,
    decrypt_ns: Num,
    decrypt_mb_per_s: Num,
}

#[derive(Default, serde::Serialize)]
struct SummaryColumns {
    runs: usize,
    median_mb_per_s: Num,
    median_ci95_lo_mb_per_s: Num,
    median_ci95_hi_mb_per_s: Num,
    mean_mb_per_s: Num,
    min_mb_per_s: Num,
    max_mb_per_s: Num,
    std_dev_mb_per_s: Num,
    median_mib_per_s: Num,
    median_ns: Num,
}

#[derive(Default, serde::Serialize)]
struct ScalingColumns {
    median_mb_per_s: Num,
    speedup_vs_1_thread: Num,
    speedup_vs_1_thread_ci95_lo: Num,
    speedup_vs_1_thread_ci95_hi: Num,
    vs_openssl_1_thread: Num,
    vs_openssl_1_thread_ci95_lo: Num,
    vs_openssl_1_thread_ci95_hi: Num,
    fraction_of_memcpy: Num,
}

/// The three tables, per run, summary and scaling, one after another with a blank line
/// between them.
pub(super) fn csv(run: &StoredRun, t: &BulkAnalysis) -> String {
    let status = run.header.status.reported();
    let runs = table(t.runs.iter().map(|r| {
        let s = r.series;
        (
            SeriesColumns::of(s, status),
            RunColumns {
                run: r.run + 1,
                ns: Num::of(r.first_ns),
                mb_per_s: Num::of(mb_per_s(s.len, r.first_ns)),
                decrypt_ns: Num(r.second_ns),
                decrypt_mb_per_s: Num(r.second_ns.map(|ns| mb_per_s(s.len, ns))),
            },
        )
    }));
    let summary = table(t.summary.iter().map(|r| {
        (
            SeriesColumns::of(r.series, status),
            SummaryColumns {
                runs: r.rate.n,
                median_mb_per_s: Num::of(r.rate.median),
                median_ci95_lo_mb_per_s: Num(r.median_ci.map(|i| i.lo)),
                median_ci95_hi_mb_per_s: Num(r.median_ci.map(|i| i.hi)),
                mean_mb_per_s: Num::of(r.rate.mean),
                min_mb_per_s: Num::of(r.rate.min),
                max_mb_per_s: Num::of(r.rate.max),
                std_dev_mb_per_s: Num::of(r.rate.std_dev),
                median_mib_per_s: Num::of(r.rate.median * MB / MIB),
                median_ns: Num::of(r.median_ns),
            },
        )
    }));
    let scaling = table(t.scaling.iter().map(|r| {
        (
            SeriesColumns::of(r.series, status),
            ScalingColumns {
                median_mb_per_s: Num::of(r.median),
                speedup_vs_1_thread: Num(r.speedup.map(|x| x.estimate)),
                speedup_vs_1_thread_ci95_lo: Num(ci95(r.speedup).map(|[lo, _]| lo)),
                speedup_vs_1_thread_ci95_hi: Num(ci95(r.speedup).map(|[_, hi]| hi)),
                vs_openssl_1_thread: Num(r.vs_openssl.map(|x| x.estimate)),
                vs_openssl_1_thread_ci95_lo: Num(ci95(r.vs_openssl).map(|[lo, _]| lo)),
                vs_openssl_1_thread_ci95_hi: Num(ci95(r.vs_openssl).map(|[_, hi]| hi)),
                fraction_of_memcpy: Num(r.of_memcpy),
            },
        )
    }));
    format!("{runs}\n{summary}\n{scaling}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::bulk::tests::{bulk_case, of_cases as series};
    use crate::store::StoredCase;

    fn case(implementation: &str, runs_ns: &[f64]) -> StoredCase {
        bulk_case(implementation, 1 << 20, 1, runs_ns)
    }

    /// The lines of a bulk run's page over `cases`, measured with `threads` on `cpus` CPUs
    /// by a harness that warmed up or not.
    fn lines(threads: Vec<usize>, cpus: usize, warmed_up: bool) -> Vec<String> {
        let cases = vec![case(MEMCPY, &[1e5, 1e5, 1e5])];
        document_of(threads, cpus, warmed_up, cases)
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::Line(l) | Block::Warning(l) => Some(l.clone()),
                _ => None,
            })
            .collect()
    }

    /// The page of a bulk run of `cases` ([`lines`]).
    fn document_of(
        threads: Vec<usize>,
        cpus: usize,
        warmed_up: bool,
        cases: Vec<StoredCase>,
    ) -> Document {
        use crate::counter::CounterKind;
        use crate::record::{BulkOptions, RunHeader, RunOrigin};
        let options = RunOrigin::Bulk {
            bulk: BulkOptions {
                sizes: vec![1 << 20],
                threads,
                runs: 3,
                filters: vec![],
                paths: false,
                cpu_order: (0..cpus).collect(),
                huge_pages: "asked for (madvise)".into(),
                command_line: vec![],
                warmed_up,
            },
        };
        let run = StoredRun {
            header: RunHeader::measured_now(
                "bulk",
                CounterKind::Ns,
                crate::machine::Machine::example(None),
                options,
                None,
            ),
            cases,
        };
        let all = series(&run.cases);
        document(&run, &BulkAnalysis::of(&all))
    }

    /// The summary's and the scaling table's headers promise an interval only where some
    /// figure under them has one: a median's needs 6 runs, a ratio's 4.
    #[test]
    fn headings_promise_intervals_only_where_the_runs_give_them() {
        let headers = |runs: usize| -> Vec<String> {
            let ns: Vec<f64> = (0..runs).map(|i| 1e5 + 1e3 * i as f64).collect();
            let cases = vec![
                case(MEMCPY, &ns),
                bulk_case("openssl/aes-128-ctr", 1 << 20, 1, &ns),
                bulk_case("openssl/aes-128-ctr", 1 << 20, 2, &ns),
            ];
            document_of(vec![1, 2], 2, true, cases)
                .blocks
                .iter()
                .filter_map(|b| match b {
                    Block::Table { headers, .. } => Some(headers.join(" | ")),
                    _ => None,
                })
                .collect()
        };
        let few = headers(3).join("\n");
        assert!(!few.contains("CI"), "{few}");
        assert!(few.contains("Speed-up vs 1 thread |"), "{few}");
        let some = headers(4).join("\n");
        assert!(
            !some.contains("| 95 % CI |"),
            "a median needs 6 runs: {some}"
        );
        assert!(some.contains("Speed-up vs 1 thread [95 % CI"), "{some}");
        let all = headers(6).join("\n");
        assert!(all.contains("| 95 % CI |"), "{all}");
    }

    /// A run says how each operation was started as the harness that measured it did:
    /// warmed up, or (runs stored before) cold, with what that did to the figures; and
    /// more threads than CPUs is said in the stored report, not only on stderr.
    #[test]
    fn the_page_says_how_its_own_run_was_measured() {
        let warm = lines(vec![1, 2], 2, true);
        let buffers = warm.iter().find(|l| l.starts_with("Buffers:")).unwrap();
        assert!(
            buffers.contains("the same operation run untimed"),
            "{buffers}"
        );
        assert!(
            !warm.iter().any(|l| l.contains("oversubscription")),
            "{warm:?}"
        );
        let cold = lines(vec![1, 4], 2, false);
        let buffers = cold.iter().find(|l| l.starts_with("Buffers:")).unwrap();
        assert!(buffers.contains("started cold"), "{buffers}");
        assert!(
            cold.iter().any(|l| l
                == "Warning: 4 threads on 2 CPUs: threads shared CPUs, so the figures at more threads than CPUs show oversubscription, not scaling."),
            "{cold:?}"
        );
    }

    #[test]
    fn times_keep_four_significant_digits_below_a_millisecond() {
        assert_eq!(ms(41_660.0), "0.04166");
        assert_eq!(ms(162_000_000.0), "162.000");
        assert_eq!(ms(1_234_567.0), "1.235");
        assert_eq!(ms(523_400.0), "0.5234");
        assert_eq!(ms(0.0), "0.000");
    }

    #[test]
    fn sizes_within_the_last_level_cache_are_named() {
        let l3 = 32 << 20;
        assert_eq!(cache_note(l3, [64 << 20, 1 << 30].into_iter()), None);
        let one = cache_note(l3, [16 << 20, 16 << 20, 1 << 30].into_iter()).unwrap();
        assert!(
            one.starts_with("Cache: 16 MiB fits in the 32 MiB last-level cache"),
            "{one}"
        );
        let some = cache_note(l3, [1 << 20, 32 << 20, 1 << 30].into_iter()).unwrap();
        assert!(
            some.starts_with("Cache: sizes up to 32 MiB fit in the 32 MiB"),
            "{some}"
        );
    }

    /// A run stopped by Ctrl-C after one timed run of a size has no line to draw there.
    #[test]
    fn a_size_with_too_few_runs_for_a_line_gets_no_chart() {
        let one_run = [case(MEMCPY, &[1e5]), case("openssl/aes-128-ctr", &[2e5])];
        let all = series(&one_run);
        assert!(scaling_charts(&BulkAnalysis::of(&all)).is_empty());

        let two_runs = [
            case(MEMCPY, &[1e5, 1.1e5]),
            case("openssl/aes-128-ctr", &[2e5, 2.2e5]),
        ];
        let all = series(&two_runs);
        let charts = scaling_charts(&BulkAnalysis::of(&all));
        assert_eq!(charts.len(), 1);
        assert!(charts[0].svg.is_ok(), "{:?}", charts[0].svg);
    }
}
