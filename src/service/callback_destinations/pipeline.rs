//! From a provider's event to notifications: the callback event is recorded, and when the
//! callback's triggers take it, one sent event (`sev_`, the request every destination gets) and
//! one notification per active destination, due at once. Also the incoming webhook stand-in
//! (`POST /w/{callback_id}`) and `--simulate-events`.
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use rand::Rng;
use serde_json::{Value, json};

use super::db::{self, kind};
use crate::service::event_destinations::Gen;
use crate::service::event_destinations::wire::{Fail, iso};
use crate::service::ids::{id_at, new_id, random_alnum};
use crate::service::store::{Db, StoreError};

/// What one provider event came to: the callback event and the notifications made for it.
pub struct Ingested {
    /// The callback event (`cbe_`).
    pub event: Value,
    /// The sent event (`sev_`), when any destination was notified.
    pub sent: Option<Value>,
    /// The notifications, pending and due now.
    pub notifications: Vec<Value>,
}

/// The body every destination of one event receives.
pub fn payload_body(event_type: &str, trigger: &str, data: &Value, t: DateTime<Utc>) -> String {
    json!({
        "object": "callback.event_payload", "id": id_at("tev", t), "type": event_type,
        "trigger": trigger, "idempotencyKey": random_alnum(16), "data": data,
    })
    .to_string()
}

/// Whether a callback's triggers take an event (no triggers: every event).
fn wanted(cb: &Value, trigger: &str, event_type: &str) -> bool {
    let triggers = cb["provider_triggers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    triggers.is_empty()
        || triggers.iter().any(|t| {
            t["provider_trigger"]["key"] == trigger
                && t["event_types"]
                    .as_array()
                    .is_none_or(|types| types.is_empty() || types.iter().any(|x| x == event_type))
        })
}

/// Records a provider event on a callback and fans it out to the callback's active
/// destinations: now, or at a past `seeded` time (seed data).
pub fn ingest(
    db: &Db,
    cb: &Value,
    trigger: &str,
    event_type: &str,
    data: Value,
    seeded: Option<DateTime<Utc>>,
) -> Result<Ingested, StoreError> {
    let t = seeded.unwrap_or_else(crate::service::ids::now);
    let id = |prefix: &str| seeded.map_or_else(|| new_id(prefix), |t| id_at(prefix, t));
    let at = iso(t);
    let mut event = json!({
        "object": "callback.event", "id": id("cbe"), "type": event_type,
        "source_id": id("src"), "trigger_key": trigger,
        "input": {"callback": cb["name"]}, "output": data, "delivery_status": "skipped",
        "callback_id": cb["id"], "callback_instance_id": null, "created_at": at,
    });
    let mut dests = Vec::new();
    if cb["status"] == "active" && wanted(cb, trigger, event_type) {
        for id in cb["_destination_ids"].as_array().into_iter().flatten() {
            if let Some(d) = db::get(db, kind::DESTINATION, id.as_str().unwrap_or_default())?
                && d["status"] == "active"
            {
                dests.push(d);
            }
        }
    }
    if dests.is_empty() {
        db::put(db, kind::EVENT, &event)?;
        return Ok(Ingested {
            event,
            sent: None,
            notifications: Vec::new(),
        });
    }
    event["delivery_status"] = "pending".into();
    db::put(db, kind::EVENT, &event)?;
    let body = payload_body(event_type, trigger, &event["output"], t);
    let sent = json!({
        "object": "callback.notification.event", "id": id("sev"), "type": event_type,
        "topics": [format!("trigger:{event_type}")], "status": "pending",
        "destination_count": dests.len(), "success_count": 0, "failure_count": 0,
        "request": {"body": body, "headers": [{"key": "metorial-trigger-event-type", "value": event_type}]},
        "created_at": at, "updated_at": at,
        "_callback_id": cb["id"], "_cbe_id": event["id"],
    });
    db::put(db, kind::SENT_EVENT, &sent)?;
    let mut notifications = Vec::new();
    for d in dests {
        let n = json!({
            "object": "callback.notification", "id": id("sdi"), "status": "pending",
            "error": null, "attempt_count": 0, "created_at": at, "updated_at": at,
            "last_attempt_at": null, "next_attempt_at": null,
            "_callback_id": cb["id"], "_destination_id": d["id"], "_event_id": sent["id"],
        });
        db::put(db, kind::NOTIFICATION, &n)?;
        db::set_due(
            db,
            n["id"].as_str().unwrap_or_default(),
            Some(chrono::Utc::now().timestamp_millis()),
        )?;
        notifications.push(n);
    }
    Ok(Ingested {
        event,
        sent: Some(sent),
        notifications,
    })
}

/// Brings a sent event's counts and status, and its callback event's `delivery_status`, in
/// line with its notifications.
pub fn settle(db: &Db, sent_id: &str, at: &str) -> Result<(), StoreError> {
    let Some(mut sent) = db::get(db, kind::SENT_EVENT, sent_id)? else {
        return Ok(());
    };
    let all = db::all_with(db, kind::NOTIFICATION, "_event_id", sent_id)?;
    let count = |s: &str| all.iter().filter(|n| n["status"] == s).count();
    let (ok, failed) = (count("delivered"), count("failed"));
    let open = ok + failed < all.len();
    let (status, delivery) = match (open, ok) {
        (true, _) => ("pending", "pending"),
        (false, 0) => ("failed", "failed"),
        (false, _) => ("delivered", "sent"),
    };
    sent["destination_count"] = all.len().into();
    sent["success_count"] = ok.into();
    sent["failure_count"] = failed.into();
    sent["status"] = status.into();
    sent["updated_at"] = at.into();
    db::put(db, kind::SENT_EVENT, &sent)?;
    if let Some(mut e) = db::get(
        db,
        kind::EVENT,
        sent["_cbe_id"].as_str().unwrap_or_default(),
    )? {
        e["delivery_status"] = delivery.into();
        db::put(db, kind::EVENT, &e)?;
    }
    Ok(())
}

/// `POST /w/{callback_id}`: a provider's webhook for a callback (the local stand-in for the
/// platform's callbacks host). The event type is the body's `type` (else `webhook.received`);
/// its trigger is the type's first part.
pub async fn incoming(
    State(g): State<Gen>,
    Path(callback_id): Path<String>,
    body: Bytes,
) -> Result<axum::Json<Value>, Fail> {
    let data: Value = serde_json::from_slice(&body)
        .map_err(|_| Fail::bad_request("The request body is not valid JSON"))?;
    let event_type = data["type"]
        .as_str()
        .unwrap_or("webhook.received")
        .chars()
        .take(100)
        .collect::<String>();
    let trigger = event_type.split('.').next().unwrap_or_default().to_string();
    let made = g
        .write(move |db| {
            let cb = db::get(db, kind::CALLBACK, &callback_id)?
                .filter(|c| c["status"] == "active")
                .ok_or_else(Fail::no_endpoint)?;
            Ok(ingest(db, &cb, &trigger, &event_type, data, None)?)
        })
        .await?;
    g.0.worker.wake();
    Ok(axum::Json(json!({
        "ok": true, "callback_event_id": made.event["id"],
        "notification_ids": made.notifications.iter().map(|n| n["id"].clone()).collect::<Vec<_>>(),
    })))
}

/// `--simulate-events`: every so often, an event of one of its triggers on an active callback
/// that has destinations.
pub async fn simulate(g: Gen, every: Duration) {
    let mut stop = g.0.worker.stopped();
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stop.changed() => return,
        }
        let wrote = g
            .write(move |db| {
                let live: Vec<Value> = db::all(db, kind::CALLBACK)?
                    .into_iter()
                    .filter(|c| {
                        c["status"] == "active"
                            && c["_destination_ids"]
                                .as_array()
                                .is_some_and(|d| !d.is_empty())
                    })
                    .collect();
                let picked = {
                    let mut rng = rand::rng();
                    (!live.is_empty()).then(|| {
                        let cb = &live[rng.random_range(0..live.len())];
                        let triggers = cb["provider_triggers"]
                            .as_array()
                            .cloned()
                            .unwrap_or_default();
                        let (trigger, event_type) =
                            match triggers.get(rng.random_range(0..triggers.len().max(1))) {
                                Some(t) => {
                                    let types =
                                        t["event_types"].as_array().cloned().unwrap_or_default();
                                    let key = t["provider_trigger"]["key"]
                                        .as_str()
                                        .unwrap_or("webhook")
                                        .to_string();
                                    let ty = types
                                        .get(rng.random_range(0..types.len().max(1)))
                                        .and_then(Value::as_str)
                                        .map_or_else(|| format!("{key}.received"), String::from);
                                    (key, ty)
                                }
                                None => ("webhook".to_string(), "webhook.received".to_string()),
                            };
                        (cb.clone(), trigger, event_type, rng.random_range(1..5000))
                    })
                };
                if let Some((cb, trigger, event_type, number)) = picked {
                    ingest(
                        db,
                        &cb,
                        &trigger,
                        &event_type,
                        json!({"number": number, "simulated": true}),
                        None,
                    )?;
                }
                Ok(())
            })
            .await;
        if let Err(e) = wrote {
            crate::service::logs::error_limited(&format!("simulated event: {}", e.0.message));
        }
        g.0.worker.wake();
    }
}
