//! Issue 37 item 9: one masking verdict per answer. An own receiver's header (a replay to a
//! loopback receiver) shows in the replay room and, the same answer, in compare beside the
//! recorded attempt; its cookie stays masked in both; the recorded attempt fails closed.
use crate::common;

use common::deliveries::{fixed_clock, settle};
use common::replay::{World, got, receiver, world};
use common::{ch, ctrl, key, screen, typed};
use crossterm::event::KeyCode;
use switchboard::console::{App, Msg, State};

async fn console(w: &World, width: u16, height: u16) -> App {
    let state = State::new("test", w.t.svc.base_url.clone(), fixed_clock());
    let mut app = App::with_client(state, w.t.client.clone());
    app.apply(Msg::Resize(width, height));
    app.start();
    settle(&mut app).await;
    app.apply(ch(':'));
    typed(&mut app, &format!("goto {}", w.n.id));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    app
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_own_receivers_header_keeps_its_verdict_from_the_replay_room_to_compare() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let mut app = console(&w, 120, 40).await;
    app.apply(ch('E'));
    app.apply(ctrl('u'));
    typed(&mut app, &format!("{rx}/fail"));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    let body = app.take_editor().expect("the editor is asked for");
    app.apply(Msg::Edited(Ok(body.replace("42", "43"))));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    assert_eq!(got(&log, "fail").len(), 1, "sent once");

    // Compare is open: the replayed answer's own header shows as the replay room showed it.
    assert!(app.state.compare.overlay.is_some(), "{}", screen(&app));
    let s = screen(&app);
    let row = s
        .lines()
        .find(|l| l.contains("x-receiver"))
        .unwrap_or_else(|| panic!("an x-receiver row: {s}"));
    assert!(
        row.contains("rx-own-1"),
        "the own receiver's verdict kept: {s}"
    );
    assert!(!s.contains("RECEIVER_SECRET_42"), "{s}");

    let cookie = s
        .lines()
        .find(|l| l.contains("set-cookie"))
        .unwrap_or_else(|| panic!("a set-cookie row: {s}"));
    assert!(cookie.contains("••••••••"), "{s}");
}
