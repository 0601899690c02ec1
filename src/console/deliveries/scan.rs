//! Failures found without paging. With a status filter on, the notifications list keeps asking
//! for the following pages, adding their rows to the loaded ones, until a screenful matches or
//! the list ends ([`SCAN_PAGES`] at most); `n`/`N` move to the next/previous failed delivery,
//! fetching pages that way when none is loaded, within the walk budget every walk over pages has
//! ([`crate::api::budget`]). Both say how far they got in the list title, and `Esc` stops them;
//! the cursor leaves its row only for a match.
pub(crate) use super::{Kept, Scan, ScanKind};
use crate::api::model::NotificationStatus;
use crate::console::msg::Effect;
use crate::console::pane::load_list;
use crate::console::record::{Item, Record};
use crate::console::state::{Anchor, State, ToastKind};

/// Pages a status filter's scan fetches at most before `]` goes on.
pub(crate) const SCAN_PAGES: u32 = 10;

/// Whether a row is a failed delivery.
fn failed(r: &Record) -> bool {
    matches!(&r.item, Item::Notification(n) if n.status == NotificationStatus::Failed)
}

/// How many rows the list shows at once.
fn screenful(state: &State) -> usize {
    crate::console::layout::list_rows(state.size, super::LIST, false, 0)
}

/// Rows of the loaded pages that the status filter keeps.
fn matching(state: &State) -> usize {
    let local = &state.deliveries.local;
    let list = &state.tab_state(super::LIST).list;
    list.rows.iter().filter(|r| local.keeps(r)).count()
}

/// Asks for the page after (or before) the loaded rows as the scan's next step.
fn step(state: &mut State, forward: bool) -> Vec<Effect> {
    let list = &state.tab_state(super::LIST).list;
    let (anchor, more) = if forward {
        let last = list.rows.last().map(|r| r.id().to_string());
        (last.map(Anchor::After), list.pagination.has_more_after)
    } else {
        let first = list.rows.first().map(|r| r.id().to_string());
        (first.map(Anchor::Before), list.pagination.has_more_before)
    };
    let (Some(anchor), true) = (anchor, more) else {
        return Vec::new();
    };
    let page = list.page;
    let effects = load_list(state, super::LIST, anchor, page, false);
    let req = state
        .tab_state(super::LIST)
        .list
        .pending
        .as_ref()
        .map(|p| p.req_id);
    if let Some(s) = state.deliveries.local.scan.as_mut() {
        s.pages += 1;
        s.req_id = req;
        s.kept = None;
    }
    effects
}

/// Starts filling the screen when a page of the filtered list arrived with too few matches.
fn maybe_fill(state: &mut State) -> Vec<Effect> {
    let local = &state.deliveries.local;
    let list = &state.tab_state(super::LIST).list;
    if local.applied.is_none() || !list.pagination.has_more_after || list.pending.is_some() {
        return Vec::new();
    }
    if matching(state) >= screenful(state) {
        return Vec::new();
    }
    state.deliveries.local.scan = Some(Scan {
        kind: ScanKind::Fill,
        pages: 0,
        req_id: None,
        kept: None,
        meter: crate::api::budget::Budget::default().meter(),
    });
    step(state, true)
}

/// Whether the loaded rows are more than the page asked for: a scan joined pages.
pub(crate) fn merged(state: &State) -> bool {
    let list = &state.tab_state(super::LIST).list;
    list.limit > 0 && list.rows.len() > list.limit as usize
}

/// `]` with a status filter on: the following pages are examined too (another [`SCAN_PAGES`]).
pub(crate) fn further(state: &mut State) -> Vec<Effect> {
    if !state.tab_state(super::LIST).list.pagination.has_more_after {
        state.toast(ToastKind::Info, "Every row of the list was examined");
        return Vec::new();
    }
    state.deliveries.local.scan = Some(Scan {
        kind: ScanKind::Fill,
        pages: 0,
        req_id: None,
        kept: None,
        meter: crate::api::budget::Budget::default().meter(),
    });
    let effects = step(state, true);
    if effects.is_empty() {
        state.deliveries.local.scan = None;
    }
    effects
}

/// `n` / `N` on the notifications list: the cursor to the next / previous failed delivery,
/// fetching pages that way when none is loaded there.
pub(crate) fn seek(state: &mut State, forward: bool) -> Vec<Effect> {
    if let Some(status) = &state.deliveries.local.applied
        && status != "failed"
    {
        state.core.toast(
            ToastKind::Info,
            format!("The status filter shows {status} only: l to change it"),
        );
        return Vec::new();
    }
    if jump(state, forward, None) {
        return Vec::new();
    }
    state.deliveries.local.scan = Some(Scan {
        kind: ScanKind::Seek { forward },
        pages: 0,
        req_id: None,
        kept: None,
        meter: state.walk_budget.meter(),
    });
    let effects = step(state, forward);
    if effects.is_empty() {
        state.deliveries.local.scan = None;
        state.toast(ToastKind::Info, none_left(forward));
    }
    effects
}

fn none_left(forward: bool) -> &'static str {
    if forward {
        "No failed delivery after this one"
    } else {
        "No failed delivery before this one"
    }
}

/// Moves the cursor to the nearest failed row shown beyond it (or, with `among`, among those
/// row ids only); whether there was one.
fn jump(state: &mut State, forward: bool, among: Option<&[String]>) -> bool {
    let list = &mut state.tab_state_mut(super::LIST).list;
    let shown: Vec<(usize, &Record)> = list.shown().enumerate().collect();
    let eligible =
        |r: &Record| failed(r) && among.is_none_or(|ids| ids.iter().any(|i| i == r.id()));
    let found = if forward {
        shown
            .iter()
            .find(|(i, r)| (among.is_some() || *i > list.cursor) && eligible(r))
    } else {
        shown
            .iter()
            .rev()
            .find(|(i, r)| (among.is_some() || *i < list.cursor) && eligible(r))
    }
    .map(|(i, _)| *i);
    match found {
        Some(i) => {
            list.cursor = i;
            crate::console::pane::keep_cursor_visible(state, super::LIST);
            true
        }
        None => false,
    }
}

/// `Esc` while a scan runs: stop it, keeping what was loaded. False when none runs.
pub(crate) fn stop(state: &mut State) -> bool {
    let Some(s) = state.deliveries.local.scan.take() else {
        return false;
    };
    let list = &mut state.tab_state_mut(super::LIST).list;
    if list.pending.as_ref().map(|p| p.req_id) == s.req_id {
        list.pending = None;
        list.load = crate::console::state::LoadState::Loaded;
    }
    state.toast(
        ToastKind::Info,
        format!("Stopped after {} more pages", s.pages.saturating_sub(1)),
    );
    true
}

/// Before a list reply is applied: a scan's page keeps the rows loaded so far; any other list
/// reply ends the scan (it was superseded).
pub(crate) fn before_reply(state: &mut State, req_id: u64) {
    let list = &state.tab_state(super::LIST).list;
    let kept = Kept {
        rows: list.rows.clone(),
        rev: list.rev,
        pagination: list.pagination,
        page: list.page,
        selected: list.selected().map(|r| r.id().to_string()),
    };
    let pending = state
        .tab_state(super::LIST)
        .list
        .pending
        .as_ref()
        .is_some_and(|p| p.req_id == req_id);
    if !pending {
        return;
    }
    // A page asked for anew (or for a status just chosen) may start filling the screen; a
    // reload (watch mode) does not.
    let local = &state.deliveries.local;
    let fresh = state
        .tab_state(super::LIST)
        .list
        .pending
        .as_ref()
        .is_some_and(|p| p.new_page)
        || local.status != local.applied;
    let Some(s) = state.deliveries.local.scan.as_mut() else {
        state.deliveries.local.fill_next = fresh;
        return;
    };
    if s.req_id == Some(req_id) {
        s.kept = Some(kept);
    } else {
        state.deliveries.local.scan = None;
        state.deliveries.local.fill_next = fresh;
    }
}

/// After a list reply was applied: a scan's page joins the rows kept, and the scan goes on or
/// ends; a page of the filtered list with too few matches starts one.
pub(crate) fn after_reply(state: &mut State) -> Vec<Effect> {
    let fresh = std::mem::take(&mut state.deliveries.local.fill_next);
    let Some(mut s) = state.deliveries.local.scan.take() else {
        return if fresh { maybe_fill(state) } else { Vec::new() };
    };
    let Some(Kept {
        rows: kept,
        rev,
        pagination,
        page,
        selected,
    }) = s.kept.take()
    else {
        // Still waiting for the scan's page.
        state.deliveries.local.scan = Some(s);
        return Vec::new();
    };
    let forward = match s.kind {
        ScanKind::Fill => true,
        ScanKind::Seek { forward } => forward,
    };
    let list = &mut state.tab_state_mut(super::LIST).list;
    if list.rev == rev || list.load != crate::console::state::LoadState::Loaded {
        // Nothing new came (the end, or an error shown in the list): the scan ends.
        if matches!(s.kind, ScanKind::Seek { .. }) {
            state.toast(ToastKind::Info, none_left(forward));
        }
        return Vec::new();
    }
    // Rows already kept are not added twice: a server whose cursor does not move ends the scan.
    let new: Vec<Record> = std::mem::take(&mut list.rows)
        .into_iter()
        .filter(|r| !kept.iter().any(|k| k.id() == r.id()))
        .collect();
    let new_ids: Vec<String> = new.iter().map(|r| r.id().to_string()).collect();
    s.meter.count(new.len(), 0);
    let stuck = new.is_empty();
    let merged: Vec<Record> = if forward {
        kept.into_iter().chain(new).collect()
    } else {
        new.into_iter().chain(kept).collect()
    };
    list.set_rows(merged);
    // The loaded rows now reach from the first kept to the last fetched (or from the first
    // fetched to the last kept): the kept side keeps its flag, and its page number forward.
    if forward {
        list.pagination.has_more_before = pagination.has_more_before;
        list.page = page;
    } else {
        list.pagination.has_more_after = pagination.has_more_after;
    }
    list.cursor = selected
        .and_then(|id| list.rows.iter().position(|r| r.id() == id))
        .unwrap_or(0);
    state.touch_rows(super::LIST);
    state.deliveries.local.loaded = state.tab_state(super::LIST).list.rows.len();
    crate::console::derived_view::refresh(state);
    if stuck {
        if matches!(s.kind, ScanKind::Seek { .. }) {
            state.toast(ToastKind::Info, none_left(forward));
        }
        return Vec::new();
    }
    let done = match s.kind {
        ScanKind::Fill => matching(state) >= screenful(state),
        ScanKind::Seek { forward } => jump(state, forward, Some(&new_ids)),
    };
    if done {
        return Vec::new();
    }
    match s.kind {
        ScanKind::Fill if s.pages >= SCAN_PAGES => {
            state.toast(
                ToastKind::Info,
                format!("Looked through {SCAN_PAGES} more pages: ] goes on"),
            );
            return Vec::new();
        }
        ScanKind::Seek { .. } if !s.meter.has_room() => {
            let more = if forward { "n" } else { "N" };
            state.toast(
                ToastKind::Info,
                format!(
                    "Looked through {} rows (the walk's budget): {more} looks further",
                    grouped(s.meter.items)
                ),
            );
            return Vec::new();
        }
        _ => {}
    }
    let kind = s.kind;
    state.deliveries.local.scan = Some(s);
    let effects = step(state, forward);
    if effects.is_empty() {
        state.deliveries.local.scan = None;
        if matches!(kind, ScanKind::Seek { .. }) {
            state.toast(ToastKind::Info, none_left(forward));
        }
    }
    effects
}

/// The scan's progress for the list's bottom line: `n: looked back to 5 h ago, 3,940 rows · Esc
/// stops`.
pub(crate) fn progress(state: &State) -> Option<String> {
    let s = state.deliveries.local.scan.as_ref()?;
    let list = &state.tab_state(super::LIST).list;
    let rows = grouped(list.rows.len());
    let forward = match s.kind {
        ScanKind::Fill => {
            return Some(format!(
                "looking further: page {}/{SCAN_PAGES} · Esc stops",
                s.pages
            ));
        }
        ScanKind::Seek { forward } => forward,
    };
    let what = if forward { "n" } else { "N" };
    let edge = if forward {
        list.rows.last()
    } else {
        list.rows.first()
    };
    let newest_first = list.rows_order.unwrap_or(list.order) == crate::api::Order::Desc;
    let way = if forward == newest_first {
        "back"
    } else {
        "on"
    };
    let when = match edge.map(|r| &r.item) {
        Some(Item::Notification(n)) => {
            format!("looked {way} to {}, ", state.clock.relative(&n.created_at))
        }
        _ => String::new(),
    };
    Some(format!("{what}: {when}{rows} rows · Esc stops"))
}

/// `3940` as `3,940`.
pub(crate) fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
