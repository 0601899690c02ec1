//! The alerts' keys, requests and replies: a check when the console opens, on `!`, on the
//! timer and after a profile switch (the new profile's rules read first), the header's count, the list that `!` opens (`Esc` or `!` closes it).
use crossterm::event::KeyCode;

use super::{Active, AlertsCmd, AlertsState};
use crate::api::Error;
use crate::console::keymap::{Action, Input};
use crate::console::msg::{ApiCmd, ApiReply, Effect, Pane, Step};
use crate::console::state::{Core, ToastKind};

/// The list's keys, for the footer.
pub(crate) const KEYS: &[(&str, &str)] = &[("Esc", "close")];

/// Whether the current profile has rules to judge (then the console ticks for them).
pub(crate) fn has_rules(cx: &Core) -> bool {
    cx.settings
        .alert_rules
        .as_ref()
        .is_some_and(|r| r.profile == cx.profile && !r.rules.is_empty())
}

/// A tick: every `alerts_every_ticks` the rules are judged again, on the worker.
pub(crate) fn on_tick(alerts: &mut AlertsState, cx: &mut Core) -> Vec<Effect> {
    if !has_rules(cx) {
        return Vec::new();
    }
    alerts.ticks = alerts.ticks.saturating_add(1);
    if alerts.ticks < cx.settings.alerts_every_ticks {
        return Vec::new();
    }
    start(alerts, cx)
}

/// After a profile switch: the new profile's rules, read from the config by the loader main
/// gave (none: the console keeps no rules); a rule that cannot be used is said in a toast.
pub(crate) fn load(cx: &mut Core) {
    let Some(loader) = cx.settings.alerts_loader.clone() else {
        return;
    };
    cx.settings.alert_rules = match (loader.0)(&cx.profile) {
        Ok(rules) => Some(super::Rules {
            profile: cx.profile.clone(),
            rules: std::sync::Arc::new(rules),
        }),
        Err(e) => {
            cx.toast(
                ToastKind::Error,
                crate::text::line(&format!("alerts: {e}")).into_owned(),
            );
            None
        }
    };
}

/// Asks the worker to judge the profile's rules, when it has any and none is in flight.
pub(crate) fn start(alerts: &mut AlertsState, cx: &mut Core) -> Vec<Effect> {
    let Some(rules) = cx
        .settings
        .alert_rules
        .clone()
        .filter(|r| r.profile == cx.profile && !r.rules.is_empty())
    else {
        return Vec::new();
    };
    // The timer counts from the last check asked for, whoever asked.
    alerts.ticks = 0;
    if alerts.pending.is_some() {
        return Vec::new();
    }
    let req_id = cx.next_req_id();
    alerts.pending = Some(req_id);
    vec![Effect::Api {
        req_id,
        pane: Pane::Alerts,
        cmd: ApiCmd::Alerts(Box::new(AlertsCmd {
            rules,
            data_dir: cx.settings.data_dir.clone(),
        })),
    }]
}

/// `!`: the list of active alerts, judged again.
pub(crate) fn open(alerts: &mut AlertsState, cx: &mut Core) -> Vec<Effect> {
    if !has_rules(cx) {
        let p = crate::text::line(&cx.profile).into_owned();
        cx.toast(
            ToastKind::Info,
            format!("No alert rules for profile {p} ([[profiles.{p}.alerts]] in the config)"),
        );
        return Vec::new();
    }
    alerts.shown = true;
    start(alerts, cx)
}

/// Whether a reply is the check in flight's.
pub(crate) fn awaits(alerts: &AlertsState, req_id: u64) -> bool {
    alerts.pending == Some(req_id)
}

/// The check's result.
pub(crate) fn on_reply(alerts: &mut AlertsState, result: Result<ApiReply, Error>) -> Vec<Effect> {
    alerts.pending = None;
    match result {
        Ok(ApiReply::Alerts(found)) => {
            alerts.active = Some(found.0);
            alerts.error = None;
        }
        Ok(_) => {}
        Err(e) => {
            alerts.error = Some(crate::text::line(&e.to_string()).into_owned());
        }
    }
    Vec::new()
}

/// The header's chip: `⚠ 2 alerts · !`, when a rule is failing.
pub(crate) fn header(alerts: &AlertsState) -> Option<String> {
    let n = alerts.active.as_ref().map_or(0, Active::len);
    match n {
        0 => None,
        1 => Some("⚠ 1 alert · !".into()),
        n => Some(format!("⚠ {n} alerts · !")),
    }
}

/// A key while the list is open: `Esc`, `!` or `q` close it; it takes every key.
pub(crate) fn on_key(alerts: &mut AlertsState, input: &Input) -> Option<Step> {
    if !alerts.shown {
        return None;
    }
    let closes = input.key.code == KeyCode::Esc
        || matches!(
            input.action(),
            Some(Action::Alerts | Action::Back | Action::Quit)
        );
    if closes {
        alerts.shown = false;
    }
    Some(Step::default())
}
