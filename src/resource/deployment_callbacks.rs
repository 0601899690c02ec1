//! Callbacks of the `callback-destinations` generation: on a provider deployment, with the
//! destinations attached from the callback's side and the provider triggers it takes.
use super::teams::dash;
use super::width::Width;
use super::{Column, Description, SortKey, Tone, absolute, field, lines_or_dash, or_dash};
use crate::api::generation::Generation;
use crate::api::model::{DeploymentCallback, ResourceStatus};
use crate::api::newer_requests::DeploymentCallbackFilter;
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

type C = Column<DeploymentCallback>;

fn tone(c: &DeploymentCallback) -> Tone {
    match c.status {
        ResourceStatus::Active => Tone::Good,
        ResourceStatus::Archived | ResourceStatus::Deleted => Tone::Off,
        ResourceStatus::Other(_) => Tone::Unknown,
    }
}

fn deployment(c: &DeploymentCallback) -> Option<&str> {
    c.provider_deployment
        .as_ref()
        .map(|d| d.name.as_deref().filter(|n| !n.is_empty()).unwrap_or(&d.id))
}

/// Callbacks on provider deployments.
pub static DEPLOYMENT_CALLBACKS: Description<DeploymentCallback> = Description {
    name: "callbacks",
    aliases: &["callbacks", "callback", "cb", "cbk"],
    id_prefix: "cbk_",
    columns: &[
        C::new("Name", Width::identifying(8, 40), |c, _| {
            c.name
                .clone()
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| c.id.clone())
        })
        .sort(|c, _| SortKey::text(c.name.as_deref().unwrap_or(&c.id))),
        C::new("Status", Width::fixed(9), |c, _| c.status.to_string())
            .sort(|c, _| SortKey::text(c.status.as_str()))
            .tone(tone),
        C::new("Deployment", Width::flexible(8, 30).optional(3), |c, _| {
            or_dash(deployment(c))
        })
        .sort(|c, _| SortKey::text(deployment(c).unwrap_or_default())),
        C::new("Dest", Width::fixed(5), |c, _| {
            c.destinations.len().to_string()
        })
        .sort(|c, _| SortKey::Number(i64::try_from(c.destinations.len()).unwrap_or(i64::MAX))),
        C::new("Created", Width::fixed(11), |c, x| x.when(&c.created_at))
            .sort(|c, _| SortKey::Time(c.created_at))
            .also(|c, _| absolute(&c.created_at)),
        C::new("ID", Width::flexible(10, 32).optional(1), |c, _| {
            c.id.clone()
        })
        .sort(|c, _| SortKey::text(&c.id))
        .muted(),
    ],
    fields: &[
        field("ID", |c| vec![c.id.clone()]),
        field("Name", |c| vec![dash(c.name.as_deref())]),
        field("Status", |c| vec![c.status.to_string()]),
        field("Description", |c| vec![dash(c.description.as_deref())]),
        field("Deployment", |c| {
            vec![c.provider_deployment.as_ref().map_or_else(
                || "-".into(),
                |d| format!("{} {}", dash(d.name.as_deref()), d.id),
            )]
        }),
        field("Destinations", |c| {
            lines_or_dash(
                c.destinations
                    .iter()
                    .map(|d| format!("{} {} {}", d.name, d.url, d.id))
                    .collect(),
            )
        }),
        field("Triggers", |c| {
            lines_or_dash(
                c.provider_triggers
                    .iter()
                    .map(|t| {
                        let key = t
                            .provider_trigger
                            .as_ref()
                            .map_or_else(|| t.id.clone(), |p| dash(p.key.as_deref()));
                        if t.event_types.is_empty() {
                            key
                        } else {
                            format!("{key} ({})", t.event_types.join(", "))
                        }
                    })
                    .collect(),
            )
        }),
        field("Poll every", |c| {
            vec![
                c.poll_interval_seconds_override
                    .map_or_else(|| "-".into(), |s| format!("{s} s")),
            ]
        }),
        field("Created", |c| vec![absolute(&c.created_at)]),
        field("Updated", |c| vec![absolute(&c.updated_at)]),
    ],
};

/// The callbacks of `callback-destinations` in the registry.
pub struct DeploymentCallbacks;

impl super::Resource for DeploymentCallbacks {
    type Item = DeploymentCallback;
    const KIND: super::Kind = super::Kind::DeploymentCallbacks;
    const NOUN: &'static str = "callbacks";
    const GENERATIONS: &'static [Generation] = &[Generation::CallbackDestinations];
    const WIRE_COLUMNS: &'static [(&'static str, &'static str)] = &[
        ("id", "id"),
        ("name", "name"),
        ("status", "status"),
        ("deployment", "provider_deployment.id"),
        ("destinations", "#destinations"),
        ("created", "created_at"),
    ];

    fn description() -> &'static Description<DeploymentCallback> {
        &DEPLOYMENT_CALLBACKS
    }

    fn id(t: &DeploymentCallback) -> &str {
        &t.id
    }

    fn name(t: &DeploymentCallback) -> String {
        t.name.clone().unwrap_or_default()
    }

    fn heading(t: &DeploymentCallback) -> String {
        format!("Callback {}", t.name.as_deref().unwrap_or(&t.id))
    }

    fn list(q: &ListQuery, _filter: &NotificationFilter) -> ApiRequest {
        ApiRequest::list_deployment_callbacks(q, &DeploymentCallbackFilter::default())
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_callback(id)
    }
}
