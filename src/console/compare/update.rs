//! Compare's part of `update`: `=` opens it over an open attempt (pulsar's attempt view, or an
//! `event-destinations` attempt), the replay room's answer or the forward room's open answer;
//! while open it takes every key; the worker's lookup lands here.
use super::{CompareCmd, CompareState, Found, Overlay};
use crate::api::Error;
use crate::api::compare::{self, Answer};
use crate::console::deliveries::AttemptView;
use crate::console::forward::ForwardState;
use crate::console::keymap::{Action, Input};
use crate::console::msg::{ApiCmd, ApiReply, Effect, Pane};
use crate::console::record::Item;
use crate::console::replay::update::ToCompare;
use crate::console::replay::{ReplayState, Stage};
use crate::console::state::Core;
use crate::console::tab::Tab;

/// What compare reads of the rooms whose answers it compares, chosen at the router and only
/// read: the replay room (its answer shown, this session's replays), the forward room (its open
/// answer) and the deliveries room's open attempt view.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sources<'a> {
    /// The replay room's model.
    pub(crate) replay: &'a ReplayState,
    /// The forward room's model.
    pub(crate) forward: &'a ForwardState,
    /// The open attempt view.
    pub(crate) attempt: Option<&'a AttemptView>,
}

/// The answer under the user's eye, with its notification: the replay room's answer, the
/// forward room's open answer, or the open attempt (outermost first).
fn source(cx: &Core, src: Sources<'_>) -> Option<(String, Answer)> {
    source_here(cx, src).or_else(|| delivery_attempt(cx))
}

/// `event-destinations`: the attempt open on the Attempts tab, or the row selected there, with
/// its delivery.
fn delivery_attempt(cx: &Core) -> Option<(String, Answer)> {
    if cx.tab != Tab::DeliveryAttempts {
        return None;
    }
    let ts = cx.current();
    let record = match ts.detail.as_ref().and_then(|d| d.record.as_ref()) {
        Some(r) => r,
        None => ts.list.selected()?,
    };
    match &record.item {
        Item::DeliveryAttempt(a) => Some((
            a.event_delivery_id.clone(),
            Answer::from_delivery_attempt(a),
        )),
        _ => None,
    }
}

fn source_here(cx: &Core, src: Sources<'_>) -> Option<(String, Answer)> {
    if let Some(room) = src.replay.room_of(&cx.profile) {
        return match &room.stage {
            Stage::Answer(e) => Some((
                e.notification_id.clone(),
                Answer::from_replay(replay_label(&e.result, &e.target), &e.result),
            )),
            _ => None,
        };
    }
    if let Some(room) = src.forward.room_of(&cx.profile) {
        let row = room.open.and_then(|i| room.newest(i))?;
        let r = row.result.as_ref()?;
        let label = format!(
            "forwarded {} to {}",
            r.sent_at
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            room.target.value()
        );
        return Some((row.notification_id.clone(), Answer::from_replay(label, r)));
    }
    let v = src.attempt?;
    let a = Answer::from_attempt(v.attempt()?)?;
    Some((v.notification.id.clone(), a))
}

fn replay_label(r: &crate::api::replay::ReplayResult, target: &url::Url) -> String {
    format!(
        "replayed {} to {}",
        r.sent_at
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        target
    )
}

/// Every key while the overlay is open; `=` where there is an answer to compare. `None` lets
/// the other layers have the key.
pub(crate) fn on_key(
    model: &mut CompareState,
    cx: &mut Core,
    src: Sources<'_>,
    input: &Input,
) -> Option<Vec<Effect>> {
    if model.overlay.is_some() && model.overlay_of(&cx.profile).is_none() {
        model.overlay = None;
    }
    if model.overlay.is_some() {
        return Some(overlay_key(model, cx, input));
    }
    if input.action_among(|a| a == Action::Compare) != Some(Action::Compare) {
        return None;
    }
    let (id, left) = source(cx, src)?;
    Some(open(model, cx, src.replay, id, left))
}

/// Opens compare on `to`'s answer (an edited replay's) and, once the notification is found,
/// shows the recorded answer of the attempt replayed beside it (`E`); `replay` gives this
/// session's replays.
pub(crate) fn open_against(
    model: &mut CompareState,
    cx: &mut Core,
    replay: &ReplayState,
    to: ToCompare,
) -> Vec<Effect> {
    let ToCompare {
        notification_id,
        answer: new,
        attempt_index,
    } = to;
    let effects = open(model, cx, replay, notification_id, new);
    if let Some(o) = model.overlay.as_mut() {
        o.against = Some(attempt_index);
    }
    effects
}

fn open(
    model: &mut CompareState,
    cx: &mut Core,
    replay: &ReplayState,
    notification_id: String,
    left: Answer,
) -> Vec<Effect> {
    let req_id = cx.next_req_id();
    // This session's replays of the notification are known at once; the rest comes from the
    // worker.
    let candidates = session_replays(replay, &cx.profile, &notification_id, &left);
    let deliveries = cx.is_shown(Tab::Deliveries);
    model.overlay = Some(Overlay {
        profile: cx.profile.clone(),
        notification_id: notification_id.clone(),
        left,
        candidates,
        pending: Some(req_id),
        message: None,
        cursor: 0,
        shown: None,
        scroll: 0,
        against: None,
    });
    vec![Effect::Api {
        req_id,
        pane: Pane::Compare,
        cmd: ApiCmd::Compare(Box::new(CompareCmd {
            notification_id,
            deliveries,
            profile: cx.profile.clone(),
            data_dir: cx.settings.data_dir.clone(),
        })),
    }]
}

fn session_replays(replay: &ReplayState, profile: &str, id: &str, left: &Answer) -> Vec<Answer> {
    replay
        .history(profile)
        .map(|h| {
            h.newest_first()
                .filter(|e| e.notification_id == id)
                .map(|e| Answer::from_replay(replay_label(&e.result, &e.target), &e.result))
                .filter(|a| a.label != left.label)
                .collect()
        })
        .unwrap_or_default()
}

fn overlay_key(model: &mut CompareState, cx: &mut Core, input: &Input) -> Vec<Effect> {
    // The furthest the comparison scrolls, worked out only for a key that scrolls.
    let max = match input.action() {
        Some(a) if crate::console::widgets::is_scroll(a) => super::view::max_scroll(model, cx),
        _ => 0,
    };
    let Some(o) = model.overlay.as_mut() else {
        return Vec::new();
    };
    match input.action() {
        Some(Action::Back) if o.shown.is_some() => {
            o.shown = None;
            o.scroll = 0;
        }
        Some(Action::Back | Action::Compare) => model.overlay = None,
        // As `pane::quit`, which takes the whole state: the core's flag and the effect.
        Some(Action::Quit) => {
            cx.quit = true;
            return vec![Effect::Quit];
        }
        Some(a) if o.shown.is_some() && crate::console::widgets::is_scroll(a) => {
            o.scroll = crate::console::widgets::scrolled(o.scroll, a, max).unwrap_or(o.scroll);
        }
        Some(Action::Down) => {
            o.cursor = (o.cursor + 1).min(o.candidates.len().saturating_sub(1));
        }
        Some(Action::Up) => o.cursor = o.cursor.saturating_sub(1),
        Some(Action::Open) if o.shown.is_none() => {
            if let Some(right) = o.candidates.get(o.cursor) {
                o.shown = Some(Box::new(compare::compare(&o.left, right)));
                o.scroll = 0;
            }
        }
        _ => {}
    }
    Vec::new()
}

/// Whether a reply answers the overlay's lookup.
pub(crate) fn awaits(model: &CompareState, cx: &Core, req_id: u64) -> bool {
    model
        .overlay_of(&cx.profile)
        .is_some_and(|o| o.pending == Some(req_id))
}

/// The lookup's answer: the notification's attempts and the kept answers join the candidates.
pub(crate) fn on_reply(model: &mut CompareState, result: Result<ApiReply, Error>) -> Vec<Effect> {
    let Some(o) = model.overlay.as_mut() else {
        return Vec::new();
    };
    o.pending = None;
    match result {
        Ok(ApiReply::Compare(found)) => {
            let Found { recorded, kept, .. } = *found;
            // An attempt as a list row had it may lack its answer's body: as read, whole.
            if let Some((_, read)) = recorded.iter().find(|(_, a)| a.label == o.left.label) {
                o.left = read.clone();
            }
            let against = o.against.take().and_then(|i| {
                recorded
                    .iter()
                    .find(|(index, _)| *index == i)
                    .map(|(_, a)| a.clone())
            });
            if let Some(recorded) = against {
                // The recorded answer on the left, the edited replay's beside it.
                o.shown = Some(Box::new(compare::compare(&recorded, &o.left)));
                o.scroll = 0;
            }
            let mut attempts: Vec<Answer> = recorded.into_iter().rev().map(|(_, a)| a).collect();
            attempts.extend(kept);
            attempts.retain(|a| a.label != o.left.label && !o.candidates.contains(a));
            o.candidates.extend(attempts);
        }
        Ok(_) => o.message = Some("unexpected reply from the worker".into()),
        Err(e) => o.message = Some(e.to_string()),
    }
    Vec::new()
}
