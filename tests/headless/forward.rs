//! `switchboard notifications forward` and `notifications diff` as processes against the embedded
//! service on 127.0.0.1: events posted while forwarding reach a loopback receiver, which checks
//! each signature with its own HMAC; the forwarder is killed, more events are posted, and
//! `--resume` forwards exactly the missed ones, in order, then follows; the service restarted
//! mid-way (same database file, same port) is waited out and nothing is lost; every NDJSON line
//! parses. A receiver that fails then succeeds gives two attempts that `diff` compares.
use crate::common;

use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::post;
use common::replay::{Log, got, receiver, verify_independently};
use common::service::{TestService, eventually, http, manual_callback, start_with};
use serde_json::{Value, json};
use switchboard::api::model::{CallbacksInput, CreateDestination, Notification};
use switchboard::api::{ListQuery, NotificationFilter, Order, Secret};
use switchboard::service::{DbLocation, Seed, ServiceConfig};
use tokio::io::{AsyncBufReadExt, BufReader};

const WAIT: Duration = Duration::from_secs(30);

/// A service, a `webhook_manual` callback and a destination delivering to `<rx>/platform`.
struct World {
    t: TestService,
    hook: String,
    dest: String,
    secret: String,
}

async fn world(cfg: ServiceConfig, rx: &str) -> World {
    let t = start_with(cfg).await;
    let cb = manual_callback(&t.client).await;
    let d = t
        .client
        .create_destination(&CreateDestination {
            name: "The platform's receiver".into(),
            description: None,
            url: format!("{rx}/platform"),
            callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
        })
        .await
        .expect("destination");
    World {
        t,
        hook: cb.url.expect("hook url"),
        dest: d.id,
        secret: d.webhook_destination.expect("webhook").signing_secret,
    }
}

fn demo_config() -> ServiceConfig {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    cfg
}

/// Posts event number `i` to the hook.
async fn fire(hook: &str, i: usize) {
    let r = http()
        .post(hook)
        .json(&json!({"type": format!("build.step{}", i % 2), "n": i}))
        .send()
        .await
        .expect("hook");
    assert_eq!(r.status(), 200, "the hook takes event {i}");
}

/// The destination's notifications, oldest first, once `n` of them have a recorded attempt.
async fn delivered(w: &World, n: usize) -> Vec<Notification> {
    let filter = NotificationFilter {
        destination_ids: vec![w.dest.clone()],
        ..Default::default()
    };
    eventually(WAIT, || async {
        let q = ListQuery {
            limit: Some(100),
            order: Some(Order::Asc),
            ..Default::default()
        };
        let items = w.t.client.list_notifications(&q, &filter).await.ok()?.items;
        (items.len() == n && items.iter().all(|x| !x.attempts.is_empty())).then_some(items)
    })
    .await
}

/// A running `notifications forward`: its NDJSON lines as they come (each must parse).
struct Forwarder {
    child: tokio::process::Child,
    lines: Arc<Mutex<Vec<Value>>>,
}

impl Forwarder {
    fn start(base_url: &str, key: &Secret, data: &std::path::Path, args: &[&str]) -> Self {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", data)
            .env("XDG_CONFIG_HOME", data.join("config"))
            .env("XDG_DATA_HOME", data.join("data"))
            .env("SWITCHBOARD_BASE_URL", base_url)
            .env("SWITCHBOARD_API_KEY", key.expose())
            .args(["notifications", "forward", "--interval", "100ms"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut child = cmd.spawn().expect("spawn switchboard");
        let stdout = child.stdout.take().expect("stdout");
        let lines: Arc<Mutex<Vec<Value>>> = Arc::default();
        let sink = lines.clone();
        tokio::spawn(async move {
            let mut r = BufReader::new(stdout).lines();
            while let Ok(Some(l)) = r.next_line().await {
                let v: Value = serde_json::from_str(&l)
                    .unwrap_or_else(|e| panic!("an NDJSON line that does not parse ({e}): {l:?}"));
                sink.lock().expect("lines").push(v);
            }
        });
        Self { child, lines }
    }

    fn events(&self, kind: &str) -> Vec<Value> {
        self.lines
            .lock()
            .expect("lines")
            .iter()
            .filter(|v| v["event"] == kind)
            .cloned()
            .collect()
    }

    async fn wait_for(&self, kind: &str, n: usize) -> Vec<Value> {
        eventually(WAIT, || async {
            let got = self.events(kind);
            (got.len() >= n).then_some(got)
        })
        .await
    }

    /// Ctrl-C, then the exit code.
    async fn interrupt(mut self) -> i32 {
        let pid = self.child.id().expect("running").to_string();
        let sent = std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .expect("kill");
        assert!(sent.success());
        let status = tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("it stops on Ctrl-C")
            .expect("wait");
        status.code().unwrap_or(-1)
    }
}

/// Checks what reached `<rx>/fwd`: exactly `expected`, in that order, each body the recorded one
/// and each signature good for the destination's secret.
fn check_forwarded(log: &Log, expected: &[Notification], secret: &str) {
    let fwd = got(log, "fwd");
    let ids: Vec<String> = fwd
        .iter()
        .map(|g| {
            g.headers
                .get("metorial-notification-id")
                .and_then(|v| v.to_str().ok())
                .expect("metorial-notification-id")
                .to_string()
        })
        .collect();
    let want: Vec<String> = expected.iter().map(|n| n.id.clone()).collect();
    assert_eq!(ids, want, "every notification forwarded once, in order");
    for (g, n) in fwd.iter().zip(expected) {
        let recorded = n.attempts[0]
            .webhook_request
            .as_ref()
            .and_then(|r| r.request_body.clone())
            .expect("recorded body");
        assert_eq!(
            g.body,
            recorded.as_bytes(),
            "the recorded body, byte for byte"
        );
        verify_independently(secret, &g.headers, &g.body);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_then_resumed_forwards_every_event_once_in_order_signed() {
    let (rx, log) = receiver().await;
    let w = world(demo_config(), &rx).await;
    let home = tempfile::tempdir().expect("home");
    let to = format!("{rx}/fwd");
    let args = ["--to", &to, "--destination", &w.dest];
    let (base, key) = (w.t.svc.base_url.clone(), w.t.svc.api_key.clone());

    let first = Forwarder::start(&base, &key, home.path(), &args);
    first.wait_for("ready", 1).await;
    for i in 0..3 {
        fire(&w.hook, i).await;
    }
    let forwarded = first.wait_for("forwarded", 3).await;
    for f in &forwarded {
        assert_eq!(f["status"], 200);
        assert!(
            f["notification_id"]
                .as_str()
                .is_some_and(|s| s.starts_with("cbn_"))
        );
        assert!(
            f["event_type"]
                .as_str()
                .is_some_and(|s| s.starts_with("build.step"))
        );
    }
    drop(first); // killed (SIGKILL): no chance to say goodbye

    for i in 3..7 {
        fire(&w.hook, i).await;
    }
    let missed = delivered(&w, 7).await;
    assert_eq!(got(&log, "fwd").len(), 3, "nothing forwarded while away");

    let second = Forwarder::start(
        &base,
        &key,
        home.path(),
        &[&args[..], &["--resume"]].concat(),
    );
    let caught = second.wait_for("caught_up", 1).await;
    assert_eq!(caught[0]["forwarded"], 4, "the four missed ones");
    fire(&w.hook, 7).await;
    second.wait_for("forwarded", 5).await;
    let all = delivered(&w, 8).await;
    check_forwarded(&log, &all, &w.secret);
    assert_eq!(&all[..7], &missed[..]);
    assert_eq!(second.interrupt().await, 0, "Ctrl-C stops cleanly");

    // The forwarded answer compares with the recorded attempt.
    let (id, home_path) = (all[7].id.clone(), home.path().to_path_buf());
    let (b, k) = (base.clone(), key.clone());
    let diff = tokio::task::spawn_blocking(move || {
        let args = [
            "notifications",
            "diff",
            &id,
            "--with-replay",
            "1",
            "-o",
            "json",
        ];
        switchboard(&b, &k, &home_path, &args)
    })
    .await
    .expect("diff");
    let v: Value = serde_json::from_str(&diff).expect("the diff parses");
    assert_eq!(v["left"]["label"], "attempt #1");
    assert!(
        v["right"]["label"]
            .as_str()
            .is_some_and(|l| l.starts_with("forwarded ")),
        "{v}"
    );
    assert_eq!(v["right"]["status"], 200);

    // A third run resumes after the last one: nothing is sent again.
    let third = Forwarder::start(
        &base,
        &key,
        home.path(),
        &[&args[..], &["--resume"]].concat(),
    );
    let caught = third.wait_for("caught_up", 1).await;
    assert_eq!(caught[0]["forwarded"], 0);
    assert_eq!(third.interrupt().await, 0);
    assert_eq!(got(&log, "fwd").len(), 8);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_restarted_midway_is_waited_out_and_nothing_is_lost() {
    let (rx, log) = receiver().await;
    let dir = tempfile::tempdir().expect("dir");
    let mut cfg = demo_config();
    cfg.db = DbLocation::Path(dir.path().join("service.db"));
    cfg.api_key = Some(Secret::new("sk_forward_restart_test_key"));
    let w = world(cfg.clone(), &rx).await;
    let home = tempfile::tempdir().expect("home");
    let to = format!("{rx}/fwd");
    let (base, key) = (w.t.svc.base_url.clone(), w.t.svc.api_key.clone());
    let f = Forwarder::start(
        &base,
        &key,
        home.path(),
        &["--to", &to, "--destination", &w.dest],
    );
    f.wait_for("ready", 1).await;
    fire(&w.hook, 0).await;
    f.wait_for("forwarded", 1).await;

    // The service goes away…
    let addr: std::net::SocketAddr = base
        .trim_start_matches("http://")
        .parse()
        .expect("service address");
    let World {
        t,
        hook,
        dest,
        secret,
    } = w;
    t.svc.shutdown().await;
    let why = f.wait_for("reconnecting", 1).await;
    assert!(why[0]["retry_in_ms"].as_u64().is_some(), "{why:?}");

    // …and comes back on the same port with the same database.
    cfg.addr = addr;
    let t = start_with(cfg).await;
    let w = World {
        t,
        hook,
        dest,
        secret,
    };
    for i in 1..4 {
        fire(&w.hook, i).await;
    }
    f.wait_for("forwarded", 4).await;
    let all = delivered(&w, 4).await;
    check_forwarded(&log, &all, &w.secret);
    assert_eq!(f.interrupt().await, 0);
}

/// Runs the binary to the end with no terminal; exit 0 expected; its standard output.
fn switchboard(base: &str, key: &Secret, home: &std::path::Path, args: &[&str]) -> String {
    switchboard_exit(base, key, home, args, 0)
}

/// [`switchboard`], expecting exit `code`.
fn switchboard_exit(
    base: &str,
    key: &Secret,
    home: &std::path::Path,
    args: &[&str],
    code: i32,
) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("SWITCHBOARD_BASE_URL", base)
        .env("SWITCHBOARD_API_KEY", key.expose())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run switchboard");
    assert_eq!(out.status.code(), Some(code), "{out:?}");
    String::from_utf8(out.stdout).expect("utf-8")
}

/// A receiver whose first answer is a 500 with a cookie and an escape sequence, then 200s.
async fn flaky_receiver() -> String {
    let calls = Arc::new(AtomicUsize::new(0));
    let app = Router::new().route(
        "/flaky",
        post(move || {
            let calls = calls.clone();
            async move {
                if calls.fetch_add(1, Ordering::SeqCst) == 0 {
                    (
                        StatusCode::INTERNAL_SERVER_ERROR,
                        [("set-cookie", "session=RECEIVER_SECRET_42"), ("x-try", "1")],
                        axum::Json(
                            json!({"ok": false, "error": "boom \u{1b}]0;PWNED\u{7}", "n": 1}),
                        ),
                    )
                        .into_response()
                } else {
                    (
                        StatusCode::OK,
                        [("set-cookie", "session=RECEIVER_SECRET_43"), ("x-try", "2")],
                        axum::Json(json!({"ok": true, "n": 1})),
                    )
                        .into_response()
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_diff_of_a_failed_and_a_succeeded_attempt() {
    let rx = flaky_receiver().await;
    let mut cfg = demo_config();
    cfg.retry_base = Duration::from_millis(20);
    let t = start_with(cfg).await;
    let cb = manual_callback(&t.client).await;
    let d = t
        .client
        .create_destination(&CreateDestination {
            name: "Flaky".into(),
            description: None,
            url: format!("{rx}/flaky"),
            callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
        })
        .await
        .expect("destination");
    fire(&cb.url.expect("hook url"), 0).await;
    let filter = NotificationFilter {
        destination_ids: vec![d.id.clone()],
        ..Default::default()
    };
    let n = eventually(WAIT, || async {
        let page = t
            .client
            .list_notifications(&ListQuery::default(), &filter)
            .await
            .ok()?;
        let n = page.items.into_iter().next()?;
        (n.attempts.len() == 2).then_some(n)
    })
    .await;

    let (id, base, key) = (n.id.clone(), t.svc.base_url.clone(), t.svc.api_key.clone());
    let home = tempfile::tempdir().expect("home");
    let json_text = tokio::task::spawn_blocking(move || {
        let diff = |format: &str| {
            let args = [
                "notifications",
                "diff",
                &id,
                "--attempt",
                "1",
                "--with-attempt",
                "2",
                "-o",
                format,
            ];
            switchboard(&base, &key, home.path(), &args)
        };
        (diff("json"), diff("table"))
    })
    .await
    .expect("runs");
    let (json_out, table) = json_text;
    for text in [&json_out, &table] {
        assert!(!text.contains("RECEIVER_SECRET"), "cookies masked: {text}");
        assert!(
            !text.contains('\u{1b}'),
            "no escape reaches the terminal: {text}"
        );
    }
    let v: Value = serde_json::from_str(&json_out).expect("the JSON parses");
    assert_eq!(v["left"]["status"], 500);
    assert_eq!(v["right"]["status"], 200);
    assert_eq!(v["status_changed"], true);
    assert_eq!(v["body"]["mode"], "json");
    let rows = v["body"]["rows"].as_array().expect("rows");
    let row = |p: &str| rows.iter().find(|r| r["path"] == p).expect(p).clone();
    assert_eq!(row("$.ok")["change"], "changed");
    assert_eq!(row("$.ok")["left"], "false");
    assert_eq!(row("$.ok")["right"], "true");
    assert_eq!(row("$.n")["change"], "same");
    assert_eq!(row("$.error")["change"], "removed");
    let headers = v["headers"].as_array().expect("headers");
    let h = |name: &str| {
        headers
            .iter()
            .find(|h| h["name"] == name)
            .expect(name)
            .clone()
    };
    assert_eq!(h("x-try")["change"], "changed");
    assert_eq!(h("set-cookie")["change"], "changed");
    assert!(table.contains("~ $.ok: false → true"), "{table}");
    assert_eq!(h("content-length")["change"], "changed");
    assert!(table.contains("~ content-length: "), "{table}");
    assert!(table.contains("~ status 500 → 200"), "{table}");
}

/// A receiver at `/once` whose first request never gets an answer; later ones get 200. Returns
/// its URL and the notification id of every request it got.
async fn hang_once_receiver() -> (String, Arc<Mutex<Vec<String>>>) {
    let got: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = got.clone();
    let app = Router::new().route(
        "/once",
        post(move |headers: axum::http::HeaderMap| {
            let log = log.clone();
            async move {
                let id = headers
                    .get("metorial-notification-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_string();
                let first = {
                    let mut log = log.lock().expect("log");
                    log.push(id);
                    log.len() == 1
                };
                if first {
                    std::future::pending::<()>().await;
                }
                StatusCode::OK
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/once"), got)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forward_cut_short_by_a_kill_is_not_sent_again_on_resume() {
    let (rx, _log) = receiver().await;
    let (to, reached) = hang_once_receiver().await;
    let w = world(demo_config(), &rx).await;
    let home = tempfile::tempdir().expect("home");
    let args = ["--to", to.as_str(), "--destination", &w.dest];
    let (base, key) = (w.t.svc.base_url.clone(), w.t.svc.api_key.clone());
    let first = Forwarder::start(&base, &key, home.path(), &args);
    first.wait_for("ready", 1).await;
    fire(&w.hook, 0).await;
    // Sent, and the answer never comes: killed while in flight.
    eventually(WAIT, || async {
        (reached.lock().expect("log").len() == 1).then_some(())
    })
    .await;
    drop(first);

    fire(&w.hook, 1).await;
    let all = delivered(&w, 2).await;
    let second = Forwarder::start(
        &base,
        &key,
        home.path(),
        &[&args[..], &["--resume"]].concat(),
    );
    second.wait_for("caught_up", 1).await;
    let ids = reached.lock().expect("log").clone();
    assert_eq!(
        ids,
        [all[0].id.clone(), all[1].id.clone()],
        "the one in doubt is not sent twice"
    );
    let failed = second.events("failed");
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["notification_id"], all[0].id.as_str());
    assert_eq!(second.interrupt().await, 0);
}

/// A receiver at `/fwd` that answers 200 and keeps, per request, the peer's address: one
/// address per TCP connection the forwarder opened.
async fn peer_receiver() -> (String, Arc<Mutex<Vec<std::net::SocketAddr>>>) {
    use axum::extract::ConnectInfo;
    let peers: Arc<Mutex<Vec<std::net::SocketAddr>>> = Arc::default();
    let log = peers.clone();
    let app = Router::new().route(
        "/fwd",
        post(
            move |ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>| {
                let log = log.clone();
                async move {
                    log.lock().expect("peers").push(peer);
                    StatusCode::OK
                }
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .await
    });
    (format!("http://{addr}/fwd"), peers)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catch_up_reuses_one_connection_to_the_target() {
    let (rx, _log) = receiver().await;
    let (to, peers) = peer_receiver().await;
    let w = world(demo_config(), &rx).await;
    for i in 0..6 {
        fire(&w.hook, i).await;
    }
    delivered(&w, 6).await;
    let home = tempfile::tempdir().expect("home");
    let (base, key) = (w.t.svc.base_url.clone(), w.t.svc.api_key.clone());
    let f = Forwarder::start(
        &base,
        &key,
        home.path(),
        &["--to", &to, "--destination", &w.dest, "--since", "1h"],
    );
    let caught = f.wait_for("caught_up", 1).await;
    assert_eq!(caught[0]["forwarded"], 6);
    let mut seen = peers.lock().expect("peers").clone();
    // A send that failed (on a loaded machine, one that timed out) is sent again, and may reach
    // the receiver twice and need a fresh connection: only those may add a request or one.
    let retried = f.events("failed").len();
    assert!(
        (6..=6 + retried).contains(&seen.len()),
        "each forwarded once ({retried} sends retried): {}",
        seen.len()
    );
    seen.sort();
    seen.dedup();
    assert!(
        seen.len() <= 1 + retried,
        "one kept-alive connection for the whole catch-up, not one per forward \
         ({retried} sends retried): {seen:?}"
    );
    assert_eq!(f.interrupt().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_answer_is_kept_for_diff_with_replay() {
    let (rx, log) = receiver().await;
    let w = world(demo_config(), &rx).await;
    fire(&w.hook, 0).await;
    let n = delivered(&w, 1).await.remove(0);
    let home = tempfile::tempdir().expect("home");
    let (base, key) = (w.t.svc.base_url.clone(), w.t.svc.api_key.clone());
    let (id, home_path) = (n.id.clone(), home.path().to_path_buf());
    let to = format!("{rx}/replayed");
    let diff = tokio::task::spawn_blocking(move || {
        let run = |args: &[&str]| switchboard(&base, &key, &home_path, args);
        run(&["notifications", "replay", &id, "--to", &to, "-o", "json"]);
        run(&[
            "notifications",
            "diff",
            &id,
            "--with-replay",
            "1",
            "-o",
            "json",
        ])
    })
    .await
    .expect("replay then diff");
    assert_eq!(got(&log, "replayed").len(), 1, "replayed once");
    let v: Value = serde_json::from_str(&diff).expect("the diff parses");
    assert_eq!(v["left"]["label"], "attempt #1");
    let right = v["right"]["label"].as_str().unwrap_or_default();
    assert!(
        right.starts_with("replayed ") && right.contains("/replayed"),
        "the replay's answer: {v}"
    );
    assert_eq!(v["right"]["status"], 200);
}

/// Issue 37 item 9: one masking verdict per answer. The own receiver's header the replay
/// showed is shown by `diff --with-replay` too (it was masked there); its cookie stays masked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diff_with_replay_keeps_the_replays_masking_verdict() {
    let (rx, _log) = receiver().await;
    let w = world(demo_config(), &rx).await;
    fire(&w.hook, 0).await;
    let n = delivered(&w, 1).await.remove(0);
    let home = tempfile::tempdir().expect("home");
    let (base, key) = (w.t.svc.base_url.clone(), w.t.svc.api_key.clone());
    let (id, home_path) = (n.id.clone(), home.path().to_path_buf());
    let to = format!("{rx}/fail");
    let (replay, diff) = tokio::task::spawn_blocking(move || {
        let run = |args: &[&str]| switchboard(&base, &key, &home_path, args);
        // A receiver's 5xx answer: exit 3 (the receiver failed), the answer printed and kept.
        let replay = switchboard_exit(
            &base,
            &key,
            &home_path,
            &["notifications", "replay", &id, "--to", &to, "-o", "json"],
            3,
        );
        let diff = run(&[
            "notifications",
            "diff",
            &id,
            "--with-replay",
            "1",
            "-o",
            "json",
        ]);
        (replay, diff)
    })
    .await
    .expect("replay then diff");
    let r: Value = serde_json::from_str(&replay).expect("the replay parses");
    assert_eq!(r["response"]["headers"]["x-receiver"], "rx-own-1", "{r}");
    let v: Value = serde_json::from_str(&diff).expect("the diff parses");
    let row = |name: &str| {
        v["headers"]
            .as_array()
            .and_then(|hs| hs.iter().find(|h| h["name"] == name))
            .cloned()
            .unwrap_or_else(|| panic!("a {name} row: {v}"))
    };
    assert_eq!(row("x-receiver")["right"], "rx-own-1", "{v}");
    assert_eq!(row("set-cookie")["right"], "••••••••", "{v}");
    assert!(!diff.contains("RECEIVER_SECRET_42"), "{diff}");
}

/// A port on 127.0.0.1 where nothing listens now (bound, then let go).
async fn free_port() -> std::net::SocketAddr {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    l.local_addr().expect("addr")
}

/// A receiver at `addr` (answering 200 on every path), recording what it got.
async fn receiver_at(addr: std::net::SocketAddr) -> Log {
    let log: Log = Arc::default();
    let app = Router::new()
        .route("/{path}", post(common::replay::receive))
        .with_state(log.clone());
    // The port was let go a moment ago: bind it again, bounded.
    let listener = eventually(WAIT, || async {
        tokio::net::TcpListener::bind(addr).await.ok()
    })
    .await;
    tokio::spawn(async move { axum::serve(listener, app).await });
    log
}

fn ids_of(log: &Log, path: &str) -> Vec<String> {
    got(log, path)
        .iter()
        .filter_map(|g| {
            g.headers
                .get("metorial-notification-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_that_restarts_gets_every_one_while_the_run_lives_and_on_resume() {
    let (rx, _log) = receiver().await;
    let w = world(demo_config(), &rx).await;
    let home = tempfile::tempdir().expect("home");
    let down = free_port().await;
    let to = format!("http://{down}/fwd");
    let args = ["--to", to.as_str(), "--destination", &w.dest];
    let (base, key) = (w.t.svc.base_url.clone(), w.t.svc.api_key.clone());

    // The receiver is down: each send fails and is tried again with a pause.
    let f = Forwarder::start(&base, &key, home.path(), &args);
    f.wait_for("ready", 1).await;
    for i in 0..3 {
        fire(&w.hook, i).await;
    }
    let failed = f.wait_for("failed", 3).await;
    assert!(
        failed.iter().all(|v| v["retry_in_ms"].as_u64().is_some()),
        "{failed:?}"
    );
    // It comes back: all three arrive, while the same run lives.
    let log = receiver_at(down).await;
    f.wait_for("forwarded", 3).await;
    let all = delivered(&w, 3).await;
    let want: Vec<String> = all.iter().map(|n| n.id.clone()).collect();
    let mut got_ids = ids_of(&log, "fwd");
    got_ids.sort();
    assert_eq!(got_ids, want, "each once");
    drop(f);

    // Down again, killed while two wait for their next try; `--resume` sends them.
    let down = free_port().await;
    let to = format!("http://{down}/fwd");
    let args = ["--to", to.as_str(), "--destination", &w.dest];
    let f = Forwarder::start(&base, &key, home.path(), &args);
    f.wait_for("ready", 1).await;
    for i in 3..5 {
        fire(&w.hook, i).await;
    }
    f.wait_for("failed", 2).await;
    drop(f);
    let log = receiver_at(down).await;
    let resumed = Forwarder::start(
        &base,
        &key,
        home.path(),
        &[&args[..], &["--resume"]].concat(),
    );
    resumed.wait_for("forwarded", 2).await;
    let all = delivered(&w, 5).await;
    let mut got_ids = ids_of(&log, "fwd");
    got_ids.sort();
    assert_eq!(got_ids, [all[3].id.clone(), all[4].id.clone()]);
    assert_eq!(resumed.interrupt().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_reports_truthfully_and_a_second_forwarder_is_refused() {
    let (rx, log) = receiver().await;
    let w = world(demo_config(), &rx).await;
    let home = tempfile::tempdir().expect("home");
    let to = format!("{rx}/fwd");
    let args = ["--to", to.as_str(), "--destination", &w.dest];
    let (base, key) = (w.t.svc.base_url.clone(), w.t.svc.api_key.clone());
    let first = Forwarder::start(&base, &key, home.path(), &args);
    first.wait_for("ready", 1).await;

    // A second forwarder on the same profile and target: refused, clearly.
    let (b, k, h) = (base.clone(), key.clone(), home.path().to_path_buf());
    let to2 = to.clone();
    let second = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &h)
            .env("XDG_CONFIG_HOME", h.join("config"))
            .env("XDG_DATA_HOME", h.join("data"))
            .env("SWITCHBOARD_BASE_URL", &b)
            .env("SWITCHBOARD_API_KEY", k.expose())
            .args(["notifications", "forward", "--to", &to2, "--resume"])
            .stdin(Stdio::null())
            .output()
            .expect("second")
    })
    .await
    .expect("second runs");
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{err}");
    assert!(err.contains("another forwarder is running"), "{err}");

    for i in 0..4 {
        fire(&w.hook, i).await;
    }
    first.wait_for("forwarded", 4).await;
    drop(first); // killed: the cursor may lag what was sent

    let resumed = Forwarder::start(
        &base,
        &key,
        home.path(),
        &[&args[..], &["--resume"]].concat(),
    );
    let caught = resumed.wait_for("caught_up", 1).await;
    assert_eq!(caught[0]["forwarded"], 0);
    assert!(
        resumed.events("failed").is_empty(),
        "nothing already delivered is reported failed: {:?}",
        resumed.events("failed")
    );
    assert_eq!(got(&log, "fwd").len(), 4, "each once");
    assert_eq!(resumed.interrupt().await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_past_every_id_is_reported() {
    let (rx, log) = receiver().await;
    let w = world(demo_config(), &rx).await;
    let home = tempfile::tempdir().expect("home");
    let to = format!("{rx}/fwd");
    let target = url::Url::parse(&to).expect("url");
    // A cursor saved against another service whose ids run far ahead.
    switchboard::api::forward::CursorFile::new(
        &home.path().join("data/switchboard"),
        "default",
        &target,
    )
    .save(Some("cbn_zzzzzzzzzzzzzzzzzzzzzz"), &[], &target)
    .expect("cursor");
    let (base, key) = (w.t.svc.base_url.clone(), w.t.svc.api_key.clone());
    let f = Forwarder::start(
        &base,
        &key,
        home.path(),
        &["--to", &to, "--destination", &w.dest, "--resume"],
    );
    let ahead = f.wait_for("cursor_ahead", 1).await;
    assert_eq!(ahead[0]["cursor"], "cbn_zzzzzzzzzzzzzzzzzzzzzz");
    f.wait_for("ready", 1).await;
    fire(&w.hook, 0).await;
    f.wait_for("forwarded", 1).await;
    assert_eq!(got(&log, "fwd").len(), 1, "new ones still come");
    assert_eq!(f.interrupt().await, 0);
}

/// A platform of our own making for the faults the service does not make: notifications listed
/// by id (`after`, `order`, `limit`), each visible or not, pending or attempted, as the test
/// sets them.
#[derive(Clone, Default)]
struct Platform {
    items: Arc<Mutex<Vec<(Value, bool)>>>,
}

impl Platform {
    fn notification(id: &str, attempted: bool) -> Value {
        let at = "2026-01-01T00:00:00.000Z";
        let attempts = if attempted {
            json!([{"id": format!("{id}_a"), "status": "succeeded", "index": 0, "created_at": at,
                "webhook_request": {"id": format!("{id}_r"), "url": "http://127.0.0.1:9/in",
                    "request_method": "POST",
                    "request_body": json!({"type": "build.done", "id": id}).to_string(),
                    "request_headers": {}, "response_status": 200, "duration": 1,
                    "created_at": at}}])
        } else {
            json!([])
        };
        json!({"object": "callback.notification", "id": id, "type": "webhook_http",
            "status": if attempted { "succeeded" } else { "pending" },
            "url": "http://127.0.0.1:9/in", "created_at": at, "attempts": attempts})
    }

    /// Adds (or replaces) `id`.
    fn set(&self, id: &str, attempted: bool, visible: bool) {
        let mut items = self.items.lock().expect("items");
        items.retain(|(v, _)| v["id"] != id);
        items.push((Self::notification(id, attempted), visible));
        items.sort_by(|a, b| a.0["id"].as_str().cmp(&b.0["id"].as_str()));
    }

    async fn start(&self) -> String {
        use axum::extract::{Query, State};
        async fn list(
            State(p): State<Platform>,
            Query(q): Query<std::collections::HashMap<String, String>>,
        ) -> axum::Json<Value> {
            let items = p.items.lock().expect("items");
            let mut seen: Vec<Value> = items
                .iter()
                .filter(|(_, visible)| *visible)
                .map(|(v, _)| v.clone())
                .collect();
            if q.get("order").map(String::as_str) == Some("desc") {
                seen.reverse();
            }
            if let Some(after) = q.get("after") {
                let desc = q.get("order").map(String::as_str) == Some("desc");
                seen.retain(|v| {
                    let id = v["id"].as_str().unwrap_or_default();
                    if desc {
                        id < after.as_str()
                    } else {
                        id > after.as_str()
                    }
                });
            }
            let limit: usize = q.get("limit").and_then(|l| l.parse().ok()).unwrap_or(10);
            let more = seen.len() > limit;
            seen.truncate(limit);
            axum::Json(json!({"items": seen,
                "pagination": {"has_more_before": false, "has_more_after": more}}))
        }
        async fn one(
            State(p): State<Platform>,
            axum::extract::Path(id): axum::extract::Path<String>,
        ) -> axum::response::Response {
            let items = p.items.lock().expect("items");
            match items
                .iter()
                .find(|(v, visible)| *visible && v["id"] == id.as_str())
            {
                Some((v, _)) => axum::Json(v.clone()).into_response(),
                None => (
                    StatusCode::NOT_FOUND,
                    axum::Json(
                        json!({"object": "error", "status": 404, "code": "not_found",
                        "message": "no such notification"}),
                    ),
                )
                    .into_response(),
            }
        }
        let app = Router::new()
            .route("/callbacks-notifications", axum::routing::get(list))
            .route("/callbacks-notifications/{id}", axum::routing::get(one))
            .with_state(self.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move { axum::serve(listener, app).await });
        format!("http://{addr}")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_visible_one_is_found_and_a_pending_one_does_not_hold_back_later_ones() {
    let (rx, log) = receiver().await;
    let p = Platform::default();
    let base = p.start().await;
    let key = Secret::new("sk_test_platform");
    let home = tempfile::tempdir().expect("home");
    let to = format!("{rx}/fwd");
    let f = Forwarder::start(
        &base,
        &key,
        home.path(),
        &["--to", &to, "--since", "1000d", "--unsigned"],
    );
    f.wait_for("ready", 1).await;
    // 1 pending, 2 attempted: 2 goes first.
    p.set("cbn_0000000001", false, true);
    p.set("cbn_0000000002", true, true);
    f.wait_for("forwarded", 1).await;
    assert_eq!(ids_of(&log, "fwd"), ["cbn_0000000002"]);
    // 3 read; then 0, older than everything read, becomes visible.
    p.set("cbn_0000000003", true, true);
    f.wait_for("forwarded", 2).await;
    p.set("cbn_0000000000", true, true);
    f.wait_for("forwarded", 3).await;
    assert_eq!(
        ids_of(&log, "fwd"),
        ["cbn_0000000002", "cbn_0000000003", "cbn_0000000000"],
        "the late one is found"
    );
    // 1 gets its first attempt: forwarded too, once.
    p.set("cbn_0000000001", true, true);
    f.wait_for("forwarded", 4).await;
    assert_eq!(
        ids_of(&log, "fwd"),
        [
            "cbn_0000000002",
            "cbn_0000000003",
            "cbn_0000000000",
            "cbn_0000000001"
        ]
    );
    assert!(f.events("failed").is_empty(), "{:?}", f.events("failed"));
    assert_eq!(f.interrupt().await, 0);
    assert_eq!(got(&log, "fwd").len(), 4, "each once");
}
