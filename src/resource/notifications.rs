//! Callback notifications (read-only): delivery status, the last attempt's answer, the event
//! type and the destination; the detail adds the attempts and what the receiver answered.
use super::attempts::{answer, took};
use super::teams::dash;
use super::width::{Width, cut};
use super::{
    Column, Ctx, DASH, Description, Headless, SortKey, Tone, absolute, field, lines_or_dash,
};
use crate::api::generation::Generation;
use crate::api::model::{Notification, NotificationStatus, WebhookRequest};
use crate::api::{ApiRequest, ListQuery, NotificationFilter};
use crate::text::redact::header_value;

/// A column of this resource.
type C = Column<Notification>;

fn tone(n: &Notification) -> Tone {
    match n.status {
        NotificationStatus::Succeeded => Tone::Good,
        NotificationStatus::Retrying => Tone::Busy,
        NotificationStatus::Pending => Tone::Waiting,
        NotificationStatus::Failed => Tone::Bad,
        NotificationStatus::Other(_) => Tone::Unknown,
    }
}

/// The last attempt's recorded exchange.
fn last_request(n: &Notification) -> Option<&WebhookRequest> {
    n.last_attempt().and_then(|a| a.webhook_request.as_ref())
}

/// The last attempt's response status, `err` when none came, `—` without a request.
fn response(n: &Notification, _: &Ctx<'_>) -> String {
    match last_request(n) {
        Some(r) if r.has_response() => r.response_status.to_string(),
        Some(_) => "err".into(),
        None => DASH.into(),
    }
}

/// The destinations a notification went to, as far as the face can tell.
fn destinations(n: &Notification, c: &Ctx<'_>) -> String {
    let names = c.destinations_of.map(|f| f(n)).unwrap_or_default();
    if names.is_empty() {
        DASH.into()
    } else {
        names.join(", ")
    }
}

/// Notifications.
pub static NOTIFICATIONS: Description<Notification> = Description {
    name: "notifications",
    aliases: &["notifications", "notification", "notif", "ns", "cbn"],
    id_prefix: "cbn_",
    columns: &[
        C::new("Status", Width::fixed(11), |n, _| n.status.to_string())
            .sort(|n, _| SortKey::text(n.status.as_str()))
            .tone(tone),
        C::new("Att", Width::fixed(3).optional(1), |n, _| {
            n.attempts.len().to_string()
        })
        .sort(|n, _| SortKey::Number(n.attempts.len() as i64)),
        C::new("Resp", Width::fixed(4), response)
            .sort(|n, _| match last_request(n) {
                Some(r) if r.has_response() => SortKey::Number(r.response_status),
                Some(_) => SortKey::text("err"),
                None => SortKey::Missing,
            })
            // Headless has the room for the transport error itself.
            .headless(Headless::Text(|n, _| match last_request(n) {
                Some(r) if r.has_response() => r.response_status.to_string(),
                Some(r) => dash(r.request_error.as_deref()),
                None => "-".into(),
            })),
        C::new("Took", Width::fixed(7).optional(3), |n, _| {
            took(last_request(n))
        })
        .sort(|n, _| last_request(n).map_or(SortKey::Missing, |r| SortKey::Number(r.duration))),
        // The event type read from the delivered body: `/type` of the notification is the kind
        // (`webhook_http` on every row), which nobody sees.
        C::new("Event", Width::identifying(10, 28), |n, _| {
            n.event_type().unwrap_or_else(|| DASH.into())
        })
        .sort(|n, _| SortKey::text(&n.event_type().unwrap_or_default())),
        C::new("Destination", Width::identifying(10, 24), destinations)
            .sort(|n, c| SortKey::text(&destinations(n, c)))
            .headless(Headless::Hidden),
        C::new("URL", Width::flexible(10, 60).optional(5), |n, _| {
            url(n).unwrap_or_else(|| DASH.into())
        })
        .sort(|n, _| SortKey::text(&url(n).unwrap_or_default()))
        .headless(Headless::Text(|n, _| dash(url(n).as_deref()))),
        // When a delivery happened is never left out to make room for text (kubectl's AGE).
        C::new("Created", Width::fixed(11), |n, c| c.when(&n.created_at))
            .sort(|n, _| SortKey::Time(n.created_at))
            .also(|n, _| absolute(&n.created_at)),
        C::new("ID", Width::flexible(10, 32).optional(4), |n, _| {
            n.id.clone()
        })
        .sort(|n, _| SortKey::text(&n.id))
        .muted(),
    ],
    fields: &[
        field("ID", |n| vec![n.id.clone()]),
        field("Status", |n| vec![n.status.to_string()]),
        field("Event", |n| vec![dash(n.event_type().as_deref())]),
        field("URL", |n| vec![dash(url(n).as_deref())]),
        field("Attempts", |n| vec![n.attempts.len().to_string()]),
        // When the next attempt is due and when the platform gives up (issue 38).
        field("Retries", |n| {
            vec![crate::api::retry::Timeline::of_notification(n, chrono::Utc::now()).text(absolute)]
        }),
        field("Created", |n| vec![absolute(&n.created_at)]),
        field("History", |n| {
            lines_or_dash(
                super::attempts::sorted(n)
                    .into_iter()
                    .map(|a| {
                        format!(
                            "#{} {} {} {}",
                            a.number(),
                            absolute(&a.created_at),
                            a.status,
                            answer(a)
                        )
                    })
                    .collect(),
            )
        }),
        // The debugging loop's "what did the receiver answer", for the last attempt.
        field("Last response", |n| match last_request(n) {
            None => vec!["-".into()],
            Some(r) if r.has_response() => {
                vec![format!("HTTP {} in {}", r.response_status, took(Some(r)))]
            }
            Some(r) => vec![format!(
                "no response: {} ({})",
                dash(r.request_error.as_deref()),
                took(Some(r))
            )],
        }),
        field("Response headers", |n| match last_request(n) {
            Some(r) if !r.response_headers.is_empty() => r
                .response_headers
                .iter()
                .map(|(k, v)| format!("{k}: {}", header_value(k, v, false)))
                .collect(),
            _ => vec!["-".into()],
        }),
        field("Response body", |n| {
            last_request(n)
                .and_then(|r| r.response_body.as_deref())
                .filter(|b| !b.is_empty())
                .map_or_else(|| vec!["-".into()], body_start)
        }),
    ],
};

/// The notifications resource in the registry.
pub struct Notifications;

impl super::Resource for Notifications {
    type Item = Notification;
    const KIND: super::Kind = super::Kind::Notifications;
    const RECEIVERS: Option<super::Kind> = Some(super::Kind::Destinations);
    const SENDERS: Option<super::Kind> = Some(super::Kind::Callbacks);
    const NOTIFICATIONS_LIST: bool = true;
    const NOUN: &'static str = "notifications";
    const GENERATIONS: &'static [Generation] = &[Generation::Pulsar];

    fn description() -> &'static Description<Notification> {
        &NOTIFICATIONS
    }

    fn id(t: &Notification) -> &str {
        &t.id
    }

    fn name(t: &Notification) -> String {
        t.status.as_str().to_string()
    }

    fn heading(t: &Notification) -> String {
        format!("Notification {}", t.id)
    }

    fn list(q: &ListQuery, filter: &NotificationFilter) -> ApiRequest {
        ApiRequest::list_notifications(q, filter)
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_notification(id)
    }
}

/// Columns of a body shown in a detail view.
const BODY_WIDTH: usize = 500;

/// The start of a body, on one line: line breaks become spaces (a receiver's text never makes a
/// line of its own that could pass for another field), cut to [`BODY_WIDTH`] columns, and a line
/// saying how long it is when it was cut.
pub fn body_start(body: &str) -> Vec<String> {
    let one = crate::text::line(body);
    let shown = cut(&one, BODY_WIDTH);
    if shown.len() == one.len() {
        vec![shown]
    } else {
        vec![
            shown,
            format!("({} bytes in all; -o json shows it)", body.len()),
        ]
    }
}

/// The URL delivered to, through the redaction policy (a userinfo password and secret-looking
/// query values masked).
fn url(n: &Notification) -> Option<String> {
    n.url.as_deref().map(crate::text::redact::mask_url)
}
