//! Teams and their project and member sub-operations. Every write returns the refreshed team.
use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use serde_json::Value;

use super::list_query;
use crate::api::model::{Member, Project, Team, TeamRole};
use crate::service::app::{App, Body};
use crate::service::errors::{Failure, Reply};
use crate::service::ids::new_id;
use crate::service::membership::refresh_actors;
use crate::service::records::{
    RoleAssignmentRec, TeamProjectRec, TeamRec, find_by_id_or_slug, find_team, render_team, slugify,
};
use crate::service::store::{Db, raw_page_json};
use crate::service::validate::Check;

/// Saves a team and returns its wire shape.
fn save(db: &Db, t: &TeamRec) -> Reply<Team> {
    // The unique index has the last word on slugs; a refusal is a 400, never a 500.
    db.put_team(&t.id, &t.slug, t)?;
    render_team(db, t)
}

/// A slug for `name` that no other team uses, looked up through the slug index (no team is
/// decoded).
fn unique_slug(db: &Db, name: &str, own_id: &str) -> Reply<String> {
    let base = slugify(name);
    let mut slug = base.clone();
    let mut n = 2;
    while db.team_with_slug(&slug, own_id)?.is_some() {
        slug = format!("{base}-{n}");
        n += 1;
    }
    Ok(slug)
}

/// Loads a team, applies `f`, stamps `updated_at` and saves it.
async fn modify<F>(app: &App, team_id: String, f: F) -> Reply<Json<Team>>
where
    F: FnOnce(&Db, &mut TeamRec) -> Reply<()> + Send + 'static,
{
    let team = app
        .db(move |db| {
            let mut t = find_team(db, &team_id)?;
            f(db, &mut t)?;
            t.updated_at = Utc::now();
            save(db, &t)
        })
        .await?;
    Ok(Json(team))
}

/// `GET /organization/teams`.
#[utoipa::path(
    get,
    path = "/organization/teams",
    operation_id = "list_teams",
    tag = "teams",
    params(crate::service::doc_types::ListParamsDoc),
    responses((status = 200, description = "OK", body = crate::api::Page<crate::api::model::Team>))
)]
pub async fn list(State(app): State<App>, RawQuery(q): RawQuery) -> Reply<Response> {
    let (_, params) = list_query(q)?;
    let teams = app.teams.clone();
    let page = app
        .read(move |db| {
            let stored = db.raw_page_of::<TeamRec>(&params)?;
            teams.page(db, stored)
        })
        .await?;
    let body = raw_page_json(&page);
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// `GET /organization/teams/{team_id}` (id or slug).
#[utoipa::path(
    get,
    path = "/organization/teams/{team_id}",
    operation_id = "get_team",
    tag = "teams",
    params(("team_id" = String, Path, description = "`tm_…` id or slug")),
    responses((status = 200, description = "OK", body = crate::api::model::Team))
)]
pub async fn show(State(app): State<App>, Path(id): Path<String>) -> Reply<Json<Team>> {
    let team = app
        .db(move |db| render_team(db, &find_team(db, &id)?))
        .await?;
    Ok(Json(team))
}

/// `POST /organization/teams`.
#[utoipa::path(
    post,
    path = "/organization/teams",
    operation_id = "create_team",
    tag = "teams",
    request_body = crate::api::model::CreateTeam,
    responses((status = 200, description = "OK", body = crate::api::model::Team))
)]
pub async fn create(State(app): State<App>, Body(body): Body) -> Reply<Json<Team>> {
    let mut c = Check::body(body)?;
    let name = c.required("name", 1);
    let description = c.nullable("description").flatten();
    c.finish()?;
    let name = name.unwrap_or_default();
    let team = app
        .db(move |db| {
            let id = new_id("tm");
            let now = Utc::now();
            let t = TeamRec {
                slug: unique_slug(db, &name, &id)?,
                id,
                name,
                description,
                projects: Vec::new(),
                members: Vec::new(),
                created_at: now,
                updated_at: now,
            };
            save(db, &t)
        })
        .await?;
    Ok(Json(team))
}

/// `POST /organization/teams/{team_id}`: `null` for a field is a 400.
#[utoipa::path(
    post,
    path = "/organization/teams/{team_id}",
    operation_id = "update_team",
    tag = "teams",
    params(("team_id" = String, Path, description = "`tm_…` id or slug")),
    request_body = crate::api::model::UpdateTeam,
    responses((status = 200, description = "OK", body = crate::api::model::Team))
)]
pub async fn update(
    State(app): State<App>,
    Path(id): Path<String>,
    Body(body): Body,
) -> Reply<Json<Team>> {
    let mut c = Check::body(body)?;
    let name = if c.has("name") {
        c.required("name", 1)
    } else {
        None
    };
    let description = c.optional("description");
    c.finish()?;
    modify(&app, id, move |db, t| {
        if let Some(name) = name {
            t.slug = unique_slug(db, &name, &t.id)?;
            t.name = name;
            // Members show their teams by name and slug.
            refresh_actors(db, &t.members, Some(t))?;
        }
        if let Some(d) = description {
            t.description = Some(d);
        }
        Ok(())
    })
    .await
}

/// `POST /organization/teams/{team_id}/projects`: replaces that project's role set.
#[utoipa::path(
    post,
    path = "/organization/teams/{team_id}/projects",
    operation_id = "set_team_project",
    tag = "teams",
    params(("team_id" = String, Path, description = "`tm_…` id or slug")),
    request_body = crate::api::model::SetTeamProject,
    responses((status = 200, description = "OK", body = crate::api::model::Team))
)]
pub async fn set_project(
    State(app): State<App>,
    Path(id): Path<String>,
    Body(body): Body,
) -> Reply<Json<Team>> {
    let mut c = Check::body(body)?;
    let project_key = c.required("project_id", 1);
    let role_keys = c.string_list("team_role_ids", true);
    c.finish()?;
    let (project_key, role_keys) = (
        project_key.unwrap_or_default(),
        role_keys.unwrap_or_default(),
    );
    modify(&app, id, move |db, t| {
        let project = find_by_id_or_slug(db, &project_key, |p: &Project| &p.slug)?
            .ok_or_else(|| Failure::not_found("project", project_key.as_str()))?;
        let mut roles = Vec::new();
        let mut unknown = Vec::new();
        for key in &role_keys {
            match find_by_id_or_slug(db, key, |r: &TeamRole| &r.slug)? {
                Some(r) => {
                    if !roles.iter().any(|x: &TeamRole| x.id == r.id) {
                        roles.push(r);
                    }
                }
                None => unknown.push(Value::from(key.as_str())),
            }
        }
        if !unknown.is_empty() {
            return Err(Failure::not_found("team-roles", unknown));
        }
        let now = Utc::now();
        let pos = match t.projects.iter().position(|p| p.project_id == project.id) {
            Some(pos) => pos,
            None => {
                t.projects.push(TeamProjectRec {
                    id: new_id("tmp"),
                    project_id: project.id.clone(),
                    roles: Vec::new(),
                    created_at: now,
                    updated_at: now,
                });
                t.projects.len() - 1
            }
        };
        let Some(assignment) = t.projects.get_mut(pos) else {
            return Err(Failure::internal("project assignment vanished"));
        };
        // Keep the assignments of roles that stay, so their ids and times survive the upsert.
        let old = std::mem::take(&mut assignment.roles);
        assignment.roles = roles
            .iter()
            .map(|r| {
                old.iter()
                    .find(|o| o.role_id == r.id)
                    .cloned()
                    .unwrap_or_else(|| RoleAssignmentRec {
                        id: new_id("tmra"),
                        role_id: r.id.clone(),
                        created_at: now,
                    })
            })
            .collect();
        assignment.updated_at = now;
        Ok(())
    })
    .await
}

/// `DELETE /organization/teams/{team_id}/projects/{project_id}`.
#[utoipa::path(
    delete,
    path = "/organization/teams/{team_id}/projects/{project_id}",
    operation_id = "remove_team_project",
    tag = "teams",
    params(("team_id" = String, Path, description = "`tm_…` id or slug"), ("project_id" = String, Path, description = "`pr_…` id")),
    responses((status = 200, description = "OK", body = crate::api::model::Team))
)]
pub async fn remove_project(
    State(app): State<App>,
    Path((id, project_key)): Path<(String, String)>,
) -> Reply<Json<Team>> {
    modify(&app, id, move |db, t| {
        let project = find_by_id_or_slug(db, &project_key, |p: &Project| &p.slug)?
            .ok_or_else(|| Failure::not_found("project", project_key.as_str()))?;
        let before = t.projects.len();
        t.projects.retain(|p| p.project_id != project.id);
        if t.projects.len() == before {
            return Err(Failure::bad_request(
                "The team does not have access to the specified project",
            ));
        }
        Ok(())
    })
    .await
}

/// Checks that an actor exists.
fn require_actor(db: &Db, actor_id: &str) -> Reply<()> {
    let known = db
        .load_all::<Member>()?
        .iter()
        .any(|m| m.actor_id == actor_id);
    if known {
        Ok(())
    } else {
        Err(Failure::not_found("organization-actor", actor_id))
    }
}

/// `POST /organization/teams/{team_id}/members`.
#[utoipa::path(
    post,
    path = "/organization/teams/{team_id}/members",
    operation_id = "add_team_member",
    tag = "teams",
    params(("team_id" = String, Path, description = "`tm_…` id or slug")),
    request_body = crate::api::model::TeamMemberInput,
    responses((status = 200, description = "OK", body = crate::api::model::Team))
)]
pub async fn add_member(
    State(app): State<App>,
    Path(id): Path<String>,
    Body(body): Body,
) -> Reply<Json<Team>> {
    let mut c = Check::body(body)?;
    let actor = c.required("actor_id", 1);
    c.finish()?;
    let actor = actor.unwrap_or_default();
    modify(&app, id, move |db, t| {
        require_actor(db, &actor)?;
        if t.members.contains(&actor) {
            return Err(Failure::bad_request(
                "The actor is already a member of the specified team",
            ));
        }
        t.members.push(actor.clone());
        refresh_actors(db, &[actor], Some(t))
    })
    .await
}

/// `DELETE /organization/teams/{team_id}/members/{actor_id}`.
#[utoipa::path(
    delete,
    path = "/organization/teams/{team_id}/members/{actor_id}",
    operation_id = "remove_team_member",
    tag = "teams",
    params(("team_id" = String, Path, description = "`tm_…` id or slug"), ("actor_id" = String, Path, description = "Member actor id")),
    responses((status = 200, description = "OK", body = crate::api::model::Team))
)]
pub async fn remove_member(
    State(app): State<App>,
    Path((id, actor)): Path<(String, String)>,
) -> Reply<Json<Team>> {
    modify(&app, id, move |db, t| {
        require_actor(db, &actor)?;
        let before = t.members.len();
        t.members.retain(|m| *m != actor);
        if t.members.len() == before {
            return Err(Failure::bad_request(
                "The actor is not a member of the specified team",
            ));
        }
        refresh_actors(db, &[actor], Some(t))
    })
    .await
}
