//! Aligned text tables for people, or GitHub Markdown.

use comfy_table::{LineStyle, Table, TableStyle, presets};

/// Columns separated by spaces, one rule under the header: easy to read and to paste.
const PLAIN: TableStyle = TableStyle::new().header_separator(LineStyle::none().fill('─'));

use super::{Block, Document};

pub fn render(doc: &Document, markdown: bool) -> String {
    let mut out = String::new();
    for block in &doc.blocks {
        match block {
            Block::Heading(h) if markdown => out += &format!("\n## {h}\n\n"),
            Block::Heading(h) => out += &format!("\n{h}\n"),
            Block::Line(l) | Block::Warning(l) if markdown => out += &format!("{l}  \n"),
            Block::Line(l) | Block::Warning(l) => out += &format!("{l}\n"),
            Block::Table { headers, rows } => out += &table(headers, rows, markdown),
            Block::Matrix { headers, rows } => {
                let (headers, rows) = Block::matrix_as_table(headers, rows);
                out += &table(&headers, &rows, markdown);
            }
        }
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
    t.set_header(headers);
    for r in rows {
        t.add_row(r);
    }
    let gap = if markdown { "\n" } else { "" };
    format!("{gap}{t}\n")
}
