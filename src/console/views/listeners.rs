//! Listeners (read-only here; headless creates and changes them).
pub(crate) mod dialogs;

use ratatui::text::Line;

use super::kit::ViewCtx;
use crate::api::model::Listener;
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use crate::resource::listeners::{LISTENERS, Listeners};

impl super::DetailView for Listeners {
    fn detail(item: &Listener, ctx: &ViewCtx) -> Vec<Line<'static>> {
        super::described::detail(&LISTENERS, item, ctx)
    }

    fn write_keys() -> &'static [Action] {
        &[Action::CREATE, Action::EDIT, Action::DELETE]
    }

    fn dialog(action: Action, item: Option<&Listener>) -> Option<Dialog> {
        use crate::console::views::listeners::dialogs as f;
        match (action, item) {
            (Action::CREATE, _) => Some(f::create()),
            (Action::EDIT, Some(l)) => Some(f::edit(l)),
            (Action::DELETE, Some(l)) => Some(f::delete(l)),
            _ => None,
        }
    }

    fn build(d: &mut Dialog) -> Option<WriteOp> {
        crate::console::views::listeners::dialogs::build(d)
    }
}
