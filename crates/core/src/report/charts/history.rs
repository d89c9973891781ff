//! The charts of `history`: one case's median run after run.

use plotters::prelude::*;

use super::Chart;
use super::plot::{
    Axis, Marker, PALETTE, REGRESSED, Scale, WIDTH, frame, label_px, legend, legend_width, svg,
};
use crate::history::{History, Point};

/// One point of a chart: its run's index, the median, whether it is comparable with the
/// latest, and the median's 95 % interval where it has one.
type Drawn = (usize, f64, bool, Option<(f64, f64)>);

/// One line chart per case of a history: its median run after run, each with its 95 %
/// interval as a bar. Runs measured with another counter or in another environment
/// than the latest, and points whose host was unsteady, are drawn apart and not joined.
pub fn history_lines(h: &History) -> Vec<Chart> {
    h.cases
        .iter()
        .map(|c| {
            let reference = &h.runs[c.reference(&h.runs)];
            // One axis, one unit: counts in another unit are no point on it.
            let (points, other_units): (Vec<&Point>, Vec<&Point>) = c
                .points
                .iter()
                .partition(|p| h.runs[p.run].short_unit == reference.short_unit);
            let points: Vec<Drawn> = points
                .iter()
                .map(|p| (p.run, p.median, p.comparable, p.interval.map(|i| (i.lo, i.hi))))
                .collect();
            let left_out = if other_units.is_empty() {
                String::new()
            } else {
                format!(
                    " Left out, as counted in another unit: {}.",
                    other_units
                        .iter()
                        .map(|p| {
                            let run = &h.runs[p.run];
                            format!("run {} ({})", run.id, run.short_unit)
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            Chart {
                title: h.title(c),
                caption: format!(
                    "Median {} per call in each stored run of this machine that measured this case, oldest first, with its 95 % interval as a vertical bar (none where the run had too few processes for one). Filled points are comparable with the latest ({}) and joined; hollow squares are not comparable with it (another counter, CPU or environment, an interrupted run, or a host the canary found unsteady; the table says which) and are not joined.{left_out}",
                    reference.short_unit,
                    reference.label()
                ),
                svg: draw_history(h, &points, &reference.short_unit),
            }
        })
        .collect()
}

fn draw_history(h: &History, points: &[Drawn], unit: &str) -> Result<String, String> {
    let lo = points
        .iter()
        .map(|p| p.3.map_or(p.1, |i| i.0))
        .fold(f64::INFINITY, f64::min);
    let hi = points
        .iter()
        .map(|p| p.3.map_or(p.1, |i| i.1))
        .fold(0.0, f64::max);
    let (scale, y0, y1) = Scale::fit(lo, hi, f64::INFINITY, false);
    // Runs are evenly spaced by order, not time: gaps between runs say nothing.
    let xs: Vec<usize> = points.iter().map(|p| p.0).collect();
    let pos = |run: usize| xs.iter().position(|&r| r == run).unwrap_or(0) as f64;
    let every = xs.len().div_ceil(12);
    let x_ticks: Vec<f64> = (0..xs.len()).step_by(every).map(|i| i as f64).collect();
    let x_label = |t: &f64| {
        xs.get(t.round().max(0.0) as usize)
            .map_or(String::new(), |&r| format!("run {}", h.runs[r].id))
    };
    let y_label = scale.tick_label(y0, y1);
    let y_ticks = scale.ticks(y0, y1);
    let y_area = label_px(y_ticks.iter().map(|t| y_label(t).len())) + 28;
    let entries = [
        (PALETTE[0], "comparable".to_string(), Marker::Line),
        (REGRESSED, "not comparable".to_string(), Marker::Hollow),
    ];
    let legend_w = legend_width(entries.iter().map(|e| e.1.len()));
    svg((WIDTH, 320), |root| {
        let (plot, side) = root.split_horizontally(WIDTH - legend_w);
        let mut chart = frame(
            &plot,
            &Axis {
                range: (-0.5, xs.len() as f64 - 0.5),
                ticks: x_ticks,
                label: &x_label,
                desc: "stored run (oldest first)".into(),
                label_area: 52,
            },
            &Axis {
                range: (y0, y1),
                ticks: y_ticks,
                label: &y_label,
                desc: format!("median ({unit} per call)"),
                label_area: y_area,
            },
        )?;
        let joined: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| p.2)
            .map(|p| (pos(p.0), p.1))
            .collect();
        chart.draw_series(points.iter().filter_map(|p| {
            let (lo, hi) = p.3?;
            let colour = if p.2 { PALETTE[0] } else { REGRESSED };
            Some(PathElement::new(
                vec![(pos(p.0), lo), (pos(p.0), hi)],
                colour.stroke_width(1),
            ))
        }))?;
        chart.draw_series([PathElement::new(joined.clone(), PALETTE[0].stroke_width(2))])?;
        chart.draw_series(
            joined
                .iter()
                .map(|&p| Circle::new(p, 4, PALETTE[0].filled())),
        )?;
        // Squares of a fixed size in pixels around each point, whatever the axes' scales.
        chart.draw_series(points.iter().filter(|p| !p.2).map(|p| {
            EmptyElement::at((pos(p.0), p.1))
                + Rectangle::new([(-5, -5), (5, 5)], REGRESSED.stroke_width(2))
        }))?;
        legend(&side, &entries)
    })
}
