//! Pieces shared by every view: the paged table, the detail pane, toasts, help, the header.
pub(crate) mod detail;
pub(crate) mod fields;
pub(crate) mod help;
pub(crate) mod json;
pub(crate) mod paged_table;
pub(crate) mod toast;
pub(crate) mod wrapped;

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

/// A scroll position moved by a navigation key within `0..=max`, the furthest its content
/// scrolls on this screen (so that `k` after `G` moves at once); `None` for other actions.
pub(crate) fn scrolled(at: u16, action: crate::console::keymap::Action, max: u16) -> Option<u16> {
    use crate::console::keymap::Action;
    let at = at.min(max);
    Some(match action {
        Action::Down => at.saturating_add(1).min(max),
        Action::Up => at.saturating_sub(1),
        Action::NextPage => at.saturating_add(10).min(max),
        Action::PrevPage => at.saturating_sub(10),
        Action::First => 0,
        Action::Last => max,
        _ => return None,
    })
}

/// Whether a navigation key scrolls (so that what it needs, the furthest scroll, is worked out
/// only then).
pub(crate) fn is_scroll(action: crate::console::keymap::Action) -> bool {
    scrolled(0, action, 0).is_some()
}
