//! `provider.auth_import`: provider auth imports of both newer generations (`generations.md` §5),
//! immutable records with no status and no token.
use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// `provider.auth_import`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuthImport {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `paci_…`.
    pub id: String,
    /// The note given at import.
    #[serde(default)]
    pub note: Option<String>,
    /// Where the import came from.
    #[serde(default)]
    pub ip: Option<String>,
    /// The importing client.
    #[serde(default)]
    pub user_agent: Option<String>,
    /// Free key/values.
    #[serde(default)]
    pub metadata: Option<serde_json::Value>,
    /// The auth config it made.
    #[serde(default)]
    pub auth_config: Option<AuthConfig>,
    /// The provider.
    #[serde(default)]
    pub provider_id: Option<String>,
    /// The provider deployment, if given.
    #[serde(default)]
    pub provider_deployment_id: Option<String>,
    /// The auth method.
    #[serde(default)]
    pub auth_method_id: Option<String>,
    /// The auth credentials, if any.
    #[serde(default)]
    pub credentials_id: Option<String>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Expiry, if any.
    #[serde(default, with = "super::time::millis_opt")]
    pub expires_at: Option<DateTime<Utc>>,
}

/// `provider.auth_config`: what an import made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuthConfig {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `pac_…`.
    pub id: String,
    /// `manual`, …
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// `manual`, …
    #[serde(default)]
    pub source: Option<String>,
    /// `active`, …
    #[serde(default)]
    pub status: Option<String>,
    /// The provider's default config.
    #[serde(default)]
    pub is_default: Option<bool>,
    /// The provider.
    #[serde(default)]
    pub provider_id: Option<String>,
    /// Display name.
    #[serde(default)]
    pub name: Option<String>,
    /// Free text.
    #[serde(default)]
    pub description: Option<String>,
    /// Free key/values.
    #[serde(default)]
    pub metadata: Option<serde_json::Value>,
    /// Tool filter, as sent.
    #[serde(default)]
    pub tool_filter: Option<serde_json::Value>,
    /// The provider deployment.
    #[serde(default)]
    pub deployment: Option<super::DeploymentPreview>,
    /// The credentials, as sent.
    #[serde(default)]
    pub credentials: Option<serde_json::Value>,
    /// The auth method, as sent.
    #[serde(default)]
    pub auth_method: Option<serde_json::Value>,
    /// Creation time.
    #[serde(default, with = "super::time::millis_opt")]
    pub created_at: Option<DateTime<Utc>>,
    /// Last change.
    #[serde(default, with = "super::time::millis_opt")]
    pub updated_at: Option<DateTime<Utc>>,
}

/// `provider.capabilities.auth_config.schema`: what an import's `value` must hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuthImportSchema {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `{type: "json_schema", schema: {…}}`.
    #[serde(default)]
    pub schema: serde_json::Value,
    /// `encrypted`, …
    #[serde(default)]
    pub visibility: Option<String>,
    /// The provider specification.
    #[serde(default)]
    pub specification_id: Option<String>,
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

impl AuthImportSchema {
    /// The fields `value` takes, and whether each is required (from the JSON schema).
    #[must_use]
    pub fn fields(&self) -> Vec<(String, bool)> {
        let inner = self.schema.get("schema").unwrap_or(&self.schema);
        let required: Vec<&str> = inner
            .get("required")
            .and_then(|r| r.as_array())
            .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        inner
            .get("properties")
            .and_then(|p| p.as_object())
            .map(|p| {
                p.keys()
                    .map(|k| (k.clone(), required.contains(&k.as_str())))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The credential of an import (`{"access_token": …}`): sent once, never shown, logged or kept.
#[derive(Clone, PartialEq)]
pub struct CredentialValue(serde_json::Map<String, serde_json::Value>);

impl CredentialValue {
    /// Wraps the credential object.
    #[must_use]
    pub fn new(value: serde_json::Map<String, serde_json::Value>) -> Self {
        Self(value)
    }

    /// The field names, for messages (never the values).
    #[must_use]
    pub fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

impl CredentialValue {
    /// The value as typed or read: a JSON object such as `{"access_token": …}`. The error says
    /// nothing of the text (it is a secret, and the parser's message could quote it).
    ///
    /// # Errors
    /// Not a JSON object.
    pub fn parse(text: &str) -> Result<Self, String> {
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(m)) => Ok(Self::new(m)),
            _ => Err("not a JSON object (such as {\"access_token\": \"…\"})".into()),
        }
    }
}

impl fmt::Debug for CredentialValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CredentialValue({:?}: masked)", self.keys())
    }
}

impl Serialize for CredentialValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// `POST /provider-auth-config-imports`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CreateAuthImport {
    /// Required.
    pub note: String,
    /// The credential (required).
    pub value: CredentialValue,
    /// Free key/values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// The provider.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_id: Option<String>,
    /// The provider deployment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_deployment_id: Option<String>,
    /// The auth config.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_auth_config_id: Option<String>,
    /// The auth method.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_auth_method_id: Option<String>,
}

/// Filters of `GET /provider-auth-config-imports` (each several values OR-ed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthImportFilter {
    /// `id`.
    pub ids: Vec<String>,
    /// `provider_id`.
    pub provider_ids: Vec<String>,
    /// `provider_auth_credentials_id`.
    pub credentials_ids: Vec<String>,
    /// `provider_auth_config_id`.
    pub auth_config_ids: Vec<String>,
    /// `provider_deployment_id`.
    pub deployment_ids: Vec<String>,
}
