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
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use chrono::{DateTime, Utc};
use tokio::sync::{mpsc, watch};

use super::compare::Answer;
// A failed poll or send waits FIRST_BACKOFF, doubling up to MAX_BACKOFF, as on the other generations.
use super::follow::{FIRST_BACKOFF, MAX_BACKOFF};
use super::journal::{self, Journal};
use super::model::{Destination, Notification, NotificationStatus};
use super::replay::{self, ReplayPlan, ReplayResult, SendOptions, Signing};
use super::{ApiRequest, Client, ListQuery, NotificationFilter, Order, Page, list_all};
use crate::config::private_file;
use crate::text::redact::HeaderOrigin;

/// Notifications read per page.
const PAGE: u32 = 100;
/// How long a notification read is looked for again: one that becomes visible this long after
/// later ones were read is still forwarded.
const LOOK_BACK: Duration = Duration::from_secs(30);
/// The most notifications remembered for the look back.
const LOOK_BACK_MAX: usize = 2_000;
/// The most notifications kept open (pending, or a send to retry): past it, nothing new is read
/// until the receiver takes some.
const OPEN_MAX: usize = 10_000;
/// How long the notifications after a pending one wait for its first attempt before they go on
/// without it.
const PENDING_GRACE: Duration = Duration::from_secs(3);
/// How long a forwarder waits for another on the same cursor to end before refusing to start.
const LOCK_GRACE: Duration = Duration::from_secs(1);
/// A wall clock that moved this much more than the monotonic one between two polls means the
/// machine slept: catch up at once.
const CLOCK_JUMP: Duration = Duration::from_secs(5);

/// Why forwarding cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum ForwardError {
    /// Another forwarder holds this profile and target's cursor.
    #[error(
        "another forwarder is running for this profile and target (it holds {}): one forwarder per cursor",
        .0.display()
    )]
    Busy(PathBuf),
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
    /// Not delivered: sent again after this pause (while the run lives; `--resume` too).
    pub retry_in: Option<Duration>,
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
    /// The saved cursor is past every notification the server has (a service reset, a restored
    /// database): forwarding goes on from the newest it has.
    CursorAhead {
        /// The saved cursor.
        cursor: String,
        /// The newest notification the server has (`None`: it has none).
        newest: Option<String>,
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
        self.append_sent(kind, notification_id, attempt_index, r, target, None)
    }

    /// [`Self::append_answer`], keeping with it the body sent when it was not the recorded one
    /// (`notifications replay --edit | --body-file`).
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn append_sent(
        &self,
        kind: &str,
        notification_id: &str,
        attempt_index: i64,
        r: &ReplayResult,
        target: &url::Url,
        sent_body: Option<&str>,
    ) -> Result<(), ForwardError> {
        use std::io::Write;
        let mut line = serde_json::json!({
            "kind": kind,
            "notification_id": notification_id,
            "target": target.as_str(),
            "attempt": attempt_index.saturating_add(1),
            "sent_at": r.sent_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "status": r.status,
            "duration_ms": u64::try_from(r.duration.as_millis()).unwrap_or(u64::MAX),
            "headers": replay::masked_headers(&r.headers),
            // The answer's masking verdict, so that `notifications diff` shows it as sent.
            "origin": match r.headers.origin {
                HeaderOrigin::OwnReceiver => "own_receiver",
                HeaderOrigin::Elsewhere => "elsewhere",
            },
            "body": r.body,
            "error": r.error.as_ref().map(ToString::to_string),
        });
        if let Some(b) = sent_body {
            line["sent_body"] = serde_json::Value::String(b.to_string());
        }
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
        // A line without a verdict (written before it was kept) fails closed.
        origin: if v["origin"] == "own_receiver" {
            HeaderOrigin::OwnReceiver
        } else {
            HeaderOrigin::Elsewhere
        },
    }
}

/// The saved cursor of one profile and target: where reading starts again (every notification
/// up to it was handled), and the notifications after it still open (pending, or a send to
/// retry).
#[derive(Debug, Clone)]
pub struct CursorFile {
    path: PathBuf,
}

/// What a [`CursorFile`] holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Saved {
    /// Read again after this one (`None`: from the first notification).
    pub cursor: Option<String>,
    /// Not yet forwarded: pending (no attempt recorded yet) or a send to retry.
    pub open: Vec<String>,
}

/// Held while a forwarder uses a cursor: a second forwarder on the same profile and target is
/// refused ([`CursorFile::lock`]). Released when dropped (or when the process ends, killed too).
#[derive(Debug)]
pub struct CursorLock {
    _file: std::fs::File,
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

    /// Takes this cursor for one forwarder: an advisory lock on a file beside it, which the
    /// system releases when the process ends, however it ends.
    ///
    /// # Errors
    /// [`ForwardError::Busy`] when another forwarder holds it; the lock file cannot be opened.
    pub fn lock(&self) -> Result<CursorLock, ForwardError> {
        let path = self.path.with_extension("lock");
        let file = open_private(&path).map_err(|source| ForwardError::Cursor {
            path: path.clone(),
            source,
        })?;
        match file.try_lock() {
            Ok(()) => Ok(CursorLock { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) => Err(ForwardError::Busy(path)),
            Err(std::fs::TryLockError::Error(source)) => Err(ForwardError::Cursor { path, source }),
        }
    }

    /// The saved cursor, if any: `Some(None)` is "from the first notification" (nothing existed
    /// when forwarding started).
    ///
    /// # Errors
    /// The file exists but cannot be read or is not a cursor file.
    pub fn load(&self) -> Result<Option<Option<String>>, ForwardError> {
        Ok(self.load_saved()?.map(|s| s.cursor))
    }

    /// The saved cursor and the notifications still open, if saved.
    ///
    /// # Errors
    /// The file exists but cannot be read or is not a cursor file.
    pub fn load_saved(&self) -> Result<Option<Saved>, ForwardError> {
        let text = match read_private(&self.path) {
            Ok(Some(t)) => t,
            Ok(None) => return Ok(None),
            Err(e) => return Err(self.err(e)),
        };
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| self.err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
        // Files saved before open ones were kept have none.
        let open: Vec<String> = v
            .get("open")
            .and_then(serde_json::Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(serde_json::Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        match v.get("cursor") {
            Some(serde_json::Value::String(c)) => Ok(Some(Saved {
                cursor: Some(c.clone()),
                open,
            })),
            Some(serde_json::Value::Null) => Ok(Some(Saved { cursor: None, open })),
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
    pub fn save(
        &self,
        cursor: Option<&str>,
        open: &[String],
        target: &url::Url,
    ) -> Result<(), ForwardError> {
        let text = serde_json::json!({
            "cursor": cursor,
            "open": open,
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

/// What the ledger says of a forward about to be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// Claimed: send it.
    Free,
    /// It reached this target already (an earlier run, or a look read it again): not sent again.
    Done,
    /// A run was stopped while sending it (or another process is): not sent again.
    InDoubt,
}

/// Where each forward is claimed before it is sent and its outcome written after: the profile's
/// delivery journal, shared with `recover`.
pub trait Ledger: Send {
    /// Claims `notification` for `target`: [`Claim::Free`] when it may be sent now.
    ///
    /// # Errors
    /// The ledger cannot be written: then nothing may be sent.
    fn claim(&mut self, notification: &str, target: &str) -> Result<Claim, String>;
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
    fn claim(&mut self, notification: &str, target: &str) -> Result<Claim, String> {
        if Journal::claim(self, notification, target, false).map_err(|e| e.to_string())? {
            return Ok(Claim::Free);
        }
        Ok(match self.state(notification, target) {
            Some(journal::State::Succeeded) => Claim::Done,
            _ => Claim::InDoubt,
        })
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

/// A notification read but not forwarded yet.
#[derive(Debug, Clone, Copy)]
struct Open {
    /// Looked at again from then on.
    due: Instant,
    /// The pause after its last failed send (`None`: pending, no attempt recorded yet).
    backoff: Option<Duration>,
    /// When it was first kept open.
    since: Instant,
}

/// The forwarder's working state.
struct Forwarder<'a> {
    client: &'a Client,
    cfg: &'a ForwardConfig,
    memory: Memory,
    events: mpsc::UnboundedSender<Event>,
    stop: watch::Receiver<bool>,
    /// Reading starts after this one: every notification up to it was handled (or is open).
    anchor: Option<String>,
    /// Read but not forwarded yet, oldest id first.
    open: BTreeMap<String, Open>,
    /// The notifications read after the anchor, and when: a look reads from the anchor again,
    /// so one that became visible late (an id older than those already read) is still found.
    recent: VecDeque<(String, Instant)>,
    known: HashSet<String>,
    /// What was saved last, so an unchanged cursor is not written again.
    saved: Option<Saved>,
    /// A catch-up under way: how many it forwarded so far.
    catching: Option<usize>,
    destinations: Vec<Destination>,
    state: Option<State>,
    /// A poll failed since the last look: catch up.
    reconnected: bool,
    /// One HTTP client for the target (its connection kept between forwards); built on first use.
    http: Option<reqwest::Client>,
    /// The notifications already reported in doubt this run: a look back reads them again, and
    /// one report each is the truth.
    said_in_doubt: HashSet<String>,
}

/// Forwards until `stop` turns true (or its sender is dropped), reporting on `events`.
///
/// # Errors
/// Another forwarder on the same cursor, nothing to resume, a cursor or journal that cannot be
/// written, or an API error that waiting does not fix. Network failures never end it.
pub async fn run(
    client: &Client,
    cfg: &ForwardConfig,
    start: Start,
    memory: Memory,
    events: mpsc::UnboundedSender<Event>,
    stop: watch::Receiver<bool>,
) -> Result<(), ForwardError> {
    // One forwarder per cursor: a second would send what the first has in flight, out of order.
    let _lock = match &memory.cursor {
        Some(c) => Some(take_lock(c).await?),
        None => None,
    };
    let mut f = Forwarder {
        client,
        cfg,
        memory,
        events,
        stop,
        anchor: None,
        open: BTreeMap::new(),
        recent: VecDeque::new(),
        known: HashSet::new(),
        saved: None,
        catching: None,
        destinations: Vec::new(),
        state: None,
        reconnected: false,
        http: None,
        said_in_doubt: HashSet::new(),
    };
    let result = f.go(start).await;
    f.set(State::Stopped);
    result
}

/// Takes the cursor's lock, allowing a forwarder that was just stopped (the console's, whose
/// task ends a moment after the stop) up to [`LOCK_GRACE`] to let go.
pub(crate) async fn take_lock(c: &CursorFile) -> Result<CursorLock, ForwardError> {
    let until = Instant::now() + LOCK_GRACE;
    loop {
        match c.lock() {
            Err(ForwardError::Busy(_)) if Instant::now() < until => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            other => return other,
        }
    }
}

/// What became of one notification handed to the forwarder.
enum Handled {
    /// Sent (whatever the answer).
    Sent,
    /// Not sent: filtered out, already sent, or it cannot be forwarded.
    Passed,
    /// Asked to stop first.
    Stopped,
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

    /// Saves the anchor and the open ones when they changed.
    fn save(&mut self) -> Result<(), ForwardError> {
        let now = Saved {
            cursor: self.anchor.clone(),
            open: self.open.keys().cloned().collect(),
        };
        if self.saved.as_ref() == Some(&now) {
            return Ok(());
        }
        if let Some(c) = &self.memory.cursor {
            c.save(now.cursor.as_deref(), &now.open, &self.cfg.target)?;
        }
        self.saved = Some(now);
        Ok(())
    }

    /// Remembers a notification read after the anchor.
    fn remember(&mut self, id: &str) {
        if self.known.insert(id.to_string()) {
            self.recent.push_back((id.to_string(), Instant::now()));
        }
    }

    /// Moves the anchor over what was read more than [`LOOK_BACK`] ago (or past
    /// [`LOOK_BACK_MAX`] remembered): a notification older than those is not looked for again.
    fn forget_old(&mut self) {
        while let Some((id, at)) = self.recent.front() {
            if at.elapsed() < LOOK_BACK && self.recent.len() <= LOOK_BACK_MAX {
                break;
            }
            if self.anchor.as_deref().is_none_or(|a| a < id.as_str()) {
                self.anchor = Some(id.clone());
            }
            self.known.remove(id);
            self.recent.pop_front();
        }
    }

    async fn go(&mut self, start: Start) -> Result<(), ForwardError> {
        self.set(State::Connecting);
        let Some(saved) = self.start_cursor(start).await? else {
            return Ok(());
        };
        self.anchor = saved.cursor;
        let now = Instant::now();
        for id in saved.open {
            self.open.insert(
                id,
                Open {
                    due: now,
                    backoff: None,
                    since: now,
                },
            );
        }
        // Saved at once, so that a run killed before its first forward can be resumed.
        self.save()?;
        self.emit(Event::Ready {
            cursor: self.anchor.clone(),
        });
        // A catch-up (with a count of what is left) at the start, after the API was away, after
        // the machine slept, and whenever a page is full.
        let mut catch_up = true;
        let mut wall = SystemTime::now();
        let mut mono = Instant::now();
        loop {
            // The open ones first: one whose first attempt came meanwhile goes before later ones.
            if !self.retry_open().await? {
                return Ok(());
            }
            let Some(finished) = self.read_new(catch_up).await? else {
                return Ok(());
            };
            self.forget_old();
            self.save()?;
            // Not caught up while later ones wait behind a pending one.
            if finished {
                self.set(State::Following);
                if let Some(forwarded) = self.catching.take() {
                    self.emit(Event::CaughtUp { forwarded });
                }
            }
            // The next look: after the interval, or sooner when an open one is due.
            let next_due = self
                .open
                .values()
                .map(|o| o.due.saturating_duration_since(Instant::now()))
                .min()
                .unwrap_or(self.cfg.interval);
            if !self.pause(self.cfg.interval.min(next_due)).await {
                return Ok(());
            }
            // A wall clock far ahead of the monotonic one: the machine slept; catch up now.
            let (w, m) = (SystemTime::now(), Instant::now());
            let wall_gone = w.duration_since(wall).unwrap_or_default();
            catch_up = slept(wall_gone, m.duration_since(mono));
            if catch_up {
                tracing::info!("the wall clock jumped {wall_gone:?}: catching up");
            }
            (wall, mono) = (w, m);
        }
    }

    /// Whether an older notification is pending, kept open less than [`PENDING_GRACE`]: the
    /// ones after it wait for it that long, so that the order holds when its first attempt
    /// follows at once, and no longer.
    fn held_back(&self, id: &str) -> bool {
        self.open
            .range::<str, _>((std::ops::Bound::Unbounded, std::ops::Bound::Excluded(id)))
            .any(|(_, o)| o.backoff.is_none() && o.since.elapsed() < PENDING_GRACE)
    }

    /// Reads from the anchor to the end, forwarding each notification not read before, in the
    /// order they come. `Ok(None)`: stopped. `Some(false)`: held back behind a pending one (read
    /// again at the next look), or more than [`OPEN_MAX`] open.
    async fn read_new(&mut self, mut catch_up: bool) -> Result<Option<bool>, ForwardError> {
        let mut after = self.anchor.clone();
        loop {
            if self.open.len() >= OPEN_MAX {
                // Back-pressure: the receiver is not taking them; read more once it does.
                return Ok(Some(false));
            }
            let Some(page) = self.list(PAGE, after.clone(), Order::Asc).await? else {
                return Ok(None);
            };
            catch_up |= std::mem::take(&mut self.reconnected);
            let more = page.pagination.has_more_after;
            let fresh: Vec<Notification> = page
                .items
                .into_iter()
                .filter(|n| {
                    after = Some(n.id.clone());
                    !self.known.contains(&n.id) && !self.open.contains_key(&n.id)
                })
                .collect();
            if (catch_up || more) && self.catching.is_none() {
                let left = if more {
                    match self.count_left(after.clone()).await? {
                        Some(n) => n + fresh.len(),
                        None => return Ok(None),
                    }
                } else {
                    fresh.len()
                };
                self.catching = Some(0);
                self.set(State::CatchingUp { left });
            }
            catch_up = false;
            for n in fresh {
                if self.stopped() {
                    return Ok(None);
                }
                if self.held_back(&n.id) {
                    // Not remembered: read again, and forwarded after the pending one.
                    self.save()?;
                    return Ok(Some(false));
                }
                self.remember(&n.id);
                let sent = match self.handle(n, None).await? {
                    Handled::Stopped => return Ok(None),
                    Handled::Sent => 1,
                    Handled::Passed => 0,
                };
                if let Some(done) = self.catching.as_mut() {
                    *done += sent;
                    if let Some(State::CatchingUp { left }) = &self.state {
                        let left = left.saturating_sub(1);
                        self.set(State::CatchingUp { left });
                    }
                }
            }
            self.forget_old();
            self.save()?;
            if !more {
                return Ok(Some(true));
            }
        }
    }

    /// Looks again at the open ones that are due, oldest first (at most a page of them):
    /// pending ones whose first attempt may now be recorded, sends to retry. `false`: stopped.
    async fn retry_open(&mut self) -> Result<bool, ForwardError> {
        let now = Instant::now();
        let due: Vec<(String, Open)> = self
            .open
            .iter()
            .filter(|(_, o)| o.due <= now)
            .take(PAGE as usize)
            .map(|(id, o)| (id.clone(), *o))
            .collect();
        for (id, o) in due {
            if self.stopped() {
                return Ok(false);
            }
            let client = self.client;
            let read = id.clone();
            let n = match self
                .retrying(move || {
                    let read = read.clone();
                    async move { client.get_notification(&read).await }
                })
                .await
            {
                Ok(Some(n)) => n,
                Ok(None) => return Ok(false),
                Err(ForwardError::Api(e)) if e.status() == Some(404) => {
                    self.open.remove(&id);
                    self.emit(Event::Skipped {
                        notification_id: id,
                        why: "it is gone from the server".into(),
                    });
                    continue;
                }
                Err(e) => return Err(e),
            };
            if pending(&n) {
                // Still no attempt: looked at again at the next look, its wait unchanged.
                if let Some(open) = self.open.get_mut(&id) {
                    open.due = Instant::now() + self.cfg.interval;
                }
                continue;
            }
            self.open.remove(&id);
            if let Handled::Stopped = self.handle(n, o.backoff).await? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Forwards `n`, or keeps it open: pending (looked at again at the next look) or sent and
    /// not delivered (sent again after a pause that doubles from [`FIRST_BACKOFF`] to
    /// [`MAX_BACKOFF`]; `backoff` is the last one).
    async fn handle(
        &mut self,
        n: Notification,
        backoff: Option<Duration>,
    ) -> Result<Handled, ForwardError> {
        if pending(&n) {
            // Not attempted yet: its request is not recorded. Later ones go on meanwhile; it is
            // looked at again at the next look.
            let now = Instant::now();
            let since = self.open.get(&n.id).map_or(now, |o| o.since);
            self.open.insert(
                n.id,
                Open {
                    due: now + self.cfg.interval,
                    backoff,
                    since,
                },
            );
            return Ok(Handled::Passed);
        }
        let retry_in = backoff.map_or(FIRST_BACKOFF, |b| (b * 2).min(MAX_BACKOFF));
        match self.forward_one(&n, retry_in).await? {
            None => Ok(Handled::Stopped),
            Some(None) => Ok(Handled::Passed),
            Some(Some(true)) => Ok(Handled::Sent),
            Some(Some(false)) => {
                let now = Instant::now();
                self.open.insert(
                    n.id,
                    Open {
                        due: now + retry_in,
                        backoff: Some(retry_in),
                        since: now,
                    },
                );
                Ok(Handled::Sent)
            }
        }
    }

    /// Where to start; `Ok(None)` when stopped first. Its cursor `None`: from the first
    /// notification.
    async fn start_cursor(&mut self, start: Start) -> Result<Option<Saved>, ForwardError> {
        match start {
            Start::Resume => {
                let saved = match &self.memory.cursor {
                    Some(c) => c.load_saved()?,
                    None => None,
                };
                let mut saved = saved
                    .ok_or_else(|| ForwardError::NothingToResume(self.cfg.target.to_string()))?;
                let Some(cursor) = saved.cursor.clone() else {
                    return Ok(Some(saved));
                };
                // A cursor past every id would wait for ids the server may never make: say so,
                // and go on from the newest it has.
                let Some(page) = self.list(1, None, Order::Desc).await? else {
                    return Ok(None);
                };
                let newest = page.items.into_iter().next().map(|n| n.id);
                if newest.as_deref().is_none_or(|n| n < cursor.as_str()) {
                    self.emit(Event::CursorAhead {
                        cursor,
                        newest: newest.clone(),
                    });
                    saved.cursor = newest;
                }
                Ok(Some(saved))
            }
            Start::Now => {
                let page = self.list(1, None, Order::Desc).await?;
                Ok(page.map(|p| Saved {
                    cursor: p.items.into_iter().next().map(|n| n.id),
                    open: Vec::new(),
                }))
            }
            Start::Since(t) => {
                // `t` was read on this machine's clock; `created_at` is the server's.
                let t = t + self.client.clock_offset().await;
                // Newest first until one older than `t`: it is the cursor.
                let mut after: Option<String> = None;
                let mut meter = self.client.budget().meter();
                loop {
                    let Some(page) = self.list(PAGE, after.clone(), Order::Desc).await? else {
                        return Ok(None);
                    };
                    meter.count(page.items.len(), 0);
                    if let Some(older) = page.items.iter().find(|n| n.created_at < t) {
                        return Ok(Some(Saved {
                            cursor: Some(older.id.clone()),
                            open: Vec::new(),
                        }));
                    }
                    match page.items.last() {
                        Some(last)
                            if page.pagination.has_more_after
                                && after.as_deref() != Some(last.id.as_str()) =>
                        {
                            // No `--after` to continue from: a start is found whole or not at all.
                            meter.next(None)?;
                            after = Some(last.id.clone());
                        }
                        _ => {
                            return Ok(Some(Saved::default()));
                        }
                    }
                }
            }
        }
    }

    /// How many notifications come after `after` (for "catching up, N left"), counted within
    /// the walk budget (a lower bound past it); `None` when stopped first.
    async fn count_left(
        &mut self,
        mut after: Option<String>,
    ) -> Result<Option<usize>, ForwardError> {
        let mut n = 0usize;
        let mut meter = self.client.budget().meter();
        loop {
            let Some(page) = self.list(PAGE, after.clone(), Order::Asc).await? else {
                return Ok(None);
            };
            meter.count(page.items.len(), 0);
            n += page.items.len();
            match page.items.last() {
                Some(last)
                    if page.pagination.has_more_after
                        && meter.has_room()
                        && after.as_deref() != Some(last.id.as_str()) =>
                {
                    after = Some(last.id.clone());
                }
                _ => return Ok(Some(n)),
            }
        }
    }

    /// Forwards `n` unless the filter or the journal says no. `Ok(None)`: stopped mid-send (the
    /// journal keeps it in doubt, so it is not sent twice). `Some(None)`: not sent.
    /// `Some(Some(delivered))`: sent; `retry_in` is told with a send not delivered.
    async fn forward_one(
        &mut self,
        n: &Notification,
        retry_in: Duration,
    ) -> Result<Option<Option<bool>>, ForwardError> {
        let event_type = n.event_type();
        if !self.cfg.event_types.is_empty()
            && !event_type
                .as_ref()
                .is_some_and(|t| self.cfg.event_types.contains(t))
        {
            return Ok(Some(None));
        }
        let plan = match self.plan(n).await? {
            Ok(p) => p,
            Err(why) => {
                self.emit(Event::Skipped {
                    notification_id: n.id.clone(),
                    why,
                });
                return Ok(Some(None));
            }
        };
        let target = self.cfg.target.as_str().to_string();
        if let Some(j) = self.memory.journal.as_mut() {
            match j.claim(&n.id, &target).map_err(ForwardError::Journal)? {
                Claim::Free => {}
                // Sent already (by an earlier run, or read again by a look back): once is
                // enough, and nothing to report.
                Claim::Done => return Ok(Some(None)),
                Claim::InDoubt if !self.said_in_doubt.insert(n.id.clone()) => {
                    return Ok(Some(None));
                }
                Claim::InDoubt => {
                    self.emit(Event::Skipped {
                        notification_id: n.id.clone(),
                        why: "in doubt: a run was stopped while sending it (or another process is sending it); not sent again".into(),
                    });
                    return Ok(Some(None));
                }
            }
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
        let delivered = result.is_success();
        let f = Forwarded {
            notification_id: n.id.clone(),
            event_type,
            attempt_index: plan.attempt_index,
            signed: plan.signing.is_some(),
            result,
            retry_in: (!delivered).then_some(retry_in),
        };
        if let Some(a) = &self.memory.answers {
            a.append(&f, &self.cfg.target)?;
        }
        self.emit(Event::Forwarded(f));
        Ok(Some(Some(delivered)))
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

/// Whether `n` has no attempt yet, so no request recorded to forward.
fn pending(n: &Notification) -> bool {
    n.attempts.is_empty() && n.status == NotificationStatus::Pending
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
            retry_in: None,
        }
    }

    #[test]
    fn the_cursor_and_the_answers_are_owner_only_and_hold_no_secret() {
        let dir = tempfile::tempdir().expect("dir");
        let target = url::Url::parse("http://localhost:3000/in").expect("url");
        let c = CursorFile::new(dir.path(), "work", &target);
        assert_eq!(c.load().expect("load"), None);
        c.save(None, &[], &target).expect("save");
        assert_eq!(c.load().expect("load"), Some(None));
        c.save(Some("cbn_1"), &["cbn_2".into()], &target)
            .expect("save");
        assert_eq!(c.load().expect("load"), Some(Some("cbn_1".into())));
        assert_eq!(
            c.load_saved().expect("load").map(|s| s.open),
            Some(vec!["cbn_2".to_string()])
        );
        let held = c.lock().expect("the first forwarder takes the cursor");
        assert!(
            matches!(c.lock(), Err(ForwardError::Busy(_))),
            "a second is refused"
        );
        drop(held);
        c.lock().expect("free again once the first ends");
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

    #[test]
    fn the_answer_log_keeps_each_answers_masking_verdict_for_diff() {
        let dir = tempfile::tempdir().expect("dir");
        let target = url::Url::parse("http://127.0.0.1:9/in").expect("url");
        let log = AnswerLog::new(dir.path(), "work");
        let mut own = forwarded("cbn_1", 500);
        own.result.headers.origin = HeaderOrigin::OwnReceiver;
        own.result
            .headers
            .list
            .push(("x-receiver".into(), "rx-own-1".into()));
        log.append(&own, &target).expect("append");
        let mut far = forwarded("cbn_1", 200);
        far.result
            .headers
            .list
            .push(("x-receiver".into(), "rx-far".into()));
        log.append(&far, &target).expect("append");
        let answers = log.answers_of("cbn_1").expect("answers");
        let origins: Vec<_> = answers.iter().map(|a| a.origin).collect();
        assert_eq!(
            origins,
            [HeaderOrigin::Elsewhere, HeaderOrigin::OwnReceiver]
        );
        // diff compares the two as they were shown when they came.
        let c = crate::api::compare::compare(&answers[0], &answers[1]);
        let row = c
            .headers
            .iter()
            .find(|h| h.name == "x-receiver")
            .expect("row");
        assert_eq!(row.left.as_deref(), Some(crate::text::redact::MASKED));
        assert_eq!(row.right.as_deref(), Some("rx-own-1"));
        let cookie = c
            .headers
            .iter()
            .find(|h| h.name == "set-cookie")
            .expect("row");
        assert_eq!(cookie.right.as_deref(), Some(crate::text::redact::MASKED));
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
        assert!(c.save(Some("cbn_1"), &[], &target).is_err());
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
        c.save(Some("cbn_2"), &[], &target).expect("saved");
        assert_eq!(c.load().expect("load"), Some(Some("cbn_2".into())));
        assert_eq!(std::fs::read(&victim).expect("read"), b"keep\n");
    }
}
