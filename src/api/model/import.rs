//! `provider_oauth.import`: an OAuth token obtained elsewhere and stored for a connection.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::open_enum;

open_enum!(
    /// Whether the import is usable: `expired` once `expires_at` has passed.
    ImportStatus { Active => "active", Expired => "expired" }
);

/// `provider_oauth.import`. The access token itself is never returned; `Debug` masks the id token.
#[derive(Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ProviderOauthImport {
    /// Always `provider_oauth.import`.
    #[serde(default = "import_object")]
    pub object: String,
    /// `poti_…`.
    pub id: String,
    /// Active or expired.
    pub status: ImportStatus,
    /// Free text, nullable.
    pub note: Option<String>,
    /// Key-value metadata, `{}` by default.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub metadata: serde_json::Map<String, serde_json::Value>,
    /// `poc_…`, nullable.
    pub connection_id: Option<String>,
    /// Only non-null in the reply to a create.
    #[serde(default)]
    pub id_token: Option<String>,
    /// OAuth scope.
    #[serde(default)]
    pub scope: Option<String>,
    /// OAuth token type.
    #[serde(default)]
    pub token_type: Option<String>,
    /// One-way hash of the access token.
    #[serde(default)]
    pub identifier: Option<String>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Expiry, nullable.
    #[serde(with = "super::time::millis_opt", default)]
    pub expires_at: Option<DateTime<Utc>>,
}

fn import_object() -> String {
    "provider_oauth.import".into()
}

impl std::fmt::Debug for ProviderOauthImport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderOauthImport")
            .field("id", &self.id)
            .field("status", &self.status)
            .field("note", &self.note)
            .field("metadata", &self.metadata)
            .field("connection_id", &self.connection_id)
            .field(
                "id_token",
                &self.id_token.as_deref().map(crate::api::secret::mask),
            )
            .field("scope", &self.scope)
            .field("token_type", &self.token_type)
            .field("identifier", &self.identifier)
            .field("created_at", &self.created_at)
            .field("expires_at", &self.expires_at)
            .finish()
    }
}
