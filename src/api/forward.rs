//! Forwarding new deliveries to a receiver on this machine (issue 27), as `stripe listen
//! --forward-to` does for Stripe. No UI here: [`run`] follows the notifications with the API's
//! `after` cursor (ids are time-ordered), forwards each one's latest recorded request freshly
//! signed (the replay's [`plan`](super::replay::plan)), once, and reports [`Event`]s on a channel.
//!
//! Once means: each forward is claimed in the profile's delivery [`Journal`] before it is sent
//! and its outcome written after (per notification), and the cursor is saved per profile and
//! target ([`CursorFile`], 0600) after every page (and whenever forwarding stops mid-page), so
//! neither a restart nor a kill between sending and saving the cursor sends anything twice: what
//! a resume reads again is already in the journal and skipped.
//!
//! Order: one forward in flight at a time, oldest first, over one kept-alive connection to the
//! target ([`replay::client_for`]), so the receiver sees them in the order they happened.
//!
//! It never stops by itself on a network failure: the API going away is `reconnecting` with a
//! growing pause, then a catch-up from the saved cursor; a jump of the wall clock (a laptop
//! waking up) is a catch-up at once.
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use chrono::{DateTime, Utc};
use tokio::sync::{mpsc, watch};

use super::compare::Answer;
use super::journal::{self, Journal};
use super::model::{Destination, Notification, NotificationStatus};
use super::replay::{self, ReplayPlan, ReplayResult, SendOptions, Signing};
use super::{ApiRequest, Client, ListQuery, NotificationFilter, Order, Page, list_all};
use crate::config::private_file;

/// Notifications read per page.
const PAGE: u32 = 100;
/// The first pause after a failed poll; it doubles up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest pause between tries while the API is away.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// A wall clock that moved this much more than the monotonic one between two polls means the
/// machine slept: catch up at once.
const CLOCK_JUMP: Duration = Duration::from_secs(5);

/// Why forwarding cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum ForwardError {
    /// `--resume` with no saved cursor for this profile and target.
    #[error(
        "nothing to resume: no cursor is saved for {0} with this profile (start with --from now or --since)"
    )]
    NothingToResume(String),
    /// The cursor file (or the answers' log) cannot be read or written.
    #[error("{}: {source}", path.display())]
    Cursor {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The journal cannot be written: nothing may be sent.
    #[error("journal: {0}")]
    Journal(String),
    /// The API refused in a way waiting does not fix (a bad key, a bad filter).
    #[error(transparent)]
    Api(#[from] super::Error),
}

/// Where forwarding starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// With the notifications created from now on.
    Now,
    /// With those created at or after this time.
    Since(DateTime<Utc>),
    /// Right after the last one forwarded to this target with this profile.
    Resume,
}

/// What to forward, and where.
#[derive(Debug, Clone)]
pub struct ForwardConfig {
    /// The receiver.
    pub target: url::Url,
    /// The API's filters: callbacks and destinations.
    pub filter: NotificationFilter,
    /// Only these event types (the delivered body's `type`); empty: all.
    pub event_types: Vec<String>,
    /// Send without a signature.
    pub unsigned: bool,
    /// The pause between polls when there is nothing new.
    pub interval: Duration,
    /// The send's timeout.
    pub send: SendOptions,
}

/// The forwarder's state, as shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Finding where to start.
    Connecting,
    /// Up to date, polling every interval.
    Following,
    /// Forwarding what arrived meanwhile; `left` is how many are known to remain.
    CatchingUp {
        /// Notifications known to remain.
        left: usize,
    },
    /// The API could not be reached or failed; next try after `retry_in`.
    Reconnecting {
        /// Why.
        why: String,
        /// The pause before the next try.
        retry_in: Duration,
    },
    /// Stopped (asked to).
    Stopped,
}

/// One forward: what was sent, and the receiver's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Forwarded {
    /// `cbn_…`.
    pub notification_id: String,
    /// The delivered body's `type`.
    pub event_type: Option<String>,
    /// The recorded attempt whose request was forwarded (from 0).
    pub attempt_index: i64,
    /// Whether it was signed.
    pub signed: bool,
    /// The answer.
    pub result: ReplayResult,
}

/// What the forwarder reports.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The state changed.
    State(State),
    /// Started: forwarding what comes after `cursor` (`None`: from the first notification).
    Ready {
        /// The last notification not forwarded.
        cursor: Option<String>,
    },
    /// Forwarded; the receiver answered (any status) or not (see the result).
    Forwarded(Forwarded),
    /// A notification that could not be forwarded at all (nothing recorded, no signing secret).
    Skipped {
        /// `cbn_…`.
        notification_id: String,
        /// Why.
        why: String,
    },
    /// Everything known was forwarded: `forwarded` in this catch-up.
    CaughtUp {
        /// How many were forwarded in the catch-up.
        forwarded: usize,
    },
}

/// `data_dir/forward/<profile, plain>-<hash of profile and key>.<ext>`: one file per profile and
/// key, whatever characters they hold.
fn file_for(data_dir: &Path, profile: &str, key: &str, ext: &str) -> PathBuf {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(format!("{profile}\n{key}").as_bytes());
    let plain: String = profile
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(32)
        .collect();
    data_dir
        .join("forward")
        .join(format!("{plain}-{}.{ext}", &hex::encode(hash)[..16]))
}

/// Opens `path` for appending through the private-file rules (no link followed, `0600`, the
/// user's own), creating its folder owner-only.
fn open_private(path: &Path) -> std::io::Result<std::fs::File> {
    if let Some(dir) = path.parent() {
        private_file::dir(dir)?;
    }
    private_file::append(path)
}

/// Reads `path` through the private-file rules (no link followed, the user's own); `None` when
/// it does not exist.
fn read_private(path: &Path) -> std::io::Result<Option<String>> {
    use std::io::Read;
    let Some(mut f) = private_file::read(path)? else {
        return Ok(None);
    };
    let mut text = String::new();
    f.read_to_string(&mut text)?;
    Ok(Some(text))
}

/// The answers replayed (`notifications replay`) and forwarded with a profile from this machine,
/// newest last, for `notifications diff --with-replay`:
/// one JSON line each, header values already through the redaction policy (no secret reaches
/// the disk), bodies as capped on receipt; 0600. Past [`ANSWERS_MAX_BYTES`] only the last
/// [`ANSWERS_KEPT`] are kept.
#[derive(Debug, Clone)]
pub struct AnswerLog {
    path: PathBuf,
}

/// Answers kept when the log is trimmed.
pub const ANSWERS_KEPT: usize = 200;
/// The log's size that triggers a trim.
pub const ANSWERS_MAX_BYTES: u64 = 8 * 1024 * 1024;

impl AnswerLog {
    /// The log of `profile` in `data_dir/forward/`.
    #[must_use]
    pub fn new(data_dir: &Path, profile: &str) -> Self {
        Self {
            path: file_for(data_dir, profile, "answers", "ndjson"),
        }
    }

    fn err(&self, source: std::io::Error) -> ForwardError {
        ForwardError::Cursor {
            path: self.path.clone(),
            source,
        }
    }

    /// Appends a forward's answer.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn append(&self, f: &Forwarded, target: &url::Url) -> Result<(), ForwardError> {
        self.append_answer(
            "forwarded",
            &f.notification_id,
            f.attempt_index,
            &f.result,
            target,
        )
    }

    /// Appends an answer of `kind` (`forwarded`, `replayed`) to a send of attempt
    /// `attempt_index` (from 0) of `notification_id`.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn append_answer(
        &self,
        kind: &str,
        notification_id: &str,
        attempt_index: i64,
        r: &ReplayResult,
        target: &url::Url,
    ) -> Result<(), ForwardError> {
        use std::io::Write;
        let line = serde_json::json!({
            "kind": kind,
            "notification_id": notification_id,
            "target": target.as_str(),
            "attempt": attempt_index.saturating_add(1),
            "sent_at": r.sent_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "status": r.status,
            "duration_ms": u64::try_from(r.duration.as_millis()).unwrap_or(u64::MAX),
            "headers": replay::masked_headers(&r.headers),
            "body": r.body,
            "error": r.error.as_ref().map(ToString::to_string),
        });
        let mut file = open_private(&self.path).map_err(|e| self.err(e))?;
        writeln!(file, "{line}").map_err(|e| self.err(e))?;
        let big = file.metadata().map(|m| m.len() > ANSWERS_MAX_BYTES);
        drop(file);
        if big.unwrap_or(false) {
            self.trim().map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    fn trim(&self) -> std::io::Result<()> {
        let text = read_private(&self.path)?.unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let keep = &lines[lines.len().saturating_sub(ANSWERS_KEPT)..];
        private_file::replace_with(&self.path, |f| {
            for l in keep {
                writeln!(f, "{l}")?;
            }
            Ok(())
        })
    }

    /// The answers replayed or forwarded for `notification_id`, newest first (none when there
    /// is no log).
    ///
    /// # Errors
    /// The file exists but cannot be read.
    pub fn answers_of(&self, notification_id: &str) -> Result<Vec<Answer>, ForwardError> {
        let text = match read_private(&self.path) {
            Ok(Some(t)) => t,
            Ok(None) => return Ok(Vec::new()),
            Err(e) => return Err(self.err(e)),
        };
        let mut out: Vec<Answer> = text
            .lines()
            // A torn line (a kill mid-write) is skipped.
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v["notification_id"] == notification_id)
            .map(|v| answer_of(&v))
            .collect();
        out.reverse();
        Ok(out)
    }
}

fn answer_of(v: &serde_json::Value) -> Answer {
    let text = |k: &str| v[k].as_str().map(str::to_string);
    Answer {
        label: format!(
            "{} {} to {}",
            // Lines written before replays were kept are forwards.
            text("kind").unwrap_or_else(|| "forwarded".into()),
            text("sent_at").unwrap_or_default(),
            text("target").unwrap_or_default()
        ),
        status: v["status"].as_i64(),
        duration_ms: v["duration_ms"].as_u64(),
        headers: v["headers"]
            .as_array()
            .map(|hs| {
                hs.iter()
                    .filter_map(|h| Some((h[0].as_str()?.to_string(), h[1].as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default(),
        body: text("body"),
        error: text("error"),
    }
}

/// The saved cursor of one profile and target: the last notification handled.
#[derive(Debug, Clone)]
pub struct CursorFile {
    path: PathBuf,
}

impl CursorFile {
    /// The cursor of `profile` forwarding to `target`, in `data_dir/forward/`.
    #[must_use]
    pub fn new(data_dir: &Path, profile: &str, target: &url::Url) -> Self {
        Self {
            path: file_for(data_dir, profile, target.as_str(), "json"),
        }
    }

    /// The file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, source: std::io::Error) -> ForwardError {
        ForwardError::Cursor {
            path: self.path.clone(),
            source,
        }
    }

    /// The saved cursor, if any: `Some(None)` is "from the first notification" (nothing existed
    /// when forwarding started).
    ///
    /// # Errors
    /// The file exists but cannot be read or is not a cursor file.
    pub fn load(&self) -> Result<Option<Option<String>>, ForwardError> {
        let text = match read_private(&self.path) {
            Ok(Some(t)) => t,
            Ok(None) => return Ok(None),
            Err(e) => return Err(self.err(e)),
        };
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| self.err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
        match v.get("cursor") {
            Some(serde_json::Value::String(c)) => Ok(Some(Some(c.clone()))),
            Some(serde_json::Value::Null) => Ok(Some(None)),
            _ => Err(self.err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "no cursor in it",
            ))),
        }
    }

    /// Saves `cursor` atomically through the private-file rules ([`private_file::replace`]: a
    /// temporary file created exclusively beside it, synced, renamed over it), so a kill leaves
    /// the old cursor or the new one, never half of one, and no planted link is followed.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn save(&self, cursor: Option<&str>, target: &url::Url) -> Result<(), ForwardError> {
        let text = serde_json::json!({
            "cursor": cursor,
            "target": target.as_str(),
            "saved_at": Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        })
        .to_string();
        if let Some(dir) = self.path.parent() {
            private_file::dir(dir).map_err(|e| self.err(e))?;
        }
        private_file::replace(&self.path, text.as_bytes()).map_err(|e| self.err(e))
    }
}

/// Where each forward is claimed before it is sent and its outcome written after: the profile's
/// delivery journal, shared with `recover`.
pub trait Ledger: Send {
    /// Claims `notification` for `target`; `false` when it was sent already (or is in doubt).
    ///
    /// # Errors
    /// The ledger cannot be written: then nothing may be sent.
    fn claim(&mut self, notification: &str, target: &str) -> Result<bool, String>;
    /// Writes the outcome of a claimed forward.
    ///
    /// # Errors
    /// The ledger cannot be written.
    fn record(&mut self, notification: &str, target: &str, r: &ReplayResult) -> Result<(), String>;
}

/// The profile's delivery journal, shared with `recover`, as the forwarder's [`Ledger`].
///
/// # Errors
/// The journal cannot be opened.
pub fn open_journal(
    data_dir: &Path,
    service: &super::identity::ServiceIdentity,
    profile: &str,
) -> Result<Option<Box<dyn Ledger>>, String> {
    let j = Journal::open_for(data_dir, service, profile).map_err(|e| e.to_string())?;
    Ok(Some(Box::new(j)))
}

impl Ledger for Journal {
    fn claim(&mut self, notification: &str, target: &str) -> Result<bool, String> {
        Journal::claim(self, notification, target, false).map_err(|e| e.to_string())
    }

    fn record(&mut self, notification: &str, target: &str, r: &ReplayResult) -> Result<(), String> {
        // Counted as recover counts it: a 2xx cut short is no answer.
        let outcome = super::recover::outcome_of(r);
        Journal::record(
            self,
            &journal::Entry {
                at: Utc::now(),
                notification: notification.to_string(),
                target: target.to_string(),
                outcome,
                status: r.status,
                duration_ms: u64::try_from(r.duration.as_millis()).ok(),
            },
        )
        .map_err(|e| e.to_string())
    }
}

/// What keeps forwarding once: the cursor file and the journal (both optional: without a data
/// directory nothing is kept, and `--resume` is refused).
#[derive(Default)]
pub struct Memory {
    /// The saved cursor.
    pub cursor: Option<CursorFile>,
    /// The profile's delivery journal.
    pub journal: Option<Box<dyn Ledger>>,
    /// Where the answers go, for `diff --with-replay`.
    pub answers: Option<AnswerLog>,
}

/// Whether an API failure is worth waiting out (the API away, overloaded or restarting).
fn transient(e: &super::Error) -> bool {
    match e {
        super::Error::Network(_) | super::Error::Timeout(_) | super::Error::Decode { .. } => true,
        super::Error::Api(a) => a.status >= 500 || a.status == 429 || a.status == 408,
        super::Error::Invalid(_)
        | super::Error::TooManyPages { .. }
        | super::Error::UnsupportedVersion(_) => false,
    }
}

/// The forwarder's working state.
struct Forwarder<'a> {
    client: &'a Client,
    cfg: &'a ForwardConfig,
    memory: Memory,
    events: mpsc::UnboundedSender<Event>,
    stop: watch::Receiver<bool>,
    cursor: Option<String>,
    destinations: Vec<Destination>,
    state: Option<State>,
    /// A poll failed since the last look: catch up.
    reconnected: bool,
    /// One HTTP client for the target (its connection kept between forwards); built on first use.
    http: Option<reqwest::Client>,
}

/// Forwards until `stop` turns true (or its sender is dropped), reporting on `events`.
///
/// # Errors
/// Nothing to resume, a cursor or journal that cannot be written, or an API error that waiting
/// does not fix. Network failures never end it.
pub async fn run(
    client: &Client,
    cfg: &ForwardConfig,
    start: Start,
    memory: Memory,
    events: mpsc::UnboundedSender<Event>,
    stop: watch::Receiver<bool>,
) -> Result<(), ForwardError> {
    let mut f = Forwarder {
        client,
        cfg,
        memory,
        events,
        stop,
        cursor: None,
        destinations: Vec::new(),
        state: None,
        reconnected: false,
        http: None,
    };
    let result = f.go(start).await;
    f.set(State::Stopped);
    result
}

impl Forwarder<'_> {
    fn emit(&self, e: Event) {
        // Nobody listening is no reason to stop forwarding.
        let _ = self.events.send(e);
    }

    fn set(&mut self, s: State) {
        if self.state.as_ref() != Some(&s) {
            self.state = Some(s.clone());
            self.emit(Event::State(s));
        }
    }

    fn stopped(&self) -> bool {
        *self.stop.borrow()
    }

    /// Sleeps `d`; `false` when asked to stop meanwhile.
    async fn pause(&mut self, d: Duration) -> bool {
        if self.stopped() {
            return false;
        }
        tokio::select! {
            () = tokio::time::sleep(d) => !self.stopped(),
            r = self.stop.changed() => r.is_ok() && !self.stopped(),
        }
    }

    /// Runs `op` until it succeeds, a failure waiting cannot fix, or a stop (`Ok(None)`).
    async fn retrying<T, F, Fut>(&mut self, mut op: F) -> Result<Option<T>, ForwardError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, super::Error>>,
    {
        let mut backoff = FIRST_BACKOFF;
        loop {
            if self.stopped() {
                return Ok(None);
            }
            match op().await {
                Ok(v) => return Ok(Some(v)),
                Err(e) if transient(&e) => {
                    self.reconnected = true;
                    self.set(State::Reconnecting {
                        why: e.to_string(),
                        retry_in: backoff,
                    });
                    if !self.pause(backoff).await {
                        return Ok(None);
                    }
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// One page of notifications (the configured filter); `Ok(None)` when stopped first.
    async fn list(
        &mut self,
        limit: u32,
        after: Option<String>,
        order: Order,
    ) -> Result<Option<Page<Notification>>, ForwardError> {
        let q = ListQuery {
            limit: Some(limit),
            after,
            order: Some(order),
            ..ListQuery::default()
        };
        let (client, filter) = (self.client, self.cfg.filter.clone());
        self.retrying(move || {
            let (q, filter) = (q.clone(), filter.clone());
            async move { client.list_notifications(&q, &filter).await }
        })
        .await
    }

    async fn go(&mut self, start: Start) -> Result<(), ForwardError> {
        self.set(State::Connecting);
        let Some(cursor) = self.start_cursor(start).await? else {
            return Ok(());
        };
        self.cursor = cursor;
        // Saved at once, so that a run killed before its first forward can be resumed.
        if let Some(c) = &self.memory.cursor {
            c.save(self.cursor.as_deref(), &self.cfg.target)?;
        }
        self.emit(Event::Ready {
            cursor: self.cursor.clone(),
        });
        // A catch-up (with a count of what is left) at the start, after the API was away, after
        // the machine slept, and whenever a page is full.
        let mut catch_up = true;
        let mut caught: Option<usize> = None;
        let mut wall = SystemTime::now();
        let mut mono = Instant::now();
        loop {
            let Some(page) = self.list(PAGE, self.cursor.clone(), Order::Asc).await? else {
                return Ok(());
            };
            catch_up |= std::mem::take(&mut self.reconnected);
            let more = page.pagination.has_more_after;
            if (catch_up || more) && caught.is_none() {
                let left = if more {
                    match self.count_left().await? {
                        Some(n) => n,
                        None => return Ok(()),
                    }
                } else {
                    page.items.len()
                };
                caught = Some(0);
                self.set(State::CatchingUp { left });
            }
            catch_up = false;
            let (done, waiting) = self.forward_page(page.items, &mut caught).await?;
            if self.stopped() {
                return Ok(());
            }
            if more && done && !waiting {
                continue;
            }
            // Not caught up while the next one waits for its first attempt to be recorded.
            if !(waiting && caught.is_some()) {
                self.set(State::Following);
                if let Some(forwarded) = caught.take() {
                    self.emit(Event::CaughtUp { forwarded });
                }
            }
            if !self.pause(self.cfg.interval).await {
                return Ok(());
            }
            // A wall clock far ahead of the monotonic one: the machine slept; catch up now.
            let (w, m) = (SystemTime::now(), Instant::now());
            let wall_gone = w.duration_since(wall).unwrap_or_default();
            if slept(wall_gone, m.duration_since(mono)) {
                tracing::info!("the wall clock jumped {wall_gone:?}: catching up");
                catch_up = true;
            }
            (wall, mono) = (w, m);
        }
    }

    /// Where to start; `Ok(None)` when stopped first. Inner `None`: from the first notification.
    async fn start_cursor(&mut self, start: Start) -> Result<Option<Option<String>>, ForwardError> {
        match start {
            Start::Resume => {
                let saved = match &self.memory.cursor {
                    Some(c) => c.load()?,
                    None => None,
                };
                saved
                    .map(Some)
                    .ok_or_else(|| ForwardError::NothingToResume(self.cfg.target.to_string()))
            }
            Start::Now => {
                let page = self.list(1, None, Order::Desc).await?;
                Ok(page.map(|p| p.items.into_iter().next().map(|n| n.id)))
            }
            Start::Since(t) => {
                // Newest first until one older than `t`: it is the cursor.
                let mut after: Option<String> = None;
                loop {
                    let Some(page) = self.list(PAGE, after.clone(), Order::Desc).await? else {
                        return Ok(None);
                    };
                    if let Some(older) = page.items.iter().find(|n| n.created_at < t) {
                        return Ok(Some(Some(older.id.clone())));
                    }
                    match page.items.last() {
                        Some(last) if page.pagination.has_more_after => {
                            after = Some(last.id.clone());
                        }
                        _ => return Ok(Some(None)),
                    }
                }
            }
        }
    }

    /// How many notifications come after the cursor (for "catching up, N left"); `None` when
    /// stopped first.
    async fn count_left(&mut self) -> Result<Option<usize>, ForwardError> {
        let mut after = self.cursor.clone();
        let mut n = 0usize;
        loop {
            let Some(page) = self.list(PAGE, after.clone(), Order::Asc).await? else {
                return Ok(None);
            };
            n += page.items.len();
            match page.items.last() {
                Some(last) if page.pagination.has_more_after => after = Some(last.id.clone()),
                _ => return Ok(Some(n)),
            }
        }
    }

    /// Forwards a page in order, then saves the cursor once (also when it stops mid-page or
    /// fails: the journal already holds each forward, so a resume that reads some again skips
    /// them). Returns whether every item was handled, and whether the first unhandled one waits
    /// for its first attempt to be recorded.
    async fn forward_page(
        &mut self,
        items: Vec<Notification>,
        catching_up: &mut Option<usize>,
    ) -> Result<(bool, bool), ForwardError> {
        let before = self.cursor.clone();
        let result = self.forward_items(items, catching_up).await;
        if self.cursor != before
            && let Some(c) = &self.memory.cursor
        {
            c.save(self.cursor.as_deref(), &self.cfg.target)?;
        }
        result
    }

    async fn forward_items(
        &mut self,
        items: Vec<Notification>,
        catching_up: &mut Option<usize>,
    ) -> Result<(bool, bool), ForwardError> {
        for n in items {
            if self.stopped() {
                return Ok((false, false));
            }
            // Not attempted yet: its request is not recorded. Wait, so the order holds.
            if n.attempts.is_empty() && n.status == NotificationStatus::Pending {
                return Ok((false, true));
            }
            let Some(sent) = self.forward_one(&n).await? else {
                return Ok((false, false));
            };
            self.cursor = Some(n.id.clone());
            if let Some(done) = catching_up.as_mut() {
                *done += usize::from(sent);
                if let Some(State::CatchingUp { left }) = &self.state {
                    let left = left.saturating_sub(1);
                    self.set(State::CatchingUp { left });
                }
            }
        }
        Ok((true, false))
    }

    /// Forwards `n` unless the filter or the journal says no: `Ok(Some(true))` when it was sent.
    /// `Ok(None)`: stopped mid-send (the journal keeps it in doubt, so it is not sent twice).
    async fn forward_one(&mut self, n: &Notification) -> Result<Option<bool>, ForwardError> {
        let event_type = n.event_type();
        if !self.cfg.event_types.is_empty()
            && !event_type
                .as_ref()
                .is_some_and(|t| self.cfg.event_types.contains(t))
        {
            return Ok(Some(false));
        }
        let plan = match self.plan(n).await? {
            Ok(p) => p,
            Err(why) => {
                self.emit(Event::Skipped {
                    notification_id: n.id.clone(),
                    why,
                });
                return Ok(Some(false));
            }
        };
        let target = self.cfg.target.as_str().to_string();
        if let Some(j) = self.memory.journal.as_mut()
            && !j.claim(&n.id, &target).map_err(ForwardError::Journal)?
        {
            // Sent already (by an earlier run or another process): once is enough.
            self.emit(Event::Skipped {
                notification_id: n.id.clone(),
                why: "the journal says it was sent to this target already (or a run was stopped while sending it): not sent again".into(),
            });
            return Ok(Some(false));
        }
        if self.http.is_none() {
            // `send` reports why no client could be built, on each forward.
            self.http = replay::client_for(&self.cfg.target, self.cfg.send.timeout).ok();
        }
        let send = async {
            match &self.http {
                Some(c) => replay::send_with(c, &plan, &self.cfg.send).await,
                None => replay::send(&plan, &self.cfg.send).await,
            }
        };
        let mut stop = self.stop.clone();
        let result = tokio::select! {
            r = send => r,
            _ = stop.changed() => return Ok(None),
        };
        if let Some(j) = self.memory.journal.as_mut() {
            j.record(&n.id, &target, &result)
                .map_err(ForwardError::Journal)?;
        }
        let f = Forwarded {
            notification_id: n.id.clone(),
            event_type,
            attempt_index: plan.attempt_index,
            signed: plan.signing.is_some(),
            result,
        };
        if let Some(a) = &self.memory.answers {
            a.append(&f, &self.cfg.target)?;
        }
        self.emit(Event::Forwarded(f));
        Ok(Some(true))
    }

    /// The plan of `n`'s latest recorded request, signed with its destination's secret unless
    /// unsigned. The inner error says why it cannot be forwarded (shown, then skipped).
    async fn plan(&mut self, n: &Notification) -> Result<Result<ReplayPlan, String>, ForwardError> {
        // A body the list page carried cut is read again whole: never forward a shortened one.
        let client = self.client;
        let read = n.clone();
        let Some(whole) = self
            .retrying(move || replay::whole(client, read.clone()))
            .await?
        else {
            return Ok(Err("stopped before its whole body was read".into()));
        };
        let n = &whole;
        let target = self.cfg.target.clone();
        let (_, recorded) = match replay::recorded_request(n, None) {
            Ok(r) => r,
            Err(e) => return Ok(Err(e.to_string())),
        };
        if self.cfg.unsigned {
            return Ok(replay::plan(n, None, target, None, None).map_err(|e| e.to_string()));
        }
        let callback = recorded
            .body_field("callbackId")
            .or_else(|| n.body_field("callbackId"));
        let url = recorded.url.clone();
        if replay::matching(&self.destinations, Some(&url), callback.as_deref()).is_empty() {
            // A destination made since the last look: look again (all of them, once).
            let client = self.client;
            let Some(all) = self
                .retrying(move || async move {
                    list_all(client, |q| {
                        ApiRequest::list_destinations(q, &[] as &[String])
                    })
                    .await
                })
                .await?
            else {
                return Ok(Err("stopped".into()));
            };
            self.destinations = all;
        }
        let candidates = replay::matching(&self.destinations, Some(&url), callback.as_deref());
        let d = match replay::choose_destination(&candidates, recorded) {
            Ok(d) => d,
            Err(e) => return Ok(Err(e.to_string())),
        };
        let host = replay::signing_host(recorded, self.client.base_url()).unwrap_or_default();
        Ok(
            replay::plan(n, None, target, Signing::for_destination(d, &host), Some(d))
                .map_err(|e| e.to_string()),
        )
    }
}

/// Whether the machine slept between two looks: the wall clock moved [`CLOCK_JUMP`] more than
/// the monotonic one (which stands still while suspended).
fn slept(wall_gone: Duration, mono_gone: Duration) -> bool {
    wall_gone > mono_gone + CLOCK_JUMP
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wall_clock_far_ahead_of_the_monotonic_one_is_a_sleep() {
        let s = Duration::from_secs;
        assert!(slept(s(3600), s(2)));
        assert!(!slept(s(3), s(2)));
        assert!(!slept(s(0), s(2)), "a clock set back is not a sleep");
    }

    fn forwarded(id: &str, status: u16) -> Forwarded {
        Forwarded {
            notification_id: id.into(),
            event_type: None,
            attempt_index: 0,
            signed: true,
            result: ReplayResult {
                sent_at: Utc::now(),
                sent_headers: Vec::new(),
                status: Some(status),
                headers: super::replay::AnswerHeaders {
                    origin: Default::default(),
                    list: vec![
                        ("set-cookie".into(), "s=SECRET_ON_DISK".into()),
                        ("content-type".into(), "text/plain".into()),
                    ],
                },
                headers_truncated: false,
                body: Some("ok".into()),
                body_truncated: false,
                duration: Duration::from_millis(3),
                error: None,
            },
        }
    }

    #[test]
    fn the_cursor_and_the_answers_are_owner_only_and_hold_no_secret() {
        let dir = tempfile::tempdir().expect("dir");
        let target = url::Url::parse("http://localhost:3000/in").expect("url");
        let c = CursorFile::new(dir.path(), "work", &target);
        assert_eq!(c.load().expect("load"), None);
        c.save(None, &target).expect("save");
        assert_eq!(c.load().expect("load"), Some(None));
        c.save(Some("cbn_1"), &target).expect("save");
        assert_eq!(c.load().expect("load"), Some(Some("cbn_1".into())));
        let other = CursorFile::new(
            dir.path(),
            "work",
            &url::Url::parse("http://localhost:1/").expect("url"),
        );
        assert_ne!(other.path(), c.path(), "one cursor per target");

        let log = AnswerLog::new(dir.path(), "work");
        log.append(&forwarded("cbn_1", 500), &target)
            .expect("append");
        log.append(&forwarded("cbn_2", 200), &target)
            .expect("append");
        log.append(&forwarded("cbn_1", 200), &target)
            .expect("append");
        let answers = log.answers_of("cbn_1").expect("answers");
        assert_eq!(
            answers.iter().map(|a| a.status).collect::<Vec<_>>(),
            [Some(200), Some(500)]
        );
        #[cfg(unix)]
        for p in [c.path().to_path_buf(), log.path.clone()] {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&p).expect("meta").permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}", p.display());
        }
        let text = std::fs::read_to_string(&log.path).expect("read");
        assert!(!text.contains("SECRET_ON_DISK"), "{text}");
        assert!(text.contains("text/plain"));
    }

    #[cfg(unix)]
    #[test]
    fn cursor_and_answers_follow_no_planted_link() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("dir");
        let target = url::Url::parse("http://127.0.0.1:9/in").expect("url");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep\n").expect("victim");
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).expect("m");
        let c = CursorFile::new(dir.path(), "work", &target);
        private_file::dir(c.path().parent().expect("dir")).expect("dir");
        std::os::unix::fs::symlink(&victim, c.path()).expect("link");
        assert!(c.save(Some("cbn_1"), &target).is_err());
        assert!(c.load().is_err(), "not read through the link");
        let answers = file_for(dir.path(), "work", "answers", "ndjson");
        std::os::unix::fs::symlink(&victim, &answers).expect("link");
        let log = AnswerLog::new(dir.path(), "work");
        assert!(log.answers_of("cbn_1").is_err());
        assert_eq!(std::fs::read(&victim).expect("read"), b"keep\n");
        let mode = std::fs::metadata(&victim).expect("m").permissions().mode();
        assert_eq!(mode & 0o777, 0o644, "not chmod-ed");
        // A temporary file name planted beside the cursor is not written through either.
        std::fs::remove_file(c.path()).expect("unlink");
        std::os::unix::fs::symlink(&victim, c.path().with_extension("json.tmp")).expect("link");
        c.save(Some("cbn_2"), &target).expect("saved");
        assert_eq!(c.load().expect("load"), Some(Some("cbn_2".into())));
        assert_eq!(std::fs::read(&victim).expect("read"), b"keep\n");
    }
}
