//! The `switchboard` binary as a process against the recording loopback server: output formats,
//! exit codes, confirmation refusal, secrets never echoed, config precedence and config errors.
use crate::common;

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

    fn run(self, args: &[&str]) -> Out {
        self.run_to(args, Stdio::piped())
    }

    /// Runs with standard output closed, as the shell's `>&-` does.
    fn run_closed(mut self, args: &[&str]) -> Out {
        let bin = self.cmd.get_program().to_os_string();
        let mut sh = Command::new("sh");
        sh.arg("-c")
            .arg("exec \"$0\" \"$@\" >&-")
            .arg(bin)
            .args(args);
        // The same clean environment.
        sh.env_clear();
        for (k, v) in self.cmd.get_envs() {
            if let Some(v) = v {
                sh.env(k, v);
            }
        }
        self.cmd = sh;
        self.run_to(&[], Stdio::piped())
    }

    /// Runs with standard output going to `stdout` (a closed pipe, `/dev/full`).
    fn run_to(mut self, args: &[&str], stdout: Stdio) -> Out {
        let mut child = self
            .cmd
            .args(args)
            .stdin(Stdio::piped())
            .stdout(stdout)
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

/// The one JSON object an error under `-o json|ndjson` leaves on standard error.
fn error_of(out: &Out) -> Value {
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line of JSON on stderr: {out:?}");
    let v: Value = serde_json::from_str(lines[0]).expect("stderr is JSON");
    v["error"].clone()
}

#[test]
fn output_failures_exit_6_never_0_or_1() {
    let s = FakeServer::start();
    for args in [
        &["teams", "list"][..],
        &["-o", "table", "teams", "list"],
        &["-o", "ndjson", "teams", "list", "--all"],
        &["--jq", ".items[].id", "teams", "list"],
        &["info", "-o", "json"],
        &["-o", "json", "profile", "list"],
        &["completion", "bash"],
    ] {
        // Standard output closed (`>&-`): refused, exit 6 (a reader that closed its pipe is
        // not a failure: see `faces::a_closed_pipe_ends_quietly_with_exit_0`).
        let out = Sb::at(&s).run_closed(args);
        assert_eq!(out.code, 6, "stdout closed, {args:?}: {out:?}");
        assert!(
            out.stderr.contains("cannot write the output"),
            "{}",
            out.stderr
        );

        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let out = Sb::at(&s).run_to(args, Stdio::from(full));
        assert_eq!(out.code, 6, "/dev/full, {args:?}: {out:?}");
    }
    // Under -o json the failure is data too.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let out = Sb::at(&s).run_to(&["-o", "json", "callbacks", "list"], Stdio::from(full));
    assert_eq!(out.code, 6, "{out:?}");
    assert_eq!(error_of(&out)["code"], "output");
}

#[test]
fn jq_filters_the_json_and_a_bad_expression_is_a_usage_error() {
    let s = FakeServer::start();
    let ids: Vec<String> = items("team-list.json")
        .iter()
        .map(|t| str_of(t, "id").to_string())
        .collect();
    let out = Sb::at(&s).run(&["teams", "list", "--jq", ".items[].id"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.lines().collect::<Vec<_>>(), ids);

    // Non-strings come out as compact JSON; `--jq` implies JSON even when a table was the default.
    let out = Sb::at(&s).run(&["--jq", "{n: (.items | length)}", "teams", "list"]);
    assert_eq!(out.stdout, format!("{{\"n\":{}}}\n", ids.len()), "{out:?}");
    let out = Sb::at(&s).run(&["callbacks", "get", "clb_1", "--jq", ".object"]);
    assert_eq!(out.stdout, "callback\n", "{out:?}");
    let out = Sb::at(&s).run(&["info", "--jq", ".profile"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, "default\n"), "{out:?}");
    s.take();

    for bad in [".items[", "nosuchfilter(1)"] {
        let out = Sb::at(&s).run(&["teams", "list", "--jq", bad]);
        assert_eq!(out.code, 2, "{bad}: {out:?}");
        assert!(out.stderr.contains("--jq"), "{}", out.stderr);
        assert!(out.stdout.is_empty());
    }
    let out = Sb::at(&s).run(&["teams", "list", "--jq", ".", "-o", "table"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(s.requests().is_empty(), "nothing sent for a bad expression");

    // A runtime error is jaq's message, exit 2.
    let out = Sb::at(&s).run(&["teams", "list", "--jq", ".items.name"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("cannot index"), "{}", out.stderr);
}

#[test]
fn ndjson_prints_one_item_a_line_across_pages_as_they_arrive() {
    let s = FakeServer::start();
    let all = items("team-list.json");
    let page = |item: &Value, more: bool| {
        json!({"items": [item], "pagination": {"has_more_before": false, "has_more_after": more}})
            .to_string()
    };
    s.push(Reply::text(200, page(&all[0], true)));
    s.push(Reply::text(200, page(&all[1], false)));
    let out = Sb::at(&s).run(&["-o", "ndjson", "teams", "list", "--all", "--limit", "1"]);
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(lines, all);

    // One page without --all: its items, not the envelope.
    s.take();
    let out = Sb::at(&s).run(&["-o", "ndjson", "teams", "list"]);
    assert_eq!(out.stdout.lines().count(), all.len(), "{out:?}");

    // Streamed: the first page's line is out while the second page is still on its way.
    s.take();
    s.push(Reply::text(200, page(&all[0], true)));
    s.push(Reply::text(200, page(&all[1], false)).delayed(Duration::from_secs(30)));
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["-o", "ndjson", "teams", "list", "--all", "--limit", "1"])
        .env_clear()
        .env("SWITCHBOARD_BASE_URL", &s.base_url)
        .env("SWITCHBOARD_API_KEY", KEY)
        .env("HOME", tempfile::tempdir().expect("home").path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let stdout = child.stdout.take().expect("stdout");
    let mut first = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut first)
        .expect("first line");
    let still_running = child.try_wait().expect("try_wait").is_none();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(serde_json::from_str::<Value>(&first).expect("json"), all[0]);
    assert!(still_running, "the first line came before the last page");
}

#[test]
fn errors_under_json_output_are_one_json_object_on_stderr() {
    let s = FakeServer::start();
    // A command line clap refuses is a usage error like any other: JSON under -o json or --jq.
    for args in [
        &["-o", "json", "teams", "list", "--bogus"][..],
        &["--jq", ".items", "teams", "list", "--limit", "abc"],
    ] {
        let out = Sb::at(&s).run(args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{out:?}");
        let e = error_of(&out);
        assert_eq!(e["code"], "usage", "{e}");
        assert!(e["status"].is_null(), "{e}");
    }
    let plain = Sb::at(&s).run(&["teams", "list", "--bogus"]);
    assert_eq!(plain.code, 2, "{plain:?}");
    assert!(
        plain.stderr.contains("Usage:"),
        "clap's own text otherwise: {plain:?}"
    );
    let out = Sb::at(&s).run(&["-o", "json", "callbacks", "get", "missing_1"]);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(out.stdout.is_empty(), "stdout holds only results");
    let e = error_of(&out);
    assert_eq!(e["status"], 404);
    assert_eq!(e["code"], "not_found");
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("could not be found"),
        "{e}"
    );

    let out = Sb::at(&s).run(&["-o", "ndjson", "teams", "get", "x", "--jq", "nope("]);
    assert_eq!(out.code, 2, "{out:?}");
    assert_eq!(error_of(&out)["code"], "usage");
    assert_eq!(error_of(&out)["status"], Value::Null);

    let out = Sb::new()
        .env("SWITCHBOARD_BASE_URL", closed_port_url())
        .env("SWITCHBOARD_API_KEY", KEY)
        .run(&["-o", "json", "callbacks", "list"]);
    assert_eq!(out.code, 4, "{out:?}");
    assert_eq!(error_of(&out)["code"], "network");

    // A configuration error too (no key anywhere).
    let out = Sb::new()
        .env("SWITCHBOARD_BASE_URL", &s.base_url)
        .run(&["-o", "json", "teams", "list"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert_eq!(error_of(&out)["code"], "usage");

    // A table keeps the readable report.
    let out = Sb::at(&s).run(&["-o", "table", "callbacks", "get", "missing_1"]);
    assert_eq!(out.code, 3);
    assert!(out.stderr.starts_with("error: not_found"), "{}", out.stderr);
}

#[test]
fn fields_choose_table_columns_by_path_with_secrets_masked() {
    let s = FakeServer::start();
    let dests = items("destination-list.json");
    let out = Sb::at(&s).run(&[
        "destinations",
        "list",
        "--fields",
        "id,webhook_destination.url,callbacks.type,webhook_destination.signing_secret",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        [
            "ID",
            "WEBHOOK_DESTINATION.URL",
            "CALLBACKS.TYPE",
            "WEBHOOK_DESTINATION.SIGNING_SECRET"
        ]
    );
    let secret = dests[0]["webhook_destination"]["signing_secret"]
        .as_str()
        .expect("secret");
    let row: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(row[0], str_of(&dests[0], "id"));
    assert_eq!(row[1], dests[0]["webhook_destination"]["url"]);
    assert_eq!(row[2], "all");
    assert!(!out.stdout.contains(secret), "secret shown in full");
    assert_eq!(lines.len(), dests.len() + 1);

    // A missing path is `-`; the detail view takes the same paths.
    let out = Sb::at(&s).run(&["callbacks", "get", "clb_1", "--fields", "id,nope.x"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("NOPE.X") && l.ends_with(" -")),
        "{out:?}"
    );

    for bad in ["id,", "a..b"] {
        let out = Sb::at(&s).run(&["teams", "list", "--fields", bad]);
        assert_eq!(out.code, 2, "{bad}: {out:?}");
    }
    let out = Sb::at(&s).run(&["teams", "list", "--fields", "id", "-o", "json"]);
    assert_eq!(out.code, 2, "{out:?}");
}

/// Posts one event to a callback's hook URL.
async fn post_event(hook: &str, n: u32) {
    let r = common::service::http()
        .post(hook)
        .json(&json!({"type": "order.created", "order": n}))
        .send()
        .await
        .expect("hook");
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn watch_prints_each_new_notification_as_it_arrives() {
    use switchboard::api::model::{CallbacksInput, CreateDestination};
    use tokio::io::{AsyncBufReadExt, BufReader};

    let t = common::service::demo().await;
    let cb = common::service::manual_callback(&t.client).await;
    let hook = cb.url.clone().expect("hook url");
    let dest = t
        .client
        .create_destination(&CreateDestination {
            name: "Watched".into(),
            description: None,
            url: format!("{}/in", closed_port_url()),
            callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
        })
        .await
        .expect("destination")
        .id;
    // One delivery before the watch starts: it must not be printed.
    post_event(&hook, 0).await;
    let filter = switchboard::api::NotificationFilter {
        destination_ids: vec![dest.clone()],
        ..Default::default()
    };
    let before = common::service::eventually(Duration::from_secs(10), || async {
        let p = t
            .client
            .list_notifications(&Default::default(), &filter)
            .await
            .ok()?;
        p.items.first().map(|n| n.id.clone())
    })
    .await;

    let home = tempfile::tempdir().expect("home");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args([
            "notifications",
            "list",
            "--destination",
            &dest,
            "--watch",
            "--interval",
            "100ms",
        ])
        .env_clear()
        .env("HOME", home.path())
        .env("SWITCHBOARD_BASE_URL", &t.svc.base_url)
        .env("SWITCHBOARD_API_KEY", t.svc.api_key.expose())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn watch");
    let mut out = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut err = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let limit = Duration::from_secs(20);
    // Its starting point is known once it says it is watching.
    let said = tokio::time::timeout(limit, err.next_line())
        .await
        .expect("watch starts in time")
        .expect("stderr")
        .unwrap_or_default();
    assert!(said.contains("watching"), "{said}");

    let mut seen = Vec::new();
    for n in 1..=2 {
        post_event(&hook, n).await;
        let line = tokio::time::timeout(limit, out.next_line())
            .await
            .expect("a line per new notification")
            .expect("stdout")
            .expect("still running");
        let v: Value = serde_json::from_str(&line).expect("piped: NDJSON");
        assert_eq!(v["object"], "callback.notification", "{v}");
        seen.push(v["id"].as_str().expect("id").to_string());
    }
    assert!(!seen.contains(&before), "the earlier one is not printed");
    assert_ne!(seen[0], seen[1]);
    assert!(
        child.try_wait().expect("try_wait").is_none(),
        "runs until stopped"
    );
    child.kill().await.expect("kill");

    // On a terminal: a table, its header once, then a row per new notification.
    let text = watch_on_a_terminal(&t, &dest, &hook).await;
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let headers = lines.iter().filter(|l| l.starts_with("ID ")).count();
    let rows = lines.iter().filter(|l| l.starts_with("cbn_")).count();
    assert_eq!(headers, 1, "{text}");
    assert_eq!(rows, 2, "{text}");
    assert!(!text.contains(&before), "{text}");
    assert!(!text.contains('{'), "rows, not JSON: {text}");
}

/// Runs `--watch` in a pseudo-terminal, posts two events once it watches, and returns what it
/// printed once two rows are there.
async fn watch_on_a_terminal(t: &common::service::TestService, dest: &str, hook: &str) -> String {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    use std::io::Read;
    use std::sync::{Arc, Mutex};

    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 200,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("openpty");
    let home = tempfile::tempdir().expect("home");
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.args([
        "notifications",
        "list",
        "--destination",
        dest,
        "--watch",
        "--interval",
        "100ms",
    ]);
    cmd.env("HOME", home.path());
    cmd.env("SWITCHBOARD_BASE_URL", &t.svc.base_url);
    cmd.env("SWITCHBOARD_API_KEY", t.svc.api_key.expose());
    let mut child = pair.slave.spawn_command(cmd).expect("spawn in a pty");
    drop(pair.slave);
    let seen = Arc::new(Mutex::new(String::new()));
    let mut reader = pair.master.try_clone_reader().expect("pty reader");
    let feed = Arc::clone(&seen);
    // Drained on a thread, or the child blocks on a full buffer.
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            feed.lock()
                .expect("lock")
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    let text = || seen.lock().expect("lock").replace('\r', "");
    common::service::eventually(Duration::from_secs(20), || async {
        text().contains("watching").then_some(())
    })
    .await;
    for n in 10..12 {
        post_event(hook, n).await;
    }
    let out = common::service::eventually(Duration::from_secs(20), || async {
        let t = text();
        (t.lines().filter(|l| l.starts_with("cbn_")).count() >= 2).then_some(t)
    })
    .await;
    let _ = child.kill();
    let _ = child.wait();
    out
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
    assert_eq!(from_help.len(), 7, "{from_help:?}");
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

#[test]
fn profile_commands_take_jq_like_every_command() {
    let out = Sb::new().run(&["--jq", "length", "profile", "list"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.trim(), "0", "{out:?}");
    let bad = Sb::new().run(&["--jq", ".[", "profile", "list"]);
    assert_eq!(bad.code, 2, "{bad:?}");
}

/// Runs the binary off the async runtime, so the local service keeps answering meanwhile.
async fn run_beside(sb: Sb, args: Vec<String>) -> Out {
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        sb.run(&args)
    })
    .await
    .expect("the run finishes")
}

#[tokio::test]
async fn destinations_duplicate_copies_url_description_and_callbacks_with_a_new_secret() {
    use switchboard::api::model::{CallbacksInput, CreateDestination};
    let t = common::service::demo().await;
    let cb = common::service::manual_callback(&t.client).await;
    let orig = t
        .client
        .create_destination(&CreateDestination {
            name: "Original".into(),
            description: Some("kept as it is".into()),
            url: "https://example.com/in?token=abc".into(),
            callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
        })
        .await
        .expect("destination");
    let sb = || {
        Sb::new()
            .env("SWITCHBOARD_BASE_URL", &t.svc.base_url)
            .env("SWITCHBOARD_API_KEY", t.svc.api_key.expose())
    };
    let args = |extra: &[&str]| {
        let mut a = vec![
            "destinations".to_string(),
            "duplicate".into(),
            orig.id.clone(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let count = || async {
        t.client
            .list_destinations(&Default::default(), &[])
            .await
            .expect("list")
            .items
            .len()
    };
    let before = count().await;

    // Not on a terminal: it needs --yes (exit 2), and nothing is created.
    let out = run_beside(sb().stdin("y\n"), args(&[])).await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("--yes"), "{}", out.stderr);
    assert_eq!(count().await, before, "nothing may be created");

    // -o json: the API's object of the copy.
    let out = run_beside(sb(), args(&["--yes"])).await;
    assert_eq!(out.code, 0, "{out:?}");
    let copy: Value = serde_json::from_str(&out.stdout).expect("the API's object");
    assert_eq!(copy["name"], "Original (copy)");
    assert_eq!(copy["description"], "kept as it is");
    assert_ne!(copy["id"], json!(orig.id));
    let hook = orig.webhook_destination.clone().expect("a webhook");
    let got = t
        .client
        .get_destination(str_of(&copy, "id"))
        .await
        .expect("the copy exists");
    let got_hook = got.webhook_destination.expect("a webhook");
    assert_eq!(got_hook.url, hook.url, "the full URL is kept");
    assert_ne!(got_hook.signing_secret, hook.signing_secret, "a new secret");
    assert_eq!(
        got.callbacks, orig.callbacks,
        "the callback selection is kept"
    );
    assert_eq!(count().await, before + 1);

    // `--name`, and the same shape `destinations create` prints.
    let out = run_beside(sb(), args(&["--name", "Named copy", "-y"])).await;
    assert_eq!(out.code, 0, "{out:?}");
    let named: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(named["name"], "Named copy");
    let created = run_beside(
        sb(),
        [
            "destinations",
            "create",
            "--name",
            "X",
            "--url",
            "https://example.com/x",
            "--all-callbacks",
        ]
        .map(String::from)
        .to_vec(),
    )
    .await;
    assert_eq!(created.code, 0, "{created:?}");
    let created: Value = serde_json::from_str(&created.stdout).expect("json");
    let keys = |v: &Value| {
        v.as_object()
            .map(|o| o.keys().cloned().collect::<Vec<_>>())
            .unwrap_or_default()
    };
    assert_eq!(keys(&named), keys(&created));

    // An unknown id is the API's 404 (exit 3), still nothing created.
    let out = run_beside(
        sb(),
        ["destinations", "duplicate", "cld_nothing", "--yes"]
            .map(String::from)
            .to_vec(),
    )
    .await;
    assert_eq!(out.code, 3, "{out:?}");
}

#[test]
fn a_resource_operation_is_refused_read_only_without_a_request() {
    let s = FakeServer::start();
    let out = Sb::at(&s).run(&["--read-only", "destinations", "duplicate", "cld_1", "--yes"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("read-only"), "{}", out.stderr);
    assert!(s.take().is_empty(), "nothing may be sent");
}
