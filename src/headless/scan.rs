//! `notifications list --status S --event-type T [--count]`: what the API cannot filter, looked
//! for page by page within the walk's budget ([`crate::api::lookup::walk`]): `--limit` counts
//! the matches printed, and a walk stopped by the budget says how far it looked.
use clap::Args;
use serde::Deserialize;
use serde_json::{Value, json};

use super::HeadlessError;
use super::columns;
use super::output::{Output, OutputFormat, emit};
use super::selection::parse_list_status;
use crate::api::model::{Notification, NotificationStatus};
use crate::api::selection::Selection;
use crate::api::{ApiRequest, Client, Error, ListQuery, NotificationFilter};

/// Matches printed without `--limit` or `--all`: a page's worth, as a plain `list` prints.
const DEFAULT_LIMIT: usize = 20;

/// The filters the client applies to `notifications list`.
#[derive(Args, Debug, Clone, Default)]
pub struct ScanArgs {
    /// Only in this state: failed, retrying, succeeded or pending (repeat for several); looked
    /// for page by page, within the walk's budget. On event-destinations, a delivery's: pending,
    /// retrying, delivered, failed or cancelled (the platform filters it).
    #[arg(long = "status", value_name = "S", value_parser = parse_list_status, conflicts_with = "watch")]
    pub statuses: Vec<NotificationStatus>,
    /// Only of this event type (the delivered body's `type`; `build.*` matches a prefix; repeat
    /// for several); looked for page by page, within the walk's budget.
    #[arg(long = "event-type", value_name = "TYPE", conflicts_with = "watch")]
    pub event_types: Vec<String>,
    /// Print only `{"count":N,"examined":M,"complete":bool}`: how many match among those
    /// examined, and whether the walk reached the end (not its budget).
    #[arg(long, conflicts_with_all = ["watch", "limit", "all"])]
    pub count: bool,
    /// Only those created since (a view's `since`; no flag of its own).
    #[arg(skip)]
    pub since: Option<chrono::DateTime<chrono::Utc>>,
}

impl ScanArgs {
    /// Whether the list is looked through by the client rather than printed page by page.
    pub fn wanted(&self) -> bool {
        self.count
            || !self.statuses.is_empty()
            || !self.event_types.is_empty()
            || self.since.is_some()
    }
}

/// Where a walk ended.
enum End {
    /// The list (or `--limit`'s count of matches) ended it.
    Whole,
    /// The budget: the error saying how far it looked.
    Budget(Error),
}

/// Looks through the list from `q` for what `scan` selects and prints the matches (or their
/// count), as they are found under `-o ndjson`.
///
/// # Errors
/// The API's; past the walk's budget, the matches found are printed and then the budget's error
/// (exit 3, naming the `--after` id to continue from); `--count` reports it as `complete: false`.
pub async fn run(
    client: &Client,
    out: &Output,
    q: ListQuery,
    all: bool,
    filter: &NotificationFilter,
    scan: &ScanArgs,
) -> Result<(), HeadlessError> {
    let selection = Selection {
        statuses: scan.statuses.clone(),
        event_types: scan.event_types.clone(),
        since: scan.since,
        ..Selection::default()
    };
    let limit = match (all || scan.count, q.limit) {
        (true, _) => usize::MAX,
        (false, Some(n)) => n as usize,
        (false, None) => DEFAULT_LIMIT,
    };
    let ndjson = out.format == OutputFormat::Ndjson && !scan.count;
    let mut q = q;
    // `--limit` counts matches: the walk reads full pages.
    q.limit = None;
    let (mut examined, mut found) = (0usize, 0usize);
    let mut matches: Vec<Value> = Vec::new();
    let mut more = false;
    let mut failed: Option<HeadlessError> = None;
    let walked = crate::api::lookup::walk(
        client,
        q,
        |q| ApiRequest::list_notifications(q, filter),
        |items: Vec<Value>| {
            let mut page = Vec::new();
            for v in items {
                if found >= limit {
                    break;
                }
                examined += 1;
                // An item of a shape the model does not read is not a match (never a failure).
                let selected = Notification::deserialize(&v).is_ok_and(|n| selection.matches(&n));
                if selected {
                    found += 1;
                    if !scan.count {
                        page.push(v);
                    }
                }
            }
            if ndjson {
                if let Err(e) = out.items(&page) {
                    failed = Some(e);
                    return false;
                }
            } else {
                matches.extend(page);
            }
            more = found >= limit;
            !more
        },
    )
    .await;
    if let Some(e) = failed {
        return Err(e);
    }
    let end = match walked {
        Ok(()) => End::Whole,
        Err(e @ Error::TooManyPages { .. }) => End::Budget(e),
        Err(e) => return Err(e.into()),
    };
    if scan.count {
        let complete = matches!(end, End::Whole);
        let text = json!({"count": found, "examined": examined, "complete": complete}).to_string();
        return out.document(&text);
    }
    if !ndjson {
        print(out, matches, all, more)?;
    }
    match end {
        End::Whole => Ok(()),
        End::Budget(e) => Err(e.into()),
    }
}

/// The matches: under `--all` one array (as `--all` prints), else a page's envelope whose
/// `has_more_after` says whether more matches may follow; or a table.
fn print(out: &Output, matches: Vec<Value>, all: bool, more: bool) -> Result<(), HeadlessError> {
    if out.table() {
        if let Some(fields) = &out.fields {
            return out.field_table(fields, &matches);
        }
        let typed: Vec<Notification> = matches
            .into_iter()
            .filter_map(|v| serde_json::from_value(v).ok())
            .collect();
        return emit(|w| {
            columns::write_table(w, &typed)?;
            if typed.is_empty() {
                writeln!(w, "(no notifications)")?;
            }
            Ok(())
        });
    }
    if all {
        return out.items(&matches);
    }
    let envelope = json!({
        "object": "list",
        "items": matches,
        "pagination": {"has_more_before": false, "has_more_after": more},
    });
    out.document(&envelope.to_string())
}
