//! Callbacks of the `event-destinations` generation (`generations.md` §7): tied to integration
//! providers, with the dashboard's `sync` state; callback events and callback instances (read-only).
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{ResourceStatus, open_enum};

open_enum!(
    /// A callback's sync on the dashboard version: nothing is delivered until `synced`.
    SyncStatus { Pending => "pending", Synced => "synced", Failed => "failed" }
);

open_enum!(
    /// A callback event's processing state.
    CallbackEventStatus { Pending => "pending", Processed => "processed", Failed => "failed" }
);

open_enum!(
    /// Where a callback event came from.
    CallbackEventSource { Webhook => "webhook", Polling => "polling" }
);

/// `callback` of the `event-destinations` generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntegrationCallback {
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
    /// The integration.
    #[serde(default)]
    pub integration_id: Option<String>,
    /// The integration provider.
    #[serde(default)]
    pub integration_provider_id: Option<String>,
    /// The provider.
    #[serde(default)]
    pub provider: Option<ProviderPreview>,
    /// The sync state (dashboard version only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<CallbackSync>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(default, with = "super::time::millis_opt")]
    pub updated_at: Option<DateTime<Utc>>,
}

/// `provider#preview`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderPreview {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `pro_…`.
    pub id: String,
    /// Display name.
    #[serde(default)]
    pub name: Option<String>,
    /// Free text.
    #[serde(default)]
    pub description: Option<String>,
    /// URL-safe name.
    #[serde(default)]
    pub slug: Option<String>,
    /// Creation time.
    #[serde(default, with = "super::time::millis_opt")]
    pub created_at: Option<DateTime<Utc>>,
    /// Last change.
    #[serde(default, with = "super::time::millis_opt")]
    pub updated_at: Option<DateTime<Utc>>,
}

/// `callback.sync`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallbackSync {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// pending, synced or failed.
    pub status: SyncStatus,
    /// Why it failed, as sent.
    #[serde(default)]
    pub error: Option<serde_json::Value>,
    /// When it synced.
    #[serde(default, with = "super::time::millis_opt")]
    pub synced_at: Option<DateTime<Utc>>,
}

/// `callback_event`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallbackEvent {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `cbe_…`.
    pub id: String,
    /// pending, processed or failed.
    pub status: CallbackEventStatus,
    /// webhook or polling.
    #[serde(default)]
    pub source: Option<CallbackEventSource>,
    /// The trigger key.
    #[serde(default)]
    pub provider_trigger_key: Option<String>,
    /// What it was mapped to.
    #[serde(default)]
    pub mapped_type: Option<String>,
    /// The mapped id.
    #[serde(default)]
    pub mapped_id: Option<String>,
    /// The callback.
    #[serde(default)]
    pub callback_id: Option<String>,
    /// The callback instance.
    #[serde(default)]
    pub callback_instance_id: Option<String>,
    /// Payload and received webhook (on get only).
    #[serde(default)]
    pub details: Option<CallbackEventDetails>,
    /// When it happened at the provider.
    #[serde(default, with = "super::time::millis_opt")]
    pub occurred_at: Option<DateTime<Utc>>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
}

/// `callback_event.details`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallbackEventDetails {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// Processing outcome.
    #[serde(default)]
    pub status: Option<String>,
    /// The payload.
    #[serde(default)]
    pub payload: Option<serde_json::Value>,
    /// Processing attempts.
    #[serde(default)]
    pub attempt_count: Option<u32>,
    /// Why it failed, as sent.
    #[serde(default)]
    pub error: Option<serde_json::Value>,
    /// The webhook the provider sent, when it came by webhook.
    #[serde(default)]
    pub webhook: Option<ReceivedWebhook>,
}

/// `callback_event.details.webhook`: the webhook received from the provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReceivedWebhook {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// Processing outcome.
    #[serde(default)]
    pub status: Option<String>,
    /// Attempts.
    #[serde(default)]
    pub attempt_count: Option<u32>,
    /// The request received.
    #[serde(default)]
    pub request: Option<ReceivedRequest>,
    /// When it arrived.
    #[serde(default, with = "super::time::millis_opt")]
    pub received_at: Option<DateTime<Utc>>,
}

/// `callback_event.details.webhook.request`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReceivedRequest {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// Usually `POST`.
    #[serde(default)]
    pub method: Option<String>,
    /// Where it arrived.
    #[serde(default)]
    pub url: Option<String>,
    /// Its headers (name → value), as sent.
    #[serde(default)]
    pub headers: Option<serde_json::Map<String, serde_json::Value>>,
    /// Its body, encoded.
    #[serde(default)]
    pub body: Option<EncodedBody>,
}

/// `{encoding: "base64", content: "…"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EncodedBody {
    /// `base64`, …
    pub encoding: String,
    /// The encoded text.
    pub content: String,
}

/// `callback.instance`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallbackInstance {
    /// Marker (its value is open; ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `cbi_…`.
    pub id: String,
    /// The instance's state.
    #[serde(default)]
    pub status: Option<String>,
    /// The callback.
    #[serde(default)]
    pub callback_id: Option<String>,
    /// The integration instance.
    #[serde(default)]
    pub integration_instance_id: Option<String>,
    /// The integration instance's provider.
    #[serde(default)]
    pub integration_instance_provider_id: Option<String>,
    /// Creation time.
    #[serde(default, with = "super::time::millis_opt")]
    pub created_at: Option<DateTime<Utc>>,
    /// Last change.
    #[serde(default, with = "super::time::millis_opt")]
    pub updated_at: Option<DateTime<Utc>>,
}

/// `POST /callbacks` of the `event-destinations` generation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CreateIntegrationCallback {
    /// Required.
    pub integration_id: String,
    /// Required.
    pub integration_provider_id: String,
    /// Display name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Free text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// `PATCH /callbacks/{id}` of the `event-destinations` generation.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct UpdateIntegrationCallback {
    /// New name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// New description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// New metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Value>,
}
