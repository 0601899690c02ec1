//! What the console learned in the background and every room may read: names of callbacks and
//! destinations, which destinations are deleted or active, and the destinations' recent
//! deliveries (the list's health glance). Rooms reach it as `state.caches`, not through the
//! deliveries room that fills most of it.
use std::collections::{BTreeMap, BTreeSet};

/// The background caches of one session (a profile switch starts empty ones).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Caches {
    /// Names of callbacks and destinations of this profile, looked up in the background.
    pub(crate) names: crate::api::NameCache,
    /// Every callback (id, name) known from that lookup, for the filter dialog's picker.
    pub(crate) callbacks: Vec<(String, String)>,
    /// The names lookup in flight.
    pub(crate) names_pending: Option<u64>,
    /// The names lookup was asked for (it is made once per profile).
    pub(crate) names_asked: bool,
    /// Destinations known to be deleted (not in the active list, or deleted in this session).
    pub(crate) deleted: BTreeSet<String>,
    /// Destinations known to be active.
    pub(crate) active: BTreeSet<String>,
    /// The activity checks in flight, by request: one per destination, so that opening another
    /// destination while one is checked still checks the other.
    pub(crate) active_pending: BTreeMap<u64, String>,
    /// Destinations looked up by id (to name them, deleted ones too).
    pub(crate) named_asked: BTreeSet<String>,
    /// Those lookups in flight, by request.
    pub(crate) named_pending: BTreeMap<u64, String>,
    /// Recent deliveries of listed destinations, by id (the list's sparklines).
    pub(crate) glance: BTreeMap<String, crate::api::health::Health>,
    /// Destinations whose recent deliveries were asked for.
    pub(crate) glance_asked: BTreeSet<String>,
    /// The recent-deliveries lookup in flight.
    pub(crate) glance_pending: Option<u64>,
    /// The destinations list's revision the glance was last asked for (a new page, `r`, asks
    /// again).
    pub(crate) glance_rev: u64,
}

impl Caches {
    /// Lookups awaited (names, activity, recent deliveries): quiet, not shown as in flight.
    pub(crate) fn background(&self) -> usize {
        usize::from(self.names_pending.is_some())
            + usize::from(self.glance_pending.is_some())
            + self.named_pending.len()
            + self.active_pending.len()
    }
}
