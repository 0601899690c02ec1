//! Watch mode: the notifications list reloads itself every few seconds while it is on screen,
//! rows that are new or changed are highlighted briefly, and failures slow it down.
use std::collections::BTreeMap;
use std::time::Duration;

use crate::console::msg::Effect;
use crate::console::record::{Item, Record};
use crate::console::state::{LoadState, State};
use crate::console::tab::Tab;
use crate::console::update::load_list;

/// Default time between refreshes.
pub const WATCH_INTERVAL: Duration = Duration::from_secs(2);
/// The console's animation step, which drives watch mode.
pub const TICK: Duration = Duration::from_millis(200);
/// Ticks a new or changed row stays highlighted.
pub const FLASH_TICKS: u16 = 10;
/// The longest back-off factor after repeated errors.
pub const MAX_BACKOFF: u32 = 16;

/// Watch-mode state.
#[derive(Debug, Clone, PartialEq)]
pub struct Watch {
    /// Watching.
    pub on: bool,
    /// Ticks between refreshes (from [`WATCH_INTERVAL`]; tests may lower it).
    pub every_ticks: u32,
    /// Ticks left before the next refresh.
    pub countdown: u32,
    /// Multiplier after errors (1 when healthy).
    pub backoff: u32,
    /// What each row looked like at the last look: (status, attempts).
    pub seen: BTreeMap<String, (String, usize)>,
    /// Rows highlighted, with ticks left.
    pub flash: BTreeMap<String, u16>,
}

impl Default for Watch {
    fn default() -> Self {
        let every = (WATCH_INTERVAL.as_millis() / TICK.as_millis()).max(1);
        Self {
            on: false,
            every_ticks: u32::try_from(every).unwrap_or(10),
            countdown: 0,
            backoff: 1,
            seen: BTreeMap::new(),
            flash: BTreeMap::new(),
        }
    }
}

/// Sets the refresh interval (`watch_interval` of `[console]` in the config), in whole ticks.
pub fn set_interval(w: &mut Watch, every: Duration) {
    let ticks = (every.as_millis() / TICK.as_millis()).max(1);
    w.every_ticks = u32::try_from(ticks).unwrap_or(u32::MAX);
}

/// What a row looks like to watch mode.
fn fingerprint(r: &Record) -> (String, usize) {
    match &r.item {
        Item::Notification(n) => (n.status.as_str().to_string(), n.attempts.len()),
        _ => (String::new(), 0),
    }
}

/// Whether watching is on but held back (another tab, a detail, a dialog).
pub fn paused(state: &State) -> bool {
    let d = &state.deliveries;
    state.tab != Tab::Notifications
        || state.current().detail.is_some()
        || d.attempt.is_some()
        || d.filter.is_some()
        || state.help
}

/// Whether watch mode needs animation ticks: only while it is watching unpaused, or a highlight
/// is fading.
pub fn needs_ticks(state: &State) -> bool {
    let w = &state.deliveries.watch;
    (w.on && !paused(state)) || !w.flash.is_empty()
}

/// Turns watching on or off.
pub fn toggle(state: &mut State) {
    let rows = &state.tab_state(Tab::Notifications).list.rows;
    let seen = rows
        .iter()
        .map(|r| (r.id().to_string(), fingerprint(r)))
        .collect();
    let w = &mut state.deliveries.watch;
    w.on = !w.on;
    w.countdown = w.every_ticks;
    w.backoff = 1;
    w.seen = seen;
    w.flash.clear();
}

/// One animation step: fade highlights, spot new and changed rows, and reload when due.
pub fn on_tick(state: &mut State) -> Vec<Effect> {
    let w = &mut state.deliveries.watch;
    w.flash.values_mut().for_each(|t| *t = t.saturating_sub(1));
    w.flash.retain(|_, t| *t > 0);
    if !w.on {
        return Vec::new();
    }
    let list = &state.tab_state(Tab::Notifications).list;
    if list.pending.is_none() {
        let now: BTreeMap<String, (String, usize)> = list
            .rows
            .iter()
            .map(|r| (r.id().to_string(), fingerprint(r)))
            .collect();
        let w = &mut state.deliveries.watch;
        for (id, fp) in &now {
            if w.seen.get(id) != Some(fp) {
                w.flash.insert(id.clone(), FLASH_TICKS);
            }
        }
        w.seen = now;
    }
    if paused(state) {
        return Vec::new();
    }
    let list = &state.tab_state(Tab::Notifications).list;
    let failed = matches!(list.load, LoadState::Error(_));
    let busy = list.pending.is_some();
    let (anchor, page) = (list.anchor.clone(), list.page.max(1));
    let w = &mut state.deliveries.watch;
    w.countdown = w.countdown.saturating_sub(1);
    if w.countdown > 0 || busy {
        return Vec::new();
    }
    w.backoff = if failed {
        (w.backoff * 2).min(MAX_BACKOFF)
    } else {
        1
    };
    w.countdown = w.every_ticks.saturating_mul(w.backoff);
    load_list(state, Tab::Notifications, anchor, page, false)
}
