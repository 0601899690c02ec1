//! Marks on `event-destinations`' Deliveries list and `b` over them, against `serve --generation
//! event-destinations` over real HTTP with a loopback receiver of the test's own: exactly the
//! marked deliveries are asked to be retried (count first, a yes), each gets one new attempt, a
//! second `b` asks nothing again unless `a` chooses to; marks the filter hides are counted and
//! said; an unfinished delivery among the marks is asked and shown refused, not left out.
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::post;
use crossterm::event::KeyCode;
use serde_json::Value;
use switchboard::api::generation::Generation;
use switchboard::api::model::{CreateEventDestination, RetryPolicy};
use switchboard::api::{ApiRequest, Client, ClientOptions, Secret};
use switchboard::console::Tab;
use switchboard::console::harness::Harness;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::fixed_clock;

const ORG_KEY: &str = "sk_org_console_marks_0123456789abcdef";
const INSTANCE_KEY: &str = "sk_instance_console_marks_0123456789";

/// A loopback receiver: `/flip` answers 503 until fixed, then 200; `/down` always 503. Counts
/// what each took.
#[derive(Clone, Default)]
struct Receiver {
    fixed: Arc<AtomicBool>,
    flip: Arc<AtomicUsize>,
    down: Arc<AtomicUsize>,
}

impl Receiver {
    async fn start(&self) -> String {
        let flip = {
            let me = self.clone();
            post(move || {
                let me = me.clone();
                async move {
                    me.flip.fetch_add(1, Ordering::SeqCst);
                    if me.fixed.load(Ordering::SeqCst) {
                        StatusCode::OK
                    } else {
                        StatusCode::SERVICE_UNAVAILABLE
                    }
                }
            })
        };
        let down = {
            let me = self.clone();
            post(move || {
                let me = me.clone();
                async move {
                    me.down.fetch_add(1, Ordering::SeqCst);
                    StatusCode::SERVICE_UNAVAILABLE
                }
            })
        };
        let app = Router::new().route("/flip", flip).route("/down", down);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        format!("http://{addr}")
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

fn json(raw: &str) -> Value {
    serde_json::from_str(raw).expect("json")
}

/// A destination on the receiver's `path` under a fixed policy of `attempts` attempts, `delay`
/// seconds apart.
async fn destination(client: &Client, url: String, attempts: u32, delay: u64) -> String {
    let mut body = CreateEventDestination::webhook("test marks", url);
    body.retry = Some(RetryPolicy {
        strategy: "fixed".into(),
        max_attempts: Some(attempts),
        base_delay_seconds: Some(delay),
        max_delay_seconds: Some(delay),
    });
    let raw = client
        .send(&ApiRequest::create_event_destination(&body))
        .await
        .expect("create");
    json(&raw.body)["id"].as_str().expect("id").to_string()
}

async fn delivery(client: &Client, id: &str) -> Value {
    let raw = client
        .send(&ApiRequest::get_delivery(id))
        .await
        .expect("get");
    json(&raw.body)
}

fn attempts(d: &Value) -> usize {
    d["attempts"].as_array().map_or(0, Vec::len)
}

/// Pings `dest` and waits (bounded) until its delivery reaches `status`.
async fn ping_until(client: &Client, dest: &str, status: &str) -> String {
    let raw = client
        .send(&ApiRequest::ping_event_destination(dest))
        .await
        .expect("ping");
    let id = json(&raw.body)["id"].as_str().expect("id").to_string();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let d = delivery(client, &id).await;
        if d["status"] == status {
            return id;
        }
        assert!(std::time::Instant::now() < deadline, "never {status}: {d}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The console on the Deliveries list, its journal in `data`.
async fn deliveries_console(client: &Client, data: &std::path::Path) -> Harness {
    let mut app = Harness::with_client("ed", client.clone(), fixed_clock(), (200, 50));
    app.show_generation(Generation::EventDestinations);
    app.set_data_dir(data);
    app.settle().await.expect("idle");
    app.ch('9');
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), Tab::Deliveries);
    app
}

/// Moves the cursor onto `id` (a loaded row) and marks it with `Space`.
fn mark(app: &mut Harness, id: &str) {
    let shown = app.shown_ids();
    let want = shown
        .iter()
        .position(|s| s == id)
        .unwrap_or_else(|| panic!("{id} is not shown: {shown:?}"));
    for _ in 0..shown.len() * 2 {
        let at = app
            .selected_id()
            .and_then(|s| shown.iter().position(|x| *x == s))
            .unwrap_or(0);
        if at == want {
            break;
        }
        app.key(if at < want {
            KeyCode::Down
        } else {
            KeyCode::Up
        });
    }
    assert_eq!(app.selected_id().as_deref(), Some(id));
    app.ch(' ');
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b_over_three_marks_retries_exactly_those_and_a_second_b_asks_nothing() {
    let (_svc, client) = service().await;
    let rx = Receiver::default();
    let base = rx.start().await;
    let dest = destination(&client, format!("{base}/flip"), 1, 1).await;
    let mut failed = Vec::new();
    for _ in 0..4 {
        failed.push(ping_until(&client, &dest, "failed").await);
    }
    let (marked, unmarked) = (&failed[..3], &failed[3]);
    assert_eq!(rx.flip.load(Ordering::SeqCst), 4);
    rx.fixed.store(true, Ordering::SeqCst);
    let data = tempfile::tempdir().expect("data dir");
    let mut app = deliveries_console(&client, data.path()).await;
    let footer = app.screen().lines().last().unwrap_or_default().to_string();
    assert!(footer.contains("mark"), "{footer}");

    for id in marked {
        mark(&mut app, id);
    }
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("· 3 marked"), "the count in the title: {s}");
    assert_eq!(
        s.lines().filter(|l| l.contains('●')).count(),
        3,
        "one ● per marked row: {s}"
    );

    app.ch('b');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("Recover · 3 marked deliveries"), "{s}");
    assert!(s.contains("the platform's retry"), "{s}");
    // The count first: nothing is asked yet.
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(
        s.contains("asking the platform to retry 3 deliveries"),
        "{s}"
    );
    for id in marked {
        assert!(s.contains(id.as_str()), "{id} in the first few: {s}");
    }
    assert!(!s.contains(unmarked.as_str()), "{s}");
    assert_eq!(rx.flip.load(Ordering::SeqCst), 4, "counting asks nothing");
    app.key(KeyCode::Enter);
    assert!(
        app.screen()
            .contains("Ask the platform to retry 3 deliveries?"),
        "{}",
        app.screen()
    );
    app.ch('y');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("3 accepted, 0 refused, 0 unreachable"), "{s}");
    assert!(s.contains("3/3 new attempts landed"), "{s}");
    assert!(s.contains("attempt #2 succeeded · HTTP 200"), "{s}");

    // The service: each marked delivery got exactly one new attempt; the unmarked none.
    for id in marked {
        let d = delivery(&client, id).await;
        assert_eq!(attempts(&d), 2, "{d}");
        assert_eq!(d["status"], "delivered", "{d}");
    }
    let d = delivery(&client, unmarked).await;
    assert_eq!((attempts(&d), d["status"].as_str()), (1, Some("failed")));
    assert_eq!(rx.flip.load(Ordering::SeqCst), 7);

    // A second `b` on the same marks: the journal says they were retried; nothing is asked.
    app.key(KeyCode::Esc);
    assert!(app.screen().contains("· 3 marked"), "the marks stay");
    app.ch('b');
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("nothing to retry"), "{s}");
    assert!(s.contains("3 skipped: already retried"), "{s}");
    assert!(s.contains("a asks again for the 3 already retried"), "{s}");
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert!(
        app.screen()
            .lines()
            .all(|l| !l.contains("Ask the platform to retry")),
        "{}",
        app.screen()
    );
    for id in marked {
        assert_eq!(attempts(&delivery(&client, id).await), 2);
    }
    assert_eq!(rx.flip.load(Ordering::SeqCst), 7);

    // Unless the user chooses again: `a` counts them in, a yes asks once more.
    app.ch('a');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(
        s.contains("asking the platform to retry 3 deliveries"),
        "{s}"
    );
    app.key(KeyCode::Enter);
    app.ch('y');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("3 accepted, 0 refused, 0 unreachable"), "{s}");
    for id in marked {
        assert_eq!(attempts(&delivery(&client, id).await), 3);
    }
    assert_eq!(rx.flip.load(Ordering::SeqCst), 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marks_the_filter_hides_are_said_and_an_unfinished_one_is_shown_refused() {
    let (_svc, client) = service().await;
    let rx = Receiver::default();
    let base = rx.start().await;
    let gives_up = destination(&client, format!("{base}/flip"), 1, 1).await;
    let failed = ping_until(&client, &gives_up, "failed").await;
    // Still being delivered: its next attempt an hour away.
    let keeps_trying = destination(&client, format!("{base}/down"), 5, 3600).await;
    let retrying = ping_until(&client, &keeps_trying, "retrying").await;
    rx.fixed.store(true, Ordering::SeqCst);
    let data = tempfile::tempdir().expect("data dir");
    let mut app = deliveries_console(&client, data.path()).await;
    mark(&mut app, &failed);
    mark(&mut app, &retrying);
    // The `/` filter keeps only the failed one in sight.
    app.ch('/').type_text(&failed).key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert_eq!(app.shown_ids(), vec![failed.clone()], "{}", app.screen());

    app.ch('b');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(
        s.contains("2 marked deliveries (1 hidden by the filter)"),
        "{s}"
    );
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(
        s.contains("asking the platform to retry 2 deliveries"),
        "{s}"
    );
    assert!(
        s.contains("1 of them not finished (pending or retrying): the platform refuses those"),
        "{s}"
    );
    app.key(KeyCode::Enter).ch('y');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("1 accepted, 1 refused, 0 unreachable"), "{s}");
    let refused = s
        .lines()
        .find(|l| l.contains(retrying.as_str()) && l.contains("refused"))
        .unwrap_or_default();
    assert!(
        refused.contains("400") && refused.contains("Only a finished delivery can be retried"),
        "{s}"
    );
    assert_eq!(attempts(&delivery(&client, &failed).await), 2);
    let d = delivery(&client, &retrying).await;
    assert_eq!((attempts(&d), d["status"].as_str()), (1, Some("retrying")));
    assert_eq!(rx.down.load(Ordering::SeqCst), 1);

    // `Esc` closes the room, then clears the marks (with a count) before the filter.
    app.key(KeyCode::Esc).key(KeyCode::Esc);
    assert!(
        app.toasts().iter().any(|t| t.contains("Cleared 2 marks")),
        "{:?}",
        app.toasts()
    );
    assert!(!app.screen().contains("marked"), "{}", app.screen());
    assert_eq!(app.shown_ids(), vec![failed.clone()], "the filter stays");
}
