//! Finding the destination of a notification (a notification does not name it) to check its
//! signature: destinations the console already loaded, else the ones that receive the
//! notification's callback, fetched once. A destination matches when its webhook URL is the
//! notification's URL and it selects the notification's callback; the signature is checked
//! against each match, so a shared URL cannot give a wrong answer.
use super::DeliveriesState;
use crate::api::model::{Destination, Notification};
use crate::api::{ListQuery, NotificationFilter, Order};
use crate::console::msg::{ApiCmd, Effect, Pane};
use crate::console::record::Item;
use crate::console::state::Core;

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
fn known<'a>(d: &'a DeliveriesState, cx: &'a Core) -> Vec<&'a Destination> {
    let mut out: Vec<&Destination> = d.destinations.values().collect();
    let ts = cx.tab_state(super::RECEIVERS);
    let saved = cx
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
pub(crate) fn candidates<'a>(
    room: &'a DeliveriesState,
    cx: &'a Core,
    n: &Notification,
) -> Vec<&'a Destination> {
    let callback = n.body_field("callbackId");
    let mut out: Vec<&Destination> = Vec::new();
    for d in known(room, cx) {
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
pub(crate) fn check(
    room: &DeliveriesState,
    cx: &Core,
    n: &Notification,
    position: usize,
) -> SigStatus {
    let Some(req) = super::sorted_attempts(n)
        .get(position)
        .and_then(|a| a.webhook_request.as_ref())
    else {
        return SigStatus::Unknown("no request was sent".into());
    };
    let header = header_of(&req.request_headers);
    let found = candidates(room, cx, n);
    if found.is_empty() {
        return SigStatus::Unknown(if room.lookup_pending.is_some() {
            "looking up the destination…".into()
        } else if room.gone.contains(&n.id) {
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
pub(crate) fn fetch_if_needed(
    d: &mut DeliveriesState,
    cx: &mut Core,
    n: &Notification,
) -> Vec<Effect> {
    if !candidates(d, cx, n).is_empty() || d.lookup_pending.is_some() {
        return Vec::new();
    }
    let req_id = cx.next_req_id();
    d.lookup_pending = Some(req_id);
    d.lookup_for = Some(n.id.clone());
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
pub(crate) fn settle_gone(room: &mut DeliveriesState, cx: &Core, whole: bool) {
    let Some(id) = room.lookup_for.take() else {
        return;
    };
    // The notification as loaded: the open detail's, a row of the list, or the open attempt's.
    let ts = cx.tab_state(super::LIST);
    let detail = ts.detail.as_ref().and_then(|d| d.record.as_ref());
    let attempt = room.attempt.as_ref().map(|a| &*a.notification);
    let n = detail
        .into_iter()
        .chain(ts.list.rows.iter())
        .find_map(|r| match &r.item {
            Item::Notification(n) if n.id == id => Some(&**n),
            _ => None,
        })
        .or(attempt.filter(|n| n.id == id));
    let gone = n.is_some_and(|n| whole && n.url.is_some() && candidates(room, cx, n).is_empty());
    if gone {
        room.gone.insert(id);
    }
}
