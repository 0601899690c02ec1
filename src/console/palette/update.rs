//! The palette's and the help filter's keys: what is available where you stand, opening,
//! choosing and running, and the help's rows narrowed by what is typed.
use crossterm::event::{KeyCode, KeyModifiers};

use super::{Entry, Palette, PaletteState};
use crate::console::footer::Hint;
use crate::console::input::TextInput;
use crate::console::keymap::{Action, Input};
use crate::console::msg::{Effect, Step};
use crate::console::state::Core;
use crate::console::widgets::help::HelpGroup;

/// The actions available on the tab where you stand: those it declares (`declared`, its
/// footer's, in full), then the moves and tools of every list or detail, then help and quit.
fn available(cx: &Core, declared: Vec<Hint>) -> Vec<Action> {
    let list = cx.current().detail.is_none();
    let mut general = vec![
        Action::Down,
        Action::Up,
        Action::First,
        Action::Last,
        Action::NextTab,
        Action::PrevTab,
        Action::Back,
        Action::Command,
        Action::Reload,
        Action::RawJson,
        Action::CopyId,
        Action::CopyJson,
    ];
    if list {
        general.extend([
            Action::NextPage,
            Action::PrevPage,
            Action::Filter,
            Action::Sort,
            Action::SortFlip,
            Action::ToggleOrder,
        ]);
    }
    general.extend(
        crate::console::tab::Tab::ALL
            .into_iter()
            .filter(|t| cx.is_shown(*t))
            .map(Action::GoTab),
    );
    if cx.tab.is_notifications_list() {
        general.push(Action::KeepSample);
    }
    general.extend([Action::Samples, Action::Help, Action::Quit]);
    let mut out: Vec<Action> = Vec::new();
    for a in declared.into_iter().flat_map(Hint::actions).chain(general) {
        if a != Action::Palette && !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

/// `Ctrl-P`: opens the palette on what is available here (`declared`: the tab's keys where it
/// is, `pane::keys`).
pub(crate) fn open(room: &mut PaletteState, cx: &Core, declared: Vec<Hint>) -> Vec<Effect> {
    let km = &cx.settings.keymap;
    let entries = available(cx, declared)
        .into_iter()
        .filter(|a| !(km.hide_writes && a.is_write()))
        .filter_map(|a| {
            let key = km.label_for(a);
            (!key.is_empty()).then(|| Entry {
                action: a,
                key,
                what: a.describe().to_string(),
                writes: a.is_write(),
            })
        })
        .collect();
    room.open = Some(Palette {
        entries,
        ..Palette::default()
    });
    Vec::new()
}

/// A key while the palette is open (it takes every key).
pub(crate) fn on_key(room: &mut PaletteState, input: &Input) -> Option<Step> {
    let p = room.open.as_mut()?;
    let n = p.shown().len();
    match input.key.code {
        KeyCode::Esc => room.open = None,
        KeyCode::Enter => {
            let chosen = p.shown().get(p.cursor).map(|e| e.action);
            room.open = None;
            if let Some(a) = chosen {
                return Some(Step::then(Vec::new(), a));
            }
        }
        KeyCode::Down => p.cursor = (p.cursor + 1).min(n.saturating_sub(1)),
        KeyCode::Up => p.cursor = p.cursor.saturating_sub(1),
        KeyCode::Char('n') if input.key.modifiers.contains(KeyModifiers::CONTROL) => {
            p.cursor = (p.cursor + 1).min(n.saturating_sub(1));
        }
        KeyCode::Char('p') if input.key.modifiers.contains(KeyModifiers::CONTROL) => {
            p.cursor = p.cursor.saturating_sub(1);
        }
        _ => {
            if p.query.edit(&input.key) {
                p.cursor = 0;
            }
        }
    }
    Some(Step::default())
}

/// Pasted text narrows the palette.
pub(crate) fn paste(room: &mut PaletteState, text: &str) -> bool {
    match room.open.as_mut() {
        Some(p) => {
            p.query.paste(text);
            p.cursor = 0;
            true
        }
        None => false,
    }
}

/// A key while the help is open, for its filter: `/` starts typing, typed keys narrow, `Enter`
/// stops typing, `Esc` clears the filter (a second `Esc` closes the help). `None` lets the help
/// take the key as before.
pub(crate) fn help_key(room: &mut PaletteState, cx: &mut Core, input: &Input) -> Option<Step> {
    let p = room;
    if p.help_typing {
        match input.key.code {
            KeyCode::Enter => p.help_typing = false,
            KeyCode::Esc => {
                p.help_typing = false;
                p.help_query = TextInput::default();
            }
            _ => {
                p.help_query.edit(&input.key);
            }
        }
        cx.help_scroll = 0;
        return Some(Step::default());
    }
    match (input.key.code, input.action()) {
        (KeyCode::Char('/'), _) => {
            p.help_typing = true;
            Some(Step::default())
        }
        (_, Some(Action::Back)) if !p.help_query.value().is_empty() => {
            p.help_query = TextInput::default();
            cx.help_scroll = 0;
            Some(Step::default())
        }
        // Closing the help forgets its filter.
        (_, Some(Action::Help | Action::Back | Action::Quit)) => {
            p.help_query = TextInput::default();
            None
        }
        _ => None,
    }
}

/// The help's groups narrowed by its filter, with a first group saying what is typed.
pub(crate) fn filter_help(room: &PaletteState, groups: Vec<HelpGroup>) -> Vec<HelpGroup> {
    let p = room;
    let q = p.help_query.value().trim().to_lowercase();
    if q.is_empty() && !p.help_typing {
        return groups;
    }
    let kept: Vec<HelpGroup> = groups
        .into_iter()
        .map(|(title, rows)| {
            let rows = rows
                .into_iter()
                .filter(|(k, d)| k.to_lowercase().contains(&q) || d.to_lowercase().contains(&q))
                .collect::<Vec<_>>();
            (title, rows)
        })
        .filter(|(_, rows)| !rows.is_empty())
        .collect();
    let typed = crate::text::line(p.help_query.value()).into_owned();
    let head = if kept.is_empty() {
        format!("No match /{typed}")
    } else {
        format!("Filter /{typed}")
    };
    let mut out = vec![(
        head,
        vec![("Esc".to_string(), "clear the filter".to_string())],
    )];
    out.extend(kept);
    out
}
