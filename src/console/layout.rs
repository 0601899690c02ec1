//! Screen geometry, shared by drawing and by `update` (which keeps the cursor in view).
use ratatui::layout::{Constraint, Layout, Rect};

use super::state::ErrorView;
use super::tab::Tab;

/// Smallest usable terminal: below it only a message shows. From here to [`NARROW`] the frame
/// degrades (fewer columns, a shorter header and footer, forms that scroll) instead.
pub(crate) const MIN_SIZE: (u16, u16) = (40, 12);
/// Below this width the header drops its labels and the inactive tabs show only their number.
pub(crate) const NARROW: u16 = 80;
/// The narrowest detail pane drawn beside a list (what it had at 120 columns, where it first
/// showed): below it a preview says too little to be worth the list's room.
pub(crate) const PREVIEW_MIN: u16 = 54;
/// Lines of the header.
const HEADER: u16 = 2;
/// Lines of the footer.
const FOOTER: u16 = 1;

/// The regions of one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Areas {
    /// Tabs, profile, in-flight indicator.
    pub(crate) header: Rect,
    /// Between header and footer: the list and the detail, or a view over both.
    pub(crate) body: Rect,
    /// The list, when shown.
    pub(crate) list: Option<Rect>,
    /// The detail pane, when shown.
    pub(crate) detail: Option<Rect>,
    /// Key hints.
    pub(crate) footer: Rect,
}

/// Whether the terminal is too small to draw the console.
pub(crate) fn too_small(size: (u16, u16)) -> bool {
    size.0 < MIN_SIZE.0 || size.1 < MIN_SIZE.1
}

/// Columns taken by the selection mark (`▶ `) left of every row of a list.
pub(crate) const MARK: u16 = 2;

/// The narrowest list pane (its borders included) at which every one of `tab`'s columns reaches
/// its cap (`natural`), read from the column table: the selection mark, the marks gutter where
/// the tab has marks, the caps and a space between two columns. From this width on no cell of
/// the list is cut for want of room, so the detail pane may go beside it
/// ([`is_wide`]).
pub(crate) fn full_width(tab: crate::console::tab::Tab) -> u16 {
    let columns = crate::console::views::columns(tab);
    let caps = columns.iter().fold(0u16, |sum, c| {
        sum.saturating_add(c.width.natural.max(c.width.min))
    });
    let gaps = u16::try_from(columns.len().saturating_sub(1)).unwrap_or(u16::MAX);
    // The `●` column and its space (on the lists that take marks).
    let marks = if crate::console::recover::marks_tab(tab) {
        2
    } else {
        0
    };
    caps.saturating_add(gaps).saturating_add(MARK + marks + 2)
}

/// Whether the detail pane goes beside `tab`'s list at this width: only once the list beside it
/// still gets the width at which every one of its columns reaches its cap
/// ([`full_width`]) and the pane gets [`PREVIEW_MIN`]. So a
/// wider terminal never shows less of a cell: below that the list takes the whole width.
pub(crate) fn is_wide(width: u16, tab: Tab) -> bool {
    width >= preview_from(tab)
}

/// The terminal width from which `tab`'s list has the detail pane beside it.
pub(crate) fn preview_from(tab: Tab) -> u16 {
    full_width(tab).saturating_add(PREVIEW_MIN)
}

/// Where the lists, details and the views over them go: the screen between header and footer.
pub(crate) fn body(screen: Rect) -> Rect {
    let [_, body, _] = Layout::vertical([
        Constraint::Length(HEADER),
        Constraint::Min(1),
        Constraint::Length(FOOTER),
    ])
    .areas(screen);
    body
}

/// Splits the screen for `tab`. On terminals wide enough ([`is_wide`]) the detail pane is always
/// beside the list (previewing the selected row), the list as wide as its columns' caps and the
/// pane the rest; on narrower ones the detail replaces the list while it is open.
pub(crate) fn areas(screen: Rect, tab: Tab, detail_open: bool) -> Areas {
    let [header, body, footer] = Layout::vertical([
        Constraint::Length(HEADER),
        Constraint::Min(1),
        Constraint::Length(FOOTER),
    ])
    .areas(screen);
    let (list, detail) = if is_wide(screen.width, tab) {
        let full = full_width(tab);
        let [l, d] =
            Layout::horizontal([Constraint::Length(full), Constraint::Fill(1)]).areas(body);
        (Some(l), Some(d))
    } else if detail_open {
        (None, Some(body))
    } else {
        (Some(body), None)
    };
    Areas {
        header,
        body,
        list,
        detail,
        footer,
    }
}

/// Whether the header and forms use their short forms at this width.
pub(crate) fn is_narrow(width: u16) -> bool {
    width < NARROW
}

/// Which part of an error a row belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorPart {
    /// The message (what failed and why).
    Message,
    /// The hint (what to do).
    Hint,
}

/// An error as the rows it takes in a pane of `inner` size: the message wrapped to the width,
/// then the hint. At most half the pane's height (two rows at least); when cut, the first row
/// stays and the rows kept are the last ones, since a transport error's cause ("Connection
/// refused") ends its message. Sanitized here: the server wrote both.
pub(crate) fn error_rows(e: &ErrorView, inner: Rect) -> Vec<(ErrorPart, String)> {
    let width = usize::from(inner.width).max(1);
    let wrap = |text: &str, part: ErrorPart| {
        wrap_words(&crate::text::line(text), width, 2)
            .into_iter()
            .map(move |row| (part, row))
    };
    let mut rows: Vec<_> = wrap(&format!("✗ {}", e.message), ErrorPart::Message).collect();
    if let Some(h) = &e.hint {
        rows.extend(wrap(&format!("  {h}"), ErrorPart::Hint));
    }
    let max = usize::from(inner.height / 2).max(2);
    if rows.len() > max {
        let tail = rows.split_off(rows.len() - (max - 1));
        rows.truncate(1);
        rows.extend(tail);
        if let Some((_, second)) = rows.get_mut(1) {
            // Mark the gap; the row keeps its width (the hanging indent gives the room).
            *second = format!("…{}", second.strip_prefix(' ').unwrap_or(second));
        }
    }
    rows
}

/// `text` in rows of at most `width` columns, continuation rows indented by `hang`. A word goes
/// to the next row when it fits there whole; a longer one (a URL, a hostile code) is split where
/// the row ends, so that no row is left half empty before it.
fn wrap_words(text: &str, width: usize, hang: usize) -> Vec<String> {
    use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
    let hang = hang.min(width.saturating_sub(1));
    let mut rows = Vec::new();
    let (mut row, mut used) = (String::new(), 0);
    let mut new_row = |row: &mut String, used: &mut usize| {
        rows.push(std::mem::replace(row, " ".repeat(hang)));
        *used = hang;
    };
    for (i, word) in text.split(' ').enumerate() {
        let w = word.width();
        let gap = usize::from(i > 0);
        if used + gap + w > width && used > hang && hang + w <= width {
            new_row(&mut row, &mut used);
        } else if i > 0 && used < width {
            row.push(' ');
            used += 1;
        }
        for c in word.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw > width && used > hang {
                new_row(&mut row, &mut used);
            }
            row.push(c);
            used += cw;
        }
    }
    rows.push(row);
    rows
}

/// Rows an error of the list takes at this terminal size.
pub(crate) fn list_error_rows(size: (u16, u16), tab: Tab, detail_open: bool, e: &ErrorView) -> u16 {
    let screen = Rect::new(0, 0, size.0, size.1);
    let Some(list) = areas(screen, tab, detail_open).list else {
        return 0;
    };
    let inner = Rect::new(
        0,
        0,
        list.width.saturating_sub(2),
        list.height.saturating_sub(2),
    );
    u16::try_from(error_rows(e, inner).len()).unwrap_or(u16::MAX)
}

/// Rows of data the list shows at this size: the block's borders, the column header and an error
/// line (when there is one) take the rest.
pub(crate) fn list_rows(size: (u16, u16), tab: Tab, detail_open: bool, error_lines: u16) -> usize {
    let screen = Rect::new(0, 0, size.0, size.1);
    areas(screen, tab, detail_open)
        .list
        .map(|r| usize::from(r.height.saturating_sub(3 + error_lines)))
        .unwrap_or(0)
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_move_whole_and_long_ones_split_in_place() {
        assert_eq!(wrap_words("ab cd ef", 5, 2), ["ab cd", "  ef"]);
        // A word longer than a row fills the row it starts on.
        assert_eq!(
            wrap_words("✗ 400 abcdefghij", 10, 2),
            ["✗ 400 abcd", "  efghij"]
        );
        assert!(
            wrap_words("a b c d e f g h", 3, 1)
                .iter()
                .all(|r| unicode_width::UnicodeWidthStr::width(r.as_str()) <= 3)
        );
    }

    #[test]
    fn a_cut_error_keeps_its_first_row_and_its_end() {
        let e = ErrorView {
            status: None,
            message: format!("network error: {} Connection refused", "x ".repeat(200)),
            hint: None,
        };
        let rows = error_rows(&e, Rect::new(0, 0, 20, 8));
        assert_eq!(rows.len(), 4);
        assert!(rows[0].1.starts_with("✗ network error"));
        assert!(rows[1].1.starts_with('…'));
        assert!(rows[3].1.ends_with("Connection refused"));
    }
}
