//! Which destination sent a notification (a notification does not name it): one whose webhook
//! URL is the delivery's URL and that selects the notification's callback. Shared by the replay
//! and by the console's signature check, so both find the same destination.
use super::ReplayError;
use crate::api::model::{Destination, Notification, WebhookRequest};
use crate::api::signature::{header_of, verify};
use crate::api::{Client, Error, ListQuery, Order};

/// Pages of destinations read at most while looking (100 each).
const MAX_PAGES: usize = 20;

/// Whether destination `d` delivers to `url` and receives callback `callback_id` (any callback
/// when the delivery's body names none).
#[must_use]
pub fn selects(d: &Destination, url: Option<&str>, callback_id: Option<&str>) -> bool {
    let same_url = d
        .webhook_destination
        .as_ref()
        .is_some_and(|w| Some(w.url.as_str()) == url);
    same_url && callback_id.is_none_or(|c| d.callbacks.includes(c))
}

/// The destinations among `all` that could have sent a delivery to `url` for `callback_id`,
/// each once (by id), in the order given.
pub fn matching<'a>(
    all: impl IntoIterator<Item = &'a Destination>,
    url: Option<&str>,
    callback_id: Option<&str>,
) -> Vec<&'a Destination> {
    let mut out: Vec<&Destination> = Vec::new();
    for d in all {
        if selects(d, url, callback_id) && !out.iter().any(|o| o.id == d.id) {
            out.push(d);
        }
    }
    out
}

/// Picks the destination whose secret signs a replay of `recorded` among `candidates`: the one
/// whose secret verifies the recorded signature, else the only candidate.
///
/// # Errors
/// [`ReplayError::NoDestination`] with none, [`ReplayError::Ambiguous`] with several that the
/// recorded signature does not tell apart.
pub fn choose_destination<'a>(
    candidates: &[&'a Destination],
    recorded: &WebhookRequest,
) -> Result<&'a Destination, ReplayError> {
    let header = header_of(&recorded.request_headers);
    let verified = candidates.iter().find(|d| {
        d.webhook_destination.as_ref().is_some_and(|w| {
            verify(&w.signing_secret, header, recorded.request_body.as_deref()).is_ok()
        })
    });
    match (verified, candidates) {
        (Some(d), _) => Ok(d),
        (None, []) => Err(ReplayError::NoDestination),
        (None, [only]) => Ok(only),
        (None, many) => Err(ReplayError::Ambiguous(many.len())),
    }
}

/// The active destinations receiving `callback_id` (every one without it), all pages up to a
/// bound.
///
/// # Errors
/// The API call's error.
pub async fn fetch_candidates(
    client: &Client,
    callback_id: Option<&str>,
) -> Result<Vec<Destination>, Error> {
    let callbacks: Vec<String> = callback_id.map(str::to_string).into_iter().collect();
    let mut q = ListQuery {
        limit: Some(100),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let mut out: Vec<Destination> = Vec::new();
    for _ in 0..MAX_PAGES {
        let page = client.list_destinations(&q, &callbacks).await?;
        let last = page.items.last().map(|d| d.id.clone());
        out.extend(page.items);
        match last {
            // A server repeating a page must not make this loop.
            Some(id) if page.pagination.has_more_after && q.after.as_deref() != Some(&id) => {
                q.after = Some(id);
            }
            _ => break,
        }
    }
    Ok(out)
}

/// Finds, through the API, the destination whose secret signs a replay of attempt `recorded`
/// of `n`.
///
/// # Errors
/// The lookup failed, or no single destination matches (see [`choose_destination`]).
pub async fn destination_for(
    client: &Client,
    n: &Notification,
    recorded: &WebhookRequest,
) -> Result<Destination, ReplayError> {
    let callback = recorded
        .body_field("callbackId")
        .or_else(|| n.body_field("callbackId"));
    let all = fetch_candidates(client, callback.as_deref()).await?;
    let found = matching(&all, Some(recorded.url.as_str()), callback.as_deref());
    choose_destination(&found, recorded).cloned()
}
