//! The real worker over real HTTP: a loopback server that holds one route until released shows
//! that keys are handled at once while a request hangs, and that errors name the needed key.

use std::time::{Duration, Instant};

use crate::common::*;
use switchboard::console::state::LoadState;
use switchboard::console::{Msg, Tab};

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
        *imports.rows[0].raw, raw["items"][0],
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
