//! Following a webhook: callback → destinations → notifications → attempts. Holds the state and
//! logic behind cross-navigation, the attempt view (masking, reveal, signature check), watch mode,
//! the notification filter dialog and destination health.
pub(crate) mod attempt;
pub(crate) mod callback_seek;
pub(crate) mod deleted;
pub(crate) mod filter;
pub(crate) mod health;
pub(crate) mod keys;
pub(crate) mod local;
pub(crate) mod lookup;
pub(crate) mod names;
pub(crate) mod scan;
pub(crate) mod secret;
pub(crate) mod server_status;
pub(crate) mod update;
pub(crate) mod view;
pub(crate) mod watch;
pub(crate) mod window;

use std::collections::BTreeMap;

use crate::api::model::{Attempt, Destination, Notification};
use crate::console::record::{Item, Record};

pub(crate) use filter::FilterDialog;

/// The list this room watches, filters by status and walks: the registry's notifications list
/// (`Resource::NOTIFICATIONS_LIST`), not a kind named here.
pub(crate) const LIST: crate::console::tab::Tab = crate::console::tab::Tab::NOTIFICATIONS_LIST;
/// Where that list's deliveries go: the destinations named, checked and counted here.
pub(crate) const RECEIVERS: crate::console::tab::Tab = match LIST.receivers() {
    Some(k) => k,
    None => panic!("the notifications list names its receivers"),
};
/// Whose deliveries they are: the callbacks followed from (`D`, `N`).
pub(crate) const SENDERS: crate::console::tab::Tab = match LIST.senders() {
    Some(k) => k,
    None => panic!("the notifications list names its senders"),
};

/// Ticks a new or changed row stays highlighted.
pub(crate) const FLASH_TICKS: u16 = 10;
/// The longest back-off factor after repeated errors.
pub(crate) const MAX_BACKOFF: u32 = 16;

/// Watch-mode state.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Watch {
    /// Watching.
    pub(crate) on: bool,
    /// Ticks left before the next refresh.
    pub(crate) countdown: u32,
    /// Multiplier after errors (1 when healthy).
    pub(crate) backoff: u32,
    /// What each row looked like at the last look: (status, attempts).
    pub(crate) seen: BTreeMap<String, (String, usize)>,
    /// Rows highlighted, with ticks left.
    pub(crate) flash: BTreeMap<String, u16>,
}

impl Watch {
    /// Whether watch mode needs animation ticks: only while it is watching unpaused, or a
    /// highlight is fading.
    pub(crate) fn needs_ticks(&self, paused: bool) -> bool {
        (self.on && !paused) || !self.flash.is_empty()
    }
}

/// The statuses `s` cycles through, after "all".
pub(crate) const CYCLE: [&str; 4] = ["failed", "retrying", "pending", "succeeded"];

/// The local filter's state.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct LocalFilter {
    /// The status kept, when filtering.
    pub(crate) status: Option<String>,
    /// Rows of the last page the server returned.
    pub(crate) loaded: usize,
    /// The list request whose rows are to be filtered on arrival.
    pub(crate) pending: Option<u64>,
    /// The status the shown page was filtered by (set when a page arrives, so that cycling
    /// takes effect with the reloaded page).
    pub(crate) applied: Option<String>,
    /// The pages fetched to fill the screen or to find a failed delivery (`scan`).
    pub(crate) scan: Option<Scan>,
    /// The list reply being applied was asked anew: it may start filling the screen.
    pub(crate) fill_next: bool,
    /// Where the list was when the status filter was turned on: turning it off goes back there.
    pub(crate) return_to: Option<ReturnTo>,
    /// The row the cursor goes back to when the page of [`ReturnTo`] arrives.
    pub(crate) restore: Option<String>,
    /// The time window a saved view's `since` opened (`today`, `24h`): older rows are left out
    /// of view; the status going back to "all" (`l`) clears it.
    pub(crate) since: Option<chrono::DateTime<chrono::Utc>>,
}

/// A place in the notifications list: its page and the row selected.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReturnTo {
    /// The page's query.
    pub(crate) anchor: crate::console::anchor::Anchor,
    /// Its number.
    pub(crate) page: u32,
    /// The row selected on it.
    pub(crate) selected: Option<String>,
    /// The list's order then.
    pub(crate) order: crate::api::Order,
    /// Its server filters then.
    pub(crate) filter: crate::api::NotificationFilter,
}

impl LocalFilter {
    /// Whether a row of the notifications list stays in view.
    pub(crate) fn keeps(&self, r: &Record) -> bool {
        let Item::Notification(n) = &r.item else {
            return true;
        };
        self.applied.as_ref().is_none_or(|s| n.status.as_str() == s)
            && self.since.is_none_or(|t| n.created_at >= t)
    }
}

/// What a scan is after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScanKind {
    /// A screenful of rows of the filtered status.
    Fill,
    /// The next (`forward`) or previous failed delivery.
    Seek {
        /// Later rows (`n`) or earlier ones (`N`).
        forward: bool,
    },
}

/// A scan under way.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scan {
    /// What it is after.
    pub(crate) kind: ScanKind,
    /// Pages fetched so far.
    pub(crate) pages: u32,
    /// The list request in flight.
    pub(crate) req_id: Option<u64>,
    /// The rows loaded when that request's reply came (they stay; the page is added to them),
    /// with their revision, paging flags and page number.
    pub(crate) kept: Option<Kept>,
    /// What `n`/`N` read so far, against the walk budget every walk over pages has.
    pub(crate) meter: crate::api::budget::Meter,
}

/// What the list held before a scan's page arrived.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Kept {
    pub(crate) rows: Vec<Record>,
    pub(crate) rev: u64,
    pub(crate) pagination: crate::api::page::Pagination,
    pub(crate) page: u32,
    /// The row selected then: the cursor stays on it unless a match is found.
    pub(crate) selected: Option<String>,
}

/// The attempt open in the attempt view.
#[derive(Clone, PartialEq)]
pub(crate) struct AttemptView {
    /// The notification it belongs to.
    pub(crate) notification: Box<Notification>,
    /// Position among the attempts sorted by index.
    pub(crate) position: usize,
    /// Masked header values are shown (after a confirmation), for this attempt only.
    pub(crate) revealed: bool,
    /// Lines scrolled.
    pub(crate) scroll: u16,
}

impl AttemptView {
    /// The attempt shown.
    pub(crate) fn attempt(&self) -> Option<&Attempt> {
        sorted_attempts(&self.notification)
            .get(self.position)
            .copied()
    }
}

/// A destination's health, fetched when its detail opens.
#[derive(Clone, PartialEq, Default)]
pub(crate) struct HealthPane {
    /// The destination.
    pub(crate) destination_id: String,
    /// Notifications loaded so far, newest first.
    pub(crate) items: Vec<Notification>,
    /// The page request in flight.
    pub(crate) pending: Option<u64>,
    /// Why loading stopped early.
    pub(crate) error: Option<String>,
}

// Recorded headers may carry receivers' secrets: Debug shows ids and counts only.
impl std::fmt::Debug for AttemptView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AttemptView")
            .field("notification", &self.notification.id)
            .field("position", &self.position)
            .field("revealed", &self.revealed)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for HealthPane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HealthPane")
            .field("destination_id", &self.destination_id)
            .field("items", &self.items.len())
            .field("pending", &self.pending)
            .field("error", &self.error)
            .finish()
    }
}

/// Where an `n`/`N` that asked the server goes on from (`callback_seek`): the row it left and
/// its direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seek {
    /// The row the cursor was on (its creation time and id), if any.
    pub(crate) from: Option<(chrono::DateTime<chrono::Utc>, String)>,
    /// `n` (older) or `N` (newer).
    pub(crate) forward: bool,
}

/// Everything this module remembers.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct DeliveriesState {
    /// Selected attempt in the open notification's detail.
    pub(crate) attempt_cursor: usize,
    /// The notification the cursor belongs to.
    pub(crate) cursor_of: String,
    /// The open attempt view.
    pub(crate) attempt: Option<AttemptView>,
    /// Watch mode of the notifications list.
    pub(crate) watch: Watch,
    /// The open filter dialog.
    pub(crate) filter: Option<FilterDialog>,
    /// Health of the open destination.
    pub(crate) health: Option<HealthPane>,
    /// Destinations fetched to find signing secrets, by id.
    pub(crate) destinations: BTreeMap<String, Destination>,
    /// The destination lookup in flight.
    pub(crate) lookup_pending: Option<u64>,
    /// The notification that lookup was asked for (by id: seen before it was asked; its
    /// recorded headers are not kept here, where `Debug` would show them).
    pub(crate) lookup_for: Option<String>,
    /// Notifications whose destinations were looked up once opened (by id): asked once each.
    pub(crate) lookup_asked: std::collections::BTreeSet<String>,
    /// Notifications that no active destination can have sent (by id): the one they went to was
    /// deleted since. A destination's URL and callbacks never change, and the lookup listed every
    /// active destination of the callback after the notification was seen.
    pub(crate) gone: std::collections::BTreeSet<String>,
    /// The local status filter of the notifications list.
    pub(crate) local: LocalFilter,
    /// The destination whose signing secret is shown (until its detail is left).
    pub(crate) secret_shown: Option<String>,
    /// The open destination's delivery health ([`crate::api::health::Stats`]): the id, and the
    /// numbers once they came.
    pub(crate) stats: Option<(String, Option<Result<crate::api::health::Stats, String>>)>,
    /// The health request in flight.
    pub(crate) stats_pending: Option<u64>,
    /// An `n`/`N` on `callback-destinations`' notifications waiting for the failed list it
    /// asked the server for.
    pub(crate) cb_seek: Option<Seek>,
}

impl DeliveriesState {
    /// Whether a request of this module awaits a reply.
    pub(crate) fn in_flight(&self) -> usize {
        usize::from(self.lookup_pending.is_some())
            + usize::from(self.health.as_ref().is_some_and(|h| h.pending.is_some()))
    }

    /// Background lookups of this room awaited (the open destination's health), not shown as
    /// in flight.
    pub(crate) fn background(&self) -> usize {
        usize::from(self.stats_pending.is_some())
    }
}

/// A notification's attempts ordered by their index.
pub(crate) fn sorted_attempts(n: &Notification) -> Vec<&Attempt> {
    let mut v: Vec<&Attempt> = n.attempts.iter().collect();
    v.sort_by_key(|a| a.index);
    v
}
