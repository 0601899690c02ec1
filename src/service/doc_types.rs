//! Types that exist only to describe the API in the OpenAPI document (query parameters, the
//! internal endpoints' replies). Routes name them in their `#[utoipa::path]` attributes; this
//! module imports no route, so routes → doc types ← openapi has no cycle.
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};

use crate::api::page::Order;

/// The shared list query of every list operation (parsed by `paging::ListParams`).
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // Only describes the query; the handlers read the raw pairs.
pub struct ListParamsDoc {
    /// Page size, 1–100; 20 when absent.
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// A raw id: the items after it.
    after: Option<String>,
    /// A raw id: the items right before it.
    before: Option<String>,
    /// An opaque `cur_…` token.
    cursor: Option<String>,
    /// Sort order by id (creation time); `asc` when absent.
    #[param(inline)]
    order: Option<Order>,
}

/// The Union filter of `GET /callbacks-destinations`: repeat the key for several values (OR-ed).
#[derive(IntoParams)]
#[into_params(parameter_in = Query, style = Form)]
#[allow(dead_code)]
pub struct DestinationFilterDoc {
    /// Only destinations receiving one of these callbacks.
    #[param(explode)]
    callback_id: Option<Vec<String>>,
}

/// The Union filters of `GET /callbacks-notifications`: repeat a key for several values (OR-ed).
#[derive(IntoParams)]
#[into_params(parameter_in = Query, style = Form)]
#[allow(dead_code, clippy::struct_field_names)] // The names are the query's keys.
pub struct NotificationFilterDoc {
    /// `cb_…` values.
    #[param(explode)]
    callback_id: Option<Vec<String>>,
    /// Event id values.
    #[param(explode)]
    event_id: Option<Vec<String>>,
    /// `cld_…` values.
    #[param(explode)]
    destination_id: Option<Vec<String>>,
}

/// The reply of `POST /hooks/{key}`.
#[derive(Serialize, ToSchema)]
pub struct HookAccepted {
    /// Always true.
    pub ok: bool,
    /// The event the payload became.
    pub event_id: String,
    /// One notification per receiving destination.
    pub notification_ids: Vec<String>,
}

/// The reply of the demo receiver.
#[derive(Serialize, ToSchema)]
pub struct ReceiverReply {
    /// Whether the delivery was accepted.
    pub received: bool,
    /// Set when it was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
