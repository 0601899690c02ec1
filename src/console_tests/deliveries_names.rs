//! Names where ids were, the filter dialog's pickers, clearing server filters, the signing
//! secret on demand and deleted destinations, on a real local service after real deliveries.
use crate::common;

use std::sync::{Arc, Mutex};

use common::deliveries::{World, screen, settle, world};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use switchboard::console::clipboard::{Clipboard, osc52};
use switchboard::console::{App, Tab};

async fn key(app: &mut App, code: KeyCode, mods: KeyModifiers) {
    app.handle_key(KeyEvent::new(code, mods));
    settle(app).await;
}

async fn press(app: &mut App, code: KeyCode) {
    key(app, code, KeyModifiers::NONE).await;
}

async fn ch(app: &mut App, c: char) {
    press(app, KeyCode::Char(c)).await;
}

async fn typed(app: &mut App, text: &str) {
    common::typed(app, text);
    settle(app).await;
}

/// Opens the detail of destination `id` on the Destinations tab.
async fn open_destination(app: &mut App, id: &str) {
    ch(app, '4').await;
    ch(app, 'g').await;
    let pos = app
        .state
        .tab_state(Tab::Destinations)
        .list
        .rows
        .iter()
        .position(|r| r.id() == id)
        .expect("destination listed");
    for _ in 0..pos {
        ch(app, 'j').await;
    }
    press(app, KeyCode::Enter).await;
}

async fn fired() -> World {
    let w = world().await;
    w.fire(1).await;
    w
}

#[tokio::test]
async fn names_in_details_columns_chips_and_the_filter_dialog() {
    let w = fired().await;
    let mut app = w.app().await;
    open_destination(&mut app, &w.healthy).await;
    let s = screen(&app);
    // The callback selected by the destination, by name with its id beside it.
    assert!(
        s.lines()
            .any(|l| l.contains("Custom CI hook") && l.contains(&w.callback)),
        "{s}"
    );
    press(&mut app, KeyCode::Esc).await;

    // The notifications list names each notification's destination (120 columns wide).
    ch(&mut app, '5').await;
    let s = screen(&app);
    // Beside the preview, names are cut to the column.
    assert!(
        s.contains("│  Status ") && s.contains(" Destinatio"),
        "a destination column:\n{s}"
    );
    assert!(
        s.contains(" Orders hea") && s.contains(" Orders dow"),
        "{s}"
    );

    // The filter dialog: destinations picked by name; the event field edits like a form field.
    // With the preview beside the list (the selected notification's callback named there): it
    // shows only where the list keeps every column whole (issue 37 item 12).
    app.apply(switchboard::console::Msg::Resize(
        crate::console::layout::preview_from(Tab::Notifications),
        40,
    ));
    ch(&mut app, 'f').await;
    let s = screen(&app);
    assert!(
        s.contains("Filter notifications") && s.contains("Custom CI hook"),
        "{s}"
    );
    press(&mut app, KeyCode::Tab).await;
    typed(&mut app, "junk").await;
    key(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL).await;
    let dialog = app.state.deliveries.filter.as_ref().expect("dialog open");
    assert_eq!(dialog.events.value(), "", "Ctrl-U clears the field");
    press(&mut app, KeyCode::Tab).await;
    typed(&mut app, "healthy").await;
    ch(&mut app, ' ').await;
    let s = screen(&app);
    assert!(s.contains("[Orders healthy]"), "chosen by name:\n{s}");
    press(&mut app, KeyCode::Enter).await;
    let list = &app.state.current().list;
    assert_eq!(list.filter.destination_ids, vec![w.healthy.clone()]);
    assert!(list.filter.event_ids.is_empty());
    let s = screen(&app);
    assert!(s.contains("[destination: Orders healthy]"), "{s}");
    assert!(s.contains("F clear filters"), "footer hint:\n{s}");
    assert!(!s.contains(" Orders dow"), "{s}");

    // Esc in the dialog cancels; F clears every server filter and the hint goes.
    ch(&mut app, 'f').await;
    ch(&mut app, 'x').await;
    press(&mut app, KeyCode::Esc).await;
    assert!(app.state.deliveries.filter.is_none());
    assert_eq!(app.state.current().list.filter.destination_ids.len(), 1);
    ch(&mut app, 'F').await;
    assert!(app.state.current().list.filter.destination_ids.is_empty());
    let s = screen(&app);
    assert!(
        !s.contains("F clear filters") && !s.contains("[destination:"),
        "{s}"
    );
    assert!(s.contains(" Orders dow"), "{s}");
    // Esc on the list clears server filters too, when there is nothing to go back to.
    ch(&mut app, 'f').await;
    press(&mut app, KeyCode::Tab).await;
    typed(&mut app, "cbe_nothing").await;
    press(&mut app, KeyCode::Enter).await;
    assert_eq!(
        app.state.current().list.filter.event_ids,
        vec!["cbe_nothing"]
    );
    press(&mut app, KeyCode::Esc).await;
    assert!(app.state.current().list.filter.event_ids.is_empty());
}

#[tokio::test]
async fn the_signing_secret_on_demand_and_copied_only_while_revealed() {
    let w = fired().await;
    let secret =
        w.t.client
            .get_destination(&w.healthy)
            .await
            .expect("destination")
            .webhook_destination
            .expect("webhook")
            .signing_secret;
    let mut app = w.app().await;
    let out = Arc::new(Mutex::new(Vec::new()));
    app.clipboard = Clipboard::to_buffer(out.clone());
    open_destination(&mut app, &w.healthy).await;
    let s = screen(&app);
    assert!(!s.contains(&secret) && s.contains("R reveals"), "{s}");
    ch(&mut app, 'R').await;
    assert!(screen(&app).contains("Reveal signing secret"));
    ch(&mut app, 'n').await;
    assert!(!screen(&app).contains(&secret), "declining keeps the mask");
    // While masked, y copies the id, never the secret.
    ch(&mut app, 'y').await;
    assert_eq!(*out.lock().expect("lock"), osc52(&w.healthy));
    out.lock().expect("lock").clear();

    ch(&mut app, 'R').await;
    ch(&mut app, 'y').await;
    let s = screen(&app);
    // Long secrets wrap under their label: its first 30 characters are on one line.
    assert!(s.contains(&secret[..30]) && s.contains("REVEALED"), "{s}");
    ch(&mut app, 'y').await;
    assert_eq!(*out.lock().expect("lock"), osc52(&secret));
    assert!(screen(&app).contains("signing secret"));

    // Leaving the destination hides it again.
    press(&mut app, KeyCode::Esc).await;
    press(&mut app, KeyCode::Enter).await;
    let s = screen(&app);
    assert!(!s.contains(&secret) && s.contains("R reveals"), "{s}");
}

#[tokio::test]
async fn a_deleted_destination_says_so() {
    let w = fired().await;
    let mut app = w.app().await;
    ch(&mut app, '4').await;
    w.t.client
        .delete_destination(&w.down)
        .await
        .expect("deleted");
    open_destination(&mut app, &w.down).await;
    let s = screen(&app);
    assert!(s.contains("deleted (no longer receives"), "{s}");
    press(&mut app, KeyCode::Esc).await;
    open_destination(&mut app, &w.healthy).await;
    assert!(
        !screen(&app).contains("deleted (no longer"),
        "the other is active"
    );
    // Wherever it is named: a chip after following it.
    press(&mut app, KeyCode::Esc).await;
    open_destination(&mut app, &w.down).await;
    ch(&mut app, 'N').await;
    let s = screen(&app);
    assert!(s.contains("Orders down (deleted)"), "{s}");
}

#[tokio::test]
async fn health_at_a_glance_in_the_list_and_over_time_in_the_detail() {
    let w = fired().await;
    w.fire(2).await;
    let mut app = w.app().await;
    ch(&mut app, '4').await;
    let h = app
        .state
        .caches
        .glance
        .get(&w.healthy)
        .expect("recent deliveries of the healthy destination");
    assert_eq!(h.deliveries.len(), 2);
    assert_eq!(h.success_percent(), Some(100));
    let down = app.state.caches.glance.get(&w.down).expect("down");
    assert_eq!(down.success_percent(), Some(0));
    let s = screen(&app);
    assert!(s.contains("Recent deliveri"), "a column:\n{s}");
    // Names are cut beside the preview: the healthy destination is listed before the down one.
    let rows: Vec<&str> = s
        .lines()
        .filter(|l| l.contains("│  Orders ") || l.contains("│▶ Orders "))
        .collect();
    assert_eq!(rows.len(), 2, "{s}");
    assert!(
        rows[0].contains(" 100%") && rows[1].contains("   0%"),
        "{s}"
    );
    // One bar per delivery, coloured by outcome: the down destination's bars are red.
    let buf = common::buffer(&app);
    let y = (0..40u16)
        .find(|y| {
            (0..120u16)
                .filter_map(|x| buf.cell((x, *y)))
                .map(ratatui::buffer::Cell::symbol)
                .collect::<String>()
                .contains("│  Orders ")
        })
        .map(|y| y + 1)
        .expect("row drawn");
    let theme = &app.state.settings.theme;
    let red_bars = (0..120u16)
        .filter_map(|x| buf.cell((x, y)))
        .filter(|c| "▁▂▃▄▅▆▇█".contains(c.symbol()) && c.fg == theme.error.fg.unwrap_or_default())
        .count();
    assert_eq!(red_bars, 2, "two failed deliveries, two red bars");

    open_destination(&mut app, &w.healthy).await;
    let s = screen(&app);
    assert!(
        s.contains("Outcomes over time") && s.contains("Window "),
        "{s}"
    );
    assert!(s.contains("· 2 loaded"), "{s}");
}

#[tokio::test]
async fn filter_dialog_snapshot_with_names_chosen() {
    use common::deliveries::{normalize, redact};
    let w = fired().await;
    let mut app = w.app().await;
    ch(&mut app, '5').await;
    ch(&mut app, 'f').await;
    typed(&mut app, "custom").await;
    ch(&mut app, ' ').await;
    press(&mut app, KeyCode::Tab).await;
    press(&mut app, KeyCode::Tab).await;
    typed(&mut app, "orders").await;
    ch(&mut app, ' ').await;
    typed(&mut app, "orders").await;
    normalize(&mut app.state);
    let notes =
        w.t.client
            .list_notifications(
                &switchboard::api::ListQuery {
                    limit: Some(100),
                    order: Some(switchboard::api::Order::Desc),
                    ..Default::default()
                },
                &switchboard::api::NotificationFilter::default(),
            )
            .await
            .expect("notifications")
            .items;
    let mut vol = vec![
        w.t.svc.base_url.trim_start_matches("http://").to_string(),
        w.receiver.trim_start_matches("http://").to_string(),
        w.callback.clone(),
        w.healthy.clone(),
        w.down.clone(),
    ];
    for n in &notes {
        vol.push(n.id.clone());
        vol.extend(n.body_field("eventId"));
        vol.extend(n.body_field("callbackId"));
    }
    let s = redact(&screen(&app), &vol);
    assert!(
        s.contains("[Custom CI hook]") && s.contains("[Orders healthy]"),
        "{s}"
    );
    assert!(
        s.contains("[x] Orders healthy") && s.contains("[ ] Orders down"),
        "{s}"
    );
    // The dialog alone: the list behind it holds rows whose order within a millisecond varies.
    let lines: Vec<Vec<char>> = s.lines().map(|l| l.chars().collect()).collect();
    let (top, left) = lines
        .iter()
        .enumerate()
        .find_map(|(y, l)| {
            let text: String = l.iter().collect();
            text.find("┌ Filter notifications")
                .map(|b| (y, text[..b].chars().count()))
        })
        .expect("dialog drawn");
    let bottom = (top..lines.len())
        .find(|&y| lines[y].get(left) == Some(&'└'))
        .expect("the dialog's bottom border");
    let dialog: Vec<String> = lines[top..=bottom]
        .iter()
        .map(|l| l[left..(left + 76).min(l.len())].iter().collect())
        .collect();
    insta::assert_snapshot!("console_deliveries_filter_dialog", dialog.join("\n"));
}

#[test]
fn a_reply_goes_to_the_pane_it_is_addressed_to_not_to_whoever_has_its_request_id() {
    use switchboard::console::{ApiReply, Msg, Pane, State};
    let mut app = App::offline(State::new(
        "test",
        "http://127.0.0.1:9",
        common::fixed_clock(),
    ));
    app.state.caches.active_pending.insert(77, "dst_x".into());
    // Addressed to the names lookup, which waits for nothing: dropped, whatever its id.
    app.apply(Msg::Api {
        req_id: 77,
        pane: Pane::Names,
        result: Ok(ApiReply::Active(true)),
    });
    assert!(
        app.state.caches.active.is_empty(),
        "not taken as an answer about dst_x"
    );
    assert!(
        app.state.caches.active_pending.contains_key(&77),
        "still waiting"
    );
    app.apply(Msg::Api {
        req_id: 77,
        pane: Pane::Active,
        result: Ok(ApiReply::Active(true)),
    });
    assert!(app.state.caches.active.contains("dst_x"));
}
