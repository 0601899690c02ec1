//! The delivery worker of the generation (§6): each due notification gets one signed POST
//! (`Metorial-Signature: t=…,v1=…`, the `Metorial-*` headers, the event's own headers), 10 s
//! timeout, at most 5 redirects, up to 10,000 characters of the answer kept. Any failure is
//! retried on the destination's schedule: `linear` delay × n, `exponential` delay × 2^(n−1),
//! each clamped to 10 s – 3 h (scaled by `--retry-base-ms`), up to `max_attempts`.
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::db::{self, kind};
use super::pipeline::settle;
use crate::service::due::{self, Attempts, Core, Posted, Schedule, joined};
use crate::service::event_destinations::wire::{iso_ms, now_iso};
use crate::service::event_destinations::worker::sign;
use crate::service::store::StoreError;

/// The most of a receiver's answer kept (characters).
pub const RESPONSE_CAP: usize = 10_000;
/// The shortest and longest wait between attempts, in schedule seconds.
const MIN_DELAY: u64 = 10;
const MAX_DELAY: u64 = 3 * 3600;
/// The most attempts a destination may ask for.
const MAX_ATTEMPTS: u64 = 25;

/// The wait after `n` failed attempts (n ≥ 1), in schedule seconds: `linear` delay × n,
/// `exponential` delay × 2^(n−1), clamped to 10 s – 3 h.
pub fn delay_seconds(retry: &Value, n: u64) -> u64 {
    let d = retry["delay_seconds"].as_u64().unwrap_or(30);
    let n = n.max(1);
    let secs = match retry["type"].as_str() {
        Some("linear") => d.saturating_mul(n),
        _ => d.saturating_mul(
            1u64.checked_shl(u32::try_from(n - 1).unwrap_or(63))
                .unwrap_or(u64::MAX),
        ),
    };
    secs.clamp(MIN_DELAY, MAX_DELAY)
}

/// The schedule's seconds as a real wait: one second is `base` (1 s unless `--retry-base-ms`).
pub fn scaled(secs: u64, base: Duration) -> Duration {
    base.saturating_mul(u32::try_from(secs).unwrap_or(u32::MAX))
}

/// The sender named in `Metorial-Sender`: the delivery service's sender for a destination.
pub fn sender(destination: &Value) -> String {
    let sed = destination["_sed_id"].as_str().unwrap_or_default();
    let own = sed.split_once('_').map_or(sed, |(_, rest)| rest);
    format!("Metorial Callbacks (ssn_{own})")
}

/// The generation's attempts on the shared loop, one schedule second being `retry_base`.
pub struct Notifications {
    retry_base: Duration,
}

impl Notifications {
    /// Attempts whose schedule second lasts `retry_base` (1 s unless `--retry-base-ms`).
    pub fn new(retry_base: Duration) -> Self {
        Self { retry_base }
    }
}

/// Handle on the worker.
pub type Worker = due::Worker<Notifications>;

impl Attempts for Notifications {
    const NOUN: &'static str = "notification";
    const USER_AGENT: Option<&'static str> = None;
    fn schedule() -> &'static Schedule {
        &db::SCHEDULE
    }
    fn attempt(
        core: Arc<Core<Self>>,
        id: String,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        attempt(core, id)
    }
}

/// What one POST came to: the status and up to [`RESPONSE_CAP`] characters of the answer, or
/// the error.
struct Sent {
    status: Option<u16>,
    body: String,
    error: Option<(String, String)>,
}

/// Sends once and puts the outcome in this generation's words.
async fn send(
    core: &Core<Notifications>,
    url: &str,
    headers: &[(String, String)],
    body: &str,
) -> Sent {
    let failed = |code: &str, message: String| Sent {
        status: None,
        body: String::new(),
        error: Some((code.into(), message)),
    };
    // Bytes enough for the kept characters; the rest is not read.
    match core.post(url, headers, body, RESPONSE_CAP * 4).await {
        Posted::NoClient(e) => failed("request_error", e),
        Posted::TimedOut => failed(
            "timeout",
            format!("No response within {} ms", core.timeout.as_millis()),
        ),
        Posted::Unreachable(e) => failed(
            "request_error",
            format!("Could not reach the destination: {e}"),
        ),
        Posted::Answered { status, body, .. } => Sent {
            status: Some(status),
            body: String::from_utf8_lossy(&body)
                .chars()
                .take(RESPONSE_CAP)
                .collect(),
            error: (!(200..300).contains(&status)).then(|| {
                (
                    "http_error".to_string(),
                    format!("Destination responded with HTTP {status}"),
                )
            }),
        },
    }
}

/// The headers of one attempt, the signature over `body` at `t` included.
pub fn headers(
    dest: &Value,
    notification_id: &str,
    sent: &Value,
    number: u64,
    secret: &str,
    t: i64,
    body: &str,
) -> Vec<(String, String)> {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let mut h = vec![
        ("Content-Type".to_string(), "application/json".to_string()),
        (
            "User-Agent".to_string(),
            "Metorial (https://metorial.com)".to_string(),
        ),
        (
            "Metorial-Webhook-Id".to_string(),
            text(&dest["_webhook_id"]),
        ),
        (
            "Metorial-Notification-Id".to_string(),
            notification_id.to_string(),
        ),
        ("Metorial-Event-Id".to_string(), text(&sent["id"])),
        (
            "Metorial-Signature".to_string(),
            format!("t={t},v1={}", sign(secret, t, body)),
        ),
        ("Metorial-Version".to_string(), "2025-01-01".to_string()),
        ("Metorial-Delivery-Attempt".to_string(), number.to_string()),
        ("Metorial-Sender".to_string(), sender(dest)),
    ];
    for own in sent["request"]["headers"].as_array().into_iter().flatten() {
        h.push((text(&own["key"]), text(&own["value"])));
    }
    h
}

/// Writes a claimed notification's end without an attempt (its destination is gone or
/// archived, or it is no longer open).
async fn close(
    core: &Core<Notifications>,
    id: &str,
    why: Option<&'static str>,
) -> Result<(), StoreError> {
    let store = core.store.clone();
    let key = id.to_string();
    tokio::task::spawn_blocking(move || {
        store.write(|db| -> Result<(), StoreError> {
            db::set_due(db, &key, None)?;
            let Some(why) = why else { return Ok(()) };
            let Some(mut n) = db::get(db, kind::NOTIFICATION, &key)? else {
                return Ok(());
            };
            let now = now_iso();
            n["status"] = "failed".into();
            n["error"] = json!({"code": "destination_unavailable", "message": why});
            n["next_attempt_at"] = Value::Null;
            n["updated_at"] = now.clone().into();
            db::put(db, kind::NOTIFICATION, &n)?;
            settle(db, n["_event_id"].as_str().unwrap_or_default(), &now)
        })
    })
    .await
    .map_err(joined)?
}

/// One attempt of a claimed notification, recorded with its outcome.
async fn attempt(core: Arc<Core<Notifications>>, id: String) -> Result<(), StoreError> {
    let id = id.as_str();
    let store = core.store.clone();
    let key = id.to_string();
    let plan = tokio::task::spawn_blocking(move || {
        store.read(|db| -> Result<_, StoreError> {
            let Some(n) = db::get(db, kind::NOTIFICATION, &key)? else {
                return Ok(None);
            };
            let sent = db::get(
                db,
                kind::SENT_EVENT,
                n["_event_id"].as_str().unwrap_or_default(),
            )?;
            let dest_id = n["_destination_id"].as_str().unwrap_or_default();
            let dest = db::get(db, kind::DESTINATION, dest_id)?;
            let secret = db::secret(db, dest_id)?;
            Ok(Some((n, sent, dest, secret)))
        })
    })
    .await
    .map_err(joined)??;
    let Some((n, Some(sent), dest, secret)) = plan else {
        return close(&core, id, None).await;
    };
    if !matches!(n["status"].as_str(), Some("pending" | "retrying")) {
        return close(&core, id, None).await;
    }
    let (Some(dest), Some(secret)) = (dest.filter(|d| d["status"] == "active"), secret) else {
        return close(&core, id, Some("The destination was archived")).await;
    };
    let number = n["attempt_count"].as_u64().unwrap_or(0) + 1;
    let body = sent["request"]["body"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let t = chrono::Utc::now().timestamp();
    let url = dest["url"].as_str().unwrap_or_default().to_string();
    let h = headers(&dest, id, &sent, number, &secret, t, &body);
    let result = send(&core, &url, &h, &body).await;
    let done_ms = chrono::Utc::now().timestamp_millis();
    let store = core.store.clone();
    let key = id.to_string();
    let base = core.generation.retry_base;
    tokio::task::spawn_blocking(move || {
        store.write(|db| -> Result<(), StoreError> {
            let Some(mut n) = db::get(db, kind::NOTIFICATION, &key)? else {
                return Ok(());
            };
            let now = now_iso();
            n["attempt_count"] = number.into();
            n["last_attempt_at"] = iso_ms(done_ms).into();
            n["updated_at"] = now.clone().into();
            n["error"] = result
                .error
                .as_ref()
                .map_or(Value::Null, |(c, m)| json!({"code": c, "message": m}));
            n["_response"] = json!({"status": result.status, "body": result.body});
            let max = dest["_retry"]["max_attempts"]
                .as_u64()
                .unwrap_or(10)
                .clamp(1, MAX_ATTEMPTS);
            if result.error.is_none() {
                n["status"] = "delivered".into();
                n["next_attempt_at"] = Value::Null;
                db::set_due(db, &key, None)?;
            } else if number < max {
                let wait = scaled(delay_seconds(&dest["_retry"], number), base);
                let at = done_ms + i64::try_from(wait.as_millis()).unwrap_or(i64::MAX / 2);
                n["status"] = "retrying".into();
                n["next_attempt_at"] = iso_ms(at).into();
                db::set_due(db, &key, Some(at))?;
            } else {
                n["status"] = "failed".into();
                n["next_attempt_at"] = Value::Null;
                db::set_due(db, &key, None)?;
            }
            db::put(db, kind::NOTIFICATION, &n)?;
            settle(db, n["_event_id"].as_str().unwrap_or_default(), &now)
        })
    })
    .await
    .map_err(joined)?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_wait_as_the_contract_says() {
        let exp = json!({"type": "exponential", "max_attempts": 10, "delay_seconds": 30});
        let lin = json!({"type": "linear", "max_attempts": 5, "delay_seconds": 10});
        assert_eq!(
            [1, 2, 3, 4].map(|n| delay_seconds(&exp, n)),
            [30, 60, 120, 240]
        );
        assert_eq!([1, 2, 3].map(|n| delay_seconds(&lin, n)), [10, 20, 30]);
        // Clamped to 10 s – 3 h.
        let tiny = json!({"type": "linear", "delay_seconds": 1});
        assert_eq!(delay_seconds(&tiny, 1), 10);
        assert_eq!(delay_seconds(&exp, 40), 3 * 3600);
        assert_eq!(
            scaled(30, Duration::from_millis(10)),
            Duration::from_millis(300)
        );
    }
}
