//! The chart shapes several charts share: lines with interval bands over a log2 x axis,
//! and one labelled interval per row against a reference line.

use plotters::prelude::*;

use super::plot::{
    Axis, CEILING, Marker, PALETTE, Scale, WIDTH, fit_label, frame, label_px, legend, legend_width,
    row_label, rows_axis, svg,
};
use crate::stats::Interval;

/// One line: an implementation's operation (and parameters other than the length) across
/// lengths, or across thread counts in the bulk mode.
pub(super) struct Series {
    pub(super) label: String,
    /// The algorithm, by which a run with too many series for one chart is split.
    pub(super) group: String,
    /// (x, estimate, lo, hi) by x: per byte by length, or MB/s by threads.
    pub(super) points: Vec<(u64, f64, f64, f64)>,
}

/// How a line chart's x values (powers of two, drawn on a log scale) are named.
pub(super) struct XAxis {
    pub(super) desc: &'static str,
    pub(super) label: fn(f64) -> String,
}

/// Lines with interval bands over x values drawn on a log2 scale, optionally with a
/// horizontal reference line (a ceiling).
pub(super) fn draw_lines(
    lines: &[&Series],
    x_axis: XAxis,
    y_desc: &str,
    ceiling: Option<(f64, &str)>,
) -> Result<String, String> {
    let lens: Vec<u64> = {
        let mut l: Vec<u64> = lines
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .collect();
        l.sort_unstable();
        l.dedup();
        l
    };
    if lens.is_empty() {
        return Err("no line has a point to draw".into());
    }
    let lo = lines
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.2))
        .fold(f64::INFINITY, f64::min);
    let hi = lines
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.3))
        .fold(ceiling.map_or(0.0, |c| c.0), f64::max);
    let (scale, y0, y1) = Scale::fit(lo, hi, 10.0, true);
    let xs: Vec<f64> = lens.iter().map(|&l| (l as f64).log2()).collect();
    let (x0, x1) = (xs[0] - 0.35, xs[xs.len() - 1] + 0.35);
    // Every measured length is a tick, thinned where they would crowd.
    let every = xs.len().div_ceil(12);
    let x_ticks: Vec<f64> = xs.iter().copied().step_by(every).collect();
    let x_label = |t: &f64| (x_axis.label)(2f64.powf(*t));
    let y_label = scale.tick_label(y0, y1);
    let y_ticks = scale.ticks(y0, y1);
    let y_area = label_px(y_ticks.iter().map(|t| y_label(t).len())) + 28;
    let legend_w = legend_width(lines.iter().map(|s| s.label.chars().count()));
    svg((WIDTH, 430), |root| {
        let (plot, side) = root.split_horizontally(WIDTH - legend_w);
        let mut chart = frame(
            &plot,
            &Axis {
                range: (x0, x1),
                ticks: x_ticks,
                label: &x_label,
                desc: x_axis.desc.into(),
                label_area: 52,
            },
            &Axis {
                range: (y0, y1),
                ticks: y_ticks,
                label: &y_label,
                desc: if scale.log {
                    format!("{y_desc} (log scale)")
                } else {
                    y_desc.to_string()
                },
                label_area: y_area,
            },
        )?;
        let mut entries = Vec::new();
        if let Some((level, name)) = ceiling {
            chart.draw_series([PathElement::new(
                vec![(x0, scale.to(level)), (x1, scale.to(level))],
                CEILING.stroke_width(2),
            )])?;
            entries.push((CEILING, fit_label(name, 52), Marker::Line));
        }
        for (i, Series { label, points, .. }) in lines.iter().enumerate() {
            let colour = PALETTE[i % PALETTE.len()];
            let at = |l: u64, v: f64| ((l as f64).log2(), scale.to(v));
            let mut band: Vec<(f64, f64)> = points.iter().map(|p| at(p.0, p.3)).collect();
            band.extend(points.iter().rev().map(|p| at(p.0, p.2)));
            chart.draw_series(std::iter::once(Polygon::new(band, colour.mix(0.18))))?;
            chart.draw_series(std::iter::once(PathElement::new(
                points.iter().map(|p| at(p.0, p.1)).collect::<Vec<_>>(),
                colour.stroke_width(2),
            )))?;
            chart.draw_series(
                points
                    .iter()
                    .map(|p| Circle::new(at(p.0, p.1), 3, colour.filled())),
            )?;
            entries.push((colour, fit_label(label, 52), Marker::Line));
        }
        legend(&side, &entries)
    })
}

/// A chart of one labelled row per interval, the first row on top: a bar from `lo` to
/// `hi` with end caps and a dot at the estimate, in the row's colour, against a
/// vertical reference line (no change, or no gain) and, where given, a shaded band of
/// half-width `band.0` around it. The x axis covers `span` (from zero if `from_zero`).
pub(super) struct IntervalRows<'a> {
    pub(super) labels: &'a [String],
    pub(super) rows: Vec<(&'a Interval, RGBColor)>,
    pub(super) span: (f64, f64),
    pub(super) from_zero: bool,
    /// A tick's label from its value and the number as the axis writes it.
    pub(super) x_label: &'a dyn Fn(f64, String) -> String,
    pub(super) x_desc: &'a str,
    pub(super) reference: f64,
    pub(super) band: Option<(f64, RGBAColor)>,
    pub(super) row_px: u32,
    pub(super) legend: &'a [(RGBColor, String, Marker)],
}

pub(super) fn draw_interval_rows(chart: IntervalRows) -> Result<String, String> {
    let n = chart.rows.len();
    let (scale, x0, x1) = Scale::fit(chart.span.0, chart.span.1, f64::INFINITY, chart.from_zero);
    let number = scale.tick_label(x0, x1);
    let x_label = |t: &f64| (chart.x_label)(*t, number(t));
    let x = Axis {
        range: (x0, x1),
        ticks: scale.ticks(x0, x1),
        label: &x_label,
        desc: chart.x_desc.into(),
        label_area: 52,
    };
    let y_label = |t: &f64| row_label(chart.labels, *t);
    let y_area = label_px(chart.labels.iter().map(|l| l.chars().count()));
    let legend_w = legend_width(chart.legend.iter().map(|e| e.1.len()));
    let height = (100 + chart.row_px * n as u32).max(170);
    svg((WIDTH, height), |root| {
        let (plot, side) = root.split_horizontally(WIDTH - legend_w);
        let mut plot = frame(&plot, &x, &rows_axis(n, &y_label, y_area))?;
        let (top, bottom) = (n as f64 - 0.4, -0.6);
        if let Some((half, shade)) = chart.band {
            plot.draw_series([Rectangle::new(
                [
                    (chart.reference - half, bottom),
                    (chart.reference + half, top),
                ],
                shade.filled(),
            )])?;
        }
        plot.draw_series([PathElement::new(
            vec![(chart.reference, bottom), (chart.reference, top)],
            BLACK.mix(0.5).stroke_width(1),
        )])?;
        for (i, (iv, colour)) in chart.rows.iter().enumerate() {
            let y = (n - 1 - i) as f64;
            let cap = |x: f64| {
                PathElement::new(vec![(x, y - 0.15), (x, y + 0.15)], colour.stroke_width(2))
            };
            plot.draw_series([
                PathElement::new(vec![(iv.lo, y), (iv.hi, y)], colour.stroke_width(2)),
                cap(iv.lo),
                cap(iv.hi),
            ])?;
            plot.draw_series([Circle::new((iv.estimate, y), 5, colour.filled())])?;
        }
        legend(&side, chart.legend)
    })
}
