//! The flat error body of api.md §3 as an axum response.
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::api::error::{ApiError, ValidationIssue};

/// An error reply: the API's error body with its status.
#[derive(Debug, Clone)]
pub struct Failure(pub Box<ApiError>);

/// Shorthand for handler results.
pub type Reply<T> = Result<T, Failure>;

impl Failure {
    fn new(status: u16, code: &str, message: impl Into<String>) -> Self {
        let mut e = ApiError::synthetic(status, message);
        e.code = code.into();
        Failure(Box::new(e))
    }

    fn hint(mut self, hint: &str) -> Self {
        self.0.hint = Some(hint.into());
        self
    }

    /// 400 `bad_request` for a business rule or a malformed request.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "bad_request", message)
    }

    /// 400 `bad_request` with a machine reason.
    pub fn bad_request_reason(message: impl Into<String>, reason: &str) -> Self {
        let mut f = Self::bad_request(message);
        f.0.reason = Some(reason.into());
        f
    }

    /// 400 `invalid_data` for the body or the query.
    pub fn invalid(entity: &str, errors: Vec<ValidationIssue>) -> Self {
        let mut f = Self::new(400, "invalid_data", "The provided data is invalid.")
            .hint("Make sure the data you are sending follows the specification.");
        f.0.entity = Some(entity.into());
        f.0.errors = errors;
        f
    }

    /// 401 with one of the fixed messages.
    pub fn unauthorized(message: &str) -> Self {
        Self::new(401, "unauthorized", message).hint("Make sure to use a valid API key.")
    }

    /// 404 for a missing resource.
    pub fn not_found(entity: &str, id: impl Into<Value>) -> Self {
        let mut f = Self::new(
            404,
            "not_found",
            format!("The requested {entity} could not be found."),
        )
        .hint(
            "Make sure the resource you are trying to access exists, that you have access to it \
             and that it has not been deleted.",
        );
        f.0.entity = Some(entity.into());
        f.0.id = Some(id.into());
        f
    }

    /// 404 for an unknown route.
    pub fn no_endpoint(path: &str) -> Self {
        Self::not_found("endpoint", path)
    }

    /// 429 past the rate limit.
    pub fn rate_limited() -> Self {
        Self::new(
            429,
            "rate_limit_exceeded",
            "You have exceeded the rate limit for this instance",
        )
        .hint("Please wait a few minutes before trying again")
    }

    /// 500 for anything unexpected; the detail goes to the log, not the client.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        // Rate-limited: a fault that fails every request (a full disk) is not a log flood.
        super::logs::error_limited(&format!("internal error: {detail}"));
        Self::new(
            500,
            "internal_server_error",
            "An unexpected error occurred. Please try again later.",
        )
    }

    /// Any other 4xx the HTTP layer produces (414, 431, 408, 405…), as a JSON error body.
    pub fn http(status: StatusCode, message: impl Into<String>) -> Self {
        let code = match status.as_u16() {
            408 => "request_timeout",
            413 => "payload_too_large",
            415 => "unsupported_media_type",
            421 => "misdirected_request",
            414 => "uri_too_long",
            431 => "request_header_fields_too_large",
            _ => "bad_request",
        };
        Self::new(status.as_u16(), code, message)
    }

    /// The HTTP status of this error.
    pub fn status(&self) -> StatusCode {
        StatusCode::from_u16(self.0.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }
}

impl From<rusqlite::Error> for Failure {
    fn from(e: rusqlite::Error) -> Self {
        Failure::internal(e)
    }
}

impl From<serde_json::Error> for Failure {
    fn from(e: serde_json::Error) -> Self {
        Failure::internal(e)
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let status = self.status();
        let mut body = serde_json::to_value(&*self.0).unwrap_or_else(|_| json!({}));
        if let Value::Object(map) = &mut body {
            // The real service tags error bodies; clients ignore it, but we answer as it does.
            let mut tagged = serde_json::Map::new();
            tagged.insert("__typename".into(), "error".into());
            tagged.extend(std::mem::take(map));
            *map = tagged;
        }
        let mut resp = (status, axum::Json(body)).into_response();
        if self.0.reason.as_deref() == Some("body_too_large") {
            // The rest of the body was never read: the connection cannot carry another request,
            // so tell the client not to reuse it.
            resp.headers_mut().insert(
                axum::http::header::CONNECTION,
                axum::http::HeaderValue::from_static("close"),
            );
        }
        resp
    }
}

/// One validation problem at `path`.
pub fn issue(code: &str, message: impl Into<String>, path: &[&str]) -> ValidationIssue {
    ValidationIssue {
        code: code.into(),
        message: message.into(),
        path: path.iter().map(|p| Value::String((*p).into())).collect(),
        expected: None,
        received: None,
        min: None,
        max: None,
    }
}
