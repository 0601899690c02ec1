//! `--since` is read against the server's clock (issue 36): with the service's clock 60 s ahead
//! of this machine's or 60 s behind (`serve --test-clock-skew-secs`, a test-only knob), the
//! README's CI recipe (`wait --since 0s`, started before the event is posted) and
//! `forward --since 10s` still see what was posted.
use crate::common;

use std::process::Stdio;
use std::time::Duration;

use common::replay::{got, receiver};
use common::service::{ServeChild, client_for, eventually, http, manual_callback};
use serde_json::{Value, json};
use switchboard::api::Secret;
use switchboard::api::model::{CallbacksInput, CreateDestination};
use tokio::io::{AsyncBufReadExt, BufReader};

const WAIT: Duration = Duration::from_secs(60);
const KEY: &str = "sk_test_skewed_clock_key";

fn command(base: &str, home: &std::path::Path, args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("SWITCHBOARD_BASE_URL", base)
        .env("SWITCHBOARD_API_KEY", KEY)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

async fn post(hook: &str, i: usize) {
    let r = http()
        .post(hook)
        .json(&json!({"type": "build.done", "n": i}))
        .send()
        .await
        .expect("hook");
    assert_eq!(r.status(), 200);
}

async fn skewed(skew: i64) {
    let (rx, log) = receiver().await;
    let svc = ServeChild::start(
        &[
            "--db",
            ":memory:",
            "--seed",
            "demo",
            "--retry-base-ms",
            "20",
            "--test-clock-skew-secs",
            &skew.to_string(),
        ],
        KEY,
    );
    let client = client_for(&svc.base_url, &Secret::new(KEY));
    let cb = manual_callback(&client).await;
    let d = client
        .create_destination(&CreateDestination {
            name: "Skewed".into(),
            description: None,
            url: format!("{rx}/platform"),
            callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
        })
        .await
        .expect("destination");
    let hook = cb.url.expect("hook url");
    let home = tempfile::tempdir().expect("home");

    // The CI recipe: wait from now, then post.
    let mut wait = command(
        &svc.base_url,
        home.path(),
        &[
            "notifications",
            "wait",
            "--destination",
            &d.id,
            "--since",
            "0s",
            "--for",
            "status=succeeded",
            "--timeout",
            "50s",
            "--interval",
            "100ms",
        ],
    )
    .spawn()
    .expect("wait");
    let stderr = wait.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    // It says when it has begun (its first look done).
    tokio::time::timeout(WAIT, async {
        while let Ok(Some(l)) = lines.next_line().await {
            if l.contains("waiting up to") {
                return;
            }
        }
        panic!("wait ended before it began");
    })
    .await
    .expect("wait begins");
    post(&hook, 0).await;
    let out = tokio::time::timeout(WAIT, wait.wait_with_output())
        .await
        .expect("wait ends")
        .expect("wait output");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "skew {skew}: {text}");
    let n: Value = serde_json::from_str(text.trim()).expect("one notification");
    assert_eq!(n["status"], "succeeded");

    // `forward --since 10s` catches up what was posted just before.
    post(&hook, 1).await;
    post(&hook, 2).await;
    let fwd = format!("{rx}/fwd");
    let mut f = command(
        &svc.base_url,
        home.path(),
        &[
            "notifications",
            "forward",
            "--to",
            &fwd,
            "--destination",
            &d.id,
            "--since",
            "10s",
            "--interval",
            "100ms",
            "-o",
            "json",
        ],
    )
    .spawn()
    .expect("forward");
    let stdout = f.stdout.take().expect("stdout");
    let mut events = BufReader::new(stdout).lines();
    tokio::spawn(async move { while let Ok(Some(_)) = events.next_line().await {} });
    // The three posted in the last seconds (by the server's clock): each forwarded once.
    eventually(WAIT, || async {
        (got(&log, "fwd").len() >= 3).then_some(())
    })
    .await;
    assert_eq!(got(&log, "fwd").len(), 3, "skew {skew}");
    let _ = f.kill().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn since_holds_with_the_server_60_s_behind() {
    skewed(-60).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn since_holds_with_the_server_60_s_ahead() {
    skewed(60).await;
}
