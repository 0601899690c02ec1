//! `switchboard alerts check|watch` as processes against the embedded service on 127.0.0.1: a
//! receiver of the test's own that fails, then recovers, then fails again gives exactly one
//! failing alert, then one recovered, then one failing, and a watch restarted while the rule
//! is failing sends nothing again; `check` exits 3 on a failing rule and 0 otherwise, 2 on a bad
//! rule before any request; a command sink gets the alert on its standard input and nothing in
//! its arguments; a webhook sink's signature verifies, and an alert a webhook refuses is not
//! remembered and is sent again; the state file is 0600 and a link planted at its path is refused.
use crate::common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::post;
use common::replay::{got, receiver, verify_independently};
use common::service::{TestService, eventually, http, manual_callback, start_with};
use serde_json::{Value, json};
use switchboard::api::identity::ServiceIdentity;
use switchboard::api::model::{CallbacksInput, CreateDestination};
use switchboard::api::{ListQuery, NotificationFilter, Order};
use switchboard::service::{Seed, ServiceConfig};
use tokio::io::{AsyncBufReadExt, BufReader};

const WAIT: Duration = Duration::from_secs(30);

/// A receiver on 127.0.0.1 that answers 500 (with a cookie and an escape sequence) while `fail`
/// is set, 200 otherwise; `hits` counts the requests.
async fn switchable(fail: Arc<AtomicBool>, hits: Arc<AtomicUsize>) -> String {
    let app = Router::new().route(
        "/{path}",
        post(move || {
            hits.fetch_add(1, Ordering::SeqCst);
            let fail = fail.load(Ordering::SeqCst);
            async move {
                if fail {
                    (
                        StatusCode::INTERNAL_SERVER_ERROR,
                        [("set-cookie", "session=RECEIVER_SECRET_42")],
                        "boom \u{1b}]0;PWNED\u{7}",
                    )
                        .into_response()
                } else {
                    (StatusCode::OK, "thanks").into_response()
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

/// The demo service (retrying fast) with one more destination, delivering to `url`.
struct World {
    t: TestService,
    hook: String,
    callback: String,
}

async fn world() -> World {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    cfg.retry_base = Duration::from_millis(200);
    let t = start_with(cfg).await;
    let cb = manual_callback(&t.client).await;
    World {
        t,
        hook: cb.url.expect("hook url"),
        callback: cb.id,
    }
}

impl World {
    async fn destination(&self, url: &str) -> String {
        self.t
            .client
            .create_destination(&CreateDestination {
                name: "Partner".into(),
                description: None,
                url: url.into(),
                callbacks: CallbacksInput::selected(vec![self.callback.clone()]),
            })
            .await
            .expect("destination")
            .id
    }

    async fn fire(&self, n: usize) {
        for i in 0..n {
            let r = http()
                .post(&self.hook)
                .json(&json!({"type": "order.paid", "n": i}))
                .send()
                .await
                .expect("hook");
            assert_eq!(r.status(), 200);
        }
    }

    /// Waits until `dest` has `n` notifications, each with an attempt, the newest in state
    /// `newest`; returns their ids, newest first.
    async fn delivered(&self, dest: &str, n: usize, newest: &str) -> Vec<String> {
        let filter = NotificationFilter {
            destination_ids: vec![dest.to_string()],
            ..Default::default()
        };
        eventually(WAIT, || async {
            let q = ListQuery {
                limit: Some(100),
                order: Some(Order::Desc),
                ..Default::default()
            };
            let items = self
                .t
                .client
                .list_notifications(&q, &filter)
                .await
                .ok()?
                .items;
            let done = items.len() == n
                && items
                    .iter()
                    .all(|x| !x.attempts.is_empty() && x.status.as_str() != "pending")
                && items.first().is_some_and(|x| x.status.as_str() == newest);
            done.then(|| items.iter().map(|x| x.id.clone()).collect())
        })
        .await
    }
}

/// A private home with a config file of `rules` (top-level `[[alerts]]`).
struct Home {
    dir: tempfile::TempDir,
    config: PathBuf,
}

impl Home {
    fn new(rules: &str) -> Self {
        let dir = tempfile::tempdir().expect("home");
        let config = dir.path().join("config.toml");
        std::fs::write(&config, rules).expect("config");
        Self { dir, config }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Where `alerts watch` keeps what it sent for the service at `base_url`.
    fn state_file(&self, base_url: &str) -> PathBuf {
        self.path().join("data/switchboard/alerts").join(format!(
            "{}.json",
            ServiceIdentity::new(base_url, None).key()
        ))
    }

    fn command(&self, base_url: &str, key: &str, args: &[&str]) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.path())
            .env("XDG_CONFIG_HOME", self.path().join("config"))
            .env("XDG_DATA_HOME", self.path().join("data"))
            .env("SWITCHBOARD_CONFIG", &self.config)
            .env("SWITCHBOARD_BASE_URL", base_url)
            .env("SWITCHBOARD_API_KEY", key)
            .env("ALERT_SECRET", "whsec_alerts_0123456789")
            .args(args)
            .stdin(Stdio::null())
            .kill_on_drop(true);
        cmd
    }

    /// Runs to its end (bounded): exit code, standard output, standard error.
    async fn run(&self, base_url: &str, key: &str, args: &[&str]) -> (i32, String, String) {
        let out = tokio::time::timeout(
            WAIT,
            self.command(base_url, key, args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .output(),
        )
        .await
        .expect("it ends")
        .expect("runs");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

/// A running `alerts watch`: its standard output's JSON lines and its standard error's lines.
struct Watcher {
    child: tokio::process::Child,
    lines: Arc<Mutex<Vec<Value>>>,
    notes: Arc<Mutex<Vec<String>>>,
}

impl Watcher {
    fn start(home: &Home, base_url: &str, key: &str) -> Self {
        let mut child = home
            .command(base_url, key, &["alerts", "watch", "--interval", "100ms"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn switchboard");
        let stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        let lines: Arc<Mutex<Vec<Value>>> = Arc::default();
        let notes: Arc<Mutex<Vec<String>>> = Arc::default();
        let sink = lines.clone();
        tokio::spawn(async move {
            let mut r = BufReader::new(stdout).lines();
            while let Ok(Some(l)) = r.next_line().await {
                let v: Value = serde_json::from_str(&l)
                    .unwrap_or_else(|e| panic!("a line that is not JSON ({e}): {l:?}"));
                sink.lock().expect("lines").push(v);
            }
        });
        let sink = notes.clone();
        tokio::spawn(async move {
            let mut r = BufReader::new(stderr).lines();
            while let Ok(Some(l)) = r.next_line().await {
                sink.lock().expect("notes").push(l);
            }
        });
        Self {
            child,
            lines,
            notes,
        }
    }

    fn lines(&self) -> Vec<Value> {
        self.lines.lock().expect("lines").clone()
    }

    async fn wait_lines(&self, n: usize) -> Vec<Value> {
        eventually(WAIT, || async {
            let got = self.lines();
            (got.len() >= n).then_some(got)
        })
        .await
    }

    /// Waits for the note the first pass ends with.
    async fn first_pass(&self) {
        eventually(WAIT, || async {
            let notes = self.notes.lock().expect("notes").clone();
            notes
                .iter()
                .any(|l| l.starts_with("alerts watch: "))
                .then_some(())
        })
        .await;
    }

    async fn kill(mut self) {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(WAIT, self.child.wait()).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_fires_once_on_each_change_and_not_again_after_a_restart() {
    let fail = Arc::new(AtomicBool::new(true));
    let rx = switchable(fail.clone(), Arc::default()).await;
    let w = world().await;
    let dest = w.destination(&format!("{rx}/partner")).await;
    w.fire(2).await;
    let failed = w.delivered(&dest, 2, "retrying").await;
    let home = Home::new(&format!(
        "[[alerts]]\nname = \"partner down\"\ndestination = \"{dest}\"\n\
         rule = \"consecutive_failures\"\ncount = 2\n"
    ));
    let (base, key) = (
        w.t.svc.base_url.clone(),
        w.t.svc.api_key.expose().to_string(),
    );

    let first = Watcher::start(&home, &base, &key);
    let lines = first.wait_lines(1).await;
    let a = &lines[0];
    assert_eq!(
        (&a["alert"], &a["state"], &a["rule"], &a["destination"]),
        (
            &json!("partner down"),
            &json!("failing"),
            &json!("consecutive_failures"),
            &json!(dest)
        ),
        "{a}"
    );
    let ids: Vec<&str> = a["notifications"]
        .as_array()
        .expect("notifications")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(ids, failed, "the failing deliveries, newest first");
    assert!(a["since"].is_string(), "{a}");
    let answer = &a["last_answer"];
    assert_eq!(answer["status"], 500, "{a}");
    assert!(
        answer["body"].as_str().is_some_and(|b| b.contains("boom")),
        "{a}"
    );
    assert_eq!(answer["headers"]["set-cookie"], "••••••••", "masked: {a}");
    assert!(!a.to_string().contains("RECEIVER_SECRET_42"));
    first.first_pass().await;
    first.kill().await;

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let state = home.state_file(&base);
        let mode = std::fs::metadata(&state)
            .expect("state file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{}", state.display());
    }

    // Restarted while still failing: its first pass sends nothing.
    let second = Watcher::start(&home, &base, &key);
    second.first_pass().await;
    assert!(second.lines().is_empty(), "re-fired: {:?}", second.lines());

    fail.store(false, Ordering::SeqCst);
    w.fire(1).await;
    let lines = second.wait_lines(1).await;
    let r = &lines[0];
    assert_eq!(
        (&r["alert"], &r["state"], &r["destination"]),
        (&json!("partner down"), &json!("recovered"), &json!(dest)),
        "{r}"
    );
    assert_eq!(r["failing_since"], a["since"], "{r}");

    fail.store(true, Ordering::SeqCst);
    w.fire(2).await;
    let lines = second.wait_lines(2).await;
    let states: Vec<&str> = lines.iter().filter_map(|l| l["state"].as_str()).collect();
    assert_eq!(states, ["recovered", "failing"], "{lines:?}");
    second.kill().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_exits_3_on_a_failing_rule_0_otherwise_and_2_on_a_bad_rule_before_any_request() {
    let (rx, _log) = receiver().await;
    let w = world().await;
    let bad = w.destination(&format!("{rx}/fail")).await;
    let good = w.destination(&format!("{rx}/okgood")).await;
    w.fire(1).await;
    w.delivered(&bad, 1, "retrying").await;
    w.delivered(&good, 1, "succeeded").await;
    let (base, key) = (
        w.t.svc.base_url.clone(),
        w.t.svc.api_key.expose().to_string(),
    );
    let rule = |name: &str, dest: &str| {
        format!(
            "[[alerts]]\nname = \"{name}\"\ndestination = \"{dest}\"\nrule = \"failure_rate\"\n\
             threshold = 0.5\nwindow = \"1h\"\n"
        )
    };

    let more = format!(
        "[[alerts]]\nname = \"quiet\"\ndestination = \"{bad}\"\nrule = \"no_success\"\n\
         window = \"1h\"\n[[alerts]]\nname = \"tokens\"\nrule = \"expiring\"\ndays = 7\n"
    );
    let home = Home::new(&format!(
        "{}{}{more}",
        rule("bad", &bad),
        rule("good", &good)
    ));
    let (code, out, err) = home.run(&base, &key, &["alerts", "check"]).await;
    assert_eq!(code, 3, "{out}\n{err}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let states: Vec<(&str, &str)> = lines
        .iter()
        .filter(|l| l["alert"] != "tokens")
        .map(|l| {
            (
                l["alert"].as_str().unwrap_or_default(),
                l["state"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [("bad", "failing"), ("good", "ok"), ("quiet", "failing")],
        "{out}"
    );
    assert_eq!(lines[0]["value"]["failure_rate"], 1.0, "{out}");
    assert_eq!(lines[0]["last_answer"]["status"], 500, "{out}");
    assert!(!out.contains('\u{1b}'), "no raw escape: {out}");
    assert!(!out.contains("RECEIVER_SECRET_42"), "{out}");
    assert!(err.contains("bad"), "{err}");
    // Every import judged; those expiring within 7 days (or expired) failing, by the API's own list.
    let imports: Vec<switchboard::api::model::ProviderOauthImport> =
        switchboard::api::list_all(&w.t.client, switchboard::api::ApiRequest::list_imports)
            .await
            .expect("imports");
    let soon = chrono::Utc::now() + chrono::TimeDelta::days(7);
    let mut want: Vec<(String, bool)> = imports
        .iter()
        .map(|i| (i.id.clone(), i.expires_at.is_some_and(|t| t <= soon)))
        .collect();
    let mut seen: Vec<(String, bool)> = lines
        .iter()
        .filter(|l| l["alert"] == "tokens")
        .map(|l| {
            assert!(l["destination"].is_null(), "{l}");
            (
                l["import"].as_str().unwrap_or_default().to_string(),
                l["state"] == "failing",
            )
        })
        .collect();
    want.sort();
    seen.sort();
    assert!(want.iter().any(|(_, f)| *f) && want.iter().any(|(_, f)| !*f));
    assert_eq!(seen, want);

    let home = Home::new(&rule("good", &good));
    let (code, out, err) = home.run(&base, &key, &["alerts", "check"]).await;
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("\"state\":\"ok\""), "{out}");

    // A bad rule: named with its field, exit 2, and the server never asked.
    let fake = common::fake::FakeServer::start();
    let home = Home::new(&format!(
        "{}[[alerts]]\nname = \"late\"\ndestination = \"*\"\nrule = \"no_success\"\nwindow = \"5w\"\n",
        rule("good", &good)
    ));
    let (code, out, err) = home
        .run(&fake.base_url, common::fake::KEY, &["alerts", "check"])
        .await;
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        err.contains("alert rule \"late\" (#2 in [[alerts]]): window:"),
        "{err}"
    );
    assert!(out.is_empty(), "{out}");
    let (code, _, err) = home
        .run(
            &fake.base_url,
            common::fake::KEY,
            &["alerts", "check", "-o", "table"],
        )
        .await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("JSON lines only"), "{err}");
    assert!(fake.requests().is_empty() && fake.introspections().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_gets_the_alert_on_stdin_and_a_webhook_gets_it_signed() {
    let (rx, log) = receiver().await;
    let w = world().await;
    let dest = w.destination(&format!("{rx}/fail")).await;
    w.fire(1).await;
    w.delivered(&dest, 1, "retrying").await;
    let (base, key) = (
        w.t.svc.base_url.clone(),
        w.t.svc.api_key.expose().to_string(),
    );

    // A webhook that answers 500: its alert is not remembered, so it is sent again.
    let refused = Arc::new(AtomicUsize::new(0));
    let refusing = switchable(Arc::new(AtomicBool::new(true)), refused.clone()).await;
    let out = tempfile::tempdir().expect("out");
    let script = out.path().join("sink.sh");
    let (argv, got_file) = (out.path().join("argv"), out.path().join("got.json"));
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\ncat > '{}.part'\nmv '{}.part' '{}'\n",
            argv.display(),
            got_file.display(),
            got_file.display(),
            got_file.display()
        ),
    )
    .expect("script");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    }
    let home = Home::new(&format!(
        "[[alerts]]\nname = \"to a command\"\ndestination = \"{dest}\"\n\
         rule = \"consecutive_failures\"\ncount = 1\nsink = {{ command = \"{}\" }}\n\
         [[alerts]]\nname = \"to a webhook\"\ndestination = \"*\"\n\
         rule = \"consecutive_failures\"\ncount = 1\n\
         sink = {{ webhook = \"{rx}/okalerts\", secret_env = \"ALERT_SECRET\" }}\n\
         [[alerts]]\nname = \"refused\"\ndestination = \"{dest}\"\n\
         rule = \"consecutive_failures\"\ncount = 1\nsink = {{ webhook = \"{refusing}/alerts\" }}\n",
        script.display()
    ));
    let watcher = Watcher::start(&home, &base, &key);

    let alert: Value = eventually(WAIT, || async {
        let text = std::fs::read_to_string(&got_file).ok()?;
        serde_json::from_str(text.trim()).ok()
    })
    .await;
    assert_eq!(
        (&alert["alert"], &alert["state"], &alert["destination"]),
        (&json!("to a command"), &json!("failing"), &json!(dest)),
        "{alert}"
    );
    let args = std::fs::read_to_string(&argv).expect("argv");
    assert_eq!(args.trim(), "", "no argument: {args:?}");

    // The webhook rule watches every destination: the demo's failing ones too. Ours is there.
    let hooks = eventually(WAIT, || async {
        let hooks = got(&log, "okalerts");
        hooks
            .iter()
            .any(|g| {
                serde_json::from_slice::<Value>(&g.body)
                    .is_ok_and(|v| v["destination"] == json!(dest))
            })
            .then_some(hooks)
    })
    .await;
    for g in &hooks {
        verify_independently("whsec_alerts_0123456789", &g.headers, &g.body);
        let v: Value = serde_json::from_slice(&g.body).expect("JSON");
        assert_eq!(
            (&v["alert"], &v["state"]),
            (&json!("to a webhook"), &json!("failing"))
        );
    }
    assert!(
        watcher.lines().is_empty(),
        "other sinks print nothing on stdout"
    );

    eventually(WAIT, || async {
        (refused.load(Ordering::SeqCst) >= 2).then_some(())
    })
    .await;
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(home.state_file(&base)).expect("state file"))
            .expect("state JSON");
    let remembered = state["failing"].as_object().expect("failing");
    assert!(
        remembered.contains_key("to a command") && remembered.contains_key("to a webhook"),
        "{state}"
    );
    assert!(!remembered.contains_key("refused"), "{state}");
    let notes = watcher.notes.lock().expect("notes").join("\n");
    assert!(
        notes.contains("alert \"refused\" not sent to webhook at 127.0.0.1"),
        "{notes}"
    );
    watcher.kill().await;
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_planted_at_the_state_file_is_refused() {
    let base = common::fake::closed_port_url();
    let home = Home::new("[[alerts]]\nname = \"tokens\"\nrule = \"expiring\"\ndays = 7\n");
    let state = home.state_file(&base);
    std::fs::create_dir_all(state.parent().expect("folder")).expect("mkdir");
    let target = home.path().join("bashrc");
    std::fs::write(&target, "keep\n").expect("target");
    std::os::unix::fs::symlink(&target, &state).expect("symlink");
    for verb in ["watch", "check"] {
        let (code, out, err) = home.run(&base, common::fake::KEY, &["alerts", verb]).await;
        assert_eq!(code, 1, "{verb}: {out}\n{err}");
        assert!(err.contains("symbolic link"), "{verb}: {err}");
    }
    assert_eq!(std::fs::read(&target).expect("read"), b"keep\n");
}
