//! Webhooks of the `callback-destinations` generation (`generations.md` §6): callbacks on provider
//! deployments, callback destinations attached from the callback side, notifications per callback
//! (an `attempt_count`, the sent request embedded, no attempts list) and callback events.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::event_delivery::{DeliveryError, HeaderPair};
use super::open_enum;
use crate::api::Secret;

open_enum!(
    /// A callback's or a destination's state.
    ResourceStatus { Active => "active", Archived => "archived", Deleted => "deleted" }
);

open_enum!(
    /// A per-callback notification's delivery state.
    CallbackNotificationStatus {
        Pending => "pending",
        Delivered => "delivered",
        Retrying => "retrying",
        Failed => "failed",
    }
);

open_enum!(
    /// Whether a callback event was passed on.
    EventDeliveryStatus {
        Pending => "pending",
        Sent => "sent",
        Failed => "failed",
        Skipped => "skipped",
    }
);

/// `provider.deployment#preview`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeploymentPreview {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `pde_…`.
    pub id: String,
    /// The provider's default deployment.
    #[serde(default)]
    pub is_default: Option<bool>,
    /// Display name.
    #[serde(default)]
    pub name: Option<String>,
    /// Free text.
    #[serde(default)]
    pub description: Option<String>,
    /// Free key/values.
    #[serde(default)]
    pub metadata: Option<serde_json::Value>,
    /// The provider.
    #[serde(default)]
    pub provider_id: Option<String>,
    /// Creation time.
    #[serde(default, with = "super::time::millis_opt")]
    pub created_at: Option<DateTime<Utc>>,
    /// Last change.
    #[serde(default, with = "super::time::millis_opt")]
    pub updated_at: Option<DateTime<Utc>>,
}

/// `callback` of the `callback-destinations` generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeploymentCallback {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `cbk_…`.
    pub id: String,
    /// active, archived or deleted.
    pub status: ResourceStatus,
    /// Display name.
    #[serde(default)]
    pub name: Option<String>,
    /// Free text.
    #[serde(default)]
    pub description: Option<String>,
    /// Free key/values.
    #[serde(default)]
    pub metadata: Option<serde_json::Value>,
    /// Seconds between polls, when overridden.
    #[serde(default)]
    pub poll_interval_seconds_override: Option<u64>,
    /// The provider deployment it belongs to.
    #[serde(default)]
    pub provider_deployment: Option<DeploymentPreview>,
    /// The destinations attached.
    #[serde(default)]
    pub destinations: Vec<CallbackDestination>,
    /// The provider triggers and their event types.
    #[serde(default)]
    pub provider_triggers: Vec<CallbackTrigger>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(with = "super::time::millis")]
    pub updated_at: DateTime<Utc>,
}

/// `callback.provider_trigger`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallbackTrigger {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `cbpt_…`.
    pub id: String,
    /// The trigger.
    #[serde(default)]
    pub provider_trigger: Option<TriggerPreview>,
    /// Event types taken from it.
    #[serde(default)]
    pub event_types: Vec<String>,
    /// Creation time.
    #[serde(default, with = "super::time::millis_opt")]
    pub created_at: Option<DateTime<Utc>>,
}

/// `provider.trigger#preview`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TriggerPreview {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `ptr_…`.
    pub id: String,
    /// Trigger key.
    #[serde(default)]
    pub key: Option<String>,
    /// Display name.
    #[serde(default)]
    pub name: Option<String>,
}

/// `callback.destination` of the `callback-destinations` generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallbackDestination {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `cbd_…`.
    pub id: String,
    /// active or archived (lists include archived ones).
    pub status: ResourceStatus,
    /// Display name.
    pub name: String,
    /// Free text.
    #[serde(default)]
    pub description: Option<String>,
    /// Free key/values.
    #[serde(default)]
    pub metadata: Option<serde_json::Value>,
    /// Where deliveries go.
    pub url: String,
    /// Usually `POST`.
    #[serde(default)]
    pub method: Option<String>,
    /// On detailed answers when available; never in lists.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::secret_field"
    )]
    pub signing_secret: Option<Secret>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(default, with = "super::time::millis_opt")]
    pub updated_at: Option<DateTime<Utc>>,
}

/// `callback.notification` of the `callback-destinations` generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallbackNotification {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `sdi_…`.
    pub id: String,
    /// Delivery state.
    pub status: CallbackNotificationStatus,
    /// The last failure.
    #[serde(default)]
    pub error: Option<DeliveryError>,
    /// Attempts made.
    #[serde(default)]
    pub attempt_count: u32,
    /// The event, with the sent request on get (null in lists).
    #[serde(default)]
    pub event: Option<NotificationEvent>,
    /// The destination (its id may be the delivery service's `sed_…`).
    #[serde(default)]
    pub destination: Option<NotificationDestination>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(default, with = "super::time::millis_opt")]
    pub updated_at: Option<DateTime<Utc>>,
    /// The last attempt.
    #[serde(default, with = "super::time::millis_opt")]
    pub last_attempt_at: Option<DateTime<Utc>>,
    /// The next attempt, when retrying.
    #[serde(default, with = "super::time::millis_opt")]
    pub next_attempt_at: Option<DateTime<Utc>>,
}

/// `callback.notification.event`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotificationEvent {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `sev_…`.
    pub id: String,
    /// The event type.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// Topics it was published on.
    #[serde(default)]
    pub topics: Vec<String>,
    /// The event's own state.
    #[serde(default)]
    pub status: Option<String>,
    /// Destinations it went to.
    #[serde(default)]
    pub destination_count: Option<u32>,
    /// Of those, delivered.
    #[serde(default)]
    pub success_count: Option<u32>,
    /// Of those, failed.
    #[serde(default)]
    pub failure_count: Option<u32>,
    /// The sent request (on get only).
    #[serde(default)]
    pub request: Option<SentRequest>,
    /// Creation time.
    #[serde(default, with = "super::time::millis_opt")]
    pub created_at: Option<DateTime<Utc>>,
    /// Last change.
    #[serde(default, with = "super::time::millis_opt")]
    pub updated_at: Option<DateTime<Utc>>,
}

/// The request a notification sent: body and the event's own headers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SentRequest {
    /// The body as sent.
    #[serde(default)]
    pub body: Option<String>,
    /// The event's headers.
    #[serde(default)]
    pub headers: Vec<HeaderPair>,
}

/// `callback.notification.destination`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotificationDestination {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `sed_…` or `cbd_…` (match by id, then URL, then name).
    pub id: String,
    /// Display name.
    #[serde(default)]
    pub name: Option<String>,
    /// Free text.
    #[serde(default)]
    pub description: Option<String>,
    /// `http_endpoint`, …
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// Event types it takes, if limited.
    #[serde(default)]
    pub event_types: Option<Vec<String>>,
    /// Its retry rule.
    #[serde(default)]
    pub retry: Option<NotificationRetry>,
    /// Its webhook (null in lists).
    #[serde(default)]
    pub webhook: Option<NotificationWebhook>,
    /// Creation time.
    #[serde(default, with = "super::time::millis_opt")]
    pub created_at: Option<DateTime<Utc>>,
    /// Last change.
    #[serde(default, with = "super::time::millis_opt")]
    pub updated_at: Option<DateTime<Utc>>,
}

/// `{type: linear|exponential, max_attempts, delay_seconds}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotificationRetry {
    /// linear or exponential.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// At most this many attempts.
    #[serde(default)]
    pub max_attempts: Option<u32>,
    /// The delay step.
    #[serde(default)]
    pub delay_seconds: Option<u64>,
}

/// The webhook a notification went to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotificationWebhook {
    /// `sdw_…`.
    pub id: String,
    /// Where it went.
    pub url: String,
    /// Usually `POST`.
    #[serde(default)]
    pub method: Option<String>,
    /// Creation time.
    #[serde(default, with = "super::time::millis_opt")]
    pub created_at: Option<DateTime<Utc>>,
}

/// `callback.event` of the `callback-destinations` generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeploymentCallbackEvent {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `cbe_…`.
    pub id: String,
    /// The event type.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// The source.
    #[serde(default)]
    pub source_id: Option<String>,
    /// The trigger key.
    #[serde(default)]
    pub trigger_key: Option<String>,
    /// What the trigger received.
    #[serde(default)]
    pub input: Option<serde_json::Value>,
    /// What it made of it.
    #[serde(default)]
    pub output: Option<serde_json::Value>,
    /// Whether it was passed on.
    pub delivery_status: EventDeliveryStatus,
    /// The callback.
    #[serde(default)]
    pub callback_id: Option<String>,
    /// The callback instance, if any.
    #[serde(default)]
    pub callback_instance_id: Option<String>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
}

/// One trigger of a callback being created or updated (**(open)** on the platform).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerInput {
    /// The provider trigger.
    pub provider_trigger_id: String,
    /// Only these event types, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_types: Option<Vec<String>>,
}

impl TriggerInput {
    /// A trigger as typed: `ID` or `ID=type,type` (only those event types).
    ///
    /// # Errors
    /// No trigger id before the `=`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (id, types) = match text.split_once('=') {
            Some((id, types)) => (id, Some(types)),
            None => (text, None),
        };
        let id = id.trim();
        if id.is_empty() {
            return Err("a provider trigger id, then optionally =type,type".into());
        }
        let event_types = types.map(|t| {
            t.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        });
        Ok(Self {
            provider_trigger_id: id.to_string(),
            event_types,
        })
    }
}

/// `POST /callbacks` of the `callback-destinations` generation.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CreateDeploymentCallback {
    /// Required.
    pub provider_deployment_id: String,
    /// Required.
    pub name: String,
    /// Free text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Free key/values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Value>,
    /// Seconds between polls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poll_interval_seconds_override: Option<u64>,
    /// Destinations to attach.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_ids: Option<Vec<String>>,
    /// Triggers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triggers: Option<Vec<TriggerInput>>,
}

/// `PATCH /callbacks/{id}`: `destination_ids` replaces the set.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct UpdateDeploymentCallback {
    /// New name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// New description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// New metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Value>,
    /// Seconds between polls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poll_interval_seconds_override: Option<u64>,
    /// The whole set of destinations (empty: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_ids: Option<Vec<String>>,
    /// Triggers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triggers: Option<Vec<TriggerInput>>,
}

/// `POST /callback-destinations`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CreateCallbackDestination {
    /// Required.
    pub name: String,
    /// Required.
    pub url: String,
    /// Free text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Free key/values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Value>,
}

/// `PATCH /callback-destinations/{id}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct UpdateCallbackDestination {
    /// New name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// New description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// New metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Value>,
    /// New URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}
