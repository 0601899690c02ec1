//! Small stand-ins for deployments of each generation, served over real HTTP on 127.0.0.1: the
//! versions list, both introspection routes (or a failing one), and the generation's paths
//! (anything else answers 404 `"entity":"endpoint"`). Every request is recorded; the served
//! generation can change under a running stand-in (an upgrade).
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

/// What a stand-in serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Lists pulsar; pulsar's paths.
    Pulsar,
    /// Dashboard and magnetar; `/callback-destinations`, notifications per callback.
    CallbackDestinations,
    /// Dashboard and magnetar; organization event destinations. Magnetar alone lists
    /// `/organization/webhook-events` here, so a request to it carries magnetar.
    EventDestinations,
    /// As `EventDestinations`, but introspection of endpoints fails (a proxy's 502).
    Unintrospectable,
    /// Teams with policies and new imports, webhooks only the transitional `/webhook-destinations`.
    Transitional,
}

const TEAMS: [&str; 5] = [
    "/organization/teams",
    "/organization/teams/:teamId",
    "/organization/teams/:teamId/policies",
    "/organization/access-policies",
    "/organization/access-policies/:accessPolicyId",
];

impl Kind {
    /// The paths served, as the platform's introspection writes them, with whether only
    /// dashboard lists them (`Some(true)`), only magnetar (`Some(false)`) or both (`None`).
    fn paths(self) -> Vec<(&'static str, Option<bool>)> {
        let dash_only = |p: &[&'static str]| p.iter().map(|p| (*p, Some(true))).collect::<Vec<_>>();
        let both = |p: &[&'static str]| p.iter().map(|p| (*p, None)).collect::<Vec<_>>();
        match self {
            Kind::Pulsar => both(&[
                "/organization/teams",
                "/organization/teams/:teamId",
                "/organization/teams/:teamId/projects",
                "/organization/team-roles",
                "/provider-oauth/token-imports",
                "/callbacks",
                "/callbacks-destinations",
                "/callbacks-notifications",
            ]),
            Kind::CallbackDestinations => [
                dash_only(&TEAMS),
                both(&[
                    "/provider-auth-config-imports",
                    "/callbacks",
                    "/callbacks/:callbackId",
                    "/callbacks/:callbackId/notifications",
                    "/callbacks/:callbackId/events",
                    "/callback-destinations",
                    "/callback-destinations/:callbackDestinationId",
                ]),
            ]
            .concat(),
            Kind::EventDestinations | Kind::Unintrospectable => [
                dash_only(&TEAMS),
                both(&[
                    "/provider-auth-config-imports",
                    "/callbacks",
                    "/callbacks/:callbackId",
                    "/callback-events",
                    "/callback-instances",
                    "/organization/event-destinations",
                    "/organization/event-destinations/:eventDestinationId",
                    "/organization/event-destination-listeners",
                    "/organization/events",
                    "/organization/event-deliveries",
                    "/organization/event-delivery-attempts",
                ]),
                vec![("/organization/webhook-events", Some(false))],
            ]
            .concat(),
            Kind::Transitional => [
                dash_only(&TEAMS),
                both(&[
                    "/provider-auth-config-imports",
                    "/callbacks",
                    "/webhook-destinations",
                ]),
            ]
            .concat(),
        }
    }

    fn lists(self, version: &str) -> Vec<&'static str> {
        self.paths()
            .into_iter()
            .filter(|(_, only)| match only {
                None => true,
                Some(true) => version == "mt_2025_01_01_dashboard",
                Some(false) => version == "mt_2026_01_01_magnetar",
            })
            .map(|(p, _)| p)
            .collect()
    }

    fn serves(self, path: &str) -> bool {
        let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
        self.paths().iter().any(|(t, _)| {
            let parts: Vec<&str> = t.trim_matches('/').split('/').collect();
            parts.len() == segs.len()
                && parts
                    .iter()
                    .zip(&segs)
                    .all(|(p, s)| p.starts_with(':') || p == s)
        })
    }
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Seen {
    /// The path.
    pub path: String,
    /// The query string.
    pub query: Option<String>,
    /// `Metorial-Version`, if sent.
    pub version: Option<String>,
    /// Whether an `Authorization` header came.
    pub keyed: bool,
}

struct Shared {
    kind: Mutex<Kind>,
    seen: Mutex<Vec<Seen>>,
}

/// A running stand-in; stops when dropped.
pub struct StandIn {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl StandIn {
    /// Starts one serving `kind` on a random loopback port, on a thread of its own.
    pub fn start(kind: Kind) -> Self {
        let shared = Arc::new(Shared {
            kind: Mutex::new(kind),
            seen: Mutex::new(Vec::new()),
        });
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(shared.clone());
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind");
                addr_tx
                    .send(listener.local_addr().expect("addr"))
                    .expect("report address");
                tokio::select! {
                    r = axum::serve(listener, app) => r.expect("serve"),
                    _ = stop_rx => {}
                }
            });
        });
        let addr = addr_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("stand-in started");
        Self {
            base_url: format!("http://{addr}"),
            shared,
            stop: Some(stop_tx),
        }
    }

    /// Serves another generation from now on (an upgrade).
    pub fn upgrade(&self, kind: Kind) {
        *self.shared.kind.lock().expect("kind lock") = kind;
    }

    /// Every request so far, clearing the record.
    pub fn take(&self) -> Vec<Seen> {
        std::mem::take(&mut *self.shared.seen.lock().expect("seen lock"))
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

fn reply(status: u16, body: Value) -> Response {
    let mut r = Response::new(Body::from(body.to_string()));
    *r.status_mut() = StatusCode::from_u16(status).expect("status");
    r.headers_mut()
        .insert("content-type", "application/json".parse().expect("header"));
    r
}

fn not_found_endpoint() -> Response {
    reply(
        404,
        json!({"object":"error","ok":false,"status":404,"code":"not_found",
               "message":"The requested endpoint could not be found.","entity":"endpoint"}),
    )
}

fn endpoints(paths: &[&str]) -> Value {
    let endpoints: Vec<Value> = paths
        .iter()
        .map(|p| {
            json!({"method": "get", "path": {"path": p, "sdkPath": "x"},
                   "allPaths": [{"path": p, "sdkPath": "x"},
                                {"path": format!("/instances/:instanceId{p}"), "sdkPath": "y"}]})
        })
        .collect();
    json!({"version": "2026-01-01", "controllers": [], "endpoints": endpoints, "types": []})
}

async fn handle(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    let kind = *shared.kind.lock().expect("kind lock");
    let path = req.uri().path().to_string();
    let query = req.uri().query().map(str::to_string);
    let header = |n: &str| {
        req.headers()
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    shared.seen.lock().expect("seen lock").push(Seen {
        path: path.clone(),
        query: query.clone(),
        version: header("metorial-version"),
        keyed: header("authorization").is_some(),
    });
    match path.as_str() {
        "/metorial/introspect/versions" => {
            let ids: &[&str] = if kind == Kind::Pulsar {
                &["mt_2025_01_01_pulsar", "mt_2025_01_01_dashboard"]
            } else {
                &["mt_2025_01_01_dashboard", "mt_2026_01_01_magnetar"]
            };
            let versions: Vec<Value> = ids
                .iter()
                .enumerate()
                .map(|(i, v)| json!({"version": v, "displayVersion": "x", "isCurrent": i == 0}))
                .collect();
            return reply(200, json!({ "versions": versions }));
        }
        "/metorial/introspect/endpoints" => {
            let version = query
                .as_deref()
                .and_then(|q| q.strip_prefix("version="))
                .unwrap_or_default()
                .to_string();
            return match kind {
                Kind::Unintrospectable => {
                    let mut r = Response::new(Body::from("<html>Bad gateway</html>"));
                    *r.status_mut() = StatusCode::BAD_GATEWAY;
                    r
                }
                Kind::Pulsar => reply(
                    406,
                    json!({"status": 406, "code": "not_acceptable", "message": "no"}),
                ),
                _ if version.starts_with("mt_") && version != "mt_2025_01_01_pulsar" => {
                    reply(200, endpoints(&kind.lists(&version)))
                }
                _ => reply(
                    406,
                    json!({"status": 400, "code": "bad_request", "message": "Invalid API version"}),
                ),
            };
        }
        _ => {}
    }
    if !kind.serves(&path) {
        return not_found_endpoint();
    }
    if path == "/organization/teams" && kind != Kind::Pulsar {
        let teams: Value = serde_json::from_str(
            &std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/generations/dashboard/team-list.json"
            ))
            .expect("fixture"),
        )
        .expect("json");
        return reply(200, teams);
    }
    reply(
        200,
        json!({"object": "list", "items": [], "pagination": {"has_more_after": false, "has_more_before": false}}),
    )
}
