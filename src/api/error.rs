//! Errors: the server's error body (`ApiError`) or a transport problem.
use serde::{Deserialize, Serialize};

/// The flat error body the API sends with every non-2xx status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ApiError {
    /// Always false.
    #[serde(default)]
    pub ok: bool,
    /// HTTP status.
    pub status: u16,
    /// `invalid_data`, `bad_request`, `unauthorized`, `not_found`, …
    pub code: String,
    /// Human-readable message.
    pub message: String,
    /// What to do about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Longer text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Machine reason, e.g. `invalid_json_body`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The entity concerned (`callback`, `body`, `query`, `endpoint`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity: Option<String>,
    /// The id concerned: a string, or a list of the unknown ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<serde_json::Value>,
    /// Validation problems.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ValidationIssue>,
}

/// One validation problem; `path` is the array of keys leading to the field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ValidationIssue {
    /// `invalid_type`, `invalid_enum`, `invalid_min`, …
    pub code: String,
    /// Human-readable message.
    pub message: String,
    /// Keys leading to the field (strings or indexes).
    #[serde(default)]
    pub path: Vec<serde_json::Value>,
    /// Expected type or value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<serde_json::Value>,
    /// Received type or value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received: Option<serde_json::Value>,
    /// Lower bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<serde_json::Value>,
    /// Upper bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<serde_json::Value>,
}

impl ValidationIssue {
    /// The path joined with dots (`callbacks.callback_id.0`).
    pub fn path_string(&self) -> String {
        self.path
            .iter()
            .map(|p| match p {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(".")
    }

    /// The first key of the path: the form field it belongs to.
    pub fn field(&self) -> Option<&str> {
        self.path.first().and_then(|p| p.as_str())
    }
}

impl ApiError {
    /// Builds an error from a status and message when the body was not an API error body.
    pub fn synthetic(status: u16, message: impl Into<String>) -> Self {
        let code = match status {
            400 => "bad_request",
            401 => "unauthorized",
            402 => "payment_required",
            403 => "forbidden",
            404 => "not_found",
            429 => "rate_limit_exceeded",
            500..=599 => "internal_server_error",
            _ => "http_error",
        };
        Self {
            ok: false,
            status,
            code: code.into(),
            message: message.into(),
            hint: None,
            description: None,
            reason: None,
            entity: None,
            id: None,
            errors: Vec::new(),
        }
    }

    /// The id as text (lists joined with commas).
    pub fn id_text(&self) -> Option<String> {
        match self.id.as_ref()? {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Array(a) => Some(
                a.iter()
                    .map(|v| {
                        v.as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| v.to_string())
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            other => Some(other.to_string()),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.status, self.code, self.message)?;
        for e in &self.errors {
            let path = e.path_string();
            if path.is_empty() {
                write!(f, "; {}", e.message)?;
            } else {
                write!(f, "; {path}: {}", e.message)?;
            }
        }
        Ok(())
    }
}

/// Anything a call can fail with.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// The server answered with an error status.
    #[error("{0}")]
    Api(Box<ApiError>),
    /// The request never got a response (connect, DNS, reset).
    #[error("network error: {0}")]
    Network(String),
    /// No response within the timeout.
    #[error("request timed out after {0:?}")]
    Timeout(std::time::Duration),
    /// A 2xx reply whose body is not what the contract says.
    #[error("unexpected response body (HTTP {status}): {detail}")]
    Decode {
        /// HTTP status.
        status: u16,
        /// What failed to parse.
        detail: String,
    },
    /// The request could not be built (bad base URL, bad input).
    #[error("invalid request: {0}")]
    Invalid(String),
    /// A walk over a list's pages reached its cap while the server still reported more.
    #[error(
        "stopped after {pages} pages ({items} items) of {} MiB while the server still reported \
         more; narrow the list with filters, raise --max-pages{}",
        bytes.div_ceil(1024 * 1024),
        last.as_ref().map(|l| format!(", or continue with --after {l}")).unwrap_or_default()
    )]
    TooManyPages {
        /// Pages read.
        pages: usize,
        /// Items read.
        items: usize,
        /// Bytes of page bodies read.
        bytes: u64,
        /// The last item's id, where a further walk would start.
        last: Option<String>,
    },
    /// The server answered 404 `endpoint` and does not serve the API version this client speaks:
    /// one sentence naming the versions it serves.
    #[error("{}", super::versions::unsupported_sentence(.0))]
    UnsupportedVersion(Box<super::versions::VersionList>),
}

impl Error {
    /// The server's error body, when there was one.
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            Error::Api(e) => Some(e),
            _ => None,
        }
    }

    /// HTTP status, when a response came.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Api(e) => Some(e.status),
            Error::Decode { status, .. } => Some(*status),
            Error::UnsupportedVersion(_) => Some(404),
            _ => None,
        }
    }

    /// For a refused key (401/403), what to check, without guessing that a key is missing: a
    /// 401 means the key sent was rejected. `needed` names the key the path wants (`the
    /// organization key`).
    pub fn auth_hint(&self, needed: &str) -> Option<String> {
        match self.status()? {
            401 => Some(format!(
                "The server rejected the key it was sent (wrong, revoked or meant for another \
                 server); this needs {needed}."
            )),
            403 => Some(format!(
                "The key was accepted but may not do this; this needs {needed}."
            )),
            _ => None,
        }
    }

    /// Exit code for headless commands: 3 for an API error, 4 for network or timeout.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Api(_)
            | Error::Decode { .. }
            | Error::TooManyPages { .. }
            | Error::UnsupportedVersion(_) => 3,
            Error::Network(_) | Error::Timeout(_) => 4,
            Error::Invalid(_) => 2,
        }
    }
}

impl From<ApiError> for Error {
    fn from(e: ApiError) -> Self {
        Error::Api(Box::new(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejected_key_is_not_called_missing() {
        let rejected = Error::from(ApiError::synthetic(401, "Invalid API key"));
        let hint = rejected
            .auth_hint("the organization key")
            .expect("a hint on 401");
        assert!(hint.contains("rejected the key"), "{hint}");
        let forbidden = Error::from(ApiError::synthetic(403, "Forbidden"));
        let hint = forbidden
            .auth_hint("the organization key")
            .expect("a hint on 403");
        assert!(hint.contains("accepted"), "{hint}");
        assert_eq!(Error::Network("x".into()).auth_hint("k"), None);
        assert_eq!(
            Error::from(ApiError::synthetic(404, "x")).auth_hint("k"),
            None
        );
    }
}
