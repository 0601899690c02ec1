//! The API worker: a tokio task that receives commands, calls the client and sends replies back
//! tagged with their request id. A newer command for a pane aborts the older one.
use std::collections::HashMap;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::msg::{ApiCmd, ApiReply, Msg, Pane};
use super::record::{PageData, decode_item_body, decode_page_body};
use super::tab::Tab;
use crate::api::{ApiRequest, Client, Error, ListQuery, NotificationFilter};

/// One job for the worker.
#[derive(Debug)]
struct Job {
    req_id: u64,
    pane: Pane,
    cmd: ApiCmd,
}

/// Handle to the running worker; dropping it stops the worker.
#[derive(Debug)]
pub struct Worker {
    jobs: mpsc::UnboundedSender<Job>,
    task: JoinHandle<()>,
}

impl Worker {
    /// Starts the worker on the current tokio runtime; replies go to `replies`.
    pub fn spawn(client: Client, replies: mpsc::UnboundedSender<Msg>) -> Self {
        let (jobs, rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(run(client, rx, replies));
        Self { jobs, task }
    }

    /// Queues a call; returns at once.
    pub fn send(&self, req_id: u64, pane: Pane, cmd: ApiCmd) {
        // The worker only stops when this handle is dropped, so a failed send cannot happen here.
        let _ = self.jobs.send(Job { req_id, pane, cmd });
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn run(
    client: Client,
    mut jobs: mpsc::UnboundedReceiver<Job>,
    out: mpsc::UnboundedSender<Msg>,
) {
    let mut running = Running::default();
    let running = &mut running.0;
    while let Some(job) = jobs.recv().await {
        // Newest request per pane wins: the older one's reply would be dropped anyway.
        if let Some(old) = running.remove(&job.pane) {
            old.abort();
        }
        running.retain(|_, h| !h.is_finished());
        let client = client.clone();
        let out = out.clone();
        // A forward runs until replaced (a stop, another start): its events stream back.
        if let ApiCmd::Forward(f) = &job.cmd
            && let super::forward::ForwardJob::Start(cmd) = &**f
        {
            let task =
                super::forward::run::stream(client, (**cmd).clone(), job.req_id, job.pane, out);
            running.insert(job.pane, tokio::spawn(task));
            continue;
        }
        let handle = tokio::spawn(async move {
            let result = execute(&client, &job.cmd).await;
            let _ = out.send(Msg::Api {
                req_id: job.req_id,
                pane: job.pane,
                result,
            });
        });
        running.insert(job.pane, handle);
    }
}

/// The requests under way, aborted when the worker stops or is aborted itself (a profile
/// switch, quitting): nothing of an old worker may go on talking to its server.
#[derive(Default)]
struct Running(HashMap<Pane, JoinHandle<()>>);

impl Drop for Running {
    fn drop(&mut self) {
        for h in self.0.values() {
            h.abort();
        }
    }
}

/// The request for a list page of a tab.
pub fn list_request(tab: Tab, q: &ListQuery, f: &NotificationFilter) -> ApiRequest {
    match tab {
        Tab::Teams => ApiRequest::list_teams(q),
        Tab::Imports => ApiRequest::list_imports(q),
        Tab::Callbacks => ApiRequest::list_callbacks(q),
        Tab::Destinations => ApiRequest::list_destinations(q, &f.callback_ids),
        Tab::Notifications => ApiRequest::list_notifications(q, f),
    }
}

/// The request for one item of a tab.
pub(crate) fn get_request(tab: Tab, id: &str) -> ApiRequest {
    match tab {
        Tab::Teams => ApiRequest::get_team(id),
        Tab::Imports => ApiRequest::get_import(id),
        Tab::Callbacks => ApiRequest::get_callback(id),
        Tab::Destinations => ApiRequest::get_destination(id),
        Tab::Notifications => ApiRequest::get_notification(id),
    }
}

/// A page holding `id`: up to a page less one of the items right before it, then it and what
/// follows, filling one page. The API has no "around" query, so this takes two: `before=id`, then
/// `after=<the last of those>` (which starts with the item itself, as the server lists it).
async fn list_around(
    client: &Client,
    tab: Tab,
    id: &str,
    query: &ListQuery,
    filter: &NotificationFilter,
) -> Result<PageData, Error> {
    let size = query.limit.unwrap_or(20).max(1);
    let before_q = ListQuery {
        limit: Some(size.saturating_sub(1).max(1)),
        before: Some(id.to_string()),
        after: None,
        ..query.clone()
    };
    let raw = client.send(&list_request(tab, &before_q, filter)).await?;
    let before = decode_page_body(tab, raw.status, &raw.body)?;
    let taken = u32::try_from(before.records.len()).unwrap_or(size);
    let rest_q = ListQuery {
        limit: Some(size.saturating_sub(taken).max(1)),
        before: None,
        after: before.records.last().map(|r| r.id().to_string()),
        ..query.clone()
    };
    let raw = client.send(&list_request(tab, &rest_q, filter)).await?;
    let rest = decode_page_body(tab, raw.status, &raw.body)?;
    let mut records = before.records;
    let has_more_before = !records.is_empty() && before.pagination.has_more_before;
    records.extend(rest.records);
    Ok(PageData {
        records,
        pagination: crate::api::Pagination {
            has_more_before,
            has_more_after: rest.pagination.has_more_after,
        },
    })
}

/// Pages fetched at most for the members (100 each): a bound on a misbehaving server.
const MEMBER_PAGES: usize = 50;

/// Every member, page after page (`after` = the last id).
async fn all_members(client: &Client) -> Result<Vec<crate::api::model::Member>, Error> {
    let mut out: Vec<crate::api::model::Member> = Vec::new();
    for _ in 0..MEMBER_PAGES {
        let q = ListQuery {
            limit: Some(100),
            after: out.last().map(|m| m.id.clone()),
            ..ListQuery::default()
        };
        let page = client.list_members(&q).await?;
        let more = page.pagination.has_more_after && !page.items.is_empty();
        out.extend(page.items);
        if !more {
            break;
        }
    }
    Ok(out)
}

/// Runs one command against the API.
pub async fn execute(client: &Client, cmd: &ApiCmd) -> Result<ApiReply, Error> {
    match cmd {
        ApiCmd::List { tab, query, filter } => {
            let raw = client.send(&list_request(*tab, query, filter)).await?;
            decode_page_body(*tab, raw.status, &raw.body).map(ApiReply::Page)
        }
        ApiCmd::ListAround {
            tab,
            id,
            query,
            filter,
        } => list_around(client, *tab, id, query, filter)
            .await
            .map(ApiReply::Page),
        ApiCmd::Get { tab, id } => {
            let raw = client.send(&get_request(*tab, id)).await?;
            decode_item_body(*tab, raw.status, &raw.body).map(ApiReply::Item)
        }
        ApiCmd::Write(op) => super::forms::ops::execute_write(client, op)
            .await
            .map(ApiReply::Item),
        ApiCmd::Members => all_members(client).await.map(ApiReply::Members),
        ApiCmd::Lookup(what) => super::forms::ops::execute_lookup(client, *what)
            .await
            .map(ApiReply::Options),
        ApiCmd::Known => {
            let callbacks = crate::api::list_all(client, ApiRequest::list_callbacks).await?;
            let destinations =
                crate::api::list_all(client, |q| ApiRequest::list_destinations(q, &[])).await?;
            Ok(ApiReply::Known(Box::new(super::msg::Known {
                callbacks,
                destinations,
            })))
        }
        ApiCmd::Active(id) => crate::api::destination_is_active(client, id)
            .await
            .map(ApiReply::Active),
        ApiCmd::Glance(ids) => {
            let mut out = Vec::new();
            for id in ids {
                // One destination's failure leaves a gap in the list, not an error.
                let recent = super::deliveries::health::GLANCE_SAMPLE;
                if let Ok(h) = crate::api::health::destination_health(client, id, recent).await {
                    out.push((id.clone(), h));
                }
            }
            Ok(ApiReply::Glance(out))
        }
        ApiCmd::Replay(cmd) => super::replay::execute(client, cmd)
            .await
            .map(ApiReply::Replay),
        // A start streams from `run` (see above); reaching here, the forward was stopped.
        ApiCmd::Compare(cmd) => super::compare::execute(client, cmd)
            .await
            .map(|f| ApiReply::Compare(Box::new(f))),
        ApiCmd::Forward(_) => Ok(ApiReply::Forward(super::forward::ForwardReply::Ended(None))),
    }
}
