//! Callback events of the `callback-destinations` generation: what a callback received (its
//! trigger's input) and made of it (the output passed on), under its callback (`GET
//! /callbacks/{id}/events`; no global list or get). The console merges the callbacks' newest
//! pages when no callback is chosen, as it does notifications.
use super::teams::dash;
use super::width::Width;
use super::{Column, Description, SortKey, Tone, absolute, field, lines_or_dash, or_dash};
use crate::api::generation::Generation;
use crate::api::model::{DeploymentCallbackEvent, EventDeliveryStatus};
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

type C = Column<DeploymentCallbackEvent>;

fn tone(e: &DeploymentCallbackEvent) -> Tone {
    match e.delivery_status {
        EventDeliveryStatus::Sent => Tone::Good,
        EventDeliveryStatus::Pending => Tone::Waiting,
        EventDeliveryStatus::Failed => Tone::Bad,
        EventDeliveryStatus::Skipped => Tone::Off,
        EventDeliveryStatus::Other(_) => Tone::Unknown,
    }
}

/// A JSON value as indented lines (the received webhook); `-` when absent.
pub fn json_lines(v: Option<&serde_json::Value>) -> Vec<String> {
    match v.filter(|v| !v.is_null()) {
        Some(v) => lines_or_dash(
            serde_json::to_string_pretty(v)
                .unwrap_or_default()
                .lines()
                .map(str::to_string)
                .collect(),
        ),
        None => vec!["-".into()],
    }
}

/// Callback events of `callback-destinations`.
pub static DEPLOYMENT_CALLBACK_EVENTS: Description<DeploymentCallbackEvent> = Description {
    name: "callback events",
    aliases: &["cbevents", "callback-events", "cbe"],
    id_prefix: "cbe_",
    columns: &[
        C::new("Delivery", Width::fixed(9), |e, _| {
            e.delivery_status.to_string()
        })
        .sort(|e, _| SortKey::text(e.delivery_status.as_str()))
        .tone(tone),
        C::new("Type", Width::identifying(8, 40), |e, _| {
            or_dash(e.kind.as_deref())
        })
        .sort(|e, _| SortKey::text(e.kind.as_deref().unwrap_or_default())),
        C::new("Trigger", Width::flexible(8, 30).optional(3), |e, _| {
            or_dash(e.trigger_key.as_deref())
        })
        .sort(|e, _| SortKey::text(e.trigger_key.as_deref().unwrap_or_default())),
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
        field("Type", |e| vec![dash(e.kind.as_deref())]),
        field("Delivery", |e| vec![e.delivery_status.to_string()]),
        field("Trigger", |e| vec![dash(e.trigger_key.as_deref())]),
        field("Source", |e| vec![dash(e.source_id.as_deref())]),
        field("Callback", |e| vec![dash(e.callback_id.as_deref())]),
        field("Instance", |e| {
            vec![dash(e.callback_instance_id.as_deref())]
        }),
        field("Created", |e| vec![absolute(&e.created_at)]),
    ],
};

/// The callback events of `callback-destinations` in the registry.
pub struct DeploymentCallbackEvents;

impl super::Resource for DeploymentCallbackEvents {
    type Item = DeploymentCallbackEvent;
    const KIND: super::Kind = super::Kind::DeploymentCallbackEvents;
    const NOUN: &'static str = "callback events";
    const GENERATIONS: &'static [Generation] = &[Generation::CallbackDestinations];
    const THROUGH_CALLBACKS: bool = true;
    const WIRE_COLUMNS: &'static [(&'static str, &'static str)] = &[
        ("id", "id"),
        ("type", "type"),
        ("trigger", "trigger_key"),
        ("delivery", "delivery_status"),
        ("created", "created_at"),
    ];

    fn description() -> &'static Description<DeploymentCallbackEvent> {
        &DEPLOYMENT_CALLBACK_EVENTS
    }

    fn id(t: &DeploymentCallbackEvent) -> &str {
        &t.id
    }

    fn name(t: &DeploymentCallbackEvent) -> String {
        t.kind.clone().unwrap_or_default()
    }

    fn heading(t: &DeploymentCallbackEvent) -> String {
        format!("Callback event {}", t.id)
    }

    /// The chosen callback's events (`callbacks events ID`'s request); with none the console
    /// merges every callback's (see the worker), so this request names the first callback given.
    fn list(q: &ListQuery, filter: &NotificationFilter) -> ApiRequest {
        let cb = filter.callback_ids.first().map_or("", String::as_str);
        ApiRequest::list_deployment_callback_events(q, cb, &[])
    }

    /// There is no global get: the console's worker asks under the event's callback.
    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_deployment_callback_event("", id)
    }
}
