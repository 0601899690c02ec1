//! The forward room (`L`): `notifications forward` inside the console. Opened from the
//! Notifications tab (its current filter), a callback or a destination; the target is chosen,
//! forwarding started and stopped, its honest state and the live list of forwards watched, and
//! `Enter` opens an answer. `mod` holds the model, `run` the worker's part, `update` its keys
//! and replies, `view` its drawing; following, signing and the journal are
//! `crate::api::forward`'s, run on the worker so that keys stay live.
pub(crate) mod callbacks;
pub(crate) mod run;
pub(crate) mod update;
pub(crate) mod view;

use std::path::PathBuf;
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::api::NotificationFilter;
use crate::api::forward::{self, Event};
use crate::api::replay::ReplayResult;

/// The target offered when nothing was forwarded in this session.
pub(crate) const DEFAULT_TARGET: &str = "http://localhost:3000/webhooks";
/// Forwards kept in the room's list (the oldest go first).
pub(crate) const ROWS: usize = 500;
/// The pause between polls when there is nothing new.
pub(crate) const INTERVAL: Duration = Duration::from_secs(1);

/// What forwarding the worker runs: where to, which notifications, and where the profile keeps
/// its cursor and journal (none: nothing kept, nothing resumed).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ForwardCmd {
    /// The receiver on this machine.
    pub(crate) target: url::Url,
    /// The API's filters.
    pub(crate) filter: NotificationFilter,
    /// The profile (its cursor and journal).
    pub(crate) profile: String,
    /// The data directory.
    pub(crate) data_dir: Option<PathBuf>,
}

/// What the room asks of the worker.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ForwardJob {
    /// Start forwarding; every event comes back as a [`ForwardReply::Event`] on this request.
    Start(Box<ForwardCmd>),
    /// Stop: the worker drops the running forward (a newer job for the pane replaces it).
    Stop,
}

/// What the worker reports to the room.
#[derive(Clone, PartialEq)]
pub(crate) enum ForwardReply {
    /// Something the forwarder reported.
    Event(Box<Event>),
    /// Forwarding ended; why, when it was not asked to.
    Ended(Option<String>),
    /// The one sentence saying a destination's notifications go unsigned (no secret given).
    Unsigned(String),
}

// Answers may carry secrets: Debug shows the kind only.
impl std::fmt::Debug for ForwardReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Event(e) => match &**e {
                Event::Forwarded(x) => write!(f, "Forwarded({})", x.notification_id),
                Event::Skipped {
                    notification_id, ..
                } => write!(f, "Skipped({notification_id})"),
                other => write!(f, "{other:?}"),
            },
            Self::Ended(why) => write!(f, "Ended({why:?})"),
            Self::Unsigned(said) => write!(f, "Unsigned({said:?})"),
        }
    }
}

/// One line of the room's list: a forward and its answer, or a notification skipped.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    /// When it was handled.
    pub(crate) at: DateTime<Utc>,
    /// `cbn_…`.
    pub(crate) notification_id: String,
    /// The delivered body's `type`.
    pub(crate) event_type: Option<String>,
    /// The answer (receiver text: sanitise and mask before showing); `None` when skipped.
    pub(crate) result: Option<ReplayResult>,
    /// Why it was not forwarded.
    pub(crate) skipped: Option<String>,
}

/// Which control has the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Focus {
    /// The target URL.
    Target,
    /// The list of forwards.
    List,
}

/// The open room.
#[derive(Clone, PartialEq)]
pub(crate) struct Room {
    /// The profile it was opened in (a switch closes it).
    pub(crate) profile: String,
    /// What it forwards, in words (`all notifications`, `destination cld_…`).
    pub(crate) scope: String,
    /// The API's filters it forwards with.
    pub(crate) filter: NotificationFilter,
    /// The target being typed (or forwarded to).
    pub(crate) target: crate::console::input::TextInput,
    /// The target's problem.
    pub(crate) target_error: Option<String>,
    /// The request the running forward answers on; `None` when not running.
    pub(crate) running: Option<u64>,
    /// The forwarder's last reported state; `None` before the first start.
    pub(crate) state: Option<forward::State>,
    /// Where it started (`Ready`): the last notification not forwarded.
    pub(crate) started_after: Option<Option<String>>,
    /// The last catch-up's count.
    pub(crate) caught_up: Option<usize>,
    /// Why forwarding ended by itself.
    pub(crate) message: Option<String>,
    /// Forwards, oldest first.
    pub(crate) rows: Vec<Row>,
    /// Selected row, counted from the newest.
    pub(crate) cursor: usize,
    /// Which control has the keys.
    pub(crate) focus: Focus,
    /// The answer open over the list (a row, counted from the newest).
    pub(crate) open: Option<usize>,
    /// Whether the profile keeps a cursor and journal (a data directory).
    pub(crate) kept: bool,
    /// The sentences of this run saying which destinations' notifications go unsigned.
    pub(crate) unsigned: Vec<String>,
}

impl Room {
    /// The row `i` counted from the newest.
    pub(crate) fn newest(&self, i: usize) -> Option<&Row> {
        self.rows
            .len()
            .checked_sub(i + 1)
            .and_then(|k| self.rows.get(k))
    }
}

// The room holds receivers' answers: Debug shows where it is only.
impl std::fmt::Debug for Room {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Room")
            .field("scope", &self.scope)
            .field("running", &self.running)
            .field("rows", &self.rows.len())
            .finish_non_exhaustive()
    }
}

/// Everything the forward room remembers.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ForwardState {
    /// The open room.
    pub(crate) room: Option<Box<Room>>,
    /// The last target started in this session, offered next time.
    pub(crate) last_target: Option<String>,
}

impl ForwardState {
    /// The open room, when it belongs to `profile`.
    pub(crate) fn room_of(&self, profile: &str) -> Option<&Room> {
        self.room.as_deref().filter(|r| r.profile == profile)
    }
}
