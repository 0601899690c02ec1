//! Callback notifications (read-only), with the three Union filters.
use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::list_query;
use crate::api::Page;
use crate::api::model::Notification;
use crate::service::app::App;
use crate::service::delivery::delivery_body;
use crate::service::errors::{Failure, Reply};
use crate::service::paging::union;
use crate::service::store::raw_page_json;

/// `GET /callbacks-notifications`.
#[utoipa::path(
    get,
    path = "/callbacks-notifications",
    operation_id = "list_notifications",
    tag = "notifications",
    params(crate::service::doc_types::ListParamsDoc, crate::service::doc_types::NotificationFilterDoc),
    responses((status = 200, description = "OK", body = crate::api::Page<crate::api::model::Notification>))
)]
pub async fn list(State(app): State<App>, RawQuery(q): RawQuery) -> Reply<Response> {
    let (pairs, params) = list_query(q)?;
    let callbacks = union(&pairs, "callback_id");
    let events = union(&pairs, "event_id");
    let destinations = union(&pairs, "destination_id");
    let page: Page<String> = app
        .read(move |db| Ok(db.notifications_page(&callbacks, &events, &destinations, &params)?))
        .await?;
    // The stored documents are the wire shape: spliced, not decoded and encoded again.
    let body = raw_page_json(&page);
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// `GET /callbacks-notifications/{notification_id}`.
#[utoipa::path(
    get,
    path = "/callbacks-notifications/{notification_id}",
    operation_id = "get_notification",
    tag = "notifications",
    params(("notification_id" = String, Path, description = "Notification id")),
    responses((status = 200, description = "OK", body = crate::api::model::Notification))
)]
pub async fn show(State(app): State<App>, Path(id): Path<String>) -> Reply<Json<Notification>> {
    let n = app
        .read(move |db| {
            let mut n = db
                .notification(&id)?
                .ok_or_else(|| Failure::not_found("callback.notification", id.clone()))?;
            // Pages carry each attempt's body capped (api.md §6); one notification carries the
            // body every attempt sent in full, from its event, so it can be verified and replayed.
            if let Some((event, callback, event_type, payload)) = db.event_body_of(&id)? {
                let body = delivery_body(&event, &id, &callback, &event_type, &payload);
                for a in &mut n.attempts {
                    if let Some(r) = a.webhook_request.as_mut() {
                        r.request_body = Some(body.clone());
                    }
                }
            }
            Ok(n)
        })
        .await?;
    Ok(Json(n))
}
