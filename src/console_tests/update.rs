//! `update()` driven through the public `App`: navigation, paging, order, stale replies, errors.

use crate::common::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Value, json};
use switchboard::api::{ApiError, Error, Order};
use switchboard::console::record::decode_page_body;
use switchboard::console::state::{Anchor, LoadState};
use switchboard::console::{ApiCmd, ApiReply, App, Msg, Pane, Request, Tab};

/// A teams page of `n` copies of the fixture team with ids `tm_page{start+i}`.
fn teams_page(start: usize, n: usize, before: bool, after: bool) -> ApiReply {
    let team: Value = serde_json::from_str(&fixture("team.json")).expect("json");
    let items: Vec<Value> = (start..start + n)
        .map(|i| {
            let mut t = team.clone();
            t["id"] = json!(format!("tm_page{i:04}"));
            t["name"] = json!(format!("Team {i}"));
            t
        })
        .collect();
    let body =
        json!({"items": items, "pagination": {"has_more_before": before, "has_more_after": after}});
    ApiReply::Page(decode_page_body(Tab::Teams, 200, &body.to_string()).expect("page"))
}

fn only_request(app: &mut App) -> Request {
    let mut reqs = app.take_requests();
    assert_eq!(reqs.len(), 1, "expected exactly one request: {reqs:?}");
    reqs.remove(0)
}

fn reply(app: &mut App, req: &Request, r: ApiReply) {
    app.apply(Msg::Api {
        req_id: req.req_id,
        pane: req.pane,
        result: Ok(r),
    });
}

fn list_query(req: &Request) -> &switchboard::api::ListQuery {
    match &req.cmd {
        ApiCmd::List { query, .. } => query,
        other => panic!("not a list request: {other:?}"),
    }
}

/// An app on the Teams tab showing page 1 of 20 teams with more after.
fn app_with_teams() -> App {
    let mut app = started_app(120, 40);
    let req = only_request(&mut app);
    reply(&mut app, &req, teams_page(0, 20, false, true));
    app
}

#[test]
fn start_asks_for_the_first_teams_page() {
    let mut app = started_app(80, 24);
    let req = only_request(&mut app);
    assert_eq!(req.pane, Pane::List(Tab::Teams));
    let q = list_query(&req);
    assert_eq!(q.limit, Some(20));
    assert_eq!(q.order, Some(Order::Asc));
    assert_eq!((q.after.as_deref(), q.before.as_deref()), (None, None));
    assert_eq!(app.state.current().list.load, LoadState::Loading);
    reply(&mut app, &req, page_reply(Tab::Teams, "team-list.json"));
    assert_eq!(app.state.current().list.load, LoadState::Loaded);
    assert_eq!(app.state.current().list.rows.len(), 2);
    assert_eq!(app.state.in_flight(), 0);
}

#[test]
fn cursor_moves_and_clamps() {
    let mut app = app_with_teams();
    let cursor = |app: &App| app.state.current().list.cursor;
    app.apply(ch('k'));
    assert_eq!(cursor(&app), 0, "up at the top stays");
    app.apply(ch('j'));
    app.apply(key(KeyCode::Down));
    assert_eq!(cursor(&app), 2);
    app.apply(ch('G'));
    assert_eq!(cursor(&app), 19);
    app.apply(ch('j'));
    assert_eq!(cursor(&app), 19, "down at the bottom stays");
    app.apply(key(KeyCode::Up));
    assert_eq!(cursor(&app), 18);
    app.apply(ch('g'));
    assert_eq!(cursor(&app), 0);
}

#[test]
fn scrolling_keeps_the_cursor_visible_at_80x24() {
    let mut app = started_app(80, 24);
    let req = only_request(&mut app);
    reply(&mut app, &req, teams_page(0, 20, false, false));
    app.apply(ch('G'));
    let list = &app.state.current().list;
    // 24 rows: 2 header, 1 footer, 2 borders, 1 column header = 18 visible rows.
    assert_eq!(list.cursor, 19);
    assert_eq!(list.offset, 2);
    app.apply(ch('g'));
    assert_eq!(app.state.current().list.offset, 0);
}

#[test]
fn tabs_switch_and_keep_their_own_state() {
    let mut app = app_with_teams();
    app.apply(ch('j'));
    app.apply(ch('j'));
    app.apply(ch('3'));
    assert_eq!(app.state.tab, Tab::Callbacks);
    let req = only_request(&mut app);
    assert_eq!(req.pane, Pane::List(Tab::Callbacks));
    reply(
        &mut app,
        &req,
        page_reply(Tab::Callbacks, "callback-list.json"),
    );
    app.apply(ch('G'));
    assert_eq!(app.state.current().list.cursor, 2);

    app.apply(key(KeyCode::Tab));
    assert_eq!(app.state.tab, Tab::Destinations);
    app.apply(Msg::Key(KeyEvent::new(
        KeyCode::BackTab,
        KeyModifiers::SHIFT,
    )));
    app.apply(Msg::Key(KeyEvent::new(
        KeyCode::BackTab,
        KeyModifiers::SHIFT,
    )));
    assert_eq!(app.state.tab, Tab::Imports);
    app.apply(ch('1'));
    assert_eq!(app.state.tab, Tab::Teams);
    assert_eq!(app.state.current().list.cursor, 2, "teams cursor kept");
    app.apply(ch('3'));
    assert_eq!(app.state.current().list.cursor, 2, "callbacks cursor kept");
    // Destinations and imports were visited once each; loaded tabs are not fetched again.
    let reqs = app.take_requests();
    let panes: Vec<Pane> = reqs.iter().map(|r| r.pane).collect();
    assert_eq!(
        panes,
        vec![Pane::List(Tab::Destinations), Pane::List(Tab::Imports)]
    );
    app.apply(key(KeyCode::Tab));
    app.apply(key(KeyCode::Tab));
    app.apply(key(KeyCode::Tab));
    assert_eq!(app.state.tab, Tab::Teams, "Tab wraps around");
}

#[test]
fn paging_uses_last_and_first_ids() {
    let mut app = app_with_teams();
    app.apply(ch('j'));
    app.apply(ch(']'));
    let req = only_request(&mut app);
    assert_eq!(list_query(&req).after.as_deref(), Some("tm_page0019"));
    assert_eq!(list_query(&req).before, None);
    reply(&mut app, &req, teams_page(20, 20, true, true));
    let list = &app.state.current().list;
    assert_eq!(list.page, 2);
    assert_eq!(list.cursor, 0, "a new page starts at the top");
    assert_eq!(list.anchor, Anchor::After("tm_page0019".into()));
    assert_eq!(row_ids(&app)[0], "tm_page0020");

    app.apply(key(KeyCode::PageDown));
    let req = only_request(&mut app);
    assert_eq!(list_query(&req).after.as_deref(), Some("tm_page0039"));
    reply(&mut app, &req, teams_page(40, 5, true, false));
    assert_eq!(app.state.current().list.page, 3);

    app.apply(ch(']'));
    assert!(
        app.take_requests().is_empty(),
        "no request past the last page"
    );
    assert!(
        app.state
            .toasts
            .iter()
            .any(|t| t.text.contains("last page"))
    );

    app.apply(ch('['));
    let req = only_request(&mut app);
    assert_eq!(list_query(&req).before.as_deref(), Some("tm_page0040"));
    assert_eq!(list_query(&req).after, None);
    reply(&mut app, &req, teams_page(20, 20, true, true));
    assert_eq!(app.state.current().list.page, 2);

    app.apply(key(KeyCode::PageUp));
    let req = only_request(&mut app);
    assert_eq!(list_query(&req).before.as_deref(), Some("tm_page0020"));
    reply(&mut app, &req, teams_page(0, 20, false, true));
    assert_eq!(app.state.current().list.page, 1);
    app.apply(ch('['));
    assert!(
        app.take_requests().is_empty(),
        "no request before the first page"
    );
}

#[test]
fn paging_past_the_end_keeps_the_page() {
    let mut app = app_with_teams();
    app.apply(ch(']'));
    let req = only_request(&mut app);
    reply(&mut app, &req, teams_page(0, 0, false, false));
    assert_eq!(row_ids(&app).len(), 20, "rows kept");
    assert_eq!(app.state.current().list.page, 1);
    assert!(!app.state.current().list.pagination.has_more_after);
}

#[test]
fn order_toggle_reloads_from_the_first_page() {
    let mut app = app_with_teams();
    app.apply(ch(']'));
    let req = only_request(&mut app);
    reply(&mut app, &req, teams_page(20, 20, true, true));
    app.apply(ch('o'));
    let req = only_request(&mut app);
    let q = list_query(&req);
    assert_eq!(q.order, Some(Order::Desc));
    assert_eq!((q.after.as_deref(), q.before.as_deref()), (None, None));
    reply(&mut app, &req, teams_page(0, 20, false, true));
    assert_eq!(app.state.current().list.page, 1);
    app.apply(ch('o'));
    assert_eq!(list_query(&only_request(&mut app)).order, Some(Order::Asc));
}

#[test]
fn r_loads_the_first_page_afresh_keeping_the_selected_item_when_it_is_there() {
    let mut app = app_with_teams();
    app.apply(ch(']'));
    let req = only_request(&mut app);
    reply(&mut app, &req, teams_page(20, 20, true, true));
    assert_eq!(app.state.current().list.page, 2);
    app.apply(ch('j'));
    app.apply(ch('j'));
    app.apply(ch('r'));
    let req = only_request(&mut app);
    // From the top: what is newest now, not the page the list was on.
    assert_eq!(list_query(&req).after, None);
    assert_eq!(list_query(&req).before, None);
    // The selected item is on the fresh page: the cursor stays on it.
    reply(&mut app, &req, teams_page(15, 20, false, true));
    let list = &app.state.current().list;
    assert_eq!(list.selected().map(|r| r.id()), Some("tm_page0022"));
    assert_eq!(list.page, 1);
}

#[test]
fn stale_replies_are_dropped() {
    let mut app = app_with_teams();
    app.apply(ch('r'));
    let first = only_request(&mut app);
    app.apply(ch('o'));
    let second = only_request(&mut app);
    assert_ne!(first.req_id, second.req_id);
    app.take_dirty();
    reply(&mut app, &first, teams_page(100, 3, false, false));
    assert_eq!(row_ids(&app)[0], "tm_page0000", "stale page ignored");
    assert!(!app.take_dirty(), "a stale reply does not redraw");
    assert_eq!(app.state.in_flight(), 1, "still waiting for the newest");
    reply(&mut app, &second, teams_page(200, 3, false, false));
    assert_eq!(row_ids(&app)[0], "tm_page0200");
    // A late duplicate of an answered request is stale too.
    reply(&mut app, &second, teams_page(300, 3, false, false));
    assert_eq!(row_ids(&app)[0], "tm_page0200");
}

#[test]
fn a_reply_for_a_tab_left_behind_still_lands_in_that_tab() {
    let mut app = started_app(120, 40);
    let teams = only_request(&mut app);
    app.apply(ch('2'));
    let imports = only_request(&mut app);
    reply(&mut app, &teams, page_reply(Tab::Teams, "team-list.json"));
    assert_eq!(app.state.tab, Tab::Imports);
    assert_eq!(app.state.tab_state(Tab::Teams).list.rows.len(), 2);
    assert_eq!(app.state.current().list.load, LoadState::Loading);
    reply(
        &mut app,
        &imports,
        page_reply(Tab::Imports, "import-list.json"),
    );
    assert_eq!(app.state.current().list.rows.len(), 2);
}

fn api_error(file: &str) -> Error {
    let e: ApiError = serde_json::from_str(&fixture(file)).expect("error fixture");
    Error::Api(Box::new(e))
}

#[test]
fn errors_keep_the_data_and_name_the_needed_key() {
    let mut app = app_with_teams();
    app.apply(ch('r'));
    let req = only_request(&mut app);
    app.apply(Msg::Api {
        req_id: req.req_id,
        pane: req.pane,
        result: Err(api_error("error-unauthorized.json")),
    });
    let list = &app.state.current().list;
    assert_eq!(list.rows.len(), 20, "data kept on error");
    let LoadState::Error(e) = &list.load else {
        panic!("expected an error, got {:?}", list.load)
    };
    assert_eq!(e.status, Some(401));
    assert!(e.message.contains("401"), "{e:?}");
    assert!(e.hint.as_deref().unwrap_or("").contains("organization key"));

    app.apply(ch('2'));
    let req = only_request(&mut app);
    app.apply(Msg::Api {
        req_id: req.req_id,
        pane: req.pane,
        result: Err(Error::Api(Box::new(ApiError::synthetic(403, "forbidden")))),
    });
    let LoadState::Error(e) = &app.state.current().list.load else {
        panic!("expected an error")
    };
    assert!(
        e.hint
            .as_deref()
            .unwrap_or("")
            .contains("instance secret key"),
        "{e:?}"
    );

    // A retry that succeeds clears the error.
    app.apply(ch('r'));
    let req = only_request(&mut app);
    reply(&mut app, &req, page_reply(Tab::Imports, "import-list.json"));
    assert_eq!(app.state.current().list.load, LoadState::Loaded);
}

#[test]
fn server_messages_are_shown_for_other_errors() {
    let mut app = app_with_teams();
    app.apply(ch('r'));
    let req = only_request(&mut app);
    app.apply(Msg::Api {
        req_id: req.req_id,
        pane: req.pane,
        result: Err(api_error("error-rate-limited.json")),
    });
    let LoadState::Error(e) = &app.state.current().list.load else {
        panic!("expected an error")
    };
    let expected: ApiError =
        serde_json::from_str(&fixture("error-rate-limited.json")).expect("json");
    assert!(e.message.contains(&expected.message), "{e:?}");
    app.apply(ch('r'));
    let req = only_request(&mut app);
    app.apply(Msg::Api {
        req_id: req.req_id,
        pane: req.pane,
        result: Err(Error::Network("connection refused".into())),
    });
    let LoadState::Error(e) = &app.state.current().list.load else {
        panic!("expected an error")
    };
    assert!(e.message.contains("connection refused"));
    assert_eq!(e.status, None);
}

#[test]
fn enter_opens_a_detail_that_refreshes_and_esc_goes_back() {
    let mut app = started_app(80, 24);
    answer_all(&mut app);
    app.apply(ch('j'));
    let selected = app
        .state
        .current()
        .list
        .selected()
        .map(|r| r.id().to_string());
    app.apply(key(KeyCode::Enter));
    let detail = app.state.current().detail.clone().expect("detail open");
    assert_eq!(Some(detail.id.clone()), selected);
    assert!(detail.record.is_some(), "shown at once from the list row");
    // A team's detail also asks for the members (in the background; left unanswered here).
    let mut reqs = app.take_requests();
    let members = reqs.iter().position(|r| r.cmd == ApiCmd::Members);
    reqs.remove(members.expect("the members are asked for"));
    assert_eq!(reqs.len(), 1, "{reqs:?}");
    let req = reqs.remove(0);
    assert_eq!(
        req.cmd,
        ApiCmd::Get {
            tab: Tab::Teams,
            id: detail.id.clone()
        }
    );
    // j/k scroll the detail (as far as its lines go on this screen), not the list.
    let max = switchboard::console::detail::max_scroll(&app.state);
    app.apply(ch('j'));
    assert_eq!(
        app.state.current().detail.as_ref().map(|d| d.scroll),
        Some(max.min(1))
    );
    assert_eq!(app.state.current().list.cursor, 1);
    // Paging keys do nothing while a detail is open.
    app.apply(ch(']'));
    assert!(app.take_requests().is_empty());

    app.apply(Msg::Api {
        req_id: req.req_id,
        pane: req.pane,
        result: Err(api_error("error-not-found.json")),
    });
    let d = app.state.current().detail.as_ref().expect("detail");
    assert!(matches!(d.load, LoadState::Error(_)));
    assert!(d.record.is_some(), "old data kept on error");

    app.apply(ch('r'));
    let reqs = app.take_requests();
    assert_eq!(reqs.len(), 2, "reload refreshes list and detail: {reqs:?}");
    app.apply(key(KeyCode::Esc));
    assert!(app.state.current().detail.is_none());
    // The detail's reply arrives after it was closed: dropped.
    for r in reqs.iter().filter(|r| r.pane == Pane::Detail(Tab::Teams)) {
        reply(&mut app, r, item_reply(Tab::Teams, "team.json"));
    }
    assert!(app.state.current().detail.is_none());
    assert_eq!(
        app.state.in_flight(),
        2,
        "the list reload (and the members) still awaited"
    );
    assert!(app.state.current().list.pending.is_some());
}

#[test]
fn help_overlay_swallows_keys_and_quit_keys_work() {
    let mut app = app_with_teams();
    app.apply(ch('?'));
    assert!(app.state.help);
    app.apply(ch('j'));
    app.apply(ch('2'));
    assert_eq!(app.state.tab, Tab::Teams);
    assert_eq!(app.state.current().list.cursor, 0);
    app.apply(key(KeyCode::Esc));
    assert!(!app.state.help);
    app.apply(ch('q'));
    assert!(app.should_quit());

    let mut app = app_with_teams();
    app.apply(ch('?'));
    app.apply(Msg::Key(KeyEvent::new(
        KeyCode::Char('c'),
        KeyModifiers::CONTROL,
    )));
    assert!(app.should_quit(), "Ctrl-C quits even from the help");
}

#[test]
fn ticks_run_only_while_something_animates() {
    let mut app = started_app(80, 24);
    assert!(app.state.animating(), "a request is in flight");
    answer_all(&mut app);
    assert!(!app.state.animating());
    app.take_dirty();
    app.apply(Msg::Tick);
    assert!(!app.take_dirty(), "an idle tick changes nothing");
    app.apply(ch('['));
    assert!(app.take_requests().is_empty());
    assert!(app.state.animating(), "the first-page toast animates");
    for _ in 0..switchboard::console::state::TOAST_TICKS {
        app.apply(Msg::Tick);
    }
    assert!(app.state.toasts.is_empty(), "toasts clear themselves");
    assert!(!app.state.animating());
}

#[test]
fn filtered_navigation_returns_with_esc_and_restores_both_tabs() {
    use switchboard::api::NotificationFilter;
    use switchboard::console::pane::open_filtered;
    let mut app = started_app(120, 40);
    answer_all(&mut app);
    app.apply(ch('4'));
    answer_all(&mut app);
    app.apply(ch('j'));
    app.apply(ch('3'));
    answer_all(&mut app);
    app.apply(ch('G'));
    let filter = NotificationFilter {
        callback_ids: vec!["clb_x".into()],
        ..NotificationFilter::default()
    };
    let effects = open_filtered(&mut app.state, Tab::Destinations, filter.clone());
    assert_eq!(app.state.tab, Tab::Destinations);
    let [switchboard::console::Effect::Api { req_id, cmd, .. }] = effects.as_slice() else {
        panic!("one request expected: {effects:?}")
    };
    let ApiCmd::List { filter: sent, .. } = cmd else {
        panic!("list expected")
    };
    assert_eq!(sent, &filter);
    assert_eq!(app.state.current().list.cursor, 0);
    let req_id = *req_id;
    app.apply(key(KeyCode::Esc));
    assert_eq!(app.state.tab, Tab::Callbacks);
    assert_eq!(app.state.current().list.cursor, 2, "origin cursor restored");
    let dest = &app.state.tab_state(Tab::Destinations).list;
    assert!(dest.filter.is_empty(), "destinations unfiltered again");
    assert_eq!(dest.cursor, 1, "destinations cursor restored");
    // The filtered list's reply arrives after going back: dropped.
    reply(
        &mut app,
        &Request {
            req_id,
            pane: Pane::List(Tab::Destinations),
            cmd: cmd.clone(),
        },
        page_reply(Tab::Destinations, "destination-list.json"),
    );
    assert_eq!(app.state.tab_state(Tab::Destinations).list.cursor, 1);
}

#[test]
fn going_back_asks_again_for_what_the_restored_list_was_waiting_for() {
    use switchboard::api::NotificationFilter;
    use switchboard::console::pane::open_filtered;
    let mut app = started_app(120, 40);
    answer_all(&mut app);
    app.apply(ch('4'));
    let first = only_request(&mut app);
    let filter = NotificationFilter {
        callback_ids: vec!["clb_x".into()],
        ..NotificationFilter::default()
    };
    let _ = open_filtered(&mut app.state, Tab::Destinations, filter);
    app.apply(key(KeyCode::Esc));
    let again = only_request(&mut app);
    assert_eq!(again.pane, Pane::List(Tab::Destinations));
    assert_ne!(again.req_id, first.req_id);
    assert_eq!(again.cmd, first.cmd, "same query as the superseded one");
    reply(
        &mut app,
        &first,
        page_reply(Tab::Destinations, "destination-list.json"),
    );
    assert_eq!(
        app.state.current().list.load,
        LoadState::Loading,
        "old id is stale"
    );
    reply(
        &mut app,
        &again,
        page_reply(Tab::Destinations, "destination-list.json"),
    );
    assert_eq!(app.state.current().list.load, LoadState::Loaded);
}

/// The destinations whose activity check was asked for since the last call.
fn active_checks(app: &mut App) -> Vec<String> {
    app.take_requests()
        .into_iter()
        .filter_map(|r| match r.cmd {
            ApiCmd::Active(id) => Some(id),
            _ => None,
        })
        .collect()
}

/// An offline app on the Destinations tab, its list loaded.
fn app_on_destinations() -> App {
    let mut app = started_app(100, 30);
    answer_all(&mut app);
    let digit = char::from_digit(
        u32::try_from(Tab::Destinations.index() + 1).expect("tab"),
        10,
    );
    app.apply(ch(digit.expect("digit")));
    answer_all(&mut app);
    assert_eq!(app.state.tab, Tab::Destinations);
    app
}

#[test]
fn opening_another_destination_while_one_is_checked_still_checks_it() {
    let mut app = app_on_destinations();
    let ids = row_ids(&app);
    assert!(ids.len() >= 2, "{ids:?}");
    app.apply(key(KeyCode::Enter));
    assert_eq!(active_checks(&mut app), vec![ids[0].clone()]);
    // A's check is still in flight: B is checked all the same.
    app.apply(key(KeyCode::Esc));
    app.apply(key(KeyCode::Down));
    app.apply(key(KeyCode::Enter));
    assert_eq!(active_checks(&mut app), vec![ids[1].clone()]);
    // Back on A, whose check is still in flight: not asked twice.
    app.apply(key(KeyCode::Esc));
    app.apply(key(KeyCode::Up));
    app.apply(key(KeyCode::Enter));
    assert_eq!(active_checks(&mut app), Vec::<String>::new());
}

/// The health pane's requests since the last call.
fn health_requests(app: &mut App) -> Vec<Request> {
    app.take_requests()
        .into_iter()
        .filter(|r| r.pane == Pane::Health)
        .collect()
}

#[test]
fn the_health_pane_stops_when_a_server_says_more_but_gives_nothing_new() {
    // An empty page that says "more": asked again, it would be asked forever.
    let mut app = app_on_destinations();
    app.apply(key(KeyCode::Enter));
    let first = health_requests(&mut app);
    assert_eq!(first.len(), 1, "{first:?}");
    let empty =
        r#"{"items": [], "pagination": {"has_more_before": false, "has_more_after": true}}"#;
    let page = decode_page_body(Tab::Notifications, 200, empty).expect("page");
    reply(&mut app, &first[0], ApiReply::Page(page));
    assert!(health_requests(&mut app).is_empty(), "asked again");

    // The same page again and again (its last item never moves the cursor).
    let mut app = app_on_destinations();
    app.apply(key(KeyCode::Enter));
    let mut asked = 0;
    while let Some(r) = health_requests(&mut app).pop() {
        asked += 1;
        assert!(asked <= 2, "the same page is asked for again and again");
        reply(
            &mut app,
            &r,
            page_reply(Tab::Notifications, "notification-list.json"),
        );
    }
    assert_eq!(
        asked, 2,
        "the second page only shows the cursor did not move"
    );
}
