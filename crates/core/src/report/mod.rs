//! Rendering analysed runs. Every format is built from the same [`Document`] (titled
//! tables) except JSON, CSV and the continuous-benchmarking exports, which are
//! structural. HTML is the [`Document`] again, with charts beside it.

mod bencher;
pub mod bulk;
pub mod charts;
pub(crate) mod csv;
mod document;
mod export;
pub mod fleet;
mod format;
mod github;
pub mod history;
pub mod html;
mod json;
mod lanes;
mod machine;
mod matrix;
mod notes;
mod run;
pub(crate) mod text;

use anyhow::Result;

use comfy_table::Table;

use crate::analysis::{Analysis, RunComparison};
use crate::record::{RunCounter, VerdictOptions};

pub use document::{Doc, Format};
pub use export::Exporter;
use lanes::lane_blocks;
pub use machine::machine_text;
use matrix::{matrix_blocks, slope_blocks};
pub(crate) use run::provenance;
use run::{
    c_build_blocks, case_blocks, comparison_blocks, header_blocks, ratio_blocks,
    run_comparison_blocks,
};

/// A report as format-neutral pieces: lines of prose and titled tables.
pub struct Document {
    /// The report's pieces, in the order they are printed.
    pub blocks: Vec<Block>,
}

/// One piece of a report, which each format prints in its own way.
pub enum Block {
    /// A section's title (the first one is the page's).
    Heading(String),
    /// A line of prose.
    Line(String),
    /// A line of facts from the run's machine record (its build, host and libraries):
    /// prose in text and md; an HTML page with a machine block leaves it out, the block
    /// showing the same facts as rows, so that the page says each once.
    MachineLine(String),
    /// Where and when the run was measured, `Machine: {machine}; {run}` in text and md.
    /// `machine` (the CPU, the testbed) is what an HTML page's machine block shows as rows:
    /// that page says `Run: {run}` alone, so that it names the CPU once.
    RunLine {
        /// The CPU model and the testbed.
        machine: String,
        /// When, by which version and code, and whether it is complete.
        run: String,
        /// Whether it is a line the reader must not miss (an incomplete run).
        warning: bool,
    },
    /// A line the reader must not miss: the machine's warnings, an interrupted run, runs
    /// that are not comparable, cases that were not compared.
    Warning(String),
    /// A table of texts.
    Table {
        /// One per column.
        headers: Vec<String>,
        /// Each row's cells, one per column.
        rows: Vec<Vec<String>>,
    },
    /// The seed's variant x target tables: one figure per cell, carried beside its text so
    /// that a page can colour the cells from the fastest to the slowest.
    Matrix {
        /// The first column's header ("Variant"), then one per column.
        headers: Vec<String>,
        /// One per row of the matrix.
        rows: Vec<MatrixRow>,
    },
}

/// A row of a [`Block::Matrix`]: its label and a cell per column.
pub struct MatrixRow {
    /// What the first column says of the row (e.g. the variant).
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

/// One run's report in `format`, from its analysis.
pub fn render(a: &Analysis, format: Format) -> String {
    format.exporter().run(a)
}

/// What a comparison of two runs is in, beside its figures: what every format of
/// `compare` says of the counts it compares.
pub struct Pair<'a> {
    /// The candidate's counter, whose short unit the counts are in: the baseline's unit
    /// too, as not even --force compares counts in two units.
    pub counter: RunCounter,
    /// How the user named the baseline and the candidate (`main`, `latest`), where not
    /// by their ids: the intro says both.
    pub named: (Option<&'a str>, Option<&'a str>),
}

/// Two runs case by case (`compare`) in `format`, with `pair` what their counts are in
/// and `opts` the verdicts' options (for the HTML chart's noise band). Errs for the
/// formats that carry one run's figures only (Bencher, github-action-benchmark).
pub fn render_comparison(
    c: &RunComparison,
    pair: &Pair,
    opts: &VerdictOptions,
    format: Format,
) -> Result<String> {
    Doc::Comparison.check(format)?;
    Ok(format
        .exporter()
        .comparison(c, pair, opts)
        .expect("the exporters of the formats Doc::Comparison lists write it"))
}

/// Two runs case by case as titled tables: what `table` and `md` print and `html` shows.
fn comparison_document(c: &RunComparison, pair: &Pair, opts: &VerdictOptions) -> Document {
    let mut doc = Document { blocks: Vec::new() };
    run_comparison_blocks(&mut doc, c, pair.counter.short_unit(), opts, pair.named);
    doc
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

/// The report of one run as titled tables: what `table` and `md` print and `html` shows.
pub fn document(a: &Analysis) -> Document {
    let mut blocks = header_blocks(a);
    case_blocks(&mut blocks, a);
    ratio_blocks(&mut blocks, a);
    comparison_blocks(&mut blocks, a);
    c_build_blocks(&mut blocks, a);
    matrix_blocks(&mut blocks, a);
    slope_blocks(&mut blocks, a);
    lane_blocks(&mut blocks, a);
    let mut doc = Document { blocks };
    if let Some(why) = &a.baseline_left_out {
        doc.blocks
            .push(Block::Warning(format!("Not against its baseline: {why}")));
    }
    if let Some(rc) = &a.against_baseline {
        run_comparison_blocks(
            &mut doc,
            rc,
            &a.short_unit,
            &a.verdict_options,
            (None, None),
        );
    }
    doc
}
