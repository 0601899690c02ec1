//! The whole HTTP router: every route `openapi::routes` lists (the same list the document is
//! built from), the fallbacks and the frame (auth, limits, errors). Assembled here, above both
//! `routes` and `openapi`, so that the routes import neither the document nor the assembly.
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::Uri;

use super::app::{App, MAX_BODY, frame};
use super::errors::Failure;

async fn no_route(uri: Uri) -> Failure {
    Failure::no_endpoint(uri.path())
}

/// The whole router with its frame.
pub fn router(app: App) -> Router {
    super::openapi::routes()
        .into_iter()
        .fold(Router::new(), |r, route| {
            r.route(&route.path, route.handler)
        })
        .fallback(no_route)
        .method_not_allowed_fallback(no_route)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(app.clone(), frame))
        .layer(axum::middleware::map_response(dated))
        .with_state(app)
}

/// The `Date` of a clock skewed for a test (`serve --test-clock-skew-secs`); else hyper's own.
async fn dated(mut r: axum::response::Response) -> axum::response::Response {
    if let Some(v) =
        super::ids::skewed_date().and_then(|d| axum::http::HeaderValue::from_str(&d).ok())
    {
        r.headers_mut().insert(axum::http::header::DATE, v);
    }
    r
}

#[cfg(test)]
#[path = "router_tests.rs"]
mod tests;
