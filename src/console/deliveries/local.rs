//! The local status filter: hides loaded notification rows of other statuses from the derived
//! view (`power::filter_sort`). It filters only what the server returned for the page, and says
//! so in the list title.
use crate::console::msg::Effect;
use crate::console::pane::load_list;
use crate::console::state::State;
use crate::console::tab::Tab;

pub(crate) use super::CYCLE;

/// Next status in the cycle (all → failed → … → all).
fn next(current: Option<&str>) -> Option<String> {
    match current {
        None => CYCLE.first().map(|s| s.to_string()),
        Some(s) => CYCLE
            .iter()
            .position(|c| *c == s)
            .and_then(|i| CYCLE.get(i + 1))
            .map(|s| s.to_string()),
    }
}

/// Moves to the next status and reloads the page, so that hidden rows can come back.
pub(crate) fn cycle(state: &mut State) -> Vec<Effect> {
    let f = &mut state.deliveries.local;
    f.status = next(f.status.as_deref());
    let list = &state.tab_state(Tab::Notifications).list;
    let (anchor, page) = (list.anchor.clone(), list.page.max(1));
    load_list(state, Tab::Notifications, anchor, page, false)
}

/// Notes a list reply that is about to be applied, so that its rows are filtered after.
pub(crate) fn before_reply(state: &mut State, req_id: u64) {
    let list = &state.tab_state(Tab::Notifications).list;
    if list.pending.as_ref().is_some_and(|p| p.req_id == req_id) {
        state.deliveries.local.pending = Some(req_id);
    }
}

/// Applies the status to a page that just arrived.
pub(crate) fn after_reply(state: &mut State) {
    if state.tab_state(Tab::Notifications).list.pending.is_some() {
        return;
    }
    if state.deliveries.local.pending.take().is_none() {
        return;
    }
    // The rows stay as the server sent them; the derived view leaves the others out.
    let loaded = state.tab_state(Tab::Notifications).list.rows.len();
    let local = &mut state.deliveries.local;
    local.applied.clone_from(&local.status);
    local.loaded = loaded;
}

/// The title chip: `LOCAL failed 3/20 loaded` (kept short: list titles are narrow).
pub(crate) fn chip(state: &State) -> Option<String> {
    let f = &state.deliveries.local;
    let status = f.status.as_ref()?;
    let list = &state.tab_state(Tab::Notifications).list;
    let shown = list.rows.iter().filter(|r| f.keeps(r)).count();
    let progress = super::scan::progress(state)
        .map(|p| format!(" · {p}"))
        .unwrap_or_default();
    Some(format!(
        "LOCAL {status} {shown}/{} loaded{progress}",
        f.loaded
    ))
}
