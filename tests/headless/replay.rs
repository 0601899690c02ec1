//! `switchboard notifications replay` as a process: a real notification from the embedded service
//! on 127.0.0.1 is replayed to a loopback receiver that checks the signature with its own HMAC and
//! records what it got; receivers that answer 500 or never answer give exit 3 and 4; read-only
//! profiles and unconfirmed remote hosts are refused before anything is sent.
use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::HeaderMap;
use common::replay::{Got, Log, got, receiver, short_receiver, verify_independently, world};
use common::service::TestService;
use serde_json::{Map, Value};
use switchboard::api::model::Notification;

/// A service with a destination delivering to `<rx>/ok`, and one recorded delivery to it: the
/// service, the notification and the destination's signing secret.
async fn delivered(rx: &str) -> (TestService, Notification, String) {
    let w = world(rx).await;
    (w.t, w.n, w.secret)
}

/// What a run of the binary left behind.
#[derive(Debug)]
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs the binary against the service with a clean environment and no terminal.
async fn run(t: &TestService, args: &[&str], env: &[(&str, &str)]) -> Out {
    let home = tempfile::tempdir().expect("home");
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("SWITCHBOARD_BASE_URL", &t.svc.base_url)
        .env("SWITCHBOARD_API_KEY", t.svc.api_key.expose())
        .args(args)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = tokio::time::timeout(Duration::from_mins(1), cmd.output())
        .await
        .expect("the binary finishes")
        .expect("spawn switchboard");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn header<'a>(h: &'a HeaderMap, name: &str) -> &'a str {
    h.get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("header {name}"))
}

/// Whether nothing reached `path`.
fn got_none(log: &Log, path: &str) -> bool {
    log.lock().expect("log").iter().all(|g| g.path != path)
}

fn one(log: &Log, path: &str) -> Got {
    let got = got(log, path);
    assert_eq!(got.len(), 1, "one request to /{path}: {got:?}");
    got.into_iter().next().expect("one")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_is_the_recorded_body_with_a_fresh_verifiable_signature() {
    let (rx, log) = receiver().await;
    let (t, n, secret) = delivered(&rx).await;
    let recorded = n.attempts[0]
        .webhook_request
        .clone()
        .expect("recorded request");
    let recorded_body = recorded.request_body.clone().expect("recorded body");
    let recorded_t = recorded
        .request_headers
        .get("metorial-signature")
        .and_then(|s| s.split(',').find_map(|p| p.strip_prefix("t=")))
        .and_then(|t| t.parse::<i64>().ok())
        .expect("recorded t");
    let before = chrono::Utc::now().timestamp();

    let to = format!("{rx}/ok-replay");
    let out = run(
        &t,
        &["notifications", "replay", &n.id, "--to", &to, "-o", "json"],
        &[],
    )
    .await;
    assert_eq!(out.code, 0, "{out:?}");

    let got = one(&log, "ok-replay");
    assert_eq!(got.body, recorded_body.as_bytes(), "body byte for byte");
    for (name, want) in [
        ("content-type", "application/json"),
        ("metorial-notification-id", n.id.as_str()),
        ("metorial-version", "2025-01-01"),
    ] {
        assert_eq!(header(&got.headers, name), want);
    }
    for name in ["metorial-event-id", "metorial-callback-id"] {
        assert_eq!(
            Some(header(&got.headers, name)),
            recorded.request_headers.get(name).map(String::as_str)
        );
    }
    let t_sent = verify_independently(&secret, &got.headers, &got.body);
    assert!(
        t_sent >= before && t_sent >= recorded_t,
        "a fresh timestamp"
    );

    let v: Value = serde_json::from_str(&out.stdout).expect("json output");
    assert_eq!(v["replayed_locally"], true);
    assert_eq!(v["notification_id"], n.id.as_str());
    assert_eq!(v["request"]["body"], recorded_body.as_str());
    assert_eq!(v["response"]["status"], 200);
    assert_eq!(v["response"]["body"], "thanks");
    assert_eq!(v["destination"]["name"], "Receiver under repair");
    assert!(!out.stdout.contains(&secret), "the secret is never printed");

    let unsigned = run(
        &t,
        &[
            "notifications",
            "replay",
            &n.id,
            "--to",
            &format!("{rx}/ok-unsigned"),
            "--unsigned",
            "--attempt",
            "1",
            "-o",
            "table",
        ],
        &[],
    )
    .await;
    assert_eq!(unsigned.code, 0, "{unsigned:?}");
    let got = one(&log, "ok-unsigned");
    assert!(got.headers.get("metorial-signature").is_none());
    assert_eq!(got.body, recorded_body.as_bytes());
    assert!(unsigned.stdout.contains("REPLAYED LOCALLY"), "{unsigned:?}");
    assert!(unsigned.stdout.contains("HTTP 200"), "{unsigned:?}");
    // `--attempt` counts from 1, as attempts are shown.
    assert!(unsigned.stdout.contains("attempt #1 "), "{unsigned:?}");
    assert!(
        unsigned
            .stdout
            .contains("unsigned (--unsigned); destination Receiver under repair"),
        "{unsigned:?}"
    );
    // Unsigned, the JSON still names the destination that sent the delivery.
    let unsigned = run(
        &t,
        &[
            "notifications",
            "replay",
            &n.id,
            "--to",
            &format!("{rx}/ok-unsigned-json"),
            "--unsigned",
            "-o",
            "json",
        ],
        &[],
    )
    .await;
    assert_eq!(unsigned.code, 0, "{unsigned:?}");
    let u: Value = serde_json::from_str(&unsigned.stdout).expect("json output");
    assert_eq!(u["signed"], false, "{u}");
    assert_eq!(u["destination"]["name"], "Receiver under repair", "{u}");
    assert!(!unsigned.stdout.contains(&secret));
    assert_eq!(v["attempt"], 1, "{v}");
    assert_eq!(v["attempt_index"], 0, "{v}");
    assert_eq!(v["response"]["ok"], true, "{v}");
    let zero = run(
        &t,
        &[
            "notifications",
            "replay",
            &n.id,
            "--to",
            &format!("{rx}/ok-zero"),
            "--attempt",
            "0",
        ],
        &[],
    )
    .await;
    assert_eq!(zero.code, 2, "{zero:?}");
    assert!(zero.stderr.contains("--attempt counts from 1"), "{zero:?}");
    let beyond = run(
        &t,
        &[
            "notifications",
            "replay",
            &n.id,
            "--to",
            &format!("{rx}/ok-beyond"),
            "--attempt",
            "2",
        ],
        &[],
    )
    .await;
    assert_eq!(beyond.code, 2, "{beyond:?}");
    assert!(beyond.stderr.contains("no attempt #2"), "{beyond:?}");
    assert!(got_none(&log, "ok-zero") && got_none(&log, "ok-beyond"));
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_500_exits_3_and_its_answer_is_masked_and_sanitised() {
    let (rx, log) = receiver().await;
    let (t, n, _) = delivered(&rx).await;
    let to = format!("{rx}/fail");
    let out = run(
        &t,
        &["notifications", "replay", &n.id, "--to", &to, "-o", "table"],
        &[],
    )
    .await;
    assert_eq!(out.code, 3, "{out:?}");
    assert_eq!(one(&log, "fail").path, "fail");
    assert!(out.stdout.contains("HTTP 500"), "{out:?}");
    assert!(out.stderr.contains("HTTP 500"), "{out:?}");
    for text in [&out.stdout, &out.stderr] {
        assert!(
            !text.contains("RECEIVER_SECRET_42"),
            "cookie leaked: {text}"
        );
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text:?}"
        );
    }
    assert!(out.stdout.contains("⟨U+001B⟩]0;PWNED"), "{out:?}");

    let json_out = run(
        &t,
        &["notifications", "replay", &n.id, "--to", &to, "-o", "json"],
        &[],
    )
    .await;
    assert_eq!(json_out.code, 3, "{json_out:?}");
    let v: Value = serde_json::from_str(&json_out.stdout).expect("json");
    assert_eq!(v["response"]["status"], 500);
    assert_ne!(
        v["response"]["headers"]["set-cookie"],
        "session=RECEIVER_SECRET_42"
    );
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_that_never_answers_exits_4() {
    let (rx, log) = receiver().await;
    let (t, n, _) = delivered(&rx).await;
    let to = format!("{rx}/hang");
    let out = run(
        &t,
        &["notifications", "replay", &n.id, "--to", &to, "-o", "json"],
        &[("SWITCHBOARD_REPLAY_TIMEOUT_MS", "300")],
    )
    .await;
    assert_eq!(out.code, 4, "{out:?}");
    assert_eq!(one(&log, "hang").path, "hang");
    let v: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(v["response"]["status"], Value::Null);
    assert!(
        v["response"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("300 ms")),
        "{v}"
    );
    assert!(out.stderr.contains("no answer within 300 ms"), "{out:?}");
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2xx_whose_body_is_cut_short_exits_4() {
    let (rx, log) = receiver().await;
    let (t, n, _) = delivered(&rx).await;
    let to = short_receiver(log.clone()).await;
    let out = run(
        &t,
        &["notifications", "replay", &n.id, "--to", &to, "-o", "json"],
        &[],
    )
    .await;
    assert_eq!(out.code, 4, "as the delivery engine, a failure: {out:?}");
    assert_eq!(one(&log, "short").path, "short");
    let v: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(v["response"]["status"], 200, "{v}");
    assert_eq!(v["response"]["ok"], false, "{v}");
    assert!(v["response"]["error"].is_string(), "{v}");
    assert!(
        out.stderr.contains("HTTP 200 but the answer failed"),
        "{out:?}"
    );

    let table = run(
        &t,
        &["notifications", "replay", &n.id, "--to", &to, "-o", "table"],
        &[],
    )
    .await;
    assert_eq!(table.code, 4, "{table:?}");
    assert!(table.stdout.contains("HTTP 200"), "{table:?}");
    assert!(table.stdout.contains("FAILED"), "{table:?}");
    assert!(table.stdout.contains("ERROR"), "{table:?}");
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_targets_are_refused_before_anything_is_sent() {
    let (rx, log) = receiver().await;
    let (t, n, _) = delivered(&rx).await;
    let sent_before = log.lock().expect("log").len();
    // Neither run may reach beyond loopback: both are refused before sending.
    let remote = "https://hooks.example.invalid/in";
    let ro = run(
        &t,
        &[
            "--read-only",
            "notifications",
            "replay",
            &n.id,
            "--to",
            remote,
            "--yes",
        ],
        &[],
    )
    .await;
    assert_eq!(ro.code, 2, "{ro:?}");
    assert!(ro.stderr.contains("read-only"), "{ro:?}");
    let piped = run(&t, &["notifications", "replay", &n.id, "--to", remote], &[]).await;
    assert_eq!(piped.code, 2, "{piped:?}");
    assert!(piped.stderr.contains("--yes"), "{piped:?}");
    let bad = run(
        &t,
        &["notifications", "replay", &n.id, "--to", "ftp://x/"],
        &[],
    )
    .await;
    assert_eq!(bad.code, 2, "{bad:?}");
    assert_eq!(log.lock().expect("log").len(), sent_before);
    // Read-only profiles may still replay to this machine.
    let local = run(
        &t,
        &[
            "--read-only",
            "notifications",
            "replay",
            &n.id,
            "--to",
            &format!("{rx}/ok-ro"),
        ],
        &[],
    )
    .await;
    assert_eq!(local.code, 0, "{local:?}");
    assert_eq!(one(&log, "ok-ro").path, "ok-ro");
    t.svc.shutdown().await;
}

/// Runs the binary in a pseudo-terminal, answers the confirmation prompt with `answer`, and
/// returns its exit code and everything it wrote.
fn run_in_pty(t_base: &str, key: &str, args: &[&str], answer: &str) -> (u32, String) {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    use std::io::{Read, Write};
    use std::time::Instant;

    let home = tempfile::tempdir().expect("home");
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 200,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("openpty");
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.args(args);
    cmd.env_clear();
    cmd.env("PATH", std::env::var("PATH").unwrap_or_default());
    cmd.env("TERM", "dumb");
    cmd.env("HOME", home.path());
    cmd.env("XDG_CONFIG_HOME", home.path().join("config"));
    cmd.env("XDG_DATA_HOME", home.path().join("data"));
    cmd.env("SWITCHBOARD_BASE_URL", t_base);
    cmd.env("SWITCHBOARD_API_KEY", key);
    let mut child = pair.slave.spawn_command(cmd).expect("spawn switchboard");
    drop(pair.slave);
    let seen = Arc::new(Mutex::new(Vec::<u8>::new()));
    let mut reader = pair.master.try_clone_reader().expect("pty reader");
    let feed = Arc::clone(&seen);
    // Drain the PTY on a thread, or the child blocks on a full buffer.
    let drain = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            feed.lock().expect("seen").extend_from_slice(&buf[..n]);
        }
    });
    let text = || String::from_utf8_lossy(&seen.lock().expect("seen")).into_owned();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !text().contains("Type the host name") {
        assert!(Instant::now() < deadline, "no prompt: {}", text());
        std::thread::sleep(Duration::from_millis(20)); // polling interval, not synchronisation
    }
    let mut keys = pair.master.take_writer().expect("pty writer");
    keys.write_all(format!("{answer}\r").as_bytes())
        .and_then(|()| keys.flush())
        .expect("answer");
    let status = loop {
        if let Ok(Some(s)) = child.try_wait() {
            break s;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("did not finish: {}", text());
        }
        std::thread::sleep(Duration::from_millis(20)); // polling interval, not synchronisation
    };
    // The rest of the output: the drain thread ends at the PTY's end of file.
    drop(pair.master);
    let end = Instant::now() + Duration::from_secs(2);
    while !drain.is_finished() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20)); // polling interval, not synchronisation
    }
    (status.exit_code(), text())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_host_must_be_typed_back_on_a_terminal() {
    let (rx, log) = receiver().await;
    let (t, n, secret) = delivered(&rx).await;
    let (base, key) = (t.svc.base_url.clone(), t.svc.api_key.expose().to_string());

    // A wrong answer cancels: exit 1, nothing sent (the host does not exist anyway).
    let id = n.id.clone();
    let (b, k) = (base.clone(), key.clone());
    let (code, text) = tokio::task::spawn_blocking(move || {
        let args = [
            "notifications",
            "replay",
            &id,
            "--to",
            "http://hooks.example.invalid/in",
        ];
        run_in_pty(&b, &k, &args, "yes")
    })
    .await
    .expect("pty run");
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("not this machine"), "{text}");
    assert!(
        text.contains("signed with the destination's real signing secret")
            && text.contains("could relay it to the real destination")
            && text.contains("Prefer --unsigned"),
        "the risk is said plainly: {text}"
    );
    assert!(
        text.contains("metorial-signature: i="),
        "the preview shows what is sent: {text}"
    );
    assert!(!text.contains(&secret), "{text}");

    // 0.0.0.0 is not a loopback address, yet Linux connects it to this machine: typing it back
    // sends the replay without the test leaving loopback.
    #[cfg(target_os = "linux")]
    {
        let port = rx.rsplit(':').next().expect("port").to_string();
        let id = n.id.clone();
        let (code, text) = tokio::task::spawn_blocking(move || {
            let to = format!("http://0.0.0.0:{port}/ok-typed");
            let args = ["notifications", "replay", &id, "--to", &to];
            run_in_pty(&base, &key, &args, "0.0.0.0")
        })
        .await
        .expect("pty run");
        assert_eq!(code, 0, "{text}");
        let got = one(&log, "ok-typed");
        verify_independently(&secret, &got.headers, &got.body);
    }
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_answer_is_capped_as_the_delivery_engine_caps_it() {
    let (rx, _log) = receiver().await;
    let (t, n, _) = delivered(&rx).await;
    let to = format!("{rx}/big");
    let out = run(
        &t,
        &["notifications", "replay", &n.id, "--to", &to, "-o", "json"],
        &[],
    )
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    let v: Value = serde_json::from_str(&out.stdout).expect("json");
    let r = &v["response"];
    assert_eq!(r["body"].as_str().map(str::len), Some(64 * 1024));
    assert_eq!(r["body_truncated"], true);
    assert_eq!(r["headers_truncated"], true);
    assert_eq!(r["headers"].as_object().map(Map::len), Some(64));
    t.svc.shutdown().await;
}
