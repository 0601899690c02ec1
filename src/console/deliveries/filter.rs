//! The notification filter dialog: callback, event and destination ids, several each, sent as
//! the API's Union filters.
use crate::api::NotificationFilter;

/// The dialog's fields, in tab order.
pub(crate) const FIELDS: [&str; 3] = ["Callback ids", "Event ids", "Destination ids"];

/// The filter dialog's model: one text per field.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FilterDialog {
    /// Text of each field (ids separated by commas or spaces).
    pub texts: [String; 3],
    /// The field being edited.
    pub focus: usize,
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

impl FilterDialog {
    /// A dialog showing the current filter.
    pub(crate) fn from_filter(f: &NotificationFilter) -> Self {
        Self {
            texts: [
                f.callback_ids.join(", "),
                f.event_ids.join(", "),
                f.destination_ids.join(", "),
            ],
            focus: 0,
        }
    }

    /// The filter the dialog describes.
    pub(crate) fn to_filter(&self) -> NotificationFilter {
        let [c, e, d] = &self.texts;
        NotificationFilter {
            callback_ids: split_ids(c),
            event_ids: split_ids(e),
            destination_ids: split_ids(d),
        }
    }

    /// Types a character into the focused field.
    pub(crate) fn type_char(&mut self, c: char) {
        if let Some(t) = self.texts.get_mut(self.focus) {
            t.push(c);
        }
    }

    /// Deletes the last character of the focused field.
    pub(crate) fn backspace(&mut self) {
        if let Some(t) = self.texts.get_mut(self.focus) {
            t.pop();
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

    #[test]
    fn ids_split_on_commas_and_spaces() {
        assert_eq!(split_ids(" a, b  c,,a "), vec!["a", "b", "c"]);
        let mut d = FilterDialog::default();
        for c in "cb_1,cb_2".chars() {
            d.type_char(c);
        }
        d.move_focus(true);
        d.move_focus(true);
        d.type_char('x');
        let f = d.to_filter();
        assert_eq!(f.callback_ids, vec!["cb_1", "cb_2"]);
        assert!(f.event_ids.is_empty());
        assert_eq!(f.destination_ids, vec!["x"]);
    }
}
