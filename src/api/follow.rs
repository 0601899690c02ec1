//! The follow loop `notifications forward` runs on the generations that list with the platform's
//! `after` cursor (event-destinations' deliveries, callback-destinations' notifications per
//! callback), written once; what differs per generation is a [`Source`] (how a page is listed,
//! what an item's type and attempt state are, how its request is built and signed) and what is
//! done with the reports is a [`Sink`].
//!
//! Exactly once: each item is claimed in the service's journal before it is sent and its outcome
//! written after, and each stream's cursor file ([`CursorFile`], 0600, atomic, locked) is saved
//! after each one, so neither a resume nor a kill between sending and saving sends anything
//! twice; one killed while sending is in doubt and said so, not sent again. A send the receiver
//! did not take is sent again while the run lives ([`FIRST_BACKOFF`] doubling to
//! [`MAX_BACKOFF`]) and kept open in the cursor file for a resume. An item not attempted yet
//! holds the ones after it (order) for the source's [`Source::PENDING_GRACE`].
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::forward::{CursorFile, CursorLock, Ledger};
use super::identity::ServiceIdentity;
use super::journal::{Journal, Outcome, State};
use super::replay::{self, ReplayPlan, ReplayResult, SendOptions};
use super::{ApiRequest, Client, ListQuery, Order, Page};
use crate::text::sanitize::line;

/// The first pause before a send not delivered is sent again, doubled up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest pause between two sends of one item.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// What the follower reports.
#[derive(Debug, Clone, PartialEq)]
pub enum Said {
    /// Started, following this many streams (callbacks); `after` is the first one's cursor.
    Ready {
        /// Streams followed.
        callbacks: usize,
        /// Where the first stream's reading goes on.
        after: Option<String>,
    },
    /// The API could not be read; tried again after the pause.
    Reconnecting(String),
    /// A forward was stopped while sending it: not sent again.
    InDoubt(String),
    /// Nothing to send for it.
    Skipped {
        /// The item's id.
        id: String,
        /// Why.
        why: String,
    },
    /// Not attempted yet, past its hold: nothing recorded to forward.
    NotAttempted {
        /// The item's id.
        id: String,
        /// Its status.
        status: String,
    },
    /// Sent; the receiver's answer (or none) and how the journal counts it.
    Sent {
        /// The item's id.
        id: String,
        /// The event's type, as the generation gives it.
        event_type: Option<Value>,
        /// The attempt whose request was sent (from 0).
        attempt_index: i64,
        /// Whether it carried a signature.
        signed: bool,
        /// The answer (boxed: it is most of the report's size).
        result: Box<ReplayResult>,
        /// As the journal counts it.
        outcome: Outcome,
        /// Not delivered: sent again after this pause.
        retry_in: Duration,
    },
    /// Everything known was sent: this many delivered in the run.
    CaughtUp(usize),
    /// A destination whose secret the platform does not give: its items go unsigned.
    Unsigned(String),
}

/// Where the follower reports, and how its failures are typed by the caller.
pub trait Sink {
    /// The caller's error.
    type Error: From<super::Error>;
    /// Reports one thing.
    ///
    /// # Errors
    /// The caller's (an output that cannot be written).
    fn say(&mut self, s: Said) -> Result<(), Self::Error>;
    /// A refusal of how it was asked (a busy cursor, nothing to resume).
    fn usage(msg: String) -> Self::Error;
    /// A file (cursor, journal) that cannot be read or written.
    fn io(msg: String) -> Self::Error;
}

/// How a run starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// After each stream's newest item.
    Now,
    /// With those created at or after this time.
    Since(DateTime<Utc>),
    /// From each stream's saved cursor (refused when none is saved).
    Resume,
    /// From a stream's saved cursor where one is, else after its newest (the console's).
    ResumeElseNow,
}

/// A request ready to send, and how it is reported.
pub(crate) struct Planned {
    /// The request.
    pub plan: ReplayPlan,
    /// The event's type as reported.
    pub event_type: Option<Value>,
    /// Whether it is signed.
    pub signed: bool,
}

/// What one generation's forward lists and sends.
pub(crate) trait Source<S: Sink> {
    /// How long an item not attempted yet holds the ones after it.
    const PENDING_GRACE: Duration = Duration::ZERO;
    /// The name its cursor files are kept under, for `stream` of `profile`.
    fn cursor_name(&self, profile: &str, stream: &str) -> String;
    /// The streams followed, each with a cursor of its own (asked again each round).
    async fn streams(&mut self) -> Result<Vec<String>, S::Error>;
    /// The request listing `stream` with `q`.
    fn list(&self, stream: &str, q: &ListQuery) -> ApiRequest;
    /// The item's event type, for `--event-type`.
    fn event_type<'v>(&self, item: &'v Value) -> &'v str;
    /// `Some((unfinished, status))` when the item has no attempt yet: nothing recorded to send.
    fn unattempted(&self, _item: &Value) -> Option<(bool, String)> {
        None
    }
    /// The request to send for `id` of `stream` (`listed`: as the page had it, when read from
    /// one). `None`: nothing to send, nothing to say; `Some(Err)`: why there is nothing to send.
    async fn plan(
        &mut self,
        stream: &str,
        id: &str,
        listed: Option<&Value>,
        sink: &mut S,
    ) -> Result<Option<Result<Planned, String>>, S::Error>;
}

/// What to follow, where to, and where the cursors and journal are kept.
pub(crate) struct Config<'a> {
    /// The receiver.
    pub target: &'a url::Url,
    /// Only these event types (`prefix*` allowed); empty: all.
    pub event_types: &'a [String],
    /// The pause between polls when there is nothing new.
    pub interval: Duration,
    /// The send's timeout.
    pub send: SendOptions,
    /// Where the run starts (a `Since` on the server's clock).
    pub start: Start,
    /// The profile (its cursors and journal).
    pub profile: &'a str,
    /// The data directory.
    pub data_dir: &'a Path,
}

/// A send not delivered yet: due again at `due`, after `backoff`.
struct Open {
    due: tokio::time::Instant,
    backoff: Duration,
}

/// One followed stream: its cursor file (locked), where reading goes on, its open sends, and
/// the unattempted item holding it since when.
struct Followed {
    file: CursorFile,
    _lock: CursorLock,
    cursor: Option<String>,
    open: BTreeMap<String, Open>,
    held: Option<(String, tokio::time::Instant)>,
}

impl Followed {
    fn new(file: CursorFile, lock: CursorLock, cursor: Option<String>, open: Vec<String>) -> Self {
        let now = tokio::time::Instant::now();
        let open = open
            .into_iter()
            .map(|id| {
                // The sends a stopped run left open are due at once.
                let o = Open {
                    due: now,
                    backoff: FIRST_BACKOFF / 2,
                };
                (id, o)
            })
            .collect();
        Self {
            file,
            _lock: lock,
            cursor,
            open,
            held: None,
        }
    }

    fn save<S: Sink>(&self, target: &url::Url) -> Result<(), S::Error> {
        let open: Vec<String> = self.open.keys().cloned().collect();
        self.file
            .save(self.cursor.as_deref(), &open, target)
            .map_err(io::<S>)
    }

    fn keep_open(&mut self, id: &str, backoff: Duration) {
        let due = tokio::time::Instant::now() + backoff;
        self.open.insert(id.to_string(), Open { due, backoff });
    }
}

fn io<S: Sink>(e: impl std::fmt::Display) -> S::Error {
    S::io(line(&e.to_string()).into_owned())
}

/// Whether `t` is one of `types` (`prefix*` allowed; none: all).
fn wanted(types: &[String], t: &str) -> bool {
    types.is_empty()
        || types.iter().any(|w| match w.strip_suffix('*') {
            Some(p) => t.starts_with(p),
            None => t == w,
        })
}

/// What the loop holds while it runs.
struct Run<'a, S: Sink> {
    cfg: &'a Config<'a>,
    key: String,
    journal: Journal,
    sink: &'a mut S,
    forwarded: usize,
}

/// Follows until `stop` resolves.
///
/// # Errors
/// A busy cursor, nothing to resume, a cursor or journal that cannot be written, an API error
/// that waiting does not fix, or the sink's.
pub(crate) async fn run<G: Source<S>, S: Sink>(
    client: &Client,
    src: &mut G,
    cfg: &Config<'_>,
    sink: &mut S,
    stop: impl std::future::Future<Output = ()>,
) -> Result<(), S::Error> {
    let journal = Journal::open_for(cfg.data_dir, &ServiceIdentity::of(client), cfg.profile)
        .map_err(io::<S>)?;
    let mut run = Run {
        cfg,
        key: cfg.target.as_str().to_string(),
        journal,
        sink,
        forwarded: 0,
    };
    let file_of = |src: &G, stream: &str| {
        CursorFile::new(
            cfg.data_dir,
            &src.cursor_name(cfg.profile, stream),
            cfg.target,
        )
    };
    let mut followed: BTreeMap<String, Followed> = BTreeMap::new();
    let mut resumed = 0usize;
    let mut after = None;
    for stream in src.streams().await? {
        let file = file_of(src, &stream);
        let lock = take_lock::<S>(&file).await?;
        let (cursor, open) = match cfg.start {
            Start::Resume | Start::ResumeElseNow => match file.load_saved().map_err(io::<S>)? {
                Some(saved) => {
                    resumed += 1;
                    (saved.cursor, saved.open)
                }
                None if cfg.start == Start::ResumeElseNow => {
                    (newest(client, src, &stream).await?, Vec::new())
                }
                None => (None, Vec::new()),
            },
            Start::Since(_) => (None, Vec::new()),
            Start::Now => (newest(client, src, &stream).await?, Vec::new()),
        };
        let fo = Followed::new(file, lock, cursor, open);
        fo.save::<S>(cfg.target)?;
        if followed.is_empty() {
            after = fo.cursor.as_deref().map(|c| line(c).into_owned());
        }
        followed.insert(stream, fo);
    }
    if matches!(cfg.start, Start::Resume) && resumed == 0 {
        return Err(S::usage(format!(
            "nothing to resume: no cursor is saved for {} with this profile (start with --from now or --since)",
            cfg.target
        )));
    }
    let since = match cfg.start {
        Start::Since(t) => Some(t),
        _ => None,
    };
    run.sink.say(Said::Ready {
        callbacks: followed.len(),
        after,
    })?;
    let mut stop = std::pin::pin!(stop);
    let mut caught_up_said = false;
    let mut fresh = true;
    loop {
        if !fresh {
            // A stream made since is followed from its first item: all of it is new.
            for stream in src.streams().await? {
                if let std::collections::btree_map::Entry::Vacant(e) = followed.entry(stream) {
                    let file = file_of(src, e.key());
                    let lock = take_lock::<S>(&file).await?;
                    let saved = file.load_saved().map_err(io::<S>)?.unwrap_or_default();
                    e.insert(Followed::new(file, lock, saved.cursor, Vec::new()));
                }
            }
        }
        fresh = false;
        let mut more = false;
        let mut sent_any = false;
        let mut waiting = false;
        for (stream, fo) in &mut followed {
            // The open sends that are due, before anything new.
            let due: Vec<String> = fo
                .open
                .iter()
                .filter(|(_, o)| o.due <= tokio::time::Instant::now())
                .map(|(id, _)| id.clone())
                .collect();
            for id in due {
                let backoff = fo.open.get(&id).map_or(FIRST_BACKOFF, |o| o.backoff);
                let retry_in = (backoff * 2).min(MAX_BACKOFF);
                let sent = run.send_once(src, stream, &id, None).await?;
                match &sent {
                    Some((Outcome::Succeeded, _)) | None => {
                        fo.open.remove(&id);
                    }
                    Some(_) => fo.keep_open(&id, retry_in),
                }
                fo.save::<S>(cfg.target)?;
                if let Some((outcome, said)) = sent {
                    run.say_sent(&id, outcome, said, retry_in)?;
                }
            }
            let q = ListQuery {
                limit: Some(100),
                order: Some(Order::Asc),
                after: fo.cursor.clone(),
                ..ListQuery::default()
            };
            let page: Page<Value> = match client.send(&src.list(stream, &q)).await {
                Ok(raw) => super::client::decode(raw.status, &raw.body)?,
                Err(super::Error::Api(a)) if a.status < 500 && a.status != 429 => {
                    return Err(super::Error::Api(a).into());
                }
                // The API away: said, then tried again after the pause.
                Err(e) => {
                    run.sink
                        .say(Said::Reconnecting(line(&e.to_string()).into_owned()))?;
                    break;
                }
            };
            more |= page.pagination.has_more_after;
            for n in page.items {
                let Some(id) = n.get("id").and_then(Value::as_str).map(str::to_string) else {
                    continue;
                };
                let created = n
                    .get("created_at")
                    .and_then(Value::as_str)
                    .and_then(super::model::time::parse);
                let early = matches!((since, created), (Some(s), Some(c)) if c < s);
                if early || !wanted(cfg.event_types, src.event_type(&n)) {
                    fo.cursor = Some(id);
                    continue;
                }
                if let Some((unfinished, status)) = src.unattempted(&n) {
                    let since_held = match &fo.held {
                        Some((h, at)) if *h == id => *at,
                        _ => {
                            let at = tokio::time::Instant::now();
                            fo.held = Some((id.clone(), at));
                            at
                        }
                    };
                    if unfinished && since_held.elapsed() < G::PENDING_GRACE {
                        // Its request is not recorded yet: the ones after it wait (order).
                        waiting = true;
                        break;
                    }
                    run.sink.say(Said::NotAttempted {
                        id: line(&id).into_owned(),
                        status,
                    })?;
                    fo.cursor = Some(id);
                    fo.save::<S>(cfg.target)?;
                    continue;
                }
                fo.held = None;
                match run.journal.state(&id, &run.key) {
                    Some(State::Succeeded | State::NotDelivered) => {
                        // Forwarded once already (a look read it again): never twice.
                        fo.cursor = Some(id);
                        fo.save::<S>(cfg.target)?;
                        continue;
                    }
                    Some(State::InDoubt) => {
                        run.sink.say(Said::InDoubt(line(&id).into_owned()))?;
                        fo.cursor = Some(id);
                        fo.save::<S>(cfg.target)?;
                        continue;
                    }
                    None => {}
                }
                let sent = run.send_once(src, stream, &id, Some(&n)).await?;
                if let Some((o, _)) = &sent
                    && *o != Outcome::Succeeded
                {
                    // Not lost: sent again while the run lives, and kept open for a resume.
                    fo.keep_open(&id, FIRST_BACKOFF);
                }
                fo.cursor = Some(id.clone());
                fo.save::<S>(cfg.target)?;
                if let Some((outcome, said)) = sent {
                    sent_any = true;
                    run.say_sent(&id, outcome, said, FIRST_BACKOFF)?;
                }
            }
            fo.save::<S>(cfg.target)?;
        }
        if sent_any {
            caught_up_said = false;
        }
        if !waiting && !caught_up_said {
            run.sink.say(Said::CaughtUp(run.forwarded))?;
            caught_up_said = true;
        }
        if more && !waiting {
            continue;
        }
        let mut pause = if waiting {
            cfg.interval.min(Duration::from_millis(250))
        } else {
            cfg.interval
        };
        if let Some(next) = followed
            .values()
            .flat_map(|fo| fo.open.values().map(|o| o.due))
            .min()
        {
            pause = pause.min(next.saturating_duration_since(tokio::time::Instant::now()));
        }
        tokio::select! {
            () = &mut stop => return Ok(()),
            () = tokio::time::sleep(pause) => {}
        }
    }
}

/// Takes a stream's cursor lock (a follower just stopped may take a moment to let go), a busy
/// one refused as usage.
async fn take_lock<S: Sink>(file: &CursorFile) -> Result<CursorLock, S::Error> {
    super::forward::take_lock(file)
        .await
        .map_err(|e| S::usage(e.to_string()))
}

/// The newest item of `stream` (as filtered): following from now starts after it.
async fn newest<G: Source<S>, S: Sink>(
    client: &Client,
    src: &G,
    stream: &str,
) -> Result<Option<String>, super::Error> {
    let q = ListQuery {
        limit: Some(1),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let raw = client.send(&src.list(stream, &q)).await?;
    let page: Page<Value> = super::client::decode(raw.status, &raw.body)?;
    Ok(page
        .items
        .first()
        .and_then(|n| n.get("id").and_then(Value::as_str))
        .map(str::to_string))
}

/// A send's report, said once its cursor is saved.
struct SentSaid {
    event_type: Option<Value>,
    attempt_index: i64,
    signed: bool,
    result: ReplayResult,
}

impl<S: Sink> Run<'_, S> {
    /// One send of `id` of `stream`: claimed in the journal before, its outcome written after.
    /// `None` when nothing was sent (nothing to send, said as skipped; or the journal holds it
    /// as sent or in flight elsewhere).
    async fn send_once<G: Source<S>>(
        &mut self,
        src: &mut G,
        stream: &str,
        id: &str,
        listed: Option<&Value>,
    ) -> Result<Option<(Outcome, SentSaid)>, S::Error> {
        let planned = match src.plan(stream, id, listed, self.sink).await? {
            None => return Ok(None),
            Some(Ok(p)) => p,
            Some(Err(why)) => {
                self.sink.say(Said::Skipped {
                    id: line(id).into_owned(),
                    why: line(&why).into_owned(),
                })?;
                return Ok(None);
            }
        };
        // An open one is this run's own (or a stopped run's) to send again.
        if !self.journal.claim(id, &self.key, false).map_err(io::<S>)? {
            return Ok(None);
        }
        let r = replay::send(&planned.plan, &self.cfg.send).await;
        <Journal as Ledger>::record(&mut self.journal, id, &self.key, &r).map_err(io::<S>)?;
        let outcome = super::recover::outcome_of(&r);
        self.forwarded += usize::from(outcome == Outcome::Succeeded);
        Ok(Some((
            outcome,
            SentSaid {
                event_type: planned.event_type,
                attempt_index: planned.plan.attempt_index,
                signed: planned.signed,
                result: r,
            },
        )))
    }

    fn say_sent(
        &mut self,
        id: &str,
        outcome: Outcome,
        s: SentSaid,
        retry_in: Duration,
    ) -> Result<(), S::Error> {
        self.sink.say(Said::Sent {
            id: line(id).into_owned(),
            event_type: s.event_type,
            attempt_index: s.attempt_index,
            signed: s.signed,
            result: Box::new(s.result),
            outcome,
            retry_in,
        })
    }
}
