//! The Samples room (`:samples`, the palette): the profile's samples library
//! ([`crate::api::samples`]) listed, sent to a receiver as a replay is (this machine unless the
//! host is typed), and removed after a yes. `mod` holds the model, `update` its keys and the
//! worker's replies, `view` its drawing; the signing and sending run on the worker.
pub(crate) mod update;
pub(crate) mod view;

use crate::api::replay::{self, ReplayPlan, ReplayResult, SendOptions};
use crate::api::sample_send::{self, Key};
use crate::api::samples::{self, Sample};
use crate::api::{Client, Error};

/// What the worker is asked to do for the room.
#[derive(Clone, PartialEq)]
pub(crate) enum SendCmd {
    /// Sign and send a sample.
    Send {
        /// The sample, as read from the library.
        sample: Box<Sample>,
        /// Where it goes.
        target: url::Url,
    },
    /// Keep a notification's attempt as a sample ([`samples::keep`]).
    Keep {
        /// The library.
        dir: std::path::PathBuf,
        /// `cbn_…`.
        id: String,
        /// The attempt's index (from 0); `None` for the latest recorded.
        attempt: Option<i64>,
        /// The sample's name.
        name: String,
    },
}

// A sample carries a recorded body: Debug shows names only.
impl std::fmt::Debug for SendCmd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Send { sample, .. } => write!(f, "Send({})", sample.name),
            Self::Keep { id, name, .. } => write!(f, "Keep({id} as {name})"),
        }
    }
}

/// The worker's answer to a send.
#[derive(Clone, PartialEq)]
pub(crate) enum SamplesReply {
    /// The receiver's answer (or why none came), why it went unsigned, and what was sent.
    Answered(Box<ReplayResult>, Option<String>, Box<ReplayPlan>),
    /// Why nothing was sent (a kept header that cannot be sent again) or kept.
    NotSent(String),
    /// The sample kept under this name.
    Kept(String),
}

// Receivers' answers may carry secrets: Debug shows the outcome only.
impl std::fmt::Debug for SamplesReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Answered(r, ..) => write!(f, "Answered({:?})", r.status),
            Self::NotSent(why) => write!(f, "NotSent({why})"),
            Self::Kept(name) => write!(f, "Kept({name})"),
        }
    }
}

/// Signs the sample with its destination's secret when that destination still exists (else
/// unsigned, saying why) and sends it, as `samples send` does.
/// A keep reads the notification and writes the library's file, as `notifications keep` does.
pub(crate) async fn execute(client: &Client, cmd: &SendCmd) -> Result<SamplesReply, Error> {
    let (sample, target) = match cmd {
        SendCmd::Send { sample, target } => (sample, target),
        SendCmd::Keep {
            dir,
            id,
            attempt,
            name,
        } => {
            let library = samples::Library::in_dir(dir.clone());
            return match samples::keep(client, &library, id, name, *attempt, false).await {
                Ok((s, _)) => Ok(SamplesReply::Kept(s.name)),
                Err(samples::KeepError::Api(e)) => Err(e),
                Err(e) => Ok(SamplesReply::NotSent(e.to_string())),
            };
        }
    };
    // Signed as the deployment's generation signs, as `samples send` does.
    let generation = sample_send::generation_of(client).await;
    let (secret, why) = match sample_send::key_for(client, generation, sample).await? {
        Key::Secret(secret) => (Some(secret), None),
        Key::Unsigned(why) => (None, Some(why)),
        Key::Needed(_) => (
            None,
            Some("the platform shows this destination's secret only on create and rotate".into()),
        ),
    };
    let host = replay::api_host(client.base_url()).unwrap_or_default();
    let plan =
        match sample_send::plan_for(generation, sample, target.clone(), secret.as_ref(), &host) {
            Ok(plan) => plan,
            Err(e) => return Ok(SamplesReply::NotSent(e.to_string())),
        };
    let result = replay::send(&plan, &SendOptions::default()).await;
    Ok(SamplesReply::Answered(
        Box::new(result),
        why,
        Box::new(plan),
    ))
}

/// Where the room is.
#[derive(Clone, PartialEq)]
pub(crate) enum Stage {
    /// The list of samples.
    List,
    /// A notification's name as a sample being typed (the keep key on Notifications).
    Naming {
        /// `cbn_…`.
        id: String,
        /// The attempt's index (from 0); `None` for the latest recorded.
        attempt: Option<i64>,
        /// The name typed.
        name: crate::console::input::TextInput,
    },
    /// The notification is being kept.
    Keeping,
    /// The target of a send being typed.
    Target,
    /// The target is not this machine: the confirmation layer asks for its host typed.
    Confirm(url::Url),
    /// The sample's body is in the operator's editor; what it leaves goes to this target.
    Editor(url::Url),
    /// The sample is on its way.
    Sending,
    /// The receiver's answer, and why it went unsigned.
    Answer(Box<ReplayResult>, Option<String>),
}

/// The open room.
#[derive(Clone, PartialEq)]
pub(crate) struct Room {
    /// The profile it was opened in (a switch closes it).
    pub(crate) profile: String,
    /// The library's samples, by name.
    pub(crate) samples: Vec<Sample>,
    /// Files of the library that are not samples (shown, never read further).
    pub(crate) bad: Vec<String>,
    /// The selected row.
    pub(crate) cursor: usize,
    /// The target URL being typed.
    pub(crate) target: crate::console::input::TextInput,
    /// Where the room is.
    pub(crate) stage: Stage,
    /// The last problem or outcome (a refused target, a removal).
    pub(crate) message: Option<String>,
    /// The request awaited.
    pub(crate) pending: Option<u64>,
    /// The send under way opens the body in the editor first (`e`).
    pub(crate) edit: bool,
    /// The edited body sent, kept with the answer shown.
    pub(crate) edited: Option<String>,
}

// The room holds recorded bodies and receivers' answers: Debug shows where it is only.
impl std::fmt::Debug for Room {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Room")
            .field("samples", &self.samples.len())
            .field("cursor", &self.cursor)
            .field("pending", &self.pending)
            .finish_non_exhaustive()
    }
}

impl Room {
    /// The selected sample.
    pub(crate) fn selected(&self) -> Option<&Sample> {
        self.samples.get(self.cursor)
    }
}

/// Everything the Samples room remembers.
#[derive(Clone, PartialEq, Default, Debug)]
pub(crate) struct SamplesState {
    /// The open room.
    pub(crate) room: Option<Box<Room>>,
}

impl SamplesState {
    /// The open room, when it belongs to `profile`.
    pub(crate) fn room_of(&self, profile: &str) -> Option<&Room> {
        self.room.as_deref().filter(|r| r.profile == profile)
    }
}
