//! The `switchboard` binary: parses the command line and hands over to the console, the local
//! service or a headless command.
mod cli;
mod demo;
mod setup;

use std::process::ExitCode;

use clap::Parser;
use switchboard::api::detect::{self, Detection, Detector};
use switchboard::api::identity::ServiceIdentity;
use switchboard::api::{Client, ClientOptions};
use switchboard::config::{self, Env, Flags, Paths, Settings};
use switchboard::console::{self, ConsoleSetup};
use switchboard::headless::{self, OutputFormat};

/// mimalloc: under load the service spent about a quarter of a page in glibc's malloc and free.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use switchboard::service;

use cli::{Cli, Command, GlobalArgs};

/// Exit code of usage and configuration errors.
const USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(dispatch(cli));
    // A profile's key command may still be running on a blocking thread (a password manager
    // waiting for its user): leave without waiting for it.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    ExitCode::from(code)
}

async fn dispatch(cli: Cli) -> u8 {
    let g = cli.global;
    let to_file = matches!(cli.command, None | Some(Command::Demo { .. }));
    let default_level = if matches!(cli.command, Some(Command::Serve(_))) {
        "info"
    } else {
        "warn"
    };
    if let Err(e) = init_logging(g.log_level.as_deref().unwrap_or(default_level), to_file) {
        eprintln!("error: {e}");
        return USAGE;
    }
    // `--view` before the subcommand opens the console or a list on a saved view; anywhere
    // else it would be silently ignored, so it is refused.
    let takes_view = matches!(
        cli.command,
        None | Some(Command::Resource(_) | Command::Demo { .. })
    );
    if let (Some(name), false) = (&g.view, takes_view) {
        let name = switchboard::text::line(name).into_owned();
        eprintln!("error: --view {name}: only the console and list commands open on a saved view");
        return USAGE;
    }
    match cli.command {
        Some(Command::Resource(r)) => run_headless(&g, r).await,
        Some(Command::Alerts(a)) => alerts(&g, a).await,
        Some(Command::Mcp {
            allow_writes,
            replay_to,
            replay_secret_env,
        }) => mcp(&g, allow_writes, &replay_to, replay_secret_env.as_deref()).await,
        Some(Command::Info { versions }) => info(&g, versions).await,
        Some(Command::Completion { shell }) => setup::completion(shell),
        Some(Command::Man) => setup::man(),
        Some(Command::Profile(p)) => setup::profile(&g, p),
        // ---- service wiring: `serve` and `demo` use the service branch's API ----
        Some(Command::Serve(args)) => match service::serve(args).await {
            Ok(()) => 0,
            Err(e) => fail(&e),
        },
        // Boxed: the console's state makes these futures large (clippy::large_futures).
        Some(Command::Demo { db, generation }) => Box::pin(demo(&g, db, generation)).await,
        // ---- end of service wiring ----
        None => Box::pin(open_console(&g)).await,
    }
}

fn fail(e: &dyn std::fmt::Display) -> u8 {
    // An error may quote a server or a file: through the one sanitizer.
    eprintln!("{}", switchboard::text::multiline(&format!("error: {e}")));
    1
}

/// The global flags that take part in resolving the configuration.
pub(crate) fn flags(g: &GlobalArgs) -> Flags {
    Flags {
        config: g.config.clone(),
        profile: g.profile.clone(),
        base_url: g.base_url.clone(),
        read_only: g.read_only,
        generation: g.generation,
    }
}

/// The detection cache for a base URL and instance, in the data dir.
fn detector(base_url: &str, instance: Option<&str>) -> Option<Detector> {
    let dir = Paths::with_config(None).data_dir?;
    Some(Detector::new(
        &dir,
        ServiceIdentity::new(base_url, instance),
    ))
}

/// The client keeping its detection in the cache (when there is a data dir).
fn with_detector(client: Client) -> Client {
    match detector(client.base_url(), client.options().instance_id.as_deref()) {
        Some(d) => client.with_detector(d),
        None => client,
    }
}

/// Resolves the configuration into a client, printing warnings; `Err` holds the exit code.
fn connect(g: &GlobalArgs) -> Result<(Client, config::Resolved), u8> {
    // A configuration error is a usage error, reported as any other (JSON for programs).
    let usage = |e: String| report(g, &headless::HeadlessError::Usage(e));
    let resolved =
        config::resolve(&flags(g), &Env::from_process()).map_err(|e| usage(e.to_string()))?;
    for w in &resolved.warnings {
        eprintln!("warning: {w}");
    }
    let mut options = resolved.options.clone();
    if let Some(pages) = g.max_pages {
        options.budget = switchboard::api::budget::Budget::with_max_pages(pages);
    }
    let client = Client::new(options).map_err(|e| usage(e.to_string()))?;
    Ok((with_detector(client), resolved))
}

async fn run_headless(g: &GlobalArgs, cmd: headless::Resource) -> u8 {
    let (client, resolved) = match connect(g) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let ctx = headless::ForwardContext {
        profile: resolved.profile.clone(),
        data_dir: Paths::with_config(None).data_dir,
        read_only: resolved.read_only,
    };
    let mut cmd = cmd;
    let mut fields = g.fields.clone();
    // `--view NAME` on a list (after it, or before the subcommand): the saved view fills in
    // what the command line left out. Before a command that is no list it is refused (exit 2).
    let named = match (headless::view_name(&mut cmd), g.view.clone()) {
        (Some(after), Some(before)) if after != before => {
            let e = headless::HeadlessError::Usage(format!(
                "--view {before} and --view {after}: one view at a time"
            ));
            return report(g, &e);
        }
        (after, before) => after.or(before),
    };
    if let Some(name) = named {
        let applied = config::views::session_view(&flags(g), &Env::from_process(), &name)
            .map_err(|e| headless::HeadlessError::Usage(e.to_string()))
            .and_then(|v| headless::apply_view(&mut cmd, &name, &v, chrono::Utc::now()));
        match applied {
            Ok(columns) => fields = fields.or(columns.map(|c| c.join(","))),
            Err(e) => return report(g, &e),
        }
    }
    let result = match headless::Output::new(g.output, g.jq.as_deref(), fields.as_deref()) {
        Ok(out) => headless::run_in_profile(&client, &out, cmd, &ctx).await,
        Err(e) => Err(e),
    };
    match result {
        // A reader that closed the pipe (`| head`) took what it wanted: quiet, as gh and kubectl.
        Ok(()) | Err(headless::HeadlessError::ReaderClosed) => 0,
        Err(e) => report(g, &e),
    }
}

/// `alerts check|watch`: the rules are read and checked before the key or any request.
async fn alerts(g: &GlobalArgs, cmd: headless::AlertsCmd) -> u8 {
    let env = Env::from_process();
    let usage = |e: String| report(g, &headless::HeadlessError::Usage(e));
    if g.jq.is_some() || g.fields.is_some() || g.output == Some(OutputFormat::Table) {
        return usage(
            "alerts print JSON lines only: --jq, --fields and -o table do not apply".into(),
        );
    }
    let tables = match config::alert_tables(&flags(g), &env) {
        Ok(t) => t,
        Err(e) => return usage(e.to_string()),
    };
    for w in &tables.warnings {
        eprintln!("warning: {w}");
    }
    let rules = match switchboard::alerts::parse_rules(
        &tables.tables,
        &tables.section,
        tables.config_path.as_deref(),
        &env,
    ) {
        Ok(r) => r,
        Err(e) => return usage(e.to_string()),
    };
    let (client, resolved) = match connect(g) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let ctx = headless::AlertsContext {
        rules,
        section: tables.section,
        data_dir: Paths::with_config(None).data_dir,
        base_url: resolved.options.base_url.clone(),
        instance: resolved.options.instance_id.clone(),
    };
    match headless::run_alerts(&client, cmd, &ctx).await {
        Ok(()) => 0,
        Err(e) => report(g, &e),
    }
}

/// Whether the output is for programs: JSON, NDJSON or a `--jq` filter.
fn json_output(g: &GlobalArgs) -> bool {
    g.jq.is_some() || matches!(g.output, Some(OutputFormat::Json | OutputFormat::Ndjson))
}

/// Prints a failure (as one JSON object when the output is for programs: scripts reading JSON
/// get the error as JSON too, on standard error) and gives its exit code.
fn report(g: &GlobalArgs, e: &headless::HeadlessError) -> u8 {
    if json_output(g) {
        eprintln!("{}", headless::error_json(e));
    } else {
        eprintln!("{}", e.report());
    }
    u8::try_from(e.exit_code()).unwrap_or(1)
}

/// `switchboard mcp`: writes only when the profile allows them and `--allow-writes` asks.
async fn mcp(
    g: &GlobalArgs,
    allow_writes: bool,
    replay_to: &[String],
    replay_secret_env: Option<&str>,
) -> u8 {
    let (client, resolved) = match connect(g) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if allow_writes && resolved.read_only {
        eprintln!("error: --allow-writes refused: the profile (or --read-only) is read-only");
        return USAGE;
    }
    // The operator's receivers, from the flag and the profile: an agent cannot name another.
    let named = replay_to.iter().chain(&resolved.mcp_replay_targets);
    let targets = match switchboard::mcp::replay_targets(named) {
        Ok(t) => t,
        Err(e) => {
            return report(g, &headless::HeadlessError::Usage(e));
        }
    };
    // Read once, from the environment (never argv): the secret replay_locally signs with.
    let secret = match replay_secret_env.map(|v| (v, std::env::var(v))) {
        None => None,
        Some((_, Ok(s))) if !s.trim().is_empty() => {
            Some(switchboard::api::Secret::new(s.trim().to_string()))
        }
        Some((v, _)) => {
            let why = format!("--replay-secret-env: environment variable {v} is not set or empty");
            return report(g, &headless::HeadlessError::Usage(why));
        }
    };
    match switchboard::mcp::Server::new(client, allow_writes)
        .with_replay_targets(targets)
        .with_replay_secret(secret)
        .with_profile(&resolved.profile)
        .run_stdio()
        .await
    {
        Ok(()) => 0,
        Err(e) => fail(&e),
    }
}

async fn open_console(g: &GlobalArgs) -> u8 {
    let (client, resolved) = match connect(g) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let power = power_setup(g, &resolved);
    let setup = ConsoleSetup {
        client,
        profile: resolved.profile,
        read_only: resolved.read_only,
        power,
    };
    // Boxed: the console's state grows with each registered resource's tab.
    match Box::pin(console::run(setup)).await {
        Ok(()) => 0,
        Err(e) => fail(&e),
    }
}

async fn demo(
    g: &GlobalArgs,
    db: Option<std::path::PathBuf>,
    generation: switchboard::api::generation::Generation,
) -> u8 {
    let cfg = service::ServiceConfig {
        generation,
        ..service::ServiceConfig::demo(db)
    };
    let svc = match service::start(cfg).await {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    eprintln!(
        "local service: {}  (key {})",
        svc.base_url,
        svc.api_key.masked()
    );
    // Before the session file exists: from here a signal ends the demo through the path that
    // removes it.
    let signals = match demo::exit_signals() {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    // Scripts reach the service through a session profile whose key is in a private file.
    let session = match demo::folder(Paths::with_config(None).data_dir).and_then(|dir| {
        demo::Session::write(
            &dir,
            &svc.base_url,
            &svc.api_key,
            svc.instance_id.as_deref(),
        )
    }) {
        Ok(s) => {
            eprintln!("headless commands while the demo runs: {}", s.export_line());
            Some(s)
        }
        Err(e) => {
            eprintln!("warning: no session profile for scripts: {e}");
            None
        }
    };
    // The newer generations need the instance key and id besides the organization key.
    let client = match Client::new(svc.client_options()) {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    let setup = ConsoleSetup {
        client,
        profile: "demo".into(),
        read_only: g.read_only,
        power: console::power::PowerSetup {
            session_line: session.as_ref().map(demo::Session::export_line),
            // The shipped views (failed, retrying, today): the demo has no config of its own.
            view: g.view.clone(),
            data_dir: Paths::with_config(None).data_dir,
            no_color: console::theme::Theme::no_color_env(),
            ..Default::default()
        },
    };
    // A signal the console did not take first ends it here (its guard restores the terminal).
    let result = tokio::select! {
        r = console::run(setup) => r,
        () = signals => Ok(()),
    };
    // Stop deliveries and remove the throwaway database and the session file before reporting.
    drop(session);
    svc.shutdown().await;
    match result {
        Ok(()) => 0,
        Err(e) => fail(&format!("console: {e}")),
    }
}

/// The console's settings from the config, and a switcher that resolves other profiles quietly
/// (the terminal belongs to the console by then).
fn power_setup(g: &GlobalArgs, resolved: &config::Resolved) -> console::power::PowerSetup {
    use console::power::{AlertsLoader, ConfirmMode, PowerSetup, ProfileInfo, ProfileSwitcher};
    let profiles = Settings::load(&flags(g), &Env::from_process())
        .ok()
        .and_then(|s| s.config_path)
        .and_then(|p| config::ConfigFile::load(&p).ok().flatten())
        .map(|f| f.profiles.into_keys().collect())
        .unwrap_or_default();
    let base = flags(g);
    // After `:profile NAME`, that profile's alert rules, read as `alerts check` reads them.
    let rules_of = base.clone();
    let alerts_loader = AlertsLoader::new(move |name| {
        let mut f = rules_of.clone();
        f.profile = Some(name.to_string());
        let env = Env::from_process();
        let t = config::alert_tables(&f, &env).map_err(|e| e.to_string())?;
        switchboard::alerts::parse_rules(&t.tables, &t.section, t.config_path.as_deref(), &env)
            .map_err(|e| e.to_string())
    });
    let switcher = ProfileSwitcher::new(move |name| {
        let mut f = base.clone();
        f.profile = Some(name.to_string());
        let r = config::resolve(&f, &Env::from_process()).map_err(|e| e.to_string())?;
        let client = with_detector(Client::new(r.options.clone()).map_err(|e| e.to_string())?);
        let info = ProfileInfo {
            profile: r.profile,
            base_url: r.options.base_url.trim_end_matches('/').to_string(),
            read_only: r.read_only,
            confirm: ConfirmMode::from_settings(r.confirm, r.confirm_type_name),
        };
        Ok((client, info))
    });
    // The profile's alert rules, as `alerts check` reads them: judged on the worker.
    let env = Env::from_process();
    let (alerts, alerts_error) = match config::alert_tables(&flags(g), &env)
        .map_err(|e| e.to_string())
        .and_then(|t| {
            switchboard::alerts::parse_rules(&t.tables, &t.section, t.config_path.as_deref(), &env)
                .map_err(|e| e.to_string())
        }) {
        Ok(rules) => (rules, None),
        Err(e) => (Vec::new(), Some(e)),
    };
    PowerSetup {
        confirm: ConfirmMode::from_settings(resolved.confirm, resolved.confirm_type_name),
        keys: resolved.keys.clone(),
        console: resolved.console.clone(),
        data_dir: Paths::with_config(None).data_dir,
        profiles,
        switcher: Some(switcher),
        no_color: console::theme::Theme::no_color_env(),
        config_path: Settings::load(&flags(g), &Env::from_process())
            .ok()
            .and_then(|s| s.config_path),
        view: g.view.clone(),
        session_line: None,
        alerts,
        alerts_error,
        alerts_loader: Some(alerts_loader),
    }
}

/// `switchboard info`: where things are and what would be used; the key only masked. With
/// `--versions`, what the server serves as well.
async fn info(g: &GlobalArgs, ask_versions: bool) -> u8 {
    let settings = match Settings::load(&flags(g), &Env::from_process()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return USAGE;
        }
    };
    for w in &settings.warnings {
        eprintln!("warning: {w}");
    }
    let paths = Paths::with_config(settings.config_path.clone());
    let shown = |p: &Option<std::path::PathBuf>| {
        p.as_ref().map_or_else(
            || "(unknown: no home directory)".into(),
            |p| p.display().to_string(),
        )
    };
    let key = |spec: &Option<config::KeySpec>| match spec {
        None => ("(none)".to_string(), None, None),
        Some(s) => match s.read() {
            Ok(k) => (k.masked(), Some(s.source.to_string()), Some(k)),
            Err(e) => (
                format!("(unreadable: {e})"),
                Some(s.source.to_string()),
                None,
            ),
        },
    };
    let (api_key, api_source, api_secret) = key(&settings.api_key);
    let (org_key, org_source, org_secret) = key(&settings.organization_key);
    let detector = detector(&settings.base_url, settings.instance_id.as_deref());
    let (versions, detection) = if ask_versions {
        let opts = ClientOptions {
            base_url: settings.base_url.clone(),
            api_key: api_secret.unwrap_or_default(),
            organization_key: org_secret,
            instance_id: settings.instance_id.clone(),
            ..ClientOptions::default()
        };
        let (v, d) = detect_afresh(opts, detector.clone()).await;
        (Some(v), d)
    } else {
        (None, detector.as_ref().and_then(Detector::cached))
    };
    let chosen = detect::choose(settings.pin, detection.as_ref());
    let generation = generation_text(&chosen, detection.as_ref());
    let config_file = shown(&paths.config_file);
    let config_state = if settings.config_exists {
        ""
    } else {
        " (not found)"
    };
    if json_output(g) {
        let v = serde_json::json!({
            "config_file": config_file,
            "config_exists": settings.config_exists,
            "data_dir": shown(&paths.data_dir),
            "log_file": shown(&paths.log_file),
            "profile": settings.profile,
            "base_url": settings.base_url,
            "generation": chosen.generation,
            "generation_pin": chosen.pin,
            "generation_note": chosen.note,
            "detection": detection,
            "instance_id": settings.instance_id,
            "api_key": api_key,
            "api_key_source": api_source,
            "organization_key": org_key,
            "organization_key_source": org_source,
            "read_only": settings.read_only,
        });
        let mut v = v;
        if let (Some(listed), Some(obj)) = (&versions, v.as_object_mut()) {
            obj.insert("api_versions".into(), listed.0.clone());
            obj.insert("api_versions_summary".into(), listed.1.clone().into());
        }
        // Config, environment and the server's versions text: hazards escaped as the JSON views
        // escape them, even piped; then through the same output as every command (`--jq`, a lost
        // output is exit 6).
        let raw = format!("{v:#}");
        let text = switchboard::text::sanitize::json_for_terminal(&raw);
        return match headless::Output::new(g.output, g.jq.as_deref(), None)
            .and_then(|out| out.document(&text))
        {
            Ok(()) | Err(headless::HeadlessError::ReaderClosed) => 0,
            Err(e) => report(g, &e),
        };
    }
    let with_source = |k: String, s: Option<String>| match s {
        Some(s) => format!("{k}  ({s})"),
        None => k,
    };
    let rows = [
        ("config file", format!("{config_file}{config_state}")),
        ("data dir", shown(&paths.data_dir)),
        ("log file", shown(&paths.log_file)),
        ("profile", settings.profile.clone()),
        ("base URL", settings.base_url.clone()),
        ("generation", generation),
        (
            "instance id",
            settings
                .instance_id
                .clone()
                .unwrap_or_else(|| "(none)".into()),
        ),
        ("API key", with_source(api_key, api_source)),
        ("organization key", with_source(org_key, org_source)),
        (
            "read-only",
            if settings.read_only { "yes" } else { "no" }.into(),
        ),
    ];
    for (k, v) in rows {
        println!("{k:<17} {}", switchboard::text::line(&v));
    }
    if let Some((_, summary)) = versions {
        println!("{:<17} {summary}", "API versions");
        for (k, v) in detection.as_ref().map(detection_rows).unwrap_or_default() {
            println!("{k:<17} {}", switchboard::text::line(&v));
        }
    }
    0
}

/// The generation line of `info`: what is used, how it was known, and a pin's note.
fn generation_text(chosen: &detect::Chosen, detection: Option<&Detection>) -> String {
    let mut text = match (chosen.generation, detection) {
        (Some(g), Some(d)) => format!(
            "{g} (detected {})",
            switchboard::api::model::time::format(&d.detected_at)
        ),
        (Some(g), None) => g.to_string(),
        (None, Some(d)) => format!("none: the server serves {}", detect::served(d)),
        (None, None) => "not detected yet (switchboard info --versions detects it)".into(),
    };
    if let Some(note) = &chosen.note {
        text.push_str("; ");
        text.push_str(note);
    }
    text
}

/// `info --versions`'s lines: how the detection decided, and each area's paths.
fn detection_rows(d: &Detection) -> Vec<(&'static str, String)> {
    let method = match d.method {
        detect::Method::Versions => "the versions list names pulsar",
        detect::Method::Introspection => "the endpoints introspection",
        detect::Method::Probe => "probes (introspection did not answer)",
    };
    let paths = |kind: &str, p: &[String]| {
        if p.is_empty() {
            kind.to_string()
        } else {
            format!("{kind}  ({})", p.join(", "))
        }
    };
    vec![
        ("detected by", method.to_string()),
        ("teams", paths(d.teams.as_str(), &d.found.teams)),
        ("imports", paths(d.imports.as_str(), &d.found.imports)),
        ("webhooks", paths(d.webhooks.as_str(), &d.found.webhooks)),
    ]
}

/// A fresh detection for `info --versions` (written to the cache): the versions list as JSON
/// (null when not listed) with its one line, and the detection when it could be made.
async fn detect_afresh(
    mut opts: ClientOptions,
    detector: Option<Detector>,
) -> ((serde_json::Value, String), Option<Detection>) {
    use switchboard::api::versions::Discovery;
    opts.connect_timeout = std::time::Duration::from_secs(3);
    opts.request_timeout = std::time::Duration::from_secs(5);
    opts.max_retries = 0;
    let client = match Client::new(opts) {
        Ok(c) => match detector {
            Some(d) => c.with_detector(d),
            None => c,
        },
        Err(e) => {
            let why = format!("(not read: {})", switchboard::text::line(&e.to_string()));
            return ((serde_json::Value::Null, why), None);
        }
    };
    let detected = client.detect(true).await;
    // The detection asked the versions list; this reads what it learnt.
    let listed = match client.versions().await {
        Ok(d) => {
            let list = match &d {
                Discovery::Listed(l) => serde_json::to_value(l).unwrap_or_default(),
                Discovery::Unlisted => serde_json::Value::Null,
            };
            // Server text: through the one sanitizer.
            (list, switchboard::text::line(&d.summary()).into_owned())
        }
        Err(e) => (
            serde_json::Value::Null,
            format!("(not read: {})", switchboard::text::line(&e.to_string())),
        ),
    };
    (listed, detected.ok())
}

/// Logs go to standard error, except for the console (whose screen they would spoil): a file.
fn init_logging(level: &str, to_file: bool) -> Result<(), String> {
    // Log lines quote servers' text: every event goes out as one sanitised line.
    use switchboard::text::log::Sanitized;
    let filter = tracing_subscriber::EnvFilter::try_new(level)
        .map_err(|e| format!("--log-level {level:?}: {e}"))?;
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    let log_file = Paths::with_config(None).log_file;
    if to_file && let Some(path) = log_file {
        let opened = config::open_log(&path);
        // No log file is no reason to refuse to start: log nothing then.
        if let Ok(f) = opened {
            builder
                .with_ansi(false)
                .with_writer(Sanitized(std::sync::Mutex::new(f)))
                .init();
        }
        return Ok(());
    }
    // Colour codes off: the sanitizer would show them as markers.
    builder
        .with_ansi(false)
        .with_writer(Sanitized(std::io::stderr))
        .init();
    Ok(())
}

/// A command line clap refused. Under `-o json|ndjson` or `--jq` (as far as the words say) it is
/// one JSON object on standard error like every other error, exit 2; help and version requests
/// and everything else are clap's own text.
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let machine = args.iter().enumerate().any(|(i, a)| {
        let next = args.get(i + 1).map(String::as_str);
        a == "--jq"
            || a.starts_with("--jq=")
            || matches!(
                a.as_str(),
                "-ojson" | "-ondjson" | "--output=json" | "--output=ndjson"
            )
            || (matches!(a.as_str(), "-o" | "--output") && matches!(next, Some("json" | "ndjson")))
    });
    let quiet = matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
    if !machine || quiet {
        e.exit();
    }
    let message = e.kind().as_str().map_or_else(
        || switchboard::text::line(&e.to_string()).into_owned(),
        |k| {
            let detail = e.to_string();
            let first = detail.lines().next().unwrap_or(k);
            switchboard::text::line(first.trim_start_matches("error: ")).into_owned()
        },
    );
    let v = serde_json::json!({"error": {"status": null, "code": "usage", "message": message}});
    eprintln!("{v}");
    ExitCode::from(2)
}
