//! `notifications forward` measured against the local service on loopback (issue 27):
//! - catch-up: 5,000 deliveries recorded while away, forwarded (signed, journal written for each,
//!   cursor saved per page, as the command does) to a loopback receiver; goal under 10 s;
//! - follow latency: from the platform's delivery reaching its receiver (the attempt is recorded
//!   right after) to the forward reaching ours, polling every 500 ms; goal p50 within the
//!   interval plus 50 ms.
//!
//! `cargo bench --bench forward` (release build). Prints its figures; see BENCHMARKS.md.
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use switchboard::api::forward::{self, CursorFile, Event, ForwardConfig, Memory, Start};
use switchboard::api::model::{CallbackType, CallbacksInput, CreateDestination};
use switchboard::api::replay::SendOptions;
use switchboard::api::{Client, ClientOptions, ListQuery, NotificationFilter};
use switchboard::service::{Seed, ServiceConfig, start};
use tokio::sync::{mpsc, watch};

const MISSED: usize = 5_000;
const INTERVAL: Duration = Duration::from_millis(500);

/// A receiver on 127.0.0.1: `/platform` (the destination) and `/fwd` (the forward target), each
/// answering 200 and sending the arrival time on its channel.
async fn receiver() -> (
    String,
    mpsc::UnboundedReceiver<Instant>,
    mpsc::UnboundedReceiver<Instant>,
) {
    let (ptx, prx) = mpsc::unbounded_channel();
    let (ftx, frx) = mpsc::unbounded_channel();
    let at = |tx: mpsc::UnboundedSender<Instant>| {
        axum::routing::post(move || {
            let tx = tx.clone();
            async move {
                let _ = tx.send(Instant::now());
                "ok"
            }
        })
    };
    let app = axum::Router::new()
        .route("/platform", at(ptx))
        .route("/fwd", at(ftx));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), prx, frx)
}

fn main() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(bench());
}

async fn bench() {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    let svc = start(cfg).await.expect("service starts");
    let client = Client::new(ClientOptions {
        base_url: svc.base_url.clone(),
        api_key: svc.api_key.clone(),
        ..ClientOptions::default()
    })
    .expect("client");
    let (rx, mut platform, mut forwarded) = receiver().await;
    let q = ListQuery {
        limit: Some(100),
        ..ListQuery::default()
    };
    let manual = client
        .list_callbacks(&q)
        .await
        .expect("callbacks")
        .items
        .into_iter()
        .find(|c| c.kind == CallbackType::WebhookManual && c.url.is_some())
        .expect("a webhook_manual callback");
    let dest = client
        .create_destination(&CreateDestination {
            name: "bench platform receiver".into(),
            description: None,
            url: format!("{rx}/platform"),
            callbacks: CallbacksInput::selected(vec![manual.id.clone()]),
        })
        .await
        .expect("destination");
    let hook = manual.url.clone().expect("hook url");
    let http = reqwest::Client::new();
    let data = tempfile::tempdir().expect("data dir");
    let target = url::Url::parse(&format!("{rx}/fwd")).expect("url");
    let fwd_cfg = ForwardConfig {
        target: target.clone(),
        filter: NotificationFilter {
            destination_ids: vec![dest.id.clone()],
            ..NotificationFilter::default()
        },
        event_types: Vec::new(),
        unsigned: false,
        interval: INTERVAL,
        send: SendOptions::default(),
    };
    let memory = || Memory {
        cursor: Some(CursorFile::new(data.path(), "bench", &target)),
        journal: forward::open_journal(
            data.path(),
            &switchboard::api::identity::ServiceIdentity::of(&client),
            "bench",
        )
        .expect("journal"),
        answers: Some(forward::AnswerLog::new(data.path(), "bench")),
    };

    // Catch-up: the cursor is saved now (nothing yet), then 5,000 deliveries happen while away.
    CursorFile::new(data.path(), "bench", &target)
        .save(None, &[], &target)
        .expect("cursor");
    let posting = Instant::now();
    for i in 0..MISSED {
        http.post(&hook)
            .json(&serde_json::json!({"type": "bench.missed", "n": i}))
            .send()
            .await
            .expect("event accepted");
    }
    for _ in 0..MISSED {
        platform.recv().await.expect("delivered");
    }
    println!(
        "setup: {MISSED} events posted and delivered in {:.2?}",
        posting.elapsed()
    );
    // The last delivery's attempt is recorded just after its answer: let it land.
    tokio::time::sleep(Duration::from_millis(200)).await;

    let (tx, mut events) = mpsc::unbounded_channel();
    let (stop_tx, stop_rx) = watch::channel(false);
    let started = Instant::now();
    let run = {
        let (client, cfg, memory) = (client.clone(), fwd_cfg.clone(), memory());
        tokio::spawn(async move {
            forward::run(&client, &cfg, Start::Resume, memory, tx, stop_rx).await
        })
    };
    let caught = loop {
        if let Event::CaughtUp { forwarded } = events.recv().await.expect("forwarder running") {
            break forwarded;
        }
    };
    let took = started.elapsed();
    let mut arrived = 0;
    while forwarded.try_recv().is_ok() {
        arrived += 1;
    }
    println!(
        "forward catch-up: {caught} forwarded ({arrived} arrived) in {took:.2?} = {:.0}/s (goal: {MISSED} in < 10 s)",
        caught as f64 / took.as_secs_f64()
    );
    let _ = stop_tx.send(true);
    let _ = run.await;

    // Follow latency: events spaced so that they land at every phase of the poll.
    let (tx, mut events) = mpsc::unbounded_channel();
    let (stop_tx, stop_rx) = watch::channel(false);
    let run = {
        let (client, cfg, memory) = (client.clone(), fwd_cfg.clone(), memory());
        tokio::spawn(
            async move { forward::run(&client, &cfg, Start::Now, memory, tx, stop_rx).await },
        )
    };
    while !matches!(events.recv().await, Some(Event::Ready { .. }) | None) {}
    let drained = Arc::new(AtomicUsize::new(0));
    let mut lat = Vec::new();
    for i in 0..40u64 {
        http.post(&hook)
            .json(&serde_json::json!({"type": "bench.live", "n": i}))
            .send()
            .await
            .expect("event accepted");
        let delivered = platform.recv().await.expect("delivered");
        let got = forwarded.recv().await.expect("forwarded");
        lat.push(got.saturating_duration_since(delivered));
        drained.fetch_add(1, Ordering::Relaxed);
        // 0–490 ms more, a different phase each time.
        tokio::time::sleep(Duration::from_millis((i * 137) % 500)).await;
    }
    lat.sort();
    let pct = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
    println!(
        "forward follow, interval {INTERVAL:?}: {} events, delivered -> forwarded p50 {:?} p90 {:?} max {:?} (goal: p50 < {:?})",
        lat.len(),
        pct(0.5),
        pct(0.9),
        lat.last().copied().unwrap_or_default(),
        INTERVAL + Duration::from_millis(50),
    );
    let _ = stop_tx.send(true);
    let _ = run.await;
    svc.shutdown().await;
}
