//! Issue 39, an incident offline: `notifications export` from one local service, `serve --load`
//! into a second (a process, over real HTTP), the same ids, order, statuses, bodies and attempts
//! listed, nothing retried on its own, and `notifications recover` reaching a receiver of our own
//! once per delivery, signed with the secret `--signing-secret-env` gave (checked without the
//! library); a tampered bundle is refused with a sentence naming its line, never a panic.
use crate::common;

use std::path::Path;
use std::time::Duration;

use common::replay::{got, receiver, verify_independently, world};
use common::service::{ServeChild, client_for, eventually, http};
use serde_json::{Value, json};
use switchboard::api::{ApiRequest, Secret, list_all};

/// Deliveries in the incident.
const DELIVERIES: usize = 500;

#[derive(Debug)]
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs the binary against `base_url` with `home` as its whole environment, no terminal.
async fn run(base_url: &str, key: &str, home: &Path, args: &[&str]) -> Out {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("SWITCHBOARD_BASE_URL", base_url)
        .env("SWITCHBOARD_API_KEY", key)
        .args(args)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let out = tokio::time::timeout(Duration::from_mins(3), cmd.output())
        .await
        .expect("the binary finishes")
        .expect("spawn switchboard");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// What a list shows of a notification: id, status, and each attempt's id, index, status,
/// answer and body, in order.
fn shape(n: &Value) -> Value {
    let attempts: Vec<Value> = n["attempts"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| {
            json!([
                a["id"],
                a["index"],
                a["status"],
                a["webhook_request"]["response_status"],
                a["webhook_request"]["request_body"],
            ])
        })
        .collect();
    json!([n["id"], n["status"], attempts])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exported_incident_loads_lists_identically_and_recovers_once_each() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let hook = common::service::manual_callback(&w.t.client)
        .await
        .url
        .expect("hook url");
    let client = http();
    for i in 1..DELIVERIES {
        let fired = client
            .post(&hook)
            .json(&json!({"type": "build.failed", "build": i}))
            .send()
            .await
            .expect("hook");
        assert_eq!(fired.status(), 200);
    }
    eventually(Duration::from_mins(2), || async {
        (got(&log, "ok").len() >= DELIVERIES).then_some(())
    })
    .await;

    let home = tempfile::tempdir().expect("home");
    let file = home.path().join("incident.ndjson");
    let exported = run(
        &w.t.svc.base_url,
        w.t.svc.api_key.expose(),
        home.path(),
        &[
            "notifications",
            "export",
            "--destination",
            &w.dest,
            "--out",
            &file.to_string_lossy(),
            "-o",
            "json",
        ],
    )
    .await;
    assert_eq!(exported.code, 0, "{exported:?}");
    assert!(
        exported.stdout.contains("switchboard.export"),
        "{exported:?}"
    );
    let lines: Vec<Value> = std::fs::read_to_string(&file)
        .expect("bundle")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let recorded: Vec<Value> = lines
        .iter()
        .filter(|l| l["kind"] == "notification")
        .map(shape)
        .collect();
    assert_eq!(recorded.len(), DELIVERIES);

    // The second service, on the bundle, pointing at the receiver under repair, with its secret.
    let db = home.path().join("loaded/service.db");
    let key = "loaded-service-key";
    let repair_secret = "whsec_the_receivers_own_secret_42";
    let loaded = ServeChild::start_env(
        &[
            "--db",
            &db.to_string_lossy(),
            "--load",
            &file.to_string_lossy(),
            "--rewrite-destinations",
            &format!("{rx}/repaired"),
            "--signing-secret-env",
            "REPAIR_SECRET",
        ],
        key,
        None,
        &[("REPAIR_SECRET", repair_secret)],
    );
    let c = client_for(&loaded.base_url, &Secret::new(key.to_string()));
    let listed: Vec<Value> = list_all(&c, |q| {
        ApiRequest::list_notifications(q, &switchboard::api::NotificationFilter::default())
    })
    .await
    .expect("list the loaded notifications");
    // The bundle is newest first; the list's default order is oldest first.
    let mut oldest_first = recorded.clone();
    oldest_first.reverse();
    assert_eq!(
        listed.iter().map(shape).collect::<Vec<_>>(),
        oldest_first,
        "same ids, order, statuses, attempts and bodies"
    );
    // Filed under the same destination and callback.
    let by_dest: Vec<Value> = list_all(&c, |q| {
        ApiRequest::list_notifications(
            q,
            &switchboard::api::NotificationFilter {
                destination_ids: vec![w.dest.clone()],
                callback_ids: vec![w.callback.clone()],
                ..Default::default()
            },
        )
    })
    .await
    .expect("by destination");
    assert_eq!(by_dest.len(), DELIVERIES);
    let dest = c.get_destination(&w.dest).await.expect("the destination");
    let hook_dest = dest.webhook_destination.expect("webhook");
    assert_eq!(hook_dest.url, format!("{rx}/repaired"));
    assert_eq!(
        got(&log, "repaired").len(),
        0,
        "nothing is retried on its own"
    );
    // A manual callback gets a fresh hook URL of this service.
    let cb = c.get_callback(&w.callback).await.expect("the callback");
    let new_hook = cb.url.expect("a hook url");
    assert!(new_hook.starts_with(&loaded.base_url) && new_hook != hook);

    let recovered = run(
        &loaded.base_url,
        key,
        home.path(),
        &[
            "notifications",
            "recover",
            "--destination",
            &w.dest,
            "--yes",
            "-o",
            "json",
        ],
    )
    .await;
    assert_eq!(recovered.code, 0, "{recovered:?}");
    assert!(!recovered.stderr.contains("panicked"), "{recovered:?}");
    let sent = got(&log, "repaired");
    assert_eq!(sent.len(), DELIVERIES, "each delivery once");
    let mut ids: Vec<String> = sent
        .iter()
        .map(|g| {
            verify_independently(repair_secret, &g.headers, &g.body);
            let body: Value = serde_json::from_slice(&g.body).expect("json body");
            body["notificationId"].as_str().expect("id").to_string()
        })
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), DELIVERIES, "every delivery, none twice");
}

/// `serve --load` as a process that must fail: its exit code and standard error.
fn refused(home: &Path, bundle: &[u8], name: &str) -> (i32, String) {
    let file = home.join(format!("{name}.ndjson"));
    std::fs::write(&file, bundle).expect("bundle");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(home.join(format!("{name}.db")))
        .arg("--load")
        .arg(&file)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run serve");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_tampered_bundle_is_refused_naming_its_line() {
    let home = tempfile::tempdir().expect("home");
    let manifest = json!({"kind": "manifest", "format": 1, "generation": "pulsar",
        "counts": {"callbacks": 0, "destinations": 0, "notifications": 1, "attempts": 0}});
    let note = json!({"kind": "notification", "id": "cbn_01abc", "type": "webhook_http",
        "status": "failed", "url": null, "attempts": [], "created_at": "2026-11-01T00:00:00.000Z"});
    let ok = format!("{manifest}\n{note}\n");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "badjson",
            format!("{manifest}\n{{\"kind\":").into_bytes(),
            "line 2: not JSON",
        ),
        ("cut", format!("{manifest}\n").into_bytes(), "cut short"),
        (
            "dots",
            ok.replace("cbn_01abc", "cbn_../../etc").into_bytes(),
            "line 2: notification id",
        ),
        (
            "escape",
            ok.replace("cbn_01abc", "cbn_\\u001b]0;PWNED\\u0007")
                .into_bytes(),
            "is not a cbn_",
        ),
        (
            "huge",
            format!("{manifest}\n{}", "x".repeat(17 * 1024 * 1024)).into_bytes(),
            "line 2: longer than",
        ),
        (
            "nomanifest",
            format!("{note}\n").into_bytes(),
            "manifest must come first",
        ),
    ];
    for (name, bundle, says) in cases {
        let (code, stderr) = refused(home.path(), &bundle, name);
        assert_eq!(code, 1, "{name}: {stderr}");
        assert!(stderr.contains(says), "{name}: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        assert!(
            !stderr.contains('\u{1b}'),
            "{name}: no escape reaches the terminal"
        );
    }
    // A database that holds data already is not loaded into again.
    let db = home.path().join("twice.db");
    let file = home.path().join("ok.ndjson");
    std::fs::write(&file, &ok).expect("bundle");
    let mut first = ServeChild::start(
        &[
            "--db",
            &db.to_string_lossy(),
            "--load",
            &file.to_string_lossy(),
        ],
        "k",
    );
    first.terminate();
    let (code, stderr) = refused(home.path(), ok.as_bytes(), "twice");
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("already holds data"), "{stderr}");
}
