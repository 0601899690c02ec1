//! Which of the list's columns the table draws at the terminal's size, worked out as the
//! drawing does (`ui` and `widgets::paged_table`), so that `s` sorts only by a column on screen.
//! It reads what every room adds to the table, so the router works it out for the power tools.
use ratatui::layout::Rect;

use crate::console::state::State;
use crate::console::views::{self, ViewCtx};
use crate::console::widgets::paged_table::{
    column_widths, stable_for, stable_widths, visible_window,
};

/// The positions (among the tab's list columns) drawn now; `None` when no list is on screen.
pub(crate) fn shown(state: &State) -> Option<Vec<usize>> {
    let widths = widths(state)?;
    Some(
        (0..widths.len())
            .filter(|&i| widths.get(i).is_some_and(|w| *w > 0))
            .collect(),
    )
}

/// Each of the tab's list columns' width as drawn now (0: left out); `None` when no list is on
/// screen.
pub(crate) fn widths(state: &State) -> Option<Vec<u16>> {
    let ts = state.current();
    let screen = Rect::new(0, 0, state.size.0, state.size.1);
    let area = crate::console::layout::areas(screen, state.tab, ts.detail.is_some()).list?;
    // Inside the border; the error lines above the table take no columns.
    let inner = Rect::new(
        area.x + 1,
        area.y + 1,
        area.width.saturating_sub(2),
        area.height.saturating_sub(2),
    );
    let ctx = ViewCtx {
        clock: &state.clock,
        theme: &state.settings.theme,
    };
    let list = &ts.list;
    let window = visible_window(list, area);
    let rows = views::row_cache::rows(
        state,
        &ctx,
        list.shown().skip(window.start).take(window.len()),
        |r, cells| {
            crate::console::deliveries::view::decorate(&state.deliveries, &state.core, r, cells)
        },
    );
    let columns = crate::console::deliveries::view::columns(state);
    let marks =
        crate::console::recover::view::marks(&state.recover.marks, &state.core, std::iter::empty())
            .is_some();
    let width = inner.width.saturating_sub(if marks { 2 } else { 0 });
    Some(if stable_for(state.tab) {
        stable_widths(&columns, width)
    } else {
        column_widths(&columns, &rows, width)
    })
}
