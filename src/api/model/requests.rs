//! Request bodies of the write operations. `None` fields are left out of the JSON.
use serde::{Deserialize, Serialize};

/// Body of `POST /organization/teams`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CreateTeam {
    /// Required.
    pub name: String,
    /// Optional.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Body of `POST /organization/teams/{id}` (update).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct UpdateTeam {
    /// New name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// New description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Body of `POST /organization/teams/{id}/projects`: replaces that project's role set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SetTeamProject {
    /// Project id or slug.
    pub project_id: String,
    /// Team role ids or slugs.
    pub team_role_ids: Vec<String>,
}

/// Body of `POST /organization/teams/{id}/members`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TeamMemberInput {
    /// `oac_…`.
    pub actor_id: String,
}

/// Body of `POST /provider-oauth/token-imports`. Exactly one of deployment and connection.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CreateImport {
    /// The token; never echoed back.
    pub access_token: String,
    /// `svd_…`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_deployment_id: Option<String>,
    /// `poc_…`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connection_id: Option<String>,
    /// Free text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Key-value metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// ISO 8601.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// OpenID token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id_token: Option<String>,
    /// OAuth scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// OAuth token type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_type: Option<String>,
}

/// Body of `PATCH /provider-oauth/token-imports/{id}`; every field optional.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct UpdateImport {
    /// Free text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Key-value metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// A new token (recomputes `identifier`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access_token: Option<String>,
    /// ISO 8601.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// OpenID token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id_token: Option<String>,
    /// OAuth scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// OAuth token type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_type: Option<String>,
}

/// Redacts secrets so a `{:?}` never prints a token.
macro_rules! redacted_debug {
    ($t:ty, $($field:ident),+) => {
        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let mut s = f.debug_struct(stringify!($t));
                $(s.field(stringify!($field), &self.$field);)+
                s.field("access_token", &"<redacted>");
                s.finish_non_exhaustive()
            }
        }
    };
}
redacted_debug!(
    CreateImport,
    server_deployment_id,
    connection_id,
    note,
    expires_at,
    scope,
    token_type
);
redacted_debug!(UpdateImport, note, expires_at, scope, token_type);

/// The `callbacks` of a create-destination request: `{"type":"all"}` or
/// `{"type":"selected","callback_id":[…]}` (the request spelling; replies say `callback_ids`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CallbacksInput {
    /// `all` or `selected`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Present for `selected`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        alias = "callback_ids"
    )]
    pub callback_id: Option<Vec<String>>,
}

impl CallbacksInput {
    /// Every callback.
    pub fn all() -> Self {
        Self {
            kind: "all".into(),
            callback_id: None,
        }
    }

    /// Only these callbacks.
    pub fn selected(ids: Vec<String>) -> Self {
        Self {
            kind: "selected".into(),
            callback_id: Some(ids),
        }
    }
}

/// Body of `POST /callbacks-destinations`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CreateDestination {
    /// Required.
    pub name: String,
    /// Optional.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Absolute http(s) URL.
    pub url: String,
    /// Which callbacks it receives.
    pub callbacks: CallbacksInput,
}

/// Body of `PATCH /callbacks-destinations/{id}`: `description: Some(None)` sends null (clears it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct UpdateDestination {
    /// New name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// New description; `Some(None)` clears it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "double_option"
    )]
    #[schema(value_type = Option<String>)]
    pub description: Option<Option<String>>,
}

/// Tells an absent key from an explicit null.
mod double_option {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<Option<String>>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(inner) => inner.serialize(s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Option<String>>, D::Error> {
        Option::<String>::deserialize(d).map(Some)
    }
}
