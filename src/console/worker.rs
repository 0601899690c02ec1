//! The API worker: a tokio task that receives commands, calls the client and sends replies back
//! tagged with their request id. A newer command for a pane aborts the older one.
use std::collections::HashMap;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::msg::{ApiCmd, ApiReply, Msg, Pane};
use super::record::{decode_item_body, decode_page_body};
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
        let handle = tokio::spawn(async move {
            let result = execute(&client, &job.cmd).await;
            let _ = out.send(Msg::Api {
                req_id: job.req_id,
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

/// Runs one command against the API.
pub async fn execute(client: &Client, cmd: &ApiCmd) -> Result<ApiReply, Error> {
    match cmd {
        ApiCmd::List { tab, query, filter } => {
            let raw = client.send(&list_request(*tab, query, filter)).await?;
            decode_page_body(*tab, raw.status, &raw.body).map(ApiReply::Page)
        }
        ApiCmd::Get { tab, id } => {
            let raw = client.send(&get_request(*tab, id)).await?;
            decode_item_body(*tab, raw.status, &raw.body).map(ApiReply::Item)
        }
        ApiCmd::Write(op) => super::forms::ops::execute_write(client, op)
            .await
            .map(ApiReply::Item),
        ApiCmd::Lookup(what) => super::forms::ops::execute_lookup(client, *what)
            .await
            .map(ApiReply::Options),
        ApiCmd::Replay(cmd) => super::replay::execute(client, cmd)
            .await
            .map(ApiReply::Replay),
    }
}
