//! The status filter: keeps notification rows of one status in the derived view
//! (`power::filter_sort`). The API of this generation does not filter by status, so turning it on
//! always starts from the top of the current list (its first page, its order and server filters)
//! and `scan` reads the following pages until a screenful matches; the title says how far it
//! looked (`failed 3 of the newest 220`). Turning it off goes back to where the list was.
use crate::console::msg::Effect;
use crate::console::pane::load_list;
use crate::console::state::{Anchor, Core};

pub(crate) use super::CYCLE;
use super::{DeliveriesState, ReturnTo};

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

/// Moves to the next status: a status is looked for from the top of the list; "all" returns to
/// the page and row shown before the filter was turned on.
pub(crate) fn cycle(d: &mut DeliveriesState, cx: &mut Core) -> Vec<Effect> {
    if d.local.status.is_none() {
        let list = &cx.tab_state(super::LIST).list;
        d.local.return_to = Some(ReturnTo {
            anchor: list.anchor.clone(),
            page: list.page.max(1),
            selected: list.selected().map(|r| r.id().to_string()),
            order: list.order,
            filter: list.filter.clone(),
        });
    }
    let f = &mut d.local;
    f.status = next(f.status.as_deref());
    if f.status.is_some() {
        return from_top(d, cx);
    }
    d.local.scan = None;
    d.local.since = None;
    let list = &cx.tab_state(super::LIST).list;
    let (order, filter) = (list.order, list.filter.clone());
    // A place in a list of another order or other server filters is not where the list was.
    let same = |b: &ReturnTo| b.order == order && b.filter == filter;
    match d.local.return_to.take().filter(same) {
        Some(back) => {
            d.local.restore = back.selected;
            load_list(cx, super::LIST, back.anchor, back.page, true)
        }
        None => from_top(d, cx),
    }
}

/// The list from its first page (a status filter on, `r`, `[`): what a filtered list shows is
/// always the newest rows examined, never the page a previous scan stopped at.
pub(crate) fn from_top(d: &mut DeliveriesState, cx: &mut Core) -> Vec<Effect> {
    d.local.scan = None;
    load_list(cx, super::LIST, Anchor::First, 1, true)
}

/// Whether a status filter is on.
pub(crate) fn on(d: &DeliveriesState) -> bool {
    d.local.status.is_some()
}

/// Notes a list reply that is about to be applied, so that its rows are filtered after.
pub(crate) fn before_reply(d: &mut DeliveriesState, cx: &Core, req_id: u64) {
    let list = &cx.tab_state(super::LIST).list;
    if list.pending.as_ref().is_some_and(|p| p.req_id == req_id) {
        d.local.pending = Some(req_id);
    }
}

/// Applies the status to a page that just arrived; the page the filter was turned off for gets
/// its cursor back on the row it had.
pub(crate) fn after_reply(d: &mut DeliveriesState, cx: &mut Core) {
    if cx.tab_state(super::LIST).list.pending.is_some() {
        return;
    }
    if d.local.pending.take().is_none() {
        return;
    }
    // The rows stay as the server sent them; the derived view leaves the others out.
    let loaded = cx.tab_state(super::LIST).list.rows.len();
    let local = &mut d.local;
    local.applied.clone_from(&local.status);
    local.loaded = loaded;
    if let Some(id) = local.restore.take() {
        let list = &mut cx.tab_state_mut(super::LIST).list;
        if let Some(i) = list.rows.iter().position(|r| r.id() == id) {
            list.cursor = i;
            crate::console::pane::keep_cursor_visible(cx, super::LIST);
        }
    }
}

/// Which end of the list the loaded rows start at, as the title says it.
fn end(cx: &Core) -> &'static str {
    let list = &cx.tab_state(super::LIST).list;
    match list.rows_order.unwrap_or(list.order) {
        crate::api::Order::Asc => "oldest",
        crate::api::Order::Desc => "newest",
    }
}

/// The title chip: `failed 3 of the newest 220` (a scan's progress is on the bottom line).
pub(crate) fn chip(d: &DeliveriesState, cx: &Core) -> Option<String> {
    let f = &d.local;
    // A view's time window: `since 2026-11-26 00:00` (local time), before the status.
    let since = f.since.map(|t| format!("since {}", cx.clock.local(&t)));
    let Some(status) = f.status.as_ref() else {
        return since;
    };
    let list = &cx.tab_state(super::LIST).list;
    let shown = list.rows.iter().filter(|r| f.keeps(r)).count();
    let chip = format!("{status} {shown} of the {} {}", end(cx), list.rows.len());
    Some(match since {
        Some(s) => format!("{s} · {chip}"),
        None => chip,
    })
}

/// The empty list's sentence while a status filter is on: how far it looked.
pub(crate) fn empty_note(d: &DeliveriesState, cx: &Core) -> Option<String> {
    let f = &d.local;
    let status = f.applied.as_ref()?;
    let examined = cx.tab_state(super::LIST).list.rows.len();
    Some(format!(
        "no {status} notification: none in the {} {examined}",
        end(cx)
    ))
}

/// The bottom line while a status filter is on: what was examined, and the keys that go on.
pub(crate) fn page_note(d: &DeliveriesState, cx: &Core) -> Option<String> {
    d.local.applied.as_ref()?;
    let list = &cx.tab_state(super::LIST).list;
    let more = if list.pagination.has_more_after {
        " · ] looks further"
    } else {
        " · the whole list"
    };
    Some(format!(
        " the {} {} examined{more} ",
        end(cx),
        list.rows.len()
    ))
}
