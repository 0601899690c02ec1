//! `notifications forward --to URL` on `event-destinations` (issue 34): follows new deliveries
//! (oldest first, the platform's `after` cursor; `--destination` and `--event-type` narrow) and
//! sends each one's latest recorded request to a receiver on this machine, freshly signed as the
//! platform signs (with `--secret-env VAR`, or `--unsigned`).
//!
//! Exactly once, as pulsar's forward: each delivery is claimed in the service's journal before it
//! is sent and its outcome written after, and the cursor is saved (0600, atomically) after each
//! one, so neither a restart (`--resume`) nor a kill between sending and saving sends anything
//! twice. A delivery not yet attempted holds the ones after it (order) until it is, or for
//! [`PENDING_GRACE`]. One JSON event a line (`ready`, `forwarded`, `failed`, `skipped`,
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
    let mut cursor: Option<String> = if args.resume {
        cursor_file
            .load_saved()
            .map_err(io)?
            .ok_or_else(|| {
                usage(format!(
                    "nothing to resume: no cursor is saved for {target} with this profile (start with --from now or --since)"
                ))
            })?
            .cursor
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
        .save(cursor.as_deref(), &[], &target)
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
    say(json!({
        "event": "ready", "at": now(), "target": target.as_str(), "signed": secret.is_some(),
        "after": cursor.as_deref().map(|c| line(c).into_owned()),
    }))?;
    let key = target.as_str().to_string();
    let opts = SendOptions {
        timeout: super::replay::timeout(),
    };
    let mut stop = std::pin::pin!(tokio::signal::ctrl_c());
    let mut forwarded = 0usize;
    let mut caught_up_said = false;
    let mut held: Option<(String, tokio::time::Instant)> = None;
    loop {
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
                    .save(cursor.as_deref(), &[], &target)
                    .map_err(io)?;
                continue;
            }
            held = None;
            match journal.state(&id, &key) {
                Some(State::Succeeded | State::NotDelivered) => {
                    // Forwarded once already (a look read it again): never twice.
                    cursor = Some(id);
                    cursor_file
                        .save(cursor.as_deref(), &[], &target)
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
                        .save(cursor.as_deref(), &[], &target)
                        .map_err(io)?;
                    continue;
                }
                None => {}
            }
            let rec = match super::current_replay::recorded(client, &id, None).await {
                Ok(r) => r,
                Err(HeadlessError::Usage(why)) => {
                    say(
                        json!({"event": "skipped", "at": now(), "delivery": id, "status": null, "error": why}),
                    )?;
                    cursor = Some(id);
                    cursor_file
                        .save(cursor.as_deref(), &[], &target)
                        .map_err(io)?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            if !journal.claim(&id, &key, false).map_err(io)? {
                cursor = Some(id);
                continue;
            }
            let plan = super::current_replay::plan_now(&rec, target.clone(), secret.as_ref());
            let r = replay::send(&plan, &opts).await;
            let outcome = crate::api::recover::outcome_of(&r);
            journal
                .record(&Entry {
                    at: chrono::Utc::now(),
                    notification: id.clone(),
                    target: key.clone(),
                    outcome,
                    status: r.status,
                    duration_ms: u64::try_from(r.duration.as_millis()).ok(),
                })
                .map_err(io)?;
            cursor = Some(id.clone());
            cursor_file
                .save(cursor.as_deref(), &[], &target)
                .map_err(io)?;
            forwarded += usize::from(outcome == Outcome::Succeeded);
            caught_up_said = false;
            say(json!({
                "event": if outcome == Outcome::Succeeded { "forwarded" } else { "failed" },
                "at": now(),
                "delivery": id,
                "event_type": d.get("event_type"),
                "attempt": rec.attempt_number,
                "signed": secret.is_some(),
                "status": r.status,
                "duration_ms": u64::try_from(r.duration.as_millis()).unwrap_or(u64::MAX),
                "error": r.error.as_ref().map(|e| line(&e.to_string()).into_owned()),
            }))?;
        }
        cursor_file
            .save(cursor.as_deref(), &[], &target)
            .map_err(io)?;
        if !waiting && !caught_up_said {
            say(json!({"event": "caught_up", "at": now(), "forwarded": forwarded}))?;
            caught_up_said = true;
        }
        if more && !waiting {
            continue;
        }
        let pause = if waiting {
            interval.min(Duration::from_millis(250))
        } else {
            interval
        };
        tokio::select! {
            _ = &mut stop => return Ok(()),
            () = tokio::time::sleep(pause) => {}
        }
    }
}
