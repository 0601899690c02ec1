//! All UI state: plain data, changed only by `update`.
use super::clock::Clock;
use super::record::Record;
use super::rooms::{self, Sort};
use super::settings::Settings;
use super::tab::Tab;
use crate::api::{NotificationFilter, Order, Pagination};

/// The fewest rows a server page asks for; a taller pane asks for more (`pane::page_size`).
pub(crate) const PAGE_SIZE: u32 = 20;
/// Ticks a toast stays on screen.
pub(crate) const TOAST_TICKS: u16 = 20;

pub(crate) use super::anchor::Anchor;

/// The organization's members, loaded in the background for the teams' details and member
/// dialogs (membership is each member's `actor.teams[]`). See `console::members`.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct MembersCache {
    /// The members as last loaded; none before the first reply.
    pub(crate) members: Option<Vec<crate::api::model::Member>>,
    /// The request in flight.
    pub(crate) pending: Option<u64>,
    /// Why the last load failed.
    pub(crate) error: Option<String>,
}

/// What a failed call says, ready to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ErrorView {
    /// HTTP status, when a response came.
    pub(crate) status: Option<u16>,
    /// The server's message (or the transport problem).
    pub(crate) message: String,
    /// A hint: the server's, or which key the tab needs on 401/403.
    pub(crate) hint: Option<String>,
}

impl ErrorView {
    /// Builds the view of an API error for a tab.
    pub(crate) fn from_error(tab: Tab, e: &crate::api::Error) -> Self {
        let status = e.status();
        let (message, server_hint) = match e.api() {
            Some(api) => (
                format!("{} {}: {}", api.status, api.code, api.message),
                api.hint.clone(),
            ),
            None => (e.to_string(), None),
        };
        // A 401 is a key the server rejected, not a missing one: the one wording of the API.
        let hint = e.auth_hint(tab.needed_key()).or(server_hint);
        Self {
            status,
            message,
            hint,
        }
    }
}

/// Progress of a pane's data.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum LoadState {
    /// Never asked.
    #[default]
    Idle,
    /// A request is in flight (old data, if any, is still shown).
    Loading,
    /// The last request succeeded.
    Loaded,
    /// The last request failed; old data is still shown.
    Error(ErrorView),
}

/// A list request waiting for its reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PendingPage {
    /// Request id.
    pub(crate) req_id: u64,
    /// The page asked for.
    pub(crate) anchor: Anchor,
    /// Its page number.
    pub(crate) page: u32,
    /// Whether the cursor goes back to the top on arrival (a new page, not a reload).
    pub(crate) new_page: bool,
}

/// A tab's list: the loaded page and how the user looks at it.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ListPane {
    /// Rows of the loaded page, in server order (filter and sort never move them).
    pub(crate) rows: Vec<Record>,
    /// What is shown: positions into `rows`, filtered and sorted (see `derived_view`).
    pub(crate) view: Vec<usize>,
    /// What `view` was derived from; none when it must be derived again.
    pub(crate) view_of: Option<ViewKey>,
    /// Paging flags of the loaded page.
    pub(crate) pagination: Pagination,
    /// 1-based page number (counted by the console; the API has no totals).
    pub(crate) page: u32,
    /// The query of the loaded page, for reloads.
    pub(crate) anchor: Anchor,
    /// Selected row, a position in `view`.
    pub(crate) cursor: usize,
    /// First visible row of `view`.
    pub(crate) offset: usize,
    /// Sort order asked of the server.
    pub(crate) order: Order,
    /// Load progress.
    pub(crate) load: LoadState,
    /// The request whose reply is awaited.
    pub(crate) pending: Option<PendingPage>,
    /// Server-side filters (cross-navigation).
    pub(crate) filter: NotificationFilter,
    /// Changes whenever `rows` change (see [`State::touch_rows`]): views derived from the rows
    /// are reused while it stays; 0 is a list never marked.
    pub(crate) rev: u64,
    /// Rows a page was last asked for (0: none asked yet; [`PAGE_SIZE`] is shown then).
    pub(crate) limit: u32,
    /// The order the loaded rows came in (the title says it, not the one asked for since).
    pub(crate) rows_order: Option<Order>,
}

/// What a list's view was derived from: the rows (by revision and length), the filter query
/// and the sort.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ViewKey {
    /// `ListPane::rev` at the time.
    pub(crate) rev: u64,
    /// Number of rows at the time.
    pub(crate) len: usize,
    /// The filter query.
    pub(crate) query: String,
    /// The local status filter (notifications only).
    pub(crate) status: Option<String>,
    /// The time window's start (a view's `since`; notifications only).
    pub(crate) since: Option<chrono::DateTime<chrono::Utc>>,
    /// The sort.
    pub(crate) sort: Sort,
}

impl ListPane {
    /// The selected row.
    pub(crate) fn selected(&self) -> Option<&Record> {
        self.rows.get(*self.view.get(self.cursor)?)
    }

    /// The rows shown, in the order shown.
    pub(crate) fn shown(&self) -> impl Iterator<Item = &Record> {
        self.view.iter().filter_map(|&i| self.rows.get(i))
    }

    /// How many rows are shown.
    pub(crate) fn shown_len(&self) -> usize {
        self.view.len()
    }

    /// Replaces the rows; the view is every row in server order until it is derived again.
    pub(crate) fn set_rows(&mut self, rows: Vec<Record>) {
        self.rows = rows;
        self.reset_view();
    }

    /// Shows every row in server order (after the rows changed in place), to be derived again.
    pub(crate) fn reset_view(&mut self) {
        self.view = (0..self.rows.len()).collect();
        self.view_of = None;
    }
}

/// An open detail pane.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct DetailPane {
    /// The item's id.
    pub(crate) id: String,
    /// The item, once known (from the list at once, then refreshed).
    pub(crate) record: Option<Record>,
    /// Load progress of the refresh.
    pub(crate) load: LoadState,
    /// The request whose reply is awaited.
    pub(crate) pending: Option<u64>,
    /// Lines scrolled.
    pub(crate) scroll: u16,
}

/// One tab's own state, kept while other tabs are visited.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct TabState {
    /// The list.
    pub(crate) list: ListPane,
    /// The open detail, if any.
    pub(crate) detail: Option<DetailPane>,
}

/// A place to return to with Esc (cross-navigation pushes these).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NavFrame {
    /// The tab that was active.
    pub(crate) return_to: Tab,
    /// The tab whose state the navigation replaced.
    pub(crate) replaced: Tab,
    /// That tab's state before, restored on the way back.
    pub(crate) saved: TabState,
}

/// Severity of a toast.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToastKind {
    /// Information.
    Info,
    /// Something failed.
    Error,
}

/// A short message that clears itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Toast {
    /// The text.
    pub(crate) text: String,
    /// Severity.
    pub(crate) kind: ToastKind,
    /// Ticks left before it goes.
    pub(crate) ttl: u16,
    /// What said it (the key's action): a newer toast of the same replaces it.
    pub(crate) topic: Option<crate::console::keymap::Action>,
}

/// Every tab's state, indexed by [`Tab::index`], on the heap: one per registered resource (of
/// every generation) would make the state too large to move around by value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tabs(Box<[TabState; Tab::ALL.len()]>);

impl std::ops::Deref for Tabs {
    type Target = [TabState; Tab::ALL.len()];

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Tabs {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl<'a> IntoIterator for &'a Tabs {
    type Item = &'a TabState;
    type IntoIter = std::slice::Iter<'a, TabState>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a> IntoIterator for &'a mut Tabs {
    type Item = &'a mut TabState;
    type IntoIter = std::slice::IterMut<'a, TabState>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter_mut()
    }
}

/// What every room may reach: the tabs and their lists, toasts, request ids, the caches, the
/// settings and the session. A room is handed this and its own model, never another room's
/// (see ARCHITECTURE.md, "the room contract").
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Core {
    /// The tab on screen.
    pub(crate) tab: Tab,
    /// Per-tab state, indexed by [`Tab::index`] (boxed: one per registered resource, of every
    /// generation, would make the state too large to move).
    pub(crate) tabs: Tabs,
    /// The tabs shown, in header order: those the server's API generation serves.
    pub(crate) shown: Vec<Tab>,
    /// Back stack for cross-navigation.
    pub(crate) nav: Vec<NavFrame>,
    /// Whether the help overlay is open.
    pub(crate) help: bool,
    /// Lines the help overlay is scrolled when it is taller than the screen.
    pub(crate) help_scroll: u16,
    /// Messages handled so far: what a memo made while handling one is valid for.
    pub(crate) handled: u64,
    /// The open detail's furthest scroll, and the message it was worked out for: a run of
    /// scroll keys works it out once (a 100,000-character record costs a full build of its
    /// lines), and any other message in between makes it be worked out again.
    pub(crate) detail_max: Option<(u64, u16)>,
    /// The rows' filter texts, kept while keys are typed into `/`.
    pub(crate) haystacks: rooms::Haystacks,
    /// Toasts, oldest first.
    pub(crate) toasts: Vec<Toast>,
    /// The action being handled, given to the toasts it says (see [`Toast::topic`]).
    pub(crate) toast_topic: Option<crate::console::keymap::Action>,
    /// Terminal size (columns, rows).
    pub(crate) size: (u16, u16),
    /// Profile name for the header.
    pub(crate) profile: String,
    /// Base URL for the header.
    pub(crate) base_url: String,
    /// Whether writes are refused.
    pub(crate) read_only: bool,
    /// How far a walk over the notifications' pages (`n`/`N`) may read: the client's budget
    /// (`--max-pages`), as every other walk.
    pub(crate) walk_budget: crate::api::budget::Budget,
    /// What the operator configured: kept whole across a profile switch.
    pub(crate) settings: Settings,
    /// Time source.
    pub(crate) clock: Clock,
    /// Animation frame counter.
    pub(crate) frame: u64,
    /// Last request id handed out.
    pub(crate) last_req: u64,
    /// The last value given to a list's `rev`.
    pub(crate) last_rev: u64,
    /// The user asked to leave.
    pub(crate) quit: bool,
    /// The open confirmation, whichever room asked.
    pub(crate) confirm: Option<super::confirm::Confirm>,
    /// The delivery an operation's answer is followed to its outcome (a ping's).
    pub(crate) following: Option<Following>,
    /// Names, deleted and active destinations, recent deliveries: learned in the background,
    /// read by every room.
    pub(crate) caches: super::caches::Caches,
    /// The organization's members (team details, member dialogs).
    pub(crate) members: MembersCache,
    /// The time window a saved view's `since` opened on event-destinations' Deliveries: every
    /// load of that list reads it (`deliveries::window`, on the worker); the server status
    /// cycling back to "all" closes it.
    pub(crate) window: Option<chrono::DateTime<chrono::Utc>>,
}

/// Everything the console shows and remembers: the core, and each room's model beside it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct State {
    /// What every room may reach.
    pub(crate) core: Core,
    /// Form dialogs.
    pub(crate) forms: rooms::FormsState,
    /// Deliveries: attempt view, watch, filter dialog, health.
    pub(crate) deliveries: rooms::DeliveriesState,
    /// Command line, filters, sorts, raw view and the like.
    pub(crate) power: rooms::PowerState,
    /// The replay room and each profile's replays of this session.
    pub(crate) replay: rooms::ReplayState,
    /// Marked notifications and the recover room.
    pub(crate) recover: rooms::RecoverState,
    /// The forward room.
    pub(crate) forward: rooms::ForwardState,
    /// The Samples room.
    pub(crate) samples: rooms::SamplesState,
    /// `Ctrl-F`: the search by content on Notifications.
    pub(crate) search: rooms::SearchState,
    /// `Ctrl-P`'s palette and the help's filter.
    pub(crate) palette: rooms::PaletteState,
    /// The profile's alert rules judged (`!`, the header's chip).
    pub(crate) alerts: rooms::AlertsState,
    /// Compare (`=`).
    pub(crate) compare: rooms::CompareState,
}

// Code above the rooms (the router, the panes, the views) reads the core through the state.
impl std::ops::Deref for State {
    type Target = Core;

    fn deref(&self) -> &Core {
        &self.core
    }
}

impl std::ops::DerefMut for State {
    fn deref_mut(&mut self) -> &mut Core {
        &mut self.core
    }
}

impl State {
    /// A fresh state on the Teams tab.
    pub(crate) fn new(
        profile: impl Into<String>,
        base_url: impl Into<String>,
        clock: Clock,
    ) -> Self {
        Self::with_settings(profile, base_url, clock, Settings::default())
    }

    /// A fresh session on the Teams tab under these settings.
    pub(crate) fn with_settings(
        profile: impl Into<String>,
        base_url: impl Into<String>,
        clock: Clock,
        settings: Settings,
    ) -> Self {
        let mut tabs: [TabState; Tab::ALL.len()] = Default::default();
        // Notifications open in the configured order (newest first unless `[console]
        // notifications_order` says "asc"); the other tabs keep the API's order.
        tabs[Tab::NOTIFICATIONS_LIST.index()].list.order = settings.notifications_order;
        Self {
            core: Core {
                // The registry's first tab (Teams).
                tab: Tab::default(),
                tabs: Tabs(Box::new(tabs)),
                shown: super::tab::shown_for(crate::api::generation::Generation::Pulsar),
                nav: Vec::new(),
                help: false,
                help_scroll: 0,
                handled: 0,
                detail_max: None,
                haystacks: Default::default(),
                toasts: Vec::new(),
                toast_topic: None,
                size: (80, 24),
                profile: profile.into(),
                base_url: base_url.into(),
                read_only: false,
                walk_budget: crate::api::budget::Budget::default(),
                settings,
                clock,
                frame: 0,
                last_req: 0,
                last_rev: 0,
                quit: false,
                confirm: None,
                following: None,
                caches: Default::default(),
                members: MembersCache::default(),
                window: None,
            },
            forms: Default::default(),
            deliveries: Default::default(),
            power: Default::default(),
            replay: Default::default(),
            recover: Default::default(),
            forward: Default::default(),
            samples: Default::default(),
            search: Default::default(),
            palette: Default::default(),
            alerts: Default::default(),
            compare: Default::default(),
        }
    }

    /// Requests the header counts as in flight: lists, details, members, signature checks,
    /// health and the replay room.
    pub(crate) fn in_flight(&self) -> usize {
        self.tabs
            .iter()
            .map(|t| {
                usize::from(t.list.pending.is_some())
                    + usize::from(t.detail.as_ref().is_some_and(|d| d.pending.is_some()))
            })
            .sum::<usize>()
            + self.deliveries.in_flight()
            + usize::from(self.members.pending.is_some())
            + self.replay.in_flight(&self.profile)
            + self.recover.in_flight(&self.profile)
    }

    /// Every request whose reply is awaited: the header's, an open form's write and lookups
    /// (the dialog shows those), and the quiet background lookups of names, activity and
    /// recent deliveries.
    pub(crate) fn awaited(&self) -> usize {
        self.in_flight()
            + self.forms.in_flight()
            + self.deliveries.background()
            + self.caches.background()
    }

    /// Whether something moves on screen, so that ticks are needed.
    pub(crate) fn animating(&self) -> bool {
        self.in_flight() > 0
            || !self.toasts.is_empty()
            || self.deliveries.watch.needs_ticks(self.watch_paused())
    }

    /// Whether watch mode is on but held back (another tab, a detail, a dialog).
    pub(crate) fn watch_paused(&self) -> bool {
        let d = &self.deliveries;
        !self.tab.is_notifications_list()
            || self.current().detail.is_some()
            || d.attempt.is_some()
            || d.filter.is_some()
            || self.help
    }
}

impl Core {
    /// Whether `tab` is shown.
    pub(crate) fn is_shown(&self, tab: Tab) -> bool {
        self.shown.contains(&tab)
    }

    /// State of a tab.
    pub(crate) fn tab_state(&self, tab: Tab) -> &TabState {
        &self.tabs[tab.index()]
    }

    /// Mutable state of a tab.
    pub(crate) fn tab_state_mut(&mut self, tab: Tab) -> &mut TabState {
        &mut self.tabs[tab.index()]
    }

    /// State of the active tab.
    pub(crate) fn current(&self) -> &TabState {
        self.tab_state(self.tab)
    }

    /// Mutable state of the active tab.
    pub(crate) fn current_mut(&mut self) -> &mut TabState {
        let t = self.tab;
        self.tab_state_mut(t)
    }

    /// Adds a toast.
    pub(crate) fn toast(&mut self, kind: ToastKind, text: impl Into<String>) {
        let text = text.into();
        // The same message already showing is renewed, not shown twice.
        self.toasts.retain(|t| t.text != text || t.kind != kind);
        // A toast replaces its own kind (a toggle's on then off), never shows beside it.
        let topic = self.toast_topic;
        if topic.is_some() {
            self.toasts.retain(|t| t.topic != topic);
        }
        self.toasts.push(Toast {
            text,
            kind,
            ttl: TOAST_TICKS,
            topic,
        });
        // A burst of messages must not pile up.
        if self.toasts.len() > 3 {
            self.toasts.remove(0);
        }
    }

    /// A new request id.
    pub(crate) fn next_req_id(&mut self) -> u64 {
        self.last_req += 1;
        self.last_req
    }

    /// Marks a tab's rows as changed (a new value no other row set of this state has carried),
    /// so that views derived from them are made anew. Call after any change to `rows`.
    pub(crate) fn touch_rows(&mut self, tab: Tab) {
        self.last_rev += 1;
        let rev = self.last_rev;
        self.tab_state_mut(tab).list.rev = rev;
    }

    /// Puts a fresher copy of a record in its row of the tab's list, when it is there.
    pub(crate) fn replace_row(&mut self, tab: Tab, record: &Record) {
        let list = &mut self.tab_state_mut(tab).list;
        if let Some(row) = list.rows.iter_mut().find(|r| r.id() == record.id()) {
            *row = record.clone();
            self.touch_rows(tab);
        }
    }
}

/// The delivery being followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Following {
    /// The request awaited.
    pub(crate) req_id: u64,
    /// `evdi_…`.
    pub(crate) delivery: String,
    /// What started it, for the sentence (`ping`).
    pub(crate) what: String,
}
