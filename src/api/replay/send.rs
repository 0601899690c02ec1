//! Sending a [`ReplayPlan`]: one POST, no redirects followed, a whole-exchange timeout, and the
//! answer kept only up to the delivery engine's caps.
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use super::{ReplayPlan, TIMEOUT};
use crate::api::capture;
use crate::text::redact::HeaderOrigin;

/// A replay answer's headers and who wrote them. Reads as the list of pairs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnswerHeaders {
    /// This machine's receiver, or one elsewhere.
    pub origin: HeaderOrigin,
    /// Name and value pairs.
    pub list: Vec<(String, String)>,
}

impl std::ops::Deref for AnswerHeaders {
    type Target = [(String, String)];
    fn deref(&self) -> &Self::Target {
        &self.list
    }
}

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
    /// The answer's headers, by name, up to the caps (repeated names joined with `, `), with
    /// who wrote them: [`super::masked_headers`] shows an own (loopback) receiver's unmasked.
    pub headers: AnswerHeaders,
    /// Whether headers were dropped by the caps.
    pub headers_truncated: bool,
    /// The answer's body (lossy UTF-8), up to [`capture::MAX_BODY`] bytes.
    pub body: Option<String>,
    /// Whether the body was cut at the cap.
    pub body_truncated: bool,
    /// From sending to the end of the (capped) answer.
    pub duration: Duration,
    /// Why there was no answer, or why it stopped early.
    pub error: Option<SendError>,
}

impl ReplayResult {
    /// Whether the replay succeeded: a 2xx answer received whole (no error), as the delivery
    /// engine counts an attempt ok. A 2xx whose body was reset or stalled is a failure.
    #[must_use]
    pub fn is_success(&self) -> bool {
        self.error.is_none() && self.is_2xx()
    }

    /// Whether the status was 2xx, whether or not the rest of the answer came.
    #[must_use]
    pub fn is_2xx(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }
}

/// Sends `plan` now, with a signature made now, and captures the answer. Never fails: a
/// transport problem is the result's `error`.
pub async fn send(plan: &ReplayPlan, opts: &SendOptions) -> ReplayResult {
    match http_client(&plan.target, opts.timeout) {
        Ok(c) => send_with(&c, plan, opts).await,
        Err(e) => {
            let mut r = unanswered(plan);
            r.error = Some(SendError::Network(e.to_string()));
            r
        }
    }
}

/// A client for many replays to `target`'s scheme: [`send`]'s settings (no proxy, no redirects,
/// the timeout), keeping connections open between requests. For [`send_with`].
///
/// # Errors
/// The client cannot be built.
pub fn client_for(target: &url::Url, timeout: Duration) -> Result<reqwest::Client, reqwest::Error> {
    http_client(target, timeout)
}

/// A result with the headers as sent now and no answer yet.
fn unanswered(plan: &ReplayPlan) -> ReplayResult {
    let sent_at = Utc::now();
    ReplayResult {
        sent_at,
        sent_headers: plan.headers_at(sent_at.timestamp()),
        status: None,
        headers: AnswerHeaders {
            origin: if plan.is_loopback() {
                HeaderOrigin::OwnReceiver
            } else {
                HeaderOrigin::Elsewhere
            },
            list: Vec::new(),
        },
        headers_truncated: false,
        body: None,
        body_truncated: false,
        duration: Duration::ZERO,
        error: None,
    }
}

/// [`send`] with a client from [`client_for`] (a bulk recover reuses its connections).
pub async fn send_with(
    client: &reqwest::Client,
    plan: &ReplayPlan,
    opts: &SendOptions,
) -> ReplayResult {
    let mut result = unanswered(plan);
    let started = Instant::now();
    let mut rb = client.post(plan.target.clone()).body(plan.body.clone());
    for (k, v) in &result.sent_headers {
        rb = rb.header(k.as_str(), v.as_str());
    }
    match rb.send().await {
        Err(e) => result.error = Some(describe(&e, opts.timeout)),
        Ok(resp) => {
            result.status = Some(resp.status().as_u16());
            // The delivery engine's caps, applied by the same code.
            // As in a recorded attempt, a marker entry counts what was dropped.
            let headers = capture::capped_headers(resp.headers());
            result.headers_truncated = headers.contains_key(capture::TRUNCATED_HEADER);
            result.headers.list = headers.into_iter().collect();
            let body = capture::read_capped(resp).await;
            result.body = Some(body.text);
            result.body_truncated = body.truncated;
            result.error = body.error.map(|e| describe(&e, opts.timeout));
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
    if let (Some(url::Host::Domain(name)), Some(port)) =
        (target.host(), target.port_or_known_default())
        && super::is_loopback(target)
    {
        // `localhost` is this machine because it is connected to here, not looked up: a hosts
        // file or resolver cannot send it elsewhere.
        let here = [
            std::net::SocketAddr::from((std::net::Ipv4Addr::LOCALHOST, port)),
            std::net::SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, port)),
        ];
        b = b.resolve_to_addrs(name, &here);
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
