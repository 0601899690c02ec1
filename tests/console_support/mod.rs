//! Shared helpers of the console tests: fixtures, a fixed clock, an offline app and replies.
#![allow(dead_code)]
use std::path::PathBuf;

use chrono::FixedOffset;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use switchboard::console::record::{decode_item_body, decode_page_body};
use switchboard::console::{ApiCmd, ApiReply, App, Clock, Msg, Request, State, Tab};

/// The text of a golden fixture.
pub fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The list and single-item fixtures of a tab.
pub fn fixtures_of(tab: Tab) -> (&'static str, &'static str) {
    match tab {
        Tab::Teams => ("team-list.json", "team.json"),
        Tab::Imports => ("import-list.json", "import.json"),
        Tab::Callbacks => ("callback-list.json", "callback.json"),
        Tab::Destinations => ("destination-list.json", "destination.json"),
        Tab::Notifications => ("notification-list.json", "notification.json"),
    }
}

/// 2025-10-24 16:05 UTC, shown at +02:00: half an hour after the fixtures were made.
pub fn fixed_clock() -> Clock {
    Clock::Fixed {
        now: switchboard::api::model::time::parse("2025-10-24T16:05:00Z").expect("time"),
        offset: FixedOffset::east_opt(2 * 3600).expect("offset"),
    }
}

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

/// Answers every pending request: lists with the tab's list fixture, gets with its item fixture.
pub fn answer_all(app: &mut App) -> Vec<Request> {
    let reqs = app.take_requests();
    for r in &reqs {
        let reply = match &r.cmd {
            ApiCmd::List { tab, .. } => page_reply(*tab, fixtures_of(*tab).0),
            ApiCmd::Get { tab, .. } => item_reply(*tab, fixtures_of(*tab).1),
        };
        app.apply(Msg::Api {
            req_id: r.req_id,
            result: Ok(reply),
        });
    }
    reqs
}

/// A key press without modifiers.
pub fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// A character key.
pub fn ch(c: char) -> Msg {
    key(KeyCode::Char(c))
}
