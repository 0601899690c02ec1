//! Where events come from and where they go: callback events received (webhook or polling) or
//! simulated, resource events of the API's own writes, pings; each event is recorded and the
//! listeners decide which destinations get a delivery (§7).
use crate::service::event_destinations::stored::Stored;
use std::collections::BTreeSet;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, State};
use base64::Engine;
use rand::Rng;
use serde_json::{Value, json};

use super::Gen;
use super::db;
use super::wire::{Fail, now_iso};
use crate::service::ids::new_id;
use crate::service::store::{Db, StoreError};

/// Trigger keys the simulation and the seed use.
pub const TRIGGERS: &[&str] = &[
    "issues.opened",
    "issues.closed",
    "pull_request.merged",
    "push",
];

/// The event types `GET /organization/webhook-events` lists: (name, description).
pub const EVENT_TYPES: &[(&str, &str)] = &[
    ("session.created", "A session was created."),
    ("session.ended", "A session ended."),
    ("callback.created", "A callback was created."),
    ("callback.updated", "A callback was updated."),
    ("callback.deleted", "A callback was deleted."),
    ("organization.created", "An organization was created."),
    ("ping", "A test event sent by a ping."),
];

/// Records an event.
#[allow(clippy::too_many_arguments)]
pub fn event(
    org: &str,
    instance: &str,
    source: &str,
    event_type: &str,
    callback: Option<(&Value, &str, &str)>,
    payload: Value,
    at: &str,
) -> Value {
    let (callback_id, callback_event_id, trigger, provider_id) = match callback {
        Some((cb, cbe, trigger)) => (
            cb["id"].clone(),
            Value::from(cbe),
            Value::from(trigger),
            cb["provider"]["id"].clone(),
        ),
        None => (Value::Null, Value::Null, Value::Null, Value::Null),
    };
    json!({
        "object": "event", "id": new_id("evnt"), "organization_id": org, "instance_id": instance,
        "source": source, "event_type": event_type, "callback_id": callback_id,
        "callback_event_id": callback_event_id, "callback_trigger_key": trigger,
        "chat_event_id": null, "chat_connection_id": null, "provider_id": provider_id,
        "payload": payload, "created_at": at,
    })
}

/// The body a delivery sends: the event in snake case (`webhook-body.json`).
pub fn webhook_body(e: &Value) -> String {
    json!({
        "object": "event", "id": e["id"], "source": e["source"], "event_type": e["event_type"],
        "compartments": [{"type": "instance", "organization_id": e["organization_id"],
                          "instance_id": e["instance_id"]}],
        "callback_id": e["callback_id"], "callback_trigger_key": e["callback_trigger_key"],
        "chat_event_id": e["chat_event_id"], "chat_connection_id": e["chat_connection_id"],
        "occurred_at": e["created_at"], "payload": e["payload"],
    })
    .to_string()
}

/// Whether a listener wants an event.
fn wants(listener: &Value, e: &Value) -> bool {
    let has = |list: &Value, v: &Value| list.as_array().is_some_and(|l| l.iter().any(|x| x == v));
    match listener["type"].as_str() {
        Some("event") => {
            e["source"] != "callback" && has(&listener["event_types"], &e["event_type"])
        }
        Some("callback") => {
            e["source"] == "callback"
                && (listener["callback_id"].is_null()
                    || listener["callback_id"] == e["callback_id"])
                && (listener["provider_id"].is_null()
                    || listener["provider_id"] == e["provider_id"])
                && (listener["triggers"].as_array().is_none_or(Vec::is_empty)
                    || has(&listener["triggers"], &e["callback_trigger_key"]))
        }
        Some("chat") => e["source"] == "chat" && has(&listener["event_types"], &e["event_type"]),
        _ => false,
    }
}

/// A new delivery of an event to a destination, due at `due` (unix ms; `None`: not scheduled).
pub fn delivery(e: &Value, destination: &Value, at: &str) -> Value {
    json!({
        "object": "event.delivery", "id": new_id("evdi"),
        "organization_id": e["organization_id"], "instance_id": e["instance_id"],
        "event_id": e["id"], "event_type": e["event_type"],
        "event_destination_id": destination["id"], "type": "webhook", "status": "pending",
        "attempt_count": 0, "error": null, "retry": destination["retry"], "attempts": [],
        "last_attempt_at": null, "next_attempt_at": at, "completed_at": null,
        "created_at": at, "updated_at": at, "_budget_start": 0,
    })
}

/// Stores an event and a delivery, due now, for each active destination a listener of the event's
/// instance picks (one per destination, however many of its listeners match).
pub fn record_and_fan_out(db: &Db, e: &Value) -> Result<Vec<String>, StoreError> {
    db::put(db, Stored::Event, e)?;
    let instance = e["instance_id"].as_str().unwrap_or_default();
    let mut picked = BTreeSet::new();
    for l in db::all_with(db, Stored::Listener, "instance_id", instance)? {
        if let Some(d) = l["event_destination_id"].as_str().filter(|_| wants(&l, e)) {
            picked.insert(d.to_string());
        }
    }
    let now = chrono::Utc::now().timestamp_millis();
    let mut out = Vec::new();
    for dest_id in picked {
        let Some(dest) = db::get(db, Stored::Destination, &dest_id)? else {
            continue;
        };
        if dest["status"] != "active" {
            continue;
        }
        let d = delivery(e, &dest, &now_iso());
        db::put(db, Stored::Delivery, &d)?;
        db::set_due(db, d["id"].as_str().unwrap_or_default(), Some(now))?;
        out.push(d["id"].as_str().unwrap_or_default().to_string());
    }
    Ok(out)
}

/// An event about a resource the API changed (`callback.created`, …).
pub fn resource_event(
    db: &Db,
    g: &Gen,
    event_type: &str,
    resource: &Value,
) -> Result<(), StoreError> {
    let e = event(
        &g.0.org_id,
        &g.0.instance_id,
        "resource",
        event_type,
        None,
        super::wire::public(resource.clone()),
        &now_iso(),
    );
    record_and_fan_out(db, &e)?;
    Ok(())
}

/// A callback event received for `cb` (and, once the callback is synced and active, the event it
/// maps to with its deliveries): (callback event, event id).
#[allow(clippy::too_many_arguments)]
pub fn ingest(
    db: &Db,
    org: &str,
    cb: &Value,
    instance: &Value,
    trigger: &str,
    payload: Value,
    source: &str,
    base_url: &str,
    at: &str,
) -> Result<(Value, Option<String>), StoreError> {
    let live = cb["status"] == "active" && cb["sync"]["status"] == "synced";
    let cbe_id = new_id("cbe");
    let raw = payload.to_string();
    let webhook = (source == "webhook").then(|| json!({
        "object": "callback_event.details.webhook", "status": "succeeded", "attempt_count": 1,
        "request": {
            "object": "callback_event.details.webhook.request", "method": "POST",
            "url": format!("{base_url}/w/{}", webhook_id(instance)),
            "headers": {"content-type": "application/json"},
            "body": {"encoding": "base64",
                     "content": base64::engine::general_purpose::STANDARD.encode(raw.as_bytes())},
        },
        "received_at": at,
    }));
    let cbe = json!({
        "object": "callback_event", "id": cbe_id, "status": if live { "processed" } else { "pending" },
        "source": source, "provider_trigger_key": trigger, "mapped_type": null, "mapped_id": null,
        "callback_id": cb["id"], "callback_instance_id": instance["id"],
        "details": {
            "object": "callback_event.details", "status": "succeeded", "payload": payload,
            "attempt_count": 1, "error": null, "webhook": webhook,
        },
        "occurred_at": at, "created_at": at,
    });
    db::put(db, Stored::CallbackEvent, &cbe)?;
    if !live {
        return Ok((cbe, None));
    }
    let e = event(
        org,
        instance_of(db, cb)?.as_deref().unwrap_or_default(),
        "callback",
        &format!("callback.{trigger}"),
        Some((cb, &cbe_id, trigger)),
        cbe["details"]["payload"].clone(),
        at,
    );
    record_and_fan_out(db, &e)?;
    Ok((cbe, e["id"].as_str().map(String::from)))
}

/// The Metorial instance callbacks belong to (the seeded one).
fn instance_of(db: &Db, _cb: &Value) -> Result<Option<String>, StoreError> {
    db.meta("event_destinations_instance")
}

/// The webhook id a callback instance receives on: `whk_` and the instance id's own part.
pub fn webhook_id(instance: &Value) -> String {
    let id = instance["id"].as_str().unwrap_or_default();
    format!("whk_{}", id.split_once('_').map_or(id, |(_, rest)| rest))
}

/// `POST /w/{webhook_id}`: a provider's webhook for a callback instance (the local stand-in for
/// the platform's callbacks host). The trigger key is the body's `type` (else `webhook`).
pub async fn incoming(
    State(g): State<Gen>,
    Path(webhook): Path<String>,
    body: Bytes,
) -> Result<axum::Json<Value>, Fail> {
    let payload: Value = serde_json::from_slice(&body)
        .map_err(|_| Fail::bad_request("The request body is not valid JSON"))?;
    let trigger = payload["type"]
        .as_str()
        .unwrap_or("webhook")
        .chars()
        .take(100)
        .collect::<String>();
    let (org, base) = (g.0.org_id.clone(), g.0.base_url.clone());
    let (cbe, event_id) = g
        .write(move |db| {
            let instance = db::all(db, Stored::CallbackInstance)?
                .into_iter()
                .find(|i| webhook_id(i) == webhook)
                .ok_or_else(Fail::no_endpoint)?;
            let cb = db::get(
                db,
                Stored::Callback,
                instance["callback_id"].as_str().unwrap_or_default(),
            )?
            .ok_or_else(Fail::no_endpoint)?;
            Ok(ingest(
                db,
                &org,
                &cb,
                &instance,
                &trigger,
                payload,
                "webhook",
                &base,
                &now_iso(),
            )?)
        })
        .await?;
    g.0.worker.wake();
    Ok(axum::Json(json!({
        "ok": true, "callback_event_id": cbe["id"], "event_id": event_id,
    })))
}

/// Whether a callback waits for its background sync (the seed's held one never does).
pub fn callbacks_to_sync(db: &Db) -> Result<bool, StoreError> {
    Ok(
        db::all_with(db, Stored::Callback, "sync.status", "pending")?
            .iter()
            .any(|c| c.get("_hold").is_none()),
    )
}

/// Marks callbacks created a moment ago as synced (the platform syncs them in the background);
/// the seed's held one stays pending.
pub fn sync_callbacks(db: &Db) -> Result<usize, StoreError> {
    let cutoff = super::wire::iso(chrono::Utc::now() - chrono::Duration::milliseconds(300));
    let mut n = 0;
    for mut cb in db::all_with(db, Stored::Callback, "sync.status", "pending")? {
        if cb.get("_hold").is_some()
            || cb["created_at"]
                .as_str()
                .is_some_and(|c| c > cutoff.as_str())
        {
            continue;
        }
        cb["sync"]["status"] = "synced".into();
        cb["sync"]["synced_at"] = now_iso().into();
        db::put(db, Stored::Callback, &cb)?;
        n += 1;
    }
    Ok(n)
}

/// `--simulate-events`: every so often, a callback event on a synced callback and a
/// `session.created` resource event.
pub async fn simulate(g: Gen, every: Duration) {
    let mut stop = g.0.worker.stopped();
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stop.changed() => return,
        }
        let state = g.clone();
        let wrote = g
            .write(move |db| {
                let live: Vec<Value> = db::all(db, Stored::Callback)?
                    .into_iter()
                    .filter(|c| c["status"] == "active" && c["sync"]["status"] == "synced")
                    .collect();
                let (pick, trigger) = {
                    let mut rng = rand::rng();
                    (
                        (!live.is_empty()).then(|| rng.random_range(0..live.len())),
                        TRIGGERS[rng.random_range(0..TRIGGERS.len())],
                    )
                };
                if let Some(cb) = pick.and_then(|i| live.get(i)) {
                    let cb_id = cb["id"].as_str().unwrap_or_default();
                    if let Some(instance) =
                        db::all_with(db, Stored::CallbackInstance, "callback_id", cb_id)?
                            .into_iter()
                            .next()
                    {
                        ingest(
                            db,
                            &state.0.org_id,
                            cb,
                            &instance,
                            trigger,
                            json!({"type": trigger, "simulated": true}),
                            "polling",
                            &state.0.base_url,
                            &now_iso(),
                        )?;
                    }
                }
                let session = json!({"object": "session", "id": new_id("ses"), "simulated": true});
                resource_event(db, &state, "session.created", &session)?;
                Ok(())
            })
            .await;
        if let Err(e) = wrote {
            crate::service::logs::error_limited(&format!("simulated event: {}", e.0.message));
        }
        g.0.worker.wake();
    }
}
