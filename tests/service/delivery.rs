//! Webhook delivery against a loopback receiver whose answers change during the test: success,
//! failure then success, signatures, the retry schedule, and a restart that loses nothing.
use crate::common::service as support_service;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use serde_json::{Value, json};
use support_service::{TestService, eventually, start_with};
use switchboard::api::model::{
    AttemptStatus, CallbacksInput, CreateDestination, Notification, NotificationStatus,
};
use switchboard::api::{ListQuery, NotificationFilter};
use switchboard::service::delivery::sign_hex;
use switchboard::service::{DbLocation, Seed, ServiceConfig};
use tokio::sync::mpsc;

/// One request the receiver got.
struct Received {
    headers: HeaderMap,
    body: String,
}

#[derive(Clone)]
struct Receiver {
    /// Statuses to answer, in order; 200 once empty.
    script: Arc<Mutex<VecDeque<u16>>>,
    seen: mpsc::UnboundedSender<Received>,
}

/// Answers the next scripted status; `0` means "hang longer than any delivery timeout".
async fn receive(State(r): State<Receiver>, headers: HeaderMap, body: String) -> StatusCode {
    let _ = r.seen.send(Received { headers, body });
    let code = r.script.lock().expect("script").pop_front().unwrap_or(200);
    if code == 0 {
        std::future::pending::<()>().await;
    }
    StatusCode::from_u16(code).unwrap_or(StatusCode::OK)
}

/// Starts a receiver on 127.0.0.1:0 answering `script`; returns its URL and what it sees.
async fn receiver(script: &[u16]) -> (String, mpsc::UnboundedReceiver<Received>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let state = Receiver {
        script: Arc::new(Mutex::new(script.iter().copied().collect())),
        seen: tx,
    };
    let app = Router::new().route("/in", post(receive)).with_state(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/in"), rx)
}

fn config(retry_base: Duration) -> ServiceConfig {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    cfg.retry_base = retry_base;
    cfg
}

/// Creates a destination for the first `webhook_manual` callback; returns (destination id,
/// secret, hook url).
async fn destination_for_manual(t: &TestService, url: &str) -> (String, String, String) {
    let cb = support_service::manual_callback(&t.client).await;
    let d = t
        .client
        .create_destination(&CreateDestination {
            name: "Test receiver".into(),
            description: None,
            url: url.into(),
            callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
        })
        .await
        .expect("destination");
    let secret = d.webhook_destination.expect("webhook").signing_secret;
    (d.id, secret, cb.url.expect("hook url"))
}

/// Posts an event to a hook URL (no bearer key) and returns the notification for `dest`.
async fn fire(t: &TestService, hook: &str, dest: &str) -> String {
    let r = support_service::http()
        .post(hook)
        .json(&json!({"type": "build.failed", "build": 42}))
        .send()
        .await
        .expect("hook");
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.expect("json");
    let event = body["event_id"].as_str().expect("event id").to_string();
    let f = NotificationFilter {
        event_ids: vec![event],
        destination_ids: vec![dest.into()],
        ..Default::default()
    };
    let page = t
        .client
        .list_notifications(&ListQuery::default(), &f)
        .await
        .expect("notifications");
    assert_eq!(page.items.len(), 1, "one notification per destination");
    page.items[0].id.clone()
}

async fn wait_status(t: &TestService, id: &str, want: NotificationStatus) -> Notification {
    eventually(Duration::from_secs(10), || async {
        let n = t.client.get_notification(id).await.ok()?;
        (n.status == want).then_some(n)
    })
    .await
}

#[tokio::test]
async fn delivery_succeeds_with_a_verifiable_signature() {
    let t = start_with(config(Duration::from_millis(5))).await;
    let (url, mut seen) = receiver(&[]).await;
    let (dest, secret, hook) = destination_for_manual(&t, &url).await;
    let id = fire(&t, &hook, &dest).await;
    let got = tokio::time::timeout(Duration::from_secs(10), seen.recv())
        .await
        .expect("delivered in time")
        .expect("a request");
    let sig = got.headers["metorial-signature"].to_str().expect("ascii");
    let parts: Vec<&str> = sig.split(',').collect();
    let host = parts[0].strip_prefix("i=").expect("i=");
    let ts: i64 = parts[1].strip_prefix("t=").expect("t=").parse().expect("t");
    let v1 = parts[2].strip_prefix("v1=").expect("v1=");
    assert_eq!(
        v1,
        sign_hex(&secret, host, ts, &got.body),
        "signature verifies"
    );
    assert_ne!(v1, sign_hex("clb_sec_wrong", host, ts, &got.body));
    assert_eq!(got.headers["metorial-notification-id"], id.as_str());
    let body: Value = serde_json::from_str(&got.body).expect("json body");
    assert_eq!(body["notificationId"], json!(id));
    assert_eq!(body["payload"]["build"], 42);
    assert_eq!(body["object"], "callback.notification");
    let n = wait_status(&t, &id, NotificationStatus::Succeeded).await;
    assert_eq!(n.attempts.len(), 1);
    let req = n.attempts[0].webhook_request.as_ref().expect("recorded");
    assert_eq!(req.response_status, 200);
    assert_eq!(req.request_body.as_deref(), Some(got.body.as_str()));
    assert_eq!(req.request_headers["metorial-signature"], sig);
    t.svc.shutdown().await;
}

#[tokio::test]
async fn failures_retry_on_the_doubling_schedule_then_succeed() {
    let base = Duration::from_millis(20);
    let t = start_with(config(base)).await;
    let (url, _seen) = receiver(&[500, 503, 500]).await;
    let (dest, _, hook) = destination_for_manual(&t, &url).await;
    let id = fire(&t, &hook, &dest).await;
    let n = wait_status(&t, &id, NotificationStatus::Succeeded).await;
    let statuses: Vec<_> = n
        .attempts
        .iter()
        .map(|a| {
            let r = a.webhook_request.as_ref().expect("request");
            (a.index, a.status.clone(), r.response_status)
        })
        .collect();
    assert_eq!(
        statuses,
        [
            (0, AttemptStatus::Failed, 500),
            (1, AttemptStatus::Failed, 503),
            (2, AttemptStatus::Failed, 500),
            (3, AttemptStatus::Succeeded, 200),
        ]
    );
    for (k, pair) in n.attempts.windows(2).enumerate() {
        let gap = (pair[1].created_at - pair[0].created_at).num_milliseconds();
        let want = (base.as_millis() as i64) << (k + 1);
        assert!(gap >= want, "gap {k}: {gap} ms < {want} ms");
    }
    t.svc.shutdown().await;
}

#[tokio::test]
async fn an_unreachable_destination_records_the_error_and_keeps_retrying() {
    let t = start_with(config(Duration::from_millis(5))).await;
    // A port that was just free: nothing listens there.
    let closed = crate::common::fake::closed_port();
    let (dest, _, hook) = destination_for_manual(&t, &format!("http://{closed}/in")).await;
    let id = fire(&t, &hook, &dest).await;
    let n = eventually(Duration::from_secs(10), || async {
        let n = t.client.get_notification(&id).await.ok()?;
        (n.attempts.len() >= 2).then_some(n)
    })
    .await;
    assert!(matches!(
        n.status,
        NotificationStatus::Retrying | NotificationStatus::Failed
    ));
    let req = n.attempts[0].webhook_request.as_ref().expect("request");
    assert_eq!(req.response_status, -1);
    assert!(req.request_error.is_some());
    t.svc.shutdown().await;
}

#[tokio::test]
async fn a_restart_resumes_retrying_deliveries() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("service.db");
    let mut cfg = config(Duration::from_millis(400));
    cfg.db = DbLocation::Path(path.clone());
    let first = start_with(cfg.clone()).await;
    let (url, _seen) = receiver(&[500]).await;
    let (dest, _, hook) = destination_for_manual(&first, &url).await;
    let id = fire(&first, &hook, &dest).await;
    let n = wait_status(&first, &id, NotificationStatus::Retrying).await;
    assert_eq!(n.attempts.len(), 1);
    first.svc.shutdown().await;

    cfg.api_key = None;
    let second = start_with(cfg).await;
    let n = wait_status(&second, &id, NotificationStatus::Succeeded).await;
    assert_eq!(n.attempts.len(), 2, "the retry happened after the restart");
    assert_eq!(n.attempts[1].index, 1);
    second.svc.shutdown().await;
}

#[tokio::test]
async fn a_slow_receiver_times_out_and_the_retry_succeeds() {
    let mut cfg = config(Duration::from_millis(5));
    cfg.delivery_timeout = Duration::from_millis(300);
    let t = start_with(cfg).await;
    let (url, _seen) = receiver(&[0]).await;
    let (dest, _, hook) = destination_for_manual(&t, &url).await;
    let id = fire(&t, &hook, &dest).await;
    let n = wait_status(&t, &id, NotificationStatus::Succeeded).await;
    assert_eq!(n.attempts.len(), 2);
    let first = n.attempts[0].webhook_request.as_ref().expect("request");
    assert_eq!(first.response_status, -1);
    assert!(
        first
            .request_error
            .as_deref()
            .unwrap_or("")
            .contains("timeout"),
        "{:?}",
        first.request_error
    );
    assert!(first.duration >= 300, "duration {}", first.duration);
    t.svc.shutdown().await;
}

#[tokio::test]
async fn unknown_hook_keys_are_404_and_hooks_need_no_bearer() {
    let t = start_with(config(Duration::from_millis(5))).await;
    let r = support_service::http()
        .post(format!("{}/hooks/not-a-key", t.svc.base_url))
        .json(&json!({"a": 1}))
        .send()
        .await
        .expect("send");
    assert_eq!(r.status(), 404);
    t.svc.shutdown().await;
}

#[tokio::test]
async fn simulation_generates_live_deliveries() {
    let mut cfg = config(Duration::from_millis(5));
    cfg.simulate_events = Some(Duration::from_millis(30));
    let t = start_with(cfg).await;
    let q = ListQuery {
        limit: Some(5),
        order: Some(switchboard::api::Order::Desc),
        ..Default::default()
    };
    let before = t
        .client
        .list_notifications(&q, &NotificationFilter::default())
        .await
        .expect("list")
        .items[0]
        .id
        .clone();
    // New notifications appear and the built-in receiver answers them.
    eventually(Duration::from_secs(10), || async {
        let page = t
            .client
            .list_notifications(&q, &NotificationFilter::default())
            .await
            .ok()?;
        page.items
            .iter()
            .any(|n| n.id > before && !n.attempts.is_empty())
            .then_some(())
    })
    .await;
    t.svc.shutdown().await;
}

/// A process that dies mid-delivery: the notification was still pending, and the next run sends it.
#[test]
fn a_crash_mid_delivery_loses_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cfg = config(Duration::from_millis(5));
    cfg.db = DbLocation::Path(dir.path().join("service.db"));
    // Long enough for the first attempt to hang until the crash; its claim (the timeout and a
    // second) expires soon after, and the restarted service sends it again.
    cfg.delivery_timeout = Duration::from_secs(2);
    let main = tokio::runtime::Runtime::new().expect("runtime");
    // The first request hangs; later ones succeed.
    let (url, mut seen) = main.block_on(receiver(&[0]));
    let doomed = tokio::runtime::Runtime::new().expect("runtime");
    let first_cfg = cfg.clone();
    let id = doomed.block_on(async {
        let t = start_with(first_cfg).await;
        let (dest, _, hook) = destination_for_manual(&t, &url).await;
        let id = fire(&t, &hook, &dest).await;
        tokio::time::timeout(Duration::from_secs(10), seen.recv())
            .await
            .expect("first attempt in flight")
            .expect("request");
        // Abandon the handle: the crash below must not run any graceful shutdown.
        t.svc.abandon();
        id
    });
    // The crash: every task of the first service stops where it is.
    doomed.shutdown_background();
    main.block_on(async {
        cfg.api_key = None;
        let t = start_with(cfg).await;
        let n = wait_status(&t, &id, NotificationStatus::Succeeded).await;
        assert_eq!(n.attempts.len(), 1, "the unrecorded attempt is redone once");
        assert!(
            seen.recv().await.is_some(),
            "delivered again after the crash"
        );
        t.svc.shutdown().await;
    });
}
