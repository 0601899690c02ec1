//! The console side of `callback-destinations`' callback destinations (read-only here; the headless
//! verbs write them).
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

    fn dialog(_action: Action, _item: Option<&CallbackDestination>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}
