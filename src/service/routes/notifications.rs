//! Callback notifications (read-only), with the three Union filters.
use axum::Json;
use axum::extract::{Path, RawQuery, State};

use super::list_query;
use crate::api::Page;
use crate::api::model::Notification;
use crate::service::app::App;
use crate::service::errors::{Failure, Reply};
use crate::service::paging::{paginate, union};

/// `GET /callbacks-notifications`.
#[utoipa::path(
    get,
    path = "/callbacks-notifications",
    operation_id = "list_notifications",
    tag = "notifications",
    params(crate::service::doc_types::ListParamsDoc, crate::service::doc_types::NotificationFilterDoc),
    responses((status = 200, description = "OK", body = crate::api::Page<crate::api::model::Notification>))
)]
pub async fn list(
    State(app): State<App>,
    RawQuery(q): RawQuery,
) -> Reply<Json<Page<Notification>>> {
    let (pairs, params) = list_query(q)?;
    let callbacks = union(&pairs, "callback_id");
    let events = union(&pairs, "event_id");
    let destinations = union(&pairs, "destination_id");
    let items = app
        .db(move |db| Ok(db.notifications(&callbacks, &events, &destinations)?))
        .await?;
    Ok(Json(paginate(items, |n: &Notification| &n.id, &params)))
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
        .db(move |db| {
            db.notification(&id)?
                .ok_or_else(|| Failure::not_found("callback.notification", id))
        })
        .await?;
    Ok(Json(n))
}
