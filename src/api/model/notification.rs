//! `callback.notification`: one delivery to a destination, with its attempts (read-only).
use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::open_enum;

open_enum!(
    /// Kind of notification.
    NotificationType { WebhookHttp => "webhook_http" }
);

open_enum!(
    /// Delivery state.
    NotificationStatus {
        Pending => "pending",
        Succeeded => "succeeded",
        Retrying => "retrying",
        Failed => "failed",
    }
);

open_enum!(
    /// Outcome of one attempt.
    AttemptStatus { Succeeded => "succeeded", Failed => "failed" }
);

/// `callback.notification`. It holds no event, callback or destination id: those are in the body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Notification {
    /// Always `callback.notification`.
    #[serde(default = "notification_object")]
    pub object: String,
    /// `cbn_…`.
    pub id: String,
    /// Kind of notification.
    #[serde(rename = "type")]
    pub kind: NotificationType,
    /// Delivery state.
    pub status: NotificationStatus,
    /// Target URL, nullable.
    pub url: Option<String>,
    /// Attempts by index.
    #[serde(default)]
    pub attempts: Vec<Attempt>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
}

fn notification_object() -> String {
    "callback.notification".into()
}

impl Notification {
    /// The most recent attempt, if any.
    pub fn last_attempt(&self) -> Option<&Attempt> {
        self.attempts.iter().max_by_key(|a| a.index)
    }

    /// The event type read from the delivered body (`type` of the first attempt's request body).
    pub fn event_type(&self) -> Option<String> {
        self.attempts
            .iter()
            .filter_map(|a| a.webhook_request.as_ref())
            .find_map(|r| r.body_field("type"))
    }

    /// A string field of the delivered body (e.g. `eventId`, `callbackId`).
    pub fn body_field(&self, key: &str) -> Option<String> {
        self.attempts
            .iter()
            .filter_map(|a| a.webhook_request.as_ref())
            .find_map(|r| r.body_field(key))
    }
}

/// `callback.notification.attempt`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Attempt {
    /// Always `callback.notification.attempt`.
    #[serde(default = "attempt_object")]
    pub object: String,
    /// `cbna_…`.
    pub id: String,
    /// Outcome.
    pub status: AttemptStatus,
    /// From 0.
    pub index: i64,
    /// The recorded HTTP exchange; null when there was no url.
    pub webhook_request: Option<WebhookRequest>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
}

fn attempt_object() -> String {
    "callback.notification.attempt".into()
}

impl Attempt {
    /// The attempt's number as shown to people: counted from 1 (the wire `index` counts from 0).
    #[must_use]
    pub fn number(&self) -> i64 {
        self.index.saturating_add(1)
    }
}

/// `callback.notification.attempt.webhook_request`: the exact request sent and what came back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WebhookRequest {
    /// Always `callback.notification.attempt.webhook_request`.
    #[serde(default = "request_object")]
    pub object: String,
    /// Request id.
    pub id: String,
    /// Target URL.
    pub url: String,
    /// Usually `POST`.
    pub request_method: String,
    /// The exact JSON sent, as a string.
    #[serde(default)]
    pub request_body: Option<String>,
    /// Headers sent.
    #[serde(default)]
    pub request_headers: BTreeMap<String, String>,
    /// Headers received.
    #[serde(default)]
    pub response_headers: BTreeMap<String, String>,
    /// HTTP status; `-1` when no response came.
    pub response_status: i64,
    /// Body received, nullable.
    #[serde(default)]
    pub response_body: Option<String>,
    /// Transport error when there was no response.
    #[serde(default)]
    pub request_error: Option<String>,
    /// Milliseconds.
    pub duration: i64,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
}

fn request_object() -> String {
    "callback.notification.attempt.webhook_request".into()
}

impl WebhookRequest {
    /// A string field at the top level of the request body, when it is JSON.
    pub fn body_field(&self, key: &str) -> Option<String> {
        let body = self.request_body.as_deref()?;
        let v: serde_json::Value = serde_json::from_str(body).ok()?;
        v.get(key)?.as_str().map(str::to_string)
    }

    /// Whether a response arrived.
    pub fn has_response(&self) -> bool {
        self.response_status >= 0
    }
}
