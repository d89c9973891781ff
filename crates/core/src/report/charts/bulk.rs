//! The bulk mode's chart: throughput against threads, beside memcpy's rate.

use super::Chart;
use super::plot::MAX_SERIES;
use super::shapes::{Series, XAxis, draw_lines};

const THREADS_AXIS: XAxis = XAxis {
    desc: "threads (log scale)",
    label: |t| format!("{}", t.round()),
};

/// One line of a thread-scaling chart: its label and (threads, median, low, high) points.
pub type ScalingLine = (String, Vec<(u64, f64, f64, f64)>);

/// Thread scaling of the bulk mode: median MB/s against threads per implementation and
/// operation (min..max of the runs as the band), with memcpy's rate as a line.
pub fn thread_scaling(title: &str, lines: Vec<ScalingLine>, ceiling: Option<f64>) -> Chart {
    let series: Vec<Series> = lines
        .into_iter()
        .map(|(label, points)| Series {
            label,
            group: String::new(),
            points,
        })
        .collect();
    let refs: Vec<&Series> = series.iter().take(MAX_SERIES).collect();
    Chart {
        title: title.to_string(),
        caption: "Median rate of the runs against the number of threads (the band spans the slowest and the fastest run), beside memcpy's copy of the same size: in-place encryption and a copy both read and write every byte once.".into(),
        svg: draw_lines(&refs, THREADS_AXIS, "MB/s (10^6 bytes per second)", ceiling.map(|c| (c, "memcpy (a reference)"))),
    }
}
