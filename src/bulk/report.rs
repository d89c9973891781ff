//! The bulk tables, computed from the stored run alone: every run (the seed's table), a
//! summary per implementation, operation, size and thread count, and scaling against one
//! thread, OpenSSL on one thread and the memcpy ceiling.

use anyhow::{Result, bail};
use serde_json::{Value, json};

use super::MEMCPY;
use super::size::format_size;
use crate::cli::Format;
use crate::name::ImplName;
use crate::report::csv::{field, opt};
use crate::report::{Block, Document, provenance};
use crate::stats::{self, Summary};
use crate::store::{CaseStatus, RunOrigin, StoredCase, StoredRun};

/// Bytes per MB and per MiB, the two units rates are given in.
const MB: f64 = 1e6;
const MIB: f64 = 1_048_576.0;

const CEILING: &str = "Ceiling: the fastest memcpy of the same size (median of its runs, at the thread count where it is fastest). Copying N bytes reads N and writes N bytes; encrypting or decrypting N bytes in place reads N and writes N too, so both rates count N bytes per pass and compare like with like (memory traffic is twice the rate shown).";

/// One stored case with the figures the tables use.
struct Series<'a> {
    case: &'a StoredCase,
    len: u64,
    threads: u64,
    /// Nanoseconds of each run, in run order.
    ns: Vec<f64>,
}

impl Series<'_> {
    fn rates(&self) -> Vec<f64> {
        self.ns.iter().map(|&ns| mb_per_s(self.len, ns)).collect()
    }

    fn median_rate(&self) -> Option<f64> {
        stats::median(&self.rates())
    }

    fn ok(&self) -> bool {
        self.case.status == CaseStatus::Ok
    }
}

fn mb_per_s(bytes: u64, ns: f64) -> f64 {
    bytes as f64 / (ns * 1e-9) / MB
}

struct RunRow<'a> {
    series: &'a Series<'a>,
    run: usize,
    first_ns: f64,
    /// Decryption's, beside encryption's; none for the copy.
    second_ns: Option<f64>,
}

struct SummaryRow<'a> {
    series: &'a Series<'a>,
    rate: Summary,
    median_ns: f64,
}

struct ScalingRow<'a> {
    series: &'a Series<'a>,
    median: f64,
    speedup: Option<f64>,
    vs_openssl: Option<f64>,
    of_ceiling: Option<f64>,
}

struct Tables<'a> {
    runs: Vec<RunRow<'a>>,
    summary: Vec<SummaryRow<'a>>,
    scaling: Vec<ScalingRow<'a>>,
    /// Cases with no figures, and why.
    problems: Vec<String>,
}

fn series(run: &StoredRun) -> Vec<Series<'_>> {
    run.cases
        .iter()
        .map(|case| Series {
            case,
            len: case.params.get("len").unwrap_or(0),
            threads: case.params.get("threads").unwrap_or(0),
            ns: case
                .clusters
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

fn tables<'a>(all: &'a [Series<'a>]) -> Tables<'a> {
    let mut t = Tables {
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
        if let (Some(rate), Some(median_ns)) = (Summary::of(&s.rates()), stats::median(&s.ns)) {
            t.summary.push(SummaryRow {
                series: s,
                rate,
                median_ns,
            });
        }
        let Some(median) = s.median_rate() else {
            continue;
        };
        let one_thread = |implementation: &str| {
            find(all, implementation, &s.case.operation, s.len, 1).and_then(Series::median_rate)
        };
        let ceiling = all
            .iter()
            .filter(|m| m.ok() && m.case.implementation == MEMCPY && m.len == s.len)
            .filter_map(Series::median_rate)
            .reduce(f64::max);
        t.scaling.push(ScalingRow {
            series: s,
            median,
            speedup: one_thread(&s.case.implementation).map(|one| median / one),
            vs_openssl: openssl_twin(&s.case.implementation)
                .and_then(|o| one_thread(&o))
                .map(|o| median / o),
            of_ceiling: ceiling.map(|c| median / c),
        });
    }
    t
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

/// Refuse, before anything is measured, a format the bulk tables do not come in.
pub fn check_format(format: Format) -> Result<()> {
    if !matches!(
        format,
        Format::Table | Format::Md | Format::Json | Format::Csv | Format::Html
    ) {
        bail!("`bulk` prints --format table, md, json, csv or html");
    }
    Ok(())
}

pub fn render(run: &StoredRun, format: Format) -> Result<String> {
    check_format(format)?;
    let all = series(run);
    let t = tables(&all);
    Ok(match format {
        Format::Md => crate::report::text::render(&document(run, &t), true),
        Format::Json => json(run, &t),
        Format::Csv => csv(&t),
        Format::Html => {
            crate::report::html::bulk_page(&run.header, &document(run, &t), &scaling_charts(&all))
        }
        _ => crate::report::text::render(&document(run, &t), false),
    })
}

/// One chart per buffer size and algorithm: each implementation's encryption rate against
/// threads, beside memcpy's copy rate of the same size (the ceiling).
fn scaling_charts(all: &[Series]) -> Vec<crate::report::charts::Chart> {
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
            let mut lines: Vec<crate::report::charts::ScalingLine> =
                vec![("memcpy (the ceiling)".into(), memcpy.clone())];
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
            for (_, points) in lines.iter_mut() {
                points.sort_by_key(|p| p.0);
            }
            let title = format!("Thread scaling: {alg} encryption of {}", format_size(len));
            charts.push(crate::report::charts::thread_scaling(&title, lines, None));
        }
    }
    charts
}

fn ms(ns: f64) -> String {
    format!("{:.3}", ns / 1e6)
}

fn rate(x: f64) -> String {
    format!("{x:.1}")
}

fn ratio(x: Option<f64>) -> String {
    x.map_or(String::new(), |x| format!("{x:.2}x"))
}

fn percent(x: Option<f64>) -> String {
    x.map_or(String::new(), |x| format!("{:.1} %", 100.0 * x))
}

fn document(run: &StoredRun, t: &Tables) -> Document {
    let h = &run.header;
    let cpu_order = match &h.options {
        RunOrigin::Bulk { bulk } => format!("{:?}", bulk.cpu_order).replace(' ', ""),
        _ => "(not recorded)".into(),
    };
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
    blocks.push(Block::Line(
        "Buffers: page-aligned (huge pages asked for), filled with random data and touched before anything is timed. Each run encrypts the buffer in place and decrypts it again, each on the wall clock (CLOCK_MONOTONIC_RAW), each after one untimed read of both buffers on its own threads (so that every operation starts from the same state of the caches); after timing, every chunk's first and last ciphertext block and 32 random ones are checked against the reference, and the decrypted buffer against the input.".into(),
    ));
    blocks.push(Block::Line(
        "Units: MB/s = 10^6 bytes/s; MiB/s = 2^20 bytes/s (1 MB/s = 0.954 MiB/s); times in ms."
            .into(),
    ));

    blocks.push(Block::Heading("Every run".into()));
    blocks.push(Block::Line(
        "memcpy rows hold the copy in the encryption columns.".into(),
    ));
    blocks.push(Block::Table {
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

    blocks.push(Block::Heading(
        "Summary: MB/s over the runs (statistics of each run's rate)".into(),
    ));
    blocks.push(Block::Table {
        headers: [
            "Implementation",
            "Operation",
            "Size",
            "Threads",
            "Runs",
            "Median (MB/s)",
            "Mean",
            "Min",
            "Max",
            "Std dev",
            "Median (MiB/s)",
            "Median time (ms)",
        ]
        .map(String::from)
        .to_vec(),
        rows: t
            .summary
            .iter()
            .map(|r| {
                let s = r.series;
                vec![
                    s.case.implementation.clone(),
                    s.case.operation.clone(),
                    format_size(s.len),
                    s.threads.to_string(),
                    r.rate.n.to_string(),
                    rate(r.rate.median),
                    rate(r.rate.mean),
                    rate(r.rate.min),
                    rate(r.rate.max),
                    rate(r.rate.std_dev),
                    rate(r.rate.median * MB / MIB),
                    ms(r.median_ns),
                ]
            })
            .collect(),
    });

    blocks.push(Block::Heading(
        "Scaling: median MB/s against one thread, OpenSSL on one thread, and the memcpy ceiling"
            .into(),
    ));
    blocks.push(Block::Line(CEILING.into()));
    blocks.push(Block::Table {
        headers: [
            "Implementation",
            "Operation",
            "Size",
            "Threads",
            "Median (MB/s)",
            "Speed-up vs 1 thread",
            "vs OpenSSL 1 thread",
            "% of memcpy ceiling",
        ]
        .map(String::from)
        .to_vec(),
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
                    percent(r.of_ceiling),
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
    Document { blocks }
}

fn series_json(s: &Series) -> Value {
    json!({
        "implementation": s.case.implementation,
        "operation": s.case.operation,
        "size_bytes": s.len,
        "threads": s.threads,
    })
}

fn json(run: &StoredRun, t: &Tables) -> String {
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
            v["speedup_vs_1_thread"] = json!(r.speedup);
            v["vs_openssl_1_thread"] = json!(r.vs_openssl);
            v["fraction_of_ceiling"] = json!(r.of_ceiling);
            v
        })
        .collect();
    let doc = json!({
        "run_id": h.id,
        "experiment": h.experiment,
        "started_at": h.started_at,
        "status": h.status,
        "tool_version": h.tool_version,
        "git_revision": h.git_revision,
        "machine": h.machine,
        "options": serde_json::to_value(&h.options).expect("options serialise"),
        "units": { "time": "ns (CLOCK_MONOTONIC_RAW)", "rate": "MB/s = 10^6 bytes/s" },
        "ceiling": CEILING,
        "runs": runs,
        "summary": summary,
        "scaling": scaling,
        "problems": t.problems,
        "verified": t.problems.is_empty(),
    });
    serde_json::to_string_pretty(&doc).expect("JSON values serialise") + "\n"
}

/// Three sections (runs, summary, scaling), each with its header row, separated by a blank line.
fn csv(t: &Tables) -> String {
    let key = |s: &Series| {
        format!(
            "{},{},{},{}",
            field(&s.case.implementation),
            s.case.operation,
            s.len,
            s.threads
        )
    };
    let mut out = String::from(
        "implementation,operation,size_bytes,threads,run,ns,mb_per_s,decrypt_ns,decrypt_mb_per_s\n",
    );
    for r in &t.runs {
        let s = r.series;
        out += &format!(
            "{},{},{},{},{},{}\n",
            key(s),
            r.run + 1,
            r.first_ns,
            mb_per_s(s.len, r.first_ns),
            opt(r.second_ns),
            opt(r.second_ns.map(|ns| mb_per_s(s.len, ns)))
        );
    }
    out += "\nimplementation,operation,size_bytes,threads,runs,median_mb_per_s,mean_mb_per_s,min_mb_per_s,max_mb_per_s,std_dev_mb_per_s,median_mib_per_s,median_ns\n";
    for r in &t.summary {
        out += &format!(
            "{},{},{},{},{},{},{},{},{}\n",
            key(r.series),
            r.rate.n,
            r.rate.median,
            r.rate.mean,
            r.rate.min,
            r.rate.max,
            r.rate.std_dev,
            r.rate.median * MB / MIB,
            r.median_ns
        );
    }
    out += "\nimplementation,operation,size_bytes,threads,median_mb_per_s,speedup_vs_1_thread,vs_openssl_1_thread,fraction_of_ceiling\n";
    for r in &t.scaling {
        out += &format!(
            "{},{},{},{},{}\n",
            key(r.series),
            r.median,
            opt(r.speedup),
            opt(r.vs_openssl),
            opt(r.of_ceiling)
        );
    }
    out
}

#[cfg(test)]
mod tests {
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
}
