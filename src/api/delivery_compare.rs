//! `event-destinations` attempts' recorded answers as compare takes them ([`Answer`]): the
//! console's `=` and `E` on this generation. A delivery's embedded attempts carry no bodies, so
//! each attempt is read by its id.
use super::compare::Answer;
use super::model::{DeliveryAttempt, EventDelivery};
use super::{ApiRequest, Client, Error};
use crate::text::redact::HeaderOrigin;

/// Attempts read at most per delivery (the newest): a retried delivery gets a fresh budget of up
/// to 25 each time, so the reads stay bounded however often it was retried.
pub const MAX_ATTEMPTS: usize = 50;

impl Answer {
    /// The answer recorded in an `event-destinations` attempt, labelled `attempt #N` as pulsar's.
    #[must_use]
    pub fn from_delivery_attempt(a: &DeliveryAttempt) -> Self {
        let r = a.response.as_ref();
        let error = a.error.as_ref().map(|e| match (&e.code, &e.message) {
            (Some(c), Some(m)) => format!("{c}: {m}"),
            (Some(c), None) => c.clone(),
            (None, Some(m)) => m.clone(),
            (None, None) => "failed".to_string(),
        });
        Self {
            label: format!("attempt #{}", a.attempt_number),
            status: r.and_then(|r| r.status_code).map(i64::from),
            duration_ms: a.duration_ms,
            headers: r
                .and_then(|r| r.headers.as_ref())
                .map(|hs| {
                    hs.iter()
                        .map(|h| (h.key.clone(), h.value.clone()))
                        .collect()
                })
                .unwrap_or_default(),
            body: r.and_then(|r| r.body.clone()),
            error,
            // Recorded by the platform: fail closed, as the attempt view shows it.
            origin: HeaderOrigin::Elsewhere,
        }
    }
}

/// `delivery`'s attempts with their recorded answers, oldest first, each with its index from 0
/// (the attempt number less one, as pulsar's attempts are indexed); the newest
/// [`MAX_ATTEMPTS`] at most.
///
/// # Errors
/// The API's.
pub async fn recorded_answers(
    client: &Client,
    delivery: &str,
) -> Result<Vec<(i64, Answer)>, Error> {
    let raw = client.send(&ApiRequest::get_delivery(delivery)).await?;
    let d: EventDelivery = super::client::decode(raw.status, &raw.body)?;
    let mut ids: Vec<(u32, String)> = d
        .attempts
        .iter()
        .map(|a| (a.attempt_number, a.id.clone()))
        .collect();
    ids.sort();
    let skip = ids.len().saturating_sub(MAX_ATTEMPTS);
    let mut out = Vec::with_capacity(ids.len() - skip);
    for (n, id) in ids.into_iter().skip(skip) {
        let raw = client.send(&ApiRequest::get_delivery_attempt(&id)).await?;
        let a: DeliveryAttempt = super::client::decode(raw.status, &raw.body)?;
        out.push((
            i64::from(n).saturating_sub(1),
            Answer::from_delivery_attempt(&a),
        ));
    }
    Ok(out)
}
