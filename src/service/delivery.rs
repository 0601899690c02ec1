//! The delivery worker (api.md §5): signs and posts due notifications with bounded concurrency,
//! records every attempt, and schedules retries `min(30 min, 2^n × retry_base)` up to 20 attempts.
//! State lives in the database, so a restart resumes whatever was pending or retrying.
//!
//! Each attempt is claimed on its row before it is sent (a compare-and-set of its due time to a
//! lease), so delivery is at least once only across a crash during an attempt (api.md §6). A
//! claim that cannot be written sends nothing and pauses the worker; an attempt that cannot be
//! recorded is retried with a growing pause, never sent again by this process.
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::Utc;
use tokio::sync::{Notify, OnceCell, Semaphore, watch};
use tokio::task::JoinHandle;

use super::ids::new_id;
use super::logs::error_limited;
use super::records::DestinationRec;
use super::store::{Body, Claim, Db, DueNotification, Slot, Store, StoreError};
use crate::api::model::{Attempt, AttemptStatus, Notification, NotificationStatus, WebhookRequest};

/// Attempts before a notification is `failed`.
pub const MAX_ATTEMPTS: usize = 20;
/// Per-attempt timeout of the real service (the default).
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest wait between attempts, before scaling by `retry_base`.
const MAX_BACKOFF_UNITS: u64 = 30 * 60;
pub use crate::api::capture::{MAX_BODY as MAX_RECORDED_BODY, TRUNCATED_HEADER};
/// Response headers recorded per attempt, the [`TRUNCATED_HEADER`] entry included (the capture
/// keeps more for replay, which shows one answer at a time).
pub const MAX_RECORDED_HEADERS: usize = 32;
/// Bytes of response header names and values recorded per attempt, counted as stored (JSON,
/// escapes included).
pub const MAX_RECORDED_HEADER_BYTES: usize = 2 * 1024;
/// Bytes of one recorded header value, as stored; a longer one is cut with the body's marker.
const RECORDED_HEADER_VALUE: usize = 512;
/// Bytes one stored notification may take: past it, the bodies and headers recorded for its
/// older attempts are cut shorter (the newest stays as recorded), so 20 attempts to a hostile
/// receiver cannot make a notification, or a page of 20 of them (< 2 MiB), grow without bound.
pub const RECORDED_NOTIFICATION: usize = 64 * 1024;
/// What an older attempt keeps of each body, and of its headers, once its notification is over
/// [`RECORDED_NOTIFICATION`]; a second pass keeps only the markers.
const SHRUNK_BODY: usize = 256;
const SHRUNK_HEADERS: usize = 512;
use crate::api::capture::{capped_headers, read_capped};
/// Deliveries in flight at once, over all destinations.
const CONCURRENCY: usize = 128;
/// Deliveries in flight at once to one destination: a slow or dead receiver holds at most this
/// many slots, so the others keep being served.
pub const PER_DESTINATION: usize = 2;
/// Longest wait at shutdown for attempts in flight.
const STOP_GRACE: Duration = Duration::from_secs(5);
/// Longest idle sleep of the worker (wall-clock steps are noticed within it).
const IDLE: Duration = Duration::from_secs(5);
/// A claim lasts the attempt's timeout and this much more; only a crash leaves one to expire.
const LEASE_MARGIN: Duration = Duration::from_secs(1);
/// Longest pause after a store failure (claims, the schedule, recording an attempt).
const MAX_TROUBLE_PAUSE: Duration = Duration::from_mins(1);
/// Bytes of a request body recorded per attempt; the body itself is stored once per event.
pub const RECORDED_REQUEST_BODY: usize = 2 * 1024;
/// Bytes of a response body recorded per attempt.
pub const RECORDED_RESPONSE_BODY: usize = 4 * 1024;

/// The exact body delivered for a notification (camelCase, api.md §5), with the payload as
/// stored JSON text: built the same way for every attempt, so every attempt sends the same bytes.
pub fn delivery_body(
    event_id: &str,
    notification_id: &str,
    callback_id: &str,
    event_type: &str,
    payload: &str,
) -> String {
    let quoted = |s: &str| serde_json::Value::from(s).to_string();
    format!(
        "{{\"eventId\":{},\"notificationId\":{},\"callbackId\":{},\"object\":\"callback.notification\",\"type\":{},\"payload\":{payload}}}",
        quoted(event_id),
        quoted(notification_id),
        quoted(callback_id),
        quoted(event_type),
    )
}

/// The marker ending a recorded body that was cut: `…[switchboard: N of M bytes not recorded]`.
const CUT_OPEN: &str = "…[switchboard: ";
const CUT_CLOSE: &str = " bytes not recorded]";
/// Appended to a response body whose rest was never read (past the capture's cap).
const UNREAD: &str = "…[switchboard: the rest was not read]";

/// Bytes `c` takes once stored in JSON (serde_json's escapes).
fn stored_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if u32::from(c) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// Bytes `text` takes once stored in JSON.
fn stored_size(text: &str) -> usize {
    text.chars().map(stored_len).sum()
}

/// `text` without the marker of an earlier cut, and the length of the whole it was cut from.
fn uncut(text: &str) -> (&str, usize) {
    let whole = text
        .strip_suffix(CUT_CLOSE)
        .and_then(|t| t.rsplit_once(CUT_OPEN))
        .and_then(|(kept, counts)| {
            let (_, of) = counts.split_once(" of ")?;
            Some((kept, of.parse::<usize>().ok()?))
        })
        // A receiver's own text that only looks like a marker is not believed.
        .filter(|(kept, whole)| *whole >= kept.len());
    whole.unwrap_or((text, text.len()))
}

/// `text` cut to at most `cap` bytes as stored (JSON escapes counted, at a character boundary),
/// with a marker saying how much was not recorded. A text cut before is cut again from what it
/// kept, its marker still counting from the whole.
pub fn capped_record(text: &str, cap: usize) -> String {
    let (text, unread) = match text.strip_suffix(UNREAD) {
        Some(t) => (t, UNREAD),
        None => (text, ""),
    };
    let (kept, whole) = uncut(text);
    let mut end = 0;
    let mut size = 0;
    for (i, c) in kept.char_indices() {
        size += stored_len(c);
        if size > cap {
            break;
        }
        end = i + c.len_utf8();
    }
    if end == kept.len() {
        return format!("{text}{unread}");
    }
    format!(
        "{}{CUT_OPEN}{} of {whole}{CUT_CLOSE}{unread}",
        &kept[..end],
        whole - end,
    )
}

/// The response headers as recorded: each value cut to [`RECORDED_HEADER_VALUE`] with the body's
/// marker, then as many whole entries as fit `max_bytes` (as stored) and
/// [`MAX_RECORDED_HEADERS`] less one; the rest are counted in one [`TRUNCATED_HEADER`] entry
/// (added to the count of an earlier cut).
pub fn capped_header_record(
    headers: &BTreeMap<String, String>,
    max_bytes: usize,
) -> BTreeMap<String, String> {
    let (mut dropped, mut dropped_bytes) = headers
        .get(TRUNCATED_HEADER)
        .and_then(|v| {
            let (n, rest) = v.split_once(" headers (")?;
            let (b, _) = rest.split_once(" bytes)")?;
            Some((n.parse::<usize>().ok()?, b.parse::<usize>().ok()?))
        })
        .unwrap_or((0, 0));
    let mut out = BTreeMap::new();
    let mut used = 0;
    for (k, v) in headers.iter().filter(|(k, _)| *k != TRUNCATED_HEADER) {
        let value = capped_record(v, RECORDED_HEADER_VALUE.min(max_bytes));
        let cost = stored_size(k) + stored_size(&value);
        if out.len() + 1 < MAX_RECORDED_HEADERS && used + cost <= max_bytes {
            used += cost;
            out.insert(k.clone(), value);
        } else {
            dropped += 1;
            dropped_bytes += k.len() + uncut(v).1;
        }
    }
    if dropped > 0 {
        out.insert(
            TRUNCATED_HEADER.to_string(),
            format!("{dropped} headers ({dropped_bytes} bytes) not recorded"),
        );
    }
    out
}

/// Keeps a stored notification within [`RECORDED_NOTIFICATION`]: the records of its older
/// attempts, oldest first, are cut to [`SHRUNK_BODY`] and [`SHRUNK_HEADERS`], then to their
/// markers, until it fits; the newest attempt stays as recorded.
fn fit_recorded(n: &mut Notification) {
    let stored = |w: &WebhookRequest| serde_json::to_vec(w).map_or(0, |b| b.len());
    let mut total = serde_json::to_vec(&*n).map_or(0, |b| b.len());
    let newest = n.attempts.len().saturating_sub(1);
    for (body, headers) in [(SHRUNK_BODY, SHRUNK_HEADERS), (0, 0)] {
        for a in n.attempts.iter_mut().take(newest) {
            if total <= RECORDED_NOTIFICATION {
                return;
            }
            let Some(w) = a.webhook_request.as_mut() else {
                continue;
            };
            let before = stored(w);
            w.request_body = w.request_body.as_deref().map(|b| capped_record(b, body));
            w.response_body = w.response_body.as_deref().map(|b| capped_record(b, body));
            w.request_error = w
                .request_error
                .as_deref()
                .map(|e| capped_record(e, body.max(SHRUNK_BODY)));
            w.response_headers = capped_header_record(&w.response_headers, headers);
            total = (total + stored(w)).saturating_sub(before);
        }
    }
}

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
    /// The worker takes no new attempts before this (after a claim could not be written).
    paused_until: Mutex<Option<(Instant, Duration)>>,
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
#[derive(Clone)]
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
                paused_until: Mutex::new(None),
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

/// Due notifications read from the due index per plan at most; past it, every destination with
/// something pending is planned (fair among many due at once).
const DUE_SCAN: usize = 512;

/// What the worker does next.
enum Plan {
    /// Nothing is due: sleep until the soonest due time (within the idle bound).
    Sleep(Duration),
    /// These slots, soonest first (some may not be due yet).
    Slots(Vec<Slot>),
}

/// The plan by the next due time: nothing is read past the soonest due time while it is ahead
/// (two index seeks), so a large backlog costs nothing while nothing is due; when something is,
/// only the destinations with something due are planned (one index seek each).
fn schedule(
    db: &Db,
    busy: &HashMap<String, usize>,
    now: i64,
    horizon: i64,
) -> Result<Plan, StoreError> {
    let Some((first, last)) = db.due_bounds()? else {
        return Ok(Plan::Sleep(IDLE));
    };
    // A due time past the horizon was stamped before the clock stepped back: due now, wherever
    // it is, so every destination is planned.
    let destinations = if last > horizon {
        None
    } else if first > now {
        let ms = u64::try_from(first - now).unwrap_or(0);
        return Ok(Plan::Sleep(Duration::from_millis(ms).min(IDLE)));
    } else {
        db.due_destinations(now, DUE_SCAN)?
    };
    let destinations = match destinations {
        Some(d) => d,
        None => db.pending_destinations()?,
    };
    let mut slots = Vec::new();
    for dest in destinations {
        if busy.get(&dest).copied().unwrap_or(0) >= PER_DESTINATION {
            continue;
        }
        slots.extend(db.next_due(&dest, PER_DESTINATION)?);
    }
    slots.sort_by_key(|s| s.due_at);
    Ok(Plan::Slots(slots))
}

impl Inner {
    /// The longest a retry can legitimately wait (plus a lease): a due time further ahead was
    /// stamped by a clock that has since stepped back, and counts as due now.
    fn horizon(&self) -> i64 {
        let longest = backoff(MAX_ATTEMPTS, self.retry_base) + self.timeout + LEASE_MARGIN;
        i64::try_from(longest.as_millis()).unwrap_or(i64::MAX)
    }

    /// Pauses new attempts after a store failure, twice as long as the last time (bounded).
    fn pause(&self) {
        let mut p = lock(&self.paused_until);
        let next = p.map_or(Duration::from_secs(1), |(_, d)| {
            (d * 2).min(MAX_TROUBLE_PAUSE)
        });
        *p = Some((Instant::now() + next, next));
    }

    /// How long new attempts are still paused for.
    fn paused_for(&self) -> Option<Duration> {
        let p = lock(&self.paused_until);
        p.and_then(|(until, _)| until.checked_duration_since(Instant::now()))
    }

    fn unpause(&self) {
        *lock(&self.paused_until) = None;
    }
}

async fn run(inner: Arc<Inner>) {
    let mut stop = inner.stop.subscribe();
    loop {
        if *stop.borrow() {
            return;
        }
        let mut wait = IDLE;
        if let Some(p) = inner.paused_for() {
            wait = p;
        } else {
            let store = inner.store.clone();
            let busy = lock(&inner.busy).clone();
            let now = Utc::now().timestamp_millis();
            let horizon = now.saturating_add(inner.horizon());
            // On a read connection: the writer stays free for requests.
            let plan = tokio::task::spawn_blocking(move || {
                store.read(|db| schedule(db, &busy, now, horizon))
            })
            .await
            .unwrap_or_else(|e| Err(StoreError::Task(format!("the delivery task stopped: {e}"))));
            match plan {
                Err(e) => {
                    error_limited(&format!("delivery worker: {e}"));
                    inner.pause();
                    wait = inner.paused_for().unwrap_or(IDLE);
                }
                Ok(Plan::Sleep(d)) => wait = wait.min(d),
                Ok(Plan::Slots(slots)) => wait = wait.min(dispatch(&inner, slots)),
            }
        }
        tokio::select! {
            _ = inner.wake.notified() => {}
            _ = tokio::time::sleep(wait) => {}
            _ = stop.changed() => return,
        }
    }
}

/// Starts an attempt for every slot that is due and has room; returns how long until the next.
fn dispatch(inner: &Arc<Inner>, slots: Vec<Slot>) -> Duration {
    let mut wait = IDLE;
    let now = Utc::now().timestamp_millis();
    let horizon = now.saturating_add(inner.horizon());
    for slot in slots {
        if lock(&inner.in_flight).contains(&slot.id) {
            continue;
        }
        let busy = lock(&inner.busy)
            .get(&slot.destination_id)
            .copied()
            .unwrap_or(0);
        if busy >= PER_DESTINATION {
            continue;
        }
        if slot.due_at > now && slot.due_at <= horizon {
            let ms = u64::try_from(slot.due_at - now).unwrap_or(0);
            wait = wait.min(Duration::from_millis(ms));
            continue;
        }
        // When every permit is taken, a finishing attempt wakes the loop.
        let Ok(permit) = inner.permits.clone().try_acquire_owned() else {
            break;
        };
        lock(&inner.in_flight).insert(slot.id.clone());
        *lock(&inner.busy)
            .entry(slot.destination_id.clone())
            .or_insert(0) += 1;
        let task_inner = inner.clone();
        tokio::spawn(async move {
            let id = slot.id.clone();
            let dest = slot.destination_id.clone();
            attempt(&task_inner, slot).await;
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
    wait
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What a claim found: the notification to send and where, or nothing to do.
enum Claimed {
    /// Send it (to the destination's webhook, when it still has one).
    Send(
        DueNotification,
        Option<crate::api::model::WebhookDestination>,
    ),
    /// Nothing to send.
    Nothing,
}

async fn attempt(inner: &Inner, slot: Slot) {
    let store = inner.store.clone();
    let lease = Utc::now().timestamp_millis()
        + i64::try_from((inner.timeout + LEASE_MARGIN).as_millis()).unwrap_or(i64::MAX);
    let id = slot.id.clone();
    let claimed = tokio::task::spawn_blocking(move || {
        store.write(|db| -> Result<Claimed, StoreError> {
            match db.claim(&slot.id, slot.due_at, lease)? {
                Claim::Gone => Ok(Claimed::Nothing),
                Claim::Undecodable(why) => {
                    // Off the schedule now, so this is logged once.
                    tracing::error!(
                        "delivery: notification {} cannot be read ({why}); marked failed",
                        slot.id
                    );
                    Ok(Claimed::Nothing)
                }
                Claim::Claimed(due) => {
                    let target = match db.load::<DestinationRec>(&slot.destination_id) {
                        Ok(Some(d)) if d.active => d.destination.webhook_destination,
                        Ok(_) => None,
                        Err(e @ StoreError::Record { .. }) => {
                            error_limited(&format!("delivery: {e}"));
                            None
                        }
                        Err(e) => return Err(e),
                    };
                    Ok(Claimed::Send(due, target))
                }
            }
        })
    })
    .await
    .unwrap_or_else(|e| Err(StoreError::Task(format!("the delivery task stopped: {e}"))));
    let (due, target) = match claimed {
        Ok(Claimed::Send(due, target)) => {
            inner.unpause();
            (due, target)
        }
        Ok(Claimed::Nothing) => return,
        Err(e) => {
            // Not claimed, so not sent: the worker pauses before trying again.
            error_limited(&format!("delivery: claiming notification {id}: {e}"));
            inner.pause();
            return;
        }
    };
    let outcome = match target {
        Some(w) => Some(send(inner, &due, &w.url, &w.signing_secret).await),
        None => None,
    };
    record_until_written(inner, &due.id, outcome).await;
}

/// Records an attempt, retrying with a growing pause while the store refuses (a full disk): the
/// attempt stays claimed meanwhile and is never sent again by this process.
async fn record_until_written(inner: &Inner, id: &str, outcome: Option<Outcome>) {
    let mut stop = inner.stop.subscribe();
    let mut pause = Duration::from_secs(1);
    loop {
        let (store, id_owned, outcome_owned, base) = (
            inner.store.clone(),
            id.to_string(),
            outcome.clone(),
            inner.retry_base,
        );
        let saved = tokio::task::spawn_blocking(move || {
            store.write(|db| record(db, &id_owned, outcome_owned, base))
        })
        .await
        .unwrap_or_else(|e| Err(StoreError::Task(format!("the delivery task stopped: {e}"))));
        let Err(e) = saved else {
            return;
        };
        error_limited(&format!("delivery: recording an attempt of {id}: {e}"));
        if *stop.borrow() {
            return;
        }
        tokio::select! {
            _ = tokio::time::sleep(pause) => {}
            _ = stop.changed() => return,
        }
        pause = (pause * 2).min(MAX_TROUBLE_PAUSE);
    }
}

/// Sends one attempt and captures the exchange.
async fn send(inner: &Inner, due: &DueNotification, url: &str, secret: &str) -> Outcome {
    let body = match &due.body {
        Body::Stored(b) => b.clone(),
        Body::Event {
            event_type,
            payload,
        } => delivery_body(
            &due.event_id,
            &due.id,
            &due.callback_id,
            event_type,
            payload,
        ),
    };
    let ids = HeaderIds {
        notification: &due.id,
        event: &due.event_id,
        callback: &due.callback_id,
    };
    let headers = request_headers(ids, &body, secret, &inner.api_host, Utc::now().timestamp());
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
        Ok(h) => h.post(url).timeout(inner.timeout).body(body.clone()),
        Err(e) => {
            return failed_before_sending(url, &body, headers, describe(&e, inner.timeout));
        }
    };
    for (k, v) in &headers {
        req = req.header(*k, v);
    }
    let (status, response_headers, response_body, error) = match req.send().await {
        Ok(resp) => {
            let status = i64::from(resp.status().as_u16());
            let hdrs =
                capped_header_record(&capped_headers(resp.headers()), MAX_RECORDED_HEADER_BYTES);
            let got = read_capped(resp).await;
            let mut text = capped_record(&got.text, RECORDED_RESPONSE_BODY);
            if got.truncated {
                text.push_str(UNREAD);
            }
            match got.error {
                None => (status, hdrs, Some(text), None),
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
            response_headers,
            response_status: status,
            response_body,
            request_error: error,
            duration,
            ..WebhookRequest::post(
                String::new(),
                url,
                capped_record(&body, RECORDED_REQUEST_BODY),
                headers,
                started_at,
            )
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
            request_error: Some(error),
            ..WebhookRequest::post(
                String::new(),
                url,
                capped_record(body, RECORDED_REQUEST_BODY),
                headers,
                Utc::now(),
            )
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
    fit_recorded(&mut n);
    db.update_notification(&n, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store whose backlog is `pending` notifications, each to a destination of its own, due
    /// over the next half hour; plus one due now when `due_now`.
    fn backlog(pending: usize, due_now: bool) -> (tempfile::TempDir, Store, i64) {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("service.db");
        let store = Store::open(Some(&path)).expect("store");
        let now = Utc::now().timestamp_millis();
        let mut raw = rusqlite::Connection::open(&path).expect("raw");
        let tx = raw.transaction().expect("tx");
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO notifications
                       (id, event_id, callback_id, destination_id, status, next_attempt_at, body, data)
                     VALUES (?1, 'cbe_1', 'clb_1', ?2, 'retrying', ?3, '', '{}')",
                )
                .expect("insert");
            for i in 0..pending {
                let due = now + 60_000 + i64::try_from(i).unwrap_or(0) % 1_740_000;
                insert
                    .execute(rusqlite::params![
                        format!("cbn_{i:06}"),
                        format!("cld_{i:06}"),
                        due
                    ])
                    .expect("row");
            }
            if due_now {
                insert
                    .execute(rusqlite::params!["cbn_due", "cld_due", now - 1])
                    .expect("row");
            }
        }
        tx.commit().expect("commit");
        (dir, store, now)
    }

    #[test]
    fn a_large_backlog_is_not_read_while_nothing_is_due() {
        let horizon = |now: i64| now + 31 * 60 * 1000;
        let (_dir, store, now) = backlog(40_000, false);
        let started = Instant::now();
        let plan = store
            .read(|db| schedule(db, &HashMap::new(), now, horizon(now)))
            .expect("plan");
        let took = started.elapsed();
        // Two seeks of the due index: the 40,000 destinations are not visited one by one.
        let Plan::Sleep(d) = plan else {
            panic!("nothing is due: a sleep, not a plan")
        };
        assert!(d <= IDLE && d > Duration::from_secs(1), "{d:?}");
        assert!(took < Duration::from_millis(100), "{took:?}");

        // Something due: only its destination is planned.
        let (_dir, store, now) = backlog(40_000, true);
        let plan = store
            .read(|db| schedule(db, &HashMap::new(), now, horizon(now)))
            .expect("plan");
        let Plan::Slots(slots) = plan else {
            panic!("something is due")
        };
        let planned: Vec<&str> = slots.iter().map(|s| s.destination_id.as_str()).collect();
        assert_eq!(planned, ["cld_due"]);

        // A due time past the horizon (a clock stepped back): every destination is planned.
        let plan = store
            .read(|db| schedule(db, &HashMap::new(), now, now + 1_000))
            .expect("plan");
        let Plan::Slots(slots) = plan else {
            panic!("planned")
        };
        assert!(slots.len() > 40_000, "{}", slots.len());
    }

    #[test]
    fn a_cut_record_is_one_replay_reads_again_whole() {
        let body = "x".repeat(5000);
        let cut = capped_record(&body, 2048);
        assert!(crate::api::replay::body_is_cut(&cut), "{cut}");
        assert!(!crate::api::replay::body_is_cut(&capped_record(
            &body, 8192
        )));
        assert!(!crate::api::replay::body_is_cut(r#"{"type":"x"}"#));
    }

    #[test]
    fn records_are_cut_as_stored_and_cut_again_from_the_whole() {
        // Control characters take six bytes each once stored.
        let hostile = "\u{1}".repeat(4096);
        let cut = capped_record(&hostile, 600);
        assert_eq!(cut.matches('\u{1}').count(), 100, "{cut}");
        assert!(
            cut.ends_with("…[switchboard: 3996 of 4096 bytes not recorded]"),
            "{cut}"
        );
        let again = capped_record(&format!("{cut}{UNREAD}"), 60);
        assert!(
            again.ends_with("…[switchboard: 4086 of 4096 bytes not recorded]…[switchboard: the rest was not read]"),
            "{again}"
        );
        assert_eq!(capped_record(&cut, 600), cut, "a cut within the cap stays");
        let fake = format!(
            "{}…[switchboard: 1 of 2 bytes not recorded]",
            "x".repeat(50)
        );
        let whole = format!(" of {} bytes not recorded]", fake.len());
        assert!(capped_record(&fake, 10).ends_with(&whole));
    }

    #[test]
    fn recorded_headers_are_capped_in_count_and_stored_bytes_and_say_so() {
        let mut h = BTreeMap::new();
        for i in 0..60 {
            h.insert(format!("x-flood-{i:02}"), "\"\\".repeat(2000));
        }
        h.insert("content-type".into(), "text/plain".into());
        let kept = capped_header_record(&h, MAX_RECORDED_HEADER_BYTES);
        assert!(kept.len() <= MAX_RECORDED_HEADERS);
        let stored: usize = kept
            .iter()
            .map(|(k, v)| stored_size(k) + stored_size(v))
            .sum();
        assert!(stored <= MAX_RECORDED_HEADER_BYTES + 100, "{stored}");
        assert!(kept["content-type"] == "text/plain");
        assert!(
            kept[TRUNCATED_HEADER].ends_with("bytes) not recorded"),
            "{kept:?}"
        );
        assert!(kept.values().any(|v| v.ends_with(" bytes not recorded]")));
        // Cut again to nothing: only the marker, counting every header.
        let none = capped_header_record(&kept, 0);
        assert_eq!(none.len(), 1);
        assert!(none[TRUNCATED_HEADER].starts_with("61 headers"), "{none:?}");
    }

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
