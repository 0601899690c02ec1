//! Provider deployments of the `callback-destinations` generation: what a callback is created on
//! (`callbacks create --provider-deployment ID`); read-only here.
use super::teams::dash;
use super::width::Width;
use super::{Column, Description, SortKey, Tone, absolute, field, or_dash};
use crate::api::generation::Generation;
use crate::api::model::DeploymentPreview;
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

type C = Column<DeploymentPreview>;

fn tone(d: &DeploymentPreview) -> Tone {
    if d.is_default == Some(true) {
        Tone::Good
    } else {
        Tone::Off
    }
}

fn default_word(d: &DeploymentPreview) -> &'static str {
    match d.is_default {
        Some(true) => "default",
        Some(false) => "no",
        None => "-",
    }
}

fn name(d: &DeploymentPreview) -> String {
    d.name
        .clone()
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| d.id.clone())
}

/// Provider deployments.
pub static PROVIDER_DEPLOYMENTS: Description<DeploymentPreview> = Description {
    name: "deployments",
    aliases: &["deployments", "deployment", "provider-deployments", "pde"],
    id_prefix: "pde_",
    columns: &[
        C::new("Name", Width::identifying(8, 40), |d, _| name(d))
            .sort(|d, _| SortKey::text(&name(d))),
        C::new("Default", Width::fixed(8), |d, _| {
            default_word(d).to_string()
        })
        .sort(|d, _| SortKey::text(default_word(d)))
        .tone(tone),
        C::new("Provider", Width::flexible(10, 32).optional(3), |d, _| {
            or_dash(d.provider_id.as_deref())
        })
        .sort(|d, _| SortKey::text(d.provider_id.as_deref().unwrap_or_default())),
        C::new("Created", Width::fixed(11), |d, x| {
            d.created_at
                .as_ref()
                .map_or_else(|| "-".into(), |t| x.when(t))
        })
        .sort(|d, _| d.created_at.map_or(SortKey::Missing, SortKey::Time))
        .also(|d, _| d.created_at.as_ref().map_or_else(String::new, absolute)),
        C::new("ID", Width::flexible(10, 32).optional(1), |d, _| {
            d.id.clone()
        })
        .sort(|d, _| SortKey::text(&d.id))
        .muted(),
    ],
    fields: &[
        field("ID", |d| vec![d.id.clone()]),
        field("Name", |d| vec![dash(d.name.as_deref())]),
        field("Default", |d| vec![default_word(d).to_string()]),
        field("Description", |d| vec![dash(d.description.as_deref())]),
        field("Provider", |d| vec![dash(d.provider_id.as_deref())]),
        field("Metadata", |d| {
            vec![
                d.metadata
                    .as_ref()
                    .filter(|m| !m.is_null())
                    .map_or_else(|| "-".into(), ToString::to_string),
            ]
        }),
        field("Created", |d| {
            vec![d.created_at.as_ref().map_or_else(|| "-".into(), absolute)]
        }),
        field("Updated", |d| {
            vec![d.updated_at.as_ref().map_or_else(|| "-".into(), absolute)]
        }),
    ],
};

/// The provider deployments in the registry.
pub struct ProviderDeployments;

impl super::Resource for ProviderDeployments {
    type Item = DeploymentPreview;
    const KIND: super::Kind = super::Kind::ProviderDeployments;
    const NOUN: &'static str = "provider deployments";
    const GENERATIONS: &'static [Generation] = &[Generation::CallbackDestinations];
    const WIRE_COLUMNS: &'static [(&'static str, &'static str)] = &[
        ("id", "id"),
        ("name", "name"),
        ("default", "is_default"),
        ("provider", "provider_id"),
        ("created", "created_at"),
    ];

    fn description() -> &'static Description<DeploymentPreview> {
        &PROVIDER_DEPLOYMENTS
    }

    fn id(t: &DeploymentPreview) -> &str {
        &t.id
    }

    fn name(t: &DeploymentPreview) -> String {
        t.name.clone().unwrap_or_default()
    }

    fn heading(t: &DeploymentPreview) -> String {
        format!("Deployment {}", t.name.as_deref().unwrap_or(&t.id))
    }

    fn list(q: &ListQuery, _filter: &NotificationFilter) -> ApiRequest {
        ApiRequest::list_provider_deployments(q)
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_provider_deployment(id)
    }
}
