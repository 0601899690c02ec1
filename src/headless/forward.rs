//! `notifications forward --to URL`: follows new notifications and forwards each to a receiver
//! on this machine ([`crate::api::forward`]). On a terminal, one line per forward under a status
//! line; piped (or `-o json`), one JSON event a line (`ready`, `forwarded`, `failed`,
//! `reconnecting`, `caught_up`) and nothing else on standard output. Ctrl-C stops it (exit 0).
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgGroup, Args};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};

use super::HeadlessError;
use super::output::OutputFormat;
use crate::api::forward::{self, Event, ForwardConfig, ForwardError, Memory, Start, State};
use crate::api::identity::ServiceIdentity;
use crate::api::replay::{self, SendOptions};
use crate::api::{Client, NotificationFilter};
use crate::text::sanitize::line;

/// `notifications forward`.
#[derive(Args, Debug, Clone)]
#[command(group(ArgGroup::new("start").args(["from", "since", "resume"])))]
pub struct ForwardArgs {
    /// The receiver: an http(s) URL, e.g. `http://localhost:3000/webhooks`.
    #[arg(long, value_name = "URL")]
    pub to: String,
    /// Only notifications of this callback (repeat for several).
    #[arg(long = "callback", value_name = "ID")]
    pub callbacks: Vec<String>,
    /// Only notifications to this destination (repeat for several).
    #[arg(long = "destination", value_name = "ID")]
    pub destinations: Vec<String>,
    /// Only this event type, the delivered body's `type` (repeat for several).
    #[arg(long = "event-type", value_name = "T")]
    pub event_types: Vec<String>,
    /// Start with what is created from now on (the default).
    #[arg(long, value_name = "now", value_parser = ["now"])]
    pub from: Option<String>,
    /// Start with what was created since TIME: a duration ago (`30m`) or an ISO 8601 time.
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Start right after the last notification forwarded to this URL with this profile:
    /// everything since, oldest first, then follow.
    #[arg(long)]
    pub resume: bool,
    /// Send without a `Metorial-Signature` (and without looking up destinations' secrets).
    #[arg(long)]
    pub unsigned: bool,
    /// The pause between polls when nothing is new (`500ms`, `2s`, `1m`).
    #[arg(long, value_name = "DURATION", default_value = "2s")]
    pub interval: String,
    /// Forward to a host that is not this machine.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// On event-destinations: the variable holding the destination's signing secret (the
    /// platform shows it only on create and rotate), to sign each forward afresh.
    #[arg(long, value_name = "VAR", conflicts_with = "unsigned")]
    pub secret_env: Option<String>,
}

/// Where the forwarder keeps its cursor and journal.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The profile's name.
    pub profile: String,
    /// The data directory; `None` keeps nothing (and refuses `--resume`).
    pub data_dir: Option<PathBuf>,
    /// Refuse targets that are not this machine.
    pub read_only: bool,
}

pub(super) fn usage(msg: impl Into<String>) -> HeadlessError {
    HeadlessError::Usage(line(&msg.into()).into_owned())
}

/// The target (this machine unless `--yes` on a profile that writes) and the poll interval,
/// checked alike for every generation's forward.
pub(crate) fn target_and_interval(
    args: &ForwardArgs,
    ctx: &Context,
) -> Result<(url::Url, Duration), HeadlessError> {
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
    Ok((target, interval))
}

/// Forwards until Ctrl-C.
///
/// # Errors
/// Usage (bad target, interval or time; nothing to resume), a cursor or journal that cannot be
/// written, or an API error that waiting does not fix.
pub async fn run(
    client: &Client,
    format: OutputFormat,
    args: ForwardArgs,
    ctx: &Context,
) -> Result<(), HeadlessError> {
    if args.secret_env.is_some() {
        return Err(usage(
            "--secret-env is for event-destinations: pulsar's forward signs with the destination's secret the API gives.",
        ));
    }
    let (target, interval) = target_and_interval(&args, ctx)?;
    let start = match (&args.since, args.resume) {
        (Some(t), _) => Start::Since(
            crate::api::selection::parse_time(t, chrono::Utc::now())
                .map_err(|e| usage(format!("--since: {e}")))?,
        ),
        (None, true) => Start::Resume,
        (None, false) => Start::Now,
    };
    let cfg = ForwardConfig {
        target: target.clone(),
        filter: NotificationFilter {
            callback_ids: args.callbacks,
            destination_ids: args.destinations,
            ..NotificationFilter::default()
        },
        event_types: args.event_types,
        unsigned: args.unsigned,
        interval,
        send: SendOptions {
            timeout: super::replay::timeout(),
        },
    };
    let memory = memory(client, ctx, &target)?;
    let (tx, rx) = mpsc::unbounded_channel();
    let (stop_tx, stop_rx) = watch::channel(false);
    let printer = Printer::new(format, &cfg);
    let forwarding = forward::run(client, &cfg, start, memory, tx, stop_rx);
    let mut interrupt = super::interrupt::Interrupt::listen();
    let stopper = async {
        tokio::select! {
            // Ctrl-C asks to stop; the forwarder ends at a clean point.
            () = interrupt.recv() => { let _ = stop_tx.send(true); },
            // The forwarder ended by itself (an error): nothing to stop.
            () = stop_tx.closed() => {}
        }
    };
    let (result, printed, ()) = tokio::join!(forwarding, printer.print(rx), stopper);
    printed?;
    result.map_err(|e| match e {
        ForwardError::NothingToResume(_) | ForwardError::Busy(_) => usage(e.to_string()),
        ForwardError::Api(e) => HeadlessError::Api(e),
        other => HeadlessError::Io(std::io::Error::other(line(&other.to_string()).into_owned())),
    })
}

/// The cursor file and journal of this profile and target (none without a data directory).
fn memory(client: &Client, ctx: &Context, target: &url::Url) -> Result<Memory, HeadlessError> {
    let Some(dir) = &ctx.data_dir else {
        return Ok(Memory::default());
    };
    Ok(Memory {
        cursor: Some(forward::CursorFile::new(dir, &ctx.profile, target)),
        journal: forward::open_journal(dir, &ServiceIdentity::of(client), &ctx.profile)
            .map_err(|e| HeadlessError::Io(std::io::Error::other(e)))?,
        answers: Some(forward::AnswerLog::new(dir, &ctx.profile)),
    })
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Shows the events: NDJSON, or lines under a status line on a terminal.
struct Printer {
    json: bool,
    terminal: bool,
    target: String,
    signed: bool,
    state: State,
}

impl Printer {
    fn new(format: OutputFormat, cfg: &ForwardConfig) -> Self {
        Self {
            json: format == OutputFormat::Json,
            terminal: std::io::stdout().is_terminal(),
            target: cfg.target.to_string(),
            signed: !cfg.unsigned,
            state: State::Connecting,
        }
    }

    async fn print(mut self, mut rx: mpsc::UnboundedReceiver<Event>) -> Result<(), HeadlessError> {
        while let Some(e) = rx.recv().await {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            let r = if self.json {
                match self.json_line(&e) {
                    Some(v) => writeln!(out, "{v}"),
                    None => Ok(()),
                }
            } else {
                self.table(&mut out, &e)
            };
            r.and_then(|()| out.flush())
                .map_err(super::output::output_error)?;
        }
        if !self.json && self.terminal {
            // End the status line.
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            writeln!(out)
                .and_then(|()| out.flush())
                .map_err(super::output::output_error)?;
        }
        Ok(())
    }

    /// The NDJSON line of an event; `None` for the states that are not events of their own.
    fn json_line(&mut self, e: &Event) -> Option<Value> {
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        Some(match e {
            Event::Ready { cursor } => json!({
                "event": "ready", "at": now, "target": self.target, "signed": self.signed,
                "after": cursor.as_deref().map(|c| line(c).into_owned()),
            }),
            Event::Forwarded(f) => {
                let r = &f.result;
                json!({
                    "event": if r.is_success() { "forwarded" } else { "failed" },
                    "at": now,
                    "notification_id": line(&f.notification_id),
                    "event_type": f.event_type.as_deref().map(|t| line(t).into_owned()),
                    "attempt": f.attempt_index.saturating_add(1),
                    "signed": f.signed,
                    "status": r.status,
                    "duration_ms": millis(r.duration),
                    "error": r.error.as_ref().map(|e| line(&e.to_string()).into_owned()),
                    "retry_in_ms": f.retry_in.map(millis),
                })
            }
            Event::CursorAhead { cursor, newest } => json!({
                "event": "cursor_ahead", "at": now, "cursor": line(cursor),
                "newest": newest.as_deref().map(|n| line(n).into_owned()),
            }),
            Event::Skipped {
                notification_id,
                why,
            } => json!({
                "event": "failed", "at": now, "notification_id": line(notification_id),
                "status": null, "error": line(why),
            }),
            Event::CaughtUp { forwarded } => json!({
                "event": "caught_up", "at": now, "forwarded": forwarded,
            }),
            Event::State(State::Reconnecting { why, retry_in }) => json!({
                "event": "reconnecting", "at": now, "reason": line(why),
                "retry_in_ms": millis(*retry_in),
            }),
            Event::State(_) => return None,
        })
    }

    /// The status line's text.
    fn status(&self) -> String {
        let s = match &self.state {
            State::Connecting => "connecting…".to_string(),
            State::Following => "following".to_string(),
            State::CatchingUp { left } => format!("catching up, {left} left"),
            State::Reconnecting { why, retry_in } => format!(
                "reconnecting ({}), next try in {:.1} s",
                line(why),
                retry_in.as_secs_f64()
            ),
            State::Stopped => "stopped".to_string(),
        };
        format!("forwarding to {}: {s}  (Ctrl-C stops)", line(&self.target))
    }

    fn table(&mut self, out: &mut dyn Write, e: &Event) -> std::io::Result<()> {
        let time = chrono::Local::now().format("%H:%M:%S");
        let text = match e {
            Event::State(s) => {
                self.state = s.clone();
                None
            }
            Event::Ready { .. } => None,
            Event::Forwarded(f) => {
                let r = &f.result;
                let answer = match (r.status, &r.error) {
                    (Some(s), None) => format!("{s}"),
                    (Some(s), Some(e)) => format!("{s} FAILED: {}", line(&e.to_string())),
                    (None, Some(e)) => format!("no answer: {}", line(&e.to_string())),
                    (None, None) => "no answer".into(),
                };
                let answer = match f.retry_in {
                    Some(d) => format!("{answer} (again in {:.1} s)", d.as_secs_f64()),
                    None => answer,
                };
                Some(format!(
                    "{time}  {:<24} {}  {answer}  {} ms",
                    line(f.event_type.as_deref().unwrap_or("-")),
                    line(&f.notification_id),
                    r.duration.as_millis()
                ))
            }
            Event::Skipped {
                notification_id,
                why,
            } => Some(format!(
                "{time}  {:<24} {}  not forwarded: {}",
                "-",
                line(notification_id),
                line(why)
            )),
            Event::CaughtUp { forwarded } => {
                Some(format!("{time}  caught up ({forwarded} forwarded)"))
            }
            Event::CursorAhead { cursor, newest } => Some(format!(
                "{time}  the saved cursor {} is past every notification on the server; going on after {}",
                line(cursor),
                newest
                    .as_deref()
                    .map_or_else(|| "the first".into(), |n| line(n).into_owned())
            )),
        };
        if self.terminal {
            // Clear the status line, print above it, draw it again.
            write!(out, "\r\x1b[2K")?;
            if let Some(t) = text {
                writeln!(out, "{t}")?;
            }
            write!(out, "{}", self.status())
        } else {
            match text {
                Some(t) => writeln!(out, "{t}"),
                None => Ok(()),
            }
        }
    }
}
