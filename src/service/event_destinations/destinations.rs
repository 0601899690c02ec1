//! Organization event destinations (§7): list, get, create, update, archive (cancelling pending
//! and retrying deliveries), rotate the secret (the old one stops at once), ping through the
//! real pipeline. The secret is shown in the answers to create and rotate only.
use crate::service::event_destinations::stored::Stored;
use axum::http::Method;
use serde_json::{Map, Value, json};

use super::Gen;
use super::db;
use super::pipeline;
use super::route::{Route, handler};
use super::schemas::{list_of, obj};
use super::wire::{Answer, Fail, Fields, Req, list, now_iso, public};
use super::worker::MAX_ATTEMPTS;
use crate::service::errors::issue;
use crate::service::ids::{new_id, random_alnum};
use crate::service::store::Db;

const AREA: &str = "Event destinations";

/// The routes of this area.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Method::GET,
            "/organization/event-destinations",
            "list_event_destinations",
            AREA,
            "List event destinations",
            || list_of("EventDestination"),
            handler!(list_destinations),
        )
        .list(&[
            ("status", "string", "active or archived"),
            (
                "callback_id",
                "string",
                "Only destinations with a listener on these callbacks",
            ),
        ]),
        Route::new(
            Method::POST,
            "/organization/event-destinations",
            "create_event_destination",
            AREA,
            "Create a webhook destination (its signing secret is shown once)",
            || obj("EventDestination"),
            handler!(create),
        )
        .body(|| obj("EventDestinationCreate")),
        Route::new(
            Method::GET,
            "/organization/event-destinations/{event_destination_id}",
            "get_event_destination",
            AREA,
            "Get an event destination",
            || obj("EventDestination"),
            handler!(get),
        ),
        Route::new(
            Method::PATCH,
            "/organization/event-destinations/{event_destination_id}",
            "update_event_destination",
            AREA,
            "Update an event destination",
            || obj("EventDestination"),
            handler!(update),
        )
        .body(|| obj("EventDestinationUpdate")),
        Route::new(
            Method::POST,
            "/organization/event-destinations/{event_destination_id}/archive",
            "archive_event_destination",
            AREA,
            "Archive a destination; its pending and retrying deliveries are cancelled",
            || obj("EventDestination"),
            handler!(archive),
        ),
        Route::new(
            Method::POST,
            "/organization/event-destinations/{event_destination_id}/rotate-webhook-secret",
            "rotate_event_destination_secret",
            AREA,
            "Replace the signing secret (the old one stops at once; the new one is shown once)",
            || obj("EventDestination"),
            handler!(rotate),
        ),
        Route::new(
            Method::POST,
            "/organization/event-destinations/{event_destination_id}/ping",
            "ping_event_destination",
            AREA,
            "Send a test event through the real pipeline; returns its delivery",
            || obj("EventDelivery"),
            handler!(ping),
        ),
    ]
}

/// A destination as sent: its listeners embedded, the secret only when given.
fn render(db: &Db, d: Value, secret: Option<String>) -> Result<Value, Fail> {
    let id = d["id"].as_str().unwrap_or_default().to_string();
    let mut d = public(d);
    d["listeners"] = db::all_with(db, Stored::Listener, "event_destination_id", &id)?
        .into_iter()
        .map(public)
        .collect::<Vec<_>>()
        .into();
    d["webhook"]["signing_secret"] = secret.map_or(Value::Null, Value::from);
    Ok(d)
}

async fn list_destinations(g: Gen, r: Req) -> Answer {
    let p = r.list_params()?;
    let mut conds: Vec<_> = db::any_of("status", r.many("status")).into_iter().collect();
    let callbacks = r.many("callback_id");
    if !callbacks.is_empty() {
        let marks = vec!["?"; callbacks.len()].join(", ");
        conds.push((
            format!(
                "id IN (SELECT json_extract(l.data, '$.event_destination_id') FROM gen_records l
                 WHERE l.kind = '{listener}' AND json_extract(l.data, '$.callback_id') IN ({marks}))",
                listener = Stored::Listener
            ),
            callbacks,
        ));
    }
    g.read(move |db| {
        let page = db::page(db, Stored::Destination, conds, &p)?;
        let mut items = Vec::with_capacity(page.items.len());
        for d in page.items {
            items.push(render(db, d, None)?);
        }
        Ok(list(crate::api::Page {
            items,
            pagination: page.pagination,
        }))
    })
    .await
}

async fn get(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    g.read(move |db| {
        let d = db::get(db, Stored::Destination, &id)?
            .ok_or_else(|| Fail::not_found("event.destination", &id))?;
        render(db, d, None)
    })
    .await
}

/// A `webhook.url`: absolute http(s).
fn url_field(f: &mut Fields<'_>, webhook: &Map<String, Value>, required: bool) -> Option<String> {
    match webhook.get("url") {
        Some(Value::String(u))
            if u.len() <= 2048
                && url::Url::parse(u).is_ok_and(|p| {
                    matches!(p.scheme(), "http" | "https") && p.host_str().is_some()
                }) =>
        {
            Some(u.clone())
        }
        None | Some(Value::Null) if !required => None,
        got @ (None
        | Some(
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::Array(_) | Value::Object(_),
        )) => {
            let got = got.cloned();
            f.wrong("url", "string", got.as_ref());
            if let Some(last) = f.issues.last_mut() {
                last.path = vec!["webhook".into(), "url".into()];
            }
            None
        }
        _ => {
            f.issues.push(issue(
                "invalid_url",
                "Expected an http or https URL",
                &["webhook", "url"],
            ));
            None
        }
    }
}

/// A `retry` object, completed with the defaults and checked against the limits.
fn retry_field(f: &mut Fields<'_>, given: Option<Map<String, Value>>, base: &Value) -> Value {
    let mut out = base.clone();
    let Some(given) = given else { return out };
    for (key, min, max) in [
        ("max_attempts", 1, MAX_ATTEMPTS),
        ("base_delay_seconds", 1, 86_400),
        ("max_delay_seconds", 1, 86_400),
    ] {
        match given.get(key) {
            None | Some(Value::Null) => {}
            Some(v) => match v
                .as_u64()
                .or_else(|| {
                    v.as_f64()
                        .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= 1e9)
                        .map(|f| f as u64)
                })
                .filter(|n| (min..=max).contains(n))
            {
                Some(n) => out[key] = n.into(),
                None => f.issues.push(issue(
                    "invalid_number",
                    format!("Must be an integer from {min} to {max}"),
                    &["retry", key],
                )),
            },
        }
    }
    match given.get("strategy") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if matches!(s.as_str(), "exponential" | "linear" | "fixed") => {
            out["strategy"] = s.clone().into();
        }
        Some(_) => f.issues.push(issue(
            "invalid_enum",
            "Expected exponential, linear or fixed",
            &["retry", "strategy"],
        )),
    }
    // A longest delay below the base is read as the base (every delay is clamped to both).
    if out["max_delay_seconds"].as_u64() < out["base_delay_seconds"].as_u64() {
        out["max_delay_seconds"] = out["base_delay_seconds"].clone();
    }
    out
}

/// The default retry policy.
pub fn default_retry() -> Value {
    json!({"strategy": "exponential", "max_attempts": 8, "base_delay_seconds": 10, "max_delay_seconds": 10_800})
}

/// A new signing secret.
pub fn new_secret() -> String {
    format!("whsec_{}", random_alnum(32))
}

/// A destination record (its secret lives apart).
pub fn destination(
    org: &str,
    name: &str,
    description: Option<String>,
    url: &str,
    retry: Value,
    at: &str,
) -> Value {
    json!({
        "object": "event.destination", "id": new_id("evtd"), "organization_id": org,
        "name": name, "description": description, "status": "active", "type": "webhook",
        "webhook": {"url": url, "method": "POST", "signing_secret": null}, "retry": retry,
        "listeners": [], "created_at": at, "updated_at": at, "archived_at": null,
    })
}

async fn create(g: Gen, r: Req) -> Answer {
    let body = r.object()?;
    let mut f = Fields::new(&body);
    let name = f.string("name", 200);
    let description = f.opt_string("description", 1000);
    match body.get("type") {
        Some(Value::String(t)) if t == "webhook" => {}
        _ => f
            .issues
            .push(issue("invalid_enum", "Expected \"webhook\"", &["type"])),
    }
    let webhook = f.object("webhook");
    let url = url_field(&mut f, &webhook, true);
    let retry_given = f.opt_object("retry");
    let retry = retry_field(&mut f, retry_given, &default_retry());
    f.check()?;
    let org = g.0.org_id.clone();
    g.write(move |db| {
        let d = destination(
            &org,
            &name,
            description,
            url.as_deref().unwrap_or_default(),
            retry,
            &now_iso(),
        );
        let secret = new_secret();
        db::put(db, Stored::Destination, &d)?;
        db::set_secret(db, d["id"].as_str().unwrap_or_default(), &secret)?;
        render(db, d, Some(secret))
    })
    .await
}

async fn update(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    let body = r.object()?;
    let mut f = Fields::new(&body);
    let name = f.opt_string("name", 200);
    let description = f.opt_string("description", 1000);
    let webhook = f.opt_object("webhook").unwrap_or_default();
    let url = url_field(&mut f, &webhook, false);
    let retry_given = f.opt_object("retry");
    f.check()?;
    g.write(move |db| {
        let mut d = db::get(db, Stored::Destination, &id)?
            .ok_or_else(|| Fail::not_found("event.destination", &id))?;
        let mut f = Fields::new(&body);
        let retry = retry_field(&mut f, retry_given, &d["retry"]);
        f.check()?;
        if let Some(n) = name {
            d["name"] = n.into();
        }
        if body.contains_key("description") {
            d["description"] = description.map_or(Value::Null, Value::from);
        }
        if let Some(u) = url {
            d["webhook"]["url"] = u.into();
        }
        d["retry"] = retry;
        d["updated_at"] = now_iso().into();
        db::put(db, Stored::Destination, &d)?;
        render(db, d, None)
    })
    .await
}

/// Cancels a destination's pending and retrying deliveries.
pub fn cancel_open(db: &Db, destination_id: &str) -> Result<usize, Fail> {
    let now = now_iso();
    let mut n = 0;
    for mut d in db::all_with(db, Stored::Delivery, "event_destination_id", destination_id)? {
        if matches!(d["status"].as_str(), Some("pending" | "retrying")) {
            d["status"] = "cancelled".into();
            d["next_attempt_at"] = Value::Null;
            d["completed_at"] = now.clone().into();
            d["updated_at"] = now.clone().into();
            db::put(db, Stored::Delivery, &d)?;
            db::set_due(db, d["id"].as_str().unwrap_or_default(), None)?;
            n += 1;
        }
    }
    Ok(n)
}

async fn archive(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    g.write(move |db| {
        let mut d = db::get(db, Stored::Destination, &id)?
            .ok_or_else(|| Fail::not_found("event.destination", &id))?;
        if d["status"] != "archived" {
            let now = now_iso();
            d["status"] = "archived".into();
            d["archived_at"] = now.clone().into();
            d["updated_at"] = now.into();
            db::put(db, Stored::Destination, &d)?;
            cancel_open(db, &id)?;
        }
        render(db, d, None)
    })
    .await
}

async fn rotate(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    g.write(move |db| {
        let mut d = db::get(db, Stored::Destination, &id)?
            .ok_or_else(|| Fail::not_found("event.destination", &id))?;
        let secret = new_secret();
        db::set_secret(db, &id, &secret)?;
        d["updated_at"] = now_iso().into();
        db::put(db, Stored::Destination, &d)?;
        render(db, d, Some(secret))
    })
    .await
}

async fn ping(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    let (org, instance) = (g.0.org_id.clone(), g.0.instance_id.clone());
    let v = g
        .write(move |db| {
            let d = db::get(db, Stored::Destination, &id)?
                .ok_or_else(|| Fail::not_found("event.destination", &id))?;
            let now = now_iso();
            let e = pipeline::event(
                &org,
                &instance,
                "ping",
                "ping",
                None,
                json!({"message": "A test event from Metorial"}),
                &now,
            );
            db::put(db, Stored::Event, &e)?;
            let mut delivery = pipeline::delivery(&e, &d, &now);
            if d["status"] == "active" {
                db::set_due(
                    db,
                    delivery["id"].as_str().unwrap_or_default(),
                    Some(chrono::Utc::now().timestamp_millis()),
                )?;
            } else {
                // Through the same pipeline: an archived destination's deliveries are cancelled.
                delivery["status"] = "cancelled".into();
                delivery["next_attempt_at"] = Value::Null;
                delivery["completed_at"] = now.clone().into();
            }
            db::put(db, Stored::Delivery, &delivery)?;
            Ok(public(delivery))
        })
        .await?;
    g.0.worker.wake();
    Ok(v)
}
