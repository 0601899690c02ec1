//! Notifications per callback (§6): one event sent to one destination, with `attempt_count`,
//! next/last attempt and error, and the sent request embedded on get. No global list and no
//! attempts list in this generation.
use axum::http::Method;
use serde_json::{Value, json};

use super::db::{self, kind};
use crate::service::event_destinations::Gen;
use crate::service::event_destinations::route::{Route, handler};
use crate::service::event_destinations::schemas::{list_of, obj};
use crate::service::event_destinations::wire::{Answer, Fail, Req, list, public};
use crate::service::store::Db;

const AREA: &str = "Callback notifications";

/// The routes of this area.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Method::GET,
            "/callbacks/{callback_id}/notifications",
            "list_callback_notifications",
            AREA,
            "List a callback's notifications",
            || list_of("CallbackNotification"),
            handler!(list_notifications),
        )
        .list(&[
            (
                "destination_id",
                "string",
                "Only notifications to these callback destinations (cbd_ ids)",
            ),
            ("status", "string", "pending, delivered, retrying or failed"),
        ]),
        Route::new(
            Method::GET,
            "/callbacks/{callback_id}/notifications/{notification_id}",
            "get_callback_notification",
            AREA,
            "Get a notification with the request it sent",
            || obj("CallbackNotification"),
            handler!(get_notification),
        ),
    ]
}

/// The destination as a notification shows it: the delivery service's own id (`sed_`), its
/// retry, and its webhook on get only (as the platform does; a client matches by URL or name).
fn destination_preview(d: &Value, detailed: bool) -> Value {
    json!({
        "object": "callback.notification.destination", "id": d["_sed_id"], "name": d["name"],
        "description": d["description"], "type": "http_endpoint", "event_types": null,
        "retry": d["_retry"],
        "webhook": if detailed {
            json!({"id": d["_webhook_id"], "url": d["url"], "method": "POST",
                   "created_at": d["_webhook_created_at"]})
        } else {
            Value::Null
        },
        "created_at": d["_webhook_created_at"], "updated_at": d["updated_at"],
    })
}

/// A notification as sent: its event (the request on get only) and destination embedded.
pub fn render(db: &Db, n: Value, detailed: bool) -> Result<Value, Fail> {
    let event = db::get(
        db,
        kind::SENT_EVENT,
        n["_event_id"].as_str().unwrap_or_default(),
    )?
    .map(|mut e| {
        if !detailed {
            e["request"] = Value::Null;
        }
        public(e)
    })
    .unwrap_or(Value::Null);
    let dest = db::get(
        db,
        kind::DESTINATION,
        n["_destination_id"].as_str().unwrap_or_default(),
    )?
    .map_or(Value::Null, |d| destination_preview(&d, detailed));
    let mut n = public(n);
    n["event"] = event;
    n["destination"] = dest;
    Ok(n)
}

async fn list_notifications(g: Gen, r: Req) -> Answer {
    let cb = r.param(0).to_string();
    let p = r.list_params()?;
    let conds: Vec<_> = [
        db::any_of("_callback_id", vec![cb.clone()]),
        db::any_of("_destination_id", r.many("destination_id")),
        db::any_of("status", r.many("status")),
    ]
    .into_iter()
    .flatten()
    .collect();
    g.read(move |db| {
        super::callbacks::find(db, &cb)?;
        let page = db::page(db, kind::NOTIFICATION, conds, &p)?;
        let mut items = Vec::with_capacity(page.items.len());
        for n in page.items {
            items.push(render(db, n, false)?);
        }
        Ok(list(crate::api::Page {
            items,
            pagination: page.pagination,
        }))
    })
    .await
}

async fn get_notification(g: Gen, r: Req) -> Answer {
    let (cb, id) = (r.param(0).to_string(), r.param(1).to_string());
    g.read(move |db| {
        super::callbacks::find(db, &cb)?;
        let n = db::get(db, kind::NOTIFICATION, &id)?
            .filter(|n| n["_callback_id"] == cb.as_str())
            .ok_or_else(|| Fail::not_found("callback.notification", &id))?;
        render(db, n, true)
    })
    .await
}
