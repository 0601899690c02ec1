//! The Samples room's part of `update`: `:samples` (or the palette) opens it, it takes every key
//! while open, and the worker's answer to a send lands here.
use std::collections::BTreeMap;

use crossterm::event::KeyCode;

use super::{Room, SamplesReply, SamplesState, SendCmd, Stage};
use crate::api::Error;
use crate::api::compare::Answer;
use crate::api::replay::{ReplayHistory, is_loopback, parse_target};
use crate::api::samples::Library;
use crate::console::compare::Overlay;
use crate::console::confirm::{Confirm, Subject};
use crate::console::input::TextInput;
use crate::console::keymap::{Action, Input};
use crate::console::msg::{ApiCmd, ApiReply, Effect, Pane};
use crate::console::state::{Core, ErrorView};
use crate::console::tab::Tab;

/// The room's keys in the list (key, word): the footer's and help's.
pub(crate) const LIST_KEYS: &[(&str, &str)] = &[
    ("↑↓", "move"),
    ("s/Enter", "send"),
    ("e", "edit & send"),
    ("d", "delete"),
    ("r", "reload"),
    ("Esc", "close"),
];

/// The library of the profile, or why there is none.
fn library(cx: &Core) -> Result<Library, String> {
    let dir = cx
        .settings
        .data_dir
        .as_ref()
        .ok_or("samples need a data directory (none is known here)")?;
    Library::for_profile(dir, &cx.profile).map_err(|e| e.to_string())
}

/// Reads the library into the room (local files only: no request).
fn load(cx: &Core, room: &mut Room) {
    match library(cx).and_then(|l| l.list().map_err(|e| e.to_string())) {
        Ok((samples, bad)) => {
            room.samples = samples;
            room.bad = bad.iter().map(ToString::to_string).collect();
        }
        Err(e) => {
            room.samples.clear();
            room.message = Some(e);
        }
    }
    room.cursor = room.cursor.min(room.samples.len().saturating_sub(1));
}

/// Opens the room on the profile's library.
pub(crate) fn open(samples: &mut SamplesState, cx: &Core) -> Vec<Effect> {
    open_at(samples, cx, Stage::List);
    Vec::new()
}

/// The keep key on Notifications: the room opens asking the sample's name for the notification
/// (and attempt) under the user's eye, as `P` chooses it: `chosen`, the replay room's choice
/// (`replay::update::chosen`), handed by the router.
pub(crate) fn open_keep(
    samples: &mut SamplesState,
    cx: &mut Core,
    chosen: Option<(String, Option<i64>)>,
) -> Vec<Effect> {
    let Some((id, attempt)) = chosen else {
        cx.toast(
            crate::console::state::ToastKind::Info,
            "B keeps a notification as a sample: select one on the Notifications tab, or open an attempt",
        );
        return Vec::new();
    };
    open_at(
        samples,
        cx,
        Stage::Naming {
            id,
            attempt,
            name: TextInput::default(),
        },
    );
    Vec::new()
}

fn open_at(samples: &mut SamplesState, cx: &Core, stage: Stage) {
    let mut room = Room {
        profile: cx.profile.clone(),
        samples: Vec::new(),
        bad: Vec::new(),
        cursor: 0,
        target: TextInput::new(crate::console::replay::DEFAULT_TARGET),
        stage,
        message: None,
        pending: None,
        edit: false,
        edited: None,
    };
    load(cx, &mut room);
    samples.room = Some(Box::new(room));
}

/// Every key while the room is open; `None` when it is not. `overlay` is the compare room's
/// slot, where `c` on an answer opens the comparison with the recorded answer.
pub(crate) fn on_key(
    samples: &mut SamplesState,
    cx: &mut Core,
    key: &Input,
    overlay: &mut Option<Overlay>,
) -> Option<Vec<Effect>> {
    if samples.room.is_some() && samples.room_of(&cx.profile).is_none() {
        // Opened under another profile: its library is not this one's.
        samples.room = None;
    }
    samples
        .room
        .is_some()
        .then(|| room_key(samples, cx, key, overlay))
}

fn room_key(
    samples: &mut SamplesState,
    cx: &mut Core,
    key: &Input,
    overlay: &mut Option<Overlay>,
) -> Vec<Effect> {
    let Some(room) = samples.room.as_mut() else {
        return Vec::new();
    };
    match &room.stage {
        Stage::List => return list_key(samples, cx, key),
        Stage::Target => return target_key(samples, cx, key),
        Stage::Naming { .. } => return naming_key(samples, cx, key),
        Stage::Answer(..)
            if key.code == KeyCode::Char('c') || key.action() == Some(Action::Compare) =>
        {
            return compare(samples, cx, overlay);
        }
        // The editor has the terminal; nothing reaches here until it exits.
        Stage::Editor(_) => {}
        // Asked by the confirmation layer; should that question be gone, Esc goes back.
        Stage::Confirm(_) | Stage::Sending | Stage::Keeping | Stage::Answer(..) => {
            if key.code == KeyCode::Esc {
                // A send waited for is dropped: its answer is no one's.
                room.pending = None;
                room.stage = Stage::List;
            }
        }
    }
    Vec::new()
}

fn list_key(samples: &mut SamplesState, cx: &mut Core, key: &Input) -> Vec<Effect> {
    if key.code == KeyCode::Char('r') {
        if let Some(mut room) = samples.room.take() {
            room.message = None;
            load(cx, &mut room);
            samples.room = Some(room);
        }
        return Vec::new();
    }
    let Some(room) = samples.room.as_mut() else {
        return Vec::new();
    };
    let n = room.samples.len();
    match (key.code, key.action()) {
        (KeyCode::Esc, _) | (_, Some(Action::Back | Action::Quit)) => samples.room = None,
        (KeyCode::Down, _) | (_, Some(Action::Down)) => {
            room.cursor = (room.cursor + 1).min(n.saturating_sub(1));
        }
        (KeyCode::Up, _) | (_, Some(Action::Up)) => room.cursor = room.cursor.saturating_sub(1),
        (KeyCode::Enter | KeyCode::Char('s' | 'e'), _) if room.selected().is_some() => {
            room.message = None;
            room.edit = key.code == KeyCode::Char('e');
            room.stage = Stage::Target;
        }
        (KeyCode::Char('d'), _) => {
            if let Some(s) = room.selected() {
                let name = s.name.clone();
                cx.confirm = Some(Confirm::yes_no(
                    "Delete sample?",
                    format!(
                        "Delete sample {} from this profile's library?",
                        crate::text::line(&name)
                    ),
                    Subject::SampleRm(name),
                ));
            }
        }
        _ => {}
    }
    Vec::new()
}

fn target_key(samples: &mut SamplesState, cx: &mut Core, key: &Input) -> Vec<Effect> {
    let read_only = cx.read_only;
    let Some(room) = samples.room.as_mut() else {
        return Vec::new();
    };
    match key.code {
        KeyCode::Esc => {
            room.stage = Stage::List;
            Vec::new()
        }
        KeyCode::Enter => match parse_target(room.target.value()) {
            Err(e) => {
                room.message = Some(e.to_string());
                Vec::new()
            }
            Ok(url) if is_loopback(&url) => go(samples, cx, url),
            Ok(url) if read_only => {
                room.message = Some(format!(
                    "refused: a read-only profile sends only to this machine (localhost, 127.0.0.1, [::1]), not to {}",
                    url.host_str().unwrap_or_default()
                ));
                Vec::new()
            }
            Ok(url) => {
                // Beyond this machine only with its host typed, as the replay room asks.
                let host = url.host_str().unwrap_or_default().to_string();
                let question = vec![
                    format!("{host} is not this machine: the sample's body goes there,"),
                    "signed with its destination's real secret when that destination exists."
                        .into(),
                ];
                room.stage = Stage::Confirm(url);
                cx.confirm = Some(Confirm::host(
                    "Send beyond this machine?",
                    question,
                    host,
                    Subject::SampleSend,
                ));
                Vec::new()
            }
        },
        _ => {
            if room.target.edit(&key.key) {
                room.message = None;
            }
            Vec::new()
        }
    }
}

/// The sample's name typed: Enter keeps (a bad or taken name is said, the text kept), Esc
/// goes to the list.
fn naming_key(samples: &mut SamplesState, cx: &mut Core, key: &Input) -> Vec<Effect> {
    let dir = library(cx).map(|l| l.dir().to_path_buf());
    let req_id = cx.next_req_id();
    let Some(room) = samples.room.as_mut() else {
        return Vec::new();
    };
    let Stage::Naming { id, attempt, name } = &mut room.stage else {
        return Vec::new();
    };
    match key.code {
        KeyCode::Esc => room.stage = Stage::List,
        KeyCode::Enter => {
            let typed = name.value().trim().to_string();
            if !crate::api::samples::valid_name(&typed) {
                room.message = Some("a sample's name is 1 to 64 of A-Z a-z 0-9 . _ -".into());
                return Vec::new();
            }
            let dir = match dir {
                Ok(dir) => dir,
                Err(e) => {
                    room.message = Some(e);
                    return Vec::new();
                }
            };
            let cmd = SendCmd::Keep {
                dir,
                id: id.clone(),
                attempt: *attempt,
                name: typed,
            };
            room.pending = Some(req_id);
            room.message = None;
            room.stage = Stage::Keeping;
            return vec![Effect::Api {
                req_id,
                pane: Pane::Samples,
                cmd: ApiCmd::Samples(Box::new(cmd)),
            }];
        }
        _ => {
            if name.edit(&key.key) {
                room.message = None;
            }
        }
    }
    Vec::new()
}

/// Pasted text for the target or name being typed.
pub(crate) fn paste(samples: &mut SamplesState, text: &str) -> bool {
    match samples.room.as_mut() {
        Some(room) if room.stage == Stage::Target => {
            room.target.paste(text);
            true
        }
        Some(room) => match &mut room.stage {
            Stage::Naming { name, .. } => {
                name.paste(text);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// The target settled: out to the editor first for `e`, else the sample as kept.
fn go(samples: &mut SamplesState, cx: &mut Core, target: url::Url) -> Vec<Effect> {
    let Some(room) = samples.room.as_mut() else {
        return Vec::new();
    };
    let Some(sample) = room.selected().cloned() else {
        room.stage = Stage::List;
        return Vec::new();
    };
    room.edited = None;
    if room.edit {
        // Out to the operator's editor; the console is suspended until it exits.
        room.stage = Stage::Editor(target);
        return vec![Effect::Editor(sample.body)];
    }
    send(samples, cx, target, sample)
}

/// Whether the room waits for the editor (so [`edited`] takes what it leaves).
pub(crate) fn awaits_editor(samples: &SamplesState, cx: &Core) -> bool {
    samples
        .room_of(&cx.profile)
        .is_some_and(|r| matches!(r.stage, Stage::Editor(_)))
}

/// What the editor left (`e`): checked to be JSON when the kept body was, then sent signed
/// afresh; an editor that failed or a body refused goes back to the list with the reason,
/// nothing sent.
pub(crate) fn edited(
    samples: &mut SamplesState,
    cx: &mut Core,
    result: Result<String, String>,
) -> Vec<Effect> {
    let Some(room) = samples.room.as_mut() else {
        return Vec::new();
    };
    let Stage::Editor(target) = std::mem::replace(&mut room.stage, Stage::List) else {
        return Vec::new();
    };
    let Some(mut sample) = room.selected().cloned() else {
        return Vec::new();
    };
    match result.and_then(|body| {
        crate::config::editor::json_kept(&sample.body, &body)?;
        Ok(body)
    }) {
        Ok(body) => {
            room.edited = Some(body.clone());
            sample.body = body;
            send(samples, cx, target, sample)
        }
        Err(why) => {
            room.message = Some(why);
            Vec::new()
        }
    }
}

/// Compare over the answer shown: the sample's recorded answer beside the new one, opened in
/// the compare room's slot.
fn compare(samples: &mut SamplesState, cx: &Core, overlay: &mut Option<Overlay>) -> Vec<Effect> {
    let Some(room) = samples.room.as_mut() else {
        return Vec::new();
    };
    let (Stage::Answer(r, _), Some(s)) = (&room.stage, room.selected()) else {
        return Vec::new();
    };
    let word = if room.edited.is_some() {
        "edited sample"
    } else {
        "sample"
    };
    let new = Answer::from_replay(format!("{word} {} to {}", s.name, room.target.value()), r);
    let Some(kept) = &s.answer else {
        room.message = Some(format!(
            "sample {} kept no recorded answer to compare with",
            crate::text::line(&s.name)
        ));
        return Vec::new();
    };
    let recorded = kept.to_answer(format!("recorded attempt #{}", s.attempt));
    *overlay = Some(Overlay {
        profile: cx.profile.clone(),
        notification_id: s.notification_id.clone(),
        shown: Some(Box::new(crate::api::compare::compare(&recorded, &new))),
        left: new,
        candidates: vec![recorded],
        pending: None,
        message: None,
        cursor: 0,
        scroll: 0,
        against: None,
    });
    Vec::new()
}

fn send(
    samples: &mut SamplesState,
    cx: &mut Core,
    target: url::Url,
    sample: crate::api::samples::Sample,
) -> Vec<Effect> {
    let req_id = cx.next_req_id();
    let Some(room) = samples.room.as_mut() else {
        return Vec::new();
    };
    room.pending = Some(req_id);
    room.message = None;
    room.stage = Stage::Sending;
    vec![Effect::Api {
        req_id,
        pane: Pane::Samples,
        cmd: ApiCmd::Samples(Box::new(SendCmd::Send {
            sample: Box::new(sample),
            target,
        })),
    }]
}

/// Whether a confirmation the room asked is still its to answer.
pub(crate) fn still_asked(samples: &SamplesState, cx: &Core, subject: &Subject) -> bool {
    samples.room_of(&cx.profile).is_some_and(|r| match subject {
        Subject::SampleSend => matches!(r.stage, Stage::Confirm(_)),
        Subject::SampleRm(name) => {
            r.stage == Stage::List && r.selected().is_some_and(|s| &s.name == name)
        }
        _ => false,
    })
}

/// The answer to a send beyond this machine: yes sends, no goes back to the target.
pub(crate) fn answered_send(samples: &mut SamplesState, cx: &mut Core, yes: bool) -> Vec<Effect> {
    let Some(room) = samples.room.as_mut() else {
        return Vec::new();
    };
    let Stage::Confirm(url) = std::mem::replace(&mut room.stage, Stage::Target) else {
        return Vec::new();
    };
    if yes {
        go(samples, cx, url)
    } else {
        Vec::new()
    }
}

/// The answer to a removal: yes removes the file and reads the library again.
pub(crate) fn answered_rm(
    samples: &mut SamplesState,
    cx: &Core,
    name: &str,
    yes: bool,
) -> Vec<Effect> {
    if !yes {
        return Vec::new();
    }
    let outcome = library(cx).and_then(|l| l.remove(name).map_err(|e| e.to_string()));
    let Some(mut room) = samples.room.take() else {
        return Vec::new();
    };
    load(cx, &mut room);
    room.message = Some(match outcome {
        Ok(()) => format!("Removed sample {}", crate::text::line(name)),
        Err(e) => e,
    });
    samples.room = Some(room);
    Vec::new()
}

/// Whether a reply answers the room's request.
pub(crate) fn awaits(samples: &SamplesState, cx: &Core, req_id: u64) -> bool {
    samples
        .room_of(&cx.profile)
        .is_some_and(|r| r.pending == Some(req_id))
}

/// The worker's answer to a send. An answer is kept in `histories` (the replay room's, by
/// profile); an edited send's opens compare in `overlay` (the compare room's slot).
pub(crate) fn on_reply(
    samples: &mut SamplesState,
    cx: &Core,
    histories: &mut BTreeMap<String, ReplayHistory>,
    overlay: &mut Option<Overlay>,
    result: Result<ApiReply, Error>,
) -> Vec<Effect> {
    let Some(room) = samples.room.as_mut() else {
        return Vec::new();
    };
    room.pending = None;
    match result {
        Ok(ApiReply::Samples(SamplesReply::Answered(r, why, plan))) => {
            let edited = room.edited.clone();
            room.stage = Stage::Answer(r.clone(), why);
            // Kept with the answer in replay's history, the edited body with it.
            histories
                .entry(cx.profile.clone())
                .or_default()
                .record_body(&plan, *r, edited.clone());
            // `e`: the recorded answer beside the new one, at once.
            if edited.is_some() {
                return compare(samples, cx, overlay);
            }
        }
        Ok(ApiReply::Samples(SamplesReply::Kept(name))) => {
            room.stage = Stage::List;
            room.message = Some(format!("Kept sample {}", crate::text::line(&name)));
            if let Some(mut room) = samples.room.take() {
                load(cx, &mut room);
                room.cursor = room
                    .samples
                    .iter()
                    .position(|s| s.name == name)
                    .unwrap_or(0);
                samples.room = Some(room);
            }
        }
        Ok(ApiReply::Samples(SamplesReply::NotSent(why))) => {
            // A keep that failed goes back to the list; a send to its target.
            room.stage = if room.stage == Stage::Keeping {
                Stage::List
            } else {
                Stage::Target
            };
            room.message = Some(why);
        }
        Ok(_) => {
            room.stage = Stage::List;
            room.message = Some("unexpected reply from the worker".into());
        }
        Err(e) => {
            let v = ErrorView::from_error(Tab::NOTIFICATIONS_LIST, &e);
            room.stage = Stage::List;
            room.message = Some(match v.hint {
                Some(h) => format!("{} ({h})", v.message),
                None => v.message,
            });
        }
    }
    Vec::new()
}
