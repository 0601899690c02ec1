//! Applies the console's configuration (keys, theme, mouse, watch interval, clipboard,
//! confirmation, history, a saved view) to a fresh state: the settings, the power tools'
//! model and what a saved view sets, so it takes the whole state (it runs before the router).
use super::power::{PowerSetup, command};
use crate::console::state::{State, ToastKind};

impl PowerSetup {
    /// Applies keys, theme, mouse, confirmation and history to a fresh state. Config mistakes
    /// leave the defaults in place and say why in a toast.
    pub(crate) fn configure(&self, state: &mut State) {
        let mut problems = Vec::new();
        if let Some(keys) = &self.keys {
            match crate::console::keymap::Keymap::from_config(keys) {
                Ok(km) => state.settings.keymap = km,
                Err(e) => problems.push(format!("{e}; default keys in use")),
            }
        }
        let console = match self.console.clone().map(ConsoleTable::try_from) {
            None => ConsoleTable::default(),
            Some(Ok(table)) => table,
            // Every key takes any value; only a table that is no table could land here.
            Some(Err(e)) => {
                problems.push(format!("[console] {e}"));
                ConsoleTable::default()
            }
        };
        let theme_name = match &console.theme {
            None => None,
            Some(Setting::Is(s)) => Some(s.as_str()),
            Some(Setting::Not(_)) => {
                problems.push("[console] theme must be \"dark\" or \"light\"".into());
                None
            }
        };
        let (theme, problem) = crate::console::theme::Theme::choose(theme_name, self.no_color);
        state.settings.theme = theme;
        problems.extend(problem);
        state.settings.mouse = match console.mouse {
            None => true,
            Some(Setting::Is(b)) => b,
            Some(Setting::Not(_)) => {
                problems.push("[console] mouse must be true or false; mouse on".into());
                true
            }
        };
        match console.watch_interval {
            None => {}
            Some(Setting::Is(secs)) if (0.2..=3600.0).contains(&secs) => {
                state.settings.watch_every_ticks =
                    crate::console::settings::ticks(std::time::Duration::from_secs_f64(secs))
            }
            Some(_) => problems.push(
                "[console] watch_interval must be seconds between 0.2 and 3600; 2 s in use".into(),
            ),
        }
        match console.notifications_order.as_ref().map(Setting::value) {
            None => {}
            Some(Some(word @ ("asc" | "desc"))) => {
                let order = if word == "asc" {
                    crate::api::Order::Asc
                } else {
                    crate::api::Order::Desc
                };
                state.settings.notifications_order = order;
                let tab = crate::console::tab::Tab::NOTIFICATIONS_LIST;
                state.tab_state_mut(tab).list.order = order;
            }
            Some(_) => problems.push(
                "[console] notifications_order must be \"desc\" or \"asc\"; newest first in use"
                    .into(),
            ),
        }
        state.settings.clipboard = match console.clipboard.as_ref().map(Setting::value) {
            None => Default::default(),
            Some(Some(word)) => match crate::console::clipboard::ClipboardMode::parse(word) {
                Ok(mode) => mode,
                Err(e) => {
                    problems.push(e);
                    Default::default()
                }
            },
            Some(None) => {
                problems.push("[console] clipboard must be a string; auto in use".into());
                Default::default()
            }
        };
        for key in console.unknown.keys() {
            problems.push(format!("[console] unknown setting {key:?} (ignored)"));
        }
        state.settings.keymap.hide_writes = state.read_only;
        state.power.confirm = self.confirm;
        state.settings.data_dir.clone_from(&self.data_dir);
        state.settings.profiles.clone_from(&self.profiles);
        state.settings.session_line.clone_from(&self.session_line);
        state.power.history = command::load_history(self.data_dir.as_deref());
        state.settings.config_path.clone_from(&self.config_path);
        match crate::config::views::AllViews::load(self.config_path.as_deref()) {
            Ok(views) => state.settings.views = views,
            Err(e) => problems.push(format!("views: {e}")),
        }
        if !self.alerts.is_empty() {
            state.settings.alert_rules = Some(crate::console::alerts::Rules {
                profile: state.profile.clone(),
                rules: std::sync::Arc::new(self.alerts.clone()),
            });
        }
        state.settings.alerts_loader.clone_from(&self.alerts_loader);
        if let Some(e) = &self.alerts_error {
            problems.push(format!("alerts: {e}"));
        }
        if let Some(name) = &self.view {
            let view = state
                .settings
                .views
                .of(crate::console::saved_views::section(state).as_deref())
                .remove(name);
            match view.and_then(|v| crate::console::saved_views::apply(state, &v)) {
                Some(_) => {}
                None => problems.push(format!("--view {name}: no such view for this profile")),
            }
        }
        for p in problems {
            tracing::warn!("config: {p}");
            state.toast(ToastKind::Error, p);
        }
    }
}

/// The `[console]` table: each known key as the type it should be, or what was there instead
/// (so that one bad value is named and the rest still apply); the other keys, to be named.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct ConsoleTable {
    theme: Option<Setting<String>>,
    mouse: Option<Setting<bool>>,
    /// Seconds; a whole number is taken too.
    watch_interval: Option<Setting<f64>>,
    notifications_order: Option<Setting<String>>,
    clipboard: Option<Setting<String>>,
    #[serde(flatten)]
    unknown: std::collections::BTreeMap<String, toml::Value>,
}

impl TryFrom<toml::Table> for ConsoleTable {
    type Error = toml::de::Error;

    fn try_from(table: toml::Table) -> Result<Self, Self::Error> {
        serde::Deserialize::deserialize(toml::Value::Table(table))
    }
}

/// One setting's value: of its type, or anything else.
#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
enum Setting<T> {
    /// Of the expected type.
    Is(T),
    /// Something else, to be refused.
    Not(serde::de::IgnoredAny),
}

impl Setting<String> {
    /// The text, when it is text.
    fn value(&self) -> Option<&str> {
        match self {
            Setting::Is(s) => Some(s),
            Setting::Not(_) => None,
        }
    }
}
