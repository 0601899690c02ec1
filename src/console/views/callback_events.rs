//! Callback events with their received webhook (read-only).
use ratatui::text::Line;

use super::kit::ViewCtx;
use crate::api::model::CallbackEvent;
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use crate::resource::callback_events::{CALLBACK_EVENTS, CallbackEvents};

impl super::DetailView for CallbackEvents {
    fn detail(item: &CallbackEvent, ctx: &ViewCtx) -> Vec<Line<'static>> {
        super::described::detail(&CALLBACK_EVENTS, item, ctx)
    }

    fn dialog(_action: Action, _item: Option<&CallbackEvent>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}
