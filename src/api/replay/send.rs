//! Sending a [`ReplayPlan`]: one POST, no redirects followed, a whole-exchange timeout, and the
//! answer kept only up to the delivery engine's caps.
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use super::{
    MAX_RESPONSE_BODY, MAX_RESPONSE_HEADER_BYTES, MAX_RESPONSE_HEADERS, ReplayPlan, TIMEOUT,
};

/// How to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendOptions {
    /// Bound on the whole exchange, answer body included ([`TIMEOUT`] by default).
    pub timeout: Duration,
}

impl Default for SendOptions {
    fn default() -> Self {
        Self { timeout: TIMEOUT }
    }
}

/// Why no (complete) answer came.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// Nothing (or not all of the answer) within the timeout.
    #[error("no answer within {} ms", .0.as_millis())]
    Timeout(Duration),
    /// The connection could not be made (refused, DNS, TLS).
    #[error("connect error: {0}")]
    Connect(String),
    /// Any other transport failure (reset, a malformed answer).
    #[error("network error: {0}")]
    Network(String),
}

/// What came back from a replay. Header values and bodies are the receiver's text: show them
/// only through the redaction policy and the sanitizer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayResult {
    /// When it was sent.
    pub sent_at: DateTime<Utc>,
    /// The headers exactly as sent (with the signature made at `sent_at`).
    pub sent_headers: Vec<(String, String)>,
    /// The answer's status; `None` when none came.
    pub status: Option<u16>,
    /// The answer's headers, in order received, up to the caps.
    pub headers: Vec<(String, String)>,
    /// Whether headers were dropped by the caps.
    pub headers_truncated: bool,
    /// The answer's body (lossy UTF-8), up to [`MAX_RESPONSE_BODY`] bytes.
    pub body: Option<String>,
    /// Whether the body was cut at the cap.
    pub body_truncated: bool,
    /// From sending to the end of the (capped) answer.
    pub duration: Duration,
    /// Why there was no answer, or why it stopped early.
    pub error: Option<SendError>,
}

impl ReplayResult {
    /// Whether the receiver answered 2xx.
    #[must_use]
    pub fn is_success(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }
}

/// Sends `plan` now, with a signature made now, and captures the answer. Never fails: a
/// transport problem is the result's `error`.
pub async fn send(plan: &ReplayPlan, opts: &SendOptions) -> ReplayResult {
    let sent_at = Utc::now();
    let sent_headers = plan.headers_at(sent_at.timestamp());
    let mut result = ReplayResult {
        sent_at,
        sent_headers,
        status: None,
        headers: Vec::new(),
        headers_truncated: false,
        body: None,
        body_truncated: false,
        duration: Duration::ZERO,
        error: None,
    };
    let started = Instant::now();
    let client = match http_client(&plan.target, opts.timeout) {
        Ok(c) => c,
        Err(e) => {
            result.error = Some(SendError::Network(e.to_string()));
            return result;
        }
    };
    let mut rb = client.post(plan.target.clone()).body(plan.body.clone());
    for (k, v) in &result.sent_headers {
        rb = rb.header(k.as_str(), v.as_str());
    }
    match rb.send().await {
        Err(e) => result.error = Some(describe(&e, opts.timeout)),
        Ok(resp) => {
            result.status = Some(resp.status().as_u16());
            (result.headers, result.headers_truncated) = capped_headers(resp.headers());
            let (body, truncated, error) = read_capped(resp, opts.timeout).await;
            result.body = Some(body);
            result.body_truncated = truncated;
            result.error = error;
        }
    }
    result.duration = started.elapsed();
    result
}

fn http_client(target: &url::Url, timeout: Duration) -> Result<reqwest::Client, reqwest::Error> {
    let mut b = reqwest::Client::builder()
        // The platform delivers straight to the receiver; a proxy would change what it sees.
        .no_proxy()
        // The platform follows no redirect: the receiver's 3xx is its answer.
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("switchboard/", env!("CARGO_PKG_VERSION")))
        .timeout(timeout);
    if target.scheme() == "http" {
        // No redirects, so plain HTTP never needs TLS roots (loading them is slow).
        b = b.tls_certs_only(Vec::new());
    }
    b.build()
}

fn describe(e: &reqwest::Error, timeout: Duration) -> SendError {
    if e.is_timeout() {
        SendError::Timeout(timeout)
    } else if e.is_connect() {
        SendError::Connect(chain(e))
    } else {
        SendError::Network(chain(e))
    }
}

/// The error and its causes on one line ("error sending request" alone says little).
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        out.push_str(": ");
        out.push_str(&c.to_string());
        cause = c.source();
    }
    out
}

/// Headers up to [`MAX_RESPONSE_HEADERS`] and [`MAX_RESPONSE_HEADER_BYTES`] (names and values).
fn capped_headers(h: &reqwest::header::HeaderMap) -> (Vec<(String, String)>, bool) {
    let mut out = Vec::new();
    let mut bytes = 0usize;
    for (k, v) in h {
        let size = k.as_str().len() + v.as_bytes().len();
        if out.len() >= MAX_RESPONSE_HEADERS || bytes + size > MAX_RESPONSE_HEADER_BYTES {
            return (out, true);
        }
        bytes += size;
        out.push((
            k.as_str().to_string(),
            String::from_utf8_lossy(v.as_bytes()).into_owned(),
        ));
    }
    (out, false)
}

/// The body up to [`MAX_RESPONSE_BODY`] bytes; the rest is not read.
async fn read_capped(
    mut resp: reqwest::Response,
    timeout: Duration,
) -> (String, bool, Option<SendError>) {
    let mut buf: Vec<u8> = Vec::new();
    let mut truncated = false;
    let mut error = None;
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                let room = MAX_RESPONSE_BODY.saturating_sub(buf.len());
                if chunk.len() > room {
                    buf.extend_from_slice(chunk.get(..room).unwrap_or_default());
                    truncated = true;
                    break;
                }
                buf.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => {
                error = Some(describe(&e, timeout));
                break;
            }
        }
    }
    (String::from_utf8_lossy(&buf).into_owned(), truncated, error)
}
