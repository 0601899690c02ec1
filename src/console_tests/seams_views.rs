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

/// An attempt whose response alone carries a secret header: "R reveals" stands over the
/// response's headers, where the masked value is (#37 item 9).
#[test]
fn r_reveals_stands_where_the_masked_value_is() {
    use switchboard::console::Tab;
    use switchboard::console::record::Item;
    for w in [60, 120, 200] {
        let mut app = started_app(w, 60);
        answer_all(&mut app);
        app.apply(ch('5'));
        answer_all(&mut app);
        app.apply(key(KeyCode::Enter));
        answer_all(&mut app);
        let detail = app.state.tab_state_mut(Tab::Notifications).detail.as_mut();
        let record = detail.and_then(|d| d.record.as_mut()).expect("detail open");
        if let Item::Notification(n) = &mut record.item {
            for a in &mut std::sync::Arc::make_mut(n).attempts {
                if let Some(r) = a.webhook_request.as_mut() {
                    r.request_headers
                        .retain(|k, _| switchboard::text::redact::header_is_safe(k));
                    r.response_headers
                        .insert("Set-Cookie".into(), "session=zqSECRET123".into());
                }
            }
        }
        app.apply(key(KeyCode::Enter));
        let s = screen_sized(&app, w, 60);
        let line = |what: &str| {
            s.lines()
                .find(|l| l.contains(what))
                .unwrap_or_default()
                .to_string()
        };
        assert!(
            line("Response headers").contains("R reveals"),
            "at {w}:\n{s}"
        );
        assert!(
            !line("Request headers").contains("R reveals"),
            "at {w}:\n{s}"
        );
        assert!(!s.contains("zqSECRET123"), "{s}");
    }
}
