//! Rendering analysed runs. Every format is built from the same [`Document`] (titled
//! tables) except JSON, CSV and the continuous-benchmarking exports, which are
//! structural. HTML is the [`Document`] again, with charts beside it.

mod bencher;
pub mod charts;
pub(crate) mod csv;
mod github;
pub mod history;
pub mod html;
mod json;
pub(crate) mod text;

use anyhow::{Result, bail};

use comfy_table::Table;

use crate::analysis::{
    Analysis, CaseStats, Comparison, NotCompared, RunComparison, VerdictOptions,
};
use crate::cli::Format;
use crate::counter::CounterKind;
use crate::machine::Machine;
use crate::name::ImplName;
use crate::stats::{Interval, Outliers};
use crate::store::{CaseStatus, RunCounter, RunHeader, RunOrigin};

/// A report as format-neutral pieces: lines of prose and titled tables.
pub struct Document {
    pub blocks: Vec<Block>,
}

pub enum Block {
    Heading(String),
    Line(String),
    /// A line the reader must not miss: the machine's warnings, an interrupted run, runs
    /// that are not comparable, cases that were not compared.
    Warning(String),
    Table {
        headers: Vec<String>,
        rows: Vec<Vec<String>>,
    },
    /// The seed's variant x target tables: one figure per cell, carried beside its text so
    /// that a page can colour the cells from the fastest to the slowest.
    Matrix {
        /// The first column's header ("Variant"), then one per column.
        headers: Vec<String>,
        rows: Vec<MatrixRow>,
    },
}

pub struct MatrixRow {
    pub label: String,
    /// (text, the figure it shows, for cells that show one), one per column.
    pub cells: Vec<(String, Option<f64>)>,
}

impl Block {
    /// A matrix as a plain table of its texts, for formats that do not colour.
    pub fn matrix_as_table(
        headers: &[String],
        rows: &[MatrixRow],
    ) -> (Vec<String>, Vec<Vec<String>>) {
        let rows = rows
            .iter()
            .map(|r| {
                std::iter::once(r.label.clone())
                    .chain(r.cells.iter().map(|(text, _)| text.clone()))
                    .collect()
            })
            .collect();
        (headers.to_vec(), rows)
    }
}

pub fn render(a: &Analysis, format: Format) -> String {
    match format {
        Format::Table => text::render(&document(a), false),
        Format::Md => text::render(&document(a), true),
        Format::Json => json::render(a),
        Format::Csv => csv::render(a),
        Format::Html => html::run_page(a, &document(a)),
        Format::Bencher => bencher::render(a),
        Format::GithubActionBenchmark => github::render(a),
    }
}

pub fn render_comparison(
    c: &RunComparison,
    unit: &str,
    opts: &VerdictOptions,
    format: Format,
) -> Result<String> {
    let doc = || {
        let mut doc = Document { blocks: Vec::new() };
        run_comparison_blocks(&mut doc, c, unit);
        doc
    };
    Ok(match format {
        Format::Table | Format::Md => text::render(&doc(), format == Format::Md),
        Format::Json => json::render_run_comparison(c),
        Format::Csv => csv::render_comparisons(c),
        Format::Html => html::comparison_page(c, opts, &doc()),
        Format::Bencher | Format::GithubActionBenchmark => bail!(
            "--format {} exports the figures of one run: use it with `report` or `run`",
            format_name(format)
        ),
    })
}

/// The name a user types for `format`.
pub fn format_name(format: Format) -> String {
    use clap::ValueEnum;
    format
        .to_possible_value()
        .map_or_else(|| format!("{format:?}"), |v| v.get_name().to_string())
}

/// An empty aligned table with `headers`, for simple listings.
pub fn text_table(headers: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(comfy_table::presets::NOTHING)
        .set_header(headers.to_vec());
    t
}

pub fn machine_text(m: &Machine, chosen: CounterKind) -> String {
    let mut s = String::new();
    let tsc = m.tsc_hz.map_or("n/a".into(), |hz| {
        format!("{:.1} MHz (measured against CLOCK_MONOTONIC_RAW)", hz / 1e6)
    });
    s += &format!(
        "CPU:        {} [{}], {}\n",
        m.cpu_model, m.cpu_signature, m.arch
    );
    s += &format!("CPUs:       {} available to this process\n", m.online_cpus);
    s += &format!("Crypto ISA: {}\n", m.crypto_flags.join(" "));
    s += &format!("Kernel:     {}\n", m.kernel);
    s += &format!(
        "Compilers:  {}; cc: {}\n",
        m.rustc,
        m.cc.as_deref().unwrap_or("not found")
    );
    s += &format!("TSC:        {tsc}\n");
    if let Some(hz) = m.core_clock_hz {
        s += &format!(
            "Core clock: {:.0} MHz now (a dependent-add chain timed by the TSC; a shared host moves it)\n",
            hz / 1e6
        );
    }
    if let Some(bytes) = m.last_level_cache_bytes {
        s += &format!(
            "Cache:      {} last level (as reported; bulk sizes within it measure the cache)\n",
            crate::size::format_size(bytes)
        );
    }
    s += &format!(
        "Governor:   {}; turbo: {}\n",
        m.governor.as_deref().unwrap_or("unknown"),
        m.turbo.as_deref().unwrap_or("unknown")
    );
    s += "Counters:\n";
    for c in &m.counters {
        let state = if c.available {
            "available".to_string()
        } else {
            format!("not available: {}", c.reason.as_deref().unwrap_or("?"))
        };
        s += &format!("  {:<8} {:<36} {state}\n", c.counter.to_string(), c.unit);
    }
    s += &format!("Chosen:     {chosen} ({})\n", chosen.unit());
    if !m.warnings.is_empty() {
        s += "Warnings:\n";
        for w in &m.warnings {
            s += &format!("  - {w}\n");
        }
    }
    s
}

/// "1 worker process", "10 worker processes".
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn fmt_count(x: f64) -> String {
    fmt_count_as(x, x)
}

/// `x` with the decimals [`fmt_count`] gives `like`: a difference printed as precisely as
/// the counts it is the difference of.
fn fmt_count_as(x: f64, like: f64) -> String {
    let like = like.abs();
    if like >= 1000.0 {
        format!("{x:.0}")
    } else if like >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn fmt_per_byte(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.1}")
    } else if x >= 10.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

fn fmt_interval(i: &Interval, f: fn(f64) -> String) -> String {
    format!("{} [{} {}]", f(i.estimate), f(i.lo), f(i.hi))
}

fn fmt_rel(i: &Interval) -> String {
    format!("±{:.2} %", 100.0 * i.half_width_rel())
}

fn fmt_throughput(bytes_per_s: f64) -> String {
    if bytes_per_s >= 1e9 {
        format!("{:.3} GB/s", bytes_per_s / 1e9)
    } else {
        format!("{:.1} MB/s", bytes_per_s / 1e6)
    }
}

/// Outliers as criterion counts them, e.g. "6 (5 high mild, 1 high severe)".
fn fmt_outliers(o: &Outliers, n: usize) -> String {
    if o.total() == 0 {
        return "0".into();
    }
    let parts: Vec<String> = [
        (o.low_severe, "low severe"),
        (o.low_mild, "low mild"),
        (o.high_mild, "high mild"),
        (o.high_severe, "high severe"),
    ]
    .iter()
    .filter(|(k, _)| *k > 0)
    .map(|(k, what)| format!("{k} {what}"))
    .collect();
    format!(
        "{} ({:.1} %: {})",
        o.total(),
        100.0 * o.total() as f64 / n as f64,
        parts.join(", ")
    )
}

fn fmt_pct(i: &Interval) -> String {
    format!("{:+.2} % [{:+.2}, {:+.2}]", i.estimate, i.lo, i.hi)
}

fn fmt_p(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".into()
    } else {
        format!("{p:.3}")
    }
}

fn status_cell(c: &CaseStats) -> String {
    if c.measured.is_some() {
        return "verified".into();
    }
    match c.status {
        CaseStatus::Wrong => "WRONG OUTPUT: not timed",
        CaseStatus::Failed => "FAILED",
        CaseStatus::Unsupported => "not supported on this CPU",
        CaseStatus::Pending => "not measured (interrupted)",
        CaseStatus::Ok => "no samples",
    }
    .into()
}

/// The report of one run as titled tables: what `table` and `md` print and `html` shows.
pub fn document(a: &Analysis) -> Document {
    let mut blocks = header_blocks(a);
    case_blocks(&mut blocks, a);
    ratio_blocks(&mut blocks, a);
    comparison_blocks(&mut blocks, a);
    matrix_blocks(&mut blocks, a);
    slope_blocks(&mut blocks, a);
    lane_blocks(&mut blocks, a);
    let mut doc = Document { blocks };
    if let Some(rc) = &a.against_baseline {
        run_comparison_blocks(&mut doc, rc, &a.short_unit);
    }
    doc
}

/// The title, the counter and its clock, where and how the run was measured.
fn header_blocks(a: &Analysis) -> Vec<Block> {
    let mut blocks = Vec::new();
    let h = &a.header;
    blocks.push(Block::Heading(format!(
        "cryptobench run {} — {}",
        h.id, h.experiment
    )));
    let mut tsc = h
        .tsc_hz
        .map_or(String::new(), |hz| format!(", TSC at {:.1} MHz", hz / 1e6));
    if let Some(hz) = h
        .machine
        .core_clock_hz()
        .filter(|_| h.counter == RunCounter::Measured(CounterKind::TscCore))
    {
        tsc += &format!(", core clock {:.0} MHz at the start", hz / 1e6);
        if a.cases.iter().any(|c| {
            c.measured
                .as_ref()
                .is_some_and(|m| m.core_clock_hz.is_some())
        }) {
            tsc += "; throughput uses the clock measured beside each case's samples";
        } else {
            tsc += " (throughput uses it)";
        }
    }
    blocks.push(Block::Line(format!(
        "Counter: {} — {}{tsc}",
        a.counter, a.unit
    )));
    blocks.extend(provenance(h, ""));
    match &h.options {
        RunOrigin::Imported(from) => blocks.push(Block::Line(format!(
            "Imported from {} ({}); figures are medians per call, intervals 95 %.",
            from.source, from.note
        ))),
        RunOrigin::Measured { run, .. } => blocks.push(Block::Line(format!(
            "Each case: {} x {}, {}; figures are medians per call, intervals 95 % (clusters resampled).",
            counted(run.processes, "worker process", "worker processes"),
            counted(run.layouts, "memory layout", "memory layouts"),
            run.cpu
                .map_or("not pinned".to_string(), |c| format!("pinned to CPU {c}"))
        ))),
        RunOrigin::Bulk { .. } | RunOrigin::Unreadable(_) => {}
    }

    blocks
}

/// Every case's figures, then the reasons and notes that belong below them.
fn case_blocks(blocks: &mut Vec<Block>, a: &Analysis) {
    let h = &a.header;
    let u = &a.short_unit;
    // Another tool's figures were not checked against known answers here.
    let imported = h.imported().is_some();
    let status = |c: &CaseStats| {
        if imported && c.measured.is_some() {
            "imported, not verified".to_string()
        } else {
            status_cell(c)
        }
    };
    let mut rows = Vec::new();
    for c in &a.cases {
        let bytes = c.bytes.map_or(String::new(), |b| b.to_string());
        match &c.measured {
            Some(m) => rows.push(vec![
                c.implementation.clone(),
                c.operation.clone(),
                if c.bytes.is_some() {
                    bytes
                } else {
                    c.params.to_string()
                },
                fmt_count(m.median.estimate),
                match &m.per_byte {
                    Some(pb) if m.has_interval() => fmt_interval(pb, fmt_per_byte),
                    Some(pb) => fmt_per_byte(pb.estimate),
                    None => String::new(),
                },
                if m.has_interval() {
                    fmt_rel(&m.median)
                } else {
                    "—".into()
                },
                match (m.throughput_bytes_per_s, m.core_clock_hz) {
                    (Some(tp), Some(hz)) => {
                        format!("{} at {:.2} GHz", fmt_throughput(tp), hz / 1e9)
                    }
                    (Some(tp), None) => fmt_throughput(tp),
                    (None, _) => String::new(),
                },
                m.samples.to_string(),
                fmt_outliers(&m.outliers, m.samples),
                status(c),
            ]),
            None => rows.push(vec![
                c.implementation.clone(),
                c.operation.clone(),
                bytes,
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                status_cell(c),
            ]),
        }
    }
    blocks.push(Block::Table {
        headers: vec![
            "Implementation".into(),
            "Operation".into(),
            "Bytes".into(),
            format!("Median ({u})"),
            format!("{u}/byte [95 % CI]"),
            "± (95 %)".into(),
            "Throughput".into(),
            "Samples".into(),
            "Outliers".into(),
            "Status".into(),
        ],
        rows,
    });
    if a.cases.iter().any(|c| c.params.get("out").is_some()) {
        let lanes = a
            .cases
            .iter()
            .any(|c| crate::catalog::kinds::xof_lanes::lanes_of(&c.implementation).is_some());
        blocks.push(Block::Line(format!(
            "Bytes: what one call processes; for an XOF, its input plus its output{}.",
            if lanes {
                ", times the lanes of an N-lane one"
            } else {
                ""
            }
        )));
    }
    // Reasons once per implementation, below the table, instead of a column too wide to read.
    let mut reasons: Vec<String> = Vec::new();
    for c in &a.cases {
        if let Some(m) = &c.message {
            let line = if c.measured.is_some() {
                format!("Note: {m}")
            } else {
                format!("{}: {m}", c.implementation)
            };
            if !reasons.contains(&line) {
                reasons.push(line);
            }
        }
    }
    blocks.extend(reasons.into_iter().map(Block::Line));
    let spreads = a.cases.iter().filter_map(|c| {
        let spread = c.measured.as_ref()?.process_spread_pct?;
        Some((c.key.as_str(), spread))
    });
    blocks.extend(process_note(spreads).map(Block::Line));
}

/// Each member's cost over its reference's (an RNG over the cipher it is built on).
fn ratio_blocks(blocks: &mut Vec<Block>, a: &Analysis) {
    let u = &a.short_unit;
    if !a.ratios.is_empty() {
        blocks.push(Block::Heading(format!(
            "{u}/byte over the reference's (the reference is the \"speed limit\")"
        )));
        let rows = a
            .ratios
            .iter()
            .map(|r| {
                vec![
                    r.member.clone(),
                    r.reference.clone(),
                    r.params.to_string(),
                    format!(
                        "{:.4} [{:.4} {:.4}]",
                        r.ratio.estimate, r.ratio.lo, r.ratio.hi
                    ),
                    format!("{:+.2} %", 100.0 * (r.ratio.estimate - 1.0)),
                ]
            })
            .collect();
        blocks.push(Block::Table {
            headers: vec![
                "Implementation".into(),
                "Reference".into(),
                "Params".into(),
                "Ratio [95 % CI]".into(),
                "Overhead".into(),
            ],
            rows,
        });
    }
}

/// The run's comparisons, with the test and thresholds they were judged by.
fn comparison_blocks(blocks: &mut Vec<Block>, a: &Analysis) {
    if !a.comparisons.is_empty() || !a.not_compared.is_empty() {
        let v = a.verdict_options;
        blocks.push(Block::Heading(format!(
            "Comparison against the baseline (measured interleaved; medians and stdevs of the per-process medians, which the {} test compares; significance {}, noise threshold {} %)",
            v.test, v.significance, v.noise_threshold_pct
        )));
        if !a.comparisons.is_empty() {
            comparison_table(blocks, &a.comparisons, &a.short_unit);
        }
        blocks.extend(not_compared_lines(&a.not_compared));
    }
}

/// Where and by what a stored run was measured, whether it finished, and the machine's
/// warnings: the lines every report of a run starts with. `cpus` goes after the CPU model.
pub(crate) fn provenance(h: &RunHeader, cpus: &str) -> Vec<Block> {
    let revision = h
        .git_revision
        .as_deref()
        .map_or(String::new(), |r| format!(" ({r})"));
    let incomplete = if h.status == crate::store::RunStatus::Complete {
        ""
    } else {
        "; INCOMPLETE (interrupted?)"
    };
    let machine = format!(
        "Machine: {}{cpus}; started {}; cryptobench {}{revision}{incomplete}",
        h.cpu_model, h.started_at, h.tool_version,
    );
    let mut lines = vec![if incomplete.is_empty() {
        Block::Line(machine)
    } else {
        Block::Warning(machine)
    }];
    lines.extend(
        h.machine
            .warnings()
            .iter()
            .map(|w| Block::Warning(format!("Warning: {w}"))),
    );
    lines
}

fn comparison_table(blocks: &mut Vec<Block>, comparisons: &[Comparison], unit: &str) {
    // Where one operation is compared (the seed's tables), its name would only repeat.
    let operations: std::collections::BTreeSet<&str> =
        comparisons.iter().map(|c| c.operation.as_str()).collect();
    let with_operation = operations.len() > 1;
    let rows = comparisons
        .iter()
        .map(|c| {
            let params = if with_operation {
                format!("{} {}", c.operation, c.params)
                    .trim_end()
                    .to_string()
            } else {
                c.params.to_string()
            };
            vec![
                format!("{} vs {}", c.candidate, c.baseline),
                params,
                format!(
                    "{} / {}",
                    fmt_count(c.median_baseline),
                    fmt_count(c.median_candidate)
                ),
                fmt_count_as(
                    c.difference,
                    c.median_baseline.abs().min(c.median_candidate.abs()),
                ),
                fmt_pct(&c.change_pct),
                format!(
                    "{} / {}",
                    fmt_count(c.stdev_baseline),
                    fmt_count(c.stdev_candidate)
                ),
                fmt_p(c.p_value),
                c.verdict.to_string(),
            ]
        })
        .collect();
    blocks.push(Block::Table {
        headers: vec![
            "Candidate vs baseline".into(),
            if with_operation {
                "Operation, params".into()
            } else {
                "Params".into()
            },
            format!("Baseline / Candidate ({unit})"),
            format!("Difference ({unit})"),
            "Overhead [95 % CI]".into(),
            "Stdev baseline / candidate".into(),
            "p".into(),
            "Verdict".into(),
        ],
        rows,
    });
    blocks.extend(clock_notes(comparisons).into_iter().map(Block::Line));
    blocks.extend(p_floor_notes(comparisons).into_iter().map(Block::Line));
}

/// Where a p-value is the smallest the test can give with so few processes, and that floor
/// shows in the table (below 0.001 it reads "< 0.001" anyway): the test could not say
/// more, however large the difference.
fn p_floor_notes(comparisons: &[Comparison]) -> Vec<String> {
    let mut at_floor: Vec<([usize; 2], f64, usize)> = Vec::new();
    for c in comparisons {
        let Some(floor) = c
            .p_floor
            .filter(|&f| f >= 0.001 && c.p_value <= f * (1.0 + 1e-9))
        else {
            continue;
        };
        match at_floor.iter_mut().find(|(n, _, _)| *n == c.processes) {
            Some((_, _, count)) => *count += 1,
            None => at_floor.push((c.processes, floor, 1)),
        }
    }
    at_floor
        .into_iter()
        .map(|([n, m], floor, count)| {
            format!(
                "p: {} comparison{} at p {}, the smallest a Mann-Whitney test of {n} against {m} processes can give (every process of one side beyond every one of the other); more --processes let the test say more.",
                count,
                if count == 1 { " is" } else { "s are" },
                fmt_p(floor)
            )
        })
        .collect()
}

/// Where candidate and baseline ran at core clocks more than [`CLOCK_NOTE_PCT`] apart,
/// one line per pair of implementations: their cycles and their time disagree.
fn clock_notes(comparisons: &[Comparison]) -> Vec<String> {
    let cases = comparisons.iter().filter_map(|c| {
        let changes = c.clock_change_pct.zip(c.time_change_pct)?;
        Some((c.candidate.as_str(), c.baseline.as_str(), changes))
    });
    group_clock_changes(cases)
        .into_iter()
        .map(|(cand, base, v)| {
            let n = v.len();
            let (clocks, times): (Vec<f64>, Vec<f64>) = v.into_iter().unzip();
            format!(
                "Clock: {cand} ran at a core clock {} against {base} ({n} case{}); in time (reference cycles) the change is {}.",
                pct_range(&clocks),
                if n == 1 { "" } else { "s" },
                pct_range(&times)
            )
        })
        .collect()
}

/// Where an N-lane implementation ran at a core clock more than [`CLOCK_NOTE_PCT`]
/// from its single-lane baseline's, one line per implementation with its speed-ups in
/// time.
fn lane_clock_notes(a: &Analysis, alg: &str) -> Vec<String> {
    let lanes = a.lanes.iter().filter_map(|l| {
        if l.algorithm != alg {
            return None;
        }
        let changes = l.clock_change_pct.zip(l.speedup_in_time)?;
        Some((l.implementation.as_str(), l.single.as_str(), changes))
    });
    group_clock_changes(lanes)
        .into_iter()
        .map(|(imp, single, v)| {
            let (clocks, times): (Vec<f64>, Vec<f64>) = v.into_iter().unzip();
            format!(
                "Clock: {imp} ran at a core clock {} against {single}: in time (reference cycles) its speed-up is {}.",
                pct_range(&clocks),
                range(&times, |x| format!("{x:.2}x"), "")
            )
        })
        .collect()
}

/// The cases whose clock differs by at least [`CLOCK_NOTE_PCT`], grouped by
/// (implementation, what it is measured against), in the order they come.
fn group_clock_changes<'a>(
    cases: impl Iterator<Item = (&'a str, &'a str, (f64, f64))>,
) -> Vec<(&'a str, &'a str, Changes)> {
    let mut groups: Vec<(&str, &str, Changes)> = Vec::new();
    for (imp, against, (clock, other)) in cases {
        if clock.abs() < CLOCK_NOTE_PCT {
            continue;
        }
        match groups
            .iter_mut()
            .find(|(i, a, _)| *i == imp && *a == against)
        {
            Some((_, _, v)) => v.push((clock, other)),
            None => groups.push((imp, against, vec![(clock, other)])),
        }
    }
    groups
}

/// "lo to hi" of `xs` as `fmt` writes them, or one value where both write the same.
fn range(xs: &[f64], fmt: impl Fn(f64) -> String, unit: &str) -> String {
    let lo = fmt(xs.iter().copied().fold(f64::INFINITY, f64::min));
    let hi = fmt(xs.iter().copied().fold(f64::NEG_INFINITY, f64::max));
    if lo == hi {
        format!("{lo}{unit}")
    } else {
        format!("{lo} to {hi}{unit}")
    }
}

/// "-5.7 %", or "-5.9 to -5.2 %" where the values differ at one decimal.
fn pct_range(xs: &[f64]) -> String {
    range(xs, |x| format!("{x:+.1}"), " %")
}

/// (clock change, change in time) of each case of one pair of implementations.
type Changes = Vec<(f64, f64)>;

/// Worker processes whose own medians spread wider than this (interquartile range)
/// are worth a note: the scalar and AVX-512 Keccak and the ChaCha20 cases stay within
/// 0.2-0.7 % here, while spilling AVX2 code split into modes 2-6 % apart.
const PROCESS_NOTE_PCT: f64 = 2.0;

/// One line under the table when some cases' worker processes disagree (case id and
/// spread in %): such a median depends on how the processes fell, which the interval
/// shows and more processes steady.
fn process_note<'a>(spreads: impl Iterator<Item = (&'a str, f64)>) -> Option<String> {
    let wide: Vec<(&str, f64)> = spreads.filter(|s| s.1 > PROCESS_NOTE_PCT).collect();
    let (widest, pct) = wide.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let n = wide.len();
    Some(format!(
        "Processes: in {n} case{} the worker processes' own medians lie more than {PROCESS_NOTE_PCT} % apart (middle half of them; widest {widest}, {pct:.1} %): such a figure depends on how the processes fell, as its interval shows; more processes (--processes) steady it.",
        if n == 1 { "" } else { "s" },
    ))
}

/// Clock differences below this are within one turbo bin (2.7 % at 3.7 GHz on the
/// hosts seen), which a case's medians can land on by chance.
const CLOCK_NOTE_PCT: f64 = 3.0;

fn run_comparison_blocks(doc: &mut Document, rc: &RunComparison, unit: &str) {
    doc.blocks.push(Block::Heading(format!(
        "Run {} against baseline run {}",
        rc.run_b, rc.run_a
    )));
    for c in &rc.caveats {
        doc.blocks
            .push(Block::Warning(format!("Not comparable (forced): {c}")));
    }
    if !rc.comparisons.is_empty() {
        comparison_table(&mut doc.blocks, &rc.comparisons, unit);
    }
    doc.blocks.extend(not_compared_lines(&rc.not_compared));
    for k in &rc.only_in_a {
        doc.blocks
            .push(Block::Warning(format!("Only in run {}: {k}", rc.run_a)));
    }
    for k in &rc.only_in_b {
        doc.blocks
            .push(Block::Warning(format!("Only in run {}: {k}", rc.run_b)));
    }
}

fn not_compared_lines(not_compared: &[NotCompared]) -> impl Iterator<Item = Block> + '_ {
    not_compared.iter().map(|n| {
        Block::Warning(format!(
            "Not compared: {} vs {}: {}",
            crate::analysis::with_params(&n.candidate, &n.params),
            n.baseline,
            n.why
        ))
    })
}

/// A C build's `provider/algorithm/variant@target` as (`provider/algorithm`, variant,
/// target); none for other names.
fn split_variant(name: &str) -> Option<(ImplName<'_>, &str, &str)> {
    let name = ImplName::parse(name);
    Some((name.family(), name.variant()?, name.target()?))
}

fn push_unique<'a>(v: &mut Vec<&'a str>, x: &'a str) {
    if !v.contains(&x) {
        v.push(x);
    }
}

/// The seed's variant x target tables for builds from manifests: rows are variants,
/// columns targets, one table per algorithm, operation and parameters.
fn matrix_blocks(blocks: &mut Vec<Block>, a: &Analysis) {
    let u = &a.short_unit;
    let mut groups: Vec<(ImplName, &str, String)> = Vec::new();
    for c in &a.cases {
        if let Some((family, _, _)) = split_variant(&c.implementation) {
            let g = (family, c.operation.as_str(), c.params.to_string());
            if !groups.contains(&g) {
                groups.push(g);
            }
        }
    }
    for (family, op, params) in groups {
        let cases: Vec<&CaseStats> = a
            .cases
            .iter()
            .filter(|c| {
                split_variant(&c.implementation).is_some_and(|(f, _, _)| f == family)
                    && c.operation == op
                    && c.params.to_string() == params
            })
            .collect();
        let per_call = cases.iter().all(|c| c.bytes.is_none());
        let mut caveat = false;
        let what = if per_call {
            format!("{u} per call")
        } else {
            format!("{u} per byte")
        };
        let family = family.to_string();
        let title = [family.as_str(), op, params.as_str()]
            .into_iter()
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        blocks.push(Block::Heading(format!("{title}: {what}, median [95 % CI]")));
        let cells: Vec<(String, String, Option<f64>)> = cases
            .iter()
            .map(|c| {
                let figure = match &c.measured {
                    Some(m) if per_call => Some(&m.median),
                    Some(m) => m.per_byte.as_ref(),
                    None => None,
                };
                let measured = match (figure, &c.measured, c.status) {
                    (Some(f), _, _) if per_call => fmt_interval(f, fmt_count),
                    (Some(f), _, _) => fmt_interval(f, fmt_per_byte),
                    (None, Some(_), _) => String::new(),
                    (None, None, CaseStatus::Unsupported) => "not supported on this CPU".into(),
                    (None, None, CaseStatus::Wrong) => "WRONG OUTPUT".into(),
                    (None, None, CaseStatus::Pending) => "not measured (interrupted)".into(),
                    (None, None, _) => "failed".into(),
                };
                let cell = match a.estimates.get(&c.implementation) {
                    Some(e) if per_call => match (e.cycles, &e.note) {
                        (Some(est), None) => format!("{measured} (est. {est:.1})"),
                        (Some(est), Some(_)) => {
                            caveat = true;
                            format!("{measured} (est. {est:.1}†)")
                        }
                        (None, _) => measured,
                    },
                    _ => measured,
                };
                (c.implementation.clone(), cell, figure.map(|f| f.estimate))
            })
            .collect();
        blocks.push(variant_table(&cells));
        if caveat {
            blocks.push(Block::Line(
                "† static estimate of code that branches, loops or calls: each instruction counted once (see the static estimates)".into(),
            ));
        }
    }
    if !a.estimates.is_empty() {
        blocks.push(Block::Heading(
            "Static estimates (llvm-mca, cycles per call of the entry function)".into(),
        ));
        let rows = a
            .estimates
            .iter()
            .map(|(name, e)| {
                vec![
                    name.clone(),
                    e.model.clone(),
                    e.cycles.map_or("n/a".into(), |c| format!("{c:.1}")),
                    e.note.clone().unwrap_or_default(),
                ]
            })
            .collect();
        blocks.push(Block::Table {
            headers: vec![
                "Implementation".into(),
                "-mcpu".into(),
                "Estimate".into(),
                "Caveat".into(),
            ],
            rows,
        });
    }
}

/// Rows = variants, columns = targets, for (name, text, figure) cells keyed by
/// `provider/algorithm/variant@target`.
fn variant_table(cells: &[(String, String, Option<f64>)]) -> Block {
    let (mut variants, mut targets) = (Vec::new(), Vec::new());
    for (name, _, _) in cells {
        if let Some((_, v, t)) = split_variant(name) {
            push_unique(&mut variants, v);
            push_unique(&mut targets, t);
        }
    }
    let rows = variants
        .iter()
        .map(|v| MatrixRow {
            label: v.to_string(),
            cells: targets
                .iter()
                .map(|t| {
                    cells
                        .iter()
                        .find(|(n, _, _)| {
                            split_variant(n).is_some_and(|(_, nv, nt)| nv == *v && nt == *t)
                        })
                        .map_or((String::new(), None), |(_, text, figure)| {
                            (text.clone(), *figure)
                        })
                })
                .collect(),
        })
        .collect();
    let mut headers = vec!["Variant".to_string()];
    headers.extend(targets.iter().map(|t| t.to_string()));
    Block::Matrix { headers, rows }
}

/// Cost per byte at maximum throughput (slopes), as variant x target matrices per
/// algorithm where the implementations are C builds, as a plain table otherwise.
fn slope_blocks(blocks: &mut Vec<Block>, a: &Analysis) {
    let Some(first) = a.slopes.first() else {
        return;
    };
    let u = &a.short_unit;
    let (from, to) = (first.from_len, first.to_len);
    let mut families: Vec<(ImplName, &str)> = Vec::new();
    let mut plain = Vec::new();
    for s in &a.slopes {
        match split_variant(&s.implementation) {
            Some((family, _, _)) if !families.contains(&(family, s.operation.as_str())) => {
                families.push((family, s.operation.as_str()))
            }
            Some(_) => {}
            None => plain.push(vec![
                s.implementation.clone(),
                s.operation.clone(),
                fmt_interval(&s.per_byte, fmt_per_byte),
            ]),
        }
    }
    for (family, op) in families {
        blocks.push(Block::Heading(format!(
            "{family} {op}: {u} per byte at maximum throughput (slope of the median from {from} to {to} bytes) [95 % CI]"
        )));
        let cells: Vec<(String, String, Option<f64>)> = a
            .slopes
            .iter()
            .filter(|s| {
                s.operation == op
                    && split_variant(&s.implementation).is_some_and(|(f, _, _)| f == family)
            })
            .map(|s| {
                (
                    s.implementation.clone(),
                    fmt_interval(&s.per_byte, fmt_per_byte),
                    Some(s.per_byte.estimate),
                )
            })
            .collect();
        blocks.push(variant_table(&cells));
    }
    if !plain.is_empty() {
        blocks.push(Block::Heading(format!(
            "{u} per byte at maximum throughput (slope from {from} to {to} bytes)"
        )));
        blocks.push(Block::Table {
            headers: vec![
                "Implementation".into(),
                "Operation".into(),
                format!("{u}/byte [95 % CI]"),
            ],
            rows: plain,
        });
    }
}

/// The N-way Keccak seed's table: per (output, input) pair, one N-lane call against N
/// calls of the fastest single-lane implementation.
fn lane_blocks(blocks: &mut Vec<Block>, a: &Analysis) {
    let u = &a.short_unit;
    let mut algorithms: Vec<&str> = Vec::new();
    for l in &a.lanes {
        push_unique(&mut algorithms, &l.algorithm);
    }
    for alg in algorithms {
        blocks.push(Block::Heading(format!(
            "{alg}: one N-lane call vs N calls of the fastest single-lane implementation (median {u}, speed-up [95 % CI])"
        )));
        let rows = a
            .lanes
            .iter()
            .filter(|l| l.algorithm == alg)
            .map(|l| {
                vec![
                    l.params.get("out").map_or(String::new(), |v| v.to_string()),
                    l.params.get("len").map_or(String::new(), |v| v.to_string()),
                    l.implementation.clone(),
                    fmt_count(l.median_call),
                    format!(
                        "{} ({} x {})",
                        fmt_count(l.lanes as f64 * l.median_single),
                        l.lanes,
                        l.single
                    ),
                    format!(
                        "{:.2}x [{:.2} {:.2}]",
                        l.speedup.estimate, l.speedup.lo, l.speedup.hi
                    ),
                    l.per_byte_per_lane.map_or(String::new(), fmt_per_byte),
                ]
            })
            .collect();
        blocks.push(Block::Table {
            headers: vec![
                "Output".into(),
                "Input".into(),
                "N-lane implementation".into(),
                format!("One call ({u})"),
                format!("N single calls ({u})"),
                "Speed-up [95 % CI]".into(),
                format!("{u}/byte (in + out, all lanes)"),
            ],
            rows,
        });
        blocks.extend(lane_clock_notes(a, alg).into_iter().map(Block::Line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Params;

    fn comparison(candidate: &str, clock: Option<f64>, time: Option<f64>) -> Comparison {
        let change = Interval {
            estimate: -5.0,
            lo: -5.1,
            hi: -4.9,
            level: 0.95,
        };
        Comparison {
            baseline: "ours".into(),
            candidate: candidate.into(),
            operation: "xof".into(),
            params: Params::new(),
            median_baseline: 100.0,
            median_candidate: 95.0,
            difference: 5.0,
            change_pct: change,
            stdev_baseline: 0.1,
            stdev_candidate: 0.1,
            p_value: 0.001,
            processes: [10, 10],
            p_floor: crate::stats::mann_whitney_p_floor(10, 10),
            verdict: crate::stats::verdict(&change, 0.001, 0.05, 1.0, true),
            clock_change_pct: clock,
            time_change_pct: time,
        }
    }

    #[test]
    fn p_values_at_the_floor_of_few_processes_are_explained_once() {
        let floor = crate::stats::mann_whitney_p_floor(4, 4);
        let at = |p: f64| Comparison {
            processes: [4, 4],
            p_floor: floor,
            p_value: p,
            ..comparison("theirs", None, None)
        };
        let notes = p_floor_notes(&[at(floor.unwrap()), at(floor.unwrap()), at(0.2)]);
        assert_eq!(
            notes,
            [
                "p: 2 comparisons are at p 0.029, the smallest a Mann-Whitney test of 4 against 4 processes can give (every process of one side beyond every one of the other); more --processes let the test say more."
            ]
        );
        // With 10 processes a side the floor reads "< 0.001" in the table: nothing to say.
        assert!(p_floor_notes(&[comparison("theirs", None, None)]).is_empty());
    }

    #[test]
    fn processes_that_disagree_get_one_line_naming_the_widest() {
        assert_eq!(process_note([("a", 0.4), ("b", 2.0)].into_iter()), None);
        let note = process_note([("a", 0.4), ("b", 2.5), ("c", 7.25)].into_iter()).unwrap();
        assert!(
            note.starts_with(
                "Processes: in 2 cases the worker processes' own medians lie more than 2 % apart"
            ),
            "{note}"
        );
        assert!(note.contains("widest c, 7.2 %"), "{note}");
        let one = process_note([("b", 3.0)].into_iter()).unwrap();
        assert!(one.starts_with("Processes: in 1 case the"), "{one}");
    }

    #[test]
    fn a_clock_difference_is_told_once_per_pair_with_its_range() {
        let notes = clock_notes(&[
            comparison("theirs", Some(-5.71), Some(-0.9)),
            comparison("theirs", Some(-5.68), Some(1.5)),
            comparison("steady", Some(0.4), Some(-4.6)),
            comparison("unclocked", None, None),
        ]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("Clock: theirs ran at a core clock -5.7 % against ours (2 cases)"),
            "{}",
            notes[0]
        );
        assert!(
            notes[0].contains("the change is -0.9 to +1.5 %"),
            "{}",
            notes[0]
        );
    }
}
