//! Mouse: a click on a tab opens it, a click on a row selects it (a second click opens it), a
//! click on a confirmation's No / Yes answers it, a click in a form focuses a field (picks a
//! choice's option) or saves or cancels through the keys shown at its foot, the wheel scrolls.
//! Off when the config says `mouse = false`. An event reaches these through `Layer::mouse`: the
//! confirmation's and the form's clicks, then the tab's.
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

use super::keymap::{Action, Input};
use super::layout;
use super::msg::{Effect, Step};
use super::state::State;
use super::tab::Tab;

/// The tab whose header label is at column `x`, as the header draws the labels now.
pub(crate) fn tab_at(state: &State, x: u16) -> Option<Tab> {
    super::tab::labels(&state.shown, state.tab, state.size.0)
        .into_iter()
        .find(|(_, _, span)| span.contains(&x))
        .map(|(tab, ..)| tab)
}

/// Applies a mouse event to the tab (the layers over it took theirs before, `Layer::mouse`).
pub(crate) fn on_mouse(state: &mut State, ev: MouseEvent) -> Step {
    match ev.kind {
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
            let down = ev.kind == MouseEventKind::ScrollDown;
            if super::power::raw::scroll(&mut state.power, &state.core, down) {
                return Step::default();
            }
            Step::then(Vec::new(), if down { Action::Down } else { Action::Up })
        }
        MouseEventKind::Down(MouseButton::Left) => click(state, ev.column, ev.row),
        _ => Step::default(),
    }
}

/// The key a click on a confirmation's No or Yes button stands for (`n`, `y`), which the
/// confirmation's layer answers; `None` for any other click.
pub(crate) fn confirm_key(state: &State, ev: MouseEvent) -> Option<Input> {
    if ev.kind != MouseEventKind::Down(MouseButton::Left) {
        return None;
    }
    let screen = Rect::new(0, 0, state.size.0, state.size.1);
    let at = Position::new(ev.column, ev.row);
    let c = state.confirm.as_ref()?;
    let (no, yes) = super::confirm::buttons(screen, c, &state.settings.theme)?;
    let answer = if yes.contains(at) {
        'y'
    } else if no.contains(at) {
        'n'
    } else {
        return None;
    };
    Some(
        state
            .settings
            .keymap
            .input(KeyEvent::new(KeyCode::Char(answer), KeyModifiers::NONE)),
    )
}

/// A click in a form goes to [`super::forms::update::click`].
pub(crate) fn dialog_click(state: &mut State, ev: MouseEvent) -> Vec<Effect> {
    if ev.kind != MouseEventKind::Down(MouseButton::Left) {
        return Vec::new();
    }
    let screen = Rect::new(0, 0, state.size.0, state.size.1);
    let at = Position::new(ev.column, ev.row);
    let Some(d) = state.forms.dialog.as_ref() else {
        return Vec::new();
    };
    match super::forms::view::hit(screen, d, &state.settings.theme, at) {
        Some(hit) => {
            let asking = super::forms::Asking {
                mode: state.power.confirm,
                switching: state.power.switching.as_deref(),
            };
            super::forms::update::click(&mut state.forms, &mut state.core, asking, hit)
        }
        None => Vec::new(),
    }
}

fn click(state: &mut State, x: u16, y: u16) -> Step {
    if y == 0
        && let Some(tab) = tab_at(state, x)
    {
        state.power.raw = None;
        return Step::then(Vec::new(), Action::GoTab(tab));
    }
    if state.power.raw.is_some() {
        return Step::default();
    }
    let screen = Rect::new(0, 0, state.size.0, state.size.1);
    let Some(list_area) = layout::areas(screen, state.tab, state.current().detail.is_some()).list
    else {
        return Step::default();
    };
    let rows = super::power::view::data_rows_area(&state.core, list_area);
    if !rows.contains(Position::new(x, y)) {
        return Step::default();
    }
    let list = &state.current().list;
    let index = list.offset + usize::from(y - rows.y);
    if index >= list.shown_len() {
        return Step::default();
    }
    if index == list.cursor && state.current().detail.is_none() {
        return Step::then(Vec::new(), Action::Open);
    }
    state.current_mut().list.cursor = index;
    Step::default()
}
