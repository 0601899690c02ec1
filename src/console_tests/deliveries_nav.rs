//! Cross-navigation and the filter dialog on an offline app: which requests go out, chips,
//! breadcrumb, and Esc restoring cursor and page.

use crate::common::screen;

use crate::common::{answer_all, ch, key, scroll_range, started_app};
use crossterm::event::KeyCode;
use switchboard::api::NotificationFilter;
use switchboard::console::{ApiCmd, App, Msg, Pane, Tab};

/// The single list request made since the last look: (tab, filter).
fn list_request(app: &mut App) -> (Tab, NotificationFilter) {
    let reqs = app.take_requests();
    let lists: Vec<_> = reqs
        .iter()
        .filter(|r| matches!(r.pane, Pane::List(_)))
        .filter_map(|r| match &r.cmd {
            ApiCmd::List { tab, filter, .. } => Some((*tab, filter.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(lists.len(), 1, "one list request: {reqs:?}");
    // Answer them from the fixtures.
    for r in reqs {
        let reply = match &r.cmd {
            ApiCmd::List { tab, .. } => {
                crate::common::page_reply(*tab, crate::common::fixtures_of(*tab).0)
            }
            ApiCmd::Get { tab, .. } => {
                crate::common::item_reply(*tab, crate::common::fixtures_of(*tab).1)
            }
            _ => continue,
        };
        app.apply(switchboard::console::Msg::Api {
            req_id: r.req_id,
            pane: r.pane,
            result: Ok(reply),
        });
    }
    // A status filter's scan asks for the next pages: answered alike (the fixture repeats
    // its rows, so the scan ends at once).
    loop {
        let more = app.take_requests();
        if more.is_empty() {
            break;
        }
        for r in more {
            if let ApiCmd::List { tab, .. } = &r.cmd {
                let reply = crate::common::page_reply(*tab, crate::common::fixtures_of(*tab).0);
                app.apply(switchboard::console::Msg::Api {
                    req_id: r.req_id,
                    pane: r.pane,
                    result: Ok(reply),
                });
            }
        }
    }
    lists[0].clone()
}

fn on(tab_key: char) -> App {
    let mut app = started_app(120, 40);
    answer_all(&mut app);
    app.apply(ch(tab_key));
    answer_all(&mut app);
    app
}

#[test]
fn callback_to_destinations_and_back() {
    let mut app = on('3');
    app.apply(ch('j'));
    let cursor = app.state.current().list.cursor;
    let cb = app
        .state
        .current()
        .list
        .selected()
        .expect("row")
        .id()
        .to_string();
    app.apply(ch('D'));
    let (tab, f) = list_request(&mut app);
    assert_eq!(tab, Tab::Destinations);
    assert_eq!(f.callback_ids, vec![cb.clone()]);
    assert_eq!(app.state.tab, Tab::Destinations);
    let s = screen(&app);
    assert!(s.contains("Callbacks › Destinations"), "{s}");
    assert!(s.contains("[callback: "), "{s}");
    app.apply(key(KeyCode::Esc));
    assert_eq!(app.state.tab, Tab::Callbacks);
    assert_eq!(app.state.current().list.cursor, cursor, "cursor restored");
    assert!(!screen(&app).contains("›"), "breadcrumb gone");
}

#[test]
fn callback_and_destination_to_notifications() {
    let mut app = on('3');
    let cb = app
        .state
        .current()
        .list
        .selected()
        .expect("row")
        .id()
        .to_string();
    app.apply(ch('N'));
    let (tab, f) = list_request(&mut app);
    assert_eq!((tab, f.callback_ids), (Tab::Notifications, vec![cb]));

    let mut app = on('4');
    // From the open detail too (the detail's item is the one followed).
    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    let detail = app
        .state
        .current()
        .detail
        .as_ref()
        .and_then(|d| d.record.as_ref());
    let dest = detail.expect("detail").id().to_string();
    app.apply(ch('N'));
    let (tab, f) = list_request(&mut app);
    assert_eq!((tab, f.destination_ids), (Tab::Notifications, vec![dest]));
    app.apply(key(KeyCode::Esc));
    assert_eq!(app.state.tab, Tab::Destinations);
    assert!(
        app.state.current().detail.is_some(),
        "the detail is where it was"
    );
}

#[test]
fn filter_dialog_sends_union_filters() {
    let mut app = on('5');
    app.apply(ch('f'));
    assert!(screen(&app).contains("Filter notifications"));
    for c in "clb_a, clb_b".chars() {
        app.apply(ch(c));
    }
    app.apply(key(KeyCode::Tab));
    for c in "cbe_1".chars() {
        app.apply(ch(c));
    }
    app.apply(key(KeyCode::Tab));
    for c in "cld_x cld_y".chars() {
        app.apply(ch(c));
    }
    app.apply(key(KeyCode::Enter));
    let (tab, f) = list_request(&mut app);
    assert_eq!(tab, Tab::Notifications);
    assert_eq!(f.callback_ids, vec!["clb_a", "clb_b"]);
    assert_eq!(f.event_ids, vec!["cbe_1"]);
    assert_eq!(f.destination_ids, vec!["cld_x", "cld_y"]);
    let s = screen(&app);
    assert!(s.contains("[callback: clb_a | clb_b]"), "{s}");
    // The destinations named by id are looked up (to name them, deleted ones too).
    assert!(
        app.take_requests()
            .iter()
            .all(|r| !matches!(r.cmd, ApiCmd::List { .. }))
    );
    // Esc cancels without a request.
    app.apply(ch('f'));
    app.apply(ch('z'));
    app.apply(key(KeyCode::Esc));
    assert!(app.take_requests().is_empty());
    assert_eq!(app.state.current().list.filter.callback_ids.len(), 2);
}

#[test]
fn local_status_filter_hides_other_rows_and_says_so() {
    use switchboard::console::deliveries::local::CYCLE;
    use switchboard::console::record::Item;
    let mut app = on('5');
    let loaded = app.state.current().list.rows.len();
    let count = |app: &App, st: &str| {
        app.state
            .current()
            .list
            .rows
            .iter()
            .filter(|r| matches!(&r.item, Item::Notification(n) if n.status.as_str() == st))
            .count()
    };
    // A status that some but not all fixture rows have.
    let (presses, status) = CYCLE
        .iter()
        .enumerate()
        .find(|(_, st)| (1..loaded).contains(&count(&app, st)))
        .map(|(i, st)| (i + 1, st.to_string()))
        .expect("fixture mixes statuses");
    let want = count(&app, &status);
    for _ in 0..presses {
        app.apply(ch('l'));
        let (tab, f) = list_request(&mut app);
        assert_eq!(tab, Tab::Notifications);
        assert!(f.is_empty(), "the status filter is not sent to the server");
    }
    assert_eq!(app.state.current().list.shown_len(), want);
    assert_eq!(
        app.state.current().list.rows.len(),
        loaded,
        "rows stay as the server sent them"
    );
    let s = screen(&app);
    assert!(
        s.contains(&format!("[{status} {want} of the newest {loaded}]")),
        "{s}"
    );
    // Cycling back to "all" brings every row back.
    for _ in presses..=CYCLE.len() {
        app.apply(ch('l'));
        list_request(&mut app);
    }
    assert_eq!(app.state.current().list.shown_len(), loaded);
    assert!(!screen(&app).contains("of the newest"));
}

#[test]
fn attempt_cursor_stays_on_screen_in_a_long_history() {
    use switchboard::console::record::Item;
    let mut app = started_app(80, 24);
    answer_all(&mut app);
    app.apply(ch('5'));
    answer_all(&mut app);
    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    let d = app.state.current_mut().detail.as_mut().expect("detail");
    let Some(Item::Notification(n)) = d.record.as_mut().map(|r| &mut r.item) else {
        panic!("notification detail");
    };
    let n = std::sync::Arc::make_mut(n);
    let first = n.attempts[0].clone();
    n.attempts = (0..30)
        .map(|i| {
            let mut a = first.clone();
            a.index = i;
            a.id = format!("cbna_{i}");
            a
        })
        .collect();
    app.apply(ch('G'));
    assert_eq!(app.state.deliveries.attempt_cursor, 29);
    let s = screen(&app);
    // Attempts are counted from 1 everywhere: the table, the attempt view's title and body.
    assert!(s.contains(" 30 "), "last attempt visible:\n{s}");
    app.apply(ch('g'));
    assert!(screen(&app).contains(" 1  "), "first attempt visible again");
    app.apply(key(KeyCode::Enter));
    let s = screen(&app);
    assert!(s.contains("Attempt #1 "), "{s}");
    assert!(s.contains("· attempt 1"), "{s}");
    assert!(!s.contains("Attempt #0"), "{s}");
    app.apply(key(KeyCode::Esc));
    app.apply(ch('G'));
    app.apply(key(KeyCode::Enter));
    let s = screen(&app);
    assert!(
        s.contains("Attempt #30 ") && s.contains("· attempt 30"),
        "{s}"
    );
}

#[test]
fn an_attempt_wraps_long_headers_whole_and_scrolls_back_at_once() {
    let signature = "i=api.metorial.com,t=1761320810,v1=3d1449264e18040508d40792ef899533193ff65375a11fce84ee13a65fd8450f";
    assert!(
        crate::common::fixture("notification.json").contains(signature),
        "the fixture's signature"
    );
    let mut app = started_app(80, 24);
    answer_all(&mut app);
    app.apply(ch('5'));
    answer_all(&mut app);
    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    app.apply(key(KeyCode::Enter));
    let s = screen(&app);
    // The header's rows, inside the border, joined: the value is there whole.
    let rows: Vec<&str> = s
        .lines()
        .map(|l| l.trim_matches('"').trim_matches('│').trim())
        .collect();
    let at = rows
        .iter()
        .position(|r| r.starts_with("metorial-signature: "))
        .unwrap_or_else(|| panic!("the signature header:\n{s}"));
    let joined: String = rows[at..]
        .iter()
        .take(3)
        .map(|r| r.trim_start_matches("metorial-signature: "))
        .collect();
    assert!(joined.starts_with(signature), "{joined}\n{s}");
    // The first row is filled, not left with the label alone.
    assert!(rows[at].starts_with("metorial-signature: i=api"), "{s}");
    // `G` then `k`: one line up at once.
    app.apply(ch('G'));
    let (_, b, n) = scroll_range(&screen(&app)).expect("the view scrolls at 80×24");
    assert_eq!(b, n);
    app.apply(ch('k'));
    assert_eq!(
        scroll_range(&screen(&app)).map(|(_, b, n)| (b, n)),
        Some((n - 1, n))
    );
}

#[test]
fn a_detail_scrolls_back_from_its_end_at_once() {
    let mut app = started_app(80, 14);
    answer_all(&mut app);
    app.apply(ch('2'));
    answer_all(&mut app);
    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    app.apply(ch('G'));
    let s = screen(&app);
    let (_, b, n) = scroll_range(&s).unwrap_or_else(|| panic!("the detail scrolls at 80×14:\n{s}"));
    assert_eq!(b, n, "{s}");
    app.apply(ch('k'));
    assert_eq!(
        scroll_range(&screen(&app)).map(|(_, b, n)| (b, n)),
        Some((n - 1, n))
    );
    // Past the end, `j` stays at the end and one `k` still moves.
    app.apply(ch('j'));
    app.apply(ch('j'));
    app.apply(ch('j'));
    app.apply(ch('k'));
    assert_eq!(
        scroll_range(&screen(&app)).map(|(_, b, n)| (b, n)),
        Some((n - 1, n))
    );
    // A shorter screen scrolls further: the end is worked out again after the resize.
    app.apply(Msg::Resize(80, 12));
    app.apply(ch('G'));
    let (_, b, n) = scroll_range(&screen(&app)).expect("still scrolls");
    assert_eq!(b, n);
    app.apply(ch('k'));
    assert_eq!(
        scroll_range(&screen(&app)).map(|(_, b, n)| (b, n)),
        Some((n - 1, n))
    );
}

/// The order of the notifications list's first request, with this `[console]` table.
fn notifications_order(console: &str) -> (switchboard::api::Order, Vec<String>) {
    use switchboard::console::power::PowerSetup;
    use switchboard::console::{Msg, State};
    let mut state = State::new("test", "http://127.0.0.1:9", crate::common::fixed_clock());
    PowerSetup {
        console: Some(toml::from_str(console).expect("table")),
        ..Default::default()
    }
    .configure(&mut state);
    let mut app = App::offline(state);
    app.apply(Msg::Resize(120, 40));
    app.start();
    answer_all(&mut app);
    app.apply(ch('5'));
    let order = app
        .take_requests()
        .iter()
        .find_map(|r| match &r.cmd {
            ApiCmd::List { query, .. } => query.order,
            _ => None,
        })
        .expect("a list request");
    let toasts = app.state.toasts.iter().map(|t| t.text.clone()).collect();
    (order, toasts)
}

#[test]
fn notifications_open_newest_first_unless_configured() {
    use switchboard::api::Order;
    assert_eq!(notifications_order("").0, Order::Desc);
    assert_eq!(
        notifications_order("notifications_order = \"asc\"").0,
        Order::Asc
    );
    assert_eq!(
        notifications_order("notifications_order = \"desc\"").0,
        Order::Desc
    );
    let (order, toasts) = notifications_order("notifications_order = 3");
    assert_eq!(order, Order::Desc, "a bad value keeps the default");
    assert!(
        toasts.iter().any(|t| t.contains("notifications_order")),
        "{toasts:?}"
    );
    // The other tabs keep the API's order.
    let mut app = on('1');
    app.apply(ch('r'));
    let orders: Vec<_> = app
        .take_requests()
        .iter()
        .filter_map(|r| match &r.cmd {
            ApiCmd::List { query, .. } => query.order,
            _ => None,
        })
        .collect();
    assert_eq!(orders, vec![Order::Asc]);
    let s = screen(&on('5'));
    assert!(s.contains("Notifications · newest first"), "{s}");
}

#[test]
fn clear_filters_and_local_status_can_be_rebound() {
    use crossterm::event::{KeyEvent, KeyModifiers};
    use switchboard::console::State;
    use switchboard::console::deliveries::keys::DeliveryKey;
    use switchboard::console::keymap::Action;
    use switchboard::console::power::PowerSetup;
    let mut state = State::new("test", "http://127.0.0.1:9", crate::common::fixed_clock());
    PowerSetup {
        keys: Some(toml::from_str("clear_filters = \"X\"\nlocal_status = \"L\"").expect("table")),
        ..Default::default()
    }
    .configure(&mut state);
    assert!(state.toasts.is_empty(), "{:?}", state.toasts);
    let key = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
    assert_eq!(
        state.settings.keymap.action_for(&key('X')),
        Some(Action::Deliver(DeliveryKey::ClearFilters))
    );
    assert_eq!(
        state.settings.keymap.action_for(&key('L')),
        Some(Action::Deliver(DeliveryKey::LocalStatus))
    );
}
