//! Events, deliveries (with the platform's retry), attempts with request and response, and the
//! event types (§7).
use crate::service::event_destinations::stored::Stored;
use axum::http::Method;
use serde_json::{Value, json};

use super::Gen;
use super::db;
use super::route::{Route, handler};
use super::schemas::{list_of, obj};
use super::wire::{Answer, Fail, Req, list, now_iso, public};

const AREA: &str = "Events and deliveries";

/// The routes of this area.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Method::GET,
            "/organization/events",
            "list_events",
            AREA,
            "List events (everything delivered)",
            || list_of("Event"),
            handler!(list_events),
        )
        .list(&[
            ("instance_id", "string", "Only events of these instances"),
            ("event_type", "string", "Only events of these types"),
            ("callback_id", "string", "Only events of these callbacks"),
            ("source", "string", "resource, callback, chat or ping"),
        ]),
        Route::new(
            Method::GET,
            "/organization/events/{event_id}",
            "get_event",
            AREA,
            "Get an event",
            || obj("Event"),
            handler!(get_event),
        ),
        Route::new(
            Method::GET,
            "/organization/event-deliveries",
            "list_event_deliveries",
            AREA,
            "List deliveries (their attempts on get)",
            || list_of("EventDelivery"),
            handler!(list_deliveries),
        )
        .list(&[
            (
                "status",
                "string",
                "pending, retrying, delivered, failed or cancelled",
            ),
            ("event_id", "string", "Only deliveries of these events"),
            (
                "event_type",
                "string",
                "Only deliveries of these event types",
            ),
            (
                "event_destination_id",
                "string",
                "Only deliveries to these destinations",
            ),
            (
                "instance_id",
                "string",
                "Only deliveries of these instances",
            ),
        ]),
        Route::new(
            Method::GET,
            "/organization/event-deliveries/{event_delivery_id}",
            "get_event_delivery",
            AREA,
            "Get a delivery with its attempts",
            || obj("EventDelivery"),
            handler!(get_delivery),
        ),
        Route::new(
            Method::POST,
            "/organization/event-deliveries/{event_delivery_id}/retry",
            "retry_event_delivery",
            AREA,
            "Retry a finished delivery: one attempt due at once, then its policy with a fresh budget",
            || obj("EventDelivery"),
            handler!(retry),
        ),
        Route::new(
            Method::GET,
            "/organization/event-delivery-attempts",
            "list_event_delivery_attempts",
            AREA,
            "List delivery attempts",
            || list_of("EventDeliveryAttempt"),
            handler!(list_attempts),
        )
        .list(&[
            ("status", "string", "succeeded or failed"),
            (
                "event_delivery_id",
                "string",
                "Only attempts of these deliveries",
            ),
            ("event_id", "string", "Only attempts of these events"),
            (
                "event_destination_id",
                "string",
                "Only attempts to these destinations",
            ),
        ]),
        Route::new(
            Method::GET,
            "/organization/event-delivery-attempts/{event_delivery_attempt_id}",
            "get_event_delivery_attempt",
            AREA,
            "Get an attempt with its request and response",
            || obj("EventDeliveryAttempt"),
            handler!(get_attempt),
        ),
        Route::new(
            Method::GET,
            "/organization/webhook-events",
            "list_webhook_event_types",
            AREA,
            "The event types a listener can name (one page)",
            || list_of("EventType"),
            handler!(event_types),
        ),
    ]
}

async fn list_events(g: Gen, r: Req) -> Answer {
    let p = r.list_params()?;
    let conds: Vec<_> = [
        db::any_of("instance_id", r.many("instance_id")),
        db::any_of("event_type", r.many("event_type")),
        db::any_of("callback_id", r.many("callback_id")),
        db::any_of("source", r.many("source")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let page = g
        .read(move |db| Ok(db::page(db, Stored::Event, conds, &p)?))
        .await?;
    Ok(list(page))
}

async fn get_event(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    g.read(move |db| {
        db::get(db, Stored::Event, &id)?
            .map(public)
            .ok_or_else(|| Fail::not_found("event", &id))
    })
    .await
}

async fn list_deliveries(g: Gen, r: Req) -> Answer {
    let p = r.list_params()?;
    let conds: Vec<_> = [
        db::any_of("status", r.many("status")),
        db::any_of("event_id", r.many("event_id")),
        db::any_of("event_type", r.many("event_type")),
        db::any_of("event_destination_id", r.many("event_destination_id")),
        db::any_of("instance_id", r.many("instance_id")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let page = g
        .read(move |db| Ok(db::page(db, Stored::Delivery, conds, &p)?))
        .await?;
    Ok(list(page))
}

/// An attempt as a delivery embeds it: no request, the response without headers and body.
fn bodiless(a: Value) -> Value {
    let mut a = public(a);
    a["request"] = Value::Null;
    if a["response"].is_object() {
        // An empty list, not null: the platform's Python SDK (2.6.0) iterates it.
        a["response"]["headers"] = json!([]);
        a["response"]["body"] = Value::Null;
        a["response"]["is_body_truncated"] = false.into();
    }
    a
}

/// A delivery with its attempts (oldest first).
fn with_attempts(db: &crate::service::store::Db, d: Value) -> Result<Value, Fail> {
    let id = d["id"].as_str().unwrap_or_default().to_string();
    let mut d = public(d);
    d["attempts"] = db::all_with(db, Stored::Attempt, "event_delivery_id", &id)?
        .into_iter()
        .map(bodiless)
        .collect::<Vec<_>>()
        .into();
    Ok(d)
}

async fn get_delivery(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    g.read(move |db| {
        let d = db::get(db, Stored::Delivery, &id)?
            .ok_or_else(|| Fail::not_found("event.delivery", &id))?;
        with_attempts(db, d)
    })
    .await
}

async fn retry(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    let v = g
        .write(move |db| {
            let mut d = db::get(db, Stored::Delivery, &id)?
                .ok_or_else(|| Fail::not_found("event.delivery", &id))?;
            if !matches!(
                d["status"].as_str(),
                Some("delivered" | "failed" | "cancelled")
            ) {
                return Err(Fail::bad_request("Only a finished delivery can be retried"));
            }
            let dest_id = d["event_destination_id"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let dest = db::get(db, Stored::Destination, &dest_id)?;
            if dest.as_ref().is_none_or(|x| x["status"] != "active") {
                return Err(Fail::bad_request("The delivery's destination is archived"));
            }
            let now_ms = chrono::Utc::now().timestamp_millis();
            let now = now_iso();
            // A fresh budget: the attempts so far no longer count against the policy.
            d["_budget_start"] = d["attempt_count"].clone();
            d["status"] = "pending".into();
            d["error"] = Value::Null;
            d["completed_at"] = Value::Null;
            d["next_attempt_at"] = now.clone().into();
            d["updated_at"] = now.into();
            if let Some(dest) = dest {
                d["retry"] = dest["retry"].clone();
            }
            db::put(db, Stored::Delivery, &d)?;
            db::set_due(db, &id, Some(now_ms))?;
            with_attempts(db, d)
        })
        .await?;
    g.0.worker.wake();
    Ok(v)
}

async fn list_attempts(g: Gen, r: Req) -> Answer {
    let p = r.list_params()?;
    let conds: Vec<_> = [
        db::any_of("status", r.many("status")),
        db::any_of("event_delivery_id", r.many("event_delivery_id")),
        db::any_of("event_id", r.many("event_id")),
        db::any_of("event_destination_id", r.many("event_destination_id")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let page = g
        .read(move |db| Ok(db::page(db, Stored::Attempt, conds, &p)?))
        .await?;
    let mut out = list(page);
    if let Some(items) = out["items"].as_array_mut() {
        for i in items.iter_mut() {
            *i = bodiless(i.take());
        }
    }
    Ok(out)
}

async fn get_attempt(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    g.read(move |db| {
        db::get(db, Stored::Attempt, &id)?
            .map(public)
            .ok_or_else(|| Fail::not_found("event.delivery_attempt", &id))
    })
    .await
}

async fn event_types(_g: Gen, _r: Req) -> Answer {
    let items: Vec<Value> = super::pipeline::EVENT_TYPES
        .iter()
        .map(|(name, description)| json!({"object": "event.type", "name": name, "description": description}))
        .collect();
    Ok(json!({
        "object": "list", "items": items,
        "pagination": {"has_more_after": false, "has_more_before": false},
    }))
}
