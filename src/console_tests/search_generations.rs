//! `Ctrl-F` on the newer generations (issue 38), on `serve --generation event-destinations` and
//! `--generation callback-destinations` over real HTTP: the search fills the generation's list
//! (Deliveries, Notifications) with the items whose latest sent body matches, reading each by id
//! (lists embed no request), counting what it examined in the title; the list's status filter is
//! applied by the platform first; the walk budget stops it; `Esc` stops it.
use std::collections::BTreeSet;
use std::time::Duration;

use crossterm::event::KeyCode;
use serde_json::Value;
use switchboard::api::budget::Budget;
use switchboard::api::generation::Generation;
use switchboard::api::newer_requests::DeliveryFilter;
use switchboard::api::{ApiRequest, Client, ClientOptions, ListQuery, Order, Page, Secret};
use switchboard::console::Tab;
use switchboard::console::harness::Harness;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::fixed_clock;

const ORG_KEY: &str = "sk_org_console_search_generations_0123456789";
const INSTANCE_KEY: &str = "sk_instance_console_search_generations_0123";

/// The demo of `g` with `history` past events.
pub(crate) async fn service(g: Generation, history: usize) -> RunningService {
    let cfg = ServiceConfig {
        seed: Seed::Demo,
        generation: g,
        history,
        api_key: Some(Secret::new(ORG_KEY)),
        instance_key: Some(Secret::new(INSTANCE_KEY)),
        ..ServiceConfig::ephemeral()
    };
    start(cfg).await.expect("service starts")
}

/// A client of `svc` whose walks may read `pages` pages.
pub(crate) fn client(svc: &RunningService, pages: usize) -> Client {
    Client::new(ClientOptions {
        base_url: svc.base_url.clone(),
        api_key: Secret::new(INSTANCE_KEY),
        organization_key: Some(Secret::new(ORG_KEY)),
        instance_id: svc.instance_id.clone(),
        max_retries: 0,
        request_timeout: Duration::from_secs(15),
        budget: Budget::with_max_pages(pages),
        ..ClientOptions::default()
    })
    .expect("client")
}

/// The list `Ctrl-F` fills on `g`.
fn list_tab(g: Generation) -> Tab {
    match g {
        Generation::CallbackDestinations => Tab::CallbackNotifications,
        _ => Tab::Deliveries,
    }
}

/// The console on `g`, on its searched list.
async fn console(client: &Client, g: Generation) -> Harness {
    let mut app = Harness::with_client("gen", client.clone(), fixed_clock(), (200, 40));
    app.show_generation(g);
    app.settle().await.expect("idle");
    app.ch(':')
        .type_text(list_tab(g).aliases()[0])
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), list_tab(g), "{}", app.screen());
    app
}

async fn json(client: &Client, req: &ApiRequest) -> Value {
    let raw = client.send(req).await.expect("a response");
    serde_json::from_str(&raw.body).expect("JSON")
}

/// Every page of a list, following `after`.
async fn every(client: &Client, build: impl Fn(&ListQuery) -> ApiRequest) -> Vec<Value> {
    let mut out = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let q = ListQuery {
            limit: Some(100),
            order: Some(Order::Desc),
            after: after.clone(),
            ..ListQuery::default()
        };
        let page: Page<Value> =
            serde_json::from_value(json(client, &build(&q)).await).expect("a page");
        after = page
            .items
            .last()
            .and_then(|v| v["id"].as_str())
            .map(str::to_string);
        let more = page.pagination.has_more_after;
        out.extend(page.items);
        if !more {
            return out;
        }
    }
}

/// Every item of `g`'s list (id, status) with the body its latest attempt sent, each read by
/// id as the platform gives it (not through the code under test).
pub(crate) async fn sent(client: &Client, g: Generation) -> Vec<(String, String, Option<Value>)> {
    let mut out = Vec::new();
    if g == Generation::CallbackDestinations {
        for cb in switchboard::api::callback_gen::callback_ids(client)
            .await
            .expect("callbacks")
        {
            let items = every(client, |q| {
                ApiRequest::list_callback_notifications(q, &cb, &Default::default())
            })
            .await;
            for n in items {
                let id = n["id"].as_str().unwrap_or_default().to_string();
                let whole = json(client, &ApiRequest::get_callback_notification(&cb, &id)).await;
                let body = whole["event"]["request"]["body"]
                    .as_str()
                    .and_then(|b| serde_json::from_str(b).ok());
                out.push((id, n["status"].as_str().unwrap_or_default().into(), body));
            }
        }
        return out;
    }
    let items = every(client, |q| {
        ApiRequest::list_deliveries(q, &DeliveryFilter::default())
    })
    .await;
    for d in items {
        let id = d["id"].as_str().unwrap_or_default().to_string();
        let whole = json(client, &ApiRequest::get_delivery(&id)).await;
        let latest = whole["attempts"]
            .as_array()
            .into_iter()
            .flatten()
            .max_by_key(|a| a["attempt_number"].as_u64());
        let body = match latest.and_then(|a| a["id"].as_str()) {
            Some(a) => json(client, &ApiRequest::get_delivery_attempt(a)).await["request"]["body"]
                .as_str()
                .and_then(|b| serde_json::from_str(b).ok()),
            None => None,
        };
        out.push((id, d["status"].as_str().unwrap_or_default().into(), body));
    }
    out
}

/// How long a search over the whole history may take: it reads every item by id (some 800 on
/// callback-destinations, 8 at a time), each a request to the in-process service sharing the
/// test's two threads; on a loaded 2-core machine that took more than the harness's 10 s,
/// which is sized for one reply.
const WALK: Duration = Duration::from_secs(60);

fn search(app: &mut Harness, expr: &str) {
    app.ctrl('f');
    assert!(app.screen().contains(":search "), "{}", app.screen());
    app.type_text(expr).key(KeyCode::Enter);
}

async fn ctrl_f_finds_by_body_across_pages_within_the_bound(g: Generation) {
    let svc = service(g, 250).await;
    let c = client(&svc, 200);
    let all = sent(&c, g).await;
    assert!(all.len() > 100, "{g}: more than a page ({})", all.len());
    // The oldest body sent (beyond the first page), as a jq literal: JSON is jq.
    let needle = all
        .iter()
        .rev()
        .find_map(|(_, _, b)| b.clone())
        .expect("a body sent");
    let expected: BTreeSet<String> = all
        .iter()
        .filter(|(_, _, b)| b.as_ref() == Some(&needle))
        .map(|(id, _, _)| id.clone())
        .collect();
    let expr = format!(". == {needle}");

    let mut app = console(&c, g).await;
    search(&mut app, &expr);
    app.settle_within(WALK).await.expect("idle");
    let shown: BTreeSet<String> = app.shown_ids().into_iter().collect();
    assert_eq!(shown, expected, "{g}\n{}", app.screen());
    let s = app.screen();
    assert!(
        s.contains(&format!(
            "examined {}, matched {}",
            all.len(),
            expected.len()
        )) && s.contains("(end of the list)"),
        "{g}\n{s}"
    );

    // A walk of few pages stops at its bound and says so; what it examined is fewer.
    let callbacks = switchboard::api::callback_gen::callback_ids(&c)
        .await
        .map_or(0, |v| v.len());
    let pages = if g == Generation::CallbackDestinations {
        callbacks.max(1)
    } else {
        1
    };
    let mut bounded = console(&client(&svc, pages), g).await;
    search(&mut bounded, "true");
    bounded.settle_within(WALK).await.expect("idle");
    let s = bounded.screen();
    assert!(s.contains(&format!("bound: {pages} pages")), "{g}\n{s}");
    assert!(!s.contains(&format!("examined {},", all.len())), "{g}\n{s}");

    // Esc stops a search, keeping what it found.
    let mut stopped = console(&c, g).await;
    search(&mut stopped, "true");
    stopped.key(KeyCode::Esc);
    stopped.settle().await.expect("idle");
    let s = stopped.screen();
    assert!(s.contains("(stopped)"), "{g}\n{s}");
    assert!(
        stopped
            .toasts()
            .iter()
            .any(|t| t.contains("Search stopped")),
        "{g}: {:?}",
        stopped.toasts()
    );
}

/// With the list's status filter on (`l` to failed), the platform filters first: every item
/// examined is failed, fewer than all.
async fn ctrl_f_uses_the_lists_status_filter_on_the_server(g: Generation) {
    let svc = service(g, 120).await;
    let c = client(&svc, 200);
    let mut app = console(&c, g).await;
    for _ in 0..4 {
        app.ch('l');
        app.settle().await.expect("idle");
    }
    assert!(
        app.toasts().iter().any(|t| t.contains("failed")),
        "{g}: {:?}",
        app.toasts()
    );
    search(&mut app, "true");
    app.settle().await.expect("idle");
    let shown = app.shown_ids();
    assert!(!shown.is_empty(), "{g}: failed ones\n{}", app.screen());
    let all = sent(&c, g).await;
    for id in &shown {
        let status = all
            .iter()
            .find(|(i, _, _)| i == id)
            .map(|(_, s, _)| s.as_str());
        assert_eq!(status, Some("failed"), "{g}: {id}");
    }
    let s = app.screen();
    assert!(
        s.contains(&format!(
            "examined {}, matched {}",
            shown.len(),
            shown.len()
        )),
        "{g}: every one examined was failed and sent something\n{s}"
    );
    assert!(shown.len() < all.len(), "{g}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_f_finds_by_body_on_event_destinations() {
    Box::pin(ctrl_f_finds_by_body_across_pages_within_the_bound(
        Generation::EventDestinations,
    ))
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_f_finds_by_body_on_callback_destinations() {
    Box::pin(ctrl_f_finds_by_body_across_pages_within_the_bound(
        Generation::CallbackDestinations,
    ))
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_f_filters_on_the_server_on_event_destinations() {
    Box::pin(ctrl_f_uses_the_lists_status_filter_on_the_server(
        Generation::EventDestinations,
    ))
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_f_filters_on_the_server_on_callback_destinations() {
    Box::pin(ctrl_f_uses_the_lists_status_filter_on_the_server(
        Generation::CallbackDestinations,
    ))
    .await;
}
