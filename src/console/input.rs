//! The one text input of the console: forms, the filter dialog, `/`, `:`, the replay target and
//! typed confirmations all edit through [`edit`], so `Ctrl-U/W/A/E/K` and pasting behave the
//! same everywhere.
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_input::{Input, InputRequest};

/// Turns a key into an edit of a one-line input; every printable key is text here. Returns
/// whether the key was an edit.
pub(crate) fn edit(input: &mut Input, key: &KeyEvent) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let req = match key.code {
        KeyCode::Char('u') if ctrl => InputRequest::DeleteLine,
        KeyCode::Char('w') if ctrl => InputRequest::DeletePrevWord,
        KeyCode::Char('a') if ctrl => InputRequest::GoToStart,
        KeyCode::Char('e') if ctrl => InputRequest::GoToEnd,
        KeyCode::Char('k') if ctrl => InputRequest::DeleteTillEnd,
        KeyCode::Char(_) if ctrl || key.modifiers.contains(KeyModifiers::ALT) => return false,
        KeyCode::Char(c) => InputRequest::InsertChar(c),
        KeyCode::Backspace => InputRequest::DeletePrevChar,
        KeyCode::Delete => InputRequest::DeleteNextChar,
        KeyCode::Left => InputRequest::GoToPrevChar,
        KeyCode::Right => InputRequest::GoToNextChar,
        KeyCode::Home => InputRequest::GoToStart,
        KeyCode::End => InputRequest::GoToEnd,
        _ => return false,
    };
    input.handle(req);
    true
}

/// Inserts pasted text at the cursor, one line: line breaks and other controls are dropped
/// (a paste never submits anything).
pub(crate) fn paste(input: &mut Input, text: &str) {
    for c in text.chars().filter(|c| !c.is_control()) {
        input.handle(InputRequest::InsertChar(c));
    }
}

/// A one-line editor compared by its text and cursor (so states holding one stay comparable).
#[derive(Debug, Clone, Default)]
pub(crate) struct TextInput(pub Input);

impl PartialEq for TextInput {
    fn eq(&self, other: &Self) -> bool {
        self.0.value() == other.0.value() && self.0.cursor() == other.0.cursor()
    }
}

impl Eq for TextInput {}

impl TextInput {
    /// An editor holding `value`, the cursor at its end.
    pub(crate) fn new(value: impl Into<String>) -> Self {
        Self(Input::new(value.into()))
    }

    /// The text.
    pub(crate) fn value(&self) -> &str {
        self.0.value()
    }

    /// Applies an editing key; whether it was one.
    pub(crate) fn edit(&mut self, key: &KeyEvent) -> bool {
        edit(&mut self.0, key)
    }

    /// Inserts pasted text at the cursor.
    pub(crate) fn paste(&mut self, text: &str) {
        paste(&mut self.0, text);
    }

    /// Replaces the text, the cursor at its end.
    pub(crate) fn set(&mut self, value: impl Into<String>) {
        self.0 = Input::new(value.into());
    }

    /// The text with a bar at the cursor, for one-line prompts.
    pub(crate) fn with_cursor(&self) -> String {
        let v = self.value();
        let at = v
            .char_indices()
            .nth(self.0.cursor())
            .map_or(v.len(), |(i, _)| i);
        format!("{}▏{}", &v[..at], &v[at..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn the_editing_keys() {
        let mut t = TextInput::new("fileshared retrying");
        let ctrl = KeyModifiers::CONTROL;
        assert!(t.edit(&k(KeyCode::Char('w'), ctrl)));
        assert_eq!(t.value(), "fileshared ");
        t.edit(&k(KeyCode::Char('a'), ctrl));
        t.edit(&k(KeyCode::Char('x'), KeyModifiers::NONE));
        assert_eq!(t.with_cursor(), "x▏fileshared ");
        t.edit(&k(KeyCode::Char('k'), ctrl));
        t.edit(&k(KeyCode::Char('e'), ctrl));
        t.paste("a\nb");
        assert_eq!(t.value(), "xab");
        t.edit(&k(KeyCode::Char('u'), ctrl));
        assert_eq!(t.value(), "");
        assert!(
            !t.edit(&k(KeyCode::Char('r'), ctrl)),
            "other chords are not text"
        );
    }
}
