//! `callback.destination`: where callbacks are forwarded.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::open_enum;

open_enum!(
    /// Kind of destination.
    DestinationType { Webhook => "webhook" }
);

open_enum!(
    /// Which callbacks a destination receives.
    SelectionType { All => "all", Selected => "selected" }
);

/// `callback.destination`. No `updated_at`, no status: deleted ones vanish from lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Destination {
    /// Always `callback.destination`.
    #[serde(default = "destination_object")]
    pub object: String,
    /// `cld_…`.
    pub id: String,
    /// Kind of destination.
    #[serde(rename = "type")]
    pub kind: DestinationType,
    /// Display name.
    pub name: String,
    /// Never null: `""` when unset.
    #[serde(default)]
    pub description: String,
    /// The webhook target, nullable.
    pub webhook_destination: Option<WebhookDestination>,
    /// Selection of callbacks.
    pub callbacks: CallbackSelection,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
}

fn destination_object() -> String {
    "callback.destination".into()
}

/// URL and signing secret of a webhook destination. `Debug` masks the secret.
#[derive(Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WebhookDestination {
    /// Where deliveries go.
    pub url: String,
    /// `clb_sec_…`: the HMAC key of `Metorial-Signature`.
    pub signing_secret: String,
}

/// `{"type":"all"}` or `{"type":"selected","callback_ids":[…]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CallbackSelection {
    /// All or selected.
    #[serde(rename = "type")]
    pub kind: SelectionType,
    /// Present for `selected`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callback_ids: Option<Vec<String>>,
}

impl CallbackSelection {
    /// Every callback.
    pub fn all() -> Self {
        Self {
            kind: SelectionType::All,
            callback_ids: None,
        }
    }

    /// Only the given callbacks.
    pub fn selected(ids: Vec<String>) -> Self {
        Self {
            kind: SelectionType::Selected,
            callback_ids: Some(ids),
        }
    }

    /// Whether this selection includes the callback.
    pub fn includes(&self, callback_id: &str) -> bool {
        match self.kind {
            SelectionType::All => true,
            _ => self
                .callback_ids
                .as_ref()
                .is_some_and(|ids| ids.iter().any(|i| i == callback_id)),
        }
    }
}

impl std::fmt::Debug for WebhookDestination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookDestination")
            .field("url", &self.url)
            .field(
                "signing_secret",
                &crate::api::secret::mask(&self.signing_secret),
            )
            .finish()
    }
}
