//! The delivery worker of the generation (§6): each due notification gets one signed POST
//! (`Metorial-Signature: t=…,v1=…`, the `Metorial-*` headers, the event's own headers), 10 s
//! timeout, at most 5 redirects, up to 10,000 characters of the answer kept. Any failure is
//! retried on the destination's schedule: `linear` delay × n, `exponential` delay × 2^(n−1),
//! each clamped to 10 s – 3 h (scaled by `--retry-base-ms`), up to `max_attempts`.
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{Notify, OnceCell, Semaphore, watch};
use tokio::task::JoinHandle;

use super::db::{self, kind};
use super::pipeline::settle;
use crate::service::event_destinations::Wake;
use crate::service::event_destinations::wire::{iso_ms, now_iso};
use crate::service::event_destinations::worker::sign;
use crate::service::logs::error_limited;
use crate::service::store::{Store, StoreError};

/// The most of a receiver's answer kept (characters).
pub const RESPONSE_CAP: usize = 10_000;
/// Attempts in flight at once.
const CONCURRENCY: usize = 16;
/// Longest idle wait between looks at the schedule.
const IDLE: Duration = Duration::from_millis(500);
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

struct Inner {
    store: Arc<Store>,
    http: OnceCell<reqwest::Client>,
    timeout: Duration,
    retry_base: Duration,
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

impl Wake for Worker {
    fn wake(&self) {
        self.inner.wake.notify_one();
    }
    fn stopped(&self) -> watch::Receiver<bool> {
        self.inner.stop.subscribe()
    }
}

impl Worker {
    /// A worker over `store`; `timeout` bounds each attempt, `retry_base` is one schedule second.
    pub fn new(store: Arc<Store>, timeout: Duration, retry_base: Duration) -> Self {
        let (stop, _) = watch::channel(false);
        Self {
            inner: Arc::new(Inner {
                store,
                http: OnceCell::new(),
                timeout,
                retry_base,
                wake: Notify::new(),
                stop,
                permits: Arc::new(Semaphore::new(CONCURRENCY)),
                in_flight: Mutex::new(HashSet::new()),
            }),
        }
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
        tokio::spawn(run(self.inner.clone()))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn joined(e: tokio::task::JoinError) -> StoreError {
    StoreError::Json(serde::de::Error::custom(e))
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
    let now = chrono::Utc::now().timestamp_millis();
    let busy: HashSet<String> = lock(&inner.in_flight).clone();
    let free = inner.permits.available_permits();
    let lease =
        i64::try_from((inner.timeout + Duration::from_secs(30)).as_millis()).unwrap_or(60_000);
    let limit = free + busy.len();
    // A look on a read connection first: an idle worker takes no write transaction.
    let look = inner.store.clone();
    let (due, next) = tokio::task::spawn_blocking(move || look.read(|db| db::due(db, now, limit)))
        .await
        .map_err(joined)??;
    if free == 0 || !due.iter().any(|(id, _)| !busy.contains(id)) {
        return Ok(until(next));
    }
    let store = inner.store.clone();
    let (claimed, next) = tokio::task::spawn_blocking(move || {
        store.write(|db| -> Result<_, StoreError> {
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
    .map_err(joined)??;
    for id in claimed {
        let Ok(permit) = inner.permits.clone().try_acquire_owned() else {
            break;
        };
        lock(&inner.in_flight).insert(id.clone());
        let inner = inner.clone();
        tokio::spawn(async move {
            if let Err(e) = attempt(&inner, &id).await {
                error_limited(&format!("notification {id}: {e}"));
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

async fn client(inner: &Inner) -> Result<&reqwest::Client, reqwest::Error> {
    inner
        .http
        .get_or_try_init(|| async {
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::limited(5))
                .build()
        })
        .await
}

/// What one POST came to: the status and up to [`RESPONSE_CAP`] characters of the answer, or
/// the error.
struct Sent {
    status: Option<u16>,
    body: String,
    error: Option<(String, String)>,
}

async fn send(inner: &Inner, url: &str, headers: &[(String, String)], body: &str) -> Sent {
    let failed = |code: &str, message: String| Sent {
        status: None,
        body: String::new(),
        error: Some((code.into(), message)),
    };
    let http = match client(inner).await {
        Ok(c) => c,
        Err(e) => return failed("request_error", e.to_string()),
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
                format!("No response within {} ms", inner.timeout.as_millis()),
            );
        }
        Err(e) => {
            return failed(
                "request_error",
                format!("Could not reach the destination: {e}"),
            );
        }
    };
    let status = resp.status().as_u16();
    let mut bytes = Vec::new();
    // Bytes enough for the kept characters; the rest is not read.
    while bytes.len() < RESPONSE_CAP * 4 {
        match tokio::time::timeout(inner.timeout, resp.chunk()).await {
            Ok(Ok(Some(chunk))) => bytes.extend_from_slice(&chunk),
            _ => break,
        }
    }
    let body: String = String::from_utf8_lossy(&bytes)
        .chars()
        .take(RESPONSE_CAP)
        .collect();
    let error = (!(200..300).contains(&status)).then(|| {
        (
            "http_error".to_string(),
            format!("Destination responded with HTTP {status}"),
        )
    });
    Sent {
        status: Some(status),
        body,
        error,
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
async fn close(inner: &Arc<Inner>, id: &str, why: Option<&'static str>) -> Result<(), StoreError> {
    let store = inner.store.clone();
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
async fn attempt(inner: &Arc<Inner>, id: &str) -> Result<(), StoreError> {
    let store = inner.store.clone();
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
        return close(inner, id, None).await;
    };
    if !matches!(n["status"].as_str(), Some("pending" | "retrying")) {
        return close(inner, id, None).await;
    }
    let (Some(dest), Some(secret)) = (dest.filter(|d| d["status"] == "active"), secret) else {
        return close(inner, id, Some("The destination was archived")).await;
    };
    let number = n["attempt_count"].as_u64().unwrap_or(0) + 1;
    let body = sent["request"]["body"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let t = chrono::Utc::now().timestamp();
    let url = dest["url"].as_str().unwrap_or_default().to_string();
    let h = headers(&dest, id, &sent, number, &secret, t, &body);
    let result = send(inner, &url, &h, &body).await;
    let done_ms = chrono::Utc::now().timestamp_millis();
    let store = inner.store.clone();
    let key = id.to_string();
    let base = inner.retry_base;
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
