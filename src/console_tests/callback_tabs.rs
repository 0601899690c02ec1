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
        app.toasts().iter().any(|t| t.contains("follows a callback")),
        "{:?}",
        app.toasts()
    );
}
