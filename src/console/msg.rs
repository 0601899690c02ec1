//! Everything that can happen to the console (`Msg`) and everything it asks for (`Effect`).
use crossterm::event::KeyEvent;

use super::record::{PageData, Record};
use super::rooms;
use super::tab::Tab;
use crate::api::{Error, ListQuery, NotificationFilter};

/// An input to `update`.
#[derive(Debug, Clone)]
pub(crate) enum Msg {
    /// A key press.
    Key(KeyEvent),
    /// The terminal has a new size (columns, rows).
    Resize(u16, u16),
    /// Animation step; only sent while something animates.
    Tick,
    /// A worker reply, addressed to the pane or room that asked.
    Api {
        /// The request id given in [`Effect::Api`].
        req_id: u64,
        /// Who asked: the pane given in [`Effect::Api`].
        pane: Pane,
        /// What came back.
        result: Result<ApiReply, Error>,
    },
    /// Mouse, clipboard and profile news for the power tools.
    Power(rooms::PowerMsg),
    /// Text pasted into the terminal (bracketed paste): for the focused text input.
    Paste(String),
    /// What the operator's editor left of [`Effect::Editor`]'s text, or why it left nothing.
    Edited(Result<String, String>),
}

/// A successful worker reply.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ApiReply {
    /// A list page.
    Page(PageData),
    /// One item.
    Item(Record),
    /// Items for a form's picker.
    Options(Vec<rooms::PickItem>),
    /// The organization's members (every page).
    Members(Vec<crate::api::model::Member>),
    /// Every callback and active destination (names, pickers, signature checks).
    Known(Box<Known>),
    /// Whether a destination is still active (not deleted).
    Active(bool),
    /// Recent deliveries of destinations, by id (those whose lookup failed are left out).
    Glance(Vec<(String, crate::api::health::Health)>),
    /// A destination's delivery health over a window ([`ApiCmd::Stats`]).
    Stats(Box<crate::api::health::Stats>),
    /// The replay room's plan or answer.
    Replay(rooms::ReplayReply),
    /// The recover room's plan, a delivery, or the end of a run.
    Recover(rooms::RecoverReply),
    /// An event of the forward room's running forward.
    Forward(rooms::ForwardReply),
    /// The Samples room's send: the receiver's answer.
    Samples(rooms::SamplesReply),
    /// Compare's lookup: the notification and the answers kept on this machine.
    Compare(Box<rooms::CompareFound>),
    /// A search's page of matches, or its end.
    Search(rooms::SearchReply),
    /// The alert rules failing now.
    Alerts(AlertsFound),
    /// A followed delivery's outcome ([`ApiCmd::Follow`]).
    Followed(Box<crate::api::delivery_follow::Followed>),
}

/// Every callback and every active destination, looked up in the background.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Known {
    /// The callbacks.
    pub(crate) callbacks: Vec<crate::api::model::Callback>,
    /// The active destinations.
    pub(crate) destinations: Vec<crate::api::model::Destination>,
}

/// The pane a request feeds; a newer request for the same pane supersedes older ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Pane {
    /// The tab's list.
    List(Tab),
    /// The tab's detail pane.
    Detail(Tab),
    /// The open form dialog: 0 for its write, n for the lookup of field n-1.
    Form(u8),
    /// A destination's health (its latest notifications).
    Health,
    /// Destinations fetched to check a signature.
    Lookup,
    /// The organization's members (see `console::members`).
    Members,
    /// Names of callbacks and destinations.
    Names,
    /// Whether the open destination is still active.
    Active,
    /// The recent deliveries of the listed destinations.
    Glance,
    /// The open destination's delivery health over a window.
    Stats,
    /// A destination looked up by id to name it (deleted ones too).
    Named,
    /// The replay room's plan or send.
    Replay,
    /// The recover room's plan or run (a run answers once per delivery, then once more).
    Recover,
    /// The forward room's running forward (many replies to one request).
    Forward,
    /// The Samples room's send.
    Samples,
    /// Compare's lookup.
    Compare,
    /// The search by content (many replies to one request).
    Search,
    /// The alert rules' check.
    Alerts,
    /// A delivery followed to its outcome (a ping's).
    Follow,
}

/// A call for the worker to make.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ApiCmd {
    /// One page of a tab's list.
    List {
        /// Which resource.
        tab: Tab,
        /// Paging and order.
        query: ListQuery,
        /// Union filters (`callback_id` for destinations; all three for notifications).
        filter: NotificationFilter,
    },
    /// One page of a tab's list within a view's time window, read newest first up to the first
    /// older item (event-destinations' Deliveries: [`super::deliveries::window::page`]).
    ListSince {
        /// Which resource.
        tab: Tab,
        /// Paging and order.
        query: ListQuery,
        /// Union filters, as for [`ApiCmd::List`].
        filter: NotificationFilter,
        /// The window's start.
        since: chrono::DateTime<chrono::Utc>,
    },
    /// One page of a tab's list that holds an item (see [`super::state::Anchor::Around`]).
    ListAround {
        /// Which resource.
        tab: Tab,
        /// The item the page must hold.
        id: String,
        /// Order and page size.
        query: ListQuery,
        /// Union filters, as for [`ApiCmd::List`].
        filter: NotificationFilter,
    },
    /// One item by id.
    Get {
        /// Which resource.
        tab: Tab,
        /// Its id.
        id: String,
    },
    /// A write from a form dialog.
    Write(Box<rooms::WriteOp>),
    /// A lookup filling a form's picker.
    Lookup(rooms::Lookup),
    /// Every member of the organization, with their teams.
    Members,
    /// Every callback and active destination ([`ApiReply::Known`]).
    Known,
    /// Whether this destination is still active ([`ApiReply::Active`]).
    Active(String),
    /// The newest notifications of each of these destinations ([`ApiReply::Glance`]).
    Glance(Vec<String>),
    /// A destination's delivery health over the `window_secs` before now ([`ApiReply::Stats`]).
    Stats {
        /// The destination.
        id: String,
        /// The window, in seconds.
        window_secs: i64,
    },
    /// The replay room: plan a replay, or send one.
    Replay(Box<rooms::ReplayCmd>),
    /// The recover room: plan a selection, or run a plan.
    Recover(Box<rooms::RecoverCmd>),
    /// The forward room: start forwarding (events stream back), or stop.
    Forward(Box<rooms::ForwardJob>),
    /// The Samples room: sign and send a sample.
    Samples(Box<rooms::SendCmd>),
    /// Compare: the notification's attempts and the kept answers.
    Compare(Box<rooms::CompareCmd>),
    /// Search the notifications by content (a page of matches at a time, then the end).
    Search(Box<rooms::SearchCmd>),
    /// Judge the profile's alert rules once ([`ApiReply::Alerts`]).
    Alerts(Box<rooms::AlertsCmd>),
    /// Follow this delivery until its first attempt finished, within a bound
    /// ([`ApiReply::Followed`]).
    Follow(String),
}

/// The failing alert rules; `Debug` shows the count only (a finding holds an unmasked answer).
#[derive(Clone, PartialEq)]
pub(crate) struct AlertsFound(pub(crate) rooms::AlertsActive);

impl std::fmt::Debug for AlertsFound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlertsFound({} failing)", self.0.len())
    }
}

/// Something `update` wants done outside the state.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Effect {
    /// Send a request to the worker.
    Api {
        /// Tag echoed in the reply.
        req_id: u64,
        /// The pane it feeds.
        pane: Pane,
        /// The call.
        cmd: ApiCmd,
    },
    /// Leave the console.
    Quit,
    /// Clipboard, history file or profile switch.
    Power(rooms::PowerEffect),
    /// Open this text in the operator's editor, the terminal restored around it; the answer
    /// comes back as [`Msg::Edited`].
    Editor(String),
}

/// What a feature hands back to the router: effects to run, and maybe an action for the router
/// to apply next (a command line's `:quit`, a click that opens a row), so that features never
/// call back into the router.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Step {
    /// Effects to run.
    pub(crate) effects: Vec<Effect>,
    /// An action to apply after them.
    pub(crate) then: Option<super::keymap::Action>,
}

impl Step {
    /// Effects and nothing more.
    pub(crate) fn effects(effects: Vec<Effect>) -> Self {
        Self {
            effects,
            then: None,
        }
    }

    /// An action for the router, after `effects`.
    pub(crate) fn then(effects: Vec<Effect>, action: super::keymap::Action) -> Self {
        Self {
            effects,
            then: Some(action),
        }
    }
}

impl From<Vec<Effect>> for Step {
    fn from(effects: Vec<Effect>) -> Self {
        Self::effects(effects)
    }
}
