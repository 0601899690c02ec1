//! The wire conventions of the newer generations (generations.md §3): `object`-tagged errors and
//! lists, timestamps, the parts of a request a handler reads, and body validation.
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::api::Page;
use crate::api::error::{ApiError, ValidationIssue};
use crate::service::errors::{Failure, issue};
use crate::service::paging::{ListParams, union};
use crate::service::store::StoreError;

/// `mt_2025_01_01_dashboard`: the default and current version.
pub const DASHBOARD: &str = "mt_2025_01_01_dashboard";
/// `mt_2026_01_01_magnetar`: the other version listed.
pub const MAGNETAR: &str = "mt_2026_01_01_magnetar";
/// `mt_2026_04_01_consumer`: known, but never for an API key (406).
pub const CONSUMER: &str = "mt_2026_04_01_consumer";

/// The version a request is answered in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// The default.
    Dashboard,
    /// `mt_2026_01_01_magnetar`.
    Magnetar,
}

impl Version {
    /// What `Metorial-Version` (or `api-version`) asked for; any other value is the default.
    pub fn resolve(asked: Option<&str>) -> Self {
        match asked.map(str::trim) {
            Some(MAGNETAR) => Self::Magnetar,
            _ => Self::Dashboard,
        }
    }

    /// Its display form (the `metorial-version` response header).
    pub fn display(self) -> &'static str {
        match self {
            Self::Dashboard => "2025-01-01",
            Self::Magnetar => "2026-01-01",
        }
    }
}

/// An error reply in the newer form: `{"object":"error","ok":false,…}`.
#[derive(Debug, Clone)]
pub struct Fail(pub Box<ApiError>);

/// A handler's result.
pub type Answer = Result<Value, Fail>;

impl Fail {
    fn new(status: u16, code: &str, message: impl Into<String>) -> Self {
        let mut e = ApiError::synthetic(status, message);
        e.code = code.into();
        Self(Box::new(e))
    }

    /// 400 `bad_request` (a business rule).
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "bad_request", message)
    }

    /// 400 with a rule-specific code (e.g. `callback_not_active`).
    pub fn rule(code: &str, message: impl Into<String>) -> Self {
        Self::new(400, code, message)
    }

    /// 400 `invalid_data` about the body.
    pub fn invalid(errors: Vec<ValidationIssue>) -> Self {
        let mut f = Self::new(400, "invalid_data", "The provided data is invalid.");
        f.0.hint = Some(
            "Make sure the data you are sending follows the specification outlined in the \
             documentation."
                .into(),
        );
        f.0.entity = Some("body".into());
        f.0.errors = errors;
        f
    }

    /// 401 `unauthorized`.
    pub fn unauthorized(message: &str) -> Self {
        let mut f = Self::new(401, "unauthorized", message);
        f.0.hint = Some("Make sure to use a valid API key.".into());
        f
    }

    /// 403 `forbidden`: the key may not use this endpoint.
    pub fn forbidden() -> Self {
        Self::new(
            403,
            "forbidden",
            "Your API key is not authorized to access this endpoint",
        )
    }

    /// 404 `not_found` for an entity.
    pub fn not_found(entity: &str, id: &str) -> Self {
        let mut f = Self::new(
            404,
            "not_found",
            format!("The requested {entity} could not be found."),
        );
        f.0.hint = Some(
            "Make sure the resource you are trying to access exists, that you have access to it \
             and that it has not been deleted."
                .into(),
        );
        f.0.entity = Some(entity.into());
        f.0.id = Some(id.into());
        f
    }

    /// 404 for a route this generation does not serve (`entity: "endpoint"`).
    pub fn no_endpoint() -> Self {
        let mut f = Self::not_found("endpoint", "");
        f.0.message = "The requested endpoint could not be found.".into();
        f.0.id = None;
        f
    }

    /// The 406 of a version the key may not use: the body says 400 `bad_request`.
    pub fn version_not_allowed(asked: &str) -> Self {
        Self::new(
            400,
            "bad_request",
            format!("Invalid API version: {}", crate::text::line(asked)),
        )
    }

    /// 500; the detail goes to the log only.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        Self::from(Failure::internal(detail))
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        StatusCode::from_u16(self.0.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    /// The body: `object` first, then the error's fields.
    pub fn body(&self) -> Value {
        let mut out = Map::new();
        out.insert("object".into(), "error".into());
        if let Ok(Value::Object(fields)) = serde_json::to_value(&*self.0) {
            out.extend(fields);
        }
        out.insert("ok".into(), false.into());
        Value::Object(out)
    }
}

impl From<Failure> for Fail {
    fn from(f: Failure) -> Self {
        Self(f.0)
    }
}

impl From<StoreError> for Fail {
    fn from(e: StoreError) -> Self {
        Self::from(Failure::from(e))
    }
}

impl From<rusqlite::Error> for Fail {
    fn from(e: rusqlite::Error) -> Self {
        Self::internal(e)
    }
}

impl IntoResponse for Fail {
    fn into_response(self) -> Response {
        (self.status(), axum::Json(self.body())).into_response()
    }
}

/// Now, as the wire writes times (`2026-06-21T07:45:13.000Z`).
pub fn now_iso() -> String {
    iso(chrono::Utc::now())
}

/// A time as the wire writes it.
pub fn iso(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// Unix milliseconds as the wire writes them.
pub fn iso_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms).map_or_else(now_iso, iso)
}

/// The list envelope.
pub fn list(page: Page<Value>) -> Value {
    json!({
        "object": "list",
        "items": page.items.into_iter().map(public).collect::<Vec<_>>(),
        "pagination": {
            "has_more_after": page.pagination.has_more_after,
            "has_more_before": page.pagination.has_more_before,
        },
    })
}

/// What a handler gets: path parameters in order, the query pairs, the JSON body (when one was
/// sent) and the version answered.
#[derive(Debug, Clone)]
pub struct Req {
    /// Path parameters, in the order of the path.
    pub params: Vec<String>,
    /// Query pairs, percent-decoded.
    pub pairs: Vec<(String, String)>,
    /// The body, when one was sent.
    pub body: Option<Value>,
    /// The version answered.
    pub version: Version,
}

impl Req {
    /// Path parameter `n` (empty when missing).
    pub fn param(&self, n: usize) -> &str {
        self.params.get(n).map_or("", String::as_str)
    }

    /// The list parameters (limit, order, after/before/cursor).
    pub fn list_params(&self) -> Result<ListParams, Fail> {
        Ok(ListParams::from_pairs(&self.pairs)?)
    }

    /// Every value of a multi-value filter.
    pub fn many(&self, key: &str) -> Vec<String> {
        union(&self.pairs, key)
    }

    /// The body as an object (an empty one when none was sent); anything else is `invalid_data`.
    pub fn object(&self) -> Result<Map<String, Value>, Fail> {
        match &self.body {
            None => Ok(Map::new()),
            Some(Value::Object(m)) => Ok(m.clone()),
            Some(_) => Err(Fail::invalid(vec![issue(
                "invalid_type",
                "Expected object",
                &[],
            )])),
        }
    }
}

/// Reads body fields, collecting every problem before answering once.
pub struct Fields<'a> {
    body: &'a Map<String, Value>,
    /// Problems found so far.
    pub issues: Vec<ValidationIssue>,
}

impl<'a> Fields<'a> {
    /// Over a body.
    pub fn new(body: &'a Map<String, Value>) -> Self {
        Self {
            body,
            issues: Vec::new(),
        }
    }

    /// Records that `key` is not of the `expected` JSON type (`got`: what was sent).
    pub fn wrong(&mut self, key: &str, expected: &str, got: Option<&Value>) {
        let received = match got {
            None => "undefined",
            Some(Value::Null) => "null",
            Some(Value::Bool(_)) => "boolean",
            Some(Value::Number(_)) => "number",
            Some(Value::String(_)) => "string",
            Some(Value::Array(_)) => "array",
            Some(Value::Object(_)) => "object",
        };
        let mut i = issue(
            "invalid_type",
            format!("Invalid input, expected {expected}, received {received}"),
            &[key],
        );
        i.expected = Some(expected.into());
        i.received = Some(received.into());
        self.issues.push(i);
    }

    /// A required non-empty string of at most `max` characters.
    pub fn string(&mut self, key: &str, max: usize) -> String {
        self.opt_string(key, max).unwrap_or_else(|| {
            if !self
                .issues
                .iter()
                .any(|i| i.path.first() == Some(&Value::from(key)))
            {
                self.wrong(key, "string", self.body.get(key));
            }
            String::new()
        })
    }

    /// An optional string (null counts as absent); empty or too long is a problem.
    pub fn opt_string(&mut self, key: &str, max: usize) -> Option<String> {
        match self.body.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if !s.trim().is_empty() && s.chars().count() <= max => {
                Some(s.clone())
            }
            Some(Value::String(_)) => {
                self.issues.push(issue(
                    "invalid_string",
                    format!("Must be 1 to {max} characters"),
                    &[key],
                ));
                None
            }
            got => {
                let got = got.cloned();
                self.wrong(key, "string", got.as_ref());
                None
            }
        }
    }

    /// An optional object (null counts as absent).
    pub fn opt_object(&mut self, key: &str) -> Option<Map<String, Value>> {
        match self.body.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m.clone()),
            got => {
                let got = got.cloned();
                self.wrong(key, "object", got.as_ref());
                None
            }
        }
    }

    /// A required object.
    pub fn object(&mut self, key: &str) -> Map<String, Value> {
        match self.body.get(key) {
            Some(Value::Object(m)) => m.clone(),
            got => {
                let got = got.cloned();
                self.wrong(key, "object", got.as_ref());
                Map::new()
            }
        }
    }

    /// An optional list of non-empty strings (null counts as absent).
    pub fn opt_strings(&mut self, key: &str) -> Option<Vec<String>> {
        match self.body.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) => {
                let strings: Vec<String> = items
                    .iter()
                    .filter_map(|v| {
                        v.as_str()
                            .filter(|s| !s.trim().is_empty() && s.chars().count() <= 100)
                    })
                    .map(String::from)
                    .collect();
                if strings.len() == items.len() && items.len() <= 100 {
                    Some(strings)
                } else {
                    self.issues.push(issue(
                        "invalid_type",
                        "Expected at most 100 strings of 1 to 100 characters",
                        &[key],
                    ));
                    None
                }
            }
            got => {
                let got = got.cloned();
                self.wrong(key, "array", got.as_ref());
                None
            }
        }
    }

    /// Answers `invalid_data` when anything was wrong.
    pub fn check(self) -> Result<(), Fail> {
        if self.issues.is_empty() {
            Ok(())
        } else {
            Err(Fail::invalid(self.issues))
        }
    }
}

/// Removes the keys a record keeps for the service only (those starting with `_`).
pub fn public(mut v: Value) -> Value {
    if let Value::Object(m) = &mut v {
        m.retain(|k, _| !k.starts_with('_'));
    }
    v
}
