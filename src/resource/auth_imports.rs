//! Provider auth imports of the newer generations: note, provider, expiry. The credential value
//! is never returned.
use super::teams::dash;
use super::width::Width;
use super::{Column, Description, Headless, SortKey, absolute, field, or_dash};
use crate::api::generation::Generation;
use crate::api::model::{AuthImport, AuthImportFilter};
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

type C = Column<AuthImport>;

/// Auth imports.
pub static AUTH_IMPORTS: Description<AuthImport> = Description {
    name: "imports",
    aliases: &["imports", "import", "imp", "im"],
    id_prefix: "paci_",
    columns: &[
        // Without a note the id names it.
        C::new("Note", Width::identifying(8, 40), |i, _| {
            i.note
                .clone()
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| i.id.clone())
        })
        .sort(|i, _| SortKey::text(i.note.as_deref().filter(|n| !n.is_empty()).unwrap_or(&i.id)))
        .headless(Headless::Text(|i, _| dash(i.note.as_deref()))),
        C::new("Provider", Width::flexible(10, 32).optional(2), |i, _| {
            or_dash(i.provider_id.as_deref())
        })
        .sort(|i, _| SortKey::text(i.provider_id.as_deref().unwrap_or_default())),
        C::new("Expires", Width::fixed(12), |i, c| {
            i.expires_at
                .as_ref()
                .map_or_else(|| "never".into(), |t| c.when(t))
        })
        .sort(|i, _| i.expires_at.map_or(SortKey::Missing, SortKey::Time)),
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
        field("Note", |i| vec![dash(i.note.as_deref())]),
        field("Provider", |i| vec![dash(i.provider_id.as_deref())]),
        field("Deployment", |i| {
            vec![dash(i.provider_deployment_id.as_deref())]
        }),
        field("Auth method", |i| vec![dash(i.auth_method_id.as_deref())]),
        field("Auth config", |i| {
            vec![dash(i.auth_config.as_ref().map(|c| c.id.as_str()))]
        }),
        field("Credentials", |i| vec![dash(i.credentials_id.as_deref())]),
        field("Value", |_| vec!["never returned by the API".into()]),
        field("Expires", |i| {
            vec![
                i.expires_at
                    .as_ref()
                    .map_or_else(|| "never".into(), absolute),
            ]
        }),
        field("Created", |i| vec![absolute(&i.created_at)]),
        field("Metadata", |i| {
            vec![
                i.metadata
                    .as_ref()
                    .map_or_else(|| "-".into(), ToString::to_string),
            ]
        }),
    ],
};

/// The auth imports in the registry.
pub struct AuthImports;

impl super::Resource for AuthImports {
    type Item = AuthImport;
    const KIND: super::Kind = super::Kind::AuthImports;
    const NOUN: &'static str = "auth imports";
    const NEEDED_KEY: &'static str =
        "the instance key (or the organization key with the instance id)";
    const GENERATIONS: &'static [Generation] = &[
        Generation::EventDestinations,
        Generation::CallbackDestinations,
    ];
    const WIRE_COLUMNS: &'static [(&'static str, &'static str)] = &[
        ("id", "id"),
        ("note", "note"),
        ("provider", "provider_id"),
        ("created", "created_at"),
        ("expires", "expires_at"),
    ];

    fn description() -> &'static Description<AuthImport> {
        &AUTH_IMPORTS
    }

    fn id(t: &AuthImport) -> &str {
        &t.id
    }

    fn name(t: &AuthImport) -> String {
        t.note.clone().unwrap_or_default()
    }

    fn heading(t: &AuthImport) -> String {
        format!("Import {}", t.id)
    }

    fn list(q: &ListQuery, _filter: &NotificationFilter) -> ApiRequest {
        ApiRequest::list_auth_imports(q, &AuthImportFilter::default())
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_auth_import(id)
    }
}
