//! The security pass (SECURITY.md): the key never shows in `info`, in the binary's output at any
//! log level, or on a console frame; key files are written 0600 and looser ones warned about; the
//! local service binds loopback by default, rejects wrong keys, limits body and field sizes and
//! stores hostile text verbatim (parameterised SQL).
use crate::common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use common::fixed_clock;
use switchboard::api::model::CreateTeam;
use switchboard::api::{Client, ClientOptions, ListQuery, Secret};
use switchboard::console::Tab;
use switchboard::console::harness::Harness;
use switchboard::service::{ServiceConfig, start};

const KEY: &str = "sk_live_security_pass_0123456789abcdef";

/// No run of anything may show the key or a long piece of it.
fn assert_no_key(what: &str, text: &str) {
    for piece in [KEY, &KEY[6..], &KEY[KEY.len() - 12..]] {
        assert!(!text.contains(piece), "{what} shows the key: {text}");
    }
}

/// The binary with a clean environment: only `PATH`, and `HOME` and the XDG folders in `home`.
fn bin(home: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_switchboard"));
    c.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_STATE_HOME", home.join("state"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    c
}

fn run(dir: &Path, args: &[&str]) -> Output {
    bin(dir)
        .args(args)
        .env("SWITCHBOARD_API_KEY", KEY)
        .output()
        .expect("run switchboard")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn info_shows_the_key_masked_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    for args in [&["info"][..], &["info", "-o", "json"]] {
        let out = run(dir.path(), args);
        assert!(out.status.success(), "{}", text(&out));
        let t = text(&out);
        assert_no_key("info", &t);
        // The masked form is there: the user can tell which key is in use.
        assert!(t.contains(&Secret::new(KEY).masked()), "{t}");
    }
}

#[test]
fn inline_key_in_a_readable_config_is_warned_about_and_never_shown() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = dir.path().join("config.toml");
    std::fs::write(
        &cfg,
        format!("default_profile = \"p\"\n[profiles.p]\napi_key = \"{KEY}\"\n"),
    )
    .expect("write");
    std::fs::set_permissions(&cfg, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let cfg_s = cfg.to_str().expect("utf-8 path");
    let out = run(dir.path(), &["--config", cfg_s, "info"]);
    let t = text(&out);
    assert!(t.contains("chmod 600"), "warning expected: {t}");
    assert_no_key("info with an inline key", &t);

    std::fs::set_permissions(&cfg, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let t = text(&run(dir.path(), &["--config", cfg_s, "info"]));
    assert!(!t.contains("chmod 600"), "no warning for 0600: {t}");
}

#[test]
fn key_files_are_created_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("new/dir/config.toml");
    switchboard::config::write_private(&path, "x = 1\n").expect("write");
    let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    // An existing, looser file is tightened before it is written.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).expect("chmod");
    switchboard::config::write_private(&path, "y = 2\n").expect("rewrite");
    let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn errors_at_every_log_level_never_show_the_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A closed port: a network error, and a 401 from the local service for a wrong key.
    let url = common::fake::closed_port_url();
    for level in ["warn", "debug", "trace"] {
        let out = run(
            dir.path(),
            &[
                "--base-url",
                &url,
                "--log-level",
                level,
                "teams",
                "list",
                "-o",
                "json",
            ],
        );
        assert_eq!(out.status.code(), Some(4), "{}", text(&out));
        assert_no_key(&format!("stderr at {level}"), &text(&out));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_key_is_refused_and_not_echoed() {
    let svc = start(ServiceConfig::ephemeral()).await.expect("service");
    let url = svc.base_url.clone();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = tokio::task::spawn_blocking({
        let dir = dir.path().to_path_buf();
        move || {
            run(
                &dir,
                &["--base-url", &url, "--log-level", "trace", "teams", "list"],
            )
        }
    })
    .await
    .expect("join");
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains("401"), "{}", text(&out));
    assert_no_key("401 reply", &text(&out));
    svc.shutdown().await;
}

#[test]
fn the_service_binds_loopback_by_default() {
    assert!(ServiceConfig::ephemeral().addr.ip().is_loopback());
    assert!(ServiceConfig::demo(None).addr.ip().is_loopback());
    // `switchboard serve` without --addr.
    use clap::Parser;
    #[derive(clap::Parser)]
    struct Wrap {
        #[command(flatten)]
        serve: switchboard::service::ServeArgs,
    }
    let w = Wrap::try_parse_from(["serve"]).expect("defaults parse");
    assert!(w.serve.addr.ip().is_loopback(), "{}", w.serve.addr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_limits_sizes_and_stores_hostile_text_verbatim() {
    let svc = start(ServiceConfig::ephemeral()).await.expect("service");
    let client = Client::new(ClientOptions {
        base_url: svc.base_url.clone(),
        api_key: svc.api_key.clone(),
        max_retries: 0,
        request_timeout: Duration::from_secs(10),
        ..ClientOptions::default()
    })
    .expect("client");

    // A body over 1 MiB is refused with a 4xx, and the service still answers afterwards.
    let big = CreateTeam {
        name: "x".repeat(2 * 1024 * 1024),
        description: None,
    };
    let e = client.create_team(&big).await.expect_err("too large");
    let status = e.status().expect("a reply");
    assert!(status == 413 || status == 400, "{e}");

    // A field over the string limit is a validation error.
    let long = CreateTeam {
        name: "y".repeat(100_001),
        description: None,
    };
    let e = client.create_team(&long).await.expect_err("too long");
    assert_eq!(e.status(), Some(400), "{e}");

    // SQL metacharacters are data, not code.
    let hostile = "'); DROP TABLE teams; -- \" OR 1=1 \\ %_";
    let t = client
        .create_team(&CreateTeam {
            name: hostile.into(),
            description: Some("' OR '1'='1".into()),
        })
        .await
        .expect("created");
    assert_eq!(t.name, hostile);
    let page = client
        .list_teams(&ListQuery::default())
        .await
        .expect("still lists");
    assert!(page.items.iter().any(|x| x.name == hostile));
    let e = client
        .get_team("tem_' OR '1'='1")
        .await
        .expect_err("no such team");
    assert_eq!(e.status(), Some(404), "{e}");

    // The wrong key is refused.
    let wrong = Client::new(ClientOptions {
        api_key: Secret::new(format!("{}x", svc.api_key.expose())),
        ..client.options().clone()
    })
    .expect("client");
    let e = wrong
        .list_teams(&ListQuery::default())
        .await
        .expect_err("401");
    assert_eq!(e.status(), Some(401));
    svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn console_frames_never_show_the_key() {
    let svc = start(ServiceConfig {
        seed: switchboard::service::Seed::Demo,
        ..ServiceConfig::ephemeral()
    })
    .await
    .expect("service");
    let key = svc.api_key.expose().to_string();
    for api_key in [svc.api_key.clone(), Secret::new(KEY)] {
        let client = Client::new(ClientOptions {
            base_url: svc.base_url.clone(),
            api_key,
            max_retries: 0,
            ..ClientOptions::default()
        })
        .expect("client");
        let mut app = Harness::with_client("sec", client, fixed_clock(), (120, 40));
        // Pulsar's tabs: this service speaks pulsar.
        let pulsar = switchboard::api::generation::Generation::Pulsar;
        for tab in Tab::ALL.into_iter().filter(|t| t.served_by(pulsar)) {
            let digit = char::from_digit(tab.index() as u32 + 1, 10).expect("digit");
            app.ch(digit);
            app.settle().await.expect("idle");
            for keys in [&[][..], &['?'][..], &['?'][..]] {
                for k in keys {
                    app.ch(*k);
                }
                let screen = app.screen();
                assert_no_key("console", &screen);
                assert!(!screen.contains(&key[4..]), "service key on screen");
            }
        }
        assert_no_key("console state", &app.state_debug());
    }
    svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hook_keys_are_masked_in_tables_and_whole_in_json() {
    let svc = start(ServiceConfig {
        seed: switchboard::service::Seed::Demo,
        api_key: Some(Secret::new(KEY)),
        ..ServiceConfig::ephemeral()
    })
    .await
    .expect("service");
    let url = svc.base_url.clone();
    let dir = tempfile::tempdir().expect("tempdir");
    let (json, table) = tokio::task::spawn_blocking({
        let dir = dir.path().to_path_buf();
        move || {
            let list = |o: &str| run(&dir, &["--base-url", &url, "callbacks", "list", "-o", o]);
            (list("json"), list("table"))
        }
    })
    .await
    .expect("join");
    assert!(
        json.status.success() && table.status.success(),
        "{}",
        text(&table)
    );
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    let hooks: Vec<String> = v["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|c| c["url"].as_str().map(String::from))
        .collect();
    assert!(!hooks.is_empty(), "the demo has webhook_manual callbacks");
    let table = text(&table);
    for hook in hooks {
        let (base, key) = hook.rsplit_once('/').expect("a key segment");
        assert!(table.contains(base), "address shown: {table}");
        assert!(!table.contains(&key[5..]), "hook key in the table: {table}");
    }
    svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dot_ids_are_refused_before_anything_is_sent() {
    let svc = start(ServiceConfig {
        seed: switchboard::service::Seed::Demo,
        api_key: Some(Secret::new(KEY)),
        ..ServiceConfig::ephemeral()
    })
    .await
    .expect("service");
    let url = svc.base_url.clone();
    let client = Client::new(ClientOptions {
        base_url: url.clone(),
        api_key: Secret::new(KEY),
        ..ClientOptions::default()
    })
    .expect("client");
    let teams = || async {
        client
            .list_teams(&ListQuery::default())
            .await
            .expect("teams")
            .items
            .len()
    };
    let before = teams().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let outs = tokio::task::spawn_blocking({
        let dir = dir.path().to_path_buf();
        move || {
            let b = ["--base-url", url.as_str()];
            [
                &["teams", "update", "..", "--name", "Created by a dot id"][..],
                &["teams", "update", ".", "--name", "Created by a dot id"],
                &["notifications", "get", ".."],
                &["destinations", "delete", "..", "--yes"],
                &["teams", "get", ""],
            ]
            .map(|args| (args.join(" "), run(&dir, &[&b[..], args].concat())))
        }
    })
    .await
    .expect("join");
    for (args, out) in outs {
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args}: {t}");
        assert!(
            t.contains("not an id") || t.contains("cannot be empty"),
            "{args}: {t}"
        );
    }
    assert_eq!(teams().await, before, "a dot id created a team");
    svc.shutdown().await;
}

/// Runs the binary with no key in the environment, so the profile's own source is used.
fn run_profile_key(dir: &Path, cfg: &Path, args: &[&str]) -> Output {
    bin(dir)
        .arg("--config")
        .arg(cfg)
        .args(args)
        .output()
        .expect("run switchboard")
}

#[cfg(unix)]
fn chmod(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

#[cfg(unix)]
#[test]
fn key_commands_run_only_from_a_config_nobody_else_can_change() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("conf");
    std::fs::create_dir(&folder).expect("mkdir");
    let cfg = folder.join("config.toml");
    let ran = dir.path().join("RAN");
    std::fs::write(
        &cfg,
        format!(
            "[profiles.default]\nbase_url = \"http://127.0.0.1:9\"\napi_key_cmd = \"touch '{}'; printf sk_from_cmd_0123456789\"\n",
            ran.display()
        ),
    )
    .expect("config");
    let refused = |what: &str, fix: &str| {
        let out = run_profile_key(dir.path(), &cfg, &["teams", "list"]);
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{what}: {t}");
        assert!(t.contains("config.toml") && t.contains(fix), "{what}: {t}");
        assert!(!ran.exists(), "{what}: the command ran");
        let info = text(&run_profile_key(dir.path(), &cfg, &["info"]));
        assert!(info.contains(fix), "{what}: info says why: {info}");
        assert!(!ran.exists(), "{what}: info ran the command");
    };
    chmod(&folder, 0o755);
    for mode in [0o666, 0o620, 0o602] {
        chmod(&cfg, mode);
        refused(&format!("file {mode:o}"), "chmod 600");
    }
    chmod(&cfg, 0o600);
    for mode in [0o777, 0o1777, 0o775] {
        chmod(&folder, mode);
        refused(&format!("folder {mode:o}"), "chmod go-w");
    }
    chmod(&folder, 0o755);
    // Another user's file (only root can make one here).
    if std::os::unix::fs::chown(&cfg, Some(65534), None).is_ok() {
        refused("owned by uid 65534", "chown");
        std::os::unix::fs::chown(
            &cfg,
            Some(
                std::fs::metadata(dir.path())
                    .map(|m| {
                        use std::os::unix::fs::MetadataExt;
                        m.uid()
                    })
                    .expect("uid"),
            ),
            None,
        )
        .expect("chown back");
    }
    // Yours and writable by you only: it runs.
    chmod(&cfg, 0o644);
    let t = text(&run_profile_key(dir.path(), &cfg, &["info"]));
    assert!(ran.exists(), "a trusted config runs its command: {t}");
    assert!(
        t.contains(&Secret::new("sk_from_cmd_0123456789").masked()),
        "{t}"
    );
}

/// Waits (bounded) for a child to end; `None` when it is still running at the deadline.
fn wait_bounded(mut child: std::process::Child, limit: Duration) -> Option<Output> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if child.try_wait().expect("try_wait").is_some() {
            return Some(child.wait_with_output().expect("output"));
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether process `pid` is gone (or a zombie nobody waits for).
fn gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_hanging_or_flooding_key_command_is_stopped_with_its_process_group() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = dir.path().join("config.toml");
    let pidfile = dir.path().join("pid");
    let cases = [
        (
            "hangs",
            format!("sleep 300 & echo $! > '{}'; wait", pidfile.display()),
            "no answer within 1 s",
        ),
        (
            "floods",
            format!("yes sk_flood & echo $! > '{}'; wait", pidfile.display()),
            "more than 64 KiB",
        ),
    ];
    for (what, cmd, says) in cases {
        let _ = std::fs::remove_file(&pidfile);
        std::fs::write(
            &cfg,
            format!(
                "[profiles.default]\nbase_url = \"http://127.0.0.1:9\"\napi_key_cmd_timeout = 1\napi_key_cmd = \"{cmd}\"\n"
            ),
        )
        .expect("config");
        chmod(&cfg, 0o600);
        for args in [&["info"][..], &["teams", "list"]] {
            let child = bin(dir.path())
                .arg("--config")
                .arg(&cfg)
                .args(args)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn");
            // Far above the 1 s limit, far below the 300 s the command would take.
            let out = wait_bounded(child, Duration::from_secs(60))
                .unwrap_or_else(|| panic!("{what}: {args:?} did not return"));
            let t = text(&out);
            assert!(t.contains(says), "{what} {args:?}: {t}");
            let pid = std::fs::read_to_string(&pidfile).expect("pid written");
            let pid = pid.trim();
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while !gone(pid) && std::time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            assert!(gone(pid), "{what}: the command's child {pid} still runs");
        }
    }
}

#[test]
fn config_and_environment_text_reach_the_terminal_only_sanitised() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = dir.path().join("config.toml");
    // OSC 52 (a clipboard write), CSI, C1 and a bidi override, in TOML escapes.
    let attack = "\\u001b]52;c;ZXZpbA==\\u0007\\u001b[2J\\u009b31m\\u202e";
    std::fs::write(
        &cfg,
        format!(
            "default_profile = \"p{attack}\"\n[profiles.\"p{attack}\"]\nbase_url = \"http://127.0.0.1:9/{attack}\"\ninstance_id = \"ins{attack}\"\napi_key_env = \"VAR{attack}\"\n"
        ),
    )
    .expect("config");
    for args in [&["info"][..], &["info", "-o", "json"], &["teams", "list"]] {
        let out = run_profile_key(dir.path(), &cfg, args);
        let t = text(&out);
        for bad in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}'] {
            assert!(!t.contains(bad), "{args:?} wrote {bad:?}: {t:?}");
        }
        assert!(t.contains("VAR"), "{args:?} names the variable: {t}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_to_your_own_receiver_shows_its_headers_but_not_its_secrets() {
    let (rx, _log) = common::replay::receiver().await;
    let w = common::replay::world(&rx).await;
    let port = rx.rsplit_once(':').expect("port").1.to_string();
    let run_replay = |to: String, output: &'static str| {
        let key = w.t.svc.api_key.expose().to_string();
        let base = w.t.svc.base_url.clone();
        let id = w.n.id.clone();
        tokio::task::spawn_blocking(move || {
            let dir = tempfile::tempdir().expect("tempdir");
            bin(dir.path())
                .args(["notifications", "replay", &id, "--to", &to, "-o", output])
                .env("SWITCHBOARD_BASE_URL", base)
                .env("SWITCHBOARD_API_KEY", key)
                .stdin(std::process::Stdio::null())
                .output()
                .expect("run switchboard")
        })
    };
    // `localhost` is connected to on loopback by the replay itself.
    for to in [
        format!("{rx}/fail"),
        format!("http://localhost:{port}/fail"),
    ] {
        let table = run_replay(to.clone(), "table").await.expect("join");
        let t = text(&table);
        assert_eq!(table.status.code(), Some(3), "{to}: {t}");
        assert!(
            t.contains("x-receiver: rx-own-1"),
            "{to}: own header shown: {t}"
        );
        assert!(
            t.contains("set-cookie: ••••••••"),
            "{to}: cookie masked: {t}"
        );
        assert!(!t.contains("RECEIVER_SECRET_42"), "{to}: {t}");
        let json = run_replay(to.clone(), "json").await.expect("join");
        let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
        assert_eq!(v["response"]["headers"]["x-receiver"], "rx-own-1", "{to}");
        assert_eq!(v["response"]["headers"]["set-cookie"], "••••••••", "{to}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_replay_goes_only_to_literal_loopback() {
    let (rx, log) = common::replay::receiver().await;
    let w = common::replay::world(&rx).await;
    let port = rx.rsplit_once(':').expect("port").1.to_string();
    let sent_before = log.lock().expect("log").len();
    let key = w.t.svc.api_key.expose().to_string();
    let base = w.t.svc.base_url.clone();
    let id = w.n.id.clone();
    let outs = tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().expect("tempdir");
        // Names a resolver decides: not "this machine", whatever they resolve to.
        ["evil.localhost", "localhost.", "localhost.localdomain"].map(|host| {
            let to = format!("http://{host}:{port}/ok");
            let out = bin(dir.path())
                .args([
                    "--read-only",
                    "notifications",
                    "replay",
                    &id,
                    "--to",
                    &to,
                    "--yes",
                ])
                .env("SWITCHBOARD_BASE_URL", &base)
                .env("SWITCHBOARD_API_KEY", &key)
                .stdin(std::process::Stdio::null())
                .output()
                .expect("run switchboard");
            (to, out)
        })
    })
    .await
    .expect("join");
    for (to, out) in outs {
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{to}: {t}");
        assert!(t.contains("read-only"), "{to}: {t}");
    }
    assert_eq!(
        log.lock().expect("log").len(),
        sent_before,
        "nothing was sent"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_in_destination_urls_are_masked_in_tables_and_sent_as_basic_auth() {
    let (rx, log) = common::replay::receiver().await;
    let with_creds = rx.replacen("http://", "http://alice:PASS_WORD_77@", 1);
    // `world` delivers to `<base>/ok`: the query ends in `x=`, so the path stays in it.
    let w = common::replay::world(&format!("{with_creds}/q?api_key=API_KEY_77&page=2&x=")).await;
    // The delivery sent the userinfo as basic auth.
    let got = common::replay::got(&log, "q");
    let auth = got[0]
        .headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .expect("basic auth sent");
    assert_eq!(auth, "Basic YWxpY2U6UEFTU19XT1JEXzc3", "alice:PASS_WORD_77");
    let key = w.t.svc.api_key.expose().to_string();
    let base = w.t.svc.base_url.clone();
    let (n, d) = (w.n.id.clone(), w.dest.clone());
    let outs = tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().expect("tempdir");
        [
            vec!["notifications", "get", &n, "-o", "table"],
            vec!["destinations", "list", "--all", "-o", "table"],
            vec!["destinations", "get", &d, "-o", "table"],
            vec!["notifications", "get", &n, "-o", "json"],
        ]
        .map(|args| {
            let out = bin(dir.path())
                .args(&args)
                .env("SWITCHBOARD_BASE_URL", &base)
                .env("SWITCHBOARD_API_KEY", &key)
                .output()
                .expect("run switchboard");
            (args.join(" "), out)
        })
    })
    .await
    .expect("join");
    for (args, out) in outs {
        let t = text(&out);
        assert!(out.status.success(), "{args}: {t}");
        if args.ends_with("json") {
            assert!(
                t.contains("PASS_WORD_77") && t.contains("API_KEY_77"),
                "{args}: {t}"
            );
            continue;
        }
        assert!(!t.contains("PASS_WORD_77"), "{args}: password shown: {t}");
        assert!(!t.contains("API_KEY_77"), "{args}: api_key shown: {t}");
        assert!(t.contains("alice:••••••••@127.0.0.1"), "{args}: {t}");
        assert!(t.contains("api_key=••••••••"), "{args}: {t}");
    }
}

/// A list API whose cursor always advances: every page is full, of items never seen before, and
/// says there is more. Serves `organization/teams`, `organization/members` (items from the
/// golden fixtures, new ids each) and a team by id; counts the list requests.
fn endless_api() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let pages = std::sync::Arc::new(AtomicUsize::new(0));
    let item = |name: &str| {
        let v: serde_json::Value =
            serde_json::from_str(&common::fake::fixture(name)).expect("fixture");
        v["items"][0].clone()
    };
    // Small items keep the 200 pages quick: only what decoding needs.
    let keep = |mut v: serde_json::Value, fields: &[&str]| {
        if let Some(o) = v.as_object_mut() {
            o.retain(|k, _| fields.contains(&k.as_str()));
        }
        v
    };
    let member = keep(
        item("member-list.json"),
        &[
            "object",
            "id",
            "status",
            "role",
            "user_id",
            "actor_id",
            "created_at",
            "updated_at",
        ],
    );
    let team = item("team-list.json");
    let team_item = keep(team.clone(), &["object", "id", "name"]);
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = l.local_addr().expect("addr");
    let counter = pages.clone();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            let (member, team, team_item, counter) = (
                member.clone(),
                team.clone(),
                team_item.clone(),
                counter.clone(),
            );
            std::thread::spawn(move || {
                let mut s = s;
                let mut r = BufReader::new(s.try_clone().expect("clone"));
                let mut first = String::new();
                let _ = r.read_line(&mut first);
                loop {
                    let mut l = String::new();
                    if r.read_line(&mut l).unwrap_or(0) == 0 || l == "\r\n" {
                        break;
                    }
                }
                let target = first.split_whitespace().nth(1).unwrap_or("/").to_string();
                let path = target.split('?').next().unwrap_or("/");
                let body = if path.ends_with("/teams") || path.ends_with("/members") {
                    let n = counter.fetch_add(1, Ordering::SeqCst);
                    let proto = if path.ends_with("/teams") {
                        &team_item
                    } else {
                        &member
                    };
                    let items: Vec<serde_json::Value> = (0..100)
                        .map(|i| {
                            let mut v = proto.clone();
                            v["id"] = serde_json::json!(format!("x_{n}_{i}"));
                            v
                        })
                        .collect();
                    serde_json::json!({"items": items,
                        "pagination": {"has_more_before": n > 0, "has_more_after": true}})
                } else {
                    team.clone()
                };
                let body = body.to_string();
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = s.write_all(head.as_bytes());
                let _ = s.write_all(body.as_bytes());
            });
        }
    });
    (format!("http://{addr}"), pages)
}

#[test]
fn page_walks_stop_at_the_cap_with_a_message() {
    use std::sync::atomic::Ordering;
    let (url, pages) = endless_api();
    let dir = tempfile::tempdir().expect("tempdir");
    for args in [
        &["teams", "list", "--all", "-o", "json"][..],
        &["members", "list", "--team", "tm_1"],
        &["teams", "add-member", "tm_1", "someone"],
    ] {
        pages.store(0, Ordering::SeqCst);
        let child = bin(dir.path())
            .args(["--base-url", &url])
            .args(args)
            .env("SWITCHBOARD_API_KEY", KEY)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        let out = wait_bounded(child, Duration::from_secs(120))
            .unwrap_or_else(|| panic!("{args:?} kept reading"));
        let t = text(&out);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {t}");
        assert!(
            t.contains("stopped after 200 pages (20000 items)") && t.contains("--after x_199_99"),
            "{args:?}: {t}"
        );
        assert_eq!(pages.load(Ordering::SeqCst), 200, "{args:?}");
    }
}

#[cfg(unix)]
#[test]
fn serve_refuses_a_database_path_that_is_a_link_before_changing_anything() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("precious");
    std::fs::write(&target, "keep\n").expect("target");
    chmod(&target, 0o644);
    let link = dir.path().join("service.db");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    let child = bin(dir.path())
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(&link)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let out = wait_bounded(child, Duration::from_secs(60)).expect("serve refused and ended");
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(t.contains("symbolic link"), "{t}");
    let mode = std::fs::metadata(&target)
        .expect("meta")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o644, "the link's target was chmod-ed");
    assert_eq!(std::fs::read(&target).expect("read"), b"keep\n");
}
