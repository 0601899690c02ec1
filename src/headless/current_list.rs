//! `notifications list --count` and `--watch` on `event-destinations` deliveries: the platform
//! filters status, event type and destination, so the client only counts or follows.
use std::time::Duration;

use serde_json::{Value, json};

use super::HeadlessError;
use super::output::{self, Output, OutputFormat};
use crate::api::newer_requests::DeliveryFilter;
use crate::api::page::{ListQuery, Order, Page};
use crate::api::{ApiRequest, Client};

/// The first wait after the service stopped answering, doubled up to [`RETRY_MAX`].
const RETRY_FIRST: Duration = Duration::from_millis(500);
/// The longest wait between two tries.
const RETRY_MAX: Duration = Duration::from_secs(30);

/// Event types as the platform filters them: exactly (pulsar's `build.*` prefix is refused here
/// rather than silently matching nothing).
///
/// # Errors
/// Usage for a prefix pattern.
pub fn event_types(types: Vec<String>) -> Result<Vec<String>, HeadlessError> {
    if let Some(t) = types.iter().find(|t| t.ends_with('*')) {
        return Err(HeadlessError::Usage(format!(
            "--event-type {}: on deliveries the platform matches an event type exactly; a prefix (build.*) is pulsar's",
            crate::text::line(t)
        )));
    }
    Ok(types)
}

/// `--count`: `{"count":N,"examined":N,"complete":true}`, every page the filter selects read.
///
/// # Errors
/// The API's.
pub async fn count(client: &Client, out: &Output, f: &DeliveryFilter) -> Result<(), HeadlessError> {
    let mut n = 0usize;
    crate::api::lookup::walk(
        client,
        ListQuery::default(),
        |q| ApiRequest::list_deliveries(q, f),
        |page: Vec<Value>| {
            n += page.len();
            true
        },
    )
    .await?;
    let text = json!({"count": n, "examined": n, "complete": true}).to_string();
    out.document(&text)
}

/// The service restarting (refused, reset, 5xx, 429): waited out, not the end of the watch.
fn passing(e: &crate::api::Error) -> bool {
    use crate::api::Error;
    match e {
        Error::Network(_) | Error::Timeout(_) => true,
        Error::Api(a) => a.status >= 500 || a.status == 429,
        Error::Decode { status, .. } => *status >= 500,
        _ => false,
    }
}

fn id_of(v: &Value) -> Option<String> {
    v.get("id").and_then(Value::as_str).map(str::to_string)
}

/// One delivery as a table line (the platform's text sanitised).
fn row(v: &Value) -> String {
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("-").to_string();
    crate::text::line(&format!(
        "{}  {}  {}  {}  {}",
        s("id"),
        s("status"),
        s("event_type"),
        s("event_destination_id"),
        s("created_at")
    ))
    .into_owned()
}

/// `--watch`: each delivery created from now on, as it arrives, until interrupted; the service
/// not answering is waited out (0.5 s doubling to 30 s) rather than ending the watch.
///
/// # Errors
/// The API's (other than the service being away), or output's.
pub async fn watch(
    client: &Client,
    out: &Output,
    f: &DeliveryFilter,
    every: Duration,
) -> Result<(), HeadlessError> {
    let newest = ListQuery {
        limit: Some(1),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let raw = client
        .send(&ApiRequest::list_deliveries(&newest, f))
        .await?;
    let page: Page<Value> = crate::api::client::decode(raw.status, &raw.body)?;
    let mut after = page.items.first().and_then(id_of);
    eprintln!(
        "watching for new deliveries every {}ms (Ctrl-C to stop)",
        every.as_millis()
    );
    let mut lines = out.clone();
    if lines.format == OutputFormat::Json {
        lines.format = OutputFormat::Ndjson;
    }
    let mut retry: Option<Duration> = None;
    let mut interrupt = super::interrupt::Interrupt::listen();
    loop {
        let q = ListQuery {
            limit: Some(100),
            after: after.clone(),
            order: Some(Order::Asc),
            ..ListQuery::default()
        };
        let page = match client.send(&ApiRequest::list_deliveries(&q, f)).await {
            Ok(raw) => crate::api::client::decode::<Page<Value>>(raw.status, &raw.body),
            Err(e) => Err(e),
        };
        let page = match page {
            Ok(p) => p,
            Err(e) if passing(&e) => {
                let wait = retry.map_or(RETRY_FIRST, |d| (d * 2).min(RETRY_MAX));
                retry = Some(wait);
                eprintln!(
                    "reconnecting: {}; next try in {}ms",
                    output::clean(&e.to_string()),
                    wait.as_millis()
                );
                tokio::time::sleep(wait).await;
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        if retry.take().is_some() {
            eprintln!("reconnected: watching again");
        }
        let more = page.pagination.has_more_after;
        let last = page.items.last().and_then(id_of);
        let moved = last.is_some() && last != after;
        if let Some(l) = last {
            after = Some(l);
            if lines.table() {
                let text: Vec<String> = page.items.iter().map(row).collect();
                output::emit(|w| writeln!(w, "{}", text.join("\n")))?;
            } else {
                lines.items(&page.items)?;
            }
        }
        if !(more && moved) {
            tokio::select! {
                () = tokio::time::sleep(every) => {}
                () = interrupt.recv() => return Ok(()),
            }
        }
    }
}

/// Matches printed without `--limit` or `--all`: a page's worth, as a plain `list` prints.
const WINDOW_LIMIT: usize = 20;

/// A view's `since` (`--view today`) on deliveries, which the platform cannot filter by time:
/// the list walked newest first ([`crate::api::window::walk`], the platform's filters `f`
/// applied) up to the first delivery created before `since`. `--limit` counts what is printed,
/// `--all` the whole window; `--count` says how many. Under `-o ndjson` each page is printed as
/// it is read.
///
/// # Errors
/// Usage for `--order asc`, `--before` or `--cursor` (the window is read from the newest on);
/// the API's; past the walk's budget, what was found is printed and then the budget's error
/// (exit 3, naming the `--after` id to continue from), which `--count` reports as
/// `complete: false`.
pub async fn window(
    client: &Client,
    out: &Output,
    l: &super::args::ListArgs,
    f: &DeliveryFilter,
    since: chrono::DateTime<chrono::Utc>,
    count: bool,
) -> Result<(), HeadlessError> {
    if l.order == Some(Order::Asc) || l.before.is_some() || l.cursor.is_some() {
        return Err(HeadlessError::Usage(
            "a view's since reads deliveries newest first: --order asc, --before and --cursor do not apply with it (--after continues)".into(),
        ));
    }
    let limit = match (l.all || count, l.limit) {
        (true, _) => usize::MAX,
        (false, Some(n)) => n as usize,
        (false, None) => WINDOW_LIMIT,
    };
    let ndjson = out.format == OutputFormat::Ndjson && !count;
    let mut found: Vec<Value> = Vec::new();
    let mut failed = None;
    let build = |q: &ListQuery| ApiRequest::list_deliveries(q, f);
    let walked = crate::api::window::walk(client, l.after.clone(), build, since, limit, |page| {
        if count {
            return true;
        }
        if ndjson {
            if let Err(e) = out.items(&page) {
                failed = Some(e);
                return false;
            }
        } else {
            found.extend(page);
        }
        true
    })
    .await;
    if let Some(e) = failed {
        return Err(e);
    }
    let (walked, stopped) = match walked {
        Ok(w) => (w, None),
        Err(e @ crate::api::Error::TooManyPages { .. }) => (
            crate::api::window::Walked {
                listed: found.len(),
                ..Default::default()
            },
            Some(e),
        ),
        Err(e) => {
            let first = ListQuery {
                after: l.after.clone(),
                ..ListQuery::default()
            };
            return Err(super::current::keyed(client, &build(&first), e));
        }
    };
    if count {
        // Every delivery read before the window's end was in it.
        let (n, examined) = match &stopped {
            Some(crate::api::Error::TooManyPages { items, .. }) => (*items, *items),
            _ => (walked.listed, walked.examined),
        };
        let complete = stopped.is_none();
        let text = json!({"count": n, "examined": examined, "complete": complete}).to_string();
        return out.document(&text);
    }
    if !ndjson {
        if out.table() {
            super::current::table(out, super::current::DELIVERIES, &found)?;
            if walked.more
                && let Some(last) = &walked.last
            {
                eprintln!("(more: --after {} or --all)", output::clean(last));
            }
        } else if l.all {
            out.items(&found)?;
        } else {
            let envelope = json!({
                "object": "list",
                "items": found,
                "pagination": {"has_more_before": false, "has_more_after": walked.more},
            });
            out.document(&envelope.to_string())?;
        }
    }
    match stopped {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}
