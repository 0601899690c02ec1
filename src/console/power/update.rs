//! The power tools' part of the router: their actions, the command line's keys and commands,
//! their messages (mouse, profile switch, copies) and read-only refusals.
use crossterm::event::{KeyCode, KeyEvent};

use super::command::{self, Command, CommandLine};
use super::filter::Filter;
use super::{PowerEffect, PowerMsg, PowerState, ProfileInfo, filter_sort, raw};
use crate::console::keymap::{Action, Input};
use crate::console::msg::{Effect, Step};
use crate::console::pane;
use crate::console::raw_json::{self, RawView};
use crate::console::record::Record;
use crate::console::state::{DetailPane, State, ToastKind};

fn fx(e: PowerEffect) -> Vec<Effect> {
    vec![Effect::Power(e)]
}

/// Whether the power tools own the keyboard.
pub(crate) fn is_modal(state: &State) -> bool {
    let p = &state.power;
    p.command.is_some() || p.raw.is_some() || p.filters[state.tab.index()].editing
}

/// Opens the command line with `text` typed (`Ctrl-F`'s `search `).
pub(crate) fn prompt(room: &mut PowerState, text: &str) -> Vec<Effect> {
    room.command = Some(CommandLine {
        input: crate::console::input::TextInput::new(text),
        ..Default::default()
    });
    Vec::new()
}

/// Whether Esc should clear the list's filter (instead of going back).
pub(crate) fn filter_active(state: &State) -> bool {
    state.current().detail.is_none() && state.power.filters[state.tab.index()].active()
}

/// Clears the current tab's filter.
pub(crate) fn clear_filter(state: &mut State) -> Vec<Effect> {
    state.power.filters[state.tab.index()] = Filter::default();
    Vec::new()
}

/// Refuses a write action in read-only mode.
pub(crate) fn refuse(state: &mut State, action: Action) -> Vec<Effect> {
    state.core.toast(
        ToastKind::Error,
        format!(
            "read-only: {} is refused (profile {})",
            action.describe(),
            state.core.profile
        ),
    );
    Vec::new()
}

/// The record the user looks at: the open detail's, else the selected row.
fn focused_record(state: &State) -> Option<Record> {
    let ts = state.current();
    match &ts.detail {
        Some(d) => d
            .record
            .clone()
            .or_else(|| ts.list.rows.iter().find(|r| r.id() == d.id).cloned()),
        None => ts.list.selected().cloned(),
    }
}

/// The power actions, from the keymap (after dialogs and help had their say), mouse or command.
pub(crate) fn on_action(state: &mut State, action: Action) -> Vec<Effect> {
    let tab = state.tab;
    match action {
        Action::Command => {
            state.power.command = Some(CommandLine::default());
            Vec::new()
        }
        Action::Filter => {
            state.power.filters[tab.index()].editing = true;
            Vec::new()
        }
        Action::Sort => {
            let shown = super::shown_columns::shown(state);
            state.power.sorts[tab.index()].cycle_among(tab, shown.as_deref());
            Vec::new()
        }
        Action::SortFlip => {
            let s = &mut state.power.sorts[tab.index()];
            s.desc = !s.desc;
            if s.column.is_none() {
                s.cycle(tab);
            }
            Vec::new()
        }
        Action::RawJson => match focused_record(state) {
            Some(r) => {
                state.power.raw = Some(RawView::new(r.id(), &r.raw));
                Vec::new()
            }
            None => nothing_selected(state),
        },
        Action::CopyId | Action::CopyJson => copy(state, action == Action::CopyJson),
        _ => Vec::new(),
    }
}

fn nothing_selected(state: &mut State) -> Vec<Effect> {
    state.toast(ToastKind::Info, "Nothing selected");
    Vec::new()
}

fn copy(state: &mut State, json: bool) -> Vec<Effect> {
    let Some(r) = focused_record(state) else {
        return nothing_selected(state);
    };
    let shown_id = crate::text::line(r.id()).into_owned();
    let (text, what) = if json {
        (raw_json::pretty(&r.raw), format!("JSON of {shown_id}"))
    } else {
        match crate::text::clip::id(r.id()) {
            Ok(id) => (id.to_string(), format!("id {id}")),
            Err(why) => {
                state.toast(ToastKind::Error, format!("Not copied: {why}"));
                return Vec::new();
            }
        }
    };
    fx(PowerEffect::Copy { text, what })
}

/// A message for the power tools (mouse, profile switch, copy result).
pub(crate) fn on_msg(state: &mut State, msg: PowerMsg) -> Step {
    match msg {
        // The router sends the mouse to `mouse`.
        PowerMsg::Mouse(_) => Step::default(),
        PowerMsg::Copied { what, result } => {
            match result {
                Ok(via) => state.toast(ToastKind::Info, format!("Copied {what} ({via})")),
                Err(e) => state.toast(ToastKind::Error, format!("Copy failed: {e}")),
            }
            Step::default()
        }
        PowerMsg::SwitchFailed(e) => {
            state.power.switching = None;
            // It answers the command's "Switching…", replacing it.
            state.toast_topic = Some(Action::Command);
            state.toast(ToastKind::Error, e);
            Step::default()
        }
        PowerMsg::Switched(info) => switched(state, info).into(),
    }
}

/// Starts a new session on the new profile: everything of the old one goes (requests in flight
/// included: nobody waits for their ids any more), the settings and what the operator keeps
/// across profiles (toasts, command history, each profile's replays) stay; the current tab loads.
fn switched(state: &mut State, info: ProfileInfo) -> Vec<Effect> {
    let mut fresh = State::with_settings(
        info.profile.clone(),
        info.base_url.clone(),
        state.clock,
        state.settings.clone(),
    );
    fresh.size = state.size;
    fresh.tab = state.tab;
    // The new deployment's tabs, put in place when its generation was detected.
    fresh.shown = std::mem::take(&mut state.shown);
    // Request ids and row revisions keep counting, so that nothing old can pass for new.
    fresh.last_req = state.last_req;
    fresh.last_rev = state.last_rev;
    fresh.toasts = std::mem::take(&mut state.toasts);
    fresh.replay = std::mem::take(&mut state.replay);
    fresh.power.history = std::mem::take(&mut state.power.history);
    fresh.power.confirm = info.confirm;
    fresh.read_only = info.read_only;
    fresh.settings.keymap.hide_writes = info.read_only;
    *state = fresh;
    state.toast_topic = Some(Action::Command);
    state.toast(
        ToastKind::Info,
        format!("Profile {} · {}", info.profile, info.base_url),
    );
    // The new profile's alert rules, judged as when the console opens.
    crate::console::alerts::update::load(state);
    crate::console::update::init(state)
}

/// A key while the power tools own the keyboard (see [`is_modal`]).
pub(crate) fn on_modal_key(state: &mut State, key: &Input) -> Step {
    if state.power.command.is_some() {
        return command_key(state, key);
    }
    if state.power.raw.is_some() {
        return raw::on_key(state, key);
    }
    filter_sort::on_key(state, key).into()
}

/// Pasted text for the prompt being typed: the command line, the raw view's search, the `/`
/// filter; false when none is typed.
pub(crate) fn paste(state: &mut State, text: &str) -> bool {
    let height = raw::raw_height(state);
    let p = &mut state.power;
    if let Some(cl) = p.command.as_mut() {
        cl.input.paste(text);
        cl.completion = None;
    } else if let Some(view) = p.raw.as_mut() {
        if !view.editing {
            return false;
        }
        view.search.paste(text);
        view.current = 0;
        view.show_current(height);
    } else if p.filters[state.core.tab.index()].editing {
        p.filters[state.core.tab.index()].query.paste(text);
    } else {
        return false;
    }
    true
}

fn command_key(state: &mut State, key: &KeyEvent) -> Step {
    let Some(cl) = state.power.command.as_mut() else {
        return Step::default();
    };
    match key.code {
        KeyCode::Esc => state.power.command = None,
        KeyCode::Enter => {
            let line = cl.input.value().trim().to_string();
            state.power.command = None;
            return run_command(state, &line);
        }
        // Backspace on an empty line closes it.
        KeyCode::Backspace if cl.input.value().is_empty() => state.power.command = None,
        KeyCode::Tab => {
            let ids = loaded_ids(state);
            let names = command::names_of(state.tabs.iter().flat_map(|ts| {
                let detail = ts.detail.as_ref().and_then(|d| d.record.as_ref());
                ts.list.rows.iter().chain(detail)
            }));
            if let Some(cl) = state.power.command.as_mut() {
                cl.names = names;
                cl.complete(&state.core.settings.profiles, &ids);
            }
        }
        KeyCode::Up => cl.browse(&state.power.history, true),
        KeyCode::Down => cl.browse(&state.power.history, false),
        _ => {
            if cl.input.edit(key) {
                cl.completion = None;
            }
        }
    }
    Step::default()
}

/// The ids loaded in any tab (rows and open details), for completion.
fn loaded_ids(state: &State) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for ts in &state.tabs {
        let rows = ts.list.rows.iter().map(|r| r.id().to_string());
        for id in rows.chain(ts.detail.as_ref().map(|d| d.id.clone())) {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    ids
}

/// Runs a command line (without the `:`), remembering it.
pub(crate) fn run_command(state: &mut State, line: &str) -> Step {
    if line.is_empty() {
        return Step::default();
    }
    command::remember(&mut state.power.history, line);
    // A command's toasts replace the previous command's.
    state.toast_topic = Some(Action::Command);
    let mut effects = match &state.settings.data_dir {
        Some(d) => fx(PowerEffect::SaveHistory(
            d.clone(),
            state.power.history.clone(),
        )),
        None => Vec::new(),
    };
    let cmd = match command::parse(line) {
        Ok(c) => c,
        Err(e) => {
            state.toast(ToastKind::Error, e);
            return effects.into();
        }
    };
    effects.extend(match cmd {
        Command::Tab(t) => {
            // A word names a tab of each generation (`:teams`): the shown one.
            let word = line.split_whitespace().next().unwrap_or_default();
            let word = word.to_ascii_lowercase();
            let shown = state
                .shown
                .iter()
                .copied()
                .find(|s| crate::console::views::list::aliases(*s).contains(&word.as_str()));
            return Step::then(effects, Action::GoTab(shown.unwrap_or(t)));
        }
        Command::Quit => return Step::then(effects, Action::Quit),
        Command::Samples => return Step::then(effects, Action::Samples),
        Command::Help => {
            state.help = true;
            state.help_scroll = 0;
            Vec::new()
        }
        Command::Goto(id) => goto(state, &id),
        Command::View(rest) => crate::console::saved_views::command(state, &rest),
        Command::Search(expr) => crate::console::commands::search(state, &expr),
        Command::Profiles => {
            let line = command::profiles_line(&state.settings.profiles, &state.profile);
            state.toast(ToastKind::Info, line);
            Vec::new()
        }
        Command::Profile(name) if name == state.profile => match state.power.switching.take() {
            Some(pending) => {
                state.toast(
                    ToastKind::Info,
                    format!("Staying on profile {name} (switch to {pending} dropped)"),
                );
                fx(PowerEffect::CancelSwitch)
            }
            None => {
                state.toast(ToastKind::Info, format!("Already on profile {name}"));
                Vec::new()
            }
        },
        // A name the configuration does not have is refused here, not switched to and failed.
        Command::Profile(name)
            if !state.settings.profiles.is_empty() && !state.settings.profiles.contains(&name) =>
        {
            state.core.toast(
                ToastKind::Error,
                format!(
                    "No profile {name} (profiles: {}); staying on {}",
                    state.core.settings.profiles.join(", "),
                    state.core.profile
                ),
            );
            Vec::new()
        }
        Command::Profile(name) => {
            state.toast(ToastKind::Info, format!("Switching to profile {name}…"));
            state.power.switching = Some(name.clone());
            fx(PowerEffect::SwitchProfile(name))
        }
    });
    effects.into()
}

/// Opens a resource from its id: the prefix says which tab.
fn goto(state: &mut State, id: &str) -> Vec<Effect> {
    // A prefix a generation shares with another (`tm_`): the shown tab's.
    let shown = state
        .shown
        .iter()
        .copied()
        .find(|t| id.len() > t.id_prefix().len() && id.starts_with(t.id_prefix()));
    let Some(tab) = shown.or_else(|| command::tab_of_id(id)) else {
        state.toast(
            ToastKind::Error,
            format!("{id}: unknown id (tm_, poti_, clb_, cld_ or cbn_)"),
        );
        return Vec::new();
    };
    let mut effects = pane::switch_tab(state, tab);
    let record = state
        .tab_state(tab)
        .list
        .rows
        .iter()
        .find(|r| r.id() == id)
        .cloned();
    state.tab_state_mut(tab).detail = Some(DetailPane {
        id: id.to_string(),
        record,
        ..DetailPane::default()
    });
    effects.extend(pane::load_detail(state, tab, id.to_string()));
    // A loaded row: the cursor goes onto the row the detail shows.
    let shown = state.tab_state(tab).list.shown().position(|r| r.id() == id);
    if let Some(pos) = shown {
        state.tab_state_mut(tab).list.cursor = pos;
        pane::keep_cursor_visible(state, tab);
    }
    effects
}
