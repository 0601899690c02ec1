//! `n`/`N` on `callback-destinations`' Notifications (one callback's, or every callback's newest
//! merged): the next / previous failed row among those loaded; past them, the platform's status
//! filter (`status=failed`, as `l` asks) is put on and the list read again, the cursor landing on
//! the first failed notification beyond the row it left (older for `n`, newer for `N`, the list
//! being newest first). No page is scanned on this side.
use chrono::{DateTime, Utc};

use super::{DeliveriesState, Seek};
use crate::api::model::CallbackNotificationStatus;
use crate::console::msg::Effect;
use crate::console::pane::{keep_cursor_visible, load_list};
use crate::console::record::{Item, Record};
use crate::console::state::{Anchor, Core, ToastKind};
use crate::console::tab::Tab;

/// The notifications read through the callbacks (this generation's).
const TAB: Tab = Tab::MERGED_NOTIFICATIONS;
const FAILED: &str = "failed";

fn failed(r: &Record) -> bool {
    matches!(&r.item, Item::CallbackNotification(n) if n.status == CallbackNotificationStatus::Failed)
}

fn created(r: &Record) -> Option<DateTime<Utc>> {
    match &r.item {
        Item::CallbackNotification(n) => Some(n.created_at),
        _ => None,
    }
}

/// Whether `n`/`N` are this module's: the list of this generation's notifications is shown.
pub(crate) fn applies(cx: &Core) -> bool {
    cx.tab == TAB && cx.current().detail.is_none()
}

fn none_left(forward: bool) -> &'static str {
    if forward {
        "No failed notification after this one (the server's newest failed are shown)"
    } else {
        "No failed notification before this one (the server's newest failed are shown)"
    }
}

/// `n` (`forward`) or `N`.
pub(crate) fn seek(d: &mut DeliveriesState, cx: &mut Core, forward: bool) -> Vec<Effect> {
    if jump(cx, forward) {
        return Vec::new();
    }
    let list = &cx.tab_state(TAB).list;
    if list.filter.statuses.iter().any(|s| s == FAILED) {
        cx.toast(ToastKind::Info, none_left(forward));
        return Vec::new();
    }
    if let Some(other) = list.filter.statuses.first() {
        let other = other.clone();
        cx.toast(
            ToastKind::Info,
            format!("The status filter shows {other} only: l to change it"),
        );
        return Vec::new();
    }
    let from = list
        .selected()
        .and_then(|r| created(r).map(|t| (t, r.id().to_string())));
    cx.tab_state_mut(TAB).list.filter.statuses = vec![FAILED.to_string()];
    d.cb_seek = Some(Seek { from, forward });
    cx.toast(
        ToastKind::Info,
        "No failed row beyond this one among those loaded: showing failed only (the server's status filter; l changes it)",
    );
    load_list(cx, TAB, Anchor::First, 1, true)
}

/// Moves the cursor to the nearest failed row shown beyond it; whether there was one.
fn jump(cx: &mut Core, forward: bool) -> bool {
    let list = &mut cx.tab_state_mut(TAB).list;
    let shown: Vec<(usize, bool)> = list.shown().map(failed).enumerate().collect();
    let cursor = list.cursor;
    let found = if forward {
        shown.iter().find(|(i, f)| *i > cursor && *f)
    } else {
        shown.iter().rev().find(|(i, f)| *i < cursor && *f)
    }
    .map(|(i, _)| *i);
    match found {
        Some(i) => {
            list.cursor = i;
            keep_cursor_visible(cx, TAB);
            true
        }
        None => false,
    }
}

/// After a reply: once the failed list asked for by [`seek`] is in, the cursor goes onto the
/// first failed notification beyond the row the seek left.
pub(crate) fn after_reply(d: &mut DeliveriesState, cx: &mut Core) {
    if cx.tab_state(TAB).list.pending.is_some() {
        return;
    }
    let Some(seek) = d.cb_seek.take() else {
        return;
    };
    let list = &cx.tab_state(TAB).list;
    let rows: Vec<(usize, Option<DateTime<Utc>>, String)> = list
        .shown()
        .enumerate()
        .map(|(i, r)| (i, created(r), r.id().to_string()))
        .collect();
    let target = match &seek.from {
        None => rows.first().map(|(i, ..)| *i),
        // Newest first: older rows are further down.
        Some((t, id)) if seek.forward => rows
            .iter()
            .find(|(_, c, rid)| rid != id && c.is_some_and(|c| c <= *t))
            .map(|(i, ..)| *i),
        Some((t, id)) => rows
            .iter()
            .rev()
            .find(|(_, c, rid)| rid != id && c.is_some_and(|c| c >= *t))
            .map(|(i, ..)| *i),
    };
    match target {
        Some(i) => {
            cx.tab_state_mut(TAB).list.cursor = i;
            keep_cursor_visible(cx, TAB);
        }
        None => cx.toast(ToastKind::Info, none_left(seek.forward)),
    }
}
