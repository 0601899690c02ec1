//! The notifications list on a long history (issue 37): the status filter looks from the top and
//! says how far, `l` off returns to where the list was, `r` starts again, a page fills a tall
//! pane, the columns depend on the width alone (`Created` always there), and `n` keeps its cursor
//! on the last failure it found. Keys drive a console on a real local service; the rendered screen
//! is what is checked.
use std::time::Duration;

use crate::common::deliveries::{fixed_clock, settle};
use crate::common::service::{TestService, start_with};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use switchboard::api::model::NotificationStatus;
use switchboard::api::{ListQuery, NotificationFilter, Order};
use switchboard::console::record::Item;
use switchboard::console::{App, Msg, State, Tab};
use switchboard::service::{Seed, ServiceConfig};

/// A service with the demo world and `events` past events (about two notifications each).
async fn history(events: usize) -> TestService {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    cfg.history = events;
    cfg.retry_base = Duration::from_secs(600);
    start_with(cfg).await
}

/// A console of this size on the service's Notifications tab.
async fn on_notifications(t: &TestService, w: u16, h: u16) -> App {
    let state = State::new("test", t.svc.base_url.clone(), fixed_clock());
    let mut app = App::with_client(state, t.client.clone());
    app.apply(Msg::Resize(w, h));
    app.start();
    settle(&mut app).await;
    press(&mut app, KeyCode::Char('5')).await;
    app
}

async fn press(app: &mut App, code: KeyCode) {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
    settle(app).await;
}

/// The screen's rows, unquoted.
fn rows(app: &App) -> Vec<String> {
    crate::common::screen(app)
        .lines()
        .map(|l| l.trim_matches('"').to_string())
        .collect()
}

/// The newest notification ids, as the API lists them.
async fn newest(t: &TestService, n: u32) -> Vec<String> {
    let q = ListQuery {
        limit: Some(n),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    t.client
        .list_notifications(&q, &NotificationFilter::default())
        .await
        .expect("list")
        .items
        .into_iter()
        .map(|n| n.id)
        .collect()
}

fn selected(app: &App) -> Option<String> {
    app.state
        .tab_state(Tab::Notifications)
        .list
        .selected()
        .map(|r| r.id().to_string())
}

fn status_of(app: &App, id: &str) -> Option<NotificationStatus> {
    app.state
        .tab_state(Tab::Notifications)
        .list
        .rows
        .iter()
        .find(|r| r.id() == id)
        .and_then(|r| match &r.item {
            Item::Notification(n) => Some(n.status.clone()),
            _ => None,
        })
}

#[tokio::test]
async fn the_status_filter_looks_from_the_top_and_off_returns_to_where_the_list_was() {
    let t = history(400).await;
    let mut app = on_notifications(&t, 120, 40).await;
    // Two pages on, a row picked.
    press(&mut app, KeyCode::Char(']')).await;
    press(&mut app, KeyCode::Char(']')).await;
    press(&mut app, KeyCode::Char('j')).await;
    press(&mut app, KeyCode::Char('j')).await;
    let was = selected(&app).expect("a row");
    let top = newest(&t, 1).await;
    for (presses, status) in [(1, "failed"), (1, "retrying"), (1, "pending")] {
        for _ in 0..presses {
            press(&mut app, KeyCode::Char('l')).await;
        }
        let list = &app.state.tab_state(Tab::Notifications).list;
        assert_eq!(
            list.rows.first().map(|r| r.id().to_string()),
            top.first().cloned(),
            "{status}: the scan starts at the newest row, not where the last one stopped"
        );
        let examined = list.rows.len();
        let shown = list.shown_len();
        let s = crate::common::screen(&app);
        assert!(
            s.contains(&format!("{status} {shown} of the newest {examined}")),
            "{status}: the title says how far it looked:\n{s}"
        );
        assert!(!s.contains("page 3"), "{status}: no page number:\n{s}");
        if shown == 0 {
            assert!(
                s.contains(&format!("none in the newest {examined}")),
                "{status}: the empty list says how far it looked:\n{s}"
            );
        }
    }
    // `r` looks again from the top.
    press(&mut app, KeyCode::Char(']')).await;
    press(&mut app, KeyCode::Char('r')).await;
    let list = &app.state.tab_state(Tab::Notifications).list;
    assert_eq!(
        list.rows.first().map(|r| r.id().to_string()),
        top.first().cloned()
    );
    // Off: the page and the row the list had.
    press(&mut app, KeyCode::Char('l')).await;
    press(&mut app, KeyCode::Char('l')).await;
    let s = crate::common::screen(&app);
    assert!(!s.contains("of the newest"), "{s}");
    assert!(s.contains("page 3"), "back on page 3:\n{s}");
    assert_eq!(selected(&app).as_deref(), Some(was.as_str()), "{s}");
}

#[tokio::test]
async fn a_page_fills_a_tall_pane() {
    let t = history(200).await;
    for (w, h) in [(120, 40), (200, 55)] {
        let app = on_notifications(&t, w, h).await;
        let rows = rows(&app);
        // The list's last row (above its bottom border) holds a notification.
        let bottom = rows
            .iter()
            .rposition(|r| r.starts_with('└'))
            .expect("the list's border");
        let last = &rows[bottom - 1];
        assert!(
            last.contains("succeeded") || last.contains("failed") || last.contains("retrying"),
            "{w}×{h}: the last row is filled:\n{}",
            rows.join("\n")
        );
        let limit = app.state.tab_state(Tab::Notifications).list.rows.len();
        assert!(limit > 20, "{w}×{h}: {limit} rows");
        assert!(
            rows[bottom].contains(&format!("{limit} per page")),
            "{w}×{h}: the page line says its size:\n{}",
            rows[bottom]
        );
    }
}

#[tokio::test]
async fn columns_follow_the_width_alone_and_created_stays() {
    let t = history(200).await;
    for w in [40u16, 60, 80, 120, 200] {
        let mut app = on_notifications(&t, w, 30).await;
        // The list's header row (without the preview beside it).
        let header = |app: &App| {
            rows(app)
                .into_iter()
                .find(|r| r.contains("Status"))
                .and_then(|r| r.split("││").next().map(str::to_string))
                .expect("a header row")
        };
        let first = header(&app);
        if w >= 60 {
            assert!(first.contains("Created"), "{w}: {first}");
        }
        // Scrolling to the end, and the next page, move no column.
        press(&mut app, KeyCode::Char('G')).await;
        assert_eq!(header(&app), first, "{w}: after G");
        press(&mut app, KeyCode::Char(']')).await;
        press(&mut app, KeyCode::Char(']')).await;
        assert_eq!(header(&app), first, "{w}: after ] ]");
    }
}

#[tokio::test]
async fn n_keeps_the_cursor_on_the_last_failure_and_says_how_far_it_looked() {
    let t = history(400).await;
    let mut app = on_notifications(&t, 120, 40).await;
    let mut last_match: Option<String> = None;
    let mut saw_progress = false;
    for _ in 0..200 {
        app.handle_key(KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE));
        let s = crate::common::screen(&app);
        if s.contains("Esc stops") {
            saw_progress = true;
            assert!(
                s.contains("looked back to") && s.contains("rows · Esc stops"),
                "the progress says how far:\n{s}"
            );
        }
        settle(&mut app).await;
        let now = selected(&app).expect("a row");
        if last_match.as_deref() == Some(now.as_str()) || !app.state.toasts.is_empty() {
            let ended = app
                .state
                .toasts
                .iter()
                .any(|t| t.text.contains("No failed delivery after this one"));
            if ended {
                // The cursor stays on the last failure found.
                assert_eq!(
                    Some(now.as_str()),
                    last_match.as_deref(),
                    "{}",
                    crate::common::screen(&app)
                );
                assert!(saw_progress, "a scan ran and showed its progress");
                // The rows joined several pages: the bottom line says so, and `r` starts again
                // from the top.
                let s = crate::common::screen(&app);
                assert!(s.contains("rows from page 1 on"), "{s}");
                press(&mut app, KeyCode::Char('r')).await;
                let list = &app.state.tab_state(Tab::Notifications).list;
                assert_eq!(
                    list.rows.first().map(|r| r.id().to_string()),
                    newest(&t, 1).await.first().cloned()
                );
                return;
            }
        }
        assert_eq!(
            status_of(&app, &now),
            Some(NotificationStatus::Failed),
            "n lands on a failure"
        );
        last_match = Some(now);
        app.state.toasts.clear();
    }
    panic!("n never reached the end");
}

#[tokio::test]
async fn a_delivery_is_named_by_the_destination_its_signature_verifies_with() {
    use crate::common::deliveries::receiver;
    use crate::common::service::{eventually, http, manual_callback};
    use switchboard::api::model::{CallbacksInput, CreateDestination};
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    cfg.retry_base = Duration::from_secs(600);
    let t = start_with(cfg).await;
    let rx = receiver().await;
    let cb = manual_callback(&t.client).await;
    // Two destinations of one callback with one URL: only the signature tells them apart.
    for name in ["Archive twin", "Triage twin"] {
        t.client
            .create_destination(&CreateDestination {
                name: name.into(),
                description: None,
                url: format!("{rx}/ok"),
                callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
            })
            .await
            .expect("destination");
    }
    let r = http()
        .post(cb.url.as_deref().expect("hook url"))
        .json(&serde_json::json!({"type": "twin.created"}))
        .send()
        .await
        .expect("hook");
    assert_eq!(r.status(), 200);
    let url = format!("{rx}/ok");
    eventually(Duration::from_secs(10), || async {
        let q = ListQuery {
            limit: Some(20),
            order: Some(Order::Desc),
            ..ListQuery::default()
        };
        let p = t
            .client
            .list_notifications(&q, &NotificationFilter::default())
            .await
            .ok()?;
        let done = p
            .items
            .iter()
            .filter(|n| n.url.as_deref() == Some(url.as_str()) && !n.attempts.is_empty())
            .count();
        (done == 2).then_some(())
    })
    .await;
    // Wide enough for the preview beside the list (issue 37 item 12: only where the list keeps
    // every column whole).
    let wide = crate::console::layout::preview_from(Tab::Notifications);
    let mut app = on_notifications(&t, wide, 30).await;
    let twins: Vec<String> = rows(&app)
        .into_iter()
        .filter_map(|r| r.split("││").next().map(str::to_string))
        // The demo's own destinations of the callback get the event too.
        .filter(|r| r.contains("Archive twin") || r.contains("Triage twin"))
        .collect();
    assert_eq!(twins.len(), 2, "{}", crate::common::screen(&app));
    let named = |row: &str, name: &str| row.contains(name);
    assert!(
        (named(&twins[0], "Archive twin") && named(&twins[1], "Triage twin"))
            || (named(&twins[0], "Triage twin") && named(&twins[1], "Archive twin")),
        "each row names its own destination: {twins:#?}"
    );
    assert!(
        twins.iter().all(|r| !r.contains(',') && !r.contains('+')),
        "{twins:#?}"
    );
    // The detail names the same one.
    let row = rows(&app)
        .iter()
        .position(|r| r.contains("Archive twin") || r.contains("Triage twin"))
        .expect("a twin row");
    let list_top = rows(&app)
        .iter()
        .position(|r| r.contains("Status"))
        .expect("header");
    for _ in 0..(row - list_top - 1) {
        press(&mut app, KeyCode::Char('j')).await;
    }
    let first = &twins[0];
    let own = if first.contains("Archive twin") {
        "Archive twin"
    } else {
        "Triage twin"
    };
    let detail: Vec<String> = rows(&app)
        .into_iter()
        .filter(|r| r.contains("Destination    "))
        .collect();
    assert!(
        detail.iter().any(|r| r.contains(own)
            && !r.contains(if own == "Archive twin" {
                "Triage twin"
            } else {
                "Archive twin"
            })),
        "the detail names {own} alone: {detail:#?}"
    );
}

#[test]
fn the_title_names_the_order_of_the_rows_shown() {
    use crate::common::{answer_all, ch, started_app};
    let mut app = started_app(120, 40);
    answer_all(&mut app);
    app.apply(ch('5'));
    answer_all(&mut app);
    assert!(crate::common::screen(&app).contains("Notifications · newest first"));
    // `o` asks for the other order: until its rows come, the rows shown are still newest first.
    app.apply(ch('o'));
    let s = crate::common::screen(&app);
    assert!(s.contains("Notifications · newest first"), "{s}");
    answer_all(&mut app);
    let s = crate::common::screen(&app);
    assert!(s.contains("Notifications · oldest first"), "{s}");
}

#[test]
fn destinations_the_signature_cannot_tell_apart_read_a_plus_one_and_the_detail_says_why() {
    use crate::common::{answer_all, ch, fixture, started_app};
    use switchboard::api::model::Destination;
    use switchboard::console::{ApiCmd, ApiReply};
    // The preview beside the list (issue 37 item 12: only where the list keeps every column).
    let mut app = started_app(crate::console::layout::preview_from(Tab::Notifications), 40);
    answer_all(&mut app);
    app.apply(ch('5'));
    let reqs = answer_all(&mut app);
    let known = reqs
        .iter()
        .find(|r| matches!(r.cmd, ApiCmd::Known))
        .expect("the names are looked up");
    // The fixture's destination and a twin with its URL and callbacks, signed with another secret.
    let one: Destination = serde_json::from_str(&fixture("destination.json")).expect("fixture");
    let mut twin = one.clone();
    twin.id = "cld_0zzzzzzzzzzzzzzzzzzzzz".into();
    twin.name = "Issue triage twin".into();
    if let Some(w) = twin.webhook_destination.as_mut() {
        w.signing_secret = "clb_sec_not_the_one_that_signed".into();
    }
    app.apply(Msg::Api {
        req_id: known.req_id,
        pane: known.pane,
        result: Ok(ApiReply::Known(Box::new(
            switchboard::console::msg::Known {
                callbacks: Vec::new(),
                destinations: vec![one, twin],
            },
        ))),
    });
    // The pending row has no signature yet: one name and how many more.
    let s = crate::common::screen(&app);
    let pending = s
        .lines()
        .find(|l| l.contains("pending"))
        .expect("the pending row");
    assert!(pending.contains("Issue triage +1"), "{s}");
    app.apply(ch('j'));
    let s = crate::common::screen(&app);
    assert!(
        s.contains("Issue triage or Issue"),
        "the detail names both:\n{s}"
    );
}
