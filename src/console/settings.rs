//! What the operator configured (`[keys]`, `[console]`, the data dir): it lives beside the
//! session, not in it, so a profile switch, which starts a new session, keeps it whole.
use std::path::PathBuf;

use super::clipboard::ClipboardMode;
use super::keymap::Keymap;
use super::rooms;
use super::theme::Theme;
use crate::api::Order;

/// The console's settings; a profile switch never resets them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Settings {
    /// Key bindings.
    pub(crate) keymap: Keymap,
    /// Styles.
    pub(crate) theme: Theme,
    /// The order the Notifications tab opens in (`[console] notifications_order`).
    pub(crate) notifications_order: Order,
    /// Ticks between watch-mode refreshes (`[console] watch_interval`).
    pub(crate) watch_every_ticks: u32,
    /// Whether mouse events are used.
    pub(crate) mouse: bool,
    /// How copies are made (`[console] clipboard`).
    pub(crate) clipboard: ClipboardMode,
    /// Where the history is kept; none keeps it in memory only.
    pub(crate) data_dir: Option<PathBuf>,
    /// Profile names offered by completion.
    pub(crate) profiles: Vec<String>,
    /// The config file, where `:view save` writes.
    pub(crate) config_path: Option<PathBuf>,
    /// Every saved view of the file (each profile's and the top-level ones).
    pub(crate) views: crate::config::views::AllViews,
    /// What a script runs to reach this service while the console runs (the demo's `export`).
    pub(crate) session_line: Option<String>,
    /// The alert rules of the profile the console opened on (or last switched to).
    pub(crate) alert_rules: Option<rooms::AlertRules>,
    /// Ticks between alert checks: `alerts watch`'s default interval.
    pub(crate) alerts_every_ticks: u32,
    /// Reads a profile's alert rules after a switch.
    pub(crate) alerts_loader: Option<rooms::AlertsLoader>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            keymap: Keymap::default(),
            theme: Theme::default(),
            // Newest first: the delivery that just failed is on the first page.
            notifications_order: Order::Desc,
            watch_every_ticks: ticks(WATCH_INTERVAL),
            // The offline app starts bare; `PowerSetup::configure` turns it on by default.
            mouse: false,
            clipboard: ClipboardMode::default(),
            data_dir: None,
            profiles: Vec::new(),
            config_path: None,
            views: Default::default(),
            session_line: None,
            alert_rules: None,
            alerts_every_ticks: ticks(rooms::ALERTS_INTERVAL),
            alerts_loader: None,
        }
    }
}

/// Default time between watch mode's refreshes (`[console] watch_interval`).
pub(crate) const WATCH_INTERVAL: std::time::Duration = std::time::Duration::from_secs(2);

/// The console's animation step: spinner, toasts and watch mode advance by it.
pub(crate) const TICK: std::time::Duration = std::time::Duration::from_millis(200);

impl Settings {
    /// The watch interval as it really runs (whole ticks), for the toast and help: `2 s`.
    pub(crate) fn watch_interval(&self) -> String {
        let ms = u128::from(self.watch_every_ticks) * TICK.as_millis();
        if ms.is_multiple_of(1000) {
            format!("{} s", ms / 1000)
        } else {
            format!("{:.1} s", ms as f64 / 1000.0)
        }
    }
}

/// A duration in whole animation ticks (at least one).
pub(crate) fn ticks(every: std::time::Duration) -> u32 {
    let n = (every.as_millis() / TICK.as_millis()).max(1);
    u32::try_from(n).unwrap_or(u32::MAX)
}
