//! The recover room's part of `update`: marks on the Notifications list, *recover…* opening the
//! room, its keys while open (every key), and the worker's replies (the plan, each delivery, the
//! summary), all addressed to `Pane::Recover`.
use crossterm::event::KeyCode;

use super::{Field, RecoverCmd, RecoverReply, RecoverState, Room, Stage, Stop, Text};
use crate::api::Error;
use crate::api::model::NotificationStatus;
use crate::api::recover;
use crate::api::replay;
use crate::api::selection::{self, Selection};
use crate::console::confirm::{Confirm, Subject};
use crate::console::keymap::{Action, Input};
use crate::console::msg::{ApiCmd, ApiReply, Effect, Pane};
use crate::console::pane;
use crate::console::record::Item;
use crate::console::state::{Core, ErrorView, ToastKind};
use crate::console::tab::Tab;

/// The window a recover starts with when nothing is marked.
pub(crate) const DEFAULT_SINCE: &str = "24h";
/// The statuses it starts with when nothing is marked.
pub(crate) const DEFAULT_STATUSES: &str = "failed";

/// Keys taken before every other layer while the room is open (every key).
pub(crate) fn on_key(model: &mut RecoverState, cx: &mut Core, key: &Input) -> Option<Vec<Effect>> {
    if model.room.is_some() && model.room_of(&cx.profile).is_none() {
        // Opened under another profile: its selection and journal are not this one's.
        model.room = None;
    }
    model.room.is_some().then(|| room_key(model, cx, key))
}

/// The marking actions and *recover…*, from the tab; `status` is the Notifications list's local
/// status filter (the deliveries room's), which a recover of the list starts with.
pub(crate) fn on_action(
    model: &mut RecoverState,
    cx: &mut Core,
    action: Action,
    status: Option<&str>,
) -> Vec<Effect> {
    match action {
        Action::Recover => open(model, cx, status),
        Action::Mark | Action::MarkRange | Action::MarkAll => mark(model, cx, action),
        _ => Vec::new(),
    }
}

/// `Space` toggles the row and moves on; the range marks from the row last toggled to this one;
/// all marks every loaded row (or clears them when all are marked already).
fn mark(model: &mut RecoverState, cx: &mut Core, action: Action) -> Vec<Effect> {
    if !super::marks_tab(cx.tab) || cx.current().detail.is_some() {
        cx.toast(
            ToastKind::Info,
            "marks are for rows of the Notifications list (the Deliveries list on event-destinations)",
        );
        return Vec::new();
    }
    let list = &cx.current().list;
    let shown: Vec<String> = list.shown().map(|r| r.id().to_string()).collect();
    let Some(here) = list.selected().map(|r| r.id().to_string()) else {
        return Vec::new();
    };
    let cursor = list.cursor;
    if action == Action::MarkAll && shown.iter().all(|id| model.marks.ids.contains(id)) {
        // Every mark goes, also those of pages not loaded now.
        clear(model, cx);
        return Vec::new();
    }
    let marks = &mut model.marks;
    match action {
        Action::MarkAll => {
            marks.ids.extend(shown);
            Vec::new()
        }
        Action::MarkRange => {
            let from = marks
                .anchor
                .as_ref()
                .and_then(|a| shown.iter().position(|id| id == a))
                .unwrap_or(cursor);
            let (a, b) = (from.min(cursor), from.max(cursor));
            marks.ids.extend(shown[a..=b].iter().cloned());
            marks.anchor = Some(here);
            Vec::new()
        }
        _ => {
            if !marks.ids.remove(&here) {
                marks.ids.insert(here.clone());
            }
            marks.anchor = Some(here);
            pane::move_cursor(cx, |c, _| c.saturating_add(1))
        }
    }
}

/// Clears every mark, saying how many went.
fn clear(model: &mut RecoverState, cx: &mut Core) {
    let n = model.marks.ids.len();
    model.marks = super::Marks::default();
    cx.toast(
        ToastKind::Info,
        format!("Cleared {n} mark{}", recover::plural(n)),
    );
}

/// `Esc` on the Notifications list clears its marks first (with a count); `None` when there
/// are none to clear or the list is not under the user's eye.
pub(crate) fn clear_on_back(model: &mut RecoverState, cx: &mut Core) -> Option<Vec<Effect>> {
    let here = super::marks_tab(cx.tab) && cx.current().detail.is_none();
    if !here || model.marks.ids.is_empty() {
        return None;
    }
    clear(model, cx);
    Some(Vec::new())
}

/// How many marked rows are loaded but hidden by the list's `/` or status filter.
fn hidden_marks(model: &RecoverState, cx: &Core) -> usize {
    let tab = if super::marks_tab(cx.tab) {
        cx.tab
    } else {
        Tab::NOTIFICATIONS_LIST
    };
    let list = &cx.tab_state(tab).list;
    let marks = &model.marks.ids;
    let shown: std::collections::HashSet<&str> = list.shown().map(|r| r.id()).collect();
    list.rows
        .iter()
        .filter(|r| marks.contains(r.id()) && !shown.contains(r.id()))
        .count()
}

/// The tabs of `callback-destinations` a recover starts from (its plan is that generation's):
/// the notifications read through the callbacks, their callbacks and destinations.
fn callback_tab(tab: Tab) -> bool {
    tab.notifications_of().is_some_and(Tab::through_callbacks)
}

/// What a recover from here selects: (in words, the selection, whether it is the marks, the
/// statuses the list shows, `status` being its local status filter).
fn scope(
    model: &RecoverState,
    cx: &Core,
    status: Option<&str>,
) -> Option<(String, Selection, bool, Option<String>)> {
    let ts = cx.current();
    let record = match &ts.detail {
        Some(d) => d.record.as_ref()?,
        None if super::marks_tab(cx.tab) => {
            return Some(notifications_scope(model, cx, status));
        }
        None => ts.list.selected()?,
    };
    if callback_tab(cx.tab) {
        // This generation's items: a callback or a destination by id, a notification's list.
        let notifications = cx.tab.notifications_of();
        let (what, selection) = match Some(cx.tab) {
            t if t == notifications.and_then(Tab::senders) => (
                "callback",
                Selection {
                    callbacks: vec![record.id().to_string()],
                    ..Selection::default()
                },
            ),
            t if t == notifications.and_then(Tab::receivers) => (
                "destination",
                Selection {
                    destinations: vec![record.id().to_string()],
                    ..Selection::default()
                },
            ),
            _ => return Some(notifications_scope(model, cx, status)),
        };
        return Some((format!("{what} {}", record.id()), selection, false, None));
    }
    match &record.item {
        Item::Destination(d) => Some((
            format!("destination {} ({})", d.name, d.id),
            Selection {
                destinations: vec![d.id.clone()],
                ..Selection::default()
            },
            false,
            None,
        )),
        Item::Callback(c) => Some((
            format!(
                "callback {} ({})",
                c.name.as_deref().unwrap_or("unnamed"),
                c.id
            ),
            Selection {
                callbacks: vec![c.id.clone()],
                ..Selection::default()
            },
            false,
            None,
        )),
        Item::Notification(_) => Some(notifications_scope(model, cx, status)),
        _ => None,
    }
}

/// The marks when there are marks, else the list's server filters and its status filter.
fn notifications_scope(
    model: &RecoverState,
    cx: &Core,
    status: Option<&str>,
) -> (String, Selection, bool, Option<String>) {
    let marks = &model.marks.ids;
    if !marks.is_empty() {
        let n = marks.len();
        // A bulk write over marks says which of them the filter keeps out of sight.
        let hidden = match hidden_marks(model, cx) {
            0 => String::new(),
            h => format!(" ({h} hidden by the filter)"),
        };
        return (
            format!("{n} marked notification{}{hidden}", recover::plural(n)),
            Selection {
                notifications: marks.iter().cloned().collect(),
                ..Selection::default()
            },
            true,
            None,
        );
    }
    let tab = if super::marks_tab(cx.tab) {
        cx.tab
    } else {
        Tab::NOTIFICATIONS_LIST
    };
    let f = &cx.tab_state(tab).list.filter;
    let mut words = Vec::new();
    for (what, ids) in [
        ("destination", &f.destination_ids),
        ("callback", &f.callback_ids),
        ("event", &f.event_ids),
    ] {
        if !ids.is_empty() {
            words.push(format!("{what} {}", ids.join(", ")));
        }
    }
    let scope = if words.is_empty() {
        "every notification".to_string()
    } else {
        format!("notifications of {}", words.join("; "))
    };
    let selection = Selection {
        destinations: f.destination_ids.clone(),
        callbacks: f.callback_ids.clone(),
        events: f.event_ids.clone(),
        ..Selection::default()
    };
    (scope, selection, false, status.map(str::to_string))
}

/// What a recover from here asks the platform to retry, where the generation retries on the
/// server (its resource's console module answers): the open item's, else the list's (its server
/// status filter), else the selected row's.
fn platform_scope(cx: &Core) -> Option<(String, crate::api::platform_retry::RetrySelection)> {
    let tab = cx.tab;
    let ts = cx.current();
    let statuses = &ts.list.filter.statuses;
    if let Some(d) = &ts.detail {
        let record = d.record.as_ref()?;
        return crate::console::views::platform_retry(tab, Some(record), statuses);
    }
    crate::console::views::platform_retry(tab, None, statuses).or_else(|| {
        let row = ts.list.selected()?;
        crate::console::views::platform_retry(tab, Some(row), statuses)
    })
}

/// The marks of a list whose resource asks the platform to retry them (its console module
/// answers): in words (how many, how many the filter hides) and the selection of exactly those.
fn marked_scope(
    model: &RecoverState,
    cx: &Core,
) -> Option<(String, crate::api::platform_retry::RetrySelection)> {
    let marks = &model.marks.ids;
    if marks.is_empty() || !super::marks_tab(cx.tab) || cx.current().detail.is_some() {
        return None;
    }
    let ids: Vec<String> = marks.iter().cloned().collect();
    let base = crate::console::views::marked_retry(cx.tab, &ids)?;
    let n = ids.len();
    // A bulk write over marks says which of them the filter keeps out of sight.
    let hidden = match hidden_marks(model, cx) {
        0 => String::new(),
        h => format!(" ({h} hidden by the filter)"),
    };
    let scope = format!(
        "{n} marked deliver{}{hidden}",
        crate::api::platform_retry::plural(n)
    );
    Some((scope, base))
}

/// Opens the room on what is under the user's eye (`status`: the list's local status filter).
pub(crate) fn open(model: &mut RecoverState, cx: &mut Core, status: Option<&str>) -> Vec<Effect> {
    if let Some((scope, base)) = marked_scope(model, cx) {
        open_room(model, cx, scope, Selection::default(), "", String::new());
        if let Some(room) = model.room.as_mut() {
            room.platform = Some(Box::new(super::Platform {
                base,
                marked: true,
                ..Default::default()
            }));
        }
        return Vec::new();
    }
    if let Some((scope, base)) = platform_scope(cx) {
        let statuses = if base.statuses.is_empty() {
            DEFAULT_STATUSES.to_string()
        } else {
            base.statuses.join(",")
        };
        let since = if base.deliveries.is_empty() {
            DEFAULT_SINCE
        } else {
            ""
        };
        open_room(model, cx, scope, Selection::default(), since, statuses);
        if let Some(room) = model.room.as_mut() {
            room.platform = Some(Box::new(super::Platform {
                base: crate::api::platform_retry::RetrySelection {
                    statuses: Vec::new(),
                    ..base
                },
                ..Default::default()
            }));
        }
        return Vec::new();
    }
    let Some((scope, base, marked, status)) = scope(model, cx, status) else {
        cx.toast(
            ToastKind::Info,
            "recover… works on a destination, a callback or the Notifications list (marks with Space)",
        );
        return Vec::new();
    };
    let (since, statuses) = if marked {
        ("", String::new())
    } else {
        (
            DEFAULT_SINCE,
            status.unwrap_or_else(|| DEFAULT_STATUSES.into()),
        )
    };
    open_room(model, cx, scope, base, since, statuses);
    Vec::new()
}

fn open_room(
    model: &mut RecoverState,
    cx: &Core,
    scope: String,
    base: Selection,
    since: &str,
    statuses: String,
) {
    let journal = cx.settings.data_dir.clone();
    model.room = Some(Box::new(Room {
        profile: cx.profile.clone(),
        scope,
        base,
        since: Text::new(since),
        statuses: Text::new(statuses),
        target: Text::new(""),
        focus: Field::Since,
        message: None,
        stage: Stage::Editing,
        pending: None,
        deliveries: Vec::new(),
        attempts: Default::default(),
        cursor: 0,
        open: None,
        scroll: 0,
        journal,
        platform: None,
    }));
}

/// Whether a reply answers the room's request.
pub(crate) fn awaits(model: &RecoverState, cx: &Core, req_id: u64) -> bool {
    model
        .room_of(&cx.profile)
        .is_some_and(|r| r.pending == Some(req_id))
}

/// An API error as the room shows it: status, code and the server's message, and its hint.
fn error_text(e: &Error) -> String {
    let v = ErrorView::from_error(Tab::NOTIFICATIONS_LIST, e);
    match v.hint {
        Some(h) => format!("{} ({h})", v.message),
        None => v.message,
    }
}

/// The worker's answer: the plan, a delivery, the end of the run.
pub(crate) fn on_reply(
    model: &mut RecoverState,
    cx: &Core,
    result: Result<ApiReply, Error>,
) -> Vec<Effect> {
    let read_only = cx.read_only;
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    let reply = match result {
        Ok(ApiReply::Recover(r)) => r,
        Ok(_) => RecoverReply::Failed("unexpected reply from the worker".into()),
        Err(e) => RecoverReply::Failed(error_text(&e)),
    };
    match reply {
        RecoverReply::RetryPlanned(plan) => {
            room.pending = None;
            room.stage = Stage::RetryPlanned(plan);
        }
        r @ (RecoverReply::Retried(_)
        | RecoverReply::RetryRan(_)
        | RecoverReply::Landed(_)
        | RecoverReply::Followed(_)) => super::platform::on_reply(room, r),
        RecoverReply::Planned(plan) => {
            room.pending = None;
            let remote = plan.remote_hosts();
            if read_only && !remote.is_empty() {
                room.message = Some(recover::read_only_refusal(&remote));
                room.stage = Stage::Editing;
            } else {
                room.stage = Stage::Planned(plan);
            }
        }
        RecoverReply::Delivered(d) => {
            room.deliveries.push(*d);
        }
        RecoverReply::Finished(summary) => {
            room.pending = None;
            room.stage = Stage::Done(summary);
        }
        RecoverReply::Failed(why) => {
            room.pending = None;
            room.message = Some(why);
            room.stage = match std::mem::replace(&mut room.stage, Stage::Editing) {
                // A run that failed still shows what it sent.
                Stage::Running { .. } => Stage::Done(Default::default()),
                _ => Stage::Editing,
            };
        }
    }
    Vec::new()
}

fn request(model: &mut RecoverState, cx: &mut Core, cmd: RecoverCmd) -> Vec<Effect> {
    let req_id = cx.next_req_id();
    if let Some(room) = model.room.as_mut() {
        room.pending = Some(req_id);
    }
    vec![Effect::Api {
        req_id,
        pane: Pane::Recover,
        cmd: ApiCmd::Recover(Box::new(cmd)),
    }]
}

fn room_key(model: &mut RecoverState, cx: &mut Core, key: &Input) -> Vec<Effect> {
    // The furthest an open answer scrolls, worked out only for a key that scrolls.
    let max = match key.action() {
        Some(a) if crate::console::widgets::is_scroll(a) => super::view::max_scroll(model, cx),
        _ => 0,
    };
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    match &mut room.stage {
        Stage::Editing => editing_key(model, cx, key),
        Stage::Planning => {
            if key.code == KeyCode::Esc {
                // Nothing was sent; the plan's answer is no one's.
                room.pending = None;
                room.stage = Stage::Editing;
            }
            Vec::new()
        }
        Stage::Planned(_) | Stage::RetryPlanned(_) => match key.code {
            KeyCode::Esc => {
                room.stage = Stage::Editing;
                Vec::new()
            }
            KeyCode::Enter => confirm_or_run(model, cx),
            KeyCode::Char('a') => ask_again(model, cx),
            _ => Vec::new(),
        },
        // Asked by the confirmation layer; should that question be gone, Esc goes back.
        Stage::Confirm(_) | Stage::RetryConfirm(_) => {
            if key.code == KeyCode::Esc {
                return answered(model, cx, false);
            }
            Vec::new()
        }
        Stage::Running { stop, stopping, .. } => {
            if key.code == KeyCode::Esc && room.open.is_none() && !*stopping {
                // In-flight requests finish and are journaled; the summary ends the run.
                stop.stop();
                *stopping = true;
            } else {
                results_key(room, key, max);
            }
            Vec::new()
        }
        // The follow's replies are no one's once the room is closed.
        Stage::Done(_) if room.platform.is_some() => {
            if key.code == KeyCode::Esc {
                model.room = None;
            }
            Vec::new()
        }
        Stage::Done(_) => {
            if key.code == KeyCode::Esc && room.open.is_none() {
                model.room = None;
            } else {
                results_key(room, key, max);
            }
            Vec::new()
        }
    }
}

/// The results list: move, `Enter` opens a delivery's answer, `Esc` closes it; scrolls it
/// within `max`, the furthest the open answer scrolls on this screen.
fn results_key(room: &mut Room, key: &Input, max: u16) {
    let n = room.deliveries.len();
    match (room.open, key.code, key.action()) {
        (Some(_), KeyCode::Esc, _) => {
            room.open = None;
            room.scroll = 0;
        }
        (Some(_), _, Some(a)) => {
            if let Some(at) = crate::console::widgets::scrolled(room.scroll, a, max) {
                room.scroll = at;
            }
        }
        (None, KeyCode::Enter, _) if room.cursor < n => room.open = Some(room.cursor),
        (None, _, Some(Action::Down)) => room.cursor = (room.cursor + 1).min(n.saturating_sub(1)),
        (None, _, Some(Action::Up)) => room.cursor = room.cursor.saturating_sub(1),
        (None, _, Some(Action::First)) => room.cursor = 0,
        (None, _, Some(Action::Last)) => room.cursor = n.saturating_sub(1),
        _ => {}
    }
}

fn editing_key(model: &mut RecoverState, cx: &mut Core, key: &Input) -> Vec<Effect> {
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    match key.code {
        KeyCode::Esc => {
            model.room = None;
            Vec::new()
        }
        KeyCode::Tab | KeyCode::BackTab | KeyCode::Down | KeyCode::Up => {
            let at = Field::ALL
                .iter()
                .position(|f| *f == room.focus)
                .unwrap_or(0);
            let n = Field::ALL.len();
            let forward = matches!(key.code, KeyCode::Tab | KeyCode::Down);
            room.focus = Field::ALL[if forward {
                (at + 1) % n
            } else {
                (at + n - 1) % n
            }];
            Vec::new()
        }
        KeyCode::Enter => submit(model, cx),
        _ => {
            let f = room.focus;
            if room.field_mut(f).edit(key) {
                room.message = None;
            }
            Vec::new()
        }
    }
}

/// The form's fields read into a selection and a target, or why not.
fn read_form(
    room: &Room,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(Selection, Option<url::Url>), String> {
    let mut sel = room.base.clone();
    let since = room.since.value().trim();
    if !since.is_empty() {
        sel.since = Some(selection::parse_time(since, now).map_err(|e| e.to_string())?);
    }
    for s in room
        .statuses
        .value()
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
    {
        match NotificationStatus::from(s) {
            NotificationStatus::Other(_) => {
                return Err(format!(
                    "{s:?} is not a status: failed, retrying, succeeded or pending"
                ));
            }
            known => sel.statuses.push(known),
        }
    }
    sel.validate().map_err(|e| e.to_string())?;
    let target = room.target.value().trim();
    let to = if target.is_empty() {
        None
    } else {
        Some(replay::parse_target(target).map_err(|e| e.to_string())?)
    };
    Ok((sel, to))
}

/// Enter on the form: the fields checked here, then the plan asked of the worker.
fn submit(model: &mut RecoverState, cx: &mut Core) -> Vec<Effect> {
    let read_only = cx.read_only;
    let now = cx.clock.now();
    let callbacks = callback_tab(cx.tab);
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    if room.platform.is_some() {
        return submit_platform(model, cx, now);
    }
    let (selection, to) = match read_form(room, now) {
        Ok(x) => x,
        Err(why) => {
            room.message = Some(why);
            return Vec::new();
        }
    };
    // As headless: a remote target is refused here; destinations' own URLs once planned.
    if read_only && let Some(t) = to.as_ref().filter(|t| !replay::is_loopback(t)) {
        room.message = Some(recover::read_only_refusal(&[recover::host_of(t)]));
        return Vec::new();
    }
    let Some(journal) = room.journal.clone() else {
        room.message = Some("no data directory for the journal (set HOME or XDG_DATA_HOME)".into());
        return Vec::new();
    };
    let cmd = if callbacks {
        match crate::api::callback_recover::CallbackSelection::from_selection(&selection) {
            Ok(selection) => RecoverCmd::PlanCallbacks {
                selection: Box::new(selection),
                to,
                journal,
                profile: room.profile.clone(),
            },
            Err(why) => {
                room.message = Some(why);
                return Vec::new();
            }
        }
    } else {
        RecoverCmd::Plan {
            selection: Box::new(selection),
            to,
            journal,
            profile: room.profile.clone(),
        }
    };
    room.message = None;
    room.deliveries.clear();
    room.stage = Stage::Planning;
    request(model, cx, cmd)
}

/// Enter on a platform room's form: the fields read into the platform's selection, then its
/// plan asked of the worker.
fn submit_platform(
    model: &mut RecoverState,
    cx: &mut Core,
    now: chrono::DateTime<chrono::Utc>,
) -> Vec<Effect> {
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    let Some(p) = room.platform.as_ref() else {
        return Vec::new();
    };
    let mut sel = p.base.clone();
    let (marked, again) = (p.marked, p.again.clone());
    let read = (|| {
        if !room.target.value().trim().is_empty() {
            return Err(super::platform::NO_TARGET.to_string());
        }
        if marked {
            // The marks are asked as they are: a window or statuses would quietly drop some.
            if !(room.since.value().trim().is_empty() && room.statuses.value().trim().is_empty()) {
                return Err(super::platform::MARKS_AS_THEY_ARE.to_string());
            }
            return Ok(());
        }
        let since = room.since.value().trim();
        if !since.is_empty() {
            sel.since = Some(selection::parse_time(since, now).map_err(|e| e.to_string())?);
        }
        sel.statuses = super::platform::statuses(room.statuses.value())?;
        if sel.statuses.is_empty() {
            sel.statuses = crate::api::platform_retry::FINISHED
                .iter()
                .map(|s| (*s).to_string())
                .collect();
        }
        Ok(())
    })();
    if let Err(why) = read {
        room.message = Some(why);
        return Vec::new();
    }
    let Some(journal) = room.journal.clone() else {
        room.message = Some("no data directory for the journal (set HOME or XDG_DATA_HOME)".into());
        return Vec::new();
    };
    room.message = None;
    if let Some(p) = room.platform.as_mut() {
        **p = super::Platform {
            base: p.base.clone(),
            marked: p.marked,
            again: p.again.clone(),
            ..Default::default()
        };
    }
    room.stage = Stage::Planning;
    let profile = room.profile.clone();
    request(
        model,
        cx,
        RecoverCmd::RetryPlan {
            selection: Box::new(sel),
            marked,
            again,
            journal,
            profile,
        },
    )
}

/// `a` on the platform's count: the user chooses to ask again for what the journal says was
/// retried already; the count is made again with them in it.
fn ask_again(model: &mut RecoverState, cx: &mut Core) -> Vec<Effect> {
    let now = cx.clock.now();
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    let Stage::RetryPlanned(plan) = &room.stage else {
        return Vec::new();
    };
    let already = plan.already.clone();
    let Some(p) = room.platform.as_mut().filter(|_| !already.is_empty()) else {
        return Vec::new();
    };
    for id in already {
        if !p.again.contains(&id) {
            p.again.push(id);
        }
    }
    submit_platform(model, cx, now)
}

/// Enter on the count: hosts that are not this machine are confirmed by typing; else the run.
fn confirm_or_run(model: &mut RecoverState, cx: &mut Core) -> Vec<Effect> {
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    if let Stage::RetryPlanned(plan) = &room.stage {
        let n = plan.items.len();
        if n == 0 {
            return Vec::new();
        }
        let Stage::RetryPlanned(plan) = std::mem::replace(&mut room.stage, Stage::Editing) else {
            return Vec::new();
        };
        room.stage = Stage::RetryConfirm(plan);
        cx.confirm = Some(Confirm::yes_no(
            "Ask the platform to retry?",
            format!(
                "Ask the platform to retry {n} deliver{}? Each gets a new attempt at once, signed and recorded by the platform, then its destination's policy with a fresh budget.",
                crate::api::platform_retry::plural(n)
            ),
            Subject::Recover,
        ));
        return Vec::new();
    }
    let Stage::Planned(plan) = std::mem::replace(&mut room.stage, Stage::Editing) else {
        return Vec::new();
    };
    if plan.items.is_empty() {
        room.stage = Stage::Planned(plan);
        return Vec::new();
    }
    let remote = plan.remote_hosts();
    if remote.is_empty() {
        run(model, cx, *plan)
    } else {
        let count = plan.items.len();
        room.stage = Stage::Confirm(plan);
        cx.confirm = Some(Confirm::hosts(
            "Recover beyond this machine?",
            remote,
            count,
            Subject::Recover,
        ));
        Vec::new()
    }
}

/// The confirmation's answer: yes runs the plan (refused again should the profile have become
/// read-only meanwhile); no goes back to the count.
pub(crate) fn answered(model: &mut RecoverState, cx: &mut Core, yes: bool) -> Vec<Effect> {
    let read_only = cx.read_only;
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    if let Stage::RetryConfirm(_) = &room.stage {
        let Stage::RetryConfirm(plan) = std::mem::replace(&mut room.stage, Stage::Editing) else {
            return Vec::new();
        };
        if !yes {
            room.stage = Stage::RetryPlanned(plan);
            return Vec::new();
        }
        return run_platform(model, cx, *plan);
    }
    let Stage::Confirm(plan) = std::mem::replace(&mut room.stage, Stage::Editing) else {
        return Vec::new();
    };
    if !yes {
        room.stage = Stage::Planned(plan);
        return Vec::new();
    }
    if read_only {
        room.message = Some(recover::read_only_refusal(&plan.remote_hosts()));
        return Vec::new();
    }
    run(model, cx, *plan)
}

/// Starts the run on the worker; its progress comes back as replies to the same request.
fn run(
    model: &mut RecoverState,
    cx: &mut Core,
    plan: crate::api::recover::RecoverPlan,
) -> Vec<Effect> {
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    let Some(journal) = room.journal.clone() else {
        return Vec::new();
    };
    let stop = Stop::default();
    room.attempts = plan
        .items
        .iter()
        .map(|i| (i.notification_id.clone(), i.attempt_index))
        .collect();
    room.deliveries.clear();
    room.cursor = 0;
    room.open = None;
    room.stage = Stage::Running {
        total: plan.items.len(),
        stop: stop.clone(),
        stopping: false,
    };
    let profile = room.profile.clone();
    request(
        model,
        cx,
        RecoverCmd::Run {
            items: plan.items,
            destinations: plan.destinations,
            callbacks: plan.callbacks,
            journal,
            profile,
            stop,
        },
    )
}

/// Asks the platform to retry the plan's deliveries on the worker; each answer, the end of the
/// run and each new attempt as it lands come back as replies to the same request.
fn run_platform(
    model: &mut RecoverState,
    cx: &mut Core,
    plan: crate::api::platform_retry::RetryPlan,
) -> Vec<Effect> {
    let Some(room) = model.room.as_mut() else {
        return Vec::new();
    };
    let Some(journal) = room.journal.clone() else {
        return Vec::new();
    };
    let stop = Stop::default();
    room.stage = Stage::Running {
        total: plan.items.len(),
        stop: stop.clone(),
        stopping: false,
    };
    let profile = room.profile.clone();
    let again = room
        .platform
        .as_ref()
        .map(|p| p.again.clone())
        .unwrap_or_default();
    request(
        model,
        cx,
        RecoverCmd::RetryRun {
            items: plan.items,
            again,
            journal,
            profile,
            stop,
        },
    )
}
