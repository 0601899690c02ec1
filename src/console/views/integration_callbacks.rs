//! Integration callbacks with their sync state (read-only here).
pub(crate) mod dialogs;

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

    fn write_keys() -> &'static [Action] {
        &[Action::CREATE, Action::EDIT, Action::DELETE]
    }

    fn dialog(action: Action, item: Option<&IntegrationCallback>) -> Option<Dialog> {
        use crate::console::views::integration_callbacks::dialogs as f;
        match (action, item) {
            (Action::CREATE, _) => Some(f::create()),
            (Action::EDIT, Some(c)) => Some(f::edit(c)),
            (Action::DELETE, Some(c)) => Some(f::delete(c)),
            _ => None,
        }
    }

    fn build(d: &mut Dialog) -> Option<WriteOp> {
        crate::console::views::integration_callbacks::dialogs::build(d)
    }
}
