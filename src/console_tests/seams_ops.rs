//! Operators' seams, driven with keys on the local service and read off the rendered screen:
//! the 401 hint, `:goto` landing the cursor, `:` completion with names, failures found across
//! pages, the replay room's hints and history, member dialogs, forms and masked URLs.

use crate::common::deliveries::settle;
use crate::common::service::{client_for, demo};
use crate::common::{ch, key, screen_sized, typed};
use crossterm::event::KeyCode;
use switchboard::api::Secret;
use switchboard::console::{App, Msg, State};

/// A console of the given size on a demo service, its first list loaded.
async fn demo_app(w: u16, h: u16) -> (crate::common::service::TestService, App) {
    let t = demo().await;
    let state = State::new(
        "test",
        t.svc.base_url.clone(),
        crate::common::deliveries::fixed_clock(),
    );
    let mut app = App::with_client(state, t.client.clone());
    app.apply(Msg::Resize(w, h));
    app.start();
    settle(&mut app).await;
    (t, app)
}

/// The line of the screen holding the selected row (`▶ `).
/// Whether the row under the cursor is `id`: its line holds the id (or, where the width policy
/// cuts the ID column, the preview beside the list is that row's).
fn selected_is(s: &str, id: &str) -> bool {
    let line = selected_line(s);
    !line.is_empty() && (line.contains(id) || s.contains(&format!("Notification {id}")))
}

fn selected_line(s: &str) -> String {
    s.lines()
        .find(|l| l.contains('▶'))
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_key_is_not_blamed_on_a_missing_organization_key() {
    let t = demo().await;
    let wrong = client_for(
        &t.svc.base_url,
        &Secret::new("sk_wrong_key_for_this_server"),
    );
    let state = State::new(
        "test",
        t.svc.base_url.clone(),
        crate::common::deliveries::fixed_clock(),
    );
    let mut app = App::with_client(state, wrong);
    app.apply(Msg::Resize(200, 30));
    app.start();
    settle(&mut app).await;
    let s = screen_sized(&app, 200, 30);
    assert!(s.contains("401"), "the list failed with 401:\n{s}");
    assert!(
        s.contains("rejected the key"),
        "the hint says rejected:\n{s}"
    );
    assert!(
        !s.contains("tab needs the organization key"),
        "a rejected key blamed on a missing one:\n{s}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn goto_of_a_row_on_the_page_moves_the_cursor_to_it() {
    // The preview beside the list (issue 37 item 12: only where the list keeps every column).
    let w = crate::console::layout::preview_from(crate::console::tab::Tab::Teams);
    let (_t, mut app) = demo_app(w, 40).await;
    let ids = crate::common::shown_ids(&app);
    assert!(ids.len() > 3, "the demo has several teams");
    let target = ids[3].clone();
    // The target's row as the list draws it when selected.
    for _ in 0..3 {
        app.apply(ch('j'));
    }
    let row = selected_line(&screen_sized(&app, w, 40));
    let row: String = row.chars().take(60).collect();
    app.apply(ch('g'));
    assert_ne!(
        selected_line(&screen_sized(&app, w, 40))
            .chars()
            .take(60)
            .collect::<String>(),
        row
    );
    app.apply(ch(':'));
    typed(&mut app, &format!("goto {target}"));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    let s = screen_sized(&app, w, 40);
    assert!(s.contains(&target), "the detail of the row is open:\n{s}");
    let sel: String = selected_line(&s).chars().take(60).collect();
    assert_eq!(sel, row, "the cursor is on the opened row:\n{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_of_ids_shows_names_beside_them() {
    let (t, mut app) = demo_app(220, 40).await;
    let teams = t
        .client
        .list_teams(&switchboard::api::ListQuery::default())
        .await
        .expect("teams");
    let (a, b) = (&teams.items[0], &teams.items[1]);
    app.apply(ch(':'));
    typed(&mut app, "goto tm_");
    app.apply(key(KeyCode::Tab));
    let s = screen_sized(&app, 220, 40);
    let footer = s.lines().last().unwrap_or_default().to_string();
    for team in [a, b] {
        assert!(
            footer.contains(&format!("{} ({})", team.id, team.name)),
            "{} named beside its id:\n{footer}",
            team.id
        );
    }
}

/// Every notification of the service in the notifications list's order (newest first).
async fn all_notifications(
    t: &crate::common::service::TestService,
) -> Vec<switchboard::api::model::Notification> {
    let mut out: Vec<switchboard::api::model::Notification> = Vec::new();
    loop {
        let q = switchboard::api::ListQuery {
            limit: Some(100),
            after: out.last().map(|n| n.id.clone()),
            order: Some(switchboard::api::Order::Desc),
            ..Default::default()
        };
        let p = t
            .client
            .list_notifications(&q, &Default::default())
            .await
            .expect("notifications");
        let more = p.pagination.has_more_after && !p.items.is_empty();
        out.extend(p.items);
        if !more {
            return out;
        }
    }
}

fn failed_ids(all: &[switchboard::api::model::Notification]) -> Vec<String> {
    all.iter()
        .filter(|n| n.status == switchboard::api::model::NotificationStatus::Failed)
        .map(|n| n.id.clone())
        .collect()
}

/// The demo's notifications tab at 220×40, loaded.
async fn notifications_app() -> (
    crate::common::service::TestService,
    App,
    Vec<switchboard::api::model::Notification>,
) {
    let (t, mut app) = demo_app(220, 40).await;
    app.apply(ch('5'));
    settle(&mut app).await;
    let all = all_notifications(&t).await;
    (t, app, all)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_status_filter_fetches_pages_until_a_screenful_matches() {
    let (_t, mut app, all) = notifications_app().await;
    let failed = failed_ids(&all);
    assert!(!failed.is_empty(), "the demo has failed deliveries");
    let first_page: Vec<&str> = all.iter().take(20).map(|n| n.id.as_str()).collect();
    // `l` once: failed only.
    app.apply(ch('l'));
    settle(&mut app).await;
    let s = screen_sized(&app, 220, 40);
    assert!(s.contains("[failed "), "{s}");
    // Failed deliveries beyond the first page are on screen without paging.
    let beyond: Vec<&String> = failed
        .iter()
        .filter(|id| !first_page.contains(&id.as_str()))
        .collect();
    assert!(!beyond.is_empty(), "the demo has failures past page 1");
    assert!(
        s.contains(beyond[0].as_str()),
        "the first failure past page 1 ({}) is listed:\n{s}",
        beyond[0]
    );
    let rows = s.lines().filter(|l| l.contains("failed")).count();
    let screenful = 40 - 9;
    assert!(
        rows >= failed.len().min(screenful),
        "a screenful of failures ({rows} rows):\n{s}"
    );
    assert!(!s.contains("Esc stops"), "the scan ended:\n{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scan_shows_its_progress_and_esc_stops_it() {
    let (_t, mut app, _all) = notifications_app().await;
    app.apply(ch('l'));
    let mut seen = false;
    for _ in 0..30 {
        if app.is_idle() {
            break;
        }
        let msg = crate::common::next_reply(&mut app).await;
        app.apply(msg);
        let s = screen_sized(&app, 220, 40);
        if s.contains("looking further: page") && s.contains("Esc stops") {
            seen = true;
            app.apply(key(KeyCode::Esc));
            break;
        }
    }
    assert!(seen, "the progress was shown while pages were fetched");
    settle(&mut app).await;
    let s = screen_sized(&app, 220, 40);
    assert!(!s.contains("Esc stops"), "stopped:\n{s}");
    assert!(s.contains("Stopped after"), "says it stopped:\n{s}");
    assert!(s.contains("[failed "), "the filter stays:\n{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn n_and_shift_n_jump_between_failed_deliveries_across_pages() {
    let (_t, mut app, all) = notifications_app().await;
    let failed = failed_ids(&all);
    assert!(failed.len() >= 2, "the demo has two failures");
    app.apply(ch('n'));
    settle(&mut app).await;
    let s = screen_sized(&app, 220, 40);
    assert!(
        selected_is(&s, &failed[0]),
        "n selects the first failure ({}):\n{s}",
        failed[0]
    );
    app.apply(ch('n'));
    settle(&mut app).await;
    let s = screen_sized(&app, 220, 40);
    assert!(
        selected_is(&s, &failed[1]),
        "n again selects the second ({}):\n{s}",
        failed[1]
    );
    app.apply(ch('N'));
    settle(&mut app).await;
    let s = screen_sized(&app, 220, 40);
    assert!(selected_is(&s, &failed[0]), "N goes back:\n{s}");
    // From a later page, N looks back across pages too.
    app.apply(ch(']'));
    settle(&mut app).await;
    let first = crate::common::row_ids(&app)[0].clone();
    let at = all
        .iter()
        .position(|n| n.id == first)
        .expect("row of the service");
    let before = failed_ids(&all[..at]);
    let want = before.last().expect("a failure before the page");
    app.apply(ch('N'));
    settle(&mut app).await;
    let s = screen_sized(&app, 220, 40);
    assert!(
        selected_is(&s, want),
        "N from page after selects the failure before it ({want}):\n{s}"
    );
}

async fn members_of(t: &crate::common::service::TestService, team: &str) -> usize {
    let all = switchboard::api::lookup::all_members(&t.client)
        .await
        .expect("members");
    switchboard::api::members::team_members(&all, team).len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn m_then_enter_asks_before_adding_the_preselected_member() {
    let (t, mut app) = demo_app(160, 40).await;
    let team = crate::common::shown_ids(&app)[0].clone();
    let before = members_of(&t, &team).await;
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    app.apply(ch('m'));
    settle(&mut app).await;
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    let s = screen_sized(&app, 160, 40);
    assert!(s.contains("Add member"), "a question first:\n{s}");
    assert!(s.contains("team?"), "{s}");
    assert_eq!(members_of(&t, &team).await, before, "nothing added unasked");
    // No (the default) goes back to the form; y adds.
    app.apply(ch('y'));
    settle(&mut app).await;
    assert_eq!(members_of(&t, &team).await, before + 1, "added after yes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_import_form_offers_the_connections_in_use() {
    let (t, mut app) = demo_app(160, 45).await;
    let imports = t
        .client
        .list_imports(&switchboard::api::ListQuery::default())
        .await
        .expect("imports");
    let conn = imports
        .items
        .iter()
        .find_map(|i| i.connection_id.clone())
        .expect("a demo import with a connection");
    app.apply(ch('2'));
    settle(&mut app).await;
    app.apply(ch('c'));
    settle(&mut app).await;
    app.apply(key(KeyCode::Tab));
    let s = screen_sized(&app, 160, 45);
    assert!(s.contains(&conn), "the connection is offered:\n{s}");
    assert!(s.contains("used by"), "with its use:\n{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_overdue_polling_callback_says_so() {
    let (_t, mut app) = demo_app(200, 45).await;
    app.apply(ch('3'));
    settle(&mut app).await;
    app.apply(ch('/'));
    typed(&mut app, "polling");
    app.apply(key(KeyCode::Enter));
    let s = screen_sized(&app, 200, 45);
    assert!(s.contains("overdue"), "the list says overdue:\n{s}");
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    let s = screen_sized(&app, 200, 45);
    assert!(s.contains("overdue by"), "{s}");
    assert!(s.contains("not run since"), "explained:\n{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_destination_edit_form_shows_the_url_masked_and_fixed() {
    use switchboard::api::model::{CallbacksInput, CreateDestination};
    let w = crate::common::deliveries::world().await;
    let url = format!(
        "{}/ok?token=EDITSECRET9",
        w.receiver.replacen("http://", "http://bob:PASSW0RDY@", 1)
    );
    let d =
        w.t.client
            .create_destination(&CreateDestination {
                name: "AAA creds".into(),
                description: None,
                url,
                callbacks: CallbacksInput::selected(vec![w.callback.clone()]),
            })
            .await
            .expect("destination");
    let mut app = w.app().await;
    app.apply(Msg::Resize(160, 45));
    app.apply(ch(':'));
    typed(&mut app, &format!("goto {}", d.id));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    app.apply(ch('e'));
    settle(&mut app).await;
    // Into the URL field, typing changes nothing.
    for _ in 0..2 {
        app.apply(key(KeyCode::Tab));
    }
    // Text no id or URL on screen holds (random ids may hold any two letters).
    typed(&mut app, "~^~");
    let s = screen_sized(&app, 160, 45);
    assert!(s.contains("Edit destination"), "{s}");
    assert!(s.contains("bob:"), "the URL is shown:\n{s}");
    assert!(!s.contains("PASSW0RDY"), "its password masked:\n{s}");
    assert!(!s.contains("EDITSECRET9"), "its token masked:\n{s}");
    assert!(s.contains("cannot change"), "said fixed:\n{s}");
    assert!(!s.contains("~^~"), "read-only:\n{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_url_is_revealed_after_a_question_and_copied_while_revealed() {
    use std::sync::{Arc, Mutex};
    let w = crate::common::deliveries::world().await;
    let mut app = w.app().await;
    app.apply(Msg::Resize(200, 45));
    let out = Arc::new(Mutex::new(Vec::new()));
    app.clipboard = switchboard::console::clipboard::Clipboard::to_buffer(out.clone());
    app.apply(ch(':'));
    typed(&mut app, &format!("goto {}", w.callback));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    let s = screen_sized(&app, 200, 45);
    assert!(!s.contains(&w.hook), "masked at first:\n{s}");
    assert!(s.contains("R reveals"), "{s}");
    // y before revealing copies the id, not the hook.
    app.apply(ch('R'));
    let s = screen_sized(&app, 200, 45);
    assert!(s.contains("Reveal hook URL"), "asks first:\n{s}");
    app.apply(ch('y'));
    let s = screen_sized(&app, 200, 45);
    assert!(s.contains(&w.hook), "revealed:\n{s}");
    app.apply(ch('y'));
    let copied = out.lock().expect("buffer").clone();
    assert_eq!(
        copied,
        switchboard::console::clipboard::osc52(&w.hook),
        "the hook URL copied"
    );
    // Leaving the detail hides it again.
    app.apply(key(KeyCode::Esc));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    assert!(!screen_sized(&app, 200, 45).contains(&w.hook));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_reveals_is_offered_only_where_something_is_masked() {
    let w = crate::common::deliveries::world().await;
    w.fire(1).await;
    let mut app = w.app().await;
    app.apply(Msg::Resize(200, 50));
    // A notification's detail and its attempt: the receiver's secret headers are masked.
    app.apply(ch('5'));
    settle(&mut app).await;
    let healthy = w.notifications_of(&w.healthy).await;
    app.apply(ch(':'));
    typed(&mut app, &format!("goto {}", healthy[0].id));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    app.apply(key(KeyCode::Enter));
    let s = screen_sized(&app, 200, 50);
    assert!(s.contains("R reveals"), "masked headers:\n{s}");
    // The down receiver's attempt holds only safe headers: nothing to reveal, none offered.
    app.apply(key(KeyCode::Esc));
    app.apply(key(KeyCode::Esc));
    let down = w.notifications_of(&w.down).await;
    app.apply(ch(':'));
    typed(&mut app, &format!("goto {}", down[0].id));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    app.apply(key(KeyCode::Enter));
    let s = screen_sized(&app, 200, 50);
    assert!(s.contains("Request headers"), "the attempt is open:\n{s}");
    assert!(
        !s.contains("reveal"),
        "nothing masked, no reveal offered:\n{s}"
    );
    app.apply(ch('R'));
    let s = screen_sized(&app, 200, 50);
    assert!(!s.contains("Reveal secrets"), "no question:\n{s}");
    assert!(s.contains("Nothing is masked"), "{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replay_room_hints_its_keys_and_lists_targets_before_ids() {
    let (rx, _log) = crate::common::replay::receiver().await;
    let w = crate::common::replay::world(&rx).await;
    let state = State::new(
        "test",
        w.t.svc.base_url.clone(),
        crate::common::deliveries::fixed_clock(),
    );
    let mut app = App::with_client(state, w.t.client.clone());
    app.apply(Msg::Resize(120, 40));
    app.start();
    settle(&mut app).await;
    app.apply(ch(':'));
    typed(&mut app, &format!("goto {}", w.n.id));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    // Two replays: to /fail, then to /fixed.
    for path in ["fail", "fixed"] {
        app.apply(ch('P'));
        app.apply(Msg::Key(crossterm::event::KeyEvent::new(
            KeyCode::Char('u'),
            crossterm::event::KeyModifiers::CONTROL,
        )));
        typed(&mut app, &format!("{rx}/{path}"));
        app.apply(key(KeyCode::Enter));
        settle(&mut app).await;
        app.apply(key(KeyCode::Enter));
        settle(&mut app).await;
        if path == "fail" {
            app.apply(key(KeyCode::Esc));
            app.apply(key(KeyCode::Esc));
        }
    }
    let s = screen_sized(&app, 120, 40);
    // On an answer the key to the history is h, and the hint says so.
    assert!(s.contains("h here"), "{s}");
    assert!(!s.contains("Tab here"), "{s}");
    let rows: Vec<&str> = s
        .lines()
        .filter(|l| l.contains(&rx) && l.contains(" #1 "))
        .collect();
    assert_eq!(rows.len(), 2, "{s}");
    for row in &rows {
        let target = row.find(&rx).expect("target");
        let id = row.find(&w.n.id[..12]).expect("id");
        assert!(target < id, "the target before the ids: {row}");
    }
    // The entry shown is marked.
    assert!(
        rows[0].contains('●') && rows[0].contains("/fixed"),
        "the shown entry marked: {s}"
    );
    assert!(!rows[1].contains('●'), "{s}");
    app.apply(ch('h'));
    app.apply(key(KeyCode::Down));
    app.apply(key(KeyCode::Enter));
    let s = screen_sized(&app, 120, 40);
    let rows: Vec<&str> = s
        .lines()
        .filter(|l| l.contains(&rx) && l.contains(" #1 "))
        .collect();
    assert!(rows[1].contains('●') && rows[1].contains("/fail"), "{s}");
    // The title fits a narrow room: the border shows after it.
    app.apply(Msg::Resize(80, 30));
    let s = screen_sized(&app, 80, 30);
    let top = s
        .lines()
        .find(|l| l.contains(" Replay "))
        .expect("the room's title");
    assert!(top.contains(&w.n.id), "{top}");
    assert!(
        top.trim_end_matches(['"', ' ']).ends_with("─┐"),
        "{top}\n{s}"
    );
}

/// A server whose members' cursor always advances: the console's member lookup stops at the
/// one cap of `api::lookup` and says so, instead of reading page after page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_member_lookup_stops_at_the_page_cap() {
    use axum::routing::get;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let served = Arc::new(AtomicUsize::new(0));
    let count = served.clone();
    let member: serde_json::Value =
        serde_json::from_str::<serde_json::Value>(&crate::common::fixture("member-list.json"))
            .expect("fixture")["items"][0]
            .clone();
    let members = move || {
        let count = count.clone();
        let mut m = member.clone();
        async move {
            let n = count.fetch_add(1, Ordering::SeqCst);
            m["id"] = serde_json::Value::String(format!("om_endless{n:06}"));
            axum::Json(serde_json::json!({
                "items": [m],
                "pagination": {"has_more_before": n > 0, "has_more_after": true}
            }))
        }
    };
    let json = |name: &'static str| {
        move || async move {
            (
                [("content-type", "application/json")],
                crate::common::fixture(name),
            )
        }
    };
    let app = axum::Router::new()
        .route("/organization/teams", get(json("team-list.json")))
        .route("/organization/teams/{id}", get(json("team.json")))
        .route("/organization/members", get(members));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let client = client_for(&base, &Secret::new("sk_test_endless"));
    let state = State::new("test", base, crate::common::deliveries::fixed_clock());
    let mut app = App::with_client(state, client);
    app.apply(Msg::Resize(200, 40));
    app.start();
    settle(&mut app).await;
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    let s = screen_sized(&app, 200, 40);
    assert!(s.contains("stopped after 200 pages"), "{s}");
    assert_eq!(
        served.load(Ordering::SeqCst),
        switchboard::api::lookup::MAX_PAGES,
        "exactly the cap's pages were asked for"
    );
}
