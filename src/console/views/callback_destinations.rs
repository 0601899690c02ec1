//! The console side of `callback-destinations`' callback destinations: create and edit dialogs
//! (the URL editable).
pub(crate) mod dialogs;

use ratatui::text::Line;

use super::kit::ViewCtx;
use crate::api::model::CallbackDestination;
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use crate::resource::callback_destinations::{CALLBACK_DESTINATIONS, CallbackDestinations};

impl super::DetailView for CallbackDestinations {
    fn detail(item: &CallbackDestination, ctx: &ViewCtx) -> Vec<Line<'static>> {
        super::described::detail(&CALLBACK_DESTINATIONS, item, ctx)
    }

    fn write_keys() -> &'static [Action] {
        &[Action::CREATE, Action::EDIT]
    }

    fn dialog(action: Action, item: Option<&CallbackDestination>) -> Option<Dialog> {
        use crate::console::views::callback_destinations::dialogs as f;
        match (action, item) {
            (Action::CREATE, _) => Some(f::create_destination()),
            (Action::EDIT, Some(d)) => Some(f::edit_destination(d)),
            _ => None,
        }
    }

    fn build(d: &mut Dialog) -> Option<WriteOp> {
        crate::console::views::callback_destinations::dialogs::build_destination(d)
    }
}
