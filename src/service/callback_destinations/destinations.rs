//! Callback destinations (§6): CRUD with an editable URL, delete archives; attached to callbacks
//! from the callback side. The signing secret is on detailed answers, never in lists.
use axum::http::Method;
use serde_json::{Map, Value, json};

use super::db::{self, kind};
use crate::service::errors::issue;
use crate::service::event_destinations::Gen;
use crate::service::event_destinations::destinations::new_secret;
use crate::service::event_destinations::route::{Route, handler};
use crate::service::event_destinations::schemas::{list_of, obj};
use crate::service::event_destinations::wire::{Answer, Fail, Fields, Req, list, now_iso, public};
use crate::service::ids::new_id;

const AREA: &str = "Callback destinations";

/// The routes of this area.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Method::GET,
            "/callback-destinations",
            "list_callback_destinations",
            AREA,
            "List callback destinations (archived ones too; `status` filters)",
            || list_of("CallbackDestination"),
            handler!(list_destinations),
        )
        .list(&[
            ("id", "string", "Only these destinations"),
            (
                "callback_id",
                "string",
                "Only destinations of these callbacks",
            ),
            ("status", "string", "active or archived"),
        ]),
        Route::new(
            Method::POST,
            "/callback-destinations",
            "create_callback_destination",
            AREA,
            "Create a callback destination (attach it from the callback)",
            || obj("CallbackDestinationDetailed"),
            handler!(create),
        )
        .body(|| obj("CallbackDestinationCreate")),
        Route::new(
            Method::GET,
            "/callback-destinations/{callback_destination_id}",
            "get_callback_destination",
            AREA,
            "Get a callback destination with its signing secret",
            || obj("CallbackDestinationDetailed"),
            handler!(get),
        ),
        Route::new(
            Method::PATCH,
            "/callback-destinations/{callback_destination_id}",
            "update_callback_destination",
            AREA,
            "Update a callback destination (its URL too)",
            || obj("CallbackDestinationDetailed"),
            handler!(update),
        )
        .body(|| obj("CallbackDestinationUpdate")),
        Route::new(
            Method::DELETE,
            "/callback-destinations/{callback_destination_id}",
            "delete_callback_destination",
            AREA,
            "Archive a callback destination",
            || obj("CallbackDestination"),
            handler!(archive),
        ),
    ]
}

/// A destination as sent; `secret` only on detailed answers.
pub fn render(d: Value, secret: Option<String>) -> Value {
    let mut d = public(d);
    if let Some(s) = secret {
        d["signing_secret"] = s.into();
    }
    d
}

/// The default retry of a destination (as the platform's delivery service sets it).
pub fn default_retry() -> Value {
    json!({"type": "exponential", "max_attempts": 10, "delay_seconds": 30})
}

/// A destination record (its secret lives apart); `retry` is the delivery service's.
pub fn destination(
    name: &str,
    description: Option<String>,
    url: &str,
    retry: Value,
    at: &str,
) -> Value {
    json!({
        "object": "callback.destination", "id": new_id("cbd"), "status": "active",
        "name": name, "description": description, "metadata": null, "url": url,
        "method": "POST", "created_at": at, "updated_at": at,
        "_retry": retry, "_sed_id": new_id("sed"), "_webhook_id": new_id("sdw"),
        "_webhook_created_at": at,
    })
}

/// A `url`: absolute http(s), at most 2,048 characters.
fn url_field(f: &mut Fields<'_>, body: &Map<String, Value>, required: bool) -> Option<String> {
    match body.get("url") {
        Some(Value::String(u))
            if u.len() <= 2048
                && url::Url::parse(u).is_ok_and(|p| {
                    matches!(p.scheme(), "http" | "https") && p.host_str().is_some()
                }) =>
        {
            Some(u.clone())
        }
        None | Some(Value::Null) if !required => None,
        Some(Value::String(_)) => {
            f.issues.push(issue(
                "invalid_url",
                "Expected an http or https URL",
                &["url"],
            ));
            None
        }
        got => {
            let got = got.cloned();
            f.wrong("url", "string", got.as_ref());
            None
        }
    }
}

async fn list_destinations(g: Gen, r: Req) -> Answer {
    let p = r.list_params()?;
    let mut conds: Vec<_> = [
        db::any_of("id", r.many("id")),
        db::any_of("status", r.many("status")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let callbacks = r.many("callback_id");
    if !callbacks.is_empty() {
        let marks = vec!["?"; callbacks.len()].join(", ");
        conds.push((
            format!(
                "id IN (SELECT d.value FROM gen_records c, json_each(c.data, '$._destination_ids') d
                 WHERE c.kind = '{}' AND c.id IN ({marks}))",
                kind::CALLBACK
            ),
            callbacks,
        ));
    }
    let mut page = g
        .read(move |db| Ok(db::page(db, kind::DESTINATION, conds, &p)?))
        .await?;
    page.items = page.items.into_iter().map(|d| render(d, None)).collect();
    Ok(list(page))
}

/// A destination by id, or 404.
pub fn find(db: &crate::service::store::Db, id: &str) -> Result<Value, Fail> {
    db::get(db, kind::DESTINATION, id)?.ok_or_else(|| Fail::not_found("callback.destination", id))
}

async fn get(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    g.read(move |db| {
        let d = find(db, &id)?;
        let secret = db::secret(db, &id)?;
        Ok(render(d, secret))
    })
    .await
}

async fn create(g: Gen, r: Req) -> Answer {
    let body = r.object()?;
    let mut f = Fields::new(&body);
    let name = f.string("name", 200);
    let description = f.opt_string("description", 1000);
    let metadata = f.opt_object("metadata");
    let url = url_field(&mut f, &body, true);
    f.check()?;
    g.write(move |db| {
        let mut d = destination(
            &name,
            description,
            url.as_deref().unwrap_or_default(),
            default_retry(),
            &now_iso(),
        );
        d["metadata"] = metadata.map_or(Value::Null, Value::Object);
        let secret = new_secret();
        db::put(db, kind::DESTINATION, &d)?;
        db::set_secret(db, d["id"].as_str().unwrap_or_default(), &secret)?;
        Ok(render(d, Some(secret)))
    })
    .await
}

async fn update(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    let body = r.object()?;
    let mut f = Fields::new(&body);
    let name = f.opt_string("name", 200);
    let description = f.opt_string("description", 1000);
    let metadata = f.opt_object("metadata");
    let url = url_field(&mut f, &body, false);
    f.check()?;
    g.write(move |db| {
        // An archived destination stays editable (it receives nothing either way).
        let mut d = find(db, &id)?;
        if let Some(n) = name {
            d["name"] = n.into();
        }
        if body.contains_key("description") {
            d["description"] = description.map_or(Value::Null, Value::from);
        }
        if body.contains_key("metadata") {
            d["metadata"] = metadata.map_or(Value::Null, Value::Object);
        }
        if let Some(u) = url {
            d["url"] = u.into();
        }
        d["updated_at"] = now_iso().into();
        db::put(db, kind::DESTINATION, &d)?;
        let secret = db::secret(db, &id)?;
        Ok(render(d, secret))
    })
    .await
}

async fn archive(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    let d = g
        .write(move |db| {
            let mut d = find(db, &id)?;
            if d["status"] == "active" {
                d["status"] = "archived".into();
                d["updated_at"] = now_iso().into();
                db::put(db, kind::DESTINATION, &d)?;
                // Its open notifications are due at once: the worker ends them as failed
                // rather than keeping them scheduled for a destination that no longer takes any.
                let now = chrono::Utc::now().timestamp_millis();
                for n in db::all_with(db, kind::NOTIFICATION, "_destination_id", &id)? {
                    if matches!(n["status"].as_str(), Some("pending" | "retrying")) {
                        db::set_due(db, n["id"].as_str().unwrap_or_default(), Some(now))?;
                    }
                }
            }
            Ok(render(d, None))
        })
        .await?;
    g.0.worker.wake();
    Ok(d)
}
