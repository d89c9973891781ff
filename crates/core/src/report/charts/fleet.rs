//! The chart of a report across machines: each machine's within-run ratios.

use plotters::prelude::*;

use super::Chart;
use super::plot::{Marker, PALETTE, fit_label};
use super::shapes::{IntervalRows, draw_interval_rows};
use crate::analysis::fleet::Fleet;
use crate::report::format::ratio_operation;

/// Each ratio (candidate over reference, within one run) on each machine, with its 95 %
/// interval, a colour per machine: the figures that compare across CPUs.
pub fn fleet_ratios(f: &Fleet) -> Vec<Chart> {
    if f.ratios.is_empty() {
        return Vec::new();
    }
    vec![Chart {
        title: "Ratios within each machine's run".into(),
        caption: "Each candidate's median over its reference's, measured interleaved in one run on one machine, with its 95 % interval, a colour per testbed; the vertical line is 1 (as fast as the reference). Cycle counts of different CPUs are not compared; these ratios are.".into(),
        svg: draw(f),
    }]
}

fn draw(f: &Fleet) -> Result<String, String> {
    const MAX_LABEL: usize = 64;
    let colour = |column: usize| PALETTE[column % PALETTE.len()];
    let mut labels = Vec::new();
    let mut rows = Vec::new();
    for r in &f.ratios {
        for (column, cell) in r.cells.iter().enumerate() {
            if let Some(i) = cell {
                labels.push(fit_label(
                    &format!(
                        "{} / {} {} {} ({})",
                        r.member,
                        r.reference,
                        ratio_operation(&r.operation, &r.reference_operation),
                        r.params,
                        f.columns[column].testbed
                    ),
                    MAX_LABEL,
                ));
                rows.push((i, colour(column)));
            }
        }
    }
    let lo = rows.iter().map(|(i, _)| i.lo).fold(1.0, f64::min);
    let hi = rows.iter().map(|(i, _)| i.hi).fold(1.0, f64::max);
    let entries: Vec<(RGBColor, String, Marker)> = f
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| (colour(i), c.testbed.clone(), Marker::Dot))
        .collect();
    let x_label = |_: f64, number: String| number;
    draw_interval_rows(IntervalRows {
        labels: &labels,
        rows,
        span: (lo, hi),
        from_zero: false,
        x_label: &x_label,
        x_desc: "candidate / reference (within one run)",
        reference: 1.0,
        band: None,
        row_px: 22,
        legend: &entries,
    })
}
