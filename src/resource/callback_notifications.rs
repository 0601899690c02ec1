//! Notifications of the `callback-destinations` generation: each under its callback (there is
//! no global list or get), with an `attempt_count`, the next and last attempt, the last error and,
//! on a get, the request it sent embedded. The console merges the callbacks' newest pages when no
//! callback is chosen (`api::callback_gen`).
use super::teams::dash;
use super::width::Width;
use super::{Column, Description, SortKey, Tone, absolute, field, lines_or_dash};
use crate::api::generation::Generation;
use crate::api::model::{CallbackNotification, CallbackNotificationStatus};
use crate::api::newer_requests::CallbackNotificationFilter;
use crate::api::{ApiRequest, ListQuery, NotificationFilter};
use crate::text::redact::header_value;

type C = Column<CallbackNotification>;

/// The statuses the platform filters a callback's notifications by.
pub const STATUSES: &[&str] = &["pending", "delivered", "retrying", "failed"];

fn tone(n: &CallbackNotification) -> Tone {
    match n.status {
        CallbackNotificationStatus::Delivered => Tone::Good,
        CallbackNotificationStatus::Retrying => Tone::Busy,
        CallbackNotificationStatus::Pending => Tone::Waiting,
        CallbackNotificationStatus::Failed => Tone::Bad,
        CallbackNotificationStatus::Other(_) => Tone::Unknown,
    }
}

fn event_type(n: &CallbackNotification) -> Option<&str> {
    n.event.as_ref().and_then(|e| e.kind.as_deref())
}

fn destination(n: &CallbackNotification) -> Option<&str> {
    n.destination
        .as_ref()
        .map(|d| d.name.as_deref().filter(|s| !s.is_empty()).unwrap_or(&d.id))
}

fn error(n: &CallbackNotification) -> String {
    n.error.as_ref().map_or_else(
        || "-".into(),
        |e| format!("{} {}", dash(e.code.as_deref()), dash(e.message.as_deref())),
    )
}

/// Per-callback notifications.
pub static CALLBACK_NOTIFICATIONS: Description<CallbackNotification> = Description {
    name: "notifications",
    aliases: &["notifications", "notification", "notif", "ns", "sdi"],
    id_prefix: "sdi_",
    columns: &[
        C::new("Status", Width::fixed(10), |n, _| n.status.to_string())
            .sort(|n, _| SortKey::text(n.status.as_str()))
            .tone(tone),
        C::new("Event", Width::identifying(8, 32), |n, _| {
            super::or_dash(event_type(n))
        })
        .sort(|n, _| SortKey::text(event_type(n).unwrap_or_default())),
        C::new("Destination", Width::flexible(8, 30).optional(3), |n, _| {
            super::or_dash(destination(n))
        })
        .sort(|n, _| SortKey::text(destination(n).unwrap_or_default())),
        C::new("Tries", Width::fixed(5), |n, _| n.attempt_count.to_string())
            .sort(|n, _| SortKey::Number(i64::from(n.attempt_count))),
        C::new("Created", Width::fixed(11), |n, x| x.when(&n.created_at))
            .sort(|n, _| SortKey::Time(n.created_at))
            .also(|n, _| absolute(&n.created_at)),
        C::new("ID", Width::flexible(10, 32).optional(1), |n, _| {
            n.id.clone()
        })
        .sort(|n, _| SortKey::text(&n.id))
        .muted(),
    ],
    fields: &[
        field("ID", |n| vec![n.id.clone()]),
        field("Status", |n| vec![n.status.to_string()]),
        field("Attempts", |n| vec![n.attempt_count.to_string()]),
        field("Last attempt", |n| {
            vec![
                n.last_attempt_at
                    .as_ref()
                    .map_or_else(|| "-".into(), absolute),
            ]
        }),
        field("Next attempt", |n| {
            vec![
                n.next_attempt_at
                    .as_ref()
                    .map_or_else(|| "-".into(), absolute),
            ]
        }),
        field("Error", |n| vec![error(n)]),
        field("Event", |n| {
            vec![n.event.as_ref().map_or_else(
                || "-".into(),
                |e| format!("{} {}", dash(e.kind.as_deref()), e.id),
            )]
        }),
        field("Destination", |n| {
            vec![n.destination.as_ref().map_or_else(
                || "-".into(),
                |d| {
                    let url = d.webhook.as_ref().map(|w| w.url.as_str());
                    format!("{} {} {}", dash(d.name.as_deref()), dash(url), d.id)
                },
            )]
        }),
        field("Created", |n| vec![absolute(&n.created_at)]),
    ],
};

/// The request a notification sent, headers through the one redaction policy; `None` when the
/// answer has none (lists carry no event).
pub fn request_lines(n: &CallbackNotification) -> Option<Vec<String>> {
    let r = n.event.as_ref()?.request.as_ref()?;
    let mut out: Vec<String> = r
        .headers
        .iter()
        .map(|h| format!("{}: {}", h.key, header_value(&h.key, &h.value, false)))
        .collect();
    out.extend(lines_or_dash(super::notifications::body_start(
        r.body.as_deref().unwrap_or_default(),
    )));
    Some(out)
}

/// The notifications of `callback-destinations` in the registry.
pub struct CallbackNotifications;

impl super::Resource for CallbackNotifications {
    type Item = CallbackNotification;
    const KIND: super::Kind = super::Kind::CallbackNotifications;
    const RECEIVERS: Option<super::Kind> = Some(super::Kind::CallbackDestinations);
    const SENDERS: Option<super::Kind> = Some(super::Kind::DeploymentCallbacks);
    const THROUGH_CALLBACKS: bool = true;
    const ONE_REQUEST: bool = true;
    const NOUN: &'static str = "notifications";
    const GENERATIONS: &'static [Generation] = &[Generation::CallbackDestinations];
    const WIRE_COLUMNS: &'static [(&'static str, &'static str)] = &[
        ("id", "id"),
        ("status", "status"),
        ("attempts", "attempt_count"),
        ("destination", "destination.id"),
        ("next", "next_attempt_at"),
        ("created", "created_at"),
    ];

    fn description() -> &'static Description<CallbackNotification> {
        &CALLBACK_NOTIFICATIONS
    }

    fn id(t: &CallbackNotification) -> &str {
        &t.id
    }

    fn name(t: &CallbackNotification) -> String {
        event_type(t).unwrap_or_default().to_string()
    }

    fn heading(t: &CallbackNotification) -> String {
        format!("Notification {}", t.id)
    }

    /// The chosen callback's list; with none the console merges every callback's (see the
    /// worker), so this request names the first callback given.
    fn list(q: &ListQuery, filter: &NotificationFilter) -> ApiRequest {
        let f = CallbackNotificationFilter {
            destination_ids: filter.destination_ids.clone(),
            statuses: filter.statuses.clone(),
        };
        let cb = filter.callback_ids.first().map_or("", String::as_str);
        ApiRequest::list_callback_notifications(q, cb, &f)
    }

    /// There is no global get: the console's worker looks through the callbacks instead.
    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_callback_notification("", id)
    }
}
