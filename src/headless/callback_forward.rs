//! `notifications forward --to URL` on `callback-destinations` (`generations.md` §6): there is
//! no global notification list, so each callback's notifications are followed with a cursor of
//! its own (the platform's `after`, oldest first; `--callback` names them, else every callback,
//! read again each round so a new one is followed too), and each new notification's embedded
//! request is sent to a receiver on this machine, signed `t=…,v1=…` with its destination's
//! secret (unsigned, and said so once, where the platform omits it; `--unsigned` sends none).
//!
//! Exactly once, as on the other generations: the following, the journal and the cursor files
//! are [`crate::api::callback_forward`]'s (the console's forward room runs the same); this is the
//! command's checks and its output.
use std::io::{IsTerminal, Write};

use chrono::Utc;
use serde_json::{Value, json};

use super::HeadlessError;
use super::forward::{Context, ForwardArgs};
use super::output::OutputFormat;
use crate::api::Client;
use crate::api::callback_forward::{self as cf, Follow, Said, Sink, Start};
use crate::api::journal::Outcome;
use crate::api::replay::ReplayResult;
use crate::text::sanitize::line;

fn usage(msg: impl Into<String>) -> HeadlessError {
    HeadlessError::Usage(line(&msg.into()).into_owned())
}

fn io(e: impl std::fmt::Display) -> HeadlessError {
    HeadlessError::Io(std::io::Error::other(line(&e.to_string()).into_owned()))
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
    let (target, interval) = super::forward::target_and_interval(&args, ctx)?;
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
    let follow = Follow {
        target,
        callbacks: args.callbacks.clone(),
        destinations: args.destinations.clone(),
        event_types: args.event_types.clone(),
        unsigned: args.unsigned,
        interval,
        send: crate::api::replay::SendOptions {
            timeout: super::replay::timeout(),
        },
        start,
        profile: ctx.profile.clone(),
        data_dir: dir,
    };
    let mut out = Lines {
        json_out: format != OutputFormat::Table || !std::io::stdout().is_terminal(),
        target: follow.target.to_string(),
        signed: !follow.unsigned,
    };
    let mut interrupt = super::interrupt::Interrupt::listen();
    let stop = async move { interrupt.recv().await };
    cf::run(client, &follow, &mut out, stop).await
}

fn now() -> String {
    Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Standard output: one JSON event a line when piped, lines on a terminal.
struct Lines {
    json_out: bool,
    target: String,
    signed: bool,
}

impl Lines {
    fn say(&self, v: &Value) -> Result<(), HeadlessError> {
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
}

impl Sink for Lines {
    type Error = HeadlessError;

    fn say(&mut self, s: Said) -> Result<(), HeadlessError> {
        let v = match s {
            Said::Ready { callbacks } => json!({
                "event": "ready", "at": now(), "target": self.target, "signed": self.signed,
                "callbacks": callbacks,
            }),
            Said::Reconnecting(reason) => {
                json!({"event": "reconnecting", "at": now(), "reason": reason})
            }
            Said::InDoubt(id) => json!({"event": "failed", "at": now(), "notification_id": id,
                "status": null,
                "error": "in doubt: a forward was stopped while sending it; not sent again (notifications replay sends it)"}),
            Said::Skipped { id, why } => json!({"event": "skipped", "at": now(),
                "notification_id": id, "status": null, "error": why}),
            Said::Sent {
                id,
                event_type,
                attempt_index,
                signed,
                result,
                outcome,
            } => sent_event(
                &id,
                event_type.map(Value::String).as_ref(),
                attempt_index,
                signed,
                &result,
                outcome,
            ),
            Said::CaughtUp(forwarded) => {
                json!({"event": "caught_up", "at": now(), "forwarded": forwarded})
            }
            Said::Unsigned(name) => {
                eprintln!("{}", line(&cf::unsigned_sentence(&name)));
                return Ok(());
            }
        };
        Lines::say(self, &v)
    }

    fn usage(msg: String) -> HeadlessError {
        usage(msg)
    }

    fn io(msg: String) -> HeadlessError {
        io(msg)
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
