//! The one shared test harness (each test binary declares `mod common;`): `console` drives an
//! offline app with keys and canned replies, `service` starts the embedded service on a random
//! loopback port, `deliveries` adds a webhook receiver and real deliveries, `fake` is a recording
//! loopback server for the client and headless tests. `screen` draws an app as text.
#![allow(dead_code, unused_imports)] // each test binary uses a different part of it

pub mod console;
pub mod deliveries;
pub mod fake;
pub mod replay;
pub mod service;

pub use console::*;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use switchboard::console::App;

/// The app drawn at its own size, as text.
pub fn screen(app: &App) -> String {
    let (w, h) = app.state.size;
    screen_sized(app, w, h)
}

/// The app drawn at a given size, as text.
pub fn screen_sized(app: &App, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
    term.draw(|f| app.render(f)).expect("draw");
    term.backend().to_string()
}

/// The app drawn at its own size, as a buffer (styles included).
pub fn buffer(app: &App) -> Buffer {
    let (w, h) = app.state.size;
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
    term.draw(|f| app.render(f)).expect("draw");
    term.backend().buffer().clone()
}

/// The ids of the current tab's rows as shown (the filtered and sorted view).
pub fn shown_ids(app: &App) -> Vec<String> {
    let list = &app.state.current().list;
    list.shown().map(|r| r.id().to_string()).collect()
}

/// The ids of the current tab's rows as loaded (server order).
pub fn row_ids(app: &App) -> Vec<String> {
    let list = &app.state.current().list;
    list.rows.iter().map(|r| r.id().to_string()).collect()
}
