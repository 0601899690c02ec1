//! Following a webhook end to end on a real local service after real deliveries: destination →
//! its notifications → detail → attempt (masked, revealed, signature) → back, and health.
use crate::common;

use common::deliveries::{RECEIVER_KEY, World, normalize, redact, screen, settle, world};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use switchboard::api::model::Notification;
use switchboard::api::signature::{SigError, header_of, verify};
use switchboard::console::record::Item;
use switchboard::console::{App, Tab};

use common::screen_sized;

async fn press(app: &mut App, code: KeyCode) {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
    settle(app).await;
    normalize(&mut app.state);
}

async fn ch(app: &mut App, c: char) {
    press(app, KeyCode::Char(c)).await;
}

/// Every id and address that changes from run to run.
fn volatile(w: &World, notes: &[Notification]) -> Vec<String> {
    let mut v = vec![
        w.t.svc.base_url.trim_start_matches("http://").to_string(),
        w.receiver.trim_start_matches("http://").to_string(),
        w.callback.clone(),
        w.healthy.clone(),
        w.down.clone(),
    ];
    for n in notes {
        v.push(n.id.clone());
        v.extend(n.body_field("eventId"));
        for a in &n.attempts {
            v.push(a.id.clone());
        }
    }
    v
}

/// Moves the Destinations list cursor onto `id`; returns its row.
async fn select_destination(app: &mut App, id: &str) -> usize {
    ch(app, '4').await;
    let rows = &app.state.tab_state(Tab::Destinations).list.rows;
    let pos = rows
        .iter()
        .position(|r| r.id() == id)
        .expect("destination listed");
    for _ in 0..pos {
        ch(app, 'j').await;
    }
    pos
}

#[tokio::test]
async fn destination_to_notifications_to_attempt_and_back() {
    let w = world().await;
    w.fire(1).await;
    w.fire(2).await;
    let mut notes = w.notifications_of(&w.healthy).await;
    notes.extend(w.notifications_of(&w.down).await);
    let vol = volatile(&w, &notes);
    let mut app = w.app().await;

    let pos = select_destination(&mut app, &w.healthy).await;
    ch(&mut app, 'N').await;
    assert_eq!(app.state.tab, Tab::Notifications);
    let list = &app.state.current().list;
    assert_eq!(list.filter.destination_ids, vec![w.healthy.clone()]);
    assert_eq!(list.rows.len(), 2, "only this destination's notifications");
    let s = redact(&screen(&app), &vol);
    assert!(
        s.contains("Destinations › Notifications"),
        "breadcrumb:\n{s}"
    );
    // Names where ids were: the chip and the breadcrumb name the destination.
    assert!(s.contains("[destination: Orders healthy]"), "chip:\n{s}");
    assert!(
        s.contains("Notifications of destination: Orders healthy"),
        "breadcrumb by name:\n{s}"
    );
    assert!(
        s.contains("✓ succeeded") && s.contains("order.created"),
        "{s}"
    );
    insta::assert_snapshot!("console_deliveries_list", s);

    press(&mut app, KeyCode::Enter).await;
    let s = redact(&screen(&app), &vol);
    assert!(s.contains("Attempts (1: 1 succeeded, 0 failed)"), "{s}");
    let field = |name: &str, value: &str| {
        s.lines()
            .any(|l| l.contains(&format!("│{name} ")) && l.contains(value))
    };
    assert!(field("Destination", "Orders healthy"), "{s}");
    assert!(field("Callback", "Custom CI hook"), "{s}");
    insta::assert_snapshot!("console_deliveries_detail", s);

    press(&mut app, KeyCode::Enter).await;
    let s = screen(&app);
    assert!(s.contains("✓ verified"), "signature verified:\n{s}");
    assert!(
        !s.contains(RECEIVER_KEY) && !s.contains("abc123"),
        "masked:\n{s}"
    );
    // The response headers are at the end of the view.
    ch(&mut app, 'G').await;
    let s = screen(&app);
    assert!(
        !s.contains(RECEIVER_KEY) && !s.contains("abc123"),
        "masked:\n{s}"
    );
    assert!(s.contains("x-api-key: ••••••••"), "{s}");
    insta::assert_snapshot!("console_deliveries_attempt_masked", redact(&s, &vol));

    ch(&mut app, 'R').await;
    assert!(screen(&app).contains("Reveal secrets"));
    ch(&mut app, 'n').await;
    assert!(
        !screen(&app).contains(RECEIVER_KEY),
        "declining keeps the mask"
    );
    ch(&mut app, 'R').await;
    ch(&mut app, 'y').await;
    let s = screen(&app);
    assert!(s.contains(RECEIVER_KEY), "{s}");
    ch(&mut app, 'g').await;
    let top = screen(&app);
    assert!(top.contains("REVEALED"), "{top}");
    ch(&mut app, 'G').await;
    let s = screen(&app);
    insta::assert_snapshot!("console_deliveries_attempt_revealed", redact(&s, &vol));

    // Esc closes the attempt (its reveal goes with it), the detail, then returns to the
    // destination the path started from.
    press(&mut app, KeyCode::Esc).await;
    assert!(app.state.deliveries.attempt.is_none());
    press(&mut app, KeyCode::Enter).await;
    assert!(
        !screen(&app).contains(RECEIVER_KEY),
        "reveal is for one opening only"
    );
    press(&mut app, KeyCode::Esc).await;
    press(&mut app, KeyCode::Esc).await;
    press(&mut app, KeyCode::Esc).await;
    assert_eq!(app.state.tab, Tab::Destinations);
    assert_eq!(app.state.current().list.cursor, pos, "cursor restored");
    assert!(app.state.nav.is_empty());
}

#[tokio::test]
async fn health_panels_of_healthy_and_down_destinations() {
    let w = world().await;
    for i in 0..3 {
        w.fire(i).await;
    }
    let mut notes = w.notifications_of(&w.healthy).await;
    notes.extend(w.notifications_of(&w.down).await);
    let vol = volatile(&w, &notes);
    let mut app = w.app().await;
    for (dest, name, want) in [
        (&w.healthy, "healthy", "3 notifications: 3 succeeded"),
        (&w.down, "down", "3 notifications: 0 succeeded, 0 failed"),
    ] {
        select_destination(&mut app, dest).await;
        press(&mut app, KeyCode::Enter).await;
        let s = redact(&screen(&app), &vol);
        let flat = s.lines().map(|l| l.trim_matches('"')).collect::<String>();
        assert!(
            flat.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .contains(want),
            "{s}"
        );
        insta::assert_snapshot!(format!("console_deliveries_health_{name}"), s);
        press(&mut app, KeyCode::Esc).await;
        ch(&mut app, 'g').await;
    }
}

#[tokio::test]
async fn signatures_verify_and_tampering_is_caught() {
    let w = world().await;
    w.fire(7).await;
    let secret =
        w.t.client
            .get_destination(&w.healthy)
            .await
            .expect("destination")
            .webhook_destination
            .expect("webhook")
            .signing_secret;
    let n = w.notifications_of(&w.healthy).await.remove(0);
    let req = n.attempts[0].webhook_request.clone().expect("request");
    let header = header_of(&req.request_headers);
    let body = req.request_body.clone().expect("body");
    assert_eq!(verify(&secret, header, Some(&body)), Ok(()));
    let tampered = body.replace("\"order\":7", "\"order\":8");
    assert_ne!(tampered, body);
    assert_eq!(
        verify(&secret, header, Some(&tampered)),
        Err(SigError::Mismatch)
    );
    assert_eq!(
        verify("clb_sec_wrong", header, Some(&body)),
        Err(SigError::Mismatch)
    );

    // In the console: the callback's destinations are fetched to find the secret (N from the
    // callback, so no destination was loaded), then a tampered body shows ✗.
    let mut app = w.app().await;
    ch(&mut app, '3').await;
    let rows = &app.state.current().list.rows;
    let pos = rows
        .iter()
        .position(|r| r.id() == w.callback)
        .expect("callback");
    for _ in 0..pos {
        ch(&mut app, 'j').await;
    }
    ch(&mut app, 'N').await;
    if app.state.current().list.order == switchboard::api::Order::Asc {
        ch(&mut app, 'o').await;
    }
    let rows = &app.state.current().list.rows;
    let pos = rows
        .iter()
        .position(|r| r.id() == n.id)
        .expect("notification");
    for _ in 0..pos {
        ch(&mut app, 'j').await;
    }
    press(&mut app, KeyCode::Enter).await;
    press(&mut app, KeyCode::Enter).await;
    assert!(
        !app.state.deliveries.destinations.is_empty(),
        "destinations fetched"
    );
    assert!(screen(&app).contains("✓ verified"), "{}", screen(&app));
    let v = app.state.deliveries.attempt.as_mut().expect("attempt open");
    for a in &mut v.notification.attempts {
        if let Some(r) = a.webhook_request.as_mut() {
            r.request_body = Some(tampered.clone());
        }
    }
    let s = screen(&app);
    assert!(s.contains("✗ does not verify: HMAC mismatch"), "{s}");
    let Some(Item::Notification(_)) = app
        .state
        .current()
        .detail
        .as_ref()
        .and_then(|d| d.record.as_ref())
        .map(|r| &r.item)
    else {
        panic!("notification detail open");
    };
}

#[tokio::test]
async fn health_of_the_demo_flaky_receiver_is_the_headless_numbers() {
    let w = world().await;
    let flaky =
        w.t.client
            .list_destinations(&Default::default(), &[])
            .await
            .expect("destinations")
            .items
            .into_iter()
            .find(|d| {
                d.webhook_destination
                    .as_ref()
                    .is_some_and(|h| h.url.ends_with("/_receiver/flaky"))
            })
            .expect("the demo has a flaky receiver");
    let mut app = w.app().await;
    select_destination(&mut app, &flaky.id).await;
    press(&mut app, KeyCode::Enter).await;
    // The same module `destinations stats` prints, over the same window: the same numbers
    // (retrying counts against the rate; the console used to call this receiver 100 % healthy).
    let headless = switchboard::api::health::destination_stats(
        &w.t.client,
        &flaky.id,
        chrono::TimeDelta::hours(24),
        chrono::Utc::now(),
    )
    .await
    .expect("stats");
    assert!(
        headless.notifications > 0,
        "the flaky receiver has deliveries"
    );
    // Narrower than 120 the open detail takes the whole width; tall enough for every line.
    let s = screen_sized(&app, 110, 80);
    let flat: String = s
        .lines()
        .map(|l| l.trim_matches('"').trim_matches('│'))
        .collect::<Vec<_>>()
        .join(" ");
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    // Counts and rates (the test helpers fix every latency shown; the window's line names its
    // own instant).
    for line in &headless.lines()[..2] {
        let words = line.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(&words), "{line:?} on screen:\n{s}");
    }
    assert!(!s.contains("no deliveries"), "{s}");
}
