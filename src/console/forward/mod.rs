//! The forward room (`L`): `notifications forward` inside the console. Opened from the
//! Notifications tab (its current filter), a callback or a destination; the target is chosen,
//! forwarding started and stopped, its honest state and the live list of forwards watched, and
//! `Enter` opens an answer. `mod` holds the model, `run` the worker's part, `update` its keys
//! and replies, `view` its drawing; following, signing and the journal are
//! `crate::api::forward`'s, run on the worker so that keys stay live.
pub mod run;
pub mod update;
pub mod view;

use std::path::PathBuf;
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::api::NotificationFilter;
use crate::api::forward::{self, Event};
use crate::api::replay::ReplayResult;

/// The target offered when nothing was forwarded in this session.
pub const DEFAULT_TARGET: &str = "http://localhost:3000/webhooks";
/// Forwards kept in the room's list (the oldest go first).
pub const ROWS: usize = 500;
/// The pause between polls when there is nothing new.
pub const INTERVAL: Duration = Duration::from_secs(1);

/// What forwarding the worker runs: where to, which notifications, and where the profile keeps
/// its cursor and journal (none: nothing kept, nothing resumed).
#[derive(Debug, Clone, PartialEq)]
pub struct ForwardCmd {
    /// The receiver on this machine.
    pub target: url::Url,
    /// The API's filters.
    pub filter: NotificationFilter,
    /// The profile (its cursor and journal).
    pub profile: String,
    /// The data directory.
    pub data_dir: Option<PathBuf>,
}

/// What the room asks of the worker.
#[derive(Debug, Clone, PartialEq)]
pub enum ForwardJob {
    /// Start forwarding; every event comes back as a [`ForwardReply::Event`] on this request.
    Start(Box<ForwardCmd>),
    /// Stop: the worker drops the running forward (a newer job for the pane replaces it).
    Stop,
}

/// What the worker reports to the room.
#[derive(Clone, PartialEq)]
pub enum ForwardReply {
    /// Something the forwarder reported.
    Event(Box<Event>),
    /// Forwarding ended; why, when it was not asked to.
    Ended(Option<String>),
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
        }
    }
}

/// One line of the room's list: a forward and its answer, or a notification skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// When it was handled.
    pub at: DateTime<Utc>,
    /// `cbn_…`.
    pub notification_id: String,
    /// The delivered body's `type`.
    pub event_type: Option<String>,
    /// The answer (receiver text: sanitise and mask before showing); `None` when skipped.
    pub result: Option<ReplayResult>,
    /// Why it was not forwarded.
    pub skipped: Option<String>,
}

/// Which control has the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The target URL.
    Target,
    /// The list of forwards.
    List,
}

/// The open room.
#[derive(Clone, PartialEq)]
pub struct Room {
    /// The profile it was opened in (a switch closes it).
    pub profile: String,
    /// What it forwards, in words (`all notifications`, `destination cld_…`).
    pub scope: String,
    /// The API's filters it forwards with.
    pub filter: NotificationFilter,
    /// The target being typed (or forwarded to).
    pub target: crate::console::input::TextInput,
    /// The target's problem.
    pub target_error: Option<String>,
    /// The request the running forward answers on; `None` when not running.
    pub running: Option<u64>,
    /// The forwarder's last reported state; `None` before the first start.
    pub state: Option<forward::State>,
    /// Where it started (`Ready`): the last notification not forwarded.
    pub started_after: Option<Option<String>>,
    /// The last catch-up's count.
    pub caught_up: Option<usize>,
    /// Why forwarding ended by itself.
    pub message: Option<String>,
    /// Forwards, oldest first.
    pub rows: Vec<Row>,
    /// Selected row, counted from the newest.
    pub cursor: usize,
    /// Which control has the keys.
    pub focus: Focus,
    /// The answer open over the list (a row, counted from the newest).
    pub open: Option<usize>,
    /// Whether the profile keeps a cursor and journal (a data directory).
    pub kept: bool,
}

impl Room {
    /// The row `i` counted from the newest.
    pub fn newest(&self, i: usize) -> Option<&Row> {
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
pub struct ForwardState {
    /// The open room.
    pub room: Option<Box<Room>>,
    /// The last target started in this session, offered next time.
    pub last_target: Option<String>,
}

impl ForwardState {
    /// The open room, when it belongs to `profile`.
    pub fn room_of(&self, profile: &str) -> Option<&Room> {
        self.room.as_deref().filter(|r| r.profile == profile)
    }
}
