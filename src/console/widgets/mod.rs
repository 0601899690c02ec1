//! Pieces shared by every view: the paged table, the detail pane, toasts, help, the header.
pub(crate) mod detail;
pub(crate) mod fields;
pub(crate) mod help;
pub(crate) mod json;
pub(crate) mod paged_table;
pub(crate) mod toast;

/// Braille spinner frames for the in-flight indicator.
const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// The spinner character for an animation frame.
pub(crate) fn spinner(frame: u64) -> char {
    SPINNER[(frame % SPINNER.len() as u64) as usize]
}

/// Centres a box of at most `w`×`h` in `area`.
pub(crate) fn centered(area: ratatui::layout::Rect, w: u16, h: u16) -> ratatui::layout::Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    ratatui::layout::Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}
