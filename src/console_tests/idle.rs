//! The idle oracle (`App::is_idle`, `App::settle`) answers from what the worker really has in
//! flight: a loopback server holds one lookup until released, and the app is busy for as long as
//! that lookup runs, whether or not any pane still waits for it.

use tokio::sync::{mpsc, watch};

use axum::Router;
use axum::routing::get;
use crossterm::event::KeyCode;

use crate::common::*;
use switchboard::console::Tab;
use switchboard::console::harness::Harness;

/// A loopback server answering the teams list and team roles from the fixtures, and holding
/// the projects lookup until the gate opens.
async fn projects_held() -> Server {
    let (arrived_tx, arrived) = mpsc::unbounded_channel();
    let (gate, gate_rx) = watch::channel(false);
    let json = |file: &'static str| {
        move || async move { ([("content-type", "application/json")], fixture(file)) }
    };
    let projects = move || {
        let arrived_tx = arrived_tx.clone();
        let mut gate_rx = gate_rx.clone();
        async move {
            let _ = arrived_tx.send(());
            let _ = gate_rx.wait_for(|open| *open).await;
            (
                [("content-type", "application/json")],
                fixture("project-list.json"),
            )
        }
    };
    let app = Router::new()
        .route("/organization/teams", get(json("team-list.json")))
        .route("/organization/team-roles", get(json("team-role-list.json")))
        .route("/organization/projects", get(projects));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Server {
        addr,
        arrived,
        gate,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_forms_lookup_still_running_keeps_the_app_busy() {
    let mut server = projects_held().await;
    let mut app = app_for(&server);
    app.start();
    settle(&mut app).await;
    assert!(screen(&app).contains("Platform"), "{}", screen(&app));

    // `p` on a team opens "Set project roles", which looks up projects (held) and roles.
    app.apply(ch('p'));
    arrived(&mut server).await;
    let roles = next_reply(&mut app).await;
    app.apply(roles);
    assert!(screen(&app).contains("Set project roles"));
    // Closed untouched: nothing on screen waits for the lookup any more, but it still runs.
    app.apply(key(KeyCode::Esc));
    assert!(!screen(&app).contains("Set project roles"));
    assert!(!app.is_idle(), "the projects lookup is still in flight");

    server.gate.send_replace(true);
    settle(&mut app).await;
    assert!(app.is_idle());
    // Its late answer is dropped: no dialog comes back.
    assert!(!screen(&app).contains("Set project roles"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settling_ends_when_a_held_request_is_superseded() {
    let mut server = start_server().await;
    let mut app = app_for(&server);
    app.start();
    arrived(&mut server).await;
    // A reload supersedes the held teams request: the first never answers, and waiting for
    // idle must not wait for it.
    app.apply(ch('r'));
    arrived(&mut server).await;
    assert!(!app.is_idle());
    server.gate.send_replace(true);
    settle(&mut app).await;
    assert!(app.is_idle());
    assert!(screen(&app).contains("Platform"), "{}", screen(&app));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_harness_drives_the_console_on_the_local_service() {
    let t = crate::common::service::demo().await;
    let key = t.svc.api_key.clone();
    let mut h = Harness::connect("test", &t.svc.base_url, key, fixed_clock(), (120, 40))
        .expect("a client for the local service");
    assert!(!h.is_idle(), "the first list is requested at start");
    h.settle().await.expect("idle");
    let first = h.selected_id().expect("a team selected");
    assert!(h.screen().contains("Teams"), "{}", h.screen());
    h.press(KeyCode::Enter).await.expect("idle");
    assert!(h.screen().contains(&first), "{}", h.screen());
    h.press(KeyCode::Char('2')).await.expect("idle");
    assert_eq!(h.tab(), Tab::Imports);
    assert!(h.is_idle());
}
