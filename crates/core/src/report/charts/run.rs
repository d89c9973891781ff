//! The charts of a run's report (the functions in [`super::RUN_CHARTS`]), and the forest
//! plot that the comparison of two runs shares.

use plotters::prelude::*;

use super::Chart;
use super::plot::{
    Axis, DIFFERENT, IMPROVED, MAX_SERIES, Marker, NO_CHANGE, PALETTE, REGRESSED, Scale, UNDECIDED,
    WIDTH, WITHIN_NOISE, bytes_label, fit_label, frame, label_px, rows_axis, svg, verdict_colour,
};
use super::shapes::{IntervalRows, Series, XAxis, draw_interval_rows, draw_lines};
use crate::analysis::{Analysis, CaseStats, Comparison, LaneSpeedup, Relation};
use crate::name::ImplName;
use crate::record::Param;

/// Cost per byte against message length, one line per implementation and operation,
/// its 95 % interval as a band: where fixed costs stop mattering, and who is faster where.
pub fn per_byte_by_length(a: &Analysis) -> Vec<Chart> {
    let mut series: Vec<Series> = Vec::new();
    for c in &a.cases {
        let (Some(len), Some(pb)) = (
            c.params.get(Param::Len),
            c.measured.as_ref().and_then(|m| m.per_byte),
        ) else {
            continue;
        };
        let others: Vec<String> = c
            .params
            .iter()
            .filter(|(k, _)| *k != Param::Len.name())
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let label = format!("{} {} {}", c.implementation, c.operation, others.join(" "))
            .trim_end()
            .to_string();
        let point = (len, pb.estimate, pb.lo, pb.hi);
        match series.iter_mut().find(|s| s.label == label) {
            Some(s) => s.points.push(point),
            None => series.push(Series {
                label,
                // One algorithm's providers at one operation and parameter point share
                // a chart (and its y range): what a reader compares.
                group: format!(
                    "{} {} {}",
                    ImplName::parse(&c.implementation).algorithm(),
                    c.operation,
                    others.join(" ")
                )
                .trim_end()
                .to_string(),
                points: vec![point],
            }),
        }
    }
    series.retain(|s| s.points.len() >= 2);
    if series.is_empty() {
        return Vec::new();
    }
    for s in &mut series {
        s.points.sort_by_key(|p| p.0);
    }
    let mut groups: Vec<(String, Vec<&Series>)> = Vec::new();
    if series.len() <= MAX_SERIES {
        groups.push((String::new(), series.iter().collect()));
    } else {
        let mut by_group: Vec<(String, Vec<&Series>)> = Vec::new();
        for s in &series {
            match by_group.iter_mut().find(|(g, _)| *g == s.group) {
                Some((_, members)) => members.push(s),
                None => by_group.push((s.group.clone(), vec![s])),
            }
        }
        // A group still too many for one chart is split in parts that say so, never
        // two charts under one title.
        for (group, members) in by_group {
            let parts = members.len().div_ceil(MAX_SERIES);
            for (i, chunk) in members.chunks(MAX_SERIES).enumerate() {
                let title = if parts == 1 {
                    group.clone()
                } else {
                    format!("{group} (part {} of {parts})", i + 1)
                };
                groups.push((title, chunk.to_vec()));
            }
        }
    }
    let u = &a.short_unit;
    groups
        .into_iter()
        .map(|(group, members)| {
            let title = if group.is_empty() {
                format!("{u} per byte against message length")
            } else {
                format!("{group}: {u} per byte against message length")
            };
            Chart {
                title,
                caption: format!(
                    "Median {u} per byte of each implementation at each message length (lower is faster); {}. Counter: {}.",
                    if a.cases.iter().any(|c| c.measured.as_ref().is_some_and(|m| m.has_interval())) {
                        "the band is its 95 % confidence interval"
                    } else {
                        "no band: too few processes for a 95 % interval"
                    },
                    a.unit
                ),
                svg: draw_lines(&members, LENGTH_AXIS, &format!("{u} per byte"), None),
            }
        })
        .collect()
}

const LENGTH_AXIS: XAxis = XAxis {
    desc: "message length (log scale)",
    label: bytes_label,
};

/// Horizontal box plots of the raw samples of every measured case: quartiles, median,
/// whiskers to the most extreme sample within 1.5 IQR, outliers as circles.
pub fn sample_distribution(a: &Analysis) -> Vec<Chart> {
    let u = &a.short_unit;
    let measured: Vec<&CaseStats> = a.cases.iter().filter(|c| c.measured.is_some()).collect();
    let per_byte: Vec<&CaseStats> = measured
        .iter()
        .copied()
        .filter(|c| c.bytes.is_some_and(|b| b > 0))
        .collect();
    let per_call: Vec<&CaseStats> = measured
        .iter()
        .copied()
        .filter(|c| c.bytes.is_none_or(|b| b == 0))
        .collect();
    let mut charts = Vec::new();
    for (cases, what) in [
        (per_byte, format!("{u} per byte")),
        (per_call, format!("{u} per call")),
    ] {
        if cases.is_empty() {
            continue;
        }
        charts.push(Chart {
            title: format!("Distribution of the raw samples ({what})"),
            caption: format!(
                "One row per case: the box spans the middle half of the samples, the thick line is the median, whiskers reach the most extreme sample within 1.5 IQR of the box, circles are outliers beyond (at most {} shown per side; the table counts all), and a red arrowhead at the edge marks outliers beyond the axis. Counter: {}.",
                crate::analysis::MARKED_OUTLIERS,
                a.unit
            ),
            svg: draw_boxes(&cases, &what),
        });
    }
    charts
}

fn draw_boxes(cases: &[&CaseStats], what: &str) -> Result<String, String> {
    const MAX_LABEL: usize = 56;
    let rows: Vec<(String, [f64; 5], Vec<f64>)> = cases
        .iter()
        .filter_map(|c| {
            let m = c.measured.as_ref()?;
            let div = c.bytes.filter(|&b| b > 0).map_or(1.0, |b| b as f64);
            let d = &m.distribution;
            Some((
                fit_label(&c.key, MAX_LABEL),
                [d.whisker_lo, d.q1, d.median, d.q3, d.whisker_hi].map(|v| v / div),
                d.outliers.iter().map(|v| v / div).collect(),
            ))
        })
        .collect();
    let n = rows.len();
    // The axis spans the boxes and whiskers, and outliers up to as far again: one
    // sample a hundred times slower would otherwise squash every box into a line.
    let (lo, hi) = rows
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(l, h), (_, b, _)| {
            (l.min(b[0]), h.max(b[4]))
        });
    let (reach_lo, reach_hi) = if lo > 0.0 && hi / lo > 20.0 {
        (lo / 2.0, hi * 2.0)
    } else {
        ((lo - (hi - lo)).max(0.0), hi + (hi - lo))
    };
    let (lo, hi) = rows
        .iter()
        .flat_map(|(_, _, o)| o.iter().copied())
        .filter(|o| (reach_lo..=reach_hi).contains(o))
        .fold((lo, hi), |(l, h), v| (l.min(v), h.max(v)));
    let (scale, x0, x1) = Scale::fit(lo, hi, 20.0, false);
    let x_label = scale.tick_label(x0, x1);
    let labels: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    let y_label = |t: &f64| {
        let i = t.round();
        // Row 0 at the top, as in the table.
        if i >= 0.0 && (i as usize) < n {
            labels[n - 1 - i as usize].clone()
        } else {
            String::new()
        }
    };
    let y_area = label_px(labels.iter().map(|l| l.chars().count()));
    let height = 90 + 30 * n as u32;
    svg((WIDTH, height), |root| {
        let mut chart = frame(
            root,
            &Axis {
                range: (x0, x1),
                ticks: scale.ticks(x0, x1),
                label: &x_label,
                desc: if scale.log {
                    format!("{what} (log scale)")
                } else {
                    what.to_string()
                },
                label_area: 52,
            },
            &rows_axis(n, &y_label, y_area),
        )?;
        let colour = PALETTE[0];
        for (i, (_, [wl, q1, med, q3, wh], outliers)) in rows.iter().enumerate() {
            let y = (n - 1 - i) as f64;
            let x = |v: f64| scale.to(v);
            chart.draw_series([
                PathElement::new(vec![(x(*wl), y), (x(*q1), y)], BLACK.stroke_width(1)),
                PathElement::new(vec![(x(*q3), y), (x(*wh), y)], BLACK.stroke_width(1)),
                PathElement::new(
                    vec![(x(*wl), y - 0.18), (x(*wl), y + 0.18)],
                    BLACK.stroke_width(1),
                ),
                PathElement::new(
                    vec![(x(*wh), y - 0.18), (x(*wh), y + 0.18)],
                    BLACK.stroke_width(1),
                ),
            ])?;
            chart.draw_series([Rectangle::new(
                [(x(*q1), y - 0.32), (x(*q3), y + 0.32)],
                colour.mix(0.25).filled(),
            )])?;
            chart.draw_series([Rectangle::new(
                [(x(*q1), y - 0.32), (x(*q3), y + 0.32)],
                colour.stroke_width(1),
            )])?;
            chart.draw_series([PathElement::new(
                vec![(x(*med), y - 0.32), (x(*med), y + 0.32)],
                colour.stroke_width(3),
            )])?;
            chart.draw_series(
                outliers
                    .iter()
                    .filter(|&&o| (x0..=x1).contains(&x(o)))
                    .map(|&o| Circle::new((x(o), y), 3, REGRESSED.stroke_width(1))),
            )?;
            // Outliers beyond the axis: one arrowhead at the edge they lie beyond.
            for (beyond, edge, tip) in [
                (outliers.iter().any(|&o| x(o) > x1), x1, 1),
                (outliers.iter().any(|&o| x(o) < x0), x0, -1),
            ] {
                if beyond {
                    chart.draw_series([EmptyElement::at((edge, y))
                        + Polygon::new(
                            vec![(-9 * tip, -6), (-9 * tip, 6), (-tip, 0)],
                            REGRESSED.filled(),
                        )])?;
                }
            }
        }
        Ok(())
    })
}

/// Comparisons within the run (`--against`, or the experiment's own) as a forest plot.
pub fn comparison_forest(a: &Analysis) -> Vec<Chart> {
    let noise = a.verdict_options.noise_threshold_pct;
    forest(
        "Comparisons: change of each candidate against its baseline",
        &a.comparisons,
        noise,
    )
    .into_iter()
    .collect()
}

/// The run against a saved baseline (`--baseline`), as a forest plot.
pub fn baseline_forest(a: &Analysis) -> Vec<Chart> {
    let Some(rc) = &a.against_baseline else {
        return Vec::new();
    };
    let noise = a.verdict_options.noise_threshold_pct;
    forest(
        &format!("Run {} against baseline run {}", rc.run_b, rc.run_a),
        &rc.comparisons,
        noise,
    )
    .into_iter()
    .collect()
}

/// A forest plot: one row per comparison, the change in percent with its interval,
/// coloured by verdict, over the band the noise threshold calls "within noise".
pub fn forest(title: &str, comparisons: &[Comparison], noise_pct: f64) -> Option<Chart> {
    if comparisons.is_empty() {
        return None;
    }
    Some(Chart {
        title: title.to_string(),
        caption: format!(
            "Change of the candidate against the baseline, in percent: the test's estimate of their ratio with its {} % confidence interval (positive = slower). The grey band is the noise threshold (±{noise_pct} %): a change is only claimed when its whole interval lies outside it.",
            crate::analysis::fmt_level(comparisons[0].change_pct.level)
        ),
        svg: draw_forest(comparisons, noise_pct),
    })
}

fn forest_label(c: &Comparison, with_operation: bool) -> String {
    let params = c.params.to_string();
    // Across runs the candidate is a case id, which already names both.
    let case_id_suffix = format!("/{} {params}", c.operation);
    if c.candidate.ends_with(case_id_suffix.trim_end()) {
        return format!("{} vs {}", c.candidate, c.baseline);
    }
    let what = if with_operation {
        format!("{} {params}", c.operation)
    } else {
        params
    };
    format!("{} vs {} {what}", c.candidate, c.baseline)
        .trim_end()
        .to_string()
}

fn draw_forest(comparisons: &[Comparison], noise_pct: f64) -> Result<String, String> {
    const MAX_LABEL: usize = 72;
    // As in the table: where several operations are compared (a KEM's keypair, encaps
    // and decaps), each row names its own, or three rows read the same.
    let operations: std::collections::BTreeSet<&str> =
        comparisons.iter().map(|c| c.operation.as_str()).collect();
    let labels: Vec<String> = comparisons
        .iter()
        .map(|c| fit_label(&forest_label(c, operations.len() > 1), MAX_LABEL))
        .collect();
    let lo = comparisons
        .iter()
        .map(|c| c.change_pct.lo)
        .fold(-noise_pct, f64::min)
        .min(0.0);
    let hi = comparisons
        .iter()
        .map(|c| c.change_pct.hi)
        .fold(noise_pct, f64::max)
        .max(0.0);
    let x_label = |t: f64, number: String| {
        let sign = if t > 0.0 { "+" } else { "" };
        format!("{sign}{number} %")
    };
    let has = |relation| comparisons.iter().any(|c| c.relation == relation);
    let variants = [
        (IMPROVED, "improved".to_string(), Marker::Dot),
        (REGRESSED, "regressed".to_string(), Marker::Dot),
    ];
    let rivals = [(DIFFERENT, "faster or slower".to_string(), Marker::Dot)];
    let entries: Vec<_> = (has(Relation::Variant)
        .then_some(variants)
        .into_iter()
        .flatten())
    .chain(
        has(Relation::Rivals)
            .then_some(rivals)
            .into_iter()
            .flatten(),
    )
    .chain(
        comparisons
            .iter()
            .any(|c| c.undecided.is_some())
            .then(|| (UNDECIDED, "undecided (host)".to_string(), Marker::Dot)),
    )
    .chain([
        (WITHIN_NOISE, "within noise".to_string(), Marker::Dot),
        (NO_CHANGE, "no change".to_string(), Marker::Dot),
        (
            NO_CHANGE,
            format!("noise threshold ±{noise_pct} %"),
            Marker::Band,
        ),
    ])
    .collect();
    let rows = comparisons
        .iter()
        .map(|c| {
            let colour = match c.undecided {
                Some(_) => UNDECIDED,
                None => verdict_colour(c.verdict, c.relation),
            };
            (&c.change_pct, colour)
        })
        .collect();
    draw_interval_rows(IntervalRows {
        labels: &labels,
        rows,
        span: (lo, hi),
        from_zero: false,
        x_label: &x_label,
        x_desc: "change (%), positive = slower",
        reference: 0.0,
        band: Some((noise_pct, NO_CHANGE.mix(0.18))),
        row_px: 32,
        legend: &entries,
    })
}

/// What N lanes buy (the N-way Keccak experiment): each N-lane call's speed-up over N
/// calls of the fastest single-lane implementation, with its 95 % interval, one row per
/// implementation and (output, input) pair, coloured by lane count.
pub fn lane_speedups(a: &Analysis) -> Vec<Chart> {
    if a.lanes.is_empty() {
        return Vec::new();
    }
    vec![Chart {
        title: "N lanes against N single calls".into(),
        caption: "Speed-up of one N-lane call over N calls of the fastest single-lane implementation at the same (output, input) lengths, with its 95 % interval; the vertical line is 1x (no gain).".into(),
        svg: draw_lanes(&a.lanes),
    }]
}

fn draw_lanes(lanes: &[LaneSpeedup]) -> Result<String, String> {
    const MAX_LABEL: usize = 60;
    let labels: Vec<String> = lanes
        .iter()
        .map(|l| {
            // With the provider: ours and libcrux's x4 share an algorithm name.
            let name = &l.implementation;
            let pair = match (l.params.get(Param::Out), l.params.get(Param::Len)) {
                (Some(out), Some(len)) => format!(" ({out} out, {len} in)"),
                _ => String::new(),
            };
            fit_label(&format!("{name}{pair}"), MAX_LABEL)
        })
        .collect();
    let hi = lanes.iter().map(|l| l.speedup.hi).fold(1.0, f64::max);
    let x_label = |_: f64, number: String| format!("{number}x");
    let mut lane_counts: Vec<usize> = lanes.iter().map(|l| l.lanes).collect();
    lane_counts.sort_unstable();
    lane_counts.dedup();
    let colour = |lanes: usize| {
        PALETTE[lane_counts.iter().position(|&c| c == lanes).unwrap_or(0) % PALETTE.len()]
    };
    let entries: Vec<(RGBColor, String, Marker)> = lane_counts
        .iter()
        .map(|&c| (colour(c), format!("{c} lanes"), Marker::Dot))
        .collect();
    let rows = lanes
        .iter()
        .map(|l| (&l.speedup, colour(l.lanes)))
        .collect();
    draw_interval_rows(IntervalRows {
        labels: &labels,
        rows,
        span: (0.0, hi),
        from_zero: true,
        x_label: &x_label,
        x_desc: "speed-up over N single calls (x)",
        reference: 1.0,
        band: None,
        row_px: 22,
        legend: &entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Param, Params};
    use crate::stats::Interval;
    use crate::stats::Verdict;

    fn comparison(candidate: &str, operation: &str, params: Params) -> Comparison {
        Comparison {
            relation: crate::analysis::Relation::Variant,
            baseline: "c/kem/o2".into(),
            candidate: candidate.into(),
            operation: operation.into(),
            params,
            median_baseline: 1.0,
            median_candidate: 1.0,
            difference: 0.0,
            change_pct: Interval {
                estimate: 0.0,
                lo: 0.0,
                hi: 0.0,
                level: 0.95,
            },
            stdev_baseline: 0.0,
            stdev_candidate: 0.0,
            p_value: 1.0,
            processes: [10, 10],
            p_floor: None,
            verdict: Verdict::NoChange,
            clock_change_pct: None,
            time_change_pct: None,
            undecided: None,
        }
    }

    #[test]
    fn forest_rows_name_the_operation_where_several_are_compared() {
        let keypair = comparison("c/kem/o3", "keypair", Params::new());
        assert_eq!(forest_label(&keypair, true), "c/kem/o3 vs c/kem/o2 keypair");
        assert_eq!(forest_label(&keypair, false), "c/kem/o3 vs c/kem/o2");
        let hash = comparison("c/h/o3", "hash", Params::new().with(Param::Len, 64));
        assert_eq!(forest_label(&hash, true), "c/h/o3 vs c/kem/o2 hash len=64");
        assert_eq!(forest_label(&hash, false), "c/h/o3 vs c/kem/o2 len=64");
        let across_runs = comparison(
            "c/h/o3/hash len=64",
            "hash",
            Params::new().with(Param::Len, 64),
        );
        assert_eq!(
            forest_label(&across_runs, true),
            "c/h/o3/hash len=64 vs c/kem/o2"
        );
    }
}
