//! The console on `serve --generation event-destinations` over real HTTP, with a receiver of the
//! test's own on 127.0.0.1 that checks every signature itself (its own HMAC, not ours): a ping
//! waits for its delivery's outcome; `b` asks the platform to retry (count first, a yes, the new
//! attempts' outcomes as they land; journalled, so a second recover asks nothing again).
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use crossterm::event::KeyCode;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::Value;
use sha2::Sha256;
use switchboard::api::generation::Generation;
use switchboard::api::model::CreateEventDestination;
use switchboard::api::{ApiRequest, Client, ClientOptions, Secret};
use switchboard::console::Tab;
use switchboard::console::harness::Harness;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::fixed_clock;

const ORG_KEY: &str = "sk_org_console_attempts_0123456789abcdef";
const INSTANCE_KEY: &str = "sk_instance_console_attempts_0123456789";

/// One request the receiver took: its path, whether its signature verified with the secret the
/// test registered for that path, and its body.
#[derive(Debug, Clone)]
struct Taken {
    path: String,
    verified: bool,
    body: String,
}

/// A loopback receiver: `/ok` answers 200, `/down` 503; each request's `metorial-signature`
/// (`t=…,v1=hex HMAC-SHA256(secret, "t.body")`) checked against the secret set for its path.
#[derive(Clone, Default)]
struct Receiver {
    taken: Arc<Mutex<Vec<Taken>>>,
    secrets: Arc<Mutex<Vec<(String, String)>>>,
    /// `/flip` answers 200 once set, 503 before: the receiver under repair.
    fixed: Arc<AtomicBool>,
}

fn verify(secret: &str, headers: &HeaderMap, body: &[u8]) -> bool {
    let Some(sig) = headers
        .get("metorial-signature")
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let mut t = None;
    let mut v1 = None;
    for part in sig.split(',') {
        match part.split_once('=') {
            Some(("t", x)) => t = Some(x.to_string()),
            Some(("v1", x)) => v1 = Some(x.to_string()),
            _ => {}
        }
    }
    let (Some(t), Some(v1)) = (t, v1) else {
        return false;
    };
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
        return false;
    };
    mac.update(t.as_bytes());
    mac.update(b".");
    mac.update(body);
    let want = mac
        .finalize()
        .into_bytes()
        .iter()
        .fold(String::new(), |mut out, b| {
            use std::fmt::Write as _;
            let _ = write!(out, "{b:02x}");
            out
        });
    want == v1
}

impl Receiver {
    async fn start(&self) -> String {
        let route = |path: &'static str, status: StatusCode| {
            let me = self.clone();
            post(move |headers: HeaderMap, body: Bytes| {
                let me = me.clone();
                async move {
                    let status = if path == "/flip" && me.fixed.load(Ordering::SeqCst) {
                        StatusCode::OK
                    } else {
                        status
                    };
                    let secret = me
                        .secrets
                        .lock()
                        .expect("lock")
                        .iter()
                        .find(|(p, _)| p == path)
                        .map(|(_, s)| s.clone())
                        .unwrap_or_default();
                    me.taken.lock().expect("lock").push(Taken {
                        path: path.to_string(),
                        verified: verify(&secret, &headers, &body),
                        body: String::from_utf8_lossy(&body).into_owned(),
                    });
                    (status, format!(r#"{{"took":"{path}"}}"#))
                }
            })
        };
        let app = Router::new()
            .route("/ok", route("/ok", StatusCode::OK))
            .route("/down", route("/down", StatusCode::SERVICE_UNAVAILABLE))
            .route("/flip", route("/flip", StatusCode::SERVICE_UNAVAILABLE));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        format!("http://{addr}")
    }

    fn taken(&self, path: &str) -> Vec<Taken> {
        self.taken
            .lock()
            .expect("lock")
            .iter()
            .filter(|t| t.path == path)
            .cloned()
            .collect()
    }
}

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

async fn console(client: &Client, w: u16, h: u16) -> Harness {
    let mut app = Harness::with_client("ed", client.clone(), fixed_clock(), (w, h));
    app.show_generation(Generation::EventDestinations);
    app.settle().await.expect("idle");
    app
}

fn json(raw: &str) -> Value {
    serde_json::from_str(raw).expect("json")
}

/// A destination on the receiver's `path`, its secret registered with the receiver.
async fn destination(client: &Client, rx: &Receiver, base: &str, path: &str) -> String {
    let raw = client
        .send(&ApiRequest::create_event_destination(
            &CreateEventDestination::webhook(format!("test {path}"), format!("{base}{path}")),
        ))
        .await
        .expect("create");
    let d = json(&raw.body);
    let secret = d["webhook"]["signing_secret"]
        .as_str()
        .expect("the secret in the create answer")
        .to_string();
    rx.secrets
        .lock()
        .expect("lock")
        .push((path.to_string(), secret));
    d["id"].as_str().expect("id").to_string()
}

/// The deliveries of a destination, newest first, as the service lists them.
async fn deliveries_of(client: &Client, destination: &str) -> Vec<Value> {
    let f = switchboard::api::newer_requests::DeliveryFilter {
        event_destination_ids: vec![destination.to_string()],
        ..Default::default()
    };
    let raw = client
        .send(&ApiRequest::list_deliveries(
            &switchboard::api::ListQuery::default(),
            &f,
        ))
        .await
        .expect("list");
    json(&raw.body)["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

async fn goto(app: &mut Harness, id: &str) {
    app.ch(':')
        .type_text(&format!("goto {id}"))
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ping_waits_for_its_delivery_and_says_how_it_ended() {
    let (_svc, client) = service().await;
    let rx = Receiver::default();
    let base = rx.start().await;
    let ok = destination(&client, &rx, &base, "/ok").await;
    let down = destination(&client, &rx, &base, "/down").await;
    let mut app = console(&client, 200, 50).await;

    goto(&mut app, &ok).await;
    assert_eq!(app.tab(), Tab::EventDestinations);
    app.ch('t');
    app.ch('y');
    // The follow is the worker's: settle returns once it answered.
    app.settle().await.expect("idle");
    let toasts = app.toasts();
    assert!(
        toasts
            .iter()
            .any(|t| t.contains("ping delivered 200 in ") && t.contains(" ms")),
        "{toasts:?}\n{}",
        app.screen()
    );
    let taken = rx.taken("/ok");
    assert_eq!(taken.len(), 1, "one ping reached the receiver");
    assert!(taken[0].verified, "signed as §7 signs: {}", taken[0].body);
    // The service made exactly one delivery of it, delivered; the console shows its attempt.
    let ds = deliveries_of(&client, &ok).await;
    assert_eq!(ds.len(), 1, "{ds:?}");
    assert_eq!(ds[0]["status"], "delivered");
    goto(&mut app, ds[0]["id"].as_str().unwrap_or_default()).await;
    assert!(
        app.screen().contains("#1 succeeded · HTTP 200"),
        "{}",
        app.screen()
    );

    goto(&mut app, &down).await;
    app.ch('t');
    app.ch('y');
    app.settle().await.expect("idle");
    let toasts = app.toasts();
    assert!(
        toasts
            .iter()
            .any(|t| t.contains("ping failed: HTTP 503") && t.contains("retrying")),
        "{toasts:?}\n{}",
        app.screen()
    );
    assert_eq!(rx.taken("/down").len(), 1);
}

/// A destination on `/flip` that gives up after one attempt, and a ping of it that failed.
async fn failed_delivery(client: &Client, rx: &Receiver, base: &str) -> (String, String) {
    let mut body = CreateEventDestination::webhook("test flip", format!("{base}/flip"));
    body.retry = Some(switchboard::api::model::RetryPolicy {
        strategy: "fixed".into(),
        max_attempts: Some(1),
        base_delay_seconds: Some(1),
        max_delay_seconds: Some(1),
    });
    let raw = client
        .send(&ApiRequest::create_event_destination(&body))
        .await
        .expect("create");
    let d = json(&raw.body);
    let secret = d["webhook"]["signing_secret"].as_str().expect("secret");
    rx.secrets
        .lock()
        .expect("lock")
        .push(("/flip".into(), secret.to_string()));
    let dest = d["id"].as_str().expect("id").to_string();
    let raw = client
        .send(&ApiRequest::ping_event_destination(&dest))
        .await
        .expect("ping");
    let delivery = json(&raw.body)["id"].as_str().expect("id").to_string();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let raw = client
            .send(&ApiRequest::get_delivery(&delivery))
            .await
            .expect("get");
        let d = json(&raw.body);
        if d["status"] == "failed" {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the ping fails for good: {d}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (dest, delivery)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b_asks_the_platform_to_retry_and_shows_the_new_attempt_as_it_lands() {
    let (_svc, client) = service().await;
    let rx = Receiver::default();
    let base = rx.start().await;
    let (dest, delivery) = failed_delivery(&client, &rx, &base).await;
    assert_eq!(rx.taken("/flip").len(), 1);
    // The receiver is repaired; the platform is asked to retry from the console.
    rx.fixed.store(true, Ordering::SeqCst);
    let data = tempfile::tempdir().expect("data dir");
    let mut app = console(&client, 200, 50).await;
    app.set_data_dir(data.path());
    goto(&mut app, &dest).await;
    assert_eq!(app.tab(), Tab::EventDestinations);
    let footer = app.screen().lines().last().unwrap_or_default().to_string();
    assert!(footer.contains("b recover…"), "{footer}");
    app.ch('b');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("Recover · destination test flip"), "{s}");
    assert!(s.contains("the platform's retry"), "{s}");
    // The count first: nothing is asked yet.
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("asking the platform to retry 1 delivery"), "{s}");
    assert!(s.contains(&delivery), "{s}");
    assert_eq!(rx.taken("/flip").len(), 1, "counting asks nothing");
    // Enter asks before anything is asked; a yes asks the platform.
    app.key(KeyCode::Enter);
    assert!(
        app.screen().contains("Ask the platform to retry?"),
        "{}",
        app.screen()
    );
    app.ch('y');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("1 accepted, 0 refused, 0 unreachable"), "{s}");
    assert!(
        s.contains("attempt #2 succeeded · HTTP 200"),
        "the new attempt as it landed: {s}"
    );
    assert!(s.contains("1/1 new attempts landed"), "{s}");
    // The service: exactly one new attempt, made by the platform (signed as §7 signs).
    let raw = client
        .send(&ApiRequest::get_delivery(&delivery))
        .await
        .expect("get");
    let d = json(&raw.body);
    assert_eq!(d["status"], "delivered", "{d}");
    assert_eq!(d["attempts"].as_array().map(Vec::len), Some(2), "{d}");
    let taken = rx.taken("/flip");
    assert_eq!(taken.len(), 2);
    assert!(taken.iter().all(|t| t.verified), "{taken:?}");

    // Again: the journal says it was retried; nothing is asked.
    app.key(KeyCode::Esc);
    app.ch('b');
    // Every finished status, delivered included: the statuses emptied.
    app.key(KeyCode::Tab).ctrl('u').key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("nothing to retry"), "{s}");
    assert!(s.contains("1 skipped: already retried"), "{s}");
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert!(
        app.screen()
            .lines()
            .all(|l| !l.contains("Ask the platform to retry"))
    );
    let raw = client
        .send(&ApiRequest::get_delivery(&delivery))
        .await
        .expect("get");
    assert_eq!(
        json(&raw.body)["attempts"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(rx.taken("/flip").len(), 2);
}

/// `P` and `=` on a delivery or an attempt say in one sentence where they work for now.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_opens_the_room_and_compare_on_an_attempt_points_to_headless() {
    let (_svc, client) = service().await;
    let mut app = console(&client, 200, 50).await;
    app.ch('9');
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), Tab::Deliveries);
    // `P` replays here now (event_destination_replay.rs sends one): the room with its secret.
    app.ch('P');
    let s = app.screen();
    assert!(s.contains("Replay evdi_") && s.contains("Secret"), "{s}");
    app.key(KeyCode::Esc);
    app.ch('=');
    assert!(
        app.toasts().iter().any(|t| t.contains("--with-attempt N")),
        "{:?}",
        app.toasts()
    );
    assert!(app.screen().lines().all(|l| !l.contains("Replay ·")));
}
