//! The filter prompt's keys, the filter's count and the sort's title: the view they shape is
//! derived by the router (`console::derived_view`), the rows staying in server order and the
//! cursor pointing into the view.
use crossterm::event::{KeyCode, KeyEvent};

use super::PowerState;
use super::filter::Filter;

use crate::console::deliveries::LocalFilter;
use crate::console::msg::Effect;
use crate::console::state::Core;
use crate::console::tab::Tab;

/// A key while the filter is typed.
pub(crate) fn on_key(room: &mut PowerState, cx: &Core, key: &KeyEvent) -> Vec<Effect> {
    let f = &mut room.filters[cx.tab.index()];
    match key.code {
        KeyCode::Esc => *f = Filter::default(),
        KeyCode::Enter => f.editing = false,
        _ => {
            f.query.edit(key);
        }
    }
    Vec::new()
}

/// `12 of 20 on this page`, while the tab's rows are filtered (`local`: the deliveries' status
/// filter, whose rows are the page's on the notifications list).
pub(crate) fn count_line(
    room: &PowerState,
    cx: &Core,
    local: &LocalFilter,
    tab: Tab,
) -> Option<String> {
    if !room.filters[tab.index()].active() {
        return None;
    }
    let list = &cx.tab_state(tab).list;
    let total = list
        .rows
        .iter()
        .filter(|r| !tab.is_notifications_list() || local.keeps(r))
        .count();
    Some(format!("{} of {total} on this page", list.shown_len()))
}

/// ` · sort name ↑ asc` for the list title.
pub(crate) fn sort_suffix(room: &PowerState, cx: &Core) -> String {
    room.sorts[cx.tab.index()]
        .label(cx.tab)
        .map(|l| format!(" · {l}"))
        .unwrap_or_default()
}
