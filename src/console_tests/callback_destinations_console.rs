//! The console on `serve --generation callback-destinations` over real HTTP: this generation's
//! tabs (teams, policies, imports, callbacks, destinations, notifications), the notifications
//! read without a global list (one callback's, or every callback's merged newest first) with the
//! platform's status filter, and a notification's detail with its embedded request.
use std::time::Duration;

use crossterm::event::KeyCode;
use switchboard::api::generation::Generation;
use switchboard::api::{ApiRequest, Client, ClientOptions, ListQuery, Secret};
use switchboard::console::Tab;
use switchboard::console::harness::Harness;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::fixed_clock;

pub(super) const ORG_KEY: &str = "sk_org_console_callback_destinations_0123456";
pub(super) const INSTANCE_KEY: &str = "sk_instance_console_callback_destinations_01";

pub(super) async fn service() -> (RunningService, Client) {
    let cfg = ServiceConfig {
        seed: Seed::Demo,
        generation: Generation::CallbackDestinations,
        api_key: Some(Secret::new(ORG_KEY)),
        instance_key: Some(Secret::new(INSTANCE_KEY)),
        ..ServiceConfig::ephemeral()
    };
    let svc = start(cfg).await.expect("service starts");
    let client = Client::new(ClientOptions {
        base_url: svc.base_url.clone(),
        api_key: Secret::new(INSTANCE_KEY),
        organization_key: Some(Secret::new(ORG_KEY)),
        instance_id: svc.instance_id.clone(),
        max_retries: 0,
        request_timeout: Duration::from_secs(15),
        ..ClientOptions::default()
    })
    .expect("client");
    (svc, client)
}

/// The console as `switchboard` starts it on this deployment: the detected generation's tabs.
pub(super) async fn console(client: &Client, w: u16, h: u16) -> Harness {
    let g = client.served().await.and_then(|c| c.generation);
    assert_eq!(g, Some(Generation::CallbackDestinations), "detected");
    let mut app = Harness::with_client("cbd", client.clone(), fixed_clock(), (w, h));
    app.show_generation(Generation::CallbackDestinations);
    app.settle().await.expect("idle");
    app
}

pub(super) async fn go(app: &mut Harness, tab: Tab) {
    app.ch(':').type_text(tab.aliases()[0]).key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), tab, "{}", app.screen());
}

/// Every callback's notifications as the server lists them (each callback asked).
pub(super) async fn all_notifications(client: &Client) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    for cb in switchboard::api::callback_gen::callback_ids(client)
        .await
        .expect("callbacks")
    {
        let q = ListQuery {
            limit: Some(100),
            ..ListQuery::default()
        };
        let raw = client
            .send(&ApiRequest::list_callback_notifications(
                &q,
                &cb,
                &Default::default(),
            ))
            .await
            .expect("list");
        let page: switchboard::api::Page<serde_json::Value> =
            serde_json::from_str(&raw.body).expect("a page");
        out.extend(page.items);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tabs_are_this_generations() {
    let (_svc, client) = service().await;
    let mut app = console(&client, 200, 40).await;
    let head = app.screen().lines().next().unwrap_or_default().to_string();
    let shown = switchboard::console::tab::shown_for(Generation::CallbackDestinations);
    assert_eq!(
        shown,
        vec![
            Tab::OrgTeams,
            Tab::AccessPolicies,
            Tab::AuthImports,
            Tab::DeploymentCallbacks,
            Tab::CallbackDestinations,
            Tab::CallbackNotifications,
            Tab::ProviderDeployments,
            Tab::DeploymentCallbackEvents,
        ]
    );
    for (i, t) in shown.iter().enumerate() {
        assert!(
            head.contains(&format!(" {} {} ", i + 1, t.title())),
            "{t:?}: {head}"
        );
    }
    assert!(
        !head.contains("Listeners"),
        "no newest-generation tab: {head}"
    );
    // Every tab lists the seeded items (teams need the organization key, given).
    for t in &shown {
        go(&mut app, *t).await;
        assert!(app.list_error().is_none(), "{t:?}: {:?}", app.list_error());
        assert!(!app.row_ids().is_empty(), "{t:?}: rows\n{}", app.screen());
    }
    // The digits follow the tab order.
    app.ch('4');
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), Tab::DeploymentCallbacks);
    let s = app.screen();
    assert!(s.contains("cbk_"), "{s}");
    // A destination's detail: its URL, its secret never shown.
    app.ch('5');
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), Tab::CallbackDestinations);
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("URL"), "{s}");
    assert!(!s.contains("whsec_"), "no secret on screen: {s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_merge_every_callbacks_newest_first_and_filter_by_status() {
    let (_svc, client) = service().await;
    let all = all_notifications(&client).await;
    assert!(all.len() > 1, "the demo has notifications");
    let mut app = console(&client, 200, 50).await;
    go(&mut app, Tab::CallbackNotifications).await;
    assert!(app.list_error().is_none(), "{:?}", app.list_error());
    let rows = app.row_ids();
    assert!(!rows.is_empty(), "{}", app.screen());
    // Newest first across callbacks: the server's created_at, in the order shown.
    let created = |id: &str| {
        all.iter()
            .find(|n| n["id"] == id)
            .and_then(|n| n["created_at"].as_str().map(str::to_string))
            .unwrap_or_default()
    };
    let times: Vec<String> = rows.iter().map(|id| created(id)).collect();
    let mut sorted = times.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(times, sorted, "newest first: {rows:?}");
    // Rows from more than one callback are merged.
    assert!(rows.len() <= 20, "one bounded page: {}", rows.len());
    assert!(rows.iter().all(|id| id.starts_with("sdi_")), "{rows:?}");

    // `l`: the platform's status filter, every row in the status named.
    let mut seen_failed = false;
    for want in ["pending", "delivered", "retrying", "failed"] {
        app.ch('l');
        app.settle().await.expect("idle");
        assert!(
            app.toasts().iter().any(|t| t.contains(want)),
            "{want}: {:?}",
            app.toasts()
        );
        assert!(app.list_error().is_none(), "{:?}", app.list_error());
        for id in app.row_ids() {
            let n = all.iter().find(|n| n["id"] == id.as_str());
            assert_eq!(
                n.and_then(|n| n["status"].as_str()),
                Some(want),
                "{want}: {id}"
            );
        }
        seen_failed |= want == "failed" && !app.row_ids().is_empty();
    }
    assert!(seen_failed, "the demo has failed notifications");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callbacks_notifications_and_a_notifications_request() {
    let (_svc, client) = service().await;
    let mut app = console(&client, 200, 60).await;
    go(&mut app, Tab::DeploymentCallbacks).await;
    let cb = app.selected_id().expect("a callback");
    // N on a callback: its own notifications only.
    app.ch('N');
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), Tab::CallbackNotifications, "{}", app.screen());
    let raw = client
        .send(&ApiRequest::list_callback_notifications(
            &ListQuery {
                limit: Some(100),
                ..ListQuery::default()
            },
            &cb,
            &Default::default(),
        ))
        .await
        .expect("list");
    let page: switchboard::api::Page<serde_json::Value> =
        serde_json::from_str(&raw.body).expect("a page");
    let own: Vec<String> = page
        .items
        .iter()
        .filter_map(|n| n["id"].as_str().map(str::to_string))
        .collect();
    let rows = app.row_ids();
    assert!(rows.iter().all(|r| own.contains(r)), "{rows:?} of {own:?}");

    // A notification that was attempted: its detail shows the count, the attempts' times,
    // the error and the request it sent.
    let all = all_notifications(&client).await;
    let failed = all
        .iter()
        .find(|n| n["status"] == "failed" || n["status"] == "retrying")
        .and_then(|n| n["id"].as_str())
        .expect("a failed or retrying notification")
        .to_string();
    app.ch(':')
        .type_text(&format!("goto {failed}"))
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains(&format!("Notification {failed}")), "{s}");
    for label in [
        "Attempts",
        "Last attempt",
        "Next attempt",
        "Error",
        "Request sent",
    ] {
        assert!(s.contains(label), "{label}: {s}");
    }
    assert!(
        !s.contains("not in this answer"),
        "the get embeds the request: {s}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pulsars_notification_keys_say_in_one_sentence_why_not_here() {
    let (_svc, client) = service().await;
    let mut app = console(&client, 200, 50).await;
    go(&mut app, Tab::CallbackNotifications).await;
    let selected = app.selected_id().expect("a notification");
    // `E` edits and replays here (edit_compare_newer.rs sends one): only `=` is refused.
    for (key, says) in [('=', "nothing to compare")] {
        app.ch(key);
        app.settle().await.expect("idle");
        assert!(
            app.toasts().iter().any(|t| t.contains(says)),
            "{key}: {:?}\n{}",
            app.toasts(),
            app.screen()
        );
        // Nothing opened, nothing marked: the list as it was.
        assert_eq!(app.tab(), Tab::CallbackNotifications);
        assert_eq!(app.selected_id().as_deref(), Some(selected.as_str()));
        assert!(!app.screen().contains("Replay "), "{key}: {}", app.screen());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn d_on_a_callback_shows_its_destinations() {
    let (_svc, client) = service().await;
    let mut app = console(&client, 200, 50).await;
    go(&mut app, Tab::DeploymentCallbacks).await;
    let cb = app.selected_id().expect("a callback");
    let raw = client
        .send(&ApiRequest::get_callback(&cb))
        .await
        .expect("get");
    let c: serde_json::Value = serde_json::from_str(&raw.body).expect("a callback");
    let attached: Vec<String> = c["destinations"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|d| d["id"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    assert!(!attached.is_empty(), "the seeded callback has destinations");
    app.ch('D');
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), Tab::CallbackDestinations, "{}", app.screen());
    assert!(app.list_error().is_none(), "{:?}", app.list_error());
    let mut rows = app.row_ids();
    rows.sort();
    let mut want = attached;
    want.sort();
    assert_eq!(rows, want, "the callback's own destinations");
}
