//! `notifications forward --to URL` on `event-destinations` (issue 34): follows new deliveries
//! (oldest first, the platform's `after` cursor; `--destination` and `--event-type` narrow) and
//! sends each one's latest recorded request to a receiver on this machine, freshly signed as the
//! platform signs (with `--secret-env VAR`, or `--unsigned`).
//!
//! Exactly once, as pulsar's forward: each delivery is claimed in the service's journal before it
//! is sent and its outcome written after, and the cursor is saved (0600, atomically) after each
//! one, so neither a restart (`--resume`) nor a kill between sending and saving sends anything
//! twice. A delivery not yet attempted holds the ones after it (order) until it is, or for
//! [`PENDING_GRACE`]. A send the receiver did not take is sent again while the run lives (0.5 s,
//! doubling to 30 s, as pulsar's forward), and kept open in the cursor file for `--resume`: never
//! lost. One JSON event a line (`ready`, `forwarded`, `failed`, `skipped`,
//! `caught_up`) when piped, lines on a terminal. Ctrl-C stops it (exit 0).
use std::io::{IsTerminal, Write};
use std::time::Duration;

use serde_json::{Value, json};

use super::HeadlessError;
use super::forward::{Context, ForwardArgs};
use super::output::OutputFormat;
use crate::api::forward::CursorFile;
use crate::api::identity::ServiceIdentity;
use crate::api::journal::{Entry, Journal, Outcome, State};
use crate::api::newer_requests::DeliveryFilter;
use crate::api::replay::{self, SendOptions};
use crate::api::{ApiRequest, Client, ListQuery, Order, Page, Secret};
use crate::text::sanitize::line;

/// How long a delivery not yet attempted holds the ones after it.
pub const PENDING_GRACE: Duration = Duration::from_secs(30);
/// The first pause before a send not delivered is sent again, doubled up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest pause between two sends of one delivery.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// A send not delivered yet: due again at `due`, after `backoff`.
struct Open {
    due: tokio::time::Instant,
    backoff: Duration,
}

/// The ids of the open sends, as the cursor file keeps them.
fn open_ids(open: &std::collections::BTreeMap<String, Open>) -> Vec<String> {
    open.keys().cloned().collect()
}

fn usage(msg: impl Into<String>) -> HeadlessError {
    HeadlessError::Usage(line(&msg.into()).into_owned())
}

fn io(e: impl std::fmt::Display) -> HeadlessError {
    HeadlessError::Io(std::io::Error::other(line(&e.to_string()).into_owned()))
}

/// Forwards until Ctrl-C.
///
/// # Errors
/// Usage (target, interval, start, secret), a cursor or journal that cannot be written, the API's.
pub async fn run(
    client: &Client,
    format: OutputFormat,
    args: ForwardArgs,
    ctx: &Context,
) -> Result<(), HeadlessError> {
    if !args.callbacks.is_empty() {
        return Err(usage(
            "--callback is pulsar's: deliveries are followed by --destination and --event-type here.",
        ));
    }
    let secret = match (&args.secret_env, args.unsigned) {
        (Some(_), true) => {
            return Err(usage(
                "--secret-env signs and --unsigned does not: give one.",
            ));
        }
        (Some(v), false) => Some(Secret::new(super::input::secret_from_env(
            v,
            "the destination's signing secret",
        )?)),
        (None, true) => None,
        (None, false) => {
            return Err(usage(
                "a delivery is signed with its destination's secret, which the platform shows only on create and rotate: give it with --secret-env VAR, or forward --unsigned.",
            ));
        }
    };
    let (target, interval) = super::forward::target_and_interval(&args, ctx)?;
    let since = args
        .since
        .as_deref()
        .map(|t| crate::api::selection::parse_time(t, chrono::Utc::now()))
        .transpose()
        .map_err(|e| usage(format!("--since: {e}")))?;
    let Some(dir) = &ctx.data_dir else {
        return Err(usage(
            "forward keeps its cursor and journal in the data directory: none is known here",
        ));
    };
    // Its own cursor: a pulsar forward of the same profile and target keeps another.
    let cursor_file = CursorFile::new(dir, &format!("{}@event-destinations", ctx.profile), &target);
    let _lock = cursor_file.lock().map_err(|e| usage(e.to_string()))?;
    let mut journal =
        Journal::open_for(dir, &ServiceIdentity::of(client), &ctx.profile).map_err(io)?;
    let prefixes = args.event_types.iter().any(|t| t.ends_with('*'));
    let filter = DeliveryFilter {
        event_destination_ids: args.destinations.clone(),
        event_types: if prefixes {
            Vec::new()
        } else {
            args.event_types.clone()
        },
        ..DeliveryFilter::default()
    };
    let types = args.event_types.clone();
    let wanted = |d: &Value| {
        let t = d
            .get("event_type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        types.is_empty()
            || types.iter().any(|w| match w.strip_suffix('*') {
                Some(p) => t.starts_with(p),
                None => t == w,
            })
    };
    let mut open: std::collections::BTreeMap<String, Open> = std::collections::BTreeMap::new();
    let mut cursor: Option<String> = if args.resume {
        let saved = cursor_file.load_saved().map_err(io)?.ok_or_else(|| {
            usage(format!(
                "nothing to resume: no cursor is saved for {target} with this profile (start with --from now or --since)"
            ))
        })?;
        // The sends a stopped run left open are due at once.
        for id in saved.open {
            open.insert(
                id,
                Open {
                    due: tokio::time::Instant::now(),
                    backoff: FIRST_BACKOFF / 2,
                },
            );
        }
        saved.cursor
    } else if since.is_some() {
        None
    } else {
        // From now: after the newest delivery there is.
        let q = ListQuery {
            limit: Some(1),
            order: Some(Order::Desc),
            ..ListQuery::default()
        };
        let raw = client
            .send(&ApiRequest::list_deliveries(&q, &filter))
            .await?;
        let page: Page<Value> = crate::api::client::decode(raw.status, &raw.body)?;
        page.items
            .first()
            .and_then(|d| d.get("id").and_then(Value::as_str))
            .map(str::to_string)
    };
    cursor_file
        .save(cursor.as_deref(), &open_ids(&open), &target)
        .map_err(io)?;
    let json_out = format != OutputFormat::Table || !std::io::stdout().is_terminal();
    let say = |v: Value| -> Result<(), HeadlessError> {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        let r = if json_out {
            writeln!(out, "{v}")
        } else {
            writeln!(
                out,
                "{}",
                line(&format!(
                    "{}  {}  {}  {}",
                    v["event"].as_str().unwrap_or_default(),
                    v["delivery"].as_str().unwrap_or_default(),
                    v["status"],
                    v["error"].as_str().unwrap_or_default()
                ))
            )
        };
        r.and_then(|()| out.flush())
            .map_err(super::output::output_error)
    };
    let now = || chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let mut stop = super::interrupt::Interrupt::listen();
    say(json!({
        "event": "ready", "at": now(), "target": target.as_str(), "signed": secret.is_some(),
        "after": cursor.as_deref().map(|c| line(c).into_owned()),
    }))?;
    let key = target.as_str().to_string();
    let opts = SendOptions {
        timeout: super::replay::timeout(),
    };
    let mut forwarded = 0usize;
    let mut caught_up_said = false;
    let mut held: Option<(String, tokio::time::Instant)> = None;
    loop {
        // The open sends that are due, before anything new.
        let due: Vec<String> = open
            .iter()
            .filter(|(_, o)| o.due <= tokio::time::Instant::now())
            .map(|(id, _)| id.clone())
            .collect();
        for id in due {
            let backoff = open.get(&id).map_or(FIRST_BACKOFF, |o| o.backoff);
            let Some(sent) =
                send_once(client, &mut journal, &id, &target, secret.as_ref(), &opts).await?
            else {
                open.remove(&id);
                continue;
            };
            let (outcome, r, attempt) = sent;
            let retry_in = (backoff * 2).min(MAX_BACKOFF);
            if outcome == Outcome::Succeeded {
                open.remove(&id);
                forwarded += 1;
            } else {
                open.insert(
                    id.clone(),
                    Open {
                        due: tokio::time::Instant::now() + retry_in,
                        backoff: retry_in,
                    },
                );
            }
            cursor_file
                .save(cursor.as_deref(), &open_ids(&open), &target)
                .map_err(io)?;
            say(sent_event(
                &id,
                None,
                attempt,
                secret.is_some(),
                &r,
                outcome,
                retry_in,
                now(),
            ))?;
        }
        let q = ListQuery {
            limit: Some(100),
            order: Some(Order::Asc),
            after: cursor.clone(),
            ..ListQuery::default()
        };
        let page: Option<Page<Value>> = match client
            .send(&ApiRequest::list_deliveries(&q, &filter))
            .await
        {
            Ok(raw) => Some(crate::api::client::decode(raw.status, &raw.body)?),
            Err(crate::api::Error::Api(a)) if a.status < 500 && a.status != 429 => {
                return Err(HeadlessError::Api(crate::api::Error::Api(a)));
            }
            // The API away: said, then tried again after the pause.
            Err(e) => {
                say(json!({"event": "reconnecting", "at": now(), "reason": line(&e.to_string())}))?;
                None
            }
        };
        let mut waiting = false;
        let more = page.as_ref().is_some_and(|p| p.pagination.has_more_after);
        for d in page.map(|p| p.items).unwrap_or_default() {
            let Some(id) = d.get("id").and_then(Value::as_str).map(str::to_string) else {
                continue;
            };
            let created = d
                .get("created_at")
                .and_then(Value::as_str)
                .and_then(crate::api::model::time::parse);
            let early = matches!((since, created), (Some(s), Some(c)) if c < s);
            if early || !wanted(&d) {
                cursor = Some(id);
                continue;
            }
            let attempted = d.get("attempt_count").and_then(Value::as_u64).unwrap_or(0) > 0;
            let status = d.get("status").and_then(Value::as_str).unwrap_or_default();
            if !attempted {
                let unfinished = matches!(status, "pending" | "retrying");
                let since_held = match &held {
                    Some((h, at)) if *h == id => *at,
                    _ => {
                        let at = tokio::time::Instant::now();
                        held = Some((id.clone(), at));
                        at
                    }
                };
                if unfinished && since_held.elapsed() < PENDING_GRACE {
                    // Its request is not recorded yet: the ones after it wait (order).
                    waiting = true;
                    break;
                }
                say(
                    json!({"event": "skipped", "at": now(), "delivery": id, "status": null,
                    "error": format!("no attempt recorded ({status}): nothing to forward")}),
                )?;
                cursor = Some(id);
                cursor_file
                    .save(cursor.as_deref(), &open_ids(&open), &target)
                    .map_err(io)?;
                continue;
            }
            held = None;
            match journal.state(&id, &key) {
                Some(State::Succeeded | State::NotDelivered) => {
                    // Forwarded once already (a look read it again): never twice.
                    cursor = Some(id);
                    cursor_file
                        .save(cursor.as_deref(), &open_ids(&open), &target)
                        .map_err(io)?;
                    continue;
                }
                Some(State::InDoubt) => {
                    say(
                        json!({"event": "failed", "at": now(), "delivery": id, "status": null,
                        "error": "in doubt: a forward was stopped while sending it; not sent again (notifications replay sends it)"}),
                    )?;
                    cursor = Some(id);
                    cursor_file
                        .save(cursor.as_deref(), &open_ids(&open), &target)
                        .map_err(io)?;
                    continue;
                }
                None => {}
            }
            let Some((outcome, r, attempt)) =
                send_once(client, &mut journal, &id, &target, secret.as_ref(), &opts).await?
            else {
                cursor = Some(id);
                cursor_file
                    .save(cursor.as_deref(), &open_ids(&open), &target)
                    .map_err(io)?;
                continue;
            };
            if outcome != Outcome::Succeeded {
                // Not lost: sent again while the run lives, and kept open for --resume.
                open.insert(
                    id.clone(),
                    Open {
                        due: tokio::time::Instant::now() + FIRST_BACKOFF,
                        backoff: FIRST_BACKOFF,
                    },
                );
            }
            cursor = Some(id.clone());
            cursor_file
                .save(cursor.as_deref(), &open_ids(&open), &target)
                .map_err(io)?;
            forwarded += usize::from(outcome == Outcome::Succeeded);
            caught_up_said = false;
            say(sent_event(
                &id,
                d.get("event_type"),
                attempt,
                secret.is_some(),
                &r,
                outcome,
                FIRST_BACKOFF,
                now(),
            ))?;
        }
        cursor_file
            .save(cursor.as_deref(), &open_ids(&open), &target)
            .map_err(io)?;
        if !waiting && !caught_up_said {
            say(json!({"event": "caught_up", "at": now(), "forwarded": forwarded}))?;
            caught_up_said = true;
        }
        if more && !waiting {
            continue;
        }
        let mut pause = if waiting {
            interval.min(Duration::from_millis(250))
        } else {
            interval
        };
        if let Some(next) = open.values().map(|o| o.due).min() {
            pause = pause.min(next.saturating_duration_since(tokio::time::Instant::now()));
        }
        tokio::select! {
            () = stop.recv() => return Ok(()),
            () = tokio::time::sleep(pause) => {}
        }
    }
}

/// One send of `id`'s latest recorded request, claimed in the journal before and its outcome
/// written after; `None` when there is nothing to send (no recorded request, said as `skipped`;
/// or the journal holds it as delivered or in flight elsewhere).
async fn send_once(
    client: &Client,
    journal: &mut Journal,
    id: &str,
    target: &url::Url,
    secret: Option<&Secret>,
    opts: &SendOptions,
) -> Result<Option<(Outcome, replay::ReplayResult, i64)>, HeadlessError> {
    let rec = match super::current_replay::recorded(client, id, None).await {
        Ok(r) => r,
        Err(HeadlessError::Usage(why)) => {
            let v = json!({"event": "skipped", "at": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true), "delivery": id, "status": null, "error": why});
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            writeln!(out, "{v}")
                .and_then(|()| out.flush())
                .map_err(super::output::output_error)?;
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    let key = target.as_str().to_string();
    if !journal.claim(id, &key, false).map_err(io)? {
        return Ok(None);
    }
    let plan = super::current_replay::plan_now(&rec, target.clone(), secret);
    let r = replay::send(&plan, opts).await;
    let outcome = crate::api::recover::outcome_of(&r);
    journal
        .record(&Entry {
            at: chrono::Utc::now(),
            notification: id.to_string(),
            target: key,
            outcome,
            status: r.status,
            duration_ms: u64::try_from(r.duration.as_millis()).ok(),
        })
        .map_err(io)?;
    Ok(Some((outcome, r, rec.attempt_number)))
}

/// The `forwarded` or `failed` event of one send (`retry_in_ms` when it will be sent again).
#[allow(clippy::too_many_arguments)]
fn sent_event(
    id: &str,
    event_type: Option<&Value>,
    attempt: i64,
    signed: bool,
    r: &replay::ReplayResult,
    outcome: Outcome,
    retry_in: Duration,
    at: String,
) -> Value {
    let ok = outcome == Outcome::Succeeded;
    json!({
        "event": if ok { "forwarded" } else { "failed" },
        "at": at,
        "delivery": id,
        "event_type": event_type,
        "attempt": attempt,
        "signed": signed,
        "status": r.status,
        "duration_ms": u64::try_from(r.duration.as_millis()).unwrap_or(u64::MAX),
        "error": r.error.as_ref().map(|e| line(&e.to_string()).into_owned()),
        "retry_in_ms": (!ok).then(|| u64::try_from(retry_in.as_millis()).unwrap_or(u64::MAX)),
    })
}
