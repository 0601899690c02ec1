//! Team membership as the platform shows it: each member's embedded `actor` with its `teams[]`.
//!
//! A team record's `members` list is the truth about who belongs; the actor stored inside each
//! member record is a view of it, rewritten at once whenever membership or a team's name changes,
//! so the member list is always served as stored.
use chrono::{DateTime, Utc};

use super::errors::Reply;
use super::ids::{id_at, new_id};
use super::records::{TeamRec, organization_id};
use super::store::{Db, StoreError};
use crate::api::model::{Actor, ActorTeam, ActorType, Member};

/// The actor of a member, with no teams yet (a copy of the member's name, email and avatar).
pub fn base_actor(m: &Member, organization_id: &str) -> Actor {
    Actor {
        object: "organization.actor".into(),
        id: m.actor_id.clone(),
        kind: ActorType::Member,
        organization_id: Some(organization_id.to_string()),
        name: m.name.clone(),
        email: Some(m.email.clone()).filter(|e| !e.is_empty()),
        image_url: m.image_url.clone(),
        teams: Vec::new(),
        created_at: Some(m.created_at),
        updated_at: Some(m.updated_at),
    }
}

/// The teams `actor_id` belongs to, in team id order. Entries already on `old` keep their
/// assignment id and time; new ones get a fresh `tmm_` id stamped `now` (or, with `seeded`, the
/// team's creation time, so seed data looks settled).
fn teams_of(
    actor_id: &str,
    teams: &[TeamRec],
    old: &[ActorTeam],
    now: DateTime<Utc>,
    seeded: bool,
) -> Vec<ActorTeam> {
    teams
        .iter()
        .filter(|t| t.members.iter().any(|m| m == actor_id))
        .map(|t| {
            let kept = old.iter().find(|o| o.id == t.id);
            let (assignment_id, created_at) = match kept {
                Some(o) if !o.assignment_id.is_empty() => {
                    (o.assignment_id.clone(), o.created_at.unwrap_or(now))
                }
                _ if seeded => (id_at("tmm", t.created_at), t.created_at),
                _ => (new_id("tmm"), now),
            };
            ActorTeam {
                id: t.id.clone(),
                name: t.name.clone(),
                slug: t.slug.clone(),
                assignment_id,
                created_at: Some(created_at),
                updated_at: Some(created_at),
            }
        })
        .collect()
}

/// Rewrites the stored actor of each member in `actor_ids` from the team records, with `changed`
/// (a team about to be saved) standing in for its stored version.
pub fn refresh_actors(db: &Db, actor_ids: &[String], changed: Option<&TeamRec>) -> Reply<()> {
    let org = organization_id(db)?;
    let mut teams = db.load_all::<TeamRec>()?;
    if let Some(c) = changed {
        match teams.iter_mut().find(|t| t.id == c.id) {
            Some(slot) => *slot = c.clone(),
            None => teams.push(c.clone()),
        }
    }
    let now = Utc::now();
    for mut m in db.load_all::<Member>()? {
        if actor_ids.contains(&m.actor_id) {
            write_actor(db, &mut m, &org, &teams, now, false)?;
        }
    }
    Ok(())
}

/// Gives every member an up-to-date actor (seed data, and databases written before members
/// carried one).
pub fn refresh_all(db: &Db, seeded: bool) -> Result<(), StoreError> {
    let Some(org) = db.meta("organization_id")? else {
        return Ok(());
    };
    let teams = db.load_all::<TeamRec>()?;
    let now = Utc::now();
    for mut m in db.load_all::<Member>()? {
        let before = m.clone();
        fill_actor(&mut m, &org, &teams, now, seeded);
        if m != before {
            db.save(&m)?;
        }
    }
    Ok(())
}

fn write_actor(
    db: &Db,
    m: &mut Member,
    org: &str,
    teams: &[TeamRec],
    now: DateTime<Utc>,
    seeded: bool,
) -> Result<(), StoreError> {
    fill_actor(m, org, teams, now, seeded);
    db.save(m)
}

fn fill_actor(m: &mut Member, org: &str, teams: &[TeamRec], now: DateTime<Utc>, seeded: bool) {
    if m.organization_id.is_none() {
        m.organization_id = Some(org.to_string());
    }
    let mut actor = m.actor.take().unwrap_or_else(|| base_actor(m, org));
    actor.teams = teams_of(&m.actor_id, teams, &actor.teams, now, seeded);
    m.actor = Some(actor);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn team(id: &str, name: &str, members: &[&str]) -> TeamRec {
        TeamRec {
            id: id.into(),
            name: name.into(),
            slug: name.to_lowercase(),
            description: None,
            projects: Vec::new(),
            members: members.iter().map(|m| (*m).to_string()).collect(),
            created_at: Utc::now(),
            updated_at: Utc::now(),
        }
    }

    #[test]
    fn assignments_survive_and_follow_names() {
        let now = Utc::now();
        let teams = vec![team("tm_a", "Alpha", &["oac_1"]), team("tm_b", "Beta", &[])];
        let first = teams_of("oac_1", &teams, &[], now, false);
        assert_eq!(first.len(), 1);
        assert!(first[0].assignment_id.starts_with("tmm_"));
        let renamed = vec![
            team("tm_a", "Alpha Two", &["oac_1"]),
            team("tm_b", "Beta", &["oac_1"]),
        ];
        let second = teams_of("oac_1", &renamed, &first, now, false);
        assert_eq!(second.len(), 2);
        assert_eq!(second[0].assignment_id, first[0].assignment_id);
        assert_eq!(second[0].name, "Alpha Two");
        assert_ne!(second[1].assignment_id, first[0].assignment_id);
        assert!(teams_of("oac_2", &renamed, &second, now, false).is_empty());
    }
}
