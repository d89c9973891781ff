//! Charts for the HTML report, drawn as SVG with plotters: one function per chart.
//!
//! A run's charts are the functions in [`RUN_CHARTS`]; a new chart is one more function
//! there, taking the [`Analysis`] and returning its charts (none where the run has
//! nothing to show). Text in the SVG is escaped by plotters' SVG backend; titles and
//! captions are escaped by the page.

use std::error::Error;

use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::prelude::*;

use crate::analysis::{Analysis, CaseStats, Comparison, LaneSpeedup};
use crate::stats::{Interval, Verdict};

use crate::history::History;
use crate::name::ImplName;

/// One figure: a title, a sentence on how to read it, and the SVG (or why it could not
/// be drawn).
pub struct Chart {
    pub title: String,
    pub caption: String,
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

type Drawn = Result<(), Box<dyn Error>>;
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Grid = Cartesian2d<Ticked, Ticked>;

/// A linear axis with ticks exactly where we put them (plotters would choose its own),
/// so that lengths, rows and round values are labelled.
struct Ticked {
    range: (f64, f64),
    ticks: Vec<f64>,
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let (a, b) = self.range;
        let t = (v - a) / (b - a);
        limit.0 + ((limit.1 - limit.0) as f64 * t).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // Only the bold grid: a light one between ticks adds lines, not information.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.0..self.range.1
    }
}

/// Wide enough for the page's content column; the page scales it down on narrow screens.
const WIDTH: u32 = 1280;
const FONT: &str = "sans-serif";
/// plotters' SVG backend writes a font size of `size / 1.24`: 16 is about 13 px.
const LABEL_SIZE: u32 = 16;
/// Width of one character at [`LABEL_SIZE`], for sizing label areas (an average: the
/// browser picks the font).
const CHAR_PX: f64 = 7.4;
/// At most this many series share one chart; more are split by algorithm.
const MAX_SERIES: usize = 8;

/// Colour-blind-safe categorical colours (Okabe and Ito), dark enough on white.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(150, 150, 60),
];
const GRID_GREY: RGBColor = RGBColor(225, 225, 225);
const CEILING: RGBColor = RGBColor(60, 60, 60);
const IMPROVED: RGBColor = RGBColor(26, 152, 80);
const REGRESSED: RGBColor = RGBColor(215, 48, 39);
const WITHIN_NOISE: RGBColor = RGBColor(230, 145, 0);
const NO_CHANGE: RGBColor = RGBColor(120, 120, 120);

fn verdict_colour(v: Verdict) -> RGBColor {
    match v {
        Verdict::Improved => IMPROVED,
        Verdict::Regressed => REGRESSED,
        Verdict::WithinNoise => WITHIN_NOISE,
        Verdict::NoChange => NO_CHANGE,
    }
}

/// Draw on a white canvas of `size` and return the SVG text.
fn svg(size: (u32, u32), draw: impl FnOnce(&Area) -> Drawn) -> Result<String, String> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        draw(&root).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(buf)
}

/// How values map onto an axis: linear, or log10 where they span more than a decade
/// or so (a per-byte cost at 16 bytes next to one at 16 KiB).
#[derive(Clone, Copy)]
struct Scale {
    log: bool,
}

impl Scale {
    fn to(self, v: f64) -> f64 {
        if self.log { v.log10() } else { v }
    }

    fn from(self, t: f64) -> f64 {
        if self.log { 10f64.powf(t) } else { t }
    }

    /// A scale and its range (in axis units) for values `lo..hi`; `from_zero` keeps
    /// zero on a linear axis, where bar-like magnitudes are compared.
    fn fit(lo: f64, hi: f64, spread_for_log: f64, from_zero: bool) -> (Scale, f64, f64) {
        let log = lo > 0.0 && hi / lo > spread_for_log;
        let s = Scale { log };
        if log {
            let (a, b) = (lo.log10(), hi.log10());
            let pad = ((b - a) * 0.06).max(0.02);
            (s, a - pad, b + pad)
        } else {
            let span = (hi - lo).max(hi.abs() * 0.02).max(1e-9);
            let a = if from_zero && lo >= 0.0 {
                0.0
            } else {
                lo - span * 0.08
            };
            (s, a, hi + span * 0.08)
        }
    }

    /// Tick positions (in axis units) between `a` and `b`, at round values.
    fn ticks(self, a: f64, b: f64) -> Vec<f64> {
        if self.log {
            let mut out: Vec<f64> = Vec::new();
            for mantissas in [&[1.0, 2.0, 5.0][..], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0]] {
                out = (a.floor() as i32..=b.ceil() as i32)
                    .flat_map(|k| mantissas.iter().map(move |m| m * 10f64.powi(k)))
                    .map(f64::log10)
                    .filter(|t| (a..=b).contains(t))
                    .collect();
                if out.len() >= 3 {
                    break;
                }
            }
            out
        } else {
            let step = nice_step((b - a) / 6.0);
            let first = (a / step).ceil() as i64;
            let last = (b / step).floor() as i64;
            (first..=last).map(|i| i as f64 * step).collect()
        }
    }
}

/// 1, 2, 2.5 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let raw = raw.max(1e-12);
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
}

/// A tick label: few digits, no trailing zeros, k/M for large counts.
fn short_num(v: f64) -> String {
    let a = v.abs();
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if a >= 1e6 {
        trim(format!("{:.2}", v / 1e6)) + "M"
    } else if a >= 1e4 {
        trim(format!("{:.1}", v / 1e3)) + "k"
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        trim(format!("{v:.2}"))
    } else if a == 0.0 {
        "0".into()
    } else {
        trim(format!("{v:.3}"))
    }
}

/// A message length as people write it: 64 B, 16 KiB, 1.5 MiB.
fn bytes_label(n: f64) -> String {
    let n = n.round();
    if n >= 1024.0 * 1024.0 && (n % (1024.0 * 1024.0)) == 0.0 {
        format!("{} MiB", n / (1024.0 * 1024.0))
    } else if n >= 1024.0 && n % 1024.0 == 0.0 {
        format!("{} KiB", n / 1024.0)
    } else {
        format!("{n} B")
    }
}

/// Shorten a label to `max` characters, keeping its end (lengths and variants differ there).
fn fit_label(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        s.to_string()
    } else {
        format!("…{}", s.chars().skip(n - max + 1).collect::<String>())
    }
}

fn label_px(labels: impl Iterator<Item = usize>) -> u32 {
    (labels.max().unwrap_or(4) as f64 * CHAR_PX + 18.0) as u32
}

/// One axis: range and ticks in axis units, tick labels, and what it shows.
struct Axis<'f> {
    range: (f64, f64),
    ticks: Vec<f64>,
    label: &'f dyn Fn(&f64) -> String,
    desc: String,
    label_area: u32,
}

/// The frame every chart here draws into: both axes with explicit ticks, a light grid.
fn frame<'a, 'b>(
    area: &'a Area<'b>,
    x: &Axis,
    y: &Axis,
) -> Result<ChartContext<'a, SVGBackend<'b>, Grid>, Box<dyn Error>> {
    let mut chart = ChartBuilder::on(area)
        .margin_top(14)
        .margin_right(24)
        .margin_left(8)
        .x_label_area_size(x.label_area)
        .y_label_area_size(y.label_area)
        .build_cartesian_2d(
            Ticked {
                range: x.range,
                ticks: x.ticks.clone(),
            },
            Ticked {
                range: y.range,
                ticks: y.ticks.clone(),
            },
        )?;
    chart
        .configure_mesh()
        .bold_line_style(GRID_GREY)
        .axis_style(BLACK.mix(0.6))
        .x_desc(x.desc.as_str())
        .y_desc(y.desc.as_str())
        .x_label_formatter(x.label)
        .y_label_formatter(y.label)
        .label_style((FONT, LABEL_SIZE))
        .axis_desc_style((FONT, LABEL_SIZE + 1))
        .draw()?;
    Ok(chart)
}

/// A legend beside the plot (never over it): a marker and a label per entry.
fn legend(area: &Area, entries: &[(RGBColor, String, Marker)]) -> Drawn {
    let style = (FONT, LABEL_SIZE).into_font().color(&BLACK);
    for (i, (colour, label, marker)) in entries.iter().enumerate() {
        let y = 24 + 24 * i as i32;
        match marker {
            Marker::Line => {
                area.draw(&PathElement::new(
                    vec![(6, y), (34, y)],
                    colour.stroke_width(3),
                ))?;
                area.draw(&Circle::new((20, y), 4, colour.filled()))?;
            }
            Marker::Dot => area.draw(&Circle::new((20, y), 6, colour.filled()))?,
            Marker::Hollow => area.draw(&Rectangle::new(
                [(14, y - 6), (26, y + 6)],
                colour.stroke_width(2),
            ))?,
            Marker::Band => area.draw(&Rectangle::new(
                [(6, y - 8), (34, y + 8)],
                colour.mix(0.35).filled(),
            ))?,
        }
        area.draw(&Text::new(label.clone(), (42, y - 8), style.clone()))?;
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Marker {
    Line,
    Dot,
    Hollow,
    Band,
}

fn legend_width(labels: impl Iterator<Item = usize>) -> u32 {
    (labels.max().unwrap_or(10) as f64 * CHAR_PX + 60.0).clamp(160.0, 420.0) as u32
}

/// One implementation's operation (and parameters other than the length) across lengths.
struct Series {
    label: String,
    /// The algorithm, by which a run with too many series for one chart is split.
    group: String,
    /// (length, estimate, lo, hi) per byte, by length.
    points: Vec<(u64, f64, f64, f64)>,
}

/// Cost per byte against message length, one line per implementation and operation,
/// its 95 % interval as a band: where fixed costs stop mattering, and who is faster where.
pub fn per_byte_by_length(a: &Analysis) -> Vec<Chart> {
    let mut series: Vec<Series> = Vec::new();
    for c in &a.cases {
        let (Some(len), Some(pb)) = (
            c.params.get("len"),
            c.measured.as_ref().and_then(|m| m.per_byte),
        ) else {
            continue;
        };
        let others: Vec<String> = c
            .params
            .iter()
            .filter(|(k, _)| *k != "len")
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
                group: ImplName::parse(&c.implementation).algorithm().to_string(),
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
        for s in &series {
            match groups
                .iter_mut()
                .find(|(g, members)| *g == s.group && members.len() < MAX_SERIES)
            {
                Some((_, members)) => members.push(s),
                None => groups.push((s.group.clone(), vec![s])),
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
                    "Median {u} per byte of each implementation at each message length (lower is faster); the band is its 95 % confidence interval. Counter: {}.",
                    a.unit
                ),
                svg: draw_lines(&members, LENGTH_AXIS, &format!("{u} per byte"), None),
            }
        })
        .collect()
}

/// How a line chart's x values (powers of two, drawn on a log scale) are named.
struct XAxis {
    desc: &'static str,
    label: fn(f64) -> String,
}

const LENGTH_AXIS: XAxis = XAxis {
    desc: "message length (log scale)",
    label: bytes_label,
};

const THREADS_AXIS: XAxis = XAxis {
    desc: "threads (log scale)",
    label: |t| format!("{}", t.round()),
};

/// Lines with interval bands over x values drawn on a log2 scale, optionally with a
/// horizontal reference line (a ceiling).
fn draw_lines(
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
    let y_label = |t: &f64| short_num(scale.from(*t));
    let y_ticks = scale.ticks(y0, y1);
    let y_area = label_px(y_ticks.iter().map(|t| short_num(scale.from(*t)).len())) + 28;
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
    let x_label = |t: &f64| short_num(scale.from(*t));
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

/// The label of row `t` of a chart with one row per label, the first label on top.
fn row_label(labels: &[String], t: f64) -> String {
    let (i, n) = (t.round(), labels.len());
    if i >= 0.0 && (i as usize) < n {
        labels[n - 1 - i as usize].clone()
    } else {
        String::new()
    }
}

/// The y axis of a chart with `n` labelled rows.
fn rows_axis<'f>(n: usize, label: &'f dyn Fn(&f64) -> String, label_area: u32) -> Axis<'f> {
    Axis {
        range: (-0.6, n as f64 - 0.4),
        ticks: (0..n).map(|i| i as f64).collect(),
        label,
        desc: String::new(),
        label_area,
    }
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

/// A forest plot: one row per comparison, the change in percent with its 95 % interval,
/// coloured by verdict, over the band the noise threshold calls "within noise".
pub fn forest(title: &str, comparisons: &[Comparison], noise_pct: f64) -> Option<Chart> {
    if comparisons.is_empty() {
        return None;
    }
    Some(Chart {
        title: title.to_string(),
        caption: format!(
            "Change of the candidate's median against the baseline's, in percent, with its 95 % confidence interval (positive = slower). The grey band is the noise threshold (±{noise_pct} %): a change is only claimed when its whole interval lies outside it."
        ),
        svg: draw_forest(comparisons, noise_pct),
    })
}

fn draw_forest(comparisons: &[Comparison], noise_pct: f64) -> Result<String, String> {
    const MAX_LABEL: usize = 72;
    let labels: Vec<String> = comparisons
        .iter()
        .map(|c| {
            // Across runs the candidate is a case id, which already ends with its parameters.
            let params = c.params.to_string();
            let l = if c.candidate.ends_with(&params) {
                format!("{} vs {}", c.candidate, c.baseline)
            } else {
                format!("{} vs {} {params}", c.candidate, c.baseline)
            };
            fit_label(l.trim_end(), MAX_LABEL)
        })
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
    let x_label = |t: &f64| {
        let sign = if *t > 0.0 { "+" } else { "" };
        format!("{sign}{} %", short_num(*t))
    };
    let entries = [
        (IMPROVED, "improved".to_string(), Marker::Dot),
        (REGRESSED, "regressed".to_string(), Marker::Dot),
        (WITHIN_NOISE, "within noise".to_string(), Marker::Dot),
        (NO_CHANGE, "no change".to_string(), Marker::Dot),
        (
            NO_CHANGE,
            format!("noise threshold ±{noise_pct} %"),
            Marker::Band,
        ),
    ];
    let rows = comparisons
        .iter()
        .map(|c| (&c.change_pct, verdict_colour(c.verdict)))
        .collect();
    draw_interval_rows(IntervalRows {
        labels: &labels,
        rows,
        span: (lo, hi),
        from_zero: false,
        x_label: &x_label,
        x_desc: "change of the median (%), positive = slower",
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
            let pair = match (l.params.get("out"), l.params.get("len")) {
                (Some(out), Some(len)) => format!(" ({out} out, {len} in)"),
                _ => String::new(),
            };
            fit_label(&format!("{name}{pair}"), MAX_LABEL)
        })
        .collect();
    let hi = lanes.iter().map(|l| l.speedup.hi).fold(1.0, f64::max);
    let x_label = |t: &f64| format!("{}x", short_num(*t));
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

/// A chart of one labelled row per interval, the first row on top: a bar from `lo` to
/// `hi` with end caps and a dot at the estimate, in the row's colour, against a
/// vertical reference line (no change, or no gain) and, where given, a shaded band of
/// half-width `band.0` around it. The x axis covers `span` (from zero if `from_zero`).
struct IntervalRows<'a> {
    labels: &'a [String],
    rows: Vec<(&'a Interval, RGBColor)>,
    span: (f64, f64),
    from_zero: bool,
    x_label: &'a dyn Fn(&f64) -> String,
    x_desc: &'a str,
    reference: f64,
    band: Option<(f64, RGBAColor)>,
    row_px: u32,
    legend: &'a [(RGBColor, String, Marker)],
}

fn draw_interval_rows(chart: IntervalRows) -> Result<String, String> {
    let n = chart.rows.len();
    let (scale, x0, x1) = Scale::fit(chart.span.0, chart.span.1, f64::INFINITY, chart.from_zero);
    let x = Axis {
        range: (x0, x1),
        ticks: scale.ticks(x0, x1),
        label: chart.x_label,
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

/// One line of a thread-scaling chart: its label and (threads, median, low, high) points.
pub type ScalingLine = (String, Vec<(u64, f64, f64, f64)>);

/// Thread scaling of the bulk mode: median MB/s against threads per implementation and
/// operation (min..max of the runs as the band), with the memcpy ceiling as a line.
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
        svg: draw_lines(&refs, THREADS_AXIS, "MB/s (10^6 bytes per second)", ceiling.map(|c| (c, "memcpy ceiling"))),
    }
}

/// One line chart per case of a history: its median run after run. Runs measured with
/// another counter or on another CPU than the latest are drawn apart and not joined.
pub fn history_lines(h: &History) -> Vec<Chart> {
    h.cases
        .iter()
        .map(|c| {
            let points: Vec<(usize, f64, bool)> = c
                .points
                .iter()
                .map(|p| (p.run, p.median, p.comparable))
                .collect();
            let reference = &h.runs[c.reference()];
            Chart {
                title: c.key.clone(),
                caption: format!(
                    "Median {} per call in each stored run that measured this case, oldest first. Filled points are comparable with the latest ({}) and joined; hollow squares counted with another counter or ran on another CPU, and are not joined.",
                    reference.short_unit,
                    reference.label()
                ),
                svg: draw_history(h, &points, &reference.short_unit),
            }
        })
        .collect()
}

fn draw_history(h: &History, points: &[(usize, f64, bool)], unit: &str) -> Result<String, String> {
    let lo = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let hi = points.iter().map(|p| p.1).fold(0.0, f64::max);
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
    let y_label = |t: &f64| short_num(*t);
    let y_ticks = scale.ticks(y0, y1);
    let y_area = label_px(y_ticks.iter().map(|t| short_num(*t).len())) + 28;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_inside_the_range() {
        let s = Scale { log: false };
        assert_eq!(
            s.ticks(0.0, 12.0),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0]
        );
        let log = Scale { log: true };
        let t: Vec<f64> = log.ticks(0.0, 2.0).iter().map(|t| 10f64.powf(*t)).collect();
        assert_eq!(t.len(), 7, "{t:?}");
        assert!((t[0] - 1.0).abs() < 1e-9 && (t[6] - 100.0).abs() < 1e-9);
    }

    #[test]
    fn labels_are_short() {
        assert_eq!(short_num(1234.0), "1234");
        assert_eq!(short_num(15_000.0), "15k");
        assert_eq!(short_num(2_500_000.0), "2.5M");
        assert_eq!(short_num(1.50), "1.5");
        assert_eq!(short_num(0.125), "0.125");
        assert_eq!(bytes_label(16384.0), "16 KiB");
        assert_eq!(bytes_label(64.0), "64 B");
        assert_eq!(bytes_label(1000.0), "1000 B");
        assert_eq!(fit_label("abcdef", 4), "…def");
    }
}
