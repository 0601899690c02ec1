//! The forward room's part on the worker: one request whose forward runs until replaced (a stop,
//! a new start, a profile switch), its events streamed back as replies to that request.
use tokio::sync::{mpsc, watch};

use super::{ForwardCmd, ForwardReply, INTERVAL};
use crate::api::Client;
use crate::api::forward::{self, CursorFile, ForwardConfig, Memory, Start};
use crate::api::identity::ServiceIdentity;
use crate::api::replay::SendOptions;
use crate::console::msg::{ApiReply, Msg, Pane};

/// Runs forwarding for the room until aborted (a stop, a profile switch, quitting), sending
/// every event back as a reply to `req_id`. It resumes from the profile's cursor for this
/// target when one is saved, else starts with what comes from now on.
pub(crate) async fn stream(
    client: Client,
    cmd: ForwardCmd,
    req_id: u64,
    pane: Pane,
    out: mpsc::UnboundedSender<Msg>,
) {
    // callback-destinations keeps a cursor per callback: headless's follower runs it.
    if crate::api::sample_send::generation_of(&client).await
        == crate::api::generation::Generation::CallbackDestinations
    {
        return super::callbacks::stream(client, cmd, req_id, pane, out).await;
    }
    let reply = |r: ForwardReply| {
        let _ = out.send(Msg::Api {
            req_id,
            pane,
            result: Ok(ApiReply::Forward(r)),
        });
    };
    let cfg = ForwardConfig {
        target: cmd.target.clone(),
        filter: cmd.filter.clone(),
        event_types: Vec::new(),
        unsigned: false,
        interval: INTERVAL,
        send: SendOptions::default(),
    };
    let (memory, start) = match &cmd.data_dir {
        None => (Memory::default(), Start::Now),
        Some(dir) => {
            let journal =
                match forward::open_journal(dir, &ServiceIdentity::of(&client), &cmd.profile) {
                    Ok(j) => j,
                    Err(e) => return reply(ForwardReply::Ended(Some(e))),
                };
            let cursor = CursorFile::new(dir, &cmd.profile, &cmd.target);
            let start = match cursor.load() {
                Ok(Some(_)) => Start::Resume,
                Ok(None) => Start::Now,
                Err(e) => return reply(ForwardReply::Ended(Some(e.to_string()))),
            };
            let memory = Memory {
                cursor: Some(cursor),
                journal,
                answers: Some(forward::AnswerLog::new(dir, &cmd.profile)),
            };
            (memory, start)
        }
    };
    let (tx, mut events) = mpsc::unbounded_channel();
    // Never turned: a stop aborts this task (the journal keeps a send cut short in doubt).
    let (_stop, stop_rx) = watch::channel(false);
    let run = forward::run(&client, &cfg, start, memory, tx, stop_rx);
    let mut run = std::pin::pin!(run);
    let ended = loop {
        tokio::select! {
            Some(e) = events.recv() => reply(ForwardReply::Event(Box::new(e))),
            r = &mut run => break r,
        }
    };
    while let Ok(e) = events.try_recv() {
        reply(ForwardReply::Event(Box::new(e)));
    }
    reply(ForwardReply::Ended(ended.err().map(|e| e.to_string())));
}
