//! The delivery worker of the generation (§7): each due delivery gets one signed attempt, its
//! request and up to 16 KiB of the answer recorded; the destination's retry policy decides the
//! next one. Only 408, 425, 429, 5xx, timeouts and network errors are retried; `Retry-After` is
//! honoured up to the policy's longest delay.
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use tokio::sync::{Notify, OnceCell, Semaphore, watch};
use tokio::task::JoinHandle;

use super::db;
use super::pipeline::webhook_body;
use super::wire::{iso_ms, now_iso};
use crate::service::ids::new_id;
use crate::service::logs::error_limited;
use crate::service::store::{Store, StoreError};

/// The most of a receiver's answer kept (bytes).
pub const RESPONSE_CAP: usize = 16 * 1024;
/// Attempts in flight at once.
const CONCURRENCY: usize = 16;
/// Longest idle wait between looks at the schedule.
const IDLE: Duration = Duration::from_millis(500);
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

struct Inner {
    store: Arc<Store>,
    http: OnceCell<reqwest::Client>,
    timeout: Duration,
    wake: Notify,
    stop: watch::Sender<bool>,
    permits: Arc<Semaphore>,
    in_flight: Mutex<HashSet<String>>,
}

/// Handle on the worker.
#[derive(Clone)]
pub struct Worker {
    inner: Arc<Inner>,
}

impl Worker {
    /// A worker over `store`; `timeout` bounds each attempt.
    pub fn new(store: Arc<Store>, timeout: Duration) -> Self {
        let (stop, _) = watch::channel(false);
        Self {
            inner: Arc::new(Inner {
                store,
                http: OnceCell::new(),
                timeout,
                wake: Notify::new(),
                stop,
                permits: Arc::new(Semaphore::new(CONCURRENCY)),
                in_flight: Mutex::new(HashSet::new()),
            }),
        }
    }

    /// Something may be due now.
    pub fn wake(&self) {
        self.inner.wake.notify_one();
    }

    /// Changes when the worker is told to stop.
    pub fn stopped(&self) -> watch::Receiver<bool> {
        self.inner.stop.subscribe()
    }

    /// Stops the loop and waits (bounded) for attempts in flight to be recorded.
    pub async fn stop(&self) {
        self.inner.stop.send_replace(true);
        let all = u32::try_from(CONCURRENCY).unwrap_or(u32::MAX);
        let _ = tokio::time::timeout(
            self.inner.timeout + Duration::from_secs(1),
            self.inner.permits.acquire_many(all),
        )
        .await;
    }

    /// Starts the loop.
    pub fn spawn(&self) -> JoinHandle<()> {
        let inner = self.inner.clone();
        tokio::spawn(run(inner))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

async fn run(inner: Arc<Inner>) {
    let mut stop = inner.stop.subscribe();
    loop {
        if *stop.borrow() {
            return;
        }
        let wait = tick(&inner).await.unwrap_or_else(|e| {
            error_limited(&format!("delivery worker: {e}"));
            Duration::from_secs(1)
        });
        tokio::select! {
            _ = inner.wake.notified() => {}
            _ = tokio::time::sleep(wait) => {}
            _ = stop.changed() => return,
        }
    }
}

/// Claims and starts what is due; returns how long until the next look.
async fn tick(inner: &Arc<Inner>) -> Result<Duration, StoreError> {
    let store = inner.store.clone();
    let now = chrono::Utc::now().timestamp_millis();
    let busy: HashSet<String> = lock(&inner.in_flight).clone();
    let free = inner.permits.available_permits();
    let lease =
        i64::try_from((inner.timeout + Duration::from_secs(30)).as_millis()).unwrap_or(60_000);
    // A look on a read connection first: an idle worker takes no write transaction.
    let look = store.clone();
    let limit = free + busy.len();
    let (due, next, sync) = tokio::task::spawn_blocking(move || {
        look.read(|db| -> Result<_, StoreError> {
            let (due, next) = db::due(db, now, limit)?;
            Ok((due, next, super::pipeline::callbacks_to_sync(db)?))
        })
    })
    .await
    .map_err(|e| StoreError::Json(serde::de::Error::custom(e)))??;
    let wanted = due.iter().any(|(id, _)| !busy.contains(id)) && free > 0;
    if !wanted && !sync {
        return Ok(until(next));
    }
    let (claimed, next) = tokio::task::spawn_blocking(move || {
        store.write(|db| -> Result<_, StoreError> {
            if sync {
                super::pipeline::sync_callbacks(db)?;
            }
            let (due, next) = db::due(db, now, limit)?;
            let mut claimed = Vec::new();
            for (id, at) in due {
                if claimed.len() >= free || busy.contains(&id) {
                    continue;
                }
                if db::claim(db, &id, at, now + lease)? {
                    claimed.push(id);
                }
            }
            Ok((claimed, next))
        })
    })
    .await
    .map_err(|e| StoreError::Json(serde::de::Error::custom(e)))??;
    for id in claimed {
        let Ok(permit) = inner.permits.clone().try_acquire_owned() else {
            break;
        };
        lock(&inner.in_flight).insert(id.clone());
        let inner = inner.clone();
        tokio::spawn(async move {
            if let Err(e) = attempt(&inner, &id).await {
                error_limited(&format!("delivery {id}: {e}"));
            }
            lock(&inner.in_flight).remove(&id);
            drop(permit);
            inner.wake.notify_one();
        });
    }
    Ok(until(next))
}

/// How long to wait for the next due time (at most [`IDLE`]).
fn until(next: Option<i64>) -> Duration {
    let wait = next.map_or(IDLE, |at| {
        Duration::from_millis(
            u64::try_from(at - chrono::Utc::now().timestamp_millis()).unwrap_or(0),
        )
    });
    wait.min(IDLE)
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

async fn client(inner: &Inner) -> Result<&reqwest::Client, reqwest::Error> {
    inner
        .http
        .get_or_try_init(|| async {
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::limited(5))
                .user_agent("Metorial (https://metorial.com)")
                .build()
        })
        .await
}

/// Sends once and reads at most [`RESPONSE_CAP`] bytes of the answer.
async fn send(inner: &Inner, url: &str, headers: &[(String, String)], body: &str) -> Sent {
    let failed = |code: &str, message: String| Sent {
        status: None,
        headers: Vec::new(),
        body: String::new(),
        truncated: false,
        error: Some((code.into(), message)),
        retry_after: None,
    };
    let http = match client(inner).await {
        Ok(c) => c,
        Err(e) => return failed("network_error", e.to_string()),
    };
    let mut rb = http.post(url).timeout(inner.timeout).body(body.to_string());
    for (k, v) in headers {
        rb = rb.header(k, v);
    }
    let mut resp = match rb.send().await {
        Ok(r) => r,
        Err(e) if e.is_timeout() => {
            return failed(
                "timeout",
                format!(
                    "Destination did not respond within {}ms",
                    inner.timeout.as_millis()
                ),
            );
        }
        Err(e) => {
            return failed(
                "network_error",
                format!("Could not reach the destination: {e}"),
            );
        }
    };
    let status = resp.status().as_u16();
    let headers: Vec<Value> = resp
        .headers()
        .iter()
        .take(64)
        .map(|(k, v)| json!({"key": k.as_str(), "value": String::from_utf8_lossy(v.as_bytes())}))
        .collect();
    let retry_after = resp
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(retry_after);
    let mut bytes = Vec::new();
    let mut truncated = false;
    loop {
        match tokio::time::timeout(inner.timeout, resp.chunk()).await {
            Ok(Ok(Some(chunk))) => {
                let room = RESPONSE_CAP - bytes.len();
                if chunk.len() > room {
                    bytes.extend_from_slice(&chunk[..room]);
                    truncated = true;
                    break;
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok(Ok(None)) => break,
            Ok(Err(_)) | Err(_) => break,
        }
    }
    let error = (!(200..300).contains(&status)).then(|| {
        (
            format!("http_{status}"),
            format!("Destination responded with HTTP {status}"),
        )
    });
    Sent {
        status: Some(status),
        headers,
        body: String::from_utf8_lossy(&bytes).into_owned(),
        truncated,
        error,
        retry_after,
    }
}

/// One attempt of a claimed delivery, recorded with its outcome.
async fn attempt(inner: &Arc<Inner>, id: &str) -> Result<(), StoreError> {
    let store = inner.store.clone();
    let key = id.to_string();
    let plan = tokio::task::spawn_blocking(move || {
        store.read(|db| -> Result<_, StoreError> {
            let Some(d) = db::get(db, "delivery", &key)? else {
                return Ok(None);
            };
            let e = db::get(db, "event", d["event_id"].as_str().unwrap_or_default())?;
            let dest_id = d["event_destination_id"].as_str().unwrap_or_default();
            let dest = db::get(db, "destination", dest_id)?;
            let secret = db::secret(db, dest_id)?;
            Ok(Some((d, e, dest, secret)))
        })
    })
    .await
    .map_err(|e| StoreError::Json(serde::de::Error::custom(e)))??;
    let Some((d, Some(e), Some(dest), Some(secret))) = plan else {
        // Nothing left to send it with: off the schedule.
        let store = inner.store.clone();
        let key = id.to_string();
        return tokio::task::spawn_blocking(move || store.write(|db| db::set_due(db, &key, None)))
            .await
            .map_err(|e| StoreError::Json(serde::de::Error::custom(e)))?;
    };
    let open = matches!(d["status"].as_str(), Some("pending" | "retrying"));
    if !open || dest["status"] != "active" {
        let store = inner.store.clone();
        let key = id.to_string();
        return tokio::task::spawn_blocking(move || store.write(|db| db::set_due(db, &key, None)))
            .await
            .map_err(|e| StoreError::Json(serde::de::Error::custom(e)))?;
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
    let sent = send(inner, &url, &headers, &body).await;
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
    let store = inner.store.clone();
    let key = id.to_string();
    let retry_after = sent.retry_after;
    tokio::task::spawn_blocking(move || {
        store.write(|db| -> Result<(), StoreError> {
            db::put(db, "attempt", &record)?;
            let Some(mut d) = db::get(db, "delivery", &key)? else {
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
                db::put(db, "delivery", &d)?;
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
            db::put(db, "delivery", &d)?;
            Ok(())
        })
    })
    .await
    .map_err(|e| StoreError::Json(serde::de::Error::custom(e)))?
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
