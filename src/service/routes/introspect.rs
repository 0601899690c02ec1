//! `GET /metorial/introspect/versions` and `…/endpoints?version=ID`, answered without a key as a
//! pulsar-era deployment of the platform answers them (api.md §1, "Versions").
use axum::Json;
use axum::extract::RawQuery;

use crate::api::error::ApiError;
use crate::api::versions::{ServedVersion, VersionList};
use crate::service::errors::{Failure, Reply};
use crate::service::paging::parse_pairs;

/// This service's own version: the one every route here belongs to.
const PULSAR: &str = "mt_2025_01_01_pulsar";
/// Listed beside pulsar, as the platform's pulsar-era deployments list it.
const DASHBOARD: &str = "mt_2025_01_01_dashboard";

/// The endpoints of pulsar: every API route the service has (hooks and the demo receiver are
/// the service's own, not the API's).
const ENDPOINTS: &[(&str, &str)] = &[
    ("GET", "/organization/teams"),
    ("POST", "/organization/teams"),
    ("GET", "/organization/teams/{team_id}"),
    ("POST", "/organization/teams/{team_id}"),
    ("POST", "/organization/teams/{team_id}/projects"),
    (
        "DELETE",
        "/organization/teams/{team_id}/projects/{project_id}",
    ),
    ("POST", "/organization/teams/{team_id}/members"),
    ("DELETE", "/organization/teams/{team_id}/members/{actor_id}"),
    ("GET", "/organization/projects"),
    ("GET", "/organization/team-roles"),
    ("GET", "/organization/members"),
    ("GET", "/provider-oauth/token-imports"),
    ("POST", "/provider-oauth/token-imports"),
    ("GET", "/provider-oauth/token-imports/{take_in_id}"),
    ("PATCH", "/provider-oauth/token-imports/{take_in_id}"),
    ("GET", "/callbacks"),
    ("GET", "/callbacks/{callback_id}"),
    ("GET", "/callbacks-destinations"),
    ("POST", "/callbacks-destinations"),
    ("GET", "/callbacks-destinations/{destination_id}"),
    ("PATCH", "/callbacks-destinations/{destination_id}"),
    ("DELETE", "/callbacks-destinations/{destination_id}"),
    ("GET", "/callbacks-notifications"),
    ("GET", "/callbacks-notifications/{notification_id}"),
];

fn served() -> VersionList {
    let v = |version: &str, current: bool| ServedVersion {
        version: version.into(),
        display_version: Some("2025-01-01".into()),
        is_current: current,
    };
    VersionList {
        versions: vec![v(PULSAR, true), v(DASHBOARD, false)],
    }
}

/// `GET /metorial/introspect/versions`.
pub async fn versions() -> Json<VersionList> {
    Json(served())
}

/// `GET /metorial/introspect/endpoints?version=ID`: the version's endpoints, 406 for a version
/// not served here. Dashboard's are the organization paths, the ones both versions share here.
pub async fn endpoints(RawQuery(q): RawQuery) -> Reply<Json<serde_json::Value>> {
    let pairs = parse_pairs(q.as_deref());
    let asked = pairs
        .iter()
        .find(|(k, _)| k == "version")
        .map_or("", |(_, v)| v.as_str());
    if asked != PULSAR && asked != DASHBOARD {
        let mut e = ApiError::synthetic(
            406,
            format!("The API version {asked:?} is not served by this deployment."),
        );
        e.code = "not_acceptable".into();
        e.hint = Some(format!("Served versions: {PULSAR}, {DASHBOARD}."));
        e.entity = Some("version".into());
        return Err(Failure(Box::new(e)));
    }
    let list: Vec<serde_json::Value> = ENDPOINTS
        .iter()
        .filter(|(_, path)| asked == PULSAR || path.starts_with("/organization/"))
        .map(|(method, path)| serde_json::json!({ "method": method, "path": path }))
        .collect();
    Ok(Json(
        serde_json::json!({ "version": asked, "endpoints": list }),
    ))
}
