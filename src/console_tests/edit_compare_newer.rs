//! `=` and `E` on the newer generations over real HTTP (`serve --generation event-destinations`
//! and `callback-destinations`), with a loopback receiver that echoes what it got: an attempt's
//! recorded answer compared with the delivery's other attempts and this session's replays; an
//! edited body sent signed over the edited bytes (checked here with an HMAC of our own), kept in
//! the replay history, and compared with the recorded answer at once; on
//! `callback-destinations`, the new answer alone with the sentence why there is nothing to
//! compare.
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use axum::routing::post;
use crossterm::event::KeyCode;
use serde_json::{Value, json};
use switchboard::api::generation::Generation;
use switchboard::api::model::CreateEventDestination;
use switchboard::api::{ApiRequest, Client, ClientOptions, Secret};
use switchboard::console::Tab;
use switchboard::console::harness::Harness;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::fixed_clock;
use crate::common::replay::{Got, hmac_hex};
use crate::common::service::eventually;

const ORG_KEY: &str = "sk_org_console_edit_compare_0123456789abcd";
const INSTANCE_KEY: &str = "sk_instance_console_edit_compare_0123456";

type Log = Arc<Mutex<Vec<Got>>>;

/// Answers 200 with `{"n": <requests so far>, "echo": <the JSON body it got>}`.
async fn echo(
    State(log): State<Log>,
    Path(path): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> axum::response::Response {
    let n = {
        let mut l = log.lock().expect("log");
        l.push(Got {
            path,
            headers,
            body: body.to_vec(),
        });
        l.len()
    };
    let echoed: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    axum::Json(json!({"n": n, "echo": echoed})).into_response()
}

async fn echo_receiver() -> (String, Log) {
    let log: Log = Arc::default();
    let app = Router::new()
        .route("/{path}", post(echo))
        .with_state(log.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), log)
}

fn got(log: &Log, path: &str) -> Vec<Got> {
    log.lock()
        .expect("log")
        .iter()
        .filter(|g| g.path == path)
        .cloned()
        .collect()
}

async fn service(generation: Generation) -> (RunningService, Client) {
    let cfg = ServiceConfig {
        seed: Seed::Demo,
        generation,
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

fn json_of(raw: &str) -> Value {
    serde_json::from_str(raw).expect("json")
}

/// A destination on `<rx>/original` (its secret from the create answer), pinged once; the
/// delivery's id once it is delivered.
async fn pinged(client: &Client, rx: &str) -> (String, String) {
    let raw = client
        .send(&ApiRequest::create_event_destination(
            &CreateEventDestination::webhook("edited here", format!("{rx}/original")),
        ))
        .await
        .expect("create");
    let d = json_of(&raw.body);
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
        event_destination_ids: vec![id],
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
            let items = json_of(&raw.body)["items"].as_array().cloned()?;
            let d = items.first()?;
            (d["status"] == "delivered").then(|| d["id"].as_str().unwrap_or_default().to_string())
        }
    })
    .await;
    (secret, delivery)
}

/// The ids of `delivery`'s attempts, by number, once there are `n`.
async fn attempts(client: &Client, delivery: &str, n: usize) -> Vec<String> {
    eventually(Duration::from_secs(20), || {
        let client = client.clone();
        async move {
            let raw = client
                .send(&ApiRequest::get_delivery(delivery))
                .await
                .ok()?;
            let mut a: Vec<(i64, String)> = json_of(&raw.body)["attempts"]
                .as_array()?
                .iter()
                .map(|a| {
                    (
                        a["attempt_number"].as_i64().unwrap_or(0),
                        a["id"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect();
            a.sort();
            (a.len() >= n).then(|| a.into_iter().map(|(_, id)| id).collect())
        }
    })
    .await
}

async fn console(client: &Client, generation: Generation) -> Harness {
    let mut app = Harness::with_client("edit", client.clone(), fixed_clock(), (200, 60));
    app.show_generation(generation);
    app.settle().await.expect("idle");
    app
}

async fn goto(app: &mut Harness, id: &str) {
    app.ch(':')
        .type_text(&format!("goto {id}"))
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
}

/// `t=…,v1=HMAC-SHA256(secret, "t.body")` over the bytes received, checked without the library.
fn verifies(secret: &str, g: &Got) -> bool {
    let sig = g
        .headers
        .get("metorial-signature")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let part = |p: &str| {
        sig.split(',')
            .find_map(|x| x.trim().strip_prefix(p))
            .unwrap_or_default()
            .to_string()
    };
    let mut message = format!("{}.", part("t=")).into_bytes();
    message.extend_from_slice(&g.body);
    !sig.contains("i=") && !part("v1=").is_empty() && hmac_hex(secret, &message) == part("v1=")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e_on_an_attempt_sends_the_edit_signed_over_it_and_compares_the_changed_field() {
    let (_svc, client) = service(Generation::EventDestinations).await;
    let (rx, log) = echo_receiver().await;
    let (secret, delivery) = pinged(&client, &rx).await;
    let original = got(&log, "original");
    assert_eq!(original.len(), 1, "the ping's one attempt");
    let ids = attempts(&client, &delivery, 1).await;
    let mut app = console(&client, Generation::EventDestinations).await;
    goto(&mut app, &ids[0]).await;
    assert_eq!(app.tab(), Tab::DeliveryAttempts, "{}", app.screen());

    // `E`: the target, the destination's secret (masked), Enter: the body goes to the editor.
    let target = format!("{rx}/edited");
    app.ch('E')
        .ctrl('u')
        .type_text(&target)
        .key(KeyCode::Tab)
        .type_text(&secret)
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("Editing the body in $VISUAL / $EDITOR"), "{s}");
    assert!(!s.contains(&secret), "the secret is never drawn: {s}");
    let recorded = app.take_editor().expect("the editor is asked for");
    assert_eq!(recorded.as_bytes(), original[0].body, "the recorded body");
    let mut body: Value = serde_json::from_str(&recorded).expect("a JSON body");
    body["event_type"] = "switchboard.edited".into();
    let edited = body.to_string();
    app.edited(Ok(edited.clone()));
    let s = app.screen();
    assert!(s.contains("Preview · nothing sent yet"), "{s}");
    assert!(s.contains("as edited"), "{s}");
    assert!(got(&log, "edited").is_empty(), "nothing sent before Enter");

    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let sent = got(&log, "edited");
    assert_eq!(sent.len(), 1, "sent once: {}", app.screen());
    assert_eq!(sent[0].body, edited.as_bytes(), "the edited bytes");
    assert!(
        verifies(&secret, &sent[0]),
        "signed over the edited bytes: {:?}",
        sent[0].headers
    );
    let mut over_original = sent[0].clone();
    over_original.body.clone_from(&original[0].body);
    assert!(
        !verifies(&secret, &over_original),
        "not the recorded body's signature"
    );
    assert_eq!(app.replayed_edits(), vec![Some(edited.clone())], "kept");

    // Compare is open at once: the recorded answer beside the new one, the field that changed.
    let s = app.screen();
    assert!(s.contains(&format!("Compare · {delivery}")), "{s}");
    assert!(
        s.contains("attempt #1") && s.contains("edited replay to"),
        "{s}"
    );
    let row = s
        .lines()
        .find(|l| l.contains("$.echo.event_type"))
        .unwrap_or_else(|| panic!("the changed field: {s}"));
    assert!(
        row.contains('~') && row.contains("switchboard.edited"),
        "{row}"
    );
    assert!(s.lines().any(|l| l.contains("$.n")), "{s}");

    // Closed, then `=` on the attempt itself: this session's replay is among the candidates.
    app.key(KeyCode::Esc).key(KeyCode::Esc);
    app.key(KeyCode::Esc).key(KeyCode::Esc);
    assert!(!app.screen().contains("Compare ·"), "{}", app.screen());
    app.ch('=');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains(&format!("Compare · {delivery}")), "{s}");
    assert!(s.contains(&format!("to {target}")), "{s}");
    app.key(KeyCode::Enter);
    let s = app.screen();
    assert!(
        s.lines()
            .any(|l| l.contains("$.echo.event_type") && l.contains("switchboard.edited")),
        "{s}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compare_on_an_attempt_offers_the_deliverys_other_attempts() {
    let (_svc, client) = service(Generation::EventDestinations).await;
    let (rx, log) = echo_receiver().await;
    let (_, delivery) = pinged(&client, &rx).await;
    client
        .send(&ApiRequest::retry_delivery(&delivery))
        .await
        .expect("retry");
    let ids = attempts(&client, &delivery, 2).await;
    eventually(Duration::from_secs(20), || async {
        (got(&log, "original").len() >= 2).then_some(())
    })
    .await;
    let mut app = console(&client, Generation::EventDestinations).await;
    goto(&mut app, &ids[1]).await;
    assert_eq!(app.tab(), Tab::DeliveryAttempts, "{}", app.screen());
    app.ch('=');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains(&format!("Compare · {delivery}")), "{s}");
    assert!(s.contains("attempt #1"), "the other attempt: {s}");
    app.key(KeyCode::Enter);
    let s = app.screen();
    assert!(s.contains("attempt #2") && s.contains("attempt #1"), "{s}");
    let row = s
        .lines()
        .find(|l| l.contains("$.n"))
        .unwrap_or_else(|| panic!("the receiver's counter: {s}"));
    assert!(row.contains('~'), "the answers differ there: {row}");
    assert!(
        s.lines()
            .any(|l| l.contains("$.echo.event_type") && !l.contains('~')),
        "the same body was sent: {s}"
    );
}

/// The signing secret of the destination that sent callback notification `id`, as the
/// service gives it.
async fn callback_secret(client: &Client, id: &str) -> String {
    let found = switchboard::api::callback_gen::find_notification(client, id, None)
        .await
        .expect("found")
        .expect("a notification");
    let n = &found.notification;
    let cb = client
        .send(&ApiRequest::get_callback(&found.callback_id))
        .await
        .expect("callback");
    let cb = json_of(&cb.body);
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
    json_of(&raw.body)["signing_secret"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e_on_a_callback_notification_sends_signed_and_says_there_is_nothing_to_compare() {
    let (_svc, client) = service(Generation::CallbackDestinations).await;
    let (rx, log) = echo_receiver().await;
    let mut app = console(&client, Generation::CallbackDestinations).await;
    app.ch(':')
        .type_text(Tab::CallbackNotifications.aliases()[0])
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), Tab::CallbackNotifications, "{}", app.screen());
    let id = app.selected_id().expect("a notification");
    let secret = callback_secret(&client, &id).await;
    assert!(!secret.is_empty(), "the demo's destination has a secret");

    let target = format!("{rx}/cb-edited");
    app.ch('E').ctrl('u').type_text(&target).key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("Editing the body in $VISUAL / $EDITOR"), "{s}");
    let recorded = app.take_editor().expect("the editor is asked for");
    let mut body: Value = serde_json::from_str(&recorded).expect("a JSON body");
    body["switchboard_edited"] = true.into();
    let edited = body.to_string();
    app.edited(Ok(edited.clone()));
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("Preview · nothing sent yet"), "{s}");
    assert!(s.contains("as edited"), "{s}");
    assert!(
        got(&log, "cb-edited").is_empty(),
        "nothing sent before Enter"
    );

    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let sent = got(&log, "cb-edited");
    assert_eq!(sent.len(), 1, "sent once: {}", app.screen());
    assert_eq!(sent[0].body, edited.as_bytes(), "the edited bytes");
    assert!(
        verifies(&secret, &sent[0]),
        "signed over the edited bytes: {:?}",
        sent[0].headers
    );
    assert_eq!(app.replayed_edits(), vec![Some(edited)], "kept");
    let s = app.screen();
    assert!(s.contains("HTTP 200"), "{s}");
    assert!(
        s.contains("there is no recorded answer to compare this one with"),
        "{s}"
    );
    assert!(!s.contains("Compare ·"), "{s}");
}
