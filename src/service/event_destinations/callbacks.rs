//! Callbacks tied to integration providers (§7) with the dashboard's `sync` state, their events
//! and instances (read-only). Instance paths.
use crate::service::event_destinations::stored::Stored;
use axum::http::Method;
use serde_json::{Value, json};

use super::Gen;
use super::db;
use super::pipeline;
use super::route::{Route, handler};
use super::schemas::{list_of, obj};
use super::wire::{Answer, Fail, Fields, Req, Version, list, now_iso, public};
use crate::service::ids::new_id;

const AREA: &str = "Callbacks";

/// The routes of this area.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Method::GET,
            "/callbacks",
            "list_callbacks",
            AREA,
            "List callbacks",
            || list_of("Callback"),
            handler!(list_callbacks),
        )
        .list(&[
            (
                "integration_id",
                "string",
                "Only callbacks of these integrations",
            ),
            (
                "integration_provider_id",
                "string",
                "Only callbacks of these integration providers",
            ),
            ("provider_id", "string", "Only callbacks of these providers"),
            ("status", "string", "active, archived or deleted"),
        ]),
        Route::new(
            Method::POST,
            "/callbacks",
            "create_callback",
            AREA,
            "Create a callback on an integration provider (synced before anything is delivered)",
            || obj("Callback"),
            handler!(create_callback),
        )
        .body(|| obj("CallbackCreate")),
        Route::new(
            Method::GET,
            "/callbacks/{callback_id}",
            "get_callback",
            AREA,
            "Get a callback",
            || obj("Callback"),
            handler!(get_callback),
        ),
        Route::new(
            Method::PATCH,
            "/callbacks/{callback_id}",
            "update_callback",
            AREA,
            "Update a callback",
            || obj("Callback"),
            handler!(update_callback),
        )
        .body(|| obj("CallbackUpdate")),
        Route::new(
            Method::DELETE,
            "/callbacks/{callback_id}",
            "delete_callback",
            AREA,
            "Delete an active callback",
            || obj("Callback"),
            handler!(delete_callback),
        ),
        Route::new(
            Method::GET,
            "/callback-events",
            "list_callback_events",
            AREA,
            "List the events callbacks received",
            || list_of("CallbackEvent"),
            handler!(list_events),
        )
        .list(&[
            ("callback_id", "string", "Only events of these callbacks"),
            ("status", "string", "pending, processed or failed"),
            ("source", "string", "webhook or polling"),
            ("occurred_at[gt]", "string", "Occurred after (ISO 8601)"),
            ("occurred_at[lt]", "string", "Occurred before (ISO 8601)"),
        ]),
        Route::new(
            Method::GET,
            "/callback-events/{callback_event_id}",
            "get_callback_event",
            AREA,
            "Get a callback event with its details",
            || obj("CallbackEvent"),
            handler!(get_event),
        ),
        Route::new(
            Method::GET,
            "/callback-instances",
            "list_callback_instances",
            AREA,
            "List callback instances",
            || list_of("CallbackInstance"),
            handler!(list_instances),
        )
        .list(&[("callback_id", "string", "Only instances of these callbacks")]),
        Route::new(
            Method::GET,
            "/callback-instances/{callback_instance_id}",
            "get_callback_instance",
            AREA,
            "Get a callback instance",
            || obj("CallbackInstance"),
            handler!(get_instance),
        ),
    ]
}

/// A callback as a version shows it: magnetar has no `sync`.
pub fn render(v: Value, version: Version) -> Value {
    let mut v = public(v);
    if let (Version::Magnetar, Value::Object(m)) = (version, &mut v) {
        m.remove("sync");
    }
    v
}

/// `created_at[gt]`-style range conditions on a time field.
pub fn ranges(r: &Req, field: &str) -> Result<Vec<(String, Vec<String>)>, Fail> {
    let mut out = Vec::new();
    for (op, sql) in [("gt", ">"), ("gte", ">="), ("lt", "<"), ("lte", "<=")] {
        let key = format!("{field}[{op}]");
        if let Some((_, v)) = r.pairs.iter().find(|(k, _)| *k == key) {
            let t = chrono::DateTime::parse_from_rfc3339(v).map_err(|_| {
                Fail::invalid(vec![crate::service::errors::issue(
                    "invalid_date",
                    "Expected an ISO 8601 date",
                    &[key.as_str()],
                )])
            })?;
            out.push((
                format!("json_extract(data, '$.{field}') {sql} ?"),
                vec![super::wire::iso(t.with_timezone(&chrono::Utc))],
            ));
        }
    }
    Ok(out)
}

async fn list_callbacks(g: Gen, r: Req) -> Answer {
    let p = r.list_params()?;
    let conds: Vec<_> = [
        db::any_of("integration_id", r.many("integration_id")),
        db::any_of("integration_provider_id", r.many("integration_provider_id")),
        db::any_of("provider.id", r.many("provider_id")),
        db::any_of("status", r.many("status")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let page = g
        .read(move |db| Ok(db::page(db, Stored::Callback, conds, &p)?))
        .await?;
    let mut out = list(page);
    if let Some(items) = out["items"].as_array_mut() {
        for i in items.iter_mut() {
            *i = render(i.take(), r.version);
        }
    }
    Ok(out)
}

async fn get_callback(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    let v = g
        .read(move |db| {
            db::get(db, Stored::Callback, &id)?.ok_or_else(|| Fail::not_found("callback", &id))
        })
        .await?;
    Ok(render(v, r.version))
}

async fn create_callback(g: Gen, r: Req) -> Answer {
    let body = r.object()?;
    let mut f = Fields::new(&body);
    let integration_id = f.string("integration_id", 100);
    let integration_provider_id = f.string("integration_provider_id", 100);
    let name = f.opt_string("name", 200);
    let description = f.opt_string("description", 1000);
    f.check()?;
    let state = g.clone();
    let v = g
        .write(move |db| {
            let ip = db::get(db, Stored::IntegrationProvider, &integration_provider_id)?
                .filter(|ip| ip["integration_id"] == integration_id.as_str())
                .ok_or_else(|| Fail::not_found("integration_provider", &integration_provider_id))?;
            let provider = db::get(
                db,
                Stored::Provider,
                ip["provider_id"].as_str().unwrap_or_default(),
            )?
            .ok_or_else(|| Fail::not_found("provider", ""))?;
            let cb = callback(
                &integration_id,
                &ip,
                &provider,
                name.as_deref(),
                description,
                &now_iso(),
                "pending",
            );
            db::put(db, Stored::Callback, &cb)?;
            db::put(db, Stored::CallbackInstance, &instance(&cb, &ip))?;
            pipeline::resource_event(db, &state, "callback.created", &cb)?;
            Ok(cb)
        })
        .await?;
    g.0.worker.wake();
    Ok(render(v, r.version))
}

async fn update_callback(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    let body = r.object()?;
    let mut f = Fields::new(&body);
    let name = f.opt_string("name", 200);
    let description = f.opt_string("description", 1000);
    let metadata = f.opt_object("metadata");
    f.check()?;
    let state = g.clone();
    let v = g
        .write(move |db| {
            let mut cb = db::get(db, Stored::Callback, &id)?
                .ok_or_else(|| Fail::not_found("callback", &id))?;
            if let Some(n) = name {
                cb["name"] = n.into();
            }
            if body.contains_key("description") {
                cb["description"] = description.map_or(Value::Null, Value::from);
            }
            if body.contains_key("metadata") {
                cb["metadata"] = metadata.map_or(Value::Null, Value::Object);
            }
            cb["updated_at"] = now_iso().into();
            db::put(db, Stored::Callback, &cb)?;
            pipeline::resource_event(db, &state, "callback.updated", &cb)?;
            Ok(cb)
        })
        .await?;
    g.0.worker.wake();
    Ok(render(v, r.version))
}

async fn delete_callback(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    let state = g.clone();
    let v = g
        .write(move |db| {
            let mut cb = db::get(db, Stored::Callback, &id)?
                .ok_or_else(|| Fail::not_found("callback", &id))?;
            if cb["status"] != "active" {
                return Err(Fail::rule(
                    "callback_not_active",
                    "Only an active callback can be deleted.",
                ));
            }
            cb["status"] = "deleted".into();
            cb["updated_at"] = now_iso().into();
            db::put(db, Stored::Callback, &cb)?;
            pipeline::resource_event(db, &state, "callback.deleted", &cb)?;
            Ok(cb)
        })
        .await?;
    g.0.worker.wake();
    Ok(render(v, r.version))
}

async fn list_events(g: Gen, r: Req) -> Answer {
    let p = r.list_params()?;
    let mut conds: Vec<_> = [
        db::any_of("callback_id", r.many("callback_id")),
        db::any_of("status", r.many("status")),
        db::any_of("source", r.many("source")),
    ]
    .into_iter()
    .flatten()
    .collect();
    conds.extend(ranges(&r, "occurred_at")?);
    let page = g
        .read(move |db| Ok(db::page(db, Stored::CallbackEvent, conds, &p)?))
        .await?;
    let mut out = list(page);
    if let Some(items) = out["items"].as_array_mut() {
        for i in items.iter_mut() {
            i["details"] = Value::Null;
        }
    }
    Ok(out)
}

async fn get_event(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    g.read(move |db| {
        db::get(db, Stored::CallbackEvent, &id)?
            .map(public)
            .ok_or_else(|| Fail::not_found("callback_event", &id))
    })
    .await
}

async fn list_instances(g: Gen, r: Req) -> Answer {
    let p = r.list_params()?;
    let conds: Vec<_> = db::any_of("callback_id", r.many("callback_id"))
        .into_iter()
        .collect();
    let page = g
        .read(move |db| Ok(db::page(db, Stored::CallbackInstance, conds, &p)?))
        .await?;
    Ok(list(page))
}

async fn get_instance(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    g.read(move |db| {
        db::get(db, Stored::CallbackInstance, &id)?
            .map(public)
            .ok_or_else(|| Fail::not_found("callback.instance", &id))
    })
    .await
}

/// A provider's preview as a callback embeds it.
fn provider_preview(p: &Value) -> Value {
    json!({
        "object": "provider#preview", "id": p["id"], "name": p["name"],
        "description": p["description"], "slug": p["slug"], "created_at": p["created_at"],
        "updated_at": p["updated_at"],
    })
}

/// A callback record; `sync` is `pending` (synced by the worker shortly) or `synced`.
pub fn callback(
    integration_id: &str,
    ip: &Value,
    provider: &Value,
    name: Option<&str>,
    description: Option<String>,
    at: &str,
    sync: &str,
) -> Value {
    json!({
        "object": "callback", "id": new_id("cbk"), "status": "active",
        "name": name.map_or_else(|| provider["name"].clone(), Value::from),
        "description": description, "metadata": null, "integration_id": integration_id,
        "integration_provider_id": ip["id"], "provider": provider_preview(provider),
        "sync": {"object": "callback.sync", "status": sync, "error": null,
                 "synced_at": if sync == "synced" { Value::from(at) } else { Value::Null }},
        "created_at": at, "updated_at": at,
    })
}

/// The instance a callback receives on.
pub fn instance(cb: &Value, ip: &Value) -> Value {
    json!({
        "object": "callback.instance", "id": new_id("cbi"), "status": "active",
        "callback_id": cb["id"], "integration_instance_id": ip["_integration_instance_id"],
        "integration_instance_provider_id": ip["_instance_provider_id"],
        "created_at": cb["created_at"], "updated_at": cb["created_at"],
    })
}
