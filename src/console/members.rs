//! The organization's members, loaded in the background: a team's detail lists its members and
//! the member dialogs offer only those that apply (`m` the non-members, `M` the members), both
//! read from each member's `actor.teams[]` through `api::members`. Loaded when a team's detail
//! opens, refreshed after a member is added or removed and on reload; never blocks a key.
use super::forms::Dialog;
use super::forms::picker::{Items, PickItem};
use super::msg::{ApiCmd, ApiReply, Effect, Pane};
use super::state::{Core, State, ToastKind};
use crate::api::Error;
use crate::api::members::{non_members, team_members};
use crate::api::model::Member;

/// Asks for the members unless they are loaded or on their way.
pub(crate) fn want(state: &mut Core) -> Vec<Effect> {
    let c = &state.members;
    if c.members.is_some() || c.pending.is_some() {
        return Vec::new();
    }
    refresh(state)
}

/// Asks for the members again (after a change), keeping the old list shown meanwhile.
pub(crate) fn refresh(state: &mut Core) -> Vec<Effect> {
    let req_id = state.next_req_id();
    state.members.pending = Some(req_id);
    vec![Effect::Api {
        req_id,
        pane: Pane::Members,
        cmd: ApiCmd::Members,
    }]
}

/// Whether this reply is the members'.
pub(crate) fn awaits(state: &State, req_id: u64) -> bool {
    state.members.pending == Some(req_id)
}

/// The members arrived (or failed): keep them, and fill an open member dialog still waiting.
pub(crate) fn on_reply(
    state: &mut State,
    req_id: u64,
    result: Result<ApiReply, Error>,
) -> Vec<Effect> {
    if state.members.pending != Some(req_id) {
        return Vec::new();
    }
    state.members.pending = None;
    match result {
        Ok(ApiReply::Members(list)) => {
            state.members.error = None;
            state.members.members = Some(list);
        }
        Ok(_) => state.members.error = Some("unexpected reply".into()),
        Err(e) => {
            state.members.error = Some(e.to_string());
            if state.forms.dialog.as_ref().is_some_and(is_member_dialog) {
                state.toast(ToastKind::Error, "Members could not be listed");
            }
        }
    }
    if let Some(d) = state.forms.dialog.as_mut() {
        fill_dialog(d, &state.core.members);
    }
    Vec::new()
}

fn is_member_dialog(d: &Dialog) -> bool {
    super::views::teams::dialogs::member_dialog_of(d).is_some()
}

/// Puts the members that apply into a member dialog's picker: the team's non-members to add,
/// its members to remove. Without a list, the picker takes a typed id.
pub(crate) fn fill_dialog(d: &mut Dialog, cache: &super::state::MembersCache) {
    let Some((team, adding)) = super::views::teams::dialogs::member_dialog_of(d) else {
        return;
    };
    let team = team.to_string();
    let was_dirty = d
        .fields
        .first()
        .is_some_and(super::forms::field::Field::is_dirty);
    let Some(f) = d.fields.get_mut(0) else {
        return;
    };
    let Some(p) = f.picker_mut() else {
        return;
    };
    p.items = match (&cache.members, &cache.error) {
        (Some(all), _) => {
            let chosen = if adding {
                non_members(all, &team)
            } else {
                team_members(all, &team)
            };
            Items::Ready(chosen.into_iter().map(pick_item).collect())
        }
        (None, Some(e)) => Items::Typed(format!("members not listed ({e}); type the id (oac_…)")),
        (None, None) => Items::Loading,
    };
    // Items arriving are not the user's doing.
    if !was_dirty {
        f.settle();
    }
}

/// A member as a picker row: name, then email and role; the actor id is what is sent.
fn pick_item(m: &Member) -> PickItem {
    let detail = match m.contact_email() {
        Some(e) => format!("{e} · {}", m.role.as_str()),
        None => m.role.as_str().to_string(),
    };
    PickItem {
        id: m.actor_id.clone(),
        label: m.display_name().to_string(),
        detail,
    }
}

/// The members of a team, for its detail: none while the list is not loaded.
pub(crate) fn of_team<'a>(state: &'a State, team_id: &str) -> Option<Vec<&'a Member>> {
    state
        .members
        .members
        .as_deref()
        .map(|all| team_members(all, team_id))
}
