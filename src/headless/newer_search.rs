//! `notifications search EXPR` on the newer generations (issue 38): the list walked newest first
//! within the walk's budget ([`crate::api::newer_search::Walk`]: the platform's filters applied on
//! the server, a callback-destinations walk merging every callback's pages), each item read
//! whole by id, EXPR run on the built-in jq on a thread of its own, matches printed as each page
//! is read (NDJSON; a table at the end on a terminal), progress and the summary on stderr.
use std::io::IsTerminal;
use std::sync::mpsc;

use serde_json::Value;

use super::HeadlessError;
use super::jq::{Bounds, Doc, RunError, Verdict};
use super::output::{self, Output};
use super::search::SearchArgs;
use crate::api::newer_requests::{CallbackNotificationFilter, DeliveryFilter};
use crate::api::newer_search::{Source, Walk, read_all};
use crate::api::search::{self, Tally};
use crate::api::selection::Selection;
use crate::api::{Client, Error};
use crate::text::line;

/// The columns of a delivery (event-destinations) in a table, as JSON paths.
const DELIVERY_COLUMNS: &[&str] = &[
    "id",
    "status",
    "event_type",
    "event_destination_id",
    "attempt_count",
    "created_at",
];
/// The columns of a notification (callback-destinations) in a table, as JSON paths.
const NOTIFICATION_COLUMNS: &[&str] = &[
    "id",
    "status",
    "event.type",
    "destination.name",
    "attempt_count",
    "created_at",
];

/// What a generation's search walks and how its selection reads each item.
pub(super) struct Plan {
    /// The list.
    pub(super) source: Source,
    /// Deliveries' server filters (event-destinations).
    pub(super) deliveries: DeliveryFilter,
    /// Notifications' server filters (callback-destinations).
    pub(super) notifications: CallbackNotificationFilter,
    /// The window and `--retried`, read from each item.
    pub(super) selection: Selection,
}

/// Whether `v` is within the window (`None`: older than it, and so is all after it) and
/// `--retried`.
fn within(s: &Selection, v: &Value) -> Option<bool> {
    let t = v
        .get("created_at")
        .and_then(Value::as_str)
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&chrono::Utc));
    if let (Some(since), Some(t)) = (s.since, t)
        && t < since
    {
        return None;
    }
    let attempts = v.get("attempt_count").and_then(Value::as_u64).unwrap_or(0);
    Some(s.until.is_none_or(|u| t.is_none_or(|t| t <= u)) && (!s.retried || attempts > 1))
}

/// Runs the search of `plan`.
///
/// # Errors
/// EXPR past its bounds or failing to run (exit 2), the API's error (the walk's budget: exit 3,
/// after the matches found and the summary), an output error.
pub(super) async fn run(
    client: &Client,
    out: &Output,
    args: SearchArgs,
    plan: Plan,
) -> Result<(), HeadlessError> {
    let progress = std::io::stderr().is_terminal();
    let table = out.table();
    let callbacks = matches!(plan.source, Source::Callbacks(_));
    let (docs, docs_rx) = mpsc::channel::<Doc>();
    let (verdicts_tx, verdicts) = mpsc::channel::<Verdict>();
    let jq = args.expr.clone();
    // jaq's values are not `Send`: the filter runs on a thread of its own, a page at a time.
    let filter = std::thread::Builder::new()
        .name("search".into())
        .spawn(move || {
            jq.test(
                docs_rx.into_iter(),
                move |v| verdicts_tx.send(v).is_ok(),
                Bounds::default(),
                &|why| {
                    let e = HeadlessError::Usage(format!("search: {why}"));
                    eprintln!("{}", output::error_json(&e));
                    std::process::exit(e.exit_code());
                },
            )
        })
        .map_err(HeadlessError::Io)?;
    let lines = Output {
        format: output::OutputFormat::Ndjson,
        ..out.clone()
    };
    let mut walk = Walk::new(client, plan.source, plan.deliveries, plan.notifications);
    let mut tally = Tally::default();
    let mut kept: Vec<Value> = Vec::new();
    let walked: Result<(), Error> = 'walk: loop {
        let page = match walk.next(client).await {
            Ok(p) if p.is_empty() => break Ok(()),
            Ok(p) => p,
            Err(e) => break Err(e),
        };
        let mut asked: Vec<Value> = Vec::new();
        let mut ended = false;
        let mut chosen = Vec::new();
        for listed in page {
            match within(&plan.selection, &listed.item) {
                None => {
                    ended = true;
                    break;
                }
                Some(false) => tally.examined += 1,
                Some(true) => {
                    tally.examined += 1;
                    if let Some(t) = listed.item.get("created_at").and_then(Value::as_str) {
                        tally.back_to = Some(t.to_string());
                    }
                    chosen.push(listed);
                }
            }
        }
        for one in read_all(client, chosen).await {
            match one {
                Ok(Some((v, doc))) => {
                    if docs.send(doc).is_err() {
                        break;
                    }
                    asked.push(v);
                }
                Ok(None) => {}
                Err(e) => break 'walk Err(e),
            }
        }
        let mut found = Vec::new();
        for v in asked {
            match verdicts.recv() {
                Ok(verdict) => {
                    if search::count(&mut tally, verdict) {
                        found.push(v);
                    }
                }
                Err(_) => break,
            }
        }
        if table {
            kept.extend(found);
        } else if !found.is_empty() {
            lines.items(&found)?;
        }
        if progress {
            eprint!("\r\x1b[K{}", line(&tally.line()));
        }
        if ended {
            break Ok(());
        }
    };
    drop(docs);
    let ran = filter
        .join()
        .unwrap_or_else(|_| Err(RunError::Filter("the filter failed".into())));
    if progress {
        eprint!("\r\x1b[K");
    }
    if table && !kept.is_empty() {
        let cols = if callbacks {
            NOTIFICATION_COLUMNS
        } else {
            DELIVERY_COLUMNS
        };
        let fields: Vec<String> = cols.iter().map(|c| (*c).to_string()).collect();
        out.field_table(out.fields.as_ref().unwrap_or(&fields), &kept)?;
    }
    eprintln!("{}", line(&tally.line()));
    if tally.failed > 0 {
        eprintln!(
            "EXPR failed on {} (not counted as matches); the first: {}",
            tally.failed,
            line(tally.first_failure.as_deref().unwrap_or("-"))
        );
    }
    match ran {
        Ok(()) => {}
        Err(RunError::Filter(m)) => return Err(HeadlessError::Usage(format!("search: {m}"))),
        Err(RunError::Write(e)) => return Err(output::output_error(e)),
    }
    walked.map_err(Into::into)
}
