//! Semantic actions bound to keys through one table; help and footer hints are generated from it.
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::tab::Tab;
use crate::resource::ops::{self, OpId, Verb};

/// Something the user can ask for, independent of the key that asks. The declaration order is
/// [`Action::all`]'s (help and `[keys]` follow it); a variant that carries a value stands for
/// one action per value (each tab, each delivery key, each operation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::EnumIter)]
pub(crate) enum Action {
    /// Leave the console.
    Quit,
    /// Show or hide the help.
    Help,
    /// Close the detail / dialog, or go back one step.
    Back,
    /// Open the detail of the selected row.
    Open,
    /// Cursor (or detail scroll) down.
    Down,
    /// Cursor (or detail scroll) up.
    Up,
    /// First row.
    First,
    /// Last row.
    Last,
    /// Next server page (`after` = last id).
    NextPage,
    /// Previous server page (`before` = first id).
    PrevPage,
    /// Toggle ascending / descending order.
    ToggleOrder,
    /// Reload the list (and the open detail).
    Reload,
    /// Next tab.
    NextTab,
    /// Previous tab.
    PrevTab,
    /// Jump to a tab.
    GoTab(Tab),
    /// Open the `:` command line.
    Command,
    /// Fuzzy-filter the loaded rows (`/`); inside the raw JSON view, search.
    Filter,
    /// Sort the loaded rows by the next column.
    Sort,
    /// Flip the sort direction.
    SortFlip,
    /// Show the selected item's JSON as received.
    RawJson,
    /// Copy the selected id.
    CopyId,
    /// Copy the selected item's JSON.
    CopyJson,
    /// Next search match (raw JSON view).
    NextMatch,
    /// Previous search match (raw JSON view).
    PrevMatch,
    /// A resource's write through a dialog (`resource::ops::Verb`: create, edit, delete, a
    /// team's sub-operations): its key, name and words come from its typed value, and one
    /// binding serves every tab that offers it.
    Write(Verb),
    /// Follow a webhook: cross-navigation, filter, watch, reveal.
    Deliver(super::delivery_key::DeliveryKey),
    /// Replay the notification (or open attempt) to a local receiver.
    Replay,
    /// Mark or unmark the notification row (and move on).
    Mark,
    /// Mark the rows from the one last marked to this one.
    MarkRange,
    /// Mark every loaded row (or clear them when all are marked).
    MarkAll,
    /// Recover in bulk: the selection here (a destination, a callback, the list or its marks).
    Recover,
    /// Forward new deliveries (of this filter, callback or destination) to a local receiver.
    Forward,
    /// Compare the open answer (an attempt, a replay, a forward) with another.
    Compare,
    /// Search the notifications by content (a jq expression), across pages.
    Search,
    /// The action palette: every action available here, fuzzy-filtered.
    Palette,
    /// Edit the recorded body in the operator's editor, replay it signed, compare the answers.
    EditReplay,
    /// List the active alerts.
    Alerts,
    /// The Samples room: the profile's kept samples, sent again or removed.
    Samples,
    /// Keep the notification (or open attempt) as a named sample.
    KeepSample,
    /// An operation of a resource (`resource::ops`): its key, name and place come from it.
    Op(OpId),
}

impl Action {
    /// One line for the help screen.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Action::Quit => "quit",
            Action::Help => "show / hide this help",
            Action::Back => "close the detail, go back",
            Action::Open => "open the selected row's detail",
            Action::Down => "move down",
            Action::Up => "move up",
            Action::First => "first row",
            Action::Last => "last row",
            Action::NextPage => "next page (after the last id)",
            Action::PrevPage => "previous page (before the first id)",
            Action::ToggleOrder => "toggle order: oldest / newest first",
            Action::Reload => "reload",
            Action::NextTab => "next tab",
            Action::PrevTab => "previous tab",
            Action::GoTab(t) => t.tab_help(),
            Action::Write(v) => v.label,
            Action::Deliver(k) => k.describe(),
            Action::Command => "command line (:teams, :goto ID, :profile NAME, :q)",
            Action::Filter => "filter rows of this page / search",
            Action::Sort => "sort by the next column",
            Action::SortFlip => "flip the sort direction",
            Action::RawJson => "raw JSON as received",
            Action::CopyId => "copy id",
            Action::CopyJson => "copy JSON",
            Action::NextMatch => "next match",
            Action::PrevMatch => "previous match",
            Action::Replay => "replay a delivery, signed",
            Action::Recover => "recover… every delivery selected, signed",
            Action::Mark => "mark the row",
            Action::MarkRange => "mark from the last marked row to here",
            Action::MarkAll => "mark all loaded rows (again: clear every mark)",
            Action::Forward => "forward deliveries here",
            Action::Compare => "compare two answers",
            Action::Search => "search deliveries by content (jq), across pages",
            Action::Palette => "action palette: every action here, by name",
            Action::EditReplay => "edit a delivery's body, replay it signed, compare the answers",
            Action::Alerts => "active alerts (the profile's rules, checked again)",
            Action::Samples => "samples: kept deliveries, sent again or removed",
            Action::KeepSample => "keep this delivery as a named sample",
            Action::Op(o) => o.op().map_or("", |o| o.label),
        }
    }

    /// A word for the footer.
    pub(crate) fn hint(self) -> &'static str {
        match self {
            Action::Quit => "quit",
            Action::Help => "help",
            Action::Back => "back",
            Action::Open => "open",
            Action::Down | Action::Up => "move",
            Action::First | Action::Last => "first/last",
            Action::NextPage | Action::PrevPage => "page",
            Action::ToggleOrder => "order",
            Action::Reload => "reload",
            Action::NextTab | Action::PrevTab | Action::GoTab(_) => "tabs",
            Action::Write(v) => v.hint,
            Action::Deliver(k) => k.hint(),
            Action::Command => "cmd",
            Action::Filter => "filter",
            Action::Sort | Action::SortFlip => "sort",
            Action::RawJson => "json",
            Action::CopyId | Action::CopyJson => "copy",
            Action::NextMatch | Action::PrevMatch => "match",
            Action::Replay => "replay",
            Action::Mark => "mark",
            Action::MarkRange | Action::MarkAll => "range/all",
            Action::Recover => "recover…",
            Action::Forward => "forward",
            Action::Compare => "compare",
            Action::Search => "search",
            Action::Palette => "palette",
            Action::EditReplay => "edit+replay",
            Action::Alerts => "alerts",
            Action::Samples => "samples",
            Action::KeepSample => "keep",
            Action::Op(o) => o.op().map_or("", |o| o.hint),
        }
    }

    /// Whether the action changes something on the server: refused and hidden in read-only mode.
    /// Every action has an arm, so a new one says which it is.
    pub(crate) fn is_write(self) -> bool {
        match self {
            Action::Write(v) => v.writes,
            Action::Quit
            | Action::Help
            | Action::Back
            | Action::Open
            | Action::Down
            | Action::Up
            | Action::First
            | Action::Last
            | Action::NextPage
            | Action::PrevPage
            | Action::ToggleOrder
            | Action::Reload
            | Action::NextTab
            | Action::PrevTab
            | Action::GoTab(_)
            | Action::Deliver(_)
            | Action::Command
            | Action::Filter
            | Action::Sort
            | Action::SortFlip
            | Action::RawJson
            | Action::CopyId
            | Action::CopyJson
            | Action::NextMatch
            | Action::PrevMatch
            | Action::Replay
            | Action::Mark
            | Action::MarkRange
            | Action::MarkAll
            | Action::Recover
            | Action::Forward
            | Action::Compare
            | Action::Search
            | Action::Palette
            | Action::EditReplay
            | Action::Alerts
            | Action::Samples
            | Action::KeepSample => false,
            Action::Op(o) => o.op().is_none_or(|o| o.writes),
        }
    }

    /// Every action, in declaration order: a variant that carries a value once per value (every
    /// tab, delivery key and resource operation). Derived from the enum, so no action can be
    /// left out of `[keys]`, help or the footer.
    pub(crate) fn all() -> Vec<Action> {
        use super::delivery_key::DeliveryKey as K;
        use strum::IntoEnumIterator;
        Action::iter()
            .flat_map(|a| match a {
                Action::GoTab(_) => Tab::ALL.map(Action::GoTab).to_vec(),
                Action::Deliver(_) => K::ALL.map(Action::Deliver).to_vec(),
                Action::Op(_) => ops::all().map(|o| Action::Op(o.id())).collect(),
                Action::Write(_) => ops::verbs().into_iter().map(Action::Write).collect(),
                a => vec![a],
            })
            .collect()
    }

    /// The name used in the `[keys]` table of the config.
    pub(crate) fn config_name(self) -> &'static str {
        match self {
            Action::Quit => "quit",
            Action::Help => "help",
            Action::Back => "back",
            Action::Open => "open",
            Action::Down => "down",
            Action::Up => "up",
            Action::First => "first",
            Action::Last => "last",
            Action::NextPage => "next_page",
            Action::PrevPage => "prev_page",
            Action::ToggleOrder => "toggle_order",
            Action::Reload => "reload",
            Action::NextTab => "next_tab",
            Action::PrevTab => "prev_tab",
            Action::GoTab(t) => t.tab_config_name(),
            Action::Command => "command",
            Action::Filter => "filter",
            Action::Sort => "sort",
            Action::SortFlip => "sort_flip",
            Action::RawJson => "raw_json",
            Action::CopyId => "copy_id",
            Action::CopyJson => "copy_json",
            Action::NextMatch => "next_match",
            Action::PrevMatch => "prev_match",
            Action::Write(v) => v.name,
            Action::Deliver(k) => k.config_name(),
            Action::Replay => "replay",
            Action::Mark => "mark",
            Action::MarkRange => "mark_range",
            Action::MarkAll => "mark_all",
            Action::Recover => "recover",
            Action::Forward => "forward",
            Action::Compare => "compare",
            Action::Search => "search",
            Action::Palette => "palette",
            Action::EditReplay => "edit_replay",
            Action::Alerts => "alerts",
            Action::Samples => "samples",
            Action::KeepSample => "keep_sample",
            Action::Op(o) => o.verb,
        }
    }
}

impl Action {
    /// `c`: a new item, on every tab that offers it.
    pub(crate) const CREATE: Action = Action::Write(ops::CREATE);
    /// `e`: the item changed.
    pub(crate) const EDIT: Action = Action::Write(ops::UPDATE);
    /// `d`: the item removed.
    pub(crate) const DELETE: Action = Action::Write(ops::DELETE);
}

/// A key with its modifiers, as bound in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KeySpec {
    /// The key.
    pub(crate) code: KeyCode,
    /// Modifiers that must be held (Shift is implied by the character for letters).
    pub(crate) mods: KeyModifiers,
}

impl KeySpec {
    /// A key without modifiers.
    pub(crate) const fn plain(code: KeyCode) -> Self {
        Self {
            code,
            mods: KeyModifiers::NONE,
        }
    }

    /// A character key.
    pub(crate) const fn ch(c: char) -> Self {
        Self::plain(KeyCode::Char(c))
    }

    /// Whether an event is this key. Shift is ignored for characters and Back-Tab, since
    /// terminals differ in whether they report it.
    pub(crate) fn matches(&self, ev: &KeyEvent) -> bool {
        let relevant = KeyModifiers::CONTROL | KeyModifiers::ALT;
        let same_code = match (self.code, ev.code) {
            (KeyCode::Char(a), KeyCode::Char(b)) => a == b,
            (a, b) => a == b,
        };
        same_code && (ev.modifiers & relevant) == (self.mods & relevant)
    }

    /// How the key is written in help and footer: `j`, `↓`, `PgDn`, `Ctrl-C`.
    pub(crate) fn label(&self) -> String {
        let base = match self.code {
            KeyCode::Char(' ') => "Space".to_string(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Down => "↓".into(),
            KeyCode::Up => "↑".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::PageDown => "PgDn".into(),
            KeyCode::PageUp => "PgUp".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "Shift-Tab".into(),
            KeyCode::F(n) => format!("F{n}"),
            other => format!("{other:?}"),
        };
        if self.mods.contains(KeyModifiers::CONTROL) {
            format!("Ctrl-{base}")
        } else if self.mods.contains(KeyModifiers::ALT) {
            format!("Alt-{base}")
        } else {
            base
        }
    }
}

/// A key press as the rooms see it: the key itself (for text and dialogs) and every action the
/// keymap binds to it, looked up once by the router before any room sees the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Input {
    /// The key.
    pub(crate) key: KeyEvent,
    /// The actions bound to it, the winning binding first.
    actions: Vec<Action>,
}

impl Input {
    /// The action the key asks for, if any.
    pub(crate) fn action(&self) -> Option<Action> {
        self.actions.first().copied()
    }

    /// The first bound action that `wanted` accepts, else the winning one: a room gives its own
    /// actions priority where a key means two things (`N` is a match key in the raw view).
    pub(crate) fn action_among(&self, wanted: impl Fn(Action) -> bool) -> Option<Action> {
        self.actions
            .iter()
            .copied()
            .find(|a| wanted(*a))
            .or_else(|| self.action())
    }

    /// Ctrl-C, which quits from anywhere whatever the keymap says.
    pub(crate) fn is_ctrl_c(&self) -> bool {
        self.key.modifiers.contains(KeyModifiers::CONTROL)
            && matches!(self.key.code, KeyCode::Char('c' | 'C'))
    }
}

impl std::ops::Deref for Input {
    type Target = KeyEvent;

    fn deref(&self) -> &KeyEvent {
        &self.key
    }
}

/// The key table: an ordered list of (key, action). Earlier bindings win.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Keymap {
    bindings: Vec<(KeySpec, Action)>,
    /// Leave write actions out of help and footer (read-only mode); their keys still answer
    /// with a refusal.
    pub(crate) hide_writes: bool,
    /// The tabs shown (the connected generation's): a key bound to another tab does not answer
    /// for it, and help lists only these tabs' keys.
    pub(crate) shown: Vec<super::tab::Tab>,
}

impl Default for Keymap {
    fn default() -> Self {
        let mut b = vec![
            (KeySpec::ch('q'), Action::Quit),
            (KeySpec::ch('?'), Action::Help),
            (KeySpec::plain(KeyCode::Esc), Action::Back),
            (KeySpec::plain(KeyCode::Enter), Action::Open),
            (KeySpec::ch('j'), Action::Down),
            (KeySpec::plain(KeyCode::Down), Action::Down),
            (KeySpec::ch('k'), Action::Up),
            (KeySpec::plain(KeyCode::Up), Action::Up),
            (KeySpec::ch('g'), Action::First),
            (KeySpec::plain(KeyCode::Home), Action::First),
            (KeySpec::ch('G'), Action::Last),
            (KeySpec::plain(KeyCode::End), Action::Last),
            (KeySpec::ch(']'), Action::NextPage),
            (KeySpec::plain(KeyCode::PageDown), Action::NextPage),
            (KeySpec::ch('['), Action::PrevPage),
            (KeySpec::plain(KeyCode::PageUp), Action::PrevPage),
            (KeySpec::ch('o'), Action::ToggleOrder),
            (KeySpec::ch('r'), Action::Reload),
            (KeySpec::plain(KeyCode::Tab), Action::NextTab),
            (KeySpec::plain(KeyCode::BackTab), Action::PrevTab),
        ];
        // The dialog writes, each one binding whichever tabs offer it.
        for v in ops::verbs() {
            b.push((KeySpec::ch(v.key), Action::Write(v)));
        }
        b.extend([
            (KeySpec::ch(':'), Action::Command),
            (KeySpec::ch('/'), Action::Filter),
            (KeySpec::ch('s'), Action::Sort),
            (KeySpec::ch('S'), Action::SortFlip),
            (KeySpec::ch('v'), Action::RawJson),
            (KeySpec::ch('y'), Action::CopyId),
            (KeySpec::ch('Y'), Action::CopyJson),
        ]);
        // 1–9 (and 0 for a tenth) in tab order among its generation's tabs: the same digit
        // names one tab of each generation, and only a shown tab's binding answers (`input`).
        // Past ten, `:` only.
        for tab in super::tab::Tab::ALL {
            let digit = u32::try_from(tab.number())
                .ok()
                .filter(|n| (1..=10).contains(n))
                .and_then(|n| char::from_digit(n % 10, 10));
            if let Some(digit) = digit {
                b.push((KeySpec::ch(digit), Action::GoTab(tab)));
            }
        }
        for k in super::delivery_key::DeliveryKey::ALL {
            b.push((KeySpec::ch(k.default_char()), Action::Deliver(k)));
        }
        b.push((KeySpec::ch('P'), Action::Replay));
        b.push((KeySpec::ch(' '), Action::Mark));
        b.push((KeySpec::ch('V'), Action::MarkRange));
        b.push((KeySpec::ch('*'), Action::MarkAll));
        b.push((KeySpec::ch('b'), Action::Recover));
        b.push((KeySpec::ch('L'), Action::Forward));
        b.push((KeySpec::ch('='), Action::Compare));
        b.push((
            KeySpec {
                code: KeyCode::Char('f'),
                mods: KeyModifiers::CONTROL,
            },
            Action::Search,
        ));
        b.push((
            KeySpec {
                code: KeyCode::Char('p'),
                mods: KeyModifiers::CONTROL,
            },
            Action::Palette,
        ));
        b.push((KeySpec::ch('E'), Action::EditReplay));
        b.push((KeySpec::ch('!'), Action::Alerts));
        b.push((KeySpec::ch('B'), Action::KeepSample));
        b.push((KeySpec::ch('I'), Action::Samples));
        for op in ops::all() {
            b.push((KeySpec::ch(op.key), Action::Op(op.id())));
        }
        // Last, so that elsewhere `N` means a delivery key; views that search ask for these
        // first through `action_among`.
        b.push((KeySpec::ch('n'), Action::NextMatch));
        b.push((KeySpec::ch('N'), Action::PrevMatch));
        Self {
            bindings: b,
            hide_writes: false,
            shown: super::tab::shown_for(crate::api::generation::Generation::Pulsar),
        }
    }
}

impl Keymap {
    /// Binds a key to an action, ahead of any existing binding of that key.
    pub(crate) fn bind(&mut self, key: KeySpec, action: Action) {
        self.bindings.retain(|(k, _)| *k != key);
        self.bindings.insert(0, (key, action));
    }

    /// The action a key press asks for, if any (tests read the bindings through it).
    #[cfg(test)]
    pub(crate) fn action_for(&self, ev: &KeyEvent) -> Option<Action> {
        if ev.kind == KeyEventKind::Release {
            return None;
        }
        self.bindings
            .iter()
            .find(|(k, _)| k.matches(ev))
            .map(|(_, a)| *a)
    }

    /// The key with every action bound to it: the one lookup a key press gets.
    pub(crate) fn input(&self, key: KeyEvent) -> Input {
        let actions = if key.kind == KeyEventKind::Release {
            Vec::new()
        } else {
            self.bindings
                .iter()
                .filter(|(k, _)| k.matches(&key))
                .map(|(_, a)| *a)
                .filter(|a| !matches!(a, Action::GoTab(t) if !self.shown.contains(t)))
                .collect()
        };
        Input { key, actions }
    }

    /// Every key bound to an action, in table order.
    pub(crate) fn keys_for(&self, action: Action) -> Vec<KeySpec> {
        self.bindings
            .iter()
            .filter(|(_, a)| *a == action)
            .map(|(k, _)| *k)
            .collect()
    }

    /// `j/↓` — all keys of an action joined with slashes.
    pub(crate) fn label_for(&self, action: Action) -> String {
        self.keys_for(action)
            .iter()
            .map(KeySpec::label)
            .collect::<Vec<_>>()
            .join("/")
    }
}

impl Action {
    /// The action of a `[keys]` name.
    pub(crate) fn from_config_name(name: &str) -> Option<Action> {
        Action::all().into_iter().find(|a| a.config_name() == name)
    }
}

impl KeySpec {
    /// Parses `x`, `X`, `Ctrl-x`, `Alt-x`, `Enter`, `Esc`, `Tab`, `Shift-Tab`, `Space`, `Up`,
    /// `Down`, `Left`, `Right`, `PgUp`, `PgDn`, `Home`, `End`, `F1`…`F12`, `Del`, `Backspace`.
    pub(crate) fn parse(text: &str) -> Result<KeySpec, String> {
        let t = text.trim();
        let (mods, rest) = if let Some(r) = strip_prefix_ci(t, "ctrl-") {
            (KeyModifiers::CONTROL, r)
        } else if let Some(r) = strip_prefix_ci(t, "alt-") {
            (KeyModifiers::ALT, r)
        } else {
            (KeyModifiers::NONE, t)
        };
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) => KeyCode::Char(if mods.is_empty() {
                c
            } else {
                c.to_ascii_lowercase()
            }),
            _ => match rest.to_ascii_lowercase().as_str() {
                "enter" | "return" => KeyCode::Enter,
                "esc" | "escape" => KeyCode::Esc,
                "tab" => KeyCode::Tab,
                "shift-tab" | "backtab" => KeyCode::BackTab,
                "space" => KeyCode::Char(' '),
                "up" => KeyCode::Up,
                "down" => KeyCode::Down,
                "left" => KeyCode::Left,
                "right" => KeyCode::Right,
                "pgup" | "pageup" => KeyCode::PageUp,
                "pgdn" | "pagedown" => KeyCode::PageDown,
                "home" => KeyCode::Home,
                "end" => KeyCode::End,
                "del" | "delete" => KeyCode::Delete,
                "backspace" => KeyCode::Backspace,
                f if f.starts_with('f') => match f[1..].parse::<u8>() {
                    Ok(n @ 1..=12) => KeyCode::F(n),
                    _ => return Err(format!("unknown key {text:?}")),
                },
                _ => return Err(format!("unknown key {text:?}")),
            },
        };
        Ok(KeySpec { code, mods })
    }
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| s.get(prefix.len()..))
        .flatten()
        .filter(|r| !r.is_empty())
}

impl Keymap {
    /// The default table with the `[keys]` table of the config applied: each named action gets
    /// exactly the keys given (a string or a list of strings), taking them from other actions.
    /// Any mistake rejects the whole table, so that a typo never leaves a half-changed keymap.
    pub(crate) fn from_config(keys: &toml::Table) -> Result<Keymap, String> {
        let mut km = Keymap::default();
        for (name, value) in keys {
            let action = Action::from_config_name(name)
                .ok_or_else(|| format!("[keys]: unknown action {name:?}"))?;
            let texts: Vec<&str> = match value {
                toml::Value::String(s) => vec![s.as_str()],
                toml::Value::Array(a) => a
                    .iter()
                    .map(|v| {
                        v.as_str()
                            .ok_or_else(|| format!("[keys] {name}: keys must be strings"))
                    })
                    .collect::<Result<_, _>>()?,
                _ => return Err(format!("[keys] {name}: a key or a list of keys")),
            };
            let specs = texts
                .iter()
                .map(|t| KeySpec::parse(t).map_err(|e| format!("[keys] {name}: {e}")))
                .collect::<Result<Vec<_>, _>>()?;
            if specs
                .iter()
                .any(|k| k.code == KeyCode::Char('c') && k.mods == KeyModifiers::CONTROL)
            {
                return Err(format!("[keys] {name}: Ctrl-C always quits"));
            }
            km.bindings.retain(|(_, a)| *a != action);
            // Reverse so that the first key given stays first (shown in the footer).
            for k in specs.into_iter().rev() {
                km.bind(k, action);
            }
        }
        Ok(km)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn defaults_cover_issue_keys() {
        let km = Keymap::default();
        let none = KeyModifiers::NONE;
        assert_eq!(
            km.action_for(&key(KeyCode::Char('G'), KeyModifiers::SHIFT)),
            Some(Action::Last)
        );
        assert_eq!(
            km.action_for(&key(KeyCode::BackTab, KeyModifiers::SHIFT)),
            Some(Action::PrevTab)
        );
        assert_eq!(
            km.action_for(&key(KeyCode::Char('3'), none)),
            Some(Action::GoTab(Tab::Callbacks))
        );
        assert_eq!(
            km.action_for(&key(KeyCode::Char('j'), KeyModifiers::CONTROL)),
            None
        );
        assert_eq!(km.label_for(Action::NextPage), "]/PgDn");
    }

    #[test]
    fn rebinding_changes_lookup_and_help() {
        let mut km = Keymap::default();
        km.bind(KeySpec::ch('x'), Action::Reload);
        assert_eq!(
            km.action_for(&key(KeyCode::Char('x'), KeyModifiers::NONE)),
            Some(Action::Reload)
        );
        assert_eq!(
            crate::console::footer::Hint::Action(Action::Reload, "reload").help_row(&km),
            Some(("x/r".into(), "reload".into()))
        );
    }

    #[test]
    fn every_action_has_a_default_key_and_a_name_of_its_own() {
        let km = Keymap::default();
        let mut names = std::collections::BTreeSet::new();
        for a in Action::all() {
            assert!(!km.keys_for(a).is_empty(), "{a:?} has no default key");
            assert!(!a.describe().is_empty() && !a.hint().is_empty(), "{a:?}");
            assert!(
                names.insert(a.config_name()),
                "{} named twice",
                a.config_name()
            );
            assert_eq!(Action::from_config_name(a.config_name()), Some(a));
        }
    }

    #[test]
    fn every_write_a_tab_offers_is_a_bound_action() {
        let km = Keymap::default();
        let all = Action::all();
        for tab in Tab::ALL {
            let listed = tab.writes().iter().map(|v| Action::Write(*v));
            let offered = crate::console::views::write_keys(tab).iter().copied();
            for a in listed.chain(offered) {
                assert!(all.contains(&a), "{tab:?} offers {a:?}, which is no action");
                assert!(!km.keys_for(a).is_empty(), "{tab:?}: {a:?} has no key");
            }
        }
    }

    #[test]
    fn no_default_binding_on_tmux_and_shell_chords() {
        let km = Keymap::default();
        for c in ['a', 'b', 'd', 'k'] {
            assert_eq!(
                km.action_for(&key(KeyCode::Char(c), KeyModifiers::CONTROL)),
                None,
                "Ctrl-{c} is left to tmux and the shell"
            );
        }
        let table: toml::Table = toml::from_str("quit = \"Ctrl-c\"\n").expect("toml");
        assert!(Keymap::from_config(&table).is_err());
    }
}
