//! Recover in the console, on the local service with a receiver that fails and then recovers:
//! marks survive paging and show in the list and its title; *recover…* on the marks and on a
//! destination counts first (the failed deliveries selected, what the journal already sent
//! left out), sends each once (the receiver counts), shows the outcome and opens an answer;
//! `Esc` stops a run after the requests in flight.
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path as UrlPath, State as AxState};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use switchboard::api::model::{CallbacksInput, CreateDestination};
use switchboard::api::{ListQuery, NotificationFilter};
use switchboard::console::Settings;
use switchboard::console::{App, Clock, Msg, State};
use switchboard::service::{Seed, ServiceConfig};

use crate::common::deliveries::settle;
use crate::common::service::{TestService, eventually, http, manual_callback, start_with};
use crate::common::{ch, key, screen};

/// A receiver: every path answers 503 until `up`; then `/slow` answers its first `open`
/// requests and holds the others until `release`. It counts requests per notification id.
#[derive(Clone, Default)]
struct Rx {
    got: Arc<std::sync::Mutex<Vec<(String, String)>>>,
    up: Arc<AtomicBool>,
    open: Arc<AtomicUsize>,
    release: Arc<tokio::sync::Notify>,
    released: Arc<AtomicBool>,
}

impl Rx {
    fn per_notification(&self, path: &str) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for (p, id) in self.got.lock().expect("log").iter() {
            if p == path {
                *out.entry(id.clone()).or_insert(0) += 1;
            }
        }
        out
    }

    fn count(&self, path: &str) -> usize {
        self.per_notification(path).values().sum()
    }
}

async fn receive(
    AxState(rx): AxState<Rx>,
    UrlPath(path): UrlPath<String>,
    headers: HeaderMap,
) -> StatusCode {
    if !rx.up.load(Ordering::SeqCst) {
        return StatusCode::SERVICE_UNAVAILABLE;
    }
    let id = headers
        .get("metorial-notification-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let n = {
        let mut got = rx.got.lock().expect("log");
        got.push((path.clone(), id));
        got.iter().filter(|(p, _)| *p == path).count()
    };
    if path == "slow" && n > rx.open.load(Ordering::SeqCst) {
        while !rx.released.load(Ordering::SeqCst) {
            let notified = rx.release.notified();
            if rx.released.load(Ordering::SeqCst) {
                break;
            }
            notified.await;
        }
    }
    StatusCode::OK
}

struct World {
    t: TestService,
    rx: Rx,
    hook: String,
    dest: String,
    _data: tempfile::TempDir,
    data_dir: std::path::PathBuf,
}

/// The demo service (failed deliveries end `failed` at once), a receiver that is down, and one
/// destination to `<rx>/<path>` whose `events` deliveries have all failed.
async fn world(path: &str, events: usize) -> World {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    cfg.retry_base = Duration::from_micros(1);
    let t = start_with(cfg).await;
    let rx = Rx::default();
    let app = Router::new()
        .route("/{path}", post(receive))
        .with_state(rx.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    let cb = manual_callback(&t.client).await;
    let dest = t
        .client
        .create_destination(&CreateDestination {
            name: format!("recover to {path}"),
            description: None,
            url: format!("http://{addr}/{path}"),
            callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
        })
        .await
        .expect("destination")
        .id;
    // The demo's destinations on this callback would take the same events, and its failing
    // one retries each 20 times too: as many attempts again as ours, on the same two cores,
    // which made the wait below miss 30 s under load. None of them is looked at here.
    let q = ListQuery {
        limit: Some(100),
        ..Default::default()
    };
    let others = t
        .client
        .list_destinations(&q, std::slice::from_ref(&cb.id))
        .await
        .expect("destinations")
        .items;
    for d in others.iter().filter(|d| d.id != dest) {
        t.client
            .delete_destination(&d.id)
            .await
            .expect("delete a demo destination");
    }
    let hook = cb.url.expect("hook url");
    for i in 0..events {
        let r = http()
            .post(&hook)
            .json(&json!({"type": "build.failed", "build": i}))
            .send()
            .await
            .expect("hook");
        assert_eq!(r.status(), 200);
    }
    let filter = NotificationFilter {
        destination_ids: vec![dest.clone()],
        ..Default::default()
    };
    // 20 attempts for each (the receiver is down), two at a time to one destination.
    eventually(Duration::from_secs(30), || async {
        let items = t.client.list_notifications(&q, &filter).await.ok()?.items;
        (items.len() == events && items.iter().all(|n| n.status.as_str() == "failed")).then_some(())
    })
    .await;
    let data = tempfile::tempdir().expect("data dir");
    World {
        data_dir: data.path().to_path_buf(),
        _data: data,
        t,
        rx,
        hook,
        dest,
    }
}

impl World {
    /// A console on the service, its journal in the test's data directory, on the real clock
    /// (the form's window counts back from now).
    async fn app(&self) -> App {
        let settings = Settings {
            data_dir: Some(self.data_dir.clone()),
            ..Settings::default()
        };
        let state =
            State::with_settings("test", self.t.svc.base_url.clone(), Clock::System, settings);
        let mut app = App::with_client(state, self.t.client.clone());
        app.apply(Msg::Resize(140, 40));
        app.start();
        settle(&mut app).await;
        app
    }
}

async fn press(app: &mut App, msg: Msg) {
    app.apply(msg);
    settle(app).await;
}

async fn typed(app: &mut App, text: &str) {
    crate::common::typed(app, text);
    settle(app).await;
}

/// The screen's rows that carry the mark glyph.
fn marked_rows(s: &str) -> usize {
    s.lines().filter(|l| l.contains('●')).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marks_survive_paging_and_recover_sends_each_selected_failed_delivery_once() {
    let w = world("in", 25).await;
    w.rx.up.store(true, Ordering::SeqCst);
    let mut app = w.app().await;
    // A pane of 20 rows: pages of 20 (a taller one asks for pages that fill it).
    app.apply(Msg::Resize(140, 26));
    // The destination's notifications.
    app.apply(ch(':'));
    typed(&mut app, &format!("goto {}", w.dest)).await;
    press(&mut app, key(KeyCode::Enter)).await;
    press(&mut app, ch('N')).await;
    let first_page = screen(&app);
    assert_eq!(marked_rows(&first_page), 0, "{first_page}");
    // Two on the first page (Space marks and moves on), one on the next.
    press(&mut app, ch(' ')).await;
    press(&mut app, ch(' ')).await;
    press(&mut app, ch(']')).await;
    press(&mut app, ch(' ')).await;
    let s = screen(&app);
    assert!(s.contains("3 marked"), "{s}");
    assert_eq!(marked_rows(&s), 1, "{s}");
    press(&mut app, ch('[')).await;
    let s = screen(&app);
    assert!(s.contains("3 marked"), "the count survives paging: {s}");
    assert_eq!(marked_rows(&s), 2, "the marks survive paging: {s}");
    assert!(s.contains("b recover…"), "the footer declares the key: {s}");

    // recover… on the marks: the count first, nothing sent yet.
    press(&mut app, ch('b')).await;
    let s = screen(&app);
    assert!(s.contains("Recover · 3 marked notifications"), "{s}");
    press(&mut app, key(KeyCode::Enter)).await;
    let s = screen(&app);
    assert!(s.contains("3 notifications selected"), "{s}");
    assert!(s.contains("3 to send to 127.0.0.1:"), "{s}");
    assert_eq!(w.rx.count("in"), 0, "the count sends nothing");
    press(&mut app, key(KeyCode::Enter)).await;
    let s = screen(&app);
    assert!(
        s.contains("3 sent: 3 succeeded, 0 failed, 0 unreachable"),
        "{s}"
    );
    assert_eq!(s.matches("SUCCEEDED").count(), 3, "{s}");
    let per = w.rx.per_notification("in");
    assert_eq!(per.len(), 3, "{per:?}");
    assert!(per.values().all(|n| *n == 1), "each once: {per:?}");
    // Enter opens a delivery's answer.
    press(&mut app, key(KeyCode::Enter)).await;
    let s = screen(&app);
    assert!(s.contains("RECOVERED FROM THIS MACHINE"), "{s}");
    assert!(s.contains("HTTP 200"), "{s}");
    press(&mut app, key(KeyCode::Esc)).await;
    press(&mut app, key(KeyCode::Esc)).await;
    let s = screen(&app);
    assert!(!s.contains("Recover ·"), "Esc closes the room: {s}");
    assert!(s.contains("3 marked"), "the marks stay: {s}");

    // recover… on the destination: its 25 failed deliveries counted, the 3 already sent skipped.
    app.apply(ch(':'));
    typed(&mut app, &format!("goto {}", w.dest)).await;
    press(&mut app, key(KeyCode::Enter)).await;
    press(&mut app, ch('b')).await;
    let s = screen(&app);
    assert!(s.contains("Recover · destination recover to in"), "{s}");
    press(&mut app, key(KeyCode::Enter)).await;
    let s = screen(&app);
    assert!(s.contains("25 notifications selected"), "{s}");
    assert!(s.contains("3 skipped: already succeeded"), "{s}");
    assert!(s.contains("22 to send"), "{s}");
    press(&mut app, key(KeyCode::Enter)).await;
    let s = screen(&app);
    assert!(s.contains("22 sent: 22 succeeded"), "{s}");
    let per = w.rx.per_notification("in");
    assert_eq!(per.len(), 25, "every failed delivery: {per:?}");
    assert!(per.values().all(|n| *n == 1), "each once: {per:?}");
    let _ = &w.hook;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_stops_a_run_after_the_requests_in_flight() {
    let w = world("slow", 6).await;
    w.rx.up.store(true, Ordering::SeqCst);
    w.rx.open.store(2, Ordering::SeqCst);
    let mut app = w.app().await;
    app.apply(ch(':'));
    typed(&mut app, &format!("goto {}", w.dest)).await;
    press(&mut app, key(KeyCode::Enter)).await;
    press(&mut app, ch('b')).await;
    press(&mut app, key(KeyCode::Enter)).await;
    let s = screen(&app);
    assert!(s.contains("6 to send"), "{s}");
    app.apply(key(KeyCode::Enter));
    // Two answered, two held in flight (two per host): keys stay live meanwhile.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while w.rx.count("slow") < 4 || !screen(&app).contains("2/6 sent") {
        assert!(tokio::time::Instant::now() < deadline, "{}", screen(&app));
        if let Ok(Some(msg)) =
            tokio::time::timeout(Duration::from_millis(50), app.next_reply()).await
        {
            app.apply(msg);
        }
    }
    app.apply(key(KeyCode::Down));
    app.apply(Msg::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)));
    let s = screen(&app);
    assert!(s.contains("stopping"), "{s}");
    w.rx.released.store(true, Ordering::SeqCst);
    w.rx.release.notify_waiters();
    settle(&mut app).await;
    let s = screen(&app);
    assert!(s.contains("4 sent: 4 succeeded"), "{s}");
    assert!(s.contains("stopped: 2 not sent"), "{s}");
    assert_eq!(w.rx.count("slow"), 4, "nothing starts after the stop");
    // The journal is kept: counting again leaves out what the stopped run sent.
    press(&mut app, key(KeyCode::Esc)).await;
    press(&mut app, ch('b')).await;
    press(&mut app, key(KeyCode::Enter)).await;
    let s = screen(&app);
    assert!(s.contains("4 skipped: already succeeded"), "{s}");
    assert!(s.contains("2 to send"), "{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hosts_not_this_machine_are_typed_and_refused_to_read_only_profiles() {
    let w = world("in", 2).await;
    let mut app = w.app().await;
    app.apply(ch(':'));
    typed(&mut app, &format!("goto {}", w.dest)).await;
    press(&mut app, key(KeyCode::Enter)).await;
    press(&mut app, ch('b')).await;
    // To a host that is not this machine: counted, then its name and the count typed.
    for _ in 0..2 {
        app.apply(key(KeyCode::Tab));
    }
    typed(&mut app, "https://hooks.example.invalid/in").await;
    press(&mut app, key(KeyCode::Enter)).await;
    let s = screen(&app);
    assert!(s.contains("2 to send to hooks.example.invalid (2)"), "{s}");
    press(&mut app, key(KeyCode::Enter)).await;
    let s = screen(&app);
    assert!(s.contains("Type the host name and the count"), "{s}");
    // The console's one confirmation asks: its box, and its keys in the footer.
    assert!(s.contains("Recover beyond this machine?"), "{s}");
    let footer = s.lines().last().unwrap_or_default();
    for hint in ["Enter confirm", "Esc back", "Ctrl-U clear"] {
        assert!(footer.contains(hint), "{hint} in the footer: {s}");
    }
    typed(&mut app, "hooks.example.invalid 3").await;
    press(&mut app, key(KeyCode::Enter)).await;
    let s = screen(&app);
    assert!(s.contains("not every host name and the count"), "{s}");
    // Esc cancels back to the count; nothing was sent.
    press(&mut app, key(KeyCode::Esc)).await;
    let s = screen(&app);
    assert!(!s.contains("Recover beyond this machine?"), "{s}");
    assert!(s.contains("2 to send to hooks.example.invalid (2)"), "{s}");
    // Asked again, the answer pasted (hosts and count in any order, case ignored): a profile
    // made read-only meanwhile is refused even so.
    press(&mut app, key(KeyCode::Enter)).await;
    press(&mut app, Msg::Paste("2, HOOKS.example.invalid".into())).await;
    let s = screen(&app);
    assert!(s.contains("2, HOOKS.example.invalid"), "pasted: {s}");
    app.state.read_only = true;
    press(&mut app, key(KeyCode::Enter)).await;
    let s = screen(&app);
    assert!(
        s.contains("refused: a read-only profile recovers only to this machine"),
        "{s}"
    );
    assert!(!s.contains("Recover beyond this machine?"), "{s}");
    app.state.read_only = false;
    // Back to the form; closed.
    press(&mut app, key(KeyCode::Esc)).await;
    assert!(!screen(&app).contains("Recover ·"));
    assert_eq!(w.rx.count("in"), 0);

    // A read-only profile: a remote target is refused; destinations' own URLs on this machine
    // are not.
    app.state.read_only = true;
    press(&mut app, ch('b')).await;
    for _ in 0..2 {
        app.apply(key(KeyCode::Tab));
    }
    typed(&mut app, "https://hooks.example.invalid/in").await;
    press(&mut app, key(KeyCode::Enter)).await;
    let s = screen(&app);
    assert!(
        s.contains("refused: a read-only profile recovers only to this machine"),
        "{s}"
    );
    assert!(!s.contains("to send"), "not even counted: {s}");
    app.apply(Msg::Key(KeyEvent::new(
        KeyCode::Char('u'),
        KeyModifiers::CONTROL,
    )));
    press(&mut app, key(KeyCode::Enter)).await;
    let s = screen(&app);
    assert!(s.contains("2 to send to 127.0.0.1:"), "{s}");
}

#[test]
fn a_range_and_all_loaded_rows_are_marked_and_all_again_clears_them() {
    let mut app = crate::common::started_app(120, 40);
    crate::common::answer_all(&mut app);
    app.apply(ch('5'));
    crate::common::answer_all(&mut app);
    // The fixture's page holds two notifications.
    app.apply(ch('*'));
    let s = screen(&app);
    assert!(s.contains("2 marked"), "{s}");
    assert_eq!(marked_rows(&s), 2, "{s}");
    app.apply(ch('*'));
    let s = screen(&app);
    assert!(!s.contains("marked"), "{s}");
    assert_eq!(marked_rows(&s), 0, "{s}");
    // Space marks the first and moves on; V marks from it to the row under the cursor.
    app.apply(ch(' '));
    assert_eq!(marked_rows(&screen(&app)), 1);
    app.apply(ch('V'));
    let s = screen(&app);
    assert!(s.contains("2 marked"), "{s}");
    // Space again unmarks.
    app.apply(ch(' '));
    assert!(screen(&app).contains("1 marked"));
}
