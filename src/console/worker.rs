//! The API worker: a tokio task that receives commands, calls the client and sends replies back
//! tagged with their request id. A newer command for a pane aborts the older one.
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{Notify, mpsc};
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
    /// Held until the reply is queued or the job is dropped unanswered.
    _ticket: Ticket,
}

/// The jobs sent and not yet answered nor dropped, and a signal each time one ends: what is
/// really in flight, whichever pane or room asked (`App::is_idle`).
#[derive(Debug, Default)]
struct Outstanding {
    count: AtomicUsize,
    ended: Notify,
}

/// One job's share of [`Outstanding`]: given back when the job's reply has been queued, or when
/// the job is dropped without one (superseded by a newer job for its pane, or its worker gone).
#[derive(Debug)]
struct Ticket(Arc<Outstanding>);

impl Ticket {
    fn take(o: &Arc<Outstanding>) -> Self {
        o.count.fetch_add(1, Ordering::SeqCst);
        Self(Arc::clone(o))
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.0.count.fetch_sub(1, Ordering::SeqCst);
        // A permit is kept when nobody waits, so an end between a check and a wait is not lost.
        self.0.ended.notify_one();
    }
}

/// Handle to the running worker; dropping it stops the worker.
#[derive(Debug)]
pub(crate) struct Worker {
    jobs: mpsc::UnboundedSender<Job>,
    task: JoinHandle<()>,
    outstanding: Arc<Outstanding>,
}

impl Worker {
    /// Starts the worker on the current tokio runtime; replies go to `replies`.
    pub(crate) fn spawn(client: Client, replies: mpsc::UnboundedSender<Msg>) -> Self {
        let (jobs, rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(run(client, rx, replies));
        Self {
            jobs,
            task,
            outstanding: Arc::default(),
        }
    }

    /// Queues a call; returns at once.
    pub(crate) fn send(&self, req_id: u64, pane: Pane, cmd: ApiCmd) {
        let ticket = Ticket::take(&self.outstanding);
        // The worker only stops when this handle is dropped, so a failed send cannot happen here.
        let _ = self.jobs.send(Job {
            req_id,
            pane,
            cmd,
            _ticket: ticket,
        });
    }

    /// Jobs sent whose reply is not yet queued (running, or waiting to start).
    pub(crate) fn outstanding(&self) -> usize {
        self.outstanding.count.load(Ordering::SeqCst)
    }

    /// Resolves when a job has ended since the last call (answered or dropped); may resolve
    /// early, so callers check again.
    pub(crate) async fn job_ended(&self) {
        self.outstanding.ended.notified().await;
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
            // A forward is a subscription, not a request in flight: its ticket goes now, so
            // `is_idle` does not wait for it.
            continue;
        }
        let pane = job.pane;
        let handle = tokio::spawn(async move {
            // A recover answers as it goes: each delivery, then the summary.
            if let ApiCmd::Recover(cmd) = &job.cmd {
                super::recover::execute(&client, cmd, |result| {
                    let _ = out.send(Msg::Api {
                        req_id: job.req_id,
                        pane: job.pane,
                        result: result.map(ApiReply::Recover),
                    });
                })
                .await;
                return;
            }
            // So does a search: each page's matches, then the end.
            if let ApiCmd::Search(cmd) = &job.cmd {
                super::search::execute(&client, cmd, |result| {
                    let _ = out.send(Msg::Api {
                        req_id: job.req_id,
                        pane: job.pane,
                        result: result.map(ApiReply::Search),
                    });
                })
                .await;
                return;
            }
            let result = execute(&client, &job.cmd).await;
            let _ = out.send(Msg::Api {
                req_id: job.req_id,
                pane: job.pane,
                result,
            });
            // Its ticket goes only now, with the reply already queued: never a moment where
            // neither counts.
            drop(job);
        });
        running.insert(pane, handle);
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

/// A page holding `id`: up to a page less one of the items right before it, then it and what
/// follows, filling one page. The API has no "around" query, so this takes two: `before=id`, then
/// `after=<the last of those>` (which starts with the item itself, as the server lists it).
/// Whether `k` is a destination whose notifications are read through the callbacks: its
/// health is counted under each callback.
fn callback_destination(k: Tab) -> bool {
    k.receives() && k.notifications_of().is_some_and(Tab::through_callbacks)
}

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
    let raw = client.send(&tab.list_request(&before_q, filter)).await?;
    let before = decode_page_body(tab, raw.status, &raw.body)?;
    let taken = u32::try_from(before.records.len()).unwrap_or(size);
    let rest_q = ListQuery {
        limit: Some(size.saturating_sub(taken).max(1)),
        before: None,
        after: before.records.last().map(|r| r.id().to_string()),
        ..query.clone()
    };
    let raw = client.send(&tab.list_request(&rest_q, filter)).await?;
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

/// Runs one command against the API.
pub(crate) async fn execute(client: &Client, cmd: &ApiCmd) -> Result<ApiReply, Error> {
    match cmd {
        ApiCmd::List { tab, query, filter } if super::callback_gen::merges(*tab, filter) => {
            super::callback_gen::merged_page(client, *tab, query, filter)
                .await
                .map(ApiReply::Page)
        }
        ApiCmd::ListAround {
            tab, query, filter, ..
        } if super::callback_gen::merges(*tab, filter) => {
            super::callback_gen::merged_page(client, *tab, query, filter)
                .await
                .map(ApiReply::Page)
        }
        ApiCmd::Get { tab, id } if tab.through_callbacks() => {
            super::callback_gen::get(client, *tab, id)
                .await
                .map(ApiReply::Item)
        }
        ApiCmd::List { tab, query, filter } => {
            let raw = client.send(&tab.list_request(query, filter)).await?;
            decode_page_body(*tab, raw.status, &raw.body).map(ApiReply::Page)
        }
        ApiCmd::ListSince {
            tab,
            query,
            filter,
            since,
        } => super::deliveries::window::page(client, *tab, query, filter, *since)
            .await
            .map(ApiReply::Page),
        ApiCmd::ListAround {
            tab,
            id,
            query,
            filter,
        } => list_around(client, *tab, id, query, filter)
            .await
            .map(ApiReply::Page),
        ApiCmd::Get { tab, id } => {
            let raw = client.send(&tab.get_request(id)).await?;
            decode_item_body(*tab, raw.status, &raw.body).map(ApiReply::Item)
        }
        ApiCmd::Write(op) => super::forms::ops::execute_write(client, op)
            .await
            .map(ApiReply::Item),
        ApiCmd::Members => crate::api::lookup::all_members(client)
            .await
            .map(ApiReply::Members),
        ApiCmd::Lookup(what) => {
            // Each resource's console module says how its rows read in a picker.
            super::forms::ops::execute_lookup(client, *what, super::views::pick)
                .await
                .map(ApiReply::Options)
        }
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
        // A callback destination's notifications live under its callbacks (one meaning).
        ApiCmd::Stats { id, window_secs } if Tab::of_id(id).is_some_and(callback_destination) => {
            crate::api::callback_health::destination_stats(
                client,
                id,
                chrono::TimeDelta::seconds(*window_secs),
                chrono::Utc::now(),
            )
            .await
            .map(|s| ApiReply::Stats(Box::new(s)))
        }
        ApiCmd::Stats { id, window_secs } => crate::api::health::destination_stats(
            client,
            id,
            chrono::TimeDelta::seconds(*window_secs),
            chrono::Utc::now(),
        )
        .await
        .map(|s| ApiReply::Stats(Box::new(s))),
        ApiCmd::Replay(cmd) => super::replay::execute(client, cmd)
            .await
            .map(ApiReply::Replay),
        ApiCmd::Recover(cmd) => {
            // One answer: the last (the plan, or a run's summary).
            let mut last = Err(Error::Invalid("the recover answered nothing".into()));
            super::recover::execute(client, cmd, |r| last = r).await;
            last.map(ApiReply::Recover)
        }
        // A start streams from `run` (see above); reaching here, the forward was stopped.
        ApiCmd::Compare(cmd) => super::compare::execute(client, cmd)
            .await
            .map(|f| ApiReply::Compare(Box::new(f))),
        ApiCmd::Samples(cmd) => super::samples::execute(client, cmd)
            .await
            .map(ApiReply::Samples),
        ApiCmd::Forward(_) => Ok(ApiReply::Forward(super::forward::ForwardReply::Ended(None))),
        ApiCmd::Alerts(cmd) => super::alerts::execute(client, cmd)
            .await
            .map(|a| ApiReply::Alerts(super::msg::AlertsFound(a))),
        ApiCmd::Follow(id) => super::follow::execute(client, id).await,
        ApiCmd::Search(cmd) => {
            // One answer: the last.
            let mut last = Err(Error::Invalid("the search answered nothing".into()));
            super::search::execute(client, cmd, |r| last = r).await;
            last.map(ApiReply::Search)
        }
    }
}
