//! A delivery's attempts (`event-destinations`): each with the request it sent and the response
//! it got, which only reading the attempt itself returns (a delivery embeds them without).
use super::width::Width;
use super::{Column, Description, SortKey, Tone, absolute, field, lines_or_dash};
use crate::api::generation::Generation;
use crate::api::model::{DeliveryAttempt, DeliveryAttemptStatus};
use crate::api::newer_requests::AttemptFilter;
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

type C = Column<DeliveryAttempt>;

fn tone(a: &DeliveryAttempt) -> Tone {
    match a.status {
        DeliveryAttemptStatus::Succeeded => Tone::Good,
        DeliveryAttemptStatus::Failed => Tone::Bad,
        DeliveryAttemptStatus::Other(_) => Tone::Unknown,
    }
}

fn http(a: &DeliveryAttempt) -> Option<u16> {
    a.response.as_ref().and_then(|r| r.status_code)
}

/// Delivery attempts.
pub static DELIVERY_ATTEMPTS: Description<DeliveryAttempt> = Description {
    name: "delivery attempts",
    aliases: &["attempts", "attempt", "tries", "evda"],
    id_prefix: "evda_",
    columns: &[
        C::new("Status", Width::fixed(11), |a, _| a.status.to_string())
            .sort(|a, _| SortKey::text(a.status.as_str()))
            .tone(tone),
        C::new("#", Width::fixed(3), |a, _| a.attempt_number.to_string())
            .sort(|a, _| SortKey::Number(i64::from(a.attempt_number))),
        C::new("HTTP", Width::fixed(5), |a, _| {
            http(a).map_or_else(|| "—".into(), |c| c.to_string())
        })
        .sort(|a, _| http(a).map_or(SortKey::Missing, |c| SortKey::Number(i64::from(c)))),
        C::new("Delivery", Width::identifying(10, 32), |a, _| {
            a.event_delivery_id.clone()
        })
        .sort(|a, _| SortKey::text(&a.event_delivery_id)),
        C::new("Created", Width::fixed(11), |a, c| c.when(&a.created_at))
            .sort(|a, _| SortKey::Time(a.created_at))
            .also(|a, _| absolute(&a.created_at)),
        C::new("ID", Width::flexible(10, 32).optional(1), |a, _| {
            a.id.clone()
        })
        .sort(|a, _| SortKey::text(&a.id))
        .muted(),
    ],
    fields: &[
        field("ID", |a| vec![a.id.clone()]),
        field("Delivery", |a| vec![a.event_delivery_id.clone()]),
        field("Attempt", |a| {
            lines_or_dash(super::deliveries::attempt_lines(a, false))
        }),
    ],
};

/// The delivery attempts in the registry.
pub struct DeliveryAttempts;

impl super::Resource for DeliveryAttempts {
    type Item = DeliveryAttempt;
    const KIND: super::Kind = super::Kind::DeliveryAttempts;
    const NOUN: &'static str = "delivery attempts";
    const NEEDED_KEY: &'static str = "the organization key";
    const GENERATIONS: &'static [Generation] = &[Generation::EventDestinations];
    const WIRE_COLUMNS: &'static [(&'static str, &'static str)] =
        super::deliveries::ATTEMPT_WIRE_COLUMNS;

    fn description() -> &'static Description<DeliveryAttempt> {
        &DELIVERY_ATTEMPTS
    }

    fn id(t: &DeliveryAttempt) -> &str {
        &t.id
    }

    fn name(t: &DeliveryAttempt) -> String {
        format!("#{} of {}", t.attempt_number, t.event_delivery_id)
    }

    fn heading(t: &DeliveryAttempt) -> String {
        format!("Attempt #{} of {}", t.attempt_number, t.event_delivery_id)
    }

    fn list(q: &ListQuery, filter: &NotificationFilter) -> ApiRequest {
        let f = AttemptFilter {
            statuses: filter.statuses.clone(),
            ..AttemptFilter::default()
        };
        ApiRequest::list_delivery_attempts(q, &f)
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_delivery_attempt(id)
    }
}
