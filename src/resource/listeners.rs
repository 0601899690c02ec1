//! Listeners: which events an event destination gets from an instance (event types, a callback's
//! triggers, a provider's triggers).
use super::width::Width;
use super::{Column, Description, SortKey, absolute, field, or_dash};
use crate::api::generation::Generation;
use crate::api::model::Listener;
use crate::api::newer_requests::ListenerFilter;
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

type C = Column<Listener>;

/// What it listens to: event types, else triggers.
fn what(l: &Listener) -> String {
    let list = l
        .event_types
        .clone()
        .filter(|v| !v.is_empty())
        .or_else(|| l.triggers.clone())
        .unwrap_or_default();
    or_dash(Some(&list.join(", ")))
}

/// Listeners.
pub static LISTENERS: Description<Listener> = Description {
    name: "listeners",
    aliases: &["listeners", "listener", "lis", "evtl"],
    id_prefix: "evtl_",
    columns: &[
        C::new("Type", Width::fixed(8), |l, _| l.kind.to_string())
            .sort(|l, _| SortKey::text(l.kind.as_str())),
        C::new("Listens to", Width::identifying(10, 50), |l, _| what(l))
            .sort(|l, _| SortKey::text(&what(l))),
        C::new("Destination", Width::flexible(10, 32), |l, x| {
            l.event_destination_id
                .as_deref()
                .map_or_else(|| "—".into(), |id| x.destination_label(id))
        })
        .sort(|l, _| SortKey::text(l.event_destination_id.as_deref().unwrap_or_default())),
        C::new("Instance", Width::flexible(10, 32).optional(2), |l, _| {
            or_dash(l.instance_id.as_deref())
        }),
        C::new("ID", Width::flexible(10, 32).optional(1), |l, _| {
            l.id.clone()
        })
        .sort(|l, _| SortKey::text(&l.id))
        .muted(),
    ],
    fields: &[
        field("ID", |l| vec![l.id.clone()]),
        field("Type", |l| vec![l.kind.to_string()]),
        field("Destination", |l| {
            vec![or_dash(l.event_destination_id.as_deref())]
        }),
        field("Instance", |l| vec![or_dash(l.instance_id.as_deref())]),
        field("Event types", |l| {
            vec![or_dash(Some(
                &l.event_types.clone().unwrap_or_default().join(", "),
            ))]
        }),
        field("Callback", |l| vec![or_dash(l.callback_id.as_deref())]),
        field("Provider", |l| vec![or_dash(l.provider_id.as_deref())]),
        field("Triggers", |l| {
            vec![or_dash(Some(
                &l.triggers.clone().unwrap_or_default().join(", "),
            ))]
        }),
        field("Created", |l| {
            vec![l.created_at.as_ref().map_or_else(|| "-".into(), absolute)]
        }),
    ],
};

/// The listeners in the registry.
pub struct Listeners;

impl super::Resource for Listeners {
    type Item = Listener;
    const KIND: super::Kind = super::Kind::Listeners;
    const NOUN: &'static str = "listeners";
    const NEEDED_KEY: &'static str = "the organization key";
    const GENERATIONS: &'static [Generation] = &[Generation::EventDestinations];
    const WIRE_COLUMNS: &'static [(&'static str, &'static str)] = &[
        ("id", "id"),
        ("type", "type"),
        ("destination", "event_destination_id"),
        ("instance", "instance_id"),
        ("event_types", "event_types"),
        ("triggers", "triggers"),
    ];

    fn description() -> &'static Description<Listener> {
        &LISTENERS
    }

    fn id(t: &Listener) -> &str {
        &t.id
    }

    fn name(t: &Listener) -> String {
        what(t)
    }

    fn heading(t: &Listener) -> String {
        format!("Listener {}", t.id)
    }

    fn list(q: &ListQuery, filter: &NotificationFilter) -> ApiRequest {
        let f = ListenerFilter {
            event_destination_ids: filter.destination_ids.clone(),
            ..ListenerFilter::default()
        };
        ApiRequest::list_listeners(q, &f)
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_listener(id)
    }
}
