//! The console side of `callback-destinations`' deployment callbacks: create, edit (the
//! destinations set replaced) and delete (archives) dialogs.
pub(crate) mod dialogs;

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

    fn write_keys() -> &'static [Action] {
        &[Action::CREATE, Action::EDIT, Action::DELETE]
    }

    fn follow_keys() -> &'static [Action] {
        &[Action::Deliver(
            crate::console::delivery_key::DeliveryKey::Events,
        )]
    }

    fn dialog(action: Action, item: Option<&DeploymentCallback>) -> Option<Dialog> {
        use crate::console::views::deployment_callbacks::dialogs as f;
        match (action, item) {
            (Action::CREATE, _) => Some(f::create_callback()),
            (Action::EDIT, Some(c)) => Some(f::edit_callback(c)),
            (Action::DELETE, Some(c)) => Some(f::delete_callback(c)),
            _ => None,
        }
    }

    /// The platform archives a deleted callback.
    fn write_spec(action: Action) -> crate::console::forms::WriteSpec {
        match action {
            Action::DELETE => crate::console::forms::WriteSpec::removal("archived"),
            other => crate::console::forms::WriteSpec::standard(other),
        }
    }

    fn build(d: &mut Dialog) -> Option<WriteOp> {
        crate::console::views::deployment_callbacks::dialogs::build_callback(d)
    }
}
