//! What the console knows besides an item, for the resource descriptions: relative times,
//! names, deleted destinations, the glance, the destinations a notification went to.
use chrono::{DateTime, Utc};

use crate::api::model::Notification;
use crate::console::state::State;
use crate::resource::Ctx;

/// Calls `f` with what the console knows besides the items: relative times, names, deleted
/// destinations, the glance, and the destinations a notification went to.
pub(crate) fn with_ctx<R>(state: &State, f: impl FnOnce(&Ctx<'_>) -> R) -> R {
    let relative = |t: &DateTime<Utc>| state.clock.relative(t);
    let destinations = |n: &Notification| {
        crate::console::deliveries::names::destinations_of(&state.deliveries, &state.core, n)
    };
    let ctx = Ctx {
        relative: Some(&relative),
        names: Some(&state.caches.names),
        deleted: Some(&state.caches.deleted),
        health: Some(&state.caches.glance),
        destinations_of: Some(&destinations),
    };
    f(&ctx)
}
