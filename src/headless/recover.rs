//! `notifications recover [selection] [--to URL] [--dry-run] [--concurrency N] [--again ID …]
//! [--check-in-doubt] [--yes]`: every selected notification's latest recorded request sent again,
//! signed afresh ([`crate::api::recover`]). First the count, the time span and the first few
//! (stderr); with `--dry-run` the planned deliveries with masked headers and nothing sent. Then
//! one line per delivery on stdout (NDJSON when piped), a progress line on stderr when it is a
//! terminal, a summary on stderr, and one `in doubt: cbn_…` line per delivery an earlier run left
//! in doubt (not sent). Exit 0 when every answer was a whole 2xx, 3 when some were not or some are
//! in doubt, 4 when some got no answer, 130 when stopped (Ctrl-C) before the end: the same command
//! sends the rest.
use std::io::{BufRead, IsTerminal, Write};
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::{Map, Value, json};

use super::HeadlessError;
use super::output::{self, OutputFormat};
use super::selection::SelectionArgs;
use crate::api::Client;
use crate::api::identity::ServiceIdentity;
use crate::api::journal::{self, Journal, Outcome};
use crate::api::model::time;
use crate::api::recover::{self, Delivery, Item, RecoverPlan, RunOptions, Summary};
use crate::api::replay::{self, ReplayPlan, SendOptions};
use crate::text::sanitize::line;

/// The exit code of a run stopped before the end (128 + SIGINT, as shells report it).
pub const STOPPED: i32 = 130;

/// `notifications recover`.
#[derive(Args, Debug, Clone)]
pub struct RecoverArgs {
    /// Which notifications.
    #[command(flatten)]
    pub selection: SelectionArgs,
    /// Send every delivery here (e.g. `http://localhost:3000/webhooks`) instead of to each
    /// destination's own URL.
    #[arg(long, value_name = "URL")]
    pub to: Option<String>,
    /// Show the count, the time span and what would be sent (headers masked); send nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Requests in flight per host (1–16; overall at most 16).
    #[arg(long, value_name = "N", default_value_t = recover::PER_HOST,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=16))]
    pub concurrency: usize,
    /// Send exactly these notifications (`cbn_…`), even when the journal says they already
    /// succeeded to that target or are in doubt; nothing else is sent.
    #[arg(long, value_name = "ID", num_args = 1..)]
    pub again: Vec<String>,
    /// Ask the platform about the deliveries an earlier run left in doubt: one its attempts show
    /// delivered to that target is recorded so; the others stay in doubt.
    #[arg(long)]
    pub check_in_doubt: bool,
    /// Send to hosts that are not this machine without typing their names and the count;
    /// needed when not on a terminal.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// On event-destinations: how long to print the new attempts' outcomes as they land after
    /// the platform accepted the retries (`30s` by default; `0s` prints none). The exit code
    /// does not depend on them.
    #[arg(long = "wait", value_name = "D", value_parser = wait_duration)]
    pub wait: Option<Duration>,
    /// On event-destinations with `--to`: the variable holding the destination's signing secret
    /// (the platform shows it only on create and rotate), to sign each request afresh.
    #[arg(long, value_name = "VAR")]
    pub secret_env: Option<String>,
}

fn wait_duration(s: &str) -> Result<Duration, String> {
    crate::api::selection::parse_duration(s).map_err(|e| e.to_string())
}

/// Plans, shows and (unless `--dry-run`) sends a recover for `profile`'s journal.
///
/// # Errors
/// Usage (bad target, a read-only profile and a remote target, no confirmation), the API's error,
/// the journal's, or the run's outcome (exit 3, 4 or 130).
pub async fn run(
    client: &Client,
    format: OutputFormat,
    args: RecoverArgs,
    read_only: bool,
    profile: &str,
) -> Result<(), HeadlessError> {
    if args.wait.is_some() || args.secret_env.is_some() {
        return Err(HeadlessError::Usage(
            "--wait and --secret-env are for event-destinations, where the platform retries; pulsar's recover sends from this machine.".into(),
        ));
    }
    let mut selection = args.selection.selection()?;
    if !args.again.is_empty() {
        if let Some(bad) = args.again.iter().find(|id| !id.starts_with("cbn_")) {
            return Err(HeadlessError::Usage(format!(
                "--again takes notification ids (cbn_…), not {}",
                line(bad)
            )));
        }
        // Exactly the named ones: the rest of the selection is not walked.
        selection.notifications = args.again.clone();
    }
    let to = args
        .to
        .as_deref()
        .map(replay::parse_target)
        .transpose()
        .map_err(|e| HeadlessError::Usage(line(&e.to_string()).into_owned()))?;
    if read_only && let Some(t) = to.as_ref().filter(|t| !replay::is_loopback(t)) {
        return Err(refused_read_only(&[recover::host_of(t)]));
    }
    let data_dir = crate::config::Paths::with_config(None)
        .data_dir
        .ok_or_else(|| {
            HeadlessError::Usage(
                "no data directory for the journal (set HOME or XDG_DATA_HOME)".into(),
            )
        })?;
    let mut journal = Journal::open_for(&data_dir, &ServiceIdentity::of(client), profile)
        .map_err(|e| HeadlessError::Io(std::io::Error::other(e.to_string())))?;
    for u in journal.unreadable() {
        say(&unreadable_text(journal.path(), &u))?;
    }
    // `--since`/`--until` were read on this machine's clock; `created_at` is the server's.
    let offset = client.clock_offset().await;
    selection.since = selection.since.map(|t| t + offset);
    selection.until = selection.until.map(|t| t + offset);
    let mut plan = recover::plan(client, &selection, to.as_ref(), &journal, &args.again).await?;
    if args.check_in_doubt {
        let checked = recover::check_in_doubt(client, &mut plan, &mut journal)
            .await
            .map_err(|e| match e {
                recover::CheckError::Api(e) => HeadlessError::Api(e),
                recover::CheckError::Journal(e) => {
                    HeadlessError::Io(std::io::Error::other(e.to_string()))
                }
            })?;
        for (id, found) in checked {
            say(&match found {
                recover::Checked::Delivered => {
                    format!("checked {id}: the platform delivered it; recorded, not sent")
                }
                recover::Checked::Unknown(why) => format!("checked {id}: {why}; still in doubt"),
            })?;
        }
    }
    execute(client, format, &args, read_only, plan, journal).await
}

/// The count first, then the dry run's listing or the run itself, for either generation's plan.
pub(super) async fn execute(
    client: &Client,
    format: OutputFormat,
    args: &RecoverArgs,
    read_only: bool,
    mut plan: RecoverPlan,
    mut journal: Journal,
) -> Result<(), HeadlessError> {
    let remote = plan.remote_hosts();
    if read_only && !remote.is_empty() {
        return Err(refused_read_only(&remote));
    }
    say(&overview(&plan, args.dry_run))?;
    if let Some(c) = &plan.callbacks
        && let Some(s) = crate::api::callback_recover::unsigned_sentence(c, &plan)
    {
        say(&s)?;
    }
    // Field by field: the items are taken from the plan while these are lent.
    let senders = match &plan.callbacks {
        Some(c) => recover::Senders::Callbacks(c),
        None => recover::Senders::Pulsar(&plan.destinations),
    };
    let terminal = std::io::stdout().is_terminal();
    if args.dry_run {
        // Each body read when its line is written: one at a time in memory.
        for (k, item) in plan.items.iter().enumerate() {
            let full = if format == OutputFormat::Table && k > 0 {
                None
            } else {
                Some(recover::prepare_for(client, senders, item).await)
            };
            output::emit(|out| match format {
                OutputFormat::Json | OutputFormat::Ndjson => output::write_raw(
                    out,
                    &planned_json(item, full.as_ref()).to_string(),
                    terminal,
                ),
                OutputFormat::Table => write_planned(out, item, full.as_ref()),
            })?;
        }
        return in_doubt(&plan);
    }
    if plan.items.is_empty() {
        return in_doubt(&plan);
    }
    if !remote.is_empty() && !args.yes {
        confirm_remote(&plan, &remote)?;
    }
    let opts = RunOptions {
        per_host: args.concurrency,
        overall: recover::OVERALL,
        send: SendOptions {
            timeout: super::replay::timeout(),
        },
        again: args.again.clone(),
    };
    let total = plan.items.len();
    let mut progress = Progress::new(total, std::io::stderr().is_terminal());
    let mut interrupt = super::interrupt::Interrupt::listen();
    let stop = async move {
        interrupt.recv().await;
        // Said the moment the stop is seen: nothing new starts from here.
        let _ = say("stopping: the deliveries in flight finish; the same command resumes the rest");
    };
    let mut write_error: Option<std::io::Error> = None;
    let items = std::mem::take(&mut plan.items);
    let summary = recover::run_for(client, senders, items, &opts, &mut journal, stop, |d| {
        // On a terminal only what did not succeed gets a line; piped, every delivery does.
        if format != OutputFormat::Table || d.outcome != Outcome::Succeeded {
            if terminal {
                progress.clear();
            }
            let written = output::emit(|out| match format {
                OutputFormat::Json | OutputFormat::Ndjson => {
                    output::write_raw(out, &delivery_json(d).to_string(), terminal)
                }
                OutputFormat::Table => writeln!(out, "{}", delivery_line(d)),
            });
            if let Err(HeadlessError::Output(e) | HeadlessError::Io(e)) = written {
                write_error.get_or_insert(e);
            }
        }
        progress.delivered(d.outcome);
    })
    .await
    .map_err(|e| HeadlessError::Io(std::io::Error::other(e.to_string())))?;
    progress.clear();
    if let Some(e) = write_error {
        return Err(HeadlessError::Output(e));
    }
    say(&summary_text(&summary, journal.path()))?;
    let doubt = in_doubt(&plan);
    outcome(&summary).and(doubt)
}

/// One `in doubt: cbn_…` line on stderr per delivery left in doubt; exit 3 when there is one.
fn in_doubt(plan: &RecoverPlan) -> Result<(), HeadlessError> {
    let doubt = plan.in_doubt();
    if doubt.is_empty() {
        return Ok(());
    }
    for s in &doubt {
        if let recover::SkipReason::InDoubt { target, checked } = &s.reason {
            say(&format!(
                "in doubt: {} (to {}{})",
                s.notification,
                crate::text::redact::mask_url(target),
                checked
                    .as_ref()
                    .map_or_else(String::new, |c| format!("; {c}"))
            ))?;
        }
    }
    let ids: Vec<&str> = doubt.iter().map(|s| s.notification.as_str()).collect();
    Err(HeadlessError::Outcome {
        code: 3,
        message: format!(
            "{} in doubt, not sent: --check-in-doubt asks the platform; --again {} sends {}",
            ids.len(),
            ids.join(" "),
            if ids.len() == 1 { "it" } else { "them" }
        ),
    })
}

/// A journal line that could not be read, and what it means for this run.
pub(super) fn unreadable_text(path: &std::path::Path, u: &journal::Unreadable) -> String {
    let what = if u.notifications.is_empty() {
        "it names no notification".to_string()
    } else {
        format!(
            "what it recorded for {} is unknown: in doubt until checked or sent with --again",
            u.notifications.join(", ")
        )
    };
    format!(
        "journal {} line {} could not be read; {what}",
        path.display(),
        u.line
    )
}

pub(super) fn refused_read_only(hosts: &[String]) -> HeadlessError {
    HeadlessError::Usage(line(&recover::read_only_refusal(hosts)).into_owned())
}

/// Writes text to stderr through the one sanitizer.
pub(super) fn say(text: &str) -> Result<(), HeadlessError> {
    let mut err = std::io::stderr().lock();
    err.write_all(crate::text::multiline(text).as_bytes())
        .and_then(|()| err.write_all(b"\n"))
        .and_then(|()| err.flush())
        .map_err(HeadlessError::Io)
}

/// The count, the time span, what is left out and why, the targets and the first few.
fn overview(plan: &RecoverPlan, dry_run: bool) -> String {
    recover::overview(plan, dry_run, Some("--again")).join("\n")
}

/// `cbn_…  failed  <created>  → <target>`.
fn summary_of(item: &Item) -> String {
    line(&item.summary()).into_owned()
}

/// Header values through the one redaction policy, as an object.
fn masked(headers: &[(String, String)]) -> Value {
    let mut m = Map::new();
    for (k, v) in replay::masked_headers(headers) {
        m.insert(k, Value::String(v));
    }
    Value::Object(m)
}

/// A planned delivery (dry run), headers masked (with why, when its body could not be read).
fn planned_json(item: &Item, full: Option<&Result<ReplayPlan, String>>) -> Value {
    let mut v = json!({
        "notification": item.notification_id,
        "status": item.status.as_str(),
        "created_at": time::format(&item.created_at),
        "target": crate::text::redact::mask_url(item.target.as_str()),
        "attempt": item.attempt_index.saturating_add(1),
        "destination": item.destination,
        "dry_run": true,
    });
    match full {
        Some(Ok(p)) => {
            v["destination"] = json!(p.destination);
            v["headers"] = masked(&p.preview_headers());
        }
        Some(Err(why)) => v["error"] = json!(line(why)),
        None => {}
    }
    v
}

fn write_planned(
    out: &mut dyn Write,
    item: &Item,
    full: Option<&Result<ReplayPlan, String>>,
) -> std::io::Result<()> {
    writeln!(out, "{}", summary_of(item))?;
    match full {
        Some(Ok(p)) => {
            for (k, v) in p.preview_headers() {
                writeln!(out, "    {}: {}", line(&k), line(&v))?;
            }
        }
        Some(Err(why)) => writeln!(out, "    {}", line(why))?,
        None => {}
    }
    Ok(())
}

fn outcome_text(o: Outcome) -> &'static str {
    match o {
        Outcome::Succeeded => "succeeded",
        Outcome::Failed => "failed",
        Outcome::Unreachable => "unreachable",
        Outcome::Sending => "sending",
    }
}

/// One NDJSON line: notification, target, status, duration, outcome (and the error, if any).
fn delivery_json(d: &Delivery) -> Value {
    json!({
        "notification": d.notification,
        "target": crate::text::redact::mask_url(d.target.as_str()),
        "status": d.result.status,
        "duration_ms": u64::try_from(d.result.duration.as_millis()).unwrap_or(u64::MAX),
        "outcome": outcome_text(d.outcome),
        "error": d.result.error.as_ref().map(|e| line(&e.to_string()).into_owned()),
    })
}

/// A delivery that did not succeed, as one table line.
fn delivery_line(d: &Delivery) -> String {
    let answer = match (d.result.status, &d.result.error) {
        (Some(s), None) => format!("HTTP {s}"),
        (Some(s), Some(e)) => format!("HTTP {s}, then {e}"),
        (None, Some(e)) => e.to_string(),
        (None, None) => "no answer".into(),
    };
    format!(
        "{:<11}  {}  → {}  {} in {} ms",
        outcome_text(d.outcome).to_uppercase(),
        line(&d.notification),
        line(&crate::text::redact::mask_url(d.target.as_str())),
        line(&answer),
        d.result.duration.as_millis()
    )
}

fn summary_text(s: &Summary, journal: &std::path::Path) -> String {
    let mut out = format!(
        "{} sent: {} succeeded, {} failed, {} unreachable",
        s.sent(),
        s.succeeded,
        s.failed,
        s.unreachable
    );
    if s.claimed_elsewhere > 0 {
        out.push_str(&format!(
            "; {} not sent: another run had claimed them",
            s.claimed_elsewhere
        ));
    }
    if s.stopped {
        out.push_str(&format!(
            "\nstopped: {} not sent; the same command sends the rest",
            s.left
        ));
    }
    out.push_str(&format!("\njournal: {}", journal.display()));
    out
}

/// Exit 130 when stopped, 4 when some got no answer, 3 when some answers were not 2xx.
fn outcome(s: &Summary) -> Result<(), HeadlessError> {
    let (code, message) = if s.stopped {
        (STOPPED, format!("stopped with {} not sent", s.left))
    } else if s.unreachable > 0 {
        (4, format!("{} deliveries got no answer", s.unreachable))
    } else if s.failed > 0 {
        (3, format!("{} answers were not 2xx", s.failed))
    } else {
        return Ok(());
    };
    Err(HeadlessError::Outcome { code, message })
}

fn on_terminal() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Asks for the remote host names and the count to be typed back.
fn confirm_remote(plan: &RecoverPlan, remote: &[String]) -> Result<(), HeadlessError> {
    let count = plan.items.len();
    if !on_terminal() {
        return Err(HeadlessError::Usage(format!(
            "refusing to send {count} deliveries to {}, not this machine, without --yes when not on a terminal",
            line(&remote.join(", "))
        )));
    }
    say(&recover::confirmation_prompt(remote, count))?;
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(HeadlessError::Io)?;
    if recover::confirmed(&answer, remote, count) {
        Ok(())
    } else {
        Err(HeadlessError::Cancelled)
    }
}

/// A progress line on stderr, drawn only on a terminal, at most ten times a second.
struct Progress {
    total: usize,
    done: usize,
    not_ok: usize,
    on: bool,
    drawn: Option<Instant>,
    started: Instant,
}

impl Progress {
    fn new(total: usize, on: bool) -> Self {
        Self {
            total,
            done: 0,
            not_ok: 0,
            on,
            drawn: None,
            started: Instant::now(),
        }
    }

    fn delivered(&mut self, o: Outcome) {
        self.done += 1;
        self.not_ok += usize::from(o != Outcome::Succeeded);
        if !self.on
            || (self.done < self.total
                && self
                    .drawn
                    .is_some_and(|t| t.elapsed() < Duration::from_millis(100)))
        {
            return;
        }
        const WIDTH: usize = 30;
        let filled = WIDTH * self.done / self.total.max(1);
        let rate = self.done as f64 / self.started.elapsed().as_secs_f64().max(0.001);
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r[{}{}] {}/{}  {} not 2xx  {rate:.0}/s",
            "#".repeat(filled),
            "-".repeat(WIDTH - filled),
            self.done,
            self.total,
            self.not_ok
        );
        let _ = err.flush();
        self.drawn = Some(Instant::now());
    }

    /// Erases the line, so other output starts on a clean line.
    fn clear(&mut self) {
        if self.on && self.drawn.take().is_some() {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}
