//! `switchboard serve`: options, start, print the address, run until Ctrl-C or SIGTERM.
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use super::{DbLocation, Seed, ServiceConfig, ServiceError, start};
use crate::api::Secret;
use crate::api::generation::Generation;

/// Options of `switchboard serve`.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8787")]
    pub addr: SocketAddr,
    /// Database file, or `:memory:` (default: the XDG data dir's switchboard/service.db).
    #[arg(long, value_name = "PATH|:memory:")]
    pub db: Option<String>,
    /// Seed data for an empty database.
    #[arg(long, default_value = "none", value_parser = parse_seed, value_name = "demo|none")]
    pub seed: Seed,
    /// Read the accepted API key from this environment variable (else a random key is printed);
    /// with the newer generations, the organization key.
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// The API generation to serve: pulsar, callback-destinations or event-destinations.
    #[arg(
        long,
        default_value = "pulsar",
        value_name = "pulsar|callback-destinations|event-destinations"
    )]
    pub generation: Generation,
    /// The newer generations: read an instance key from this environment variable (else a random
    /// one is printed).
    #[arg(long, value_name = "VAR")]
    pub instance_key_env: Option<String>,
    /// Generate an event every SECS seconds.
    #[arg(long, value_name = "SECS")]
    pub simulate_events: Option<u64>,
    /// Base of the delivery retry schedule, in milliseconds.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub retry_base_ms: u64,
    /// Rate limit, e.g. `100/60s`.
    #[arg(long, value_name = "N/WINDOW", value_parser = parse_rate_limit)]
    pub rate_limit: Option<(u32, Duration)>,
    /// Seed N synthetic past events (delivered, retried, failed) over the last four weeks.
    #[arg(long, value_name = "N")]
    pub history: Option<usize>,
    /// Also answer requests whose `Host` is NAME (besides the bound address and localhost).
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// For tests only: run the service's clock this many seconds ahead (negative: behind) of the
    /// machine's, in `created_at`, ids and the `Date` header.
    #[arg(long, value_name = "SECS", hide = true, allow_hyphen_values = true)]
    pub test_clock_skew_secs: Option<i64>,
    /// Post each sample (`NAME.json`, as `notifications keep` writes) of DIR to the first
    /// `webhook_manual` callback at start, as hook events.
    #[arg(long, value_name = "DIR")]
    pub samples: Option<PathBuf>,
    /// Start from an export bundle (`notifications export`): its callbacks, destinations and
    /// deliveries under the same ids, none retried until recovered; needs a new `--db PATH`.
    #[arg(long, value_name = "FILE")]
    pub load: Option<PathBuf>,
    /// With `--load`: every loaded destination (and recorded delivery) points at URL.
    #[arg(long, value_name = "URL", requires = "load")]
    pub rewrite_destinations: Option<String>,
    /// With `--load`: every loaded destination signs with the secret in this environment variable.
    #[arg(long, value_name = "VAR", requires = "load")]
    pub signing_secret_env: Option<String>,
}

/// Parses `demo` or `none`.
pub fn parse_seed(s: &str) -> Result<Seed, String> {
    match s {
        "demo" => Ok(Seed::Demo),
        "none" => Ok(Seed::None),
        other => Err(format!("expected demo or none, not {other:?}")),
    }
}

/// Parses `N/WINDOW` where the window is seconds with an optional `s`, `m` or `h` unit.
pub fn parse_rate_limit(s: &str) -> Result<(u32, Duration), String> {
    let bad = || format!("expected N/WINDOW such as 100/60s, not {s:?}");
    let (n, window) = s.split_once('/').ok_or_else(bad)?;
    let n: u32 = n.trim().parse().map_err(|_| bad())?;
    let window = window.trim();
    let (digits, unit) = match window.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => window.split_at(i),
        None => (window, "s"),
    };
    let amount: u64 = digits.parse().map_err(|_| bad())?;
    let secs = match unit {
        "s" => amount,
        "m" => amount.saturating_mul(60),
        "h" => amount.saturating_mul(3600),
        _ => return Err(bad()),
    };
    if n == 0 || secs == 0 {
        return Err(bad());
    }
    Ok((n, Duration::from_secs(secs)))
}

/// The persistent default database: `<XDG data dir>/switchboard/service.db`.
pub fn default_db_path() -> Option<PathBuf> {
    dirs::data_dir().map(|d| d.join("switchboard").join("service.db"))
}

impl ServeArgs {
    /// The service configuration these options describe.
    pub fn to_config(&self) -> Result<ServiceConfig, ServiceError> {
        let db =
            match self.db.as_deref() {
                Some(":memory:") => DbLocation::Memory,
                Some(p) => DbLocation::Path(PathBuf::from(p)),
                None => DbLocation::Path(default_db_path().ok_or_else(|| {
                    ServiceError::Config("no data directory; pass --db PATH".into())
                })?),
            };
        let from_env = |var: &Option<String>| match var {
            None => Ok(None),
            Some(var) => match std::env::var(var) {
                Ok(v) if !v.is_empty() => Ok(Some(Secret::new(v))),
                _ => Err(ServiceError::Config(format!(
                    "environment variable {var} is not set"
                ))),
            },
        };
        let api_key = from_env(&self.api_key_env)?;
        let instance_key = from_env(&self.instance_key_env)?;
        // With `--load` the bundle names the generation.
        if instance_key.is_some() && self.generation == Generation::Pulsar && self.load.is_none() {
            return Err(ServiceError::Config(
                "--instance-key-env needs --generation callback-destinations or \
                 event-destinations"
                    .into(),
            ));
        }
        Ok(ServiceConfig {
            addr: self.addr,
            db,
            seed: self.seed,
            api_key,
            simulate_events: self.simulate_events.map(Duration::from_secs),
            retry_base: Duration::from_millis(self.retry_base_ms.max(1)),
            rate_limit: self.rate_limit,
            history: self.history.unwrap_or(0),
            allowed_hosts: self.allow_host.clone(),
            generation: self.generation,
            instance_key,
            ..ServiceConfig::ephemeral()
        })
    }
}

/// Starts the service, prints its base URL (and a generated key, once), and serves until Ctrl-C
/// or SIGTERM.
pub async fn serve(args: ServeArgs) -> Result<(), ServiceError> {
    if let Some(secs) = args.test_clock_skew_secs {
        super::ids::skew_clock(secs.saturating_mul(1000));
    }
    let mut cfg = args.to_config()?;
    if let Some(file) = &args.load {
        load_bundle(&args, &mut cfg, file).await?;
    }
    serve_with_samples(cfg, args.samples.as_deref()).await
}

/// `--load`: checks the options, writes the bundle into the (new) database and says what it
/// holds; the service then starts on it as on any database.
async fn load_bundle(
    args: &ServeArgs,
    cfg: &mut ServiceConfig,
    file: &std::path::Path,
) -> Result<(), ServiceError> {
    use super::load::{read, write};
    let DbLocation::Path(db) = &cfg.db else {
        return Err(ServiceError::Config(
            "--load needs --db PATH (a database file, not :memory:)".into(),
        ));
    };
    if args.db.is_none() {
        return Err(ServiceError::Config(
            "--load needs --db PATH: a new database for the bundle".into(),
        ));
    }
    if cfg.seed != Seed::None || cfg.history > 0 || cfg.simulate_events.is_some() {
        return Err(ServiceError::Config(
            "--load holds only the bundle: --seed none, no --history or --simulate-events".into(),
        ));
    }
    let rewrite_destinations = match &args.rewrite_destinations {
        None => None,
        Some(u) => Some(
            url::Url::parse(u)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https"))
                .ok_or_else(|| {
                    ServiceError::Config(format!(
                        "--rewrite-destinations {}: not an http(s) URL",
                        crate::text::line(u)
                    ))
                })?,
        ),
    };
    let signing_secret = match &args.signing_secret_env {
        None => None,
        Some(var) => match std::env::var(var) {
            Ok(v) if !v.is_empty() => Some(Secret::new(v)),
            _ => {
                return Err(ServiceError::Config(format!(
                    "environment variable {var} is not set"
                )));
            }
        },
    };
    // The bundle's generation is served (pulsar, callback-destinations or event-destinations):
    // `--generation` may only name it.
    let asked = (cfg.generation != Generation::Pulsar).then_some(cfg.generation);
    let (db, path) = (db.clone(), file.to_path_buf());
    let loaded = tokio::task::spawn_blocking(move || {
        let mut bundle = read(&path)?;
        let served = bundle.generation.parse::<Generation>().ok();
        if let Some(g) = asked.filter(|g| Some(*g) != served) {
            return Ok(Err(g));
        }
        bundle.rewrite(rewrite_destinations.as_ref(), signing_secret.as_ref());
        write(&db, &bundle).map(Ok)
    })
    .await?
    .map_err(|e| ServiceError::Config(e.to_string()))?
    .map_err(|g| {
        ServiceError::Config(format!(
            "--load serves the bundle's generation, not {}; leave out --generation",
            g.as_str()
        ))
    })?;
    let shown = crate::text::line(&file.display().to_string()).into_owned();
    if loaded.generation == "callback-destinations" {
        cfg.generation = Generation::CallbackDestinations;
        println!(
            "Loaded {shown}: {} callbacks, {} destinations, {} events, {} notifications ({} \
             attempts), none sent until recovered",
            loaded.callbacks,
            loaded.destinations,
            loaded.events,
            loaded.notifications,
            loaded.attempts
        );
    } else if loaded.generation == "event-destinations" {
        cfg.generation = Generation::EventDestinations;
        println!(
            "Loaded {shown}: {} destinations, {} events, {} deliveries ({} attempts), none \
             retried until recovered",
            loaded.destinations, loaded.events, loaded.notifications, loaded.attempts
        );
    } else {
        println!(
            "Loaded {shown}: {} callbacks, {} destinations, {} notifications ({} attempts), none \
             retried until recovered",
            loaded.callbacks, loaded.destinations, loaded.notifications, loaded.attempts
        );
    }
    Ok(())
}

/// Starts a service from a configuration (e.g. [`ServiceConfig::demo`]), prints its base URL and
/// a generated key once, and serves until Ctrl-C or SIGTERM.
pub async fn serve_config(cfg: ServiceConfig) -> Result<(), ServiceError> {
    serve_with_samples(cfg, None).await
}

/// [`serve_config`], posting the samples of `samples` once it listens.
async fn serve_with_samples(
    cfg: ServiceConfig,
    samples: Option<&std::path::Path>,
) -> Result<(), ServiceError> {
    let generated = cfg.api_key.is_none();
    let instance_generated = cfg.instance_key.is_none();
    let generation = cfg.generation;
    let svc = start(cfg).await?;
    println!("Switchboard local service listening on {}", svc.base_url);
    if let Some(p) = &svc.db_path {
        println!("Database: {}", p.display());
    }
    if generation != Generation::Pulsar {
        println!(
            "Generation: {} (versions mt_2025_01_01_dashboard, mt_2026_01_01_magnetar)",
            generation.as_str()
        );
        if generated {
            println!("Organization key (shown once): {}", svc.api_key.expose());
        }
        if let (true, Some(k)) = (instance_generated, &svc.instance_key) {
            println!("Instance key (shown once): {}", k.expose());
        }
        if let Some(id) = &svc.instance_id {
            println!("Instance id: {id}");
        }
    } else if generated {
        println!("API key (shown once): {}", svc.api_key.expose());
    }
    if let Some(dir) = samples {
        post_samples(&svc.base_url, &svc.api_key, dir).await;
    }
    let failed = tokio::select! {
        r = wait_for_signal() => { r?; None }
        why = svc.failed() => Some(why),
    };
    svc.shutdown().await;
    match failed {
        Some(why) => Err(ServiceError::Stopped(why)),
        None => Ok(()),
    }
}

/// Posts the samples of `dir` into the service just started, saying what was posted and what
/// was not; a failure leaves the service running.
async fn post_samples(base_url: &str, key: &Secret, dir: &std::path::Path) {
    use crate::api::samples::{Library, post_all};
    let client = match crate::api::Client::new(crate::api::ClientOptions {
        base_url: base_url.to_string(),
        api_key: key.clone(),
        ..crate::api::ClientOptions::default()
    }) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("samples not posted: {e}");
            return;
        }
    };
    match post_all(&client, &Library::in_dir(dir.to_path_buf())).await {
        Ok(p) => {
            println!("Samples posted: {}", p.posted.len());
            for why in p.skipped {
                eprintln!("sample not posted: {}", crate::text::line(&why));
            }
        }
        Err(e) => eprintln!("samples not posted: {}", crate::text::line(&e.to_string())),
    }
}

async fn wait_for_signal() -> Result<(), ServiceError> {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        r = tokio::signal::ctrl_c() => r?,
        _ = term.recv() => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_limits_parse_with_units() {
        assert_eq!(
            parse_rate_limit("100/60s"),
            Ok((100, Duration::from_secs(60)))
        );
        assert_eq!(parse_rate_limit("5/2m"), Ok((5, Duration::from_secs(120))));
        assert_eq!(parse_rate_limit("7/30"), Ok((7, Duration::from_secs(30))));
        for bad in ["100", "0/60s", "10/0s", "x/60s", "10/5d"] {
            assert!(parse_rate_limit(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn memory_db_and_missing_key_variable() {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            serve: ServeArgs,
        }
        let cli = Cli::try_parse_from(["x", "--db", ":memory:", "--seed", "demo"]).expect("parse");
        let cfg = cli.serve.to_config().expect("config");
        assert!(matches!(cfg.db, DbLocation::Memory));
        assert_eq!(cfg.seed, Seed::Demo);
        assert_eq!(cfg.addr.to_string(), "127.0.0.1:8787");
        let cli = Cli::try_parse_from(["x", "--api-key-env", "SWITCHBOARD_SURELY_UNSET_VAR"])
            .expect("parse");
        assert!(cli.serve.to_config().is_err());
        assert!(Cli::try_parse_from(["x", "--seed", "lots"]).is_err());
        assert_eq!(cfg.generation, Generation::Pulsar);
        let cli = Cli::try_parse_from(["x", "--generation", "event-destinations"]).expect("parse");
        let cfg = cli.serve.to_config().expect("config");
        assert_eq!(cfg.generation, Generation::EventDestinations);
        let cli =
            Cli::try_parse_from(["x", "--generation", "callback-destinations"]).expect("parse");
        let cfg = cli.serve.to_config().expect("config");
        assert_eq!(cfg.generation, Generation::CallbackDestinations);
        assert!(Cli::try_parse_from(["x", "--generation", "magnetar"]).is_err());
        // An instance key means nothing to pulsar.
        let cli = Cli::try_parse_from(["x", "--instance-key-env", "PATH"]).expect("parse");
        assert!(cli.serve.to_config().is_err());
    }
}
