//! The `switchboard` binary as a process against the recording loopback server: output formats,
//! exit codes, confirmation refusal, secrets never echoed, config precedence and config errors.
mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::fake::{FakeServer, KEY, Reply, closed_port_url, fixture};
use serde_json::{Value, json};

/// What a run of the binary left behind.
#[derive(Debug)]
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// A run of the binary in a clean environment with a private home directory.
struct Sb {
    cmd: Command,
    stdin: String,
    home: tempfile::TempDir,
}

impl Sb {
    fn new() -> Self {
        let home = tempfile::tempdir().expect("home");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_switchboard"));
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env("XDG_DATA_HOME", home.path().join("data"))
            .env("XDG_STATE_HOME", home.path().join("state"));
        Self {
            cmd,
            stdin: String::new(),
            home,
        }
    }

    /// Pointed at the server with the usual key, through the environment.
    fn at(server: &FakeServer) -> Self {
        Self::new()
            .env("SWITCHBOARD_BASE_URL", &server.base_url)
            .env("SWITCHBOARD_API_KEY", KEY)
    }

    fn env(mut self, k: &str, v: impl AsRef<std::ffi::OsStr>) -> Self {
        self.cmd.env(k, v);
        self
    }

    fn stdin(mut self, s: &str) -> Self {
        self.stdin = s.into();
        self
    }

    /// Writes a config file in the private home and returns its path.
    fn config(&self, name: &str, text: &str) -> PathBuf {
        let path = self.home.path().join(name);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("config dir");
        }
        std::fs::write(&path, text).expect("config");
        path
    }

    fn run(mut self, args: &[&str]) -> Out {
        let mut child = self
            .cmd
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn switchboard");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(self.stdin.as_bytes()).expect("write stdin");
        drop(stdin);
        let out = child.wait_with_output().expect("wait");
        Out {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

fn items(fixture_name: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(&fixture(fixture_name)).expect("fixture");
    v["items"].as_array().expect("items").clone()
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_default()
}

#[test]
fn json_output_is_the_api_body_unchanged() {
    let s = FakeServer::start();
    // Piped stdout: JSON by default.
    let out = Sb::at(&s).run(&["teams", "list"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.trim_end(), fixture("team-list.json").trim_end());
    let r = s.take_one();
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("GET", "/organization/teams")
    );

    let out = Sb::at(&s).run(&["-o", "json", "notifications", "get", "cbn_1"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stdout.trim_end(),
        fixture("notification.json").trim_end()
    );
}

#[test]
fn table_output_shows_key_columns() {
    let s = FakeServer::start();
    for (args, name, cols) in [
        (
            vec!["teams", "list"],
            "team-list.json",
            vec!["id", "name", "slug"],
        ),
        (
            vec!["callbacks", "list"],
            "callback-list.json",
            vec!["id", "type"],
        ),
        (
            vec!["imports", "list"],
            "import-list.json",
            vec!["id", "status"],
        ),
        (
            vec!["members", "list"],
            "member-list.json",
            vec!["id", "actor_id", "email"],
        ),
        (
            vec!["projects", "list"],
            "project-list.json",
            vec!["id", "slug"],
        ),
        (
            vec!["team-roles", "list"],
            "team-role-list.json",
            vec!["id", "name"],
        ),
        (
            vec!["destinations", "list"],
            "destination-list.json",
            vec!["id", "name"],
        ),
        (
            vec!["notifications", "list"],
            "notification-list.json",
            vec!["id", "status"],
        ),
    ] {
        let mut argv = vec!["-o", "table"];
        argv.extend(&args);
        let out = Sb::at(&s).run(&argv);
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        let mut lines = out.stdout.lines();
        let header = lines.next().expect("header");
        assert!(header.starts_with("ID "), "{args:?}: {header}");
        let rows: Vec<&str> = lines.collect();
        let want = items(name);
        assert_eq!(rows.len(), want.len(), "{args:?}: {}", out.stdout);
        for (row, item) in rows.iter().zip(&want) {
            for c in &cols {
                assert!(
                    row.contains(str_of(item, c)),
                    "{args:?}: {c} missing in {row}"
                );
            }
        }
    }
}

#[test]
fn table_detail_masks_the_signing_secret() {
    let s = FakeServer::start();
    let dest: Value = serde_json::from_str(&fixture("destination.json")).expect("fixture");
    let secret = dest["webhook_destination"]["signing_secret"]
        .as_str()
        .expect("secret");
    let out = Sb::at(&s).run(&["-o", "table", "destinations", "get", "cld_1"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains(str_of(&dest, "name")), "{}", out.stdout);
    assert!(out.stdout.contains("SIGNING SECRET"));
    assert!(!out.stdout.contains(secret), "secret printed in full");
    assert!(out.stdout.contains(&secret[..5]), "masked prefix shown");
}

#[test]
fn all_follows_pages_into_one_array() {
    let s = FakeServer::start();
    let all = items("team-list.json");
    let page = |item: &Value, more: bool| {
        json!({"items": [item], "pagination": {"has_more_before": false, "has_more_after": more}})
            .to_string()
    };
    s.push(Reply::text(200, page(&all[0], true)));
    s.push(Reply::text(200, page(&all[1], false)));
    let out = Sb::at(&s).run(&["teams", "list", "--all", "--limit", "1", "--order", "desc"]);
    assert_eq!(out.code, 0, "{out:?}");
    let got: Value = serde_json::from_str(&out.stdout).expect("a JSON array");
    assert_eq!(got, Value::Array(all.clone()));
    let queries: Vec<String> = s
        .take()
        .into_iter()
        .map(|r| r.query.unwrap_or_default())
        .collect();
    assert_eq!(
        queries,
        [
            "limit=1&order=desc".to_string(),
            format!("limit=1&after={}&order=desc", str_of(&all[0], "id")),
        ]
    );
}

#[test]
fn writes_send_the_documented_bodies() {
    let s = FakeServer::start();
    let out = Sb::at(&s).run(&[
        "teams",
        "set-project",
        "tm_1",
        "--project",
        "core",
        "--role",
        "viewer",
        "--role",
        "editor",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let r = s.take_one();
    assert_eq!(r.path, "/organization/teams/tm_1/projects");
    assert_eq!(
        r.json(),
        json!({"project_id": "core", "team_role_ids": ["viewer", "editor"]})
    );

    let out = Sb::at(&s).run(&[
        "destinations",
        "create",
        "--name",
        "Hook",
        "--url",
        "https://example.com/h",
        "--callback",
        "clb_1",
        "--callback",
        "clb_2",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        s.take_one().json(),
        json!({"name": "Hook", "url": "https://example.com/h",
               "callbacks": {"type": "selected", "callback_id": ["clb_1", "clb_2"]}})
    );

    let out = Sb::at(&s).run(&["destinations", "update", "cld_1", "--clear-description"]);
    assert_eq!(out.code, 0, "{out:?}");
    let r = s.take_one();
    assert_eq!(
        (r.method.as_str(), r.json()),
        ("PATCH", json!({"description": null}))
    );

    let out = Sb::at(&s).run(&["teams", "remove-member", "tm_1", "oac_1"]);
    assert_eq!(out.code, 0, "{out:?}");
    let r = s.take_one();
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("DELETE", "/organization/teams/tm_1/members/oac_1")
    );
}

#[test]
fn tokens_come_from_stdin_or_env_and_are_never_echoed() {
    let s = FakeServer::start();
    let token = "tok_very_secret_value_0123456789";
    let out = Sb::at(&s).stdin(&format!("{token}\n")).run(&[
        "--log-level",
        "trace",
        "imports",
        "create",
        "--connection",
        "poc_1",
        "--access-token-stdin",
        "--note",
        "from ci",
        "--metadata",
        "env=prod",
        "--expires-at",
        "+12h",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    for text in [&out.stdout, &out.stderr] {
        assert!(!text.contains(token), "token echoed");
        assert!(!text.contains(KEY), "API key echoed");
    }
    let body = s.take_one().json();
    assert_eq!(body["access_token"], token);
    assert_eq!(body["connection_id"], "poc_1");
    assert_eq!(body["metadata"], json!({"env": "prod"}));
    let expires = body["expires_at"].as_str().expect("expires_at");
    let expires = chrono::DateTime::parse_from_rfc3339(expires).expect("ISO 8601");
    let ahead = expires.signed_duration_since(chrono::Utc::now());
    assert!(
        (ahead - chrono::Duration::hours(12)).num_seconds().abs() < 120,
        "{ahead}"
    );

    // From an env var, and with an API error: the error report does not echo it either.
    s.push(Reply::fixture(400, "error-invalid-data.json"));
    let out = Sb::at(&s).env("CI_TOKEN", token).run(&[
        "imports",
        "create",
        "--server-deployment",
        "svd_1",
        "--access-token-env",
        "CI_TOKEN",
    ]);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(!out.stdout.contains(token) && !out.stderr.contains(token));
    assert!(out.stderr.contains("invalid_data"), "{}", out.stderr);
    assert!(out.stderr.contains("server_deployment_id") && out.stderr.contains("connection_id"));
    assert_eq!(s.take_one().json()["access_token"], token);

    // No token as a flag value at all.
    let out = Sb::at(&s).run(&[
        "imports",
        "create",
        "--connection",
        "poc_1",
        "--access-token",
        token,
    ]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(s.take().is_empty());
}

#[test]
fn usage_errors_exit_2_without_a_request() {
    let s = FakeServer::start();
    for args in [
        vec!["teams", "frobnicate"],
        vec!["teams", "list", "--limit", "0"],
        vec!["teams", "list", "--order", "sideways"],
        vec!["teams", "update", "tm_1"],
        vec!["imports", "create", "--connection", "poc_1"],
        vec!["imports", "create", "--access-token-env", "X"],
        vec![
            "imports",
            "create",
            "--connection",
            "poc_1",
            "--server-deployment",
            "svd_1",
            "--access-token-env",
            "X",
        ],
        vec![
            "imports",
            "create",
            "--connection",
            "poc_1",
            "--access-token-env",
            "UNSET_VAR",
        ],
        vec![
            "imports",
            "create",
            "--connection",
            "poc_1",
            "--access-token-stdin",
        ],
        vec!["imports", "update", "poti_1", "--expires-at", "tomorrow"],
        vec![
            "destinations",
            "create",
            "--name",
            "n",
            "--url",
            "https://x",
        ],
        vec![
            "destinations",
            "update",
            "cld_1",
            "--description",
            "d",
            "--clear-description",
        ],
        vec!["--read-only", "teams", "create", "--name", "x"],
        vec!["-o", "yaml", "teams", "list"],
        vec!["--log-level", "[[[", "teams", "list"],
    ] {
        let out = Sb::at(&s).run(&args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(!out.stderr.trim().is_empty(), "{args:?}: silent");
    }
    assert!(s.take().is_empty(), "a usage error sent a request");

    // No key anywhere.
    let out = Sb::new()
        .env("SWITCHBOARD_BASE_URL", &s.base_url)
        .run(&["teams", "list"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("no API key"), "{}", out.stderr);
}

#[test]
fn api_errors_exit_3_with_code_and_message() {
    let s = FakeServer::start();
    let out = Sb::at(&s).run(&["callbacks", "get", "missing_1"]);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(out.stdout.is_empty());
    assert!(out.stderr.contains("not_found"), "{}", out.stderr);
    assert!(out.stderr.contains("could not be found"), "{}", out.stderr);

    let out = Sb::at(&s)
        .env("SWITCHBOARD_API_KEY", "sk_bad_key_000000000")
        .run(&["teams", "list"]);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(out.stderr.contains("unauthorized") && out.stderr.contains("Invalid API key"));
    assert!(!out.stderr.contains("sk_bad_key_000000000"));

    s.push(Reply::text(200, "<html>not json</html>"));
    let out = Sb::at(&s).run(&["callbacks", "list"]);
    assert_eq!(out.code, 3, "{out:?}");
}

#[test]
fn network_failures_and_timeouts_exit_4() {
    let s = FakeServer::start();
    let sb = Sb::new();
    let cfg = sb.config(
        "fast.toml",
        &format!(
            "[profiles.default]\nbase_url = \"{}\"\napi_key = \"{KEY}\"\nretries = 0\ntimeout = 0.3\n",
            s.base_url
        ),
    );
    s.push(Reply::fixture(200, "callback.json").delayed(Duration::from_secs(3)));
    let out = sb.run(&[
        "--config",
        cfg.to_str().expect("path"),
        "callbacks",
        "get",
        "clb_1",
    ]);
    assert_eq!(out.code, 4, "{out:?}");
    assert!(out.stderr.contains("timed out"), "{}", out.stderr);

    let sb = Sb::new();
    let cfg = sb.config(
        "closed.toml",
        &format!(
            "[profiles.default]\nbase_url = \"{}\"\napi_key = \"{KEY}\"\nretries = 0\n",
            closed_port_url()
        ),
    );
    let out = sb.run(&["--config", cfg.to_str().expect("path"), "callbacks", "list"]);
    assert_eq!(out.code, 4, "{out:?}");
    assert!(out.stderr.contains("network error"), "{}", out.stderr);
}

#[test]
fn delete_refuses_without_yes_when_not_on_a_terminal() {
    let s = FakeServer::start();
    let out = Sb::at(&s)
        .stdin("y\n")
        .run(&["destinations", "delete", "cld_1"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("--yes"), "{}", out.stderr);
    assert!(s.take().is_empty(), "nothing may be deleted");

    let out = Sb::at(&s).run(&["destinations", "delete", "cld_1", "--yes"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stdout.trim_end(),
        fixture("destination.json").trim_end()
    );
    let r = s.take_one();
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("DELETE", "/callbacks-destinations/cld_1")
    );
}

fn profiles(server: &str, closed: &str) -> String {
    format!(
        r#"default_profile = "work"

[profiles.work]
base_url = "{server}"
api_key_env = "WORK_KEY"
instance_id = "ins_work"

[profiles.other]
base_url = "{closed}"
api_key_cmd = "echo sk_other_from_cmd_000000"
retries = 0
"#
    )
}

fn bearer(s: &FakeServer) -> String {
    s.take_one()
        .header("authorization")
        .unwrap_or_default()
        .to_string()
}

#[test]
fn config_precedence_flags_env_profile_defaults() {
    let s = FakeServer::start();
    let closed = closed_port_url();
    let text = profiles(&s.base_url, &closed);
    let with = |f: &dyn Fn(Sb, &Path) -> Sb, args: &[&str]| {
        let sb = Sb::new().env("WORK_KEY", "sk_work_key_000000000");
        let path = sb.config("profiles.toml", &text);
        let sb = f(sb, &path);
        let mut argv = vec!["--config", path.to_str().expect("path")];
        argv.extend(args);
        sb.run(&argv)
    };
    let plain = |sb: Sb, _: &Path| sb;

    // The default profile of the file.
    let out = with(&plain, &["callbacks", "list"]);
    assert_eq!(out.code, 0, "{out:?}");
    let r = s.take_one();
    assert_eq!(
        r.header("authorization"),
        Some("Bearer sk_work_key_000000000")
    );
    assert_eq!(r.header("metorial-instance-id"), Some("ins_work"));

    // Environment beats the profile: key and instance id.
    let out = with(
        &|sb, _| {
            sb.env("METORIAL_API_KEY", "sk_metorial_key_00000")
                .env("SWITCHBOARD_INSTANCE_ID", "ins_env")
        },
        &["callbacks", "list"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let r = s.take_one();
    assert_eq!(
        r.header("authorization"),
        Some("Bearer sk_metorial_key_00000")
    );
    assert_eq!(r.header("metorial-instance-id"), Some("ins_env"));
    let out = with(
        &|sb, _| {
            sb.env("METORIAL_API_KEY", "sk_metorial_key_00000")
                .env("SWITCHBOARD_API_KEY", "sk_switchboard_key_00")
        },
        &["callbacks", "list"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(bearer(&s), "Bearer sk_switchboard_key_00");

    // SWITCHBOARD_PROFILE picks the other profile (closed port: exit 4) ...
    let out = with(
        &|sb, _| sb.env("SWITCHBOARD_PROFILE", "other"),
        &["callbacks", "list"],
    );
    assert_eq!(out.code, 4, "{out:?}");
    // ... and --profile beats it.
    let out = with(
        &|sb, _| sb.env("SWITCHBOARD_PROFILE", "other"),
        &["--profile", "work", "callbacks", "list"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(bearer(&s), "Bearer sk_work_key_000000000");
    // The other profile's key comes from its command, once pointed at the server by flag.
    let out = with(
        &plain,
        &[
            "--profile",
            "other",
            "--base-url",
            &s.base_url,
            "callbacks",
            "list",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(bearer(&s), "Bearer sk_other_from_cmd_000000");

    // SWITCHBOARD_BASE_URL beats the profile, --base-url beats SWITCHBOARD_BASE_URL.
    let out = with(
        &|sb, _| sb.env("SWITCHBOARD_BASE_URL", &closed),
        &["callbacks", "list"],
    );
    assert_eq!(out.code, 4, "{out:?}");
    let out = with(
        &|sb, _| sb.env("SWITCHBOARD_BASE_URL", &closed),
        &["--base-url", &s.base_url, "callbacks", "list"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    s.take();

    // SWITCHBOARD_CONFIG names the file; the XDG default is used when nothing does.
    let sb = Sb::new().env("WORK_KEY", "sk_work_key_000000000");
    let path = sb.config("elsewhere.toml", &text);
    let out = sb
        .env("SWITCHBOARD_CONFIG", &path)
        .run(&["callbacks", "list"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(bearer(&s), "Bearer sk_work_key_000000000");
    let sb = Sb::new().env("WORK_KEY", "sk_work_key_000000000");
    sb.config("config/switchboard/config.toml", &text);
    let out = sb.run(&["callbacks", "list"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(bearer(&s), "Bearer sk_work_key_000000000");

    // An unknown profile is named with the ones that exist.
    let out = with(&plain, &["--profile", "nope", "callbacks", "list"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("\"nope\"") && out.stderr.contains("other, work"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_broken_config_names_file_line_and_problem() {
    let sb = Sb::new();
    let path = sb.config(
        "broken.toml",
        "[profiles.work]\nbase_url = \"http://x\"\nretries = \"three\"\n",
    );
    let out = sb.run(&["--config", path.to_str().expect("path"), "teams", "list"]);
    assert_eq!(out.code, 2, "{out:?}");
    let shown = path.display().to_string();
    assert!(out.stderr.contains(&shown), "{}", out.stderr);
    assert!(out.stderr.contains("line 3"), "{}", out.stderr);
    assert!(out.stderr.contains("\"three\""), "{}", out.stderr);

    let sb = Sb::new();
    let path = sb.config("syntax.toml", "[profiles.work\nbase_url = 1\n");
    let out = sb.run(&["--config", path.to_str().expect("path"), "info"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("line 1"), "{}", out.stderr);
}

#[cfg(unix)]
#[test]
fn an_inline_key_in_a_file_others_can_read_is_warned_about() {
    use std::os::unix::fs::PermissionsExt;
    // The file lives outside the run's home, which goes away with each run.
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("inline.toml");
    std::fs::write(
        &path,
        "[profiles.default]\napi_key = \"sk_inline_key_0123456789\"\n",
    )
    .expect("config");
    let arg = path.to_str().expect("path").to_string();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let out = Sb::new().run(&["--config", &arg, "info"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("chmod 600"), "{}", out.stderr);
    assert!(!out.stderr.contains("sk_inline_key_0123456789"));

    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let out = Sb::new().run(&["--config", &arg, "info"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stderr.contains("chmod"), "{}", out.stderr);
}

#[test]
fn info_shows_paths_profile_and_masked_key() {
    let s = FakeServer::start();
    let key = "sk_live_abcdefghijklmnopqrstuvwxyz";
    let sb = Sb::new().env("WORK_KEY", key);
    let path = sb.config("profiles.toml", &profiles(&s.base_url, &closed_port_url()));
    let home = sb.home.path().to_path_buf();
    let out = sb.run(&["--config", path.to_str().expect("path"), "info"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stdout.contains(key), "full key shown");
    assert!(out.stdout.contains("sk_li…"), "{}", out.stdout);
    assert!(out.stdout.contains("work") && out.stdout.contains(&s.base_url));
    assert!(out.stdout.contains("ins_work"));
    assert!(out.stdout.contains(&path.display().to_string()));
    assert!(
        out.stdout
            .contains(&home.join("data/switchboard").display().to_string())
    );

    let sb = Sb::new().env("SWITCHBOARD_API_KEY", key);
    let out = sb.run(&["-o", "json", "info"]);
    assert_eq!(out.code, 0, "{out:?}");
    let v: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(v["profile"], "default");
    assert_eq!(v["base_url"], "https://api.metorial.com");
    assert_eq!(v["api_key"], "sk_li…");
    assert_eq!(v["config_exists"], false);
    assert!(s.requests().is_empty(), "info calls no API");
}

#[test]
fn an_empty_table_says_so_under_its_header() {
    let s = FakeServer::start();
    let empty = r#"{"items":[],"pagination":{"has_more_before":false,"has_more_after":false}}"#;
    for (args, noun) in [
        (&["destinations", "list"][..], "(no destinations)"),
        (&["callbacks", "list", "--all"][..], "(no callbacks)"),
    ] {
        s.push(Reply::text(200, empty));
        let mut argv = vec!["-o", "table"];
        argv.extend(args);
        let out = Sb::at(&s).run(&argv);
        assert_eq!(out.code, 0, "{out:?}");
        let lines: Vec<&str> = out.stdout.lines().collect();
        assert!(lines[0].starts_with("ID "), "{}", out.stdout);
        assert_eq!(lines.get(1).copied(), Some(noun), "{}", out.stdout);
    }
}

#[test]
fn destinations_list_names_the_callbacks_it_selects() {
    let s = FakeServer::start();
    let out = Sb::at(&s).run(&["-o", "table", "destinations", "list"]);
    assert_eq!(out.code, 0, "{out:?}");
    let row = out
        .stdout
        .lines()
        .find(|l| l.starts_with("cld_0mh50wbx0SNIzGFIzhrGrH"))
        .expect("the selecting destination");
    // A named callback by name; the unnamed one keeps its id.
    assert!(row.contains("GitHub issues"), "{row}");
    assert!(!row.contains("clb_0mh50r3n8XtxKhahTIqha1"), "{row}");
    assert!(row.contains("clb_0mh50tps4lvHAdMkez5U6s"), "{row}");
    // JSON stays the API's reply, ids and all.
    let out = Sb::at(&s).run(&["-o", "json", "destinations", "list"]);
    assert!(out.stdout.contains("clb_0mh50r3n8XtxKhahTIqha1"));
}

#[test]
fn a_wrong_role_lists_the_valid_ones() {
    let s = FakeServer::start();
    s.push(Reply::text(
        404,
        r#"{"ok":false,"status":404,"code":"not_found","message":"The requested team-roles could not be found.","entity":"team-roles","id":"wrongrole"}"#,
    ));
    let out = Sb::at(&s).run(&[
        "teams",
        "set-project",
        "tm_1",
        "--project",
        "prj_1",
        "--role",
        "wrongrole",
    ]);
    assert_eq!(out.code, 3, "{out:?}");
    for role in items("team-role-list.json") {
        assert!(
            out.stderr.contains(str_of(&role, "slug")),
            "{} not listed: {}",
            str_of(&role, "slug"),
            out.stderr
        );
    }
    assert!(out.stderr.contains("Valid roles"), "{}", out.stderr);
}

#[test]
fn a_server_without_pulsar_is_one_sentence_and_exit_3() {
    let s = FakeServer::start();
    s.serve_versions(Some(common::fake::NEWER));
    s.push(Reply::fixture(404, "error-endpoint-not-found.json"));
    let out = Sb::at(&s).run(&["callbacks", "list"]);
    assert_eq!(out.code, 3, "{out:?}");
    assert_eq!(
        out.stderr.trim_end(),
        "error: This server does not serve API version pulsar (2025-01-01), which Switchboard \
         speaks; it serves mt_2025_01_01_dashboard (current) and mt_2026_01_01_magnetar.",
    );
}

/// The exit codes as `--help` and the README state them: the same list.
#[test]
fn help_and_readme_agree_on_exit_codes() {
    fn codes(text: &str) -> Vec<String> {
        let start = text.find("Exit codes: ").expect("an exit codes line") + "Exit codes: ".len();
        // Up to the sentence's full stop, parentheses dropped.
        let (mut out, mut depth) = (String::new(), 0);
        for c in text[start..].chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '.' if depth == 0 => break,
                _ if depth == 0 => out.push(c),
                _ => {}
            }
        }
        out.split(',')
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    }
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README");
    let help = Sb::new().run(&["--help"]);
    assert_eq!(help.code, 0, "{help:?}");
    let from_help = codes(&help.stdout);
    assert_eq!(from_help.len(), 5, "{from_help:?}");
    assert_eq!(from_help, codes(&readme));
}

#[test]
fn info_versions_shows_what_the_server_serves() {
    let s = FakeServer::start();
    let out = Sb::at(&s).run(&["info", "--versions"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .contains("API versions      mt_2025_01_01_pulsar (current) and mt_2025_01_01_dashboard (sending mt_2025_01_01_pulsar)"),
        "{}",
        out.stdout
    );
    s.serve_versions(Some(common::fake::NEWER));
    let out = Sb::at(&s).run(&["-o", "json", "info", "--versions"]);
    let v: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(
        v["api_versions"]["versions"][1]["version"],
        "mt_2026_01_01_magnetar"
    );
    let summary = v["api_versions_summary"].as_str().expect("summary");
    assert!(
        summary.contains("does not serve API version pulsar"),
        "{summary}"
    );
    // No key on the public path; plain `info` asks nothing.
    assert!(
        s.introspections()
            .iter()
            .all(|r| r.header("authorization").is_none())
    );
    let asked = s.introspections().len();
    Sb::at(&s).run(&["info"]);
    assert_eq!(s.introspections().len(), asked);
}
