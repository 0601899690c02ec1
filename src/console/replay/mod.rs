//! The replay room (`P`): send a recorded delivery again to the receiver being fixed, signed as
//! the platform signs. `mod` holds the model, `update` its keys and the worker's replies, `view`
//! its drawing; the planning and sending are `crate::api::replay`'s, run on the worker.
pub(crate) mod update;
pub(crate) mod view;

use std::collections::BTreeMap;

use crate::api::replay::{self, HistoryEntry, ReplayHistory, ReplayPlan, ReplayResult};
use crate::api::{Client, Error, Secret};

/// The target offered when this profile has replayed nothing yet.
pub(crate) const DEFAULT_TARGET: &str = "http://localhost:3000/webhooks";

/// What the worker is asked to do for the room.
#[derive(Clone, PartialEq)]
pub(crate) enum ReplayCmd {
    /// Fetch the notification and plan a replay of it ([`replay::prepare`]).
    Prepare {
        /// `cbn_…`.
        id: String,
        /// The attempt's index (from 0); `None` for the latest with a recorded request.
        attempt: Option<i64>,
        /// Where it will go.
        target: url::Url,
        /// Send without a signature.
        unsigned: bool,
    },
    /// `callback-destinations`: find the notification under its callback and plan a replay of
    /// its embedded request ([`crate::api::callback_gen::plan_replay`]).
    PrepareCallback {
        /// `sdi_…`.
        id: String,
        /// Where it will go.
        target: url::Url,
        /// Send without a signature.
        unsigned: bool,
    },
    /// `event-destinations`: read the attempt's recorded request by its id and sign it afresh
    /// with the given secret ([`crate::api::delivery_replay`], headless's one code path).
    PrepareDelivery {
        /// `evdl_…`.
        id: String,
        /// The attempt's number (from 1); `None` for the latest.
        attempt: Option<i64>,
        /// Where it will go.
        target: url::Url,
        /// The destination's signing secret; `None` sends unsigned.
        secret: Option<Secret>,
    },
    /// `callback-destinations` `E`: the plan with the edited body, signed again over it with
    /// its destination's secret ([`crate::api::edited_replay::callback`]).
    SignEdited {
        /// The plan as planned (signed over the embedded body, or unsigned).
        plan: Box<ReplayPlan>,
        /// The edited body.
        body: String,
    },
    /// Send a plan ([`replay::send`]).
    Send(Box<ReplayPlan>),
}

// A plan carries a recorded body: Debug shows ids only.
impl std::fmt::Debug for ReplayCmd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Prepare { id, attempt, .. } => f
                .debug_struct("Prepare")
                .field("id", id)
                .field("attempt", attempt)
                .finish_non_exhaustive(),
            Self::PrepareCallback { id, .. } => f
                .debug_struct("PrepareCallback")
                .field("id", id)
                .finish_non_exhaustive(),
            Self::PrepareDelivery { id, attempt, .. } => f
                .debug_struct("PrepareDelivery")
                .field("id", id)
                .field("attempt", attempt)
                .finish_non_exhaustive(),
            Self::SignEdited { plan, .. } => f
                .debug_struct("SignEdited")
                .field("notification", &plan.notification_id)
                .finish_non_exhaustive(),
            Self::Send(p) => f
                .debug_struct("Send")
                .field("notification", &p.notification_id)
                .field("attempt", &p.attempt_index)
                .finish_non_exhaustive(),
        }
    }
}

/// What the worker answers.
#[derive(Clone, PartialEq)]
pub(crate) enum ReplayReply {
    /// The plan, ready for the preview.
    Planned(Box<ReplayPlan>),
    /// Why no plan could be made (nothing recorded, no single signing destination…).
    NotPlanned(String),
    /// The receiver's answer (or why none came).
    Answered(Box<ReplayResult>),
    /// The edited plan signed again, with why it goes unsigned when it does.
    Signed(Box<ReplayPlan>, Option<String>),
}

// Receivers' answers may carry secrets: Debug shows the outcome only.
impl std::fmt::Debug for ReplayReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Planned(p) => write!(f, "Planned({})", p.notification_id),
            Self::NotPlanned(why) => write!(f, "NotPlanned({why})"),
            Self::Answered(r) => write!(f, "Answered({:?})", r.status),
            Self::Signed(p, _) => write!(f, "Signed({})", p.notification_id),
        }
    }
}

/// Runs a room command on the worker. A failed destination lookup is the API's error (shown with
/// the server's message); any other reason not to replay is a [`ReplayReply::NotPlanned`].
pub(crate) async fn execute(client: &Client, cmd: &ReplayCmd) -> Result<ReplayReply, Error> {
    match cmd {
        ReplayCmd::Prepare {
            id,
            attempt,
            target,
            unsigned,
        } => {
            let n = client.get_notification(id).await?;
            match replay::prepare(client, &n, *attempt, target.clone(), *unsigned).await {
                Ok(plan) => Ok(ReplayReply::Planned(Box::new(plan))),
                Err(replay::ReplayError::Lookup(e)) => Err(e),
                Err(replay::ReplayError::NoDestination) => Ok(ReplayReply::NotPlanned(
                    "no active destination with this URL selects the notification's callback: \
                     its signing secret is unknown (tick Unsigned to send without a signature)"
                        .into(),
                )),
                Err(e) => Ok(ReplayReply::NotPlanned(e.to_string())),
            }
        }
        ReplayCmd::PrepareCallback {
            id,
            target,
            unsigned,
        } => Ok(
            match crate::api::callback_gen::plan_replay(client, id, None, target.clone(), *unsigned)
                .await?
            {
                Ok((plan, _)) => ReplayReply::Planned(Box::new(plan)),
                Err(why) => ReplayReply::NotPlanned(why),
            },
        ),
        ReplayCmd::PrepareDelivery {
            id,
            attempt,
            target,
            secret,
        } => {
            use crate::api::delivery_replay::{RecordedError, plan_now, recorded};
            match recorded(client, id, *attempt).await {
                Ok(r) => Ok(ReplayReply::Planned(Box::new(plan_now(
                    &r,
                    target.clone(),
                    secret.as_ref(),
                )))),
                Err(RecordedError::Api(e)) => Err(e),
                Err(RecordedError::Missing(why)) => Ok(ReplayReply::NotPlanned(why)),
            }
        }
        ReplayCmd::SignEdited { plan, body } => {
            let (plan, note) =
                crate::api::edited_replay::callback(client, plan, body.clone()).await?;
            Ok(ReplayReply::Signed(Box::new(plan), note))
        }
        ReplayCmd::Send(plan) => Ok(ReplayReply::Answered(Box::new(
            replay::send(plan, &replay::SendOptions::default()).await,
        ))),
    }
}

/// The one-line editor of the target and the typed host (the console's one text input).
pub(crate) use crate::console::input::TextInput as Text;

/// Which control of the target form has the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Focus {
    /// The target URL.
    Target,
    /// The signing secret (`event-destinations` only).
    Secret,
    /// The unsigned toggle.
    Unsigned,
    /// The history list.
    History,
}

/// Where the room is.
#[derive(Clone, PartialEq)]
pub(crate) enum Stage {
    /// The target form.
    Editing,
    /// The plan is being made on the worker.
    Preparing,
    /// What will be sent, with the headers as the preview shows them (masked).
    Preview {
        /// The plan.
        plan: Box<ReplayPlan>,
        /// Its headers through the redaction policy, signed when the plan arrived.
        headers: Vec<(String, String)>,
    },
    /// The target is not this machine: the confirmation layer asks for its host typed.
    Confirm {
        /// The plan.
        plan: Box<ReplayPlan>,
        /// Its preview headers (kept for going back).
        headers: Vec<(String, String)>,
    },
    /// `E`: the recorded body is out in the operator's editor (the console is suspended).
    Editor(Box<ReplayPlan>),
    /// The plan is on its way.
    Sending(Box<ReplayPlan>),
    /// A replay's answer (the one just sent, or one picked from the history).
    Answer(Box<HistoryEntry>),
}

/// The open room.
#[derive(Clone, PartialEq)]
pub(crate) struct Room {
    /// The profile it was opened in (a switch closes it).
    pub(crate) profile: String,
    /// `cbn_…`.
    pub(crate) notification_id: String,
    /// The attempt chosen (an open attempt's or the detail cursor's), else the latest with a
    /// recorded request. The API's index, from 0 (shown from 1).
    pub(crate) attempt: Option<i64>,
    /// The target URL being typed.
    pub(crate) target: Text,
    /// Send without a signature.
    pub(crate) unsigned: bool,
    /// The focused control of the form.
    pub(crate) focus: Focus,
    /// The target's problem, shown beside it.
    pub(crate) target_error: Option<String>,
    /// Why the last preparation or send did not work (the server's or lookup's message).
    pub(crate) message: Option<String>,
    /// Where the room is.
    pub(crate) stage: Stage,
    /// The request awaited.
    pub(crate) pending: Option<u64>,
    /// Lines scrolled in the preview or answer.
    pub(crate) scroll: u16,
    /// Selected row of the history, newest first.
    pub(crate) history_cursor: usize,
    /// The stage the history was entered from, to return to.
    pub(crate) from_history: bool,
    /// `E`: the body is edited before it is sent, and the answer compared with the recorded one.
    pub(crate) edit: bool,
    /// `event-destinations`: the delivery's destination and the masked secret field (the
    /// platform shows a secret only on create and rotate, so the operator types it).
    pub(crate) signing: Option<Signing>,
    /// A sentence shown above the answer (`E` where no recorded answer can be compared).
    pub(crate) note: Option<String>,
}

/// The secret field of an `event-destinations` replay: never drawn, kept in memory only.
#[derive(Clone, PartialEq)]
pub(crate) struct Signing {
    /// `evtd_…`: the secret is remembered per destination.
    pub(crate) destination: String,
    /// What is typed (drawn masked).
    pub(crate) secret: Text,
}

// The room holds recorded bodies and receivers' answers: Debug shows where it is only.
impl std::fmt::Debug for Room {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Room")
            .field("notification_id", &self.notification_id)
            .field("attempt", &self.attempt)
            .field("pending", &self.pending)
            .finish_non_exhaustive()
    }
}

/// Everything the replay room remembers.
#[derive(Clone, PartialEq, Default)]
pub(crate) struct ReplayState {
    /// Each profile's replays of this session, by profile name.
    pub(crate) histories: BTreeMap<String, ReplayHistory>,
    /// The open room.
    pub(crate) room: Option<Box<Room>>,
    /// Signing secrets given this session (typed, or shown by a create or rotate answer), by
    /// profile and destination: memory only, never written anywhere.
    pub(crate) secrets: BTreeMap<(String, String), Secret>,
}

impl std::fmt::Debug for ReplayState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplayState")
            .field("profiles", &self.histories.len())
            .field("room", &self.room)
            .field("secrets", &self.secrets.len())
            .finish()
    }
}

impl ReplayState {
    /// The open room, when it belongs to `profile`.
    pub(crate) fn room_of(&self, profile: &str) -> Option<&Room> {
        self.room.as_deref().filter(|r| r.profile == profile)
    }

    /// Requests of the room awaiting a reply (for the spinner).
    pub(crate) fn in_flight(&self, profile: &str) -> usize {
        usize::from(self.room_of(profile).is_some_and(|r| r.pending.is_some()))
    }

    /// The secret given this session for `destination` under `profile`.
    pub(crate) fn secret(&self, profile: &str, destination: &str) -> Option<&Secret> {
        self.secrets
            .get(&(profile.to_string(), destination.to_string()))
    }

    /// `profile`'s history, if it replayed anything.
    pub(crate) fn history(&self, profile: &str) -> Option<&ReplayHistory> {
        self.histories.get(profile)
    }

    /// A written record holding a destination's signing secret (a create or rotate answer on
    /// `event-destinations`): remembered for replays of this session, in memory only.
    pub(crate) fn remember_shown(
        &mut self,
        profile: &str,
        record: &crate::console::record::Record,
    ) {
        if let crate::console::record::Item::EventDestination(d) = &record.item
            && let Some(s) = d.webhook.as_ref().and_then(|w| w.signing_secret.clone())
            && !s.is_empty()
        {
            self.secrets.insert((profile.to_string(), d.id.clone()), s);
        }
    }
}
