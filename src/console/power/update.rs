//! The power tools' part of the router: their actions, the command line's keys and commands,
//! their messages (mouse, copies) and read-only refusals. What a command asks beyond the power
//! tools (`:goto`, `:view`, `:search`, the new session after `:profile`) is handed to the
//! router ([`Routed`], `console::commands`).
use crossterm::event::{KeyCode, KeyEvent};

use super::command::{self, Command, CommandLine};
use super::filter::Filter;
use super::{PowerEffect, PowerMsg, PowerState, filter_sort, raw};
use crate::console::keymap::{Action, Input};
use crate::console::msg::{Effect, Step};
use crate::console::raw_json::{self, RawView};
use crate::console::record::Record;
use crate::console::state::{Core, ToastKind};

fn fx(e: PowerEffect) -> Vec<Effect> {
    vec![Effect::Power(e)]
}

/// A command whose work lies beyond the power tools, for the router to run
/// (`console::commands`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Routed {
    /// `:goto ID`: open a resource from its id.
    Goto(String),
    /// `:view …`: the saved views.
    View(String),
    /// `:search EXPR`.
    Search(String),
}

/// What a key of the power tools hands the router: its step, and a command the router runs
/// (its effects after the step's, before the step's action).
#[derive(Debug, Default)]
pub(crate) struct Ran {
    /// Effects, and an action to apply next.
    pub(crate) step: Step,
    /// A command for the router.
    pub(crate) routed: Option<Routed>,
}

impl From<Step> for Ran {
    fn from(step: Step) -> Self {
        Self { step, routed: None }
    }
}

impl From<Vec<Effect>> for Ran {
    fn from(effects: Vec<Effect>) -> Self {
        Step::from(effects).into()
    }
}

/// The command line's effects, then a command for the router.
fn routed(effects: Vec<Effect>, routed: Routed) -> Ran {
    Ran {
        step: effects.into(),
        routed: Some(routed),
    }
}

/// Whether the power tools own the keyboard.
pub(crate) fn is_modal(room: &PowerState, cx: &Core) -> bool {
    room.command.is_some() || room.raw.is_some() || room.filters[cx.tab.index()].editing
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
pub(crate) fn filter_active(room: &PowerState, cx: &Core) -> bool {
    cx.current().detail.is_none() && room.filters[cx.tab.index()].active()
}

/// Clears the current tab's filter.
pub(crate) fn clear_filter(room: &mut PowerState, cx: &Core) -> Vec<Effect> {
    room.filters[cx.tab.index()] = Filter::default();
    Vec::new()
}

/// Refuses a write action in read-only mode.
pub(crate) fn refuse(cx: &mut Core, action: Action) -> Vec<Effect> {
    cx.toast(
        ToastKind::Error,
        format!(
            "read-only: {} is refused (profile {})",
            action.describe(),
            cx.profile
        ),
    );
    Vec::new()
}

/// The record the user looks at: the open detail's, else the selected row.
fn focused_record(cx: &Core) -> Option<Record> {
    let ts = cx.current();
    match &ts.detail {
        Some(d) => d
            .record
            .clone()
            .or_else(|| ts.list.rows.iter().find(|r| r.id() == d.id).cloned()),
        None => ts.list.selected().cloned(),
    }
}

/// The power actions, from the keymap (after dialogs and help had their say), mouse or command.
/// `shown`: the list's columns on screen (`shown_columns`), which `Sort` cycles among.
pub(crate) fn on_action(
    room: &mut PowerState,
    cx: &mut Core,
    action: Action,
    shown: Option<&[usize]>,
) -> Vec<Effect> {
    let tab = cx.tab;
    match action {
        Action::Command => {
            room.command = Some(CommandLine::default());
            Vec::new()
        }
        Action::Filter => {
            room.filters[tab.index()].editing = true;
            Vec::new()
        }
        Action::Sort => {
            room.sorts[tab.index()].cycle_among(tab, shown);
            Vec::new()
        }
        Action::SortFlip => {
            let s = &mut room.sorts[tab.index()];
            s.desc = !s.desc;
            if s.column.is_none() {
                s.cycle(tab);
            }
            Vec::new()
        }
        Action::RawJson => match focused_record(cx) {
            Some(r) => {
                room.raw = Some(RawView::new(r.id(), &r.raw));
                Vec::new()
            }
            None => nothing_selected(cx),
        },
        Action::CopyId | Action::CopyJson => copy(cx, action == Action::CopyJson),
        _ => Vec::new(),
    }
}

fn nothing_selected(cx: &mut Core) -> Vec<Effect> {
    cx.toast(ToastKind::Info, "Nothing selected");
    Vec::new()
}

fn copy(cx: &mut Core, json: bool) -> Vec<Effect> {
    let Some(r) = focused_record(cx) else {
        return nothing_selected(cx);
    };
    let shown_id = crate::text::line(r.id()).into_owned();
    let (text, what) = if json {
        (raw_json::pretty(&r.raw), format!("JSON of {shown_id}"))
    } else {
        match crate::text::clip::id(r.id()) {
            Ok(id) => (id.to_string(), format!("id {id}")),
            Err(why) => {
                cx.toast(ToastKind::Error, format!("Not copied: {why}"));
                return Vec::new();
            }
        }
    };
    fx(PowerEffect::Copy { text, what })
}

/// A message for the power tools (mouse, profile switch, copy result).
pub(crate) fn on_msg(room: &mut PowerState, cx: &mut Core, msg: PowerMsg) -> Step {
    match msg {
        // The router sends the mouse to `mouse`, and starts the new session of a switch
        // (`commands::switched`): it replaces every room's model.
        PowerMsg::Mouse(_) | PowerMsg::Switched(_) => Step::default(),
        PowerMsg::Copied { what, result } => {
            match result {
                Ok(via) => cx.toast(ToastKind::Info, format!("Copied {what} ({via})")),
                Err(e) => cx.toast(ToastKind::Error, format!("Copy failed: {e}")),
            }
            Step::default()
        }
        PowerMsg::SwitchFailed(e) => {
            room.switching = None;
            // It answers the command's "Switching…", replacing it.
            cx.toast_topic = Some(Action::Command);
            cx.toast(ToastKind::Error, e);
            Step::default()
        }
    }
}

/// A key while the power tools own the keyboard (see [`is_modal`]).
pub(crate) fn on_modal_key(room: &mut PowerState, cx: &mut Core, key: &Input) -> Ran {
    if room.command.is_some() {
        return command_key(room, cx, key);
    }
    if room.raw.is_some() {
        return raw::on_key(room, cx, key).into();
    }
    filter_sort::on_key(room, cx, key).into()
}

/// Pasted text for the prompt being typed: the command line, the raw view's search, the `/`
/// filter; false when none is typed.
pub(crate) fn paste(room: &mut PowerState, cx: &Core, text: &str) -> bool {
    let height = raw::raw_height(cx);
    let p = room;
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
    } else if p.filters[cx.tab.index()].editing {
        p.filters[cx.tab.index()].query.paste(text);
    } else {
        return false;
    }
    true
}

fn command_key(room: &mut PowerState, cx: &mut Core, key: &KeyEvent) -> Ran {
    let Some(cl) = room.command.as_mut() else {
        return Ran::default();
    };
    match key.code {
        KeyCode::Esc => room.command = None,
        KeyCode::Enter => {
            let line = cl.input.value().trim().to_string();
            room.command = None;
            return run_command(room, cx, &line);
        }
        // Backspace on an empty line closes it.
        KeyCode::Backspace if cl.input.value().is_empty() => room.command = None,
        KeyCode::Tab => {
            let ids = loaded_ids(cx);
            let names = command::names_of(cx.tabs.iter().flat_map(|ts| {
                let detail = ts.detail.as_ref().and_then(|d| d.record.as_ref());
                ts.list.rows.iter().chain(detail)
            }));
            if let Some(cl) = room.command.as_mut() {
                cl.names = names;
                cl.complete(&cx.settings.profiles, &ids);
            }
        }
        KeyCode::Up => cl.browse(&room.history, true),
        KeyCode::Down => cl.browse(&room.history, false),
        _ => {
            if cl.input.edit(key) {
                cl.completion = None;
            }
        }
    }
    Ran::default()
}

/// The ids loaded in any tab (rows and open details), for completion.
fn loaded_ids(cx: &Core) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for ts in &cx.tabs {
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
pub(crate) fn run_command(room: &mut PowerState, cx: &mut Core, line: &str) -> Ran {
    if line.is_empty() {
        return Ran::default();
    }
    command::remember(&mut room.history, line);
    // A command's toasts replace the previous command's.
    cx.toast_topic = Some(Action::Command);
    let mut effects = match &cx.settings.data_dir {
        Some(d) => fx(PowerEffect::SaveHistory(d.clone(), room.history.clone())),
        None => Vec::new(),
    };
    let cmd = match command::parse(line) {
        Ok(c) => c,
        Err(e) => {
            cx.toast(ToastKind::Error, e);
            return effects.into();
        }
    };

    effects.extend(match cmd {
        Command::Tab(t) => {
            // A word names a tab of each generation (`:teams`): the shown one.
            let word = line.split_whitespace().next().unwrap_or_default();
            let word = word.to_ascii_lowercase();
            let shown = cx
                .shown
                .iter()
                .copied()
                .find(|s| crate::console::views::list::aliases(*s).contains(&word.as_str()));
            return Step::then(effects, Action::GoTab(shown.unwrap_or(t))).into();
        }
        Command::Quit => return Step::then(effects, Action::Quit).into(),
        Command::Samples => return Step::then(effects, Action::Samples).into(),
        Command::Help => {
            cx.help = true;
            cx.help_scroll = 0;
            Vec::new()
        }
        Command::Goto(id) => return routed(effects, Routed::Goto(id)),
        Command::View(rest) => return routed(effects, Routed::View(rest)),
        Command::Search(expr) => return routed(effects, Routed::Search(expr)),
        Command::Profiles => {
            let line = command::profiles_line(&cx.settings.profiles, &cx.profile);
            cx.toast(ToastKind::Info, line);
            Vec::new()
        }
        Command::Profile(name) if name == cx.profile => match room.switching.take() {
            Some(pending) => {
                cx.toast(
                    ToastKind::Info,
                    format!("Staying on profile {name} (switch to {pending} dropped)"),
                );
                fx(PowerEffect::CancelSwitch)
            }
            None => {
                cx.toast(ToastKind::Info, format!("Already on profile {name}"));
                Vec::new()
            }
        },
        // A name the configuration does not have is refused here, not switched to and failed.
        Command::Profile(name)
            if !cx.settings.profiles.is_empty() && !cx.settings.profiles.contains(&name) =>
        {
            cx.toast(
                ToastKind::Error,
                format!(
                    "No profile {name} (profiles: {}); staying on {}",
                    cx.settings.profiles.join(", "),
                    cx.profile
                ),
            );
            Vec::new()
        }
        Command::Profile(name) => {
            cx.toast(ToastKind::Info, format!("Switching to profile {name}…"));
            room.switching = Some(name.clone());
            fx(PowerEffect::SwitchProfile(name))
        }
    });
    effects.into()
}
