//! `notifications export` (issue 39, pulsar first): an incident as one NDJSON bundle, a line a
//! record, each `{"kind": …, …}`: first the `manifest` (format version, the source's host,
//! generation, time range, counts), then every `callback` and `destination` the deliveries involve,
//! then each `notification` with its attempts, newest first. Destinations' signing secrets are
//! replaced by fresh ones, credentials are removed from every URL, and hook URLs (their path is a
//! secret key) are left out, so a bundle can be handed to whoever repairs the receiver.
use std::collections::BTreeSet;

use rand::Rng;
use serde_json::{Value, json};

use super::model::{Callback, Destination, Notification};
use super::selection::Selection;
use super::{ApiRequest, Client, Error, list_all, replay};

/// The bundle's format version, in the manifest.
pub const FORMAT: u32 = 1;

/// What an export read.
#[derive(Debug, Clone, Default)]
pub struct Bundle {
    /// The manifest line.
    pub manifest: Value,
    /// Every line, the manifest first.
    pub lines: Vec<Value>,
    /// Notifications exported.
    pub notifications: usize,
}

/// A fresh signing secret, in the platform's shape.
#[must_use]
pub fn fresh_secret() -> String {
    const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    let tail: String = (0..32)
        .map(|_| char::from(ALNUM[rng.random_range(0..ALNUM.len())]))
        .collect();
    format!("clb_sec_{tail}")
}

/// `url` without a user name or password; `None` when it is not a URL (then left out).
#[must_use]
pub fn without_credentials(url: &str) -> Option<String> {
    let mut u = url::Url::parse(url).ok()?;
    // Neither fails on an http(s) URL; on another scheme the URL is kept only when it had none.
    if u.set_username("").is_err() || u.set_password(None).is_err() {
        return None;
    }
    Some(u.to_string())
}

/// A destination as exported: a fresh secret, no credentials in its URL.
fn destination_line(d: &Destination) -> Value {
    let mut d = d.clone();
    if let Some(w) = d.webhook_destination.as_mut() {
        w.signing_secret = fresh_secret();
        w.url = without_credentials(&w.url).unwrap_or_default();
    }
    let mut v = serde_json::to_value(&d).unwrap_or(Value::Null);
    v["kind"] = json!("destination");
    v
}

/// A callback as exported: no hook URL (its key admits events).
fn callback_line(c: &Callback) -> Value {
    let mut c = c.clone();
    c.url = None;
    let mut v = serde_json::to_value(&c).unwrap_or(Value::Null);
    v["kind"] = json!("callback");
    v
}

/// A notification as exported: credentials out of every URL, recorded request headers through
/// the redaction policy, and the destination that sent it (a notification does not name it;
/// `serve --load` files it under that destination).
fn notification_line(n: &Notification, destinations: &[&Destination]) -> Value {
    let destination = replay::recorded_request(n, None).ok().and_then(|(_, r)| {
        let cb = r.body_field("callbackId");
        replay::matching(
            destinations.iter().copied(),
            Some(r.url.as_str()),
            cb.as_deref(),
        )
        .first()
        .map(|d| d.id.clone())
    });
    let mut n = n.clone();
    n.url = n.url.as_deref().and_then(without_credentials);
    for a in &mut n.attempts {
        if let Some(r) = a.webhook_request.as_mut() {
            r.url = without_credentials(&r.url).unwrap_or_default();
            let masked = replay::masked_headers(
                &r.request_headers
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect::<Vec<_>>(),
            );
            r.request_headers = masked.into_iter().collect();
        }
    }
    let mut v = serde_json::to_value(&n).unwrap_or(Value::Null);
    v["kind"] = json!("notification");
    v["destination_id"] = json!(destination);
    v
}

/// Reads the selection (within the client's walk budget), the callbacks and destinations its
/// deliveries involve, and makes the bundle. `progress` is told how many notifications were
/// read so far.
///
/// # Errors
/// The API's error (the budget's included).
pub async fn export(
    client: &Client,
    selection: &Selection,
    mut progress: impl FnMut(usize),
) -> Result<Bundle, Error> {
    let mut walk = selection.walk(client);
    let mut notifications: Vec<Notification> = Vec::new();
    while let Some(batch) = walk.next_page().await? {
        for n in batch {
            // A page carries long bodies cut; the bundle holds what was sent.
            notifications.push(replay::whole(client, n).await?);
        }
        progress(notifications.len());
    }
    let mut callback_ids = BTreeSet::new();
    for n in &notifications {
        if let Some(c) = n.body_field("callbackId") {
            callback_ids.insert(c);
        }
    }
    let mut callbacks = Vec::new();
    for id in &callback_ids {
        match client.get_callback(id).await {
            Ok(c) => callbacks.push(c),
            // A callback gone since is named by the deliveries only.
            Err(Error::Api(e)) if e.status == 404 => {}
            Err(e) => return Err(e),
        }
    }
    let all: Vec<Destination> = list_all(client, |q| ApiRequest::list_destinations(q, &[])).await?;
    let involved: Vec<&Destination> = all
        .iter()
        .filter(|d| {
            notifications.iter().any(|n| {
                n.attempts.iter().any(|a| {
                    a.webhook_request.as_ref().is_some_and(|r| {
                        let cb = r.body_field("callbackId");
                        replay::selects(d, Some(r.url.as_str()), cb.as_deref())
                    })
                })
            })
        })
        .collect();
    let created = notifications.iter().map(|n| n.created_at);
    let (from, to) = (created.clone().min(), created.max());
    let manifest = json!({
        "kind": "manifest",
        "format": FORMAT,
        "source_host": replay::api_host(client.base_url()),
        "generation": "pulsar",
        "exported_at": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        "from": from.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)),
        "to": to.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)),
        "counts": {
            "callbacks": callbacks.len(),
            "destinations": involved.len(),
            "notifications": notifications.len(),
            "attempts": notifications.iter().map(|n| n.attempts.len()).sum::<usize>(),
        },
    });
    let mut lines = vec![manifest.clone()];
    lines.extend(callbacks.iter().map(callback_line));
    lines.extend(involved.iter().map(|d| destination_line(d)));
    lines.extend(
        notifications
            .iter()
            .map(|n| notification_line(n, &involved)),
    );
    Ok(Bundle {
        manifest,
        lines,
        notifications: notifications.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_leave_urls_and_secrets_are_fresh() {
        assert_eq!(
            without_credentials("https://u:p@hooks.example/in?x=1").as_deref(),
            Some("https://hooks.example/in?x=1")
        );
        assert_eq!(without_credentials("not a url"), None);
        let (a, b) = (fresh_secret(), fresh_secret());
        assert_ne!(a, b);
        assert!(a.starts_with("clb_sec_") && a.len() == 40);
    }
}
