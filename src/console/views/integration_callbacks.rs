//! Integration callbacks with their sync state (read-only here).
use ratatui::text::Line;

use super::kit::ViewCtx;
use crate::api::model::IntegrationCallback;
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use crate::resource::integration_callbacks::{INTEGRATION_CALLBACKS, IntegrationCallbacks};

impl super::DetailView for IntegrationCallbacks {
    fn detail(item: &IntegrationCallback, ctx: &ViewCtx) -> Vec<Line<'static>> {
        super::described::detail(&INTEGRATION_CALLBACKS, item, ctx)
    }

    fn dialog(_action: Action, _item: Option<&IntegrationCallback>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}
