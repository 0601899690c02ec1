//! `Ctrl-F` on Notifications (issue 38): find deliveries by what they carried. The key opens
//! the command line at `:search `; the expression (a jq test, as `notifications search` takes:
//! `.` the delivered body, `$headers`, `$response`, masked) is checked at once, then the worker
//! walks the list newest first within the client's walk budget, running the expression on a
//! thread of its own ([`crate::api::jq`]'s bounds), and streams each page's matches back: the
//! list fills with them as pages are read, its title counting what was examined; `Esc` stops.
//! At most [`MAX_MATCHES`] rows are kept. Rows are drawn as any notification row is
//! (sanitised); the expression and the filter's messages reach the screen through
//! `text::line` only.
use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;

pub(crate) mod update;

use super::record::{Record, decode_item};
use super::tab::Tab;
use crate::api::jq::{Bounds, Doc, Jq, RunError, Verdict};
use crate::api::model::time;
use crate::api::newer_requests::{CallbackNotificationFilter, DeliveryFilter};
use crate::api::newer_search::{Source, Walk, read_all};
use crate::api::search::{self, Tally, VARS};
use crate::api::selection::{PAGE, Selection};
use crate::api::{ApiRequest, Client, Error, ListQuery, NotificationFilter, Order, Page};

/// Matches kept in the list at most: the search's bound on rows held.
pub(crate) const MAX_MATCHES: usize = 1_000;

/// Asks a search to stop (also before it started waiting: the permit is kept).
#[derive(Debug, Clone, Default)]
pub(crate) struct Stop(Arc<tokio::sync::Notify>);

impl Stop {
    /// Stops the search.
    pub(crate) fn stop(&self) {
        self.0.notify_one();
    }

    async fn asked(&self) {
        self.0.notified().await;
    }
}

impl PartialEq for Stop {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// What the worker is asked: walk the notifications (under the list's server filters) with
/// this expression.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SearchCmd {
    /// The jq test, as typed (checked before it was sent).
    pub(crate) expr: String,
    /// The list's server filters.
    pub(crate) filter: NotificationFilter,
    /// The list searched: Notifications, or a newer generation's Deliveries or Notifications.
    pub(crate) tab: Tab,
    /// `Esc`.
    pub(crate) stop: Stop,
}

/// What a search streams back.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SearchReply {
    /// A page was examined: the counts so far and its matches.
    Found {
        /// The counts so far.
        tally: Tally,
        /// This page's matches.
        rows: Vec<Record>,
    },
    /// The search ended: the counts, and why when not at the list's end.
    Done {
        /// The counts.
        tally: Tally,
        /// Stopped, a bound, the filter's error; `None` at the end of the list.
        why: Option<String>,
    },
}

/// A search on screen.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Running {
    /// The expression.
    pub(crate) expr: String,
    /// The list it fills.
    pub(crate) tab: Tab,
    /// Its request.
    pub(crate) req_id: u64,
    /// `Esc`.
    pub(crate) stop: Stop,
    /// The counts so far.
    pub(crate) tally: Tally,
    /// Ended: why (`end of the list` when it read everything).
    pub(crate) ended: Option<String>,
    /// The notifications list's revision the matches were last put at: another revision (a
    /// reload, a page) means the list no longer shows the search.
    pub(crate) rev: u64,
}

/// The search's part of the state.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct SearchState {
    /// The last search started.
    pub(crate) run: Option<Running>,
}

/// Why the walk ended early, when it did.
enum Ended {
    Stopped,
    Why(String),
}

/// The worker's part: walks the notifications newest first within the client's budget, runs
/// the expression on a thread of its own, and answers once per page, then once more.
pub(crate) async fn execute(
    client: &Client,
    cmd: &SearchCmd,
    mut reply: impl FnMut(Result<SearchReply, Error>),
) {
    let done = |tally: Tally, why: Option<String>| Ok(SearchReply::Done { tally, why });
    let jq = match Jq::with_vars(&cmd.expr, VARS) {
        Ok(j) => j,
        Err(e) => return reply(done(Tally::default(), Some(e))),
    };
    // jaq's values are not `Send`: the filter runs on its thread, fed a page at a time; past
    // its bounds it says so and the search ends (the thread finishes its document alone).
    let (docs, docs_rx) = std::sync::mpsc::channel::<Doc>();
    let (tx, mut verdicts) = tokio::sync::mpsc::unbounded_channel::<Result<Verdict, String>>();
    let (over, failed) = (tx.clone(), tx.clone());
    let spawned = std::thread::Builder::new()
        .name("search".into())
        .spawn(move || {
            let exceeded = move |why: &str| {
                let _ = over.send(Err(why.to_string()));
            };
            let ran = jq.test(
                docs_rx.into_iter(),
                move |v| tx.send(Ok(v)).is_ok(),
                Bounds::default(),
                &exceeded,
            );
            if let Err(RunError::Filter(m)) = ran {
                let _ = failed.send(Err(m));
            }
        });
    if let Err(e) = spawned {
        return reply(done(
            Tally::default(),
            Some(format!("cannot start the filter: {e}")),
        ));
    }
    if !cmd.tab.is_notifications_list() {
        return walk_newer(client, cmd, docs, verdicts, reply).await;
    }
    let selection = Selection::default();
    let mut tally = Tally::default();
    let mut meter = client.budget().meter();
    let mut cursors: HashSet<String> = HashSet::new();
    let mut q = ListQuery {
        limit: Some(PAGE),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let ended: Option<Ended> = 'walk: loop {
        let req = ApiRequest::list_notifications(&q, &cmd.filter);
        let sent = tokio::select! {
            r = client.send(&req) => r,
            () = cmd.stop.asked() => break Some(Ended::Stopped),
        };
        let raw = match sent {
            Ok(raw) => raw,
            Err(e) => return reply(Err(e)),
        };
        let page: Page<Value> = match crate::api::client::decode(raw.status, &raw.body) {
            Ok(p) => p,
            Err(e) => return reply(Err(e)),
        };
        meter.count(page.items.len(), raw.body.len());
        drop(raw);
        let last = page
            .items
            .last()
            .and_then(|v| v.get("id"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let more = page.pagination.has_more_after;
        let examined = search::examine(page.items, &selection, &mut tally);
        let mut asked = Vec::new();
        for (v, doc) in examined.asked {
            if docs.send(doc).is_err() {
                break;
            }
            asked.push(v);
        }
        let mut rows = Vec::new();
        for v in asked {
            let verdict = tokio::select! {
                v = verdicts.recv() => v,
                () = cmd.stop.asked() => break 'walk Some(Ended::Stopped),
            };
            match verdict {
                Some(Ok(verdict)) => {
                    if search::count(&mut tally, verdict)
                        && let Ok(r) = decode_item(cmd.tab, v, 200)
                    {
                        rows.push(r);
                    }
                }
                Some(Err(why)) => break 'walk Some(Ended::Why(why)),
                None => break 'walk Some(Ended::Why("the filter stopped".into())),
            }
        }
        reply(Ok(SearchReply::Found {
            tally: tally.clone(),
            rows,
        }));
        if tally.matched >= MAX_MATCHES {
            break Some(Ended::Why(format!("the first {MAX_MATCHES} matches kept")));
        }
        if examined.ended {
            break None;
        }
        match last {
            Some(id) if more && cursors.insert(id.clone()) => {
                if let Err(e) = meter.next(Some(&id)) {
                    break Some(Ended::Why(bound_line(&e)));
                }
                q.after = Some(id);
            }
            _ => break None,
        }
    };
    drop(docs);
    match ended {
        // The state already said so; nobody waits for more.
        Some(Ended::Stopped) => {}
        Some(Ended::Why(why)) => reply(done(tally, Some(why))),
        None => reply(done(tally, None)),
    }
}

/// The walk's bound as the title says it.
fn bound_line(e: &Error) -> String {
    match e {
        Error::TooManyPages { pages, .. } => {
            format!("stopped at the walk's bound: {pages} pages")
        }
        other => other.to_string(),
    }
}

// `Ctrl-F` on a newer generation's list (event-destinations' Deliveries, callback-destinations'
// Notifications): the same walk as `notifications search` there ([`crate::api::newer_search`]:
// the list's server filters first, each item read whole by id), answered a page at a time.

/// Walks `cmd.tab`'s list, sending each document to the filter's thread (`docs`) and reading
/// its verdict back; answers once per page, then once more (unless stopped).
async fn walk_newer(
    client: &Client,
    cmd: &SearchCmd,
    docs: std::sync::mpsc::Sender<Doc>,
    mut verdicts: tokio::sync::mpsc::UnboundedReceiver<Result<Verdict, String>>,
    mut reply: impl FnMut(Result<SearchReply, Error>),
) {
    let f = &cmd.filter;
    let (source, deliveries, notifications) = if cmd.tab.through_callbacks() {
        (
            Source::Callbacks(f.callback_ids.clone()),
            DeliveryFilter::default(),
            CallbackNotificationFilter {
                destination_ids: f.destination_ids.clone(),
                statuses: f.statuses.clone(),
            },
        )
    } else {
        (
            Source::Deliveries,
            DeliveryFilter {
                statuses: f.statuses.clone(),
                event_ids: f.event_ids.clone(),
                event_destination_ids: f.destination_ids.clone(),
                ..DeliveryFilter::default()
            },
            CallbackNotificationFilter::default(),
        )
    };
    let mut walk = Walk::new(client, source, deliveries, notifications);
    let mut tally = Tally::default();
    let ended: Option<Ended> = 'walk: loop {
        let page = tokio::select! {
            r = walk.next(client) => r,
            () = cmd.stop.asked() => break Some(Ended::Stopped),
        };
        let page = match page {
            Ok(p) if p.is_empty() => break None,
            Ok(p) => p,
            Err(e @ Error::TooManyPages { .. }) => break Some(Ended::Why(bound_line(&e))),
            Err(e) => return reply(Err(e)),
        };
        let mut rows = Vec::new();
        for listed in &page {
            tally.examined += 1;
            if let Some(t) = listed.created() {
                tally.back_to = Some(time::format(&t));
            }
        }
        let got = tokio::select! {
            r = read_all(client, page) => r,
            () = cmd.stop.asked() => break 'walk Some(Ended::Stopped),
        };
        for one in got {
            let (v, doc): (Value, Doc) = match one {
                Ok(Some(found)) => found,
                Ok(None) => continue,
                Err(e) => return reply(Err(e)),
            };
            if docs.send(doc).is_err() {
                break 'walk Some(Ended::Why("the filter stopped".into()));
            }
            let verdict = tokio::select! {
                v = verdicts.recv() => v,
                () = cmd.stop.asked() => break 'walk Some(Ended::Stopped),
            };
            match verdict {
                Some(Ok(verdict)) => {
                    if search::count(&mut tally, verdict)
                        && let Ok(r) = decode_item(cmd.tab, v, 200)
                    {
                        rows.push(r);
                    }
                }
                Some(Err(why)) => break 'walk Some(Ended::Why(why)),
                None => break 'walk Some(Ended::Why("the filter stopped".into())),
            }
        }
        reply(Ok(SearchReply::Found {
            tally: tally.clone(),
            rows,
        }));
        if tally.matched >= MAX_MATCHES {
            break Some(Ended::Why(format!("the first {MAX_MATCHES} matches kept")));
        }
    };
    drop(docs);
    let done = |why| {
        Ok(SearchReply::Done {
            tally: tally.clone(),
            why,
        })
    };
    match ended {
        Some(Ended::Stopped) => {}
        Some(Ended::Why(why)) => reply(done(Some(why))),
        None => reply(done(None)),
    }
}
