//! Names where ids were: callbacks and destinations looked up once per profile in the
//! background ([`crate::api::NameCache`]), the destinations a notification went to, and whether
//! a destination was deleted. An id without a known name shows as the id.
use crate::api::model::Notification;
use crate::console::msg::{ApiCmd, Effect, Known, Pane};
use crate::console::record::Item;
use crate::console::state::State;

/// Asks for every callback and destination once (per profile: the state is new after a switch).
pub(crate) fn want(state: &mut State) -> Vec<Effect> {
    if state.deliveries.names_asked {
        return Vec::new();
    }
    let req_id = state.next_req_id();
    let d = &mut state.deliveries;
    d.names_asked = true;
    d.names_pending = Some(req_id);
    vec![Effect::Api {
        req_id,
        pane: Pane::Names,
        cmd: ApiCmd::Known,
    }]
}

/// Learns what the lookup found: names, the callbacks for the picker, the destinations (for
/// signature checks and a notification's destination), all of them active.
pub(crate) fn learned(state: &mut State, known: Known) {
    let d = &mut state.deliveries;
    d.names.learn_callbacks(&known.callbacks);
    d.names.learn_destinations(&known.destinations);
    d.callbacks = known
        .callbacks
        .iter()
        .map(|c| (c.id.clone(), c.name.clone().unwrap_or_default()))
        .collect();
    for dest in known.destinations {
        d.active.insert(dest.id.clone());
        d.destinations.insert(dest.id.clone(), dest);
    }
    if let Some(f) = d.filter.as_mut() {
        f.offer(&d.callbacks, &d.destinations);
    }
}

/// Learns names from a page of rows that arrived (callbacks and destinations name themselves).
pub(crate) fn learn_rows(state: &mut State) {
    for tab in [
        crate::console::tab::Tab::Callbacks,
        crate::console::tab::Tab::Destinations,
    ] {
        let rows = &state.tabs[tab.index()].list.rows;
        for r in rows {
            match &r.item {
                Item::Callback(c) => {
                    if let Some(n) = &c.name {
                        state.deliveries.names.insert(&c.id, n);
                    }
                }
                Item::Destination(dest) => {
                    state.deliveries.names.insert(&dest.id, &dest.name);
                }
                _ => {}
            }
        }
    }
}

/// The label of an id: its name, else the id; `(deleted)` after a deleted destination.
pub(crate) fn label(state: &State, id: &str) -> String {
    let name = state.deliveries.names.label(id);
    if state.deliveries.deleted.contains(id) {
        format!("{name} (deleted)")
    } else {
        name.to_string()
    }
}

/// The destinations a notification went to, by name: the list's destination filter when it
/// has one, else the known destinations with its URL that select its callback.
pub(crate) fn destinations_of(state: &State, n: &Notification) -> Vec<String> {
    let filtered = &state
        .tab_state(crate::console::tab::Tab::Notifications)
        .list
        .filter
        .destination_ids;
    if filtered.len() == 1 {
        return filtered.iter().map(|id| label(state, id)).collect();
    }
    super::lookup::candidates(state, n)
        .iter()
        .map(|d| label(state, &d.id))
        .collect()
}
