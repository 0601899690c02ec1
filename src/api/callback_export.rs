//! `notifications export` on `callback-destinations` (issue 39): the selected notifications as one
//! NDJSON bundle in [`super::export`]'s format (`format` 1, `generation` `callback-destinations`):
//! the manifest, then every `callback` they are under (as the platform answers it, its
//! destinations' URLs without credentials), every `destination` that sent them (a fresh signing
//! secret, no credentials in its URL), every `event` they sent (`sev_…`, its request whole and
//! its headers through the redaction policy, once however many destinations it went to, with the
//! `callback_id` it came through) and each `notification` read whole, newest first, with the
//! `callback_id` it is under and the `destination_id` that sent it (its `event` names the event
//! line by id; its destination preview keeps the delivery service's ids). The selection is
//! recover's ([`super::callback_recover::selected`]), within the walk's budget.
use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::callback_gen as cg;
use super::callback_recover::{CallbackSelection, selected};
use super::export::{Bundle, FORMAT, fresh_secret, without_credentials};
use super::model::{CallbackDestination, CallbackNotification};
use super::{ApiRequest, Client, Error, ListQuery, replay};

/// One JSON document of the API; `None` for a 404 (gone since it was listed).
async fn get(client: &Client, req: &ApiRequest) -> Result<Option<Value>, Error> {
    match client.send(req).await {
        Ok(raw) => super::client::decode::<Value>(raw.status, &raw.body).map(Some),
        Err(Error::Api(e)) if e.status == 404 => Ok(None),
        Err(e) => Err(e),
    }
}

fn created(n: &Value) -> &str {
    n.get("created_at").and_then(Value::as_str).unwrap_or("")
}

/// `v[key]` (a URL) without credentials; left out when it is not a URL.
fn strip_url(v: &mut Value, key: &str) {
    if let Some(u) = v.get(key).and_then(Value::as_str) {
        v[key] = json!(without_credentials(u).unwrap_or_default());
    }
}

/// The destination (`cbd_…`) that sent `n`: the preview's id when it is one, else among the
/// callback's destinations then all, the one whose URL and name both match, then URL or name
/// (`cg::names_destination`): two destinations may share a receiver's URL.
fn sender_of(
    n: &CallbackNotification,
    of_callback: &[CallbackDestination],
    all: &[CallbackDestination],
) -> Option<String> {
    let p = n.destination.as_ref()?;
    if let Some(d) = all.iter().find(|d| d.id == p.id) {
        return Some(d.id.clone());
    }
    let both = |d: &&CallbackDestination| {
        p.webhook.as_ref().is_some_and(|w| w.url == d.url) && p.name.as_deref() == Some(&d.name)
    };
    let either = |d: &&CallbackDestination| cg::names_destination(n, d);
    of_callback
        .iter()
        .find(both)
        .or_else(|| all.iter().find(both))
        .or_else(|| of_callback.iter().find(either))
        .or_else(|| all.iter().find(either))
        .map(|d| d.id.clone())
}

/// Reads the selection, every notification whole, the callbacks, destinations and events they
/// involve, and makes the bundle. `progress` is told how many notifications were read whole.
///
/// # Errors
/// The API's (the walk's budget included).
pub async fn export(
    client: &Client,
    sel: &CallbackSelection,
    mut progress: impl FnMut(usize),
) -> Result<Bundle, Error> {
    let (mut listed, _) = selected(client, sel).await?;
    // Newest first across callbacks, as the other generations' bundles.
    listed.sort_by(|(_, a), (_, b)| {
        (created(b), b.get("id").and_then(Value::as_str))
            .cmp(&(created(a), a.get("id").and_then(Value::as_str)))
    });
    let mut notifications: Vec<(String, Value)> = Vec::with_capacity(listed.len());
    for (cb, n) in listed {
        let id = n.get("id").and_then(Value::as_str).unwrap_or_default();
        super::request::check_segment(id)?;
        // A list embeds no request; the notification's get does.
        let req = ApiRequest::get_callback_notification(&cb, id);
        if let Some(whole) = get(client, &req).await? {
            notifications.push((cb, whole));
        }
        progress(notifications.len());
    }
    let mut callbacks: BTreeMap<String, Value> = BTreeMap::new();
    for cb in notifications
        .iter()
        .map(|(cb, _)| cb.clone())
        .collect::<BTreeSet<_>>()
    {
        // One gone since is named by its notifications only.
        if let Some(v) = get(client, &ApiRequest::get_callback(&cb)).await? {
            callbacks.insert(cb, v);
        }
    }
    let all: Vec<CallbackDestination> =
        super::lookup::list_all_from(client, ListQuery::default(), |q| {
            ApiRequest::list_callback_destinations(q, &[])
        })
        .await?
        .into_iter()
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect();
    let mut events: BTreeMap<String, Value> = BTreeMap::new();
    let mut lines_of_notifications = Vec::with_capacity(notifications.len());
    let mut involved = BTreeSet::new();
    let mut attempts: u64 = 0;
    for (cb, mut n) in notifications {
        let typed: Option<CallbackNotification> = serde_json::from_value(n.clone()).ok();
        let of_callback: Vec<CallbackDestination> = callbacks
            .get(&cb)
            .and_then(|c| c.get("destinations").cloned())
            .and_then(|d| serde_json::from_value(d).ok())
            .unwrap_or_default();
        let dest = typed
            .as_ref()
            .and_then(|t| sender_of(t, &of_callback, &all));
        if let Some(d) = &dest {
            involved.insert(d.clone());
        }
        attempts += n.get("attempt_count").and_then(Value::as_u64).unwrap_or(0);
        if let Some(mut e) = n.get("event").filter(|e| e.is_object()).cloned() {
            let id = e.get("id").and_then(Value::as_str).unwrap_or_default();
            n["event"] = json!({ "id": id });
            if !events.contains_key(id) {
                let id = id.to_string();
                if let Some(r) = e.get_mut("request").filter(|r| r.is_object()) {
                    let pairs: Vec<(String, String)> = r["headers"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|h| {
                            let s = |k: &str| h[k].as_str().unwrap_or_default().to_string();
                            (s("key"), s("value"))
                        })
                        .collect();
                    r["headers"] = replay::masked_headers(&pairs)
                        .into_iter()
                        .map(|(key, value)| json!({"key": key, "value": value}))
                        .collect();
                }
                e["kind"] = json!("event");
                e["callback_id"] = json!(cb);
                events.insert(id, e);
            }
        }
        if let Some(w) = n
            .get_mut("destination")
            .and_then(|d| d.get_mut("webhook"))
            .filter(|w| w.is_object())
        {
            strip_url(w, "url");
        }
        n["kind"] = json!("notification");
        n["callback_id"] = json!(cb);
        n["destination_id"] = json!(dest);
        lines_of_notifications.push(n);
    }
    let mut destinations = Vec::new();
    for id in &involved {
        super::request::check_segment(id)?;
        if let Some(mut d) = get(client, &ApiRequest::get_callback_destination(id)).await? {
            d["signing_secret"] = json!(fresh_secret());
            strip_url(&mut d, "url");
            d["kind"] = json!("destination");
            destinations.push(d);
        }
    }
    let callbacks: Vec<Value> = callbacks
        .into_values()
        .map(|mut c| {
            for d in c["destinations"].as_array_mut().into_iter().flatten() {
                strip_url(d, "url");
            }
            c["kind"] = json!("callback");
            c
        })
        .collect();
    let manifest = json!({
        "kind": "manifest",
        "format": FORMAT,
        "source_host": replay::api_host(client.base_url()),
        "generation": "callback-destinations",
        "exported_at": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        // Newest first: the last is the oldest.
        "from": lines_of_notifications.last().map(created),
        "to": lines_of_notifications.first().map(created),
        "counts": {
            "callbacks": callbacks.len(),
            "destinations": destinations.len(),
            "events": events.len(),
            "notifications": lines_of_notifications.len(),
            "attempts": attempts,
        },
    });
    let count = lines_of_notifications.len();
    let mut lines = vec![manifest.clone()];
    lines.extend(callbacks);
    lines.extend(destinations);
    lines.extend(events.into_values());
    lines.extend(lines_of_notifications);
    Ok(Bundle {
        manifest,
        lines,
        notifications: count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dest(id: &str, name: &str, url: &str) -> CallbackDestination {
        serde_json::from_value(
            json!({"id": id, "status": "active", "name": name, "url": url,
            "created_at": "2026-11-01T00:00:00.000Z"}),
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_sender_is_told_by_id_then_url_and_name_together() {
        let n: CallbackNotification = serde_json::from_value(json!({"id": "sdi_1",
            "status": "delivered", "created_at": "2026-11-01T00:00:00.000Z",
            "destination": {"id": "sed_9", "name": "Staging",
                            "webhook": {"id": "sdw_1", "url": "http://rx/healthy"}}}))
        .unwrap_or_else(|e| panic!("{e}"));
        // Two destinations on one receiver: the name tells them apart.
        let all = [
            dest("cbd_a", "Ops", "http://rx/healthy"),
            dest("cbd_b", "Staging", "http://rx/healthy"),
        ];
        assert_eq!(sender_of(&n, &[], &all).as_deref(), Some("cbd_b"));
        assert_eq!(
            sender_of(&n, &all[..1], &all[..1]).as_deref(),
            Some("cbd_a")
        );
        assert_eq!(sender_of(&n, &[], &[]), None);
    }
}
