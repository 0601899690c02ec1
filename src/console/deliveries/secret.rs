//! A secret the open detail holds, on demand: a destination's signing secret or a callback's
//! hook URL (its last segment is the hook's key). `R` asks, `y` reveals it for that item only
//! until its detail is left, and `y` on the revealed secret copies it. Masked by the one
//! redaction policy otherwise; a copy is allowed only while revealed.
use super::DeliveriesState;
use crate::api::model::Destination;
use crate::console::confirm::{Confirm, Subject};
use crate::console::keymap::{Action, Input};
use crate::console::msg::{ApiCmd, Effect, Pane};
use crate::console::power::PowerEffect;
use crate::console::record::Item;
use crate::console::state::{Core, ToastKind};

/// What the open detail holds that `R` reveals: (item id, the secret, what it is called). A
/// callback's hook URL only when the policy masks part of it.
pub(crate) fn open_secret(cx: &Core) -> Option<(String, String, &'static str)> {
    let record = cx.current().detail.as_ref()?.record.as_ref()?;
    match (&record.item, cx.tab) {
        (Item::Destination(d), super::RECEIVERS) => d
            .webhook_destination
            .as_ref()
            .map(|w| (d.id.clone(), w.signing_secret.clone(), "signing secret")),
        // The newest generation: only the answers to create and rotate carry it.
        (Item::EventDestination(d), t) if t.receives() => d
            .webhook
            .as_ref()
            .and_then(|w| w.signing_secret.as_ref())
            .map(|s| (d.id.clone(), s.expose().to_string(), "signing secret")),
        (Item::Callback(c), super::SENDERS) => c
            .url
            .as_ref()
            .filter(|u| crate::api::secret::mask_url_key(u) != **u)
            .map(|u| (c.id.clone(), u.clone(), "hook URL")),
        _ => None,
    }
}

/// The id of the open item whose secret `R` reveals.
pub(crate) fn open_secret_id(cx: &Core) -> Option<String> {
    open_secret(cx).map(|(id, _, _)| id)
}

/// The open callback's hook URL while it is revealed.
pub(crate) fn revealed_hook(d: &DeliveriesState, cx: &Core, callback_id: &str) -> Option<String> {
    if d.secret_shown.as_deref() != Some(callback_id) {
        return None;
    }
    open_secret(cx)
        .filter(|(id, _, what)| id == callback_id && *what == "hook URL")
        .map(|(_, url, _)| url)
}

/// The open event destination's new signing secret while it is revealed.
pub(crate) fn revealed_event_secret(
    d: &DeliveriesState,
    cx: &Core,
    destination_id: &str,
) -> Option<String> {
    if d.secret_shown.as_deref() != Some(destination_id) {
        return None;
    }
    open_secret(cx)
        .filter(|(id, _, _)| id == destination_id)
        .map(|(_, s, _)| s)
}

/// Forgets a revealed secret once its item's detail is no longer the one open.
pub(crate) fn forget_if_left(d: &mut DeliveriesState, cx: &Core) {
    let open = open_secret_id(cx);
    if d.secret_shown.is_some() && d.secret_shown != open {
        d.secret_shown = None;
    }
}

/// `R` on an open destination or callback: ask before showing its secret. False when none is
/// open.
pub(crate) fn ask(d: &mut DeliveriesState, cx: &mut Core) -> bool {
    let Some(id) = open_secret_id(cx) else {
        return false;
    };
    if d.secret_shown.as_deref() == Some(id.as_str()) {
        // Pressed again: hide it.
        d.secret_shown = None;
    } else {
        let what = open_secret(cx).map_or("secret", |(_, _, what)| what);
        cx.confirm = Some(Confirm::yes_no(
            format!("Reveal {what}"),
            format!("Show this {what} in full (until you leave it)?"),
            Subject::ShowSecret(id),
        ));
    }
    true
}

/// The secret as it may be shown: in full only while revealed for this destination.
pub(crate) fn shown(room: &DeliveriesState, d: &Destination, secret: &str) -> (String, bool) {
    if room.secret_shown.as_deref() == Some(d.id.as_str()) {
        (crate::text::line(secret).into_owned(), true)
    } else {
        (crate::text::redact::mask(secret), false)
    }
}

/// `y` on a revealed secret copies it; `None` lets the tab have the key.
pub(crate) fn copy_key(d: &mut DeliveriesState, cx: &mut Core, key: &Input) -> Option<Vec<Effect>> {
    forget_if_left(d, cx);
    let shown = d.secret_shown.clone()?;
    if key.action() != Some(Action::CopyId) {
        return None;
    }
    let (secret, what) = open_secret(cx)
        .filter(|(id, _, _)| *id == shown)
        .map(|(_, s, what)| (s, what))?;
    // Only printable ASCII goes to the clipboard: a secret never holds anything else.
    if secret.is_empty() || !secret.chars().all(|c| c.is_ascii_graphic()) {
        cx.toast(
            ToastKind::Error,
            "Not copied: the secret holds characters a secret never has",
        );
        return Some(Vec::new());
    }
    Some(vec![Effect::Power(PowerEffect::Copy {
        text: secret,
        what: what.into(),
    })])
}

/// Asks in the background whether a destination is still active (deleted ones leave the list),
/// each time its detail opens: it may have been deleted since the names were looked up.
pub(crate) fn check_active(cx: &mut Core, id: &str) -> Vec<Effect> {
    let d = &cx.caches;
    if d.deleted.contains(id) || d.active_pending.values().any(|p| p == id) {
        return Vec::new();
    }
    let req_id = cx.next_req_id();
    cx.caches.active_pending.insert(req_id, id.to_string());
    vec![Effect::Api {
        req_id,
        pane: Pane::Active,
        cmd: ApiCmd::Active(id.to_string()),
    }]
}
