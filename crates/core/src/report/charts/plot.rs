//! The plotting toolkit every chart draws with: axes with our own ticks, linear and log
//! scales, tick and row labels, the frame, the legend, the palette, and the SVG canvas.

use std::error::Error;
use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::prelude::*;

use crate::analysis::Relation;
use crate::stats::Verdict;

type Drawn = Result<(), Box<dyn Error>>;
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Grid = Cartesian2d<Ticked, Ticked>;

/// A linear axis with ticks exactly where we put them (plotters would choose its own),
/// so that lengths, rows and round values are labelled.
pub(super) struct Ticked {
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
pub(super) const WIDTH: u32 = 1280;
const FONT: &str = "sans-serif";
/// plotters' SVG backend writes a font size of `size / 1.24`: 16 is about 13 px.
const LABEL_SIZE: u32 = 16;
/// Width of one character at [`LABEL_SIZE`], for sizing label areas (an average: the
/// browser picks the font).
const CHAR_PX: f64 = 7.4;
/// At most this many series share one chart; more are split by algorithm.
pub(super) const MAX_SERIES: usize = 8;

/// Colour-blind-safe categorical colours (Okabe and Ito), dark enough on white.
pub(super) const PALETTE: [RGBColor; 8] = [
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
pub(super) const CEILING: RGBColor = RGBColor(60, 60, 60);
pub(super) const IMPROVED: RGBColor = RGBColor(26, 152, 80);
pub(super) const REGRESSED: RGBColor = RGBColor(215, 48, 39);
pub(super) const WITHIN_NOISE: RGBColor = RGBColor(230, 145, 0);
pub(super) const NO_CHANGE: RGBColor = RGBColor(120, 120, 120);
/// Faster or slower between two implementations: a finding, in neither green nor red.
pub(super) const DIFFERENT: RGBColor = RGBColor(49, 104, 163);
/// A comparison the host's state left undecided: in neither green nor red either.
pub(super) const UNDECIDED: RGBColor = RGBColor(204, 121, 167);

/// Green and red for an implementation against its own baseline only; between two
/// implementations a difference is a finding, not a regression.
pub(super) fn verdict_colour(v: Verdict, relation: Relation) -> RGBColor {
    match (v, relation) {
        (Verdict::Improved | Verdict::Regressed, Relation::Rivals) => DIFFERENT,
        (Verdict::Improved, Relation::Variant) => IMPROVED,
        (Verdict::Regressed, Relation::Variant) => REGRESSED,
        (Verdict::WithinNoise, _) => WITHIN_NOISE,
        (Verdict::NoChange, _) => NO_CHANGE,
    }
}

/// Draw on a white canvas of `size` and return the SVG text.
pub(super) fn svg(size: (u32, u32), draw: impl FnOnce(&Area) -> Drawn) -> Result<String, String> {
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
pub(super) struct Scale {
    pub(super) log: bool,
}

impl Scale {
    pub(super) fn to(self, v: f64) -> f64 {
        if self.log { v.log10() } else { v }
    }

    pub(super) fn from(self, t: f64) -> f64 {
        if self.log { 10f64.powf(t) } else { t }
    }

    /// A scale and its range (in axis units) for values `lo..hi`; `from_zero` keeps
    /// zero on a linear axis, where bar-like magnitudes are compared.
    pub(super) fn fit(lo: f64, hi: f64, spread_for_log: f64, from_zero: bool) -> (Scale, f64, f64) {
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
    pub(super) fn ticks(self, a: f64, b: f64) -> Vec<f64> {
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
            let step = Self::linear_step(a, b);
            let first = (a / step).ceil() as i64;
            let last = (b / step).floor() as i64;
            (first..=last).map(|i| i as f64 * step).collect()
        }
    }

    fn linear_step(a: f64, b: f64) -> f64 {
        nice_step((b - a) / 6.0)
    }

    /// The labels of [`Self::ticks`]`(a, b)`, as values (not axis units). On a linear
    /// axis every label has one unit (k, M) and as many decimals as the step needs, so
    /// that neighbours never read alike or unevenly ("1.62k" beside "1.65k"); a log
    /// axis, whose ticks are 1, 2, 5 or 1 to 8 times a power of ten, keeps [`short_num`].
    pub(super) fn tick_label(self, a: f64, b: f64) -> impl Fn(&f64) -> String {
        let step = Self::linear_step(a, b);
        let top = a.abs().max(b.abs());
        let (unit, suffix) = if top >= 1e6 {
            (1e6, "M")
        } else if top >= 1e4 {
            (1e3, "k")
        } else {
            (1.0, "")
        };
        let decimals = (0..=9)
            .find(|d| {
                let x = step / unit * 10f64.powi(*d);
                (x - x.round()).abs() < 1e-6 * x.max(1.0)
            })
            .unwrap_or(9);
        move |t: &f64| {
            if self.log {
                short_num(self.from(*t))
            } else if *t == 0.0 {
                "0".into()
            } else {
                format!("{:.*}{suffix}", decimals as usize, t / unit)
            }
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

/// A message length as people write it: 64 B, 16 KiB, 1536 KiB. Powers of 1024 only,
/// unlike [`crate::size::format_size`], which calls 1000 bytes 1 KB.
pub(super) fn bytes_label(n: f64) -> String {
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
pub(super) fn fit_label(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        s.to_string()
    } else {
        format!("…{}", s.chars().skip(n - max + 1).collect::<String>())
    }
}

pub(super) fn label_px(labels: impl Iterator<Item = usize>) -> u32 {
    (labels.max().unwrap_or(4) as f64 * CHAR_PX + 18.0) as u32
}

/// One axis: range and ticks in axis units, tick labels, and what it shows.
pub(super) struct Axis<'f> {
    pub(super) range: (f64, f64),
    pub(super) ticks: Vec<f64>,
    pub(super) label: &'f dyn Fn(&f64) -> String,
    pub(super) desc: String,
    pub(super) label_area: u32,
}

/// The frame every chart here draws into: both axes with explicit ticks, a light grid.
pub(super) fn frame<'a, 'b>(
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
pub(super) fn legend(area: &Area, entries: &[(RGBColor, String, Marker)]) -> Drawn {
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
pub(super) enum Marker {
    Line,
    Dot,
    Hollow,
    Band,
}

pub(super) fn legend_width(labels: impl Iterator<Item = usize>) -> u32 {
    (labels.max().unwrap_or(10) as f64 * CHAR_PX + 60.0).clamp(160.0, 420.0) as u32
}

/// The label of row `t` of a chart with one row per label, the first label on top.
pub(super) fn row_label(labels: &[String], t: f64) -> String {
    let (i, n) = (t.round(), labels.len());
    if i >= 0.0 && (i as usize) < n {
        labels[n - 1 - i as usize].clone()
    } else {
        String::new()
    }
}

/// The y axis of a chart with `n` labelled rows.
pub(super) fn rows_axis<'f>(
    n: usize,
    label: &'f dyn Fn(&f64) -> String,
    label_area: u32,
) -> Axis<'f> {
    Axis {
        range: (-0.6, n as f64 - 0.4),
        ticks: (0..n).map(|i| i as f64).collect(),
        label,
        desc: String::new(),
        label_area,
    }
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
    }

    #[test]
    fn linear_tick_labels_share_unit_and_decimals() {
        let labels = |a: f64, b: f64| {
            let s = Scale { log: false };
            let l = s.tick_label(a, b);
            s.ticks(a, b).iter().map(l).collect::<Vec<_>>()
        };
        // A 250-wide step above 10^4: once "16.2k" beside "16.5k".
        assert_eq!(
            labels(16_000.0, 17_400.0),
            ["16.00k", "16.25k", "16.50k", "16.75k", "17.00k", "17.25k"]
        );
        assert_eq!(labels(0.0, 12.0), ["0", "2", "4", "6", "8", "10", "12"]);
        assert_eq!(labels(1.0, 1.24), ["1.00", "1.05", "1.10", "1.15", "1.20"]);
        assert_eq!(
            labels(-10.0, 5.0),
            ["-10.0", "-7.5", "-5.0", "-2.5", "0", "2.5", "5.0"]
        );
        let log = Scale { log: true };
        assert_eq!(log.tick_label(0.0, 2.0)(&1.0), "10");
        assert_eq!(bytes_label(16384.0), "16 KiB");
        assert_eq!(bytes_label(64.0), "64 B");
        assert_eq!(bytes_label(1000.0), "1000 B");
        assert_eq!(fit_label("abcdef", 4), "…def");
    }
}
