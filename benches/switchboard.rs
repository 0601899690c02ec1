//! Criterion benchmarks: console frames per tab (100 rows, and 10,000 rows loaded), `update()` on
//! a key, decoding 100-item pages of every resource, and the local service's list latency on
//! loopback (mean from criterion, p50/p99 and throughput printed by a closed loop), and the
//! service's event-to-first-attempt latency (printed).
#[allow(dead_code)] // the benches take a part of the console tests' helpers
#[path = "../tests/common/console.rs"]
mod console_support;

use std::hint::black_box;
use std::time::{Duration, Instant};

use console_support::{fixed_clock, fixture, fixtures_of};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde::de::DeserializeOwned;
use serde_json::Value;
use switchboard::api::model::*;
use switchboard::api::{Client, ClientOptions, ListQuery, Page};
use switchboard::console::Tab;
use switchboard::console::harness::{Harness, decode_page};
use switchboard::service::{ServiceConfig, start};

/// A list body of `n` items made from the fixture's items, each with a distinct id.
fn page_body(file: &str, n: usize) -> String {
    let v: Value = serde_json::from_str(&fixture(file)).expect("fixture json");
    let items = v["items"].as_array().expect("items");
    let out: Vec<Value> = (0..n)
        .map(|i| {
            let mut it = items[i % items.len()].clone();
            if let Some(id) = it["id"].as_str() {
                it["id"] = Value::String(format!("{id}{i:05}"));
            }
            it
        })
        .collect();
    serde_json::json!({ "items": out, "pagination": v["pagination"] }).to_string()
}

/// An offline app of the given size on `tab`, its list answered with `rows` rows.
fn app_with(tab: Tab, rows: usize, w: u16, h: u16) -> Harness {
    let mut app = Harness::offline("bench", fixed_clock(), (w, h));
    let digit = char::from_digit(tab.index() as u32 + 1, 10).expect("digit");
    app.ch(digit);
    app.answer_lists(|t| page_body(fixtures_of(t).0, rows))
        .expect("page decodes");
    assert_eq!(app.tab(), tab);
    assert_eq!(app.row_ids().len(), rows);
    app
}

fn frames(c: &mut Criterion) {
    let mut g = c.benchmark_group("frame");
    for (w, h) in [(250u16, 80u16), (80, 24)] {
        for rows in [100usize, 10_000] {
            for tab in Tab::ALL {
                let id = format!("{}/{rows}rows/{w}x{h}", tab.title().to_lowercase());
                // Set up inside the closure: it only runs when the filter selects the bench.
                g.bench_function(BenchmarkId::from_parameter(id), |b| {
                    let app = app_with(tab, rows, w, h);
                    let mut term = Terminal::new(TestBackend::new(w, h)).expect("terminal");
                    b.iter(|| {
                        term.draw(|f| app.render(f)).expect("draw");
                    })
                });
            }
        }
    }
    g.finish();
}

/// A message's handling through the app (`update()` and its effects), as a key press costs.
fn key_update(c: &mut Criterion) {
    let mut g = c.benchmark_group("update");
    for rows in [100usize, 10_000] {
        g.bench_function(format!("key_j_k/{rows}rows"), |b| {
            let mut app = app_with(Tab::Teams, rows, 250, 80);
            b.iter(|| {
                app.ch('j');
                app.ch('k');
            })
        });
        // With a filter and a sort on, every message but a cursor move puts the rows back in
        // server order and derives the shown rows again (reused while nothing changed).
        g.bench_function(format!("resize_filtered_sorted/{rows}rows"), |b| {
            let mut app = app_with(Tab::Teams, rows, 250, 80);
            app.ch('/').ch('a').key(KeyCode::Enter).ch('s');
            assert_eq!(app.filter().as_deref(), Some("a"), "the filter is on");
            b.iter(|| {
                app.resize(250, 80);
            })
        });
        // Typing into the filter re-matches every loaded row: the cost of a real re-derive.
        g.bench_function(format!("filter_typing/{rows}rows"), |b| {
            let mut app = app_with(Tab::Teams, rows, 250, 80);
            app.ch('/').ch('a');
            b.iter(|| {
                app.ch('e');
                app.key(KeyCode::Backspace);
            })
        });
        g.bench_function(format!("tab_switch/{rows}rows"), |b| {
            let mut app = app_with(Tab::Teams, rows, 250, 80);
            b.iter(|| {
                app.ch('2');
                app.ch('1');
                // An offline app keeps what it would have sent: drop it, as a worker would.
                black_box(app.take_request_count());
            })
        });
    }
    g.finish();
}

fn decode_one<T: DeserializeOwned>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    file: &str,
) {
    let body = page_body(file, 100);
    g.throughput(Throughput::Bytes(body.len() as u64));
    g.bench_function(file.trim_end_matches("-list.json"), |b| {
        b.iter(|| {
            let p: Page<T> = serde_json::from_str(black_box(&body)).expect("decodes");
            black_box(p)
        })
    });
}

fn decoding(c: &mut Criterion) {
    let mut g = c.benchmark_group("decode_100");
    decode_one::<Team>(&mut g, "team-list.json");
    decode_one::<ProviderOauthImport>(&mut g, "import-list.json");
    decode_one::<Callback>(&mut g, "callback-list.json");
    decode_one::<Destination>(&mut g, "destination-list.json");
    decode_one::<Notification>(&mut g, "notification-list.json");
    decode_one::<Member>(&mut g, "member-list.json");
    decode_one::<Project>(&mut g, "project-list.json");
    decode_one::<TeamRole>(&mut g, "team-role-list.json");
    g.finish();
    // The console's own decode (envelope + per-tab records, raw JSON kept).
    let mut g = c.benchmark_group("console_decode_100");
    for tab in Tab::ALL {
        let body = page_body(fixtures_of(tab).0, 100);
        g.bench_function(tab.title().to_lowercase(), |b| {
            b.iter(|| black_box(decode_page(tab, 200, black_box(&body)).expect("decodes")))
        });
    }
    g.finish();
}

/// A seeded local service on loopback and a client for it.
fn service(rt: &tokio::runtime::Runtime) -> (switchboard::service::RunningService, Client) {
    rt.block_on(async {
        let mut cfg = ServiceConfig::ephemeral();
        cfg.seed = switchboard::service::Seed::Demo;
        let svc = start(cfg).await.expect("service starts");
        let client = Client::new(ClientOptions {
            base_url: svc.base_url.clone(),
            api_key: svc.api_key.clone(),
            max_retries: 0,
            ..ClientOptions::default()
        })
        .expect("client");
        (svc, client)
    })
}

fn service_list(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let (svc, client) = service(&rt);
    let q = ListQuery {
        limit: Some(100),
        ..ListQuery::default()
    };
    let mut g = c.benchmark_group("service");
    g.bench_function("list_teams_limit100", |b| {
        b.to_async(&rt).iter(|| async {
            black_box(client.list_teams(&q).await.expect("list"));
        })
    });
    g.bench_function("list_notifications_limit100", |b| {
        b.to_async(&rt).iter(|| async {
            black_box(
                client
                    .list_notifications(&q, &Default::default())
                    .await
                    .expect("list"),
            );
        })
    });
    g.finish();
    rt.block_on(svc.shutdown());
}

/// Closed-loop latency distribution and throughput of list calls, 1 and 8 at a time.
fn service_percentiles() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let (svc, client) = service(&rt);
    let q = ListQuery {
        limit: Some(100),
        ..ListQuery::default()
    };
    for concurrency in [1usize, 8] {
        let per_task = 2000 / concurrency;
        let (mut lat, wall) = rt.block_on(async {
            let started = Instant::now();
            let tasks: Vec<_> = (0..concurrency)
                .map(|_| {
                    let client = client.clone();
                    let q = q.clone();
                    tokio::spawn(async move {
                        let mut v = Vec::with_capacity(per_task);
                        for _ in 0..per_task {
                            let t = Instant::now();
                            client.list_teams(&q).await.expect("list");
                            v.push(t.elapsed());
                        }
                        v
                    })
                })
                .collect();
            let mut all = Vec::new();
            for t in tasks {
                all.extend(t.await.expect("task"));
            }
            (all, started.elapsed())
        });
        lat.sort();
        let pct = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
        println!(
            "service list_teams limit=100 concurrency={concurrency}: {} req in {:.2?} = {:.0} req/s; p50 {:?} p99 {:?} max {:?}",
            lat.len(),
            wall,
            lat.len() as f64 / wall.as_secs_f64(),
            pct(0.50),
            pct(0.99),
            lat.last().copied().unwrap_or(Duration::ZERO),
        );
    }
    rt.block_on(svc.shutdown());
}

/// From `POST` of an event to a `webhook_manual` callback's URL until a loopback receiver behind a
/// destination gets the signed delivery: p50 / p99 over a few hundred events, one at a time.
fn event_to_first_attempt() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let (svc, client) = service(&rt);
    let (arrived, mut arrivals) = tokio::sync::mpsc::unbounded_channel::<Instant>();
    let receiver = axum::Router::new().route(
        "/in",
        axum::routing::post(move || {
            let arrived = arrived.clone();
            async move {
                let _ = arrived.send(Instant::now());
                "ok"
            }
        }),
    );
    let lat = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move { axum::serve(listener, receiver).await });
        let q = ListQuery {
            limit: Some(100),
            ..ListQuery::default()
        };
        let callbacks = client.list_callbacks(&q).await.expect("callbacks");
        let manual = callbacks
            .items
            .iter()
            .find(|c| c.kind == CallbackType::WebhookManual && c.url.is_some())
            .expect("the demo seed has a webhook_manual callback");
        client
            .create_destination(&CreateDestination {
                name: "bench receiver".into(),
                description: None,
                url: format!("http://{addr}/in"),
                callbacks: CallbacksInput::selected(vec![manual.id.clone()]),
            })
            .await
            .expect("destination");
        let hook = manual.url.clone().expect("hook url");
        let http = reqwest::Client::new();
        let mut lat = Vec::new();
        for i in 0..300 {
            let sent = Instant::now();
            http.post(&hook)
                .json(&serde_json::json!({"type": "bench.event", "n": i}))
                .send()
                .await
                .expect("event accepted");
            let got = arrivals.recv().await.expect("delivery");
            lat.push(got.saturating_duration_since(sent));
        }
        lat
    });
    let mut lat = lat;
    lat.sort();
    let pct = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
    println!(
        "service event -> first delivery attempt: {} events; p50 {:?} p99 {:?} max {:?}",
        lat.len(),
        pct(0.50),
        pct(0.99),
        lat.last().copied().unwrap_or(Duration::ZERO),
    );
    rt.block_on(svc.shutdown());
}

/// Detail wrapping: a 100,000-character value (invisible characters shown as markers, as the
/// sanitizer writes them) wrapped under its label at 250 and 80 columns, and the same read back
/// from the cache, as each key after the first costs.
fn wrapping(c: &mut Criterion) {
    use switchboard::resource::wrap::{WrapCache, wrap_line};
    let raw: String = "hook payload \u{200b}with zero-width joins 漢字 "
        .chars()
        .cycle()
        .take(100_000)
        .collect();
    let value = switchboard::text::line(&raw).into_owned();
    let mut g = c.benchmark_group("wrap");
    for width in [250usize, 80] {
        g.bench_function(BenchmarkId::new("100k", width), |b| {
            b.iter(|| {
                black_box(wrap_line(
                    &[(0u8, "Body      "), (1, &value)],
                    width,
                    10,
                    &0,
                ))
            });
        });
        let mut cache = WrapCache::new();
        g.bench_function(BenchmarkId::new("100k_cached", width), |b| {
            b.iter(|| {
                black_box(cache.get(1, width, || {
                    wrap_line(&[(0u8, "Body      "), (1, &value)], width, 10, &0)
                }))
            });
        });
    }
    g.finish();
}

/// A key on an open detail of a 100,000-character record (a team description with zero-width
/// characters, shown as markers): `j` then its frame, at 250×80 and 80×24. The detail's lines are
/// wrapped once per record and width, so a key costs what a short record's does.
fn detail_key(c: &mut Criterion) {
    let mut g = c.benchmark_group("detail_key");
    let long: String = "hook payload \u{200b}with zero-width joins 漢字 "
        .chars()
        .cycle()
        .take(100_000)
        .collect();
    for (w, h) in [(250u16, 80u16), (80, 24)] {
        g.bench_function(BenchmarkId::new("100k", format!("{w}x{h}")), |b| {
            let mut app = Harness::offline("bench", fixed_clock(), (w, h));
            let mut v: Value =
                serde_json::from_str(&page_body("team-list.json", 20)).expect("page");
            v["items"][0]["description"] = Value::String(long.clone());
            let body = v.to_string();
            app.answer_lists(|_| body.clone()).expect("page decodes");
            app.key(KeyCode::Enter);
            let mut term = Terminal::new(TestBackend::new(w, h)).expect("terminal");
            b.iter(|| {
                app.ch('j');
                term.draw(|f| app.render(f)).expect("draw");
            })
        });
    }
    g.finish();
}

/// Pending retries in the backlog benchmark.
const BACKLOG: usize = 64_000;

/// Writes `n` retrying notifications straight into the service's file, due between one minute
/// and half an hour from now, to a destination on a closed loopback port (as a dead receiver's
/// backlog looks). Rows carry their own body, so the same rows load into older schemas too.
fn add_backlog(db: &std::path::Path, destination: &str, callback: &str, n: usize) {
    let mut c = rusqlite::Connection::open(db).expect("open db");
    c.busy_timeout(Duration::from_secs(30)).expect("busy");
    let tx = c.transaction().expect("tx");
    let now = chrono::Utc::now().timestamp_millis();
    {
        let mut ins = tx
            .prepare(
                "INSERT INTO notifications
                 (id, event_id, callback_id, destination_id, status, next_attempt_at, body, data)
                 VALUES (?1, ?2, ?3, ?4, 'retrying', ?5, ?6, ?7)",
            )
            .expect("prepare");
        for i in 0..n {
            let id = format!("cbn_{:09}backlog{i:06}", 0);
            let data = serde_json::json!({
                "object": "callback.notification", "id": id, "type": "webhook_http",
                "status": "retrying", "url": "http://127.0.0.1:9/in", "attempts": [],
                "created_at": "2026-01-01T00:00:00.000Z",
            })
            .to_string();
            let due = now + 60_000 + (i as i64 * 1_740_000 / n as i64);
            ins.execute(rusqlite::params![
                id,
                "cbe_backlog",
                callback,
                destination,
                due,
                r#"{"type":"bench.backlog"}"#,
                data
            ])
            .expect("insert");
        }
    }
    tx.commit().expect("commit");
}

/// Teams of about 0.8 MB each (a long description) written into the file, as issue 23 measured
/// slug uniqueness with.
fn add_big_teams(db: &std::path::Path, n: usize) {
    let mut c = rusqlite::Connection::open(db).expect("open db");
    c.busy_timeout(Duration::from_secs(30)).expect("busy");
    let tx = c.transaction().expect("tx");
    let description = "big team ".repeat(90_000);
    for i in 0..n {
        let id = format!("tm_0mzzzzzzmBigTeam{i:08}");
        let data = serde_json::json!({
            "id": id, "name": format!("Big team {i}"), "slug": format!("big-team-{i}"),
            "description": description, "projects": [], "members": [],
            "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z",
        })
        .to_string();
        tx.execute(
            "INSERT INTO records (kind, id, data) VALUES ('team', ?1, ?2)",
            rusqlite::params![id, data],
        )
        .expect("insert");
    }
    tx.commit().expect("commit");
}

/// Team-create latency on an idle service, then with 64,000 pending retries in its database.
fn service_backlog(c: &mut Criterion) {
    create_latency(
        c,
        "service_backlog",
        "backlog_64000",
        |db, destination, callback| {
            add_backlog(db, destination, callback, BACKLOG);
        },
    );
}

/// Team-create latency on an idle service, then with 150 teams of 0.8 MB stored (slug
/// uniqueness is an index probe, not a decode of every team).
fn service_big_teams(c: &mut Criterion) {
    create_latency(c, "service_big_teams", "big_teams_150", |db, _, _| {
        add_big_teams(db, 150);
    });
}

/// `group/create_team/idle`, then `group/create_team/<label>` after `load(db, destination,
/// callback)` wrote into the running service's file.
fn create_latency(
    c: &mut Criterion,
    group: &str,
    label: &str,
    load: impl Fn(&std::path::Path, &str, &str),
) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let dir = tempfile::tempdir().expect("dir");
    let (svc, client) = rt.block_on(async {
        let mut cfg = ServiceConfig::ephemeral();
        cfg.seed = switchboard::service::Seed::Demo;
        cfg.db = switchboard::service::DbLocation::Path(dir.path().join("service.db"));
        let svc = start(cfg).await.expect("service starts");
        let client = Client::new(ClientOptions {
            base_url: svc.base_url.clone(),
            api_key: svc.api_key.clone(),
            max_retries: 0,
            ..ClientOptions::default()
        })
        .expect("client");
        (svc, client)
    });
    let (destination, callback) = rt.block_on(async {
        let q = ListQuery {
            limit: Some(100),
            ..ListQuery::default()
        };
        let callbacks = client.list_callbacks(&q).await.expect("callbacks");
        let cb = callbacks.items.first().expect("a callback").id.clone();
        let d = client
            .create_destination(&CreateDestination {
                name: "dead receiver".into(),
                description: None,
                url: "http://127.0.0.1:9/in".into(),
                callbacks: CallbacksInput::selected(vec![cb.clone()]),
            })
            .await
            .expect("destination");
        (d.id, cb)
    });
    let n = std::sync::atomic::AtomicUsize::new(0);
    let mut g = c.benchmark_group(group);
    for (label, loaded) in [("idle", false), (label, true)] {
        if loaded {
            load(
                svc.db_path.as_deref().expect("file db"),
                &destination,
                &callback,
            );
        }
        g.bench_function(BenchmarkId::new("create_team", label), |b| {
            b.to_async(&rt).iter(|| async {
                let i = n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                black_box(
                    client
                        .create_team(&CreateTeam {
                            name: format!("Bench team {i}"),
                            description: None,
                        })
                        .await
                        .expect("create"),
                );
            })
        });
    }
    g.finish();
    rt.block_on(svc.shutdown());
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    targets = frames, key_update, decoding, service_list, wrapping, detail_key, service_backlog, service_big_teams
}

fn main() {
    benches();
    // Skipped under `cargo bench -- <filter>` unless the filter names it.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if filter.as_deref().is_none_or(|f| "service_p99".contains(f)) {
        service_percentiles();
    }
    if filter
        .as_deref()
        .is_none_or(|f| "service_event".contains(f))
    {
        event_to_first_attempt();
    }
    criterion::Criterion::default()
        .configure_from_args()
        .final_summary();
}
