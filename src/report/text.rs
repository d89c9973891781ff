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
    if markdown {
        t.set_header(headers.iter().map(|h| md_cell(h)));
        for r in rows {
            t.add_row(r.iter().map(|c| md_cell(c)));
        }
    } else {
        t.set_header(headers);
        for r in rows {
            t.add_row(r);
        }
    }
    let gap = if markdown { "\n" } else { "" };
    format!("{gap}{t}\n")
}

/// A Markdown table cell showing `s` as written: a `|` would end the cell, a newline the
/// row, and `<u8>` would be read as HTML and vanish.
fn md_cell(s: &str) -> String {
    s.replace("\r\n", " ")
        .replace(['\n', '\r'], " ")
        .replace('|', "\\|")
        .replace('<', "&lt;")
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
}
