//! Issue 37 item 4: `n` keeps scanning within the walk budget (the client's, as every walk) and
//! stops at it with a message, the cursor left on the last match. Against the local service
//! seeded with a long history (`serve --history N`), over real HTTP; the budget is chosen from
//! the history so that one press has to stop at it.
use std::time::Duration;

use crate::common::fixed_clock;
use crate::common::service::start_with;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use switchboard::api::budget::Budget;
use switchboard::api::model::{Notification, NotificationStatus};
use switchboard::api::{Client, ClientOptions, ListQuery, NotificationFilter, Order};
use switchboard::console::{App, Msg, State};
use switchboard::service::ServiceConfig;

/// Rows a page of the console holds at this height (its floor of 20).
const PAGE: usize = 20;
const SIZE: (u16, u16) = (200, 24);

/// Every notification, newest first (the console's order).
async fn all(client: &Client) -> Vec<Notification> {
    let mut out = Vec::new();
    let mut after = None;
    loop {
        let q = ListQuery {
            limit: Some(100),
            after: after.clone(),
            order: Some(Order::Desc),
            ..ListQuery::default()
        };
        let page = client
            .list_notifications(&q, &NotificationFilter::default())
            .await
            .expect("a page");
        after = page.items.last().map(|n| n.id.clone());
        let more = page.pagination.has_more_after;
        out.extend(page.items);
        if !more {
            return out;
        }
    }
}

async fn settle(app: &mut App) {
    tokio::time::timeout(Duration::from_secs(60), async {
        while !app.is_idle() {
            let m = crate::common::next_reply(app).await;
            app.apply(m);
        }
    })
    .await
    .expect("the console settles");
}

async fn press(app: &mut App, c: char) {
    app.handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    settle(app).await;
}

fn selected(app: &App) -> Option<String> {
    app.state
        .current()
        .list
        .selected()
        .map(|r| r.id().to_string())
}

#[tokio::test]
async fn n_stops_at_the_walk_budget_on_the_last_match() {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.history = 600;
    let t = start_with(cfg).await;
    let rows = all(&t.client).await;
    assert!(rows.len() > 20 * PAGE, "{} notifications", rows.len());
    // The failed rows' pages, in the console's order; the cursor starts on row 0 (page 0).
    let failed: Vec<usize> = rows
        .iter()
        .enumerate()
        // Row 0 is where the cursor starts: `n` looks after it.
        .filter(|(i, n)| *i > 0 && n.status == NotificationStatus::Failed)
        .map(|(i, _)| i)
        .collect();
    let pages: Vec<usize> = std::iter::once(0)
        .chain(failed.iter().map(|i| i / PAGE))
        .collect();
    // The smallest budget (pages) under which every press up to the `k`th finds its failure,
    // and the `k`th's failure lies further than the budget reaches.
    let (budget, k) = (1..=6usize)
        .find_map(|p| {
            let k = pages.windows(2).position(|w| w[1] - w[0] > p)?;
            // Another failure lies beyond, so the stop is the budget's, not the list's end.
            Some((p, k))
        })
        .expect("a gap between failures longer than a few pages in the history");
    assert!(k < failed.len(), "{k}");

    let client = Client::new(ClientOptions {
        base_url: t.svc.base_url.clone(),
        api_key: t.svc.api_key.clone(),
        max_retries: 0,
        request_timeout: Duration::from_secs(15),
        budget: Budget {
            pages: budget,
            ..Budget::default()
        },
        ..ClientOptions::default()
    })
    .expect("client");
    let mut app = App::with_client(
        State::new("history", t.svc.base_url.clone(), fixed_clock()),
        client,
    );
    app.apply(Msg::Resize(SIZE.0, SIZE.1));
    app.start();
    settle(&mut app).await;
    press(&mut app, '5').await;
    assert_eq!(app.state.current().list.limit as usize, PAGE);
    // Each press up to the `k`th finds the next failure within the budget.
    for &at in &failed[..k] {
        press(&mut app, 'n').await;
        assert_eq!(selected(&app).as_deref(), Some(rows[at].id.as_str()));
    }
    let last = selected(&app);
    // The next failure lies more than `budget` pages on: the press stops at the budget.
    press(&mut app, 'n').await;
    let s = crate::common::screen(&app);
    assert!(
        s.contains("(the walk's budget): n looks further"),
        "stopped at the budget ({budget} pages):\n{s}"
    );
    assert_eq!(selected(&app), last, "the cursor stays on the last match");
    assert!(app.state.deliveries.local.scan.is_none(), "the scan ended");
    // And `n` again goes on from there, to the failure it had not reached (a fresh budget each
    // press, as the message says).
    let mut pressed = 0;
    while selected(&app).as_deref() != Some(rows[failed[k]].id.as_str()) {
        press(&mut app, 'n').await;
        pressed += 1;
        assert!(pressed < 50, "n reaches the next failure");
    }
}
