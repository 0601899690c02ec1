//! Semantic actions bound to keys through one table; help and footer hints are generated from it.
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::tab::Tab;

/// Something the user can ask for, independent of the key that asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
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
    /// New item (form).
    Create,
    /// Edit the item (form).
    Edit,
    /// Delete the item (confirmation).
    Delete,
    /// Team: set a project's roles.
    SetProject,
    /// Team: remove a project.
    RemoveProject,
    /// Team: add a member.
    AddMember,
    /// Team: remove a member.
    RemoveMember,
    /// Follow a webhook: cross-navigation, filter, watch, reveal.
    Deliver(super::deliveries::DeliveryKey),
}

impl Action {
    /// One line for the help screen.
    pub fn describe(self) -> &'static str {
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
            Action::GoTab(Tab::Teams) => "Teams tab",
            Action::GoTab(Tab::Imports) => "Imports tab",
            Action::GoTab(Tab::Callbacks) => "Callbacks tab",
            Action::GoTab(Tab::Destinations) => "Destinations tab",
            Action::GoTab(Tab::Notifications) => "Notifications tab",
            Action::Create => "create",
            Action::Edit => "edit",
            Action::Delete => "delete",
            Action::SetProject => "team: set a project's roles",
            Action::RemoveProject => "team: remove a project",
            Action::AddMember => "team: add a member",
            Action::RemoveMember => "team: remove a member",
            Action::Deliver(k) => k.describe(),
        }
    }

    /// A word for the footer.
    pub fn hint(self) -> &'static str {
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
            Action::Create => "new",
            Action::Edit => "edit",
            Action::Delete => "delete",
            Action::SetProject | Action::RemoveProject => "project",
            Action::AddMember | Action::RemoveMember => "member",
            Action::Deliver(k) => k.hint(),
        }
    }
}

/// The help row a write action shares with its kin: (the group, its description).
fn write_group(a: Action) -> Option<(&'static [Action], &'static str)> {
    const ITEM: &[Action] = &[Action::Create, Action::Edit, Action::Delete];
    const TEAM: &[Action] = &[
        Action::SetProject,
        Action::RemoveProject,
        Action::AddMember,
        Action::RemoveMember,
    ];
    if ITEM.contains(&a) {
        Some((ITEM, "create, edit, delete"))
    } else if TEAM.contains(&a) {
        Some((TEAM, "team: set/remove project, add/remove member"))
    } else {
        None
    }
}

/// A key with its modifiers, as bound in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeySpec {
    /// The key.
    pub code: KeyCode,
    /// Modifiers that must be held (Shift is implied by the character for letters).
    pub mods: KeyModifiers,
}

impl KeySpec {
    /// A key without modifiers.
    pub const fn plain(code: KeyCode) -> Self {
        Self {
            code,
            mods: KeyModifiers::NONE,
        }
    }

    /// A character key.
    pub const fn ch(c: char) -> Self {
        Self::plain(KeyCode::Char(c))
    }

    /// Whether an event is this key. Shift is ignored for characters and Back-Tab, since
    /// terminals differ in whether they report it.
    pub fn matches(&self, ev: &KeyEvent) -> bool {
        let relevant = KeyModifiers::CONTROL | KeyModifiers::ALT;
        let same_code = match (self.code, ev.code) {
            (KeyCode::Char(a), KeyCode::Char(b)) => a == b,
            (a, b) => a == b,
        };
        same_code && (ev.modifiers & relevant) == (self.mods & relevant)
    }

    /// How the key is written in help and footer: `j`, `↓`, `PgDn`, `Ctrl-C`.
    pub fn label(&self) -> String {
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

/// Where the user is, which decides the footer hints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// A list has the focus.
    List,
    /// A detail pane has the focus.
    Detail,
    /// The help overlay is open.
    Help,
}

/// The key table: an ordered list of (key, action). Earlier bindings win.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keymap {
    bindings: Vec<(KeySpec, Action)>,
}

impl Default for Keymap {
    fn default() -> Self {
        use KeyCode::*;
        let mut b = vec![
            (KeySpec::ch('q'), Action::Quit),
            (KeySpec::ch('?'), Action::Help),
            (KeySpec::plain(Esc), Action::Back),
            (KeySpec::plain(Enter), Action::Open),
            (KeySpec::ch('j'), Action::Down),
            (KeySpec::plain(Down), Action::Down),
            (KeySpec::ch('k'), Action::Up),
            (KeySpec::plain(Up), Action::Up),
            (KeySpec::ch('g'), Action::First),
            (KeySpec::plain(Home), Action::First),
            (KeySpec::ch('G'), Action::Last),
            (KeySpec::plain(End), Action::Last),
            (KeySpec::ch(']'), Action::NextPage),
            (KeySpec::plain(PageDown), Action::NextPage),
            (KeySpec::ch('['), Action::PrevPage),
            (KeySpec::plain(PageUp), Action::PrevPage),
            (KeySpec::ch('o'), Action::ToggleOrder),
            (KeySpec::ch('r'), Action::Reload),
            (KeySpec::plain(Tab), Action::NextTab),
            (KeySpec::plain(BackTab), Action::PrevTab),
            (KeySpec::ch('c'), Action::Create),
            (KeySpec::ch('e'), Action::Edit),
            (KeySpec::ch('d'), Action::Delete),
            (KeySpec::ch('p'), Action::SetProject),
            (KeySpec::ch('x'), Action::RemoveProject),
            (KeySpec::ch('m'), Action::AddMember),
            (KeySpec::ch('M'), Action::RemoveMember),
        ];
        for (i, tab) in super::tab::Tab::ALL.iter().enumerate() {
            let digit = char::from_digit(i as u32 + 1, 10).unwrap_or('?');
            b.push((KeySpec::ch(digit), Action::GoTab(*tab)));
        }
        for k in super::deliveries::DeliveryKey::ALL {
            b.push((KeySpec::ch(k.default_char()), Action::Deliver(k)));
        }
        Self { bindings: b }
    }
}

impl Keymap {
    /// Binds a key to an action, ahead of any existing binding of that key.
    pub fn bind(&mut self, key: KeySpec, action: Action) {
        self.bindings.retain(|(k, _)| *k != key);
        self.bindings.insert(0, (key, action));
    }

    /// The action a key press asks for, if any.
    pub fn action_for(&self, ev: &KeyEvent) -> Option<Action> {
        if ev.kind == KeyEventKind::Release {
            return None;
        }
        self.bindings
            .iter()
            .find(|(k, _)| k.matches(ev))
            .map(|(_, a)| *a)
    }

    /// Every key bound to an action, in table order.
    pub fn keys_for(&self, action: Action) -> Vec<KeySpec> {
        self.bindings
            .iter()
            .filter(|(_, a)| *a == action)
            .map(|(k, _)| *k)
            .collect()
    }

    /// `j/↓` — all keys of an action joined with slashes.
    pub fn label_for(&self, action: Action) -> String {
        self.keys_for(action)
            .iter()
            .map(KeySpec::label)
            .collect::<Vec<_>>()
            .join("/")
    }

    /// Help rows: (keys, description), one per action, in table order.
    pub fn help_rows(&self) -> Vec<(String, &'static str)> {
        let mut seen: Vec<Action> = Vec::new();
        let mut rows = Vec::new();
        for (_, a) in &self.bindings {
            if let Action::GoTab(_) = a {
                // One row for all tab jumps keeps the help within 24 lines.
                if !seen.iter().any(|s| matches!(s, Action::GoTab(_))) {
                    let keys: Vec<String> = Tab::ALL
                        .iter()
                        .map(|t| self.label_for(Action::GoTab(*t)))
                        .collect();
                    rows.push((keys.join("/"), "jump to a tab"));
                }
            } else if let Some((group, text)) = write_group(*a) {
                // Write keys share rows too, for the same reason.
                if !seen.iter().any(|s| group.contains(s)) {
                    let keys: Vec<String> = group.iter().map(|g| self.label_for(*g)).collect();
                    rows.push((keys.join("/"), text));
                }
            } else if let Action::Deliver(_) = a {
                // Likewise one row for the delivery keys.
                if !seen.iter().any(|s| matches!(s, Action::Deliver(_))) {
                    rows.push((
                        super::deliveries::keys::help_keys(self),
                        super::deliveries::keys::HELP,
                    ));
                }
            } else if !seen.contains(a) {
                rows.push((self.label_for(*a), a.describe()));
            }
            seen.push(*a);
        }
        rows.push(("Ctrl-C".into(), "quit, always"));
        rows
    }

    /// Footer hints for a context: (keys, word). Pairs of actions share one hint.
    pub fn footer(&self, ctx: Context) -> Vec<(String, &'static str)> {
        let groups: &[&[Action]] = match ctx {
            Context::List => &[
                &[Action::Down, Action::Up],
                &[Action::Open],
                &[Action::NextPage, Action::PrevPage],
                &[Action::ToggleOrder],
                &[Action::Reload],
                &[Action::NextTab],
                &[Action::Help],
                &[Action::Quit],
            ],
            Context::Detail => &[
                &[Action::Down, Action::Up],
                &[Action::Back],
                &[Action::Reload],
                &[Action::Help],
                &[Action::Quit],
            ],
            Context::Help => &[&[Action::Help], &[Action::Back]],
        };
        groups
            .iter()
            .filter_map(|g| {
                let first = g.first()?;
                // Only the first key of each action keeps the footer short.
                let keys: Vec<String> = g
                    .iter()
                    .filter_map(|a| self.keys_for(*a).first().map(KeySpec::label))
                    .collect();
                (!keys.is_empty()).then(|| (keys.join("/"), first.hint()))
            })
            .collect()
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
        assert!(
            km.help_rows()
                .iter()
                .any(|(k, d)| k == "x/r" && *d == "reload")
        );
    }
}
