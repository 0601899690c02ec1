//! The delivery worker of the generation (§7): each due delivery gets one signed attempt, its
//! request and up to 16 KiB of the answer recorded; the destination's retry policy decides the
//! next one. Only 408, 425, 429, 5xx, timeouts and network errors are retried; `Retry-After` is
//! honoured up to the policy's longest delay.
use crate::service::event_destinations::stored::Stored;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use super::db;
use super::pipeline::webhook_body;
use super::wire::{iso_ms, now_iso};
use crate::service::due::{self, Attempts, Core, Posted, Schedule, joined};
use crate::service::ids::new_id;
use crate::service::store::{Db, StoreError};

/// The most of a receiver's answer kept (bytes).
pub const RESPONSE_CAP: usize = 16 * 1024;
/// The shortest and longest delay any policy may give.
const MIN_DELAY: u64 = 1;
const MAX_DELAY: u64 = 24 * 3600;
/// The most attempts a policy may ask for.
pub const MAX_ATTEMPTS: u64 = 25;

/// `v1`: hex HMAC-SHA256(secret, "t.body") — the newer generations' signature (no `i=`).
pub fn sign(secret: &str, t: i64, body: &str) -> String {
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
        return String::new();
    };
    mac.update(format!("{t}.{body}").as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// The wait before the next attempt after `n` failed attempts of this budget (n ≥ 1): exponential
/// base × 2^(n−1), linear base × n, fixed base; clamped to [base, max] and to 1 s – 24 h.
pub fn delay(retry: &Value, n: u64) -> Duration {
    let base = retry["base_delay_seconds"]
        .as_u64()
        .unwrap_or(10)
        .clamp(MIN_DELAY, MAX_DELAY);
    let max = retry["max_delay_seconds"]
        .as_u64()
        .unwrap_or(10_800)
        .clamp(base, MAX_DELAY);
    let n = n.max(1);
    let secs = match retry["strategy"].as_str() {
        Some("linear") => base.saturating_mul(n),
        Some("fixed") => base,
        _ => base.saturating_mul(
            1u64.checked_shl(u32::try_from(n - 1).unwrap_or(63))
                .unwrap_or(u64::MAX),
        ),
    };
    Duration::from_secs(secs.clamp(base, max))
}

/// A `Retry-After` value (seconds or an HTTP date) as a wait.
fn retry_after(v: &str) -> Option<Duration> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let ms = at.timestamp_millis() - chrono::Utc::now().timestamp_millis();
    Some(Duration::from_millis(u64::try_from(ms).unwrap_or(0)))
}

/// Whether an HTTP status is worth another attempt.
pub fn retryable(status: u16) -> bool {
    matches!(status, 408 | 425 | 429) || status >= 500
}

/// The generation's attempts on the shared loop.
pub struct Deliveries;

/// Handle on the worker.
pub type Worker = due::Worker<Deliveries>;

impl Attempts for Deliveries {
    const NOUN: &'static str = "delivery";
    const USER_AGENT: Option<&'static str> = Some("Metorial (https://metorial.com)");
    fn schedule() -> &'static Schedule {
        &db::SCHEDULE
    }
    fn chores_waiting(db: &Db) -> Result<bool, StoreError> {
        super::pipeline::callbacks_to_sync(db)
    }
    fn chores(db: &Db) -> Result<(), StoreError> {
        super::pipeline::sync_callbacks(db).map(drop)
    }
    fn attempt(
        core: Arc<Core<Self>>,
        id: String,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        attempt(core, id)
    }
}

/// What one HTTP attempt came to.
struct Sent {
    status: Option<u16>,
    headers: Vec<Value>,
    body: String,
    truncated: bool,
    error: Option<(String, String)>,
    retry_after: Option<Duration>,
}

/// Sends once and puts the outcome in this generation's words.
async fn send(
    core: &Core<Deliveries>,
    url: &str,
    headers: &[(String, String)],
    body: &str,
) -> Sent {
    let failed = |code: &str, message: String| Sent {
        status: None,
        headers: Vec::new(),
        body: String::new(),
        truncated: false,
        error: Some((code.into(), message)),
        retry_after: None,
    };
    match core.post(url, headers, body, RESPONSE_CAP).await {
        Posted::NoClient(e) => failed("network_error", e),
        Posted::TimedOut => failed(
            "timeout",
            format!(
                "Destination did not respond within {}ms",
                core.timeout.as_millis()
            ),
        ),
        Posted::Unreachable(e) => failed(
            "network_error",
            format!("Could not reach the destination: {e}"),
        ),
        Posted::Answered {
            status,
            headers,
            retry_after: after,
            body,
            truncated,
        } => Sent {
            status: Some(status),
            headers: headers
                .into_iter()
                .map(|(k, v)| json!({"key": k, "value": v}))
                .collect(),
            body: String::from_utf8_lossy(&body).into_owned(),
            truncated,
            error: (!(200..300).contains(&status)).then(|| {
                (
                    format!("http_{status}"),
                    format!("Destination responded with HTTP {status}"),
                )
            }),
            retry_after: after.as_deref().and_then(retry_after),
        },
    }
}

/// One attempt of a claimed delivery, recorded with its outcome.
async fn attempt(core: Arc<Core<Deliveries>>, id: String) -> Result<(), StoreError> {
    let id = id.as_str();
    let store = core.store.clone();
    let key = id.to_string();
    let plan = tokio::task::spawn_blocking(move || {
        store.read(|db| -> Result<_, StoreError> {
            let Some(d) = db::get(db, Stored::Delivery, &key)? else {
                return Ok(None);
            };
            let e = db::get(
                db,
                Stored::Event,
                d["event_id"].as_str().unwrap_or_default(),
            )?;
            let dest_id = d["event_destination_id"].as_str().unwrap_or_default();
            let dest = db::get(db, Stored::Destination, dest_id)?;
            let secret = db::secret(db, dest_id)?;
            Ok(Some((d, e, dest, secret)))
        })
    })
    .await
    .map_err(joined)??;
    let Some((d, Some(e), Some(dest), Some(secret))) = plan else {
        // Nothing left to send it with: off the schedule.
        let store = core.store.clone();
        let key = id.to_string();
        return tokio::task::spawn_blocking(move || store.write(|db| db::set_due(db, &key, None)))
            .await
            .map_err(joined)?;
    };
    let open = matches!(d["status"].as_str(), Some("pending" | "retrying"));
    if !open || dest["status"] != "active" {
        let store = core.store.clone();
        let key = id.to_string();
        return tokio::task::spawn_blocking(move || store.write(|db| db::set_due(db, &key, None)))
            .await
            .map_err(joined)?;
    }
    let number = d["attempt_count"].as_u64().unwrap_or(0) + 1;
    let body = webhook_body(&e);
    let t = chrono::Utc::now().timestamp();
    let url = dest["webhook"]["url"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let headers: Vec<(String, String)> = vec![
        ("content-type".into(), "application/json".into()),
        (
            "user-agent".into(),
            "Metorial (https://metorial.com)".into(),
        ),
        (
            "metorial-signature".into(),
            format!("t={t},v1={}", sign(&secret, t, &body)),
        ),
        ("metorial-timestamp".into(), t.to_string()),
        (
            "metorial-event-id".into(),
            e["id"].as_str().unwrap_or_default().into(),
        ),
        (
            "metorial-event-type".into(),
            e["event_type"].as_str().unwrap_or_default().into(),
        ),
        ("metorial-delivery-id".into(), id.to_string()),
        ("metorial-delivery-attempt".into(), number.to_string()),
        (
            "metorial-destination-id".into(),
            dest["id"].as_str().unwrap_or_default().into(),
        ),
    ];
    let started_ms = chrono::Utc::now().timestamp_millis();
    let clock = Instant::now();
    let sent = send(&core, &url, &headers, &body).await;
    let duration = u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX);
    let done_ms = chrono::Utc::now().timestamp_millis();
    let ok = sent.error.is_none();
    let can_retry = !ok && sent.status.is_none_or(retryable);
    let record = json!({
        "object": "event.delivery_attempt", "id": new_id("evda"), "event_delivery_id": id,
        "event_id": e["id"], "event_destination_id": dest["id"],
        "status": if ok { "succeeded" } else { "failed" }, "attempt_number": number,
        "duration_ms": duration, "is_retryable": can_retry,
        "error": sent.error.as_ref().map(|(c, m)| json!({"code": c, "message": m})),
        "request": {
            "url": url, "method": "POST",
            "headers": headers.iter().map(|(k, v)| json!({"key": k, "value": v})).collect::<Vec<_>>(),
            "body": body,
        },
        "response": sent.status.map(|s| json!({
            "status_code": s, "headers": sent.headers, "body": sent.body,
            "is_body_truncated": sent.truncated,
        })),
        "started_at": iso_ms(started_ms), "completed_at": iso_ms(done_ms), "created_at": now_iso(),
    });
    let store = core.store.clone();
    let key = id.to_string();
    let retry_after = sent.retry_after;
    tokio::task::spawn_blocking(move || {
        store.write(|db| -> Result<(), StoreError> {
            db::put(db, Stored::Attempt, &record)?;
            let Some(mut d) = db::get(db, Stored::Delivery, &key)? else {
                return Ok(());
            };
            let now = now_iso();
            d["attempt_count"] = number.into();
            d["last_attempt_at"] = record["completed_at"].clone();
            d["updated_at"] = now.clone().into();
            d["error"] = record["error"].clone();
            // Cancelled (archived) or retried while this attempt was out: its outcome is
            // recorded, its status left as it is now.
            if !matches!(d["status"].as_str(), Some("pending" | "retrying")) {
                db::put(db, Stored::Delivery, &d)?;
                return Ok(());
            }
            let budget = number - d["_budget_start"].as_u64().unwrap_or(0);
            let max = d["retry"]["max_attempts"]
                .as_u64()
                .unwrap_or(8)
                .clamp(1, MAX_ATTEMPTS);
            if ok {
                d["status"] = "delivered".into();
                d["next_attempt_at"] = Value::Null;
                d["completed_at"] = now.into();
                db::set_due(db, &key, None)?;
            } else if can_retry && budget < max {
                let max_delay = d["retry"]["max_delay_seconds"]
                    .as_u64()
                    .unwrap_or(10_800)
                    .clamp(MIN_DELAY, MAX_DELAY);
                let wait = match retry_after {
                    Some(w) => w.clamp(
                        Duration::from_secs(MIN_DELAY),
                        Duration::from_secs(max_delay),
                    ),
                    None => delay(&d["retry"], budget),
                };
                let at = done_ms + i64::try_from(wait.as_millis()).unwrap_or(i64::MAX / 2);
                d["status"] = "retrying".into();
                d["next_attempt_at"] = iso_ms(at).into();
                db::set_due(db, &key, Some(at))?;
            } else {
                d["status"] = "failed".into();
                d["next_attempt_at"] = Value::Null;
                d["completed_at"] = now.into();
                db::set_due(db, &key, None)?;
            }
            db::put(db, Stored::Delivery, &d)?;
            Ok(())
        })
    })
    .await
    .map_err(joined)?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_wait_as_the_contract_says() {
        let p = |s: &str| json!({"strategy": s, "base_delay_seconds": 10, "max_delay_seconds": 100, "max_attempts": 8});
        let secs = |s: &str, n| delay(&p(s), n).as_secs();
        assert_eq!(
            [1, 2, 3, 4, 5].map(|n| secs("exponential", n)),
            [10, 20, 40, 80, 100]
        );
        assert_eq!([1, 2, 3, 11].map(|n| secs("linear", n)), [10, 20, 30, 100]);
        assert_eq!([1, 7].map(|n| secs("fixed", n)), [10, 10]);
        // Clamped to 1 s – 24 h whatever the policy says.
        let wild = json!({"strategy": "exponential", "base_delay_seconds": 0, "max_delay_seconds": 999_999});
        assert_eq!(delay(&wild, 1).as_secs(), 1);
        assert_eq!(delay(&wild, 60).as_secs(), 24 * 3600);
    }

    #[test]
    fn only_transient_statuses_are_retried() {
        for s in [408, 425, 429, 500, 503, 599] {
            assert!(retryable(s), "{s}");
        }
        for s in [400, 401, 403, 404, 410, 422, 301] {
            assert!(!retryable(s), "{s}");
        }
        assert_eq!(retry_after("7"), Some(Duration::from_secs(7)));
    }

    #[test]
    fn signs_the_golden_example() {
        // shared/fixtures/generations/signature-examples.json, "newer".
        let body = r#"{"object":"event","id":"evnt_0mqnhfqgkljPGQqvcVIXBx","source":"callback","event_type":"callback.issues.closed","payload":null}"#;
        assert_eq!(
            sign(
                "whsec_5c4f0e7b2d9a4c3e8f1b6a2d7e9c0b1a",
                1_782_027_944,
                body
            ),
            "3a6238f05be26681a24696fa8236f8c362907fe58319f73264231c02fe12cf2c"
        );
    }
}
