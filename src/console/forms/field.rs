//! One form field: its kind (text, masked text, lines, choice, picker), value, and messages.
use crossterm::event::{KeyCode, KeyEvent};
use tui_input::Input;

use super::picker::Picker;
use crate::console::input::{edit, paste};

/// Checks a text value as it is typed: `Ok(note)` shows a note (e.g. a resolved time), `Err` an
/// inline error.
pub(crate) type Check = fn(&str) -> Result<Option<String>, String>;

/// Characters of a value every form shows whole (a 40-column terminal's form, less its label).
const SHORT: usize = 19;

/// What a field holds and how it is edited.
#[derive(Clone)]
pub(crate) enum FieldKind {
    /// One line of text; `masked` shows bullets instead of the characters (tokens).
    Text {
        /// The editor.
        input: Input,
        /// Draw bullets, never the text.
        masked: bool,
    },
    /// Several lines (`key=value` metadata): finished lines plus the line being typed.
    Lines {
        /// Lines above the one being typed.
        done: Vec<String>,
        /// The line being typed.
        input: Input,
    },
    /// One of a few options, switched with Space or the arrows.
    Choice {
        /// The labels.
        options: Vec<&'static str>,
        /// The chosen one.
        index: usize,
    },
    /// A searchable list of items to pick one or several from.
    Picker(Picker),
}

/// A labelled field with its messages.
#[derive(Clone)]
pub(crate) struct Field {
    /// The label shown.
    pub(crate) label: &'static str,
    /// The request body key, for mapping the server's `errors[].path`.
    pub(crate) key: &'static str,
    /// Other names the server uses for this field (a 404's `entity`).
    pub(crate) entities: &'static [&'static str],
    /// Whether a value is required.
    pub(crate) required: bool,
    /// The editor.
    pub(crate) kind: FieldKind,
    /// Problem shown beside the field (inline check or the server's).
    pub(crate) error: Option<String>,
    /// A neutral note shown beside the field (a resolved time, "empty keeps it").
    pub(crate) note: Option<String>,
    /// Format check run on every change.
    pub(crate) check: Option<Check>,
    /// Shown but never edited (what an edit cannot change, e.g. a destination's URL).
    pub(crate) read_only: bool,
    /// The value when the dialog opened, for "anything typed?".
    initial: String,
}

impl Field {
    fn with_kind(label: &'static str, key: &'static str, kind: FieldKind) -> Self {
        let mut f = Self {
            label,
            key,
            entities: &[],
            required: false,
            kind,
            error: None,
            note: None,
            check: None,
            read_only: false,
            initial: String::new(),
        };
        f.initial = f.fingerprint();
        f
    }

    /// A text field holding `value`: the cursor at its end, or at its start when the value is
    /// longer than the narrowest form shows, so that an edit form opens on its beginning.
    pub(crate) fn text(label: &'static str, key: &'static str, value: &str) -> Self {
        let mut input = Input::new(value.to_string());
        if value.chars().count() > SHORT {
            input = input.with_cursor(0);
        }
        Self::with_kind(
            label,
            key,
            FieldKind::Text {
                input,
                masked: false,
            },
        )
    }

    /// A masked text field, always empty at first (secrets are never shown again).
    pub(crate) fn secret(label: &'static str, key: &'static str) -> Self {
        Self::with_kind(
            label,
            key,
            FieldKind::Text {
                input: Input::default(),
                masked: true,
            },
        )
    }

    /// A several-line field holding `lines`.
    pub(crate) fn lines(label: &'static str, key: &'static str, lines: Vec<String>) -> Self {
        let mut done = lines;
        let last = done.pop().unwrap_or_default();
        Self::with_kind(
            label,
            key,
            FieldKind::Lines {
                done,
                input: Input::new(last),
            },
        )
    }

    /// A choice between `options`, the first chosen.
    pub(crate) fn choice(
        label: &'static str,
        key: &'static str,
        options: Vec<&'static str>,
    ) -> Self {
        Self::with_kind(label, key, FieldKind::Choice { options, index: 0 })
    }

    /// Starts a choice on option `k` (an edit form's current value), not counted as a change.
    pub(crate) fn starting_at(mut self, k: usize) -> Self {
        self.choose(k);
        self.settle();
        self
    }

    /// A picker field.
    pub(crate) fn picker(label: &'static str, key: &'static str, picker: Picker) -> Self {
        Self::with_kind(label, key, FieldKind::Picker(picker))
    }

    /// Marks the field required.
    pub(crate) fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// Sets the format check.
    pub(crate) fn checked(mut self, check: Check) -> Self {
        self.check = Some(check);
        self
    }

    /// Sets the names of 404 entities that belong to this field.
    pub(crate) fn entities(mut self, entities: &'static [&'static str]) -> Self {
        self.entities = entities;
        self
    }

    /// Sets a note.
    pub(crate) fn noted(mut self, note: &str) -> Self {
        self.note = Some(note.to_string());
        self
    }

    /// The trimmed text of a text field (lines joined with newlines); empty for other kinds.
    pub(crate) fn value(&self) -> String {
        match &self.kind {
            FieldKind::Text { input, .. } => input.value().trim().to_string(),
            FieldKind::Lines { .. } => self.lines_value().join("\n"),
            FieldKind::Choice { .. } => String::new(),
            FieldKind::Picker(p) => p.value().unwrap_or_default(),
        }
    }

    /// The non-blank lines of a lines field.
    pub(crate) fn lines_value(&self) -> Vec<String> {
        match &self.kind {
            FieldKind::Lines { done, input } => done
                .iter()
                .map(String::as_str)
                .chain(std::iter::once(input.value()))
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The chosen option of a choice field.
    pub(crate) fn choice_index(&self) -> usize {
        match &self.kind {
            FieldKind::Choice { index, .. } => *index,
            _ => 0,
        }
    }

    /// The picker of a picker field.
    pub(crate) fn picker_ref(&self) -> Option<&Picker> {
        match &self.kind {
            FieldKind::Picker(p) => Some(p),
            _ => None,
        }
    }

    /// The picker of a picker field, mutably.
    pub(crate) fn picker_mut(&mut self) -> Option<&mut Picker> {
        match &mut self.kind {
            FieldKind::Picker(p) => Some(p),
            _ => None,
        }
    }

    /// Whether the field holds no value.
    pub(crate) fn is_empty(&self) -> bool {
        match &self.kind {
            FieldKind::Choice { .. } => false,
            FieldKind::Picker(p) => p.is_empty(),
            _ => self.value().is_empty(),
        }
    }

    /// A summary of the value, compared with the opening one to tell whether anything changed.
    fn fingerprint(&self) -> String {
        match &self.kind {
            FieldKind::Text { input, .. } => input.value().to_string(),
            FieldKind::Lines { done, input } => format!("{}\n{}", done.join("\n"), input.value()),
            FieldKind::Choice { index, .. } => index.to_string(),
            FieldKind::Picker(p) => p.fingerprint(),
        }
    }

    /// Whether the user changed anything here.
    pub(crate) fn is_dirty(&self) -> bool {
        self.fingerprint() != self.initial
    }

    /// Forgets changes for dirty tracking (after lookups pre-select values).
    pub(crate) fn settle(&mut self) {
        self.initial = self.fingerprint();
    }

    /// A field shown for information only: keys never change it.
    pub(crate) fn read_only(mut self) -> Self {
        self.read_only = true;
        self
    }

    /// Applies a key; returns whether it was used.
    pub(crate) fn handle_key(&mut self, key: &KeyEvent) -> bool {
        if self.read_only {
            return false;
        }
        let used = match &mut self.kind {
            FieldKind::Text { input, .. } => edit(input, key),
            FieldKind::Lines { done, input } => edit_lines(done, input, key),
            FieldKind::Choice { options, index } => {
                let n = options.len().max(1);
                match key.code {
                    KeyCode::Char(' ') | KeyCode::Right | KeyCode::Down => {
                        *index = (*index + 1) % n;
                        true
                    }
                    KeyCode::Left | KeyCode::Up => {
                        *index = (*index + n - 1) % n;
                        true
                    }
                    _ => false,
                }
            }
            FieldKind::Picker(p) => p.handle_key(key),
        };
        if used {
            self.revalidate();
        }
        used
    }

    /// Inserts pasted text: one line in a text field or a picker's search, a line each in a
    /// lines field; false for a choice.
    pub(crate) fn paste(&mut self, text: &str) -> bool {
        match &mut self.kind {
            FieldKind::Text { input, .. } => paste(input, text),
            FieldKind::Lines { done, input } => {
                let mut parts = text.split(['\n', '\r']).filter(|l| !l.is_empty());
                if let Some(first) = parts.next() {
                    paste(input, first);
                }
                for line in parts {
                    done.push(input.value().to_string());
                    *input = Input::default();
                    paste(input, line);
                }
            }
            FieldKind::Choice { .. } => return false,
            FieldKind::Picker(p) => p.paste(text),
        }
        self.revalidate();
        true
    }

    /// Picks option `k` of a choice field; whether it was one (and `k` exists).
    pub(crate) fn choose(&mut self, k: usize) -> bool {
        let FieldKind::Choice { options, index } = &mut self.kind else {
            return false;
        };
        if k >= options.len() {
            return false;
        }
        *index = k;
        self.revalidate();
        true
    }

    /// Runs the format check on the current value (clearing a previous server message).
    pub(crate) fn revalidate(&mut self) {
        self.error = None;
        if let Some(check) = self.check {
            let v = self.value();
            if v.is_empty() {
                self.note = None;
                return;
            }
            match check(&v) {
                Ok(note) => self.note = note,
                Err(e) => {
                    self.note = None;
                    self.error = Some(e);
                }
            }
        }
    }
}

/// Edits a lines field: Backspace at the start of a line joins it to the one above.
fn edit_lines(done: &mut Vec<String>, input: &mut Input, key: &KeyEvent) -> bool {
    if key.code == KeyCode::Backspace
        && input.cursor() == 0
        && let Some(prev) = done.pop()
    {
        let joined = format!("{prev}{}", input.value());
        *input = Input::new(joined).with_cursor(prev.chars().count());
        return true;
    }
    edit(input, key)
}

/// Starts a new line in a lines field (Enter there); returns false for other kinds.
pub(crate) fn new_line(field: &mut Field) -> bool {
    match &mut field.kind {
        FieldKind::Lines { done, input } => {
            done.push(input.value().to_string());
            *input = Input::default();
            true
        }
        _ => false,
    }
}

impl PartialEq for Field {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
            && self.fingerprint() == other.fingerprint()
            && self.error == other.error
            && self.note == other.note
    }
}

// Masked fields hold tokens: Debug shows only their length.
impl std::fmt::Debug for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let value = match &self.kind {
            FieldKind::Text {
                masked: true,
                input,
            } => format!("<{} hidden characters>", input.value().chars().count()),
            FieldKind::Choice { options, index } => {
                options.get(*index).copied().unwrap_or("").to_string()
            }
            _ => self.value(),
        };
        f.debug_struct("Field")
            .field("key", &self.key)
            .field("value", &value)
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}
