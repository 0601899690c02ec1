//! Incoming webhooks of `webhook_manual` callbacks (the key in the path is the secret), and the
//! built-in receiver the demo destinations point at.
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use rand::Rng;
use serde_json::{Value, json};
use subtle::ConstantTimeEq;

use crate::api::model::CallbackType;
use crate::service::app::{App, HookBody};
use crate::service::errors::{Failure, Reply};
use crate::service::events::fan_out;
use crate::service::records::CallbackRec;

/// `POST /hooks/{key}`: any JSON is an event of that callback, fanned out to its destinations.
#[utoipa::path(
    post,
    path = "/hooks/{key}",
    operation_id = "incoming_hook",
    tag = "hooks",
    description = "Internal (demo): an MCP server's webhook into a `webhook_manual` callback. Not part of \
                   the management API. Answers 400 to a body that is not JSON and 404 to an unknown key.",
    params(("key" = String, Path, description = "The hook key of a `webhook_manual` callback")),
    request_body(content = Object, description = "Any JSON; `type` or `event` names the event"),
    responses(
        (status = 200, description = "Fanned out", body = crate::service::doc_types::HookAccepted),
        (status = 400, description = "The body is not JSON", body = crate::api::ApiError),
        (status = 404, description = "Unknown key", body = crate::api::ApiError),
        (status = 413, description = "The body is larger than the hook intake cap", body = crate::api::ApiError),
        (status = 429, description = "Past `--rate-limit` for this hook key", body = crate::api::ApiError)
    )
)]
pub async fn incoming(
    State(app): State<App>,
    Path(key): Path<String>,
    HookBody(payload): HookBody,
) -> Reply<Json<Value>> {
    let event_type = payload
        .get("type")
        .or_else(|| payload.get("event"))
        .and_then(Value::as_str)
        .unwrap_or("webhook.received")
        .to_string();
    // The key comes from anyone: it is looked up on a read connection through the hook-key
    // index, so an unknown key never reaches the writer or decodes more than a matching row.
    let lookup = key.clone();
    let callback_id = app
        .read(move |db| {
            matching_hook(db.callbacks_by_hook_key::<CallbackRec>(&lookup)?, &lookup)
                .ok_or_else(|| Failure::no_endpoint("/hooks"))
        })
        .await?;
    let (event_id, notifications) = app
        .db(move |db| {
            // Checked again by id on the writer, so the lookup and the fan-out agree even if the
            // callback changed in between (the same answer as an unknown key if it did).
            let current = db.load::<CallbackRec>(&callback_id)?;
            let callback = matching_hook(current.into_iter().collect(), &key)
                .ok_or_else(|| Failure::no_endpoint("/hooks"))?;
            Ok(fan_out(db, &callback, &event_type, payload)?)
        })
        .await?;
    app.delivery.wake();
    Ok(Json(json!({
        "ok": true,
        "event_id": event_id,
        "notification_ids": notifications,
    })))
}

/// The id of the first `webhook_manual` callback among `candidates` whose hook key is `key`,
/// compared in constant time (the index lookup only narrows the candidates).
fn matching_hook(candidates: Vec<CallbackRec>, key: &str) -> Option<String> {
    candidates
        .into_iter()
        .find(|c| {
            c.callback.kind == CallbackType::WebhookManual
                && c.hook_key
                    .as_ref()
                    .is_some_and(|k| bool::from(k.as_bytes().ct_eq(key.as_bytes())))
        })
        .map(|c| c.callback.id)
}

/// `POST /_receiver/{mode}`: `healthy` accepts, `flaky` fails about half the time, `down` fails.
#[utoipa::path(
    post,
    path = "/_receiver/{mode}",
    operation_id = "demo_receiver",
    tag = "hooks",
    description = "Internal (demo): a destination that fails on purpose, to show retries. `healthy` \
                   answers 200; `flaky` answers 503 about half the time; `down` and any other mode \
                   always answer 503. Not part of the management API.",
    params(("mode" = String, Path, description = "`healthy`, `flaky` or `down`")),
    request_body(content = Object, description = "A delivery"),
    responses(
        (status = 200, description = "Accepted", body = crate::service::doc_types::ReceiverReply),
        (status = 503, description = "Refused on purpose (`flaky`, `down`)", body = crate::service::doc_types::ReceiverReply)
    )
)]
pub async fn receiver(Path(mode): Path<String>) -> (StatusCode, Json<Value>) {
    let ok = match mode.as_str() {
        "healthy" => true,
        "flaky" => rand::rng().random_bool(0.5),
        _ => false,
    };
    if ok {
        (StatusCode::OK, Json(json!({ "received": true })))
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({ "received": false, "error": "receiver unavailable" })),
        )
    }
}
