//! Watch mode: the notifications list reloads itself every few seconds while it is on screen,
//! rows that are new or changed are highlighted briefly, and failures slow it down.
use std::collections::BTreeMap;

use super::DeliveriesState;
use crate::console::msg::Effect;
use crate::console::pane::load_list;
use crate::console::record::{Item, Record};
use crate::console::state::{Core, LoadState};

pub(crate) use super::{FLASH_TICKS, MAX_BACKOFF};

/// What a row looks like to watch mode.
fn fingerprint(r: &Record) -> (String, usize) {
    match &r.item {
        Item::Notification(n) => (n.status.as_str().to_string(), n.attempts.len()),
        _ => (String::new(), 0),
    }
}

/// Whether watching is on but held back (another tab, a detail, a dialog): what
/// `State::watch_paused` says, from this room's model and the core.
pub(crate) fn paused(d: &DeliveriesState, cx: &Core) -> bool {
    !cx.tab.is_notifications_list()
        || cx.current().detail.is_some()
        || d.attempt.is_some()
        || d.filter.is_some()
        || cx.help
}

/// Turns watching on or off.
pub(crate) fn toggle(d: &mut DeliveriesState, cx: &Core) {
    let rows = &cx.tab_state(super::LIST).list.rows;
    let seen = rows
        .iter()
        .map(|r| (r.id().to_string(), fingerprint(r)))
        .collect();
    let every = cx.settings.watch_every_ticks;
    let w = &mut d.watch;
    w.on = !w.on;
    w.countdown = every;
    w.backoff = 1;
    w.seen = seen;
    w.flash.clear();
}

/// One animation step: fade highlights, spot new and changed rows, and reload when due.
pub(crate) fn on_tick(d: &mut DeliveriesState, cx: &mut Core) -> Vec<Effect> {
    let w = &mut d.watch;
    w.flash.values_mut().for_each(|t| *t = t.saturating_sub(1));
    w.flash.retain(|_, t| *t > 0);
    if !w.on {
        return Vec::new();
    }
    let list = &cx.tab_state(super::LIST).list;
    if list.pending.is_none() {
        let now: BTreeMap<String, (String, usize)> = list
            .rows
            .iter()
            .map(|r| (r.id().to_string(), fingerprint(r)))
            .collect();
        let w = &mut d.watch;
        for (id, fp) in &now {
            if w.seen.get(id) != Some(fp) {
                w.flash.insert(id.clone(), FLASH_TICKS);
            }
        }
        w.seen = now;
    }
    if paused(d, cx) {
        return Vec::new();
    }
    let list = &cx.tab_state(super::LIST).list;
    let failed = matches!(list.load, LoadState::Error(_));
    let busy = list.pending.is_some();
    // A status filter shows the newest rows examined: the top is what is watched, not the page
    // its scan stopped at.
    let (anchor, page) = if super::local::on(d) {
        (crate::console::state::Anchor::First, 1)
    } else {
        (list.anchor.clone(), list.page.max(1))
    };
    let every = cx.settings.watch_every_ticks;
    let w = &mut d.watch;
    w.countdown = w.countdown.saturating_sub(1);
    if w.countdown > 0 || busy {
        return Vec::new();
    }
    w.backoff = if failed {
        (w.backoff * 2).min(MAX_BACKOFF)
    } else {
        1
    };
    w.countdown = every.saturating_mul(w.backoff);
    load_list(cx, super::LIST, anchor, page, false)
}
