//! `notifications keep`, `export` and `search` on the newest generation's deliveries (issue 39 on
//! `event-destinations`): a delivery's attempt kept as a sample, the selected deliveries with
//! their attempts, the event destinations and the events involved as one bundle (`format` 1,
//! `generation` `event-destinations`; fresh signing secrets, no URL credentials), and jq over each latest
//! attempt as pulsar's search does. The selection flags map onto the deliveries' filters
//! (statuses as the platform names them, events, destinations, event types); the window and
//! `--retried` are read from each delivery; `--callback` is not a filter of deliveries.
use std::collections::BTreeSet;
use std::io::IsTerminal;

use serde_json::{Value, json};

use super::HeadlessError;
use super::export::ExportArgs;
use super::output::{self, Output};
use super::samples::KeepArgs;
use super::search::SearchArgs;
use super::selection::SelectionArgs;
use crate::api::model::{DeliveryAttempt, EventDelivery, HeaderPair};
use crate::api::newer_requests::DeliveryFilter;
use crate::api::samples::{
    FORMAT as SAMPLE_FORMAT, KeptAnswer, Library, Named, Sample, valid_name,
};
use crate::api::selection::{PAGE, Selection};
use crate::api::{ApiRequest, Client, ListQuery, Order, export, replay};
use crate::text::{line, redact};

/// The selection, and the deliveries' filter it maps onto.
fn filter_of(args: &SelectionArgs) -> Result<(Selection, DeliveryFilter), HeadlessError> {
    let s = args.selection()?;
    if !s.callbacks.is_empty() {
        return Err(HeadlessError::Usage(
            "deliveries are not filtered by callback: use --destination, --event or --event-type"
                .into(),
        ));
    }
    let f = DeliveryFilter {
        statuses: s
            .statuses
            .iter()
            .map(|st| match st.as_str() {
                "succeeded" => "delivered".to_string(),
                other => other.to_string(),
            })
            .collect(),
        event_ids: s.events.clone(),
        event_types: s.event_types.clone(),
        event_destination_ids: s.destinations.clone(),
        ..DeliveryFilter::default()
    };
    Ok((s, f))
}

/// Whether a delivery read is within the selection's window (`Some(false)`: older than it, and
/// so is everything after it, newest first) and `--retried`.
fn within(s: &Selection, d: &EventDelivery) -> Option<bool> {
    if s.since.is_some_and(|t| d.created_at < t) {
        return None;
    }
    Some(s.until.is_none_or(|t| d.created_at <= t) && (!s.retried || d.attempt_count > 1))
}

/// Every selected delivery, newest first, within the walk's budget; `progress` is told the
/// count read so far.
async fn selected(
    client: &Client,
    args: &SelectionArgs,
    mut progress: impl FnMut(usize),
) -> Result<Vec<Value>, HeadlessError> {
    let (s, f) = filter_of(args)?;
    let q = ListQuery {
        limit: Some(PAGE),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let mut out = Vec::new();
    crate::api::lookup::walk(
        client,
        q,
        |q| ApiRequest::list_deliveries(q, &f),
        |items: Vec<Value>| {
            for v in items {
                let Ok(d) = serde_json::from_value::<EventDelivery>(v.clone()) else {
                    continue;
                };
                match within(&s, &d) {
                    None => return false,
                    Some(true) => out.push(v),
                    Some(false) => {}
                }
            }
            progress(out.len());
            true
        },
    )
    .await?;
    Ok(out)
}

/// One JSON document of the API.
async fn get(client: &Client, req: &ApiRequest) -> Result<Value, crate::api::Error> {
    let raw = client.send(req).await?;
    crate::api::client::decode::<Value>(raw.status, &raw.body)
}

/// `d` with its attempts read whole (a delivery embeds them without their request): every one,
/// or only the latest (the search's code, [`crate::api::newer_search::whole_delivery`]).
async fn whole(client: &Client, d: Value, only_latest: bool) -> Result<Value, crate::api::Error> {
    crate::api::newer_search::whole_delivery(client, d, only_latest).await
}

/// The latest attempt that recorded a request.
fn latest(d: &EventDelivery) -> Option<&DeliveryAttempt> {
    crate::api::newer_search::latest(d)
}

fn pairs(h: &[HeaderPair]) -> Vec<(String, String)> {
    h.iter().map(|p| (p.key.clone(), p.value.clone())).collect()
}

/// `notifications keep ID --name NAME` on a delivery: its attempt's request (headers through the
/// redaction policy), body, event type and destination, in the profile's library.
///
/// # Errors
/// A bad name or attempt, the API's error, nothing recorded, the library's error.
pub async fn keep(
    client: &Client,
    out: &Output,
    args: KeepArgs,
    library: &Library,
) -> Result<(), HeadlessError> {
    if !valid_name(&args.name) {
        return Err(HeadlessError::Usage(format!(
            "a sample's name is 1 to 64 of A-Z a-z 0-9 . _ -, not {:?}",
            line(&args.name)
        )));
    }
    if args.attempt.is_some_and(|n| n < 1) {
        return Err(HeadlessError::Usage(
            "--attempt counts from 1 (#1 is the first delivery)".into(),
        ));
    }
    let v = get(client, &ApiRequest::get_delivery(&args.id)).await?;
    let v = whole(client, v, false).await?;
    let d: EventDelivery = serde_json::from_value(v)
        .map_err(|e| HeadlessError::Usage(format!("not a delivery: {e}")))?;
    let attempt = match args.attempt {
        Some(n) => d
            .attempts
            .iter()
            .find(|a| i64::from(a.attempt_number) == n && a.request.is_some()),
        None => latest(&d),
    };
    let Some((a, req)) = attempt.and_then(|a| a.request.as_ref().map(|r| (a, r))) else {
        return Err(HeadlessError::Usage(format!(
            "{} has no recorded request to keep",
            line(&d.id)
        )));
    };
    // The name is a nicety: a destination that cannot be read is kept by id.
    let name = get(
        client,
        &ApiRequest::get_event_destination(&d.event_destination_id),
    )
    .await
    .ok()
    .and_then(|v| v.get("name").and_then(Value::as_str).map(str::to_string));
    let sample = Sample {
        format: SAMPLE_FORMAT,
        name: args.name.clone(),
        kept_at: chrono::Utc::now(),
        notification_id: d.id.clone(),
        attempt: i64::from(a.attempt_number),
        event_type: d.event_type.clone(),
        callback: None,
        destination: Some(Named {
            id: d.event_destination_id.clone(),
            name,
        }),
        request_headers: replay::masked_headers(&pairs(&req.headers)),
        body: req.body.clone().unwrap_or_default(),
        answer: a.response.as_ref().map(|r| {
            KeptAnswer::from_answer(&crate::api::compare::Answer {
                label: String::new(),
                status: r.status_code.map(i64::from),
                duration_ms: a.duration_ms,
                headers: pairs(r.headers.as_deref().unwrap_or_default()),
                body: r.body.clone(),
                error: None,
                origin: redact::HeaderOrigin::Elsewhere,
            })
        }),
    };
    let path = library
        .save(&sample, args.force)
        .map_err(|e| HeadlessError::Usage(line(&e.to_string()).into_owned()))?;
    if out.table() {
        let text = format!(
            "KEPT  {} ({} attempt #{}) in {}",
            line(&sample.name),
            line(&sample.notification_id),
            sample.attempt,
            line(&path.display().to_string())
        );
        output::emit(|w| output::write_raw(w, &text, false))
    } else {
        out.document(&format!(
            "{:#}",
            json!({
                "object": "switchboard.sample",
                "name": sample.name,
                "notification_id": sample.notification_id,
                "attempt": sample.attempt,
                "event_type": sample.event_type,
                "destination": {"id": d.event_destination_id, "name": sample.destination.and_then(|n| n.name)},
                "path": path.display().to_string(),
            })
        ))
    }
}

/// A delivery as exported: credentials out of every URL, request headers masked.
fn delivery_line(mut v: Value) -> Value {
    if let Some(attempts) = v.get_mut("attempts").and_then(Value::as_array_mut) {
        for a in attempts {
            let Some(r) = a.get_mut("request").filter(|r| r.is_object()) else {
                continue;
            };
            if let Some(u) = r.get("url").and_then(Value::as_str) {
                r["url"] = json!(export::without_credentials(u).unwrap_or_default());
            }
            let headers: Vec<HeaderPair> = r
                .get("headers")
                .cloned()
                .and_then(|h| serde_json::from_value(h).ok())
                .unwrap_or_default();
            let masked: Vec<Value> = replay::masked_headers(&pairs(&headers))
                .into_iter()
                .map(|(key, value)| json!({"key": key, "value": value}))
                .collect();
            r["headers"] = Value::Array(masked);
        }
    }
    v["kind"] = json!("delivery");
    v
}

/// An event destination as exported: a fresh secret, no credentials in its URL.
fn destination_line(mut v: Value) -> Value {
    if let Some(w) = v.get_mut("webhook").filter(|w| w.is_object()) {
        if w.get("signing_secret").is_some() {
            w["signing_secret"] = json!(export::fresh_secret());
        }
        if let Some(u) = w.get("url").and_then(Value::as_str) {
            w["url"] = json!(export::without_credentials(u).unwrap_or_default());
        }
    }
    v["kind"] = json!("destination");
    v
}

/// `notifications export` on deliveries: one NDJSON bundle, `0600`, replaced atomically.
///
/// # Errors
/// Usage, the API's error (the walk's budget included), the file's.
pub async fn export(client: &Client, out: &Output, args: ExportArgs) -> Result<(), HeadlessError> {
    let terminal = std::io::stderr().is_terminal();
    let deliveries = selected(
        client,
        &args.selection,
        super::export::progress(terminal, "deliveries"),
    )
    .await?;
    if terminal {
        eprintln!();
    }
    let mut full = Vec::with_capacity(deliveries.len());
    for d in deliveries {
        full.push(whole(client, d, false).await?);
    }
    let deliveries = full;
    let ids: BTreeSet<String> = deliveries
        .iter()
        .filter_map(|d| d.get("event_destination_id").and_then(Value::as_str))
        .map(str::to_string)
        .collect();
    let mut destinations = Vec::new();
    for id in &ids {
        match get(client, &ApiRequest::get_event_destination(id)).await {
            Ok(v) => destinations.push(destination_line(v)),
            // One gone since is named by its deliveries only.
            Err(crate::api::Error::Api(e)) if e.status == 404 => {}
            Err(e) => return Err(e.into()),
        }
    }
    // The events they deliver: a loaded service builds a resent request from its event.
    let event_ids: BTreeSet<String> = deliveries
        .iter()
        .filter_map(|d| d.get("event_id").and_then(Value::as_str))
        .map(str::to_string)
        .collect();
    let mut events = Vec::new();
    for id in &event_ids {
        match get(client, &ApiRequest::get_event(id)).await {
            Ok(mut v) => {
                v["kind"] = json!("event");
                events.push(v);
            }
            // One gone since is named by its deliveries only.
            Err(crate::api::Error::Api(e)) if e.status == 404 => {}
            Err(e) => return Err(e.into()),
        }
    }
    let created: Vec<&str> = deliveries
        .iter()
        .filter_map(|d| d.get("created_at").and_then(Value::as_str))
        .collect();
    let attempts: usize = deliveries
        .iter()
        .map(|d| {
            d.get("attempts")
                .and_then(Value::as_array)
                .map_or(0, Vec::len)
        })
        .sum();
    let manifest = json!({
        "kind": "manifest",
        "format": export::FORMAT,
        "source_host": replay::api_host(client.base_url()),
        "generation": "event-destinations",
        "exported_at": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        // Newest first: the last is the oldest.
        "from": created.last(),
        "to": created.first(),
        "counts": {
            "destinations": destinations.len(),
            "events": events.len(),
            "deliveries": deliveries.len(),
            "attempts": attempts,
        },
    });
    let count = deliveries.len();
    let lines = std::iter::once(manifest.clone())
        .chain(destinations)
        .chain(events)
        .chain(deliveries.into_iter().map(delivery_line))
        .collect();
    let bundle = export::Bundle {
        manifest,
        lines,
        notifications: count,
    };
    super::export::write_bundle(out, &args, &bundle, "deliveries")
}

/// `notifications search EXPR` on deliveries: the list walked newest first under the
/// deliveries' filters, each latest attempt read by id and EXPR run on it as pulsar's search
/// does ([`super::newer_search`]); the matches printed, the summary on stderr.
///
/// # Errors
/// Usage, the API's error, EXPR's error, an output error.
pub async fn search(client: &Client, out: &Output, args: SearchArgs) -> Result<(), HeadlessError> {
    let (selection, deliveries) = filter_of(&args.selection)?;
    let plan = super::newer_search::Plan {
        source: crate::api::newer_search::Source::Deliveries,
        deliveries,
        notifications: crate::api::newer_requests::CallbackNotificationFilter::default(),
        selection,
    };
    super::newer_search::run(client, out, args, plan).await
}
