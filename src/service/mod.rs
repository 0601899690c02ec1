//! The embedded local service: the whole API on SQLite with real webhook delivery.
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::api::Secret;

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
}

/// A running service.
#[derive(Debug)]
pub struct RunningService {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    /// The key clients must send.
    pub api_key: Secret,
}

/// Errors starting or running the service.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// Not built yet.
    #[error("the local service is not built yet")]
    NotBuilt,
}

/// Starts the service in this process and returns once it listens.
pub async fn start(cfg: ServiceConfig) -> Result<RunningService, ServiceError> {
    let _ = cfg;
    Err(ServiceError::NotBuilt)
}

// TEMPORARY stand-ins so the `headless` branch compiles; the service branch's real
// `ServiceConfig::demo`, `ServeArgs` and `serve` replace these on merge.
impl ServiceConfig {
    /// The demo setup (stand-in).
    pub fn demo(db: Option<PathBuf>) -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            db: db.map(DbLocation::Path).unwrap_or(DbLocation::Memory),
            seed: Seed::Demo,
            api_key: None,
            simulate_events: None,
            retry_base: Duration::from_secs(1),
            rate_limit: None,
        }
    }
}

/// Options of `switchboard serve` (stand-in).
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {}

/// Runs the service in the foreground (stand-in).
pub async fn serve(_: ServeArgs) -> Result<(), ServiceError> {
    Err(ServiceError::NotBuilt)
}
