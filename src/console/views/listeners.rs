//! Listeners (read-only here; headless creates and changes them).
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

    fn dialog(_action: Action, _item: Option<&Listener>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}
