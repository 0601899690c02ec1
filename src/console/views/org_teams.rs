//! Teams of the newer generations: their access policies (no project roles).
use ratatui::text::Line;

use super::kit::ViewCtx;
use crate::api::model::PolicyTeam;
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use crate::resource::org_teams::{ORG_TEAMS, OrgTeams};

impl super::DetailView for OrgTeams {
    fn detail(item: &PolicyTeam, ctx: &ViewCtx) -> Vec<Line<'static>> {
        super::described::detail(&ORG_TEAMS, item, ctx)
    }

    fn dialog(_action: Action, _item: Option<&PolicyTeam>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}
