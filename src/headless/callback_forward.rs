//! `notifications forward --to URL` on `callback-destinations` (`generations.md` §6): there is
//! no global notification list, so each callback's notifications are followed with a cursor of
//! its own (the platform's `after`, oldest first; `--callback` names them, else every callback,
//! read again each round so a new one is followed too), and each new notification's embedded
//! request is sent to a receiver on this machine, signed `t=…,v1=…` with its destination's
//! secret (unsigned, and said so once, where the platform omits it; `--unsigned` sends none).
//!
//! Exactly once, as on the other generations: each notification is claimed in the service's
//! journal before it is sent and its outcome written after, and the callback's cursor file
//! ([`CursorFile`], 0600, atomic, locked) is saved after each one, so neither `--resume` nor a
//! kill between sending and saving sends anything twice; one killed while sending is in doubt
//! and said so, not sent again. A send the receiver did not take is sent again while the run
//! lives (0.5 s doubling to 30 s) and kept open in the cursor file for `--resume`.
use std::collections::{BTreeMap, HashMap};
use std::io::{IsTerminal, Write};
use std::time::Duration;

use chrono::Utc;
use serde_json::{Value, json};

use super::HeadlessError;
use super::forward::{Context, ForwardArgs};
use super::output::OutputFormat;
use crate::api::callback_gen as cg;
use crate::api::forward::{CursorFile, CursorLock};
use crate::api::identity::ServiceIdentity;
use crate::api::journal::{Entry, Journal, Outcome, State};
use crate::api::model::CallbackNotification;
use crate::api::newer_requests::CallbackNotificationFilter;
use crate::api::replay::{self, DestinationRef, ReplayPlan, ReplayResult, SendOptions};
use crate::api::{ApiRequest, Client, ListQuery, Order, Page, Secret};
use crate::text::sanitize::line;

/// The first pause before a send not delivered is sent again, doubled up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest pause between two sends of one notification.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

fn usage(msg: impl Into<String>) -> HeadlessError {
    HeadlessError::Usage(line(&msg.into()).into_owned())
}

fn io(e: impl std::fmt::Display) -> HeadlessError {
    HeadlessError::Io(std::io::Error::other(line(&e.to_string()).into_owned()))
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
    fn save(&self, target: &url::Url) -> Result<(), HeadlessError> {
        let open: Vec<String> = self.open.keys().cloned().collect();
        self.file
            .save(self.cursor.as_deref(), &open, target)
            .map_err(io)
    }
}

/// How a run starts.
#[derive(Clone, Copy)]
enum Start {
    Now,
    Since(chrono::DateTime<Utc>),
    Resume,
}

/// What the forwarder knows while it runs.
struct Run<'a> {
    client: &'a Client,
    target: url::Url,
    key: String,
    journal: Journal,
    opts: SendOptions,
    unsigned: bool,
    json_out: bool,
    /// Destination preview id → its secret (`None`: the platform gave none, or none matched).
    secrets: HashMap<String, Option<Secret>>,
    /// The destinations already said to be sent unsigned.
    said_unsigned: Vec<String>,
    forwarded: usize,
}

/// Forwards until Ctrl-C.
///
/// # Errors
/// Usage (target, interval, start), a cursor or journal that cannot be written, the API's.
pub async fn run(
    client: &Client,
    format: OutputFormat,
    args: ForwardArgs,
    ctx: &Context,
) -> Result<(), HeadlessError> {
    if args.secret_env.is_some() {
        return Err(usage(
            "notifications forward on callback-destinations: --secret-env is event-destinations'; here the destination's secret is read from the platform.",
        ));
    }
    let target = replay::parse_target(&args.to).map_err(|e| usage(e.to_string()))?;
    if !replay::is_loopback(&target) && (ctx.read_only || !args.yes) {
        return Err(usage(format!(
            "refusing to forward to {}, which is not this machine{}",
            target.host_str().unwrap_or_default(),
            if ctx.read_only {
                " (read-only profile)"
            } else {
                ", without --yes"
            }
        )));
    }
    let interval = crate::api::selection::parse_duration(&args.interval)
        .map_err(|e| usage(format!("--interval: {e}")))?;
    if interval.is_zero() {
        return Err(usage("--interval must be more than 0"));
    }
    let start = match (&args.since, args.resume) {
        (Some(t), _) => Start::Since(
            crate::api::selection::parse_time(t, Utc::now())
                .map_err(|e| usage(format!("--since: {e}")))?,
        ),
        (None, true) => Start::Resume,
        (None, false) => Start::Now,
    };
    for id in args.callbacks.iter().chain(&args.destinations) {
        crate::api::request::check_segment(id)?;
    }
    let Some(dir) = ctx.data_dir.clone() else {
        return Err(usage(
            "forward keeps its cursors and journal in the data directory: none is known here",
        ));
    };
    let journal =
        Journal::open_for(&dir, &ServiceIdentity::of(client), &ctx.profile).map_err(io)?;
    let filter = CallbackNotificationFilter {
        destination_ids: args.destinations.clone(),
        statuses: Vec::new(),
    };
    let types = args.event_types.clone();
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
        key: target.as_str().to_string(),
        target,
        journal,
        opts: SendOptions {
            timeout: super::replay::timeout(),
        },
        unsigned: args.unsigned,
        json_out: format != OutputFormat::Table || !std::io::stdout().is_terminal(),
        secrets: HashMap::new(),
        said_unsigned: Vec::new(),
        forwarded: 0,
    };
    // Each callback's cursor is its own file: a pulsar or event-destinations forward of the
    // same profile and target keeps another.
    let target = run.target.clone();
    let file_of = |cb: &str| {
        CursorFile::new(
            &dir,
            &format!("{}@callback-destinations@{cb}", ctx.profile),
            &target,
        )
    };
    let mut followed: BTreeMap<String, Followed> = BTreeMap::new();
    let first = callbacks_of(client, &args.callbacks).await?;
    let mut resumed = 0usize;
    for cb in &first {
        let file = file_of(cb);
        let lock = file.lock().map_err(|e| usage(e.to_string()))?;
        let (cursor, open) = match start {
            Start::Resume => match file.load_saved().map_err(io)? {
                Some(saved) => {
                    resumed += 1;
                    (saved.cursor, saved.open)
                }
                None => (None, Vec::new()),
            },
            Start::Since(_) => (None, Vec::new()),
            Start::Now => (newest(client, cb, &filter).await?, Vec::new()),
        };
        let now = tokio::time::Instant::now();
        let f = Followed {
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
        f.save(&run.target)?;
        followed.insert(cb.clone(), f);
    }
    if matches!(start, Start::Resume) && resumed == 0 {
        return Err(usage(format!(
            "nothing to resume: no cursor is saved for {} with this profile (start with --from now or --since)",
            run.target
        )));
    }
    let since = match start {
        Start::Since(t) => Some(t + client.clock_offset().await),
        _ => None,
    };
    run.say(json!({
        "event": "ready", "at": now(), "target": run.target.as_str(), "signed": !run.unsigned,
        "callbacks": followed.len(),
    }))?;
    let mut stop = std::pin::pin!(tokio::signal::ctrl_c());
    let mut caught_up_said = false;
    let mut fresh = true;
    loop {
        if !fresh {
            // A callback made since is followed from its first notification: all of it is new.
            for cb in callbacks_of(client, &args.callbacks).await? {
                if let std::collections::btree_map::Entry::Vacant(e) = followed.entry(cb) {
                    let file = file_of(e.key());
                    let lock = file.lock().map_err(|e| usage(e.to_string()))?;
                    let saved = file.load_saved().map_err(io)?.unwrap_or_default();
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
        for (cb, f) in &mut followed {
            // The open sends that are due, before anything new.
            let due: Vec<String> = f
                .open
                .iter()
                .filter(|(_, o)| o.due <= tokio::time::Instant::now())
                .map(|(id, _)| id.clone())
                .collect();
            for id in due {
                let backoff = f.open.get(&id).map_or(FIRST_BACKOFF, |o| o.backoff);
                let outcome = run.send_once(cb, &id).await?;
                let retry_in = (backoff * 2).min(MAX_BACKOFF);
                match outcome {
                    Some(Outcome::Succeeded) | None => {
                        f.open.remove(&id);
                    }
                    Some(_) => {
                        f.open.insert(
                            id.clone(),
                            Open {
                                due: tokio::time::Instant::now() + retry_in,
                                backoff: retry_in,
                            },
                        );
                    }
                }
                f.save(&run.target)?;
            }
            let q = ListQuery {
                limit: Some(100),
                order: Some(Order::Asc),
                after: f.cursor.clone(),
                ..ListQuery::default()
            };
            let page: Page<Value> = match client
                .send(&ApiRequest::list_callback_notifications(&q, cb, &filter))
                .await
            {
                Ok(raw) => crate::api::client::decode(raw.status, &raw.body)?,
                Err(crate::api::Error::Api(a)) if a.status < 500 && a.status != 429 => {
                    return Err(HeadlessError::Api(crate::api::Error::Api(a)));
                }
                // The API away: said, then tried again after the pause.
                Err(e) => {
                    run.say(
                        json!({"event": "reconnecting", "at": now(), "reason": line(&e.to_string())}),
                    )?;
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
                    .and_then(crate::api::model::time::parse);
                let early = matches!((since, created), (Some(s), Some(c)) if c < s);
                if early || !wanted(&n) {
                    f.cursor = Some(id);
                    continue;
                }
                match run.journal.state(&id, &run.key) {
                    Some(State::Succeeded | State::NotDelivered) => {
                        // Forwarded once already: never twice.
                        f.cursor = Some(id);
                        f.save(&run.target)?;
                        continue;
                    }
                    Some(State::InDoubt) => {
                        run.say(json!({"event": "failed", "at": now(), "notification_id": line(&id),
                            "status": null,
                            "error": "in doubt: a forward was stopped while sending it; not sent again (notifications replay sends it)"}))?;
                        f.cursor = Some(id);
                        f.save(&run.target)?;
                        continue;
                    }
                    None => {}
                }
                let outcome = run.send_once(cb, &id).await?;
                if let Some(o) = outcome
                    && o != Outcome::Succeeded
                {
                    // Not lost: sent again while the run lives, and kept open for --resume.
                    f.open.insert(
                        id.clone(),
                        Open {
                            due: tokio::time::Instant::now() + FIRST_BACKOFF,
                            backoff: FIRST_BACKOFF,
                        },
                    );
                }
                f.cursor = Some(id);
                f.save(&run.target)?;
                sent_any = true;
            }
            f.save(&run.target)?;
        }
        if sent_any {
            caught_up_said = false;
        }
        if !caught_up_said {
            run.say(json!({"event": "caught_up", "at": now(), "forwarded": run.forwarded}))?;
            caught_up_said = true;
        }
        if more {
            continue;
        }
        let mut pause = interval;
        if let Some(next) = followed
            .values()
            .flat_map(|f| f.open.values().map(|o| o.due))
            .min()
        {
            pause = pause.min(next.saturating_duration_since(tokio::time::Instant::now()));
        }
        tokio::select! {
            _ = &mut stop => return Ok(()),
            () = tokio::time::sleep(pause) => {}
        }
    }
}

fn now() -> String {
    Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The named callbacks, or every callback within the walk's budget.
async fn callbacks_of(client: &Client, named: &[String]) -> Result<Vec<String>, HeadlessError> {
    if named.is_empty() {
        Ok(cg::callback_ids(client).await?)
    } else {
        Ok(named.to_vec())
    }
}

/// The newest notification of callback `cb` (as filtered): forwarding from now starts after it.
async fn newest(
    client: &Client,
    cb: &str,
    f: &CallbackNotificationFilter,
) -> Result<Option<String>, HeadlessError> {
    let q = ListQuery {
        limit: Some(1),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let raw = client
        .send(&ApiRequest::list_callback_notifications(&q, cb, f))
        .await?;
    let page: Page<Value> = crate::api::client::decode(raw.status, &raw.body)?;
    Ok(page
        .items
        .first()
        .and_then(|n| n.get("id").and_then(Value::as_str))
        .map(str::to_string))
}

impl Run<'_> {
    fn say(&self, v: Value) -> Result<(), HeadlessError> {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        let r = if self.json_out {
            writeln!(out, "{v}")
        } else {
            writeln!(
                out,
                "{}",
                line(&format!(
                    "{}  {}  {}  {}",
                    v["event"].as_str().unwrap_or_default(),
                    v["notification_id"].as_str().unwrap_or_default(),
                    v["status"],
                    v["error"].as_str().unwrap_or_default()
                ))
            )
        };
        r.and_then(|()| out.flush())
            .map_err(super::output::output_error)
    }

    /// The request to send for notification `n` (read whole under `cb`), signed now unless
    /// unsigned; `Err` says why there is nothing to send.
    async fn plan(&mut self, cb: &str, n: &CallbackNotification) -> Result<ReplayPlan, String> {
        let (body, mut headers) = cg::replay_request(n)
            .ok_or_else(|| "the platform embedded no request to send".to_string())?;
        let preview = n
            .destination
            .as_ref()
            .map(|d| d.id.clone())
            .unwrap_or_default();
        let mut destination = None;
        if !self.unsigned {
            if !self.secrets.contains_key(&preview) {
                let d = cg::sender(self.client, cb, n)
                    .await
                    .map_err(|e| format!("could not read its destination: {e}"))?;
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
                    eprintln!(
                        "{}",
                        line(&format!(
                            "The platform gave no signing secret for destination {name}, so its notifications are forwarded unsigned."
                        ))
                    );
                }
                None => {}
            }
        }
        Ok(ReplayPlan {
            notification_id: n.id.clone(),
            attempt_index: i64::from(n.attempt_count.saturating_sub(1)),
            target: self.target.clone(),
            method: "POST",
            body,
            headers,
            signing: None,
            destination,
        })
    }

    /// One send of notification `id` under `cb`: claimed in the journal before, its outcome
    /// written after, and said. `None` when nothing was sent (nothing embedded, said as
    /// `skipped`; or the journal holds it as sent or in flight elsewhere).
    async fn send_once(&mut self, cb: &str, id: &str) -> Result<Option<Outcome>, HeadlessError> {
        let Some(found) = cg::find_notification(self.client, id, Some(cb)).await? else {
            return Ok(None);
        };
        let n: CallbackNotification =
            serde_json::from_value(found.notification).map_err(|e| crate::api::Error::Decode {
                status: 200,
                detail: e.to_string(),
            })?;
        let plan = match self.plan(cb, &n).await {
            Ok(p) => p,
            Err(why) => {
                self.say(
                    json!({"event": "skipped", "at": now(), "notification_id": line(id),
                    "status": null, "error": line(&why)}),
                )?;
                return Ok(None);
            }
        };
        // An open one is this run's own (or a stopped run's) to send again.
        if !self.journal.claim(id, &self.key, false).map_err(io)? {
            return Ok(None);
        }
        let r = replay::send(&plan, &self.opts).await;
        let outcome = crate::api::recover::outcome_of(&r);
        self.journal
            .record(&Entry {
                at: Utc::now(),
                notification: id.to_string(),
                target: self.key.clone(),
                outcome,
                status: r.status,
                duration_ms: u64::try_from(r.duration.as_millis()).ok(),
            })
            .map_err(io)?;
        self.forwarded += usize::from(outcome == Outcome::Succeeded);
        let signed = plan
            .headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("Metorial-Signature"));
        let kind = n
            .event
            .as_ref()
            .and_then(|e| e.kind.as_deref())
            .map(|k| Value::String(line(k).into_owned()));
        self.say(sent_event(
            id,
            kind.as_ref(),
            plan.attempt_index,
            signed,
            &r,
            outcome,
        ))?;
        Ok(Some(outcome))
    }
}

/// The `forwarded` or `failed` event of one send.
fn sent_event(
    id: &str,
    event_type: Option<&Value>,
    attempt: i64,
    signed: bool,
    r: &ReplayResult,
    outcome: Outcome,
) -> Value {
    let ok = outcome == Outcome::Succeeded;
    json!({
        "event": if ok { "forwarded" } else { "failed" },
        "at": now(),
        "notification_id": line(id),
        "event_type": event_type,
        "attempt": attempt.saturating_add(1),
        "signed": signed,
        "status": r.status,
        "duration_ms": u64::try_from(r.duration.as_millis()).unwrap_or(u64::MAX),
        "error": r.error.as_ref().map(|e| line(&e.to_string()).into_owned()),
    })
}
