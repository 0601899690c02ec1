//! This module's part of `update`: keys while its panes are open, its actions, its replies.
use std::sync::Arc;

use super::filter::{FilterDialog, Outcome};
use super::health::HEALTH_SAMPLE;
use super::keys::DeliveryKey;
use super::{AttemptView, HealthPane, lookup, sorted_attempts, watch};
use crate::api::{Error, ListQuery, NotificationFilter, Order};
use crate::console::confirm::{Confirm, Subject};
use crate::console::keymap::{Action, Input};
use crate::console::msg::{ApiCmd, ApiReply, Effect, Pane};
use crate::console::pane::{load_list, open_filtered};
use crate::console::record::Item;
use crate::console::state::{Anchor, State, ToastKind};
use crate::console::tab::Tab;

/// The record under the user's eye: the open detail's, else the selected row.
fn focused_item(state: &State) -> Option<Item> {
    let ts = state.current();
    ts.detail
        .as_ref()
        .and_then(|d| d.record.as_ref())
        .or_else(|| ts.list.selected())
        .map(|r| r.item.clone())
}

/// The open notification detail's notification.
fn open_notification(state: &State) -> Option<crate::api::model::Notification> {
    if state.tab != super::LIST {
        return None;
    }
    match state.current().detail.as_ref()?.record.as_ref()?.item {
        Item::Notification(ref n) => Some((**n).clone()),
        _ => None,
    }
}

/// Applies one of this module's actions.
pub(crate) fn on_action(state: &mut State, key: DeliveryKey) -> Vec<Effect> {
    match (key, focused_item(state)) {
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
            open_filtered(state, tab, filter)
        }
        (DeliveryKey::Notifications, Some(Item::Destination(d))) => {
            // The destination is known now: keep it for signature checks.
            state
                .deliveries
                .destinations
                .insert(d.id.clone(), (*d).clone());
            let filter = NotificationFilter {
                destination_ids: vec![d.id.clone()],
                ..NotificationFilter::default()
            };
            open_filtered(state, super::LIST, filter)
        }
        (DeliveryKey::Events, Some(Item::DeploymentCallback(c))) => {
            let filter = NotificationFilter {
                callback_ids: vec![c.id.clone()],
                ..NotificationFilter::default()
            };
            open_filtered(state, Tab::DeploymentCallbackEvents, filter)
        }
        (DeliveryKey::Events, _) => {
            state.toast(
                ToastKind::Info,
                "i follows a callback to the events it received (callback-destinations)",
            );
            Vec::new()
        }
        (DeliveryKey::Destinations | DeliveryKey::Notifications, _) => {
            state.toast(
                ToastKind::Info,
                "D and N follow a callback (D, N) or a destination (N)",
            );
            Vec::new()
        }
        (DeliveryKey::Filter, _) if state.tab == super::LIST => {
            let current = state.current().list.filter.clone();
            let mut dialog = FilterDialog::from_filter(&current);
            let c = &state.caches;
            if !c.names_asked || c.names_pending.is_none() {
                dialog.offer(&c.callbacks, &state.deliveries.destinations);
            }
            state.deliveries.filter = Some(dialog);
            super::names::want(state)
        }
        (DeliveryKey::ClearFilters, _) if state.tab == super::LIST => clear_filters(state),
        (DeliveryKey::Watch, _) if state.tab == super::LIST => {
            watch::toggle(state);
            let word = if state.deliveries.watch.on {
                format!("Watching: every {}", state.settings.watch_interval())
            } else {
                "Watch off".into()
            };
            state.toast(ToastKind::Info, word);
            Vec::new()
        }
        (DeliveryKey::LocalStatus, _) if super::server_status::applies(state) => {
            super::server_status::cycle(state)
        }
        (DeliveryKey::LocalStatus, _) if state.tab == super::LIST => super::local::cycle(state),
        (
            DeliveryKey::Filter
            | DeliveryKey::Watch
            | DeliveryKey::LocalStatus
            | DeliveryKey::ClearFilters,
            _,
        ) => {
            state.toast(
                ToastKind::Info,
                "Filter and watch work on the Notifications tab",
            );
            Vec::new()
        }
        (DeliveryKey::Reveal, _) => {
            if let Some(v) = state.deliveries.attempt.as_ref() {
                if !super::attempt::masks_anything(v) {
                    state.toast(ToastKind::Info, "Nothing is masked in this attempt");
                } else if !v.revealed {
                    state.confirm = Some(Confirm::yes_no(
                        "Reveal secrets",
                        "Show the masked header values of this attempt?",
                        Subject::RevealHeaders,
                    ));
                }
            } else if !super::secret::ask(state) {
                state.toast(
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
pub(crate) fn overlay_key(state: &mut State, key: &Input) -> Option<Vec<Effect>> {
    if state.deliveries.filter.is_some() {
        return Some(filter_key(state, key));
    }
    // Scrolled within what the view holds on this screen, so `k` after `G` moves at once.
    let action = key.action();
    let max = match action {
        Some(a) if crate::console::widgets::is_scroll(a) => {
            super::attempt::max_scroll(state, state.deliveries.attempt.as_ref()?)
        }
        _ => 0,
    };
    let v = state.deliveries.attempt.as_mut()?;
    match action {
        Some(Action::Back) => state.deliveries.attempt = None,
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

/// The tab's own keys on deliveries: copying a revealed secret, Esc clearing the server filters
/// of the notifications list, the attempt cursor of a notification's detail. `None` lets the
/// action go to the tab's usual handling.
pub(crate) fn tab_key(state: &mut State, key: &Input) -> Option<Vec<Effect>> {
    if let Some(effects) = super::secret::copy_key(state, key) {
        return Some(effects);
    }
    let action = key.action();
    let on_list = state.tab == super::LIST && state.current().detail.is_none();
    // Esc stops a scan of pages first; n / N find failed deliveries across pages.
    if on_list && action == Some(Action::Back) && super::scan::stop(state) {
        return Some(Vec::new());
    }
    // Esc stops a search by content (Ctrl-F), keeping its matches (on whichever list it fills).
    let on_searched = state
        .search
        .run
        .as_ref()
        .is_some_and(|r| r.tab == state.tab)
        && state.current().detail.is_none();
    if on_searched
        && action == Some(Action::Back)
        && crate::console::search::update::stop(&mut state.search, &mut state.core)
    {
        return Some(Vec::new());
    }
    // Then it clears the marks (they are the list's, on whichever list takes them), before any
    // filter.
    if action == Some(Action::Back)
        && let Some(effects) = crate::console::recover::update::clear_on_back(state)
    {
        return Some(effects);
    }
    // On callback-destinations' notifications: `n`/`N` through the server's status filter, and
    // `Esc` clears the marks first.
    if super::callback_seek::applies(state) {
        let seek = key.action_among(|a| matches!(a, Action::NextMatch | Action::PrevMatch));
        if let Some(a @ (Action::NextMatch | Action::PrevMatch)) = seek {
            return Some(super::callback_seek::seek(state, a == Action::NextMatch));
        }
        if action == Some(Action::Back)
            && let Some(effects) = crate::console::recover::update::clear_on_back(state)
        {
            return Some(effects);
        }
    }
    // `N` also follows a callback's notifications: on this list it is the previous failure.
    let seek = key.action_among(|a| matches!(a, Action::NextMatch | Action::PrevMatch));
    if on_list && matches!(seek, Some(Action::NextMatch | Action::PrevMatch)) {
        return Some(super::scan::seek(state, seek == Some(Action::NextMatch)));
    }
    // With a status filter on, the rows are the newest examined, not a page: `r` and `[` look
    // again from the top, `]` looks further.
    // After `n`/`N` joined pages, the rows are no single page either: `r` starts from the top.
    if on_list && action == Some(Action::Reload) && super::scan::merged(state) {
        return Some(super::local::from_top(state));
    }
    if on_list && super::local::on(state) {
        match action {
            Some(Action::Reload | Action::PrevPage) => return Some(super::local::from_top(state)),
            Some(Action::NextPage) => return Some(super::scan::further(state)),
            _ => {}
        }
    }
    // Esc on the notifications list, with nothing to go back to and no row filter to clear
    // first, clears the server filters (as F does).
    if action == Some(Action::Back)
        && state.tab == super::LIST
        && state.nav.is_empty()
        && state.current().detail.is_none()
        && !crate::console::power::update::filter_active(&state.power, &state.core)
        && state.current().list.filter != NotificationFilter::default()
    {
        return Some(clear_filters(state));
    }
    let n = open_notification(state)?;
    if state.deliveries.cursor_of != n.id {
        state.deliveries.cursor_of.clone_from(&n.id);
        state.deliveries.attempt_cursor = 0;
    }
    let count = n.attempts.len();
    let cur = &mut state.deliveries.attempt_cursor;
    match action {
        Some(Action::Down) => *cur = (*cur + 1).min(count.saturating_sub(1)),
        Some(Action::Up) => *cur = cur.saturating_sub(1),
        Some(Action::First) => *cur = 0,
        Some(Action::Last) => *cur = count.saturating_sub(1),
        Some(Action::Open) => return Some(open_attempt(state, n)),
        _ => return None,
    }
    keep_attempt_visible(state);
    Some(Vec::new())
}

/// Scrolls the notification detail so that the selected attempt's row is on screen.
fn keep_attempt_visible(state: &mut State) {
    let above = crate::console::views::notifications::LINES_ABOVE_ATTEMPTS;
    let screen = ratatui::layout::Rect::new(0, 0, state.size.0, state.size.1);
    let height = crate::console::layout::areas(screen, super::LIST, true)
        .detail
        .map_or(1, |r| usize::from(r.height.saturating_sub(2)).max(1));
    let row = above + state.deliveries.attempt_cursor;
    if let Some(d) = state.current_mut().detail.as_mut() {
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

fn open_attempt(state: &mut State, n: crate::api::model::Notification) -> Vec<Effect> {
    let position = state.deliveries.attempt_cursor;
    if sorted_attempts(&n).get(position).is_none() {
        state.toast(ToastKind::Info, "No attempt yet");
        return Vec::new();
    }
    let effects = lookup::fetch_if_needed(state, &n);
    state.deliveries.attempt = Some(AttemptView {
        notification: Box::new(n),
        position,
        revealed: false,
        scroll: 0,
    });
    effects
}

fn filter_key(state: &mut State, key: &Input) -> Vec<Effect> {
    let Some(d) = state.deliveries.filter.as_mut() else {
        return Vec::new();
    };
    match d.on_key(key) {
        Outcome::Editing => Vec::new(),
        Outcome::Cancel => {
            state.deliveries.filter = None;
            Vec::new()
        }
        Outcome::Apply => {
            let filter = d.to_filter();
            state.deliveries.filter = None;
            state.tab_state_mut(super::LIST).list.filter = filter;
            load_list(state, super::LIST, Anchor::First, 1, true)
        }
    }
}

/// Drops every server-side filter of the notifications list and reloads its first page.
fn clear_filters(state: &mut State) -> Vec<Effect> {
    let list = &mut state.tab_state_mut(super::LIST).list;
    if list.filter == NotificationFilter::default() {
        state.toast(ToastKind::Info, "No server filter to clear");
        return Vec::new();
    }
    list.filter = NotificationFilter::default();
    state.toast(ToastKind::Info, "Server filters cleared");
    load_list(state, super::LIST, Anchor::First, 1, true)
}

/// After a detail opened: a destination's health is fetched.
pub(crate) fn after_open(state: &mut State, tab: Tab) -> Vec<Effect> {
    let mut effects = match tab {
        super::SENDERS | super::RECEIVERS | super::LIST => super::names::want(state),
        _ => Vec::new(),
    };
    let id = match (tab, state.tab_state(tab).detail.as_ref()) {
        (super::RECEIVERS, Some(d)) => d.id.clone(),
        _ => return effects,
    };
    state.deliveries.health = Some(HealthPane {
        destination_id: id.clone(),
        ..HealthPane::default()
    });
    effects.extend(health_page(state, None));
    effects.extend(super::secret::check_active(state, &id));
    effects
}

fn health_page(state: &mut State, after: Option<String>) -> Vec<Effect> {
    let req_id = state.next_req_id();
    let Some(h) = state.deliveries.health.as_mut() else {
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
    state: &mut State,
    pane: Pane,
    req_id: u64,
    result: Result<ApiReply, Error>,
) -> Option<Vec<Effect>> {
    // The reply's address says who asked; its request id only says whether that one still waits.
    let c = &mut state.core.caches;
    let d = &mut state.deliveries;
    match pane {
        Pane::Names => {
            c.names_pending.take_if(|p| *p == req_id)?;
            // Without names the ids stay: nothing else to say.
            if let Ok(ApiReply::Known(k)) = result {
                super::names::learned(state, *k);
            }
            // The open notification's destination can be told now.
            Some(super::deleted::open_notification(state))
        }
        Pane::Glance => {
            c.glance_pending.take_if(|p| *p == req_id)?;
            if let Ok(ApiReply::Glance(found)) = result {
                c.glance.extend(found);
            }
            // Rows that arrived meanwhile get theirs now.
            Some(super::health::want_glance(state))
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
            super::lookup::settle_gone(state, whole);
            Some(super::deleted::open_notification(state))
        }
        Pane::Health => health_reply(state, req_id, result),
        _ => None,
    }
}

/// A page of the open destination's health sample.
fn health_reply(
    state: &mut State,
    req_id: u64,
    result: Result<ApiReply, Error>,
) -> Option<Vec<Effect>> {
    let d = &mut state.deliveries;
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
                return Some(health_page(state, last));
            }
        }
        Ok(_) => h.error = Some("unexpected reply".into()),
        Err(e) => h.error = Some(e.to_string()),
    }
    Some(Vec::new())
}

/// Before a list's reply is applied: the notifications' local status filter notes it, a scan
/// keeps the rows loaded so far.
pub(crate) fn before_list_reply(state: &mut State, req_id: u64) {
    super::local::before_reply(state, req_id);
    super::scan::before_reply(state, req_id);
}

/// After the shell applied a reply: the local status filter runs on a new page, and a scan
/// adds it to the rows kept and goes on.
pub(crate) fn after_reply(state: &mut State) -> Vec<Effect> {
    super::local::after_reply(state);
    super::callback_seek::after_reply(state);
    let mut effects = super::scan::after_reply(state);
    super::names::learn_rows(state);
    // The lists that name other things: learn every name in the background.
    if matches!(state.tab, super::RECEIVERS | super::LIST) {
        effects.extend(super::names::want(state));
    }
    // The destinations list's sparklines, loaded in the background.
    if state.tab == super::RECEIVERS {
        effects.extend(super::health::want_glance(state));
    }
    effects.extend(super::health::want_stats(state));
    effects.extend(super::deleted::want(state));
    effects
}

/// One animation step of this module (watch mode).
pub(crate) fn on_tick(state: &mut State) -> Vec<Effect> {
    watch::on_tick(state)
}
