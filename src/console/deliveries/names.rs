//! Names where ids were: callbacks and destinations looked up once per profile in the
//! background ([`crate::api::NameCache`]), the destinations a notification went to, and whether
//! a destination was deleted. An id without a known name shows as the id.
use super::DeliveriesState;
use crate::api::model::{Destination, Notification};
use crate::api::signature::{header_of, verify};
use crate::console::msg::{ApiCmd, Effect, Known, Pane};
use crate::console::record::Item;
use crate::console::state::Core;

/// Asks for every callback and destination once (per profile: the state is new after a switch).
pub(crate) fn want(cx: &mut Core) -> Vec<Effect> {
    if cx.caches.names_asked {
        return Vec::new();
    }
    let req_id = cx.next_req_id();
    let d = &mut cx.caches;
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
pub(crate) fn learned(d: &mut DeliveriesState, cx: &mut Core, known: Known) {
    let c = &mut cx.caches;
    c.names.learn_callbacks(&known.callbacks);
    c.names.learn_destinations(&known.destinations);
    c.callbacks = known
        .callbacks
        .iter()
        .map(|c| (c.id.clone(), c.name.clone().unwrap_or_default()))
        .collect();
    for dest in known.destinations {
        c.active.insert(dest.id.clone());
        d.destinations.insert(dest.id.clone(), dest);
    }
    if let Some(f) = d.filter.as_mut() {
        f.offer(&c.callbacks, &d.destinations);
    }
}

/// Learns names from a page of rows that arrived (callbacks and destinations name themselves).
pub(crate) fn learn_rows(cx: &mut Core) {
    for tab in [super::SENDERS, super::RECEIVERS] {
        let rows = &cx.tabs[tab.index()].list.rows;
        for r in rows {
            match &r.item {
                Item::Callback(c) => {
                    if let Some(n) = &c.name {
                        cx.caches.names.insert(&c.id, n);
                    }
                }
                Item::Destination(dest) => {
                    cx.caches.names.insert(&dest.id, &dest.name);
                }
                _ => {}
            }
        }
    }
}

/// The label of an id: its name, else the id; `(deleted)` after a deleted destination.
pub(crate) fn label(cx: &Core, id: &str) -> String {
    let name = cx.caches.names.label(id);
    if cx.caches.deleted.contains(id) {
        format!("{name} (deleted)")
    } else {
        name.to_string()
    }
}

/// Which destination a notification went to, as far as the console can tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Attribution {
    /// This one (its label): the list's only destination filter, the only destination with the
    /// URL, or the one whose signing secret verifies the delivery's signature.
    Named(String),
    /// One of these (labels): they share the URL and no signature tells them apart.
    Ambiguous(Vec<String>),
    /// Deleted: no active destination can have sent it (its name is not known: a notification
    /// names no destination, and lists leave deleted ones out).
    Deleted,
    /// None known.
    Unknown,
}

thread_local! {
    /// The destinations whose secret verifies a notification's signature, by notification id,
    /// attempt count and the candidates asked about: an HMAC is computed once per row, not on
    /// every frame that draws it.
    static VERIFIED: std::cell::RefCell<std::collections::HashMap<(String, usize, String), Vec<String>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// Rows remembered by [`VERIFIED`] before it starts again (a bound on memory).
const VERIFIED_ROWS: usize = 20_000;

/// The candidates (ids) whose signing secret verifies the latest signed attempt.
fn verified_by(n: &Notification, candidates: &[&Destination]) -> Vec<String> {
    let ids: Vec<&str> = candidates.iter().map(|d| d.id.as_str()).collect();
    let key = (n.id.clone(), n.attempts.len(), ids.join(","));
    if let Some(hit) = VERIFIED.with(|v| v.borrow().get(&key).cloned()) {
        return hit;
    }
    let req = super::sorted_attempts(n)
        .into_iter()
        .rev()
        .filter_map(|a| a.webhook_request.as_ref())
        .find(|r| header_of(&r.request_headers).is_some());
    let found: Vec<String> = req
        .map(|r| {
            candidates
                .iter()
                .filter(|d| {
                    d.webhook_destination.as_ref().is_some_and(|w| {
                        verify(
                            &w.signing_secret,
                            header_of(&r.request_headers),
                            r.request_body.as_deref(),
                        )
                        .is_ok()
                    })
                })
                .map(|d| d.id.clone())
                .collect()
        })
        .unwrap_or_default();
    VERIFIED.with(|v| {
        let mut v = v.borrow_mut();
        if v.len() >= VERIFIED_ROWS {
            v.clear();
        }
        v.insert(key, found.clone());
    });
    found
}

/// The destination a notification went to: the list's destination filter when it has one, else
/// the known destinations with its URL that select its callback, told apart by which one's
/// signing secret verifies the delivery.
pub(crate) fn attribution(d: &DeliveriesState, cx: &Core, n: &Notification) -> Attribution {
    match attributed_to(d, cx, n) {
        To::One(id) => Attribution::Named(label(cx, &id)),
        To::Several(ids) => Attribution::Ambiguous(ids.iter().map(|id| label(cx, id)).collect()),
        To::Gone => Attribution::Deleted,
        To::Unknown => Attribution::Unknown,
    }
}

/// Which destination ids a notification is attributed to ([`attribution`] before labels).
enum To {
    One(String),
    Several(Vec<String>),
    Gone,
    Unknown,
}

fn attributed_to(d: &DeliveriesState, cx: &Core, n: &Notification) -> To {
    let filtered = &cx.tab_state(super::LIST).list.filter.destination_ids;
    if filtered.len() == 1 {
        return filtered
            .first()
            .map_or(To::Unknown, |id| To::One(id.clone()));
    }
    let candidates = super::lookup::candidates(d, cx, n);
    match candidates.as_slice() {
        [] if d.gone.contains(&n.id) => To::Gone,
        [] => To::Unknown,
        [one] => To::One(one.id.clone()),
        many => match verified_by(n, many).as_slice() {
            [one] => To::One(one.clone()),
            _ => To::Several(many.iter().map(|d| d.id.clone()).collect()),
        },
    }
}

/// The ids of the destinations a notification is attributed to (one, or the candidates).
pub(crate) fn attributed(d: &DeliveriesState, cx: &Core, n: &Notification) -> Vec<String> {
    match attributed_to(d, cx, n) {
        To::One(id) => vec![id],
        To::Several(ids) => ids,
        To::Gone | To::Unknown => Vec::new(),
    }
}

/// The destinations a notification went to, for its list row: one name, or `A +1` when the
/// signature cannot tell which of several with its URL (the detail says so).
pub(crate) fn destinations_of(d: &DeliveriesState, cx: &Core, n: &Notification) -> Vec<String> {
    match attribution(d, cx, n) {
        Attribution::Named(name) => vec![name],
        Attribution::Ambiguous(names) => names
            .first()
            .map(|first| vec![format!("{first} +{}", names.len() - 1)])
            .unwrap_or_default(),
        Attribution::Deleted => vec![DELETED.into()],
        Attribution::Unknown => Vec::new(),
    }
}

/// How a notification's destination reads when it was deleted and its name is not known.
pub(crate) const DELETED: &str = "(deleted)";

/// The notification detail's destination line: the name, or the candidates with why it is not
/// one name.
pub(crate) fn destination_line(d: &DeliveriesState, cx: &Core, n: &Notification) -> Option<String> {
    match attribution(d, cx, n) {
        Attribution::Named(name) => Some(name),
        Attribution::Ambiguous(names) => Some(format!(
            "{} (the same URL; no signature tells which)",
            names.join(" or ")
        )),
        Attribution::Deleted => Some(format!(
            "{DELETED} — no active destination has its URL and callback; its name is not known \
             (a notification names no destination and lists leave deleted ones out)"
        )),
        Attribution::Unknown => None,
    }
}
