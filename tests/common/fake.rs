//! A recording loopback HTTP server for client and headless tests: serves the golden fixtures by
//! route, or scripted replies first, and records every request exactly as it arrived.
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;

/// The key tests normally use; any bearer key is accepted unless it contains `bad`.
pub const KEY: &str = "sk_test_fake_key_0123456789";

/// One request as received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path as sent (still percent-encoded).
    pub path: String,
    /// The raw query string, if any.
    pub query: Option<String>,
    /// Headers with lower-case names, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    pub body: Vec<u8>,
}

impl Recorded {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON (panics in the test when it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// How a scripted reply's body is sent.
#[derive(Debug, Clone)]
pub enum ReplyBody {
    /// Sent whole.
    Text(String),
    /// This much is sent, then the connection breaks.
    Aborted(String),
}

/// A scripted reply.
#[derive(Debug, Clone)]
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: ReplyBody,
    /// Wait this long before answering.
    pub delay: Option<Duration>,
}

impl Reply {
    /// A reply with a text body.
    pub fn text(status: u16, body: impl Into<String>) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: ReplyBody::Text(body.into()),
            delay: None,
        }
    }

    /// A fixture file as the body.
    pub fn fixture(status: u16, name: &str) -> Self {
        Self::text(status, fixture(name))
    }

    /// Adds a header.
    pub fn header(mut self, k: &str, v: &str) -> Self {
        self.headers.push((k.into(), v.into()));
        self
    }

    /// Answers only after a pause (for timeout tests).
    pub fn delayed(mut self, d: Duration) -> Self {
        self.delay = Some(d);
        self
    }

    /// Sends part of the body, then breaks the connection.
    pub fn aborted(status: u16, part: &str) -> Self {
        let mut r = Self::text(status, "");
        r.body = ReplyBody::Aborted(part.into());
        r
    }
}

/// A fixture file's text from `tests/fixtures`.
pub fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The versions list the rig answers by default: a pulsar-era deployment's.
pub const PULSAR_ERA: &str = "introspect-versions.json";
/// A newer deployment's versions list, without pulsar.
pub const NEWER: &str = "introspect-versions-newer.json";

#[derive(Default)]
struct Shared {
    log: Mutex<Vec<Recorded>>,
    script: Mutex<VecDeque<Reply>>,
    /// `GET /metorial/introspect/versions`: answered apart from the script and the log, so a
    /// client's one look at the versions leaves the tests' request counts alone.
    versions: Mutex<Option<&'static str>>,
    versions_script: Mutex<VecDeque<Reply>>,
    introspections: Mutex<Vec<Recorded>>,
}

/// The running server; stops when dropped.
pub struct FakeServer {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    /// The bound address.
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl FakeServer {
    /// Starts on 127.0.0.1 with a random port, on a thread of its own (usable from sync and
    /// async tests alike).
    pub fn start() -> Self {
        let shared = Arc::new(Shared::default());
        *shared.versions.lock().expect("versions lock") = Some(PULSAR_ERA);
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
                let server = axum::serve(listener, app);
                tokio::select! {
                    r = server => r.expect("serve"),
                    _ = stop_rx => {}
                }
            });
        });
        let addr = addr_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("server started");
        Self {
            base_url: format!("http://{addr}"),
            addr,
            shared,
            stop: Some(stop_tx),
        }
    }

    /// Queues a reply; queued replies are served in order before any fixture route.
    pub fn push(&self, reply: Reply) {
        self.shared
            .script
            .lock()
            .expect("script lock")
            .push_back(reply);
    }

    /// Which versions list fixture `GET /metorial/introspect/versions` answers; `None`: 404, as a
    /// deployment that does not list them.
    pub fn serve_versions(&self, fixture: Option<&'static str>) {
        *self.shared.versions.lock().expect("versions lock") = fixture;
    }

    /// Queues a reply for the versions path, served before the fixture `serve_versions` names.
    pub fn push_versions(&self, reply: Reply) {
        self.shared
            .versions_script
            .lock()
            .expect("versions lock")
            .push_back(reply);
    }

    /// The requests for the versions list so far.
    pub fn introspections(&self) -> Vec<Recorded> {
        self.shared
            .introspections
            .lock()
            .expect("introspections lock")
            .clone()
    }

    /// Drops queued replies that were not used.
    pub fn clear_script(&self) {
        self.shared.script.lock().expect("script lock").clear();
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.log.lock().expect("log lock").clone()
    }

    /// Every request so far, clearing the record.
    pub fn take(&self) -> Vec<Recorded> {
        std::mem::take(&mut *self.shared.log.lock().expect("log lock"))
    }

    /// The only request since the last `take` (fails the test otherwise).
    pub fn take_one(&self) -> Recorded {
        let mut all = self.take();
        assert_eq!(all.len(), 1, "expected exactly one request, got {all:#?}");
        all.remove(0)
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// A loopback address on which nothing listens, reserved for the rest of the test process: the
/// socket stays bound without listening, so a connection is refused and no other test's server
/// can be given the same port (a bound-then-released port was, and read pages meant for another).
pub fn closed_port() -> std::net::SocketAddr {
    use std::os::fd::IntoRawFd;
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind(std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
        .expect("bind loopback");
    let addr = socket.local_addr().expect("addr");
    // Kept open on purpose until the process ends.
    let _fd = socket.into_raw_fd();
    addr
}

/// The URL of [`closed_port`].
pub fn closed_port_url() -> String {
    format!("http://{}", closed_port())
}

async fn handle(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let body = axum::body::to_bytes(body, 16 * 1024 * 1024)
        .await
        .unwrap_or_default();
    let rec = Recorded {
        method: parts.method.to_string(),
        path: parts.uri.path().to_string(),
        query: parts.uri.query().map(str::to_string),
        headers: parts
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: body.to_vec(),
    };
    // Under any base path prefix, as the client asks under its base URL.
    if rec.path.contains("/metorial/introspect/") {
        let scripted = shared
            .versions_script
            .lock()
            .expect("versions lock")
            .pop_front();
        let listed = *shared.versions.lock().expect("versions lock");
        let reply = match (scripted, listed) {
            (Some(r), _) => r,
            (None, Some(name)) if rec.path.ends_with("/metorial/introspect/versions") => {
                Reply::fixture(200, name)
            }
            _ => Reply::fixture(404, "error-endpoint-not-found.json"),
        };
        shared
            .introspections
            .lock()
            .expect("introspections lock")
            .push(rec);
        return build(reply);
    }
    let scripted = shared.script.lock().expect("script lock").pop_front();
    let reply = scripted.unwrap_or_else(|| route(&rec));
    shared.log.lock().expect("log lock").push(rec);
    if let Some(d) = reply.delay {
        tokio::time::sleep(d).await;
    }
    build(reply)
}

fn build(reply: Reply) -> Response {
    let body = match reply.body {
        ReplyBody::Text(t) => Body::from(t),
        ReplyBody::Aborted(part) => {
            let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
                Ok(Bytes::from(part)),
                Err(std::io::Error::other("connection cut by the test server")),
            ];
            Body::from_stream(futures::stream::iter(chunks))
        }
    };
    let mut resp = Response::new(body);
    *resp.status_mut() = StatusCode::from_u16(reply.status).expect("status");
    for (k, v) in reply.headers {
        resp.headers_mut().insert(
            HeaderName::from_bytes(k.as_bytes()).expect("header name"),
            HeaderValue::from_str(&v).expect("header value"),
        );
    }
    resp.headers_mut().insert(
        "metorial-req-id",
        HeaderValue::from_static("req_fake0000000000000000"),
    );
    resp
}

/// The fixture that answers a request, as the real service would shape it.
fn route(rec: &Recorded) -> Reply {
    let auth = rec.header("authorization").unwrap_or_default();
    if !auth.starts_with("Bearer ") || auth.contains("bad") {
        return Reply::fixture(401, "error-unauthorized.json");
    }
    let segs: Vec<&str> = rec.path.trim_start_matches('/').split('/').collect();
    if segs.iter().any(|s| s.starts_with("missing")) {
        return Reply::fixture(404, "error-not-found.json");
    }
    let m = rec.method.as_str();
    let name = match (m, segs.as_slice()) {
        ("GET", ["organization", "teams"]) => "team-list.json",
        ("GET" | "POST", ["organization", "teams", ..]) => "team.json",
        ("DELETE", ["organization", "teams", _, "projects" | "members", _]) => "team.json",
        ("GET", ["organization", "members"]) => "member-list.json",
        ("GET", ["organization", "projects"]) => "project-list.json",
        ("GET", ["organization", "team-roles"]) => "team-role-list.json",
        ("GET", ["provider-oauth", "token-imports"]) => "import-list.json",
        ("POST", ["provider-oauth", "token-imports"]) => "import-created.json",
        ("GET" | "PATCH", ["provider-oauth", "token-imports", _]) => "import.json",
        ("GET", ["callbacks"]) => "callback-list.json",
        ("GET", ["callbacks", _]) => "callback.json",
        ("GET", ["callbacks-destinations"]) => "destination-list.json",
        ("POST", ["callbacks-destinations"]) => "destination.json",
        ("GET" | "PATCH" | "DELETE", ["callbacks-destinations", _]) => "destination.json",
        ("GET", ["callbacks-notifications"]) => "notification-list.json",
        ("GET", ["callbacks-notifications", _]) => "notification.json",
        _ => {
            return Reply::text(
                404,
                r#"{"ok":false,"status":404,"code":"not_found","message":"The requested endpoint could not be found.","entity":"endpoint"}"#,
            );
        }
    };
    Reply::fixture(200, name)
}
