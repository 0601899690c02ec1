//! Output: the API's JSON unchanged, or plain aligned tables safe to print on a terminal.
use std::io::{IsTerminal, Write};

use serde_json::Value;

/// `-o json|table`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// The API's JSON as received.
    Json,
    /// A readable table of the key columns.
    Table,
}

impl OutputFormat {
    /// The format asked for, else table on a terminal and JSON when piped.
    pub fn choose(asked: Option<OutputFormat>) -> Self {
        asked.unwrap_or_else(|| {
            if std::io::stdout().is_terminal() {
                OutputFormat::Table
            } else {
                OutputFormat::Json
            }
        })
    }
}

/// How a column gets its text from an item.
pub enum Cell<T> {
    /// One value: a line break inside it is server text and shows as a space, never a new line.
    One(fn(&T) -> String),
    /// One value per line (a team's members, a destination's callbacks). Each piece is cleaned
    /// on its own before the pieces are laid out, so a line break inside one cannot fake another.
    Lines(fn(&T) -> Vec<String>),
}

/// One column: a header and how to get the cell text from an item.
pub struct Column<T> {
    /// Upper-case header.
    pub header: &'static str,
    /// Cell text.
    pub cell: Cell<T>,
}

impl<T> Column<T> {
    /// The cell's lines for `item`, each already one clean line (at least one, maybe empty).
    pub fn lines(&self, item: &T) -> Vec<String> {
        let mut lines = match &self.cell {
            Cell::One(f) => vec![clean(&f(item))],
            Cell::Lines(f) => f(item).iter().map(|s| clean(s)).collect(),
        };
        if lines.is_empty() {
            lines.push(String::new());
        }
        lines
    }

    /// The cell as one clean line (a list table's cell): lines joined by spaces.
    pub fn text(&self, item: &T) -> String {
        self.lines(item).join(" ")
    }
}

/// Cells longer than this are cut with an ellipsis in list tables.
const MAX_CELL: usize = 60;

/// Makes server text safe and one-line: the one sanitizer ([`crate::text::line`]), so escape
/// sequences a hostile server sends become visible `⟨U+001B⟩` markers, line breaks spaces.
pub fn clean(s: &str) -> String {
    crate::text::line(s).into_owned()
}

fn cut(s: String) -> String {
    if s.chars().count() <= MAX_CELL {
        return s;
    }
    let mut t: String = s.chars().take(MAX_CELL - 1).collect();
    t.push('…');
    t
}

/// Writes items as an aligned table with a header row.
pub fn write_table<T>(out: &mut dyn Write, cols: &[Column<T>], items: &[T]) -> std::io::Result<()> {
    let rows: Vec<Vec<String>> = items
        .iter()
        .map(|it| cols.iter().map(|c| cut(c.text(it))).collect())
        .collect();
    let mut widths: Vec<usize> = cols.iter().map(|c| c.header.chars().count()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let header: Vec<String> = cols.iter().map(|c| c.header.to_string()).collect();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.extend(std::iter::repeat_n(' ', w - cell.chars().count() + 2));
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// Writes one item as `HEADER  value` lines.
pub fn write_detail<T>(out: &mut dyn Write, fields: &[Column<T>], item: &T) -> std::io::Result<()> {
    let w = fields
        .iter()
        .map(|c| c.header.chars().count())
        .max()
        .unwrap_or(0);
    for c in fields {
        // Multi-line values (lists) continue under the value column.
        let mut lines = c.lines(item).into_iter();
        let first = lines.next().unwrap_or_default();
        writeln!(out, "{:<w$}  {}", c.header, first.trim_end())?;
        for l in lines {
            writeln!(out, "{:<w$}  {}", "", l.trim_end())?;
        }
    }
    Ok(())
}

/// Writes a JSON document exactly as received, ending with a newline. On a terminal
/// (`terminal`), C1 controls, DEL, bidi and invisible characters are written as `\uXXXX`
/// escapes instead: the same JSON value, but nothing a terminal would act on.
pub fn write_raw(out: &mut dyn Write, body: &str, terminal: bool) -> std::io::Result<()> {
    let body = if terminal {
        crate::text::sanitize::json_for_terminal(body)
    } else {
        body.into()
    };
    out.write_all(body.as_bytes())?;
    if !body.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Writes collected items as a pretty JSON array (escaped on a terminal as by [`write_raw`]).
pub fn write_array(out: &mut dyn Write, items: &[Value], terminal: bool) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(items).map_err(std::io::Error::other)?;
    write_raw(out, &text, terminal)
}

/// Writes to locked standard output; a write error (closed pipe) becomes an error, not a panic.
pub(super) fn emit(
    f: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), super::HeadlessError> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    f(&mut out)
        .and_then(|()| out.flush())
        .map_err(super::HeadlessError::Io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_and_cleans() {
        let cols = [
            Column::<(&str, &str)> {
                header: "ID",
                cell: Cell::One(|t| t.0.to_string()),
            },
            Column {
                header: "NAME",
                cell: Cell::One(|t| t.1.to_string()),
            },
        ];
        let mut out = Vec::new();
        write_table(
            &mut out,
            &cols,
            &[("a_1", "x\u{1b}[2J"), ("longer_id", "y")],
        )
        .expect("write");
        let text = String::from_utf8(out).expect("utf8");
        assert_eq!(
            text,
            "ID         NAME\na_1        x⟨U+001B⟩[2J\nlonger_id  y\n"
        );
    }

    #[test]
    fn detail_lines_cannot_be_faked_by_a_line_break_in_server_text() {
        let fields = [
            Column::<(&str, [&str; 2])> {
                header: "NAME",
                cell: Cell::One(|t| t.0.to_string()),
            },
            Column {
                header: "MEMBERS",
                cell: Cell::Lines(|t| t.1.iter().map(|s| (*s).to_string()).collect()),
            },
        ];
        let mut out = Vec::new();
        let item = (
            "Eve\nX",
            ["Ann", "Eve\nMallory <ceo@corp> admin\r\n(oac_x)"],
        );
        write_detail(&mut out, &fields, &item).expect("write");
        let text = String::from_utf8(out).expect("utf8");
        assert_eq!(
            text,
            "NAME     Eve X\nMEMBERS  Ann\n         Eve Mallory <ceo@corp> admin  (oac_x)\n"
        );
    }
}
