//! The console side of `callback-destinations`' provider deployments (read-only: what a callback
//! is created on).
use ratatui::text::Line;

use super::kit::ViewCtx;
use crate::api::model::DeploymentPreview;
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use crate::resource::provider_deployments::{PROVIDER_DEPLOYMENTS, ProviderDeployments};

impl super::DetailView for ProviderDeployments {
    fn detail(item: &DeploymentPreview, ctx: &ViewCtx) -> Vec<Line<'static>> {
        super::described::detail(&PROVIDER_DEPLOYMENTS, item, ctx)
    }

    fn dialog(_action: Action, _item: Option<&DeploymentPreview>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}
