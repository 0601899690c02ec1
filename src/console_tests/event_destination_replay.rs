//! The console's `P` on `serve --generation event-destinations` over real HTTP: an attempt's
//! recorded request (read by its id) sent again to a receiver on 127.0.0.1, signed `t=…,v1=…`
//! with the secret typed in the room's masked field (checked here with an HMAC of our own), the
//! secret never on the screen, kept for the session per destination; and the unsigned path.
use std::time::Duration;

use crossterm::event::KeyCode;
use serde_json::Value;
use switchboard::api::generation::Generation;
use switchboard::api::model::CreateEventDestination;
use switchboard::api::{ApiRequest, Client, ClientOptions, Secret};
use switchboard::console::Tab;
use switchboard::console::harness::Harness;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::fixed_clock;
use crate::common::replay::{Got, got, hmac_hex, receiver};
use crate::common::service::eventually;

const ORG_KEY: &str = "sk_org_console_ed_replay_0123456789abcdef";
const INSTANCE_KEY: &str = "sk_instance_console_ed_replay_012345678";

async fn service() -> (RunningService, Client) {
    let cfg = ServiceConfig {
        seed: Seed::Demo,
        generation: Generation::EventDestinations,
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

fn json(raw: &str) -> Value {
    serde_json::from_str(raw).expect("json")
}

/// A destination on `<rx>/original` (its secret from the create answer), pinged once; the
/// delivery's id once its first attempt is recorded.
async fn pinged(client: &Client, rx: &str) -> (String, String, String) {
    let raw = client
        .send(&ApiRequest::create_event_destination(
            &CreateEventDestination::webhook("replayed here", format!("{rx}/original")),
        ))
        .await
        .expect("create");
    let d = json(&raw.body);
    let secret = d["webhook"]["signing_secret"]
        .as_str()
        .expect("the secret in the create answer")
        .to_string();
    let id = d["id"].as_str().expect("id").to_string();
    client
        .send(&ApiRequest::ping_event_destination(&id))
        .await
        .expect("ping");
    let f = switchboard::api::newer_requests::DeliveryFilter {
        event_destination_ids: vec![id.clone()],
        ..Default::default()
    };
    let delivery = eventually(Duration::from_secs(20), || {
        let (client, f) = (client.clone(), f.clone());
        async move {
            let raw = client
                .send(&ApiRequest::list_deliveries(
                    &switchboard::api::ListQuery::default(),
                    &f,
                ))
                .await
                .ok()?;
            let items = json(&raw.body)["items"].as_array().cloned()?;
            let d = items.first()?;
            (d["status"] == "delivered").then(|| d["id"].as_str().unwrap_or_default().to_string())
        }
    })
    .await;
    (id, secret, delivery)
}

async fn console(client: &Client) -> Harness {
    let mut app = Harness::with_client("ed", client.clone(), fixed_clock(), (200, 60));
    app.show_generation(Generation::EventDestinations);
    app.settle().await.expect("idle");
    app
}

async fn goto(app: &mut Harness, id: &str) {
    app.ch(':')
        .type_text(&format!("goto {id}"))
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
}

fn header(g: &Got, k: &str) -> String {
    g.headers
        .get(k)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// `t=…,v1=HMAC-SHA256(secret, "t.body")`, checked without the library.
fn verifies(secret: &str, g: &Got) -> bool {
    let sig = header(g, "metorial-signature");
    let part = |p: &str| {
        sig.split(',')
            .find_map(|x| x.strip_prefix(p))
            .unwrap_or_default()
            .to_string()
    };
    let mut message = format!("{}.", part("t=")).into_bytes();
    message.extend_from_slice(&g.body);
    !sig.contains("i=") && !part("v1=").is_empty() && hmac_hex(secret, &message) == part("v1=")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn p_replays_an_attempt_signed_with_the_typed_secret_never_drawn() {
    let (_svc, client) = service().await;
    let (rx, log) = receiver().await;
    let (destination, secret, delivery) = pinged(&client, &rx).await;
    let original = got(&log, "original");
    assert_eq!(original.len(), 1, "the ping's one attempt");
    let mut app = console(&client).await;
    goto(&mut app, &delivery).await;
    assert_eq!(app.tab(), Tab::Deliveries, "{}", app.screen());

    // Without a secret and not unsigned: nothing is asked of the worker, the reason is shown.
    let target = format!("{rx}/replayed");
    app.ch('P').ctrl('u').type_text(&target).key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("Secret"), "{s}");
    assert!(
        s.contains("type it in Signing secret, or tick Unsigned"),
        "{s}"
    );

    // Tab to the secret, typed (masked), Enter previews, Enter sends.
    app.key(KeyCode::Tab).type_text(&secret);
    let s = app.screen();
    assert!(!s.contains(&secret), "the secret is never drawn: {s}");
    assert!(s.contains(&"•".repeat(8)), "{s}");
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("Preview · nothing sent yet"), "{s}");
    assert!(s.contains(&format!("POST {target}")), "{s}");
    assert!(!s.contains(&secret), "{s}");
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("HTTP 200"), "{s}");
    assert!(!s.contains(&secret), "{s}");
    let sent = got(&log, "replayed");
    assert_eq!(sent.len(), 1, "{s}");
    assert_eq!(
        sent[0].body, original[0].body,
        "the recorded body, byte for byte"
    );
    assert!(verifies(&secret, &sent[0]), "{:?}", sent[0].headers);
    assert!(!verifies("not the secret", &sent[0]));
    assert_eq!(header(&sent[0], "metorial-delivery-id"), delivery);
    assert_eq!(header(&sent[0], "metorial-destination-id"), destination);

    // The open attempt: `P` again has the secret of this session for its destination, kept.
    app.key(KeyCode::Esc).key(KeyCode::Esc);
    let raw = client
        .send(&ApiRequest::get_delivery(&delivery))
        .await
        .expect("delivery");
    let attempt = json(&raw.body)["attempts"][0]["id"]
        .as_str()
        .expect("an attempt")
        .to_string();
    goto(&mut app, &attempt).await;
    assert_eq!(app.tab(), Tab::DeliveryAttempts, "{}", app.screen());
    app.ch('P').ctrl('u').type_text(&format!("{rx}/again"));
    let s = app.screen();
    assert!(s.contains(&"•".repeat(8)), "prefilled: {s}");
    assert!(!s.contains(&secret), "{s}");
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let again = got(&log, "again");
    assert_eq!(again.len(), 1, "{}", app.screen());
    assert!(verifies(&secret, &again[0]));
    assert_eq!(header(&again[0], "metorial-delivery-attempt"), "1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn p_unsigned_sends_the_recorded_body_without_a_signature() {
    let (_svc, client) = service().await;
    let (rx, log) = receiver().await;
    let (_, _, delivery) = pinged(&client, &rx).await;
    let original = got(&log, "original");
    let mut app = console(&client).await;
    goto(&mut app, &delivery).await;
    app.ch('P')
        .ctrl('u')
        .type_text(&format!("{rx}/unsigned"))
        .key(KeyCode::Tab)
        .key(KeyCode::Tab)
        .ch(' ')
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("Preview · nothing sent yet"), "{s}");
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let sent = got(&log, "unsigned");
    assert_eq!(sent.len(), 1, "{}", app.screen());
    assert!(sent[0].headers.get("metorial-signature").is_none());
    assert!(sent[0].headers.get("metorial-timestamp").is_none());
    assert_eq!(sent[0].body, original[0].body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn p_is_prefilled_with_the_secret_this_sessions_rotate_showed() {
    let (_svc, client) = service().await;
    let (rx, log) = receiver().await;
    let (destination, old, delivery) = pinged(&client, &rx).await;
    let mut app = console(&client).await;
    goto(&mut app, &destination).await;
    assert_eq!(app.tab(), Tab::EventDestinations);
    app.ch('K')
        .key(KeyCode::Backspace)
        .type_text("replayed here")
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
    app.ch('R').ch('y');
    app.settle().await.expect("idle");
    let s = app.screen();
    let line = s
        .lines()
        .find(|l| l.contains("REVEALED"))
        .unwrap_or_else(|| panic!("revealed: {s}"))
        .to_string();
    let rotated = line
        .split(" (REVEALED)")
        .next()
        .and_then(|p| p.split_whitespace().last())
        .unwrap_or_default()
        .to_string();
    assert!(rotated.len() > 16, "{line}");
    goto(&mut app, &delivery).await;
    app.ch('P').ctrl('u').type_text(&format!("{rx}/rotated"));
    let s = app.screen();
    assert!(s.contains(&"•".repeat(8)), "prefilled: {s}");
    assert!(!s.contains(&rotated), "{s}");
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let sent = got(&log, "rotated");
    assert_eq!(sent.len(), 1, "{}", app.screen());
    assert!(
        verifies(&rotated, &sent[0]),
        "signed with the rotated secret"
    );
    assert!(!verifies(&old, &sent[0]));
}
