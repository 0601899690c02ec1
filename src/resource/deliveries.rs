//! Deliveries of the `event-destinations` generation (the platform retries them and keeps each
//! attempt's request and response), with their attempts. The status filter is the server's.
use super::teams::dash;
use super::width::Width;
use super::{Column, Description, SortKey, Tone, absolute, field, or_dash};
use crate::api::generation::Generation;
use crate::api::model::{DeliveryAttempt, DeliveryStatus, EventDelivery, HeaderPair};
use crate::api::newer_requests::DeliveryFilter;
use crate::api::{ApiRequest, ListQuery, NotificationFilter};
use crate::text::redact::header_value;

type C = Column<EventDelivery>;

/// The statuses the platform filters deliveries by, in the order the console cycles them.
pub const STATUSES: &[&str] = &["pending", "retrying", "delivered", "failed", "cancelled"];

fn tone(d: &EventDelivery) -> Tone {
    match d.status {
        DeliveryStatus::Delivered => Tone::Good,
        DeliveryStatus::Retrying => Tone::Busy,
        DeliveryStatus::Pending => Tone::Waiting,
        DeliveryStatus::Failed => Tone::Bad,
        DeliveryStatus::Cancelled => Tone::Off,
        DeliveryStatus::Other(_) => Tone::Unknown,
    }
}

/// Deliveries.
pub static DELIVERIES: Description<EventDelivery> = Description {
    name: "deliveries",
    aliases: &["deliveries", "delivery", "del", "notifications", "evdi"],
    id_prefix: "evdi_",
    columns: &[
        C::new("Status", Width::fixed(11), |d, _| d.status.to_string())
            .sort(|d, _| SortKey::text(d.status.as_str()))
            .tone(tone),
        C::new("Event type", Width::identifying(10, 40), |d, _| {
            or_dash(d.event_type.as_deref())
        })
        .sort(|d, _| SortKey::text(d.event_type.as_deref().unwrap_or_default())),
        C::new("Destination", Width::flexible(10, 32), |d, x| {
            x.destination_label(&d.event_destination_id)
        })
        .sort(|d, _| SortKey::text(&d.event_destination_id)),
        C::new("Tries", Width::fixed(5), |d, _| d.attempt_count.to_string())
            .sort(|d, _| SortKey::Number(i64::from(d.attempt_count))),
        C::new("Next", Width::fixed(11).optional(2), |d, c| {
            d.next_attempt_at
                .as_ref()
                .map_or_else(|| "—".into(), |t| c.when(t))
        })
        .sort(|d, _| d.next_attempt_at.map_or(SortKey::Missing, SortKey::Time)),
        C::new("Created", Width::fixed(11), |d, c| c.when(&d.created_at))
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
        field("Status", |d| vec![d.status.to_string()]),
        field("Event", |d| {
            vec![format!(
                "{} ({})",
                dash(d.event_type.as_deref()),
                d.event_id
            )]
        }),
        field("Destination", |d| vec![d.event_destination_id.clone()]),
        field("Attempts", |d| vec![d.attempt_count.to_string()]),
        field("Error", |d| {
            vec![d.error.as_ref().map_or_else(
                || "-".into(),
                |e| {
                    format!(
                        "{} {}",
                        e.code.as_deref().unwrap_or("-"),
                        e.message.as_deref().unwrap_or("")
                    )
                },
            )]
        }),
        field("Retry", |d| {
            vec![super::event_destinations::retry_text(d.retry.as_ref())]
        }),
        field("Next attempt", |d| {
            vec![
                d.next_attempt_at
                    .as_ref()
                    .map_or_else(|| "-".into(), absolute),
            ]
        }),
        field("Completed", |d| {
            vec![d.completed_at.as_ref().map_or_else(|| "-".into(), absolute)]
        }),
        field("Created", |d| vec![absolute(&d.created_at)]),
    ],
};

/// One attempt's lines: its outcome, then the request it sent and the response it got, headers
/// through the one redaction policy (`revealed` shows the masked ones).
pub fn attempt_lines(a: &DeliveryAttempt, revealed: bool) -> Vec<String> {
    let headers = |hs: &[HeaderPair]| -> Vec<String> {
        hs.iter()
            .map(|h| {
                format!(
                    "    {}: {}",
                    h.key,
                    header_value(&h.key, &h.value, revealed)
                )
            })
            .collect()
    };
    let mut out = vec![format!(
        "#{} {}{}{}{}",
        a.attempt_number,
        a.status,
        a.response
            .as_ref()
            .and_then(|r| r.status_code)
            .map_or_else(String::new, |c| format!(" · HTTP {c}")),
        a.duration_ms
            .map_or_else(String::new, |ms| format!(" · {ms} ms")),
        a.started_at
            .as_ref()
            .map_or_else(String::new, |t| format!(" · {}", absolute(t))),
    )];
    if let Some(e) = &a.error {
        out.push(format!(
            "  error: {} {}",
            e.code.as_deref().unwrap_or("-"),
            e.message.as_deref().unwrap_or("")
        ));
    }
    match &a.request {
        Some(r) => {
            out.push(format!(
                "  Request: {} {}",
                r.method.as_deref().unwrap_or("POST"),
                r.url
            ));
            out.extend(headers(&r.headers));
            if let Some(b) = &r.body {
                out.push("    body:".into());
                out.extend(b.lines().map(|l| format!("      {l}")));
            }
        }
        None => out.push("  Request: not recorded".into()),
    }
    match &a.response {
        Some(r) => {
            out.push(format!(
                "  Response: {}",
                r.status_code
                    .map_or_else(|| "no status".into(), |c| format!("HTTP {c}"))
            ));
            out.extend(headers(r.headers.as_deref().unwrap_or_default()));
            if let Some(b) = &r.body {
                out.push(if r.is_body_truncated {
                    "    body (cut at 16 KiB):".into()
                } else {
                    "    body:".into()
                });
                out.extend(b.lines().map(|l| format!("      {l}")));
            }
        }
        None => out.push("  Response: none".into()),
    }
    out
}

/// Headless columns of a delivery's attempts (printed under `notifications get`).
pub const ATTEMPT_WIRE_COLUMNS: &[(&str, &str)] = &[
    ("id", "id"),
    ("n", "attempt_number"),
    ("status", "status"),
    ("http", "response.status_code"),
    ("ms", "duration_ms"),
    ("error", "error"),
    ("started", "started_at"),
];

/// The deliveries in the registry.
pub struct Deliveries;

impl super::Resource for Deliveries {
    type Item = EventDelivery;
    const KIND: super::Kind = super::Kind::Deliveries;
    const RECEIVERS: Option<super::Kind> = Some(super::Kind::EventDestinations);
    const ATTEMPTS: Option<super::Kind> = Some(super::Kind::DeliveryAttempts);
    const WINDOWED_ON_CLIENT: bool = true;
    const NOUN: &'static str = "deliveries";
    const NEEDED_KEY: &'static str = "the organization key";
    const GENERATIONS: &'static [Generation] = &[Generation::EventDestinations];
    const WIRE_COLUMNS: &'static [(&'static str, &'static str)] = &[
        ("id", "id"),
        ("status", "status"),
        ("event_type", "event_type"),
        ("destination", "event_destination_id"),
        ("attempts", "attempt_count"),
        ("next", "next_attempt_at"),
        ("created", "created_at"),
    ];

    fn description() -> &'static Description<EventDelivery> {
        &DELIVERIES
    }

    fn id(t: &EventDelivery) -> &str {
        &t.id
    }

    fn name(t: &EventDelivery) -> String {
        t.event_type.clone().unwrap_or_default()
    }

    fn heading(t: &EventDelivery) -> String {
        format!("Delivery {}", t.id)
    }

    fn list(q: &ListQuery, filter: &NotificationFilter) -> ApiRequest {
        let f = DeliveryFilter {
            statuses: filter.statuses.clone(),
            event_ids: filter.event_ids.clone(),
            event_destination_ids: filter.destination_ids.clone(),
            ..DeliveryFilter::default()
        };
        ApiRequest::list_deliveries(q, &f)
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_delivery(id)
    }
}
