//! The console side of `callback-destinations`' deployment callbacks (read-only here; the headless
//! verbs write them).
use ratatui::text::Line;

use super::kit::ViewCtx;
use crate::api::model::DeploymentCallback;
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use crate::resource::deployment_callbacks::{DEPLOYMENT_CALLBACKS, DeploymentCallbacks};

impl super::DetailView for DeploymentCallbacks {
    fn detail(item: &DeploymentCallback, ctx: &ViewCtx) -> Vec<Line<'static>> {
        super::described::detail(&DEPLOYMENT_CALLBACKS, item, ctx)
    }

    fn dialog(_action: Action, _item: Option<&DeploymentCallback>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}
