//! Applies the console's configuration (keys, theme, mouse, watch interval, clipboard,
//! confirmation, history) to a fresh state.
use super::{PowerSetup, command};
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
        let console = self.console.clone().unwrap_or_default();
        let theme_name = match console.get("theme") {
            None => None,
            Some(toml::Value::String(s)) => Some(s.as_str()),
            Some(_) => {
                problems.push("[console] theme must be \"dark\" or \"light\"".into());
                None
            }
        };
        let (theme, problem) = crate::console::theme::Theme::choose(theme_name, self.no_color);
        state.settings.theme = theme;
        problems.extend(problem);
        state.settings.mouse = match console.get("mouse") {
            None => true,
            Some(toml::Value::Boolean(b)) => *b,
            Some(_) => {
                problems.push("[console] mouse must be true or false; mouse on".into());
                true
            }
        };
        match console.get("watch_interval") {
            None => {}
            Some(v) => match v.as_float().or_else(|| v.as_integer().map(|i| i as f64)) {
                Some(secs) if (0.2..=3600.0).contains(&secs) => {
                    state.settings.watch_every_ticks =
                        crate::console::settings::ticks(std::time::Duration::from_secs_f64(secs))
                }
                _ => problems.push(
                    "[console] watch_interval must be seconds between 0.2 and 3600; 2 s in use"
                        .into(),
                ),
            },
        }
        match console.get("notifications_order").map(toml::Value::as_str) {
            None => {}
            Some(Some(word @ ("asc" | "desc"))) => {
                let order = if word == "asc" {
                    crate::api::Order::Asc
                } else {
                    crate::api::Order::Desc
                };
                state.settings.notifications_order = order;
                let tab = crate::console::tab::Tab::Notifications;
                state.tab_state_mut(tab).list.order = order;
            }
            Some(_) => problems.push(
                "[console] notifications_order must be \"desc\" or \"asc\"; newest first in use"
                    .into(),
            ),
        }
        state.settings.clipboard = match console.get("clipboard") {
            None => Default::default(),
            Some(v) => match v
                .as_str()
                .map(crate::console::clipboard::ClipboardMode::parse)
            {
                Some(Ok(mode)) => mode,
                Some(Err(e)) => {
                    problems.push(e);
                    Default::default()
                }
                None => {
                    problems.push("[console] clipboard must be a string; auto in use".into());
                    Default::default()
                }
            },
        };
        for key in console.keys().filter(|k| {
            !matches!(
                k.as_str(),
                "theme" | "mouse" | "watch_interval" | "clipboard" | "notifications_order"
            )
        }) {
            problems.push(format!("[console] unknown setting {key:?} (ignored)"));
        }
        state.settings.keymap.hide_writes = state.read_only;
        state.power.confirm = self.confirm;
        state.settings.data_dir.clone_from(&self.data_dir);
        state.settings.profiles.clone_from(&self.profiles);
        state.power.history = command::load_history(self.data_dir.as_deref());
        for p in problems {
            tracing::warn!("config: {p}");
            state.toast(ToastKind::Error, p);
        }
    }
}
