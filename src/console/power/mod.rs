//! Operator power tools: the `:` command line, per-tab filter and sort of the loaded rows (a
//! derived view), the raw JSON view, copying, runtime profile switching, read-only refusals.
//! This file holds the model; `update` its keys, actions and messages, `filter_sort` the
//! filter's keys and counts, `raw` the raw view's keys, `view` its drawing. What needs every
//! room is the router's: the view derivation (`console::derived_view`), the columns on screen
//! (`console::shown_columns`), the configuration (`console::setup`), the commands beyond power
//! (`console::commands`).
pub(crate) mod command;
pub(crate) mod filter;
pub(crate) mod filter_sort;
pub(crate) mod raw;
pub(crate) mod sort;
pub(crate) mod update;
pub(crate) mod view;

use std::path::PathBuf;

use crossterm::event::MouseEvent;

use self::command::CommandLine;
use self::filter::Filter;
use self::sort::Sort;
use crate::console::raw_json::RawView;

/// How destructive actions are confirmed (the profile's `confirm`); read by the forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConfirmMode {
    /// No question (`confirm = false`).
    Off,
    /// A yes/no question (`confirm = true`, the default).
    #[default]
    Ask,
    /// The item's name must be typed (`confirm = "type-name"`).
    TypeName,
}

impl ConfirmMode {
    /// The mode of a resolved profile's settings.
    pub fn from_settings(confirm: bool, type_name: bool) -> Self {
        match (confirm, type_name) {
            (_, true) => ConfirmMode::TypeName,
            (true, false) => ConfirmMode::Ask,
            (false, false) => ConfirmMode::Off,
        }
    }
}

/// The power tools' part of the state.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct PowerState {
    /// The open command line.
    pub(crate) command: Option<CommandLine>,
    /// Command history, oldest first (kept in the data dir between runs).
    pub(crate) history: Vec<String>,
    /// Filter per tab, indexed by [`Tab::index`].
    pub(crate) filters: [Filter; crate::console::tab::Tab::ALL.len()],
    /// Sort per tab.
    pub(crate) sorts: [Sort; crate::console::tab::Tab::ALL.len()],
    /// The open raw JSON view.
    pub(crate) raw: Option<RawView>,
    /// Confirmation mode of the active profile.
    pub(crate) confirm: ConfirmMode,
    /// The profile being switched to, while it resolves.
    pub(crate) switching: Option<String>,
}

/// What the app tells the power tools.
#[derive(Debug, Clone)]
pub(crate) enum PowerMsg {
    /// A mouse event.
    Mouse(MouseEvent),
    /// The profile switch succeeded: a new client is in place.
    Switched(ProfileInfo),
    /// The profile could not be switched to.
    SwitchFailed(String),
    /// A copy was sent (or failed).
    Copied {
        /// What was copied, for the toast.
        what: String,
        /// The ways that took it (`OSC 52 + system clipboard`), or why none did.
        result: Result<String, String>,
    },
}

/// The parts of a profile the state shows and obeys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileInfo {
    /// Profile name.
    pub profile: String,
    /// Base URL.
    pub base_url: String,
    /// Refuse writes.
    pub read_only: bool,
    /// Confirmation mode.
    pub confirm: ConfirmMode,
}

/// What the power tools ask of the app. `Debug` is written by hand: a copy may carry a revealed
/// secret, and debug output (logs, test failures) must never show it.
#[derive(Clone, PartialEq)]
pub(crate) enum PowerEffect {
    /// Put text on the clipboard.
    Copy {
        /// The text.
        text: String,
        /// What it is, for the toast.
        what: String,
    },
    /// Write the command history to the data dir.
    SaveHistory(PathBuf, Vec<String>),
    /// Build a client for another profile.
    SwitchProfile(String),
    /// Forget the switch still resolving (the user stays where they are).
    CancelSwitch,
    /// Write a saved view into the config file (`:view save NAME`).
    SaveView {
        /// The config file.
        path: PathBuf,
        /// Its profile's section, or the top-level one.
        profile: Option<String>,
        /// The view's name.
        name: String,
        /// The view.
        view: Box<crate::config::views::View>,
    },
}

impl std::fmt::Debug for PowerEffect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Copy { text, what } => f
                .debug_struct("Copy")
                .field(
                    "text",
                    &format_args!("<{} chars hidden>", text.chars().count()),
                )
                .field("what", what)
                .finish(),
            Self::SaveHistory(path, lines) => f
                .debug_tuple("SaveHistory")
                .field(path)
                .field(&format_args!("<{} lines>", lines.len()))
                .finish(),
            Self::SwitchProfile(name) => f.debug_tuple("SwitchProfile").field(name).finish(),
            Self::CancelSwitch => f.write_str("CancelSwitch"),
            Self::SaveView { profile, name, .. } => f
                .debug_struct("SaveView")
                .field("profile", profile)
                .field("name", name)
                .finish_non_exhaustive(),
        }
    }
}

#[cfg(test)]
mod effect_tests {
    use super::PowerEffect;

    #[test]
    fn debug_never_shows_copied_text() {
        let e = PowerEffect::Copy {
            text: "whsec_revealed_0123456789".into(),
            what: "signing secret".into(),
        };
        let shown = format!("{e:?} {e:#?}");
        assert!(!shown.contains("whsec_revealed"), "{shown}");
        assert!(shown.contains("signing secret"), "{shown}");
    }
}

/// Builds the client and settings of another profile (main wires it to the config).
#[derive(Clone)]
pub struct ProfileSwitcher(
    #[allow(clippy::type_complexity)]
    pub(crate)  std::sync::Arc<
        dyn Fn(&str) -> Result<(crate::api::Client, ProfileInfo), String> + Send + Sync,
    >,
);

impl std::fmt::Debug for ProfileSwitcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProfileSwitcher")
    }
}

impl ProfileSwitcher {
    /// Wraps a function.
    pub fn new(
        f: impl Fn(&str) -> Result<(crate::api::Client, ProfileInfo), String> + Send + Sync + 'static,
    ) -> Self {
        Self(std::sync::Arc::new(f))
    }
}

/// Reads a profile's alert rules from the config (main wires it), so that after a profile
/// switch the console checks the new profile's rules.
#[derive(Clone)]
pub struct AlertsLoader(pub(crate) std::sync::Arc<RulesOf>);

/// What an [`AlertsLoader`] calls: a profile's name to its rules.
type RulesOf = dyn Fn(&str) -> Result<Vec<crate::alerts::Rule>, String> + Send + Sync;

impl std::fmt::Debug for AlertsLoader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AlertsLoader")
    }
}

impl PartialEq for AlertsLoader {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl AlertsLoader {
    /// Wraps a function.
    pub fn new(
        f: impl Fn(&str) -> Result<Vec<crate::alerts::Rule>, String> + Send + Sync + 'static,
    ) -> Self {
        Self(std::sync::Arc::new(f))
    }
}

/// The power tools' part of the console setup; every field has a harmless default.
#[derive(Debug, Clone, Default)]
pub struct PowerSetup {
    /// Confirmation mode of the profile.
    pub confirm: ConfirmMode,
    /// The config's `[keys]` table.
    pub keys: Option<toml::Table>,
    /// The config's `[console]` table (`theme = "dark"|"light"`, `mouse = true|false`).
    pub console: Option<toml::Table>,
    /// Where the command history is kept.
    pub data_dir: Option<PathBuf>,
    /// Profile names for completion.
    pub profiles: Vec<String>,
    /// How `:profile NAME` builds a client; none refuses the command.
    pub switcher: Option<ProfileSwitcher>,
    /// `NO_COLOR` is set.
    pub no_color: bool,
    /// The config file (saved views are read from and written to it).
    pub config_path: Option<PathBuf>,
    /// `--view NAME`: a saved view applied at start.
    pub view: Option<String>,
    /// The line a script runs to reach this console's service (the demo's `export`), shown in
    /// `?` while the console runs.
    pub session_line: Option<String>,
    /// The profile's alert rules (checked).
    pub alerts: Vec<crate::alerts::Rule>,
    /// Why the profile's alert rules cannot be used.
    pub alerts_error: Option<String>,
    /// How another profile's alert rules are read after `:profile NAME`; none keeps none.
    pub alerts_loader: Option<AlertsLoader>,
}
