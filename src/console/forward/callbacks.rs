//! The forward room's worker part on `callback-destinations`: the per-callback following
//! headless `notifications forward` runs ([`crate::api::callback_forward`]: a cursor file per
//! callback, the service's journal, `t=…,v1=…`), its reports turned into the room's events.
use tokio::sync::mpsc;

use super::{ForwardCmd, ForwardReply, INTERVAL};
use crate::api::Client;
use crate::api::callback_forward::{self as cf, FIRST_BACKOFF, Follow, Said, Sink, Start};
use crate::api::forward::{Event, Forwarded, State as Fwd};
use crate::api::journal::Outcome;
use crate::api::replay::SendOptions;
use crate::console::msg::{ApiReply, Msg, Pane};

/// Why the follower stopped by itself.
struct Failed(String);

impl From<crate::api::Error> for Failed {
    fn from(e: crate::api::Error) -> Self {
        Self(e.to_string())
    }
}

/// The room's side of the follower: each report as a reply to the running request.
struct Room {
    req_id: u64,
    pane: Pane,
    out: mpsc::UnboundedSender<Msg>,
}

impl Room {
    fn event(&self, e: Event) {
        self.reply(ForwardReply::Event(Box::new(e)));
    }

    fn reply(&self, r: ForwardReply) {
        let _ = self.out.send(Msg::Api {
            req_id: self.req_id,
            pane: self.pane,
            result: Ok(ApiReply::Forward(r)),
        });
    }
}

impl Sink for Room {
    type Error = Failed;

    fn say(&mut self, s: Said) -> Result<(), Failed> {
        match s {
            Said::Ready { .. } => self.event(Event::State(Fwd::Following)),
            Said::Reconnecting(why) => self.event(Event::State(Fwd::Reconnecting {
                why,
                retry_in: INTERVAL,
            })),
            Said::InDoubt(id) => self.event(Event::Skipped {
                notification_id: id,
                why: "in doubt: a forward was stopped while sending it; not sent again (P replays it)"
                    .into(),
            }),
            Said::Skipped { id, why } => self.event(Event::Skipped {
                notification_id: id,
                why,
            }),
            // Event-destinations' only: every callback notification is attempted.
            Said::NotAttempted { id, status } => self.event(Event::Skipped {
                notification_id: id,
                why: format!("no attempt recorded ({status}): nothing to forward"),
            }),
            Said::Sent {
                id,
                event_type,
                attempt_index,
                signed,
                result,
                outcome,
                ..
            } => self.event(Event::Forwarded(Forwarded {
                notification_id: id,
                event_type: event_type.and_then(|t| t.as_str().map(str::to_string)),
                attempt_index,
                signed,
                result: *result,
                retry_in: (outcome != Outcome::Succeeded).then_some(FIRST_BACKOFF),
            })),
            Said::CaughtUp(forwarded) => {
                self.event(Event::CaughtUp { forwarded });
                self.event(Event::State(Fwd::Following));
            }
            Said::Unsigned(name) => {
                self.reply(ForwardReply::Unsigned(cf::unsigned_sentence(&name)));
            }
        }
        Ok(())
    }

    fn usage(msg: String) -> Failed {
        Failed(msg)
    }

    fn io(msg: String) -> Failed {
        Failed(msg)
    }
}

/// Follows `cmd`'s callbacks (or every callback) until aborted, from each callback's saved
/// cursor for this target where one is, else from now.
pub(crate) async fn stream(
    client: Client,
    cmd: ForwardCmd,
    req_id: u64,
    pane: Pane,
    out: mpsc::UnboundedSender<Msg>,
) {
    let mut room = Room { req_id, pane, out };
    let Some(dir) = cmd.data_dir.clone() else {
        return room.reply(ForwardReply::Ended(Some(
            "forward keeps its cursors and journal in the data directory: none is known here"
                .into(),
        )));
    };
    let follow = Follow {
        target: cmd.target,
        callbacks: cmd.filter.callback_ids,
        destinations: cmd.filter.destination_ids,
        event_types: Vec::new(),
        unsigned: false,
        interval: INTERVAL,
        send: SendOptions::default(),
        start: Start::ResumeElseNow,
        profile: cmd.profile,
        data_dir: dir,
    };
    // Never resolves: a stop aborts this task (the journal keeps a send cut short in doubt).
    let ended = cf::run(&client, &follow, &mut room, std::future::pending()).await;
    room.reply(ForwardReply::Ended(ended.err().map(|Failed(why)| why)));
}
