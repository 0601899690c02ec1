//! Recover in bulk, end to end on loopback: a local service seeded with a history, a selection
//! of 10,000 of its notifications walked newest first, planned (destination lookup, signing) and
//! re-delivered to a loopback receiver with the default concurrency (2 per host), each claimed
//! and recorded in a journal. One iteration is the whole recover; throughput is deliveries/s.
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group};
use switchboard::api::journal::Journal;
use switchboard::api::recover::{self, RunOptions};
use switchboard::api::selection::Selection;
use switchboard::api::{Client, ClientOptions};
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

/// Deliveries per recover.
const N: usize = 10_000;

/// A service with enough history for `N` selected notifications, a loopback receiver counting
/// what it gets, and a selection of exactly `N` notifications (a window ending at the N-th).
struct Rig {
    svc: RunningService,
    client: Client,
    to: url::Url,
    got: Arc<AtomicUsize>,
    selection: Selection,
}

async fn rig() -> Rig {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    cfg.history = N;
    let svc = start(cfg).await.expect("service starts");
    let client = Client::new(ClientOptions {
        base_url: svc.base_url.clone(),
        api_key: svc.api_key.clone(),
        max_retries: 0,
        ..ClientOptions::default()
    })
    .expect("client");
    let got = Arc::new(AtomicUsize::new(0));
    let counter = got.clone();
    let receiver = axum::Router::new().route(
        "/in",
        axum::routing::post(move || {
            counter.fetch_add(1, Ordering::Relaxed);
            async { "ok" }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, receiver).await });
    // The window starts at the N-th newest notification: the walk stops there.
    let all = Selection::default();
    let mut walk = all.walk(&client);
    let mut newest = Vec::new();
    while newest.len() < N {
        let page = walk
            .next_page()
            .await
            .expect("page")
            .expect("enough history");
        newest.extend(page.into_iter().map(|n| n.created_at));
    }
    let selection = Selection {
        since: Some(newest[N - 1]),
        ..Selection::default()
    };
    Rig {
        svc,
        client,
        to: url::Url::parse(&format!("http://{addr}/in")).expect("url"),
        got,
        selection,
    }
}

/// Resident memory of this process (the service included), in KiB.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// One whole recover: walk, plan, send, journal. Returns how many were delivered.
async fn recover_once(r: &Rig, dir: &std::path::Path, run: usize) -> usize {
    let mut journal = Journal::open(&dir.join(format!("j{run}.ndjson"))).expect("journal");
    let plan = recover::plan(&r.client, &r.selection, Some(&r.to), &journal, &[])
        .await
        .expect("plan");
    let summary = recover::run(
        &r.client,
        &plan.destinations,
        plan.items,
        &RunOptions::default(),
        &mut journal,
        std::future::pending(),
        |_| {},
    )
    .await
    .expect("run");
    summary.succeeded
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let seeding = Instant::now();
    let r = rt.block_on(rig());
    println!("seeded and windowed in {:.1?}", seeding.elapsed());
    let dir = tempfile::tempdir().expect("dir");
    let mut run = 0usize;
    let mut g = c.benchmark_group("recover");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);
    g.bench_function("10k_to_loopback", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                run += 1;
                let before = r.got.load(Ordering::Relaxed);
                let rss = rss_kib();
                let t = Instant::now();
                let sent = rt.block_on(recover_once(&r, dir.path(), run));
                let took = t.elapsed();
                total += took;
                // Notifications sharing the window's first millisecond may add a few.
                assert!(sent >= N, "{sent} delivered");
                assert_eq!(r.got.load(Ordering::Relaxed) - before, sent);
                println!(
                    "recover {sent}: {took:.2?} = {:.0}/s; RSS {} → {} MiB",
                    sent as f64 / took.as_secs_f64(),
                    rss / 1024,
                    rss_kib() / 1024
                );
            }
            total
        })
    });
    g.finish();
    rt.block_on(r.svc.shutdown());
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(1));
    targets = bench
}

fn main() {
    benches();
    criterion::Criterion::default()
        .configure_from_args()
        .final_summary();
}
