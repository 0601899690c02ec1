//! `serve --generation callback-destinations` over real HTTP (shared/spec/generations.md §2–§6):
//! the golden fixtures' shapes, versions and introspection, the two kinds of key and the 406
//! rule, callbacks on provider deployments (destinations attached from the callback side,
//! replaced on update; delete archives), destinations with their secret, notifications per
//! callback, and signed delivery with its retry schedule against receivers on 127.0.0.1.
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{HeaderMap, StatusCode};
use reqwest::Method;
use serde_json::{Value, json};
use switchboard::api::generation::Generation;
use switchboard::api::{Client, ClientOptions, Secret};
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::service::{eventually, http};

const ORG_KEY: &str = "sk_org_cbd_tests_0123456789";
const INSTANCE_KEY: &str = "sk_instance_cbd_tests_0123456789";

/// Which key a request carries.
#[derive(Clone, Copy)]
enum Key {
    Org,
    Instance,
    None,
}

struct Cbd {
    svc: RunningService,
    instance: String,
}

struct Reply {
    status: u16,
    body: Value,
    text: String,
}

async fn service_with(seed: Seed, retry_base: Duration) -> Cbd {
    let cfg = ServiceConfig {
        seed,
        generation: Generation::CallbackDestinations,
        api_key: Some(Secret::new(ORG_KEY)),
        instance_key: Some(Secret::new(INSTANCE_KEY)),
        retry_base,
        ..ServiceConfig::ephemeral()
    };
    let svc = start(cfg).await.expect("service starts");
    let instance = svc.instance_id.clone().expect("an instance id");
    Cbd { svc, instance }
}

async fn service(seed: Seed) -> Cbd {
    service_with(seed, Duration::from_secs(1)).await
}

impl Cbd {
    async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        key: Key,
        headers: &[(&str, &str)],
    ) -> Reply {
        let mut rb = http().request(method, format!("{}{path}", self.svc.base_url));
        match key {
            Key::Org => rb = rb.bearer_auth(ORG_KEY),
            Key::Instance => rb = rb.bearer_auth(INSTANCE_KEY),
            Key::None => {}
        }
        for (k, v) in headers {
            rb = rb.header(*k, *v);
        }
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let resp = rb.send().await.expect("request");
        let status = resp.status().as_u16();
        let text = resp.text().await.expect("body");
        Reply {
            status,
            body: serde_json::from_str(&text).unwrap_or(Value::Null),
            text,
        }
    }

    fn key_for(path: &str) -> Key {
        if path.starts_with("/organization") {
            Key::Org
        } else {
            Key::Instance
        }
    }

    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Value {
        let r = self
            .send(method.clone(), path, body, Self::key_for(path), &[])
            .await;
        assert_eq!(r.status, 200, "{method} {path}: {}", r.text);
        r.body
    }

    async fn get(&self, path: &str) -> Value {
        self.call(Method::GET, path, None).await
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        self.call(Method::POST, path, Some(body)).await
    }

    async fn patch(&self, path: &str, body: Value) -> Value {
        self.call(Method::PATCH, path, Some(body)).await
    }

    async fn first_deployment(&self) -> String {
        let list = self.get("/provider-deployments").await;
        list["items"][0]["id"]
            .as_str()
            .expect("a seeded deployment")
            .to_string()
    }

    /// A destination on `url`; returns it and its secret (from the create answer).
    async fn destination(&self, url: &str) -> (Value, String) {
        let d = self
            .post(
                "/callback-destinations",
                json!({"name": "Test receiver", "url": url}),
            )
            .await;
        let secret = d["signing_secret"]
            .as_str()
            .expect("the secret on create")
            .to_string();
        (d, secret)
    }

    /// An event on a callback through its incoming webhook; returns the notification ids.
    async fn event(&self, callback_id: &str, event_type: &str) -> Vec<String> {
        let r = self
            .send(
                Method::POST,
                &format!("/w/{callback_id}"),
                Some(json!({"type": event_type, "number": 7})),
                Key::None,
                &[],
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        r.body["notification_ids"]
            .as_array()
            .expect("ids")
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect()
    }

    /// Polls a notification until `done` holds (10 s at most).
    async fn wait_notification(
        &self,
        callback_id: &str,
        id: &str,
        done: impl Fn(&Value) -> bool,
    ) -> Value {
        eventually(Duration::from_secs(10), || async {
            let n = self
                .get(&format!("/callbacks/{callback_id}/notifications/{id}"))
                .await;
            done(&n).then_some(n)
        })
        .await
    }
}

/// One request a receiver got.
#[derive(Clone, Debug)]
struct Hit {
    headers: HeaderMap,
    body: String,
    at: std::time::Instant,
}

type Respond = Arc<dyn Fn(usize) -> u16 + Send + Sync>;

/// A receiver on 127.0.0.1 answering the n-th request (from 0) with `respond(n)`; returns its
/// URL and what it got.
async fn receiver(respond: Respond) -> (String, Arc<Mutex<Vec<Hit>>>) {
    let hits: Arc<Mutex<Vec<Hit>>> = Arc::default();
    let log = hits.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: HeaderMap, body: String| {
            let (log, respond) = (log.clone(), respond.clone());
            async move {
                let mut log = log.lock().expect("log");
                let status = respond(log.len());
                log.push(Hit {
                    headers,
                    body,
                    at: std::time::Instant::now(),
                });
                StatusCode::from_u16(status).unwrap_or(StatusCode::OK)
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}/hook"), hits)
}

fn header<'a>(hit: &'a Hit, name: &str) -> Option<&'a str> {
    hit.headers.get(name).and_then(|v| v.to_str().ok())
}

/// Keys whose values are free-form.
const FREE: &[&str] = &["metadata", "input", "output"];

/// Every key of `golden` is in `got` and `got` has no key outside `golden` and `extra`, in
/// every nested object but the free-form ones (arrays: their first items).
fn same_shape(golden: &Value, got: &Value, extra: &[&str], at: &str) {
    match (golden, got) {
        (Value::Object(g), Value::Object(o)) => {
            for k in g.keys() {
                assert!(o.contains_key(k), "{at}: missing {k} in {got}");
            }
            for k in o.keys() {
                assert!(
                    g.contains_key(k) || extra.contains(&k.as_str()),
                    "{at}: unexpected {k}"
                );
            }
            // Free-form objects (metadata, a provider's input and output) have no shape.
            for (k, v) in g.iter().filter(|(k, _)| !FREE.contains(&k.as_str())) {
                if let Some(w) = o.get(k).filter(|w| !w.is_null()) {
                    same_shape(v, w, extra, &format!("{at}.{k}"));
                }
            }
        }
        (Value::Array(g), Value::Array(o)) => {
            if let (Some(g), Some(o)) = (g.first(), o.first()) {
                same_shape(g, o, extra, &format!("{at}[0]"));
            }
        }
        _ => {}
    }
}

fn golden(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/generations/callback-destinations/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("json")
}

fn statuses(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["status"].as_str().map(String::from))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_golden_shapes_are_served() {
    let s = service(Seed::Demo).await;
    let callbacks = s.get("/callbacks").await;
    same_shape(&golden("callback-list.json"), &callbacks, &[], "callbacks");
    let cb = &callbacks["items"][0];
    let id = cb["id"].as_str().expect("id");
    let one = s.get(&format!("/callbacks/{id}")).await;
    same_shape(&golden("callback.json"), &one, &[], "callback");
    assert!(
        !one["destinations"]
            .as_array()
            .expect("destinations")
            .is_empty()
            && !one["provider_triggers"]
                .as_array()
                .expect("triggers")
                .is_empty(),
        "{one}"
    );
    let dests = s.get("/callback-destinations").await;
    same_shape(
        &golden("destination-list.json"),
        &dests,
        &[],
        "destinations",
    );
    assert!(
        dests["items"]
            .as_array()
            .expect("items")
            .iter()
            .all(|d| d.get("signing_secret").is_none()),
        "never in lists"
    );
    let did = dests["items"][0]["id"].as_str().expect("id");
    let d = s.get(&format!("/callback-destinations/{did}")).await;
    same_shape(
        &golden("destination.json"),
        &d,
        &["signing_secret"],
        "destination",
    );
    assert!(d["signing_secret"].as_str().is_some_and(|x| !x.is_empty()));
    let notes = s.get(&format!("/callbacks/{id}/notifications")).await;
    same_shape(
        &golden("notification-list.json"),
        &notes,
        &[],
        "notifications",
    );
    assert!(
        notes["items"][0]["event"]["request"].is_null(),
        "null in lists"
    );
    let nid = notes["items"][0]["id"].as_str().expect("id");
    let n = s.get(&format!("/callbacks/{id}/notifications/{nid}")).await;
    same_shape(&golden("notification.json"), &n, &[], "notification");
    assert!(n["event"]["request"]["body"].as_str().is_some(), "{n}");
    assert!(n["destination"]["webhook"]["url"].as_str().is_some(), "{n}");
    let events = s.get(&format!("/callbacks/{id}/events")).await;
    let eid = events["items"][0]["id"].as_str().expect("an event");
    let e = s.get(&format!("/callbacks/{id}/events/{eid}")).await;
    same_shape(&golden("callback-event.json"), &e, &[], "event");
    s.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_seed_has_every_status_an_archived_destination_and_teams() {
    let s = service(Seed::Demo).await;
    let callbacks = s.get("/callbacks").await;
    assert!(statuses(&callbacks).contains(&"archived".to_string()));
    let mut seen = std::collections::BTreeSet::new();
    for cb in callbacks["items"].as_array().expect("items") {
        let id = cb["id"].as_str().expect("id");
        let notes = s
            .get(&format!("/callbacks/{id}/notifications?limit=100"))
            .await;
        seen.extend(statuses(&notes));
        // The status filter keeps only what it names.
        let failed = s
            .get(&format!("/callbacks/{id}/notifications?status=failed"))
            .await;
        assert!(statuses(&failed).iter().all(|x| x == "failed"));
    }
    let want: std::collections::BTreeSet<String> = ["pending", "delivered", "retrying", "failed"]
        .iter()
        .map(|x| (*x).to_string())
        .collect();
    assert_eq!(seen, want);
    let dests = s.get("/callback-destinations").await;
    assert_eq!(
        statuses(&dests).iter().filter(|x| *x == "archived").count(),
        1
    );
    let urls: Vec<&str> = dests["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|d| d["url"].as_str())
        .collect();
    assert!(
        urls.iter().any(|u| u.ends_with("/_receiver/flaky")),
        "{urls:?}"
    );
    assert!(
        urls.iter().any(|u| u.ends_with("/_receiver/down")),
        "{urls:?}"
    );
    let active = s.get("/callback-destinations?status=active").await;
    assert!(statuses(&active).iter().all(|x| x == "active"));
    // Teams with and without policies, and auth imports, as the newest generation seeds them.
    let teams = s.get("/organization/teams").await;
    let with_policies = teams["items"]
        .as_array()
        .expect("teams")
        .iter()
        .filter(|t| t["policies"].as_array().is_some_and(|p| !p.is_empty()))
        .count();
    assert!(with_policies >= 1 && with_policies < teams["items"].as_array().map_or(0, Vec::len));
    let imports = s.get("/provider-auth-config-imports").await;
    assert!(!imports["items"].as_array().expect("imports").is_empty());
    s.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn versions_introspection_keys_and_the_406_rule() {
    let s = service(Seed::None).await;
    let v = s
        .send(
            Method::GET,
            "/metorial/introspect/versions",
            None,
            Key::None,
            &[],
        )
        .await;
    assert_eq!(v.status, 200);
    let ids: Vec<&str> = v.body["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .filter_map(|x| x["version"].as_str())
        .collect();
    assert_eq!(ids, ["mt_2025_01_01_dashboard", "mt_2026_01_01_magnetar"]);
    let paths = |body: &Value| -> Vec<String> {
        body["endpoints"]
            .as_array()
            .expect("endpoints")
            .iter()
            .filter_map(|e| e["path"]["path"].as_str().map(String::from))
            .collect()
    };
    let dash = s
        .send(
            Method::GET,
            "/metorial/introspect/endpoints?version=mt_2025_01_01_dashboard",
            None,
            Key::None,
            &[],
        )
        .await;
    let dash = paths(&dash.body);
    for p in [
        "/callback-destinations",
        "/callbacks/:callback_id/notifications",
        "/callbacks/:callback_id/events",
        "/organization/teams/:team_id/policies",
        "/provider-auth-config-imports",
    ] {
        assert!(dash.iter().any(|x| x == p), "{p} in {dash:?}");
    }
    assert!(
        !dash.iter().any(|x| x.starts_with("/organization/event")),
        "{dash:?}"
    );
    let mag = s
        .send(
            Method::GET,
            "/metorial/introspect/endpoints?version=mt_2026_01_01_magnetar",
            None,
            Key::None,
            &[],
        )
        .await;
    let mag = paths(&mag.body);
    assert!(mag.iter().any(|x| x == "/callback-destinations"));
    assert!(!mag.iter().any(|x| x.starts_with("/organization/teams")));
    for (q, status) in [("", 400), ("?version=mt_2025_01_01_pulsar", 406)] {
        let r = s
            .send(
                Method::GET,
                &format!("/metorial/introspect/endpoints{q}"),
                None,
                Key::None,
                &[],
            )
            .await;
        assert_eq!(r.status, status, "{q}: {}", r.text);
    }
    // Keys: none → 401; the instance key on an organization path → 403; the organization key
    // on an instance path needs the instance named.
    let r = s
        .send(Method::GET, "/callbacks", None, Key::None, &[])
        .await;
    assert_eq!((r.status, r.body["object"].as_str()), (401, Some("error")));
    let r = s
        .send(Method::GET, "/organization/teams", None, Key::Instance, &[])
        .await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (403, Some("forbidden"))
    );
    let r = s.send(Method::GET, "/callbacks", None, Key::Org, &[]).await;
    assert_eq!(r.status, 400, "{}", r.text);
    let named = [("metorial-instance-id", s.instance.as_str())];
    let r = s
        .send(
            Method::GET,
            "/callback-destinations",
            None,
            Key::Org,
            &named,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    // The consumer version is refused with 406; an unknown one is ignored; magnetar has no teams.
    let consumer = [("metorial-version", "mt_2026_04_01_consumer")];
    let r = s
        .send(Method::GET, "/callbacks", None, Key::Instance, &consumer)
        .await;
    assert_eq!((r.status, r.body["status"].as_u64()), (406, Some(400)));
    let unknown = [("metorial-version", "mt_1999_01_01_nothing")];
    let r = s
        .send(Method::GET, "/callbacks", None, Key::Instance, &unknown)
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let magnetar = [("metorial-version", "mt_2026_01_01_magnetar")];
    let r = s
        .send(
            Method::GET,
            "/organization/teams",
            None,
            Key::Org,
            &magnetar,
        )
        .await;
    assert_eq!(
        (r.status, r.body["entity"].as_str()),
        (404, Some("endpoint"))
    );
    // The pulsar paths are not this generation's.
    let r = s
        .send(
            Method::GET,
            "/callbacks-destinations",
            None,
            Key::Instance,
            &[],
        )
        .await;
    assert_eq!(
        (r.status, r.body["entity"].as_str()),
        (404, Some("endpoint"))
    );
    s.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_detects_this_generation() {
    let s = service(Seed::None).await;
    let client = Client::new(ClientOptions {
        base_url: s.svc.base_url.clone(),
        api_key: Secret::new(ORG_KEY),
        instance_id: Some(s.instance.clone()),
        ..ClientOptions::default()
    })
    .expect("client");
    let d = client.detect(false).await.expect("detects");
    assert_eq!(d.generation, Some(Generation::CallbackDestinations));
    s.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callbacks_attach_destinations_replace_them_and_archive_on_delete() {
    let s = service(Seed::Demo).await;
    let dep = s.first_deployment().await;
    let (a, _) = s.destination("http://127.0.0.1:9/a").await;
    let (b, _) = s.destination("http://127.0.0.1:9/b").await;
    let (aid, bid) = (a["id"].as_str().expect("id"), b["id"].as_str().expect("id"));
    let cb = s
        .post(
            "/callbacks",
            json!({
                "provider_deployment_id": dep, "name": "Mine", "destination_ids": [aid],
                "triggers": [{"provider_trigger_id": "issues", "event_types": ["issues.opened"]}],
            }),
        )
        .await;
    let id = cb["id"].as_str().expect("id");
    assert_eq!(cb["provider_deployment"]["id"], dep.as_str());
    assert_eq!(cb["destinations"][0]["id"], aid);
    assert_eq!(
        cb["provider_triggers"][0]["provider_trigger"]["key"],
        "issues"
    );
    assert_eq!(
        cb["provider_triggers"][0]["event_types"],
        json!(["issues.opened"])
    );
    let listed = s
        .get(&format!("/callback-destinations?callback_id={id}"))
        .await;
    assert_eq!(listed["items"].as_array().map(Vec::len), Some(1));
    // The set is replaced, not added to.
    let cb = s
        .patch(
            &format!("/callbacks/{id}"),
            json!({"destination_ids": [bid], "name": "Renamed"}),
        )
        .await;
    let ids: Vec<&str> = cb["destinations"]
        .as_array()
        .expect("destinations")
        .iter()
        .filter_map(|d| d["id"].as_str())
        .collect();
    assert_eq!((ids, cb["name"].as_str()), (vec![bid], Some("Renamed")));
    // The URL is editable; the secret stays on detailed answers.
    let d = s
        .patch(
            &format!("/callback-destinations/{bid}"),
            json!({"url": "http://127.0.0.1:9/moved"}),
        )
        .await;
    assert_eq!(d["url"], "http://127.0.0.1:9/moved");
    // Unknown deployments and destinations are named.
    let r = s
        .send(
            Method::POST,
            "/callbacks",
            Some(json!({"provider_deployment_id": "pde_nope", "name": "x"})),
            Key::Instance,
            &[],
        )
        .await;
    assert_eq!(
        (r.status, r.body["entity"].as_str()),
        (404, Some("provider.deployment"))
    );
    let r = s
        .send(
            Method::POST,
            "/callbacks",
            Some(json!({"name": "x"})),
            Key::Instance,
            &[],
        )
        .await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (400, Some("invalid_data"))
    );
    // Delete archives; GET still shows it; a second delete answers it as it is.
    let gone = s
        .call(Method::DELETE, &format!("/callbacks/{id}"), None)
        .await;
    assert_eq!(gone["status"], "archived");
    assert_eq!(
        s.get(&format!("/callbacks/{id}")).await["status"],
        "archived"
    );
    let again = s
        .call(Method::DELETE, &format!("/callbacks/{id}"), None)
        .await;
    assert_eq!(again["updated_at"], gone["updated_at"]);
    // An unknown trigger is named.
    let r = s
        .send(
            Method::PATCH,
            &format!("/callbacks/{id}"),
            Some(json!({"triggers": [{"provider_trigger_id": "nope"}]})),
            Key::Instance,
            &[],
        )
        .await;
    assert_eq!(
        (r.status, r.body["entity"].as_str()),
        (404, Some("provider.trigger"))
    );
    let archived = s
        .call(
            Method::DELETE,
            &format!("/callback-destinations/{aid}"),
            None,
        )
        .await;
    assert_eq!(archived["status"], "archived");
    let listed = s.get("/callback-destinations?status=archived").await;
    assert!(
        listed["items"]
            .as_array()
            .expect("items")
            .iter()
            .any(|d| d["id"] == aid)
    );
    s.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_are_signed_as_the_generation_signs_and_verified_by_the_client() {
    let s = service(Seed::Demo).await;
    let (url, hits) = receiver(Arc::new(|_| 200)).await;
    let (d, secret) = s.destination(&url).await;
    let dep = s.first_deployment().await;
    let cb = s
        .post(
            "/callbacks",
            json!({"provider_deployment_id": dep, "name": "Signed", "destination_ids": [d["id"]]}),
        )
        .await;
    let cid = cb["id"].as_str().expect("id");
    let ids = s.event(cid, "issues.opened").await;
    assert_eq!(ids.len(), 1);
    let n = s
        .wait_notification(cid, &ids[0], |n| n["status"] == "delivered")
        .await;
    assert_eq!(n["attempt_count"], 1);
    let hit = hits.lock().expect("hits")[0].clone();
    let sig = header(&hit, "metorial-signature").expect("signed");
    assert!(
        sig.starts_with("t=") && sig.contains(",v1=") && !sig.contains("i="),
        "{sig}"
    );
    // The client's one verifier accepts it with the destination's secret, and only with it.
    assert!(switchboard::api::signature::verify(&secret, Some(sig), Some(&hit.body)).is_ok());
    assert!(
        switchboard::api::signature::verify("whsec_other", Some(sig), Some(&hit.body)).is_err()
    );
    // The headers of webhook-headers.json, with this notification's ids.
    let names = golden("webhook-headers.json");
    for name in names.as_object().expect("headers").keys() {
        assert!(header(&hit, name).is_some(), "{name} missing");
    }
    assert_eq!(
        header(&hit, "metorial-notification-id"),
        Some(ids[0].as_str())
    );
    assert_eq!(header(&hit, "metorial-event-id"), n["event"]["id"].as_str());
    assert_eq!(header(&hit, "metorial-delivery-attempt"), Some("1"));
    assert_eq!(header(&hit, "metorial-version"), Some("2025-01-01"));
    assert_eq!(
        header(&hit, "user-agent"),
        Some("Metorial (https://metorial.com)")
    );
    assert_eq!(
        header(&hit, "metorial-trigger-event-type"),
        Some("issues.opened")
    );
    // The embedded request is what was sent.
    assert_eq!(
        n["event"]["request"]["body"].as_str(),
        Some(hit.body.as_str())
    );
    // `GET /callback-destinations/{id}` gives the same secret.
    let got = s
        .get(&format!(
            "/callback-destinations/{}",
            d["id"].as_str().expect("id")
        ))
        .await;
    assert_eq!(got["signing_secret"].as_str(), Some(secret.as_str()));
    s.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_retry_on_the_scaled_schedule_until_delivered() {
    // One schedule second is 5 ms: the default exponential 30 s, 60 s waits are 150 ms, 300 ms.
    let s = service_with(Seed::Demo, Duration::from_millis(5)).await;
    let (url, hits) = receiver(Arc::new(|n| if n < 2 { 503 } else { 200 })).await;
    let (d, _) = s.destination(&url).await;
    let dep = s.first_deployment().await;
    let cb = s
        .post(
            "/callbacks",
            json!({"provider_deployment_id": dep, "name": "Retried", "destination_ids": [d["id"]]}),
        )
        .await;
    let cid = cb["id"].as_str().expect("id");
    let ids = s.event(cid, "push").await;
    let n = s
        .wait_notification(cid, &ids[0], |n| n["status"] == "delivered")
        .await;
    assert_eq!(
        (n["attempt_count"].as_u64(), n["error"].clone()),
        (Some(3), Value::Null)
    );
    let hits = hits.lock().expect("hits").clone();
    let attempts: Vec<&str> = hits
        .iter()
        .filter_map(|h| header(h, "metorial-delivery-attempt"))
        .collect();
    assert_eq!(attempts, ["1", "2", "3"]);
    let gap = |i: usize| hits[i + 1].at.duration_since(hits[i].at);
    assert!(gap(0) >= Duration::from_millis(150), "{:?}", gap(0));
    assert!(gap(1) >= Duration::from_millis(300), "{:?}", gap(1));
    let listed = s
        .get(&format!("/callbacks/{cid}/notifications?status=delivered"))
        .await;
    assert!(listed["items"][0]["event"]["request"].is_null());
    s.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_receiver_fails_after_max_attempts_and_archive_stops_delivery() {
    // One schedule second is 0.2 ms: ten attempts on the default schedule take about 3 s.
    let s = service_with(Seed::Demo, Duration::from_micros(200)).await;
    let (url, hits) = receiver(Arc::new(|_| 500)).await;
    let (d, _) = s.destination(&url).await;
    let dep = s.first_deployment().await;
    let cb = s
        .post(
            "/callbacks",
            json!({"provider_deployment_id": dep, "name": "Dead", "destination_ids": [d["id"]]}),
        )
        .await;
    let cid = cb["id"].as_str().expect("id");
    let ids = s.event(cid, "push").await;
    // The default retry: 10 attempts, then failed with the last error.
    let n = s
        .wait_notification(cid, &ids[0], |n| n["status"] == "failed")
        .await;
    assert_eq!(n["attempt_count"], 10);
    assert_eq!(n["error"]["code"], "http_error");
    assert!(n["next_attempt_at"].is_null());
    assert_eq!(hits.lock().expect("hits").len(), 10);
    let e = s.get(&format!("/callbacks/{cid}/events?type=push")).await;
    assert_eq!(e["items"][0]["delivery_status"], "failed");
    // Archived: a new event reaches no one and the destination is left alone.
    let did = d["id"].as_str().expect("id");
    s.call(
        Method::DELETE,
        &format!("/callback-destinations/{did}"),
        None,
    )
    .await;
    let ids = s.event(cid, "push").await;
    assert!(ids.is_empty(), "{ids:?}");
    let e = s.get(&format!("/callbacks/{cid}/events?type=push")).await;
    assert_eq!(e["items"][1]["delivery_status"], "skipped");
    assert_eq!(hits.lock().expect("hits").len(), 10);
    s.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn archiving_a_destination_ends_its_retrying_notifications() {
    // Real seconds: the retry after the first failure is 30 s away.
    let s = service(Seed::Demo).await;
    let (url, hits) = receiver(Arc::new(|_| 503)).await;
    let (d, _) = s.destination(&url).await;
    let dep = s.first_deployment().await;
    let cb = s
        .post(
            "/callbacks",
            json!({"provider_deployment_id": dep, "name": "Archived", "destination_ids": [d["id"]]}),
        )
        .await;
    let cid = cb["id"].as_str().expect("id");
    let ids = s.event(cid, "push").await;
    let n = s
        .wait_notification(cid, &ids[0], |n| n["status"] == "retrying")
        .await;
    assert!(n["next_attempt_at"].as_str().is_some(), "{n}");
    let did = d["id"].as_str().expect("id");
    s.call(
        Method::DELETE,
        &format!("/callback-destinations/{did}"),
        None,
    )
    .await;
    let n = s
        .wait_notification(cid, &ids[0], |n| n["status"] == "failed")
        .await;
    assert_eq!(
        (n["attempt_count"].as_u64(), n["error"]["code"].as_str()),
        (Some(1), Some("destination_unavailable"))
    );
    assert_eq!(hits.lock().expect("hits").len(), 1);
    s.svc.shutdown().await;
}

/// Every callback event, across the callbacks (at most 100 each).
async fn all_events(s: &Cbd) -> usize {
    let callbacks = s.get("/callbacks?limit=100").await;
    let mut n = 0;
    for cb in callbacks["items"].as_array().expect("items") {
        let id = cb["id"].as_str().expect("id");
        let events = s.get(&format!("/callbacks/{id}/events?limit=100")).await;
        n += events["items"].as_array().map_or(0, Vec::len);
    }
    n
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_and_simulation_add_events() {
    let plain = service(Seed::Demo).await;
    let demo = all_events(&plain).await;
    plain.svc.shutdown().await;
    let cfg = ServiceConfig {
        seed: Seed::Demo,
        generation: Generation::CallbackDestinations,
        api_key: Some(Secret::new(ORG_KEY)),
        instance_key: Some(Secret::new(INSTANCE_KEY)),
        history: 25,
        simulate_events: Some(Duration::from_millis(50)),
        ..ServiceConfig::ephemeral()
    };
    let svc = start(cfg).await.expect("service starts");
    let instance = svc.instance_id.clone().expect("instance");
    let s = Cbd { svc, instance };
    // The history at once; the simulation adds more while it runs.
    let first = all_events(&s).await;
    assert!(first >= demo + 25, "{first} events, {demo} without history");
    eventually(Duration::from_secs(10), || async {
        (all_events(&s).await >= first + 2).then_some(())
    })
    .await;
    s.svc.shutdown().await;
}
