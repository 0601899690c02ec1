//! Organization event destinations and their listeners (`generations.md` §7): the secret is in the
//! create and rotate answers only.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{ResourceStatus, open_enum};
use crate::api::Secret;

open_enum!(
    /// How a destination spaces its retries.
    RetryStrategy { Exponential => "exponential", Linear => "linear", Fixed => "fixed" }
);

open_enum!(
    /// What a listener binds.
    ListenerType { Event => "event", Callback => "callback", Chat => "chat" }
);

/// `event.destination`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventDestination {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `evtd_…`.
    pub id: String,
    /// Owning organization.
    #[serde(default)]
    pub organization_id: Option<String>,
    /// Display name.
    pub name: String,
    /// Free text.
    #[serde(default)]
    pub description: Option<String>,
    /// active or archived.
    pub status: ResourceStatus,
    /// `webhook`.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// The webhook target.
    #[serde(default)]
    pub webhook: Option<EventWebhook>,
    /// The retry policy.
    #[serde(default)]
    pub retry: Option<RetryPolicy>,
    /// Its listeners.
    #[serde(default)]
    pub listeners: Vec<Listener>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(default, with = "super::time::millis_opt")]
    pub updated_at: Option<DateTime<Utc>>,
    /// When archived.
    #[serde(default, with = "super::time::millis_opt")]
    pub archived_at: Option<DateTime<Utc>>,
}

/// A destination's webhook: URL, method, and the secret in create and rotate answers only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventWebhook {
    /// Where deliveries go.
    pub url: String,
    /// Usually `POST`.
    #[serde(default)]
    pub method: Option<String>,
    /// The HMAC key (null outside create and rotate answers).
    #[serde(default, with = "super::secret_field")]
    pub signing_secret: Option<Secret>,
}

/// `{strategy, max_attempts, base_delay_seconds, max_delay_seconds}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryPolicy {
    /// exponential, linear or fixed.
    pub strategy: RetryStrategy,
    /// At most 25.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u32>,
    /// The base delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_delay_seconds: Option<u64>,
    /// The longest delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_delay_seconds: Option<u64>,
}

impl RetryPolicy {
    /// The policy as an operator gives it (headless flags, console fields): the strategy
    /// (exponential when only the numbers are given) and the numbers left to the platform when
    /// absent.
    #[must_use]
    pub fn from_input(
        strategy: Option<&str>,
        max_attempts: Option<u32>,
        base_delay_seconds: Option<u64>,
        max_delay_seconds: Option<u64>,
    ) -> Self {
        Self {
            strategy: RetryStrategy::from(strategy.unwrap_or("exponential")),
            max_attempts,
            base_delay_seconds,
            max_delay_seconds,
        }
    }
}

/// The most attempts a retry policy allows (`generations.md` §7).
pub const MAX_RETRY_ATTEMPTS: u32 = 25;

/// A retry delay as typed (`10s`, `5m`, `3h`): whole seconds, at least one.
///
/// # Errors
/// Not a duration, or shorter than a second.
pub fn parse_retry_delay(text: &str) -> Result<u64, String> {
    let d = crate::api::selection::parse_duration(text).map_err(|e| e.to_string())?;
    if d.as_secs() == 0 {
        return Err(format!("{text:?} is shorter than a second"));
    }
    Ok(d.as_secs())
}

/// A retry policy's attempt count as typed: 1 to [`MAX_RETRY_ATTEMPTS`].
///
/// # Errors
/// Not a whole number in that range.
pub fn parse_max_attempts(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n) if (1..=MAX_RETRY_ATTEMPTS).contains(&n) => Ok(n),
        _ => Err(format!("a whole number from 1 to {MAX_RETRY_ATTEMPTS}")),
    }
}

/// `event.destination_listener`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Listener {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `evtl_…`.
    pub id: String,
    /// The instance whose events it takes.
    #[serde(default)]
    pub instance_id: Option<String>,
    /// The destination.
    #[serde(default)]
    pub event_destination_id: Option<String>,
    /// event, callback or chat.
    #[serde(rename = "type")]
    pub kind: ListenerType,
    /// Event types (event and chat listeners).
    #[serde(default)]
    pub event_types: Option<Vec<String>>,
    /// The callback (callback listeners; none = every callback).
    #[serde(default)]
    pub callback_id: Option<String>,
    /// Trigger keys (callback listeners).
    #[serde(default)]
    pub triggers: Option<Vec<String>>,
    /// The chat connection (chat listeners).
    #[serde(default)]
    pub chat_connection_id: Option<String>,
    /// The provider (callback and chat listeners).
    #[serde(default)]
    pub provider_id: Option<String>,
    /// Creation time.
    #[serde(default, with = "super::time::millis_opt")]
    pub created_at: Option<DateTime<Utc>>,
    /// Last change.
    #[serde(default, with = "super::time::millis_opt")]
    pub updated_at: Option<DateTime<Utc>>,
}

/// `{url}` of a destination being created or updated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebhookInput {
    /// Where deliveries go.
    pub url: String,
}

/// `POST /organization/event-destinations`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CreateEventDestination {
    /// Required.
    pub name: String,
    /// Always `webhook`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Required.
    pub webhook: WebhookInput,
    /// Free text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The retry policy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<RetryPolicy>,
}

impl CreateEventDestination {
    /// A webhook destination.
    #[must_use]
    pub fn webhook(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            kind: "webhook".into(),
            webhook: WebhookInput { url: url.into() },
            description: None,
            retry: None,
        }
    }
}

/// `PATCH /organization/event-destinations/{id}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct UpdateEventDestination {
    /// New name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// New description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// New URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook: Option<WebhookInput>,
    /// New retry policy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<RetryPolicy>,
}

/// `POST /organization/event-destination-listeners`: every listener names an instance and a
/// destination; the rest depends on its type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CreateListener {
    /// The instance.
    pub instance_id: String,
    /// The destination.
    pub event_destination_id: String,
    /// event, callback or chat.
    #[serde(rename = "type")]
    pub kind: ListenerType,
    /// Event types (event, chat).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_types: Option<Vec<String>>,
    /// One callback (callback; neither this nor a provider = every callback).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callback_id: Option<String>,
    /// One provider (callback, chat).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_id: Option<String>,
    /// Trigger keys (callback).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triggers: Option<Vec<String>>,
    /// One chat connection (chat).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_connection_id: Option<String>,
}

/// `PATCH /organization/event-destination-listeners/{id}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct UpdateListener {
    /// New event types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_types: Option<Vec<String>>,
    /// New trigger keys.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triggers: Option<Vec<String>>,
}
