//! Provider deployments (read-only), callbacks on them (§6: CRUD, delete archives, destinations
//! attached from the callback side and replaced on update, triggers) and their events.
use axum::http::Method;
use serde_json::{Map, Value, json};

use super::db::{self, kind};
use crate::service::errors::issue;
use crate::service::event_destinations::Gen;
use crate::service::event_destinations::callbacks::ranges;
use crate::service::event_destinations::route::{Route, handler};
use crate::service::event_destinations::schemas::{list_of, obj};
use crate::service::event_destinations::wire::{Answer, Fail, Fields, Req, list, now_iso, public};
use crate::service::ids::new_id;
use crate::service::store::Db;

const AREA: &str = "Callbacks";
const DEPLOYMENTS: &str = "Provider deployments";

/// The provider deployments' routes (what a callback is created on).
pub fn deployment_routes() -> Vec<Route> {
    vec![
        Route::new(
            Method::GET,
            "/provider-deployments",
            "list_provider_deployments",
            DEPLOYMENTS,
            "List provider deployments",
            || list_of("ProviderDeployment"),
            handler!(list_deployments),
        )
        .list(&[
            ("id", "string", "Only these deployments"),
            (
                "provider_id",
                "string",
                "Only deployments of these providers",
            ),
        ]),
        Route::new(
            Method::GET,
            "/provider-deployments/{provider_deployment_id}",
            "get_provider_deployment",
            DEPLOYMENTS,
            "Get a provider deployment",
            || obj("ProviderDeployment"),
            handler!(get_deployment),
        ),
    ]
}

/// The routes of callbacks and their events.
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
            ("id", "string", "Only these callbacks"),
            (
                "provider_deployment_id",
                "string",
                "Only callbacks on these provider deployments",
            ),
            ("status", "string", "active, archived or deleted"),
        ]),
        Route::new(
            Method::POST,
            "/callbacks",
            "create_callback",
            AREA,
            "Create a callback on a provider deployment",
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
            "Update a callback (destination_ids replaces the set)",
            || obj("Callback"),
            handler!(update_callback),
        )
        .body(|| obj("CallbackUpdate")),
        Route::new(
            Method::DELETE,
            "/callbacks/{callback_id}",
            "delete_callback",
            AREA,
            "Archive a callback (an archived one is answered as it is)",
            || obj("Callback"),
            handler!(delete_callback),
        ),
        Route::new(
            Method::GET,
            "/callbacks/{callback_id}/events",
            "list_callback_events",
            AREA,
            "List a callback's events",
            || list_of("CallbackEvent"),
            handler!(list_events),
        )
        .list(&[
            ("type", "string", "Only events of these types"),
            ("created_at[gt]", "string", "Created after"),
            ("created_at[lt]", "string", "Created before"),
        ]),
        Route::new(
            Method::GET,
            "/callbacks/{callback_id}/events/{callback_event_id}",
            "get_callback_event",
            AREA,
            "Get a callback's event",
            || obj("CallbackEvent"),
            handler!(get_event),
        ),
    ]
}

/// A deployment as `GET /provider-deployments` sends it.
fn deployment(d: Value) -> Value {
    let mut d = public(d);
    d["object"] = "provider.deployment".into();
    d
}

async fn list_deployments(g: Gen, r: Req) -> Answer {
    let p = r.list_params()?;
    let conds: Vec<_> = [
        db::any_of("id", r.many("id")),
        db::any_of("provider_id", r.many("provider_id")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut page = g
        .read(move |db| Ok(db::page(db, kind::DEPLOYMENT, conds, &p)?))
        .await?;
    page.items = page.items.into_iter().map(deployment).collect();
    Ok(list(page))
}

async fn get_deployment(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    g.read(move |db| {
        db::get(db, kind::DEPLOYMENT, &id)?
            .map(deployment)
            .ok_or_else(|| Fail::not_found("provider.deployment", &id))
    })
    .await
}

/// A callback as sent: its destinations embedded as they are now.
pub fn render(db: &Db, cb: Value) -> Result<Value, Fail> {
    let mut dests = Vec::new();
    for id in cb["_destination_ids"].as_array().into_iter().flatten() {
        if let Some(d) = db::get(db, kind::DESTINATION, id.as_str().unwrap_or_default())? {
            dests.push(super::destinations::render(d, None));
        }
    }
    let mut cb = public(cb);
    cb["destinations"] = dests.into();
    Ok(cb)
}

/// A callback by id, or 404.
pub fn find(db: &Db, id: &str) -> Result<Value, Fail> {
    db::get(db, kind::CALLBACK, id)?.ok_or_else(|| Fail::not_found("callback", id))
}

async fn list_callbacks(g: Gen, r: Req) -> Answer {
    let p = r.list_params()?;
    let conds: Vec<_> = [
        db::any_of("id", r.many("id")),
        db::any_of("provider_deployment.id", r.many("provider_deployment_id")),
        db::any_of("status", r.many("status")),
    ]
    .into_iter()
    .flatten()
    .collect();
    g.read(move |db| {
        let page = db::page(db, kind::CALLBACK, conds, &p)?;
        let mut items = Vec::with_capacity(page.items.len());
        for cb in page.items {
            items.push(render(db, cb)?);
        }
        Ok(list(crate::api::Page {
            items,
            pagination: page.pagination,
        }))
    })
    .await
}

async fn get_callback(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    g.read(move |db| {
        let cb = find(db, &id)?;
        render(db, cb)
    })
    .await
}

/// `poll_interval_seconds_override`: null, or whole seconds from 10 to 86,400.
fn poll_field(f: &mut Fields<'_>, body: &Map<String, Value>) -> Option<Option<u64>> {
    match body.get("poll_interval_seconds_override") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(v) => match v.as_u64().filter(|n| (10..=86_400).contains(n)) {
            Some(n) => Some(Some(n)),
            None => {
                f.issues.push(issue(
                    "invalid_number",
                    "Must be an integer from 10 to 86400",
                    &["poll_interval_seconds_override"],
                ));
                None
            }
        },
    }
}

/// A requested trigger: its id or key and the event types wanted (empty: all of them).
type TriggerAsk = (String, Vec<String>);

/// `triggers[]`: objects with `provider_trigger_id` (an id or a key) and `event_types?`.
fn triggers_field(f: &mut Fields<'_>, body: &Map<String, Value>) -> Option<Vec<TriggerAsk>> {
    let items = match body.get("triggers") {
        None | Some(Value::Null) => return None,
        Some(Value::Array(items)) if items.len() <= 50 => items,
        got => {
            let got = got.cloned();
            f.wrong("triggers", "array", got.as_ref());
            return None;
        }
    };
    let mut out = Vec::new();
    for item in items {
        let id = item["provider_trigger_id"]
            .as_str()
            .filter(|s| !s.trim().is_empty() && s.chars().count() <= 100);
        let types = match item.get("event_types") {
            None | Some(Value::Null) => Some(Vec::new()),
            Some(Value::Array(t)) if t.len() <= 100 => t
                .iter()
                .map(|v| {
                    v.as_str()
                        .filter(|s| !s.trim().is_empty() && s.chars().count() <= 100)
                        .map(String::from)
                })
                .collect(),
            _ => None,
        };
        match (item.is_object(), id, types) {
            (true, Some(id), Some(types)) => out.push((id.to_string(), types)),
            _ => {
                f.issues.push(issue(
                    "invalid_type",
                    "Expected {provider_trigger_id, event_types?}",
                    &["triggers"],
                ));
                return None;
            }
        }
    }
    Some(out)
}

/// The triggers asked for, resolved against the deployment's provider (by id, then key).
fn resolve_triggers(
    db: &Db,
    provider_id: &str,
    asks: Vec<TriggerAsk>,
    at: &str,
) -> Result<Vec<Value>, Fail> {
    let known = db::all_with(db, kind::TRIGGER, "provider_id", provider_id)?;
    let mut out = Vec::new();
    for (ask, types) in asks {
        let t = known
            .iter()
            .find(|t| t["id"] == ask.as_str())
            .or_else(|| known.iter().find(|t| t["key"] == ask.as_str()))
            .ok_or_else(|| Fail::not_found("provider.trigger", &crate::text::line(&ask)))?;
        let types = if types.is_empty() {
            t["event_types"].clone()
        } else {
            types.into()
        };
        out.push(json!({
            "object": "callback.provider_trigger", "id": new_id("cbpt"),
            "provider_trigger": {"object": "provider.trigger#preview", "id": t["id"],
                                 "key": t["key"], "name": t["name"]},
            "event_types": types, "created_at": at,
        }));
    }
    Ok(out)
}

/// The destination ids asked for, each an active destination.
fn check_destinations(db: &Db, ids: &[String]) -> Result<Vec<Value>, Fail> {
    let mut out: Vec<Value> = Vec::new();
    for id in ids {
        let d = db::get(db, kind::DESTINATION, id)?
            .ok_or_else(|| Fail::not_found("callback.destination", id))?;
        if d["status"] != "active" {
            return Err(Fail::bad_request(format!(
                "The callback destination {} is archived",
                crate::text::line(id)
            )));
        }
        if !out.contains(&Value::from(id.as_str())) {
            out.push(id.as_str().into());
        }
    }
    Ok(out)
}

/// A callback record.
pub fn callback(
    deployment: &Value,
    name: &str,
    description: Option<String>,
    destination_ids: Vec<Value>,
    triggers: Vec<Value>,
    at: &str,
) -> Value {
    json!({
        "object": "callback", "id": new_id("cbk"), "status": "active", "name": name,
        "description": description, "metadata": null, "poll_interval_seconds_override": null,
        "provider_deployment": public(deployment.clone()), "destinations": [],
        "provider_triggers": triggers, "created_at": at, "updated_at": at,
        "_destination_ids": destination_ids,
    })
}

async fn create_callback(g: Gen, r: Req) -> Answer {
    let body = r.object()?;
    let mut f = Fields::new(&body);
    let deployment_id = f.string("provider_deployment_id", 100);
    let name = f.string("name", 200);
    let description = f.opt_string("description", 1000);
    let metadata = f.opt_object("metadata");
    let poll = poll_field(&mut f, &body).flatten();
    let destination_ids = f.opt_strings("destination_ids").unwrap_or_default();
    let triggers = triggers_field(&mut f, &body).unwrap_or_default();
    f.check()?;
    g.write(move |db| {
        let dep = db::get(db, kind::DEPLOYMENT, &deployment_id)?
            .ok_or_else(|| Fail::not_found("provider.deployment", &deployment_id))?;
        let at = now_iso();
        let dests = check_destinations(db, &destination_ids)?;
        let triggers = resolve_triggers(
            db,
            dep["provider_id"].as_str().unwrap_or_default(),
            triggers,
            &at,
        )?;
        let mut cb = callback(&dep, &name, description, dests, triggers, &at);
        cb["metadata"] = metadata.map_or(Value::Null, Value::Object);
        cb["poll_interval_seconds_override"] = poll.map_or(Value::Null, Value::from);
        db::put(db, kind::CALLBACK, &cb)?;
        render(db, cb)
    })
    .await
}

async fn update_callback(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    let body = r.object()?;
    let mut f = Fields::new(&body);
    let name = f.opt_string("name", 200);
    let description = f.opt_string("description", 1000);
    let metadata = f.opt_object("metadata");
    let poll = poll_field(&mut f, &body);
    let destination_ids = f.opt_strings("destination_ids");
    let triggers = triggers_field(&mut f, &body);
    f.check()?;
    g.write(move |db| {
        let mut cb = find(db, &id)?;
        let at = now_iso();
        if let Some(n) = name {
            cb["name"] = n.into();
        }
        if body.contains_key("description") {
            cb["description"] = description.map_or(Value::Null, Value::from);
        }
        if body.contains_key("metadata") {
            cb["metadata"] = metadata.map_or(Value::Null, Value::Object);
        }
        if let Some(p) = poll {
            cb["poll_interval_seconds_override"] = p.map_or(Value::Null, Value::from);
        }
        if let Some(ids) = destination_ids {
            cb["_destination_ids"] = check_destinations(db, &ids)?.into();
        }
        if let Some(asks) = triggers {
            let provider = cb["provider_deployment"]["provider_id"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            cb["provider_triggers"] = resolve_triggers(db, &provider, asks, &at)?.into();
        }
        cb["updated_at"] = at.into();
        db::put(db, kind::CALLBACK, &cb)?;
        render(db, cb)
    })
    .await
}

async fn delete_callback(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    g.write(move |db| {
        let mut cb = find(db, &id)?;
        // Archiving an archived callback changes nothing and answers it as it is.
        if cb["status"] == "active" {
            cb["status"] = "archived".into();
            cb["updated_at"] = now_iso().into();
            db::put(db, kind::CALLBACK, &cb)?;
        }
        render(db, cb)
    })
    .await
}

async fn list_events(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    let p = r.list_params()?;
    let mut conds: Vec<_> = [
        db::any_of("callback_id", vec![id.clone()]),
        db::any_of("type", r.many("type")),
    ]
    .into_iter()
    .flatten()
    .collect();
    conds.extend(ranges(&r, "created_at")?);
    g.read(move |db| {
        find(db, &id)?;
        Ok(list(db::page(db, kind::EVENT, conds, &p)?))
    })
    .await
}

async fn get_event(g: Gen, r: Req) -> Answer {
    let (cb, id) = (r.param(0).to_string(), r.param(1).to_string());
    g.read(move |db| {
        find(db, &cb)?;
        db::get(db, kind::EVENT, &id)?
            .filter(|e| e["callback_id"] == cb.as_str())
            .map(public)
            .ok_or_else(|| Fail::not_found("callback.event", &id))
    })
    .await
}
