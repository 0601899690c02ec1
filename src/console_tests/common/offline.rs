//! The console tests' offline app and canned replies, and a loopback server that holds
//! requests until the test lets them go.
use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use switchboard::api::{Client, ClientOptions, Secret};
use tokio::sync::{mpsc, watch};

use super::console::{fixed_clock, fixture, fixtures_of};
use switchboard::console::record::{decode_item_body, decode_page_body};
use switchboard::console::{ApiCmd, ApiReply, App, Msg, Request, State, Tab};

/// An offline app of the given size, started (the Teams list request is pending).
pub fn started_app(w: u16, h: u16) -> App {
    let mut app = App::offline(State::new("test", "http://127.0.0.1:9", fixed_clock()));
    app.apply(Msg::Resize(w, h));
    app.start();
    app
}

/// A page reply decoded from a fixture, the way the worker decodes it.
pub fn page_reply(tab: Tab, file: &str) -> ApiReply {
    ApiReply::Page(decode_page_body(tab, 200, &fixture(file)).expect("fixture page decodes"))
}

/// An item reply decoded from a fixture.
pub fn item_reply(tab: Tab, file: &str) -> ApiReply {
    ApiReply::Item(decode_item_body(tab, 200, &fixture(file)).expect("fixture item decodes"))
}

/// The members of the member-list fixture, the way the worker hands them over.
pub fn members_reply() -> ApiReply {
    let page: switchboard::api::Page<switchboard::api::model::Member> =
        serde_json::from_str(&fixture("member-list.json")).expect("member fixture decodes");
    ApiReply::Members(page.items)
}

/// The fixture's answer to a read: a list's page, an item, the members; `None` for anything
/// else (writes, lookups), which a test answers itself.
pub fn fixture_reply(cmd: &ApiCmd) -> Option<ApiReply> {
    Some(match cmd {
        ApiCmd::List { tab, .. } | ApiCmd::ListAround { tab, .. } => {
            page_reply(*tab, fixtures_of(*tab).0)
        }
        ApiCmd::Get { tab, .. } => item_reply(*tab, fixtures_of(*tab).1),
        ApiCmd::Members => members_reply(),
        _ => return None,
    })
}

/// Answers every pending request: lists with the tab's list fixture, gets with its item fixture,
/// the members with the member-list fixture (also when a reply asks for them in turn).
pub fn answer_all(app: &mut App) -> Vec<Request> {
    let mut all = Vec::new();
    let mut first = true;
    loop {
        let reqs = app.take_requests();
        let mut answered = false;
        for r in &reqs {
            if !first && !matches!(r.cmd, ApiCmd::Members) {
                continue;
            }
            // Form writes and lookups are answered by the forms tests themselves.
            let Some(reply) = fixture_reply(&r.cmd) else {
                continue;
            };
            answered = true;
            app.apply(Msg::Api {
                req_id: r.req_id,
                pane: r.pane,
                result: Ok(reply),
            });
        }
        all.extend(reqs);
        first = false;
        if !answered {
            return all;
        }
    }
}

/// Bound on any wait in these tests; replies normally arrive in milliseconds.
pub const DEADLINE: Duration = Duration::from_secs(10);

pub struct Server {
    pub addr: SocketAddr,
    /// One message per teams request that reached the server.
    pub arrived: mpsc::UnboundedReceiver<()>,
    /// Set to true to let held teams requests answer.
    pub gate: watch::Sender<bool>,
}

/// A loopback server: teams held until the gate opens, imports at once, callbacks 401.
pub async fn start_server() -> Server {
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

/// An app with a real worker on a client for the server.
pub fn app_for(server: &Server) -> App {
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

/// Applies replies until the app is idle (`App::settle`: whatever the worker has in flight,
/// profiles resolving included), within the deadline. The one wait of the console tests.
pub async fn settle(app: &mut App) {
    tokio::time::timeout(DEADLINE, app.settle())
        .await
        .expect("idle within the deadline");
}

/// The next worker reply, within the deadline.
pub async fn next_reply(app: &mut App) -> Msg {
    tokio::time::timeout(DEADLINE, app.next_reply())
        .await
        .expect("a reply within the deadline")
        .expect("the worker is running")
}

/// Waits until a teams request reached the server.
pub async fn arrived(server: &mut Server) {
    tokio::time::timeout(DEADLINE, server.arrived.recv())
        .await
        .expect("request reached the server")
        .expect("server running");
}

/// A key press without modifiers.
pub fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// A character key.
pub fn ch(c: char) -> Msg {
    key(KeyCode::Char(c))
}

/// The last "a–b of n" on a screen, a scrolled view's bottom line: (a, b, n).
pub fn scroll_range(screen: &str) -> Option<(usize, usize, usize)> {
    screen.rmatch_indices(" of ").find_map(|(i, _)| {
        let n = screen[i + 4..]
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()?;
        let (a, b) = screen[..i]
            .rsplit(|c: char| !(c.is_ascii_digit() || c == '–'))
            .next()?
            .split_once('–')?;
        Some((a.parse().ok()?, b.parse().ok()?, n))
    })
}
