//! Screen geometry, shared by drawing and by `update` (which keeps the cursor in view).
use ratatui::layout::{Constraint, Layout, Rect};

/// Smallest usable terminal.
pub(crate) const MIN_SIZE: (u16, u16) = (80, 24);
/// From this width on, the detail pane sits beside the list.
pub(crate) const WIDE: u16 = 120;
/// Lines of the header.
const HEADER: u16 = 2;
/// Lines of the footer.
const FOOTER: u16 = 1;

/// The regions of one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Areas {
    /// Tabs, profile, in-flight indicator.
    pub header: Rect,
    /// The list, when shown.
    pub list: Option<Rect>,
    /// The detail pane, when shown.
    pub detail: Option<Rect>,
    /// Key hints.
    pub footer: Rect,
}

/// Whether the terminal is too small to draw the console.
pub(crate) fn too_small(size: (u16, u16)) -> bool {
    size.0 < MIN_SIZE.0 || size.1 < MIN_SIZE.1
}

/// Whether the detail pane goes beside the list.
pub(crate) fn is_wide(width: u16) -> bool {
    width >= WIDE
}

/// Splits the screen. On wide terminals the detail pane is always beside the list (previewing the
/// selected row); on narrow ones it replaces the list while a detail is open.
pub(crate) fn areas(screen: Rect, detail_open: bool) -> Areas {
    let [header, body, footer] = Layout::vertical([
        Constraint::Length(HEADER),
        Constraint::Min(1),
        Constraint::Length(FOOTER),
    ])
    .areas(screen);
    let (list, detail) = if is_wide(screen.width) {
        let [l, d] = Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
            .areas(body);
        (Some(l), Some(d))
    } else if detail_open {
        (None, Some(body))
    } else {
        (Some(body), None)
    };
    Areas {
        header,
        list,
        detail,
        footer,
    }
}

/// Rows of data the list shows at this size: the block's borders, the column header and an error
/// line (when there is one) take the rest.
pub(crate) fn list_rows(size: (u16, u16), detail_open: bool, error_lines: u16) -> usize {
    let screen = Rect::new(0, 0, size.0, size.1);
    areas(screen, detail_open)
        .list
        .map(|r| usize::from(r.height.saturating_sub(3 + error_lines)))
        .unwrap_or(0)
        .max(1)
}
