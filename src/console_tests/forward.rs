//! The forward room (`L`) against the local service over loopback: opened on a destination, the
//! target typed, started; events posted reach a loopback receiver and the live list;
//! `Enter` opens an answer; `s` stops; events posted while stopped are caught up on the next start
//! (the profile's cursor and journal in a data directory); `=` on a forwarded answer compares it
//! with the recorded attempt side by side. Keys in, rendered screen out.

use std::time::{Duration, Instant};

use crate::common::replay::{got, receiver};
use crate::common::service::{http, manual_callback, start_with};
use crate::common::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use switchboard::api::model::{CallbacksInput, CreateDestination};
use switchboard::api::{Client, ClientOptions};
use switchboard::console::Settings;
use switchboard::console::{App, Msg, State};
use switchboard::service::{Seed, ServiceConfig};

/// Applies worker replies until the screen shows `text` (bounded).
async fn until_screen(app: &mut App, text: &str) {
    let end = Instant::now() + Duration::from_secs(30);
    while !screen(app).contains(text) {
        assert!(
            Instant::now() < end,
            "never showed {text:?}:\n{}",
            screen(app)
        );
        if let Ok(Some(m)) = tokio::time::timeout(Duration::from_secs(1), app.next_reply()).await {
            app.apply(m);
        }
    }
}

async fn fire(hook: &str, i: usize) {
    let r = http()
        .post(hook)
        .json(&serde_json::json!({"type": format!("build.step{i}"), "n": i}))
        .send()
        .await
        .expect("hook");
    assert_eq!(r.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_forward_room_follows_shows_answers_stops_and_catches_up() {
    let (rx, log) = receiver().await;
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    let t = start_with(cfg).await;
    let cb = manual_callback(&t.client).await;
    let dest = t
        .client
        .create_destination(&CreateDestination {
            name: "The platform's receiver".into(),
            description: None,
            url: format!("{rx}/platform"),
            callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
        })
        .await
        .expect("destination");
    let hook = cb.url.expect("hook url");
    let data = tempfile::tempdir().expect("data dir");
    let settings = Settings {
        data_dir: Some(data.path().to_path_buf()),
        ..Settings::default()
    };
    let client = Client::new(ClientOptions {
        base_url: t.svc.base_url.clone(),
        api_key: t.svc.api_key.clone(),
        ..ClientOptions::default()
    })
    .expect("client");
    let state = State::with_settings("test", t.svc.base_url.clone(), fixed_clock(), settings);
    let mut app = App::with_client(state, client);
    app.apply(Msg::Resize(120, 40));
    app.start();
    // Opened on the destination: its notifications only (the demo's others go elsewhere).
    app.apply(ch(':'));
    for c in format!("goto {}", dest.id).chars() {
        app.apply(ch(c));
    }
    app.apply(key(KeyCode::Enter));
    until_screen(&mut app, "The platform's receiver").await;
    app.apply(ch('L'));
    until_screen(&mut app, &format!("Forward · destination {}", dest.id)).await;
    assert!(screen(&app).contains("not started: Enter starts"));
    app.apply(Msg::Key(KeyEvent::new(
        KeyCode::Char('u'),
        KeyModifiers::CONTROL,
    )));
    for c in format!("{rx}/fwd").chars() {
        app.apply(ch(c));
    }
    app.apply(key(KeyCode::Enter));
    until_screen(&mut app, "following").await;
    assert!(screen(&app).contains("s stop"), "{}", screen(&app));

    fire(&hook, 0).await;
    fire(&hook, 1).await;
    until_screen(&mut app, "2 forwarded").await;
    let s = screen(&app);
    assert!(
        s.contains("build.step0") && s.contains("build.step1"),
        "{s}"
    );
    assert!(s.contains("200"), "{s}");
    assert_eq!(got(&log, "fwd").len(), 2, "each forwarded once");

    // Keys stay live while it follows: the newest answer opens and closes.
    app.apply(key(KeyCode::Enter));
    let s = screen(&app);
    assert!(s.contains("Answer to cbn_") && s.contains("thanks"), "{s}");

    // `=` on the forwarded answer: the recorded attempt is offered; chosen, side by side.
    app.apply(ch('='));
    until_screen(&mut app, "attempt #1 · status 200").await;
    assert!(
        screen(&app).contains("Compare forwarded "),
        "{}",
        screen(&app)
    );
    app.apply(key(KeyCode::Enter));
    let s = screen(&app);
    for want in [
        "HEADERS",
        "BODY (lines)",
        "thanks",
        "attempt #1",
        "│ forwarded ",
    ] {
        assert!(s.contains(want), "{want:?} in:\n{s}");
    }
    app.apply(key(KeyCode::Esc));
    assert!(
        screen(&app).contains("Compare forwarded "),
        "back to the choice"
    );
    app.apply(key(KeyCode::Esc));
    assert!(
        screen(&app).contains("Answer to cbn_"),
        "closed: the answer again"
    );
    app.apply(key(KeyCode::Esc));
    assert!(screen(&app).contains("2 forwarded"));

    app.apply(ch('s'));
    assert!(screen(&app).contains("stopped"), "{}", screen(&app));
    fire(&hook, 2).await;
    crate::common::service::eventually(Duration::from_secs(30), || async {
        (got(&log, "platform").len() == 3).then_some(())
    })
    .await;
    assert_eq!(got(&log, "fwd").len(), 2, "nothing forwarded while stopped");

    // Started again: what came meanwhile is caught up, once.
    app.apply(key(KeyCode::Tab));
    app.apply(key(KeyCode::Enter));
    until_screen(&mut app, "3 forwarded").await;
    until_screen(&mut app, "last catch-up 1 forwarded").await;
    assert_eq!(got(&log, "fwd").len(), 3, "the missed one, once");
    app.apply(key(KeyCode::Esc));
    assert!(!screen(&app).contains("Forward ·"), "Esc stops and closes");
}

/// A receiver whose first answer is a JSON 500, then JSON 200s.
async fn flaky_receiver() -> String {
    use axum::http::StatusCode;
    use axum::response::IntoResponse;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let calls = Arc::new(AtomicUsize::new(0));
    let app = axum::Router::new().route(
        "/flaky",
        axum::routing::post(move || {
            let calls = calls.clone();
            async move {
                let first = calls.fetch_add(1, Ordering::SeqCst) == 0;
                let (status, ok) = if first {
                    (StatusCode::INTERNAL_SERVER_ERROR, false)
                } else {
                    (StatusCode::OK, true)
                };
                (status, axum::Json(serde_json::json!({"ok": ok, "n": 1}))).into_response()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compare_on_an_attempt_shows_the_other_attempt_side_by_side() {
    let rx = flaky_receiver().await;
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    cfg.retry_base = Duration::from_millis(20);
    let t = start_with(cfg).await;
    let cb = manual_callback(&t.client).await;
    let dest = t
        .client
        .create_destination(&CreateDestination {
            name: "Flaky".into(),
            description: None,
            url: format!("{rx}/flaky"),
            callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
        })
        .await
        .expect("destination");
    fire(&cb.url.expect("hook url"), 0).await;
    let filter = switchboard::api::NotificationFilter {
        destination_ids: vec![dest.id.clone()],
        ..Default::default()
    };
    let n = crate::common::service::eventually(Duration::from_secs(30), || async {
        let page = t
            .client
            .list_notifications(&Default::default(), &filter)
            .await
            .ok()?;
        let n = page.items.into_iter().next()?;
        (n.attempts.len() == 2).then_some(n)
    })
    .await;
    let client = Client::new(ClientOptions {
        base_url: t.svc.base_url.clone(),
        api_key: t.svc.api_key.clone(),
        ..ClientOptions::default()
    })
    .expect("client");
    let state = State::new("test", t.svc.base_url.clone(), fixed_clock());
    let mut app = App::with_client(state, client);
    app.apply(Msg::Resize(120, 40));
    app.start();
    app.apply(ch(':'));
    for c in format!("goto {}", n.id).chars() {
        app.apply(ch(c));
    }
    app.apply(key(KeyCode::Enter));
    until_screen(&mut app, "Attempts (2").await;
    // The attempt under the detail's cursor opens; `=` offers the other one.
    app.apply(key(KeyCode::Enter));
    app.apply(ch('='));
    // The detail's cursor starts on #1: the other is #2.
    until_screen(&mut app, "Compare attempt #1 with…").await;
    until_screen(&mut app, "attempt #2 · status 200").await;
    app.apply(key(KeyCode::Enter));
    let s = screen(&app);
    for want in [
        "BODY (JSON)",
        "$.ok",
        "status 500",
        "status 200",
        "~ answer",
    ] {
        assert!(s.contains(want), "{want:?} in:\n{s}");
    }
    app.apply(ch('='));
    assert!(!screen(&app).contains("Compare ·"), "= closes it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_forward_room_takes_the_scope_of_where_it_is_opened() {
    let t = crate::common::service::demo().await;
    let cb = manual_callback(&t.client).await;
    let client = Client::new(ClientOptions {
        base_url: t.svc.base_url.clone(),
        api_key: t.svc.api_key.clone(),
        ..ClientOptions::default()
    })
    .expect("client");
    let state = State::new("test", t.svc.base_url.clone(), fixed_clock());
    let mut app = App::with_client(state, client);
    app.apply(Msg::Resize(120, 40));
    app.start();
    until_screen(&mut app, "Teams ·").await;
    app.apply(ch('L'));
    assert!(!screen(&app).contains("Forward ·"), "not from Teams");

    app.apply(ch(':'));
    for c in format!("goto {}", cb.id).chars() {
        app.apply(ch(c));
    }
    app.apply(key(KeyCode::Enter));
    until_screen(&mut app, &cb.id).await;
    app.apply(ch('L'));
    let s = screen(&app);
    assert!(s.contains(&format!("Forward · callback {}", cb.id)), "{s}");
    // A host that is not this machine is refused in the console.
    app.apply(Msg::Key(KeyEvent::new(
        KeyCode::Char('u'),
        KeyModifiers::CONTROL,
    )));
    for c in "https://hooks.example/in".chars() {
        app.apply(ch(c));
    }
    app.apply(key(KeyCode::Enter));
    let s = screen(&app);
    assert!(s.contains("this machine only"), "{s}");
    assert!(s.contains("not started"), "{s}");
    app.apply(key(KeyCode::Esc));

    app.apply(ch('5'));
    until_screen(&mut app, "Notifications ·").await;
    app.apply(ch('L'));
    assert!(screen(&app).contains("Forward · all notifications"));
}
