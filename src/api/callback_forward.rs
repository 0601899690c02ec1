//! Following `callback-destinations`' notifications to a receiver on this machine
//! (`generations.md` §6), shared by `notifications forward` and the console's forward room:
//! there is no global notification list, so each callback's notifications are followed with a
//! cursor of its own (the platform's `after`, oldest first; the named callbacks, else every
//! callback, read again each round so a new one is followed too), and each new notification's
//! embedded request is sent, signed `t=…,v1=…` with its destination's secret (unsigned, and
//! said so once, where the platform omits it).
//!
//! Exactly once: each notification is claimed in the service's journal before it is sent and its
//! outcome written after, and the callback's cursor file ([`CursorFile`], 0600, atomic, locked)
//! is saved after each one, so neither a resume nor a kill between sending and saving sends
//! anything twice; one killed while sending is in doubt and said so, not sent again. A send the
//! receiver did not take is sent again while the run lives (0.5 s doubling to 30 s) and kept
//! open in the cursor file for a resume. What it does is reported to a [`Sink`].
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::callback_gen as cg;
use super::forward::{CursorFile, CursorLock};
use super::identity::ServiceIdentity;
use super::journal::{Entry, Journal, Outcome, State};
use super::model::CallbackNotification;
use super::newer_requests::CallbackNotificationFilter;
use super::replay::{self, DestinationRef, ReplayPlan, ReplayResult, SendOptions};
use super::{ApiRequest, Client, ListQuery, Order, Page, Secret};
use crate::text::sanitize::line;

/// The first pause before a send not delivered is sent again, doubled up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest pause between two sends of one notification.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// What the follower reports.
#[derive(Debug, Clone, PartialEq)]
pub enum Said {
    /// Started, following this many callbacks.
    Ready {
        /// Callbacks followed.
        callbacks: usize,
    },
    /// The API could not be read; tried again after the pause.
    Reconnecting(String),
    /// A forward was stopped while sending it: not sent again.
    InDoubt(String),
    /// Nothing to send for it.
    Skipped {
        /// `cbn_…`.
        id: String,
        /// Why.
        why: String,
    },
    /// Sent; the receiver's answer (or none) and how the journal counts it.
    Sent {
        /// `cbn_…`.
        id: String,
        /// The event's type.
        event_type: Option<String>,
        /// The attempt whose request was sent (from 0).
        attempt_index: i64,
        /// Whether it carried `Metorial-Signature`.
        signed: bool,
        /// The answer.
        result: ReplayResult,
        /// As the journal counts it.
        outcome: Outcome,
    },
    /// Everything known was sent: this many delivered in the run.
    CaughtUp(usize),
    /// A destination whose secret the platform does not give: its notifications go unsigned.
    Unsigned(String),
}

/// The one sentence said when destination `name`'s notifications go unsigned (the platform gave
/// no secret), by headless forward and the console's forward room alike.
#[must_use]
pub fn unsigned_sentence(name: &str) -> String {
    format!(
        "The platform gave no signing secret for destination {name}, so its notifications are forwarded unsigned."
    )
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
    /// After each callback's newest notification.
    Now,
    /// With those created at or after this time.
    Since(DateTime<Utc>),
    /// From each callback's saved cursor (refused when none is saved).
    Resume,
    /// From a callback's saved cursor where one is, else after its newest (the console's).
    ResumeElseNow,
}

/// What to follow, where to, and where the cursors and journal are kept.
#[derive(Debug, Clone)]
pub struct Follow {
    /// The receiver.
    pub target: url::Url,
    /// These callbacks; empty: every callback.
    pub callbacks: Vec<String>,
    /// Only notifications to these destinations; empty: all.
    pub destinations: Vec<String>,
    /// Only these event types (`prefix*` allowed); empty: all.
    pub event_types: Vec<String>,
    /// Send without a signature.
    pub unsigned: bool,
    /// The pause between polls when there is nothing new.
    pub interval: Duration,
    /// The send's timeout.
    pub send: SendOptions,
    /// Where the run starts.
    pub start: Start,
    /// The profile (its cursors and journal).
    pub profile: String,
    /// The data directory.
    pub data_dir: PathBuf,
}

/// A send not delivered yet: due again at `due`, after `backoff`.
struct Open {
    due: tokio::time::Instant,
    backoff: Duration,
}

/// One followed callback: its cursor file (locked), where reading goes on, its open sends.
struct Followed {
    file: CursorFile,
    _lock: CursorLock,
    cursor: Option<String>,
    open: BTreeMap<String, Open>,
}

impl Followed {
    fn save<S: Sink>(&self, target: &url::Url) -> Result<(), S::Error> {
        let open: Vec<String> = self.open.keys().cloned().collect();
        self.file
            .save(self.cursor.as_deref(), &open, target)
            .map_err(|e| S::io(line(&e.to_string()).into_owned()))
    }
}

/// What the forwarder knows while it runs.
struct Run<'a, S: Sink> {
    client: &'a Client,
    target: url::Url,
    key: String,
    journal: Journal,
    opts: SendOptions,
    unsigned: bool,
    sink: &'a mut S,
    /// Destination preview id → its secret (`None`: the platform gave none, or none matched).
    secrets: HashMap<String, Option<Secret>>,
    /// The destinations already said to be sent unsigned.
    said_unsigned: Vec<String>,
    forwarded: usize,
}

fn io<S: Sink>(e: impl std::fmt::Display) -> S::Error {
    S::io(line(&e.to_string()).into_owned())
}

/// Follows until `stop` resolves.
///
/// # Errors
/// A busy cursor, nothing to resume, a cursor or journal that cannot be written, an API error
/// that waiting does not fix, or the sink's.
pub async fn run<S: Sink>(
    client: &Client,
    f: &Follow,
    sink: &mut S,
    stop: impl std::future::Future<Output = ()>,
) -> Result<(), S::Error> {
    let journal = Journal::open_for(&f.data_dir, &ServiceIdentity::of(client), &f.profile)
        .map_err(io::<S>)?;
    let filter = CallbackNotificationFilter {
        destination_ids: f.destinations.clone(),
        statuses: Vec::new(),
    };
    let types = f.event_types.clone();
    let wanted = |n: &Value| {
        let t = n
            .pointer("/event/type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        types.is_empty()
            || types.iter().any(|w| match w.strip_suffix('*') {
                Some(p) => t.starts_with(p),
                None => t == w,
            })
    };
    let mut run = Run {
        client,
        key: f.target.as_str().to_string(),
        target: f.target.clone(),
        journal,
        opts: f.send,
        unsigned: f.unsigned,
        sink,
        secrets: HashMap::new(),
        said_unsigned: Vec::new(),
        forwarded: 0,
    };
    let start = f.start;
    // Each callback's cursor is its own file: a pulsar or event-destinations forward of the
    // same profile and target keeps another.
    let target = run.target.clone();
    let file_of = |cb: &str| {
        CursorFile::new(
            &f.data_dir,
            &format!("{}@callback-destinations@{cb}", f.profile),
            &target,
        )
    };
    let mut followed: BTreeMap<String, Followed> = BTreeMap::new();
    let first = callbacks_of(client, &f.callbacks).await?;
    let mut resumed = 0usize;
    for cb in &first {
        let file = file_of(cb);
        let lock = take_lock(&file)
            .await
            .map_err(|e| S::usage(e.to_string()))?;
        let (cursor, open) = match start {
            Start::Resume | Start::ResumeElseNow => match file.load_saved().map_err(io::<S>)? {
                Some(saved) => {
                    resumed += 1;
                    (saved.cursor, saved.open)
                }
                None if start == Start::ResumeElseNow => {
                    (newest(client, cb, &filter).await?, Vec::new())
                }
                None => (None, Vec::new()),
            },
            Start::Since(_) => (None, Vec::new()),
            Start::Now => (newest(client, cb, &filter).await?, Vec::new()),
        };
        let now = tokio::time::Instant::now();
        let fo = Followed {
            file,
            _lock: lock,
            cursor,
            open: open
                .into_iter()
                .map(|id| {
                    (
                        id,
                        Open {
                            due: now,
                            backoff: FIRST_BACKOFF / 2,
                        },
                    )
                })
                .collect(),
        };
        fo.save::<S>(&run.target)?;
        followed.insert(cb.clone(), fo);
    }
    if matches!(start, Start::Resume) && resumed == 0 {
        return Err(S::usage(format!(
            "nothing to resume: no cursor is saved for {} with this profile (start with --from now or --since)",
            run.target
        )));
    }
    let since = match start {
        Start::Since(t) => Some(t + client.clock_offset().await),
        _ => None,
    };
    run.sink.say(Said::Ready {
        callbacks: followed.len(),
    })?;
    let mut stop = std::pin::pin!(stop);
    let mut caught_up_said = false;
    let mut fresh = true;
    loop {
        if !fresh {
            // A callback made since is followed from its first notification: all of it is new.
            for cb in callbacks_of(client, &f.callbacks).await? {
                if let std::collections::btree_map::Entry::Vacant(e) = followed.entry(cb) {
                    let file = file_of(e.key());
                    let lock = take_lock(&file)
                        .await
                        .map_err(|e| S::usage(e.to_string()))?;
                    let saved = file.load_saved().map_err(io::<S>)?.unwrap_or_default();
                    e.insert(Followed {
                        file,
                        _lock: lock,
                        cursor: saved.cursor,
                        open: BTreeMap::new(),
                    });
                }
            }
        }
        fresh = false;
        let mut more = false;
        let mut sent_any = false;
        for (cb, fo) in &mut followed {
            // The open sends that are due, before anything new.
            let due: Vec<String> = fo
                .open
                .iter()
                .filter(|(_, o)| o.due <= tokio::time::Instant::now())
                .map(|(id, _)| id.clone())
                .collect();
            for id in due {
                let backoff = fo.open.get(&id).map_or(FIRST_BACKOFF, |o| o.backoff);
                let outcome = run.send_once(cb, &id).await?;
                let retry_in = (backoff * 2).min(MAX_BACKOFF);
                match outcome {
                    Some(Outcome::Succeeded) | None => {
                        fo.open.remove(&id);
                    }
                    Some(_) => {
                        fo.open.insert(
                            id.clone(),
                            Open {
                                due: tokio::time::Instant::now() + retry_in,
                                backoff: retry_in,
                            },
                        );
                    }
                }
                fo.save::<S>(&run.target)?;
            }
            let q = ListQuery {
                limit: Some(100),
                order: Some(Order::Asc),
                after: fo.cursor.clone(),
                ..ListQuery::default()
            };
            let page: Page<Value> = match client
                .send(&ApiRequest::list_callback_notifications(&q, cb, &filter))
                .await
            {
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
                if early || !wanted(&n) {
                    fo.cursor = Some(id);
                    continue;
                }
                match run.journal.state(&id, &run.key) {
                    Some(State::Succeeded | State::NotDelivered) => {
                        // Forwarded once already: never twice.
                        fo.cursor = Some(id);
                        fo.save::<S>(&run.target)?;
                        continue;
                    }
                    Some(State::InDoubt) => {
                        run.sink.say(Said::InDoubt(line(&id).into_owned()))?;
                        fo.cursor = Some(id);
                        fo.save::<S>(&run.target)?;
                        continue;
                    }
                    None => {}
                }
                let outcome = run.send_once(cb, &id).await?;
                if let Some(o) = outcome
                    && o != Outcome::Succeeded
                {
                    // Not lost: sent again while the run lives, and kept open for a resume.
                    fo.open.insert(
                        id.clone(),
                        Open {
                            due: tokio::time::Instant::now() + FIRST_BACKOFF,
                            backoff: FIRST_BACKOFF,
                        },
                    );
                }
                fo.cursor = Some(id);
                fo.save::<S>(&run.target)?;
                sent_any = true;
            }
            fo.save::<S>(&run.target)?;
        }
        if sent_any {
            caught_up_said = false;
        }
        if !caught_up_said {
            run.sink.say(Said::CaughtUp(run.forwarded))?;
            caught_up_said = true;
        }
        if more {
            continue;
        }
        let mut pause = f.interval;
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

/// Takes a callback's cursor lock, allowing a follower that was just stopped (the console's,
/// whose task ends a moment after the stop) a second to let go.
async fn take_lock(c: &CursorFile) -> Result<CursorLock, super::forward::ForwardError> {
    let until = tokio::time::Instant::now() + Duration::from_secs(1);
    loop {
        match c.lock() {
            Err(super::forward::ForwardError::Busy(_)) if tokio::time::Instant::now() < until => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            other => return other,
        }
    }
}

/// The named callbacks, or every callback within the walk's budget.
async fn callbacks_of(client: &Client, named: &[String]) -> Result<Vec<String>, super::Error> {
    if named.is_empty() {
        cg::callback_ids(client).await
    } else {
        Ok(named.to_vec())
    }
}

/// The newest notification of callback `cb` (as filtered): forwarding from now starts after it.
async fn newest(
    client: &Client,
    cb: &str,
    f: &CallbackNotificationFilter,
) -> Result<Option<String>, super::Error> {
    let q = ListQuery {
        limit: Some(1),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let raw = client
        .send(&ApiRequest::list_callback_notifications(&q, cb, f))
        .await?;
    let page: Page<Value> = super::client::decode(raw.status, &raw.body)?;
    Ok(page
        .items
        .first()
        .and_then(|n| n.get("id").and_then(Value::as_str))
        .map(str::to_string))
}

impl<S: Sink> Run<'_, S> {
    /// The request to send for notification `n` (read whole under `cb`), signed now unless
    /// unsigned; `Err` says why there is nothing to send.
    async fn plan(
        &mut self,
        cb: &str,
        n: &CallbackNotification,
    ) -> Result<Result<ReplayPlan, String>, S::Error> {
        let Some((body, mut headers)) = cg::replay_request(n) else {
            return Ok(Err("the platform embedded no request to send".to_string()));
        };
        let preview = n
            .destination
            .as_ref()
            .map(|d| d.id.clone())
            .unwrap_or_default();
        let mut destination = None;
        if !self.unsigned {
            if !self.secrets.contains_key(&preview) {
                let d = match cg::sender(self.client, cb, n).await {
                    Ok(d) => d,
                    Err(e) => return Ok(Err(format!("could not read its destination: {e}"))),
                };
                destination = d.as_ref().map(|d| DestinationRef {
                    id: d.id.clone(),
                    name: d.name.clone(),
                });
                self.secrets
                    .insert(preview.clone(), d.and_then(|d| d.signing_secret));
            }
            match self.secrets.get(&preview).and_then(Option::as_ref) {
                Some(secret) => cg::sign(&mut headers, secret, Utc::now().timestamp(), &body),
                None if !self.said_unsigned.contains(&preview) => {
                    self.said_unsigned.push(preview.clone());
                    let name = n
                        .destination
                        .as_ref()
                        .and_then(|d| d.name.clone())
                        .unwrap_or_else(|| preview.clone());
                    self.sink.say(Said::Unsigned(line(&name).into_owned()))?;
                }
                None => {}
            }
        }
        Ok(Ok(ReplayPlan {
            notification_id: n.id.clone(),
            attempt_index: i64::from(n.attempt_count.saturating_sub(1)),
            target: self.target.clone(),
            method: "POST",
            body,
            headers,
            signing: None,
            destination,
        }))
    }

    /// One send of notification `id` under `cb`: claimed in the journal before, its outcome
    /// written after, and said. `None` when nothing was sent (nothing embedded, said as
    /// skipped; or the journal holds it as sent or in flight elsewhere).
    async fn send_once(&mut self, cb: &str, id: &str) -> Result<Option<Outcome>, S::Error> {
        let Some(found) = cg::find_notification(self.client, id, Some(cb)).await? else {
            return Ok(None);
        };
        let n: CallbackNotification =
            serde_json::from_value(found.notification).map_err(|e| super::Error::Decode {
                status: 200,
                detail: e.to_string(),
            })?;
        let plan = match self.plan(cb, &n).await? {
            Ok(p) => p,
            Err(why) => {
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
        let r = replay::send(&plan, &self.opts).await;
        let outcome = super::recover::outcome_of(&r);
        self.journal
            .record(&Entry {
                at: Utc::now(),
                notification: id.to_string(),
                target: self.key.clone(),
                outcome,
                status: r.status,
                duration_ms: u64::try_from(r.duration.as_millis()).ok(),
            })
            .map_err(io::<S>)?;
        self.forwarded += usize::from(outcome == Outcome::Succeeded);
        let signed = plan
            .headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("Metorial-Signature"));
        let event_type = n
            .event
            .as_ref()
            .and_then(|e| e.kind.as_deref())
            .map(|k| line(k).into_owned());
        self.sink.say(Said::Sent {
            id: line(id).into_owned(),
            event_type,
            attempt_index: plan.attempt_index,
            signed,
            result: r,
            outcome,
        })?;
        Ok(Some(outcome))
    }
}
