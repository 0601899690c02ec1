//! Every route of the generation, area by area: teams, access policies and auth imports as the
//! newest generation serves them, and this generation's own webhook areas.
use crate::service::event_destinations::route::Route;
use crate::service::event_destinations::{imports, introspect, teams};

/// Every route of the generation.
pub fn routes() -> Vec<Route> {
    let mut all = Vec::new();
    all.extend(teams::routes());
    all.extend(teams::member_routes());
    all.extend(imports::routes());
    all.extend(super::callbacks::deployment_routes());
    all.extend(super::callbacks::routes());
    all.extend(super::destinations::routes());
    all.extend(super::notifications::routes());
    all.extend(introspect::routes());
    all
}
