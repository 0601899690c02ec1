//! Event destinations of the `event-destinations` generation: webhook URL, retry policy,
//! listeners; ping, secret rotation and archive. The signing secret is in the answers to create
//! and rotate only, and shown masked.
use super::ops::{Op, OpArgs};
use super::teams::dash;
use super::width::Width;
use super::{AnyItem, Column, Description, Kind, SortKey, Tone, absolute, field, lines_or_dash};
use crate::api::generation::Generation;
use crate::api::model::{EventDestination, ResourceStatus};
use crate::api::newer_requests::EventDestinationFilter;
use crate::api::secret::mask;
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

type C = Column<EventDestination>;

fn tone(d: &EventDestination) -> Tone {
    match d.status {
        ResourceStatus::Active => Tone::Good,
        ResourceStatus::Archived => Tone::Off,
        _ => Tone::Unknown,
    }
}

fn url(d: &EventDestination) -> String {
    d.webhook
        .as_ref()
        .map_or_else(|| "-".into(), |w| w.url.clone())
}

/// `exponential ×8 (10 s … 3 h)`.
pub fn retry_text(r: Option<&crate::api::model::RetryPolicy>) -> String {
    let Some(r) = r else { return "-".into() };
    let mut s = r.strategy.to_string();
    if let Some(n) = r.max_attempts {
        s.push_str(&format!(" ×{n}"));
    }
    if let (Some(b), Some(m)) = (r.base_delay_seconds, r.max_delay_seconds) {
        s.push_str(&format!(" ({b} s … {m} s)"));
    }
    s
}

/// Event destinations.
pub static EVENT_DESTINATIONS: Description<EventDestination> = Description {
    name: "destinations",
    aliases: &["destinations", "destination", "dest", "evtd"],
    id_prefix: "evtd_",
    columns: &[
        C::new("Name", Width::identifying(8, 40), |d, _| d.name.clone())
            .sort(|d, _| SortKey::text(&d.name)),
        C::new("Status", Width::fixed(10), |d, _| d.status.to_string())
            .sort(|d, _| SortKey::text(d.status.as_str()))
            .tone(tone),
        C::new("URL", Width::flexible(12, 60), |d, _| url(d)).sort(|d, _| SortKey::text(&url(d))),
        C::new("Retry", Width::flexible(8, 30).optional(3), |d, _| {
            d.retry
                .as_ref()
                .map_or_else(|| "-".into(), |r| r.strategy.to_string())
        }),
        C::new("Listeners", Width::fixed(9).optional(2), |d, _| {
            d.listeners.len().to_string()
        })
        .sort(|d, _| SortKey::Number(d.listeners.len() as i64)),
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
        field("Name", |d| vec![d.name.clone()]),
        field("Description", |d| vec![dash(d.description.as_deref())]),
        field("Status", |d| vec![d.status.to_string()]),
        field("URL", |d| vec![url(d)]),
        field("Signing secret", |d| {
            vec![
                match d.webhook.as_ref().and_then(|w| w.signing_secret.as_ref()) {
                    // Only the answers to create and rotate carry it: shown masked, this once.
                    Some(s) => format!("{} (new: shown in this answer only)", mask(s.expose())),
                    None => "not returned (rotate for a new one)".into(),
                },
            ]
        }),
        field("Retry", |d| vec![retry_text(d.retry.as_ref())]),
        field("Listeners", |d| {
            lines_or_dash(
                d.listeners
                    .iter()
                    .map(|l| {
                        let what = l
                            .event_types
                            .clone()
                            .or_else(|| l.triggers.clone())
                            .unwrap_or_default()
                            .join(", ");
                        format!("{} {} {what}", l.id, l.kind)
                    })
                    .collect(),
            )
        }),
        field("Created", |d| vec![absolute(&d.created_at)]),
        field("Archived", |d| {
            vec![d.archived_at.as_ref().map_or_else(|| "-".into(), absolute)]
        }),
    ],
};

fn subject(item: &AnyItem) -> Result<&EventDestination, String> {
    match item {
        AnyItem::EventDestination(d) => Ok(d),
        _ => Err("only an event destination".into()),
    }
}

/// `ping`: a test event to the destination; the reply is its delivery.
pub static PING: Op = Op {
    resource: Kind::EventDestinations,
    verb: "ping",
    label: "ping the destination (a test event; lands on its delivery)",
    hint: "ping",
    key: 't',
    writes: true,
    done: "pinged",
    title: "Ping destination",
    question: |item| match subject(item) {
        Ok(d) => format!("Send a test event to “{}” ({})?", d.name, url(d)),
        Err(_) => String::new(),
    },
    request: |item, _: &OpArgs| Ok(ApiRequest::ping_event_destination(&subject(item)?.id)),
    tool: None,
};

/// `rotate-secret`: a new signing secret; the old one stops at once.
pub static ROTATE: Op = Op {
    resource: Kind::EventDestinations,
    verb: "rotate-secret",
    label: "rotate the signing secret (typed confirmation; the new secret shown once)",
    hint: "rotate",
    key: 'K',
    writes: true,
    done: "secret rotated",
    title: "Rotate signing secret",
    question: |item| match subject(item) {
        Ok(d) => format!(
            "Rotate the signing secret of “{}”? The old secret stops at once: the receiver \
             rejects deliveries until it has the new one, shown once in the answer.",
            d.name
        ),
        Err(_) => String::new(),
    },
    request: |item, _: &OpArgs| {
        Ok(ApiRequest::rotate_event_destination_secret(
            &subject(item)?.id,
        ))
    },
    tool: None,
};

/// `archive`: the destination stops; its pending and retrying deliveries are cancelled.
pub static ARCHIVE: Op = Op {
    resource: Kind::EventDestinations,
    verb: "archive",
    label: "archive the destination (cancels its pending deliveries)",
    hint: "archive",
    key: 'A',
    writes: true,
    done: "archived",
    title: "Archive destination",
    question: |item| match subject(item) {
        Ok(d) => format!(
            "Archive “{}”? It gets no more deliveries, and its pending and retrying ones are \
             cancelled. This cannot be undone.",
            d.name
        ),
        Err(_) => String::new(),
    },
    request: |item, _: &OpArgs| Ok(ApiRequest::archive_event_destination(&subject(item)?.id)),
    tool: None,
};

/// The event destinations in the registry.
pub struct EventDestinations;

impl super::Resource for EventDestinations {
    type Item = EventDestination;
    const KIND: Kind = Kind::EventDestinations;
    const NOUN: &'static str = "event destinations";
    const NEEDED_KEY: &'static str = "the organization key";
    const GENERATIONS: &'static [Generation] = &[Generation::EventDestinations];
    const OPS: &'static [&'static Op] = &[&PING, &ROTATE, &ARCHIVE];
    const WIRE_COLUMNS: &'static [(&'static str, &'static str)] = &[
        ("id", "id"),
        ("name", "name"),
        ("status", "status"),
        ("url", "webhook.url"),
        ("retry", "retry.strategy"),
        ("attempts", "retry.max_attempts"),
        ("listeners", "#listeners"),
    ];

    fn description() -> &'static Description<EventDestination> {
        &EVENT_DESTINATIONS
    }

    fn id(t: &EventDestination) -> &str {
        &t.id
    }

    fn name(t: &EventDestination) -> String {
        t.name.clone()
    }

    fn heading(t: &EventDestination) -> String {
        format!("Destination {}", t.name)
    }

    fn list(q: &ListQuery, _filter: &NotificationFilter) -> ApiRequest {
        ApiRequest::list_event_destinations(q, &EventDestinationFilter::default())
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_event_destination(id)
    }
}
