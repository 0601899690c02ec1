//! Teams with access policies (§4): list, get, create, update (POST), assign and remove a
//! policy; access policies list and get. Dashboard only; no projects-with-roles.
use crate::service::event_destinations::stored::Stored;
use axum::http::Method;
use serde_json::{Value, json};

use super::Gen;
use super::db;
use super::route::{Route, handler};
use super::schemas::{list_of, obj};
use super::wire::{Answer, Fail, Fields, Req, list, now_iso, public};
use crate::service::ids::new_id;

const AREA: &str = "Teams";

/// The routes of this area.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Method::GET,
            "/organization/teams",
            "list_teams",
            AREA,
            "List teams",
            || list_of("Team"),
            handler!(list_teams),
        )
        .list(&[])
        .dashboard_only(),
        Route::new(
            Method::POST,
            "/organization/teams",
            "create_team",
            AREA,
            "Create a team",
            || obj("Team"),
            handler!(create_team),
        )
        .body(|| obj("TeamCreate"))
        .dashboard_only(),
        Route::new(
            Method::GET,
            "/organization/teams/{team_id}",
            "get_team",
            AREA,
            "Get a team by id or slug",
            || obj("Team"),
            handler!(get_team),
        )
        .dashboard_only(),
        Route::new(
            Method::POST,
            "/organization/teams/{team_id}",
            "update_team",
            AREA,
            "Update a team",
            || obj("Team"),
            handler!(update_team),
        )
        .body(|| obj("TeamUpdate"))
        .dashboard_only(),
        Route::new(
            Method::POST,
            "/organization/teams/{team_id}/policies",
            "assign_team_policy",
            AREA,
            "Assign a custom access policy to a team (idempotent)",
            || obj("Team"),
            handler!(assign_policy),
        )
        .body(|| obj("TeamPolicyAssign"))
        .dashboard_only(),
        Route::new(
            Method::DELETE,
            "/organization/teams/{team_id}/policies/{access_policy_id}",
            "remove_team_policy",
            AREA,
            "Remove a policy from a team (a no-op when not assigned)",
            || obj("Team"),
            handler!(remove_policy),
        )
        .dashboard_only(),
        Route::new(
            Method::GET,
            "/organization/access-policies",
            "list_access_policies",
            AREA,
            "List access policies",
            || list_of("AccessPolicy"),
            handler!(list_policies),
        )
        .list(&[])
        .dashboard_only(),
        Route::new(
            Method::GET,
            "/organization/access-policies/{access_policy_id}",
            "get_access_policy",
            AREA,
            "Get an access policy by id or slug",
            || obj("AccessPolicy"),
            handler!(get_policy),
        )
        .dashboard_only(),
    ]
}

/// A record by id, else by its `slug`.
fn by_id_or_slug(
    db: &crate::service::store::Db,
    kind: Stored,
    key: &str,
) -> Result<Option<Value>, Fail> {
    if let Some(v) = db::get(db, kind, key)? {
        return Ok(Some(v));
    }
    Ok(db::all_with(db, kind, "slug", key)?.into_iter().next())
}

async fn list_teams(g: Gen, r: Req) -> Answer {
    let p = r.list_params()?;
    let page = g
        .read(move |db| Ok(db::page(db, Stored::Team, Vec::new(), &p)?))
        .await?;
    Ok(list(page))
}

async fn get_team(g: Gen, r: Req) -> Answer {
    let key = r.param(0).to_string();
    g.read(move |db| {
        by_id_or_slug(db, Stored::Team, &key)?
            .map(public)
            .ok_or_else(|| Fail::not_found("team", &key))
    })
    .await
}

/// A slug from a name: lower-case letters and digits joined by dashes.
pub fn slugify(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() { "team".into() } else { out }
}

fn slug_field(f: &mut Fields<'_>) -> Option<String> {
    let s = f.opt_string("slug", 100)?;
    if s.bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        Some(s)
    } else {
        f.issues.push(crate::service::errors::issue(
            "invalid_string",
            "A slug holds lower-case letters, digits and dashes",
            &["slug"],
        ));
        None
    }
}

fn slug_taken(db: &crate::service::store::Db, slug: &str, own: &str) -> Result<bool, Fail> {
    Ok(db::all_with(db, Stored::Team, "slug", slug)?
        .iter()
        .any(|t| t["id"] != own))
}

async fn create_team(g: Gen, r: Req) -> Answer {
    let body = r.object()?;
    let mut f = Fields::new(&body);
    let name = f.string("name", 100);
    let description = f.opt_string("description", 1000);
    let slug = slug_field(&mut f);
    f.check()?;
    let org = g.0.org_id.clone();
    g.write(move |db| {
        let mut slug = slug.unwrap_or_else(|| slugify(&name));
        let id = new_id("tm");
        if slug_taken(db, &slug, &id)? {
            if body.contains_key("slug") {
                return Err(Fail::bad_request(format!(
                    "A team with the slug {slug:?} already exists."
                )));
            }
            let base = slug.clone();
            let mut n = 2;
            while slug_taken(db, &slug, &id)? {
                slug = format!("{base}-{n}");
                n += 1;
            }
        }
        let now = now_iso();
        let team = json!({
            "object": "management.team", "id": id, "organization_id": org, "name": name,
            "slug": slug, "description": description, "policies": [], "projects": [],
            "created_at": now, "updated_at": now,
        });
        db::put(db, Stored::Team, &team)?;
        Ok(public(team))
    })
    .await
}

async fn update_team(g: Gen, r: Req) -> Answer {
    let key = r.param(0).to_string();
    let body = r.object()?;
    let mut f = Fields::new(&body);
    let name = f.opt_string("name", 100);
    let description = f.opt_string("description", 1000);
    let slug = slug_field(&mut f);
    f.check()?;
    g.write(move |db| {
        let mut team =
            by_id_or_slug(db, Stored::Team, &key)?.ok_or_else(|| Fail::not_found("team", &key))?;
        let id = team["id"].as_str().unwrap_or_default().to_string();
        if let Some(s) = slug {
            if slug_taken(db, &s, &id)? {
                return Err(Fail::bad_request(format!(
                    "A team with the slug {s:?} already exists."
                )));
            }
            team["slug"] = s.into();
        }
        if let Some(n) = name {
            team["name"] = n.into();
        }
        if body.contains_key("description") {
            team["description"] = description.map_or(Value::Null, Value::from);
        }
        team["updated_at"] = now_iso().into();
        db::put(db, Stored::Team, &team)?;
        refresh_memberships(db, &team)?;
        Ok(public(team))
    })
    .await
}

/// The preview of a policy embedded in a team.
fn preview(p: &Value) -> Value {
    json!({
        "object": "management.access_policy#preview", "id": p["id"], "type": p["type"],
        "name": p["name"], "slug": p["slug"],
    })
}

async fn assign_policy(g: Gen, r: Req) -> Answer {
    let key = r.param(0).to_string();
    let body = r.object()?;
    let mut f = Fields::new(&body);
    let policy_key = f.string("access_policy_id", 100);
    f.check()?;
    g.write(move |db| {
        let mut team =
            by_id_or_slug(db, Stored::Team, &key)?.ok_or_else(|| Fail::not_found("team", &key))?;
        let policy = by_id_or_slug(db, Stored::Policy, &policy_key)?
            .ok_or_else(|| Fail::not_found("access_policy", &policy_key))?;
        if policy["type"] != "custom" {
            return Err(Fail::bad_request(
                "Only a custom access policy can be assigned to a team.",
            ));
        }
        let list = team["policies"].as_array().cloned().unwrap_or_default();
        if !list.iter().any(|p| p["id"] == policy["id"]) {
            let mut list = list;
            list.push(preview(&policy));
            team["policies"] = list.into();
            team["updated_at"] = now_iso().into();
            db::put(db, Stored::Team, &team)?;
        }
        Ok(public(team))
    })
    .await
}

async fn remove_policy(g: Gen, r: Req) -> Answer {
    let key = r.param(0).to_string();
    let policy_key = r.param(1).to_string();
    g.write(move |db| {
        let mut team =
            by_id_or_slug(db, Stored::Team, &key)?.ok_or_else(|| Fail::not_found("team", &key))?;
        let policy_id = by_id_or_slug(db, Stored::Policy, &policy_key)?
            .map_or(policy_key.clone(), |p| {
                p["id"].as_str().unwrap_or_default().to_string()
            });
        let list = team["policies"].as_array().cloned().unwrap_or_default();
        let kept: Vec<Value> = list
            .iter()
            .filter(|p| p["id"] != policy_id.as_str())
            .cloned()
            .collect();
        if kept.len() != list.len() {
            team["policies"] = kept.into();
            team["updated_at"] = now_iso().into();
            db::put(db, Stored::Team, &team)?;
        }
        Ok(public(team))
    })
    .await
}

async fn list_policies(g: Gen, r: Req) -> Answer {
    let p = r.list_params()?;
    let page = g
        .read(move |db| Ok(db::page(db, Stored::Policy, Vec::new(), &p)?))
        .await?;
    Ok(list(page))
}

async fn get_policy(g: Gen, r: Req) -> Answer {
    let key = r.param(0).to_string();
    g.read(move |db| {
        by_id_or_slug(db, Stored::Policy, &key)?
            .map(public)
            .ok_or_else(|| Fail::not_found("access_policy", &key))
    })
    .await
}

/// A policy record (seed).
pub fn policy(
    org: &str,
    kind: &str,
    name: &str,
    description: &str,
    instance: &str,
    scopes: &[&str],
    at: &str,
) -> Value {
    json!({
        "object": "management.access_policy", "id": new_id("apl"), "organization_id": org,
        "type": kind, "name": name, "slug": slugify(name), "description": description,
        "document": {"access": [{"target": instance, "scopes": scopes}]},
        "roles": [], "projects": [], "instances": [{"id": instance, "name": "Production"}],
        "created_at": at, "updated_at": at,
    })
}

/// A team record with these policies and projects (seed).
pub fn team(
    org: &str,
    name: &str,
    description: Option<&str>,
    policies: &[&Value],
    projects: &[Value],
    at: &str,
) -> Value {
    json!({
        "object": "management.team", "id": new_id("tm"), "organization_id": org, "name": name,
        "slug": slugify(name), "description": description,
        "policies": policies.iter().map(|p| preview(p)).collect::<Vec<_>>(),
        "projects": projects, "created_at": at, "updated_at": at,
    })
}

/// The routes of the organization's members and team membership (§4: as pulsar).
pub fn member_routes() -> Vec<Route> {
    vec![
        Route::new(
            Method::GET,
            "/organization/members",
            "list_members",
            AREA,
            "List the organization's members (each actor's teams embedded)",
            || list_of("Member"),
            handler!(list_members),
        )
        .list(&[]),
        Route::new(
            Method::POST,
            "/organization/teams/{team_id}/members",
            "add_team_member",
            AREA,
            "Add an actor to a team",
            || obj("Team"),
            handler!(add_member),
        )
        .body(|| obj("TeamMemberAdd"))
        .dashboard_only(),
        Route::new(
            Method::DELETE,
            "/organization/teams/{team_id}/members/{actor_id}",
            "remove_team_member",
            AREA,
            "Remove an actor from a team",
            || obj("Team"),
            handler!(remove_member),
        )
        .dashboard_only(),
    ]
}

async fn list_members(g: Gen, r: Req) -> Answer {
    let p = r.list_params()?;
    let page = g
        .read(move |db| Ok(db::page(db, Stored::Member, Vec::new(), &p)?))
        .await?;
    Ok(list(page))
}

/// The member whose actor is `actor_id`.
fn member_of(db: &crate::service::store::Db, actor_id: &str) -> Result<Option<Value>, Fail> {
    Ok(db::all_with(db, Stored::Member, "actor_id", actor_id)?
        .into_iter()
        .next())
}

async fn add_member(g: Gen, r: Req) -> Answer {
    let key = r.param(0).to_string();
    let body = r.object()?;
    let mut f = Fields::new(&body);
    let actor_id = f.string("actor_id", 100);
    f.check()?;
    g.write(move |db| {
        let team =
            by_id_or_slug(db, Stored::Team, &key)?.ok_or_else(|| Fail::not_found("team", &key))?;
        let mut member = member_of(db, &actor_id)?
            .ok_or_else(|| Fail::not_found("organization-actor", &actor_id))?;
        let mut teams = member["actor"]["teams"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if teams.iter().any(|t| t["id"] == team["id"]) {
            return Err(Fail::bad_request(
                "The actor is already a member of the specified team",
            ));
        }
        let now = now_iso();
        teams.push(json!({
            "id": team["id"], "name": team["name"], "slug": team["slug"],
            "assignment_id": new_id("tmm"), "created_at": now, "updated_at": now,
        }));
        member["actor"]["teams"] = teams.into();
        db::put(db, Stored::Member, &member)?;
        Ok(public(team))
    })
    .await
}

async fn remove_member(g: Gen, r: Req) -> Answer {
    let key = r.param(0).to_string();
    let actor_id = r.param(1).to_string();
    g.write(move |db| {
        let team =
            by_id_or_slug(db, Stored::Team, &key)?.ok_or_else(|| Fail::not_found("team", &key))?;
        let not_member = || Fail::bad_request("The actor is not a member of the specified team");
        let mut member = member_of(db, &actor_id)?
            .ok_or_else(|| Fail::not_found("organization-actor", &actor_id))?;
        let teams = member["actor"]["teams"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let kept: Vec<Value> = teams
            .iter()
            .filter(|t| t["id"] != team["id"])
            .cloned()
            .collect();
        if kept.len() == teams.len() {
            return Err(not_member());
        }
        member["actor"]["teams"] = kept.into();
        db::put(db, Stored::Member, &member)?;
        Ok(public(team))
    })
    .await
}

/// Keeps the members' `actor.teams[]` entries of a team in step with its name and slug.
fn refresh_memberships(db: &crate::service::store::Db, team: &Value) -> Result<(), Fail> {
    for mut m in db::all(db, Stored::Member)? {
        let Some(teams) = m["actor"]["teams"].as_array_mut() else {
            continue;
        };
        let mut changed = false;
        for t in teams.iter_mut().filter(|t| t["id"] == team["id"]) {
            t["name"] = team["name"].clone();
            t["slug"] = team["slug"].clone();
            changed = true;
        }
        if changed {
            db::put(db, Stored::Member, &m)?;
        }
    }
    Ok(())
}

/// A member record with its actor (seed).
pub fn member(org: &str, name: &str, email: &str, role: &str, teams: &[&Value], at: &str) -> Value {
    let actor = new_id("oac");
    json!({
        "object": "organization.member", "id": new_id("om"), "status": "active", "role": role,
        "user_id": new_id("usr"), "organization_id": org, "actor_id": actor, "name": name,
        "email": email, "image_url": null, "last_active_at": null, "created_at": at,
        "updated_at": at, "deleted_at": null,
        "actor": {
            "object": "organization.actor", "id": actor, "type": "member", "organization_id": org,
            "name": name, "email": email, "image_url": null,
            "teams": teams.iter().map(|t| json!({
                "id": t["id"], "name": t["name"], "slug": t["slug"], "assignment_id": new_id("tmm"),
                "created_at": at, "updated_at": at,
            })).collect::<Vec<_>>(),
            "created_at": at, "updated_at": at,
        },
    })
}
