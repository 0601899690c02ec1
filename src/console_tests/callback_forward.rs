//! The forward room (`L`) on `serve --generation callback-destinations` over real HTTP: opened on
//! the Notifications tab (every callback) and on a callback, it follows this generation's
//! per-callback notifications to a loopback receiver through headless's follower, each signed
//! `t=…,v1=…` (checked here with an HMAC of our own), each arriving once across a stop and a
//! restart (the cursor files and the journal), and the rendered room shows them.
use std::collections::BTreeMap;
use std::time::Duration;

use crossterm::event::KeyCode;
use serde_json::Value;
use switchboard::api::generation::Generation;
use switchboard::api::model::{CreateCallbackDestination, CreateDeploymentCallback};
use switchboard::api::{ApiRequest, Client, ListQuery};
use switchboard::console::Tab;
use switchboard::console::harness::Harness;

use super::callback_destinations_console::{go, service};
use crate::common::fixed_clock;
use crate::common::replay::{Got, Log, got, hmac_hex, receiver};
use crate::common::service::{eventually, http};

const WAIT: Duration = Duration::from_secs(30);

/// A destination delivering to the receiver's `/svc` and a callback of its own sending to it:
/// (callback id, the destination's signing secret).
async fn own_callback(client: &Client, rx: &str) -> (String, String) {
    let raw = client
        .send(&ApiRequest::create_callback_destination(
            &CreateCallbackDestination {
                name: "Forward room".into(),
                url: format!("{rx}/svc"),
                ..CreateCallbackDestination::default()
            },
        ))
        .await
        .expect("destination");
    let d: Value = serde_json::from_str(&raw.body).expect("json");
    let did = d["id"].as_str().expect("an id").to_string();
    let raw = client
        .send(&ApiRequest::get_callback_destination(&did))
        .await
        .expect("destination");
    let whole: Value = serde_json::from_str(&raw.body).expect("json");
    let secret = whole["signing_secret"]
        .as_str()
        .expect("the local service gives the secret")
        .to_string();
    let raw = client
        .send(&ApiRequest::list_provider_deployments(&ListQuery::default()))
        .await
        .expect("deployments");
    let page: Value = serde_json::from_str(&raw.body).expect("json");
    let deployment = page["items"][0]["id"]
        .as_str()
        .expect("a deployment")
        .to_string();
    let raw = client
        .send(&ApiRequest::create_deployment_callback(
            &CreateDeploymentCallback {
                provider_deployment_id: deployment,
                name: "Forwarded from the console".into(),
                destination_ids: Some(vec![did]),
                ..CreateDeploymentCallback::default()
            },
        ))
        .await
        .expect("callback");
    let cb: Value = serde_json::from_str(&raw.body).expect("json");
    (cb["id"].as_str().expect("an id").to_string(), secret)
}

/// One event through callback `cb`'s incoming webhook: the one notification it made.
async fn fire(base: &str, cb: &str, n: usize) -> String {
    let r = http()
        .post(format!("{base}/w/{cb}"))
        .json(&serde_json::json!({"type": format!("room.step{n}"), "n": n}))
        .send()
        .await
        .expect("hook");
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.expect("json");
    let ids: Vec<String> = v["notification_ids"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x.as_str().map(str::to_string))
        .collect();
    assert_eq!(ids.len(), 1, "{v}");
    ids[0].clone()
}

fn header(g: &Got, k: &str) -> String {
    g.headers
        .get(k)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// `t=…,v1=HMAC-SHA256(secret, "t.body")`, checked without the library.
fn verify(secret: &str, g: &Got) {
    let sig = header(g, "metorial-signature");
    let part = |p: &str| {
        sig.split(',')
            .find_map(|x| x.strip_prefix(p))
            .unwrap_or_default()
            .to_string()
    };
    assert!(!part("t=").is_empty(), "{sig}");
    let mut message = format!("{}.", part("t=")).into_bytes();
    message.extend_from_slice(&g.body);
    assert_eq!(hmac_hex(secret, &message), part("v1="), "{sig}");
}

/// How many times each notification reached `path`.
fn per_notification(log: &Log, path: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for g in got(log, path) {
        *out.entry(header(&g, "metorial-notification-id"))
            .or_insert(0) += 1;
    }
    out
}

async fn console(client: &Client, data: &std::path::Path) -> Harness {
    let g = client.served().await.and_then(|c| c.generation);
    assert_eq!(g, Some(Generation::CallbackDestinations), "detected");
    let mut app = Harness::with_client("cbd", client.clone(), fixed_clock(), (200, 50));
    app.show_generation(Generation::CallbackDestinations);
    app.set_data_dir(data);
    app.settle().await.expect("idle");
    app
}

/// Types `target` into the open room and starts it.
async fn start_to(app: &mut Harness, target: &str) {
    app.ctrl('u').type_text(target).key(KeyCode::Enter);
    assert!(
        app.until_screen("following", WAIT).await,
        "{}",
        app.screen()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn l_on_notifications_forwards_every_callbacks_notifications_signed_once_across_a_restart() {
    let (svc, client) = service().await;
    let (rx, log) = receiver().await;
    let (cb, secret) = own_callback(&client, &rx).await;
    let before = fire(&svc.base_url, &cb, 0).await;
    let data = tempfile::tempdir().expect("data");
    let mut app = console(&client, data.path()).await;
    go(&mut app, Tab::CallbackNotifications).await;
    app.ch('L');
    assert!(
        app.until_screen("Forward · all callbacks' notifications", WAIT)
            .await,
        "{:?}\n{}",
        app.toasts(),
        app.screen()
    );
    start_to(&mut app, &format!("{rx}/fwd")).await;

    let a = fire(&svc.base_url, &cb, 1).await;
    let b = fire(&svc.base_url, &cb, 2).await;
    assert!(
        app.until_screen("2 forwarded", WAIT).await,
        "{}",
        app.screen()
    );
    let s = app.screen();
    assert!(s.contains("room.step1") && s.contains("room.step2"), "{s}");
    assert!(s.contains("200"), "{s}");

    // Stopped: what comes meanwhile waits for the next start.
    app.ch('s');
    assert!(app.screen().contains("stopped"), "{}", app.screen());
    let c = fire(&svc.base_url, &cb, 3).await;
    eventually(WAIT, || async {
        (per_notification(&log, "svc").contains_key(&c)).then_some(())
    })
    .await;
    assert_eq!(got(&log, "fwd").len(), 2, "nothing forwarded while stopped");

    // Started again: the missed one is caught up, once; nothing before it again.
    app.key(KeyCode::Tab).key(KeyCode::Enter);
    assert!(
        app.until_screen("3 forwarded", WAIT).await,
        "{}",
        app.screen()
    );
    assert!(app.screen().contains("room.step3"), "{}", app.screen());
    let per = per_notification(&log, "fwd");
    for id in [&a, &b, &c] {
        assert_eq!(per.get(id), Some(&1), "{id}: {per:?}");
    }
    assert!(
        !per.contains_key(&before),
        "created before the start: {per:?}"
    );
    assert_eq!(per.len(), 3, "{per:?}");
    for g in got(&log, "fwd") {
        verify(&secret, &g);
    }

    app.key(KeyCode::Esc);
    assert!(!app.screen().contains("Forward ·"), "Esc stops and closes");
    let d = fire(&svc.base_url, &cb, 4).await;
    eventually(WAIT, || async {
        (per_notification(&log, "svc").contains_key(&d)).then_some(())
    })
    .await;
    assert_eq!(got(&log, "fwd").len(), 3, "closed: nothing forwarded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn l_on_a_callback_forwards_its_notifications_only() {
    let (svc, client) = service().await;
    let (rx, log) = receiver().await;
    let (cb, secret) = own_callback(&client, &rx).await;
    let (other, _) = own_callback(&client, &rx).await;
    let data = tempfile::tempdir().expect("data");
    let mut app = console(&client, data.path()).await;
    go(&mut app, Tab::DeploymentCallbacks).await;
    for _ in 0..50 {
        if app.selected_id().as_deref() == Some(cb.as_str()) {
            break;
        }
        app.key(KeyCode::Down);
    }
    assert_eq!(
        app.selected_id().as_deref(),
        Some(cb.as_str()),
        "{}",
        app.screen()
    );
    app.ch('L');
    assert!(
        app.until_screen(&format!("Forward · callback {cb}"), WAIT)
            .await,
        "{:?}\n{}",
        app.toasts(),
        app.screen()
    );
    start_to(&mut app, &format!("{rx}/one")).await;
    let not_ours = fire(&svc.base_url, &other, 1).await;
    let ours = fire(&svc.base_url, &cb, 2).await;
    assert!(
        app.until_screen("1 forwarded", WAIT).await,
        "{}",
        app.screen()
    );
    let per = per_notification(&log, "one");
    assert_eq!(per.get(&ours), Some(&1), "{per:?}");
    assert!(!per.contains_key(&not_ours), "{per:?}");
    for g in got(&log, "one") {
        verify(&secret, &g);
    }
    app.key(KeyCode::Esc);
    assert!(!app.screen().contains("Forward ·"));
}

/// Where the platform gives no signing secret (a proxy on 127.0.0.1 in front of the service
/// strips it), the room forwards unsigned and shows the one sentence headless forward says.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn l_says_in_one_sentence_when_the_platform_gives_no_signing_secret() {
    use super::callback_destinations_console::{INSTANCE_KEY, ORG_KEY};
    use switchboard::api::{ClientOptions, Secret};
    let (svc, direct) = service().await;
    let (rx, log) = receiver().await;
    let (cb, _) = own_callback(&direct, &rx).await;
    let proxy = crate::common::proxy::stripping_proxy(svc.base_url.clone()).await;
    let client = Client::new(ClientOptions {
        base_url: proxy,
        api_key: Secret::new(INSTANCE_KEY),
        organization_key: Some(Secret::new(ORG_KEY)),
        instance_id: svc.instance_id.clone(),
        max_retries: 0,
        request_timeout: Duration::from_secs(15),
        ..ClientOptions::default()
    })
    .expect("client");
    let data = tempfile::tempdir().expect("data");
    let mut app = console(&client, data.path()).await;
    go(&mut app, Tab::CallbackNotifications).await;
    app.ch('L');
    assert!(
        app.until_screen("Forward · all callbacks' notifications", WAIT)
            .await,
        "{}",
        app.screen()
    );
    start_to(&mut app, &format!("{rx}/fwd")).await;
    let id = fire(&svc.base_url, &cb, 1).await;
    assert!(
        app.until_screen("1 forwarded", WAIT).await,
        "{}",
        app.screen()
    );
    let said = switchboard::api::callback_forward::unsigned_sentence("Forward room");
    assert!(app.until_screen(&said, WAIT).await, "{}", app.screen());
    let s = app.screen();
    assert_eq!(s.matches("no signing secret").count(), 1, "once: {s}");
    let sent = got(&log, "fwd");
    assert_eq!(sent.len(), 1, "{s}");
    assert_eq!(header(&sent[0], "metorial-notification-id"), id);
    assert!(
        sent[0].headers.get("metorial-signature").is_none(),
        "unsigned"
    );
    app.key(KeyCode::Esc);
}
