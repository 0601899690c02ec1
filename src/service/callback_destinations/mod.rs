//! The `callback-destinations` generation (shared/spec/generations.md §2–§6), served by
//! `serve --generation callback-destinations`: callbacks on provider deployments, callback
//! destinations attached from the callback side, notifications per callback. It runs on the
//! newer generations' frame (`event_destinations`: versions, keys, errors, route table,
//! introspection, document, teams and imports) with its own routes, records and worker.
mod callbacks;
mod db;
mod destinations;
/// `serve --load` of a bundle of this generation.
pub mod load;
mod notifications;
mod pipeline;
mod schemas;
mod seed;
mod table;
mod worker;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::post;

use super::app::{HostRule, Limiter, MAX_BODY};
use super::event_destinations::{Flavor, Gen, State, frame, openapi, wire};
use super::store::Store;
use super::{ServiceConfig, ServiceError};
pub use worker::Worker;

/// Timeout of one delivery (§6).
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);

/// This generation on the shared frame.
pub static FLAVOR: Flavor = Flavor {
    routes: table::routes,
    components: schemas::components,
    instance_paths: &[
        "/callbacks",
        "/callback-destinations",
        "/provider-deployments",
        "/provider-auth-config-imports",
    ],
    title: "Switchboard local service — callback-destinations",
    description: "The mid-2026 generation of the platform's API (callbacks on provider \
                  deployments, callback destinations, notifications per callback), as \
                  `switchboard serve --generation callback-destinations` serves it.",
};

/// What `launch` keeps of a running generation.
pub struct Launched {
    /// The router with its frame.
    pub router: Router,
    /// The delivery worker.
    pub worker: Worker,
    /// Its task.
    pub worker_task: tokio::task::JoinHandle<()>,
    /// The event simulation, when asked for.
    pub simulation: Option<tokio::task::JoinHandle<()>>,
    /// The seeded instance.
    pub instance_id: String,
}

/// Creates the tables, seeds, and builds the router and the worker.
pub async fn launch(
    store: Arc<Store>,
    base_url: &str,
    local: std::net::SocketAddr,
    cfg: &ServiceConfig,
    org_key: &crate::api::Secret,
    instance_key: Option<&crate::api::Secret>,
) -> Result<Launched, ServiceError> {
    let (seed_store, base, kind, history) =
        (store.clone(), base_url.to_string(), cfg.seed, cfg.history);
    let (org_id, instance_id) = tokio::task::spawn_blocking(move || {
        seed_store.write(|db| -> Result<_, super::store::StoreError> {
            super::event_destinations::db::migrate(db)?;
            db::migrate(db)?;
            let stored = super::event_destinations::db::newest_ids(db)?;
            super::ids::start_after(stored.iter().map(String::as_str));
            seed::bootstrap(db, kind, &base, history)
        })
    })
    .await??;
    // Shorter timeouts are for tests; the platform's own is 10 s.
    let timeout = cfg.delivery_timeout.min(ATTEMPT_TIMEOUT);
    let worker = Worker::new(
        store.clone(),
        timeout,
        worker::Notifications::new(cfg.retry_base),
    );
    let state = Gen(Arc::new(State {
        store,
        base_url: base_url.to_string(),
        org_key: super::app::hash_key(org_key.expose()),
        instance_key: instance_key.map(|k| super::app::hash_key(k.expose())),
        org_id,
        instance_id: instance_id.clone(),
        limiter: Limiter::new(cfg.rate_limit),
        hosts: HostRule::new(local.ip(), &cfg.allowed_hosts),
        worker: Arc::new(worker.clone()),
        flavor: &FLAVOR,
    }));
    let worker_task = worker.spawn();
    let simulation = cfg
        .simulate_events
        .map(|every| tokio::spawn(pipeline::simulate(state.clone(), every)));
    Ok(Launched {
        router: router(state),
        worker,
        worker_task,
        simulation,
        instance_id,
    })
}

async fn no_route() -> wire::Fail {
    wire::Fail::no_endpoint()
}

/// The whole router: the table's routes, the document, the receivers and the frame.
fn router(state: Gen) -> Router {
    super::event_destinations::table::router(table::routes())
        .route("/openapi.json", axum::routing::get(openapi::document))
        .route("/_receiver/{mode}", post(super::routes::hooks::receiver))
        .route("/w/{callback_id}", post(pipeline::incoming))
        .fallback(no_route)
        .method_not_allowed_fallback(no_route)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            frame::frame,
        ))
        .with_state(state)
}
