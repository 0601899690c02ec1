//! `Ctrl-F` on Notifications (issue 38), on the local service: the expression is asked on the
//! command line, the list fills with the matches found across pages with the count examined in
//! its title, the client's walk budget stops it, and `Esc` stops it keeping what it found.
use crossterm::event::KeyCode;
use switchboard::api::budget::Budget;
use switchboard::api::model::Notification;
use switchboard::api::{
    ApiRequest, Client, ClientOptions, ListQuery, NotificationFilter, Order, Page,
};
use switchboard::console::{App, State};
use switchboard::service::ServiceConfig;

use crate::common::deliveries::{fixed_clock, settle};
use crate::common::service::{TestService, start_with};
use crate::common::{ctrl, key, screen, shown_ids, typed};

/// Every page of the list, newest first, as the search walks it.
async fn pages(t: &TestService) -> Vec<Vec<Notification>> {
    let mut out = Vec::new();
    let mut after = None;
    loop {
        let q = ListQuery {
            limit: Some(100),
            after: after.clone(),
            order: Some(Order::Desc),
            ..ListQuery::default()
        };
        let raw = t
            .client
            .send(&ApiRequest::list_notifications(
                &q,
                &NotificationFilter::default(),
            ))
            .await
            .expect("a page");
        let page: Page<Notification> = serde_json::from_str(&raw.body).expect("page");
        after = page.items.last().map(|n| n.id.clone());
        let more = page.pagination.has_more_after;
        out.push(page.items);
        if !more {
            return out;
        }
    }
}

/// A console on the service whose walks may read `pages` pages.
async fn app(t: &TestService, pages: usize) -> App {
    let client = Client::new(ClientOptions {
        base_url: t.svc.base_url.clone(),
        api_key: t.svc.api_key.clone(),
        max_retries: 0,
        budget: Budget::with_max_pages(pages),
        ..ClientOptions::default()
    })
    .expect("client");
    let state = State::new("test", t.svc.base_url.clone(), fixed_clock());
    let mut app = App::with_client(state, client);
    app.apply(switchboard::console::Msg::Resize(200, 40));
    app.start();
    settle(&mut app).await;
    app
}

fn search(app: &mut App, expr: &str) {
    app.apply(ctrl('f'));
    assert!(screen(app).contains(":search "), "{}", screen(app));
    typed(app, expr);
    app.apply(key(KeyCode::Enter));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_f_fills_the_list_with_matches_across_pages_within_the_bound() {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.history = 300;
    let t = start_with(cfg).await;
    let all = pages(&t).await;
    let total: usize = all.iter().map(Vec::len).sum();
    assert!(all.len() >= 6, "{} pages", all.len());
    let needle = all[4][50].id.clone();
    let expr = format!(r#".notificationId == "{needle}""#);

    let mut a = app(&t, 200).await;
    search(&mut a, &expr);
    settle(&mut a).await;
    assert_eq!(shown_ids(&a), vec![needle.clone()]);
    let s = screen(&a);
    assert!(
        s.contains(&format!("examined {total}, matched 1")) && s.contains("(end of the list)"),
        "{s}"
    );

    // A bound of 3 pages: the match is on page 5, so it is not found, and the title says why.
    let mut bounded = app(&t, 3).await;
    search(&mut bounded, &expr);
    settle(&mut bounded).await;
    assert!(shown_ids(&bounded).is_empty());
    let s = screen(&bounded);
    assert!(
        s.contains("examined 300, matched 0") && s.contains("bound: 3 pages"),
        "{s}"
    );

    // A bad expression is said before any request; nothing is searched.
    let before = shown_ids(&bounded);
    search(&mut bounded, ".order ==");
    assert!(!bounded.is_idle() || shown_ids(&bounded) == before);
    settle(&mut bounded).await;
    assert!(
        screen(&bounded).contains("search: "),
        "{}",
        screen(&bounded)
    );

    // Esc stops a search: its chip says so and its reply is not waited for.
    let mut stopped = app(&t, 200).await;
    search(&mut stopped, "true");
    stopped.apply(key(KeyCode::Esc));
    settle(&mut stopped).await;
    let s = screen(&stopped);
    assert!(
        s.contains("(stopped)") && s.contains("Search stopped"),
        "{s}"
    );
}
