//! Watch mode: ticks reload the notifications list only while watching and not paused, errors
//! back off, and on a real service new deliveries appear without a key press.

use crate::common::screen;

use std::time::Duration;

use crate::common::{answer_all, ch, key, page_reply, started_app};
use crossterm::event::KeyCode;
use switchboard::api::Error;
use switchboard::console::{ApiCmd, App, Msg, Tab};

/// An offline app on the Notifications list, loaded from the fixture.
fn on_notifications() -> App {
    // The preview beside the list, where the list's title shows while a detail is open.
    let mut app = started_app(crate::console::layout::preview_from(Tab::Notifications), 40);
    answer_all(&mut app);
    app.apply(ch('5'));
    answer_all(&mut app);
    app
}

fn ticks(app: &mut App, n: u32) {
    for _ in 0..n {
        app.apply(Msg::Tick);
    }
}

fn list_requests(app: &mut App) -> Vec<u64> {
    app.take_requests()
        .into_iter()
        .filter(|r| {
            matches!(
                r.cmd,
                ApiCmd::List {
                    tab: Tab::Notifications,
                    ..
                }
            )
        })
        .map(|r| r.req_id)
        .collect()
}

#[test]
fn ticks_reload_only_while_watching_and_not_paused() {
    let mut app = on_notifications();
    ticks(&mut app, 30);
    assert!(list_requests(&mut app).is_empty(), "no watch, no reload");
    app.state.toasts.clear();
    assert!(!app.state.animating(), "no tick runs without watching");

    app.apply(ch('w'));
    app.state.toasts.clear();
    assert!(app.state.deliveries.watch.on);
    assert!(app.state.animating(), "watching needs ticks");
    let every = app.state.settings.watch_every_ticks;
    assert_eq!(u64::from(every) * 200, 2000, "every 2 s by default");
    ticks(&mut app, every - 1);
    assert!(list_requests(&mut app).is_empty());
    ticks(&mut app, 1);
    let reqs = list_requests(&mut app);
    assert_eq!(reqs.len(), 1, "one reload when due");
    app.apply(Msg::Api {
        req_id: reqs[0],
        pane: switchboard::console::Pane::List(Tab::Notifications),
        result: Ok(page_reply(Tab::Notifications, "notification-list.json")),
    });

    // A detail pauses watching: no requests, and no ticks needed.
    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    assert!(!app.state.animating(), "paused: no ticks");
    ticks(&mut app, every * 5);
    assert!(
        list_requests(&mut app).is_empty(),
        "paused while a detail is open"
    );
    let s = screen(&app);
    assert!(s.contains("live (paused)"), "{s}");
    app.apply(key(KeyCode::Esc));
    ticks(&mut app, every);
    assert_eq!(
        list_requests(&mut app).len(),
        1,
        "resumes after the detail closes"
    );

    // Turning it off stops requests.
    app.apply(ch('w'));
    ticks(&mut app, every * 5);
    assert!(list_requests(&mut app).is_empty());
}

#[test]
fn errors_back_off() {
    let mut app = on_notifications();
    app.apply(ch('w'));
    let every = app.state.settings.watch_every_ticks;
    ticks(&mut app, every);
    let req = list_requests(&mut app);
    app.apply(Msg::Api {
        req_id: req[0],
        pane: switchboard::console::Pane::List(Tab::Notifications),
        result: Err(Error::Invalid("boom".into())),
    });
    // The failure is seen at the next refresh, which waits twice as long afterwards.
    ticks(&mut app, every);
    let req = list_requests(&mut app);
    assert_eq!(req.len(), 1);
    assert_eq!(app.state.deliveries.watch.backoff, 2);
    app.apply(Msg::Api {
        req_id: req[0],
        pane: switchboard::console::Pane::List(Tab::Notifications),
        result: Err(Error::Invalid("boom".into())),
    });
    ticks(&mut app, every * 2 - 1);
    assert!(list_requests(&mut app).is_empty(), "backed off");
    ticks(&mut app, 1);
    assert_eq!(list_requests(&mut app).len(), 1);
    assert_eq!(app.state.deliveries.watch.backoff, 4);
}

#[tokio::test]
async fn new_deliveries_appear_without_a_key_press() {
    let w = crate::common::deliveries::world().await;
    w.fire(1).await;
    let mut app = w.app().await;
    // Follow the healthy destination: a small list that this test controls.
    app.apply(ch('4'));
    crate::common::deliveries::settle(&mut app).await;
    let rows = &app.state.current().list.rows;
    let pos = rows
        .iter()
        .position(|r| r.id() == w.healthy)
        .expect("listed");
    for _ in 0..pos {
        app.apply(ch('j'));
    }
    app.apply(ch('N'));
    crate::common::deliveries::settle(&mut app).await;
    assert_eq!(app.state.current().list.rows.len(), 1);
    app.apply(ch('w'));
    app.state.settings.watch_every_ticks = 1;
    w.fire(2).await;

    // The event loop's tick (only while animating) and replies; no keys from here on.
    let mut tick = tokio::time::interval(switchboard::console::settings::TICK);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while app.state.current().list.rows.len() < 2 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "new row within 10 s"
        );
        let animating = app.state.animating();
        let msg = tokio::select! {
            Some(m) = app.next_reply() => m,
            _ = tick.tick(), if animating => Msg::Tick,
        };
        app.apply(msg);
    }
    // The next tick marks the new row.
    app.apply(Msg::Tick);
    let newest = app
        .state
        .current()
        .list
        .rows
        .iter()
        .map(|r| r.id().to_string())
        .find(|id| app.state.deliveries.watch.flash.contains_key(id));
    assert!(newest.is_some(), "the new row is highlighted");
    assert!(screen(&app).contains("● live"));
}
