//! The delivery verbs of `event-destinations` (issue 34): `notifications recover` through the
//! platform's own retry ([`crate::api::platform_retry`]), and `notifications wait` on deliveries.
//!
//! `recover` shows the count, the span and the first few (stderr), then asks the platform to
//! retry each delivery, one line per retry (stdout; NDJSON when piped), a progress line on a
//! terminal, and a summary; then, within `--wait` (30 s), one `outcome` line per new attempt as it
//! lands. Exit 0 when the platform accepted every retry (whatever the new attempts did), 3 when
//! some were refused or are in doubt, 4 when some got no answer, 130 when stopped: the same
//! command asks the rest.
use std::io::{IsTerminal, Write};
use std::time::Duration;

use serde_json::{Value, json};

use super::HeadlessError;
use super::output::{self, OutputFormat};
use super::recover::{RecoverArgs, STOPPED};
use super::wait::{FAILED, TIMED_OUT, WaitArgs};
use crate::api::Client;
use crate::api::identity::ServiceIdentity;
use crate::api::journal::Journal;
use crate::api::model::NotificationStatus;
use crate::api::newer_requests::DeliveryFilter;
use crate::api::platform_retry::{self as retry, Answer, Landed, Retried, RetryPlan, RunSummary};
use crate::api::{ApiRequest, ListQuery, Order};
use crate::text::sanitize::line;

/// Runs a command routed to event-destinations: the delivery verbs here, the others in
/// [`super::current::run`].
///
/// # Errors
/// As the verb's.
pub async fn run(
    client: &Client,
    out: &super::Output,
    cmd: super::args::Resource,
    ctx: &super::ForwardContext,
) -> Result<(), HeadlessError> {
    use super::args::{DestinationsCmd, NotificationsCmd, Resource};
    use crate::api::model::{UpdateEventDestination, WebhookInput};
    match cmd {
        Resource::Notifications(NotificationsCmd::Recover(a)) => {
            recover(client, out.format, a, ctx.read_only, &ctx.profile).await
        }
        Resource::Notifications(NotificationsCmd::Wait(a)) => wait(client, out.format, a).await,
        Resource::Notifications(NotificationsCmd::Replay(a)) => {
            let log = answer_log(ctx);
            super::current_replay::replay(client, out, a, ctx.read_only, log.as_ref()).await
        }
        Resource::Notifications(NotificationsCmd::Diff(a)) => {
            let history = match (answer_log(ctx), a.with_replay) {
                (Some(log), Some(_)) => log
                    .answers_of(&a.id)
                    .map_err(|e| HeadlessError::Io(std::io::Error::other(e.to_string())))?,
                _ => Vec::new(),
            };
            diff(client, out.format, a, &history).await
        }
        Resource::Notifications(NotificationsCmd::Forward(a)) => {
            super::current_forward::run(client, out.format, a, ctx).await
        }
        Resource::Destinations(DestinationsCmd::Stats { id, window }) => {
            stats(client, out, &id, window).await
        }
        Resource::Destinations(DestinationsCmd::Update {
            id,
            name,
            description,
            clear_description,
            url,
        }) => {
            let b = UpdateEventDestination {
                name,
                description: if clear_description {
                    Some(String::new())
                } else {
                    description
                },
                webhook: url.map(|url| WebhookInput { url }),
                retry: None,
            };
            let raw = client
                .send(&ApiRequest::update_event_destination(&id, &b))
                .await?;
            let d: Value = crate::api::client::decode(raw.status, &raw.body)?;
            if out.table() {
                let fields: Vec<String> = ["id", "name", "description", "status", "webhook.url"]
                    .iter()
                    .map(|s| (*s).to_string())
                    .collect();
                out.field_detail(&fields, &d)
            } else {
                out.document(&format!("{d:#}"))
            }
        }
        Resource::Destinations(DestinationsCmd::Op(super::args::DestinationOp::Duplicate {
            id,
            name,
            yes,
        })) => duplicate(client, out, &id, name, yes).await,
        other => super::current::run(client, out, other).await,
    }
}

/// `destinations duplicate ID [--name N]` on event-destinations: a new destination with the
/// same URL, description and retry policy (its own signing secret, shown once), listening as the
/// original does (each of its listeners created again for the copy).
async fn duplicate(
    client: &Client,
    out: &super::Output,
    id: &str,
    name: Option<String>,
    yes: bool,
) -> Result<(), HeadlessError> {
    use crate::api::model::{CreateEventDestination, CreateListener, ListenerType, RetryPolicy};
    use crate::api::newer_requests::ListenerFilter;
    let raw = client.send(&ApiRequest::get_event_destination(id)).await?;
    let d: Value = crate::api::client::decode(raw.status, &raw.body)?;
    let text = |k: &str| {
        output::at_path(&d, k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let name = name.unwrap_or_else(|| format!("{} (copy)", text("name")));
    if !yes {
        if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
            return Err(usage(
                "refusing to create a destination without --yes when not on a terminal",
            ));
        }
        if !super::input::confirm(&format!(
            "Create {} delivering to {} as {} does, with a new signing secret?",
            line(&name),
            line(&crate::text::redact::mask_url(&text("webhook.url"))),
            line(id)
        ))? {
            return Err(HeadlessError::Cancelled);
        }
    }
    let listeners = crate::api::lookup::list_all_from(client, ListQuery::default(), |q| {
        ApiRequest::list_listeners(
            q,
            &ListenerFilter {
                event_destination_ids: vec![id.to_string()],
                instance_ids: Vec::new(),
            },
        )
    })
    .await?;
    let mut b = CreateEventDestination::webhook(name, text("webhook.url"));
    b.description = Some(text("description")).filter(|s| !s.is_empty());
    b.retry = d
        .get("retry")
        .and_then(|r| serde_json::from_value::<RetryPolicy>(r.clone()).ok());
    let raw = client
        .send(&ApiRequest::create_event_destination(&b))
        .await?;
    let copy: Value = crate::api::client::decode(raw.status, &raw.body)?;
    let copy_id = copy
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let field = |l: &Value, k: &str| l.get(k).and_then(Value::as_str).map(str::to_string);
    let list = |l: &Value, k: &str| {
        l.get(k).and_then(Value::as_array).map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect::<Vec<_>>()
        })
    };
    let mut copied = 0usize;
    for l in &listeners {
        let Ok(kind) =
            serde_json::from_value::<ListenerType>(l.get("type").cloned().unwrap_or(Value::Null))
        else {
            continue;
        };
        let b = CreateListener {
            instance_id: field(l, "instance_id").unwrap_or_default(),
            event_destination_id: copy_id.clone(),
            kind,
            event_types: list(l, "event_types"),
            callback_id: field(l, "callback_id"),
            provider_id: field(l, "provider_id"),
            triggers: list(l, "triggers"),
            chat_connection_id: field(l, "chat_connection_id"),
        };
        client.send(&ApiRequest::create_listener(&b)).await?;
        copied += 1;
    }
    say(&format!(
        "created {} from {}, with {copied} of its {} listener{}",
        copy_id,
        id,
        listeners.len(),
        if listeners.len() == 1 { "" } else { "s" }
    ))?;
    if out.table() {
        let fields: Vec<String> = ["id", "name", "status", "webhook.url"]
            .iter()
            .map(|s| (*s).to_string())
            .collect();
        out.field_detail(&fields, &copy)?;
        if let Some(s) = output::at_path(&copy, "webhook.signing_secret").and_then(Value::as_str) {
            output::emit(|w| {
                writeln!(
                    w,
                    "signing secret: {} (shown once by the platform: -o json prints it whole)",
                    output::clean(&crate::text::redact::mask(s))
                )
            })?;
        }
        Ok(())
    } else {
        out.document(&format!("{copy:#}"))
    }
}

/// `destinations stats ID` on event-destinations: [`crate::api::health::Stats`] from its
/// deliveries and attempts, in the document pulsar's stats print.
async fn stats(
    client: &Client,
    out: &super::Output,
    id: &str,
    window: chrono::TimeDelta,
) -> Result<(), HeadlessError> {
    let raw = client.send(&ApiRequest::get_event_destination(id)).await?;
    let d: Value = crate::api::client::decode(raw.status, &raw.body)?;
    let now = {
        use chrono::SubsecRound as _;
        let t = chrono::Utc::now();
        let s = t.trunc_subsecs(0);
        if s < t {
            s + chrono::TimeDelta::seconds(1)
        } else {
            s
        }
    };
    let s = crate::api::delivery_health::destination_stats(client, id, window, now).await?;
    let name = d.get("name").and_then(Value::as_str).unwrap_or_default();
    print_stats(out, id, name, &s, window)
}

/// The document (or table) `destinations stats` prints on the newer generations: pulsar's keys,
/// and `cancelled` (what is neither tried nor succeeded).
pub(super) fn print_stats(
    out: &super::Output,
    id: &str,
    name: &str,
    s: &crate::api::health::Stats,
    window: chrono::TimeDelta,
) -> Result<(), HeadlessError> {
    if out.table() {
        let mut text = vec![format!("Destination  {name} ({id})")];
        text.extend(s.lines());
        if s.other > 0 {
            text.push(format!("{} cancelled (not counted as tried)", s.other));
        }
        return output::emit(|w| writeln!(w, "{}", crate::text::multiline(&text.join("\n"))));
    }
    let doc = crate::api::health::stats_document(id, name, s, window);
    out.document(&format!("{doc:#}"))
}

/// How long the new attempts are followed by default.
pub const FOLLOW: Duration = Duration::from_secs(30);
/// How often a followed delivery is looked at.
const LOOK_EVERY: Duration = Duration::from_millis(250);

fn usage(msg: impl Into<String>) -> HeadlessError {
    HeadlessError::Usage(line(&msg.into()).into_owned())
}

/// Writes text to stderr through the one sanitizer.
fn say(text: &str) -> Result<(), HeadlessError> {
    let mut err = std::io::stderr().lock();
    err.write_all(crate::text::multiline(text).as_bytes())
        .and_then(|()| err.write_all(b"\n"))
        .and_then(|()| err.flush())
        .map_err(HeadlessError::Io)
}

/// A status as the platform names it (`succeeded` is `delivered` on deliveries).
fn platform_status(s: &NotificationStatus) -> String {
    match s.as_str() {
        "succeeded" => "delivered".into(),
        other => other.to_string(),
    }
}

/// The selection of a recover or wait on deliveries.
pub(super) fn selection_of(
    args: &super::selection::SelectionArgs,
) -> Result<retry::RetrySelection, HeadlessError> {
    if !args.callbacks.is_empty() {
        return Err(usage(
            "--callback is pulsar's: deliveries are selected by --destination, --event, --event-type and --status here.",
        ));
    }
    if let (Some(s), Some(u)) = (args.since, args.until)
        && u < s
    {
        return Err(usage("--until is before --since: the window is empty."));
    }
    Ok(retry::RetrySelection {
        destinations: args.destinations.clone(),
        events: args.events.clone(),
        event_types: args.event_types.clone(),
        statuses: args.statuses.iter().map(platform_status).collect(),
        retried: args.retried,
        since: args.since,
        until: args.until,
        deliveries: Vec::new(),
    })
}

/// The service's journal (the one pulsar's recover keeps, per base URL and instance).
fn journal(client: &Client, profile: &str) -> Result<Journal, HeadlessError> {
    let data_dir = crate::config::Paths::with_config(None)
        .data_dir
        .ok_or_else(|| usage("no data directory for the journal (set HOME or XDG_DATA_HOME)"))?;
    Journal::open_for(&data_dir, &ServiceIdentity::of(client), profile)
        .map_err(|e| HeadlessError::Io(std::io::Error::other(e.to_string())))
}

/// `notifications recover` on event-destinations.
///
/// # Errors
/// Usage, the API's error, the journal's, or the run's outcome (exit 3, 4 or 130).
pub async fn recover(
    client: &Client,
    format: OutputFormat,
    args: RecoverArgs,
    read_only: bool,
    profile: &str,
) -> Result<(), HeadlessError> {
    if args.to.is_some() {
        return super::current_replay::recover_to(client, format, args, read_only, profile).await;
    }
    if args.check_in_doubt {
        return Err(usage(
            "--check-in-doubt is pulsar's: on event-destinations name a delivery left in doubt with --again to ask the platform again.",
        ));
    }
    if read_only {
        return Err(usage(
            "refused: read-only mode (--read-only or the profile's read_only): a retry changes the platform's deliveries.",
        ));
    }
    if let Some(bad) = args.again.iter().find(|id| !id.starts_with("evdi_")) {
        return Err(usage(format!(
            "--again takes delivery ids (evdi_…), not {}",
            line(bad)
        )));
    }
    let mut sel = selection_of(&args.selection)?;
    // `--since`/`--until` were read on this machine's clock; `created_at` is the server's.
    let offset = client.clock_offset().await;
    sel.since = sel.since.map(|t| t + offset);
    sel.until = sel.until.map(|t| t + offset);
    if !args.again.is_empty() {
        // Exactly the named ones: the rest of the selection is not walked.
        sel.deliveries = args.again.clone();
    }
    let mut journal = journal(client, profile)?;
    for u in journal.unreadable() {
        say(&format!(
            "journal {} line {} could not be read; {} in doubt until asked with --again",
            journal.path().display(),
            u.line,
            if u.notifications.is_empty() {
                "nothing it names is".to_string()
            } else {
                u.notifications.join(", ")
            }
        ))?;
    }
    let mut plan = retry::plan(client, &sel, &journal, &args.again).await?;
    say(&plan.overview(args.dry_run).join("\n"))?;
    let terminal = std::io::stdout().is_terminal();
    if args.dry_run {
        for item in &plan.items {
            let v = json!({
                "delivery": item.delivery,
                "status": item.status,
                "event_type": item.event_type,
                "destination": item.destination,
                "created_at": item.created_at,
                "attempts": item.attempts,
                "dry_run": true,
            });
            write_line(format, terminal, &v, &format!("{}", line(&item.summary())))?;
        }
        return in_doubt(&plan);
    }
    if plan.items.is_empty() {
        return in_doubt(&plan);
    }
    let total = plan.items.len();
    let mut progress = Progress::new(total, std::io::stderr().is_terminal());
    let mut interrupt = super::interrupt::Interrupt::listen();
    let stop = async move {
        interrupt.recv().await;
        let _ = say("stopping: the retries in flight finish; the same command asks the rest");
    };
    let mut write_error: Option<HeadlessError> = None;
    let mut accepted: Vec<(String, u64)> = Vec::new();
    let items = std::mem::take(&mut plan.items);
    let summary = retry::run(
        client,
        items,
        args.concurrency,
        &args.again,
        &mut journal,
        stop,
        |r| {
            if let Answer::Accepted { attempts } = r.answer {
                accepted.push((r.item.delivery.clone(), attempts));
            }
            // On a terminal only what was not accepted gets a line; piped, every retry does.
            if format != OutputFormat::Table || !matches!(r.answer, Answer::Accepted { .. }) {
                progress.clear();
                if let Err(e) = write_line(format, terminal, &retried_json(r), &retried_line(r)) {
                    write_error.get_or_insert(e);
                }
            }
            progress.step(!matches!(r.answer, Answer::Accepted { .. }));
        },
    )
    .await
    .map_err(|e| HeadlessError::Io(std::io::Error::other(e.to_string())))?;
    progress.clear();
    if let Some(e) = write_error {
        return Err(e);
    }
    say(&summary_text(&summary, journal.path()))?;
    // The new attempts, as they land: told, never counted in the exit code.
    let within = args.wait.unwrap_or(FOLLOW);
    if !within.is_zero() && !accepted.is_empty() {
        let n = accepted.len();
        say(&format!(
            "following the new attempts of {n} retried deliver{} for up to {} s",
            retry::plural(n),
            within.as_secs()
        ))?;
        let mut failed_write: Option<HeadlessError> = None;
        let late = retry::follow(client, accepted, within, LOOK_EVERY, |l| {
            if failed_write.is_none()
                && let Err(e) = write_line(format, terminal, &landed_json(l), &landed_line(l))
            {
                failed_write = Some(e);
            }
        })
        .await;
        if let Some(e) = failed_write {
            return Err(e);
        }
        if !late.is_empty() {
            say(&format!(
                "{} new attempt{} not landed within {} s (notifications get ID shows them later)",
                late.len(),
                if late.len() == 1 { "" } else { "s" },
                within.as_secs()
            ))?;
        }
    }
    let doubt = in_doubt(&plan);
    outcome(&summary).and(doubt)
}

/// One line: JSON when not a table, else the table's text.
fn write_line(
    format: OutputFormat,
    terminal: bool,
    v: &Value,
    text: &str,
) -> Result<(), HeadlessError> {
    output::emit(|out| match format {
        OutputFormat::Json | OutputFormat::Ndjson => {
            output::write_raw(out, &v.to_string(), terminal)
        }
        OutputFormat::Table => writeln!(out, "{text}"),
    })
}

fn retry_word(a: &Answer) -> &'static str {
    match a {
        Answer::Accepted { .. } => "accepted",
        Answer::Refused { .. } => "refused",
        Answer::Unreachable(_) => "unreachable",
    }
}

/// One retry as a JSON line: `{"delivery", "retry": accepted|refused|unreachable, …}`.
fn retried_json(r: &Retried) -> Value {
    let mut v = json!({
        "delivery": r.item.delivery,
        "retry": retry_word(&r.answer),
        "destination": r.item.destination,
        "event_type": r.item.event_type,
        "was": r.item.status,
    });
    match &r.answer {
        Answer::Accepted { attempts } => v["attempts_before"] = json!(attempts),
        Answer::Refused { status, message } => {
            v["http_status"] = json!(status);
            v["error"] = json!(line(message));
        }
        Answer::Unreachable(why) => v["error"] = json!(line(why)),
    }
    v
}

fn retried_line(r: &Retried) -> String {
    let why = match &r.answer {
        Answer::Accepted { .. } => String::new(),
        Answer::Refused { status, message } => format!("  HTTP {status}: {message}"),
        Answer::Unreachable(why) => format!("  {why}"),
    };
    line(&format!(
        "{:<11}  {}  {}{why}",
        retry_word(&r.answer).to_uppercase(),
        r.item.delivery,
        r.item.destination
    ))
    .into_owned()
}

/// A new attempt as a JSON line: `{"outcome": succeeded|failed, "delivery", "attempt", …}`.
fn landed_json(l: &Landed) -> Value {
    let a = &l.attempt;
    json!({
        "outcome": l.outcome(),
        "delivery": l.delivery,
        "delivery_status": l.status,
        "attempt": a.get("id").cloned().unwrap_or(Value::Null),
        "attempt_number": a.get("attempt_number").cloned().unwrap_or(Value::Null),
        "http_status": a.pointer("/response/status_code").cloned().unwrap_or(Value::Null),
        "duration_ms": a.get("duration_ms").cloned().unwrap_or(Value::Null),
        "error": a.get("error").cloned().unwrap_or(Value::Null),
    })
}

fn landed_line(l: &Landed) -> String {
    let a = &l.attempt;
    let http = a
        .pointer("/response/status_code")
        .and_then(Value::as_u64)
        .map_or_else(|| "no answer".to_string(), |s| format!("HTTP {s}"));
    line(&format!(
        "OUTCOME      {}  attempt #{}  {}  {http}  (delivery now {})",
        l.delivery,
        a.get("attempt_number").and_then(Value::as_u64).unwrap_or(0),
        l.outcome(),
        l.status
    ))
    .into_owned()
}

fn summary_text(s: &RunSummary, journal: &std::path::Path) -> String {
    let mut out = format!(
        "{} asked: {} accepted, {} refused, {} unreachable",
        s.accepted + s.refused + s.unreachable,
        s.accepted,
        s.refused,
        s.unreachable
    );
    if s.claimed_elsewhere > 0 {
        out.push_str(&format!(
            "; {} not asked: another run had claimed them",
            s.claimed_elsewhere
        ));
    }
    if s.stopped {
        out.push_str(&format!(
            "\nstopped: {} not asked; the same command asks the rest",
            s.left
        ));
    }
    out.push_str(&format!("\njournal: {}", journal.display()));
    out
}

/// Exit 130 when stopped, 4 when some got no answer, 3 when some were refused.
fn outcome(s: &RunSummary) -> Result<(), HeadlessError> {
    let (code, message) = if s.stopped {
        (STOPPED, format!("stopped with {} not asked", s.left))
    } else if s.unreachable > 0 {
        (4, format!("{} retries got no answer", s.unreachable))
    } else if s.refused > 0 {
        (3, format!("{} retries were refused", s.refused))
    } else {
        return Ok(());
    };
    Err(HeadlessError::Outcome { code, message })
}

/// One `in doubt: evdi_…` line per delivery an earlier run left in doubt; exit 3 when any.
fn in_doubt(plan: &RetryPlan) -> Result<(), HeadlessError> {
    if plan.in_doubt.is_empty() {
        return Ok(());
    }
    for id in &plan.in_doubt {
        say(&format!(
            "in doubt: {id} (a run asked its retry and left no answer)"
        ))?;
    }
    let n = plan.in_doubt.len();
    Err(HeadlessError::Outcome {
        code: 3,
        message: format!(
            "{n} in doubt, not asked again: the platform may have accepted {}; --again {} asks again",
            if n == 1 { "it" } else { "them" },
            plan.in_doubt.join(" ")
        ),
    })
}

/// A progress line on stderr, drawn only on a terminal, at most ten times a second.
struct Progress {
    total: usize,
    done: usize,
    not_ok: usize,
    on: bool,
    drawn: Option<std::time::Instant>,
}

impl Progress {
    fn new(total: usize, on: bool) -> Self {
        Self {
            total,
            done: 0,
            not_ok: 0,
            on,
            drawn: None,
        }
    }

    fn step(&mut self, not_ok: bool) {
        self.done += 1;
        self.not_ok += usize::from(not_ok);
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
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r[{}{}] {}/{}  {} not accepted",
            "#".repeat(filled),
            "-".repeat(WIDTH - filled),
            self.done,
            self.total,
            self.not_ok
        );
        let _ = err.flush();
        self.drawn = Some(std::time::Instant::now());
    }

    fn clear(&mut self) {
        if self.on && self.drawn.take().is_some() {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}

/// `notifications wait` on deliveries: polls the selection until it holds `--count` deliveries
/// in the wanted state (printed; exit 0), one of them ended failed or cancelled while another
/// state was wanted (printed; exit 3), or the timeout (exit 5).
///
/// # Errors
/// Usage, the API's error, or the wait's outcome.
pub async fn wait(
    client: &Client,
    format: OutputFormat,
    args: WaitArgs,
) -> Result<(), HeadlessError> {
    let mut sel = selection_of(&args.selection)?;
    let offset = client.clock_offset().await;
    sel.since = sel.since.map(|t| t + offset);
    sel.until = sel.until.map(|t| t + offset);
    let want = platform_status(&args.state);
    // Every state is looked at: an end other than the one wanted must be seen.
    let f = DeliveryFilter {
        statuses: Vec::new(),
        ..sel.filter()
    };
    let since = sel.since;
    let look = || async {
        let mut reached: Vec<Value> = Vec::new();
        let mut ended: Vec<Value> = Vec::new();
        let q = ListQuery {
            order: Some(Order::Desc),
            ..ListQuery::default()
        };
        crate::api::lookup::walk(
            client,
            q,
            |q| ApiRequest::list_deliveries(q, &f),
            |page: Vec<Value>| {
                for d in page {
                    let created = d
                        .get("created_at")
                        .and_then(Value::as_str)
                        .and_then(crate::api::model::time::parse);
                    if let (Some(s), Some(c)) = (since, created)
                        && c < s
                    {
                        // Newest first: nothing after this is in the window.
                        return false;
                    }
                    if !sel.matches(&d) {
                        continue;
                    }
                    if !sel.statuses.is_empty()
                        && !sel
                            .statuses
                            .iter()
                            .any(|s| d.get("status").and_then(Value::as_str) == Some(s))
                    {
                        continue;
                    }
                    let status = d.get("status").and_then(Value::as_str).unwrap_or_default();
                    if status == want {
                        reached.push(d);
                    } else if matches!(status, "failed" | "cancelled") {
                        ended.push(d);
                    }
                }
                true
            },
        )
        .await
        .map(|()| (reached, ended))
    };
    let deadline = tokio::time::Instant::now() + args.timeout;
    let mut said = false;
    let mut seen = 0;
    loop {
        let (reached, ended) = match tokio::time::timeout_at(deadline, look()).await {
            Err(_) => return Err(timed_out(&args, &want, seen)),
            Ok(r) => r?,
        };
        if !ended.is_empty() {
            let ended: Vec<Value> = ended.into_iter().take(args.count).collect();
            print(format, &ended)?;
            return Err(HeadlessError::Outcome {
                code: FAILED,
                message: format!(
                    "{} ended {}",
                    ended
                        .iter()
                        .filter_map(|d| d.get("id").and_then(Value::as_str))
                        .map(output::clean)
                        .collect::<Vec<_>>()
                        .join(", "),
                    ended
                        .first()
                        .and_then(|d| d.get("status").and_then(Value::as_str))
                        .unwrap_or("failed")
                ),
            });
        }
        seen = reached.len();
        if seen >= args.count {
            let reached: Vec<Value> = reached.into_iter().take(args.count).collect();
            return print(format, &reached);
        }
        if !said {
            say(&format!(
                "waiting up to {} ms for {} deliver{} {want} ({seen} so far)",
                args.timeout.as_millis(),
                args.count,
                retry::plural(args.count)
            ))?;
            said = true;
        }
        let now = tokio::time::Instant::now();
        if now >= deadline {
            return Err(timed_out(&args, &want, seen));
        }
        tokio::time::sleep(args.interval.min(deadline - now)).await;
    }
}

fn timed_out(args: &WaitArgs, want: &str, seen: usize) -> HeadlessError {
    HeadlessError::Outcome {
        code: TIMED_OUT,
        message: format!(
            "timed out after {} ms: {seen} of {} deliver{} {want}",
            args.timeout.as_millis(),
            args.count,
            retry::plural(args.count)
        ),
    }
}

/// NDJSON (one delivery a line) or a table of the deliveries.
fn print(format: OutputFormat, ds: &[Value]) -> Result<(), HeadlessError> {
    let terminal = std::io::stdout().is_terminal();
    output::emit(|out| match format {
        OutputFormat::Json | OutputFormat::Ndjson => {
            for d in ds {
                output::write_raw(out, &d.to_string(), terminal)?;
            }
            Ok(())
        }
        OutputFormat::Table => {
            for d in ds {
                let text = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or_default();
                writeln!(
                    out,
                    "{}",
                    line(&format!(
                        "{}  {}  {}  {}  attempts {}",
                        text("id"),
                        text("status"),
                        text("event_type"),
                        text("event_destination_id"),
                        d.get("attempt_count").and_then(Value::as_u64).unwrap_or(0)
                    ))
                )?;
            }
            Ok(())
        }
    })
}

/// An attempt's recorded answer, as [`crate::api::compare`] compares answers.
pub(super) fn answer_of(a: &Value) -> crate::api::compare::Answer {
    let r = a.get("response").filter(|r| r.is_object());
    let error = match a.get("error") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(v @ Value::Object(_)) => v
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| Some(v.to_string())),
        _ => None,
    };
    crate::api::compare::Answer {
        label: format!(
            "attempt #{}",
            a.get("attempt_number").and_then(Value::as_i64).unwrap_or(0)
        ),
        status: r.and_then(|r| r.get("status_code")).and_then(Value::as_i64),
        duration_ms: a.get("duration_ms").and_then(Value::as_u64),
        headers: r
            .and_then(|r| r.get("headers"))
            .and_then(Value::as_array)
            .map(|hs| {
                hs.iter()
                    .filter_map(|h| {
                        Some((
                            h.get("key")?.as_str()?.to_string(),
                            h.get("value")?.as_str()?.to_string(),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default(),
        body: r
            .and_then(|r| r.get("body"))
            .and_then(Value::as_str)
            .map(str::to_string),
        error,
        // Recorded by the platform: fail closed.
        origin: crate::text::redact::HeaderOrigin::Elsewhere,
    }
}

/// The profile's answers' log (pulsar's too), where replays keep their answers.
fn answer_log(ctx: &super::ForwardContext) -> Option<crate::api::forward::AnswerLog> {
    ctx.data_dir
        .as_ref()
        .map(|dir| crate::api::forward::AnswerLog::new(dir, &ctx.profile))
}

/// `notifications diff ID [--attempt A] (--with-attempt B | --with-replay N)` on deliveries: an
/// attempt's answer beside another attempt's or the N-th newest replayed answer kept in
/// `history` (newest first), as pulsar's diff shows them. Exit 0 whether or not they differ.
async fn diff(
    client: &Client,
    format: OutputFormat,
    args: super::DiffArgs,
    history: &[crate::api::compare::Answer],
) -> Result<(), HeadlessError> {
    if args.with_attempt.is_none() && args.with_replay.is_none() {
        return Err(usage(
            "say what to compare with: --with-attempt B or --with-replay N",
        ));
    }
    // The kept answer is looked up before any request: a missing one is a usage error.
    let kept = match (args.with_attempt, args.with_replay) {
        (None, Some(k)) => Some(history.get(k.wrapping_sub(1)).cloned().ok_or_else(|| {
            usage(format!(
                "--with-replay {k}: this profile keeps {} replayed or forwarded answer(s) of {} (1 is the newest; --with-attempt B compares two recorded attempts)",
                history.len(),
                args.id
            ))
        })?),
        _ => None,
    };
    let raw = client.send(&ApiRequest::get_delivery(&args.id)).await?;
    let d: Value = crate::api::client::decode(raw.status, &raw.body)?;
    let attempts = d
        .get("attempts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let n_of = |a: &Value| a.get("attempt_number").and_then(Value::as_i64).unwrap_or(0);
    let a = match args.attempt {
        Some(n) => n,
        None => attempts.iter().map(n_of).max().unwrap_or(0),
    };
    let mut answers = Vec::new();
    let sides = [
        ("--attempt", Some(a)),
        ("--with-attempt", args.with_attempt),
    ];
    for (flag, n) in sides.into_iter().filter_map(|(f, n)| Some((f, n?))) {
        let Some(id) = attempts
            .iter()
            .find(|x| n_of(x) == n)
            .and_then(|x| x.get("id").and_then(Value::as_str))
        else {
            return Err(usage(format!(
                "{flag}: delivery {} has no attempt #{n} ({} recorded)",
                args.id,
                attempts.len()
            )));
        };
        let raw = client.send(&ApiRequest::get_delivery_attempt(id)).await?;
        let full: Value = crate::api::client::decode(raw.status, &raw.body)?;
        answers.push(answer_of(&full));
    }
    answers.extend(kept);
    let [left, right] = answers.as_slice() else {
        return Err(usage("nothing to compare"));
    };
    let c = crate::api::compare::compare(left, right);
    let text = match format {
        OutputFormat::Json | OutputFormat::Ndjson => {
            let mut v = serde_json::to_value(&c).map_err(|e| HeadlessError::Io(e.into()))?;
            if let Value::Object(m) = &mut v {
                m.insert("object".into(), json!("switchboard.diff"));
                m.insert("delivery_id".into(), json!(line(&args.id)));
            }
            serde_json::to_string_pretty(&v).map_err(|e| HeadlessError::Io(e.into()))?
        }
        OutputFormat::Table => super::diff::table(&args.id, &c),
    };
    let terminal = std::io::stdout().is_terminal();
    output::emit(|out| output::write_raw(out, &text, terminal))
}
