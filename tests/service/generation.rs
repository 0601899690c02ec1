//! `serve --generation event-destinations` over real HTTP (shared/spec/generations.md §2–§5, §7):
//! versions and introspection, the two kinds of key, each area's operations, listeners routing
//! deliveries, the platform's retry, archive, secret rotation and attempts, against receivers
//! on 127.0.0.1 that check signatures; and the golden fixtures' shapes.
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{HeaderMap, StatusCode};
use reqwest::Method;
use serde_json::{Value, json};
use switchboard::api::Secret;
use switchboard::api::generation::Generation;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::service::{eventually, http};

const ORG_KEY: &str = "sk_org_generation_tests_0123456789";
const INSTANCE_KEY: &str = "sk_instance_generation_tests_0123456789";

/// Which key a request carries.
#[derive(Clone, Copy)]
enum Key {
    Org,
    Instance,
    None,
}

struct Ed {
    svc: RunningService,
    instance: String,
}

struct Reply {
    status: u16,
    body: Value,
    text: String,
}

async fn service(seed: Seed) -> Ed {
    let cfg = ServiceConfig {
        seed,
        generation: Generation::EventDestinations,
        api_key: Some(Secret::new(ORG_KEY)),
        instance_key: Some(Secret::new(INSTANCE_KEY)),
        ..ServiceConfig::ephemeral()
    };
    let svc = start(cfg).await.expect("service starts");
    let instance = svc.instance_id.clone().expect("an instance id");
    Ed { svc, instance }
}

impl Ed {
    /// A request with the key a path needs (organization key on `/organization/…`, the
    /// instance key elsewhere) and extra headers.
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

    async fn get(&self, path: &str) -> Value {
        let r = self
            .send(Method::GET, path, None, Self::key_for(path), &[])
            .await;
        assert_eq!(r.status, 200, "GET {path}: {}", r.text);
        r.body
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        let r = self
            .send(Method::POST, path, Some(body), Self::key_for(path), &[])
            .await;
        assert_eq!(r.status, 200, "POST {path}: {}", r.text);
        r.body
    }

    async fn patch(&self, path: &str, body: Value) -> Value {
        let r = self
            .send(Method::PATCH, path, Some(body), Self::key_for(path), &[])
            .await;
        assert_eq!(r.status, 200, "PATCH {path}: {}", r.text);
        r.body
    }

    /// A destination on `url` with a retry policy, and a listener for `callback.*` resource
    /// events unless told otherwise; returns (destination, secret).
    async fn destination(&self, url: &str, retry: Value) -> (Value, String) {
        let d = self
            .post("/organization/event-destinations", json!({
                "name": "Test receiver", "type": "webhook", "webhook": {"url": url}, "retry": retry,
            }))
            .await;
        let secret = d["webhook"]["signing_secret"]
            .as_str()
            .expect("the secret on create")
            .to_string();
        (d, secret)
    }

    async fn delivery(&self, id: &str) -> Value {
        self.get(&format!("/organization/event-deliveries/{id}"))
            .await
    }

    /// Polls a delivery until `done` holds (10 s at most).
    async fn wait_delivery(&self, id: &str, done: impl Fn(&Value) -> bool) -> Value {
        eventually(Duration::from_secs(10), || async {
            let d = self.delivery(id).await;
            done(&d).then_some(d)
        })
        .await
    }
}

/// One request a receiver got.
#[derive(Clone, Debug)]
struct Hit {
    headers: HeaderMap,
    body: String,
}

type Respond = Arc<dyn Fn(&Hit) -> (u16, String) + Send + Sync>;

/// A receiver on 127.0.0.1 answering with `respond`; returns its URL and what it got.
async fn receiver(respond: Respond) -> (String, Arc<Mutex<Vec<Hit>>>) {
    let hits: Arc<Mutex<Vec<Hit>>> = Arc::default();
    let log = hits.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: HeaderMap, body: String| {
            let (log, respond) = (log.clone(), respond.clone());
            async move {
                let hit = Hit { headers, body };
                let (status, text) = respond(&hit);
                log.lock().expect("log").push(hit);
                (StatusCode::from_u16(status).unwrap_or(StatusCode::OK), text)
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

fn answering(status: u16) -> Respond {
    Arc::new(move |_| (status, "{}".into()))
}

/// HMAC-SHA256(secret, "t.body") in hex, computed here independently of the service.
fn hmac_hex(secret: &str, message: &str) -> String {
    use hmac::{Hmac, KeyInit, Mac};
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).expect("key");
    mac.update(message.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// Whether a hit is signed with `secret` as §7 signs (`t=…,v1=…` over `t.body`).
fn signed_with(hit: &Hit, secret: &str) -> bool {
    let Some(sig) = hit
        .headers
        .get("metorial-signature")
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let mut t = None;
    let mut v1 = None;
    for part in sig.split(',') {
        match part.split_once('=') {
            Some(("t", x)) => t = Some(x.to_string()),
            Some(("v1", x)) => v1 = Some(x.to_string()),
            Some(("i", _)) => return false,
            _ => {}
        }
    }
    match (t, v1) {
        (Some(t), Some(v1)) => hmac_hex(secret, &format!("{t}.{}", hit.body)) == v1,
        _ => false,
    }
}

fn ids(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["id"].as_str().map(String::from))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn versions_introspection_and_version_resolution() {
    let ed = service(Seed::Demo).await;
    let versions = ed
        .send(
            Method::GET,
            "/metorial/introspect/versions",
            None,
            Key::None,
            &[],
        )
        .await;
    let golden: Value = serde_json::from_str(include_str!(
        "../fixtures/generations/introspect-versions.json"
    ))
    .expect("fixture");
    assert_eq!(versions.body, golden);

    let paths = |v: &Value| -> Vec<String> {
        v["endpoints"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| {
                format!(
                    "{} {}",
                    e["method"].as_str().unwrap_or(""),
                    e["path"]["path"].as_str().unwrap_or("")
                )
            })
            .collect()
    };
    let dash = ed
        .send(
            Method::GET,
            "/metorial/introspect/endpoints?version=mt_2025_01_01_dashboard",
            None,
            Key::None,
            &[],
        )
        .await;
    let mag = ed
        .send(
            Method::GET,
            "/metorial/introspect/endpoints?version=mt_2026_01_01_magnetar",
            None,
            Key::None,
            &[],
        )
        .await;
    assert_eq!((dash.status, mag.status), (200, 200));
    let (dash, mag) = (paths(&dash.body), paths(&mag.body));
    assert!(
        dash.contains(&"post /organization/teams/:teamId/policies".replace(":teamId", ":team_id")),
        "{dash:?}"
    );
    assert!(
        dash.iter()
            .any(|p| p.ends_with("/organization/access-policies"))
    );
    assert!(
        dash.iter()
            .any(|p| p.ends_with("/organization/event-destinations"))
    );
    assert!(
        dash.iter()
            .any(|p| p.ends_with("/provider-auth-config-imports"))
    );
    assert!(
        !dash.iter().any(|p| p.contains("/projects")),
        "no projects-with-roles routes: {dash:?}"
    );
    // Both list every path except teams and access policies, which only dashboard lists.
    let expected: Vec<&String> = dash
        .iter()
        .filter(|p| {
            !p.contains("/organization/teams") && !p.contains("/organization/access-policies")
        })
        .collect();
    assert_eq!(mag.iter().collect::<Vec<_>>(), expected);
    // Introspection lists what is served: every endpoint is in the OpenAPI document, and each
    // answers something other than a 404 `endpoint`.
    let doc = ed
        .send(Method::GET, "/openapi.json", None, Key::None, &[])
        .await
        .body;
    for p in &dash {
        let (method, path) = p.split_once(' ').expect("method and path");
        let braced = path
            .split('/')
            .map(|s| {
                s.strip_prefix(':')
                    .map_or(s.to_string(), |n| format!("{{{n}}}"))
            })
            .collect::<Vec<_>>()
            .join("/");
        assert!(
            doc["paths"][&braced][method].is_object(),
            "{p} is not in the document"
        );
        let concrete = path
            .split('/')
            .map(|s| if s.starts_with(':') { "x_1" } else { s })
            .collect::<Vec<_>>()
            .join("/");
        let m = Method::from_bytes(method.to_uppercase().as_bytes()).expect("method");
        let r = ed
            .send(m, &concrete, Some(json!({})), Ed::key_for(&concrete), &[])
            .await;
        assert!(
            !(r.status == 404 && r.body["entity"] == "endpoint"),
            "{p}: {}",
            r.text
        );
    }
    let missing = ed
        .send(
            Method::GET,
            "/metorial/introspect/endpoints",
            None,
            Key::None,
            &[],
        )
        .await;
    assert_eq!(missing.status, 400, "{}", missing.text);
    let unlisted = ed
        .send(
            Method::GET,
            "/metorial/introspect/endpoints?version=mt_2025_01_01_pulsar",
            None,
            Key::None,
            &[],
        )
        .await;
    assert_eq!(unlisted.status, 406, "{}", unlisted.text);

    // Any unlisted value answers as dashboard; consumer is refused with the platform's body.
    for v in ["mt_2025_01_01_pulsar", "magnetar", "2026-01-01", "nonsense"] {
        let r = ed
            .send(
                Method::GET,
                "/organization/teams?limit=1",
                None,
                Key::Org,
                &[("metorial-version", v)],
            )
            .await;
        assert_eq!(r.status, 200, "{v}: {}", r.text);
    }
    let r = ed
        .send(
            Method::GET,
            "/organization/teams",
            None,
            Key::Org,
            &[("metorial-version", "mt_2026_04_01_consumer")],
        )
        .await;
    assert_eq!(r.status, 406);
    let golden: Value = serde_json::from_str(include_str!(
        "../fixtures/generations/error-version-not-allowed-406.json"
    ))
    .expect("fixture");
    assert_eq!(r.body, golden);
    let r = ed
        .send(
            Method::GET,
            "/organization/events?api-version=mt_2026_04_01_consumer",
            None,
            Key::Org,
            &[],
        )
        .await;
    assert_eq!(r.status, 406, "the query parameter is read too");
    // Magnetar has no teams, and its callbacks carry no `sync`.
    let r = ed
        .send(
            Method::GET,
            "/organization/teams",
            None,
            Key::Org,
            &[("metorial-version", "mt_2026_01_01_magnetar")],
        )
        .await;
    assert_eq!(
        (r.status, r.body["entity"].as_str()),
        (404, Some("endpoint")),
        "{}",
        r.text
    );
    let r = ed
        .send(
            Method::GET,
            "/callbacks",
            None,
            Key::Instance,
            &[("metorial-version", "mt_2026_01_01_magnetar")],
        )
        .await;
    assert_eq!(r.status, 200);
    assert!(r.body["items"][0].get("sync").is_none(), "{}", r.text);
    assert!(ed.get("/callbacks").await["items"][0]["sync"].is_object());
    // Lists and errors carry `object`.
    assert_eq!(
        ed.get("/organization/event-destinations").await["object"],
        "list"
    );
    let r = ed.send(Method::GET, "/nowhere", None, Key::Org, &[]).await;
    assert_eq!(
        (
            r.status,
            r.body["object"].as_str(),
            r.body["entity"].as_str()
        ),
        (404, Some("error"), Some("endpoint"))
    );
    ed.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_are_checked_by_the_kind_of_path() {
    let ed = service(Seed::Demo).await;
    let r = ed
        .send(
            Method::GET,
            "/organization/event-destinations",
            None,
            Key::Instance,
            &[],
        )
        .await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (403, Some("forbidden")),
        "{}",
        r.text
    );
    assert_eq!(
        r.body["message"],
        "Your API key is not authorized to access this endpoint"
    );
    let r = ed
        .send(Method::GET, "/organization/teams", None, Key::Instance, &[])
        .await;
    assert_eq!(r.status, 403);
    let r = ed
        .send(Method::GET, "/callbacks", None, Key::Org, &[])
        .await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (400, Some("bad_request")),
        "{}",
        r.text
    );
    let r = ed
        .send(
            Method::GET,
            "/callbacks",
            None,
            Key::Org,
            &[("metorial-instance-id", &ed.instance)],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = ed
        .send(
            Method::GET,
            "/callbacks",
            None,
            Key::Org,
            &[("metorial-instance-id", "ins_other")],
        )
        .await;
    assert_eq!(r.status, 404, "{}", r.text);
    assert_eq!(
        ed.send(
            Method::GET,
            "/provider-auth-config-imports",
            None,
            Key::Instance,
            &[]
        )
        .await
        .status,
        200
    );
    let r = ed
        .send(Method::GET, "/callbacks", None, Key::None, &[])
        .await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (401, Some("unauthorized"))
    );
    let mut rb = http().get(format!("{}/organization/events", ed.svc.base_url));
    rb = rb.bearer_auth("sk_wrong");
    assert_eq!(rb.send().await.expect("send").status(), 401);
    ed.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn teams_with_policies_and_access_policies() {
    let ed = service(Seed::Demo).await;
    let policies = ed.get("/organization/access-policies?limit=100").await;
    let items = policies["items"].as_array().expect("policies");
    assert!(
        items.iter().any(|p| p["type"] == "custom") && items.iter().any(|p| p["type"] == "admin")
    );
    let custom = items
        .iter()
        .find(|p| p["slug"] == "read-only-auditors")
        .expect("a custom policy")
        .clone();
    let admin = items
        .iter()
        .find(|p| p["type"] == "admin")
        .expect("admin")
        .clone();
    assert_eq!(
        ed.get(&format!(
            "/organization/access-policies/{}",
            custom["id"].as_str().unwrap_or("")
        ))
        .await["name"],
        "Read-only auditors"
    );
    let seeded = ed.get("/organization/teams").await;
    let teams = seeded["items"].as_array().expect("teams");
    assert!(
        teams
            .iter()
            .any(|t| t["policies"].as_array().is_some_and(Vec::is_empty))
    );
    assert!(
        teams
            .iter()
            .any(|t| t["policies"].as_array().is_some_and(|p| !p.is_empty()))
    );

    let team = ed
        .post(
            "/organization/teams",
            json!({"name": "Night shift", "description": "Pager"}),
        )
        .await;
    assert_eq!(
        (
            team["slug"].as_str(),
            team["policies"].as_array().map(Vec::len)
        ),
        (Some("night-shift"), Some(0))
    );
    let id = team["id"].as_str().expect("id").to_string();
    assert_eq!(
        ed.get("/organization/teams/night-shift").await["id"],
        team["id"]
    );
    let updated = ed
        .post(
            &format!("/organization/teams/{id}"),
            json!({"name": "Night owls"}),
        )
        .await;
    assert_eq!(updated["name"], "Night owls");
    let path = format!("/organization/teams/{id}/policies");
    for _ in 0..2 {
        let t = ed
            .post(&path, json!({"access_policy_id": custom["id"]}))
            .await;
        assert_eq!(
            t["policies"].as_array().map(Vec::len),
            Some(1),
            "idempotent: {t}"
        );
        assert_eq!(
            t["policies"][0]["object"],
            "management.access_policy#preview"
        );
    }
    let r = ed
        .send(
            Method::POST,
            &path,
            Some(json!({"access_policy_id": admin["id"]})),
            Key::Org,
            &[],
        )
        .await;
    assert_eq!(r.status, 400, "only custom policies: {}", r.text);
    let gone = ed
        .send(
            Method::DELETE,
            &format!("{path}/{}", custom["id"].as_str().unwrap_or("")),
            None,
            Key::Org,
            &[],
        )
        .await;
    assert_eq!(
        (gone.status, gone.body["policies"].as_array().map(Vec::len)),
        (200, Some(0))
    );
    let again = ed
        .send(
            Method::DELETE,
            &format!("{path}/{}", custom["id"].as_str().unwrap_or("")),
            None,
            Key::Org,
            &[],
        )
        .await;
    assert_eq!(
        again.status, 200,
        "removing what is not assigned is a no-op"
    );
    for (m, p) in [
        (Method::POST, format!("/organization/teams/{id}/projects")),
        (Method::GET, "/organization/team-roles".to_string()),
    ] {
        let r = ed.send(m, &p, Some(json!({})), Key::Org, &[]).await;
        assert_eq!(
            (r.status, r.body["entity"].as_str()),
            (404, Some("endpoint")),
            "{p}"
        );
    }
    // Members as pulsar: add, twice is 400, remove, not a member is 400; the actor's teams follow.
    let members = ed.get("/organization/members").await;
    let actor = members["items"][2]["actor_id"]
        .as_str()
        .expect("an actor")
        .to_string();
    let path = format!("/organization/teams/{id}/members");
    ed.post(&path, json!({"actor_id": actor})).await;
    let twice = ed
        .send(
            Method::POST,
            &path,
            Some(json!({"actor_id": actor})),
            Key::Org,
            &[],
        )
        .await;
    assert_eq!(twice.status, 400, "{}", twice.text);
    let listed = ed.get("/organization/members?limit=100").await;
    let teams_of = |list: &Value| -> Vec<String> {
        list["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["actor_id"] == actor.as_str())
            .flat_map(|m| m["actor"]["teams"].as_array().cloned().unwrap_or_default())
            .filter_map(|t| t["name"].as_str().map(String::from))
            .collect()
    };
    assert_eq!(teams_of(&listed), ["Night owls"]);
    let r = ed
        .send(
            Method::DELETE,
            &format!("{path}/{actor}"),
            None,
            Key::Org,
            &[],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = ed
        .send(
            Method::DELETE,
            &format!("{path}/{actor}"),
            None,
            Key::Org,
            &[],
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(teams_of(&ed.get("/organization/members?limit=100").await).is_empty());
    ed.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auth_imports_are_created_read_and_never_changed() {
    let ed = service(Seed::Demo).await;
    let seeded = ed.get("/provider-auth-config-imports").await;
    assert!(ids(&seeded).len() >= 2);
    let provider = seeded["items"][0]["provider_id"]
        .as_str()
        .expect("provider")
        .to_string();
    let token = "gho_secret_value_never_echoed_0123";
    let r = ed.send(Method::POST, "/provider-auth-config-imports", Some(json!({
        "note": "Imported by a test", "value": {"access_token": token}, "provider_id": provider,
        "metadata": {"k": "v"},
    })), Key::Instance, &[]).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(!r.text.contains(token), "the value is never echoed");
    assert_eq!(r.body["object"], "provider.auth_import");
    let id = r.body["id"].as_str().expect("id").to_string();
    let got = ed.get(&format!("/provider-auth-config-imports/{id}")).await;
    assert_eq!(got["note"], "Imported by a test");
    let filtered = ed
        .get(&format!(
            "/provider-auth-config-imports?provider_id={provider}&limit=100"
        ))
        .await;
    assert!(ids(&filtered).contains(&id));
    let schema = ed
        .get(&format!(
            "/provider-auth-config-imports/schema?provider_id={provider}"
        ))
        .await;
    assert_eq!(schema["schema"]["schema"]["required"][0], "access_token");
    let missing = ed
        .send(
            Method::POST,
            "/provider-auth-config-imports",
            Some(json!({"note": "x"})),
            Key::Instance,
            &[],
        )
        .await;
    assert_eq!(
        (missing.status, missing.body["code"].as_str()),
        (400, Some("invalid_data"))
    );
    for m in [Method::PATCH, Method::DELETE] {
        let r = ed
            .send(
                m,
                &format!("/provider-auth-config-imports/{id}"),
                Some(json!({"note": "y"})),
                Key::Instance,
                &[],
            )
            .await;
        assert_eq!(
            (r.status, r.body["entity"].as_str()),
            (404, Some("endpoint"))
        );
    }
    ed.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callbacks_sync_receive_events_and_delete() {
    let ed = service(Seed::Demo).await;
    let all = ed.get("/callbacks").await;
    let items = all["items"].as_array().expect("callbacks").clone();
    assert!(
        items.iter().any(|c| c["sync"]["status"] == "pending"),
        "one not yet synced"
    );
    let pending = items
        .iter()
        .find(|c| c["sync"]["status"] == "pending")
        .expect("pending");
    let held = ed
        .get(&format!(
            "/callback-events?callback_id={}",
            pending["id"].as_str().unwrap_or("")
        ))
        .await;
    assert!(
        held["items"]
            .as_array()
            .is_some_and(|e| !e.is_empty() && e.iter().all(|e| e["status"] == "pending"))
    );
    let first = &items[0];
    let cb = ed.post("/callbacks", json!({
        "integration_id": first["integration_id"], "integration_provider_id": first["integration_provider_id"],
        "name": "Test callback",
    })).await;
    assert_eq!(cb["sync"]["status"], "pending");
    let id = cb["id"].as_str().expect("id").to_string();
    eventually(Duration::from_secs(5), || async {
        (ed.get(&format!("/callbacks/{id}")).await["sync"]["status"] == "synced").then_some(())
    })
    .await;
    let instances = ed
        .get(&format!("/callback-instances?callback_id={id}"))
        .await;
    let instance = instances["items"][0].clone();
    assert_eq!(instance["object"], "callback.instance");
    assert_eq!(
        ed.get(&format!(
            "/callback-instances/{}",
            instance["id"].as_str().unwrap_or("")
        ))
        .await["id"],
        instance["id"]
    );
    // A provider's webhook arrives for the instance: a callback event with its details, and an event.
    let whk = format!(
        "whk_{}",
        instance["id"]
            .as_str()
            .unwrap_or("")
            .split_once('_')
            .map_or("", |(_, r)| r)
    );
    let hook = http()
        .post(format!("{}/w/{whk}", ed.svc.base_url))
        .json(&json!({"type": "issues.opened", "n": 1}))
        .send()
        .await
        .expect("hook");
    assert_eq!(hook.status(), 200);
    let events = ed
        .get(&format!("/callback-events?callback_id={id}&source=webhook"))
        .await;
    let cbe = events["items"][0].clone();
    assert_eq!(
        (cbe["status"].as_str(), cbe["details"].is_null()),
        (Some("processed"), true),
        "{events}"
    );
    let detail = ed
        .get(&format!(
            "/callback-events/{}",
            cbe["id"].as_str().unwrap_or("")
        ))
        .await;
    assert_eq!(detail["details"]["payload"]["n"], 1);
    assert_eq!(
        detail["details"]["webhook"]["request"]["body"]["encoding"],
        "base64"
    );
    let evs = ed
        .get(&format!(
            "/organization/events?callback_id={id}&source=callback"
        ))
        .await;
    assert_eq!(evs["items"][0]["event_type"], "callback.issues.opened");
    let patched = ed
        .patch(
            &format!("/callbacks/{id}"),
            json!({"description": "d", "metadata": {"a": 1}}),
        )
        .await;
    assert_eq!(
        (
            patched["description"].as_str(),
            patched["metadata"]["a"].as_i64()
        ),
        (Some("d"), Some(1))
    );
    let deleted = ed
        .send(
            Method::DELETE,
            &format!("/callbacks/{id}"),
            None,
            Key::Instance,
            &[],
        )
        .await;
    assert_eq!(
        (deleted.status, deleted.body["status"].as_str()),
        (200, Some("deleted"))
    );
    let again = ed
        .send(
            Method::DELETE,
            &format!("/callbacks/{id}"),
            None,
            Key::Instance,
            &[],
        )
        .await;
    assert_eq!(
        (again.status, again.body["code"].as_str()),
        (400, Some("callback_not_active"))
    );
    ed.svc.shutdown().await;
}

/// A fixed policy of `max` attempts `secs` apart.
fn fixed(max: u64, secs: u64) -> Value {
    json!({"strategy": "fixed", "max_attempts": max, "base_delay_seconds": secs, "max_delay_seconds": secs})
}

/// Listens on `dest` for resource events of these types.
async fn listen(ed: &Ed, dest: &Value, types: &[&str]) -> Value {
    ed.post("/organization/event-destination-listeners", json!({
        "instance_id": ed.instance, "event_destination_id": dest["id"], "type": "event", "event_types": types,
    }))
    .await
}

/// The deliveries of a destination, oldest first.
async fn deliveries_of(ed: &Ed, dest: &Value) -> Vec<Value> {
    let list = ed
        .get(&format!(
            "/organization/event-deliveries?event_destination_id={}&limit=100",
            dest["id"].as_str().unwrap_or("")
        ))
        .await;
    list["items"].as_array().cloned().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn destinations_show_the_secret_once_and_check_their_policy() {
    let ed = service(Seed::None).await;
    let (d, secret) = ed.destination("http://127.0.0.1:9/hook", json!({"strategy": "linear", "max_attempts": 4, "base_delay_seconds": 2, "max_delay_seconds": 60})).await;
    assert!(secret.starts_with("whsec_"));
    let id = d["id"].as_str().expect("id").to_string();
    let got = ed
        .get(&format!("/organization/event-destinations/{id}"))
        .await;
    assert!(
        got["webhook"]["signing_secret"].is_null(),
        "the secret only on create and rotate"
    );
    assert_eq!(
        got["retry"],
        json!({"strategy": "linear", "max_attempts": 4, "base_delay_seconds": 2, "max_delay_seconds": 60})
    );
    let list = ed.get("/organization/event-destinations").await;
    assert!(
        list["items"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|d| d["webhook"]["signing_secret"].is_null())
    );
    let patched = ed.patch(&format!("/organization/event-destinations/{id}"), json!({"name": "Renamed", "webhook": {"url": "http://127.0.0.1:9/other"}, "retry": {"strategy": "fixed"}})).await;
    assert_eq!(
        (
            patched["name"].as_str(),
            patched["webhook"]["url"].as_str(),
            patched["retry"]["strategy"].as_str()
        ),
        (
            Some("Renamed"),
            Some("http://127.0.0.1:9/other"),
            Some("fixed")
        )
    );
    for bad in [
        json!({"max_attempts": 26}),
        json!({"strategy": "sometimes"}),
        json!({"base_delay_seconds": 0}),
    ] {
        let r = ed.send(Method::POST, "/organization/event-destinations", Some(json!({"name": "x", "type": "webhook", "webhook": {"url": "http://127.0.0.1:9/"}, "retry": bad})), Key::Org, &[]).await;
        assert_eq!(
            (r.status, r.body["code"].as_str()),
            (400, Some("invalid_data")),
            "{}",
            r.text
        );
    }
    let r = ed
        .send(
            Method::DELETE,
            &format!("/organization/event-destinations/{id}"),
            None,
            Key::Org,
            &[],
        )
        .await;
    assert_eq!(
        (r.status, r.body["entity"].as_str()),
        (404, Some("endpoint")),
        "no delete: archive"
    );
    ed.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listeners_decide_which_deliveries_a_destination_gets() {
    let ed = service(Seed::Demo).await;
    let (url_a, hits_a) = receiver(answering(200)).await;
    let (url_b, hits_b) = receiver(answering(200)).await;
    let (a, _) = ed.destination(&url_a, fixed(3, 1)).await;
    let (b, _) = ed.destination(&url_b, fixed(3, 1)).await;
    let callbacks = ed.get("/callbacks").await;
    let cb = callbacks["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["sync"]["status"] == "synced")
        .expect("a synced callback")
        .clone();
    let cb_id = cb["id"].as_str().unwrap_or("").to_string();
    // A: the callback's `issues.opened` only; B: `callback.updated` resource events.
    let la = ed
        .post(
            "/organization/event-destination-listeners",
            json!({
                "instance_id": ed.instance, "event_destination_id": a["id"], "type": "callback",
                "callback_id": cb_id, "triggers": ["issues.opened"],
            }),
        )
        .await;
    assert_eq!(la["type"], "callback");
    let lb = listen(&ed, &b, &["callback.updated"]).await;
    let listed = ed
        .get(&format!(
            "/organization/event-destination-listeners?event_destination_id={}",
            a["id"].as_str().unwrap_or("")
        ))
        .await;
    assert_eq!(
        ids(&listed),
        vec![la["id"].as_str().unwrap_or("").to_string()]
    );
    assert_eq!(
        ed.get(&format!(
            "/organization/event-destinations/{}",
            a["id"].as_str().unwrap_or("")
        ))
        .await["listeners"][0]["id"],
        la["id"]
    );

    let instances = ed
        .get(&format!("/callback-instances?callback_id={cb_id}"))
        .await;
    let whk = format!(
        "whk_{}",
        instances["items"][0]["id"]
            .as_str()
            .unwrap_or("")
            .split_once('_')
            .map_or("", |(_, r)| r)
    );
    for trigger in ["issues.opened", "issues.closed"] {
        let r = http()
            .post(format!("{}/w/{whk}", ed.svc.base_url))
            .json(&json!({"type": trigger}))
            .send()
            .await
            .expect("hook");
        assert_eq!(r.status(), 200);
    }
    ed.patch(&format!("/callbacks/{cb_id}"), json!({"name": "Renamed"}))
        .await;
    let delivered = |hits: &Arc<Mutex<Vec<Hit>>>, n: usize| {
        let hits = hits.clone();
        async move { (hits.lock().expect("hits").len() >= n).then_some(()) }
    };
    eventually(Duration::from_secs(10), || delivered(&hits_a, 1)).await;
    eventually(Duration::from_secs(10), || delivered(&hits_b, 1)).await;
    let da = deliveries_of(&ed, &a).await;
    let db = deliveries_of(&ed, &b).await;
    assert_eq!(
        da.iter()
            .map(|d| d["event_type"].as_str().unwrap_or(""))
            .collect::<Vec<_>>(),
        ["callback.issues.opened"]
    );
    assert_eq!(
        db.iter()
            .map(|d| d["event_type"].as_str().unwrap_or(""))
            .collect::<Vec<_>>(),
        ["callback.updated"]
    );
    let body: Value =
        serde_json::from_str(&hits_a.lock().expect("hits")[0].body).expect("json body");
    assert_eq!(
        (
            body["object"].as_str(),
            body["callback_trigger_key"].as_str()
        ),
        (Some("event"), Some("issues.opened"))
    );

    // Changing a listener's triggers changes what comes next; deleting it stops the flow.
    let l_path = format!(
        "/organization/event-destination-listeners/{}",
        la["id"].as_str().unwrap_or("")
    );
    let changed = ed
        .patch(&l_path, json!({"triggers": ["issues.closed"]}))
        .await;
    assert_eq!(changed["triggers"], json!(["issues.closed"]));
    let removed = ed
        .send(
            Method::DELETE,
            &format!(
                "/organization/event-destination-listeners/{}",
                lb["id"].as_str().unwrap_or("")
            ),
            None,
            Key::Org,
            &[],
        )
        .await;
    assert_eq!(
        (removed.status, removed.body["id"].clone()),
        (200, lb["id"].clone())
    );
    for trigger in ["issues.opened", "issues.closed"] {
        http()
            .post(format!("{}/w/{whk}", ed.svc.base_url))
            .json(&json!({"type": trigger}))
            .send()
            .await
            .expect("hook");
    }
    ed.patch(
        &format!("/callbacks/{cb_id}"),
        json!({"name": "Renamed again"}),
    )
    .await;
    eventually(Duration::from_secs(10), || delivered(&hits_a, 2)).await;
    let da = deliveries_of(&ed, &a).await;
    assert_eq!(
        da.iter()
            .map(|d| d["event_type"].as_str().unwrap_or(""))
            .collect::<Vec<_>>(),
        ["callback.issues.opened", "callback.issues.closed"]
    );
    assert_eq!(
        deliveries_of(&ed, &b).await.len(),
        1,
        "no listener, no delivery"
    );
    ed.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_makes_one_attempt_due_at_once_then_a_fresh_budget() {
    let ed = service(Seed::None).await;
    let (url, hits) = receiver(answering(503)).await;
    let (d, _) = ed.destination(&url, fixed(2, 1)).await;
    let ping = ed
        .post(
            &format!(
                "/organization/event-destinations/{}/ping",
                d["id"].as_str().unwrap_or("")
            ),
            json!({}),
        )
        .await;
    assert_eq!(
        (ping["object"].as_str(), ping["event_type"].as_str()),
        (Some("event.delivery"), Some("ping"))
    );
    let id = ping["id"].as_str().expect("id").to_string();
    // An unfinished delivery cannot be retried.
    let early = ed
        .send(
            Method::POST,
            &format!("/organization/event-deliveries/{id}/retry"),
            None,
            Key::Org,
            &[],
        )
        .await;
    if early.status != 200 {
        assert_eq!(
            (
                early.status,
                early.body["code"].as_str(),
                early.body["message"].as_str()
            ),
            (
                400,
                Some("bad_request"),
                Some("Only a finished delivery can be retried")
            )
        );
    }
    let failed = ed.wait_delivery(&id, |d| d["status"] == "failed").await;
    assert_eq!(
        failed["attempt_count"], 2,
        "the policy's two attempts: {failed}"
    );
    assert_eq!(hits.lock().expect("hits").len(), 2);

    let retried = ed
        .post(
            &format!("/organization/event-deliveries/{id}/retry"),
            json!({}),
        )
        .await;
    assert_eq!(retried["status"], "pending");
    // Exactly one attempt at once: the next waits the policy's 1 s.
    let one = ed.wait_delivery(&id, |d| d["attempt_count"] == 3).await;
    assert_eq!(one["status"], "retrying", "a fresh budget of two: {one}");
    assert_eq!(hits.lock().expect("hits").len(), 3);
    let next = chrono::DateTime::parse_from_rfc3339(one["next_attempt_at"].as_str().expect("next"))
        .expect("time");
    let last = chrono::DateTime::parse_from_rfc3339(one["last_attempt_at"].as_str().expect("last"))
        .expect("time");
    assert!((next - last).num_milliseconds() >= 900, "{one}");
    let done = ed.wait_delivery(&id, |d| d["status"] == "failed").await;
    assert_eq!(done["attempt_count"], 4);
    assert_eq!(done["attempts"].as_array().map(Vec::len), Some(4));
    assert_eq!(hits.lock().expect("hits").len(), 4);
    // A retrying delivery is not finished.
    let (slow_url, _) = receiver(answering(503)).await;
    let (slow, _) = ed.destination(&slow_url, fixed(5, 3600)).await;
    let p = ed
        .post(
            &format!(
                "/organization/event-destinations/{}/ping",
                slow["id"].as_str().unwrap_or("")
            ),
            json!({}),
        )
        .await;
    let pid = p["id"].as_str().expect("id").to_string();
    ed.wait_delivery(&pid, |d| d["status"] == "retrying").await;
    let r = ed
        .send(
            Method::POST,
            &format!("/organization/event-deliveries/{pid}/retry"),
            None,
            Key::Org,
            &[],
        )
        .await;
    assert_eq!(
        (
            r.status,
            r.body["code"].as_str(),
            r.body["message"].as_str()
        ),
        (
            400,
            Some("bad_request"),
            Some("Only a finished delivery can be retried")
        )
    );
    ed.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_transient_failures_are_retried_and_retry_after_is_honoured() {
    let ed = service(Seed::None).await;
    let (url, hits) = receiver(answering(404)).await;
    let (d, _) = ed.destination(&url, fixed(5, 1)).await;
    let p = ed
        .post(
            &format!(
                "/organization/event-destinations/{}/ping",
                d["id"].as_str().unwrap_or("")
            ),
            json!({}),
        )
        .await;
    let done = ed
        .wait_delivery(p["id"].as_str().unwrap_or(""), |d| d["status"] == "failed")
        .await;
    assert_eq!(
        (
            done["attempt_count"].as_u64(),
            done["attempts"][0]["is_retryable"].as_bool()
        ),
        (Some(1), Some(false))
    );
    assert_eq!(hits.lock().expect("hits").len(), 1);
    let (url, _) = receiver(Arc::new(|_| (429, "slow down".into()))).await;
    let (d, _) = ed.destination(&url, json!({"strategy": "fixed", "max_attempts": 3, "base_delay_seconds": 1, "max_delay_seconds": 7})).await;
    let p = ed
        .post(
            &format!(
                "/organization/event-destinations/{}/ping",
                d["id"].as_str().unwrap_or("")
            ),
            json!({}),
        )
        .await;
    let r = ed
        .wait_delivery(p["id"].as_str().unwrap_or(""), |d| {
            d["status"] == "retrying"
        })
        .await;
    // No Retry-After: the policy's 1 s.
    let gap = |d: &Value| {
        let n = chrono::DateTime::parse_from_rfc3339(d["next_attempt_at"].as_str().unwrap_or(""))
            .expect("next");
        let l = chrono::DateTime::parse_from_rfc3339(d["last_attempt_at"].as_str().unwrap_or(""))
            .expect("last");
        (n - l).num_milliseconds()
    };
    assert!((900..2000).contains(&gap(&r)), "{r}");
    ed.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_after_replaces_the_delay_up_to_the_longest() {
    let ed = service(Seed::None).await;
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(|| async {
            (
                StatusCode::SERVICE_UNAVAILABLE,
                [("retry-after", "3600")],
                "later",
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let (d, _) = ed.destination(&url, json!({"strategy": "fixed", "max_attempts": 3, "base_delay_seconds": 1, "max_delay_seconds": 7})).await;
    let p = ed
        .post(
            &format!(
                "/organization/event-destinations/{}/ping",
                d["id"].as_str().unwrap_or("")
            ),
            json!({}),
        )
        .await;
    let r = ed
        .wait_delivery(p["id"].as_str().unwrap_or(""), |d| {
            d["status"] == "retrying"
        })
        .await;
    let n = chrono::DateTime::parse_from_rfc3339(r["next_attempt_at"].as_str().unwrap_or(""))
        .expect("next");
    let l = chrono::DateTime::parse_from_rfc3339(r["last_attempt_at"].as_str().unwrap_or(""))
        .expect("last");
    assert_eq!(
        (n - l).num_seconds(),
        7,
        "Retry-After 3600 capped at max_delay_seconds: {r}"
    );
    ed.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn archive_cancels_pending_and_retrying_deliveries() {
    let ed = service(Seed::Demo).await;
    let dests = ed
        .get("/organization/event-destinations?status=active&limit=100")
        .await;
    let flaky = dests["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|d| d["name"] == "Flaky relay")
        .expect("the flaky relay")
        .clone();
    let open: Vec<Value> = deliveries_of(&ed, &flaky)
        .await
        .into_iter()
        .filter(|d| matches!(d["status"].as_str(), Some("pending" | "retrying")))
        .collect();
    let statuses: Vec<&str> = open.iter().filter_map(|d| d["status"].as_str()).collect();
    assert!(
        statuses.contains(&"pending") && statuses.contains(&"retrying"),
        "{statuses:?}"
    );
    let archived = ed
        .post(
            &format!(
                "/organization/event-destinations/{}/archive",
                flaky["id"].as_str().unwrap_or("")
            ),
            json!({}),
        )
        .await;
    assert_eq!(archived["status"], "archived");
    assert!(archived["archived_at"].is_string());
    for d in &open {
        let now = ed.delivery(d["id"].as_str().unwrap_or("")).await;
        assert_eq!(
            (now["status"].as_str(), now["next_attempt_at"].is_null()),
            (Some("cancelled"), true),
            "{now}"
        );
    }
    let cancelled = ed
        .get(&format!(
            "/organization/event-deliveries?status=cancelled&event_destination_id={}",
            flaky["id"].as_str().unwrap_or("")
        ))
        .await;
    assert_eq!(ids(&cancelled).len(), open.len());
    let r = ed
        .send(
            Method::POST,
            &format!(
                "/organization/event-destinations/{}/ping",
                flaky["id"].as_str().unwrap_or("")
            ),
            None,
            Key::Org,
            &[],
        )
        .await;
    assert_eq!(
        (r.status, r.body["status"].as_str()),
        (200, Some("cancelled")),
        "a ping to an archived destination is cancelled: {}",
        r.text
    );
    ed.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotation_invalidates_the_old_secret_for_the_next_delivery() {
    let ed = service(Seed::None).await;
    // The receiver accepts only what the secret it knows signs; 401 (not retried) otherwise.
    let known: Arc<Mutex<String>> = Arc::default();
    let k = known.clone();
    let (url, hits) = receiver(Arc::new(move |hit| {
        let secret = k.lock().expect("secret").clone();
        if signed_with(hit, &secret) {
            (200, "ok".into())
        } else {
            (401, "bad signature".into())
        }
    }))
    .await;
    let (d, secret) = ed.destination(&url, fixed(3, 1)).await;
    *known.lock().expect("secret") = secret.clone();
    let dest = d["id"].as_str().expect("id").to_string();
    let path = format!("/organization/event-destinations/{dest}/ping");
    let first = ed.post(&path, json!({})).await["id"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let ok = ed
        .wait_delivery(&first, |d| {
            matches!(d["status"].as_str(), Some("delivered" | "failed"))
        })
        .await;
    assert_eq!(ok["status"], "delivered", "{ok}");

    let rotated = ed
        .post(
            &format!("/organization/event-destinations/{dest}/rotate-webhook-secret"),
            json!({}),
        )
        .await;
    let fresh = rotated["webhook"]["signing_secret"]
        .as_str()
        .expect("the new secret, once")
        .to_string();
    assert_ne!(fresh, secret);
    assert!(
        ed.get(&format!("/organization/event-destinations/{dest}"))
            .await["webhook"]["signing_secret"]
            .is_null()
    );
    // The receiver still trusts the old secret: the very next delivery is refused.
    let second = ed.post(&path, json!({})).await["id"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let refused = ed
        .wait_delivery(&second, |d| {
            matches!(d["status"].as_str(), Some("delivered" | "failed"))
        })
        .await;
    assert_eq!(refused["status"], "failed", "{refused}");
    {
        let hits = hits.lock().expect("hits");
        let last = hits.last().expect("a hit");
        assert!(signed_with(last, &fresh) && !signed_with(last, &secret));
    }
    *known.lock().expect("secret") = fresh;
    let third = ed.post(&path, json!({})).await["id"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let ok = ed
        .wait_delivery(&third, |d| {
            matches!(d["status"].as_str(), Some("delivered" | "failed"))
        })
        .await;
    assert_eq!(ok["status"], "delivered");
    ed.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attempts_keep_the_request_and_at_most_16_kib_of_the_answer() {
    let ed = service(Seed::None).await;
    let big = "x".repeat(20 * 1024);
    let (url, hits) = receiver(Arc::new(move |_| (200, big.clone()))).await;
    let (d, secret) = ed.destination(&url, fixed(3, 1)).await;
    let p = ed
        .post(
            &format!(
                "/organization/event-destinations/{}/ping",
                d["id"].as_str().unwrap_or("")
            ),
            json!({}),
        )
        .await;
    let id = p["id"].as_str().expect("id").to_string();
    let done = ed.wait_delivery(&id, |d| d["status"] == "delivered").await;
    let embedded = &done["attempts"][0];
    assert!(
        embedded["request"].is_null() && embedded["response"]["body"].is_null(),
        "no bodies in the delivery: {embedded}"
    );
    let list = ed
        .get(&format!(
            "/organization/event-delivery-attempts?event_delivery_id={id}"
        ))
        .await;
    assert_eq!(ids(&list).len(), 1);
    let attempt = ed
        .get(&format!(
            "/organization/event-delivery-attempts/{}",
            embedded["id"].as_str().unwrap_or("")
        ))
        .await;
    assert_eq!(
        attempt["response"]["body"].as_str().map(str::len),
        Some(16 * 1024)
    );
    assert_eq!(attempt["response"]["is_body_truncated"], true);
    assert_eq!(attempt["response"]["status_code"], 200);
    let hit = hits.lock().expect("hits")[0].clone();
    assert_eq!(
        attempt["request"]["body"].as_str(),
        Some(hit.body.as_str()),
        "the request as sent"
    );
    assert!(signed_with(&hit, &secret));
    let header = |name: &str| {
        hit.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(String::from)
    };
    assert_eq!(header("metorial-delivery-id").as_deref(), Some(id.as_str()));
    assert_eq!(header("metorial-delivery-attempt").as_deref(), Some("1"));
    assert_eq!(
        header("metorial-destination-id").as_deref(),
        d["id"].as_str()
    );
    assert_eq!(header("metorial-event-type").as_deref(), Some("ping"));
    assert!(header("metorial-timestamp").is_some() && header("metorial-event-id").is_some());
    assert!(
        header("metorial-version").is_none(),
        "no Metorial-Version on deliveries"
    );
    let recorded: Vec<&str> = attempt["request"]["headers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h["key"].as_str())
        .collect();
    assert!(recorded.contains(&"metorial-signature"), "{recorded:?}");
    // A short answer is kept whole.
    let (url, _) = receiver(answering(200)).await;
    let (d, _) = ed.destination(&url, fixed(3, 1)).await;
    let p = ed
        .post(
            &format!(
                "/organization/event-destinations/{}/ping",
                d["id"].as_str().unwrap_or("")
            ),
            json!({}),
        )
        .await;
    let done = ed
        .wait_delivery(p["id"].as_str().unwrap_or(""), |d| {
            d["status"] == "delivered"
        })
        .await;
    let a = ed
        .get(&format!(
            "/organization/event-delivery-attempts/{}",
            done["attempts"][0]["id"].as_str().unwrap_or("")
        ))
        .await;
    assert_eq!(
        (
            a["response"]["body"].as_str(),
            a["response"]["is_body_truncated"].as_bool()
        ),
        (Some("{}"), Some(false))
    );
    ed.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_seed_shows_every_area_and_status() {
    let ed = service(Seed::Demo).await;
    let newest = ed
        .get("/organization/event-deliveries?order=desc&limit=100")
        .await;
    let items = newest["items"].as_array().expect("deliveries");
    assert!(
        items.iter().any(|d| d["status"] == "failed"),
        "failed ones among the newest 100"
    );
    for status in ["pending", "retrying", "delivered", "failed", "cancelled"] {
        let l = ed
            .get(&format!("/organization/event-deliveries?status={status}"))
            .await;
        assert!(!ids(&l).is_empty(), "no {status} delivery at start");
    }
    let dests = ed.get("/organization/event-destinations?limit=100").await;
    let items = dests["items"].as_array().expect("destinations");
    for s in ["exponential", "linear", "fixed"] {
        assert!(items.iter().any(|d| d["retry"]["strategy"] == s), "{s}");
    }
    assert!(items.iter().any(|d| d["status"] == "archived"));
    let listeners = ed
        .get("/organization/event-destination-listeners?limit=100")
        .await;
    for t in ["event", "callback", "chat"] {
        assert!(
            listeners["items"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|l| l["type"] == t),
            "{t}"
        );
    }
    assert!(!ids(&ed.get("/callback-events").await).is_empty());
    assert!(!ids(&ed.get("/organization/events").await).is_empty());
    assert!(!ids(&ed.get("/organization/event-delivery-attempts").await).is_empty());
    let types = ed.get("/organization/webhook-events").await;
    assert_eq!(types["items"][0]["object"], "event.type");
    ed.svc.shutdown().await;
}

/// Where `got` lacks a key the golden `want` has, or holds another JSON type (null on either side
/// is allowed: nullable keys); arrays are compared by their first items.
fn shape_diff(want: &Value, got: &Value, at: &str, out: &mut Vec<String>) {
    match (want, got) {
        (Value::Null, _) | (_, Value::Null) => {}
        (Value::Object(w), Value::Object(g)) => {
            for (k, wv) in w {
                // Free-form maps: a provider's payload, a request's own headers.
                if (k == "payload" || k == "headers") && wv.is_object() {
                    continue;
                }
                match g.get(k) {
                    None => out.push(format!("{at}.{k} missing")),
                    Some(gv) => shape_diff(wv, gv, &format!("{at}.{k}"), out),
                }
            }
        }
        (Value::Array(w), Value::Array(g)) => {
            if let (Some(wf), Some(gf)) = (w.first(), g.first()) {
                shape_diff(wf, gf, &format!("{at}[0]"), out);
            }
        }
        (Value::Bool(_), Value::Bool(_))
        | (Value::Number(_), Value::Number(_))
        | (Value::String(_), Value::String(_)) => {}
        (w, g) => out.push(format!("{at}: golden {w} but served {g}")),
    }
}

fn golden(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/generations/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("fixture json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_produces_the_golden_fixtures_shapes() {
    let ed = service(Seed::Demo).await;
    let (url, hits) = receiver(answering(200)).await;
    let first = |v: &Value| v["items"][0]["id"].as_str().unwrap_or("").to_string();
    let mut served: Vec<(&str, Value)> = Vec::new();
    // Teams and policies.
    let teams = ed.get("/organization/teams").await;
    served.push(("dashboard/team-list.json", teams.clone()));
    served.push((
        "dashboard/team.json",
        ed.get(&format!("/organization/teams/{}", first(&teams)))
            .await,
    ));
    let policy = ed
        .get("/organization/access-policies/callback-operators")
        .await;
    served.push(("dashboard/access-policy.json", policy));
    // Imports.
    let imports = ed.get("/provider-auth-config-imports").await;
    served.push(("auth-import-list.json", imports.clone()));
    served.push((
        "auth-import.json",
        ed.get(&format!(
            "/provider-auth-config-imports/{}",
            first(&imports)
        ))
        .await,
    ));
    served.push((
        "auth-import-schema.json",
        ed.get("/provider-auth-config-imports/schema").await,
    ));
    // Callbacks, their events and instances.
    let callbacks = ed.get("/callbacks").await;
    served.push((
        "event-destinations/callback-list-dashboard.json",
        callbacks.clone(),
    ));
    let magnetar = ed
        .send(
            Method::GET,
            &format!("/callbacks/{}", first(&callbacks)),
            None,
            Key::Instance,
            &[("metorial-version", "mt_2026_01_01_magnetar")],
        )
        .await;
    served.push(("event-destinations/callback.json", magnetar.body));
    let cbes = ed.get("/callback-events?source=webhook").await;
    served.push(("event-destinations/callback-event-list.json", cbes.clone()));
    served.push((
        "event-destinations/callback-event.json",
        ed.get(&format!("/callback-events/{}", first(&cbes))).await,
    ));
    let instances = ed.get("/callback-instances").await;
    served.push((
        "event-destinations/callback-instance.json",
        ed.get(&format!("/callback-instances/{}", first(&instances)))
            .await,
    ));
    // Destinations: the create answer with a listener, and a list with an archived one.
    let (d, _) = ed.destination(&url, fixed(3, 1)).await;
    let dest = d["id"].as_str().unwrap_or("").to_string();
    ed.post(
        "/organization/event-destination-listeners",
        json!({
            "instance_id": ed.instance, "event_destination_id": dest, "type": "callback",
            "callback_id": first(&callbacks), "triggers": ["issues.opened"],
        }),
    )
    .await;
    let rotated = ed
        .post(
            &format!("/organization/event-destinations/{dest}/rotate-webhook-secret"),
            json!({}),
        )
        .await;
    served.push(("event-destinations/destination-created.json", rotated));
    served.push((
        "event-destinations/destination-list.json",
        ed.get("/organization/event-destinations?status=archived")
            .await,
    ));
    // Events, deliveries and attempts; the body a receiver gets.
    let ping = ed
        .post(
            &format!("/organization/event-destinations/{dest}/ping"),
            json!({}),
        )
        .await;
    let delivered = ed
        .wait_delivery(ping["id"].as_str().unwrap_or(""), |d| {
            d["status"] == "delivered"
        })
        .await;
    let events = ed.get("/organization/events?source=callback").await;
    served.push((
        "event-destinations/event.json",
        ed.get(&format!("/organization/events/{}", first(&events)))
            .await,
    ));
    served.push((
        "event-destinations/delivery-list.json",
        ed.get("/organization/event-deliveries?status=retrying")
            .await,
    ));
    let with_attempts = ed
        .get("/organization/event-deliveries?status=delivered&limit=100")
        .await;
    let two = with_attempts["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|d| d["attempt_count"] == 2)
        .expect("a delivery with two attempts");
    served.push((
        "event-destinations/delivery.json",
        ed.delivery(two["id"].as_str().unwrap_or("")).await,
    ));
    served.push((
        "event-destinations/delivery-attempt.json",
        ed.get(&format!(
            "/organization/event-delivery-attempts/{}",
            delivered["attempts"][0]["id"].as_str().unwrap_or("")
        ))
        .await,
    ));
    served.push((
        "event-destinations/event-type-list.json",
        ed.get("/organization/webhook-events").await,
    ));
    let body: Value = serde_json::from_str(&hits.lock().expect("hits")[0].body).expect("body");
    served.push(("event-destinations/webhook-body.json", body));
    // Envelopes and errors.
    served.push((
        "list-empty.json",
        ed.get("/organization/events?event_type=nothing.at.all")
            .await,
    ));
    served.push((
        "error-endpoint-not-found.json",
        ed.send(Method::GET, "/organization/nothing", None, Key::Org, &[])
            .await
            .body,
    ));
    served.push((
        "error-invalid-data.json",
        ed.send(
            Method::POST,
            "/organization/event-destinations",
            Some(json!({"name": "x", "type": "webhook", "webhook": {}})),
            Key::Org,
            &[],
        )
        .await
        .body,
    ));
    let cb = ed.post("/callbacks", json!({"integration_id": callbacks["items"][0]["integration_id"], "integration_provider_id": callbacks["items"][0]["integration_provider_id"]})).await;
    let cb_path = format!("/callbacks/{}", cb["id"].as_str().unwrap_or(""));
    ed.send(Method::DELETE, &cb_path, None, Key::Instance, &[])
        .await;
    served.push((
        "event-destinations/error-callback-not-active.json",
        ed.send(Method::DELETE, &cb_path, None, Key::Instance, &[])
            .await
            .body,
    ));
    served.push((
        "introspect-endpoints.json",
        ed.send(
            Method::GET,
            "/metorial/introspect/endpoints?version=mt_2026_01_01_magnetar",
            None,
            Key::None,
            &[],
        )
        .await
        .body,
    ));

    let mut problems = Vec::new();
    for (name, got) in &served {
        let mut diff = Vec::new();
        shape_diff(&golden(name), got, "", &mut diff);
        if got.is_null() || got.as_object().is_some_and(|o| o.is_empty()) {
            diff.push("nothing served".into());
        }
        for d in diff {
            problems.push(format!("{name}: {d}"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    ed.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_simulation_rate_limit_and_restart_work_as_on_pulsar() {
    // --history N: N past events, each with a delivery.
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("service.db");
    let cfg = || ServiceConfig {
        seed: Seed::Demo,
        generation: Generation::EventDestinations,
        api_key: Some(Secret::new(ORG_KEY)),
        instance_key: Some(Secret::new(INSTANCE_KEY)),
        db: switchboard::service::DbLocation::Path(db.clone()),
        ..ServiceConfig::ephemeral()
    };
    let svc = start(ServiceConfig {
        history: 40,
        simulate_events: Some(Duration::from_millis(200)),
        ..cfg()
    })
    .await
    .expect("start");
    let ed = Ed {
        instance: svc.instance_id.clone().expect("instance"),
        svc,
    };
    let events = ed.get("/organization/events?limit=100").await;
    assert!(ids(&events).len() >= 40, "history seeded");
    // --simulate-events: new callback and session events keep arriving.
    eventually(Duration::from_secs(10), || async {
        let s = ed
            .get("/organization/events?event_type=session.created&order=desc&limit=5")
            .await;
        s["items"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|e| e["payload"]["simulated"] == true)
            .then_some(())
    })
    .await;
    let (d, _) = ed.destination("http://127.0.0.1:9/hook", fixed(1, 1)).await;
    let teams = ids(&ed.get("/organization/teams?limit=100").await).len();
    ed.svc.shutdown().await;
    // A restart on the same file keeps everything and seeds nothing twice.
    let svc = start(cfg()).await.expect("restart");
    let ed = Ed {
        instance: svc.instance_id.clone().expect("instance"),
        svc,
    };
    assert_eq!(
        ed.get(&format!(
            "/organization/event-destinations/{}",
            d["id"].as_str().unwrap_or("")
        ))
        .await["id"],
        d["id"]
    );
    assert_eq!(
        ids(&ed.get("/organization/teams?limit=100").await).len(),
        teams
    );
    let (fresh, _) = ed.destination("http://127.0.0.1:9/hook", fixed(1, 1)).await;
    assert!(
        fresh["id"].as_str() > d["id"].as_str(),
        "new ids sort after the stored ones"
    );
    ed.svc.shutdown().await;

    // --rate-limit: past the window's requests, 429 in the newer error form.
    let svc = start(ServiceConfig {
        generation: Generation::EventDestinations,
        api_key: Some(Secret::new(ORG_KEY)),
        rate_limit: Some((3, Duration::from_secs(60))),
        ..ServiceConfig::ephemeral()
    })
    .await
    .expect("start");
    let ed = Ed {
        instance: svc.instance_id.clone().expect("instance"),
        svc,
    };
    let mut statuses = Vec::new();
    let mut last = None;
    for _ in 0..5 {
        let r = ed
            .send(Method::GET, "/organization/events", None, Key::Org, &[])
            .await;
        statuses.push(r.status);
        last = Some(r);
    }
    assert_eq!(statuses, [200, 200, 200, 429, 429]);
    let last = last.expect("a reply");
    assert_eq!(
        (last.body["object"].as_str(), last.body["code"].as_str()),
        (Some("error"), Some("rate_limit_exceeded"))
    );
    ed.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callback_destinations_is_served_with_both_keys() {
    let svc = start(ServiceConfig {
        generation: Generation::CallbackDestinations,
        ..ServiceConfig::ephemeral()
    })
    .await
    .expect("callback-destinations is served");
    assert!(svc.instance_key.is_some() && svc.instance_id.is_some());
    svc.shutdown().await;
}
