//! Deleted destinations, looked up by id: `GET` still answers for one, so wherever the console
//! names a destination it can say `Name (deleted)` rather than a bare id or "not known". The ids
//! named are the open destination's (however it was opened, `:goto cld_…` too) and the
//! notifications list's destination filter (from a destination's `N`, or typed ids), and the
//! destination an open notification is attributed to (`:goto cbn_…` too): a notification names
//! no destination, so the one it went to is found by its URL, callback and signature among the
//! active ones, and when none is left it was deleted ([`super::lookup::settle_gone`]).
use super::DeliveriesState;
use crate::console::msg::{ApiCmd, ApiReply, Effect, Pane};
use crate::console::record::Item;
use crate::console::state::Core;

/// Learns the open destination's name, and asks once per id for the name and the state of every
/// destination the console names but does not know.
pub(crate) fn want(room: &mut DeliveriesState, cx: &mut Core) -> Vec<Effect> {
    let mut effects = Vec::new();
    let open = cx
        .tab_state(super::RECEIVERS)
        .detail
        .as_ref()
        .and_then(|d| d.record.as_ref())
        .and_then(|r| match &r.item {
            Item::Destination(d) => Some((d.id.clone(), d.name.clone())),
            _ => None,
        });
    let mut ids: Vec<String> = cx
        .tab_state(super::LIST)
        .list
        .filter
        .destination_ids
        .clone();
    if let Some((id, name)) = open {
        cx.caches.names.insert(&id, &name);
        ids.push(id);
    }
    for id in ids {
        let d = &cx.caches;
        if d.named_asked.contains(&id) || d.active.contains(&id) || d.deleted.contains(&id) {
            continue;
        }
        cx.caches.named_asked.insert(id.clone());
        if cx.caches.names.name(&id).is_none() {
            let req_id = cx.next_req_id();
            cx.caches.named_pending.insert(req_id, id.clone());
            effects.push(Effect::Api {
                req_id,
                pane: Pane::Named,
                cmd: ApiCmd::Get {
                    tab: super::RECEIVERS,
                    id: id.clone(),
                },
            });
        }
        effects.extend(super::secret::check_active(cx, &id));
    }
    effects.extend(open_notification(room, cx));
    effects
}

/// The open notification's destination, once the names (every active destination) are known:
/// its activity asked once (it may have been deleted since they were read), or, when no active
/// destination can have sent it, the destinations of its callback listed afresh.
pub(crate) fn open_notification(room: &mut DeliveriesState, cx: &mut Core) -> Vec<Effect> {
    let d = &cx.caches;
    if !d.names_asked || d.names_pending.is_some() {
        return Vec::new();
    }
    let Some(n) = cx
        .tab_state(super::LIST)
        .detail
        .as_ref()
        .and_then(|d| d.record.as_ref())
        .and_then(|r| match &r.item {
            Item::Notification(n) => Some(n.clone()),
            _ => None,
        })
    else {
        return Vec::new();
    };
    if !room.lookup_asked.insert(n.id.clone()) {
        return Vec::new();
    }
    let mut effects = super::lookup::fetch_if_needed(room, cx, &n);
    for id in super::names::attributed(room, cx, &n) {
        effects.extend(super::secret::check_active(cx, &id));
    }
    effects
}

/// A destination looked up by id: its name is learned (its state comes from the activity check).
pub(crate) fn on_reply(
    cx: &mut Core,
    req_id: u64,
    result: Result<ApiReply, crate::api::Error>,
) -> Option<Vec<Effect>> {
    cx.caches.named_pending.remove(&req_id)?;
    if let Ok(ApiReply::Item(r)) = result
        && let Item::Destination(d) = &r.item
    {
        cx.caches.names.insert(&d.id, &d.name);
    }
    Some(Vec::new())
}
