//! Events: fan-out of one event into one notification per selecting active destination, and the
//! event simulation of the demo.
use std::time::Duration;

use chrono::{DateTime, Utc};
use rand::Rng;
use rand::seq::IndexedRandom;
use serde_json::{Value, json};

use super::app::App;
use super::ids::{id_at, new_id};
use super::records::{CallbackRec, DestinationRec};
use super::store::{Db, NotificationKeys, StoreError};
use crate::api::model::{Notification, NotificationStatus, NotificationType};

/// The exact body delivered for a notification (camelCase, api.md §5).
pub fn delivery_body(
    event_id: &str,
    notification_id: &str,
    callback_id: &str,
    event_type: &str,
    payload: &Value,
) -> String {
    super::delivery::delivery_body(
        event_id,
        notification_id,
        callback_id,
        event_type,
        &payload.to_string(),
    )
}

/// The active destinations that select a callback.
pub fn destinations_for(db: &Db, callback_id: &str) -> Result<Vec<DestinationRec>, StoreError> {
    db.destinations_selecting(callback_id)
}

/// A new, still-pending notification and its row keys.
pub fn pending_notification(
    dest: &DestinationRec,
    event_id: &str,
    callback_id: &str,
    event_type: &str,
    payload: &Value,
    at: DateTime<Utc>,
    historic: bool,
) -> (Notification, NotificationKeys) {
    let id = if historic {
        id_at("cbn", at)
    } else {
        new_id("cbn")
    };
    let body = delivery_body(event_id, &id, callback_id, event_type, payload);
    let n = Notification {
        object: "callback.notification".into(),
        id,
        kind: NotificationType::WebhookHttp,
        status: NotificationStatus::Pending,
        url: dest
            .destination
            .webhook_destination
            .as_ref()
            .map(|w| w.url.clone()),
        attempts: Vec::new(),
        created_at: at,
    };
    let keys = NotificationKeys {
        event_id: event_id.into(),
        callback_id: callback_id.into(),
        destination_id: dest.destination.id.clone(),
        body,
    };
    (n, keys)
}

/// Records an event of a callback: its payload once, and one pending notification per selecting
/// active destination, due now, whose body is built from the event when sent. Returns the event
/// id and the notification ids; the caller runs it in one transaction and wakes the worker.
pub fn fan_out(
    db: &Db,
    callback_id: &str,
    event_type: &str,
    payload: Value,
) -> Result<(String, Vec<String>), StoreError> {
    let event_id = new_id("cbe");
    let now = super::ids::now();
    db.save_event(&event_id, callback_id, event_type, &payload.to_string())?;
    let mut ids = Vec::new();
    for dest in destinations_for(db, callback_id)? {
        let (n, mut keys) = pending_notification(
            &dest,
            &event_id,
            callback_id,
            event_type,
            &Value::Null,
            now,
            false,
        );
        keys.body = String::new();
        db.save_notification(&n, &keys, Some(now.timestamp_millis()))?;
        ids.push(n.id);
    }
    Ok((event_id, ids))
}

/// A plausible payload for an event type.
pub fn sample_payload(event_type: &str, rng: &mut impl Rng) -> Value {
    let (resource, action) = event_type
        .split_once('.')
        .unwrap_or((event_type, "updated"));
    let number: u32 = rng.random_range(100..9999);
    let titles = [
        "Webhook retries stall",
        "Rotate signing secrets",
        "Token refresh fails on expiry",
        "Add audit trail export",
        "Pagination skips items",
        "Slow search on large orgs",
    ];
    let title = titles.choose(rng).copied().unwrap_or("Update");
    let login = ["ada", "grace", "linus", "margaret"]
        .choose(rng)
        .copied()
        .unwrap_or("ada");
    json!({
        "action": action,
        resource: { "number": number, "title": title },
        "sender": { "login": login },
    })
}

/// Generates an event on a random callback every `every`, until the app's worker stops.
pub async fn simulate(app: App, every: Duration) {
    let mut stop = app.delivery.stopped();
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stop.changed() => return,
        }
        let result = app
            .db(|db| {
                let callbacks = db.load_all::<CallbackRec>()?;
                let mut rng = rand::rng();
                let Some(cb) = callbacks.choose(&mut rng) else {
                    return Ok(None);
                };
                let event_type = cb
                    .event_types
                    .choose(&mut rng)
                    .cloned()
                    .unwrap_or_else(|| "event.created".into());
                let payload = sample_payload(&event_type, &mut rng);
                Ok(Some(fan_out(db, &cb.callback.id, &event_type, payload)?))
            })
            .await;
        match result {
            Ok(_) => app.delivery.wake(),
            Err(e) => tracing::warn!("event simulation: {}", e.0),
        }
    }
}
