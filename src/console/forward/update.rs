//! The forward room's part of `update`: `L` opens it with the filter of where it was pressed, it
//! takes every key while open, and the running forward's events land here.
use crossterm::event::KeyCode;

use super::{
    DEFAULT_TARGET, Focus, ForwardCmd, ForwardJob, ForwardReply, ForwardState, ROWS, Room, Row,
};
use crate::api::forward::{Event, State as Fwd};
use crate::api::{Error, NotificationFilter, replay};
use crate::console::input::TextInput;
use crate::console::keymap::{Action, Input};
use crate::console::msg::{ApiCmd, ApiReply, Effect, Pane};
use crate::console::record::Item;
use crate::console::state::{Core, ToastKind};
use crate::console::tab::Tab;

/// What the room forwards when opened here: the Notifications tab's current filter, or the
/// callback or destination selected (or open). `None` elsewhere.
fn scope(cx: &Core) -> Option<(String, NotificationFilter)> {
    let ts = cx.current();
    let chosen = ts
        .detail
        .as_ref()
        .and_then(|d| d.record.as_ref())
        .or_else(|| ts.list.selected());
    let chosen_id = chosen.map(|r| r.id().to_string());
    let chosen = chosen.map(|r| r.item.clone());
    // callback-destinations' notifications, read through their callbacks.
    let merged = cx.tab.notifications_of().filter(|n| n.through_callbacks());
    match (cx.tab, chosen) {
        // callback-destinations: all callbacks' notifications, or the callback `N` chose.
        (t, _) if merged == Some(t) => {
            let f = NotificationFilter {
                callback_ids: ts.list.filter.callback_ids.clone(),
                destination_ids: ts.list.filter.destination_ids.clone(),
                ..NotificationFilter::default()
            };
            let words = match f.callback_ids.as_slice() {
                [] => "all callbacks' notifications".to_string(),
                [one] => format!("callback {one}"),
                _ => "the chosen callbacks' notifications".to_string(),
            };
            Some((words, f))
        }
        (t, Some(_)) if merged.and_then(Tab::senders) == Some(t) => chosen_id.map(|id| {
            (
                format!("callback {id}"),
                NotificationFilter {
                    callback_ids: vec![id],
                    ..NotificationFilter::default()
                },
            )
        }),
        (t, Some(_)) if merged.and_then(Tab::receivers) == Some(t) => chosen_id.map(|id| {
            (
                format!("destination {id}"),
                NotificationFilter {
                    destination_ids: vec![id],
                    ..NotificationFilter::default()
                },
            )
        }),
        (t, _) if t.is_notifications_list() => {
            let f = ts.list.filter.clone();
            let words = if f == NotificationFilter::default() {
                "all notifications".to_string()
            } else {
                "notifications of the current filter".to_string()
            };
            Some((words, f))
        }
        (_, Some(Item::Callback(c))) => Some((
            format!("callback {}", c.id),
            NotificationFilter {
                callback_ids: vec![c.id.clone()],
                ..NotificationFilter::default()
            },
        )),
        (_, Some(Item::Destination(d))) => Some((
            format!("destination {}", d.id),
            NotificationFilter {
                destination_ids: vec![d.id.clone()],
                ..NotificationFilter::default()
            },
        )),
        _ => None,
    }
}

/// Opens the room with the filter of where it was asked for.
pub(crate) fn open(model: &mut ForwardState, cx: &mut Core) -> Vec<Effect> {
    let Some((scope, filter)) = scope(cx) else {
        cx.toast(
            ToastKind::Info,
            "L forwards deliveries: open it on Notifications, or on a callback or a destination",
        );
        return Vec::new();
    };
    let target = model
        .last_target
        .clone()
        .unwrap_or_else(|| DEFAULT_TARGET.to_string());
    model.room = Some(Box::new(Room {
        profile: cx.profile.clone(),
        scope,
        filter,
        target: TextInput::new(target),
        target_error: None,
        running: None,
        state: None,
        started_after: None,
        caught_up: None,
        message: None,
        rows: Vec::new(),
        cursor: 0,
        focus: Focus::Target,
        open: None,
        kept: cx.settings.data_dir.is_some(),
        unsigned: Vec::new(),
    }));
    Vec::new()
}

/// Every key while the room is open (for this profile); `None` lets the others have it.
pub(crate) fn on_key(
    model: &mut ForwardState,
    cx: &mut Core,
    input: &Input,
) -> Option<Vec<Effect>> {
    if model.room.is_some() && model.room_of(&cx.profile).is_none() {
        // Opened under another profile: its worker (and forward) is gone.
        model.room = None;
    }
    model.room.is_some().then(|| room_key(model, cx, input))
}

fn room_key(model: &mut ForwardState, cx: &mut Core, input: &Input) -> Vec<Effect> {
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    // An open answer: any way out closes it.
    if room.open.is_some() {
        if matches!(
            input.action(),
            Some(Action::Back | Action::Open | Action::Quit)
        ) {
            room.open = None;
        }
        return Vec::new();
    }
    // The target changes only while stopped.
    if input.key.code == KeyCode::Tab {
        if room.running.is_none() {
            room.focus = match room.focus {
                Focus::Target => Focus::List,
                Focus::List => Focus::Target,
            };
        }
        return Vec::new();
    }
    if input.key.code == KeyCode::Esc {
        // Closing the room stops forwarding: nothing runs out of sight.
        let stop = room.running.is_some();
        model.room = None;
        return if stop { stop_job(cx) } else { Vec::new() };
    }
    match room.focus {
        Focus::Target => {
            if input.key.code == KeyCode::Enter {
                return start(model, cx);
            }
            if room.target.edit(&input.key) {
                room.target_error = None;
            }
            Vec::new()
        }
        Focus::List => {
            match (input.key.code, input.action()) {
                (KeyCode::Char('s'), _) if room.running.is_some() => {
                    room.running = None;
                    room.state = Some(Fwd::Stopped);
                    return stop_job(cx);
                }
                (_, Some(Action::Down)) => {
                    room.cursor = (room.cursor + 1).min(room.rows.len().saturating_sub(1));
                }
                (_, Some(Action::Up)) => room.cursor = room.cursor.saturating_sub(1),
                (_, Some(Action::Open))
                    if room.newest(room.cursor).is_some_and(|r| r.result.is_some()) =>
                {
                    room.open = Some(room.cursor);
                }
                (_, Some(Action::Quit)) => return crate::console::pane::quit(cx),
                _ => {}
            }
            Vec::new()
        }
    }
}

/// Starts forwarding to the typed target (this machine only).
fn start(model: &mut ForwardState, cx: &mut Core) -> Vec<Effect> {
    let req_id = cx.next_req_id();
    let (profile, data_dir) = (cx.profile.clone(), cx.settings.data_dir.clone());
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    let target = match replay::parse_target(room.target.value()) {
        Ok(t) if replay::is_loopback(&t) => t,
        Ok(t) => {
            room.target_error = Some(format!(
                "the console forwards to this machine only (localhost, 127.0.0.1, [::1]), not {}: \
                 use `notifications forward --yes` for another host",
                crate::text::line(t.host_str().unwrap_or_default())
            ));
            return Vec::new();
        }
        Err(e) => {
            room.target_error = Some(e.to_string());
            return Vec::new();
        }
    };
    room.running = Some(req_id);
    room.state = Some(Fwd::Connecting);
    room.message = None;
    room.caught_up = None;
    room.started_after = None;
    room.unsigned.clear();
    room.focus = Focus::List;
    let cmd = ForwardCmd {
        target: target.clone(),
        filter: room.filter.clone(),
        profile,
        data_dir,
    };
    model.last_target = Some(target.to_string());
    vec![Effect::Api {
        req_id,
        pane: Pane::Forward,
        cmd: ApiCmd::Forward(Box::new(ForwardJob::Start(Box::new(cmd)))),
    }]
}

/// Asks the worker to drop the running forward.
fn stop_job(cx: &mut Core) -> Vec<Effect> {
    let req_id = cx.next_req_id();
    vec![Effect::Api {
        req_id,
        pane: Pane::Forward,
        cmd: ApiCmd::Forward(Box::new(ForwardJob::Stop)),
    }]
}

/// Whether a reply comes from the room's running forward.
pub(crate) fn awaits(model: &ForwardState, cx: &Core, req_id: u64) -> bool {
    model
        .room_of(&cx.profile)
        .is_some_and(|r| r.running == Some(req_id))
}

/// An event of the running forward.
pub(crate) fn on_reply(model: &mut ForwardState, result: Result<ApiReply, Error>) -> Vec<Effect> {
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    let event = match result {
        Ok(ApiReply::Forward(ForwardReply::Event(e))) => *e,
        Ok(ApiReply::Forward(ForwardReply::Ended(why))) => {
            room.running = None;
            room.state = Some(Fwd::Stopped);
            room.message = why;
            return Vec::new();
        }
        Ok(ApiReply::Forward(ForwardReply::Unsigned(said))) => {
            if !room.unsigned.contains(&said) {
                room.unsigned.push(said);
            }
            return Vec::new();
        }
        Ok(_) => return Vec::new(),
        Err(e) => {
            room.running = None;
            room.state = Some(Fwd::Stopped);
            room.message = Some(e.to_string());
            return Vec::new();
        }
    };
    let row = match event {
        Event::State(s) => {
            room.state = Some(s);
            None
        }
        Event::Ready { cursor } => {
            room.started_after = Some(cursor);
            None
        }
        Event::CaughtUp { forwarded } => {
            room.caught_up = Some(forwarded);
            None
        }
        Event::CursorAhead { cursor, newest } => {
            room.message = Some(format!(
                "the saved cursor {cursor} is past every notification on the server; going on after {}",
                newest.as_deref().unwrap_or("the first")
            ));
            None
        }
        Event::Forwarded(f) => Some(Row {
            at: f.result.sent_at,
            notification_id: f.notification_id,
            event_type: f.event_type,
            result: Some(f.result),
            skipped: None,
        }),
        Event::Skipped {
            notification_id,
            why,
        } => Some(Row {
            at: chrono::Utc::now(),
            notification_id,
            event_type: None,
            result: None,
            skipped: Some(why),
        }),
    };
    if let Some(row) = row {
        room.rows.push(row);
        if room.rows.len() > ROWS {
            room.rows.remove(0);
        }
        // The selection stays on the row it was on (counted from the newest).
        if room.cursor > 0 || room.open.is_some() {
            room.cursor = (room.cursor + 1).min(room.rows.len().saturating_sub(1));
            room.open = room.open.map(|o| o + 1);
        }
    }
    Vec::new()
}
