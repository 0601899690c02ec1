//! A searchable picker: items from a lookup, filtered by typing, one or several chosen; when the
//! lookup is refused (403/404) or finds nothing, the typed text is taken as the id.
use crossterm::event::{KeyCode, KeyEvent};
use tui_input::Input;

use crate::console::input::edit;

/// One item to choose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PickItem {
    /// The id sent to the server.
    pub(crate) id: String,
    /// The main text (a name).
    pub(crate) label: String,
    /// Secondary text (an email, permissions).
    pub(crate) detail: String,
}

/// Where the picker's items stand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Items {
    /// The lookup is in flight.
    Loading,
    /// The items are here.
    Ready(Vec<PickItem>),
    /// The lookup failed; the id must be typed (the reason is shown).
    Typed(String),
}

/// A searchable list with a cursor and, for multi-selects, a set of chosen ids.
#[derive(Debug, Clone)]
pub(crate) struct Picker {
    /// Several may be chosen (Space toggles).
    pub(crate) multi: bool,
    /// The items.
    pub(crate) items: Items,
    /// The search text (or the typed id).
    pub(crate) search: Input,
    /// Row under the cursor, within the filtered items.
    pub(crate) cursor: usize,
    /// Chosen ids (multi-selects), in the order chosen.
    pub(crate) chosen: Vec<String>,
}

impl Picker {
    /// A picker waiting for its lookup.
    pub(crate) fn loading(multi: bool) -> Self {
        Self {
            multi,
            items: Items::Loading,
            search: Input::default(),
            cursor: 0,
            chosen: Vec::new(),
        }
    }

    /// A picker with its items already known.
    pub(crate) fn ready(multi: bool, items: Vec<PickItem>) -> Self {
        let mut p = Self::loading(multi);
        p.items = Items::Ready(items);
        p
    }

    /// The items matching the search text (case-insensitive, in id, label or detail).
    pub(crate) fn filtered(&self) -> Vec<&PickItem> {
        let Items::Ready(items) = &self.items else {
            return Vec::new();
        };
        let q = self.search.value().trim().to_lowercase();
        items
            .iter()
            .filter(|i| {
                q.is_empty()
                    || i.label.to_lowercase().contains(&q)
                    || i.detail.to_lowercase().contains(&q)
                    || i.id.to_lowercase().contains(&q)
            })
            .collect()
    }

    /// The single choice: the item under the cursor, else the typed text as an id.
    pub(crate) fn value(&self) -> Option<String> {
        if let Some(item) = self.filtered().get(self.cursor) {
            return Some(item.id.clone());
        }
        let typed = self.search.value().trim();
        (!typed.is_empty()).then(|| typed.to_string())
    }

    /// The chosen ids of a multi-select (plus a typed id when no item matches it).
    pub(crate) fn values(&self) -> Vec<String> {
        let mut v = self.chosen.clone();
        let typed = self.search.value().trim();
        if !matches!(self.items, Items::Ready(_)) || self.filtered().is_empty() {
            v.extend(
                typed
                    .split([',', ' '])
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            );
        }
        v
    }

    /// Whether nothing is chosen.
    pub(crate) fn is_empty(&self) -> bool {
        if self.multi {
            self.values().is_empty()
        } else {
            self.value().is_none()
        }
    }

    /// Summary for dirty tracking.
    pub(crate) fn fingerprint(&self) -> String {
        format!(
            "{}|{}|{}",
            self.search.value(),
            self.chosen.join(","),
            self.cursor
        )
    }

    /// The label of an id, when known.
    pub(crate) fn label_of(&self, id: &str) -> Option<&str> {
        match &self.items {
            Items::Ready(items) => items.iter().find(|i| i.id == id).map(|i| i.label.as_str()),
            _ => None,
        }
    }

    /// Pasted text goes into the search.
    pub(crate) fn paste(&mut self, text: &str) {
        crate::console::input::paste(&mut self.search, text);
        let n = self.filtered().len();
        self.cursor = self.cursor.min(n.saturating_sub(1));
    }

    /// Applies a key: arrows move, Space toggles (multi), everything else edits the search.
    pub(crate) fn handle_key(&mut self, key: &KeyEvent) -> bool {
        let n = self.filtered().len();
        match key.code {
            KeyCode::Down => {
                if n > 0 {
                    self.cursor = (self.cursor + 1).min(n - 1);
                }
                true
            }
            KeyCode::Up => {
                self.cursor = self.cursor.saturating_sub(1);
                true
            }
            KeyCode::Char(' ') if self.multi && n > 0 => {
                let id = self.filtered().get(self.cursor).map(|i| i.id.clone());
                if let Some(id) = id {
                    match self.chosen.iter().position(|c| *c == id) {
                        Some(at) => {
                            self.chosen.remove(at);
                        }
                        None => self.chosen.push(id),
                    }
                }
                true
            }
            _ => {
                let used = edit(&mut self.search, key);
                if used {
                    let n = self.filtered().len();
                    self.cursor = self.cursor.min(n.saturating_sub(1));
                }
                used
            }
        }
    }
}

impl PartialEq for Picker {
    fn eq(&self, other: &Self) -> bool {
        self.multi == other.multi
            && self.items == other.items
            && self.fingerprint() == other.fingerprint()
    }
}
