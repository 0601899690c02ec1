//! The platform's own Python SDK (PyPI `metorial` 2.6.0, the newest generation's) drives
//! `serve --generation event-destinations` over real HTTP: its generated endpoints create a
//! destination, ping it, read the delivery and its attempts, retry it and archive the destination,
//! and decode every answer with its own models.
//!
//! It needs `metorial==2.6.0` installed apart (`pip install --target target/metorial-sdk`, as
//! `.ci/run` does: it pins `mcp<2`, while `tests/mcp_server.rs` needs `mcp` 2.x), or another folder
//! named by `SWITCHBOARD_METORIAL_SDK`. Without it the test says so and passes on a developer
//! machine, but fails when `CI=true`.
use std::time::Duration;

use serde_json::Value;
use switchboard::api::Secret;
use switchboard::api::generation::Generation;
use switchboard::service::{Seed, ServiceConfig, start};

const SDK: &str = "2.6.0";

const SCRIPT: &str = r#"
import json, os, sys, time
from metorial._endpoint import MetorialEndpointManager
from metorial._sdk_shared import get_headers
from metorial._generated.magnetar.endpoints.management_organization_event_destinations import MetorialManagementOrganizationEventDestinationsEndpoint as Destinations
from metorial._generated.magnetar.endpoints.management_organization_event_deliveries import MetorialManagementOrganizationEventDeliveriesEndpoint as Deliveries
from metorial._generated.magnetar.endpoints.management_organization_event_delivery_attempts import MetorialManagementOrganizationEventDeliveryAttemptsEndpoint as Attempts
from metorial._generated.magnetar.endpoints.management_organization_webhook_events import MetorialManagementOrganizationWebhookEventsEndpoint as EventTypes
from metorial._generated.magnetar.endpoints.management_organization_event_destination_listeners import MetorialManagementOrganizationEventDestinationListenersEndpoint as Listeners
from metorial._generated.magnetar.endpoints.management_organization_events import MetorialManagementOrganizationEventsEndpoint as Events

base, key, receiver = os.environ["SB_BASE"], os.environ["SB_KEY"], os.environ["SB_RECEIVER"]
config = {"apiKey": key, "apiHost": base, "apiVersion": "2026-01-01-magnetar"}
m = MetorialEndpointManager(config, base, get_headers)
dests, deliveries, attempts = Destinations(m), Deliveries(m), Attempts(m)
out = {}
d = dests.create(name="From the SDK", type="webhook", webhook={"url": receiver},
                 retry={"strategy": "fixed", "max_attempts": 2, "base_delay_seconds": 1, "max_delay_seconds": 1})
out["secret_on_create"] = bool(d.webhook.signing_secret)
out["listed"] = any(x.id == d.id for x in dests.list(limit=100).items)
out["get_hides_secret"] = dests.get(d.id).webhook.signing_secret is None
ping = dests.ping(d.id)
deadline = time.time() + 15
while True:
    got = deliveries.get(ping.id)
    if got.status in ("delivered", "failed") or time.time() > deadline:
        break
    time.sleep(0.1)
out["status"] = got.status
out["attempts"] = len(got.attempts)
attempt = attempts.get(got.attempts[0].id)
out["attempt_status_code"] = attempt.response.status_code
out["attempt_has_request"] = bool(attempt.request.body)
again = deliveries.retry(ping.id)
out["retried_status"] = again.status
out["rotated"] = bool(dests.rotate_webhook_secret(d.id).webhook.signing_secret)
out["archived"] = dests.archive(d.id).status
out["event_types"] = len(EventTypes(m).list().items)
out["attempts_listed"] = len(attempts.list(event_delivery_id=ping.id).items)
out["failed_deliveries"] = len(deliveries.list(status="failed", limit=100).items)
listeners = Listeners(m)
event_listener = next(l for l in listeners.list(limit=100).items if l.type == "event")
listeners.get(event_listener.id)
out["listener_updated"] = listeners.update(event_listener.id, event_types=["session.created"]).event_types
events = Events(m)
first = events.list(source="callback", limit=5).items[0]
out["event_source"] = events.get(first.id).source
print(json.dumps(out))
"#;

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The folder holding the pinned SDK (for `PYTHONPATH`), when it is there.
fn sdk_dir() -> Option<String> {
    let dir = std::env::var("SWITCHBOARD_METORIAL_SDK")
        .unwrap_or_else(|_| format!("{}/target/metorial-sdk", env!("CARGO_MANIFEST_DIR")));
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('metorial'))",
        ])
        .env("PYTHONPATH", &dir)
        .output()
        .ok()?;
    (out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == SDK).then_some(dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_python_sdk_drives_the_event_destinations_generation() {
    let Some(dir) = sdk_dir() else {
        let msg = format!(
            "metorial=={SDK} is needed in target/metorial-sdk (or SWITCHBOARD_METORIAL_SDK); \
             .ci/run installs it"
        );
        assert!(!in_ci(), "{msg}");
        eprintln!("SKIPPED: {msg}");
        return;
    };
    let key = "sk_org_sdk_test_0123456789";
    let svc = start(ServiceConfig {
        seed: Seed::Demo,
        generation: Generation::EventDestinations,
        api_key: Some(Secret::new(key)),
        ..ServiceConfig::ephemeral()
    })
    .await
    .expect("service");
    let receiver = format!("{}/_receiver/healthy", svc.base_url);
    let mut child = tokio::process::Command::new("python3")
        .args(["-c", SCRIPT])
        .env("PYTHONPATH", dir)
        .env("SB_BASE", &svc.base_url)
        .env("SB_KEY", key)
        .env("SB_RECEIVER", &receiver)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("python");
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let read = |mut r: Box<dyn tokio::io::AsyncRead + Unpin + Send>| {
        tokio::spawn(async move {
            let mut s = String::new();
            let _ = tokio::io::AsyncReadExt::read_to_string(&mut r, &mut s).await;
            s
        })
    };
    let (out, err) = (read(Box::new(stdout)), read(Box::new(stderr)));
    let status = tokio::time::timeout(Duration::from_secs(60), child.wait())
        .await
        .expect("the SDK script ends within a minute")
        .expect("wait");
    let (out, err) = (out.await.unwrap_or_default(), err.await.unwrap_or_default());
    assert!(status.success(), "the SDK failed:\n{out}\n{err}");
    let got: Value = serde_json::from_str(out.trim()).expect("the script's summary");
    assert_eq!(got["secret_on_create"], true, "{got}");
    assert_eq!(got["listed"], true);
    assert_eq!(got["get_hides_secret"], true);
    assert_eq!(got["status"], "delivered");
    assert_eq!(got["attempts"], 1);
    assert_eq!(got["attempt_status_code"], 200);
    assert_eq!(got["attempt_has_request"], true);
    assert_eq!(got["retried_status"], "pending");
    assert_eq!(got["rotated"], true);
    assert_eq!(got["archived"], "archived");
    assert!(got["event_types"].as_u64().is_some_and(|n| n > 0));
    assert!(
        got["attempts_listed"].as_u64().is_some_and(|n| n >= 1),
        "{got}"
    );
    assert!(got["failed_deliveries"].as_u64().is_some_and(|n| n > 0));
    assert_eq!(
        got["listener_updated"],
        serde_json::json!(["session.created"])
    );
    assert_eq!(got["event_source"], "callback");
    svc.shutdown().await;
}
