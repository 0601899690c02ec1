//! Following a webhook: callback → destinations → notifications → attempts. Holds the state and
//! logic behind cross-navigation, the attempt view (masking, reveal, signature check), watch mode,
//! the notification filter dialog and destination health.
pub(crate) mod attempt;
pub(crate) mod deleted;
pub(crate) mod filter;
pub mod health;
pub(crate) mod keys;
pub mod local;
pub(crate) mod lookup;
pub mod mask;
pub(crate) mod names;
pub mod scan;
pub(crate) mod secret;
pub(crate) mod update;
pub(crate) mod view;
pub mod watch;

use std::collections::BTreeMap;
use std::time::Duration;

use crate::api::model::{Attempt, Destination, Notification};
use crate::console::record::{Item, Record};

pub use filter::FilterDialog;
pub use keys::DeliveryKey;

/// Default time between refreshes.
pub const WATCH_INTERVAL: Duration = Duration::from_secs(2);
/// The console's animation step, which drives watch mode.
pub const TICK: Duration = Duration::from_millis(200);
/// Ticks a new or changed row stays highlighted.
pub const FLASH_TICKS: u16 = 10;
/// The longest back-off factor after repeated errors.
pub const MAX_BACKOFF: u32 = 16;

/// Watch-mode state.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Watch {
    /// Watching.
    pub on: bool,
    /// Ticks left before the next refresh.
    pub countdown: u32,
    /// Multiplier after errors (1 when healthy).
    pub backoff: u32,
    /// What each row looked like at the last look: (status, attempts).
    pub seen: BTreeMap<String, (String, usize)>,
    /// Rows highlighted, with ticks left.
    pub flash: BTreeMap<String, u16>,
}

impl Watch {
    /// Whether watch mode needs animation ticks: only while it is watching unpaused, or a
    /// highlight is fading.
    pub(crate) fn needs_ticks(&self, paused: bool) -> bool {
        (self.on && !paused) || !self.flash.is_empty()
    }
}

/// The statuses `s` cycles through, after "all".
pub const CYCLE: [&str; 4] = ["failed", "retrying", "pending", "succeeded"];

/// The local filter's state.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LocalFilter {
    /// The status kept, when filtering.
    pub status: Option<String>,
    /// Rows of the last page the server returned.
    pub loaded: usize,
    /// The list request whose rows are to be filtered on arrival.
    pub pending: Option<u64>,
    /// The status the shown page was filtered by (set when a page arrives, so that cycling
    /// takes effect with the reloaded page).
    pub applied: Option<String>,
    /// The pages fetched to fill the screen or to find a failed delivery (`scan`).
    pub scan: Option<Scan>,
    /// The list reply being applied was asked anew: it may start filling the screen.
    pub fill_next: bool,
}

impl LocalFilter {
    /// Whether a row of the notifications list stays in view.
    pub fn keeps(&self, r: &Record) -> bool {
        match (&self.applied, &r.item) {
            (Some(status), Item::Notification(n)) => n.status.as_str() == status,
            _ => true,
        }
    }
}

/// What a scan is after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanKind {
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
pub struct Scan {
    /// What it is after.
    pub kind: ScanKind,
    /// Pages fetched so far.
    pub pages: u32,
    /// The list request in flight.
    pub req_id: Option<u64>,
    /// The rows loaded when that request's reply came (they stay; the page is added to them),
    /// with their revision, paging flags and page number.
    pub kept: Option<Kept>,
}

/// What the list held before a scan's page arrived.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    pub(crate) rows: Vec<Record>,
    pub(crate) rev: u64,
    pub(crate) pagination: crate::api::page::Pagination,
    pub(crate) page: u32,
}

/// The attempt open in the attempt view.
#[derive(Clone, PartialEq)]
pub struct AttemptView {
    /// The notification it belongs to.
    pub notification: Box<Notification>,
    /// Position among the attempts sorted by index.
    pub position: usize,
    /// Masked header values are shown (after a confirmation), for this attempt only.
    pub revealed: bool,
    /// Lines scrolled.
    pub scroll: u16,
}

impl AttemptView {
    /// The attempt shown.
    pub fn attempt(&self) -> Option<&Attempt> {
        sorted_attempts(&self.notification)
            .get(self.position)
            .copied()
    }
}

/// A destination's health, fetched when its detail opens.
#[derive(Clone, PartialEq, Default)]
pub struct HealthPane {
    /// The destination.
    pub destination_id: String,
    /// Notifications loaded so far, newest first.
    pub items: Vec<Notification>,
    /// The page request in flight.
    pub pending: Option<u64>,
    /// Why loading stopped early.
    pub error: Option<String>,
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

/// Everything this module remembers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DeliveriesState {
    /// Selected attempt in the open notification's detail.
    pub attempt_cursor: usize,
    /// The notification the cursor belongs to.
    pub cursor_of: String,
    /// The open attempt view.
    pub attempt: Option<AttemptView>,
    /// Watch mode of the notifications list.
    pub watch: Watch,
    /// The open filter dialog.
    pub filter: Option<FilterDialog>,
    /// Health of the open destination.
    pub health: Option<HealthPane>,
    /// Destinations fetched to find signing secrets, by id.
    pub destinations: BTreeMap<String, Destination>,
    /// The destination lookup in flight.
    pub lookup_pending: Option<u64>,
    /// The local status filter of the notifications list.
    pub local: LocalFilter,
    /// Names of callbacks and destinations of this profile, looked up in the background.
    pub names: crate::api::NameCache,
    /// Every callback (id, name) known from that lookup, for the filter dialog's picker.
    pub callbacks: Vec<(String, String)>,
    /// The names lookup: in flight, and whether it was made.
    pub names_pending: Option<u64>,
    /// The names lookup was asked for (it is made once per profile).
    pub names_asked: bool,
    /// Destinations known to be deleted (not in the active list, or deleted in this session).
    pub deleted: std::collections::BTreeSet<String>,
    /// Destinations known to be active.
    pub active: std::collections::BTreeSet<String>,
    /// The activity checks in flight, by request: one per destination, so that opening another
    /// destination while one is checked still checks the other.
    pub active_pending: std::collections::BTreeMap<u64, String>,
    /// The destination whose signing secret is shown (until its detail is left).
    pub secret_shown: Option<String>,
    /// Recent deliveries of listed destinations, by id (the list's sparklines).
    pub glance: BTreeMap<String, crate::api::health::Health>,
    /// Destinations whose recent deliveries were asked for.
    pub glance_asked: std::collections::BTreeSet<String>,
    /// The recent-deliveries lookup in flight.
    pub glance_pending: Option<u64>,
    /// The destinations list's revision the glance was last asked for (a new page, `r`, asks
    /// again).
    pub glance_rev: u64,
    /// The open destination's delivery health ([`crate::api::health::Stats`]): the id, and the
    /// numbers once they came.
    pub stats: Option<(String, Option<Result<crate::api::health::Stats, String>>)>,
    /// The health request in flight.
    pub stats_pending: Option<u64>,
    /// Destinations looked up by id (to name them, deleted ones too).
    pub named_asked: std::collections::BTreeSet<String>,
    /// Those lookups in flight, by request.
    pub named_pending: BTreeMap<u64, String>,
}

impl DeliveriesState {
    /// Whether a request of this module awaits a reply.
    pub fn in_flight(&self) -> usize {
        usize::from(self.lookup_pending.is_some())
            + usize::from(self.health.as_ref().is_some_and(|h| h.pending.is_some()))
    }

    /// Background lookups awaited (names, activity, recent deliveries), not shown as in flight.
    pub fn background(&self) -> usize {
        usize::from(self.names_pending.is_some())
            + usize::from(self.glance_pending.is_some())
            + usize::from(self.stats_pending.is_some())
            + self.named_pending.len()
            + self.active_pending.len()
    }
}

/// A notification's attempts ordered by their index.
pub(crate) fn sorted_attempts(n: &Notification) -> Vec<&Attempt> {
    let mut v: Vec<&Attempt> = n.attempts.iter().collect();
    v.sort_by_key(|a| a.index);
    v
}
