//! The whole HTTP router: the API's routes, the OpenAPI document, the fallbacks and the frame
//! (auth, limits, errors). Assembled here, above both `routes` and `openapi`, so that neither
//! the routes nor the document that describes them import each other or the assembly.
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::Uri;
use axum::routing::get;

use super::app::{App, MAX_BODY, frame};
use super::errors::Failure;

async fn no_route(uri: Uri) -> Failure {
    Failure::no_endpoint(uri.path())
}

/// The whole router with its frame.
pub fn router(app: App) -> Router {
    super::routes::routes()
        .route("/openapi.json", get(super::openapi::openapi_json))
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
