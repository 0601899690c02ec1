//! This module's part of `update`: keys while its panes are open, its actions, its replies.
use std::sync::Arc;

use super::filter::{FilterDialog, Outcome};
use super::health::HEALTH_SAMPLE;
use super::keys::DeliveryKey;
use super::{AttemptView, DeliveriesState, HealthPane, lookup, sorted_attempts, watch};
use crate::api::{Error, ListQuery, NotificationFilter, Order};
use crate::console::confirm::{Confirm, Subject};
use crate::console::keymap::{Action, Input};
use crate::console::msg::{ApiCmd, ApiReply, Effect, Pane};
use crate::console::pane::{load_list, open_filtered};
use crate::console::record::Item;
use crate::console::state::{Anchor, Core, ToastKind};
use crate::console::tab::Tab;

/// The record under the user's eye: the open detail's, else the selected row.
fn focused_item(cx: &Core) -> Option<Item> {
    let ts = cx.current();
    ts.detail
        .as_ref()
        .and_then(|d| d.record.as_ref())
        .or_else(|| ts.list.selected())
        .map(|r| r.item.clone())
}

/// The open notification detail's notification.
fn open_notification(cx: &Core) -> Option<crate::api::model::Notification> {
    if cx.tab != super::LIST {
        return None;
    }
    match cx.current().detail.as_ref()?.record.as_ref()?.item {
        Item::Notification(ref n) => Some((**n).clone()),
        _ => None,
    }
}

/// Applies one of this module's actions.
pub(crate) fn on_action(d: &mut DeliveriesState, cx: &mut Core, key: DeliveryKey) -> Vec<Effect> {
    match (key, focused_item(cx)) {
        // A callback's destinations or notifications: the list of the deliveries it sends, or
        // where they go, as the registry says (pulsar's and callback-destinations' alike).
        (
            key @ (DeliveryKey::Destinations | DeliveryKey::Notifications),
            Some(item @ (Item::Callback(_) | Item::DeploymentCallback(_))),
        ) => {
            let list = Tab::ALL
                .into_iter()
                .find(|k| k.senders() == Some(item.kind()));
            let tab = match key {
                DeliveryKey::Destinations => list.and_then(Tab::receivers),
                _ => list,
            };
            let Some(tab) = tab else {
                return Vec::new();
            };
            let filter = NotificationFilter {
                callback_ids: vec![item.id().to_string()],
                ..NotificationFilter::default()
            };
            open_filtered(cx, tab, filter)
        }
        (DeliveryKey::Notifications, Some(Item::Destination(dest))) => {
            // The destination is known now: keep it for signature checks.
            d.destinations.insert(dest.id.clone(), (*dest).clone());
            let filter = NotificationFilter {
                destination_ids: vec![dest.id.clone()],
                ..NotificationFilter::default()
            };
            open_filtered(cx, super::LIST, filter)
        }
        (DeliveryKey::Events, Some(Item::DeploymentCallback(c))) => {
            let filter = NotificationFilter {
                callback_ids: vec![c.id.clone()],
                ..NotificationFilter::default()
            };
            open_filtered(cx, Tab::DeploymentCallbackEvents, filter)
        }
        (DeliveryKey::Events, _) => {
            cx.toast(
                ToastKind::Info,
                "i follows a callback to the events it received (callback-destinations)",
            );
            Vec::new()
        }
        (DeliveryKey::Destinations | DeliveryKey::Notifications, _) => {
            cx.toast(
                ToastKind::Info,
                "D and N follow a callback (D, N) or a destination (N)",
            );
            Vec::new()
        }
        (DeliveryKey::Filter, _) if cx.tab == super::LIST => {
            let current = cx.current().list.filter.clone();
            let mut dialog = FilterDialog::from_filter(&current);
            let c = &cx.caches;
            if !c.names_asked || c.names_pending.is_none() {
                dialog.offer(&c.callbacks, &d.destinations);
            }
            d.filter = Some(dialog);
            super::names::want(cx)
        }
        (DeliveryKey::ClearFilters, _) if cx.tab == super::LIST => clear_filters(cx),
        (DeliveryKey::Watch, _) if cx.tab == super::LIST => {
            watch::toggle(d, cx);
            let word = if d.watch.on {
                format!("Watching: every {}", cx.settings.watch_interval())
            } else {
                "Watch off".into()
            };
            cx.toast(ToastKind::Info, word);
            Vec::new()
        }
        (DeliveryKey::LocalStatus, _) if super::server_status::applies(cx) => {
            super::server_status::cycle(cx)
        }
        (DeliveryKey::LocalStatus, _) if cx.tab == super::LIST => super::local::cycle(d, cx),
        (
            DeliveryKey::Filter
            | DeliveryKey::Watch
            | DeliveryKey::LocalStatus
            | DeliveryKey::ClearFilters,
            _,
        ) => {
            cx.toast(
                ToastKind::Info,
                "Filter and watch work on the Notifications tab",
            );
            Vec::new()
        }
        (DeliveryKey::Reveal, _) => {
            if let Some(v) = d.attempt.as_ref() {
                if !super::attempt::masks_anything(v) {
                    cx.toast(ToastKind::Info, "Nothing is masked in this attempt");
                } else if !v.revealed {
                    cx.confirm = Some(Confirm::yes_no(
                        "Reveal secrets",
                        "Show the masked header values of this attempt?",
                        Subject::RevealHeaders,
                    ));
                }
            } else if !super::secret::ask(d, cx) {
                cx.toast(
                    ToastKind::Info,
                    "R reveals an open attempt's masked headers, a destination's signing secret \
                     or a callback's hook URL",
                );
            }
            Vec::new()
        }
    }
}

/// Keys of the overlays: the filter dialog takes every key, the attempt view its own (quit,
/// help, reveal and replay go on to the layers below). `None` when neither is open.
pub(crate) fn overlay_key(
    d: &mut DeliveriesState,
    cx: &mut Core,
    key: &Input,
) -> Option<Vec<Effect>> {
    if d.filter.is_some() {
        return Some(filter_key(d, cx, key));
    }
    // Scrolled within what the view holds on this screen, so `k` after `G` moves at once.
    let action = key.action();
    let max = match action {
        Some(a) if crate::console::widgets::is_scroll(a) => {
            super::attempt::max_scroll(d, cx, d.attempt.as_ref()?)
        }
        _ => 0,
    };
    let v = d.attempt.as_mut()?;
    match action {
        Some(Action::Back) => d.attempt = None,
        Some(a) if crate::console::widgets::is_scroll(a) => {
            v.scroll = crate::console::widgets::scrolled(v.scroll, a, max).unwrap_or(v.scroll);
        }
        // `:` works here too; of the delivery keys only reveal is the attempt's (watch, the
        // filters and follows belong to the list hidden behind it).
        Some(
            Action::Quit
            | Action::Help
            | Action::Deliver(DeliveryKey::Reveal)
            | Action::Replay
            | Action::EditReplay
            | Action::Command,
        ) => return None,
        // Nothing else acts behind the attempt view.
        _ => {}
    }
    Some(Vec::new())
}

/// The tab's first keys on deliveries, before the other rooms' `Esc` (the router's: a search's
/// stop, then the marks): copying a revealed secret, `Esc` stopping a scan of pages. `None` lets
/// the key go on.
pub(crate) fn tab_key_first(
    d: &mut DeliveriesState,
    cx: &mut Core,
    key: &Input,
) -> Option<Vec<Effect>> {
    if let Some(effects) = super::secret::copy_key(d, cx, key) {
        return Some(effects);
    }
    let on_list = cx.tab == super::LIST && cx.current().detail.is_none();
    // Esc stops a scan of pages first; n / N find failed deliveries across pages.
    if on_list && key.action() == Some(Action::Back) && super::scan::stop(d, cx) {
        return Some(Vec::new());
    }
    None
}

/// The tab's own keys on deliveries after [`tab_key_first`] and the other rooms' `Esc`: `n`/`N`,
/// Esc clearing the server filters of the notifications list (`filtered`: the list's row filter
/// is on, which Esc clears first), the attempt cursor of a notification's detail. `None` lets
/// the action go to the tab's usual handling.
pub(crate) fn tab_key(
    d: &mut DeliveriesState,
    cx: &mut Core,
    key: &Input,
    filtered: bool,
) -> Option<Vec<Effect>> {
    let action = key.action();
    let on_list = cx.tab == super::LIST && cx.current().detail.is_none();
    // On callback-destinations' notifications: `n`/`N` through the server's status filter (the
    // marks were cleared by `Esc` before).
    if super::callback_seek::applies(cx) {
        let seek = key.action_among(|a| matches!(a, Action::NextMatch | Action::PrevMatch));
        if let Some(a @ (Action::NextMatch | Action::PrevMatch)) = seek {
            return Some(super::callback_seek::seek(d, cx, a == Action::NextMatch));
        }
    }
    // `N` also follows a callback's notifications: on this list it is the previous failure.
    let seek = key.action_among(|a| matches!(a, Action::NextMatch | Action::PrevMatch));
    if on_list && matches!(seek, Some(Action::NextMatch | Action::PrevMatch)) {
        return Some(super::scan::seek(d, cx, seek == Some(Action::NextMatch)));
    }
    // With a status filter on, the rows are the newest examined, not a page: `r` and `[` look
    // again from the top, `]` looks further.
    // After `n`/`N` joined pages, the rows are no single page either: `r` starts from the top.
    if on_list && action == Some(Action::Reload) && super::scan::merged(cx) {
        return Some(super::local::from_top(d, cx));
    }
    if on_list && super::local::on(d) {
        match action {
            Some(Action::Reload | Action::PrevPage) => return Some(super::local::from_top(d, cx)),
            Some(Action::NextPage) => return Some(super::scan::further(d, cx)),
            _ => {}
        }
    }
    // Esc on the notifications list, with nothing to go back to and no row filter to clear
    // first, clears the server filters (as F does).
    if action == Some(Action::Back)
        && cx.tab == super::LIST
        && cx.nav.is_empty()
        && cx.current().detail.is_none()
        && !filtered
        && cx.current().list.filter != NotificationFilter::default()
    {
        return Some(clear_filters(cx));
    }
    let n = open_notification(cx)?;
    if d.cursor_of != n.id {
        d.cursor_of.clone_from(&n.id);
        d.attempt_cursor = 0;
    }
    let count = n.attempts.len();
    let cur = &mut d.attempt_cursor;
    match action {
        Some(Action::Down) => *cur = (*cur + 1).min(count.saturating_sub(1)),
        Some(Action::Up) => *cur = cur.saturating_sub(1),
        Some(Action::First) => *cur = 0,
        Some(Action::Last) => *cur = count.saturating_sub(1),
        Some(Action::Open) => return Some(open_attempt(d, cx, n)),
        _ => return None,
    }
    keep_attempt_visible(d, cx);
    Some(Vec::new())
}

/// Scrolls the notification detail so that the selected attempt's row is on screen.
fn keep_attempt_visible(room: &DeliveriesState, cx: &mut Core) {
    let above = crate::console::views::notifications::LINES_ABOVE_ATTEMPTS;
    let screen = ratatui::layout::Rect::new(0, 0, cx.size.0, cx.size.1);
    let height = crate::console::layout::areas(screen, super::LIST, true)
        .detail
        .map_or(1, |r| usize::from(r.height.saturating_sub(2)).max(1));
    let row = above + room.attempt_cursor;
    if let Some(d) = cx.current_mut().detail.as_mut() {
        let scroll = usize::from(d.scroll);
        let scroll = if row < scroll {
            row
        } else if row >= scroll + height {
            row + 1 - height
        } else {
            scroll
        };
        d.scroll = u16::try_from(scroll).unwrap_or(u16::MAX);
    }
}

fn open_attempt(
    d: &mut DeliveriesState,
    cx: &mut Core,
    n: crate::api::model::Notification,
) -> Vec<Effect> {
    let position = d.attempt_cursor;
    if sorted_attempts(&n).get(position).is_none() {
        cx.toast(ToastKind::Info, "No attempt yet");
        return Vec::new();
    }
    let effects = lookup::fetch_if_needed(d, cx, &n);
    d.attempt = Some(AttemptView {
        notification: Box::new(n),
        position,
        revealed: false,
        scroll: 0,
    });
    effects
}

fn filter_key(d: &mut DeliveriesState, cx: &mut Core, key: &Input) -> Vec<Effect> {
    let Some(dialog) = d.filter.as_mut() else {
        return Vec::new();
    };
    match dialog.on_key(key) {
        Outcome::Editing => Vec::new(),
        Outcome::Cancel => {
            d.filter = None;
            Vec::new()
        }
        Outcome::Apply => {
            let filter = dialog.to_filter();
            d.filter = None;
            cx.tab_state_mut(super::LIST).list.filter = filter;
            load_list(cx, super::LIST, Anchor::First, 1, true)
        }
    }
}

/// Drops every server-side filter of the notifications list and reloads its first page.
fn clear_filters(cx: &mut Core) -> Vec<Effect> {
    let list = &mut cx.tab_state_mut(super::LIST).list;
    if list.filter == NotificationFilter::default() {
        cx.toast(ToastKind::Info, "No server filter to clear");
        return Vec::new();
    }
    list.filter = NotificationFilter::default();
    cx.toast(ToastKind::Info, "Server filters cleared");
    load_list(cx, super::LIST, Anchor::First, 1, true)
}

/// After a detail opened: a destination's health is fetched.
pub(crate) fn after_open(d: &mut DeliveriesState, cx: &mut Core, tab: Tab) -> Vec<Effect> {
    let mut effects = match tab {
        super::SENDERS | super::RECEIVERS | super::LIST => super::names::want(cx),
        _ => Vec::new(),
    };
    let id = match (tab, cx.tab_state(tab).detail.as_ref()) {
        (super::RECEIVERS, Some(detail)) => detail.id.clone(),
        _ => return effects,
    };
    d.health = Some(HealthPane {
        destination_id: id.clone(),
        ..HealthPane::default()
    });
    effects.extend(health_page(d, cx, None));
    effects.extend(super::secret::check_active(cx, &id));
    effects
}

fn health_page(d: &mut DeliveriesState, cx: &mut Core, after: Option<String>) -> Vec<Effect> {
    let req_id = cx.next_req_id();
    let Some(h) = d.health.as_mut() else {
        return Vec::new();
    };
    h.pending = Some(req_id);
    let query = ListQuery {
        limit: Some(100),
        order: Some(Order::Desc),
        after,
        ..ListQuery::default()
    };
    let filter = NotificationFilter {
        destination_ids: vec![h.destination_id.clone()],
        ..NotificationFilter::default()
    };
    vec![Effect::Api {
        req_id,
        pane: Pane::Health,
        cmd: ApiCmd::List {
            tab: super::LIST,
            query,
            filter,
        },
    }]
}

/// A reply to one of this room's background requests (names, glance, active, lookup, health),
/// handled by the pane it is addressed to; `None` when that pane no longer waits for it.
pub(crate) fn on_reply(
    d: &mut DeliveriesState,
    cx: &mut Core,
    pane: Pane,
    req_id: u64,
    result: Result<ApiReply, Error>,
) -> Option<Vec<Effect>> {
    // The reply's address says who asked; its request id only says whether that one still waits.
    let c = &mut cx.caches;
    match pane {
        Pane::Names => {
            c.names_pending.take_if(|p| *p == req_id)?;
            // Without names the ids stay: nothing else to say.
            if let Ok(ApiReply::Known(k)) = result {
                super::names::learned(d, cx, *k);
            }
            // The open notification's destination can be told now.
            Some(super::deleted::open_notification(d, cx))
        }
        Pane::Glance => {
            c.glance_pending.take_if(|p| *p == req_id)?;
            if let Ok(ApiReply::Glance(found)) = result {
                c.glance.extend(found);
            }
            // Rows that arrived meanwhile get theirs now.
            Some(super::health::want_glance(cx))
        }
        Pane::Active => {
            let id = c.active_pending.remove(&req_id)?;
            match result {
                Ok(ApiReply::Active(true)) => {
                    c.active.insert(id);
                }
                Ok(ApiReply::Active(false)) => {
                    c.deleted.insert(id);
                }
                _ => {}
            }
            Some(Vec::new())
        }
        Pane::Lookup => {
            d.lookup_pending.take_if(|p| *p == req_id)?;
            let whole = matches!(&result, Ok(ApiReply::Page(p)) if !p.pagination.has_more_after);
            if let Ok(ApiReply::Page(p)) = result {
                for r in p.records {
                    if let Item::Destination(dest) = r.item {
                        d.destinations
                            .insert(dest.id.clone(), Arc::unwrap_or_clone(dest));
                    }
                }
            }
            super::lookup::settle_gone(d, cx, whole);
            Some(super::deleted::open_notification(d, cx))
        }
        Pane::Health => health_reply(d, cx, req_id, result),
        _ => None,
    }
}

/// A page of the open destination's health sample.
fn health_reply(
    d: &mut DeliveriesState,
    cx: &mut Core,
    req_id: u64,
    result: Result<ApiReply, Error>,
) -> Option<Vec<Effect>> {
    // Stale: nobody waits for it any more.
    let h = d.health.as_mut().filter(|h| h.pending == Some(req_id))?;
    h.pending = None;
    match result {
        Ok(ApiReply::Page(p)) => {
            let more = p.pagination.has_more_after;
            // The cursor this page was asked after, and how many items there were.
            let (cursor, had) = (h.items.last().map(|n| n.id.clone()), h.items.len());
            h.items
                .extend(p.records.into_iter().filter_map(|r| match r.item {
                    Item::Notification(n) => Some(Arc::unwrap_or_clone(n)),
                    _ => None,
                }));
            h.items.truncate(HEALTH_SAMPLE);
            let last = h.items.last().map(|n| n.id.clone());
            // A server saying "more" on a page that added nothing, or that did not move the
            // cursor, would be asked again forever.
            let moved = h.items.len() > had && last != cursor;
            if more && moved && h.items.len() < HEALTH_SAMPLE {
                return Some(health_page(d, cx, last));
            }
        }
        Ok(_) => h.error = Some("unexpected reply".into()),
        Err(e) => h.error = Some(e.to_string()),
    }
    Some(Vec::new())
}

/// Before a list's reply is applied: the notifications' local status filter notes it, a scan
/// keeps the rows loaded so far.
pub(crate) fn before_list_reply(d: &mut DeliveriesState, cx: &Core, req_id: u64) {
    super::local::before_reply(d, cx, req_id);
    super::scan::before_reply(d, cx, req_id);
}

/// After the shell applied a reply, first half: the local status filter runs on a new page,
/// and a scan adds it to the rows kept. When a scan joined pages ([`super::scan::After::joined`])
/// the router derives the list's view again before [`after_reply_then`].
pub(crate) fn after_reply(d: &mut DeliveriesState, cx: &mut Core) -> super::scan::After {
    super::local::after_reply(d, cx);
    super::callback_seek::after_reply(d, cx);
    super::scan::after_reply(d, cx)
}

/// After the shell applied a reply, second half: a scan goes on, and names, the glance, the
/// open destination's health and deleted destinations are asked for in the background.
pub(crate) fn after_reply_then(
    d: &mut DeliveriesState,
    cx: &mut Core,
    after: super::scan::After,
) -> Vec<Effect> {
    let mut effects = match after {
        super::scan::After::Done(effects) => effects,
        super::scan::After::Joined(joined) => super::scan::go_on(d, cx, joined),
    };
    super::names::learn_rows(cx);
    // The lists that name other things: learn every name in the background.
    if matches!(cx.tab, super::RECEIVERS | super::LIST) {
        effects.extend(super::names::want(cx));
    }
    // The destinations list's sparklines, loaded in the background.
    if cx.tab == super::RECEIVERS {
        effects.extend(super::health::want_glance(cx));
    }
    effects.extend(super::health::want_stats(d, cx));
    effects.extend(super::deleted::want(d, cx));
    effects
}

/// One animation step of this module (watch mode).
pub(crate) fn on_tick(d: &mut DeliveriesState, cx: &mut Core) -> Vec<Effect> {
    watch::on_tick(d, cx)
}
