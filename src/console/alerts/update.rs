//! The alerts' keys, requests and replies: a check when the console opens, on `!`, on the
//! timer and after a profile switch (the new profile's rules read first), the header's count, the list that `!` opens (`Esc` or `!` closes it).
use crossterm::event::KeyCode;

use super::{Active, AlertsCmd};
use crate::api::Error;
use crate::console::keymap::{Action, Input};
use crate::console::msg::{ApiCmd, ApiReply, Effect, Pane, Step};
use crate::console::state::{State, ToastKind};

/// The list's keys, for the footer.
pub(crate) const KEYS: &[(&str, &str)] = &[("Esc", "close")];

/// Whether the current profile has rules to judge (then the console ticks for them).
pub(crate) fn has_rules(state: &State) -> bool {
    state
        .settings
        .alert_rules
        .as_ref()
        .is_some_and(|r| r.profile == state.profile && !r.rules.is_empty())
}

/// A tick: every `alerts_every_ticks` the rules are judged again, on the worker.
pub(crate) fn on_tick(state: &mut State) -> Vec<Effect> {
    if !has_rules(state) {
        return Vec::new();
    }
    state.alerts.ticks = state.alerts.ticks.saturating_add(1);
    if state.alerts.ticks < state.settings.alerts_every_ticks {
        return Vec::new();
    }
    start(state)
}

/// After a profile switch: the new profile's rules, read from the config by the loader main
/// gave (none: the console keeps no rules); a rule that cannot be used is said in a toast.
pub(crate) fn load(state: &mut State) {
    let Some(loader) = state.settings.alerts_loader.clone() else {
        return;
    };
    state.settings.alert_rules = match (loader.0)(&state.profile) {
        Ok(rules) => Some(super::Rules {
            profile: state.profile.clone(),
            rules: std::sync::Arc::new(rules),
        }),
        Err(e) => {
            state.toast(
                ToastKind::Error,
                crate::text::line(&format!("alerts: {e}")).into_owned(),
            );
            None
        }
    };
}

/// Asks the worker to judge the profile's rules, when it has any and none is in flight.
pub(crate) fn start(state: &mut State) -> Vec<Effect> {
    let Some(rules) = state
        .settings
        .alert_rules
        .clone()
        .filter(|r| r.profile == state.profile && !r.rules.is_empty())
    else {
        return Vec::new();
    };
    // The timer counts from the last check asked for, whoever asked.
    state.alerts.ticks = 0;
    if state.alerts.pending.is_some() {
        return Vec::new();
    }
    let req_id = state.next_req_id();
    state.alerts.pending = Some(req_id);
    vec![Effect::Api {
        req_id,
        pane: Pane::Alerts,
        cmd: ApiCmd::Alerts(Box::new(AlertsCmd {
            rules,
            data_dir: state.settings.data_dir.clone(),
        })),
    }]
}

/// `!`: the list of active alerts, judged again.
pub(crate) fn open(state: &mut State) -> Vec<Effect> {
    if !has_rules(state) {
        let p = crate::text::line(&state.profile).into_owned();
        state.toast(
            ToastKind::Info,
            format!("No alert rules for profile {p} ([[profiles.{p}.alerts]] in the config)"),
        );
        return Vec::new();
    }
    state.alerts.shown = true;
    start(state)
}

/// Whether a reply is the check in flight's.
pub(crate) fn awaits(state: &State, req_id: u64) -> bool {
    state.alerts.pending == Some(req_id)
}

/// The check's result.
pub(crate) fn on_reply(state: &mut State, result: Result<ApiReply, Error>) -> Vec<Effect> {
    state.alerts.pending = None;
    match result {
        Ok(ApiReply::Alerts(found)) => {
            state.alerts.active = Some(found.0);
            state.alerts.error = None;
        }
        Ok(_) => {}
        Err(e) => {
            state.alerts.error = Some(crate::text::line(&e.to_string()).into_owned());
        }
    }
    Vec::new()
}

/// The header's chip: `⚠ 2 alerts · !`, when a rule is failing.
pub(crate) fn header(state: &State) -> Option<String> {
    let n = state.alerts.active.as_ref().map_or(0, Active::len);
    match n {
        0 => None,
        1 => Some("⚠ 1 alert · !".into()),
        n => Some(format!("⚠ {n} alerts · !")),
    }
}

/// A key while the list is open: `Esc`, `!` or `q` close it; it takes every key.
pub(crate) fn on_key(state: &mut State, input: &Input) -> Option<Step> {
    if !state.alerts.shown {
        return None;
    }
    let closes = input.key.code == KeyCode::Esc
        || matches!(
            input.action(),
            Some(Action::Alerts | Action::Back | Action::Quit)
        );
    if closes {
        state.alerts.shown = false;
    }
    Some(Step::default())
}
