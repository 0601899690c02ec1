//! Callback events: what a callback received (its webhook) and whether it was processed.
use super::teams::dash;
use super::width::Width;
use super::{Column, Description, SortKey, Tone, absolute, field, or_dash};
use crate::api::generation::Generation;
use crate::api::model::{CallbackEvent, CallbackEventStatus};
use crate::api::newer_requests::CallbackEventFilter;
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

type C = Column<CallbackEvent>;

fn tone(e: &CallbackEvent) -> Tone {
    match e.status {
        CallbackEventStatus::Processed => Tone::Good,
        CallbackEventStatus::Pending => Tone::Waiting,
        CallbackEventStatus::Failed => Tone::Bad,
        CallbackEventStatus::Other(_) => Tone::Unknown,
    }
}

/// Callback events.
pub static CALLBACK_EVENTS: Description<CallbackEvent> = Description {
    name: "callback events",
    aliases: &["cbevents", "callback-events", "cbe"],
    id_prefix: "cbe_",
    columns: &[
        C::new("Status", Width::fixed(11), |e, _| e.status.to_string())
            .sort(|e, _| SortKey::text(e.status.as_str()))
            .tone(tone),
        C::new("Trigger", Width::identifying(8, 40), |e, _| {
            or_dash(e.provider_trigger_key.as_deref())
        })
        .sort(|e, _| SortKey::text(e.provider_trigger_key.as_deref().unwrap_or_default())),
        C::new("Source", Width::fixed(8), |e, _| {
            e.source
                .as_ref()
                .map_or_else(|| "-".into(), ToString::to_string)
        }),
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
        field("Status", |e| vec![e.status.to_string()]),
        field("Trigger", |e| vec![dash(e.provider_trigger_key.as_deref())]),
        field("Callback", |e| vec![dash(e.callback_id.as_deref())]),
        field("Instance", |e| {
            vec![dash(e.callback_instance_id.as_deref())]
        }),
        field("Mapped", |e| {
            vec![format!(
                "{} {}",
                dash(e.mapped_type.as_deref()),
                dash(e.mapped_id.as_deref())
            )]
        }),
        field("Occurred", |e| {
            vec![e.occurred_at.as_ref().map_or_else(|| "-".into(), absolute)]
        }),
        field("Received", |e| {
            let w = e.details.as_ref().and_then(|d| d.webhook.as_ref());
            let r = w.and_then(|w| w.request.as_ref());
            vec![match r {
                Some(r) => format!(
                    "{} {}",
                    r.method.as_deref().unwrap_or("POST"),
                    r.url.as_deref().unwrap_or("-")
                ),
                None => "-".into(),
            }]
        }),
        field("Payload", |e| {
            let p = e.details.as_ref().and_then(|d| d.payload.as_ref());
            vec![p.map_or_else(|| "-".into(), ToString::to_string)]
        }),
        field("Created", |e| vec![absolute(&e.created_at)]),
    ],
};

/// The callback events in the registry.
pub struct CallbackEvents;

impl super::Resource for CallbackEvents {
    type Item = CallbackEvent;
    const KIND: super::Kind = super::Kind::CallbackEvents;
    const NOUN: &'static str = "callback events";
    const GENERATIONS: &'static [Generation] = &[Generation::EventDestinations];
    const WIRE_COLUMNS: &'static [(&'static str, &'static str)] = &[
        ("id", "id"),
        ("status", "status"),
        ("source", "source"),
        ("trigger", "provider_trigger_key"),
        ("callback", "callback_id"),
        ("occurred", "occurred_at"),
    ];

    fn description() -> &'static Description<CallbackEvent> {
        &CALLBACK_EVENTS
    }

    fn id(t: &CallbackEvent) -> &str {
        &t.id
    }

    fn name(t: &CallbackEvent) -> String {
        t.provider_trigger_key.clone().unwrap_or_default()
    }

    fn heading(t: &CallbackEvent) -> String {
        format!("Callback event {}", t.id)
    }

    fn list(q: &ListQuery, filter: &NotificationFilter) -> ApiRequest {
        let f = CallbackEventFilter {
            callback_ids: filter.callback_ids.clone(),
            ..CallbackEventFilter::default()
        };
        ApiRequest::list_callback_events(q, &f)
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_callback_event(id)
    }
}
