//! What the newer generations' delivery workers share: a schedule table of due items, the loop
//! that claims what is due and runs each claimed attempt on a bounded pool, and one bounded HTTP
//! POST. What an attempt sends and records, and in which words, stays with each generation.
use std::collections::HashSet;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::params;
use tokio::sync::{Notify, OnceCell, Semaphore, watch};
use tokio::task::JoinHandle;

use super::event_destinations::Wake;
use super::logs::error_limited;
use super::store::{Db, Store, StoreError};

/// Attempts in flight at once.
const CONCURRENCY: usize = 16;
/// Longest idle wait between looks at the schedule.
const IDLE: Duration = Duration::from_millis(500);

/// Items due (id, due time), and the next due time after them.
pub type Due = (Vec<(String, i64)>, Option<i64>);

/// A table holding one row per scheduled item: its id and next due time (unix ms).
pub struct Schedule {
    table: &'static str,
    key: &'static str,
}

impl Schedule {
    /// The schedule kept in `table`, keyed by its column `key`.
    pub const fn new(table: &'static str, key: &'static str) -> Self {
        Self { table, key }
    }

    /// Schedules an item's next attempt, or takes it off the schedule.
    pub fn set(&self, db: &Db, id: &str, due_at: Option<i64>) -> Result<(), StoreError> {
        let (t, k) = (self.table, self.key);
        match due_at {
            Some(at) => db
                .conn()
                .prepare_cached(&format!(
                    "INSERT INTO {t} ({k}, due_at) VALUES (?1, ?2)
                     ON CONFLICT ({k}) DO UPDATE SET due_at = excluded.due_at"
                ))?
                .execute(params![id, at])?,
            None => db
                .conn()
                .prepare_cached(&format!("DELETE FROM {t} WHERE {k} = ?1"))?
                .execute(params![id])?,
        };
        Ok(())
    }

    /// Items due by `now`, soonest first, and the next due time after them.
    pub fn due(&self, db: &Db, now: i64, limit: usize) -> Result<Due, StoreError> {
        let (t, k) = (self.table, self.key);
        let rows = db
            .conn()
            .prepare_cached(&format!(
                "SELECT {k}, due_at FROM {t} WHERE due_at <= ?1 ORDER BY due_at LIMIT ?2"
            ))?
            .query_map(params![now, i64::try_from(limit).unwrap_or(64)], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let next: Option<i64> = db
            .conn()
            .prepare_cached(&format!("SELECT MIN(due_at) FROM {t} WHERE due_at > ?1"))?
            .query_row(params![now], |r| r.get(0))?;
        Ok((rows, next))
    }

    /// Claims a due item for one attempt: its due time moves to `lease_until` only if it is
    /// still `due_at` (one attempt per due time; a crash retries it after the lease).
    pub fn claim(
        &self,
        db: &Db,
        id: &str,
        due_at: i64,
        lease_until: i64,
    ) -> Result<bool, StoreError> {
        let (t, k) = (self.table, self.key);
        let n = db
            .conn()
            .prepare_cached(&format!(
                "UPDATE {t} SET due_at = ?3 WHERE {k} = ?1 AND due_at = ?2"
            ))?
            .execute(params![id, due_at, lease_until])?;
        Ok(n == 1)
    }
}

/// What a generation's worker does with the loop's claimed items.
pub trait Attempts: Send + Sync + Sized + 'static {
    /// What an item is called in logged errors ("delivery", "notification").
    const NOUN: &'static str;
    /// The `User-Agent` of the worker's HTTP client, if it names one.
    const USER_AGENT: Option<&'static str>;
    /// The generation's schedule.
    fn schedule() -> &'static Schedule;
    /// Whether chores wait to be done in the claiming transaction (read-only look).
    fn chores_waiting(_db: &Db) -> Result<bool, StoreError> {
        Ok(false)
    }
    /// Chores done in the claiming transaction, before claiming.
    fn chores(_db: &Db) -> Result<(), StoreError> {
        Ok(())
    }
    /// One attempt of a claimed item, recorded with its outcome.
    fn attempt(
        core: Arc<Core<Self>>,
        id: String,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}

/// The worker's shared parts: the store, the attempt timeout, the generation's own settings.
pub struct Core<G> {
    /// The service's store.
    pub store: Arc<Store>,
    /// Bounds each attempt.
    pub timeout: Duration,
    /// What the generation keeps for its attempts.
    pub generation: G,
    http: OnceCell<reqwest::Client>,
    wake: Notify,
    stop: watch::Sender<bool>,
    permits: Arc<Semaphore>,
    in_flight: Mutex<HashSet<String>>,
}

/// Handle on a generation's delivery worker.
pub struct Worker<G> {
    core: Arc<Core<G>>,
}

impl<G> Clone for Worker<G> {
    fn clone(&self) -> Self {
        Self {
            core: self.core.clone(),
        }
    }
}

impl<G: Attempts> Wake for Worker<G> {
    fn wake(&self) {
        self.core.wake.notify_one();
    }
    fn stopped(&self) -> watch::Receiver<bool> {
        self.core.stop.subscribe()
    }
}

impl<G: Attempts> Worker<G> {
    /// A worker over `store`; `timeout` bounds each attempt.
    pub fn new(store: Arc<Store>, timeout: Duration, generation: G) -> Self {
        let (stop, _) = watch::channel(false);
        Self {
            core: Arc::new(Core {
                store,
                timeout,
                generation,
                http: OnceCell::new(),
                wake: Notify::new(),
                stop,
                permits: Arc::new(Semaphore::new(CONCURRENCY)),
                in_flight: Mutex::new(HashSet::new()),
            }),
        }
    }

    /// Stops the loop and waits (bounded) for attempts in flight to be recorded.
    pub async fn stop(&self) {
        self.core.stop.send_replace(true);
        let all = u32::try_from(CONCURRENCY).unwrap_or(u32::MAX);
        let _ = tokio::time::timeout(
            self.core.timeout + Duration::from_secs(1),
            self.core.permits.acquire_many(all),
        )
        .await;
    }

    /// Starts the loop.
    pub fn spawn(&self) -> JoinHandle<()> {
        tokio::spawn(run(self.core.clone()))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A blocking task's failure to finish, as a store error.
pub fn joined(e: tokio::task::JoinError) -> StoreError {
    StoreError::Task(format!("a store task did not finish: {e}"))
}

async fn run<G: Attempts>(core: Arc<Core<G>>) {
    let mut stop = core.stop.subscribe();
    loop {
        if *stop.borrow() {
            return;
        }
        let wait = tick(&core).await.unwrap_or_else(|e| {
            error_limited(&format!("delivery worker: {e}"));
            Duration::from_secs(1)
        });
        tokio::select! {
            _ = core.wake.notified() => {}
            _ = tokio::time::sleep(wait) => {}
            _ = stop.changed() => return,
        }
    }
}

/// Claims and starts what is due; returns how long until the next look.
async fn tick<G: Attempts>(core: &Arc<Core<G>>) -> Result<Duration, StoreError> {
    let now = chrono::Utc::now().timestamp_millis();
    let busy: HashSet<String> = lock(&core.in_flight).clone();
    let free = core.permits.available_permits();
    let lease =
        i64::try_from((core.timeout + Duration::from_secs(30)).as_millis()).unwrap_or(60_000);
    let limit = free + busy.len();
    // A look on a read connection first: an idle worker takes no write transaction.
    let look = core.store.clone();
    let (due, next, chores) = tokio::task::spawn_blocking(move || {
        look.read(|db| -> Result<_, StoreError> {
            let (due, next) = G::schedule().due(db, now, limit)?;
            Ok((due, next, G::chores_waiting(db)?))
        })
    })
    .await
    .map_err(joined)??;
    let wanted = free > 0 && due.iter().any(|(id, _)| !busy.contains(id));
    if !wanted && !chores {
        return Ok(until(next));
    }
    let store = core.store.clone();
    let (claimed, next) = tokio::task::spawn_blocking(move || {
        store.write(|db| -> Result<_, StoreError> {
            if chores {
                G::chores(db)?;
            }
            let (due, next) = G::schedule().due(db, now, limit)?;
            let mut claimed = Vec::new();
            for (id, at) in due {
                if claimed.len() >= free || busy.contains(&id) {
                    continue;
                }
                if G::schedule().claim(db, &id, at, now + lease)? {
                    claimed.push(id);
                }
            }
            Ok((claimed, next))
        })
    })
    .await
    .map_err(joined)??;
    for id in claimed {
        let Ok(permit) = core.permits.clone().try_acquire_owned() else {
            break;
        };
        lock(&core.in_flight).insert(id.clone());
        let core = core.clone();
        tokio::spawn(async move {
            if let Err(e) = G::attempt(core.clone(), id.clone()).await {
                error_limited(&format!("{} {id}: {e}", G::NOUN));
            }
            lock(&core.in_flight).remove(&id);
            drop(permit);
            core.wake.notify_one();
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

/// What one POST came to, before a generation puts it in its own words.
pub enum Posted {
    /// The receiver answered.
    Answered {
        /// Its status.
        status: u16,
        /// Its headers (at most 64).
        headers: Vec<(String, String)>,
        /// Its `Retry-After` value, as sent.
        retry_after: Option<String>,
        /// Up to the asked number of bytes of its body.
        body: Vec<u8>,
        /// Whether the body went on past them.
        truncated: bool,
    },
    /// No answer within the timeout.
    TimedOut,
    /// The receiver could not be reached.
    Unreachable(String),
    /// No HTTP client could be built.
    NoClient(String),
}

impl<G: Attempts> Core<G> {
    async fn client(&self) -> Result<&reqwest::Client, reqwest::Error> {
        self.http
            .get_or_try_init(|| async {
                let b = reqwest::Client::builder().redirect(reqwest::redirect::Policy::limited(5));
                match G::USER_AGENT {
                    Some(ua) => b.user_agent(ua),
                    None => b,
                }
                .build()
            })
            .await
    }

    /// POSTs `body` with `headers` once, reading at most `cap` bytes of the answer.
    pub async fn post(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &str,
        cap: usize,
    ) -> Posted {
        let http = match self.client().await {
            Ok(c) => c,
            Err(e) => return Posted::NoClient(e.to_string()),
        };
        let mut rb = http.post(url).timeout(self.timeout).body(body.to_string());
        for (k, v) in headers {
            rb = rb.header(k, v);
        }
        let mut resp = match rb.send().await {
            Ok(r) => r,
            Err(e) if e.is_timeout() => return Posted::TimedOut,
            Err(e) => return Posted::Unreachable(e.to_string()),
        };
        let status = resp.status().as_u16();
        let headers = resp
            .headers()
            .iter()
            .take(64)
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let mut bytes = Vec::new();
        let mut truncated = false;
        while let Ok(Ok(Some(chunk))) = tokio::time::timeout(self.timeout, resp.chunk()).await {
            let room = cap - bytes.len();
            if chunk.len() > room {
                bytes.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            bytes.extend_from_slice(&chunk);
        }
        Posted::Answered {
            status,
            headers,
            retry_after,
            body: bytes,
            truncated,
        }
    }
}
