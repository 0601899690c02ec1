//! The real worker over real HTTP: a loopback server that holds one route until released shows
//! that keys are handled at once while a request hangs, and that errors name the needed key.
mod console_support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use console_support::*;
use switchboard::api::{Client, ClientOptions, Secret};
use switchboard::console::state::LoadState;
use switchboard::console::{App, Msg, State, Tab};
use tokio::sync::{mpsc, watch};

/// Bound on any wait in these tests; replies normally arrive in milliseconds.
const DEADLINE: Duration = Duration::from_secs(10);

struct Server {
    addr: SocketAddr,
    /// One message per teams request that reached the server.
    arrived: mpsc::UnboundedReceiver<()>,
    /// Set to true to let held teams requests answer.
    gate: watch::Sender<bool>,
}

async fn start_server() -> Server {
    let (arrived_tx, arrived) = mpsc::unbounded_channel();
    let (gate, gate_rx) = watch::channel(false);
    let teams = move || {
        let arrived_tx = arrived_tx.clone();
        let mut gate_rx = gate_rx.clone();
        async move {
            let _ = arrived_tx.send(());
            let _ = gate_rx.wait_for(|open| *open).await;
            (
                [("content-type", "application/json")],
                fixture("team-list.json"),
            )
        }
    };
    let imports = || async {
        (
            [("content-type", "application/json")],
            fixture("import-list.json"),
        )
    };
    let callbacks = || async {
        (
            StatusCode::UNAUTHORIZED,
            [("content-type", "application/json")],
            fixture("error-unauthorized.json"),
        )
    };
    let app = Router::new()
        .route("/organization/teams", get(teams))
        .route("/provider-oauth/token-imports", get(imports))
        .route("/callbacks", get(callbacks));
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

fn app_for(server: &Server) -> App {
    let client = Client::new(ClientOptions {
        base_url: format!("http://{}", server.addr),
        api_key: Secret::new("sk_test_console_worker"),
        max_retries: 0,
        ..ClientOptions::default()
    })
    .expect("client");
    let mut app = App::with_client(
        State::new("test", format!("http://{}", server.addr), fixed_clock()),
        client,
    );
    app.apply(Msg::Resize(120, 40));
    app
}

async fn next_reply(app: &mut App) -> Msg {
    tokio::time::timeout(DEADLINE, app.next_reply())
        .await
        .expect("a reply within the deadline")
        .expect("the worker is running")
}

async fn arrived(server: &mut Server) {
    tokio::time::timeout(DEADLINE, server.arrived.recv())
        .await
        .expect("request reached the server")
        .expect("server running");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_are_handled_while_a_request_hangs() {
    let mut server = start_server().await;
    let mut app = app_for(&server);
    app.start();
    arrived(&mut server).await;

    // The teams request is held by the server; keys still take effect at once.
    let started = Instant::now();
    app.apply(ch('j'));
    app.apply(ch('?'));
    app.apply(ch('?'));
    app.apply(ch('2'));
    assert!(started.elapsed() < Duration::from_millis(500));
    assert_eq!(app.state.tab, Tab::Imports);
    assert_eq!(
        app.state.tab_state(Tab::Teams).list.load,
        LoadState::Loading
    );

    // Another tab's request completes while the first still hangs.
    let msg = next_reply(&mut app).await;
    app.apply(msg);
    let imports = &app.state.tab_state(Tab::Imports).list;
    assert_eq!(imports.load, LoadState::Loaded);
    assert_eq!(imports.rows.len(), 2);
    let raw: serde_json::Value = serde_json::from_str(&fixture("import-list.json")).expect("json");
    assert_eq!(
        imports.rows[0].raw, raw["items"][0],
        "raw JSON kept as received"
    );
    assert_eq!(app.state.in_flight(), 1);

    // A 401 names the key the tab needs.
    app.apply(ch('3'));
    let msg = next_reply(&mut app).await;
    app.apply(msg);
    let LoadState::Error(e) = &app.state.tab_state(Tab::Callbacks).list.load else {
        panic!("expected an error")
    };
    assert_eq!(e.status, Some(401));
    assert!(
        e.hint
            .as_deref()
            .unwrap_or("")
            .contains("instance secret key")
    );

    // Released, the teams page lands in its tab although another tab is on screen.
    server.gate.send_replace(true);
    let msg = next_reply(&mut app).await;
    app.apply(msg);
    let teams = &app.state.tab_state(Tab::Teams).list;
    assert_eq!(teams.load, LoadState::Loaded);
    assert_eq!(teams.rows.len(), 2);
    assert_eq!(app.state.in_flight(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newer_request_supersedes_a_hung_one() {
    let mut server = start_server().await;
    let mut app = app_for(&server);
    app.start();
    arrived(&mut server).await;
    app.apply(ch('r'));
    arrived(&mut server).await;
    let newest = app
        .state
        .tab_state(Tab::Teams)
        .list
        .pending
        .as_ref()
        .map(|p| p.req_id)
        .expect("pending");
    server.gate.send_replace(true);
    let Msg::Api { req_id, .. } = next_reply(&mut app).await else {
        panic!("expected an API reply")
    };
    assert_eq!(req_id, newest, "only the newest request answers");
}
