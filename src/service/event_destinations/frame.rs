//! The request frame of the generation: the version (§2), the two kinds of key (§3), the rate
//! limit, and the headers every answer carries; every 4xx leaves as an `object` error.
use axum::extract::{Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use super::Gen;
use super::wire::{CONSUMER, Fail, Version};
use crate::service::app::{
    bearer, hash_key, is_json, misdirected_for, oversized, unsupported_body,
};
use crate::service::paging::parse_pairs;

/// Paths answered before authentication: introspection, the document, the demo receivers and
/// the callbacks' incoming webhooks.
fn is_public(path: &str) -> bool {
    path.starts_with("/metorial/introspect/")
        || path == "/openapi.json"
        || path.starts_with("/_receiver/")
        || path.starts_with("/w/")
}

/// Paths that need an organization key.
pub fn is_organization(path: &str) -> bool {
    path == "/organization" || path.starts_with("/organization/")
}

/// Paths that need an instance (an instance key, or the organization key naming the instance).
fn is_instance(g: &Gen, path: &str) -> bool {
    g.0.flavor
        .instance_paths
        .iter()
        .any(|p| path == *p || path.starts_with(&format!("{p}/")))
}

/// Paths only the dashboard version serves.
fn dashboard_only(path: &str) -> bool {
    ["/organization/teams", "/organization/access-policies"]
        .iter()
        .any(|p| path == *p || path.starts_with(&format!("{p}/")))
}

/// The version asked for: `Metorial-Version`, else the `api-version` query parameter.
fn asked_version(req: &Request) -> Option<String> {
    if let Some(v) = req.headers().get("metorial-version") {
        return v.to_str().ok().map(|s| s.trim().to_string());
    }
    parse_pairs(req.uri().query())
        .into_iter()
        .find(|(k, _)| k == "api-version")
        .map(|(_, v)| v)
}

/// Which key a request carries.
enum Key {
    Organization,
    Instance,
}

/// Checks the key against the path's kind; `None` lets the request through.
fn authorize(g: &Gen, req: &Request) -> Option<Fail> {
    let key = match bearer(req.headers(), req.uri()) {
        Ok(k) => k,
        Err(f) => return Some(f.into()),
    };
    let hash = hash_key(&key);
    let kind = if bool::from(hash.ct_eq(&g.0.org_key)) {
        Key::Organization
    } else if g.0.instance_key.is_some_and(|k| bool::from(hash.ct_eq(&k))) {
        Key::Instance
    } else {
        return Some(Fail::unauthorized("Invalid API key"));
    };
    let path = req.uri().path();
    match kind {
        Key::Instance if is_organization(path) => Some(Fail::forbidden()),
        Key::Organization if is_instance(g, path) => {
            match req
                .headers()
                .get("metorial-instance-id")
                .and_then(|v| v.to_str().ok())
            {
                None => Some(Fail::bad_request(
                    "An organization key needs the metorial-instance-id header on an instance \
                     path",
                )),
                Some(id) if id.trim() != g.0.instance_id => {
                    Some(Fail::not_found("instance", &crate::text::line(id)))
                }
                Some(_) => None,
            }
        }
        _ => None,
    }
}

/// The frame around every route.
pub async fn frame(State(g): State<Gen>, mut req: Request, next: Next) -> Response {
    let req_id = format!("req_{}", crate::service::ids::random_alnum(20));
    let asked = asked_version(&req);
    let version = Version::resolve(asked.as_deref());
    let path = req.uri().path().to_string();
    let mut quota = None;
    let early: Option<Fail> = oversized(&req)
        .or_else(|| misdirected_for(&g.0.hosts, &req))
        .or_else(|| unsupported_body(&req))
        .map(Fail::from);
    let mut resp = if let Some(f) = early {
        f.into_response()
    } else if is_public(&path) {
        req.extensions_mut().insert(version);
        next.run(req).await
    } else if asked.as_deref() == Some(CONSUMER) {
        let f = Fail::version_not_allowed(CONSUMER);
        (axum::http::StatusCode::NOT_ACCEPTABLE, axum::Json(f.body())).into_response()
    } else if let Some(f) = authorize(&g, &req) {
        f.into_response()
    } else {
        let q = g.0.limiter.take();
        let (exceeded, reset) = (q.exceeded, q.reset);
        quota = Some(q);
        if exceeded {
            let mut f = Fail::bad_request("You have exceeded the rate limit");
            f.0.status = 429;
            f.0.code = "rate_limit_exceeded".into();
            let mut r = f.into_response();
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(reset.max(1)));
            r
        } else if version == Version::Magnetar && dashboard_only(&path) {
            Fail::no_endpoint().into_response()
        } else {
            req.extensions_mut().insert(version);
            next.run(req).await
        }
    };
    if resp.status().is_client_error() && !is_json(&resp) {
        let status = resp.status();
        let mut f = Fail::bad_request(status.canonical_reason().unwrap_or("Bad request"));
        f.0.status = status.as_u16();
        let mut json = f.into_response();
        for name in [header::RETRY_AFTER, header::ALLOW, header::CONNECTION] {
            if let Some(v) = resp.headers().get(&name) {
                json.headers_mut().insert(name, v.clone());
            }
        }
        resp = json;
    }
    let q = quota.unwrap_or_else(|| g.0.limiter.peek());
    let h = resp.headers_mut();
    h.insert(
        "metorial-version",
        HeaderValue::from_static(version.display()),
    );
    if let Ok(v) = HeaderValue::from_str(&req_id) {
        h.insert("metorial-req-id", v);
    }
    h.insert("ratelimit-limit", HeaderValue::from(q.limit));
    h.insert("ratelimit-remaining", HeaderValue::from(q.remaining));
    h.insert("ratelimit-reset", HeaderValue::from(q.reset));
    resp
}
