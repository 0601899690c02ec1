//! Provider auth imports: read here; an import is not changed (import again).
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

    fn dialog(_action: Action, _item: Option<&AuthImport>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}
