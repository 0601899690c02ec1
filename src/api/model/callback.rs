//! `callback`: receives webhooks from MCP servers (read-only).
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::open_enum;

open_enum!(
    /// How a callback gets its events.
    CallbackType {
        WebhookManaged => "webhook_managed",
        Polling => "polling",
        WebhookManual => "webhook_manual",
    }
);

/// `callback`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Callback {
    /// Always `callback`.
    #[serde(default = "callback_object")]
    pub object: String,
    /// `clb_…`.
    pub id: String,
    /// Set only for `webhook_manual`: where an MCP server posts its webhooks.
    pub url: Option<String>,
    /// Display name, nullable.
    pub name: Option<String>,
    /// Free text, nullable.
    pub description: Option<String>,
    /// Kind of callback.
    #[serde(rename = "type")]
    pub kind: CallbackType,
    /// Polling schedule.
    pub schedule: CallbackSchedule,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(with = "super::time::millis")]
    pub updated_at: DateTime<Utc>,
}

fn callback_object() -> String {
    "callback".into()
}

/// `callback.schedule`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CallbackSchedule {
    /// Always `callback.schedule`.
    #[serde(default = "schedule_object")]
    pub object: String,
    /// Seconds between runs.
    pub interval_seconds: i64,
    /// Next run, nullable.
    #[serde(with = "super::time::millis_opt", default)]
    pub next_run_at: Option<DateTime<Utc>>,
}

fn schedule_object() -> String {
    "callback.schedule".into()
}
