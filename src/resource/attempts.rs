//! The attempts of a notification: number, outcome, the receiver's answer, how long it took.
use super::width::Width;
use super::{Column, DASH, Description, SortKey, Tone, absolute, duration_ms};
use crate::api::model::{Attempt, AttemptStatus, Notification, WebhookRequest};

/// A column of this resource.
type C = Column<Attempt>;

fn tone(a: &Attempt) -> Tone {
    match a.status {
        AttemptStatus::Succeeded => Tone::Good,
        AttemptStatus::Failed => Tone::Bad,
        AttemptStatus::Other(_) => Tone::Unknown,
    }
}

/// A notification's attempts in the order they were made.
pub fn sorted(n: &Notification) -> Vec<&Attempt> {
    let mut v: Vec<&Attempt> = n.attempts.iter().collect();
    v.sort_by_key(|a| a.index);
    v
}

/// `12 ms` for a request made, `—` without one.
pub fn took(r: Option<&WebhookRequest>) -> String {
    r.map_or_else(|| DASH.into(), |r| duration_ms(r.duration))
}

/// What came back: `HTTP 503`, the transport error, or that no request was made (no url).
pub fn answer(a: &Attempt) -> String {
    match &a.webhook_request {
        Some(r) if r.has_response() => format!("HTTP {}", r.response_status),
        Some(r) => r
            .request_error
            .clone()
            .unwrap_or_else(|| "no response".into()),
        None => "no request (no url)".into(),
    }
}

/// Attempts (in a notification's detail).
pub static ATTEMPTS: Description<Attempt> = Description {
    name: "attempts",
    aliases: &[],
    id_prefix: "cbna_",
    columns: &[
        C::new("#", Width::fixed(3), |a, _| a.number().to_string())
            .sort(|a, _| SortKey::Number(a.number())),
        C::new("Status", Width::fixed(11), |a, _| a.status.to_string())
            .sort(|a, _| SortKey::text(a.status.as_str()))
            .tone(tone),
        C::new("Response", Width::flexible(8, 40), |a, _| answer(a)).sort(|a, _| {
            match &a.webhook_request {
                Some(r) if r.has_response() => SortKey::Number(r.response_status),
                _ => SortKey::text(&answer(a)),
            }
        }),
        C::new("Took", Width::fixed(7), |a, _| {
            took(a.webhook_request.as_ref())
        })
        .sort(|a, _| {
            a.webhook_request
                .as_ref()
                .map_or(SortKey::Missing, |r| SortKey::Number(r.duration))
        }),
        C::new("When", Width::fixed(11), |a, c| c.when(&a.created_at))
            .sort(|a, _| SortKey::Time(a.created_at))
            .also(|a, _| absolute(&a.created_at)),
        C::new("ID", Width::flexible(10, 32).optional(1), |a, _| {
            a.id.clone()
        })
        .sort(|a, _| SortKey::text(&a.id))
        .muted(),
    ],
    fields: &[],
};
