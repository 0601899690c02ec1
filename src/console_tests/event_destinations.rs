//! The console on `serve --generation event-destinations` over real HTTP: the tabs follow the
//! detected generation (more than five: digits in tab order, `:` for all), deliveries take the
//! platform's status filter and show their attempts' requests and responses, and a destination is
//! pinged, its secret rotated (typed confirmation, shown once and masked) and archived.
use std::time::{Duration, Instant};

use crossterm::event::KeyCode;
use switchboard::api::generation::Generation;
use switchboard::api::{ApiRequest, Client, ClientOptions, ListQuery, Secret};
use switchboard::console::Tab;
use switchboard::console::harness::Harness;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::fixed_clock;

const ORG_KEY: &str = "sk_org_console_event_destinations_0123456789";
const INSTANCE_KEY: &str = "sk_instance_console_event_destinations_0123";

async fn service() -> (RunningService, Client) {
    let cfg = ServiceConfig {
        seed: Seed::Demo,
        generation: Generation::EventDestinations,
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
async fn console(client: &Client, w: u16, h: u16) -> Harness {
    let g = client.served().await.and_then(|c| c.generation);
    assert_eq!(g, Some(Generation::EventDestinations), "detected");
    let mut app = Harness::with_client("ed", client.clone(), fixed_clock(), (w, h));
    app.show_generation(Generation::EventDestinations);
    app.settle().await.expect("idle");
    app
}

fn header(app: &Harness) -> String {
    app.screen().lines().next().unwrap_or_default().to_string()
}

/// Its digit, or its `:` word past nine.
async fn go(app: &mut Harness, tab: Tab) {
    match char::from_digit(u32::try_from(tab.number()).expect("small"), 10) {
        Some(d) if tab.number() <= 9 => {
            app.ch(d);
        }
        _ => {
            app.ch(':').type_text(tab.aliases()[0]).key(KeyCode::Enter);
        }
    }
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), tab, "{}", app.screen());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tabs_follow_the_generation_and_the_digits_their_order() {
    let (_svc, client) = service().await;
    let mut app = console(&client, 200, 40).await;
    let head = header(&app);
    let shown = switchboard::console::tab::shown_for(Generation::EventDestinations);
    assert!(shown.len() > 5, "{shown:?}");
    for (i, t) in shown.iter().enumerate() {
        assert_eq!(t.number(), i + 1, "{t:?} numbered in tab order");
        assert!(
            head.contains(&format!(" {} {} ", i + 1, t.title())),
            "{t:?}: {head}"
        );
    }
    assert!(!head.contains("Notifications"), "no pulsar tab: {head}");
    assert_eq!(app.tab(), Tab::OrgTeams);
    assert!(app.screen().contains("Policies"), "{}", app.screen());
    // No project roles on this generation: no key, no footer entry.
    let s = app.screen();
    let footer = s.lines().last().unwrap_or_default();
    assert!(!footer.contains("project"), "{footer}");
    app.ch('p');
    app.settle().await.expect("idle");
    assert!(
        app.toasts().iter().any(|t| t.contains("no")),
        "{:?}",
        app.toasts()
    );

    // Every digit reaches its tab, in order; `:` reaches any.
    for t in &shown {
        go(&mut app, *t).await;
        assert!(app.list_error().is_none(), "{t:?}: {:?}", app.list_error());
        assert!(!app.row_ids().is_empty(), "{t:?}: rows\n{}", app.screen());
    }
    app.ch(':').type_text("teams").key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert_eq!(
        app.tab(),
        Tab::OrgTeams,
        ":teams is this generation's teams"
    );
    app.ch(':').type_text("listeners").key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), Tab::Listeners);

    // Help lists the shown tabs' keys, once each (digits up to nine).
    app.ch('?');
    app.settle().await.expect("idle");
    let help = app.screen();
    let keys: Vec<String> = (1..=shown.len().min(9)).map(|n| n.to_string()).collect();
    assert!(help.contains(&keys.join("/")), "{help}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_filter_by_status_on_the_server_and_show_attempts() {
    let (_svc, client) = service().await;
    let mut app = console(&client, 200, 50).await;
    go(&mut app, Tab::Deliveries).await;
    let all = app.row_ids();
    assert!(!all.is_empty());
    // `l` cycles the platform's status filter: pending first, then retrying, delivered, failed.
    let mut seen_failed = false;
    for want in ["pending", "retrying", "delivered", "failed"] {
        app.ch('l');
        app.settle().await.expect("idle");
        assert!(
            app.toasts().iter().any(|t| t.contains(want)),
            "{want}: {:?}",
            app.toasts()
        );
        let rows = app.row_ids();
        let s = app.screen();
        for other in ["pending", "retrying", "delivered", "failed", "cancelled"] {
            if other != want && !rows.is_empty() {
                let listed = s
                    .lines()
                    .filter(|l| l.contains("evdi_") || l.contains(" · "));
                assert!(
                    listed.clone().all(|l| !l.contains(&format!(" {other} "))),
                    "{want}: a {other} row\n{s}"
                );
            }
        }
        seen_failed |= want == "failed" && !rows.is_empty();
    }
    assert!(seen_failed, "the demo has failed deliveries");
    // A delivery the worker made (a ping to the healthy receiver): its attempt's request and
    // response in its detail.
    let healthy = first_where(&client, |d| {
        d["status"] == "active"
            && d["webhook"]["url"]
                .as_str()
                .is_some_and(|u| u.ends_with("/healthy"))
    })
    .await;
    let raw = client
        .send(&ApiRequest::ping_event_destination(&healthy))
        .await
        .expect("ping");
    let delivery: serde_json::Value = serde_json::from_str(&raw.body).expect("a delivery");
    let id = delivery["id"].as_str().unwrap_or_default().to_string();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let raw = client
            .send(&ApiRequest::get_delivery(&id))
            .await
            .expect("get");
        let d: serde_json::Value = serde_json::from_str(&raw.body).expect("a delivery");
        if d["status"] == "delivered" {
            break;
        }
        assert!(Instant::now() < deadline, "the ping is delivered: {d}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    app.ch(':')
        .type_text(&format!("goto {id}"))
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("Attempts (1)"), "{s}");
    assert!(s.contains("#1 succeeded · HTTP 200"), "{s}");
    // The attempt view: the request it sent and the response it got, secrets masked.
    let raw = client
        .send(&ApiRequest::get_delivery(&id))
        .await
        .expect("get");
    let d: serde_json::Value = serde_json::from_str(&raw.body).expect("a delivery");
    let attempt = d["attempts"][0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    app.ch(':')
        .type_text(&format!("goto {attempt}"))
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), Tab::DeliveryAttempts);
    let s = app.screen();
    assert!(s.contains("Request: POST"), "{s}");
    assert!(s.contains("Response: HTTP 200"), "{s}");
    assert!(s.contains("body:"), "{s}");
}

/// The id of the first event destination `f` accepts.
async fn first_where(client: &Client, f: impl Fn(&serde_json::Value) -> bool) -> String {
    let raw = client
        .send(&ApiRequest::list_event_destinations(
            &ListQuery::default(),
            &Default::default(),
        ))
        .await
        .expect("list");
    let page: switchboard::api::Page<serde_json::Value> =
        serde_json::from_str(&raw.body).expect("a page");
    page.items
        .iter()
        .find(|d| f(d))
        .and_then(|d| d["id"].as_str())
        .expect("a destination")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destination_is_pinged_rotated_and_archived() {
    let (_svc, client) = service().await;
    let mut app = console(&client, 200, 50).await;
    go(&mut app, Tab::EventDestinations).await;
    // An active destination, opened by its id.
    let id = first_where(&client, |d| d["status"] == "active").await;
    let raw = client
        .send(&ApiRequest::get_event_destination(&id))
        .await
        .expect("get");
    let dest: serde_json::Value = serde_json::from_str(&raw.body).expect("a destination");
    let name = dest["name"].as_str().unwrap_or_default().to_string();
    app.ch(':')
        .type_text(&format!("goto {id}"))
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert!(app.screen().contains(&name), "{}", app.screen());
    let footer = app.screen().lines().last().unwrap_or_default().to_string();
    assert!(footer.contains("t ping"), "ping in the footer: {footer}");

    // Ping: asked, sent, its delivery named.
    app.ch('t');
    assert!(
        app.screen().contains("Ping destination"),
        "{}",
        app.screen()
    );
    app.ch('y');
    app.settle().await.expect("idle");
    assert!(
        app.toasts().iter().any(|t| t.contains("pinged")),
        "{:?}",
        app.toasts()
    );

    // Rotate: the name typed; the new secret shown once, masked.
    app.ch('K');
    assert!(
        app.screen().contains("Rotate signing secret"),
        "{}",
        app.screen()
    );
    app.ch('y').key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert!(
        app.toasts().iter().all(|t| !t.contains("rotated")),
        "y alone does not rotate"
    );
    app.key(KeyCode::Backspace)
        .type_text(&name)
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert!(
        app.toasts().iter().any(|t| t.contains("secret rotated")),
        "{:?}",
        app.toasts()
    );
    let s = app.screen();
    assert!(s.contains("shown in this answer only"), "{s}");
    assert!(s.contains('…'), "masked: {s}");
    // Reloaded, the secret is gone.
    app.ch('r');
    app.settle().await.expect("idle");
    assert!(app.screen().contains("not returned"), "{}", app.screen());

    // Archive.
    app.ch('A');
    assert!(
        app.screen().contains("Archive destination"),
        "{}",
        app.screen()
    );
    app.ch('y');
    app.settle().await.expect("idle");
    assert!(
        app.toasts().iter().any(|t| t.contains("archived")),
        "{:?}",
        app.toasts()
    );
    assert!(app.screen().contains("archived"), "{}", app.screen());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn teams_show_their_policies_and_take_a_custom_one_from_a_picker() {
    let (_svc, client) = service().await;
    let mut app = console(&client, 200, 50).await;
    // The policies list: custom and default ones.
    go(&mut app, Tab::AccessPolicies).await;
    let s = app.screen();
    assert!(s.contains("custom"), "{s}");
    assert!(s.contains("admin") || s.contains("everyone"), "{s}");
    app.key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert!(app.screen().contains("Grants"), "{}", app.screen());

    // A team without policies gets one from the picker of custom policies.
    let raw = client
        .send(&ApiRequest::list_teams(&ListQuery::default()))
        .await
        .expect("teams");
    let page: switchboard::api::Page<serde_json::Value> =
        serde_json::from_str(&raw.body).expect("a page");
    let bare = page
        .items
        .iter()
        .find(|t| t["policies"].as_array().is_some_and(Vec::is_empty))
        .expect("a team without policies");
    let (team, name) = (
        bare["id"].as_str().unwrap_or_default().to_string(),
        bare["name"].as_str().unwrap_or_default().to_string(),
    );
    app.ch(':')
        .type_text(&format!("goto {team}"))
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), Tab::OrgTeams);
    let footer = app.screen().lines().last().unwrap_or_default().to_string();
    assert!(footer.contains("a assign policy"), "{footer}");
    app.ch('a');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("Assign access policy"), "{s}");
    let offered: Vec<&str> = s
        .lines()
        .filter(|l| l.contains("( )") || l.contains("(•)"))
        .collect();
    assert!(!offered.is_empty(), "{s}");
    assert!(
        offered
            .iter()
            .all(|l| !l.contains("Admin") && !l.contains("Everyone")),
        "only custom policies are offered: {s}"
    );
    // The first custom policy, chosen; asked; sent.
    app.ctrl('s');
    app.settle().await.expect("idle");
    assert!(app.screen().contains(&name), "{}", app.screen());
    app.ch('y');
    app.settle().await.expect("idle");
    assert!(
        app.toasts().iter().any(|t| t.contains("policy assigned")),
        "{:?}\n{}",
        app.toasts(),
        app.screen()
    );
    let raw = client
        .send(&ApiRequest::get_team(&team))
        .await
        .expect("team");
    let now: serde_json::Value = serde_json::from_str(&raw.body).expect("a team");
    let given = now["policies"][0]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(!given.is_empty(), "{now}");
    assert!(app.screen().contains(&given), "shown: {}", app.screen());

    // And removed from the picker of its own.
    app.ch('X');
    app.settle().await.expect("idle");
    assert!(
        app.screen().contains("Remove access policy"),
        "{}",
        app.screen()
    );
    app.ctrl('s');
    app.ch('y');
    app.settle().await.expect("idle");
    assert!(
        app.toasts().iter().any(|t| t.contains("policy removed")),
        "{:?}",
        app.toasts()
    );
    let raw = client
        .send(&ApiRequest::get_team(&team))
        .await
        .expect("team");
    let now: serde_json::Value = serde_json::from_str(&raw.body).expect("a team");
    assert_eq!(now["policies"], serde_json::json!([]), "{now}");
}
