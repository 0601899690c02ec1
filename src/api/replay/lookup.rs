//! Which destination sent a notification (a notification does not name it): one whose webhook
//! URL is the delivery's URL and that selects the notification's callback. Shared by the replay
//! and by the console's signature check, so both find the same destination.
use super::ReplayError;
use crate::api::model::{Destination, Notification, WebhookRequest};
use crate::api::signature::{header_of, verify};
use crate::api::{ApiRequest, Client, Error, list_all};

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

/// The active destinations receiving `callback_id` (every one without it), all pages.
///
/// # Errors
/// The API call's error.
pub async fn fetch_candidates(
    client: &Client,
    callback_id: Option<&str>,
) -> Result<Vec<Destination>, Error> {
    let callbacks: Vec<String> = callback_id.map(str::to_string).into_iter().collect();
    list_all(client, |q| ApiRequest::list_destinations(q, &callbacks)).await
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::signature::signature;

    fn dest(id: &str, url: &str, secret: &str, callbacks: Option<&[&str]>) -> Destination {
        let callbacks = match callbacks {
            None => serde_json::json!({"type": "all"}),
            Some(ids) => serde_json::json!({"type": "selected", "callback_ids": ids}),
        };
        serde_json::from_value(serde_json::json!({
            "id": id, "type": "webhook", "name": id, "description": "",
            "webhook_destination": {"url": url, "signing_secret": secret},
            "callbacks": callbacks, "created_at": "2026-01-01T00:00:00.000Z"
        }))
        .expect("destination")
    }

    fn recorded(sig: Option<String>) -> WebhookRequest {
        let mut headers = std::collections::BTreeMap::new();
        if let Some(s) = sig {
            headers.insert("Metorial-Signature".to_string(), s);
        }
        WebhookRequest {
            object: String::new(),
            id: "r".into(),
            url: "http://r/in".into(),
            request_method: "POST".into(),
            request_body: Some("{}".into()),
            request_headers: headers,
            response_headers: std::collections::BTreeMap::new(),
            response_status: 500,
            response_body: None,
            request_error: None,
            duration: 0,
            created_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn matches_by_url_and_callback_once_each() {
        let a = dest("cld_a", "http://r/in", "s_a", Some(&["clb_1"]));
        let b = dest("cld_b", "http://r/in", "s_b", None);
        let c = dest("cld_c", "http://other/in", "s_c", None);
        let d = dest("cld_d", "http://r/in", "s_d", Some(&["clb_2"]));
        let all = [a.clone(), b, c, d, a];
        let ids = |v: Vec<&Destination>| v.into_iter().map(|d| d.id.clone()).collect::<Vec<_>>();
        assert_eq!(
            ids(matching(&all, Some("http://r/in"), Some("clb_1"))),
            ["cld_a", "cld_b"]
        );
        assert_eq!(
            ids(matching(&all, Some("http://r/in"), None)),
            ["cld_a", "cld_b", "cld_d"]
        );
        assert!(matching(&all, None, None).is_empty());
    }

    #[test]
    fn the_recorded_signature_picks_among_several() {
        let a = dest("cld_a", "http://r/in", "s_a", None);
        let b = dest("cld_b", "http://r/in", "s_b", None);
        let both = [&a, &b];
        let by_b = recorded(Some(signature("s_b", "h", 1, "{}")));
        assert_eq!(
            choose_destination(&both, &by_b).ok().map(|d| &d.id),
            Some(&b.id)
        );
        let unsigned = recorded(None);
        assert!(matches!(
            choose_destination(&both, &unsigned),
            Err(ReplayError::Ambiguous(2))
        ));
        assert_eq!(
            choose_destination(&[&a], &unsigned).ok().map(|d| &d.id),
            Some(&a.id)
        );
        assert!(matches!(
            choose_destination(&[], &unsigned),
            Err(ReplayError::NoDestination)
        ));
    }
}
