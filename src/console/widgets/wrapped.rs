//! Lines wrapped to a width for the panes that scroll them (the detail, the attempt and
//! replay views): each continuation row under its label or indent, and a fingerprint of the
//! lines for the caches that keep the rows.
use std::hash::{Hash, Hasher};

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::resource::wrap::{Row, wrap_line};

/// A fingerprint of the lines (text and styles) as built, before the sanitizer: a changed
/// record, name, cursor or revealed secret changes it.
pub(crate) fn fingerprint(lines: &[Line<'_>]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for l in lines {
        l.style.hash(&mut h);
        for s in &l.spans {
            s.style.hash(&mut h);
            s.content.hash(&mut h);
        }
        0xffu8.hash(&mut h);
    }
    h.finish()
}

/// Where a line's continuation rows start: under the value of a `Label   value` field (the
/// first span is the label, padded) or under an indented line's text.
fn hang(l: &Line<'_>) -> usize {
    match l.spans.as_slice() {
        [first, _, ..] if first.content.ends_with(' ') && first.content.chars().count() <= 24 => {
            first.content.chars().count()
        }
        _ => 0,
    }
}

/// Lines wrapped to `width`, each continuation under its label or indent. They are drawn as
/// they are: the caller has sanitized them.
pub(crate) fn wrap_rows(lines: &[Line<'_>], width: usize) -> Vec<Row<Style>> {
    lines
        .iter()
        .flat_map(|l| {
            let pieces: Vec<(Style, &str)> = l
                .spans
                .iter()
                .map(|s| (l.style.patch(s.style), s.content.as_ref()))
                .collect();
            wrap_line(&pieces, width, hang(l), &Style::default())
        })
        .collect()
}

/// A wrapped row as a line to draw.
pub(crate) fn row_line(r: &Row<Style>) -> Line<'static> {
    Line::from(
        r.iter()
            .map(|(style, text)| Span::styled(text.clone(), *style))
            .collect::<Vec<_>>(),
    )
}
