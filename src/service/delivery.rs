//! The delivery worker (api.md §5): signs and posts due notifications with bounded concurrency,
//! records every attempt, and schedules retries `min(30 min, 2^n × retry_base)` up to 20 attempts.
//! State lives in the database, so a restart resumes whatever was pending or retrying.
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::Utc;
use tokio::sync::{Notify, OnceCell, Semaphore, watch};
use tokio::task::JoinHandle;

use super::ids::new_id;
use super::records::{DestinationRec, kind};
use super::store::{Db, DueNotification, Store, StoreError};
use crate::api::model::{Attempt, AttemptStatus, NotificationStatus, WebhookRequest};

/// Attempts before a notification is `failed`.
pub const MAX_ATTEMPTS: usize = 20;
/// Per-attempt timeout of the real service (the default).
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest wait between attempts, before scaling by `retry_base`.
const MAX_BACKOFF_UNITS: u64 = 30 * 60;
pub use crate::api::capture::{
    MAX_BODY as MAX_RECORDED_BODY, MAX_HEADER_BYTES as MAX_RECORDED_HEADER_BYTES,
    MAX_HEADERS as MAX_RECORDED_HEADERS, TRUNCATED_HEADER,
};
use crate::api::capture::{capped_headers, read_capped};
/// Deliveries in flight at once, over all destinations.
const CONCURRENCY: usize = 128;
/// Deliveries in flight at once to one destination: a slow or dead receiver holds at most this
/// many slots, so the others keep being served.
pub const PER_DESTINATION: usize = 2;
/// Longest wait at shutdown for attempts in flight.
const STOP_GRACE: Duration = Duration::from_secs(5);
/// Longest idle sleep of the worker.
const IDLE: Duration = Duration::from_secs(5);

/// Signing is the protocol's (api.md §5), shared with the console's verification.
pub use crate::api::signature::{sign_hex, signature};

/// The ids a delivery's headers carry.
#[derive(Debug, Clone, Copy)]
pub struct HeaderIds<'a> {
    /// `cbn_…`.
    pub notification: &'a str,
    /// `cbe_…`.
    pub event: &'a str,
    /// `clb_…`.
    pub callback: &'a str,
}

/// The headers of a delivery, in the order they are sent.
pub fn request_headers(
    ids: HeaderIds,
    body: &str,
    secret: &str,
    host: &str,
    t: i64,
) -> Vec<(&'static str, String)> {
    vec![
        ("content-type", "application/json".into()),
        (
            "user-agent",
            "Metorial Callbacks (https://metorial.com)".into(),
        ),
        ("metorial-notification-id", ids.notification.into()),
        ("metorial-event-id", ids.event.into()),
        ("metorial-callback-id", ids.callback.into()),
        ("metorial-version", "2025-01-01".into()),
        ("metorial-signature", signature(secret, host, t, body)),
    ]
}

/// Wait before the attempt after `attempts` failed ones.
pub fn backoff(attempts: usize, base: Duration) -> Duration {
    let units = 1u64
        .checked_shl(u32::try_from(attempts).unwrap_or(u32::MAX))
        .unwrap_or(u64::MAX)
        .min(MAX_BACKOFF_UNITS);
    base.saturating_mul(u32::try_from(units).unwrap_or(u32::MAX))
}

struct Inner {
    store: Arc<Store>,
    /// Built on first use: building one loads the TLS roots, which makes start-up slow.
    http: OnceCell<reqwest::Client>,
    retry_base: Duration,
    timeout: Duration,
    api_host: String,
    wake: Notify,
    in_flight: Mutex<HashSet<String>>,
    /// Attempts in flight per destination.
    busy: Mutex<HashMap<String, usize>>,
    permits: Arc<Semaphore>,
    stop: watch::Sender<bool>,
}

/// Handle on the delivery worker.
#[derive(Clone)]
pub struct Delivery {
    inner: Arc<Inner>,
}

/// What came back from one HTTP attempt.
struct Outcome {
    request: WebhookRequest,
    ok: bool,
}

impl Delivery {
    /// A worker over `store`; `api_host` goes into signatures; `timeout` bounds each attempt.
    pub fn new(
        store: Arc<Store>,
        retry_base: Duration,
        timeout: Duration,
        api_host: String,
    ) -> Self {
        let (stop, _) = watch::channel(false);
        Self {
            inner: Arc::new(Inner {
                store,
                http: OnceCell::new(),
                retry_base,
                timeout,
                api_host,
                wake: Notify::new(),
                in_flight: Mutex::new(HashSet::new()),
                busy: Mutex::new(HashMap::new()),
                permits: Arc::new(Semaphore::new(CONCURRENCY)),
                stop,
            }),
        }
    }

    /// Tells the worker that something new may be due.
    pub fn wake(&self) {
        self.inner.wake.notify_one();
    }

    /// A receiver that changes when the worker is told to stop.
    pub fn stopped(&self) -> watch::Receiver<bool> {
        self.inner.stop.subscribe()
    }

    /// Stops the worker and waits (bounded) for attempts in flight to be recorded. One that
    /// hangs longer stays due in the database and is attempted again at the next start.
    pub async fn stop(&self) {
        self.inner.stop.send_replace(true);
        let all = u32::try_from(CONCURRENCY).unwrap_or(u32::MAX);
        let _ = tokio::time::timeout(
            (self.inner.timeout + Duration::from_secs(1)).min(STOP_GRACE),
            self.inner.permits.acquire_many(all),
        )
        .await;
    }

    /// Starts the worker loop.
    pub fn spawn(&self) -> JoinHandle<()> {
        let inner = self.inner.clone();
        tokio::spawn(async move { run(inner).await })
    }
}

async fn run(inner: Arc<Inner>) {
    let mut stop = inner.stop.subscribe();
    loop {
        if *stop.borrow() {
            return;
        }
        let store = inner.store.clone();
        let upcoming =
            tokio::task::spawn_blocking(move || store.with(|db| db.upcoming(PER_DESTINATION, 512)))
                .await
                .unwrap_or_else(|e| Err(StoreError::Json(serde::de::Error::custom(e))));
        let mut wait = IDLE;
        match upcoming {
            Err(e) => tracing::error!("delivery worker: {e}"),
            Ok(rows) => {
                let now = Utc::now().timestamp_millis();
                for due in rows {
                    if lock(&inner.in_flight).contains(&due.id) {
                        continue;
                    }
                    let busy = lock(&inner.busy)
                        .get(&due.destination_id)
                        .copied()
                        .unwrap_or(0);
                    if busy >= PER_DESTINATION {
                        continue;
                    }
                    if due.due_at > now {
                        let ms = u64::try_from(due.due_at - now).unwrap_or(0);
                        wait = wait.min(Duration::from_millis(ms));
                        break;
                    }
                    // When every permit is taken, a finishing attempt wakes the loop.
                    let Ok(permit) = inner.permits.clone().try_acquire_owned() else {
                        break;
                    };
                    lock(&inner.in_flight).insert(due.id.clone());
                    *lock(&inner.busy)
                        .entry(due.destination_id.clone())
                        .or_insert(0) += 1;
                    let task_inner = inner.clone();
                    tokio::spawn(async move {
                        let id = due.id.clone();
                        let dest = due.destination_id.clone();
                        attempt(&task_inner, due).await;
                        lock(&task_inner.in_flight).remove(&id);
                        {
                            let mut busy = lock(&task_inner.busy);
                            if let Some(n) = busy.get_mut(&dest) {
                                *n = n.saturating_sub(1);
                                if *n == 0 {
                                    busy.remove(&dest);
                                }
                            }
                        }
                        drop(permit);
                        task_inner.wake.notify_one();
                    });
                }
            }
        }
        tokio::select! {
            _ = inner.wake.notified() => {}
            _ = tokio::time::sleep(wait) => {}
            _ = stop.changed() => return,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

async fn attempt(inner: &Inner, due: DueNotification) {
    let store = inner.store.clone();
    let (dest_id, id, due_at) = (due.destination_id.clone(), due.id.clone(), due.due_at);
    let dest = tokio::task::spawn_blocking(move || {
        store.with(|db| -> Result<Option<Option<DestinationRec>>, StoreError> {
            // The worker may have read this row before the previous attempt was recorded.
            if !db.still_due(&id, due_at)? {
                return Ok(None);
            }
            Ok(Some(db.get::<DestinationRec>(kind::DESTINATION, &dest_id)?))
        })
    })
    .await;
    let target = match dest {
        Ok(Ok(None)) => return,
        Ok(Ok(Some(Some(d)))) if d.active => d.destination.webhook_destination,
        Ok(Ok(Some(_))) => None,
        Ok(Err(e)) => {
            tracing::error!("delivery: {e}");
            return;
        }
        Err(e) => {
            tracing::error!("delivery: {e}");
            return;
        }
    };
    let outcome = match target {
        Some(w) => Some(send(inner, &due, &w.url, &w.signing_secret).await),
        None => None,
    };
    let store = inner.store.clone();
    let base = inner.retry_base;
    let saved =
        tokio::task::spawn_blocking(move || store.with(|db| record(db, &due.id, outcome, base)))
            .await;
    if let Ok(Err(e)) = saved {
        tracing::error!("delivery: recording an attempt: {e}");
    }
}

/// Sends one attempt and captures the exchange.
async fn send(inner: &Inner, due: &DueNotification, url: &str, secret: &str) -> Outcome {
    let ids = HeaderIds {
        notification: &due.id,
        event: &due.event_id,
        callback: &due.callback_id,
    };
    let headers = request_headers(
        ids,
        &due.body,
        secret,
        &inner.api_host,
        Utc::now().timestamp(),
    );
    let started_at = Utc::now();
    let clock = Instant::now();
    let http = inner
        .http
        .get_or_try_init(|| async {
            reqwest::Client::builder()
                .no_proxy()
                .redirect(reqwest::redirect::Policy::none())
                .build()
        })
        .await;
    let mut req = match http {
        Ok(h) => h.post(url).timeout(inner.timeout).body(due.body.clone()),
        Err(e) => {
            return failed_before_sending(url, &due.body, headers, describe(&e, inner.timeout));
        }
    };
    for (k, v) in &headers {
        req = req.header(*k, v);
    }
    let (status, response_headers, response_body, error) = match req.send().await {
        Ok(resp) => {
            let status = i64::from(resp.status().as_u16());
            let hdrs = capped_headers(resp.headers());
            let body = read_capped(resp).await;
            match body.error {
                None => (status, hdrs, Some(body.text), None),
                Some(e) => (status, hdrs, None, Some(e.to_string())),
            }
        }
        Err(e) => (-1, BTreeMap::new(), None, Some(describe(&e, inner.timeout))),
    };
    let duration = i64::try_from(clock.elapsed().as_millis()).unwrap_or(i64::MAX);
    // A body that did not arrive in full within the timeout is a failed attempt.
    let ok = error.is_none() && (200..300).contains(&status);
    Outcome {
        ok,
        request: WebhookRequest {
            object: "callback.notification.attempt.webhook_request".into(),
            id: String::new(),
            url: url.into(),
            request_method: "POST".into(),
            request_body: Some(due.body.clone()),
            request_headers: headers
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            response_headers,
            response_status: status,
            response_body,
            request_error: error,
            duration,
            created_at: started_at,
        },
    }
}

/// An attempt that never left: recorded as a failure with the error.
fn failed_before_sending(
    url: &str,
    body: &str,
    headers: Vec<(&str, String)>,
    error: String,
) -> Outcome {
    Outcome {
        ok: false,
        request: WebhookRequest {
            object: "callback.notification.attempt.webhook_request".into(),
            id: String::new(),
            url: url.into(),
            request_method: "POST".into(),
            request_body: Some(body.into()),
            request_headers: headers
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            response_headers: BTreeMap::new(),
            response_status: -1,
            response_body: None,
            request_error: Some(error),
            duration: 0,
            created_at: Utc::now(),
        },
    }
}

fn describe(e: &reqwest::Error, timeout: Duration) -> String {
    if e.is_timeout() {
        format!("timeout after {} ms", timeout.as_millis())
    } else if e.is_connect() {
        format!("connect error: {e}")
    } else {
        e.to_string()
    }
}

/// Appends an attempt (or, with no target left, ends the notification) and schedules the next.
fn record(db: &Db, id: &str, outcome: Option<Outcome>, base: Duration) -> Result<(), StoreError> {
    let Some(mut n) = db.notification(id)? else {
        return Ok(());
    };
    let Some(outcome) = outcome else {
        // The destination was deleted: it receives no more deliveries.
        n.status = NotificationStatus::Failed;
        return db.update_notification(&n, None);
    };
    let attempt_id = new_id("cbna");
    let mut request = outcome.request;
    request.id = attempt_id.replacen("cbna_", "cbnwr_", 1);
    let created_at = request.created_at;
    n.attempts.push(Attempt {
        object: "callback.notification.attempt".into(),
        id: attempt_id,
        status: if outcome.ok {
            AttemptStatus::Succeeded
        } else {
            AttemptStatus::Failed
        },
        index: i64::try_from(n.attempts.len()).unwrap_or(i64::MAX),
        webhook_request: Some(request),
        created_at,
    });
    let next = if outcome.ok {
        n.status = NotificationStatus::Succeeded;
        None
    } else if n.attempts.len() >= MAX_ATTEMPTS {
        n.status = NotificationStatus::Failed;
        None
    } else {
        n.status = NotificationStatus::Retrying;
        let wait = backoff(n.attempts.len(), base);
        Some(Utc::now().timestamp_millis() + i64::try_from(wait.as_millis()).unwrap_or(i64::MAX))
    };
    db.update_notification(&n, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_caps_at_thirty_minutes() {
        let s = Duration::from_secs(1);
        assert_eq!(backoff(1, s), Duration::from_secs(2));
        assert_eq!(backoff(4, s), Duration::from_secs(16));
        assert_eq!(backoff(19, s), Duration::from_secs(1800));
        assert_eq!(
            backoff(3, Duration::from_millis(1)),
            Duration::from_millis(8)
        );
    }
}
