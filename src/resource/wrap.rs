//! Detail lines wrapped to a width once, and kept: a long value continues under its value
//! column (not under the label), breaking at a space when the line has one, and wrapping is
//! done again only when the record or the width changes.
//!
//! Generic over the style `S` of a piece of text, so a face keeps its own styles (the console's
//! are ratatui styles) while the layout is computed here.
use std::sync::Arc;

use unicode_width::UnicodeWidthChar;

/// A piece of a line: a style and its text.
pub type Piece<S> = (S, String);

/// One wrapped line: its pieces, each with its style.
pub type Row<S> = Vec<Piece<S>>;

/// Wraps one line of styled pieces to `width` columns: continuation rows start with `hang`
/// spaces (the column the value starts at, so it reads under its label). Breaks after the last
/// space that fits, else inside a word; a wide character never straddles the edge. Linear in
/// the length of the line.
pub fn wrap_line<S: Clone>(
    pieces: &[(S, &str)],
    width: usize,
    hang: usize,
    blank: &S,
) -> Vec<Row<S>> {
    let width = width.max(1);
    // Leave at least one column for text after the hanging indent.
    let hang = hang.min(width.saturating_sub(1));
    // Characters with their piece's index and width, so that breaking is index arithmetic.
    let chars: Vec<(usize, char, usize)> = pieces
        .iter()
        .enumerate()
        .flat_map(|(i, (_, text))| {
            text.chars()
                .map(move |c| (i, c, UnicodeWidthChar::width(c).unwrap_or(0)))
        })
        .collect();
    let mut rows: Vec<Row<S>> = Vec::new();
    let mut start = 0;
    while start < chars.len() || rows.is_empty() {
        let indent = if rows.is_empty() { 0 } else { hang };
        let room = width - indent;
        let mut used = 0;
        let mut end = start;
        let mut last_space = None;
        while end < chars.len() {
            let (_, c, w) = chars[end];
            if used + w > room {
                break;
            }
            used += w;
            if c == ' ' {
                last_space = Some(end);
            }
            end += 1;
        }
        // Break after a space when the line goes on and the space is not at the very start,
        // unless the word after it is too long for a row of its own anyway (a signature, a
        // token): then the row is filled rather than left with its label alone.
        let next_room = width - hang;
        let cut = match last_space {
            Some(s)
                if end < chars.len() && s > start && !longer_than(&chars[s + 1..], next_room) =>
            {
                s + 1
            }
            _ => end,
        };
        // Something must be taken each time: a character wider than the room goes alone.
        let cut = if cut == start { start + 1 } else { cut }.min(chars.len().max(start));
        let mut row: Row<S> = Vec::new();
        if indent > 0 {
            row.push((blank.clone(), " ".repeat(indent)));
        }
        let mut last_piece = None;
        for &(i, c, _) in &chars[start..cut] {
            match row.last_mut() {
                Some((_, text)) if last_piece == Some(i) => text.push(c),
                _ => {
                    row.push((pieces[i].0.clone(), c.to_string()));
                    last_piece = Some(i);
                }
            }
        }
        rows.push(row);
        if cut >= chars.len() {
            break;
        }
        start = cut;
    }
    rows
}

/// Whether the word at the start of `chars` is wider than `room` (looks no further than that).
fn longer_than(chars: &[(usize, char, usize)], room: usize) -> bool {
    let mut used = 0;
    for &(_, c, w) in chars {
        if c == ' ' {
            return false;
        }
        used += w;
        if used > room {
            return true;
        }
    }
    false
}

/// Lines wrapped for one record at one width, kept until either changes.
#[derive(Debug, Default)]
pub struct WrapCache<S> {
    key: Option<(u64, usize)>,
    rows: Arc<Vec<Row<S>>>,
}

impl<S: Clone> WrapCache<S> {
    /// An empty cache.
    pub fn new() -> Self {
        Self {
            key: None,
            rows: Arc::new(Vec::new()),
        }
    }

    /// The rows for record version `rev` at `width`: wrapped by `wrap` the first time, then
    /// the same rows until `rev` or `width` changes.
    pub fn get(
        &mut self,
        rev: u64,
        width: usize,
        wrap: impl FnOnce() -> Vec<Row<S>>,
    ) -> Arc<Vec<Row<S>>> {
        if self.key != Some((rev, width)) {
            self.rows = Arc::new(wrap());
            self.key = Some((rev, width));
        }
        Arc::clone(&self.rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::display_width;

    fn text(rows: &[Row<u8>]) -> Vec<String> {
        rows.iter()
            .map(|r| r.iter().map(|(_, t)| t.as_str()).collect())
            .collect()
    }

    #[test]
    fn a_word_too_long_for_any_row_fills_the_row_it_starts_on() {
        let sig = "v1=0123456789abcdef0123456789";
        let rows = wrap_line(&[(1, "  signature: "), (2, sig)], 24, 13, &0);
        assert_eq!(
            text(&rows),
            [
                "  signature: v1=01234567",
                "             89abcdef012",
                "             3456789",
            ]
        );
        // A word that fits a row of its own still moves to the next row whole.
        let rows = wrap_line(&[(1, "  signature: "), (2, "v1=01")], 16, 11, &0);
        assert_eq!(text(&rows), ["  signature: ", "           v1=01"]);
    }

    #[test]
    fn wraps_under_the_value_at_spaces_and_by_display_width() {
        let rows = wrap_line(&[(1, "URL       "), (2, "one two three four")], 20, 10, &0);
        assert_eq!(text(&rows), ["URL       one two ", "          three four"]);
        // Styles stay with their text across the break.
        assert_eq!(rows[1][1], (2, "three four".to_string()));
        // A word longer than the room is cut inside; wide characters never straddle the edge.
        let rows = wrap_line(&[(1, "漢字漢字漢字漢字漢字")], 7, 2, &0);
        assert!(rows.iter().all(|r| {
            display_width(&r.iter().map(|(_, t)| t.as_str()).collect::<String>()) <= 7
        }));
        assert_eq!(
            text(&rows).concat().replace(' ', ""),
            "漢字漢字漢字漢字漢字"
        );
        assert_eq!(text(&wrap_line::<u8>(&[], 10, 2, &0)), [""]);
        assert_eq!(text(&wrap_line(&[(1, "abc")], 1, 4, &0)), ["a", "b", "c"]);
    }

    #[test]
    fn a_record_is_wrapped_once_per_width() {
        let mut cache = WrapCache::new();
        let mut calls = 0;
        for width in [80, 80, 80, 120, 120] {
            let rows = cache.get(7, width, || {
                calls += 1;
                wrap_line(&[(1, "x".repeat(500).as_str())], width, 0, &0)
            });
            assert_eq!(rows.len(), 500usize.div_ceil(width));
        }
        assert_eq!(calls, 2);
        cache.get(8, 120, || {
            calls += 1;
            Vec::new()
        });
        assert_eq!(calls, 3, "a new version of the record is wrapped again");
    }
}
