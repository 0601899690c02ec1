//! Teams with access policies (§4): list, get, create, update (POST), assign and remove a
//! policy; access policies list and get. Dashboard only; no projects-with-roles.
use axum::http::Method;
use serde_json::{Value, json};

use super::Gen;
use super::db;
use super::schemas::{list_of, obj};
use super::table::{Route, handler};
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
    kind: &str,
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
        .read(move |db| Ok(db::page(db, "team", Vec::new(), &p)?))
        .await?;
    Ok(list(page))
}

async fn get_team(g: Gen, r: Req) -> Answer {
    let key = r.param(0).to_string();
    g.read(move |db| {
        by_id_or_slug(db, "team", &key)?
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
    Ok(db::all_with(db, "team", "slug", slug)?
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
        db::put(db, "team", &team)?;
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
            by_id_or_slug(db, "team", &key)?.ok_or_else(|| Fail::not_found("team", &key))?;
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
        db::put(db, "team", &team)?;
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
            by_id_or_slug(db, "team", &key)?.ok_or_else(|| Fail::not_found("team", &key))?;
        let policy = by_id_or_slug(db, "policy", &policy_key)?
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
            db::put(db, "team", &team)?;
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
            by_id_or_slug(db, "team", &key)?.ok_or_else(|| Fail::not_found("team", &key))?;
        let policy_id = by_id_or_slug(db, "policy", &policy_key)?.map_or(policy_key.clone(), |p| {
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
            db::put(db, "team", &team)?;
        }
        Ok(public(team))
    })
    .await
}

async fn list_policies(g: Gen, r: Req) -> Answer {
    let p = r.list_params()?;
    let page = g
        .read(move |db| Ok(db::page(db, "policy", Vec::new(), &p)?))
        .await?;
    Ok(list(page))
}

async fn get_policy(g: Gen, r: Req) -> Answer {
    let key = r.param(0).to_string();
    g.read(move |db| {
        by_id_or_slug(db, "policy", &key)?
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
