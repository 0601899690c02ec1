//! Read-only organization lookups: projects, team roles, members.
use axum::extract::{RawQuery, State};

use super::list_query;
use crate::api::Page;
use crate::api::model::{Member, Project, TeamRole};
use crate::service::app::{App, BigJson};
use crate::service::errors::Reply;
use crate::service::records::Record;

async fn list_kind<T: Record>(app: App, raw: Option<String>) -> Reply<BigJson<Page<T>>> {
    let (_, params) = list_query(raw)?;
    Ok(BigJson(
        app.read(move |db| Ok(db.page_of::<T>(&params)?)).await?,
    ))
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
pub async fn projects(
    State(app): State<App>,
    RawQuery(q): RawQuery,
) -> Reply<BigJson<Page<Project>>> {
    list_kind::<Project>(app, q).await
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
pub async fn roles(
    State(app): State<App>,
    RawQuery(q): RawQuery,
) -> Reply<BigJson<Page<TeamRole>>> {
    list_kind::<TeamRole>(app, q).await
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
pub async fn members(
    State(app): State<App>,
    RawQuery(q): RawQuery,
) -> Reply<BigJson<Page<Member>>> {
    list_kind::<Member>(app, q).await
}
