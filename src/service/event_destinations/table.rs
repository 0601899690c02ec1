//! Every route of the generation declared once — method, path, handler and what the OpenAPI
//! document and the introspection routes say of it — and the router built from that table.
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, RawPathParams, RawQuery, State};
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodFilter, on};
use serde_json::Value;

use super::Gen;
use super::route::{Handler, Route};
use super::wire::{Fail, Req, Version};
use crate::service::paging::parse_pairs;

/// Every route of the generation, area by area.
pub fn routes() -> Vec<Route> {
    let mut all = Vec::new();
    all.extend(super::teams::routes());
    all.extend(super::teams::member_routes());
    all.extend(super::imports::routes());
    all.extend(super::callbacks::routes());
    all.extend(super::destinations::routes());
    all.extend(super::listeners::routes());
    all.extend(super::deliveries::routes());
    all.extend(super::introspect::routes());
    all
}

fn filter(m: &Method) -> MethodFilter {
    match *m {
        Method::POST => MethodFilter::POST,
        Method::PATCH => MethodFilter::PATCH,
        Method::DELETE => MethodFilter::DELETE,
        Method::PUT => MethodFilter::PUT,
        _ => MethodFilter::GET,
    }
}

/// Runs a handler on a request's parts.
async fn answer(
    g: Gen,
    h: Handler,
    params: RawPathParams,
    query: Option<String>,
    version: Version,
    body: Bytes,
    needs_body: bool,
) -> Response {
    let body = if body.is_empty() {
        if needs_body {
            let mut f = Fail::invalid(vec![crate::service::errors::issue(
                "invalid_type",
                "Invalid input, expected object, received undefined",
                &[],
            )]);
            f.0.message = "The request body is missing.".into();
            return f.into_response();
        }
        None
    } else {
        match serde_json::from_slice::<Value>(&body) {
            Ok(v) => Some(v),
            Err(_) => {
                let mut f = Fail::bad_request("The request body is not valid JSON");
                f.0.reason = Some("invalid_json_body".into());
                return f.into_response();
            }
        }
    };
    let req = Req {
        params: params.iter().map(|(_, v)| v.to_string()).collect(),
        pairs: parse_pairs(query.as_deref()),
        body,
        version,
    };
    match h(g, req).await {
        Ok(v) => axum::Json(v).into_response(),
        Err(f) => f.into_response(),
    }
}

/// A table as an axum router (the frame and fallbacks are added by the caller).
pub fn router(routes: Vec<Route>) -> Router<Gen> {
    let mut r = Router::new();
    for route in routes {
        let h = route.handler;
        let needs_body = route.body.is_some();
        r = r.route(
            route.path,
            on(
                filter(&route.method),
                move |State(g): State<Gen>,
                      params: RawPathParams,
                      RawQuery(q): RawQuery,
                      version: Option<Extension<Version>>,
                      body: Bytes| async move {
                    let v = version.map_or(Version::Dashboard, |Extension(v)| v);
                    answer(g, h, params, q, v, body, needs_body).await
                },
            ),
        );
    }
    r
}
