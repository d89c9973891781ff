//! The HTML report: one self-contained page that opens offline. Its tables are the text
//! report's [`Document`], so the two never disagree; the machine it ran on and the
//! charts (inline SVG) come beside them. Nothing is fetched: no script, no font, no
//! image, and a Content-Security-Policy that forbids loading anything makes sure of it.
//!
//! Every piece of text goes through [`escape`]: implementation, manifest, variant and
//! file names are chosen by users.

use super::charts::{self, Chart};
use super::export::Exporter;
use super::{Block, Doc, Document, MatrixRow};
use crate::analysis::bulk::BulkAnalysis;
use crate::analysis::fleet::Fleet;
use crate::analysis::{Analysis, RunComparison};
use crate::history::History;
use crate::machine::Machine;
use crate::record::{MachineRecord, RunHeader, VerdictOptions};
use crate::store::StoredRun;

/// Text as HTML text or attribute value: nothing in it can open a tag or end a quote.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// One run: its report `doc`, its machine and every chart of [`charts::RUN_CHARTS`].
pub fn run_page(a: &Analysis, doc: &Document) -> String {
    let charts: Vec<Chart> = charts::RUN_CHARTS
        .iter()
        .flat_map(|chart| chart(a))
        .collect();
    // The report's `Counter:` line says the counter and the TSC's frequency.
    page(doc, &machine_rows(&a.header, false), &charts)
}

/// Two runs case by case: the report `doc` and a forest plot of the comparisons, with
/// `opts`' noise threshold as its band.
pub fn comparison_page(c: &RunComparison, opts: &VerdictOptions, doc: &Document) -> String {
    let title = format!("Run {} against baseline run {}", c.run_b, c.run_a);
    let charts: Vec<Chart> = charts::forest(&title, &c.comparisons, opts.noise_threshold_pct)
        .into_iter()
        .collect();
    page(doc, &[], &charts)
}

/// A bulk run: its tables and its thread-scaling charts.
pub fn bulk_page(header: &RunHeader, doc: &Document, charts: &[Chart]) -> String {
    page(doc, &machine_rows(header, true), charts)
}

/// The history: the report `doc` and a line chart per case.
pub fn history_page(h: &History, doc: &Document) -> String {
    page(doc, &[], &charts::history_lines(h))
}

/// An experiment across machines: its table and the machines' ratios.
pub fn fleet_page(f: &crate::analysis::fleet::Fleet, doc: &Document) -> String {
    page(doc, &[], &charts::fleet_ratios(f))
}

/// What the run's machine record says, as (label, value) rows; imported runs know less.
/// The counter and the TSC's frequency only `with_counter`, where no line of the page
/// says them.
fn machine_rows(h: &RunHeader, with_counter: bool) -> Vec<(&'static str, String)> {
    let mut rows = match &h.machine {
        MachineRecord::Measured(m) => measured_machine_rows(m, super::run::host_cc_note(h)),
        MachineRecord::Unrecorded(m) => vec![("CPU", non_empty(&m.cpu_model))],
        // The header's model: the run's line leaves the CPU to this block.
        MachineRecord::Unreadable(_) => vec![("CPU", non_empty(&h.cpu_model))],
    };
    rows.insert(
        rows.iter()
            .position(|(k, _)| *k == "CPU")
            .map_or(0, |i| i + 1),
        ("Testbed", non_empty(&h.place.testbed)),
    );
    if with_counter {
        rows.push((
            "TSC frequency",
            h.tsc_hz.map(|hz| format!("{:.1} MHz", hz / 1e6)),
        ));
        rows.push(("Counter", Some(format!("{} — {}", h.counter, h.unit))));
    }
    if let Some(m) = h.machine.measured()
        && !m.counters.is_empty()
    {
        let list: Vec<String> = m
            .counters
            .iter()
            .map(|c| match (c.available, &c.reason) {
                (true, _) => format!("{}: available", c.counter),
                (false, reason) => format!(
                    "{}: not available ({})",
                    c.counter,
                    reason.as_deref().unwrap_or("no reason given")
                ),
            })
            .collect();
        rows.push(("Counters here", Some(list.join("; "))));
    }
    rows.into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect()
}

fn non_empty(text: &str) -> Option<String> {
    Some(text.to_string()).filter(|t| !t.is_empty())
}

/// `cc_note` is said beside the host's `cc` ([`super::run::host_cc_note`]).
fn measured_machine_rows(m: &Machine, cc_note: &str) -> Vec<(&'static str, Option<String>)> {
    let optional = |t: &Option<String>| t.as_deref().and_then(non_empty);
    vec![
        (
            "CPU",
            non_empty(&m.cpu_model).map(|model| {
                let mut s = model;
                if let Some(sig) = non_empty(&m.cpu_signature) {
                    s += &format!(" ({sig})");
                }
                if let Some(arch) = non_empty(&m.arch) {
                    s += &format!(", {arch}");
                }
                s
            }),
        ),
        ("Crypto instruction sets", Some(m.crypto_flags.join(" "))),
        (
            "CPUs",
            Some(format!("{} available to the process", m.online_cpus)),
        ),
        (
            "Hypervisor",
            Some(if m.hypervisor { "yes" } else { "no" }.to_string()),
        ),
        ("Kernel", non_empty(&m.kernel)),
        (
            "Compilers",
            non_empty(&m.rustc).map(|r| {
                let cc = optional(&m.cc).unwrap_or_else(|| "not found".into());
                format!("{r}; cc: {cc}{cc_note}")
            }),
        ),
        (
            "Build",
            Some(m.build.as_ref().map_or_else(
                || "profile and flags not recorded".to_string(),
                crate::build_info::BuildInfo::describe,
            )),
        ),
        (
            "Libraries",
            m.build
                .as_ref()
                .and_then(crate::build_info::BuildInfo::libraries_listed),
        ),
        (
            "Governor, turbo",
            (optional(&m.governor).is_some() || optional(&m.turbo).is_some()).then(|| {
                format!(
                    "{}; turbo {}",
                    optional(&m.governor).unwrap_or_else(|| "unknown".into()),
                    optional(&m.turbo).unwrap_or_else(|| "unknown".into())
                )
            }),
        ),
        ("Load (1 min)", m.load_1min.map(|l| format!("{l:.2}"))),
    ]
}

const STYLE: &str = r#"
:root { color-scheme: light; --fg: #1d2430; --muted: #566070; --line: #d8dde6; --panel: #f5f7fa; }
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", "Liberation Sans", sans-serif; }
main { max-width: 1400px; margin: 0 auto; padding: 28px 32px 48px; }
h1 { font-size: 26px; margin: 0 0 10px; }
h2 { font-size: 19px; margin: 32px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 0 0 8px; word-break: break-word; }
p { margin: 4px 0; }
p.warn { background: #fff4e5; border-left: 4px solid #e69100; padding: 5px 10px; }
p.note { color: var(--muted); font-size: 13px; }
dl.machine { display: grid; grid-template-columns: max-content 1fr; gap: 3px 18px; margin: 14px 0 8px;
  background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; }
dl.machine dt { font-weight: 600; color: var(--muted); }
dl.machine dd { margin: 0; }
.table-wrap { overflow-x: auto; margin: 8px 0 12px; }
table { border-collapse: collapse; font-size: 13.5px; font-variant-numeric: tabular-nums; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
td.num, td:first-child, td[class^="v-"] { white-space: nowrap; }
th { min-width: 4em; }
th { background: var(--panel); font-weight: 600; }
tbody tr:nth-child(even) td { background: #fafbfc; }
td.num { text-align: right; }
span.vs { color: var(--muted); }
td.bad, td.v-regressed { color: #c62a1f; font-weight: 600; }
td.v-improved { color: #1a8548; font-weight: 600; }
td.v-within-noise { color: #a86200; }
td.v-no-change, td.v-no-difference { color: var(--muted); }
td.v-faster, td.v-slower { color: #3168a3; font-weight: 600; }
figure { margin: 14px 0 22px; padding: 14px 16px 10px; border: 1px solid var(--line); border-radius: 8px; }
figure svg { display: block; max-width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: 13px; margin-top: 6px; }
footer { color: var(--muted); font-size: 12px; margin-top: 36px; }
"#;

/// The whole page: the document's blocks in order, the machine after the title. A chart
/// titled like a heading of the document goes under that heading's table (a history's
/// case); the others together after the first table (the main results), or at the end.
fn page(doc: &Document, machine: &[(&str, String)], charts: &[Chart]) -> String {
    let headings: Vec<&str> = doc
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Heading(h) => Some(h.as_str()),
            _ => None,
        })
        .collect();
    let (mut placed, loose): (Vec<&Chart>, Vec<&Chart>) = charts
        .iter()
        .partition(|c| headings.contains(&c.title.as_str()));
    let mut section: Option<&str> = None;
    let title = doc
        .blocks
        .iter()
        .find_map(|b| match b {
            Block::Heading(h) => Some(h.as_str()),
            _ => None,
        })
        .unwrap_or("cryptobench report");
    let mut body = String::new();
    let mut titled = false;
    let mut machine_shown = machine.is_empty();
    let mut charts_shown = loose.is_empty();
    for block in &doc.blocks {
        let rendered = match block {
            Block::Heading(h) => {
                section = Some(h);
                let level = if titled { 2 } else { 1 };
                titled = true;
                body += &format!("<h{level}>{}</h{level}>\n", escape(h));
                continue;
            }
            // The machine block says these facts.
            Block::MachineLine(_) if !machine.is_empty() => continue,
            Block::Line(l) | Block::MachineLine(l) => {
                body += &format!("<p>{}</p>\n", escape(l));
                continue;
            }
            Block::RunLine {
                machine: cpu,
                run,
                warning,
            } => {
                // The machine block names the CPU and testbed.
                let line = if machine.is_empty() {
                    format!("Machine: {cpu}; {run}")
                } else {
                    format!("Run: {run}")
                };
                let class = if *warning { " class=\"warn\"" } else { "" };
                body += &format!("<p{class}>{}</p>\n", escape(&line));
                continue;
            }
            Block::Warning(l) => {
                body += &format!("<p class=\"warn\">{}</p>\n", escape(l));
                continue;
            }
            Block::Table { headers, rows } => table(headers, rows, None),
            Block::Matrix { headers, rows } => {
                let (headers, texts) = Block::matrix_as_table(headers, rows);
                table(&headers, &texts, heat(rows))
            }
        };
        // The machine before the first table, a section's charts after its table, the
        // loose charts after the first table (the main results).
        if !machine_shown {
            machine_shown = true;
            body += &machine_block(machine);
        }
        body += &rendered;
        if let Some(h) = section.take() {
            for c in placed.iter().filter(|c| c.title == h) {
                body += &figure(c);
            }
            placed.retain(|c| c.title != h);
        }
        if !charts_shown {
            charts_shown = true;
            body += &figures(&loose);
        }
    }
    if !machine_shown {
        body += &machine_block(machine);
    }
    // Charts whose heading had no table below it still belong on the page.
    for c in placed {
        body += &figure(c);
    }
    if !charts_shown {
        body += &figures(&loose);
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n{body}\
         <footer>Written by cryptobench {}. This page is self-contained: it loads nothing from anywhere.</footer>\n\
         </main>\n</body>\n</html>\n",
        escape(title),
        escape(env!("CARGO_PKG_VERSION")),
    )
}

fn machine_block(rows: &[(&str, String)]) -> String {
    let mut s = String::from("<dl class=\"machine\">\n");
    for (k, v) in rows {
        s += &format!("<dt>{}</dt><dd>{}</dd>\n", escape(k), escape(v));
    }
    s + "</dl>\n"
}

fn figures(charts: &[&Chart]) -> String {
    let mut s = String::from("<h2>Charts</h2>\n");
    for c in charts {
        s += &figure(c);
    }
    s
}

fn figure(c: &Chart) -> String {
    let title = escape(&c.title);
    let mut s = format!("<figure>\n<h3>{title}</h3>\n");
    match &c.svg {
        Ok(svg) => {
            s += &svg.replacen(
                "<svg ",
                &format!("<svg role=\"img\" aria-label=\"{title}\" "),
                1,
            )
        }
        Err(e) => {
            s += &format!(
                "<p class=\"warn\">This chart could not be drawn: {}</p>\n",
                escape(e)
            )
        }
    }
    s + &format!(
        "<figcaption>{}</figcaption>\n</figure>\n",
        escape(&c.caption)
    )
}

/// Whether a cell holds a figure (right-aligned so that digits line up), not prose
/// that starts with one.
fn numeric(cell: &str) -> bool {
    let t = cell.trim_start_matches(['+', '-', '±', '<', ' ']);
    t.starts_with(|c: char| c.is_ascii_digit()) && cell.chars().count() <= 28
}

/// A matrix's cells coloured from its fastest figure (green) towards red, on a log
/// scale: full red is twice as slow, or the slowest where the spread is wider, so that a
/// few percent never look like a chasm. The label column and cells without a figure stay
/// white; none at all where no cell has a figure.
fn heat(rows: &[MatrixRow]) -> Option<Vec<Vec<Option<String>>>> {
    let figures = || {
        rows.iter()
            .flat_map(|r| r.cells.iter().filter_map(|(_, v)| *v))
            .filter(|v| *v > 0.0 && v.is_finite())
    };
    let lo = figures().fold(f64::INFINITY, f64::min);
    let hi = figures().fold(0.0, f64::max);
    if !lo.is_finite() {
        return None;
    }
    let colours = rows
        .iter()
        .map(|r| {
            std::iter::once(None)
                .chain(r.cells.iter().map(|(_, v)| {
                    let v = v.filter(|v| *v > 0.0 && v.is_finite())?;
                    let t = (v / lo).ln() / (hi / lo).max(2.0).ln();
                    Some(format!("hsl({:.0}, 65%, 84%)", 120.0 * (1.0 - t)))
                }))
                .collect()
        })
        .collect();
    Some(colours)
}

/// A comparison's first cell names two implementations, too wide for one line in a table
/// of nine columns: the baseline goes on a line of its own (names never hold a space).
fn cell_html(column: usize, cell: &str) -> String {
    match cell.split_once(" vs ") {
        Some((candidate, baseline)) if column == 0 => format!(
            "{}<br><span class=\"vs\">vs {}</span>",
            escape(candidate),
            escape(baseline)
        ),
        _ => escape(cell),
    }
}

/// `colours`, where given, is a background per cell.
fn table(
    headers: &[String],
    rows: &[Vec<String>],
    colours: Option<Vec<Vec<Option<String>>>>,
) -> String {
    let verdict_col = headers.iter().position(|h| h == "Verdict");
    let mut s = String::from("<div class=\"table-wrap\"><table>\n<thead><tr>");
    for h in headers {
        s += &format!("<th>{}</th>", escape(h));
    }
    s += "</tr></thead>\n<tbody>\n";
    for (r, row) in rows.iter().enumerate() {
        s += "<tr>";
        for (i, cell) in row.iter().enumerate() {
            let mut classes = Vec::new();
            if numeric(cell) {
                classes.push("num".to_string());
            }
            if Some(i) == verdict_col {
                classes.push(format!("v-{}", cell.replace(' ', "-")));
            }
            if ["WRONG", "FAILED", "NOT COMPARABLE"]
                .iter()
                .any(|w| cell.starts_with(w))
            {
                classes.push("bad".into());
            }
            let class = if classes.is_empty() {
                String::new()
            } else {
                format!(" class=\"{}\"", escape(&classes.join(" ")))
            };
            let style = colours
                .as_ref()
                .and_then(|c| c[r][i].as_ref())
                .map_or(String::new(), |bg| format!(" style=\"background:{bg}\""));
            s += &format!("<td{class}{style}>{}</td>", cell_html(i, cell));
        }
        s += "</tr>\n";
    }
    s += "</tbody></table></div>\n";
    if colours.is_some() {
        s += "<p class=\"note\">Cell colour: the fastest figure of this table in green, towards red for twice as slow (or the slowest, if slower still).</p>\n";
    }
    s
}

/// One self-contained page per document, its tables beside its charts.
pub(super) struct Html;

impl Exporter for Html {
    fn documents(&self) -> &'static [Doc] {
        &[Doc::Run, Doc::Comparison, Doc::History, Doc::Fleet]
    }
    fn run(&self, a: &Analysis) -> String {
        run_page(a, &super::document(a))
    }
    fn bulk(&self, run: &StoredRun, t: &BulkAnalysis) -> Option<String> {
        Some(bulk_page(
            &run.header,
            &super::bulk::document(run, t),
            &super::bulk::scaling_charts(t),
        ))
    }
    fn comparison(
        &self,
        c: &RunComparison,
        pair: &super::Pair,
        opts: &VerdictOptions,
    ) -> Option<String> {
        Some(comparison_page(
            c,
            opts,
            &super::comparison_document(c, pair, opts),
        ))
    }
    fn history(&self, h: &History) -> Option<String> {
        Some(history_page(h, &super::history::document(h)))
    }
    fn fleet(&self, f: &Fleet) -> Option<String> {
        Some(fleet_page(f, &super::fleet::document(f)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{
        Case, ImportedCounter, ImportedFrom, Param, Params, RunCounter, RunOrigin,
    };
    use crate::store::{ImportedCase, Store};

    const EVIL: &str = "<script>alert(1)</script>";

    /// Names users choose, each carrying markup, through the store and every chart.
    #[test]
    fn user_supplied_names_never_become_markup() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("x.db")).unwrap();
        let header = RunHeader {
            id: 0,
            started_at: "2026-01-01T00:00:00Z".into(),
            finished_at: None,
            status: crate::record::RunStatus::Complete,
            experiment: format!("exp{EVIL}"),
            tool_version: "0".into(),
            git_revision: Some(EVIL.into()),
            counter: RunCounter::Imported(ImportedCounter::CriterionNs),
            unit: format!("ns{EVIL}"),
            tsc_hz: None,
            cpu_model: EVIL.into(),
            machine: MachineRecord::Measured(Box::new(Machine {
                cpu_model: EVIL.into(),
                crypto_flags: vec![EVIL.into()],
                kernel: EVIL.into(),
                warnings: vec![format!("hypervisor {EVIL}")],
                ..Machine::example(None)
            })),
            options: RunOrigin::Imported(ImportedFrom {
                source: EVIL.into(),
                path: EVIL.into(),
                note: EVIL.into(),
                imported_at: EVIL.into(),
            }),
            place: Default::default(),
        };
        let samples = |base: f64| vec![(0..40).map(|i| base + (i % 7) as f64).collect()];
        let cases: Vec<ImportedCase> = [64, 1024]
            .iter()
            .flat_map(|&len| {
                [
                    format!("{EVIL}/alg/v{EVIL}@x86-64"),
                    format!("p/alg/{EVIL}@t{EVIL}"),
                ]
                .map(|implementation| ImportedCase {
                    case: Case {
                        implementation,
                        operation: format!("op{EVIL}"),
                        params: Params::new().with(Param::Len, len),
                        lanes: 1,
                    },
                    per_process: samples(len as f64 * 3.0),
                    calls_per_sample: None,
                    message: Some(EVIL.into()),
                })
            })
            .collect();
        let id = store.import_run(&header, &cases).unwrap();
        let run = store.load_run(id).unwrap();
        let a = crate::analysis::analyse(&run, &Default::default()).unwrap();
        let html = super::super::render(&a, crate::report::Format::Html);
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "the names are shown, escaped"
        );
        assert!(!html.to_lowercase().contains("<script"), "{html}");
        assert!(html.contains("<svg"), "charts are drawn");
        assert!(
            html.contains("hsl("),
            "the variant x target matrix is coloured"
        );
    }

    #[test]
    fn a_comparison_names_its_baseline_on_a_second_line() {
        let html = table(
            &["Candidate vs baseline".into(), "Note".into()],
            &[vec![format!("a/x{EVIL} vs b/y"), "c vs d".into()]],
            None,
        );
        assert!(
            html.contains(
                "<td>a/x&lt;script&gt;alert(1)&lt;/script&gt;<br><span class=\"vs\">vs b/y</span></td>"
            ),
            "{html}"
        );
        assert!(
            html.contains("<td>c vs d</td>"),
            "only the first column: {html}"
        );
    }

    #[test]
    fn escape_covers_text_and_attributes() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn warnings_stand_out_and_prose_does_not() {
        let doc = Document {
            blocks: vec![
                Block::Heading("t".into()),
                Block::Line("Warning: in prose, not a warning".into()),
                Block::Warning("Not compared: a vs b: too few processes".into()),
            ],
        };
        let html = page(&doc, &[], &[]);
        assert!(
            html.contains("<p>Warning: in prose, not a warning</p>"),
            "{html}"
        );
        assert!(
            html.contains("<p class=\"warn\">Not compared: a vs b: too few processes</p>"),
            "{html}"
        );
    }

    #[test]
    fn matrices_are_coloured_from_fastest_to_slowest() {
        let row = |label: &str, cells: &[Option<f64>]| MatrixRow {
            label: label.into(),
            cells: cells
                .iter()
                .map(|v| (v.map_or("failed".into(), |v| v.to_string()), *v))
                .collect(),
        };
        let rows = [
            row("a", &[Some(1.0), Some(4.0)]),
            row("b", &[None, Some(2.0)]),
        ];
        let h = heat(&rows).unwrap();
        assert_eq!(h[0][0], None, "the label column stays white");
        assert_eq!(h[0][1].as_deref(), Some("hsl(120, 65%, 84%)"));
        assert_eq!(h[0][2].as_deref(), Some("hsl(0, 65%, 84%)"));
        assert_eq!(h[1][2].as_deref(), Some("hsl(60, 65%, 84%)"));
        assert_eq!(h[1][1], None);
        let h = heat(&[row("a", &[Some(1.0), Some(1.07)])]).unwrap();
        assert_eq!(
            h[0][2].as_deref(),
            Some("hsl(108, 65%, 84%)"),
            "7 % slower is nearly green"
        );
        assert!(heat(&[row("a", &[None, None])]).is_none());
    }
}
