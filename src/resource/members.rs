//! Organization members, with the teams each belongs to.
use std::fmt::Write as _;

use super::width::Width;
use super::{Column, DASH, Description, SortKey, absolute};
use crate::api::model::Member;

/// A column of this resource.
type C = Column<Member>;

/// Members.
pub static MEMBERS: Description<Member> = Description {
    name: "members",
    aliases: &["members", "member"],
    id_prefix: "om_",
    columns: &[
        C::new("Name", Width::identifying(8, 40), |m, _| {
            m.display_name().to_string()
        })
        .sort(|m, _| SortKey::text(m.display_name())),
        C::new("Email", Width::flexible(10, 40), |m, _| {
            m.contact_email().unwrap_or(DASH).to_string()
        })
        .sort(|m, _| SortKey::text(m.contact_email().unwrap_or_default())),
        C::new("Role", Width::fixed(6), |m, _| m.role.to_string())
            .sort(|m, _| SortKey::text(m.role.as_str())),
        C::new("Teams", Width::flexible(10, 44).optional(2), |m, _| {
            teams(m)
        })
        .sort(|m, _| SortKey::text(&teams(m))),
        C::new("Last active", Width::fixed(11), |m, c| {
            m.last_active_at
                .as_ref()
                .map_or_else(|| DASH.into(), |t| c.when(t))
        })
        .sort(|m, _| m.last_active_at.map_or(SortKey::Missing, SortKey::Time))
        .also(|m, _| m.last_active_at.as_ref().map(absolute).unwrap_or_default()),
        C::new("Actor", Width::flexible(10, 32).optional(3), |m, _| {
            m.actor_id.clone()
        })
        .sort(|m, _| SortKey::text(&m.actor_id))
        .muted(),
        C::new("ID", Width::flexible(10, 32).optional(1), |m, _| {
            m.id.clone()
        })
        .sort(|m, _| SortKey::text(&m.id))
        .muted(),
    ],
    fields: &[],
};

/// A member's team names, as many as fit a list cell and then `+N`; `-` for none, `?` when the
/// server does not say (no `actor`).
fn teams(m: &Member) -> String {
    const ROOM: usize = 44;
    if m.actor.is_none() {
        return "?".into();
    }
    let teams = m.teams();
    let mut out = String::new();
    for (i, t) in teams.iter().enumerate() {
        let sep = if out.is_empty() { "" } else { ", " };
        if !out.is_empty() && out.chars().count() + sep.len() + t.name.chars().count() > ROOM {
            let _ = write!(out, ", +{}", teams.len() - i);
            return out;
        }
        out.push_str(sep);
        out.push_str(&t.name);
    }
    if out.is_empty() { "-".into() } else { out }
}
