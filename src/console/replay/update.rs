//! The replay room's part of `update`: `P` opens it, it takes every key while open, and the
//! worker's replies (plan, answer) land here.
use crossterm::event::KeyCode;

use super::{
    DEFAULT_TARGET, Focus, ReplayCmd, ReplayReply, ReplayState, Room, Signing, Stage, Text,
};
use crate::api::Error;
use crate::api::replay::{self, HistoryEntry};
use crate::console::confirm::{Confirm, Subject};
use crate::console::deliveries::{AttemptView, DeliveriesState, sorted_attempts};
use crate::console::input::edit;
use crate::console::keymap::{Action, Input};
use crate::console::msg::{ApiCmd, ApiReply, Effect, Pane};
use crate::console::record::Item;
use crate::console::state::{Core, ErrorView, ToastKind};
use crate::console::tab::Tab;

/// What replay reads of the deliveries room, chosen at the router (read-only): the open attempt
/// view, and the notification detail's attempt cursor with the notification it belongs to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Seen<'a> {
    /// The open attempt view.
    pub(crate) attempt: Option<&'a AttemptView>,
    /// The notification the detail's attempt cursor belongs to.
    pub(crate) cursor_of: &'a str,
    /// The detail's attempt cursor.
    pub(crate) attempt_cursor: usize,
}

impl<'a> Seen<'a> {
    /// What the deliveries room shows of attempts.
    pub(crate) fn of(d: &'a DeliveriesState) -> Self {
        Self {
            attempt: d.attempt.as_ref(),
            cursor_of: &d.cursor_of,
            attempt_cursor: d.attempt_cursor,
        }
    }
}

/// `E`'s answer, handed to the router for compare to open on it beside the recorded attempt's
/// (a room never opens another).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToCompare {
    /// `cbn_…`.
    pub(crate) notification_id: String,
    /// The edited replay's answer.
    pub(crate) answer: crate::api::compare::Answer,
    /// The recorded attempt replayed (its index, from 0).
    pub(crate) attempt_index: i64,
}

/// Keys taken before the delivery panes and the keymap: every key while the room is open, and
/// `P` itself (so that it works over an open attempt). `None` lets the others have the key.
pub(crate) fn on_key(model: &mut ReplayState, cx: &mut Core, key: &Input) -> Option<Vec<Effect>> {
    if model.room.is_some() && model.room_of(&cx.profile).is_none() {
        // Opened under another profile: its notification and history are not this one's.
        model.room = None;
    }
    model.room.is_some().then(|| room_key(model, cx, key))
}

/// The notification (and attempt) under the user's eye: an open attempt's, the open detail's
/// with the attempt under its cursor, or the selected row's (latest recorded attempt) on the
/// Notifications tab.
pub(crate) fn chosen(cx: &Core, seen: Seen<'_>) -> Option<(String, Option<i64>)> {
    if let Some(v) = seen.attempt {
        return Some((v.notification.id.clone(), v.attempt().map(|a| a.index)));
    }
    if cx.tab.one_request() {
        // This generation keeps one request per notification: no attempt to choose.
        let ts = cx.current();
        let id = match ts.detail.as_ref().and_then(|d| d.record.as_ref()) {
            Some(record) => record.id().to_string(),
            None => ts.list.selected()?.id().to_string(),
        };
        return Some((id, None));
    }
    if let Some((id, attempt, _)) = chosen_delivery(cx) {
        return Some((id, attempt));
    }
    if !cx.tab.is_notifications_list() {
        return None;
    }
    let ts = cx.current();
    if let Some(record) = ts.detail.as_ref().and_then(|d| d.record.as_ref()) {
        let Item::Notification(n) = &record.item else {
            return None;
        };
        // The detail draws its cursor on row 0 until it is moved for this notification.
        let row = if seen.cursor_of == n.id {
            seen.attempt_cursor
        } else {
            0
        };
        let attempt = sorted_attempts(n).get(row).map(|a| a.index);
        return Some((n.id.clone(), attempt));
    }
    match &ts.list.selected()?.item {
        Item::Notification(n) => Some((n.id.clone(), None)),
        _ => None,
    }
}

/// `event-destinations`: the delivery, attempt (index from 0) and destination under the user's
/// eye: an open attempt's, or the open or selected delivery's latest.
pub(crate) fn chosen_delivery(cx: &Core) -> Option<(String, Option<i64>, String)> {
    if !cx.tab.lists_attempts() {
        return None;
    }
    let ts = cx.current();
    let record = match ts.detail.as_ref().and_then(|d| d.record.as_ref()) {
        Some(r) => r,
        None => ts.list.selected()?,
    };
    match &record.item {
        Item::Delivery(d) => Some((d.id.clone(), None, d.event_destination_id.clone())),
        Item::DeliveryAttempt(a) => Some((
            a.event_delivery_id.clone(),
            Some(i64::from(a.attempt_number).saturating_sub(1)),
            a.event_destination_id.clone().unwrap_or_default(),
        )),
        _ => None,
    }
}

/// Opens the room on the chosen notification, its target prefilled with the profile's last.
pub(crate) fn open(model: &mut ReplayState, cx: &mut Core, seen: Seen<'_>) -> Vec<Effect> {
    open_room(model, cx, seen, false)
}

/// `E`: opens the room to edit the recorded body before sending it (see [`edited`]).
pub(crate) fn open_edit(model: &mut ReplayState, cx: &mut Core, seen: Seen<'_>) -> Vec<Effect> {
    open_room(model, cx, seen, true)
}

fn open_room(model: &mut ReplayState, cx: &mut Core, seen: Seen<'_>, edit: bool) -> Vec<Effect> {
    let Some((id, attempt)) = chosen(cx, seen) else {
        let key = if edit {
            "E edits and replays"
        } else {
            "P replays"
        };
        cx.toast(
            ToastKind::Info,
            format!(
                "{key} a notification: select one on the Notifications tab, or open an attempt"
            ),
        );
        return Vec::new();
    };
    // This generation's secret is the operator's to give: the field, prefilled when this
    // session already has it for the destination.
    let signing = chosen_delivery(cx).map(|(_, _, destination)| {
        let known = model
            .secret(&cx.profile, &destination)
            .map(|s| s.expose().to_string())
            .unwrap_or_default();
        Signing {
            destination,
            secret: Text::new(known),
        }
    });
    let last = model
        .history(&cx.profile)
        .and_then(|h| h.last_target())
        .unwrap_or(DEFAULT_TARGET)
        .to_string();
    model.room = Some(Box::new(Room {
        profile: cx.profile.clone(),
        notification_id: id,
        attempt,
        target: Text::new(last),
        unsigned: false,
        focus: Focus::Target,
        target_error: None,
        message: None,
        stage: Stage::Editing,
        pending: None,
        scroll: 0,
        history_cursor: 0,
        from_history: false,
        edit,
        signing,
        note: None,
    }));
    Vec::new()
}

/// Whether a reply answers the room's request.
pub(crate) fn awaits(model: &ReplayState, cx: &Core, req_id: u64) -> bool {
    model
        .room_of(&cx.profile)
        .is_some_and(|r| r.pending == Some(req_id))
}

/// The worker's answer to the room's request; with the answer of an `E` replay where a recorded
/// answer can be compared with it, for the router to open compare on.
pub(crate) fn on_reply(
    model: &mut ReplayState,
    cx: &mut Core,
    result: Result<ApiReply, Error>,
) -> (Vec<Effect>, Option<ToCompare>) {
    let profile = cx.profile.clone();
    let Some(room) = model.room.as_mut() else {
        return (Vec::new(), None);
    };
    room.pending = None;
    let stage = std::mem::replace(&mut room.stage, Stage::Editing);
    match (stage, result) {
        (Stage::Preparing, Ok(ApiReply::Replay(ReplayReply::Planned(plan)))) if room.edit => {
            // Out to the operator's editor; the console is suspended until it exits.
            room.message = None;
            let body = plan.body.clone();
            room.stage = Stage::Editor(plan);
            return (vec![Effect::Editor(body)], None);
        }
        (Stage::Preparing, Ok(ApiReply::Replay(ReplayReply::Planned(plan)))) => {
            let headers = plan.preview_headers();
            room.scroll = 0;
            room.message = None;
            room.stage = Stage::Preview { plan, headers };
        }
        (Stage::Preparing, Ok(ApiReply::Replay(ReplayReply::Signed(plan, note)))) => {
            // The edited body, signed again over its bytes: the preview, as pulsar's.
            let headers = plan.preview_headers();
            room.scroll = 0;
            room.message = note;
            room.stage = Stage::Preview { plan, headers };
        }
        (Stage::Preparing, Ok(ApiReply::Replay(ReplayReply::NotPlanned(why)))) => {
            room.message = Some(why);
        }
        (Stage::Preparing, Err(e)) => {
            room.message = Some(error_text(&e));
        }
        (Stage::Preparing, Ok(_)) => {
            room.message = Some("unexpected reply from the worker".into());
        }
        (Stage::Sending(plan), Ok(ApiReply::Replay(ReplayReply::Answered(result)))) => {
            let entry = HistoryEntry {
                notification_id: plan.notification_id.clone(),
                attempt_index: plan.attempt_index,
                target: plan.target.clone(),
                result: (*result).clone(),
                edited_body: room.edit.then(|| plan.body.clone()),
            };
            let edited = entry.edited_body.clone();
            let new = edited.as_ref().map(|_| {
                crate::api::compare::Answer::from_replay(
                    format!("edited replay to {}", plan.target),
                    &result,
                )
            });
            model
                .histories
                .entry(profile)
                .or_default()
                .record_body(&plan, *result, edited);
            let callbacks = cx.tab.one_request();
            if let Some(room) = model.room.as_mut() {
                room.scroll = 0;
                room.history_cursor = 0;
                room.from_history = false;
                room.stage = Stage::Answer(Box::new(entry));
                room.note = (new.is_some() && callbacks).then(|| NO_RECORDED_ANSWER.to_string());
            }
            // `E`: the recorded answer beside the new one, at once (where one was recorded).
            if let Some(new) = new
                && !callbacks
            {
                return (
                    Vec::new(),
                    Some(ToCompare {
                        notification_id: plan.notification_id.clone(),
                        answer: new,
                        attempt_index: plan.attempt_index,
                    }),
                );
            }
        }
        (Stage::Sending(plan), other) => {
            let headers = plan.preview_headers();
            room.message = Some(match other {
                Err(e) => error_text(&e),
                Ok(_) => "unexpected reply from the worker".into(),
            });
            room.stage = Stage::Preview { plan, headers };
        }
        (stage, _) => {
            // A reply for a stage already left (cannot happen: leaving drops the request).
            room.stage = stage;
        }
    }
    (Vec::new(), None)
}

/// Said above an edited replay's answer on `callback-destinations`, in place of compare.
pub(crate) const NO_RECORDED_ANSWER: &str = "This generation keeps no receiver's answer, so there is no recorded answer to compare this one with.";

/// An API error as the room shows it: status, code and the server's message, and its hint.
fn error_text(e: &Error) -> String {
    let v = ErrorView::from_error(Tab::Destinations, e);
    match v.hint {
        Some(h) => format!("{} ({h})", v.message),
        None => v.message,
    }
}

fn request(model: &mut ReplayState, cx: &mut Core, cmd: ReplayCmd) -> Vec<Effect> {
    let req_id = cx.next_req_id();
    if let Some(room) = model.room.as_mut() {
        room.pending = Some(req_id);
    }
    vec![Effect::Api {
        req_id,
        pane: Pane::Replay,
        cmd: ApiCmd::Replay(Box::new(cmd)),
    }]
}

fn room_key(model: &mut ReplayState, cx: &mut Core, key: &Input) -> Vec<Effect> {
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    if room.focus == Focus::History && matches!(room.stage, Stage::Editing | Stage::Answer(_)) {
        return history_key(model, cx, key);
    }
    match &mut room.stage {
        Stage::Editing => editing_key(model, cx, key),
        Stage::Preparing => {
            if key.code == KeyCode::Esc {
                room.pending = None;
                room.stage = Stage::Editing;
            }
            Vec::new()
        }
        Stage::Preview { .. } => preview_key(model, cx, key),
        // The editor has the terminal; nothing reaches here until it exits.
        Stage::Editor(_) => Vec::new(),
        // Asked by the confirmation layer; should that question be gone, Esc goes back.
        Stage::Confirm { .. } => {
            if key.code == KeyCode::Esc {
                return answered(model, cx, false);
            }
            Vec::new()
        }
        Stage::Sending(_) => {
            if key.code == KeyCode::Esc
                && let Stage::Sending(plan) = std::mem::replace(&mut room.stage, Stage::Editing)
            {
                // The worker's request is dropped: its answer is no one's.
                room.pending = None;
                let headers = plan.preview_headers();
                room.stage = Stage::Preview { plan, headers };
                room.message = Some(
                    "Stopped waiting: the request may still reach the receiver; its answer is not shown"
                        .into(),
                );
            }
            Vec::new()
        }
        Stage::Answer(_) => {
            let action = key.action();
            match (key.code, action) {
                (KeyCode::Esc, _) => {
                    room.scroll = 0;
                    if room.from_history {
                        room.focus = Focus::History;
                    }
                    room.stage = Stage::Editing;
                }
                (KeyCode::Char('h'), _) => {
                    room.focus = Focus::History;
                }
                (_, Some(a)) => scroll(model, cx, a),
                _ => {}
            }
            Vec::new()
        }
    }
}

/// The wheel scrolls the preview or answer; clicks do nothing (nothing behind the room moves).
pub(crate) fn on_mouse(model: &mut ReplayState, cx: &Core, ev: crossterm::event::MouseEvent) {
    use crossterm::event::MouseEventKind;
    let action = match ev.kind {
        MouseEventKind::ScrollDown => Action::Down,
        MouseEventKind::ScrollUp => Action::Up,
        _ => return,
    };
    scroll(model, cx, action);
}

/// Scrolls the preview or answer by a navigation action, within what it holds on this screen.
fn scroll(model: &mut ReplayState, cx: &Core, action: Action) {
    let max = super::view::max_scroll(model, cx);
    if let Some(room) = model.room.as_mut()
        && let Some(at) = crate::console::widgets::scrolled(room.scroll, action, max)
    {
        room.scroll = at;
    }
}

fn editing_key(model: &mut ReplayState, cx: &mut Core, key: &Input) -> Vec<Effect> {
    let has_history = model.history(&cx.profile).is_some_and(|h| !h.is_empty());
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    match key.code {
        KeyCode::Esc => {
            model.room = None;
            Vec::new()
        }
        KeyCode::Tab | KeyCode::BackTab => {
            let forward = key.code == KeyCode::Tab;
            let secret = room.signing.is_some();
            room.focus = match (room.focus, forward) {
                (Focus::Target, true) | (Focus::Unsigned, false) if secret => Focus::Secret,
                (Focus::Secret, true) => Focus::Unsigned,
                (Focus::Secret, false) => Focus::Target,
                (Focus::Target, true) | (Focus::History, false) => Focus::Unsigned,
                (Focus::Unsigned, true) if has_history => Focus::History,
                (Focus::Target, false) if has_history => Focus::History,
                _ => Focus::Target,
            };
            Vec::new()
        }
        KeyCode::Enter => submit(model, cx),
        KeyCode::Char(' ') if room.focus == Focus::Unsigned => {
            room.unsigned = !room.unsigned;
            Vec::new()
        }
        _ if room.focus == Focus::Secret => {
            if let Some(sg) = room.signing.as_mut()
                && edit(&mut sg.secret.0, key)
            {
                room.message = None;
            }
            Vec::new()
        }
        _ if room.focus == Focus::Target => {
            if edit(&mut room.target.0, key) {
                // The problem shown was about the text before this edit.
                room.target_error = None;
            }
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Enter on the form: the target checked here (problems beside it, the text kept), then the
/// plan asked of the worker.
fn submit(model: &mut ReplayState, cx: &mut Core) -> Vec<Effect> {
    let read_only = cx.read_only;
    let callbacks = cx.tab.one_request();
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    room.message = None;
    let target = match replay::parse_target(room.target.value()) {
        Ok(t) => t,
        Err(e) => {
            room.target_error = Some(e.to_string());
            return Vec::new();
        }
    };
    if read_only && !replay::is_loopback(&target) {
        room.target_error = Some(format!(
            "refused: a read-only profile replays only to this machine (localhost, 127.0.0.1, [::1]), not to {}",
            target.host_str().unwrap_or_default()
        ));
        return Vec::new();
    }
    room.target_error = None;
    let mut remembered = None;
    let cmd = if let Some(sg) = &room.signing {
        let secret = (!room.unsigned).then(|| crate::api::Secret::new(sg.secret.value()));
        if secret.as_ref().is_some_and(crate::api::Secret::is_empty) {
            room.message = Some(
                "the platform shows a destination's signing secret only on create and rotate: type it in Signing secret, or tick Unsigned".into(),
            );
            return Vec::new();
        }
        remembered = secret.clone().map(|s| (sg.destination.clone(), s));
        ReplayCmd::PrepareDelivery {
            id: room.notification_id.clone(),
            attempt: room.attempt.map(|i| i.saturating_add(1)),
            target,
            secret,
        }
    } else if callbacks {
        ReplayCmd::PrepareCallback {
            id: room.notification_id.clone(),
            target,
            unsigned: room.unsigned,
        }
    } else {
        ReplayCmd::Prepare {
            id: room.notification_id.clone(),
            attempt: room.attempt,
            target,
            unsigned: room.unsigned,
        }
    };
    room.stage = Stage::Preparing;
    if let Some((destination, secret)) = remembered {
        // Kept for this session's next replay of the destination (memory only).
        let key = (cx.profile.clone(), destination);
        model.secrets.insert(key, secret);
    }
    request(model, cx, cmd)
}

fn preview_key(model: &mut ReplayState, cx: &mut Core, key: &Input) -> Vec<Effect> {
    let action = key.action();
    let needs = |plan: &replay::ReplayPlan| {
        model
            .history(&cx.profile)
            .is_none_or(|h| h.needs_confirmation(&plan.target))
            && !replay::is_loopback(&plan.target)
    };
    let confirm = match model.room.as_deref() {
        Some(Room {
            stage: Stage::Preview { plan, .. },
            ..
        }) => needs(plan),
        _ => return Vec::new(),
    };
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    match key.code {
        KeyCode::Esc => {
            room.stage = Stage::Editing;
            room.scroll = 0;
            Vec::new()
        }
        KeyCode::Enter => {
            let Stage::Preview { plan, headers } =
                std::mem::replace(&mut room.stage, Stage::Editing)
            else {
                return Vec::new();
            };
            if confirm {
                cx.confirm = Some(host_question(&plan));
                room.stage = Stage::Confirm { plan, headers };
                return Vec::new();
            }
            send(model, cx, plan)
        }
        _ => {
            if let Some(a) = action {
                scroll(model, cx, a);
            }
            Vec::new()
        }
    }
}

/// Sends a plan on the worker; refused again here for a read-only profile beyond this machine.
fn send(model: &mut ReplayState, cx: &mut Core, plan: Box<replay::ReplayPlan>) -> Vec<Effect> {
    let read_only = cx.read_only;
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    if read_only && !plan.is_loopback() {
        room.stage = Stage::Editing;
        room.target_error =
            Some("refused: a read-only profile replays only to this machine".into());
        return Vec::new();
    }
    room.message = None;
    room.stage = Stage::Sending(plan.clone());
    request(model, cx, ReplayCmd::Send(plan))
}

/// Why a signed replay beyond this machine deserves a second thought (short lines: the box's
/// height counts lines).
const SIGNED_WARNING: [&str; 4] = [
    "It is signed with the destination's real signing secret:",
    "whoever receives it could relay it to the real destination,",
    "which accepts it while the signature's timestamp is within",
    "its tolerance. Prefer Unsigned for hosts you do not control.",
];

/// The typed confirmation of a host beyond this machine (like the type-name confirmation).
fn host_question(plan: &replay::ReplayPlan) -> Confirm {
    let host = plan.target.host_str().unwrap_or_default().to_string();
    let question = if plan.signing.is_some() {
        std::iter::once(format!(
            "{host} is not this machine: the recorded body and a valid signature go there."
        ))
        .chain(SIGNED_WARNING.iter().map(|l| (*l).to_string()))
        .collect()
    } else {
        vec![format!(
            "{host} is not this machine: the recorded body goes there, unsigned."
        )]
    };
    Confirm::host("Send beyond this machine?", question, host, Subject::Replay)
}

/// The confirmation's answer: yes remembers the host as confirmed and sends; no goes back to
/// the preview.
pub(crate) fn answered(model: &mut ReplayState, cx: &mut Core, yes: bool) -> Vec<Effect> {
    let profile = cx.profile.clone();
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    let Stage::Confirm { plan, headers } = std::mem::replace(&mut room.stage, Stage::Editing)
    else {
        return Vec::new();
    };
    if !yes {
        room.stage = Stage::Preview { plan, headers };
        return Vec::new();
    }
    model
        .histories
        .entry(profile)
        .or_default()
        .confirm(&plan.target);
    send(model, cx, plan)
}

fn history_key(model: &mut ReplayState, cx: &Core, key: &Input) -> Vec<Effect> {
    let entries: Vec<HistoryEntry> = model
        .history(&cx.profile)
        .map(|h| h.newest_first().cloned().collect())
        .unwrap_or_default();
    let action = key.action();
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    let last = entries.len().saturating_sub(1);
    match (key.code, action) {
        (KeyCode::Esc | KeyCode::Tab | KeyCode::BackTab, _) => {
            room.focus = Focus::Target;
            if !matches!(room.stage, Stage::Answer(_)) {
                room.stage = Stage::Editing;
            }
        }
        (KeyCode::Enter, _) => {
            if let Some(e) = entries.get(room.history_cursor) {
                room.stage = Stage::Answer(Box::new(e.clone()));
                room.scroll = 0;
                room.from_history = true;
                room.note = None;
                room.focus = Focus::Target;
            }
        }
        (_, Some(Action::Down)) => room.history_cursor = (room.history_cursor + 1).min(last),
        (_, Some(Action::Up)) => room.history_cursor = room.history_cursor.saturating_sub(1),
        (_, Some(Action::First)) => room.history_cursor = 0,
        (_, Some(Action::Last)) => room.history_cursor = last,
        _ => {}
    }
    Vec::new()
}

/// What the editor left (`E`): checked to be JSON when the recorded body was, then the preview
/// of the edited body, signed afresh when sent; an editor that failed or a body refused leaves
/// the form with the reason, nothing sent.
pub(crate) fn edited(
    model: &mut ReplayState,
    cx: &mut Core,
    result: Result<String, String>,
) -> Vec<Effect> {
    let callbacks = cx.tab.one_request();
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    let Stage::Editor(mut plan) = std::mem::replace(&mut room.stage, Stage::Editing) else {
        return Vec::new();
    };
    match result.and_then(|body| {
        crate::config::editor::json_kept(&plan.body, &body)?;
        Ok(body)
    }) {
        Ok(body) => {
            if let Some(sg) = &room.signing {
                // `event-destinations` signs when planned: the signature made again over the
                // edited bytes, with the secret of the form (none when Unsigned).
                let secret = (!room.unsigned).then(|| crate::api::Secret::new(sg.secret.value()));
                *plan = crate::api::edited_replay::delivery(&plan, body, secret.as_ref());
            } else if callbacks {
                // `callback-destinations` too, with a secret only the platform holds: the
                // worker reads it and signs again.
                room.message = None;
                room.stage = Stage::Preparing;
                return request(model, cx, ReplayCmd::SignEdited { plan, body });
            } else {
                plan.body = body;
            }
            let headers = plan.preview_headers();
            room.scroll = 0;
            room.message = None;
            room.stage = Stage::Preview { plan, headers };
        }
        Err(why) => room.message = Some(why),
    }
    Vec::new()
}

/// Pasted text for the target while it is edited; false otherwise.
pub(crate) fn paste(model: &mut ReplayState, text: &str) -> bool {
    let Some(room) = model.room.as_mut() else {
        return false;
    };
    if room.stage != Stage::Editing {
        return false;
    }
    if room.focus == Focus::Secret
        && let Some(sg) = room.signing.as_mut()
    {
        sg.secret.paste(text);
        return true;
    }
    if room.focus != Focus::Target {
        return false;
    }
    room.target.paste(text);
    room.target_error = None;
    true
}
