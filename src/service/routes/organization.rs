//! Read-only organization lookups: projects, team roles, members.
use axum::Json;
use axum::extract::{RawQuery, State};
use serde::de::DeserializeOwned;

use super::list_query;
use crate::api::Page;
use crate::api::model::{Member, Project, TeamRole};
use crate::service::app::App;
use crate::service::errors::Reply;
use crate::service::paging::paginate;
use crate::service::records::kind;

async fn list_kind<T>(
    app: App,
    raw: Option<String>,
    kind: &'static str,
    id: fn(&T) -> &str,
) -> Reply<Json<Page<T>>>
where
    T: DeserializeOwned + Send + 'static,
{
    let (_, params) = list_query(raw)?;
    let items = app.db(move |db| Ok(db.all::<T>(kind)?)).await?;
    Ok(Json(paginate(items, id, &params)))
}

/// `GET /organization/projects`.
#[utoipa::path(
    get,
    path = "/organization/projects",
    operation_id = "list_projects",
    tag = "organization",
    params(crate::service::doc_types::ListParamsDoc),
    responses((status = 200, description = "OK", body = crate::api::Page<crate::api::model::Project>))
)]
pub async fn projects(State(app): State<App>, RawQuery(q): RawQuery) -> Reply<Json<Page<Project>>> {
    list_kind(app, q, kind::PROJECT, |p: &Project| &p.id).await
}

/// `GET /organization/team-roles`.
#[utoipa::path(
    get,
    path = "/organization/team-roles",
    operation_id = "list_team_roles",
    tag = "organization",
    params(crate::service::doc_types::ListParamsDoc),
    responses((status = 200, description = "OK", body = crate::api::Page<crate::api::model::TeamRole>))
)]
pub async fn roles(State(app): State<App>, RawQuery(q): RawQuery) -> Reply<Json<Page<TeamRole>>> {
    list_kind(app, q, kind::ROLE, |r: &TeamRole| &r.id).await
}

/// `GET /organization/members`.
#[utoipa::path(
    get,
    path = "/organization/members",
    operation_id = "list_members",
    tag = "organization",
    params(crate::service::doc_types::ListParamsDoc),
    responses((status = 200, description = "OK", body = crate::api::Page<crate::api::model::Member>))
)]
pub async fn members(State(app): State<App>, RawQuery(q): RawQuery) -> Reply<Json<Page<Member>>> {
    list_kind(app, q, kind::MEMBER, |m: &Member| &m.id).await
}
