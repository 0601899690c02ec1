//! A saved view's `since` in the console (issue 38): `:view today` opens the notifications
//! list's time window (since midnight UTC by the console's clock), the title says so, and rows
//! created before it are left out; `l` back to "all" closes it.
use crossterm::event::KeyCode;
use switchboard::console::power::PowerSetup;
use switchboard::console::{App, Clock, Msg, State};

use crate::common::deliveries::{World, settle, world};
use crate::common::{ch, key, screen, typed};

/// A console on the world at `now` (UTC), on the notifications tab after `:view today`.
async fn today_at(w: &World, now: chrono::DateTime<chrono::Utc>) -> App {
    let clock = Clock::Fixed {
        now,
        offset: chrono::FixedOffset::east_opt(0).expect("offset"),
    };
    let mut state = State::new("test", w.t.svc.base_url.clone(), clock);
    PowerSetup::default().configure(&mut state);
    let mut app = App::with_client(state, w.t.client.clone());
    app.apply(Msg::Resize(200, 40));
    app.start();
    settle(&mut app).await;
    app.apply(ch(':'));
    typed(&mut app, "view today");
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    app
}

fn title(app: &App) -> String {
    screen(app)
        .lines()
        .find(|l| l.contains("Notifications ·"))
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_today_view_opens_the_lists_time_window() {
    let w = world().await;
    w.fire(1).await;
    let newest = w.notifications_of(&w.down).await;
    let created = newest.first().expect("a delivery").created_at;

    // The same day: the delivery just made is in the window.
    let mut a = today_at(&w, created).await;
    let midnight = created.format("%Y-%m-%d 00:00").to_string();
    assert!(
        title(&a).contains(&format!("[since {midnight}]")),
        "{}",
        screen(&a)
    );
    assert!(screen(&a).contains("Orders down"), "{}", screen(&a));

    // A day later, "today" starts after it: nothing of the list is in the window.
    let b = today_at(&w, created + chrono::Duration::days(1)).await;
    assert!(!screen(&b).contains("Orders down"), "{}", screen(&b));
    assert!(title(&b).contains("[since "), "{}", screen(&b));

    // The status filter's cycle back to "all" closes the window.
    for _ in 0..5 {
        a.apply(ch('l'));
        settle(&mut a).await;
    }
    assert!(!title(&a).contains("since"), "{}", screen(&a));
}
