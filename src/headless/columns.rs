//! Headless tables and detail views, read from the resource descriptions ([`crate::resource`]):
//! each cell goes through the one sanitizer, is cut to [`MAX_CELL`] terminal columns with `…`,
//! and is padded by display width (a CJK character takes two columns, a combining mark none).
use std::io::Write;

use serde::de::DeserializeOwned;

use crate::api::model::{Member, Project, TeamRole};
use crate::resource::{self, Ctx, Described, Description, Field, cut, display_width};
use crate::text::line as sanitized;

/// What headless commands print as a table row and as a detail view: any item with a
/// description. Every registered resource's item is one (`resource::registry` says so), so a
/// new resource needs no line here.
pub trait Tabular: DeserializeOwned + Described {}

impl<T: DeserializeOwned + Described> Tabular for T {}

/// The lookups' items, which no tab lists (every registered resource's comes from the registry).
macro_rules! described {
    ($($t:ty => $d:expr),* $(,)?) => {$(
        impl Described for $t {
            fn description() -> &'static Description<Self> {
                &$d
            }
        }
    )*};
}

described!(
    Project => resource::teams::PROJECTS,
    TeamRole => resource::teams::TEAM_ROLES,
    Member => resource::members::MEMBERS,
);

/// Cells wider than this many terminal columns are cut with `…` in list tables.
pub const MAX_CELL: usize = 60;

/// Columns between two cells of a row.
const GAP: usize = 2;

/// Writes rows of cells (already clean) as an aligned table under `header`.
pub fn write_rows(
    out: &mut dyn Write,
    header: &[String],
    rows: &[Vec<String>],
) -> std::io::Result<()> {
    write_grid(out, header, rows, true)
}

/// Rows aligned under `header` (each column as wide as its widest cell, by display width);
/// the header row itself only when `with_header` (a stream's later batches).
fn write_grid(
    out: &mut dyn Write,
    header: &[String],
    rows: &[Vec<String>],
    with_header: bool,
) -> std::io::Result<()> {
    let mut widths: Vec<usize> = header.iter().map(|h| display_width(h)).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(display_width(cell));
        }
    }
    let head = with_header.then_some(header);
    for row in head.into_iter().chain(rows.iter().map(Vec::as_slice)) {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
            line.push_str(cell);
            if i + 1 < row.len() {
                let pad = w.saturating_sub(display_width(cell)) + GAP;
                line.extend(std::iter::repeat_n(' ', pad));
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// The header and the clean, cut cells of items under their description's headless columns.
fn table_cells<T: Tabular>(items: &[T]) -> (Vec<String>, Vec<Vec<String>>) {
    let ctx = Ctx::default();
    let cols = T::description().table_columns();
    let header: Vec<String> = cols.iter().map(|c| c.header()).collect();
    let rows: Vec<Vec<String>> = items
        .iter()
        .map(|it| {
            cols.iter()
                .map(|c| {
                    cut(
                        &sanitized(&c.headless_text(it, &ctx).unwrap_or_default()),
                        MAX_CELL,
                    )
                })
                .collect()
        })
        .collect();
    (header, rows)
}

/// Writes items as a table of their description's headless columns (the id first).
pub fn write_table<T: Tabular>(out: &mut dyn Write, items: &[T]) -> std::io::Result<()> {
    let (header, rows) = table_cells(items);
    write_rows(out, &header, &rows)
}

/// Writes one batch of a stream of items (`--watch`) as table rows, with the header row only
/// for the first batch (`header`).
pub fn write_batch<T: Tabular>(
    out: &mut dyn Write,
    items: &[T],
    header: bool,
) -> std::io::Result<()> {
    let (head, rows) = table_cells(items);
    write_grid(out, &head, &rows, header)
}

/// Writes one item as `LABEL  value` lines: its description's detail fields, or its table
/// columns when it has none.
pub fn write_detail<T: Tabular>(out: &mut dyn Write, item: &T) -> std::io::Result<()> {
    let d = T::description();
    if !d.fields.is_empty() {
        return write_fields(out, d.fields, item);
    }
    let ctx = Ctx::default();
    let lines: Vec<(String, Vec<String>)> = d
        .table_columns()
        .iter()
        .map(|c| {
            (
                c.header(),
                vec![c.headless_text(item, &ctx).unwrap_or_default()],
            )
        })
        .collect();
    write_labelled(out, &lines)
}

/// Writes fields as `LABEL  value` lines; a field of several lines continues under the value.
pub fn write_fields<T>(out: &mut dyn Write, fields: &[Field<T>], item: &T) -> std::io::Result<()> {
    let lines: Vec<(String, Vec<String>)> = fields
        .iter()
        .map(|f| (f.label.to_uppercase(), (f.lines)(item)))
        .collect();
    write_labelled(out, &lines)
}

/// Each value line is cleaned on its own, so a line break inside one cannot fake another.
fn write_labelled(out: &mut dyn Write, fields: &[(String, Vec<String>)]) -> std::io::Result<()> {
    let w = fields
        .iter()
        .map(|(l, _)| display_width(l))
        .max()
        .unwrap_or(0);
    for (label, lines) in fields {
        let mut lines = lines.iter().map(|l| sanitized(l).into_owned());
        let first = lines.next().unwrap_or_default();
        let pad = " ".repeat(w - display_width(label));
        writeln!(out, "{label}{pad}  {}", first.trim_end())?;
        for l in lines {
            writeln!(out, "{:w$}  {}", "", l.trim_end())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::Field;

    fn table(rows: &[(&str, &str)]) -> String {
        let header = vec!["ID".to_string(), "NAME".to_string(), "|".to_string()];
        let rows: Vec<Vec<String>> = rows
            .iter()
            .map(|(a, b)| {
                vec![
                    sanitized(a).into_owned(),
                    cut(&sanitized(b), MAX_CELL),
                    "|".into(),
                ]
            })
            .collect();
        let mut out = Vec::new();
        write_rows(&mut out, &header, &rows).expect("write");
        String::from_utf8(out).expect("utf8")
    }

    /// The column after a CJK or a combining-mark cell starts where it does after plain text.
    #[test]
    fn rows_line_up_by_display_width() {
        let text = table(&[
            ("a_1", "plain name"),
            ("a_2", "東京チーム"),
            ("a_3", "e\u{301}quipe\u{301} ok"),
            ("a_4", "x\u{1b}[2J"),
        ]);
        let starts: Vec<usize> = text
            .lines()
            .map(|l| {
                let before = &l[..l.rfind('|').expect("last column")];
                display_width(before)
            })
            .collect();
        assert!(
            starts.windows(2).all(|w| w[0] == w[1]),
            "{text}\n{starts:?}"
        );
        assert!(text.contains("x⟨U+001B⟩[2J"), "sanitised: {text}");
    }

    #[test]
    fn a_cut_of_wide_text_spans_at_most_the_cell() {
        let text = table(&[("a_1", &"漢字かな".repeat(30))]);
        let row = text.lines().nth(1).expect("row");
        let cell = row.split("  ").nth(1).expect("cell");
        assert!(cell.ends_with('…'), "{cell}");
        assert!(display_width(cell) <= MAX_CELL, "{}", display_width(cell));
        assert!(
            display_width(cell) >= MAX_CELL - 1,
            "{}",
            display_width(cell)
        );
    }

    #[test]
    fn detail_lines_cannot_be_faked_by_a_line_break_in_server_text() {
        let fields: [Field<(&str, [&str; 2])>; 2] = [
            Field {
                label: "Name",
                lines: |t| vec![t.0.to_string()],
            },
            Field {
                label: "Members",
                lines: |t| t.1.iter().map(|s| (*s).to_string()).collect(),
            },
        ];
        let mut out = Vec::new();
        let item = (
            "Eve\nX",
            ["Ann", "Eve\nMallory <ceo@corp> admin\r\n(oac_x)"],
        );
        write_fields(&mut out, &fields, &item).expect("write");
        let text = String::from_utf8(out).expect("utf8");
        assert_eq!(
            text,
            "NAME     Eve X\nMEMBERS  Ann\n         Eve Mallory <ceo@corp> admin  (oac_x)\n"
        );
    }
}
