//! A destination's signing secret on demand: `R` on an open destination asks, `y` reveals it for
//! that destination only until its detail is left, and `y` on the revealed secret copies it.
//! Masked by the one redaction policy otherwise; a copy is allowed only while revealed.
use crate::api::model::Destination;
use crate::console::confirm::{Confirm, Subject};
use crate::console::keymap::{Action, Input};
use crate::console::msg::{ApiCmd, Effect, Pane};
use crate::console::power::PowerEffect;
use crate::console::record::Item;
use crate::console::state::{State, ToastKind};
use crate::console::tab::Tab;

/// The destination whose detail is open on the Destinations tab.
pub(crate) fn open_destination(state: &State) -> Option<&Destination> {
    if state.tab != Tab::Destinations {
        return None;
    }
    match &state.current().detail.as_ref()?.record.as_ref()?.item {
        Item::Destination(d) => Some(d),
        _ => None,
    }
}

/// Forgets a revealed secret once its destination's detail is no longer the one open.
pub(crate) fn forget_if_left(state: &mut State) {
    let open = open_destination(state).map(|d| d.id.clone());
    let d = &mut state.deliveries;
    if d.secret_shown.is_some() && d.secret_shown != open {
        d.secret_shown = None;
    }
}

/// `R` on an open destination: ask before showing its signing secret. False when none is open.
pub(crate) fn ask(state: &mut State) -> bool {
    let Some(id) = open_destination(state).map(|d| d.id.clone()) else {
        return false;
    };
    if state.deliveries.secret_shown.as_deref() == Some(id.as_str()) {
        // Pressed again: hide it.
        state.deliveries.secret_shown = None;
    } else {
        state.confirm = Some(Confirm::yes_no(
            "Reveal signing secret",
            "Show this destination's signing secret (until you leave it)?",
            Subject::ShowSecret(id),
        ));
    }
    true
}

/// The secret as it may be shown: in full only while revealed for this destination.
pub(crate) fn shown(state: &State, d: &Destination, secret: &str) -> (String, bool) {
    if state.deliveries.secret_shown.as_deref() == Some(d.id.as_str()) {
        (crate::text::line(secret).into_owned(), true)
    } else {
        (crate::text::redact::mask(secret), false)
    }
}

/// `y` on a revealed secret copies it; `None` lets the tab have the key.
pub(crate) fn copy_key(state: &mut State, key: &Input) -> Option<Vec<Effect>> {
    forget_if_left(state);
    let shown = state.deliveries.secret_shown.clone()?;
    if key.action() != Some(Action::CopyId) {
        return None;
    }
    let secret = open_destination(state)
        .filter(|d| d.id == shown)
        .and_then(|d| d.webhook_destination.as_ref())
        .map(|w| w.signing_secret.clone())?;
    // Only printable ASCII goes to the clipboard: a secret never holds anything else.
    if secret.is_empty() || !secret.chars().all(|c| c.is_ascii_graphic()) {
        state.toast(
            ToastKind::Error,
            "Not copied: the secret holds characters a secret never has",
        );
        return Some(Vec::new());
    }
    Some(vec![Effect::Power(PowerEffect::Copy {
        text: secret,
        what: "signing secret".into(),
    })])
}

/// Asks in the background whether a destination is still active (deleted ones leave the list),
/// each time its detail opens: it may have been deleted since the names were looked up.
pub(crate) fn check_active(state: &mut State, id: &str) -> Vec<Effect> {
    let d = &state.deliveries;
    if d.deleted.contains(id) || d.active_pending.values().any(|p| p == id) {
        return Vec::new();
    }
    let req_id = state.next_req_id();
    state
        .deliveries
        .active_pending
        .insert(req_id, id.to_string());
    vec![Effect::Api {
        req_id,
        pane: Pane::Active,
        cmd: ApiCmd::Active(id.to_string()),
    }]
}
