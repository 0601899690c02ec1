//! Teams of the newer generations: their access policies (no project roles), assigned from a
//! picker of the organization's custom policies and removed from a picker of the team's own.
use ratatui::text::Line;

use super::kit::ViewCtx;
use crate::api::model::{PolicyTeam, PolicyType};
use crate::console::forms::Dialog;
use crate::console::forms::field::Field;
use crate::console::forms::ops::{Lookup, WriteOp};
use crate::console::forms::picker::{PickItem, Picker};
use crate::console::keymap::Action;
use crate::resource::Kind;
use crate::resource::org_teams::{ORG_TEAMS, OrgTeams};

impl super::DetailView for OrgTeams {
    fn detail(item: &PolicyTeam, ctx: &ViewCtx) -> Vec<Line<'static>> {
        super::described::detail(&ORG_TEAMS, item, ctx)
    }

    fn op_rank(verb: &str) -> Option<u8> {
        match verb {
            "assign-policy" => Some(6),
            "remove-policy" => Some(7),
            _ => None,
        }
    }

    fn op_form(verb: &str, team: &PolicyTeam) -> Option<super::OpForm> {
        let field = |p| Field::picker("Policy", "access_policy_id", p).required();
        match verb {
            "assign-policy" => Some((
                vec![field(Picker::loading(false))],
                vec![(Lookup::Items(Kind::AccessPolicies), 0)],
            )),
            "remove-policy" => {
                let own = team
                    .policies
                    .iter()
                    .filter(|p| p.kind == PolicyType::Custom)
                    .map(|p| PickItem {
                        id: p.id.clone(),
                        label: p.name.clone(),
                        detail: p.slug.clone().unwrap_or_default(),
                    })
                    .collect();
                Some((vec![field(Picker::ready(false, own))], Vec::new()))
            }
            _ => None,
        }
    }

    fn dialog(_action: Action, _item: Option<&PolicyTeam>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}
