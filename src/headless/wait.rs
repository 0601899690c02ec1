//! `notifications wait [selection] --for status=S [--count N] [--timeout 30s]`: polls the
//! selection until it holds N notifications in state S and prints them (exit 0), until one of
//! them ends `failed` (printed; exit 3), or until the timeout (exit 5). For a CI job that posts
//! an event and must know its delivery landed; `--since 0s` counts only notifications created
//! after `wait` starts.
use std::time::Duration;

use clap::Args;
use tokio::time::Instant;

use super::HeadlessError;
use super::output::{self, OutputFormat};
use super::selection::{SelectionArgs, parse_list_status, pulsar_statuses};
use crate::api::model::{Notification, NotificationStatus};
use crate::api::selection::{PAGE, Selection, parse_duration};
use crate::api::{ApiRequest, Client, ListQuery, Order};

/// The exit code of a wait that timed out.
pub const TIMED_OUT: i32 = 5;
/// The exit code of a wait that saw a selected notification end `failed`.
pub const FAILED: i32 = 3;

/// `notifications wait`.
#[derive(Args, Debug, Clone)]
pub struct WaitArgs {
    /// Which notifications.
    #[command(flatten)]
    pub selection: SelectionArgs,
    /// The state to wait for: `status=succeeded` (or `failed`, `retrying`, `pending`;
    /// callback-destinations also says `delivered`).
    #[arg(long = "for", value_name = "status=S", value_parser = parse_for)]
    pub state: NotificationStatus,
    /// How many notifications must be in that state.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub count: usize,
    /// Give up after this long (`500ms`, `30s`, `5m`): exit 5.
    #[arg(long, value_name = "D", default_value = "30s", value_parser = duration)]
    pub timeout: Duration,
    /// How often to look (`250ms`, `2s`).
    #[arg(long, value_name = "D", default_value = "500ms", value_parser = duration)]
    pub interval: Duration,
}

fn duration(s: &str) -> Result<Duration, String> {
    parse_duration(s).map_err(|e| e.to_string())
}

/// `status=S`.
fn parse_for(s: &str) -> Result<NotificationStatus, String> {
    let Some(v) = s.trim().strip_prefix("status=") else {
        return Err(format!(
            "{s:?}: wait --for status=S (succeeded, failed, retrying or pending)"
        ));
    };
    // Deliveries of event-destinations also end delivered or cancelled: pulsar refuses them.
    parse_list_status(v)
}

/// What the selection holds now.
enum Verdict {
    /// Enough in the wanted state.
    Reached(Vec<Notification>),
    /// Some ended failed (while something else was wanted).
    Failed(Vec<Notification>),
    /// Not yet.
    Waiting(usize),
}

/// What one look kept: only what the wait is about (at most `count` in the wanted state and
/// `count` failed ones), whatever the selection holds besides.
#[derive(Default)]
struct Kept {
    reached: Vec<Notification>,
    reached_total: usize,
    failed: Vec<Notification>,
}

impl Kept {
    fn keep(&mut self, n: Notification, state: &NotificationStatus, count: usize) {
        if n.status == *state {
            self.reached_total += 1;
            if self.reached.len() < count {
                self.reached.push(n);
            }
        } else if n.status == NotificationStatus::Failed && self.failed.len() < count {
            self.failed.push(n);
        }
    }
}

#[cfg(test)]
fn judge(found: Vec<Notification>, state: &NotificationStatus, count: usize) -> Verdict {
    let mut kept = Kept::default();
    for n in found {
        kept.keep(n, state, count);
    }
    verdict(kept, count)
}

fn verdict(kept: Kept, count: usize) -> Verdict {
    // A failure is what a CI job most needs to hear about: it wins over a count reached.
    if !kept.failed.is_empty() {
        Verdict::Failed(kept.failed)
    } else if kept.reached_total >= count {
        Verdict::Reached(kept.reached)
    } else {
        Verdict::Waiting(kept.reached_total)
    }
}

/// One look at the selection, newest first to the window's start, within the client's walk
/// budget, keeping only what the wait is about.
async fn look(
    client: &Client,
    selection: &Selection,
    state: &NotificationStatus,
    count: usize,
) -> Result<Verdict, crate::api::Error> {
    let filter = selection.filter();
    let q = ListQuery {
        limit: Some(PAGE),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let mut kept = Kept::default();
    crate::api::lookup::walk(
        client,
        q,
        |q| ApiRequest::list_notifications(q, &filter),
        |items: Vec<Notification>| {
            for n in items {
                if selection.before_window(&n) {
                    // Ids, hence pages, are in time order: nothing after this is in the window.
                    return false;
                }
                if selection.matches(&n) {
                    kept.keep(n, state, count);
                }
            }
            true
        },
    )
    .await?;
    Ok(verdict(kept, count))
}

/// Waits as asked and prints the notifications it ended on.
///
/// # Errors
/// The API's error, a failed notification (exit 3) or the timeout (exit 5).
pub async fn run(
    client: &Client,
    format: OutputFormat,
    args: WaitArgs,
) -> Result<(), HeadlessError> {
    pulsar_statuses(std::slice::from_ref(&args.state)).map_err(HeadlessError::Usage)?;
    let mut selection = args.selection.selection()?;
    // `--since`/`--until` were read on this machine's clock; `created_at` is the server's.
    let offset = client.clock_offset().await;
    selection.since = selection.since.map(|t| t + offset);
    selection.until = selection.until.map(|t| t + offset);
    let look = || look(client, &selection, &args.state, args.count);
    let deadline = Instant::now() + args.timeout;
    let timed_out = |seen: usize| HeadlessError::Outcome {
        code: TIMED_OUT,
        message: format!(
            "timed out after {} ms: {seen} of {} notification{} {}",
            args.timeout.as_millis(),
            args.count,
            if args.count == 1 { "" } else { "s" },
            args.state
        ),
    };
    let mut seen = 0;
    let mut said = false;
    loop {
        let found = match tokio::time::timeout_at(deadline, look()).await {
            Err(_) => return Err(timed_out(seen)),
            Ok(found) => found?,
        };
        match found {
            Verdict::Reached(ns) => return print(format, &ns),
            Verdict::Failed(ns) => {
                print(format, &ns)?;
                return Err(HeadlessError::Outcome {
                    code: FAILED,
                    message: format!(
                        "{} ended failed",
                        ns.iter()
                            .map(|n| output::clean(&n.id))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                });
            }
            Verdict::Waiting(n) => seen = n,
        }
        if !said {
            // One line, so a person (or a test) knows the wait has begun.
            eprintln!(
                "waiting up to {} ms for {} notification{} {} ({seen} so far)",
                args.timeout.as_millis(),
                args.count,
                if args.count == 1 { "" } else { "s" },
                args.state
            );
            said = true;
        }
        if Instant::now() + args.interval >= deadline {
            tokio::time::sleep_until(deadline).await;
            // One last look at the deadline itself, then give up.
            let last = tokio::time::timeout(args.interval, look()).await;
            if let Ok(Ok(Verdict::Reached(ns))) = last {
                return print(format, &ns);
            }
            return Err(timed_out(seen));
        }
        tokio::time::sleep(args.interval).await;
    }
}

/// NDJSON (one notification a line) or a table.
fn print(format: OutputFormat, ns: &[Notification]) -> Result<(), HeadlessError> {
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    output::emit(|out| match format {
        OutputFormat::Json | OutputFormat::Ndjson => {
            for n in ns {
                let text = serde_json::to_string(n).map_err(std::io::Error::other)?;
                output::write_raw(out, &text, terminal)?;
            }
            Ok(())
        }
        OutputFormat::Table => super::columns::write_table(out, ns),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(id: &str, status: &str) -> Notification {
        serde_json::from_value(serde_json::json!({
            "id": id, "type": "webhook_http", "status": status, "url": null,
            "created_at": "2026-01-01T00:00:00.000Z", "attempts": []
        }))
        .expect("notification")
    }

    #[test]
    fn a_failure_ends_the_wait_before_a_count_is_reached() {
        let ok = NotificationStatus::Succeeded;
        assert!(matches!(
            judge(vec![n("a", "succeeded"), n("b", "pending")], &ok, 2),
            Verdict::Waiting(1)
        ));
        assert!(matches!(
            judge(vec![n("a", "succeeded"), n("b", "succeeded")], &ok, 2),
            Verdict::Reached(v) if v.len() == 2
        ));
        assert!(matches!(
            judge(vec![n("a", "succeeded"), n("b", "failed")], &ok, 1),
            Verdict::Failed(v) if v.len() == 1
        ));
        let failed = NotificationStatus::Failed;
        assert!(matches!(
            judge(vec![n("b", "failed")], &failed, 1),
            Verdict::Reached(_)
        ));
        assert_eq!(parse_for("status=succeeded"), Ok(ok));
        assert!(parse_for("succeeded").is_err());
        assert!(parse_for("status=done").is_err());
    }
}
