//! The `event-destinations` generation (shared/spec/generations.md §3–§5, §7), served by
//! `serve --generation event-destinations`: its own routes (one table: `table`), records and
//! delivery worker on the same store as pulsar's, which stays as it is.
pub(super) mod callbacks;
pub(super) mod db;
mod deliveries;
pub(super) mod destinations;
pub(super) mod frame;
pub(super) mod imports;
pub(super) mod introspect;
mod listeners;
pub(super) mod openapi;
mod pipeline;
pub(super) mod route;
pub(super) mod schemas;
pub(super) mod seed;
pub(super) mod stored;
pub(super) mod table;
pub(super) mod teams;
pub(super) mod wire;
pub(super) mod worker;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::post;

use super::app::{HostRule, Limiter, MAX_BODY};
use super::store::{Db, Store};
use super::{ServiceConfig, ServiceError};
pub use worker::Worker;

/// Shared state of every handler.
#[derive(Clone)]
pub struct Gen(pub Arc<State>);

/// What [`Gen`] holds.
pub struct State {
    /// The database.
    pub store: Arc<Store>,
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    /// SHA-256 of the organization key.
    pub org_key: [u8; 32],
    /// SHA-256 of the instance key, when there is one.
    pub instance_key: Option<[u8; 32]>,
    /// The seeded organization.
    pub org_id: String,
    /// The seeded instance.
    pub instance_id: String,
    /// Requests per window.
    pub limiter: Limiter,
    /// Which `Host` headers are answered.
    pub hosts: HostRule,
    /// The delivery worker, nudged when something may be due.
    pub worker: Arc<dyn Wake>,
    /// Which generation's routes, document and key rules these are.
    pub flavor: &'static Flavor,
}

/// A delivery worker the handlers can nudge.
pub trait Wake: Send + Sync {
    /// Something may be due now.
    fn wake(&self);
    /// Changes when the worker is told to stop.
    fn stopped(&self) -> tokio::sync::watch::Receiver<bool>;
}

/// What differs between the generations served on this frame: the route table, the document's
/// components and words, and which paths are instance paths.
pub struct Flavor {
    /// Every route, declared once.
    pub routes: fn() -> Vec<route::Route>,
    /// The OpenAPI document's component schemas.
    pub components: fn() -> serde_json::Value,
    /// Paths (and their sub-paths) that need an instance.
    pub instance_paths: &'static [&'static str],
    /// The document's title.
    pub title: &'static str,
    /// The document's description.
    pub description: &'static str,
}

/// This generation.
pub static FLAVOR: Flavor = Flavor {
    routes: table::routes,
    components: schemas::components,
    instance_paths: &[
        "/callbacks",
        "/callback-events",
        "/callback-instances",
        "/provider-auth-config-imports",
    ],
    title: "Switchboard local service — event-destinations",
    description: "The newest generation of the platform's API (organization event \
                  destinations, listeners, events, deliveries with retry, attempts), as \
                  `switchboard serve --generation event-destinations` serves it.",
};

impl Gen {
    /// Runs a read-only closure on a read connection, off the async threads.
    pub async fn read<R, F>(&self, f: F) -> Result<R, wire::Fail>
    where
        R: Send + 'static,
        F: FnOnce(&Db) -> Result<R, wire::Fail> + Send + 'static,
    {
        let store = self.0.store.clone();
        tokio::task::spawn_blocking(move || store.read(f))
            .await
            .map_err(wire::Fail::internal)?
    }

    /// Runs a closure as one write transaction, off the async threads.
    pub async fn write<R, F>(&self, f: F) -> Result<R, wire::Fail>
    where
        R: Send + 'static,
        F: FnOnce(&Db) -> Result<R, wire::Fail> + Send + 'static,
    {
        let store = self.0.store.clone();
        tokio::task::spawn_blocking(move || store.write(f))
            .await
            .map_err(wire::Fail::internal)?
    }
}

/// What `start` keeps of a running generation.
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

/// Timeout of one attempt (§7).
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(20);

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
            db::migrate(db)?;
            let stored = db::newest_ids(db)?;
            super::ids::start_after(stored.iter().map(String::as_str));
            seed::bootstrap(db, kind, &base, history)
        })
    })
    .await??;
    // Shorter timeouts are for tests; the platform's own is 20 s.
    let timeout = if cfg.delivery_timeout < super::delivery::ATTEMPT_TIMEOUT {
        cfg.delivery_timeout
    } else {
        ATTEMPT_TIMEOUT
    };
    let worker = Worker::new(store.clone(), timeout, worker::Deliveries);
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
    table::router(table::routes())
        .route("/openapi.json", axum::routing::get(openapi::document))
        .route("/_receiver/{mode}", post(super::routes::hooks::receiver))
        .route("/w/{webhook_id}", post(pipeline::incoming))
        .fallback(no_route)
        .method_not_allowed_fallback(no_route)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            frame::frame,
        ))
        .with_state(state)
}
