//! The console's `P` and `b` on `serve --generation callback-destinations` over real HTTP: a
//! notification's embedded request replayed to a loopback receiver, signed `t=…,v1=…` with its
//! destination's secret (checked here with an HMAC of our own), and marked notifications
//! recovered through the same plan, journal and run as headless, a second recover sending none.
use std::time::Duration;

use crossterm::event::KeyCode;
use switchboard::api::generation::Generation;
use switchboard::api::{ApiRequest, Client, ClientOptions, Secret};
use switchboard::console::Tab;
use switchboard::console::harness::Harness;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::fixed_clock;
use crate::common::replay::{Got, got, hmac_hex, receiver};

const ORG_KEY: &str = "sk_org_console_callback_replay_recover_0123";
const INSTANCE_KEY: &str = "sk_instance_console_callback_replay_recov";

async fn service() -> (RunningService, Client) {
    let cfg = ServiceConfig {
        seed: Seed::Demo,
        generation: Generation::CallbackDestinations,
        api_key: Some(Secret::new(ORG_KEY)),
        instance_key: Some(Secret::new(INSTANCE_KEY)),
        ..ServiceConfig::ephemeral()
    };
    let svc = start(cfg).await.expect("service starts");
    let client = Client::new(ClientOptions {
        base_url: svc.base_url.clone(),
        api_key: Secret::new(INSTANCE_KEY),
        organization_key: Some(Secret::new(ORG_KEY)),
        instance_id: svc.instance_id.clone(),
        max_retries: 0,
        request_timeout: Duration::from_secs(15),
        ..ClientOptions::default()
    })
    .expect("client");
    (svc, client)
}

async fn console(client: &Client, data: &std::path::Path) -> Harness {
    let g = client.served().await.and_then(|c| c.generation);
    assert_eq!(g, Some(Generation::CallbackDestinations), "detected");
    let mut app = Harness::with_client("cbd", client.clone(), fixed_clock(), (200, 60));
    app.show_generation(Generation::CallbackDestinations);
    app.set_data_dir(data);
    app.settle().await.expect("idle");
    app.ch(':')
        .type_text(Tab::CallbackNotifications.aliases()[0])
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), Tab::CallbackNotifications, "{}", app.screen());
    app
}

/// The signing secret of the destination that sent notification `id` (its detail), as the
/// service gives it, and the embedded body.
async fn secret_and_body(client: &Client, id: &str) -> (String, String) {
    let found = switchboard::api::callback_gen::find_notification(client, id, None)
        .await
        .expect("found")
        .expect("a notification");
    let n = &found.notification;
    let body = n["event"]["request"]["body"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let cb = client
        .send(&ApiRequest::get_callback(&found.callback_id))
        .await
        .expect("callback");
    let cb: serde_json::Value = serde_json::from_str(&cb.body).expect("json");
    let d = cb["destinations"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|d| d["name"] == n["destination"]["name"])
        .expect("its destination");
    let raw = client
        .send(&ApiRequest::get_callback_destination(
            d["id"].as_str().unwrap_or_default(),
        ))
        .await
        .expect("destination");
    let whole: serde_json::Value = serde_json::from_str(&raw.body).expect("json");
    (
        whole["signing_secret"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        body,
    )
}

fn header(g: &Got, k: &str) -> String {
    g.headers
        .get(k)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// `t=…,v1=HMAC-SHA256(secret, "t.body")`, checked without the library.
fn verify(secret: &str, g: &Got) {
    let sig = header(g, "metorial-signature");
    let part = |p: &str| {
        sig.split(',')
            .find_map(|x| x.strip_prefix(p))
            .unwrap_or_default()
            .to_string()
    };
    assert!(!sig.contains("i="), "{sig}");
    let mut message = format!("{}.", part("t=")).into_bytes();
    message.extend_from_slice(&g.body);
    assert_eq!(hmac_hex(secret, &message), part("v1="), "{sig}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn p_replays_the_embedded_request_signed_t_v1() {
    let (_svc, client) = service().await;
    let (rx, log) = receiver().await;
    let data = tempfile::tempdir().expect("data");
    let mut app = console(&client, data.path()).await;
    let id = app.selected_id().expect("a notification");
    let target = format!("{rx}/console-replay");
    app.ch('P').ctrl('u').type_text(&target).key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("Preview · nothing sent yet"), "{s}");
    assert!(s.contains(&format!("POST {target}")), "{s}");
    assert!(
        s.contains("t=…,v1=…, made when previewed, with the signing secret of"),
        "{s}"
    );
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("REPLAYED LOCALLY"), "{s}");
    assert!(s.contains("HTTP 200"), "{s}");
    let sent = got(&log, "console-replay");
    assert_eq!(sent.len(), 1);
    assert_eq!(header(&sent[0], "metorial-notification-id"), id);
    let (secret, body) = secret_and_body(&client, &id).await;
    assert_eq!(
        String::from_utf8_lossy(&sent[0].body),
        body,
        "byte for byte"
    );
    verify(&secret, &sent[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b_recovers_the_marked_notifications_once_through_the_journal() {
    let (_svc, client) = service().await;
    let (rx, log) = receiver().await;
    let data = tempfile::tempdir().expect("data");
    let mut app = console(&client, data.path()).await;
    let rows = app.shown_ids();
    assert!(rows.len() >= 2, "{rows:?}");
    // Space marks the row and moves on.
    app.ch(' ').ch(' ');
    app.settle().await.expect("idle");
    let target = format!("{rx}/console-recover");
    let recover = |app: &mut Harness| {
        app.ch('b')
            .key(KeyCode::Tab)
            .key(KeyCode::Tab)
            .type_text(&target)
            .key(KeyCode::Enter);
    };
    recover(&mut app);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("Recover · 2 marked notifications"), "{s}");
    assert!(s.contains("2 notifications selected"), "{s}");
    assert!(s.contains("2 to send to 127.0.0.1:"), "{s}");
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(
        s.contains("2 sent: 2 succeeded, 0 failed, 0 unreachable"),
        "{s}"
    );
    let sent = got(&log, "console-recover");
    assert_eq!(sent.len(), 2);
    let mut ids: Vec<String> = sent
        .iter()
        .map(|g| header(g, "metorial-notification-id"))
        .collect();
    ids.sort();
    let mut want = rows[..2].to_vec();
    want.sort();
    assert_eq!(ids, want);
    for g in &sent {
        let (secret, body) = secret_and_body(&client, &header(g, "metorial-notification-id")).await;
        assert_eq!(String::from_utf8_lossy(&g.body), body);
        verify(&secret, g);
    }
    // The journal: the same recover again sends none.
    app.key(KeyCode::Esc);
    recover(&mut app);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("2 skipped: already succeeded"), "{s}");
    assert!(s.contains("0 to send"), "{s}");
    assert_eq!(got(&log, "console-recover").len(), 2);
}
