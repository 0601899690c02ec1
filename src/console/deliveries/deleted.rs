//! Deleted destinations, looked up by id: `GET` still answers for one, so wherever the console
//! names a destination it can say `Name (deleted)` rather than a bare id or "not known". The ids
//! named are the open destination's (however it was opened, `:goto cld_…` too) and the
//! notifications list's destination filter (from a destination's `N`, or typed ids).
use crate::console::msg::{ApiCmd, ApiReply, Effect, Pane};
use crate::console::record::Item;
use crate::console::state::State;
use crate::console::tab::Tab;

/// Learns the open destination's name, and asks once per id for the name and the state of every
/// destination the console names but does not know.
pub(crate) fn want(state: &mut State) -> Vec<Effect> {
    let mut effects = Vec::new();
    let open = state
        .tab_state(Tab::Destinations)
        .detail
        .as_ref()
        .and_then(|d| d.record.as_ref())
        .and_then(|r| match &r.item {
            Item::Destination(d) => Some((d.id.clone(), d.name.clone())),
            _ => None,
        });
    let mut ids: Vec<String> = state
        .tab_state(Tab::Notifications)
        .list
        .filter
        .destination_ids
        .clone();
    if let Some((id, name)) = open {
        state.deliveries.names.insert(&id, &name);
        ids.push(id);
    }
    for id in ids {
        let d = &state.deliveries;
        if d.named_asked.contains(&id) || d.active.contains(&id) || d.deleted.contains(&id) {
            continue;
        }
        state.deliveries.named_asked.insert(id.clone());
        if state.deliveries.names.name(&id).is_none() {
            let req_id = state.next_req_id();
            state.deliveries.named_pending.insert(req_id, id.clone());
            effects.push(Effect::Api {
                req_id,
                pane: Pane::Named,
                cmd: ApiCmd::Get {
                    tab: Tab::Destinations,
                    id: id.clone(),
                },
            });
        }
        effects.extend(super::secret::check_active(state, &id));
    }
    effects
}

/// A destination looked up by id: its name is learned (its state comes from the activity check).
pub(crate) fn on_reply(
    state: &mut State,
    req_id: u64,
    result: Result<ApiReply, crate::api::Error>,
) -> Option<Vec<Effect>> {
    state.deliveries.named_pending.remove(&req_id)?;
    if let Ok(ApiReply::Item(r)) = result
        && let Item::Destination(d) = &r.item
    {
        state.deliveries.names.insert(&d.id, &d.name);
    }
    Some(Vec::new())
}
