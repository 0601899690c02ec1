//! The raw JSON view's keys: scrolling, searching, copying, closing.
use crossterm::event::KeyCode;

use super::PowerState;
use crate::console::keymap::{Action, Input};
use crate::console::msg::Step;
use crate::console::state::Core;

/// Lines of the raw view on screen.
pub(crate) fn raw_height(cx: &Core) -> usize {
    usize::from(cx.size.1.saturating_sub(5)).max(1)
}

/// A key while the raw view is open.
pub(crate) fn on_key(room: &mut PowerState, cx: &Core, key: &Input) -> Step {
    let height = raw_height(cx);
    // The view takes the whole width.
    let state_width = cx.size.0;
    let action = key.action_among(|a| matches!(a, Action::NextMatch | Action::PrevMatch));
    let Some(view) = room.raw.as_mut() else {
        return Step::default();
    };
    if view.editing {
        match key.code {
            KeyCode::Esc => {
                view.search.set("");
                view.editing = false;
            }
            KeyCode::Enter => {
                view.editing = false;
                view.current = 0;
                view.show_current(height);
            }
            _ => {
                if view.search.edit(key) {
                    view.current = 0;
                    view.show_current(height);
                }
            }
        }
        return Step::default();
    }
    // Sideways, before the keys' actions (`h`/`l` mean nothing else here).
    let width = usize::from(state_width.saturating_sub(2));
    match key.code {
        KeyCode::Left | KeyCode::Char('h') => view.sideways(false, width),
        KeyCode::Right | KeyCode::Char('l') => view.sideways(true, width),
        _ => {}
    }
    if matches!(
        key.code,
        KeyCode::Left | KeyCode::Right | KeyCode::Char('h' | 'l')
    ) {
        view.clamp(height);
        return Step::default();
    }
    match action {
        Some(Action::Back | Action::RawJson) => room.raw = None,
        Some(Action::Quit) => return Step::then(Vec::new(), Action::Quit),
        Some(Action::Down) => view.scroll = view.scroll.saturating_add(1),
        Some(Action::Up) => view.scroll = view.scroll.saturating_sub(1),
        Some(Action::First) => view.scroll = 0,
        Some(Action::Last) => view.scroll = usize::MAX / 2,
        Some(Action::NextPage) => view.scroll = view.scroll.saturating_add(height),
        Some(Action::PrevPage) => view.scroll = view.scroll.saturating_sub(height),
        Some(Action::Filter) => {
            view.search.set("");
            view.editing = true;
        }
        Some(Action::NextMatch) => {
            view.jump(true, height);
        }
        Some(Action::PrevMatch) => {
            view.jump(false, height);
        }
        Some(a @ (Action::CopyId | Action::CopyJson)) => return Step::then(Vec::new(), a),
        _ => {}
    }
    if let Some(v) = room.raw.as_mut() {
        v.clamp(height);
    }
    Step::default()
}

/// Scrolls the raw view (mouse wheel).
pub(crate) fn scroll(room: &mut PowerState, cx: &Core, down: bool) -> bool {
    let height = raw_height(cx);
    let Some(v) = room.raw.as_mut() else {
        return false;
    };
    v.scroll = if down {
        v.scroll.saturating_add(3)
    } else {
        v.scroll.saturating_sub(3)
    };
    v.clamp(height);
    true
}
