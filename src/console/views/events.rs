//! Events (read-only).
use ratatui::text::Line;

use super::kit::ViewCtx;
use crate::api::model::Event;
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use crate::resource::events::{EVENTS, Events};

impl super::DetailView for Events {
    fn detail(item: &Event, ctx: &ViewCtx) -> Vec<Line<'static>> {
        super::described::detail(&EVENTS, item, ctx)
    }

    fn dialog(_action: Action, _item: Option<&Event>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}
