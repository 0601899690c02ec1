//! Finding the destination of a notification (a notification does not name it) to check its
//! signature: destinations the console already loaded, else the ones that receive the
//! notification's callback, fetched once. A destination matches when its webhook URL is the
//! notification's URL and it selects the notification's callback; the signature is checked
//! against each match, so a shared URL cannot give a wrong answer.
use crate::api::model::{Destination, Notification};
use crate::api::{ListQuery, NotificationFilter, Order};
use crate::console::msg::{ApiCmd, Effect, Pane};
use crate::console::record::Item;
use crate::console::state::State;

use crate::api::signature::{SigError, header_of, verify};

/// The outcome of a signature check, ready to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SigStatus {
    /// Verified with this destination's secret (its name).
    Verified(String),
    /// Checked and failed.
    Failed(SigError),
    /// Cannot check yet, and why.
    Unknown(String),
}

/// Every destination the console holds.
fn known(state: &State) -> Vec<&Destination> {
    let mut out: Vec<&Destination> = state.deliveries.destinations.values().collect();
    let ts = state.tab_state(super::RECEIVERS);
    let saved = state
        .nav
        .iter()
        .filter(|f| f.replaced == super::RECEIVERS)
        .map(|f| &f.saved);
    for t in std::iter::once(ts).chain(saved) {
        let detail = t.detail.as_ref().and_then(|d| d.record.as_ref());
        for r in t.list.rows.iter().chain(detail) {
            if let Item::Destination(d) = &r.item {
                out.push(d);
            }
        }
    }
    out
}

/// Destinations that could have sent this notification.
pub(crate) fn candidates<'a>(state: &'a State, n: &Notification) -> Vec<&'a Destination> {
    let callback = n.body_field("callbackId");
    let mut out: Vec<&Destination> = Vec::new();
    for d in known(state) {
        let same_url = d
            .webhook_destination
            .as_ref()
            .is_some_and(|w| Some(&w.url) == n.url.as_ref());
        let selects = callback.as_deref().is_none_or(|c| d.callbacks.includes(c));
        if same_url && selects && !out.iter().any(|o| o.id == d.id) {
            out.push(d);
        }
    }
    out
}

/// The signature check of one attempt of a notification.
pub(crate) fn check(state: &State, n: &Notification, position: usize) -> SigStatus {
    let Some(req) = super::sorted_attempts(n)
        .get(position)
        .and_then(|a| a.webhook_request.as_ref())
    else {
        return SigStatus::Unknown("no request was sent".into());
    };
    let header = header_of(&req.request_headers);
    let found = candidates(state, n);
    if found.is_empty() {
        return SigStatus::Unknown(if state.deliveries.lookup_pending.is_some() {
            "looking up the destination…".into()
        } else if state.deliveries.gone.contains(&n.id) {
            "its destination was deleted: its signing secret is not known".into()
        } else {
            "destination not loaded: its signing secret is unknown".into()
        });
    }
    let mut last = SigError::Mismatch;
    for d in found {
        let Some(w) = &d.webhook_destination else {
            continue;
        };
        match verify(&w.signing_secret, header, req.request_body.as_deref()) {
            Ok(()) => return SigStatus::Verified(d.name.clone()),
            Err(e) => last = e,
        }
    }
    SigStatus::Failed(last)
}

/// Asks for the destinations of the notification's callback when none known matches.
pub(crate) fn fetch_if_needed(state: &mut State, n: &Notification) -> Vec<Effect> {
    if !candidates(state, n).is_empty() || state.deliveries.lookup_pending.is_some() {
        return Vec::new();
    }
    let req_id = state.next_req_id();
    state.deliveries.lookup_pending = Some(req_id);
    state.deliveries.lookup_for = Some(n.id.clone());
    let filter = NotificationFilter {
        callback_ids: n.body_field("callbackId").into_iter().collect(),
        ..NotificationFilter::default()
    };
    let query = ListQuery {
        limit: Some(100),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    vec![Effect::Api {
        req_id,
        pane: Pane::Lookup,
        cmd: ApiCmd::List {
            tab: super::RECEIVERS,
            query,
            filter,
        },
    }]
}

/// The lookup's page arrived: when it is every active destination of the notification's callback
/// (one page, nothing after it) and still none can have sent it, the destination it went to is
/// gone. Sound because a destination's URL and callbacks never change (`PATCH` takes a name and a
/// description only) and the list was read after the notification was seen.
pub(crate) fn settle_gone(state: &mut State, whole: bool) {
    let Some(id) = state.deliveries.lookup_for.take() else {
        return;
    };
    // The notification as loaded: the open detail's, a row of the list, or the open attempt's.
    let ts = state.tab_state(super::LIST);
    let detail = ts.detail.as_ref().and_then(|d| d.record.as_ref());
    let attempt = state.deliveries.attempt.as_ref().map(|a| &*a.notification);
    let n = detail
        .into_iter()
        .chain(ts.list.rows.iter())
        .find_map(|r| match &r.item {
            Item::Notification(n) if n.id == id => Some(&**n),
            _ => None,
        })
        .or(attempt.filter(|n| n.id == id));
    let gone = n.is_some_and(|n| whole && n.url.is_some() && candidates(state, n).is_empty());
    if gone {
        state.deliveries.gone.insert(id);
    }
}
