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

    /// Pulsar's team dialogs (§4 keeps these writes), without project roles.
    fn dialog(action: Action, item: Option<&PolicyTeam>) -> Option<Dialog> {
        use crate::console::views::teams::dialogs as f;
        match (action, item) {
            (Action::CREATE, _) => Some(f::create()),
            (Action::EDIT, Some(t)) => Some(f::edit_of(&t.id, &t.name, t.description.as_deref())),
            (crate::console::views::teams::ADD_MEMBER, Some(t)) => {
                Some(f::add_member_to(&t.id, &t.name))
            }
            (crate::console::views::teams::REMOVE_MEMBER, Some(t)) => {
                Some(f::remove_member_from(&t.id, &t.name))
            }
            _ => None,
        }
    }

    /// The same bodies as pulsar's; the answer is this generation's team.
    fn build(d: &mut Dialog) -> Option<WriteOp> {
        crate::console::views::teams::dialogs::build(d).map(|req| WriteOp::Op(Kind::OrgTeams, req))
    }

    fn write_spec(action: Action) -> crate::console::forms::WriteSpec {
        crate::console::views::teams::dialogs::write_spec(action)
    }

    fn write_place(verb: crate::resource::ops::Verb) -> Option<super::WritePlace> {
        crate::console::views::teams::dialogs::write_place(verb)
    }

    fn confirm_text(d: &Dialog) -> Option<String> {
        member(d).then(|| crate::console::views::teams::dialogs::confirm_text(d))
    }

    fn confirm_name(d: &Dialog) -> Option<String> {
        member(d).then(|| crate::console::views::teams::dialogs::confirm_name(d))
    }
}

/// Whether the dialog's question names the member its picker chose.
fn member(d: &Dialog) -> bool {
    crate::console::views::teams::dialogs::member_dialog_of(d).is_some()
}
