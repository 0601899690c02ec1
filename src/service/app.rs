//! Shared state, the request frame (request id, auth, rate limit, headers), the JSON body
//! extractor and the router.
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::delivery::Delivery;
use super::errors::{Failure, Reply};
use super::store::{Db, Store};

/// Largest accepted request body.
pub const MAX_BODY: usize = 1024 * 1024;
/// Longest accepted request target (path and query), in bytes.
pub const MAX_URI: usize = 8 * 1024;
/// Most request header bytes (names and values) accepted.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;
/// Most request headers accepted.
pub const MAX_HEADERS: usize = 100;
/// Largest incoming hook body (api.md §6): above it, 413 with the error body.
pub const HOOK_MAX_BODY: usize = 1024 * 1024;

/// State shared by every handler.
#[derive(Clone)]
pub struct App {
    /// The database.
    pub store: Arc<Store>,
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    /// SHA-256 of the accepted key; the key itself is not kept.
    pub key_hash: [u8; 32],
    /// Requests per window.
    pub limiter: Arc<Limiter>,
    /// The delivery worker.
    pub delivery: Delivery,
    /// A request body must arrive in full within this time.
    pub body_read_timeout: Duration,
    /// Teams as sent, by stored record (see [`super::records::RenderedTeams`]).
    pub teams: Arc<super::records::RenderedTeams>,
    /// Which `Host` headers are answered.
    pub hosts: Arc<HostRule>,
    /// Requests per window of each hook key.
    pub hook_limits: Arc<KeyedLimiter>,
}

/// The `Host` names the service answers to (api.md §6): its bound address, `localhost`, and
/// names allowed by an option. Any other name is a browser reaching it by DNS rebinding.
#[derive(Debug, Clone)]
pub struct HostRule {
    bound: std::net::IpAddr,
    allowed: Vec<String>,
}

impl HostRule {
    /// Answers the bound address, `localhost` and `allowed`.
    pub fn new(bound: std::net::IpAddr, allowed: &[String]) -> Self {
        Self {
            bound,
            allowed: allowed.iter().map(|h| h.to_ascii_lowercase()).collect(),
        }
    }

    /// Whether a `Host` header value (with or without a port) names this service.
    pub fn accepts(&self, host: &str) -> bool {
        let name = match host.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or(""),
            None => host.rsplit_once(':').map_or(host, |(name, _)| name),
        }
        .to_ascii_lowercase();
        if name == "localhost" || self.allowed.contains(&name) {
            return true;
        }
        match name.parse::<std::net::IpAddr>() {
            // A wildcard bind answers on every address; a literal address cannot be rebound.
            Ok(ip) => ip == self.bound || self.bound.is_unspecified(),
            Err(_) => false,
        }
    }
}

/// A 421 when the `Host` header does not name this service.
fn misdirected(app: &App, req: &Request) -> Option<Failure> {
    misdirected_for(&app.hosts, req)
}

/// A 421 when the `Host` header does not name a service answering `hosts`.
pub(super) fn misdirected_for(hosts: &HostRule, req: &Request) -> Option<Failure> {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok());
    if host.is_some_and(|h| hosts.accepts(h)) {
        return None;
    }
    Some(Failure::http(
        StatusCode::MISDIRECTED_REQUEST,
        "The Host header does not name this service (its address or localhost); pass \
         --allow-host to answer another name",
    ))
}

/// Whether a content type is JSON (`application/json`, parameters allowed).
fn is_json_type(v: &str) -> bool {
    v.split(';')
        .next()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

/// A 415 for a request with a body that does not say it is JSON: a web page can send a
/// text/plain body without a preflight, never an application/json one.
pub(super) fn unsupported_body(req: &Request) -> Option<Failure> {
    let h = req.headers();
    let has_body = h.contains_key(header::TRANSFER_ENCODING)
        || h.get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim() != "0");
    let json = h
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(is_json_type);
    (has_body && !json).then(unsupported_media_type)
}

fn unsupported_media_type() -> Failure {
    Failure::http(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "A request body must be sent with Content-Type: application/json",
    )
}

/// Fixed-window counters per hook key (by its hash: the key itself is a secret), under the same
/// `--rate-limit` as API calls.
pub struct KeyedLimiter {
    cfg: Option<(u32, Duration)>,
    keys: Mutex<std::collections::HashMap<[u8; 32], Limiter>>,
}

/// Hook keys counted at once; past it, counters whose window ended are dropped.
const COUNTED_KEYS: usize = 4096;

impl KeyedLimiter {
    /// Counters under `cfg` (`None`: nothing is enforced).
    pub fn new(cfg: Option<(u32, Duration)>) -> Self {
        Self {
            cfg,
            keys: Mutex::default(),
        }
    }

    fn take(&self, key: &str) -> Quota {
        let mut keys = self.keys.lock().unwrap_or_else(|p| p.into_inner());
        if keys.len() >= COUNTED_KEYS {
            keys.retain(|_, l| l.peek().remaining < l.limit);
            if keys.len() >= COUNTED_KEYS {
                keys.clear();
            }
        }
        keys.entry(hash_key(key))
            .or_insert_with(|| Limiter::new(self.cfg))
            .take()
    }
}

impl App {
    /// Runs a read-only store closure on a read connection, off the async threads.
    pub async fn read<R, F>(&self, f: F) -> Reply<R>
    where
        R: Send + 'static,
        F: FnOnce(&Db) -> Reply<R> + Send + 'static,
    {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || store.read(f))
            .await
            .map_err(Failure::internal)?
    }

    /// Runs a store closure on the writer connection as one transaction (rolled back when it
    /// fails), off the async threads.
    pub async fn db<R, F>(&self, f: F) -> Reply<R>
    where
        R: Send + 'static,
        F: FnOnce(&Db) -> Reply<R> + Send + 'static,
    {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || store.write(f))
            .await
            .map_err(Failure::internal)?
    }
}

/// SHA-256 of a key.
pub fn hash_key(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// A fixed-window request counter.
pub struct Limiter {
    limit: u32,
    window: Duration,
    enforce: bool,
    state: Mutex<(Instant, u32)>,
}

/// The counter after one request.
pub(super) struct Quota {
    pub(super) limit: u32,
    pub(super) remaining: u32,
    pub(super) reset: u64,
    pub(super) exceeded: bool,
}

impl Limiter {
    /// `Some((n, window))` enforces; `None` only reports a generous limit.
    pub fn new(cfg: Option<(u32, Duration)>) -> Self {
        let (limit, window, enforce) = match cfg {
            Some((n, w)) => (n.max(1), w.max(Duration::from_secs(1)), true),
            None => (1000, Duration::from_secs(60), false),
        };
        Self {
            limit,
            window,
            enforce,
            state: Mutex::new((Instant::now(), 0)),
        }
    }

    pub(super) fn take(&self) -> Quota {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        if now.duration_since(s.0) >= self.window {
            *s = (now, 0);
        }
        s.1 = s.1.saturating_add(1);
        let left = self.window.saturating_sub(now.duration_since(s.0));
        Quota {
            limit: self.limit,
            remaining: self.limit.saturating_sub(s.1),
            reset: left.as_secs_f64().ceil() as u64,
            exceeded: self.enforce && s.1 > self.limit,
        }
    }
}

/// Paths that take no bearer key: incoming hooks (the key is in the path), the demo receiver,
/// the OpenAPI document and the API's versions (the platform answers those before any key).
pub(super) fn is_public(path: &str) -> bool {
    path.starts_with("/hooks/")
        || path.starts_with("/_receiver/")
        || path == "/openapi.json"
        || path.starts_with("/metorial/introspect/")
}

pub(super) fn bearer(headers: &HeaderMap, uri: &Uri) -> Result<String, Failure> {
    if let Some(v) = headers.get(header::AUTHORIZATION) {
        let text = v
            .to_str()
            .map_err(|_| Failure::unauthorized("Malformed Authorization header"))?;
        let mut parts = text.split_whitespace();
        return match (parts.next(), parts.next(), parts.next()) {
            (Some(scheme), Some(key), None) if scheme.eq_ignore_ascii_case("bearer") => {
                Ok(key.to_string())
            }
            _ => Err(Failure::unauthorized("Malformed Authorization header")),
        };
    }
    // The real service also reads the key from `?token=` or `?key=`.
    super::paging::parse_pairs(uri.query())
        .into_iter()
        .find(|(k, v)| (k == "token" || k == "key") && !v.is_empty())
        .map(|(_, v)| v)
        .ok_or_else(|| Failure::unauthorized("Missing Authorization header"))
}

/// A 414 or 431 for a request target or header section past our limits.
pub(super) fn oversized(req: &Request) -> Option<Failure> {
    let target = req.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
    if target > MAX_URI {
        return Some(Failure::http(
            StatusCode::URI_TOO_LONG,
            format!("The request target is longer than {MAX_URI} bytes"),
        ));
    }
    let bytes: usize = req
        .headers()
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len())
        .sum();
    if req.headers().len() > MAX_HEADERS || bytes > MAX_HEADER_BYTES {
        return Some(Failure::http(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!("At most {MAX_HEADERS} request headers and {MAX_HEADER_BYTES} bytes of them"),
        ));
    }
    None
}

/// Whether a response already carries a JSON body.
pub(super) fn is_json(resp: &Response) -> bool {
    resp.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

/// Request id, auth, rate limit, and the headers every response carries; every 4xx leaves with
/// a JSON error body, also those produced by extractors (e.g. a path that is not UTF-8).
pub async fn frame(State(app): State<App>, req: Request, next: Next) -> Response {
    let req_id = format!("req_{}", super::ids::random_alnum(20));
    let mut quota = None;
    let misdirected = misdirected(&app, &req);
    let mut resp = if let Some(f) = oversized(&req) {
        f.into_response()
    } else if let Some(f) = misdirected.or_else(|| unsupported_body(&req)) {
        f.into_response()
    } else if let Some(key) = req.uri().path().strip_prefix("/hooks/") {
        // Hooks are public (the key is in the path) but count like API calls, per key.
        let q = app.hook_limits.take(key);
        let (exceeded, reset) = (q.exceeded, q.reset);
        quota = Some(q);
        if exceeded {
            let mut r = Failure::rate_limited().into_response();
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(reset.max(1)));
            r
        } else {
            next.run(req).await
        }
    } else if is_public(req.uri().path()) {
        next.run(req).await
    } else {
        match bearer(req.headers(), req.uri()) {
            Err(f) => f.into_response(),
            Ok(key) if !bool::from(hash_key(&key).ct_eq(&app.key_hash)) => {
                Failure::unauthorized("Invalid API key").into_response()
            }
            Ok(_) => {
                let q = app.limiter.take();
                let exceeded = q.exceeded;
                let reset = q.reset;
                quota = Some(q);
                if exceeded {
                    let mut r = Failure::rate_limited().into_response();
                    r.headers_mut()
                        .insert(header::RETRY_AFTER, HeaderValue::from(reset.max(1)));
                    r
                } else {
                    next.run(req).await
                }
            }
        }
    };
    if resp.status().is_client_error() && !is_json(&resp) {
        let status = resp.status();
        let reason = status.canonical_reason().unwrap_or("Bad request");
        let mut json = Failure::http(status, reason).into_response();
        for name in [header::RETRY_AFTER, header::ALLOW, header::CONNECTION] {
            if let Some(v) = resp.headers().get(&name) {
                json.headers_mut().insert(name, v.clone());
            }
        }
        resp = json;
    }
    let q = quota.unwrap_or_else(|| app.limiter.peek());
    let h = resp.headers_mut();
    h.insert("metorial-version", HeaderValue::from_static("2025-01-01"));
    if let Ok(v) = HeaderValue::from_str(&req_id) {
        h.insert("metorial-req-id", v);
    }
    h.insert("ratelimit-limit", HeaderValue::from(q.limit));
    h.insert("ratelimit-remaining", HeaderValue::from(q.remaining));
    h.insert("ratelimit-reset", HeaderValue::from(q.reset));
    resp
}

impl Limiter {
    pub(super) fn peek(&self) -> Quota {
        let s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let elapsed = Instant::now().duration_since(s.0);
        let (used, left) = if elapsed >= self.window {
            (0, self.window)
        } else {
            (s.1, self.window - elapsed)
        };
        Quota {
            limit: self.limit,
            remaining: self.limit.saturating_sub(used),
            reset: left.as_secs_f64().ceil() as u64,
            exceeded: false,
        }
    }
}

/// A JSON request body; malformed, oversized or non-JSON bodies are 400 `bad_request`.
pub struct Body(pub Value);

impl FromRequest<App> for Body {
    type Rejection = Failure;

    async fn from_request(req: Request, state: &App) -> Result<Self, Self::Rejection> {
        read_json(req, state, |_| {
            Failure::bad_request_reason(
                format!("The request body is larger than {MAX_BODY} bytes"),
                "body_too_large",
            )
        })
        .await
        .map(Body)
    }
}

/// An incoming hook's JSON body: above [`HOOK_MAX_BODY`], 413 with the error body (api.md §6).
pub struct HookBody(pub Value);

impl FromRequest<App> for HookBody {
    type Rejection = Failure;

    async fn from_request(req: Request, state: &App) -> Result<Self, Self::Rejection> {
        read_json(req, state, |_| {
            let mut f = Failure::http(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("A hook body may be at most {HOOK_MAX_BODY} bytes"),
            );
            f.0.reason = Some("body_too_large".into());
            f
        })
        .await
        .map(HookBody)
    }
}

/// Reads a JSON body within the size limit and the body-read timeout.
async fn read_json(
    req: Request,
    state: &App,
    too_large: fn(usize) -> Failure,
) -> Result<Value, Failure> {
    let declared = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    if declared.is_some_and(|v| !is_json_type(v)) {
        return Err(unsupported_media_type());
    }
    let limit = state.body_read_timeout;
    let read = tokio::time::timeout(limit, Bytes::from_request(req, state));
    let Ok(read) = read.await else {
        return Err(Failure::http(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "The request body did not arrive within {} ms",
                limit.as_millis()
            ),
        ));
    };
    let bytes = read.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            too_large(MAX_BODY)
        } else {
            Failure::bad_request_reason("Could not read the request body", "invalid_body")
        }
    })?;
    serde_json::from_slice(&bytes).map_err(|_| {
        Failure::bad_request_reason("The request body is not valid JSON", "invalid_json_body")
    })
}

/// A JSON reply encoded into a buffer sized for a page up front: growing a small buffer by
/// doubling showed up as a large share of a teams page's cost.
pub struct BigJson<T>(pub T);

/// Room reserved for a page before encoding it.
const PAGE_BUFFER: usize = 64 * 1024;

impl<T: serde::Serialize> IntoResponse for BigJson<T> {
    fn into_response(self) -> Response {
        let mut buf = Vec::with_capacity(PAGE_BUFFER);
        match serde_json::to_writer(&mut buf, &self.0) {
            Ok(()) => ([(header::CONTENT_TYPE, "application/json")], buf).into_response(),
            Err(e) => Failure::internal(e).into_response(),
        }
    }
}
