//! Aligned text tables for people, or GitHub Markdown. Every string of a [`Document`]
//! (headings, lines, warnings, cells: names and notes users chose among them) goes
//! through the format's one escaping function, [`plain`] or [`md`], as every string of
//! a page goes through `html::escape`.

use comfy_table::{LineStyle, Table, TableStyle, presets};

/// Columns separated by spaces, one rule under the header: easy to read and to paste.
const PLAIN: TableStyle = TableStyle::new().header_separator(LineStyle::none().fill('─'));

use super::export::Exporter;
use super::{Block, Doc, Document};
use crate::analysis::bulk::BulkAnalysis;
use crate::analysis::fleet::Fleet;
use crate::analysis::{Analysis, RunComparison};
use crate::history::History;
use crate::record::VerdictOptions;
use crate::store::{MachineRow, StoredRun};

pub fn render(doc: &Document, markdown: bool) -> String {
    let mut out = String::new();
    for block in &doc.blocks {
        let mut piece = match block {
            Block::Heading(h) if markdown => format!("\n## {}\n\n", md(h)),
            Block::Heading(h) => format!("\n{}\n", plain(h)),
            Block::Line(l) | Block::MachineLine(l) | Block::Warning(l) if markdown => {
                format!("{}  \n", md(l))
            }
            Block::Line(l) | Block::MachineLine(l) | Block::Warning(l) => format!("{}\n", plain(l)),
            Block::RunLine { machine, run, .. } if markdown => {
                format!("{}  \n", md(&format!("Machine: {machine}; {run}")))
            }
            Block::RunLine { machine, run, .. } => {
                format!("{}\n", plain(&format!("Machine: {machine}; {run}")))
            }
            Block::Table { headers, rows } => table(headers, rows, markdown),
            Block::Matrix { headers, rows } => {
                let (headers, rows) = Block::matrix_as_table(headers, rows);
                table(&headers, &rows, markdown)
            }
        };
        // Markdown: one blank line between blocks, where a table's ends and a heading's
        // start would make two.
        while markdown && out.ends_with("\n\n") && piece.starts_with('\n') {
            piece.remove(0);
        }
        out += &piece;
    }
    out
}

fn table(headers: &[String], rows: &[Vec<String>], markdown: bool) -> String {
    let mut t = Table::new();
    t.load_style(if markdown {
        presets::ASCII_MARKDOWN
    } else {
        PLAIN
    });
    if markdown {
        t.set_header(headers.iter().map(|h| md_cell(h)));
        for r in rows {
            t.add_row(r.iter().map(|c| md_cell(c)));
        }
    } else {
        t.set_header(headers.iter().map(|h| plain(h)));
        for r in rows {
            t.add_row(r.iter().map(|c| plain(c)));
        }
    }
    // Markdown: a blank line each side, or a line after the table is read as its row.
    let gap = if markdown { "\n" } else { "" };
    format!("{gap}{t}\n{gap}")
}

/// Text for a terminal, as written, save control characters (an escape sequence in a
/// name would recolour or move the terminal's cursor): shown escaped, `\u{1b}`. Line
/// breaks and tabs are kept.
pub(crate) fn plain(s: &str) -> String {
    if !s.chars().any(hidden) {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if hidden(c) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A control character that [`plain`] shows escaped.
fn hidden(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// Markdown showing `s` as written, wherever it stands (a heading, a line, a cell): a
/// newline would end a heading or a row, `<i>` or `<script>` would be read as HTML, and
/// a control character is shown escaped as in [`plain`].
pub(crate) fn md(s: &str) -> String {
    plain(&s.replace("\r\n", " ").replace(['\n', '\r'], " ")).replace('<', "&lt;")
}

/// [`md`] for a table cell, where a `|` would also end the cell.
fn md_cell(s: &str) -> String {
    md(s).replace('|', "\\|")
}

/// Aligned text (`table`), or GitHub Markdown (`md`): every document, as its titled
/// blocks.
pub(super) struct Text {
    /// Markdown rather than aligned text.
    pub(super) markdown: bool,
}

impl Exporter for Text {
    fn documents(&self) -> &'static [Doc] {
        &[
            Doc::Run,
            Doc::Comparison,
            Doc::History,
            Doc::Machines,
            Doc::Fleet,
        ]
    }
    fn run(&self, a: &Analysis) -> String {
        render(&super::document(a), self.markdown)
    }
    fn bulk(&self, run: &StoredRun, t: &BulkAnalysis) -> Option<String> {
        Some(render(&super::bulk::document(run, t), self.markdown))
    }
    fn comparison(
        &self,
        c: &RunComparison,
        pair: &super::Pair,
        opts: &VerdictOptions,
    ) -> Option<String> {
        Some(render(
            &super::comparison_document(c, pair, opts),
            self.markdown,
        ))
    }
    fn history(&self, h: &History) -> Option<String> {
        Some(render(&super::history::document(h), self.markdown))
    }
    fn fleet(&self, f: &Fleet) -> Option<String> {
        Some(render(&super::fleet::document(f), self.markdown))
    }
    fn machines(&self, m: &[MachineRow]) -> Option<String> {
        Some(render(&super::fleet::machines_document(m), self.markdown))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_cells_are_escaped() {
        assert_eq!(md_cell("a|b"), "a\\|b");
        assert_eq!(md_cell("Vec<u8>"), "Vec&lt;u8>");
        assert_eq!(md_cell("two\nlines\r\nand\rthree"), "two lines and three");
        let headers = vec!["name".to_string(), "n".to_string()];
        let rows = vec![vec!["x|<u8>\ny".to_string(), "1".to_string()]];
        let md = table(&headers, &rows, true);
        let row = md.lines().find(|l| l.contains("x\\|")).expect(&md);
        assert_eq!(row.matches(" | ").count(), 1, "two cells: {md}");
        assert!(row.contains("x\\|&lt;u8> y"), "{md}");
        // Plain tables show names as they are.
        assert!(table(&headers, &rows, false).contains("x|<u8>"));
    }

    /// Headings and notes carry names users chose (a manifest's implementation and
    /// algorithm): they are escaped as cells are.
    #[test]
    fn markdown_headings_and_lines_are_escaped_as_cells_are() {
        let doc = Document {
            blocks: vec![
                Block::Heading("run of <script>alert(1)".into()),
                Block::Line("Note: toy<i>perm\nsecond".into()),
                Block::Warning("Warning: <b>".into()),
            ],
        };
        let md = render(&doc, true);
        assert!(!md.contains('<'), "{md}");
        assert!(md.contains("## run of &lt;script>alert(1)\n"), "{md}");
        assert!(md.contains("Note: toy&lt;i>perm second  \n"), "{md}");
        assert!(md.contains("Warning: &lt;b>  \n"), "{md}");
    }

    #[test]
    fn control_characters_are_shown_escaped_in_every_text_format() {
        let evil = "a\x1b[31mRED";
        let doc = Document {
            blocks: vec![
                Block::Heading(evil.into()),
                Block::Line(evil.into()),
                Block::Table {
                    headers: vec!["h".into()],
                    rows: vec![vec![evil.into()]],
                },
            ],
        };
        for markdown in [false, true] {
            let out = render(&doc, markdown);
            assert!(!out.contains('\x1b'), "{out:?}");
            assert_eq!(out.matches("a\\u{1b}[31mRED").count(), 3, "{out}");
        }
    }
}
