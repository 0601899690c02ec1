//! Events, deliveries (with the platform's retry) and attempts with request and response, and
//! event types (`generations.md` §7).
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{RetryPolicy, open_enum};

open_enum!(
    /// A delivery's state.
    DeliveryStatus {
        Pending => "pending",
        Retrying => "retrying",
        Delivered => "delivered",
        Failed => "failed",
        Cancelled => "cancelled",
    }
);

open_enum!(
    /// An attempt's outcome.
    DeliveryAttemptStatus { Succeeded => "succeeded", Failed => "failed" }
);

open_enum!(
    /// Where an event came from.
    EventSource {
        Resource => "resource",
        Callback => "callback",
        Chat => "chat",
        Ping => "ping",
    }
);

impl DeliveryStatus {
    /// Whether the platform will not try again by itself (a retry may be asked).
    #[must_use]
    pub fn is_finished(&self) -> bool {
        matches!(self, Self::Delivered | Self::Failed | Self::Cancelled)
    }
}

/// `event`: one entry of the log of everything delivered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `evnt_…`.
    pub id: String,
    /// Owning organization.
    #[serde(default)]
    pub organization_id: Option<String>,
    /// The instance.
    #[serde(default)]
    pub instance_id: Option<String>,
    /// resource, callback, chat or ping.
    #[serde(default)]
    pub source: Option<EventSource>,
    /// `callback.issues.opened`, …
    pub event_type: String,
    /// The callback, for callback events.
    #[serde(default)]
    pub callback_id: Option<String>,
    /// The callback event.
    #[serde(default)]
    pub callback_event_id: Option<String>,
    /// The trigger key.
    #[serde(default)]
    pub callback_trigger_key: Option<String>,
    /// The chat event.
    #[serde(default)]
    pub chat_event_id: Option<String>,
    /// The chat connection.
    #[serde(default)]
    pub chat_connection_id: Option<String>,
    /// The provider.
    #[serde(default)]
    pub provider_id: Option<String>,
    /// The payload (on get).
    #[serde(default)]
    pub payload: Option<serde_json::Value>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
}

/// `{code, message}` of a failed delivery or attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryError {
    /// `http_503`, `timeout`, …
    #[serde(default)]
    pub code: Option<String>,
    /// What happened.
    #[serde(default)]
    pub message: Option<String>,
}

/// `event.delivery`: one event to one destination.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventDelivery {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `evdi_…`.
    pub id: String,
    /// Owning organization.
    #[serde(default)]
    pub organization_id: Option<String>,
    /// The instance.
    #[serde(default)]
    pub instance_id: Option<String>,
    /// The event.
    pub event_id: String,
    /// The event's type.
    #[serde(default)]
    pub event_type: Option<String>,
    /// The destination.
    pub event_destination_id: String,
    /// `webhook`.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// Its state.
    pub status: DeliveryStatus,
    /// Attempts made.
    #[serde(default)]
    pub attempt_count: u32,
    /// The last failure.
    #[serde(default)]
    pub error: Option<DeliveryError>,
    /// The policy it follows.
    #[serde(default)]
    pub retry: Option<RetryPolicy>,
    /// Attempts (bodies on an attempt's get only; empty in lists).
    #[serde(default)]
    pub attempts: Vec<DeliveryAttempt>,
    /// The last attempt.
    #[serde(default, with = "super::time::millis_opt")]
    pub last_attempt_at: Option<DateTime<Utc>>,
    /// The next attempt, when one is due.
    #[serde(default, with = "super::time::millis_opt")]
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// When it finished.
    #[serde(default, with = "super::time::millis_opt")]
    pub completed_at: Option<DateTime<Utc>>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(default, with = "super::time::millis_opt")]
    pub updated_at: Option<DateTime<Utc>>,
}

/// `event.delivery_attempt`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeliveryAttempt {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `evda_…`.
    pub id: String,
    /// The delivery.
    pub event_delivery_id: String,
    /// The event.
    #[serde(default)]
    pub event_id: Option<String>,
    /// The destination.
    #[serde(default)]
    pub event_destination_id: Option<String>,
    /// succeeded or failed.
    pub status: DeliveryAttemptStatus,
    /// From 1.
    pub attempt_number: u32,
    /// How long it took.
    #[serde(default)]
    pub duration_ms: Option<u64>,
    /// Whether the platform would retry after it.
    #[serde(default)]
    pub is_retryable: Option<bool>,
    /// Why it failed.
    #[serde(default)]
    pub error: Option<DeliveryError>,
    /// The request sent (on get).
    #[serde(default)]
    pub request: Option<AttemptRequest>,
    /// The answer (on get; bodies up to 16 KiB).
    #[serde(default)]
    pub response: Option<AttemptResponse>,
    /// When it started.
    #[serde(default, with = "super::time::millis_opt")]
    pub started_at: Option<DateTime<Utc>>,
    /// When it ended.
    #[serde(default, with = "super::time::millis_opt")]
    pub completed_at: Option<DateTime<Utc>>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
}

/// `{key, value}`: one header as the newer generations write them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderPair {
    /// The name.
    pub key: String,
    /// The value.
    pub value: String,
}

/// The request an attempt sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptRequest {
    /// Where it went.
    pub url: String,
    /// Usually `POST`.
    #[serde(default)]
    pub method: Option<String>,
    /// Its headers.
    #[serde(default)]
    pub headers: Vec<HeaderPair>,
    /// Its body.
    #[serde(default)]
    pub body: Option<String>,
}

impl AttemptRequest {
    /// A header's value (any case).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|h| h.key.eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }
}

/// The answer an attempt got.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptResponse {
    /// HTTP status.
    #[serde(default)]
    pub status_code: Option<u16>,
    /// Its headers.
    #[serde(default)]
    pub headers: Option<Vec<HeaderPair>>,
    /// Its body, up to 16 KiB.
    #[serde(default)]
    pub body: Option<String>,
    /// Whether the body was cut at the limit.
    #[serde(default)]
    pub is_body_truncated: bool,
}

/// `event.type`: an event type a listener can take.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventType {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `session.created`, …
    pub name: String,
    /// What it means.
    #[serde(default)]
    pub description: Option<String>,
}
