//! Provider auth imports: created from a dialog (the value masked); an import is not changed
//! (import again).
pub(crate) mod dialogs;

use ratatui::text::Line;

use super::kit::ViewCtx;
use crate::api::model::AuthImport;
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use crate::resource::auth_imports::{AUTH_IMPORTS, AuthImports};

impl super::DetailView for AuthImports {
    fn detail(item: &AuthImport, ctx: &ViewCtx) -> Vec<Line<'static>> {
        super::described::detail(&AUTH_IMPORTS, item, ctx)
    }

    fn write_keys() -> &'static [Action] {
        &[Action::CREATE]
    }

    fn not_here(action: Action) -> Option<&'static str> {
        (action == Action::EDIT).then_some("An import cannot be changed here; import again (c).")
    }

    fn dialog(action: Action, _item: Option<&AuthImport>) -> Option<Dialog> {
        (action == Action::CREATE).then(crate::console::views::auth_imports::dialogs::create)
    }

    fn build(d: &mut Dialog) -> Option<WriteOp> {
        crate::console::views::auth_imports::dialogs::build(d)
    }
}
