//! `notifications recover` on `serve --generation callback-destinations` over real HTTP: each
//! selected notification's embedded request sent again from this machine, signed `t=…,v1=…`
//! with its destination's secret (checked here without the library), journalled so a rerun sends
//! nothing again, a run killed with SIGKILL resending nothing it journalled; and where the
//! platform omits `signing_secret` (a proxy in front of the service strips it), replay and
//! recover send unsigned and say so.
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use serde_json::Value;
use switchboard::api::Secret;
use switchboard::api::generation::Generation;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::proxy::stripping_proxy;
use crate::common::replay::hmac_hex;
use crate::common::service::{eventually, http};

const ORG_KEY: &str = "sk_org_headless_callback_recover_0123456789";
const INSTANCE_KEY: &str = "sk_instance_headless_callback_recover_0123456789";

/// What the receiver got: path, headers, body.
#[derive(Clone, Debug)]
struct Got {
    path: String,
    headers: HeaderMap,
    body: Vec<u8>,
}

/// A receiver: `/ok` answers 200; `/gate` answers the first `open` at once and holds the rest
/// until `released`.
#[derive(Clone, Default)]
struct Rx {
    log: Arc<Mutex<Vec<Got>>>,
    open: Arc<AtomicUsize>,
    released: Arc<AtomicBool>,
    release: Arc<tokio::sync::Notify>,
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

    fn per_notification(&self, path: &str) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for g in self.got(path) {
            *out.entry(header(&g.headers, "metorial-notification-id"))
                .or_insert(0) += 1;
        }
        out
    }
}

fn header(h: &HeaderMap, k: &str) -> String {
    h.get(k)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

async fn receive(
    State(rx): State<Rx>,
    UrlPath(path): UrlPath<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> StatusCode {
    let before = {
        let mut log = rx.log.lock().expect("log");
        let before = log.iter().filter(|g| g.path == path).count();
        log.push(Got {
            path: path.clone(),
            headers,
            body: body.to_vec(),
        });
        before
    };
    if path == "gate" && before >= rx.open.load(Ordering::SeqCst) {
        while !rx.released.load(Ordering::SeqCst) {
            let wait = rx.release.notified();
            if rx.released.load(Ordering::SeqCst) {
                break;
            }
            wait.await;
        }
    }
    StatusCode::OK
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

struct Cd {
    svc: RunningService,
    instance: String,
    home: tempfile::TempDir,
}

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

async fn service() -> Cd {
    let cfg = ServiceConfig {
        seed: Seed::Demo,
        generation: Generation::CallbackDestinations,
        api_key: Some(Secret::new(ORG_KEY)),
        instance_key: Some(Secret::new(INSTANCE_KEY)),
        ..ServiceConfig::ephemeral()
    };
    let svc = start(cfg).await.expect("service starts");
    let instance = svc.instance_id.clone().unwrap_or_default();
    let home = tempfile::tempdir().expect("home");
    let conf = home.path().join("config/switchboard");
    std::fs::create_dir_all(&conf).expect("config dir");
    std::fs::write(
        conf.join("config.toml"),
        "[profiles.default]\norganization_key_env = \"SB_TEST_ORG_KEY\"\n",
    )
    .expect("config");
    Cd {
        svc,
        instance,
        home,
    }
}

impl Cd {
    fn command(&self, base: &str, home: &Path, args: &[&str]) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", self.home.path().join("config"))
            .env("XDG_DATA_HOME", home.join("data"))
            .env("SWITCHBOARD_BASE_URL", base)
            .env("SWITCHBOARD_API_KEY", INSTANCE_KEY)
            .env("SWITCHBOARD_INSTANCE_ID", &self.instance)
            .env("SB_TEST_ORG_KEY", ORG_KEY)
            .env("SWITCHBOARD_REPLAY_TIMEOUT_MS", "5000")
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        cmd
    }

    async fn run_at(&self, base: &str, home: &Path, args: &[&str]) -> Out {
        let child = self.command(base, home, args).spawn().expect("spawn");
        finish(child).await
    }

    async fn run(&self, args: &[&str]) -> Out {
        self.run_at(&self.svc.base_url, self.home.path(), args)
            .await
    }

    async fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["-o", "json"];
        all.extend_from_slice(args);
        let out = self.run(&all).await;
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"))
    }

    /// The notification whole, and the signing secret of the destination that sent it.
    async fn embedded(&self, id: &str) -> (String, String) {
        let n = self.json(&["notifications", "get", id]).await;
        let dests = items(&self.json(&["destinations", "list", "--limit", "100"]).await);
        let d = dests
            .iter()
            .find(|d| d["name"] == n["destination"]["name"])
            .expect("the sending destination");
        let detail = self
            .json(&["destinations", "get", d["id"].as_str().unwrap_or_default()])
            .await;
        (
            n["event"]["request"]["body"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            detail["signing_secret"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        )
    }
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

fn items(v: &Value) -> Vec<Value> {
    v["items"].as_array().cloned().unwrap_or_default()
}

fn ids(v: &Value) -> Vec<String> {
    items(v)
        .iter()
        .filter_map(|n| n["id"].as_str().map(str::to_string))
        .collect()
}

/// Checked as a receiver would, without the library: `t=…,v1=HMAC-SHA256(secret, "t.body")`.
fn verify(secret: &str, got: &Got) {
    let sig = header(&got.headers, "metorial-signature");
    assert!(!sig.contains("i="), "{sig}");
    let part = |p: &str| {
        sig.split(',')
            .find_map(|x| x.strip_prefix(p))
            .unwrap_or_default()
            .to_string()
    };
    let mut message = format!("{}.", part("t=")).into_bytes();
    message.extend_from_slice(&got.body);
    assert_eq!(hmac_hex(secret, &message), part("v1="), "{sig}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recover_sends_each_embedded_request_signed_once_and_a_rerun_sends_nothing() {
    let cd = service().await;
    let (rx_url, rx) = start_receiver().await;
    let failed = ids(&cd
        .json(&[
            "notifications",
            "list",
            "--status",
            "failed",
            "--limit",
            "100",
        ])
        .await);
    assert!(!failed.is_empty());
    let to = format!("{rx_url}/ok");
    let args = [
        "-o",
        "ndjson",
        "notifications",
        "recover",
        "--status",
        "failed",
        "--to",
        &to,
    ];
    // A dry run counts and sends nothing.
    let dry = cd.run(&[&args[..], &["--dry-run"]].concat()).await;
    assert_eq!(dry.code, 0, "{dry:?}");
    assert!(
        dry.stderr
            .contains(&format!("{} notifications selected", failed.len())),
        "{dry:?}"
    );
    assert!(rx.got("ok").is_empty());

    let out = cd.run(&args).await;
    assert_eq!(out.code, 0, "{out:?}");
    let lines = out.lines();
    assert_eq!(lines.len(), failed.len(), "{out:?}");
    assert!(lines.iter().all(|l| l["outcome"] == "succeeded"), "{out:?}");
    let got = rx.got("ok");
    assert_eq!(got.len(), failed.len());
    for g in &got {
        let id = header(&g.headers, "metorial-notification-id");
        assert!(failed.contains(&id), "{id} was not selected");
        let (body, secret) = cd.embedded(&id).await;
        assert_eq!(String::from_utf8_lossy(&g.body), body, "byte for byte");
        assert_eq!(header(&g.headers, "metorial-version"), "2025-01-01");
        verify(&secret, g);
    }

    // The journal: a rerun sends nothing and says why.
    let again = cd.run(&args).await;
    assert_eq!(again.code, 0, "{again:?}");
    assert!(
        again
            .stderr
            .contains(&format!("{} skipped: already succeeded", failed.len())),
        "{again:?}"
    );
    assert_eq!(rx.got("ok").len(), failed.len(), "nothing sent twice");
    // `--again ID` sends exactly that one.
    let one = cd
        .run(&[&args[..], &["--again", &failed[0]]].concat())
        .await;
    assert_eq!(one.code, 0, "{one:?}");
    assert_eq!(rx.got("ok").len(), failed.len() + 1);
    assert_eq!(rx.per_notification("ok").get(&failed[0]), Some(&2));
    // What this generation cannot do says so in one sentence.
    let check = cd
        .run(&["notifications", "recover", "--check-in-doubt", "--to", &to])
        .await;
    assert_eq!(check.code, 2, "{check:?}");
    assert_eq!(check.stderr.trim().lines().count(), 1, "{check:?}");
    cd.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recover_killed_with_sigkill_resends_nothing_it_journalled() {
    let cd = service().await;
    let (rx_url, rx) = start_receiver().await;
    let delivered = ids(&cd
        .json(&[
            "notifications",
            "list",
            "--status",
            "delivered",
            "--limit",
            "100",
        ])
        .await);
    assert!(delivered.len() >= 4, "{delivered:?}");
    // Two answered, the third held until the process is gone.
    rx.open.store(2, Ordering::SeqCst);
    let gate = format!("{rx_url}/gate");
    let args = [
        "-o",
        "ndjson",
        "notifications",
        "recover",
        "--status",
        "delivered",
        "--to",
        &gate,
        "--concurrency",
        "1",
    ];
    let home = cd.home.path().to_path_buf();
    let mut child = cd
        .command(&cd.svc.base_url, &home, &args)
        .spawn()
        .expect("spawn");
    eventually(Duration::from_secs(30), || async {
        (rx.got("gate").len() == 3).then_some(())
    })
    .await;
    child.start_kill().expect("SIGKILL");
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait())
        .await
        .expect("the killed process ends")
        .expect("wait");
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );
    rx.released.store(true, Ordering::SeqCst);
    rx.release.notify_waiters();
    let killed = rx.per_notification("gate");
    assert_eq!(killed.len(), 3, "{killed:?}");

    let rest = cd.run(&args).await;
    assert_eq!(rest.code, 3, "the one in flight is in doubt: {rest:?}");
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
    let sent_again: Vec<String> = rest
        .lines()
        .iter()
        .map(|l| l["notification"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        sent_again.iter().all(|id| !killed.contains_key(id)),
        "{sent_again:?} vs {killed:?}"
    );
    let per = rx.per_notification("gate");
    assert_eq!(per.len(), delivered.len(), "everything sent: {per:?}");
    assert!(per.values().all(|n| *n == 1), "each exactly once: {per:?}");
    cd.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn where_the_platform_omits_the_secret_replay_and_recover_send_unsigned_and_say_so() {
    let cd = service().await;
    let (rx_url, rx) = start_receiver().await;
    let proxy = stripping_proxy(cd.svc.base_url.clone()).await;
    let failed = ids(&cd
        .json(&[
            "notifications",
            "list",
            "--status",
            "failed",
            "--limit",
            "100",
        ])
        .await);
    // Through the proxy, a destination's detail has no secret.
    let home = cd.home.path().to_path_buf();
    let d = cd
        .run_at(&proxy, &home, &["-o", "json", "destinations", "list"])
        .await;
    assert_eq!(d.code, 0, "{d:?}");
    let first: Value = serde_json::from_str(&d.stdout).unwrap_or_default();
    let did = items(&first)[0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let detail = cd
        .run_at(&proxy, &home, &["-o", "json", "destinations", "get", &did])
        .await;
    assert!(!detail.stdout.contains("signing_secret"), "{detail:?}");
    assert!(
        cd.json(&["destinations", "get", &did]).await["signing_secret"].is_string(),
        "the service itself gives it"
    );

    let to = format!("{rx_url}/ok");
    let replay = cd
        .run_at(
            &proxy,
            &home,
            &["notifications", "replay", &failed[0], "--to", &to],
        )
        .await;
    assert_eq!(replay.code, 0, "{replay:?}");
    assert!(
        replay.stderr.contains("no signing secret") && replay.stderr.contains("unsigned"),
        "{replay:?}"
    );
    let recover = cd
        .run_at(
            &proxy,
            &home,
            &[
                "-o",
                "ndjson",
                "notifications",
                "recover",
                "--status",
                "failed",
                "--to",
                &to,
            ],
        )
        .await;
    assert_eq!(recover.code, 0, "{recover:?}");
    let said: Vec<&str> = recover
        .stderr
        .lines()
        .filter(|l| l.contains("no signing secret"))
        .collect();
    assert_eq!(said.len(), 1, "one sentence: {recover:?}");
    assert!(said[0].contains("sent unsigned"), "{said:?}");
    let got = rx.got("ok");
    assert_eq!(got.len(), 1 + failed.len(), "{got:?}");
    for g in &got {
        assert!(
            g.headers.get("metorial-signature").is_none(),
            "sent unsigned: {:?}",
            g.headers
        );
        assert!(!header(&g.headers, "metorial-notification-id").is_empty());
    }
    // Straight to the service, the same recover signs (the proxy's omission made the difference).
    let signed = cd
        .run(&[
            "-o",
            "ndjson",
            "notifications",
            "recover",
            "--status",
            "failed",
            "--to",
            &format!("{rx_url}/signed"),
        ])
        .await;
    assert_eq!(signed.code, 0, "{signed:?}");
    assert!(!signed.stderr.contains("no signing secret"), "{signed:?}");
    for g in rx.got("signed") {
        let id = header(&g.headers, "metorial-notification-id");
        let (_, secret) = cd.embedded(&id).await;
        verify(&secret, &g);
    }
    assert_eq!(rx.got("signed").len(), failed.len());
    cd.svc.shutdown().await;
}

/// A running `notifications forward`: its stdout lines as they come.
struct Following {
    child: tokio::process::Child,
    lines: Arc<Mutex<Vec<Value>>>,
}

impl Following {
    fn start(cd: &Cd, args: &[&str]) -> Self {
        use tokio::io::AsyncBufReadExt;
        let home = cd.home.path().to_path_buf();
        let mut child = cd
            .command(&cd.svc.base_url, &home, args)
            .spawn()
            .expect("spawn");
        let lines: Arc<Mutex<Vec<Value>>> = Arc::default();
        let out = child.stdout.take().expect("stdout");
        let kept = lines.clone();
        tokio::spawn(async move {
            let mut r = tokio::io::BufReader::new(out).lines();
            while let Ok(Some(l)) = r.next_line().await {
                if let Ok(v) = serde_json::from_str(&l) {
                    kept.lock().expect("lines").push(v);
                }
            }
        });
        Self { child, lines }
    }

    async fn saw(&self, what: impl Fn(&Value) -> bool) {
        eventually(Duration::from_secs(30), || async {
            self.lines
                .lock()
                .expect("lines")
                .iter()
                .any(&what)
                .then_some(())
        })
        .await;
    }

    fn events(&self) -> Vec<Value> {
        self.lines.lock().expect("lines").clone()
    }

    async fn kill(mut self) -> Vec<Value> {
        self.child.start_kill().expect("SIGKILL");
        let _ = tokio::time::timeout(Duration::from_secs(20), self.child.wait()).await;
        self.events()
    }
}

/// One event on callback `cb` through its incoming webhook: the notification ids it made.
async fn fire(cd: &Cd, cb: &str, n: usize) -> Vec<String> {
    let r = http()
        .post(format!("{}/w/{cb}", cd.svc.base_url))
        .json(&serde_json::json!({"type": "forward.test", "n": n}))
        .send()
        .await
        .expect("hook");
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.expect("json");
    v["notification_ids"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forward_follows_a_callbacks_notifications_once_each_across_a_kill_and_resume() {
    let cd = service().await;
    let (rx_url, rx) = start_receiver().await;
    // A callback of its own, with one destination (the service delivers to `/svc`, not counted).
    let d = cd
        .json(&[
            "destinations",
            "create",
            "--name",
            "Forward test",
            "--url",
            &format!("{rx_url}/svc"),
        ])
        .await;
    let secret = d["signing_secret"].as_str().unwrap_or_default().to_string();
    let did = d["id"].as_str().unwrap_or_default().to_string();
    let callbacks = items(&cd.json(&["callbacks", "list", "--limit", "100"]).await);
    let deployment = callbacks[0]["provider_deployment"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let cb = cd
        .json(&[
            "callbacks",
            "create",
            "--provider-deployment",
            &deployment,
            "--name",
            "Forwarded",
            "--destination",
            &did,
        ])
        .await["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let before = fire(&cd, &cb, 0).await;
    assert_eq!(before.len(), 1);

    rx.open.store(1, Ordering::SeqCst);
    let gate = format!("{rx_url}/gate");
    let args = [
        "-o",
        "json",
        "notifications",
        "forward",
        "--to",
        &gate,
        "--callback",
        &cb,
        "--interval",
        "200ms",
    ];
    let first = Following::start(&cd, &args);
    first.saw(|v| v["event"] == "ready").await;
    let a = fire(&cd, &cb, 1).await;
    eventually(Duration::from_secs(30), || async {
        (rx.got("gate").len() == 1).then_some(())
    })
    .await;
    first
        .saw(|v| v["event"] == "forwarded" && v["notification_id"] == a[0].as_str())
        .await;
    // The second is held by the receiver: killed while sending it.
    let b = fire(&cd, &cb, 2).await;
    eventually(Duration::from_secs(30), || async {
        (rx.got("gate").len() == 2).then_some(())
    })
    .await;
    let events = first.kill().await;
    rx.released.store(true, Ordering::SeqCst);
    rx.release.notify_waiters();
    assert!(
        events.iter().any(|v| v["event"] == "forwarded"
            && v["notification_id"] == a[0].as_str()
            && v["signed"] == true),
        "{events:?}"
    );
    let c = fire(&cd, &cb, 3).await;

    let second = Following::start(&cd, &[&args[..], &["--resume"]].concat());
    second
        .saw(|v| v["event"] == "forwarded" && v["notification_id"] == c[0].as_str())
        .await;
    second
        .saw(|v| {
            v["event"] == "failed"
                && v["notification_id"] == b[0].as_str()
                && v["error"].as_str().unwrap_or_default().contains("in doubt")
        })
        .await;
    let events = second.kill().await;
    assert!(
        !events.iter().any(|v| v["notification_id"] == a[0].as_str()),
        "{events:?}"
    );
    let per = rx.per_notification("gate");
    assert_eq!(per.get(&a[0]), Some(&1), "{per:?}");
    assert_eq!(per.get(&b[0]), Some(&1), "{per:?}");
    assert_eq!(per.get(&c[0]), Some(&1), "{per:?}");
    assert!(
        !per.contains_key(&before[0]),
        "created before the start: {per:?}"
    );
    for g in rx.got("gate") {
        verify(&secret, &g);
    }
    cd.svc.shutdown().await;
}
