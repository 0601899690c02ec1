//! Every view takes `:` or ignores keys it does not own (#37 item 7): in an attempt view `w`
//! starts no watch on the list hidden behind it, and `:` opens the command line.
use crossterm::event::KeyCode;

use crate::common::{answer_all, ch, key, screen_sized, started_app};
use switchboard::console::App;

/// An offline app with the notification fixture's first attempt open.
fn attempt_open(w: u16, h: u16) -> App {
    let mut app = started_app(w, h);
    answer_all(&mut app);
    app.apply(ch('5'));
    answer_all(&mut app);
    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    app.apply(key(KeyCode::Enter));
    assert!(
        app.state.deliveries.attempt.is_some(),
        "the attempt view is open"
    );
    app
}

#[test]
fn w_in_an_attempt_view_starts_no_watch() {
    let mut app = attempt_open(120, 40);
    app.apply(ch('w'));
    let s = screen_sized(&app, 120, 40);
    assert!(
        !app.state.deliveries.watch.on,
        "the hidden list is watched: {s}"
    );
    assert!(!s.contains("Watching"), "{s}");
    assert!(app.state.deliveries.attempt.is_some(), "{s}");
}

#[test]
fn colon_in_an_attempt_view_opens_the_command_line() {
    for w in [40, 80, 120] {
        let mut app = attempt_open(w, 30);
        let s = screen_sized(&app, w, 30);
        // Narrower footers keep `? help` and `q quit`; `?` lists the key there.
        assert!(
            w < 80 || s.contains(": cmd"),
            "the footer offers `:` at {w}: {s}"
        );
        app.apply(ch(':'));
        let s = screen_sized(&app, w, 30);
        let footer = s.lines().last().unwrap_or_default();
        assert!(
            footer.trim_start_matches('"').starts_with(':'),
            "the command line is open at {w}: {s}"
        );
        app.apply(key(KeyCode::Esc));
        assert!(
            app.state.deliveries.attempt.is_some(),
            "Esc leaves the prompt only"
        );
    }
}
