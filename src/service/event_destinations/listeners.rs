//! Listeners (§7): bind a destination to an instance and to event types, callback triggers or
//! chat events; they decide which deliveries a destination gets.
use crate::service::event_destinations::stored::Stored;
use axum::http::Method;
use serde_json::{Value, json};

use super::Gen;
use super::db;
use super::route::{Route, handler};
use super::schemas::{list_of, obj};
use super::wire::{Answer, Fail, Fields, Req, list, now_iso, public};
use crate::service::errors::issue;
use crate::service::ids::new_id;

const AREA: &str = "Event destination listeners";

/// The routes of this area.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Method::GET,
            "/organization/event-destination-listeners",
            "list_event_destination_listeners",
            AREA,
            "List listeners",
            || list_of("EventDestinationListener"),
            handler!(list_listeners),
        )
        .list(&[
            (
                "event_destination_id",
                "string",
                "Only listeners of these destinations",
            ),
            ("instance_id", "string", "Only listeners on these instances"),
            ("type", "string", "event, callback or chat"),
        ]),
        Route::new(
            Method::POST,
            "/organization/event-destination-listeners",
            "create_event_destination_listener",
            AREA,
            "Create a listener",
            || obj("EventDestinationListener"),
            handler!(create),
        )
        .body(|| obj("EventDestinationListenerCreate")),
        Route::new(
            Method::GET,
            "/organization/event-destination-listeners/{listener_id}",
            "get_event_destination_listener",
            AREA,
            "Get a listener",
            || obj("EventDestinationListener"),
            handler!(get),
        ),
        Route::new(
            Method::PATCH,
            "/organization/event-destination-listeners/{listener_id}",
            "update_event_destination_listener",
            AREA,
            "Change a listener's event types or triggers",
            || obj("EventDestinationListener"),
            handler!(update),
        )
        .body(|| obj("EventDestinationListenerUpdate")),
        Route::new(
            Method::DELETE,
            "/organization/event-destination-listeners/{listener_id}",
            "delete_event_destination_listener",
            AREA,
            "Delete a listener (returns it)",
            || obj("EventDestinationListener"),
            handler!(delete),
        ),
    ]
}

async fn list_listeners(g: Gen, r: Req) -> Answer {
    let p = r.list_params()?;
    let conds: Vec<_> = [
        db::any_of("event_destination_id", r.many("event_destination_id")),
        db::any_of("instance_id", r.many("instance_id")),
        db::any_of("type", r.many("type")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let page = g
        .read(move |db| Ok(db::page(db, Stored::Listener, conds, &p)?))
        .await?;
    Ok(list(page))
}

async fn get(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    g.read(move |db| {
        db::get(db, Stored::Listener, &id)?
            .map(public)
            .ok_or_else(|| Fail::not_found("event.destination_listener", &id))
    })
    .await
}

/// A listener record.
#[allow(clippy::too_many_arguments)]
pub fn listener(
    instance: &str,
    destination: &str,
    kind: &str,
    event_types: Option<Vec<String>>,
    callback_id: Option<String>,
    triggers: Option<Vec<String>>,
    chat_connection_id: Option<String>,
    provider_id: Option<String>,
    at: &str,
) -> Value {
    json!({
        "object": "event.destination_listener", "id": new_id("evtl"), "instance_id": instance,
        "event_destination_id": destination, "type": kind, "event_types": event_types,
        "callback_id": callback_id, "triggers": triggers,
        "chat_connection_id": chat_connection_id, "provider_id": provider_id,
        "created_at": at, "updated_at": at,
    })
}

async fn create(g: Gen, r: Req) -> Answer {
    let body = r.object()?;
    let mut f = Fields::new(&body);
    let instance = f.string("instance_id", 100);
    let destination = f.string("event_destination_id", 100);
    let kind = match body.get("type").and_then(Value::as_str) {
        Some(k @ ("event" | "callback" | "chat")) => k.to_string(),
        _ => {
            f.issues.push(issue(
                "invalid_enum",
                "Expected event, callback or chat",
                &["type"],
            ));
            String::new()
        }
    };
    let event_types = f.opt_strings("event_types");
    let triggers = f.opt_strings("triggers");
    let callback_id = f.opt_string("callback_id", 100);
    let provider_id = f.opt_string("provider_id", 100);
    let chat = f.opt_string("chat_connection_id", 100);
    // Missing lists are empty: an event listener with no types hears nothing, a callback
    // listener with no triggers hears every trigger.
    let (event_types, triggers) = (
        Some(event_types.unwrap_or_default()),
        Some(triggers.unwrap_or_default()),
    );
    f.check()?;
    let own_instance = g.0.instance_id.clone();
    g.write(move |db| {
        if instance != own_instance {
            return Err(Fail::not_found("instance", &instance));
        }
        let d = db::get(db, Stored::Destination, &destination)?
            .ok_or_else(|| Fail::not_found("event.destination", &destination))?;
        if d["status"] != "active" {
            return Err(Fail::bad_request(
                "An archived destination cannot get listeners.",
            ));
        }
        if let Some(cb) = &callback_id {
            db::get(db, Stored::Callback, cb)?.ok_or_else(|| Fail::not_found("callback", cb))?;
        }
        let (types, trig, cb, prov, chat) = match kind.as_str() {
            "event" => (event_types, None, None, None, None),
            "callback" => (None, triggers, callback_id, provider_id, None),
            _ => (event_types, None, None, provider_id, chat),
        };
        let l = listener(
            &instance,
            &destination,
            &kind,
            types,
            cb,
            trig,
            chat,
            prov,
            &now_iso(),
        );
        db::put(db, Stored::Listener, &l)?;
        Ok(public(l))
    })
    .await
}

async fn update(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    let body = r.object()?;
    let mut f = Fields::new(&body);
    let event_types = f.opt_strings("event_types");
    let triggers = f.opt_strings("triggers");
    f.check()?;
    g.write(move |db| {
        let mut l = db::get(db, Stored::Listener, &id)?
            .ok_or_else(|| Fail::not_found("event.destination_listener", &id))?;
        let callback = l["type"] == "callback";
        if let Some(t) = event_types.filter(|t| !t.is_empty()) {
            if callback {
                return Err(Fail::bad_request(
                    "A callback listener takes triggers, not event types.",
                ));
            }
            l["event_types"] = t.into();
        }
        if let Some(t) = triggers.filter(|t| !t.is_empty()) {
            if !callback {
                return Err(Fail::bad_request(
                    "Only a callback listener takes triggers.",
                ));
            }
            l["triggers"] = t.into();
        }
        l["updated_at"] = now_iso().into();
        db::put(db, Stored::Listener, &l)?;
        Ok(public(l))
    })
    .await
}

async fn delete(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    g.write(move |db| {
        let l = db::get(db, Stored::Listener, &id)?
            .ok_or_else(|| Fail::not_found("event.destination_listener", &id))?;
        db::delete(db, Stored::Listener, &id)?;
        Ok(public(l))
    })
    .await
}
