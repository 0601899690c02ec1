//! `notifications recover` and `notifications wait` as processes against the embedded service on
//! 127.0.0.1: a receiver is down while events fire (their deliveries end `failed`), then comes
//! back; a recover re-delivers exactly the failed ones of the window, once each, with signatures
//! checked without the library; a rerun sends nothing; a run stopped with Ctrl-C resumes with
//! the rest; a run killed with SIGKILL mid-run resends nothing it journaled and the rerun
//! delivers the rest; a read-only profile is refused a remote target. `wait` sees events posted after it
//! starts (exit 0), a delivery that ends failed (exit 3), and times out (exit 5).
use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use common::replay::verify_independently;
use common::service::{TestService, eventually, http, manual_callback, start_with};
use serde_json::{Value, json};
use switchboard::api::model::{CallbacksInput, CreateDestination, Notification};
use switchboard::api::{ListQuery, NotificationFilter};
use switchboard::service::{Seed, ServiceConfig};
use tokio::io::AsyncBufReadExt;

/// What the receiver got: path, headers, body.
#[derive(Clone, Debug)]
struct Got {
    path: String,
    headers: HeaderMap,
    body: Vec<u8>,
}

/// A receiver that is down (503) until `up` is set; `/gate` answers its first `gate_open`
/// requests at once and holds the others until `release` is set.
#[derive(Clone, Default)]
struct Rx {
    log: Arc<std::sync::Mutex<Vec<Got>>>,
    up: Arc<AtomicBool>,
    gate_open: Arc<AtomicUsize>,
    release: Arc<tokio::sync::Notify>,
    released: Arc<AtomicBool>,
}

impl Rx {
    fn got(&self, path: &str) -> Vec<Got> {
        self.log
            .lock()
            .expect("log")
            .iter()
            .filter(|g| g.path == path)
            .cloned()
            .collect()
    }

    /// Requests on `path` per notification id.
    fn per_notification(&self, path: &str) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for g in self.got(path) {
            let id = g
                .headers
                .get("metorial-notification-id")
                .and_then(|v| v.to_str().ok())
                .expect("a notification id header")
                .to_string();
            *out.entry(id).or_insert(0) += 1;
        }
        out
    }
}

async fn receive(
    State(rx): State<Rx>,
    UrlPath(path): UrlPath<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> StatusCode {
    let n = {
        let mut log = rx.log.lock().expect("log");
        log.push(Got {
            path: path.clone(),
            headers,
            body: body.to_vec(),
        });
        log.iter().filter(|g| g.path == path).count()
    };
    match path.as_str() {
        "gate" if n > rx.gate_open.load(Ordering::SeqCst) => {
            while !rx.released.load(Ordering::SeqCst) {
                let notified = rx.release.notified();
                if rx.released.load(Ordering::SeqCst) {
                    break;
                }
                notified.await;
            }
            StatusCode::OK
        }
        "down" => StatusCode::SERVICE_UNAVAILABLE,
        "in" if !rx.up.load(Ordering::SeqCst) => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::OK,
    }
}

async fn start_receiver() -> (String, Rx) {
    let rx = Rx::default();
    let app = Router::new()
        .route("/{path}", post(receive))
        .with_state(rx.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), rx)
}

/// A service whose retries come at once (a failing delivery ends `failed` within a second), with
/// a receiver, the manual callback's hook URL, and destinations created on demand.
struct World {
    t: TestService,
    rx_url: String,
    rx: Rx,
    hook: String,
    callback: String,
}

async fn world() -> World {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    cfg.retry_base = Duration::from_micros(1);
    let t = start_with(cfg).await;
    let (rx_url, rx) = start_receiver().await;
    let cb = manual_callback(&t.client).await;
    // The demo's destinations on this callback would take every event too, its failing one
    // retrying each 20 times: as many attempts again as a test's own, which made `settled`
    // miss its 30 s on a loaded machine. No test here looks at them.
    let q = ListQuery {
        limit: Some(100),
        ..Default::default()
    };
    let demo = t
        .client
        .list_destinations(&q, std::slice::from_ref(&cb.id))
        .await
        .expect("destinations")
        .items;
    for d in demo {
        t.client
            .delete_destination(&d.id)
            .await
            .expect("delete a demo destination");
    }
    World {
        t,
        rx_url,
        rx,
        hook: cb.url.expect("hook url"),
        callback: cb.id,
    }
}

impl World {
    /// A destination of the manual callback delivering to `<rx>/<path>`: its id and secret.
    async fn destination(&self, path: &str) -> (String, String) {
        let d = self
            .t
            .client
            .create_destination(&CreateDestination {
                name: format!("to {path}"),
                description: None,
                url: format!("{}/{path}", self.rx_url),
                callbacks: CallbacksInput::selected(vec![self.callback.clone()]),
            })
            .await
            .expect("destination");
        (d.id, d.webhook_destination.expect("webhook").signing_secret)
    }

    /// Fires one event at the callback.
    async fn fire(&self, n: usize) {
        let r = http()
            .post(&self.hook)
            .json(&json!({"type": "build.failed", "build": n, "note": "ünïcode ✓"}))
            .send()
            .await
            .expect("hook");
        assert_eq!(r.status(), 200);
    }

    /// The destination's notifications once `count` of them are all `status`.
    async fn settled(&self, dest: &str, count: usize, status: &str) -> Vec<Notification> {
        let filter = NotificationFilter {
            destination_ids: vec![dest.to_string()],
            ..Default::default()
        };
        let q = ListQuery {
            limit: Some(100),
            ..Default::default()
        };
        eventually(Duration::from_secs(30), || async {
            let page = self.t.client.list_notifications(&q, &filter).await.ok()?;
            let all = page.items;
            (all.len() == count && all.iter().all(|n| n.status.as_str() == status)).then_some(all)
        })
        .await
    }
}

/// What a run of the binary left behind.
#[derive(Debug)]
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Out {
    fn lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
            .collect()
    }
}

/// The binary against the service, with `home` as its home (the journal lives there), piped.
fn command(t: &TestService, home: &Path, args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("SWITCHBOARD_BASE_URL", &t.svc.base_url)
        .env("SWITCHBOARD_API_KEY", t.svc.api_key.expose())
        .env("SWITCHBOARD_REPLAY_TIMEOUT_MS", "5000")
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    cmd
}

async fn finish(child: tokio::process::Child) -> Out {
    let out = tokio::time::timeout(Duration::from_mins(1), child.wait_with_output())
        .await
        .expect("the binary finishes")
        .expect("switchboard runs");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

async fn run(t: &TestService, home: &Path, args: &[&str]) -> Out {
    finish(command(t, home, args).spawn().expect("spawn switchboard")).await
}

/// The recorded request body of a notification's latest attempt.
fn recorded_body(n: &Notification) -> String {
    n.attempts
        .iter()
        .max_by_key(|a| a.index)
        .and_then(|a| a.webhook_request.as_ref())
        .and_then(|r| r.request_body.clone())
        .expect("a recorded body")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recover_sends_each_failed_delivery_of_the_window_once_then_nothing() {
    let w = world().await;
    let (down, secret) = w.destination("in").await;
    let (healthy, _) = w.destination("ok").await;
    // Before the window: a failed delivery that must not be recovered.
    w.fire(0).await;
    let early = w.settled(&down, 1, "failed").await;
    // The window starts just after it; the next events come once the clock has passed that.
    let window = early[0].created_at + chrono::Duration::milliseconds(1);
    eventually(Duration::from_secs(5), || async {
        (chrono::Utc::now() > window).then_some(())
    })
    .await;
    for i in 1..=5 {
        w.fire(i).await;
    }
    let failed = w.settled(&down, 6, "failed").await;
    w.settled(&healthy, 6, "succeeded").await;
    let in_window: BTreeMap<String, Notification> = failed
        .into_iter()
        .filter(|n| n.created_at >= window)
        .map(|n| (n.id.clone(), n))
        .collect();
    assert_eq!(in_window.len(), 5);
    w.rx.up.store(true, Ordering::SeqCst);
    let before = w.rx.got("in").len();
    let home = tempfile::tempdir().expect("home");
    let since = switchboard::api::model::time::format(&window);
    // Both test destinations; the healthy one's
    // deliveries are left out by status, the one before the window by time.
    let args = [
        "notifications",
        "recover",
        "--destination",
        &down,
        "--destination",
        &healthy,
        "--status",
        "failed",
        "--since",
        &since,
    ];

    let dry = run(&w.t, home.path(), &[&args[..], &["--dry-run"]].concat()).await;
    assert_eq!(dry.code, 0, "{dry:?}");
    let planned = dry.lines();
    assert_eq!(
        planned.len(),
        5,
        "the dry run counts the window's failed: {dry:?}"
    );
    for p in &planned {
        assert!(in_window.contains_key(p["notification"].as_str().expect("id")));
        assert_eq!(p["dry_run"], true);
        assert_eq!(p["target"], format!("{}/in", w.rx_url));
        assert!(p["headers"]["metorial-signature"].is_string(), "{p}");
    }
    assert!(
        dry.stderr.contains("5 notifications selected"),
        "{}",
        dry.stderr
    );
    assert!(!dry.stdout.contains(&secret) && !dry.stderr.contains(&secret));
    assert_eq!(w.rx.got("in").len(), before, "a dry run sends nothing");

    let sent = run(&w.t, home.path(), &args).await;
    assert_eq!(sent.code, 0, "{sent:?}");
    assert!(
        sent.stderr
            .contains("records of these notifications do not change")
    );
    let lines = sent.lines();
    assert_eq!(lines.len(), 5, "{sent:?}");
    for l in &lines {
        assert_eq!(l["outcome"], "succeeded", "{l}");
        assert_eq!(l["status"], 200);
        assert!(l["duration_ms"].is_u64());
    }
    let ours = &w.rx.got("in")[before..];
    let mut per: BTreeMap<&str, usize> = BTreeMap::new();
    for got in ours {
        *per.entry(
            got.headers["metorial-notification-id"]
                .to_str()
                .expect("id"),
        )
        .or_default() += 1;
    }
    assert_eq!(
        per.keys().copied().collect::<Vec<_>>(),
        in_window.keys().map(String::as_str).collect::<Vec<_>>(),
        "exactly the window's failed deliveries"
    );
    assert!(per.values().all(|n| *n == 1), "each once: {per:?}");
    for got in ours {
        let id = got.headers["metorial-notification-id"]
            .to_str()
            .expect("id");
        assert_eq!(
            got.body,
            recorded_body(&in_window[id]).as_bytes(),
            "byte for byte"
        );
        verify_independently(&secret, &got.headers, &got.body);
    }

    let again = run(&w.t, home.path(), &args).await;
    assert_eq!(again.code, 0, "{again:?}");
    assert!(again.stdout.is_empty(), "{again:?}");
    assert!(
        again.stderr.contains("5 skipped: already succeeded"),
        "{}",
        again.stderr
    );
    assert_eq!(
        w.rx.got("in").len(),
        before + 5,
        "a second run sends nothing"
    );

    // The platform's own records are untouched.
    let id = in_window.keys().next().expect("one");
    let n = w.t.client.get_notification(id).await.expect("notification");
    assert_eq!(n.status.as_str(), "failed");
    assert_eq!(n.attempts.len(), in_window[id].attempts.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_stopped_with_ctrl_c_resumes_with_the_rest_only() {
    let w = world().await;
    let (down, _) = w.destination("down").await;
    for i in 0..6 {
        w.fire(i).await;
    }
    w.settled(&down, 6, "failed").await;
    w.rx.gate_open.store(2, Ordering::SeqCst);
    let home = tempfile::tempdir().expect("home");
    let gate = format!("{}/gate", w.rx_url);
    let args = [
        "notifications",
        "recover",
        "--destination",
        &down,
        "--to",
        &gate,
        "--concurrency",
        "1",
    ];
    let mut child = command(&w.t, home.path(), &args).spawn().expect("spawn");
    // Its stderr line by line: the run says when it has seen the stop.
    let (tx, mut said) = tokio::sync::mpsc::unbounded_channel();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().expect("stderr")).lines();
    tokio::spawn(async move {
        while let Ok(Some(l)) = lines.next_line().await {
            let _ = tx.send(l);
        }
    });
    // Two answered, the third held in flight: now Ctrl-C.
    eventually(Duration::from_secs(20), || async {
        (w.rx.got("gate").len() == 3).then_some(())
    })
    .await;
    let pid = child.id().expect("pid").to_string();
    let killed = tokio::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .await
        .expect("kill");
    assert!(killed.success());
    // Once the run has seen the stop, the held request is answered: it is recorded, and
    // nothing new starts.
    let mut stderr = String::new();
    tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(l) = said.recv().await {
            stderr.push_str(&l);
            stderr.push('\n');
            if l.starts_with("stopping") {
                break;
            }
        }
    })
    .await
    .expect("the run says it stops");
    w.rx.released.store(true, Ordering::SeqCst);
    w.rx.release.notify_waiters();
    let mut stopped = finish(child).await;
    while let Some(l) = said.recv().await {
        stderr.push_str(&l);
        stderr.push('\n');
    }
    stopped.stderr = stderr;
    assert_eq!(stopped.code, 130, "{stopped:?}");
    assert_eq!(stopped.lines().len(), 3, "{stopped:?}");
    assert!(stopped.stderr.contains("3 not sent"), "{}", stopped.stderr);
    assert_eq!(w.rx.got("gate").len(), 3, "nothing new after the stop");

    let rest = run(&w.t, home.path(), &args).await;
    assert_eq!(rest.code, 0, "{rest:?}");
    assert_eq!(rest.lines().len(), 3, "{rest:?}");
    let per = w.rx.per_notification("gate");
    assert_eq!(per.len(), 6);
    assert!(per.values().all(|n| *n == 1), "each exactly once: {per:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_killed_with_sigkill_resends_nothing_journaled_and_delivers_the_rest() {
    let w = world().await;
    let (down, _) = w.destination("down").await;
    for i in 0..6 {
        w.fire(i).await;
    }
    w.settled(&down, 6, "failed").await;
    // A slow receiver: two answered, the third held until the process is gone.
    w.rx.gate_open.store(2, Ordering::SeqCst);
    let home = tempfile::tempdir().expect("home");
    let gate = format!("{}/gate", w.rx_url);
    let args = [
        "notifications",
        "recover",
        "--destination",
        &down,
        "--to",
        &gate,
        "--concurrency",
        "1",
    ];
    let mut child = command(&w.t, home.path(), &args).spawn().expect("spawn");
    eventually(Duration::from_secs(20), || async {
        (w.rx.got("gate").len() == 3).then_some(())
    })
    .await;
    // No handler runs on SIGKILL: the journal holds what was recorded before it, nothing more.
    child.start_kill().expect("SIGKILL");
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait())
        .await
        .expect("the killed process ends")
        .expect("wait");
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9),
        "{status:?}"
    );
    w.rx.released.store(true, Ordering::SeqCst);
    w.rx.release.notify_waiters();
    let killed: BTreeMap<String, usize> = w.rx.per_notification("gate");
    assert_eq!(killed.len(), 3, "{killed:?}");

    let rest = run(&w.t, home.path(), &args).await;
    // The two journaled as succeeded are skipped; the one in flight when killed is in doubt
    // (it did arrive here): named on stderr, not sent, and the run exits 3.
    assert_eq!(rest.code, 3, "{rest:?}");
    assert!(
        rest.stderr.contains("2 skipped: already succeeded"),
        "{}",
        rest.stderr
    );
    assert!(
        rest.stderr.contains("1 in doubt, not sent"),
        "{}",
        rest.stderr
    );
    let doubt = in_doubt_ids(&rest.stderr);
    assert_eq!(doubt.len(), 1, "{}", rest.stderr);
    assert!(killed.contains_key(&doubt[0]), "{doubt:?} vs {killed:?}");
    assert_eq!(rest.lines().len(), 3, "{rest:?}");
    let sent_again: Vec<String> = rest
        .lines()
        .iter()
        .map(|l| l["notification"].as_str().expect("id").to_string())
        .collect();
    assert!(
        sent_again.iter().all(|id| !killed.contains_key(id)),
        "nothing the killed run sent is sent again: {sent_again:?} vs {killed:?}"
    );
    let per = w.rx.per_notification("gate");
    assert_eq!(per.len(), 6, "everything delivered: {per:?}");
    assert!(per.values().all(|n| *n == 1), "each exactly once: {per:?}");

    // `--again ID` sends exactly the one named, however many the selection holds.
    let again = run(
        &w.t,
        home.path(),
        &[&args[..], &["--again", &doubt[0]]].concat(),
    )
    .await;
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(again.lines().len(), 1, "{again:?}");
    assert_eq!(again.lines()[0]["notification"], doubt[0].as_str());
    let per = w.rx.per_notification("gate");
    assert_eq!(per[&doubt[0]], 2, "{per:?}");
    assert_eq!(per.values().sum::<usize>(), 7, "nothing else: {per:?}");
    // Now recorded: a plain rerun has nothing in doubt and sends nothing.
    let quiet = run(&w.t, home.path(), &args).await;
    assert_eq!(quiet.code, 0, "{quiet:?}");
    assert!(quiet.stdout.is_empty(), "{quiet:?}");
    assert!(
        run(&w.t, home.path(), &[&args[..], &["--again"]].concat())
            .await
            .code
            == 2
    );
}

/// The ids of the `in doubt: cbn_…` lines on stderr.
fn in_doubt_ids(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("in doubt: "))
        .map(|l| l.split_whitespace().next().unwrap_or_default().to_string())
        .collect()
}

/// The journal file of the service `t` under `home`'s data folder.
fn journal_file(t: &TestService, home: &Path) -> std::path::PathBuf {
    let service = switchboard::api::identity::ServiceIdentity::new(&t.svc.base_url, None);
    switchboard::api::journal::path_for(&home.join("data/switchboard"), &service)
}

/// A journal line claiming `id` for `target` with no outcome after it: what a kill leaves.
fn claim_line(id: &str, target: &str) -> String {
    json!({"at": "2026-01-01T00:00:00.000Z", "notification": id, "target": target,
        "outcome": "sending"})
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_in_doubt_resolves_what_the_platforms_attempts_show_delivered() {
    let w = world().await;
    let (ok, _) = w.destination("ok").await;
    let (down, _) = w.destination("down").await;
    w.fire(1).await;
    let delivered = w.settled(&ok, 1, "succeeded").await;
    let failed = w.settled(&down, 1, "failed").await;
    let home = tempfile::tempdir().expect("home");
    // A killed run's claims, one spelled with another name for this machine.
    let path = journal_file(&w.t, home.path());
    switchboard::config::private_file::dir(path.parent().expect("dir")).expect("dir");
    let port = url::Url::parse(&w.rx_url)
        .expect("url")
        .port()
        .expect("port");
    let lines = [
        claim_line(&delivered[0].id, &format!("http://LOCALHOST:{port}/ok")),
        claim_line(&failed[0].id, &format!("{}/down", w.rx_url)),
    ];
    switchboard::config::private_file::write(&path, format!("{}\n", lines.join("\n")).as_bytes())
        .expect("journal");
    let before = (w.rx.got("ok").len(), w.rx.got("down").len());
    let args = [
        "notifications",
        "recover",
        "--destination",
        &ok,
        "--destination",
        &down,
    ];

    // Without the check, both are named and neither is sent.
    let plain = run(&w.t, home.path(), &args).await;
    assert_eq!(plain.code, 3, "{plain:?}");
    let mut named = in_doubt_ids(&plain.stderr);
    named.sort();
    let mut want = vec![delivered[0].id.clone(), failed[0].id.clone()];
    want.sort();
    assert_eq!(named, want, "{}", plain.stderr);
    assert!(plain.stdout.is_empty(), "{plain:?}");

    // The check: the platform delivered the first to that receiver; of the second it cannot tell.
    let checked = run(
        &w.t,
        home.path(),
        &[&args[..], &["--check-in-doubt"]].concat(),
    )
    .await;
    assert_eq!(checked.code, 3, "{checked:?}");
    assert!(
        checked.stderr.contains(&format!(
            "checked {}: the platform delivered it",
            delivered[0].id
        )),
        "{}",
        checked.stderr
    );
    assert_eq!(in_doubt_ids(&checked.stderr), vec![failed[0].id.clone()]);
    assert!(checked.stdout.is_empty(), "nothing sent: {checked:?}");
    assert_eq!((w.rx.got("ok").len(), w.rx.got("down").len()), before);
    // Recorded: the next plain run counts it as succeeded.
    let after = run(&w.t, home.path(), &args).await;
    assert_eq!(in_doubt_ids(&after.stderr), vec![failed[0].id.clone()]);
    assert!(
        after.stderr.contains("1 skipped: already succeeded"),
        "{}",
        after.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_receiver_spelled_two_ways_is_one_target_and_unreadable_lines_are_not_resent() {
    let w = world().await;
    let (down, _) = w.destination("in").await;
    for i in 0..20 {
        w.fire(i).await;
    }
    w.settled(&down, 20, "failed").await;
    w.rx.up.store(true, Ordering::SeqCst);
    let home = tempfile::tempdir().expect("home");
    let port = url::Url::parse(&w.rx_url)
        .expect("url")
        .port()
        .expect("port");
    let base = ["notifications", "recover", "--destination", &down, "--to"];
    let first = run(
        &w.t,
        home.path(),
        &[&base[..], &[&format!("http://127.0.0.1:{port}/in")]].concat(),
    )
    .await;
    assert_eq!(first.code, 0, "{first:?}");
    assert_eq!(first.lines().len(), 20);
    // The same receiver spelled another way: already done.
    let spelled = format!("HTTP://localhost:{port}/x/../in?");
    let second = run(&w.t, home.path(), &[&base[..], &[&spelled]].concat()).await;
    assert_eq!(second.code, 0, "{second:?}");
    assert!(second.stdout.is_empty(), "{second:?}");
    assert!(
        second.stderr.contains("20 skipped: already succeeded"),
        "{}",
        second.stderr
    );

    // Damage every line of nine deliveries (their claim and their success).
    let path = journal_file(&w.t, home.path());
    let text = std::fs::read_to_string(&path).expect("journal");
    let mut ids: Vec<String> = Vec::new();
    let damaged: Vec<String> = text
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a line");
            let id = v["notification"].as_str().expect("id").to_string();
            if !ids.contains(&id) {
                ids.push(id.clone());
            }
            if ids.iter().position(|i| *i == id).expect("seen") < 9 {
                format!("{}\u{0}garbage", &l[..l.len() / 2 + 10])
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&path, format!("{}\n", damaged.join("\n"))).expect("damage");
    let before = w.rx.got("in").len();
    let third = run(&w.t, home.path(), &[&base[..], &[&spelled]].concat()).await;
    assert_eq!(third.code, 3, "{third:?}");
    assert_eq!(
        w.rx.got("in").len(),
        before,
        "nothing sent again: {third:?}"
    );
    assert!(third.stdout.is_empty(), "{third:?}");
    assert_eq!(
        third.stderr.matches("could not be read").count(),
        18,
        "each damaged line named: {}",
        third.stderr
    );
    let mut named = in_doubt_ids(&third.stderr);
    named.sort();
    let mut want: Vec<String> = ids[..9].to_vec();
    want.sort();
    assert_eq!(named, want, "{}", third.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_targets_are_refused_to_read_only_profiles_and_unconfirmed_runs() {
    let w = world().await;
    let (down, _) = w.destination("down").await;
    w.fire(1).await;
    w.settled(&down, 1, "failed").await;
    let home = tempfile::tempdir().expect("home");
    let base = ["notifications", "recover", "--destination", &down];
    let remote = ["--to", "http://hooks.example.invalid/in"];

    let ro = run(
        &w.t,
        home.path(),
        &[&["--read-only"][..], &base, &remote].concat(),
    )
    .await;
    assert_eq!(ro.code, 2, "{ro:?}");
    assert!(
        ro.stderr
            .contains("read-only profile recovers only to this machine"),
        "{}",
        ro.stderr
    );
    assert!(ro.stderr.contains("hooks.example.invalid"));

    let unconfirmed = run(&w.t, home.path(), &[&base[..], &remote].concat()).await;
    assert_eq!(unconfirmed.code, 2, "{unconfirmed:?}");
    assert!(
        unconfirmed.stderr.contains("without --yes"),
        "{}",
        unconfirmed.stderr
    );

    // To this machine a read-only profile may recover.
    let local = format!("{}/ok", w.rx_url);
    let ok = run(
        &w.t,
        home.path(),
        &[&["--read-only"][..], &base, &["--to", &local]].concat(),
    )
    .await;
    assert_eq!(ok.code, 0, "{ok:?}");
    assert_eq!(w.rx.got("ok").len(), 1);
}

/// A `wait` that has looked once, and the rest of its stderr.
struct Waiting {
    child: tokio::process::Child,
    stderr: tokio::task::JoinHandle<String>,
}

/// Starts `wait` and returns once it has looked once (its "waiting" line on stderr).
async fn start_wait(w: &World, home: &Path, args: &[&str]) -> Waiting {
    let mut child = command(&w.t, home, &[&["notifications", "wait"][..], args].concat())
        .spawn()
        .expect("spawn");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    let first = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
        .await
        .expect("wait says it waits")
        .expect("stderr")
        .expect("a line");
    assert!(first.starts_with("waiting"), "{first}");
    let stderr = tokio::spawn(async move {
        let mut rest = String::new();
        while let Ok(Some(l)) = lines.next_line().await {
            rest.push_str(&l);
            rest.push('\n');
        }
        rest
    });
    Waiting { child, stderr }
}

async fn finish_wait(w: Waiting) -> Out {
    let mut out = finish(w.child).await;
    out.stderr = w.stderr.await.expect("stderr");
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_returns_on_deliveries_made_after_it_starts_fails_on_a_failed_one_and_times_out() {
    let w = world().await;
    let (ok, _) = w.destination("ok").await;
    let home = tempfile::tempdir().expect("home");
    let waiting = start_wait(
        &w,
        home.path(),
        &[
            "--destination",
            &ok,
            "--since",
            "0s",
            "--for",
            "status=succeeded",
            "--count",
            "2",
            "--timeout",
            "30s",
            "--interval",
            "100ms",
        ],
    )
    .await;
    w.fire(1).await;
    w.fire(2).await;
    let done = finish_wait(waiting).await;
    assert_eq!(done.code, 0, "{done:?}");
    let got = done.lines();
    assert_eq!(got.len(), 2, "{done:?}");
    assert!(got.iter().all(|n| n["status"] == "succeeded"));

    let (down, _) = w.destination("down").await;
    let failing = start_wait(
        &w,
        home.path(),
        &[
            "--destination",
            &down,
            "--since",
            "0s",
            "--for",
            "status=succeeded",
            "--timeout",
            "30s",
            "--interval",
            "100ms",
        ],
    )
    .await;
    w.fire(3).await;
    let failed = finish_wait(failing).await;
    assert_eq!(failed.code, 3, "{failed:?}");
    assert_eq!(failed.lines()[0]["status"], "failed");
    assert!(failed.stderr.contains("ended failed"), "{}", failed.stderr);

    let quiet = start_wait(
        &w,
        home.path(),
        &[
            "--destination",
            &ok,
            "--since",
            "0s",
            "--for",
            "status=succeeded",
            "--timeout",
            "1s",
            "--interval",
            "100ms",
        ],
    )
    .await;
    let timed_out = finish_wait(quiet).await;
    assert_eq!(timed_out.code, 5, "{timed_out:?}");
    assert!(timed_out.stdout.is_empty());
    assert!(
        timed_out.stderr.contains("timed out"),
        "{}",
        timed_out.stderr
    );
}

/// A receiver that holds every request until opened, counting what is in flight (its own and,
/// through `all`, every receiver's) and the most ever at once.
#[derive(Clone, Default)]
struct Held {
    now: Arc<AtomicUsize>,
    max: Arc<AtomicUsize>,
    all_now: Arc<AtomicUsize>,
    all_max: Arc<AtomicUsize>,
    done: Arc<AtomicUsize>,
    open: Arc<AtomicBool>,
    opened: Arc<tokio::sync::Notify>,
}

async fn held(State(h): State<Held>) -> StatusCode {
    let mine = h.now.fetch_add(1, Ordering::SeqCst) + 1;
    h.max.fetch_max(mine, Ordering::SeqCst);
    let all = h.all_now.fetch_add(1, Ordering::SeqCst) + 1;
    h.all_max.fetch_max(all, Ordering::SeqCst);
    loop {
        let opened = h.opened.notified();
        if h.open.load(Ordering::SeqCst) {
            break;
        }
        opened.await;
    }
    h.now.fetch_sub(1, Ordering::SeqCst);
    h.all_now.fetch_sub(1, Ordering::SeqCst);
    h.done.fetch_add(1, Ordering::SeqCst);
    StatusCode::OK
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sends_stay_within_the_per_host_and_overall_bounds() {
    use switchboard::api::journal::Journal;
    use switchboard::api::recover::{Item, RunOptions, run};

    // Twenty real failed notifications, whose bodies the run reads when each one's turn comes.
    let w = world().await;
    let (down, _) = w.destination("down").await;
    for i in 0..20 {
        w.fire(i).await;
    }
    let failed = w.settled(&down, 20, "failed").await;
    let destinations = switchboard::api::replay::fetch_candidates(&w.t.client, None)
        .await
        .expect("destinations");
    let shared = Held::default();
    let mut hosts = Vec::new();
    for _ in 0..2 {
        let h = Held {
            now: Arc::default(),
            max: Arc::default(),
            ..shared.clone()
        };
        let app = Router::new().route("/in", post(held)).with_state(h.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move { axum::serve(listener, app).await });
        hosts.push((format!("http://{addr}/in"), h));
    }
    let items: Vec<Item> = failed
        .iter()
        .enumerate()
        .map(|(i, n)| Item {
            notification_id: n.id.clone(),
            target: url::Url::parse(&hosts[i % 2].0).expect("url"),
            attempt_index: 0,
            destination: down.clone(),
            status: n.status.clone(),
            created_at: n.created_at,
        })
        .collect();
    let dir = tempfile::tempdir().expect("dir");
    let mut journal = Journal::open(&dir.path().join("j.ndjson")).expect("journal");
    let opts = RunOptions {
        per_host: 2,
        overall: 3,
        ..RunOptions::default()
    };
    let client = w.t.client.clone();
    let sending = tokio::spawn(async move {
        run(
            &client,
            &destinations,
            items,
            &opts,
            &mut journal,
            std::future::pending(),
            |_| {},
        )
        .await
    });
    // Held at the bounds: three in flight over both hosts, at most two on either.
    eventually(Duration::from_secs(10), || async {
        (shared.all_now.load(Ordering::SeqCst) == 3).then_some(())
    })
    .await;
    assert!(
        hosts.iter().all(|(_, h)| h.now.load(Ordering::SeqCst) >= 1),
        "both hosts served"
    );
    shared.open.store(true, Ordering::SeqCst);
    shared.opened.notify_waiters();
    let summary = tokio::time::timeout(Duration::from_secs(30), sending)
        .await
        .expect("the run ends")
        .expect("task")
        .expect("journal");
    assert_eq!(summary.succeeded, 20);
    assert_eq!(shared.done.load(Ordering::SeqCst), 20);
    assert_eq!(shared.all_max.load(Ordering::SeqCst), 3, "overall bound");
    let per_host: Vec<usize> = hosts
        .iter()
        .map(|(_, h)| h.max.load(Ordering::SeqCst))
        .collect();
    assert!(
        per_host.iter().all(|m| *m <= 2),
        "per-host bound: {per_host:?}"
    );
    assert!(per_host.contains(&2), "{per_host:?}");
}

/// The local service records 2 KiB of each attempt's request body (api.md §6), and list pages
/// carry that cut record; a recover must still send the whole body, byte for byte, as the
/// notification's own `GET` gives it, never the cut one with its marker.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_above_the_record_cap_is_recovered_whole() {
    let w = world().await;
    let (down, secret) = w.destination("in").await;
    let big = "ü".repeat(3000);
    let r = http()
        .post(&w.hook)
        .json(&json!({"type": "build.failed", "log": big}))
        .send()
        .await
        .expect("hook");
    assert_eq!(r.status(), 200);
    let failed = w.settled(&down, 1, "failed").await;
    let listed = failed[0]
        .attempts
        .iter()
        .find_map(|a| a.webhook_request.as_ref()?.request_body.clone())
        .expect("a recorded body");
    assert!(
        switchboard::api::replay::body_is_cut(&listed),
        "the list page carries the cut record"
    );
    w.rx.up.store(true, Ordering::SeqCst);
    let before = w.rx.got("in").len();
    let home = tempfile::tempdir().expect("home");
    let out = run(
        &w.t,
        home.path(),
        &[
            "notifications",
            "recover",
            "--destination",
            &down,
            "--status",
            "failed",
        ],
    )
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    let got = w.rx.got("in");
    assert_eq!(got.len(), before + 1, "{out:?}");
    let sent = &got[before];
    let whole =
        w.t.client
            .get_notification(&failed[0].id)
            .await
            .expect("get");
    let recorded = whole
        .attempts
        .iter()
        .find_map(|a| a.webhook_request.as_ref()?.request_body.clone())
        .expect("a recorded body");
    assert!(!switchboard::api::replay::body_is_cut(&recorded));
    assert_eq!(
        sent.body,
        recorded.as_bytes(),
        "the whole body, byte for byte"
    );
    verify_independently(&secret, &sent.headers, &sent.body);
    let text = String::from_utf8(sent.body.clone()).expect("UTF-8");
    serde_json::from_str::<Value>(&text).expect("JSON");
    assert!(text.contains(&big), "the posted payload whole");
}

/// A stand-in API whose notification list never ends (every page says there is more) and has
/// no destinations; counts the notification pages asked for.
async fn endless_notifications() -> (String, Arc<AtomicUsize>) {
    let pages = Arc::new(AtomicUsize::new(0));
    let list: Value =
        serde_json::from_str(&common::fake::fixture("notification-list.json")).expect("fixture");
    let proto = list["items"][0].clone();
    let counter = pages.clone();
    let app = Router::new().fallback(move |uri: axum::http::Uri| {
        let (proto, counter) = (proto.clone(), counter.clone());
        async move {
            let path = uri.path();
            let body = if path.ends_with("/callbacks-notifications") {
                let n = counter.fetch_add(1, Ordering::SeqCst);
                // A few per page: the cap counts pages, and 200 full pages (20,000 notifications
                // made here and decoded there, both debug builds) took most of a minute of a
                // loaded 2-core machine, past the run's one-minute bound.
                let items: Vec<Value> = (0..5)
                    .map(|i| {
                        let mut v = proto.clone();
                        v["id"] = json!(format!("cbn_x{n}y{i}"));
                        v["status"] = json!("failed");
                        v
                    })
                    .collect();
                json!({"items": items,
                    "pagination": {"has_more_before": n > 0, "has_more_after": true}})
            } else if path.ends_with("/callbacks-destinations") {
                json!({"items": [], "pagination": {"has_more_before": false, "has_more_after": false}})
            } else {
                return (StatusCode::NOT_FOUND, String::new());
            };
            (StatusCode::OK, body.to_string())
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), pages)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_selection_that_never_ends_stops_at_the_walk_cap() {
    let (url, pages) = endless_notifications().await;
    let home = tempfile::tempdir().expect("home");
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("SWITCHBOARD_BASE_URL", &url)
        .env("SWITCHBOARD_API_KEY", "sk_test_endless_0123456789")
        .args([
            "notifications",
            "recover",
            "--status",
            "failed",
            "--dry-run",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let out = finish(cmd.spawn().expect("spawn")).await;
    assert_eq!(out.code, 3, "{out:?}");
    assert_eq!(pages.load(Ordering::SeqCst), 200, "{out:?}");
    assert!(out.stderr.contains("200 pages"), "{}", out.stderr);
}
