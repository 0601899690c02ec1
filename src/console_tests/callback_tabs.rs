//! The console on `serve --generation callback-destinations` over real HTTP: provider
//! deployments and callback events as tabs (list, detail, columns, `/`), `i` from a callback to
//! the events it received, and an event's received webhook through the sanitizer.
use crossterm::event::KeyCode;
use switchboard::api::generation::Generation;
use switchboard::api::{ApiRequest, Client, ListQuery, Page};
use switchboard::console::Tab;
use switchboard::console::harness::Harness;

use super::callback_destinations_console::{console, go, service};

fn q100() -> ListQuery {
    ListQuery {
        limit: Some(100),
        ..ListQuery::default()
    }
}

async fn ids(client: &Client, req: &ApiRequest) -> Vec<String> {
    let raw = client.send(req).await.expect("list");
    let page: Page<serde_json::Value> = serde_json::from_str(&raw.body).expect("a page");
    page.items
        .iter()
        .filter_map(|v| v["id"].as_str().map(str::to_string))
        .collect()
}

fn header(app: &Harness) -> String {
    app.screen().lines().next().unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_deployments_are_a_tab_with_list_detail_and_filter() {
    let (_svc, client) = service().await;
    let mut app = console(&client, 200, 50).await;
    let shown = switchboard::console::tab::shown_for(Generation::CallbackDestinations);
    assert!(shown.contains(&Tab::ProviderDeployments), "{shown:?}");
    assert!(shown.contains(&Tab::DeploymentCallbackEvents), "{shown:?}");
    let head = header(&app);
    assert!(head.contains(" 7 Deployments "), "{head}");
    assert!(head.contains(" 8 Callback events "), "{head}");
    // The digit follows the tab order.
    app.ch('7');
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), Tab::ProviderDeployments, "{}", app.screen());
    assert!(app.list_error().is_none(), "{:?}", app.list_error());
    let mut rows = app.row_ids();
    let mut want = ids(&client, &ApiRequest::list_provider_deployments(&q100())).await;
    rows.sort();
    want.sort();
    assert!(want.len() > 1, "the demo seeds deployments: {want:?}");
    assert_eq!(rows, want, "the server's deployments");
    let s = app.screen();
    for col in ["Name", "Default", "Created"] {
        assert!(s.contains(col), "{col}: {s}");
    }
    // Its detail.
    let first = app.selected_id().expect("a row");
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("Deployment "), "{s}");
    assert!(s.contains(&first), "{s}");
    assert!(s.contains("Provider"), "{s}");
    app.key(KeyCode::Esc);
    app.settle().await.expect("idle");
    // `/` keeps the rows showing the text: one deployment's name.
    let raw = client
        .send(&ApiRequest::get_provider_deployment(&first))
        .await
        .expect("get");
    let d: serde_json::Value = serde_json::from_str(&raw.body).expect("json");
    let name = d["name"].as_str().expect("a name").to_string();
    let word = name.split_whitespace().next().expect("a word").to_string();
    app.ch('/').type_text(&word).key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let shown_ids = app.shown_ids();
    assert!(shown_ids.contains(&first), "{shown_ids:?}");
    assert!(shown_ids.len() < want.len(), "{word}: {shown_ids:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn i_on_a_callback_lists_its_events_and_an_events_detail_shows_the_webhook_sanitized() {
    let (svc, client) = service().await;
    let mut app = console(&client, 200, 60).await;
    // Without a callback chosen: every callback's newest events, merged.
    go(&mut app, Tab::DeploymentCallbackEvents).await;
    assert!(app.list_error().is_none(), "{:?}", app.list_error());
    assert!(!app.row_ids().is_empty(), "{}", app.screen());
    let s = app.screen();
    for col in ["Delivery", "Type", "Trigger", "Created"] {
        assert!(s.contains(col), "{col}: {s}");
    }

    // A hostile webhook received by the first callback.
    go(&mut app, Tab::DeploymentCallbacks).await;
    let cb = app.selected_id().expect("a callback");
    let hostile = serde_json::json!({
        "type": "issues.opened",
        "title": "Red \u{1b}[31mALERT\u{1b}]0;pwned\u{7} done",
    });
    let r = reqwest::Client::new()
        .post(format!("{}/w/{cb}", svc.base_url))
        .json(&hostile)
        .send()
        .await
        .expect("posted");
    assert!(r.status().is_success(), "{}", r.status());
    let made: serde_json::Value = r.json().await.expect("json");
    let event = made["callback_event_id"]
        .as_str()
        .expect("an event id")
        .to_string();

    // `i`: the callback's own events, as `callbacks events ID` lists them.
    app.ch('i');
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), Tab::DeploymentCallbackEvents, "{}", app.screen());
    assert!(app.list_error().is_none(), "{:?}", app.list_error());
    let own = ids(
        &client,
        &ApiRequest::list_deployment_callback_events(&q100(), &cb, &[]),
    )
    .await;
    let rows = app.row_ids();
    assert!(!rows.is_empty(), "{}", app.screen());
    assert!(rows.iter().all(|r| own.contains(r)), "{rows:?} of {own:?}");
    assert!(rows.contains(&event), "the new event: {rows:?}");

    // Its detail: the webhook received and what was passed on, no control character drawn.
    let at = rows.iter().position(|r| *r == event).expect("listed");
    app.key(KeyCode::Home);
    for _ in 0..at {
        app.ch('j');
    }
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains(&format!("Callback event {event}")), "{s}");
    for label in ["Webhook received", "Passed on", "Delivery", "Trigger"] {
        assert!(s.contains(label), "{label}: {s}");
    }
    assert!(s.contains("ALERT"), "the payload shown: {s}");
    assert!(
        !s.contains('\u{1b}') && !s.contains('\u{7}'),
        "no control character reaches the screen: {s:?}"
    );

    // `i` elsewhere says what it follows.
    go(&mut app, Tab::CallbackDestinations).await;
    app.ch('i');
    app.settle().await.expect("idle");
    assert!(
        app.toasts()
            .iter()
            .any(|t| t.contains("follows a callback")),
        "{:?}",
        app.toasts()
    );
}

/// A notification's status as the server has it now (a failed one stays failed).
fn status_of(all: &[serde_json::Value], id: &str) -> String {
    all.iter()
        .find(|n| n["id"] == id)
        .and_then(|n| n["status"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn n_and_shift_n_reach_failed_notifications_through_the_servers_status_filter() {
    let (svc, client) = service().await;
    // New events push the seeded failed notifications out of the newest page.
    let cbs = switchboard::api::callback_gen::callbacks(&client)
        .await
        .expect("callbacks");
    let cb = cbs
        .iter()
        .find(|c| {
            c["status"] == "active"
                && c["destinations"]
                    .as_array()
                    .is_some_and(|d| d.iter().any(|d| d["status"] == "active"))
        })
        .and_then(|c| c["id"].as_str())
        .expect("an active callback with an active destination")
        .to_string();
    let http = reqwest::Client::new();
    for i in 0..25 {
        let r = http
            .post(format!("{}/w/{cb}", svc.base_url))
            .json(&serde_json::json!({"type": "issues.opened", "number": i}))
            .send()
            .await
            .expect("posted");
        assert!(r.status().is_success(), "{}", r.status());
    }
    let mut app = console(&client, 200, 50).await;
    go(&mut app, Tab::CallbackNotifications).await;
    let loaded = app.row_ids();
    assert!(!loaded.is_empty(), "{}", app.screen());
    let mut visited: Vec<String> = Vec::new();
    let mut filtered = false;
    let mut ended = false;
    for _ in 0..60 {
        app.ch('n');
        app.settle().await.expect("idle");
        assert!(app.list_error().is_none(), "{:?}", app.list_error());
        let toasts = app.toasts();
        filtered |= toasts.iter().any(|t| t.contains("server's status filter"));
        if toasts
            .iter()
            .any(|t| t.contains("No failed notification after"))
        {
            ended = true;
            break;
        }
        let here = app.selected_id().expect("a row");
        assert!(!visited.contains(&here), "n moves on: {here} again");
        visited.push(here);
    }
    assert!(ended, "n stops at the last failed one: {visited:?}");
    assert!(filtered, "past the loaded rows n asks the server's filter");
    assert!(
        visited.iter().any(|v| !loaded.contains(v)),
        "a failed notification beyond the rows loaded: {visited:?} of {loaded:?}"
    );
    let all = super::callback_destinations_console::all_notifications(&client).await;
    for id in &visited {
        assert_eq!(status_of(&all, id), "failed", "{id}");
    }
    // The list now shows what the server filters: failed only.
    for id in app.row_ids() {
        assert_eq!(status_of(&all, &id), "failed", "{id}");
    }
    // N goes back, failed ones only.
    let last = app.selected_id().expect("a row");
    let at = app
        .row_ids()
        .iter()
        .position(|r| *r == last)
        .expect("shown");
    app.ch('N');
    app.settle().await.expect("idle");
    let back = app.selected_id().expect("a row");
    if at > 0 {
        assert_ne!(back, last, "N moved");
        assert_eq!(status_of(&all, &back), "failed");
    } else {
        assert!(
            app.toasts()
                .iter()
                .any(|t| t.contains("No failed notification before")),
            "{:?}",
            app.toasts()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marks_select_notifications_merged_across_callbacks() {
    let (_svc, client) = service().await;
    let mut app = console(&client, 200, 50).await;
    go(&mut app, Tab::CallbackNotifications).await;
    let rows = app.row_ids();
    assert!(rows.len() > 3, "{rows:?}");
    // Space marks the row and moves on; the title counts; a ● column shows.
    app.ch(' ');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("· 1 marked"), "{s}");
    assert!(s.contains('●'), "{s}");
    assert_eq!(app.selected_id().as_deref(), Some(rows[1].as_str()));
    // V marks from the last marked row to here.
    app.ch('j').ch('V');
    app.settle().await.expect("idle");
    assert!(app.screen().contains("· 3 marked"), "{}", app.screen());
    // * marks every loaded row; Esc clears them with a count.
    app.ch('*');
    app.settle().await.expect("idle");
    let all = format!("· {} marked", rows.len());
    assert!(app.screen().contains(&all), "{}", app.screen());
    app.key(KeyCode::Esc);
    app.settle().await.expect("idle");
    assert!(
        app.toasts()
            .iter()
            .any(|t| t.contains(&format!("Cleared {} marks", rows.len()))),
        "{:?}",
        app.toasts()
    );
    assert!(!app.screen().contains("marked"), "{}", app.screen());
    // Marks stay with the notifications list: elsewhere they say so.
    go(&mut app, Tab::DeploymentCallbacks).await;
    app.ch(' ');
    app.settle().await.expect("idle");
    assert!(
        app.toasts()
            .iter()
            .any(|t| t.contains("marks are for rows")),
        "{:?}",
        app.toasts()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callback_destinations_health_counts_as_destinations_stats_does() {
    let (_svc, client) = service().await;
    let all = super::callback_destinations_console::all_notifications(&client).await;
    let mut app = console(&client, 200, 60).await;
    go(&mut app, Tab::CallbackDestinations).await;
    // The destination with the most notifications (every callback asked with its filter).
    let mut best: Option<(usize, String)> = None;
    for d in app.row_ids() {
        let mut n = 0;
        for cb in switchboard::api::callback_gen::callback_ids(&client)
            .await
            .expect("callbacks")
        {
            let f = switchboard::api::newer_requests::CallbackNotificationFilter {
                destination_ids: vec![d.clone()],
                statuses: Vec::new(),
            };
            n += ids(
                &client,
                &ApiRequest::list_callback_notifications(&q100(), &cb, &f),
            )
            .await
            .len();
        }
        if best.as_ref().is_none_or(|(m, _)| n > *m) {
            best = Some((n, d));
        }
    }
    let (count, dest) = best.expect("a destination");
    assert!(count > 0 && count < 100, "{count}");
    assert!(all.len() >= count);
    app.ch(':')
        .type_text(&format!("goto {dest}"))
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("Health (last 24h"), "{s}");
    // The seeded notifications are of the last hours: all in the window.
    assert!(
        s.contains(&format!("{count} notification")),
        "{count} counted: {s}"
    );
    assert!(s.contains("succeeded,") && s.contains("retried"), "{s}");
    assert!(s.contains("success "), "{s}");
}
