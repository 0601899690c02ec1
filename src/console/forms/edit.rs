//! Text editing keys on a one-line `tui-input`, shared by text fields and picker searches.
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_input::{Input, InputRequest};

/// Turns a key into an edit of a one-line input; every printable key is text here.
pub fn edit(input: &mut Input, key: &KeyEvent) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let req = match key.code {
        KeyCode::Char('u') if ctrl => InputRequest::DeleteLine,
        KeyCode::Char('w') if ctrl => InputRequest::DeletePrevWord,
        KeyCode::Char('a') if ctrl => InputRequest::GoToStart,
        KeyCode::Char('e') if ctrl => InputRequest::GoToEnd,
        KeyCode::Char('k') if ctrl => InputRequest::DeleteTillEnd,
        KeyCode::Char(_) if ctrl => return false,
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
