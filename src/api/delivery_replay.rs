//! An `event-destinations` attempt's recorded request, read by the attempt's id (a delivery's
//! embedded attempts carry `request: null`), and the request to send again made from it, freshly
//! signed as the platform signs (generations.md §7). Headless replay and recover and the MCP
//! server's `replay_locally` share it.
use serde_json::Value;

use super::replay::{DestinationRef, ReplayPlan};
use super::{ApiRequest, Client, Error, Secret};

/// Why there is no recorded request to send.
#[derive(Debug, thiserror::Error)]
pub enum RecordedError {
    /// The API call failed.
    #[error(transparent)]
    Api(#[from] Error),
    /// The delivery has no such attempt, or the attempt recorded no request.
    #[error("{0}")]
    Missing(String),
}

/// Headers the platform makes per attempt: made afresh, never copied from the recorded one.
const FRESH: [&str; 4] = [
    "metorial-signature",
    "metorial-timestamp",
    "content-length",
    "host",
];

/// What an attempt's recorded request holds.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// `evdi_…`.
    pub delivery: String,
    /// `evtd_…`.
    pub destination: String,
    /// The attempt's number (from 1).
    pub attempt_number: i64,
    /// The headers as recorded, without those made afresh.
    pub headers: Vec<(String, String)>,
    /// The body, byte for byte.
    pub body: String,
}

/// The recorded request of `delivery`'s attempt `number` (from 1), or of its latest attempt.
///
/// # Errors
/// The API's; [`RecordedError::Missing`] when the delivery has no such attempt or it recorded no
/// request.
pub async fn recorded(
    client: &Client,
    delivery: &str,
    number: Option<i64>,
) -> Result<Recorded, RecordedError> {
    let raw = client.send(&ApiRequest::get_delivery(delivery)).await?;
    let d: Value = crate::api::client::decode(raw.status, &raw.body)?;
    let attempts = d
        .get("attempts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let n_of = |a: &Value| a.get("attempt_number").and_then(Value::as_i64).unwrap_or(0);
    let chosen = match number {
        Some(n) => attempts.iter().find(|a| n_of(a) == n),
        None => attempts.iter().max_by_key(|a| n_of(a)),
    };
    let Some(attempt_id) = chosen.and_then(|a| a.get("id").and_then(Value::as_str)) else {
        return Err(RecordedError::Missing(match number {
            Some(n) => format!("delivery {delivery} has no attempt #{n}"),
            None => format!("delivery {delivery} has no attempt yet: nothing was sent to replay"),
        }));
    };
    let raw = client
        .send(&ApiRequest::get_delivery_attempt(attempt_id))
        .await?;
    let a: Value = crate::api::client::decode(raw.status, &raw.body)?;
    let Some(req) = a.get("request").filter(|r| r.is_object()) else {
        return Err(RecordedError::Missing(format!(
            "attempt {attempt_id} recorded no request: nothing to replay"
        )));
    };
    let headers = req
        .get("headers")
        .and_then(Value::as_array)
        .map(|hs| {
            hs.iter()
                .filter_map(|h| {
                    let k = h.get("key").and_then(Value::as_str)?.to_ascii_lowercase();
                    let v = h.get("value").and_then(Value::as_str)?;
                    (!FRESH.contains(&k.as_str())).then(|| (k, v.to_string()))
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Recorded {
        delivery: delivery.to_string(),
        destination: d
            .get("event_destination_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        attempt_number: n_of(&a),
        headers,
        body: req
            .get("body")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
    })
}

/// The request to send now: the recorded headers and body, and (with a secret) a timestamp and
/// signature made now.
#[must_use]
pub fn plan_now(r: &Recorded, target: url::Url, secret: Option<&Secret>) -> ReplayPlan {
    let mut headers = r.headers.clone();
    if let Some(s) = secret {
        let t = chrono::Utc::now().timestamp();
        headers.push(("metorial-timestamp".into(), t.to_string()));
        headers.push((
            "metorial-signature".into(),
            crate::api::signature::signature_newer(s.expose(), t, &r.body),
        ));
    }
    ReplayPlan {
        notification_id: r.delivery.clone(),
        attempt_index: r.attempt_number.saturating_sub(1),
        target,
        method: "POST",
        body: r.body.clone(),
        headers,
        // Signed above, the newer generations' way (`Signing` makes pulsar's `i=` signature).
        signing: None,
        destination: Some(DestinationRef {
            id: r.destination.clone(),
            name: String::new(),
        }),
    }
}
