//! Provider OAuth token imports. The access token is kept only as its hash (`identifier`).
use axum::Json;
use axum::extract::{Path, RawQuery, State};
use chrono::Utc;
use serde_json::Map;

use super::list_query;
use crate::api::Page;
use crate::api::model::{ImportStatus, ProviderOauthImport};
use crate::service::app::{App, Body};
use crate::service::errors::{Failure, Reply, issue};
use crate::service::ids::new_id;
use crate::service::records::{ConnectionRec, DeploymentRec, render_import, token_identifier};
use crate::service::validate::Check;

/// `GET /provider-oauth/token-imports`.
#[utoipa::path(
    get,
    path = "/provider-oauth/token-imports",
    operation_id = "list_imports",
    tag = "imports",
    params(crate::service::doc_types::ListParamsDoc),
    responses((status = 200, description = "OK", body = crate::api::Page<crate::api::model::ProviderOauthImport>))
)]
pub async fn list(
    State(app): State<App>,
    RawQuery(q): RawQuery,
) -> Reply<Json<Page<ProviderOauthImport>>> {
    let (_, params) = list_query(q)?;
    let page = app
        .read(move |db| Ok(db.page_of::<ProviderOauthImport>(&params)?))
        .await?;
    Ok(Json(Page {
        items: page
            .items
            .into_iter()
            .map(|i| render_import(i, false))
            .collect(),
        pagination: page.pagination,
    }))
}

/// `GET /provider-oauth/token-imports/{take_in_id}`; a missing one is entity `connection`.
#[utoipa::path(
    get,
    path = "/provider-oauth/token-imports/{take_in_id}",
    operation_id = "get_import",
    tag = "imports",
    params(("take_in_id" = String, Path, description = "`poti_…` id")),
    responses((status = 200, description = "OK", body = crate::api::model::ProviderOauthImport))
)]
pub async fn show(
    State(app): State<App>,
    Path(id): Path<String>,
) -> Reply<Json<ProviderOauthImport>> {
    let i = app
        .db(move |db| {
            db.load::<ProviderOauthImport>(&id)?
                .ok_or_else(|| Failure::not_found("connection", id))
        })
        .await?;
    Ok(Json(render_import(i, false)))
}

/// The optional fields shared by create and update.
struct Fields {
    note: Option<Option<String>>,
    metadata: Option<Map<String, serde_json::Value>>,
    expires_at: Option<Option<chrono::DateTime<Utc>>>,
    id_token: Option<Option<String>>,
    scope: Option<Option<String>>,
    token_type: Option<Option<String>>,
}

impl Fields {
    fn read(c: &mut Check) -> Self {
        Self {
            note: c.nullable("note"),
            metadata: c.object("metadata"),
            expires_at: c.timestamp("expires_at"),
            id_token: c.nullable("id_token"),
            scope: c.nullable("scope"),
            token_type: c.nullable("token_type"),
        }
    }

    fn apply(self, i: &mut ProviderOauthImport) {
        if let Some(v) = self.note {
            i.note = v;
        }
        if let Some(v) = self.metadata {
            i.metadata = v;
        }
        if let Some(v) = self.expires_at {
            i.expires_at = v;
        }
        if let Some(v) = self.id_token {
            i.id_token = v;
        }
        if let Some(v) = self.scope {
            i.scope = v;
        }
        if let Some(v) = self.token_type {
            i.token_type = v;
        }
    }
}

/// `POST /provider-oauth/token-imports`: exactly one of deployment and connection.
#[utoipa::path(
    post,
    path = "/provider-oauth/token-imports",
    operation_id = "create_import",
    tag = "imports",
    request_body = crate::api::model::CreateImport,
    responses((status = 200, description = "OK", body = crate::api::model::ProviderOauthImport))
)]
pub async fn create(State(app): State<App>, Body(body): Body) -> Reply<Json<ProviderOauthImport>> {
    let mut c = Check::body(body)?;
    let token = c.required("access_token", 1);
    let deployment = c.optional("server_deployment_id");
    let connection = c.optional("connection_id");
    let fields = Fields::read(&mut c);
    let (has_deployment, has_connection) = (c.has("server_deployment_id"), c.has("connection_id"));
    if !has_deployment && !has_connection {
        for key in ["server_deployment_id", "connection_id"] {
            let mut i = issue(
                "invalid_type",
                "Invalid input, expected string, received undefined",
                &[key],
            );
            i.expected = Some("string".into());
            i.received = Some("undefined".into());
            c.push(i);
        }
    } else if has_deployment && has_connection {
        c.push(issue(
            "invalid_type",
            "Provide exactly one of server_deployment_id and connection_id, not both",
            &["connection_id"],
        ));
    }
    c.finish()?;
    let token = token.unwrap_or_default();
    let created = app
        .db(move |db| {
            let connection_id = match (deployment, connection) {
                (Some(d), _) => {
                    let dep = db
                        .load::<DeploymentRec>(&d)?
                        .ok_or_else(|| Failure::not_found("server-deployment", d.as_str()))?;
                    dep.connection_id.ok_or_else(|| {
                        Failure::bad_request("Server deployment does not have an OAuth connection")
                    })?
                }
                (None, Some(c)) => {
                    db.load::<ConnectionRec>(&c)?
                        .ok_or_else(|| Failure::not_found("connection", c.as_str()))?
                        .id
                }
                (None, None) => return Err(Failure::internal("validated input lost")),
            };
            let mut i = ProviderOauthImport {
                object: "provider_oauth.import".into(),
                id: new_id("poti"),
                status: ImportStatus::Active,
                note: None,
                metadata: Map::new(),
                connection_id: Some(connection_id),
                id_token: None,
                scope: None,
                token_type: None,
                identifier: Some(token_identifier(&token)),
                created_at: Utc::now(),
                expires_at: None,
            };
            fields.apply(&mut i);
            db.save(&i)?;
            Ok(i)
        })
        .await?;
    Ok(Json(render_import(created, true)))
}

/// `PATCH /provider-oauth/token-imports/{take_in_id}`: a new token recomputes `identifier`.
#[utoipa::path(
    patch,
    path = "/provider-oauth/token-imports/{take_in_id}",
    operation_id = "update_import",
    tag = "imports",
    params(("take_in_id" = String, Path, description = "`poti_…` id")),
    request_body = crate::api::model::UpdateImport,
    responses((status = 200, description = "OK", body = crate::api::model::ProviderOauthImport))
)]
pub async fn update(
    State(app): State<App>,
    Path(id): Path<String>,
    Body(body): Body,
) -> Reply<Json<ProviderOauthImport>> {
    let mut c = Check::body(body)?;
    let token = if c.has("access_token") {
        c.required("access_token", 1)
    } else {
        None
    };
    let fields = Fields::read(&mut c);
    c.finish()?;
    let updated = app
        .db(move |db| {
            let mut i = db
                .load::<ProviderOauthImport>(&id)?
                .ok_or_else(|| Failure::not_found("connection", id.as_str()))?;
            fields.apply(&mut i);
            if let Some(t) = token {
                i.identifier = Some(token_identifier(&t));
            }
            db.save(&i)?;
            Ok(i)
        })
        .await?;
    Ok(Json(render_import(updated, false)))
}
