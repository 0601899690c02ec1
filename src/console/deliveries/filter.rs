//! The notification filter dialog: callbacks and destinations picked by name (type to search,
//! Space to choose several), events by id, sent as the API's Union filters. Text is edited with
//! the same keys as every form field (`console::input`: Ctrl-U, Ctrl-W, Ctrl-A/E, …).
use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyEvent};
use tui_input::Input;

use crate::api::NotificationFilter;
use crate::api::model::Destination;
use crate::console::forms::picker::{Items, PickItem, Picker};
use crate::console::input::edit;

/// The dialog's fields, in tab order.
pub(crate) const FIELDS: [&str; 3] = ["Callbacks", "Event ids", "Destinations"];

/// The filter dialog's model.
#[derive(Debug, Clone)]
pub(crate) struct FilterDialog {
    /// Callbacks: a multi-select by name (typed ids are taken as they are while names load).
    pub(crate) callbacks: Picker,
    /// Event ids, separated by commas or spaces.
    pub(crate) events: Input,
    /// Destinations: a multi-select by name.
    pub(crate) destinations: Picker,
    /// The field being edited.
    pub(crate) focus: usize,
}

impl PartialEq for FilterDialog {
    fn eq(&self, other: &Self) -> bool {
        self.callbacks == other.callbacks
            && self.events.value() == other.events.value()
            && self.destinations == other.destinations
            && self.focus == other.focus
    }
}

impl Default for FilterDialog {
    fn default() -> Self {
        Self {
            callbacks: Picker::loading(true),
            events: Input::default(),
            destinations: Picker::loading(true),
            focus: 0,
        }
    }
}

/// Ids in a field: split on commas and whitespace, empty parts dropped, duplicates removed.
pub(crate) fn split_ids(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for id in text.split(|c: char| c == ',' || c.is_whitespace()) {
        if !id.is_empty() && !out.iter().any(|o| o == id) {
            out.push(id.to_string());
        }
    }
    out
}

/// Ids without repeats, in order.
fn dedup(ids: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for id in ids {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
}

/// What a key did in the dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Still editing.
    Editing,
    /// Apply the filter.
    Apply,
    /// Close without applying.
    Cancel,
}

impl FilterDialog {
    /// A dialog showing the current filter; callbacks and destinations become choices.
    pub(crate) fn from_filter(f: &NotificationFilter) -> Self {
        let mut d = Self::default();
        d.callbacks.chosen.clone_from(&f.callback_ids);
        d.destinations.chosen.clone_from(&f.destination_ids);
        d.events = Input::new(f.event_ids.join(", "));
        d
    }

    /// Offers the known callbacks (id, name) and destinations as choices.
    pub(crate) fn offer(
        &mut self,
        callbacks: &[(String, String)],
        destinations: &BTreeMap<String, Destination>,
    ) {
        let items = callbacks
            .iter()
            .map(|(id, name)| PickItem {
                id: id.clone(),
                label: if name.is_empty() {
                    id.clone()
                } else {
                    name.clone()
                },
                detail: id.clone(),
            })
            .collect();
        self.callbacks.items = Items::Ready(items);
        let items = destinations
            .values()
            .map(|d| PickItem {
                id: d.id.clone(),
                label: d.name.clone(),
                detail: d.id.clone(),
            })
            .collect();
        self.destinations.items = Items::Ready(items);
    }

    /// The filter the dialog describes.
    pub(crate) fn to_filter(&self) -> NotificationFilter {
        NotificationFilter {
            callback_ids: dedup(self.callbacks.values()),
            event_ids: split_ids(self.events.value()),
            destination_ids: dedup(self.destinations.values()),
            ..NotificationFilter::default()
        }
    }

    /// Applies a key: Tab/Shift-Tab move between fields, Enter applies, Esc cancels; in a
    /// picker the arrows move and Space chooses; everything else edits the text.
    pub(crate) fn on_key(&mut self, key: &KeyEvent) -> Outcome {
        match key.code {
            KeyCode::Esc => return Outcome::Cancel,
            KeyCode::Enter => return Outcome::Apply,
            KeyCode::Tab => self.move_focus(true),
            KeyCode::BackTab => self.move_focus(false),
            _ => {
                let picker = match self.focus {
                    0 => Some(&mut self.callbacks),
                    2 => Some(&mut self.destinations),
                    _ => None,
                };
                match (picker, key.code) {
                    (Some(p), _) => {
                        let was = p.chosen.len();
                        p.handle_key(key);
                        // A choice made: the search is done, the next one starts afresh.
                        if p.chosen.len() != was {
                            p.search = Input::default();
                        }
                    }
                    (None, KeyCode::Down) => self.move_focus(true),
                    (None, KeyCode::Up) => self.move_focus(false),
                    (None, _) => {
                        edit(&mut self.events, key);
                    }
                }
            }
        }
        Outcome::Editing
    }

    /// Pasted text for the focused field: a picker's search or the event ids.
    pub(crate) fn paste(&mut self, text: &str) {
        match self.focus {
            0 => self.callbacks.paste(text),
            2 => self.destinations.paste(text),
            _ => crate::console::input::paste(&mut self.events, text),
        }
    }

    /// Moves to the next (or previous) field, wrapping.
    pub(crate) fn move_focus(&mut self, forward: bool) {
        let n = FIELDS.len();
        self.focus = if forward {
            (self.focus + 1) % n
        } else {
            (self.focus + n - 1) % n
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    fn typed(d: &mut FilterDialog, text: &str) {
        for c in text.chars() {
            d.on_key(&KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        }
    }

    #[test]
    fn ids_split_on_commas_and_spaces_and_ctrl_u_clears() {
        assert_eq!(split_ids(" a, b  c,,a "), vec!["a", "b", "c"]);
        let mut d = FilterDialog::default();
        typed(&mut d, "cb_1,cb_2");
        d.move_focus(true);
        typed(&mut d, "zzz");
        d.on_key(&KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
        typed(&mut d, "ev_1");
        d.move_focus(true);
        typed(&mut d, "x");
        let f = d.to_filter();
        assert_eq!(f.callback_ids, vec!["cb_1", "cb_2"]);
        assert_eq!(f.event_ids, vec!["ev_1"]);
        assert_eq!(f.destination_ids, vec!["x"]);
    }
}
