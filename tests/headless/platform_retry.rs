//! `notifications recover` on `serve --generation event-destinations` over real HTTP: the
//! platform retries (each retry one attempt due at once, seen by a loopback receiver), the new
//! attempts' outcomes are printed as they land, and the journal keeps a rerun, a resumed run
//! after a SIGKILL mid-run, from asking a retry twice (`--again` asks exactly the one named).
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use switchboard::api::Secret;
use switchboard::api::generation::Generation;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::replay::{Log, receiver};
use crate::common::service::eventually;

const ORG_KEY: &str = "sk_org_headless_platform_retry_0123456789";
const INSTANCE_KEY: &str = "sk_instance_headless_platform_retry_0123456789";

struct Rig {
    svc: RunningService,
    instance: String,
    home: tempfile::TempDir,
    /// Where the commands go: the service, or a proxy in front of it.
    base_url: String,
    rx_url: String,
    rx: Log,
}

#[derive(Debug)]
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Out {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {self:?}"))
    }

    /// The NDJSON lines that have `key`.
    fn lines_with(&self, key: &str) -> Vec<Value> {
        self.stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v.get(key).is_some())
            .collect()
    }
}

async fn rig() -> Rig {
    let cfg = ServiceConfig {
        seed: Seed::Demo,
        generation: Generation::EventDestinations,
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
    let (rx_url, rx) = receiver().await;
    let base_url = svc.base_url.clone();
    Rig {
        svc,
        instance,
        home,
        base_url,
        rx_url,
        rx,
    }
}

impl Rig {
    fn cmd(&self, args: &[&str]) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path().join("config"))
            .env("XDG_DATA_HOME", self.home.path().join("data"))
            .env("SWITCHBOARD_BASE_URL", &self.base_url)
            .env("SWITCHBOARD_API_KEY", INSTANCE_KEY)
            .env("SWITCHBOARD_INSTANCE_ID", &self.instance)
            .env("SB_TEST_ORG_KEY", ORG_KEY)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        cmd
    }

    async fn run(&self, args: &[&str]) -> Out {
        let out = self.cmd(args).output().await.expect("run switchboard");
        Out {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// A destination delivering to the receiver's `/fail` (500), one attempt per budget.
    async fn failing_destination(&self) -> String {
        let url = format!("{}/fail", self.rx_url);
        let out = self
            .run(&[
                "-o",
                "json",
                "destinations",
                "create",
                "--name",
                "retry-rx",
                "--url",
                &url,
                "--retry",
                "fixed",
                "--max-attempts",
                "1",
                "--base-delay",
                "1h",
                "--max-delay",
                "2h",
            ])
            .await;
        assert_eq!(out.code, 0, "{out:?}");
        out.json()["id"].as_str().expect("id").to_string()
    }

    /// `n` pings of `dest`, each failed (its one attempt answered 500): their delivery ids.
    async fn failed_deliveries(&self, dest: &str, n: usize) -> Vec<String> {
        let mut ids = Vec::new();
        for _ in 0..n {
            let out = self
                .run(&[
                    "-o",
                    "json",
                    "destinations",
                    "ping",
                    dest,
                    "--timeout",
                    "30s",
                ])
                .await;
            assert_eq!(out.code, 0, "{out:?}");
            ids.push(out.json()["id"].as_str().expect("id").to_string());
        }
        for id in &ids {
            eventually(Duration::from_secs(30), || async {
                let d = self.delivery(id).await;
                (d["status"] == "failed").then_some(())
            })
            .await;
        }
        ids
    }

    async fn delivery(&self, id: &str) -> Value {
        let out = self.run(&["-o", "json", "notifications", "get", id]).await;
        assert_eq!(out.code, 0, "{out:?}");
        out.json()
    }

    /// Requests the receiver got, per delivery (the platform's `metorial-delivery-id`).
    fn received(&self) -> BTreeMap<String, usize> {
        let mut per = BTreeMap::new();
        for g in self.rx.lock().expect("log").iter() {
            let id = g
                .headers
                .get("metorial-delivery-id")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            *per.entry(id).or_insert(0) += 1;
        }
        per
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recover_asks_the_platform_once_per_delivery_and_prints_the_new_attempts() {
    let r = rig().await;
    let dest = r.failing_destination().await;
    let ids = r.failed_deliveries(&dest, 3).await;
    assert!(
        ids.iter().all(|id| r.received().get(id) == Some(&1)),
        "{:?}",
        r.received()
    );

    // A dry run counts and asks nothing.
    let dry = r
        .run(&[
            "-o",
            "json",
            "notifications",
            "recover",
            "--destination",
            &dest,
            "--dry-run",
        ])
        .await;
    assert_eq!(dry.code, 0, "{dry:?}");
    assert_eq!(dry.lines_with("dry_run").len(), 3, "{dry:?}");
    assert!(
        dry.stderr.contains("would ask the platform to retry 3"),
        "{dry:?}"
    );

    let args = [
        "-o",
        "json",
        "notifications",
        "recover",
        "--destination",
        &dest,
        "--wait",
        "30s",
    ];
    let out = r.run(&args).await;
    assert_eq!(out.code, 0, "every retry accepted: {out:?}");
    let retried = out.lines_with("retry");
    assert_eq!(retried.len(), 3, "{out:?}");
    assert!(retried.iter().all(|l| l["retry"] == "accepted"), "{out:?}");
    // The new attempts landed within --wait: each failed (the receiver answers 500), and that
    // does not change the exit code.
    let outcomes = out.lines_with("outcome");
    assert_eq!(outcomes.len(), 3, "{out:?}");
    for o in &outcomes {
        assert_eq!(o["outcome"], "failed", "{o}");
        assert_eq!(o["attempt_number"], 2, "{o}");
        assert_eq!(o["http_status"], 500, "{o}");
    }
    // Each retry request made exactly one attempt, at once (not after the policy's hour).
    for id in &ids {
        let d = r.delivery(id).await;
        assert_eq!(d["attempt_count"], 2, "{d}");
        assert_eq!(
            d["status"], "failed",
            "its fresh budget of one is spent: {d}"
        );
        assert!(d["next_attempt_at"].is_null(), "{d}");
    }
    let per = r.received();
    assert!(ids.iter().all(|id| per.get(id) == Some(&2)), "{per:?}");

    // The rerun: the journal says each was retried; nothing is asked.
    let again = r.run(&args).await;
    assert_eq!(again.code, 0, "{again:?}");
    assert!(again.lines_with("retry").is_empty(), "{again:?}");
    assert!(
        again.stderr.contains("3 skipped: already retried"),
        "{}",
        again.stderr
    );
    // `--again ID` asks exactly that one once more.
    let one = r.run(&[&args[..], &["--again", &ids[0]]].concat()).await;
    assert_eq!(one.code, 0, "{one:?}");
    assert_eq!(one.lines_with("retry").len(), 1, "{one:?}");
    eventually(Duration::from_secs(30), || async {
        (r.received().get(&ids[0]) == Some(&3)).then_some(())
    })
    .await;
    let per = r.received();
    assert_eq!(per.get(&ids[1]), Some(&2), "{per:?}");
    assert_eq!(per.get(&ids[2]), Some(&2), "{per:?}");

    // An unfinished delivery is not asked: the platform is still delivering it.
    let pending = r
        .run(&[
            "-o",
            "json",
            "notifications",
            "recover",
            "--status",
            "pending",
            "--dry-run",
        ])
        .await;
    assert_eq!(pending.code, 0, "{pending:?}");
    assert!(pending.lines_with("dry_run").is_empty(), "{pending:?}");
    r.svc.shutdown().await;
}

/// A proxy in front of the service: counts the retry requests per delivery, and from the
/// `pass`-th on forwards them (the platform accepts) but never answers.
#[derive(Clone)]
struct Proxy {
    upstream: String,
    http: reqwest::Client,
    retries: Arc<Mutex<Vec<String>>>,
    /// Retries the platform answered (counted before an answer is held).
    accepted: Arc<AtomicUsize>,
    pass: Arc<AtomicUsize>,
}

async fn forward(
    axum::extract::State(p): axum::extract::State<Proxy>,
    req: axum::extract::Request,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let method = req.method().clone();
    let uri = req.uri().clone();
    let headers = req.headers().clone();
    let body = axum::body::to_bytes(req.into_body(), usize::MAX)
        .await
        .unwrap_or_default();
    let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_string();
    let retry = method == axum::http::Method::POST && uri.path().ends_with("/retry");
    let nth = if retry {
        let mut r = p.retries.lock().expect("retries");
        r.push(uri.path().to_string());
        r.len()
    } else {
        0
    };
    let mut rb = p
        .http
        .request(method, format!("{}{path}", p.upstream))
        .body(body);
    for (k, v) in &headers {
        if k != "host" && k != "content-length" {
            rb = rb.header(k, v);
        }
    }
    let Ok(resp) = rb.send().await else {
        return axum::http::StatusCode::BAD_GATEWAY.into_response();
    };
    let status = resp.status();
    let resp_headers = resp.headers().clone();
    let bytes = resp.bytes().await.unwrap_or_default();
    if retry {
        p.accepted.fetch_add(1, Ordering::SeqCst);
    }
    if retry && nth > p.pass.load(Ordering::SeqCst) {
        // Accepted by the platform; the answer never reaches the client.
        std::future::pending::<()>().await;
    }
    let mut out = axum::response::Response::new(axum::body::Body::from(bytes));
    *out.status_mut() = status;
    for (k, v) in &resp_headers {
        if k != "content-length" && k != "transfer-encoding" {
            out.headers_mut().insert(k, v.clone());
        }
    }
    out
}

async fn proxy(upstream: &str, pass: usize) -> (String, Proxy) {
    let p = Proxy {
        upstream: upstream.trim_end_matches('/').to_string(),
        http: reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("client"),
        retries: Arc::default(),
        accepted: Arc::default(),
        pass: Arc::new(AtomicUsize::new(pass)),
    };
    let app = axum::Router::new().fallback(forward).with_state(p.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), p)
}

impl Proxy {
    fn per_delivery(&self) -> BTreeMap<String, usize> {
        let mut per = BTreeMap::new();
        for path in self.retries.lock().expect("retries").iter() {
            let id = path
                .trim_end_matches("/retry")
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .to_string();
            *per.entry(id).or_insert(0) += 1;
        }
        per
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_killed_mid_run_resumes_without_asking_any_retry_twice() {
    let mut r = rig().await;
    let dest = r.failing_destination().await;
    let ids = r.failed_deliveries(&dest, 5).await;
    // Two answered, the third accepted by the platform but its answer held: then SIGKILL.
    let (url, p) = proxy(&r.svc.base_url, 2).await;
    r.base_url = url;
    let args = [
        "-o",
        "json",
        "notifications",
        "recover",
        "--destination",
        &dest,
        "--concurrency",
        "1",
        "--wait",
        "0s",
    ];
    let mut child = r.cmd(&args).spawn().expect("spawn");
    // Killed once the platform has answered the third retry (its answer held from the client).
    eventually(Duration::from_secs(30), || async {
        (p.accepted.load(Ordering::SeqCst) == 3).then_some(())
    })
    .await;
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
    let killed = p.per_delivery();
    assert_eq!(killed.len(), 3, "{killed:?}");
    // Only a finished delivery is selected: the resume waits until the three retried ones have
    // had their one attempt (to a failing receiver), else it races the platform.
    for id in killed.keys() {
        eventually(Duration::from_secs(30), || async {
            let d = r.delivery(id).await;
            (d["attempt_count"] == 2 && d["status"] == "failed").then_some(())
        })
        .await;
    }

    // Resumed: the two answered are retried already, the one held is in doubt (the platform did
    // accept it): neither is asked again; the other two are.
    p.pass.store(usize::MAX, Ordering::SeqCst);
    let rest = r.run(&args).await;
    assert_eq!(rest.code, 3, "in doubt: {rest:?}");
    assert!(
        rest.stderr.contains("2 skipped: already retried"),
        "{}",
        rest.stderr
    );
    assert!(rest.stderr.contains("1 in doubt"), "{}", rest.stderr);
    let asked: Vec<String> = rest
        .lines_with("retry")
        .iter()
        .filter_map(|l| l["delivery"].as_str().map(str::to_string))
        .collect();
    assert_eq!(asked.len(), 2, "{rest:?}");
    assert!(
        asked.iter().all(|id| !killed.contains_key(id)),
        "{asked:?} vs {killed:?}"
    );
    let per = p.per_delivery();
    assert_eq!(per.len(), 5, "every delivery asked: {per:?}");
    assert!(per.values().all(|n| *n == 1), "each exactly once: {per:?}");
    assert!(ids.iter().all(|id| per.contains_key(id)), "{per:?}");
    // At the platform: each delivery got exactly one more attempt.
    r.base_url = r.svc.base_url.clone();
    for id in &ids {
        eventually(Duration::from_secs(30), || async {
            let d = r.delivery(id).await;
            (d["attempt_count"] == 2 && d["status"] == "failed").then_some(())
        })
        .await;
    }
    r.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recover_to_a_local_receiver_sends_the_recorded_request_freshly_signed() {
    let r = rig().await;
    let dest = r.failing_destination().await;
    let ids = r.failed_deliveries(&dest, 2).await;
    let before = r.rx.lock().expect("log").len();
    let to = format!("{}/ok", r.rx_url);
    let secret = "whsec_local_receiver_secret_0123";
    let mut cmd = r.cmd(&[
        "-o",
        "json",
        "notifications",
        "recover",
        "--destination",
        &dest,
        "--to",
        &to,
        "--secret-env",
        "SB_TEST_SECRET",
    ]);
    cmd.env("SB_TEST_SECRET", secret);
    let out = cmd.output().await.expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    let got: Vec<_> = r.rx.lock().expect("log")[before..].to_vec();
    assert_eq!(got.len(), 2);
    for g in &got {
        assert_eq!(g.path, "ok");
        let sig = g
            .headers
            .get("metorial-signature")
            .and_then(|v| v.to_str().ok())
            .expect("signed");
        let t = g
            .headers
            .get("metorial-timestamp")
            .and_then(|v| v.to_str().ok())
            .expect("timestamp");
        let body = String::from_utf8_lossy(&g.body);
        let want = crate::common::replay::hmac_hex(secret, format!("{t}.{body}").as_bytes());
        assert_eq!(sig, format!("t={t},v1={want}"));
        let id = g
            .headers
            .get("metorial-delivery-id")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        assert!(ids.iter().any(|i| i == id), "{id}");
    }
    // Without the secret: one sentence, nothing sent.
    let out = r
        .run(&[
            "notifications",
            "recover",
            "--destination",
            &dest,
            "--to",
            &to,
        ])
        .await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("--secret-env"), "{out:?}");
    r.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_replay_stats_update_and_duplicate_on_deliveries() {
    let r = rig().await;
    let dest = r.failing_destination().await;
    let ids = r.failed_deliveries(&dest, 1).await;
    let id = &ids[0];

    // wait: reached, ended otherwise (exit 3), nothing (exit 5).
    let out = r
        .run(&[
            "-o",
            "json",
            "notifications",
            "wait",
            "--destination",
            &dest,
            "--for",
            "status=failed",
            "--timeout",
            "10s",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.lines_with("id")[0]["id"], id.as_str(), "{out:?}");
    let out = r
        .run(&[
            "notifications",
            "wait",
            "--destination",
            &dest,
            "--for",
            "status=delivered",
            "--timeout",
            "10s",
        ])
        .await;
    assert_eq!(out.code, 3, "it ended failed: {out:?}");
    let out = r
        .run(&[
            "notifications",
            "wait",
            "--destination",
            "evtd_none",
            "--for",
            "status=delivered",
            "--timeout",
            "300ms",
            "--interval",
            "100ms",
        ])
        .await;
    assert_eq!(out.code, 5, "{out:?}");

    // stats: the one failed delivery and its one attempt, as pulsar's stats count them.
    let out = r.run(&["-o", "json", "destinations", "stats", &dest]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let s = out.json();
    assert_eq!(s["object"], "switchboard.destination_stats");
    assert_eq!(
        (s["notifications"].as_u64(), s["failed"].as_u64()),
        (Some(1), Some(1)),
        "{s}"
    );
    assert_eq!(
        (s["attempts"].as_u64(), s["attempts_succeeded"].as_u64()),
        (Some(1), Some(0)),
        "{s}"
    );
    assert_eq!(s["success_percent"], 0.0, "{s}");

    // replay: the recorded request, freshly signed with the secret given, or unsigned.
    let to = format!("{}/ok", r.rx_url);
    let secret = "whsec_replay_secret_0123456789";
    let before = r.rx.lock().expect("log").len();
    let mut cmd = r.cmd(&[
        "-o",
        "json",
        "notifications",
        "replay",
        id,
        "--to",
        &to,
        "--secret-env",
        "SB_TEST_SECRET",
    ]);
    cmd.env("SB_TEST_SECRET", secret);
    let out = cmd.output().await.expect("run");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["signed"], true, "{report}");
    assert_eq!(report["response"]["status"], 200, "{report}");
    let got = r.rx.lock().expect("log")[before..].to_vec();
    assert_eq!(got.len(), 1);
    let t = got[0]
        .headers
        .get("metorial-timestamp")
        .and_then(|v| v.to_str().ok())
        .expect("t");
    let body = String::from_utf8_lossy(&got[0].body);
    let want = crate::common::replay::hmac_hex(secret, format!("{t}.{body}").as_bytes());
    assert_eq!(
        got[0]
            .headers
            .get("metorial-signature")
            .and_then(|v| v.to_str().ok()),
        Some(format!("t={t},v1={want}").as_str())
    );
    let out = r
        .run(&["notifications", "replay", id, "--to", &to, "--unsigned"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let last = r.rx.lock().expect("log").last().cloned().expect("got");
    assert!(last.headers.get("metorial-signature").is_none());
    let out = r.run(&["notifications", "replay", id, "--to", &to]).await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("--secret-env"), "{out:?}");

    // update: renamed and moved; the next ping reaches the new URL.
    let out = r
        .run(&[
            "-o",
            "json",
            "destinations",
            "update",
            &dest,
            "--name",
            "moved",
            "--url",
            &to,
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["name"], "moved");
    assert_eq!(out.json()["webhook"]["url"], to.as_str());
    let oks =
        r.rx.lock()
            .expect("log")
            .iter()
            .filter(|g| g.path == "ok")
            .count();
    let out = r.run(&["-o", "json", "destinations", "ping", &dest]).await;
    assert_eq!(out.code, 0, "{out:?}");
    eventually(Duration::from_secs(30), || async {
        (r.rx
            .lock()
            .expect("log")
            .iter()
            .filter(|g| g.path == "ok")
            .count()
            > oks)
            .then_some(())
    })
    .await;

    // diff: the retried delivery's two attempts, the 500 of /fail and the 200 of /ok.
    let out = r.run(&["-o", "json", "notifications", "retry", id]).await;
    assert_eq!(out.code, 0, "{out:?}");
    eventually(Duration::from_secs(30), || async {
        let d = r.delivery(id).await;
        (d["attempt_count"] == 2 && d["status"] == "delivered").then_some(())
    })
    .await;
    let out = r
        .run(&[
            "-o",
            "json",
            "notifications",
            "diff",
            id,
            "--with-attempt",
            "1",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let c = out.json();
    assert_eq!(c["object"], "switchboard.diff", "{c}");
    assert_eq!(c["status_changed"], true, "{c}");
    assert_eq!(
        (c["left"]["status"].as_i64(), c["right"]["status"].as_i64()),
        (Some(200), Some(500)),
        "{c}"
    );
    // Replays are kept here too (issue 39): the newest compares; one past those kept is refused.
    let out = r
        .run(&[
            "-o",
            "json",
            "notifications",
            "diff",
            id,
            "--with-replay",
            "1",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.json()["right"]["label"]
            .as_str()
            .is_some_and(|l| l.starts_with("replayed ")),
        "{out:?}"
    );
    let out = r
        .run(&["notifications", "diff", id, "--with-replay", "99"])
        .await;
    assert_eq!(out.code, 2, "{out:?}");

    // duplicate: the same URL and policy, its own secret, the original's listeners again.
    let out = r
        .run(&[
            "-o",
            "json",
            "listeners",
            "create",
            "--destination",
            &dest,
            "--instance",
            &r.instance,
            "--event-type",
            "x.y",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let out = r
        .run(&[
            "-o",
            "json",
            "destinations",
            "duplicate",
            &dest,
            "--name",
            "twin",
            "--yes",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let copy = out.json();
    assert_eq!(copy["name"], "twin");
    assert_eq!(copy["webhook"]["url"], to.as_str());
    assert_eq!(copy["retry"]["max_attempts"], 1, "{copy}");
    let copy_id = copy["id"].as_str().expect("id");
    assert_ne!(copy_id, dest);
    let ls = r
        .run(&["-o", "json", "listeners", "list", "--destination", copy_id])
        .await
        .json();
    assert_eq!(ls["items"][0]["event_types"][0], "x.y", "{ls}");
    r.svc.shutdown().await;
}

/// A running `forward`, its stdout read line by line.
struct Following {
    child: tokio::process::Child,
    lines: tokio::sync::mpsc::UnboundedReceiver<Value>,
}

impl Following {
    fn start(mut cmd: tokio::process::Command) -> Self {
        use tokio::io::AsyncBufReadExt as _;
        let mut child = cmd.spawn().expect("spawn");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut l = tokio::io::BufReader::new(stdout).lines();
            while let Ok(Some(text)) = l.next_line().await {
                if let Ok(v) = serde_json::from_str::<Value>(&text) {
                    let _ = tx.send(v);
                }
            }
        });
        Self { child, lines }
    }

    /// The next event named `event`, within 30 s.
    async fn next(&mut self, event: &str) -> Value {
        tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                let v = self.lines.recv().await.expect("forward ended");
                if v["event"] == event {
                    return v;
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("no {event} within 30 s"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forward_follows_deliveries_once_across_a_kill_and_filters() {
    let r = rig().await;
    let dest = r.failing_destination().await;
    let to = format!("{}/ok", r.rx_url);
    let secret = "whsec_forward_secret_0123456789";
    let forward = |extra: &[&str]| {
        let mut args = vec![
            "-o",
            "json",
            "notifications",
            "forward",
            "--to",
            &to,
            "--destination",
            &dest,
            "--secret-env",
            "SB_TEST_SECRET",
            "--interval",
            "100ms",
        ];
        args.extend_from_slice(extra);
        let mut cmd = r.cmd(&args);
        cmd.env("SB_TEST_SECRET", secret);
        cmd
    };
    let at_ok = |id: &str| {
        r.rx.lock()
            .expect("log")
            .iter()
            .filter(|g| {
                g.path == "ok"
                    && g.headers
                        .get("metorial-delivery-id")
                        .and_then(|v| v.to_str().ok())
                        == Some(id)
            })
            .count()
    };
    let mut f = Following::start(forward(&[]));
    f.next("ready").await;
    let first = r.failed_deliveries(&dest, 2).await;
    for _ in 0..first.len() {
        let v = f.next("forwarded").await;
        assert!(first.iter().any(|i| v["delivery"] == i.as_str()), "{v}");
    }
    assert!(first.iter().all(|id| at_ok(id) == 1));
    // Killed; one more delivery meanwhile; resumed: only the new one is forwarded.
    f.child.start_kill().expect("SIGKILL");
    let _ = f.child.wait().await;
    let later = r.failed_deliveries(&dest, 1).await;
    let mut f = Following::start(forward(&["--resume"]));
    f.next("ready").await;
    let v = f.next("forwarded").await;
    assert_eq!(v["delivery"], later[0].as_str(), "{v}");
    f.next("caught_up").await;
    assert!(
        first.iter().chain(&later).all(|id| at_ok(id) == 1),
        "each once"
    );
    let pid = f.child.id().expect("pid").to_string();
    let stopped = tokio::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .await
        .expect("kill");
    assert!(stopped.success());
    let status = tokio::time::timeout(Duration::from_secs(20), f.child.wait())
        .await
        .expect("ends")
        .expect("wait");
    assert_eq!(status.code(), Some(0), "Ctrl-C ends it cleanly");

    // Another event type: nothing of this destination's pings is forwarded.
    let mut f = Following::start(forward(&["--since", "1h", "--event-type", "other.type"]));
    f.next("ready").await;
    let v = f.next("caught_up").await;
    assert_eq!(v["forwarded"], 0, "{v}");
    f.child.start_kill().expect("kill");
    assert!(first.iter().chain(&later).all(|id| at_ok(id) == 1));
    r.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pulsar_verbs_this_generation_lacks_exit_2_with_one_sentence() {
    let r = rig().await;
    for (args, said) in [
        (&["projects", "list"][..], "no projects"),
        (&["team-roles", "list"], "access policies"),
        (
            &["destinations", "delete", "evtd_x", "--yes"],
            "use archive",
        ),
        // `--watch` works on deliveries now; a pulsar prefix of event type is what is refused.
        (
            &["notifications", "list", "--event-type", "build.*"],
            "prefix",
        ),
        (
            &["notifications", "recover", "--callback", "cbk_x"],
            "--callback is pulsar's",
        ),
        (&["notifications", "recover", "--check-in-doubt"], "--again"),
        (&["notifications", "recover", "--again", "cbn_x"], "evdi_"),
        (
            &["notifications", "forward", "--to", "http://localhost:9/x"],
            "--secret-env",
        ),
        (
            &[
                "notifications",
                "forward",
                "--to",
                "http://localhost:9/x",
                "--unsigned",
                "--callback",
                "cbk_x",
            ],
            "--callback",
        ),
        (
            &["notifications", "diff", "evdi_x", "--with-replay", "1"],
            "--with-attempt",
        ),
        // `--edit` works here now (edited_replay_generations.rs); with no editor set it is
        // refused in one sentence before anything is asked.
        (
            &[
                "notifications",
                "replay",
                "evdi_x",
                "--to",
                "http://localhost:9/x",
                "--edit",
            ],
            "--edit",
        ),
    ] {
        let out = r.run(args).await;
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        let lines: Vec<&str> = out.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {out:?}");
        assert!(lines[0].contains(said), "{args:?}: {}", lines[0]);
    }
    r.svc.shutdown().await;
}

/// `destinations stats` means the same on both generations: the same document, the same keys.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stats_are_one_document_on_both_generations() {
    let mut docs = Vec::new();
    for generation in [Generation::Pulsar, Generation::EventDestinations] {
        let pulsar = generation == Generation::Pulsar;
        let svc = start(ServiceConfig {
            seed: Seed::Demo,
            generation,
            api_key: Some(Secret::new(if pulsar { INSTANCE_KEY } else { ORG_KEY })),
            instance_key: (!pulsar).then(|| Secret::new(INSTANCE_KEY)),
            ..ServiceConfig::ephemeral()
        })
        .await
        .expect("service");
        let home = tempfile::tempdir().expect("home");
        let conf = home.path().join("config/switchboard");
        std::fs::create_dir_all(&conf).expect("config dir");
        std::fs::write(
            conf.join("config.toml"),
            "[profiles.default]\norganization_key_env = \"SB_TEST_ORG_KEY\"\n",
        )
        .expect("config");
        let r = Rig {
            instance: svc.instance_id.clone().unwrap_or_default(),
            base_url: svc.base_url.clone(),
            svc,
            home,
            rx_url: String::new(),
            rx: Log::default(),
        };
        let list = r.run(&["-o", "json", "destinations", "list"]).await;
        assert_eq!(list.code, 0, "{list:?}");
        let dest = list.json()["items"][0]["id"]
            .as_str()
            .expect("a destination")
            .to_string();
        let out = r
            .run(&[
                "-o",
                "json",
                "destinations",
                "stats",
                &dest,
                "--window",
                "7d",
            ])
            .await;
        assert_eq!(out.code, 0, "{generation:?}: {out:?}");
        let doc = out.json();
        assert_eq!(doc["destination_id"], dest.as_str());
        docs.push(doc);
        r.svc.shutdown().await;
    }
    for key in [
        "object",
        "window",
        "window_seconds",
        "success_percent",
        "attempt_success_percent",
        "notifications",
        "succeeded",
        "failed",
        "retrying",
        "pending",
        "retried",
        "attempts",
        "attempts_succeeded",
        "latency_ms",
        "from",
        "to",
    ] {
        for d in &docs {
            assert!(d.get(key).is_some(), "{key}: {d}");
        }
    }
    assert_eq!(docs[0]["object"], docs[1]["object"]);
    // The event-destinations seed has deliveries of every status: some counted.
    assert!(
        docs[1]["notifications"].as_u64().unwrap_or(0) > 0,
        "{}",
        docs[1]
    );
}

/// `notifications list --count`, `--event-type` and `--watch` on deliveries: the count and the
/// event type are the platform's filters (a pulsar prefix is refused), and the watch prints a
/// delivery made after it started, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_counts_filters_by_event_type_and_watches_deliveries() {
    use tokio::io::AsyncBufReadExt as _;
    let r = rig().await;
    let dest = r.failing_destination().await;
    let ids = r.failed_deliveries(&dest, 2).await;
    let kind = r.delivery(&ids[0]).await["event_type"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(!kind.is_empty());
    let count = |extra: &'static [&'static str], kind: String| {
        let dest = dest.clone();
        let r = &r;
        async move {
            let mut args = vec![
                "notifications",
                "list",
                "--count",
                "--destination",
                dest.as_str(),
                "--event-type",
                kind.as_str(),
            ];
            args.extend_from_slice(extra);
            let out = r.run(&args).await;
            assert_eq!(out.code, 0, "{out:?}");
            out.json()
        }
    };
    let all = count(&[], kind.clone()).await;
    assert_eq!(all["count"], 2, "{all}");
    assert_eq!(all["complete"], true, "{all}");
    assert_eq!(
        count(&["--status", "delivered"], kind.clone()).await["count"],
        0
    );
    assert_eq!(count(&[], "other.type".into()).await["count"], 0);
    let prefix = r
        .run(&["notifications", "list", "--event-type", "build.*"])
        .await;
    assert_eq!(prefix.code, 2, "{prefix:?}");

    let mut cmd = r.cmd(&[
        "-o",
        "ndjson",
        "notifications",
        "list",
        "--watch",
        "--interval",
        "100ms",
        "--destination",
        &dest,
    ]);
    let mut child = cmd.spawn().expect("spawn");
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let mut err = tokio::io::BufReader::new(stderr).lines();
    tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(l)) = err.next_line().await {
            if l.contains("watching") {
                return;
            }
        }
        panic!("the watch ended");
    })
    .await
    .expect("the watch starts");
    let later = r.failed_deliveries(&dest, 1).await;
    let mut out = tokio::io::BufReader::new(stdout).lines();
    let seen = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let l = out.next_line().await.expect("read").expect("a line");
            let v: Value = serde_json::from_str(&l).expect("ndjson");
            if v["id"] == later[0].as_str() {
                return v;
            }
            // The deliveries from before the watch started are not printed.
            assert!(!ids.iter().any(|i| v["id"] == i.as_str()), "{v}");
        }
    })
    .await
    .expect("the new delivery is printed");
    assert_eq!(seen["event_destination_id"], dest.as_str(), "{seen}");
    child.start_kill().expect("kill");
    r.svc.shutdown().await;
}

/// A receiver that answers 503 while `down` holds and 200 after: its base URL and the
/// delivery ids it got, in order, with the status it answered.
async fn flaky_receiver(
    down: Arc<std::sync::atomic::AtomicBool>,
) -> (String, Arc<Mutex<Vec<(String, u16)>>>) {
    let got: Arc<Mutex<Vec<(String, u16)>>> = Arc::default();
    let log = got.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: axum::http::HeaderMap| {
            let log = log.clone();
            let down = down.clone();
            async move {
                let id = headers
                    .get("metorial-delivery-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_string();
                let status = if down.load(Ordering::SeqCst) {
                    503
                } else {
                    200
                };
                log.lock().expect("log").push((id, status));
                axum::http::StatusCode::from_u16(status)
                    .unwrap_or(axum::http::StatusCode::INTERNAL_SERVER_ERROR)
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/hook"), got)
}

/// `notifications forward` on deliveries: a send the local receiver refuses is sent again while
/// the run lives until it is taken, and one still open when the run is killed is sent on
/// `--resume` (kept in the cursor file): never lost, and delivered once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forward_sends_a_refused_delivery_again_until_the_receiver_takes_it() {
    use std::sync::atomic::AtomicBool;
    let r = rig().await;
    let dest = r.failing_destination().await;
    let down = Arc::new(AtomicBool::new(true));
    let (to, got) = flaky_receiver(down.clone()).await;
    let forward = |extra: &[&str]| {
        let mut args = vec![
            "-o",
            "json",
            "notifications",
            "forward",
            "--to",
            &to,
            "--destination",
            &dest,
            "--unsigned",
            "--interval",
            "100ms",
        ];
        args.extend_from_slice(extra);
        r.cmd(&args)
    };
    let taken = |id: &str| {
        got.lock()
            .expect("log")
            .iter()
            .filter(|(d, s)| d == id && *s == 200)
            .count()
    };
    let refused = |id: &str| {
        got.lock()
            .expect("log")
            .iter()
            .filter(|(d, s)| d == id && *s == 503)
            .count()
    };
    let mut f = Following::start(forward(&[]));
    f.next("ready").await;
    let first = r.failed_deliveries(&dest, 1).await;
    let v = f.next("failed").await;
    assert_eq!(v["delivery"], first[0].as_str(), "{v}");
    assert_eq!(v["retry_in_ms"], 500, "{v}");
    // Refused again at least once more while down, then taken once it recovers.
    let v = f.next("failed").await;
    assert_eq!(v["delivery"], first[0].as_str(), "{v}");
    assert_eq!(v["retry_in_ms"], 1000, "doubled: {v}");
    down.store(false, Ordering::SeqCst);
    let v = f.next("forwarded").await;
    assert_eq!(v["delivery"], first[0].as_str(), "{v}");
    assert_eq!(taken(&first[0]), 1);
    assert!(refused(&first[0]) >= 2);

    // Down again; refused; the run killed with the send open; resumed after the receiver is
    // back: sent, once.
    down.store(true, Ordering::SeqCst);
    let later = r.failed_deliveries(&dest, 1).await;
    let v = f.next("failed").await;
    assert_eq!(v["delivery"], later[0].as_str(), "{v}");
    f.child.start_kill().expect("SIGKILL");
    let _ = f.child.wait().await;
    down.store(false, Ordering::SeqCst);
    let mut f = Following::start(forward(&["--resume"]));
    f.next("ready").await;
    let v = f.next("forwarded").await;
    assert_eq!(v["delivery"], later[0].as_str(), "{v}");
    f.next("caught_up").await;
    assert_eq!(taken(&later[0]), 1);
    assert_eq!(taken(&first[0]), 1, "the first one is not sent again");
    f.child.start_kill().expect("kill");
    r.svc.shutdown().await;
}

/// `notifications recover` without `--status` on deliveries selects the finished ones that were
/// not delivered (failed, cancelled), as Stripe and Svix resend failed ones by default; a
/// delivered one is asked only with `--status delivered`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recover_by_default_retries_what_was_not_delivered() {
    let r = rig().await;
    let failing = r.failing_destination().await;
    let failed = r.failed_deliveries(&failing, 1).await;
    let url = format!("{}/ok", r.rx_url);
    let out = r
        .run(&[
            "-o",
            "json",
            "destinations",
            "create",
            "--name",
            "ok-rx",
            "--url",
            &url,
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let good = out.json()["id"].as_str().expect("id").to_string();
    let out = r
        .run(&[
            "-o",
            "json",
            "destinations",
            "ping",
            &good,
            "--timeout",
            "30s",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let delivered = out.json()["id"].as_str().expect("id").to_string();
    eventually(Duration::from_secs(30), || async {
        (r.delivery(&delivered).await["status"] == "delivered").then_some(())
    })
    .await;
    let dry = |extra: &'static [&'static str]| {
        let (failing, good) = (failing.clone(), good.clone());
        let r = &r;
        async move {
            let mut args = vec![
                "-o",
                "json",
                "notifications",
                "recover",
                "--destination",
                failing.as_str(),
                "--destination",
                good.as_str(),
                "--dry-run",
            ];
            args.extend_from_slice(extra);
            let out = r.run(&args).await;
            assert_eq!(out.code, 0, "{out:?}");
            out.lines_with("dry_run")
                .iter()
                .filter_map(|l| l["delivery"].as_str().map(str::to_string))
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(dry(&[]).await, failed, "by default only the failed one");
    assert_eq!(dry(&["--status", "delivered"]).await, [delivered]);
    let both = dry(&["--status", "delivered", "--status", "failed"]).await;
    assert_eq!(both.len(), 2, "{both:?}");
    r.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forward_ends_cleanly_on_ctrl_c_right_after_it_said_ready() {
    // The fault: SIGINT the moment `ready` is printed. tokio's ctrl_c() installs its handler only
    // when first polled, so this killed the process by signal before Ctrl-C was listened for.
    let r = rig().await;
    let to = format!("{}/ok", r.rx_url);
    for _ in 0..5 {
        let mut f = Following::start(r.cmd(&[
            "-o",
            "json",
            "notifications",
            "forward",
            "--to",
            &to,
            "--unsigned",
            "--interval",
            "100ms",
        ]));
        f.next("ready").await;
        let pid = f.child.id().expect("pid").to_string();
        let sent = tokio::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .await
            .expect("kill");
        assert!(sent.success());
        let status = tokio::time::timeout(Duration::from_secs(20), f.child.wait())
            .await
            .expect("ends")
            .expect("wait");
        assert_eq!(
            status.code(),
            Some(0),
            "Ctrl-C right after ready ends it cleanly"
        );
    }
    r.svc.shutdown().await;
}
