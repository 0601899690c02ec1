//! `GET /metorial/introspect/versions` and `…/endpoints?version=ID` (§2), answered before any
//! key, generated from the routes this generation actually serves.
use axum::http::Method;
use serde_json::{Value, json};

use super::Gen;
use super::route::{Route, handler};
use super::schemas::obj;
use super::wire::{Answer, DASHBOARD, Fail, MAGNETAR, Req, Version};

const AREA: &str = "Introspection";

/// The routes of this area.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(Method::GET, "/metorial/introspect/versions", "introspect_versions", AREA,
            "The API versions this deployment serves (no key)", || obj("VersionList"),
            handler!(versions)),
        Route::new(Method::GET, "/metorial/introspect/endpoints", "introspect_endpoints", AREA,
            "The endpoints a version serves (no key); 400 without a version, 406 for one not served",
            || obj("EndpointList"), handler!(endpoints))
            .query(&[("version", "version!", "mt_2025_01_01_dashboard or mt_2026_01_01_magnetar")]),
    ]
}

async fn versions(_g: Gen, _r: Req) -> Answer {
    Ok(json!({"versions": [
        {"version": DASHBOARD, "displayVersion": "2025-01-01", "isCurrent": true},
        {"version": MAGNETAR, "displayVersion": "2026-01-01", "isCurrent": false},
    ]}))
}

/// The endpoints of a version among `all` (a generation's table), one controller per area.
pub fn endpoints_of(all: Vec<Route>, v: Version) -> Value {
    let routes: Vec<Route> = all
        .into_iter()
        .filter(|r| r.area != AREA && r.served_in(v))
        .collect();
    let mut areas: Vec<&str> = Vec::new();
    for r in &routes {
        if !areas.contains(&r.area) {
            areas.push(r.area);
        }
    }
    let controllers: Vec<Value> = areas
        .iter()
        .enumerate()
        .map(|(i, a)| {
            json!({
                "id": format!("controller_{i}"), "name": a, "description": a,
                "deprecated": false, "hideInDocs": false, "category": {"name": a},
            })
        })
        .collect();
    let endpoints: Vec<Value> = routes
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let controller = areas.iter().position(|a| *a == r.area).unwrap_or(0);
            let path = r.colon_path();
            let sdk = r.op.replace('_', ".");
            let mut all = vec![json!({"path": path, "sdkPath": sdk})];
            if !super::frame::is_organization(r.path) {
                all.push(json!({"path": format!("/instances/:instanceId{path}"),
                                "sdkPath": format!("management.instance.{sdk}")}));
            }
            json!({
                "id": format!("endpoint_{i}"), "controllerId": format!("controller_{controller}"),
                "path": {"path": path, "sdkPath": sdk}, "allPaths": all,
                "method": r.method.as_str().to_ascii_lowercase(), "name": r.summary,
                "description": r.summary, "hideInDocs": false, "confidential": false,
                "bodyId": null, "queryId": null, "outputId": null,
            })
        })
        .collect();
    json!({"version": v.display(), "controllers": controllers, "endpoints": endpoints, "types": []})
}

async fn endpoints(g: Gen, r: Req) -> Answer {
    let asked = r
        .pairs
        .iter()
        .find(|(k, _)| k == "version")
        .map(|(_, v)| v.trim().to_string());
    match asked.as_deref() {
        None | Some("") => {
            let mut f = Fail::invalid(vec![crate::service::errors::issue(
                "invalid_type",
                "Invalid input, expected string, received undefined",
                &["version"],
            )]);
            f.0.entity = Some("query".into());
            Err(f)
        }
        Some(DASHBOARD) => Ok(endpoints_of((g.0.flavor.routes)(), Version::Dashboard)),
        Some(MAGNETAR) => Ok(endpoints_of((g.0.flavor.routes)(), Version::Magnetar)),
        Some(other) => {
            let mut f = Fail::version_not_allowed(other);
            f.0.status = 406;
            f.0.code = "not_acceptable".into();
            Err(f)
        }
    }
}
