//! Every route of pulsar's service declared once, in introspection's order: the router, the
//! OpenAPI document and introspection's endpoints are all built from this list (`/openapi.json`
//! is added by `openapi`, which this module must not import).
use std::sync::Arc;

use axum::extract::RawQuery;
use utoipa::openapi::path::HttpMethod;

use super::{callbacks, destinations, hooks, imports, introspect, notifications};
use super::{organization, teams};
use crate::service::route::{Route, Shown, method_name};

/// Every route but `/openapi.json`.
pub fn routes() -> Vec<Route> {
    use Shown::{Api, Internal};
    let mut all = vec![
        Route::documented::<teams::__path_list, _, _>(Api, teams::list),
        Route::documented::<teams::__path_create, _, _>(Api, teams::create),
        Route::documented::<teams::__path_show, _, _>(Api, teams::show),
        Route::documented::<teams::__path_update, _, _>(Api, teams::update),
        Route::documented::<teams::__path_set_project, _, _>(Api, teams::set_project),
        Route::documented::<teams::__path_remove_project, _, _>(Api, teams::remove_project),
        Route::documented::<teams::__path_add_member, _, _>(Api, teams::add_member),
        Route::documented::<teams::__path_remove_member, _, _>(Api, teams::remove_member),
        Route::documented::<organization::__path_projects, _, _>(Api, organization::projects),
        Route::documented::<organization::__path_roles, _, _>(Api, organization::roles),
        Route::documented::<organization::__path_members, _, _>(Api, organization::members),
        Route::documented::<imports::__path_list, _, _>(Api, imports::list),
        Route::documented::<imports::__path_create, _, _>(Api, imports::create),
        Route::documented::<imports::__path_show, _, _>(Api, imports::show),
        Route::documented::<imports::__path_update, _, _>(Api, imports::update),
        Route::documented::<callbacks::__path_list, _, _>(Api, callbacks::list),
        Route::documented::<callbacks::__path_show, _, _>(Api, callbacks::show),
        Route::documented::<destinations::__path_list, _, _>(Api, destinations::list),
        Route::documented::<destinations::__path_create, _, _>(Api, destinations::create),
        Route::documented::<destinations::__path_show, _, _>(Api, destinations::show),
        Route::documented::<destinations::__path_update, _, _>(Api, destinations::update),
        Route::documented::<destinations::__path_remove, _, _>(Api, destinations::remove),
        Route::documented::<notifications::__path_list, _, _>(Api, notifications::list),
        Route::documented::<notifications::__path_show, _, _>(Api, notifications::show),
        Route::documented::<hooks::__path_incoming, _, _>(Internal, hooks::incoming),
        Route::documented::<hooks::__path_receiver, _, _>(Internal, hooks::receiver),
    ];
    // Introspection lists the API's routes above, as a pulsar deployment does.
    let endpoints: Arc<[introspect::Endpoint]> = all
        .iter()
        .filter(|r| r.shown == Api)
        .flat_map(|r| r.methods.iter().map(|m| (method_name(m), r.path.clone())))
        .collect();
    all.push(Route::undocumented(
        HttpMethod::Get,
        "/metorial/introspect/versions",
        introspect::versions,
    ));
    all.push(Route::undocumented(
        HttpMethod::Get,
        "/metorial/introspect/endpoints",
        move |RawQuery(q): RawQuery| std::future::ready(introspect::endpoints(&endpoints, q)),
    ));
    all
}
