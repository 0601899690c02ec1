//! Provider OAuth token imports: status, note, connection, expiry. The token is never shown.
use super::ops::{self, Verb, Write};
use super::teams::dash;
use super::width::Width;
use super::{
    Column, Description, Headless, SortKey, Tone, absolute, field, lines_or_dash, or_dash,
};
use crate::api::generation::Generation;
use crate::api::model::{CreateImport, ImportStatus, ProviderOauthImport, UpdateImport};
use crate::api::{ApiRequest, ListQuery, NotificationFilter};
use serde_json::{Map, Value};

/// A column of this resource.
type C = Column<ProviderOauthImport>;

fn tone(i: &ProviderOauthImport) -> Tone {
    match i.status {
        ImportStatus::Active => Tone::Good,
        ImportStatus::Expired => Tone::Off,
        ImportStatus::Other(_) => Tone::Unknown,
    }
}

/// Imports.
pub static IMPORTS: Description<ProviderOauthImport> = Description {
    name: "imports",
    aliases: &["imports", "import", "imp", "im", "poti"],
    id_prefix: "poti_",
    columns: &[
        C::new("Status", Width::fixed(9), |i, _| i.status.to_string())
            .sort(|i, _| SortKey::text(i.status.as_str()))
            .tone(tone),
        // Without a note the id names it.
        C::new("Note", Width::identifying(8, 40), |i, _| {
            i.note
                .clone()
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| i.id.clone())
        })
        .sort(|i, _| SortKey::text(i.note.as_deref().filter(|n| !n.is_empty()).unwrap_or(&i.id)))
        .headless(Headless::Text(|i, _| dash(i.note.as_deref()))),
        C::new("Connection", Width::flexible(10, 32).optional(2), |i, _| {
            or_dash(i.connection_id.as_deref())
        })
        .sort(|i, _| SortKey::text(i.connection_id.as_deref().unwrap_or_default()))
        .headless(Headless::Text(|i, _| dash(i.connection_id.as_deref()))),
        C::new("Expires", Width::fixed(12), |i, c| {
            i.expires_at
                .as_ref()
                .map_or_else(|| "never".into(), |t| c.when(t))
        })
        .sort(|i, _| i.expires_at.map_or(SortKey::Missing, SortKey::Time))
        .also(|i, _| i.expires_at.as_ref().map(absolute).unwrap_or_default())
        .headless(Headless::Text(|i, _| {
            i.expires_at.as_ref().map_or_else(|| "-".into(), absolute)
        })),
        C::new("Created", Width::fixed(11), |i, c| c.when(&i.created_at))
            .sort(|i, _| SortKey::Time(i.created_at))
            .also(|i, _| absolute(&i.created_at)),
        C::new("ID", Width::flexible(10, 32).optional(1), |i, _| {
            i.id.clone()
        })
        .sort(|i, _| SortKey::text(&i.id))
        .muted(),
    ],
    fields: &[
        field("ID", |i| vec![i.id.clone()]),
        field("Status", |i| vec![i.status.to_string()]),
        field("Connection", |i| vec![dash(i.connection_id.as_deref())]),
        field("Note", |i| vec![dash(i.note.as_deref())]),
        field("Expires", |i| {
            vec![i.expires_at.as_ref().map_or_else(|| "-".into(), absolute)]
        }),
        field("Created", |i| vec![absolute(&i.created_at)]),
        field("Scope", |i| vec![dash(i.scope.as_deref())]),
        field("Token type", |i| vec![dash(i.token_type.as_deref())]),
        field("Identifier", |i| vec![dash(i.identifier.as_deref())]),
        field("Metadata", |i| {
            lines_or_dash(
                i.metadata
                    .iter()
                    .map(|(k, v)| match v {
                        serde_json::Value::String(s) => format!("{k}={s}"),
                        other => format!("{k}={other}"),
                    })
                    .collect(),
            )
        }),
    ],
};

/// The imports resource in the registry.
pub struct Imports;

impl super::Resource for Imports {
    type Item = ProviderOauthImport;
    const KIND: super::Kind = super::Kind::Imports;
    const NOUN: &'static str = "token imports";
    const GENERATIONS: &'static [Generation] = &[Generation::Pulsar];
    const WRITES: &'static [Verb] = &[CREATE.verb, UPDATE.verb];

    fn description() -> &'static Description<ProviderOauthImport> {
        &IMPORTS
    }

    fn id(t: &ProviderOauthImport) -> &str {
        &t.id
    }

    fn name(t: &ProviderOauthImport) -> String {
        t.note.clone().unwrap_or_default()
    }

    fn heading(t: &ProviderOauthImport) -> String {
        format!("Import {}", t.id)
    }

    fn list(q: &ListQuery, _filter: &NotificationFilter) -> ApiRequest {
        ApiRequest::list_imports(q)
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_import(id)
    }
}

// Writes: each operation's request from its typed inputs, once, for the console's dialogs and
// headless.

/// What a token import belongs to: exactly one of a server deployment and a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportTarget {
    /// A server deployment (`svd_…`).
    Deployment(String),
    /// A connection (`poc_…`).
    Connection(String),
}

/// What an import holds besides its target and access token; `None` leaves a field out (on an
/// update: keeps it).
#[derive(Clone, Default, PartialEq)]
pub struct ImportDetails {
    /// Free text.
    pub note: Option<String>,
    /// Key-value metadata (on an update an empty map clears it).
    pub metadata: Option<Map<String, Value>>,
    /// ISO 8601.
    pub expires_at: Option<String>,
    /// The OpenID id token (a secret).
    pub id_token: Option<String>,
    /// OAuth scope.
    pub scope: Option<String>,
    /// OAuth token type.
    pub token_type: Option<String>,
}

/// [`update`]'s signature.
type Update = fn(&str, Option<String>, ImportDetails) -> Option<ApiRequest>;

/// `c`: a new import.
pub const CREATE: Write<fn(ImportTarget, String, ImportDetails) -> ApiRequest> = Write {
    verb: ops::CREATE,
    resource: super::Kind::Imports,
    question: None,
    request: create,
};

/// `e`: the import's token and details.
pub const UPDATE: Write<Update> = Write {
    verb: ops::UPDATE,
    resource: super::Kind::Imports,
    question: None,
    request: update,
};

/// `create`: a new import of this access token for its target.
pub fn create(target: ImportTarget, access_token: String, d: ImportDetails) -> ApiRequest {
    let (server_deployment_id, connection_id) = match target {
        ImportTarget::Deployment(id) => (Some(id), None),
        ImportTarget::Connection(id) => (None, Some(id)),
    };
    ApiRequest::create_import(&CreateImport {
        access_token,
        server_deployment_id,
        connection_id,
        note: d.note,
        metadata: d.metadata,
        expires_at: d.expires_at,
        id_token: d.id_token,
        scope: d.scope,
        token_type: d.token_type,
    })
}

/// `update`: a new access token (`None` keeps it) and what else changes, or `None` when nothing
/// would change.
pub fn update(id: &str, access_token: Option<String>, d: ImportDetails) -> Option<ApiRequest> {
    let body = UpdateImport {
        note: d.note,
        metadata: d.metadata,
        access_token,
        expires_at: d.expires_at,
        id_token: d.id_token,
        scope: d.scope,
        token_type: d.token_type,
    };
    (body != UpdateImport::default()).then(|| ApiRequest::update_import(id, &body))
}
