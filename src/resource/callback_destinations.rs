//! Destinations of the `callback-destinations` generation: a URL attached from the callback's
//! side, its signing secret on a detailed answer only.
use super::teams::dash;
use super::width::Width;
use super::{Column, Description, SortKey, Tone, absolute, field};
use crate::api::generation::Generation;
use crate::api::model::{CallbackDestination, ResourceStatus};
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

type C = Column<CallbackDestination>;

fn tone(d: &CallbackDestination) -> Tone {
    match d.status {
        ResourceStatus::Active => Tone::Good,
        ResourceStatus::Archived | ResourceStatus::Deleted => Tone::Off,
        ResourceStatus::Other(_) => Tone::Unknown,
    }
}

/// Callback destinations.
pub static CALLBACK_DESTINATIONS: Description<CallbackDestination> = Description {
    name: "destinations",
    aliases: &["destinations", "destination", "dest", "cbd"],
    id_prefix: "cbd_",
    columns: &[
        C::new("Name", Width::identifying(8, 40), |d, _| d.name.clone())
            .sort(|d, _| SortKey::text(&d.name)),
        C::new("Status", Width::fixed(9), |d, _| d.status.to_string())
            .sort(|d, _| SortKey::text(d.status.as_str()))
            .tone(tone),
        C::new("URL", Width::flexible(12, 60), |d, _| d.url.clone())
            .sort(|d, _| SortKey::text(&d.url)),
        C::new("Created", Width::fixed(11), |d, x| x.when(&d.created_at))
            .sort(|d, _| SortKey::Time(d.created_at))
            .also(|d, _| absolute(&d.created_at)),
        C::new("ID", Width::flexible(10, 32).optional(1), |d, _| {
            d.id.clone()
        })
        .sort(|d, _| SortKey::text(&d.id))
        .muted(),
    ],
    fields: &[
        field("ID", |d| vec![d.id.clone()]),
        field("Name", |d| vec![d.name.clone()]),
        field("Status", |d| vec![d.status.to_string()]),
        field("Description", |d| vec![dash(d.description.as_deref())]),
        field("URL", |d| {
            vec![format!(
                "{} {}",
                d.method.as_deref().unwrap_or("POST"),
                d.url
            )]
        }),
        // Shown masked: the secret itself is for replay and recover, never the screen.
        field("Signing secret", |d| {
            vec![if d.signing_secret.is_some() {
                "set (masked)".into()
            } else {
                "-".into()
            }]
        }),
        field("Created", |d| vec![absolute(&d.created_at)]),
        field("Updated", |d| {
            vec![d.updated_at.as_ref().map_or_else(|| "-".into(), absolute)]
        }),
    ],
};

/// The callback destinations in the registry.
pub struct CallbackDestinations;

impl super::Resource for CallbackDestinations {
    type Item = CallbackDestination;
    const KIND: super::Kind = super::Kind::CallbackDestinations;
    const STATS: bool = true;
    const NOUN: &'static str = "destinations";
    const GENERATIONS: &'static [Generation] = &[Generation::CallbackDestinations];
    const WIRE_COLUMNS: &'static [(&'static str, &'static str)] = &[
        ("id", "id"),
        ("name", "name"),
        ("status", "status"),
        ("url", "url"),
        ("created", "created_at"),
    ];

    fn description() -> &'static Description<CallbackDestination> {
        &CALLBACK_DESTINATIONS
    }

    fn id(t: &CallbackDestination) -> &str {
        &t.id
    }

    fn name(t: &CallbackDestination) -> String {
        t.name.clone()
    }

    fn heading(t: &CallbackDestination) -> String {
        format!("Destination {}", t.name)
    }

    fn list(q: &ListQuery, filter: &NotificationFilter) -> ApiRequest {
        ApiRequest::list_callback_destinations(q, &filter.callback_ids)
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_callback_destination(id)
    }
}
