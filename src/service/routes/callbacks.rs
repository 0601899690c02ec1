//! Callbacks (read-only).
use axum::Json;
use axum::extract::{Path, RawQuery, State};

use super::list_query;
use crate::api::Page;
use crate::api::model::Callback;
use crate::service::app::App;
use crate::service::errors::{Failure, Reply};
use crate::service::records::{CallbackRec, render_callback};

/// `GET /callbacks`.
#[utoipa::path(
    get,
    path = "/callbacks",
    operation_id = "list_callbacks",
    tag = "callbacks",
    params(crate::service::doc_types::ListParamsDoc),
    responses((status = 200, description = "OK", body = crate::api::Page<crate::api::model::Callback>))
)]
pub async fn list(State(app): State<App>, RawQuery(q): RawQuery) -> Reply<Json<Page<Callback>>> {
    let (_, params) = list_query(q)?;
    let page = app
        .read(move |db| Ok(db.page_of::<CallbackRec>(&params)?))
        .await?;
    Ok(Json(Page {
        items: page
            .items
            .into_iter()
            .map(|r| render_callback(&app.base_url, r))
            .collect(),
        pagination: page.pagination,
    }))
}

/// `GET /callbacks/{callback_id}`.
#[utoipa::path(
    get,
    path = "/callbacks/{callback_id}",
    operation_id = "get_callback",
    tag = "callbacks",
    params(("callback_id" = String, Path, description = "`cb_…` id")),
    responses((status = 200, description = "OK", body = crate::api::model::Callback))
)]
pub async fn show(State(app): State<App>, Path(id): Path<String>) -> Reply<Json<Callback>> {
    let rec = app
        .db(move |db| {
            db.load::<CallbackRec>(&id)?
                .ok_or_else(|| Failure::not_found("callback", id))
        })
        .await?;
    Ok(Json(render_callback(&app.base_url, rec)))
}
