//! Provider auth imports (§5): list, get, create, and the schema of a provider's credential. No
//! update and no delete; the credential value is never echoed, logged or kept.
use crate::service::event_destinations::stored::Stored;
use axum::http::Method;
use serde_json::{Value, json};

use super::Gen;
use super::db;
use super::route::{Route, handler};
use super::schemas::{list_of, obj};
use super::wire::{Answer, Fail, Fields, Req, list, now_iso, public};
use crate::service::ids::new_id;

const AREA: &str = "Provider auth imports";

/// The routes of this area.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Method::GET,
            "/provider-auth-config-imports",
            "list_auth_imports",
            AREA,
            "List provider auth imports",
            || list_of("AuthImport"),
            handler!(list_imports),
        )
        .list(&[
            ("id", "string", "Only these imports"),
            ("provider_id", "string", "Only imports for these providers"),
            (
                "provider_auth_credentials_id",
                "string",
                "Only imports with these credentials",
            ),
            (
                "provider_auth_config_id",
                "string",
                "Only imports into these auth configs",
            ),
            (
                "provider_deployment_id",
                "string",
                "Only imports for these deployments",
            ),
        ]),
        Route::new(
            Method::POST,
            "/provider-auth-config-imports",
            "create_auth_import",
            AREA,
            "Import a credential (immutable: import again to change it)",
            || obj("AuthImport"),
            handler!(create_import),
        )
        .body(|| obj("AuthImportCreate")),
        Route::new(
            Method::GET,
            "/provider-auth-config-imports/schema",
            "get_auth_import_schema",
            AREA,
            "What an import's value must hold for a provider",
            || obj("AuthImportSchema"),
            handler!(schema),
        )
        .query(&[("provider_id", "string", "The provider (default: the first)")]),
        Route::new(
            Method::GET,
            "/provider-auth-config-imports/{auth_import_id}",
            "get_auth_import",
            AREA,
            "Get a provider auth import",
            || obj("AuthImport"),
            handler!(get_import),
        ),
    ]
}

async fn list_imports(g: Gen, r: Req) -> Answer {
    let p = r.list_params()?;
    let conds: Vec<_> = [
        db::any_of("id", r.many("id")),
        db::any_of("provider_id", r.many("provider_id")),
        db::any_of("credentials_id", r.many("provider_auth_credentials_id")),
        db::any_of("auth_config.id", r.many("provider_auth_config_id")),
        db::any_of("provider_deployment_id", r.many("provider_deployment_id")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let page = g
        .read(move |db| Ok(db::page(db, Stored::Import, conds, &p)?))
        .await?;
    Ok(list(page))
}

async fn get_import(g: Gen, r: Req) -> Answer {
    let id = r.param(0).to_string();
    g.read(move |db| {
        db::get(db, Stored::Import, &id)?
            .map(public)
            .ok_or_else(|| Fail::not_found("provider.auth_import", &id))
    })
    .await
}

/// The auth method of a provider (seeded providers have one each).
fn auth_method(provider: &Value) -> Value {
    provider["_auth_method"].clone()
}

async fn create_import(g: Gen, r: Req) -> Answer {
    let body = r.object()?;
    let mut f = Fields::new(&body);
    let note = f.string("note", 1000);
    let value = f.object("value");
    let metadata = f.opt_object("metadata");
    let provider_id = f.opt_string("provider_id", 100);
    let deployment_id = f.opt_string("provider_deployment_id", 100);
    let config_id = f.opt_string("provider_auth_config_id", 100);
    let method_id = f.opt_string("provider_auth_method_id", 100);
    f.check()?;
    if value.is_empty() {
        return Err(Fail::invalid(vec![crate::service::errors::issue(
            "invalid_type",
            "The value must hold the credential, e.g. access_token",
            &["value"],
        )]));
    }
    drop(value);
    g.write(move |db| {
        let deployment = match &deployment_id {
            Some(id) => Some(
                db::get(db, Stored::Deployment, id)?
                    .ok_or_else(|| Fail::not_found("provider.deployment", id))?,
            ),
            None => None,
        };
        let provider_id = provider_id.or_else(|| {
            deployment
                .as_ref()
                .and_then(|d| d["provider_id"].as_str().map(String::from))
        });
        let provider = match &provider_id {
            Some(id) => {
                db::get(db, Stored::Provider, id)?.ok_or_else(|| Fail::not_found("provider", id))?
            }
            None => db::all(db, Stored::Provider)?
                .into_iter()
                .next()
                .ok_or_else(|| Fail::bad_request("No provider to import into"))?,
        };
        let method = auth_method(&provider);
        if let Some(m) = method_id.as_ref().filter(|m| method["id"] != m.as_str()) {
            return Err(Fail::not_found("provider.capabilities.auth_method", m));
        }
        let now = now_iso();
        let config = match &config_id {
            Some(id) => db::get(db, Stored::AuthConfig, id)?
                .ok_or_else(|| Fail::not_found("provider.auth_config", id))?,
            None => {
                let c = json!({
                    "object": "provider.auth_config", "id": new_id("pac"), "type": "manual",
                    "source": "manual", "status": "active", "is_default": false,
                    "provider_id": provider["id"], "name": null, "description": null,
                    "metadata": null,
                    "tool_filter": {"type": "allow_all", "ignore_parent_filters": false},
                    "deployment": deployment.clone().map(public), "credentials": null,
                    "auth_method": method, "created_at": now, "updated_at": now,
                });
                db::put(db, Stored::AuthConfig, &c)?;
                c
            }
        };
        let import = json!({
            "object": "provider.auth_import", "id": new_id("paci"), "note": note,
            "ip": "127.0.0.1", "user_agent": null, "metadata": metadata,
            "auth_config": public(config.clone()), "provider_id": provider["id"],
            "provider_deployment_id": deployment_id, "auth_method_id": method["id"],
            "credentials_id": config["credentials"]["id"], "created_at": now, "expires_at": null,
        });
        db::put(db, Stored::Import, &import)?;
        Ok(public(import))
    })
    .await
}

async fn schema(g: Gen, r: Req) -> Answer {
    let provider_id = r.many("provider_id").into_iter().next();
    g.read(move |db| {
        let provider = match &provider_id {
            Some(id) => {
                db::get(db, Stored::Provider, id)?.ok_or_else(|| Fail::not_found("provider", id))?
            }
            None => db::all(db, Stored::Provider)?
                .into_iter()
                .next()
                .ok_or_else(|| Fail::not_found("provider", ""))?,
        };
        let method = auth_method(&provider);
        Ok(json!({
            "object": "provider.capabilities.auth_config.schema",
            "schema": {"type": "json_schema", "schema": {
                "type": "object", "required": ["access_token"],
                "properties": {
                    "access_token": {"type": "string"}, "refresh_token": {"type": "string"},
                    "token_type": {"type": "string"}, "scope": {"type": "string"},
                },
            }},
            "visibility": "encrypted",
            "specification_id": method["provider_specification_id"],
            "provider_id": provider["id"],
            "created_at": provider["created_at"], "updated_at": provider["updated_at"],
        }))
    })
    .await
}

/// A seeded import.
pub fn seeded(
    provider: &Value,
    deployment: Option<&Value>,
    note: &str,
    at: &str,
) -> (Value, Value) {
    let method = auth_method(provider);
    let config = json!({
        "object": "provider.auth_config", "id": new_id("pac"), "type": "manual",
        "source": "manual", "status": "active", "is_default": false,
        "provider_id": provider["id"], "name": format!("Imported {} token", provider["name"].as_str().unwrap_or("")),
        "description": null, "metadata": null,
        "tool_filter": {"type": "allow_all", "ignore_parent_filters": false},
        "deployment": deployment.cloned().map(public), "credentials": null,
        "auth_method": method, "created_at": at, "updated_at": at,
    });
    let import = json!({
        "object": "provider.auth_import", "id": new_id("paci"), "note": note,
        "ip": "198.51.100.24", "user_agent": "switchboard/seed", "metadata": {"source": "seed"},
        "auth_config": config, "provider_id": provider["id"],
        "provider_deployment_id": deployment.map(|d| d["id"].clone()),
        "auth_method_id": method["id"], "credentials_id": null, "created_at": at,
        "expires_at": null,
    });
    (config, import)
}
