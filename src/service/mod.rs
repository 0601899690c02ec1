//! The embedded local service: the whole API on SQLite with real webhook delivery.
mod app;
/// The `callback-destinations` generation.
mod callback_destinations;
/// The client options that reach a running service.
mod client_for;
/// The webhook delivery worker and its signature.
pub mod delivery;
/// Types that only describe the API in the OpenAPI document.
mod doc_types;
mod due;
mod errors;
/// The `event-destinations` generation.
mod event_destinations;
mod events;
mod http;
/// Time-sortable ids.
pub mod ids;
/// `serve --load`: an export bundle written into an empty database.
pub mod load;
/// `serve --load` of an `event-destinations` bundle.
pub mod load_newer;
mod lock;
/// Rate-limited error lines.
mod logs;
/// Members' embedded actors and their teams.
mod membership;
/// The generated OpenAPI document.
pub mod openapi;
/// List query parsing and pagination.
pub mod paging;
mod records;
mod route;
mod router;
mod routes;
mod seed;
mod serve;
mod store;
mod validate;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::api::Secret;
use crate::api::generation::Generation;

pub use http::Limits as HttpLimits;
pub use serve::{ServeArgs, default_db_path, serve, serve_config};

/// Where the database lives.
#[derive(Debug, Clone)]
pub enum DbLocation {
    /// In memory; gone when the process ends.
    Memory,
    /// A file (created when missing).
    Path(PathBuf),
}

/// Which seed data to load into an empty database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seed {
    /// The demo world from `assets/`.
    Demo,
    /// Only the organization, instance and one key.
    None,
}

/// Everything `start` needs.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    /// Listen address; port 0 picks a free one.
    pub addr: SocketAddr,
    /// Database location.
    pub db: DbLocation,
    /// Seed data.
    pub seed: Seed,
    /// The accepted key; a fresh random one when `None`.
    pub api_key: Option<Secret>,
    /// Generate events every so often.
    pub simulate_events: Option<Duration>,
    /// The base of the delivery retry schedule (1 s in production).
    pub retry_base: Duration,
    /// Requests per window before 429.
    pub rate_limit: Option<(u32, Duration)>,
    /// Timeout of one delivery attempt (10 s, as the real service).
    pub delivery_timeout: Duration,
    /// Remove the database's directory on shutdown (the demo's throwaway database).
    pub remove_db_dir_on_shutdown: bool,
    /// Synthetic past events to seed at start (`serve --history N`).
    pub history: usize,
    /// Connection limits of the HTTP server.
    pub limits: HttpLimits,
    /// `Host` names answered besides the bound address and `localhost`.
    pub allowed_hosts: Vec<String>,
    /// The API generation served (`pulsar` unless asked).
    pub generation: Generation,
    /// The newer generations only: an instance key besides the organization key (`api_key`); a
    /// fresh random one when `None`.
    pub instance_key: Option<Secret>,
}

fn loopback_any_port() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

impl ServiceConfig {
    /// For tests: `127.0.0.1:0`, in memory, no seed, a random key, no simulation.
    pub fn ephemeral() -> Self {
        Self {
            addr: loopback_any_port(),
            db: DbLocation::Memory,
            seed: Seed::None,
            api_key: None,
            simulate_events: None,
            retry_base: Duration::from_secs(1),
            rate_limit: None,
            delivery_timeout: delivery::ATTEMPT_TIMEOUT,
            remove_db_dir_on_shutdown: false,
            history: 0,
            limits: HttpLimits::default(),
            allowed_hosts: Vec::new(),
            generation: Generation::Pulsar,
            instance_key: None,
        }
    }

    /// For `switchboard demo`: `127.0.0.1:0`, the demo world in a throwaway database unless `db`
    /// is given, events every few seconds.
    pub fn demo(db: Option<PathBuf>) -> Self {
        let (db, temporary) = match db {
            Some(p) => (p, false),
            None => (
                std::env::temp_dir()
                    .join(format!("switchboard-demo-{}", ids::random_alnum(10)))
                    .join("service.db"),
                true,
            ),
        };
        Self {
            db: DbLocation::Path(db),
            seed: Seed::Demo,
            simulate_events: Some(Duration::from_secs(4)),
            remove_db_dir_on_shutdown: temporary,
            ..Self::ephemeral()
        }
    }
}

/// A running service.
#[derive(Debug)]
pub struct RunningService {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    /// The key clients must send (the newer generations: the organization key).
    pub api_key: Secret,
    /// The newer generations: the instance key.
    pub instance_key: Option<Secret>,
    /// The newer generations: the seeded instance's id.
    pub instance_id: Option<String>,
    /// The database file, when not in memory.
    pub db_path: Option<PathBuf>,
    stop: oneshot::Sender<()>,
    server: JoinHandle<Result<(), std::io::Error>>,
    worker: JoinHandle<()>,
    simulation: Option<JoinHandle<()>>,
    delivery: DeliveryHandle,
    remove_dir: Option<PathBuf>,
    watcher: JoinHandle<()>,
    /// Set when the service must stop on its own (its database file vanished).
    fatal: tokio::sync::watch::Receiver<Option<String>>,
    /// Held until shutdown ends: one service per database.
    lock: Option<lock::DbLock>,
}

/// The delivery worker handle, kept opaque in `RunningService`'s `Debug`.
enum DeliveryHandle {
    Pulsar(delivery::Delivery),
    Events(event_destinations::Worker),
    Callbacks(callback_destinations::Worker),
}

impl std::fmt::Debug for DeliveryHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Delivery")
    }
}

/// How long shutdown waits for open requests.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

impl RunningService {
    /// Resolves with the reason once the service has to stop on its own (its database file was
    /// deleted or replaced while serving); never otherwise.
    pub async fn failed(&self) -> String {
        let mut fatal = self.fatal.clone();
        loop {
            if let Some(why) = fatal.borrow_and_update().clone() {
                return why;
            }
            if fatal.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }

    /// Leaves everything where it is, as a crash would (for crash tests in one process): its
    /// tasks stop only when their runtime does, and the database lock goes as the OS drops it
    /// for a process that died.
    #[doc(hidden)]
    pub fn abandon(mut self) {
        drop(self.lock.take());
        std::mem::forget(self);
    }

    /// Stops accepting requests, finishes open ones and attempts in flight, and stops the worker.
    pub async fn shutdown(self) {
        self.watcher.abort();
        let _ = self.stop.send(());
        let _ = tokio::time::timeout(SHUTDOWN_GRACE, self.server).await;
        match &self.delivery {
            DeliveryHandle::Pulsar(d) => d.stop().await,
            DeliveryHandle::Events(w) => w.stop().await,
            DeliveryHandle::Callbacks(w) => w.stop().await,
        }
        let _ = self.worker.await;
        if let Some(sim) = self.simulation {
            let _ = sim.await;
        }
        if let Some(dir) = self.remove_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
        drop(self.lock);
    }
}

/// How often the database file is checked to still be the one opened.
const WATCH_EVERY: Duration = Duration::from_secs(1);

/// Checks the database file every second; when it is gone or replaced, says so loudly and
/// reports the service as failed (writes are refused from then on by the store itself).
async fn watch_file(store: Arc<store::Store>, fatal: tokio::sync::watch::Sender<Option<String>>) {
    loop {
        tokio::time::sleep(WATCH_EVERY).await;
        if let Err(e) = store.check_file() {
            tracing::error!("{e}");
            fatal.send_replace(Some(e.to_string()));
            return;
        }
    }
}

/// Errors starting or running the service.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// Binding, reading or writing failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The database failed.
    #[error("{0}")]
    Store(#[from] store::StoreError),
    /// A bad option.
    #[error("{0}")]
    Config(String),
    /// A background task died.
    #[error("background task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
    /// Another service holds the database.
    #[error("{0}")]
    Locked(#[from] lock::LockError),
    /// The service had to stop on its own.
    #[error("{0}")]
    Stopped(String),
}

/// Starts the service in this process and returns once it listens.
pub async fn start(cfg: ServiceConfig) -> Result<RunningService, ServiceError> {
    let path = match &cfg.db {
        DbLocation::Memory => None,
        DbLocation::Path(p) => {
            if let Some(parent) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)?;
            }
            Some(p.clone())
        }
    };
    // Before anything opens the database: a second service on it is refused, naming the first.
    let mut db_lock = path.as_deref().map(lock::DbLock::acquire).transpose()?;
    let open_path = path.clone();
    let store = Arc::new(
        tokio::task::spawn_blocking(move || store::Store::open(open_path.as_deref())).await??,
    );
    let id_store = store.clone();
    tokio::task::spawn_blocking(move || -> Result<(), store::StoreError> {
        let stored = id_store.read(|db| db.largest_ids())?;
        ids::start_after(stored.iter().map(String::as_str));
        Ok(())
    })
    .await??;
    let listener = tokio::net::TcpListener::bind(cfg.addr).await?;
    let local = listener.local_addr()?;
    let base_url = format!("http://{local}");
    if let Some(l) = db_lock.as_mut() {
        l.announce(Some(&base_url))?;
    }
    let api_key = cfg
        .api_key
        .clone()
        .unwrap_or_else(|| Secret::new(format!("sk_local_{}", ids::random_alnum(40))));
    if cfg.generation != Generation::Pulsar {
        let instance_key = cfg
            .instance_key
            .clone()
            .unwrap_or_else(|| Secret::new(format!("sk_inst_{}", ids::random_alnum(40))));
        let (router, instance_id, worker, simulation, delivery) =
            if cfg.generation == Generation::EventDestinations {
                let l = event_destinations::launch(
                    store.clone(),
                    &base_url,
                    local,
                    &cfg,
                    &api_key,
                    Some(&instance_key),
                )
                .await?;
                let d = DeliveryHandle::Events(l.worker);
                (l.router, l.instance_id, l.worker_task, l.simulation, d)
            } else {
                let l = callback_destinations::launch(
                    store.clone(),
                    &base_url,
                    local,
                    &cfg,
                    &api_key,
                    Some(&instance_key),
                )
                .await?;
                let d = DeliveryHandle::Callbacks(l.worker);
                (l.router, l.instance_id, l.worker_task, l.simulation, d)
            };
        let (fatal_tx, fatal) = tokio::sync::watch::channel(None);
        let watcher = tokio::spawn(watch_file(store.clone(), fatal_tx));
        let (stop, stopped) = oneshot::channel::<()>();
        let server = tokio::spawn(http::serve(listener, router, stopped, cfg.limits));
        let remove_dir = cfg
            .remove_db_dir_on_shutdown
            .then(|| path.as_ref().and_then(|p| p.parent().map(PathBuf::from)))
            .flatten();
        return Ok(RunningService {
            base_url,
            api_key,
            instance_key: Some(instance_key),
            instance_id: Some(instance_id),
            db_path: path,
            stop,
            server,
            worker,
            simulation,
            delivery,
            remove_dir,
            watcher,
            fatal,
            lock: db_lock,
        });
    }
    let (seed_store, seed_base, seed_kind) = (store.clone(), base_url.clone(), cfg.seed);
    tokio::task::spawn_blocking(move || {
        seed_store.with(|db| seed::bootstrap(db, seed_kind, &seed_base))
    })
    .await??;
    if cfg.history > 0 {
        let (history_store, history_base, events) = (store.clone(), base_url.clone(), cfg.history);
        let clock = std::time::Instant::now();
        let written = tokio::task::spawn_blocking(move || {
            seed::history(&history_store, events, &history_base)
        })
        .await??;
        tracing::info!(
            "seeded {events} past events ({written} notifications) in {:.1} s",
            clock.elapsed().as_secs_f64()
        );
    }
    let delivery = delivery::Delivery::new(
        store.clone(),
        cfg.retry_base,
        cfg.delivery_timeout,
        local.to_string(),
    );
    let (fatal_tx, fatal) = tokio::sync::watch::channel(None);
    let watcher = tokio::spawn(watch_file(store.clone(), fatal_tx));
    let app = app::App {
        store,
        base_url: base_url.clone(),
        key_hash: app::hash_key(api_key.expose()),
        limiter: Arc::new(app::Limiter::new(cfg.rate_limit)),
        delivery: delivery.clone(),
        body_read_timeout: cfg.limits.body_read,
        teams: Arc::default(),
        hosts: Arc::new(app::HostRule::new(local.ip(), &cfg.allowed_hosts)),
        hook_limits: Arc::new(app::KeyedLimiter::new(cfg.rate_limit)),
    };
    let worker = delivery.spawn();
    let simulation = cfg
        .simulate_events
        .map(|every| tokio::spawn(events::simulate(app.clone(), every)));
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(http::serve(
        listener,
        router::router(app),
        stopped,
        cfg.limits,
    ));
    let remove_dir = cfg
        .remove_db_dir_on_shutdown
        .then(|| path.as_ref().and_then(|p| p.parent().map(PathBuf::from)))
        .flatten();
    Ok(RunningService {
        base_url,
        api_key,
        instance_key: None,
        instance_id: None,
        db_path: path,
        stop,
        server,
        worker,
        simulation,
        delivery: DeliveryHandle::Pulsar(delivery),
        remove_dir,
        watcher,
        fatal,
        lock: db_lock,
    })
}
