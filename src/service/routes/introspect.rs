//! `GET /metorial/introspect/versions` and `…/endpoints?version=ID`, answered without a key as a
//! pulsar-era deployment of the platform answers them (api.md §1, "Versions").
use axum::Json;

use crate::api::error::ApiError;
use crate::api::versions::{ServedVersion, VersionList};
use crate::service::errors::{Failure, Reply};
use crate::service::paging::parse_pairs;

/// This service's own version: the one every route here belongs to.
const PULSAR: &str = "mt_2025_01_01_pulsar";
/// Listed beside pulsar, as the platform's pulsar-era deployments list it.
const DASHBOARD: &str = "mt_2025_01_01_dashboard";

/// One endpoint as introspection lists it: the method and the path with `{name}` parameters.
pub type Endpoint = (&'static str, String);

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
/// not served here. Pulsar's are every API route the service has (`routes::table` gives them; hooks
/// and the demo receiver are the service's own, not the API's); dashboard's are the organization
/// paths, the ones both versions share here.
pub fn endpoints(every: &[Endpoint], q: Option<String>) -> Reply<Json<serde_json::Value>> {
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
    let list: Vec<serde_json::Value> = every
        .iter()
        .filter(|(_, path)| asked == PULSAR || path.starts_with("/organization/"))
        .map(|(method, path)| serde_json::json!({ "method": method, "path": path }))
        .collect();
    Ok(Json(
        serde_json::json!({ "version": asked, "endpoints": list }),
    ))
}
