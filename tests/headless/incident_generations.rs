//! Issue 39 on the newer generations: `notifications export` from one `event-destinations` (or
//! `callback-destinations`) service, `serve --load` into a second (the binary, over real HTTP),
//! the same deliveries (ids, order, statuses, attempts) listed, nothing sent on its own, and
//! `notifications recover` (the platform's retry, or on callback-destinations the client's send)
//! reaching a receiver of our own once per delivery, signed with the secret
//! `--signing-secret-env` gave (checked with our own HMAC); a tampered bundle is refused naming
//! its line.
use std::path::Path;
use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};
use switchboard::api::generation::Generation;
use switchboard::api::model::{
    CreateCallbackDestination, CreateDeploymentCallback, CreateEventDestination,
};
use switchboard::api::newer_requests::{AttemptFilter, CallbackNotificationFilter, DeliveryFilter};
use switchboard::api::{ApiRequest, Client, ClientOptions, ListQuery, Secret, list_all};
use switchboard::service::{Seed, ServiceConfig, start};

use crate::common::replay::{got, hmac_hex, receiver};
use crate::common::service::{ServeChild, eventually, http};

const ORG_KEY: &str = "sk_org_headless_incident_0123456789";
const INSTANCE_KEY: &str = "sk_instance_headless_incident_0123456789";
const LOADED_ORG_KEY: &str = "sk_org_headless_loaded_0123456789";
/// Deliveries in the incident (the number).
const DELIVERIES: usize = 500;
/// Requests to the source service at a time while the incident is made.
const AT_ONCE: usize = 16;

#[derive(Debug)]
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs the binary against `base_url` with the organization key, no terminal.
async fn run(base_url: &str, org_key: &str, home: &Path, args: &[&str]) -> Out {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("SWITCHBOARD_BASE_URL", base_url)
        .env("SWITCHBOARD_API_KEY", org_key)
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

fn client(base_url: &str, key: &str) -> Client {
    Client::new(ClientOptions {
        base_url: base_url.to_string(),
        api_key: Secret::new(key),
        ..ClientOptions::default()
    })
    .expect("client")
}

async fn send(c: &Client, req: &ApiRequest) -> Value {
    let raw = c.send(req).await.expect("the service answers");
    assert!((200..300).contains(&raw.status), "{}", raw.body);
    serde_json::from_str(&raw.body).expect("json")
}

/// What a list shows of a destination's deliveries and attempts, in the list's order.
async fn listed(c: &Client, dest: &str) -> (Vec<Value>, Vec<Value>) {
    let deliveries: Vec<Value> = list_all(c, |q| {
        ApiRequest::list_deliveries(
            q,
            &DeliveryFilter {
                event_destination_ids: vec![dest.to_string()],
                ..DeliveryFilter::default()
            },
        )
    })
    .await
    .expect("deliveries");
    let attempts: Vec<Value> = list_all(c, |q| {
        ApiRequest::list_delivery_attempts(
            q,
            &AttemptFilter {
                event_destination_ids: vec![dest.to_string()],
                ..AttemptFilter::default()
            },
        )
    })
    .await
    .expect("attempts");
    (
        deliveries
            .iter()
            .map(|d| json!([d["id"], d["status"], d["attempt_count"], d["event_id"]]))
            .collect(),
        attempts
            .iter()
            .map(|a| {
                json!([
                    a["id"],
                    a["event_delivery_id"],
                    a["status"],
                    a["attempt_number"],
                    a["response"]["status_code"]
                ])
            })
            .collect(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exported_event_destinations_incident_loads_lists_identically_and_recovers_once_each() {
    let (rx, log) = receiver().await;
    let svc = start(ServiceConfig {
        seed: Seed::None,
        generation: Generation::EventDestinations,
        api_key: Some(Secret::new(ORG_KEY)),
        instance_key: Some(Secret::new(INSTANCE_KEY)),
        ..ServiceConfig::ephemeral()
    })
    .await
    .expect("service starts");
    let source = client(&svc.base_url, ORG_KEY);
    // One attempt per budget, to a receiver answering 500: every delivery ends failed.
    let mut body = CreateEventDestination::webhook("incident", format!("{rx}/fail"));
    body.retry = Some(
        serde_json::from_value(json!({"strategy": "fixed", "max_attempts": 1,
            "base_delay_seconds": 3600, "max_delay_seconds": 7200}))
        .expect("a policy"),
    );
    let created = send(&source, &ApiRequest::create_event_destination(&body)).await;
    let dest = created["id"].as_str().expect("id").to_string();
    // A few pings at a time: 500 one after another would be most of the test's time.
    let ping = ApiRequest::ping_event_destination(&dest);
    futures::stream::iter(0..DELIVERIES)
        .for_each_concurrent(AT_ONCE, |_| async {
            send(&source, &ping).await;
        })
        .await;
    eventually(Duration::from_mins(2), || async {
        let (d, _) = listed(&source, &dest).await;
        (d.len() == DELIVERIES && d.iter().all(|d| d[1] == "failed")).then_some(())
    })
    .await;
    let before = listed(&source, &dest).await;
    assert_eq!(got(&log, "fail").len(), DELIVERIES);

    let home = tempfile::tempdir().expect("home");
    let file = home.path().join("incident.ndjson");
    let exported = run(
        &svc.base_url,
        ORG_KEY,
        home.path(),
        &[
            "-o",
            "json",
            "notifications",
            "export",
            "--destination",
            &dest,
            "--out",
            &file.to_string_lossy(),
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
    let count = |k: &str| lines.iter().filter(|l| l["kind"] == k).count() as u64;
    assert_eq!(lines[0]["generation"], "event-destinations");
    assert_eq!(lines[0]["counts"]["events"].as_u64(), Some(count("event")));
    assert_eq!(count("event"), DELIVERIES as u64, "each delivery's event");
    assert_eq!(
        lines[0]["counts"]["deliveries"].as_u64(),
        Some(count("delivery"))
    );

    // The second service, on the bundle, pointing at the receiver under repair, with its secret.
    let db = home.path().join("loaded/service.db");
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
        LOADED_ORG_KEY,
        None,
        &[("REPAIR_SECRET", repair_secret)],
    );
    let c = client(&loaded.base_url, LOADED_ORG_KEY);
    assert_eq!(
        listed(&c, &dest).await,
        before,
        "same ids, order, statuses and attempts"
    );
    let d = send(&c, &ApiRequest::get_event_destination(&dest)).await;
    assert_eq!(d["webhook"]["url"], format!("{rx}/repaired"));
    assert!(
        got(&log, "repaired").is_empty(),
        "nothing retried on its own"
    );

    let recovered = run(
        &loaded.base_url,
        LOADED_ORG_KEY,
        home.path(),
        &[
            "-o",
            "json",
            "notifications",
            "recover",
            "--destination",
            &dest,
            "--wait",
            "0s",
        ],
    )
    .await;
    assert_eq!(recovered.code, 0, "{recovered:?}");
    assert!(!recovered.stderr.contains("panicked"), "{recovered:?}");
    eventually(Duration::from_mins(2), || async {
        (got(&log, "repaired").len() >= DELIVERIES).then_some(())
    })
    .await;
    let sent = got(&log, "repaired");
    assert_eq!(sent.len(), DELIVERIES, "each delivery once");
    let mut ids: Vec<String> = sent
        .iter()
        .map(|g| {
            let header = |k: &str| {
                g.headers
                    .get(k)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_string()
            };
            let sig = header("metorial-signature");
            let (t, v1) = sig
                .split_once(',')
                .and_then(|(t, v)| Some((t.strip_prefix("t=")?, v.strip_prefix("v1=")?)))
                .unwrap_or_else(|| panic!("a t=…,v1=… signature: {sig}"));
            let mut message = format!("{t}.").into_bytes();
            message.extend_from_slice(&g.body);
            assert_eq!(hmac_hex(repair_secret, &message), v1, "signed with ours");
            header("metorial-delivery-id")
        })
        .collect();
    ids.sort();
    ids.dedup();
    let mut expected: Vec<String> = before
        .0
        .iter()
        .map(|d| d[0].as_str().unwrap_or_default().to_string())
        .collect();
    expected.sort();
    assert_eq!(ids, expected, "every delivery, none twice");
}

const CB_INSTANCE_KEY: &str = "sk_instance_headless_cb_incident_0123456789";
const LOADED_INSTANCE_KEY: &str = "sk_instance_headless_cb_loaded_0123456789";

/// What a callback's list shows of its notifications, in the list's order.
async fn notifications_of(c: &Client, cb: &str) -> Vec<Value> {
    let all: Vec<Value> = list_all(c, |q| {
        ApiRequest::list_callback_notifications(q, cb, &CallbackNotificationFilter::default())
    })
    .await
    .expect("notifications");
    all.iter()
        .map(|n| {
            json!([
                n["id"],
                n["status"],
                n["attempt_count"],
                n["event"]["id"],
                n["destination"]["id"],
                n["created_at"],
                n["last_attempt_at"]
            ])
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exported_callback_destinations_incident_loads_lists_identically_and_recovers_once_each()
{
    let (rx, log) = receiver().await;
    let svc = start(ServiceConfig {
        seed: Seed::None,
        generation: Generation::CallbackDestinations,
        api_key: Some(Secret::new(ORG_KEY)),
        instance_key: Some(Secret::new(CB_INSTANCE_KEY)),
        ..ServiceConfig::ephemeral()
    })
    .await
    .expect("service starts");
    let source = client(&svc.base_url, CB_INSTANCE_KEY);
    // Credentials in the URL: the bundle must not carry them.
    let rx_with_user = rx.replacen("http://", "http://alice:pa55word@", 1);
    let created = send(
        &source,
        &ApiRequest::create_callback_destination(&CreateCallbackDestination {
            name: "incident".into(),
            url: format!("{rx_with_user}/ok"),
            description: None,
            metadata: None,
        }),
    )
    .await;
    let dest = created["id"].as_str().expect("id").to_string();
    let source_secret = created["signing_secret"]
        .as_str()
        .expect("a secret")
        .to_string();
    let deployments = send(
        &source,
        &ApiRequest::list_provider_deployments(&ListQuery::default()),
    )
    .await;
    let cb = send(
        &source,
        &ApiRequest::create_deployment_callback(&CreateDeploymentCallback {
            provider_deployment_id: deployments["items"][0]["id"]
                .as_str()
                .expect("a deployment")
                .to_string(),
            name: "incident".into(),
            description: None,
            metadata: None,
            poll_interval_seconds_override: None,
            destination_ids: Some(vec![dest.clone()]),
            triggers: None,
        }),
    )
    .await;
    let cb = cb["id"].as_str().expect("id").to_string();
    // The provider's events, a few at a time: one notification each, delivered to `/ok`.
    let hook = format!("{}/w/{cb}", svc.base_url);
    let web = http();
    futures::stream::iter(0..DELIVERIES)
        .for_each_concurrent(AT_ONCE, |i| {
            let (web, hook) = (web.clone(), hook.clone());
            async move {
                let r = web
                    .post(&hook)
                    .json(&json!({"type": "issues.opened", "number": i}))
                    .send()
                    .await
                    .expect("the hook answers");
                assert_eq!(r.status(), 200);
            }
        })
        .await;
    eventually(Duration::from_mins(2), || async {
        let listed = notifications_of(&source, &cb).await;
        (listed.len() == DELIVERIES && listed.iter().all(|n| n[1] == "delivered")).then_some(())
    })
    .await;
    let before = notifications_of(&source, &cb).await;
    assert_eq!(got(&log, "ok").len(), DELIVERIES);

    let home = tempfile::tempdir().expect("home");
    let file = home.path().join("incident.ndjson");
    let exported = run(
        &svc.base_url,
        CB_INSTANCE_KEY,
        home.path(),
        &[
            "-o",
            "json",
            "notifications",
            "export",
            "--callback",
            &cb,
            // This generation's word for a success.
            "--status",
            "delivered",
            "--out",
            &file.to_string_lossy(),
        ],
    )
    .await;
    assert_eq!(exported.code, 0, "{exported:?}");
    assert!(
        exported.stdout.contains("switchboard.export"),
        "{exported:?}"
    );
    let text = std::fs::read_to_string(&file).expect("bundle");
    assert!(
        !text.contains("pa55word") && !text.contains(&source_secret),
        "no URL credentials, no source secret"
    );
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let count = |k: &str| lines.iter().filter(|l| l["kind"] == k).count() as u64;
    assert_eq!(lines[0]["generation"], "callback-destinations");
    assert_eq!(lines[0]["format"], 1);
    for (what, kind, n) in [
        ("callbacks", "callback", 1),
        ("destinations", "destination", 1),
        ("events", "event", DELIVERIES as u64),
        ("notifications", "notification", DELIVERIES as u64),
    ] {
        assert_eq!(
            lines[0]["counts"][what].as_u64(),
            Some(count(kind)),
            "{what}"
        );
        assert_eq!(count(kind), n, "{what}");
    }

    // The second service, on the bundle, pointing at the receiver under repair, with its secret.
    let db = home.path().join("loaded/service.db");
    let repair_secret = "whsec_the_receivers_own_secret_42";
    let loaded = ServeChild::start_env(
        &[
            "--db",
            &db.to_string_lossy(),
            "--load",
            &file.to_string_lossy(),
            "--generation",
            "callback-destinations",
            "--instance-key-env",
            "LOADED_INSTANCE_KEY",
            "--rewrite-destinations",
            &format!("{rx}/repaired"),
            "--signing-secret-env",
            "REPAIR_SECRET",
        ],
        LOADED_ORG_KEY,
        None,
        &[
            ("REPAIR_SECRET", repair_secret),
            ("LOADED_INSTANCE_KEY", LOADED_INSTANCE_KEY),
        ],
    );
    let c = client(&loaded.base_url, LOADED_INSTANCE_KEY);
    assert_eq!(
        notifications_of(&c, &cb).await,
        before,
        "same ids, order, statuses and attempts"
    );
    let d = send(&c, &ApiRequest::get_callback_destination(&dest)).await;
    assert_eq!(d["url"], format!("{rx}/repaired"));
    assert_eq!(d["signing_secret"], repair_secret);
    let loaded_cb = send(&c, &ApiRequest::get_callback(&cb)).await;
    assert_eq!(loaded_cb["destinations"][0]["id"], dest.as_str());
    assert!(got(&log, "repaired").is_empty(), "nothing sent on its own");

    let recovered = run(
        &loaded.base_url,
        LOADED_INSTANCE_KEY,
        home.path(),
        &[
            "-o",
            "json",
            "notifications",
            "recover",
            "--callback",
            &cb,
            "--yes",
        ],
    )
    .await;
    assert_eq!(recovered.code, 0, "{recovered:?}");
    assert!(!recovered.stderr.contains("panicked"), "{recovered:?}");
    let sent = got(&log, "repaired");
    assert_eq!(sent.len(), DELIVERIES, "each notification once");
    let mut ids: Vec<String> = sent
        .iter()
        .map(|g| {
            let header = |k: &str| {
                g.headers
                    .get(k)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_string()
            };
            let sig = header("metorial-signature");
            let (t, v1) = sig
                .split_once(',')
                .and_then(|(t, v)| Some((t.strip_prefix("t=")?, v.strip_prefix("v1=")?)))
                .unwrap_or_else(|| panic!("a t=…,v1=… signature: {sig}"));
            let mut message = format!("{t}.").into_bytes();
            message.extend_from_slice(&g.body);
            assert_eq!(hmac_hex(repair_secret, &message), v1, "signed with ours");
            header("metorial-notification-id")
        })
        .collect();
    ids.sort();
    ids.dedup();
    let mut expected: Vec<String> = before
        .iter()
        .map(|n| n[0].as_str().unwrap_or_default().to_string())
        .collect();
    expected.sort();
    assert_eq!(ids, expected, "every notification, none twice");
}

#[test]
fn a_tampered_event_destinations_bundle_is_refused_naming_its_line() {
    let home = tempfile::tempdir().expect("home");
    let manifest = json!({"kind": "manifest", "format": 1, "generation": "event-destinations",
        "counts": {"destinations": 0, "events": 0, "deliveries": 1, "attempts": 0}});
    let delivery = json!({"kind": "delivery", "id": "evdi_01abc", "event_id": "evnt_01abc",
        "event_destination_id": "evtd_01abc", "status": "failed", "attempt_count": 0,
        "attempts": [], "created_at": "2026-11-01T00:00:00.000Z",
        "updated_at": "2026-11-01T00:00:00.000Z"});
    let ok = format!("{manifest}\n{delivery}\n");
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "badjson",
            format!("{manifest}\n{{\"kind\":"),
            "line 2: not JSON",
        ),
        ("cut", format!("{manifest}\n"), "cut short"),
        (
            "dots",
            ok.replace("evdi_01abc", "evdi_../../etc"),
            "line 2: delivery id",
        ),
        (
            "escape",
            ok.replace("evnt_01abc", "evnt_\\u001b]0;PWNED\\u0007"),
            "line 2: delivery evdi_01abc names a bad id",
        ),
        (
            "kind",
            format!("{manifest}\n{{\"kind\":\"shell\",\"id\":\"x\"}}"),
            "line 2: unknown kind",
        ),
    ];
    for (name, bundle, says) in cases {
        let file = home.path().join(format!("{name}.ndjson"));
        std::fs::write(&file, bundle).expect("bundle");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(["serve", "--addr", "127.0.0.1:0", "--db"])
            .arg(home.path().join(format!("{name}.db")))
            .arg("--load")
            .arg(&file)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run serve");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains(says), "{name}: {stderr}");
        assert!(
            !stderr.contains('\u{1b}') && !stderr.contains("panicked"),
            "{name}: {stderr}"
        );
    }
}

#[test]
fn a_tampered_callback_destinations_bundle_is_refused_naming_its_line() {
    let home = tempfile::tempdir().expect("home");
    let manifest = json!({"kind": "manifest", "format": 1, "generation": "callback-destinations",
        "counts": {"callbacks": 0, "destinations": 0, "events": 0, "notifications": 1,
                   "attempts": 1}});
    let note = json!({"kind": "notification", "id": "sdi_01abc", "status": "failed",
        "attempt_count": 1, "created_at": "2026-11-01T00:00:00.000Z",
        "callback_id": "cbk_01abc", "destination_id": "cbd_01abc", "event": {"id": "sev_01abc"},
        "destination": {"id": "sed_01abc", "webhook": {"id": "sdw_01abc", "url": "http://x/"}}});
    let ok = format!("{manifest}\n{note}\n");
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "badjson",
            format!("{manifest}\n{{\"kind\":"),
            "line 2: not JSON",
        ),
        ("cut", format!("{manifest}\n"), "cut short"),
        (
            "dots",
            ok.replace("sdi_01abc", "sdi_../../etc"),
            "line 2: notification id",
        ),
        (
            "escape",
            ok.replace("cbk_01abc", "cbk_\\u001b]0;PWNED\\u0007"),
            "line 2: notification sdi_01abc names no cbk_",
        ),
        (
            "preview",
            ok.replace("sed_01abc", "sed_../x"),
            "line 2: notification sdi_01abc's destination names a bad id",
        ),
        (
            "kind",
            format!("{manifest}\n{{\"kind\":\"shell\",\"id\":\"x\"}}"),
            "line 2: unknown kind",
        ),
        (
            "huge",
            format!("{manifest}\n{}", "x".repeat(17 * 1024 * 1024)),
            "line 2: longer than",
        ),
    ];
    for (name, bundle, says) in cases {
        let file = home.path().join(format!("{name}.ndjson"));
        std::fs::write(&file, bundle).expect("bundle");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .args(["serve", "--addr", "127.0.0.1:0", "--db"])
            .arg(home.path().join(format!("{name}.db")))
            .arg("--load")
            .arg(&file)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run serve");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains(says), "{name}: {stderr}");
        assert!(
            !stderr.contains('\u{1b}') && !stderr.contains("panicked"),
            "{name}: {stderr}"
        );
    }
    // The untampered one loads (inert: its callback, destination and event are not there).
    let file = home.path().join("ok.ndjson");
    std::fs::write(&file, &ok).expect("bundle");
    let mut served = ServeChild::start(
        &[
            "--db",
            &home.path().join("ok.db").to_string_lossy(),
            "--load",
            &file.to_string_lossy(),
        ],
        "k",
    );
    served.terminate();
}
