//! Charts for the HTML report, drawn as SVG with plotters: one function per chart.
//!
//! A run's charts are the functions in [`RUN_CHARTS`]; a new chart is one more function
//! there, taking the [`Analysis`] and returning its charts (none where the run has
//! nothing to show). Text in the SVG is escaped by plotters' SVG backend; titles and
//! captions are escaped by the page.
//!
//! `plot` is the toolkit (axes, scales, frame, legend, colours), `shapes` the chart
//! shapes several charts share; `run`, `bulk` and `history` are the charts themselves.

mod bulk;
mod fleet;
mod history;
mod plot;
mod run;
mod shapes;

use crate::analysis::Analysis;

pub use bulk::{ScalingLine, thread_scaling};
pub use fleet::fleet_ratios;
pub use history::history_lines;
pub use run::{
    baseline_forest, comparison_forest, forest, lane_speedups, per_byte_by_length,
    sample_distribution,
};

/// One figure: a title, a sentence on how to read it, and the SVG (or why it could not
/// be drawn).
pub struct Chart {
    /// Shown above the chart; a chart titled as a section of the page follows that
    /// section's table.
    pub title: String,
    /// How to read the chart, printed under it.
    pub caption: String,
    /// The chart as inline SVG, or why it could not be drawn.
    pub svg: Result<String, String>,
}

/// Every chart of a run report, in the order they appear.
pub const RUN_CHARTS: &[fn(&Analysis) -> Vec<Chart>] = &[
    per_byte_by_length,
    sample_distribution,
    comparison_forest,
    baseline_forest,
    lane_speedups,
];
