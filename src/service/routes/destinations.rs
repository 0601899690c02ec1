//! Callback destinations: soft-deleted, never updated in url or selection.
use axum::Json;
use axum::extract::{Path, RawQuery, State};
use chrono::Utc;

use super::list_query;
use crate::api::Page;
use crate::api::model::{CallbackSelection, Destination, DestinationType, WebhookDestination};
use crate::service::app::{App, Body};
use crate::service::errors::{Failure, Reply, issue};
use crate::service::ids::{new_id, random_alnum};
use crate::service::paging::union;
use crate::service::records::{CallbackRec, DestinationRec};
use crate::service::store::Db;
use crate::service::validate::Check;

fn load(db: &Db, id: &str) -> Reply<DestinationRec> {
    db.load::<DestinationRec>(id)?
        .ok_or_else(|| Failure::not_found("callback.destination", id))
}

/// A fresh signing secret: `clb_sec_` + 50 alphanumerics.
pub fn signing_secret() -> String {
    format!("clb_sec_{}", random_alnum(50))
}

/// `GET /callbacks-destinations`: active ones; `callback_id` (Union) keeps those that select any.
#[utoipa::path(
    get,
    path = "/callbacks-destinations",
    operation_id = "list_destinations",
    tag = "destinations",
    params(crate::service::doc_types::ListParamsDoc, crate::service::doc_types::DestinationFilterDoc),
    responses((status = 200, description = "OK", body = crate::api::Page<crate::api::model::Destination>))
)]
pub async fn list(State(app): State<App>, RawQuery(q): RawQuery) -> Reply<Json<Page<Destination>>> {
    let (pairs, params) = list_query(q)?;
    let wanted = union(&pairs, "callback_id");
    let page = app
        .read(move |db| Ok(db.destinations_page::<DestinationRec>(&wanted, &params)?))
        .await?;
    Ok(Json(Page {
        items: page.items.into_iter().map(|r| r.destination).collect(),
        pagination: page.pagination,
    }))
}

/// `GET /callbacks-destinations/{id}`: deleted ones too.
#[utoipa::path(
    get,
    path = "/callbacks-destinations/{destination_id}",
    operation_id = "get_destination",
    tag = "destinations",
    params(("destination_id" = String, Path, description = "`cld_…` id")),
    responses((status = 200, description = "OK", body = crate::api::model::Destination))
)]
pub async fn show(State(app): State<App>, Path(id): Path<String>) -> Reply<Json<Destination>> {
    let rec = app.db(move |db| load(db, &id)).await?;
    Ok(Json(rec.destination))
}

/// Whether `url` is an absolute http(s) URL with a host.
fn is_http_url(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
}

/// `POST /callbacks-destinations`.
#[utoipa::path(
    post,
    path = "/callbacks-destinations",
    operation_id = "create_destination",
    tag = "destinations",
    request_body = crate::api::model::CreateDestination,
    responses((status = 200, description = "OK", body = crate::api::model::Destination))
)]
pub async fn create(State(app): State<App>, Body(body): Body) -> Reply<Json<Destination>> {
    let mut c = Check::body(body)?;
    let name = c.required("name", 1);
    let description = c.nullable("description").flatten();
    let url = c.required("url", 1);
    if let Some(u) = &url
        && !is_http_url(u)
    {
        let mut i = issue(
            "invalid_type",
            "Invalid url: expected an absolute http(s) URL",
            &["url"],
        );
        i.expected = Some("url".into());
        i.received = Some("string".into());
        c.push(i);
    }
    let mut selected = None;
    if c.require_object("callbacks") {
        let kind = c.enum_at(&["callbacks", "type"], &["all", "selected"]);
        if kind.as_deref() == Some("selected") {
            // The request spells it `callback_id`; the reply's `callback_ids` is accepted too.
            let key = if c.has_path(&["callbacks", "callback_id"])
                || !c.has_path(&["callbacks", "callback_ids"])
            {
                "callback_id"
            } else {
                "callback_ids"
            };
            selected = Some(c.nested_list(&["callbacks", key]));
        }
    }
    c.finish()?;
    let selected = selected.map(Option::unwrap_or_default);
    let (name, url) = (name.unwrap_or_default(), url.unwrap_or_default());
    let dest = app
        .db(move |db| {
            let callbacks = match selected {
                None => CallbackSelection::all(),
                Some(ids) => {
                    for id in &ids {
                        if db.load::<CallbackRec>(id)?.is_none() {
                            return Err(Failure::bad_request(
                                "One or more callback IDs are invalid",
                            ));
                        }
                    }
                    let mut unique: Vec<String> = Vec::new();
                    for id in ids {
                        if !unique.contains(&id) {
                            unique.push(id);
                        }
                    }
                    CallbackSelection::selected(unique)
                }
            };
            let destination = Destination {
                object: "callback.destination".into(),
                id: new_id("cld"),
                kind: DestinationType::Webhook,
                name,
                description: description.unwrap_or_default(),
                webhook_destination: Some(WebhookDestination {
                    url,
                    signing_secret: signing_secret(),
                }),
                callbacks,
                created_at: Utc::now(),
            };
            let rec = DestinationRec {
                destination,
                active: true,
            };
            db.save(&rec)?;
            Ok(rec.destination)
        })
        .await?;
    Ok(Json(dest))
}

/// `PATCH /callbacks-destinations/{id}`: name and description only.
#[utoipa::path(
    patch,
    path = "/callbacks-destinations/{destination_id}",
    operation_id = "update_destination",
    tag = "destinations",
    params(("destination_id" = String, Path, description = "`cld_…` id")),
    request_body = crate::api::model::UpdateDestination,
    responses((status = 200, description = "OK", body = crate::api::model::Destination))
)]
pub async fn update(
    State(app): State<App>,
    Path(id): Path<String>,
    Body(body): Body,
) -> Reply<Json<Destination>> {
    let mut c = Check::body(body)?;
    let name = if c.has("name") {
        c.required("name", 1)
    } else {
        None
    };
    let description = c.nullable("description");
    c.finish()?;
    let dest = app
        .db(move |db| {
            let mut rec = load(db, &id)?;
            if !rec.active {
                return Err(Failure::bad_request(
                    "Cannot update an inactive callback destination",
                ));
            }
            if let Some(n) = name {
                rec.destination.name = n;
            }
            if let Some(d) = description {
                rec.destination.description = d.unwrap_or_default();
            }
            db.save(&rec)?;
            Ok(rec.destination)
        })
        .await?;
    Ok(Json(dest))
}

/// `DELETE /callbacks-destinations/{id}`: a soft delete.
#[utoipa::path(
    delete,
    path = "/callbacks-destinations/{destination_id}",
    operation_id = "delete_destination",
    tag = "destinations",
    params(("destination_id" = String, Path, description = "`cld_…` id")),
    responses((status = 200, description = "OK", body = crate::api::model::Destination))
)]
pub async fn remove(State(app): State<App>, Path(id): Path<String>) -> Reply<Json<Destination>> {
    let dest = app
        .db(move |db| {
            let mut rec = load(db, &id)?;
            if !rec.active {
                return Err(Failure::bad_request(
                    "Callback destination is already inactive",
                ));
            }
            rec.active = false;
            db.save(&rec)?;
            Ok(rec.destination)
        })
        .await?;
    Ok(Json(dest))
}
