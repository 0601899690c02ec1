//! Events: the log of everything the platform delivers (read-only).
use super::teams::dash;
use super::width::Width;
use super::{Column, Description, SortKey, absolute, field, or_dash};
use crate::api::generation::Generation;
use crate::api::model::Event;
use crate::api::newer_requests::EventFilter;
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

type C = Column<Event>;

fn source(e: &Event) -> String {
    e.source
        .as_ref()
        .map_or_else(|| "-".into(), ToString::to_string)
}

/// Events.
pub static EVENTS: Description<Event> = Description {
    name: "events",
    aliases: &["events", "event", "ev", "evnt"],
    id_prefix: "evnt_",
    columns: &[
        C::new("Type", Width::identifying(10, 50), |e, _| {
            e.event_type.clone()
        })
        .sort(|e, _| SortKey::text(&e.event_type)),
        C::new("Source", Width::fixed(8), |e, _| source(e)).sort(|e, _| SortKey::text(&source(e))),
        C::new("Callback", Width::flexible(10, 32).optional(2), |e, _| {
            or_dash(e.callback_id.as_deref())
        })
        .sort(|e, _| SortKey::text(e.callback_id.as_deref().unwrap_or_default())),
        C::new("Created", Width::fixed(11), |e, c| c.when(&e.created_at))
            .sort(|e, _| SortKey::Time(e.created_at))
            .also(|e, _| absolute(&e.created_at)),
        C::new("ID", Width::flexible(10, 32).optional(1), |e, _| {
            e.id.clone()
        })
        .sort(|e, _| SortKey::text(&e.id))
        .muted(),
    ],
    fields: &[
        field("ID", |e| vec![e.id.clone()]),
        field("Type", |e| vec![e.event_type.clone()]),
        field("Source", |e| vec![source(e)]),
        field("Instance", |e| vec![dash(e.instance_id.as_deref())]),
        field("Callback", |e| vec![dash(e.callback_id.as_deref())]),
        field("Callback event", |e| {
            vec![dash(e.callback_event_id.as_deref())]
        }),
        field("Trigger", |e| vec![dash(e.callback_trigger_key.as_deref())]),
        field("Provider", |e| vec![dash(e.provider_id.as_deref())]),
        field("Payload", |e| {
            vec![
                e.payload
                    .as_ref()
                    .map_or_else(|| "-".into(), ToString::to_string),
            ]
        }),
        field("Created", |e| vec![absolute(&e.created_at)]),
    ],
};

/// The events in the registry.
pub struct Events;

impl super::Resource for Events {
    type Item = Event;
    const KIND: super::Kind = super::Kind::Events;
    const NOUN: &'static str = "events";
    const NEEDED_KEY: &'static str = "the organization key";
    const GENERATIONS: &'static [Generation] = &[Generation::EventDestinations];
    const WIRE_COLUMNS: &'static [(&'static str, &'static str)] = &[
        ("id", "id"),
        ("type", "event_type"),
        ("source", "source"),
        ("callback", "callback_id"),
        ("created", "created_at"),
    ];

    fn description() -> &'static Description<Event> {
        &EVENTS
    }

    fn id(t: &Event) -> &str {
        &t.id
    }

    fn name(t: &Event) -> String {
        t.event_type.clone()
    }

    fn heading(t: &Event) -> String {
        format!("Event {}", t.event_type)
    }

    fn list(q: &ListQuery, filter: &NotificationFilter) -> ApiRequest {
        let f = EventFilter {
            callback_ids: filter.callback_ids.clone(),
            ..EventFilter::default()
        };
        ApiRequest::list_events(q, &f)
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_event(id)
    }
}
