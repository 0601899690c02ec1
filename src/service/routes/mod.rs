//! HTTP routes, one file per area of the API.
pub(super) mod callbacks;
pub(super) mod destinations;
pub(super) mod hooks;
pub(super) mod imports;
pub(super) mod introspect;
pub(super) mod notifications;
pub(super) mod organization;
pub(super) mod teams;

use axum::Router;
use axum::routing::{get, post};

pub use destinations::signing_secret;

use super::app::App;
use super::errors::Reply;
use super::paging::{ListParams, parse_pairs};

/// Every route of the service.
pub fn routes() -> Router<App> {
    Router::new()
        .route("/organization/teams", get(teams::list).post(teams::create))
        .route(
            "/organization/teams/{team_id}",
            get(teams::show).post(teams::update),
        )
        .route(
            "/organization/teams/{team_id}/projects",
            post(teams::set_project),
        )
        .route(
            "/organization/teams/{team_id}/projects/{project_id}",
            axum::routing::delete(teams::remove_project),
        )
        .route(
            "/organization/teams/{team_id}/members",
            post(teams::add_member),
        )
        .route(
            "/organization/teams/{team_id}/members/{actor_id}",
            axum::routing::delete(teams::remove_member),
        )
        .route("/organization/projects", get(organization::projects))
        .route("/organization/team-roles", get(organization::roles))
        .route("/organization/members", get(organization::members))
        .route(
            "/provider-oauth/token-imports",
            get(imports::list).post(imports::create),
        )
        .route(
            "/provider-oauth/token-imports/{take_in_id}",
            get(imports::show).patch(imports::update),
        )
        .route("/callbacks", get(callbacks::list))
        .route("/callbacks/{callback_id}", get(callbacks::show))
        .route(
            "/callbacks-destinations",
            get(destinations::list).post(destinations::create),
        )
        .route(
            "/callbacks-destinations/{destination_id}",
            get(destinations::show)
                .patch(destinations::update)
                .delete(destinations::remove),
        )
        .route("/callbacks-notifications", get(notifications::list))
        .route(
            "/callbacks-notifications/{notification_id}",
            get(notifications::show),
        )
        .route("/hooks/{key}", post(hooks::incoming))
        .route("/_receiver/{mode}", post(hooks::receiver))
        .route("/metorial/introspect/versions", get(introspect::versions))
        .route("/metorial/introspect/endpoints", get(introspect::endpoints))
}

/// The raw query's pairs and its validated list parameters.
fn list_query(raw: Option<String>) -> Reply<(Vec<(String, String)>, ListParams)> {
    let pairs = parse_pairs(raw.as_deref());
    let params = ListParams::from_pairs(&pairs)?;
    Ok((pairs, params))
}
