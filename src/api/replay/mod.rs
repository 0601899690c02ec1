//! Replaying a recorded delivery (issue 18): from a notification's recorded attempt, a
//! [`ReplayPlan`] of exactly what will be sent (the recorded body unchanged, the platform's
//! headers, a fresh signature), then [`send`] to a target the operator names. No UI here: the
//! console and the headless command both build on it.
//!
//! Safe by default: http and https only, no redirects, a 10 s timeout, and the answer capped as
//! the delivery engine caps what it records.
mod history;
mod lookup;
mod send;

use std::time::Duration;

use chrono::Utc;
use serde::Serialize;

use super::Secret;
use super::model::{Destination, Notification, WebhookRequest};
use super::signature;
use crate::text::redact::HeaderOrigin;

pub use history::{HISTORY_LEN, HistoryEntry, ReplayHistory};
pub use lookup::{choose_destination, destination_for, fetch_candidates, matching, selects};
pub use send::{AnswerHeaders, ReplayResult, SendError, SendOptions, client_for, send, send_with};

/// Per-request timeout, as the delivery engine's (api.md §5).
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// The answer's caps: the delivery engine's, from [`crate::api::capture`].
pub use crate::api::capture::{
    MAX_BODY as MAX_RESPONSE_BODY, MAX_HEADER_BYTES as MAX_RESPONSE_HEADER_BYTES,
    MAX_HEADERS as MAX_RESPONSE_HEADERS,
};

/// The one host name that means this machine.
const LOCALHOST: &str = "localhost";

/// `Metorial-Version` of deliveries when the recording carries none (api.md §5).
const DELIVERY_VERSION: &str = "2025-01-01";

/// Why a replay cannot be planned.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ReplayError {
    /// The target is not an absolute http(s) URL with a host.
    #[error("target {0}")]
    BadTarget(String),
    /// The notification has no attempt with this index.
    #[error("notification {id} has no attempt #{}", .index.saturating_add(1))]
    NoSuchAttempt {
        /// `cbn_…`.
        id: String,
        /// The index asked for (from 0; shown from 1).
        index: i64,
    },
    /// The chosen attempt (or, without an index, every attempt) recorded no request body.
    #[error("notification {0} has no recorded request to replay")]
    NothingRecorded(String),
    /// A recorded header value cannot be sent again (control characters).
    #[error("recorded header {0} holds characters an HTTP header cannot carry")]
    BadHeader(String),
    /// No active destination could have sent the notification, so its secret is unknown.
    #[error(
        "no active destination with this URL selects the notification's callback: its signing secret is unknown (replay with --unsigned to send without a signature)"
    )]
    NoDestination,
    /// Several destinations match and the recorded signature picks none of them.
    #[error(
        "{0} destinations share this URL and callback and the recorded signature matches none: cannot tell whose secret signs"
    )]
    Ambiguous(usize),
    /// Looking the destination up failed.
    #[error("looking up the destination: {0}")]
    Lookup(#[from] super::Error),
}

/// How a replay is signed: the destination's secret and the `i=` host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signing {
    /// The destination's signing secret (`Debug` masks it).
    pub secret: Secret,
    /// `<api host>` of the signature.
    pub host: String,
}

impl Signing {
    /// Signs with `d`'s secret, for `host`; `None` when `d` has no webhook target.
    #[must_use]
    pub fn for_destination(d: &Destination, host: &str) -> Option<Self> {
        d.webhook_destination.as_ref().map(|w| Self {
            secret: Secret::new(w.signing_secret.clone()),
            host: host.to_string(),
        })
    }
}

/// The destination a replay is signed for, by id and name (never its secret).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DestinationRef {
    /// `cld_…`.
    pub id: String,
    /// Display name.
    pub name: String,
}

/// Everything a replay will send, before it is sent: shown for confirmation, then [`send`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayPlan {
    /// `cbn_…`.
    pub notification_id: String,
    /// Index of the recorded attempt replayed (the API's, from 0; shown from 1).
    pub attempt_index: i64,
    /// Where it goes.
    pub target: url::Url,
    /// Always `POST`, as the platform delivers.
    pub method: &'static str,
    /// The recorded `request_body`, byte for byte.
    pub body: String,
    /// The platform headers (api.md §5) without the signature, in sending order.
    pub headers: Vec<(String, String)>,
    /// `None` sends no `Metorial-Signature` (`--unsigned`).
    pub signing: Option<Signing>,
    /// Whose secret signs, when signed; unsigned, the destination that sent the recorded
    /// delivery when one could be told.
    pub destination: Option<DestinationRef>,
}

impl ReplayPlan {
    /// The headers as sent at unix time `t`: the platform headers, then a signature made now.
    #[must_use]
    pub fn headers_at(&self, t: i64) -> Vec<(String, String)> {
        let mut out = self.headers.clone();
        if let Some(s) = &self.signing {
            out.push((
                "metorial-signature".into(),
                signature::signature(s.secret.expose(), &s.host, t, &self.body),
            ));
        }
        out
    }

    /// The headers as they would be sent now, each value passed through the one redaction policy:
    /// for a preview.
    #[must_use]
    pub fn preview_headers(&self) -> Vec<(String, String)> {
        masked_headers(&self.headers_at(Utc::now().timestamp()))
    }

    /// Whether the target is this machine.
    #[must_use]
    pub fn is_loopback(&self) -> bool {
        is_loopback(&self.target)
    }
}

/// A list of headers and who wrote them, for [`masked_headers`].
pub trait HeaderList {
    /// The pairs.
    fn pairs(&self) -> &[(String, String)];
    /// Who wrote them; a plain list is the platform's or a remote receiver's.
    fn origin(&self) -> HeaderOrigin {
        HeaderOrigin::Elsewhere
    }
}

impl HeaderList for [(String, String)] {
    fn pairs(&self) -> &[(String, String)] {
        self
    }
}

impl HeaderList for Vec<(String, String)> {
    fn pairs(&self) -> &[(String, String)] {
        self
    }
}

impl HeaderList for AnswerHeaders {
    fn pairs(&self) -> &[(String, String)] {
        &self.list
    }
    fn origin(&self) -> HeaderOrigin {
        self.origin
    }
}

/// Headers with every value the redaction policy hides (for who wrote them) replaced by its
/// mask: a replay's answer from this machine's own receiver shows whole.
#[must_use]
pub fn masked_headers<H: HeaderList + ?Sized>(headers: &H) -> Vec<(String, String)> {
    let origin = headers.origin();
    headers
        .pairs()
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                crate::text::redact::header_value_from(origin, k, v, false).to_string(),
            )
        })
        .collect()
}

/// Whether the policy hides any of these headers, for who wrote them: what a "masked" note or
/// an `R reveals` hint should ask (asking `any_header_masked` of the names alone would say so
/// for an own receiver's answer that shows whole).
#[must_use]
pub fn any_masked<H: HeaderList + ?Sized>(headers: &H) -> bool {
    let origin = headers.origin();
    headers
        .pairs()
        .iter()
        .any(|(k, _)| crate::text::redact::header_hidden(origin, k))
}

/// Parses a replay target: an absolute `http` or `https` URL with a host.
///
/// # Errors
/// [`ReplayError::BadTarget`] for anything else.
pub fn parse_target(text: &str) -> Result<url::Url, ReplayError> {
    let url = url::Url::parse(text.trim())
        .map_err(|e| ReplayError::BadTarget(format!("{:?} is not a URL: {e}", text.trim())))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ReplayError::BadTarget(format!(
            "{:?} must be http or https",
            text.trim()
        )));
    }
    if url.host().is_none() {
        return Err(ReplayError::BadTarget(format!(
            "{:?} names no host",
            text.trim()
        )));
    }
    if !url.username().is_empty() || url.password().is_some() {
        // Credentials in a URL would be sent to the receiver and echoed in previews.
        return Err(ReplayError::BadTarget(
            "must not carry a user name or password".into(),
        ));
    }
    Ok(url)
}

/// Whether a URL's host is this machine: `127.0.0.0/8`, `::1`, or exactly `localhost`, which
/// [`send`] connects to on `127.0.0.1`/`::1` itself. Literal only: nothing is resolved, so no
/// resolver (nor a `*.localhost` name it may send anywhere) decides where a signed body goes.
#[must_use]
pub fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case(LOCALHOST),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// `<api host>` of signatures for an API base URL: its host, with the port when one is given
/// (`127.0.0.1:8080`, `api.metorial.com`), as the service signs.
#[must_use]
pub fn api_host(base_url: &str) -> Option<String> {
    let u = url::Url::parse(base_url.trim()).ok()?;
    let host = u.host_str()?;
    Some(match u.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    })
}

/// The host a replay signs for: the `i=` of the recorded signature when it is a plain host
/// (so a receiver that checks it sees what the platform sends), else the API's host.
#[must_use]
pub fn signing_host(recorded: &WebhookRequest, base_url: &str) -> Option<String> {
    let plain = |h: &str| {
        !h.is_empty()
            && h.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
    };
    signature::header_of(&recorded.request_headers)
        .and_then(|h| signature::parse(h).ok())
        .map(|p| p.host.to_string())
        .filter(|h| plain(h))
        .or_else(|| api_host(base_url))
}

/// The attempt replayed: index `index`, or without one the latest attempt that recorded a body.
///
/// # Errors
/// [`ReplayError::NoSuchAttempt`] or [`ReplayError::NothingRecorded`].
pub fn recorded_request(
    n: &Notification,
    index: Option<i64>,
) -> Result<(i64, &WebhookRequest), ReplayError> {
    fn with_body(a: &super::model::Attempt) -> Option<(i64, &WebhookRequest)> {
        a.webhook_request
            .as_ref()
            .filter(|r| r.request_body.is_some())
            .map(|r| (a.index, r))
    }
    match index {
        Some(i) => {
            let a = n.attempts.iter().find(|a| a.index == i).ok_or_else(|| {
                ReplayError::NoSuchAttempt {
                    id: n.id.clone(),
                    index: i,
                }
            })?;
            with_body(a).ok_or_else(|| ReplayError::NothingRecorded(n.id.clone()))
        }
        None => n
            .attempts
            .iter()
            .filter_map(with_body)
            .max_by_key(|(i, _)| *i)
            .ok_or_else(|| ReplayError::NothingRecorded(n.id.clone())),
    }
}

/// Whether a recorded body is one the local service cut to its record cap (api.md §6: a marker
/// saying how many bytes were not recorded). Such a body is not what was sent: list pages carry
/// it cut, the notification's own `GET` in full.
pub fn body_is_cut(body: &str) -> bool {
    body.ends_with(" bytes not recorded]") && body.contains("…[switchboard: ")
}

/// `n` with its latest recorded request whole: when the list page it came from carried that
/// body cut ([`body_is_cut`]), the notification is read again by id, so a replay never sends
/// (and signs) a shortened body.
///
/// # Errors
/// The `GET`'s error.
pub async fn whole(client: &super::Client, n: Notification) -> Result<Notification, super::Error> {
    let cut = recorded_request(&n, None)
        .ok()
        .and_then(|(_, r)| r.request_body.as_deref())
        .is_some_and(body_is_cut);
    if cut {
        client.get_notification(&n.id).await
    } else {
        Ok(n)
    }
}

/// Builds the plan of a replay of notification `n`'s attempt `index` (default: the latest with a
/// recorded request) to `target`, signed with `signing` unless `None`.
///
/// The body is the recorded `request_body` unchanged. The platform headers (api.md §5) are taken
/// from the recorded request, or, where it lacks one, from the recorded body and the notification.
///
/// # Errors
/// No such attempt, nothing recorded, or a recorded header that cannot be sent.
pub fn plan(
    n: &Notification,
    index: Option<i64>,
    target: url::Url,
    signing: Option<Signing>,
    destination: Option<&Destination>,
) -> Result<ReplayPlan, ReplayError> {
    let (attempt_index, req) = recorded_request(n, index)?;
    let body = req.request_body.clone().unwrap_or_default();
    let recorded = |name: &str| {
        req.request_headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let from_body = |key: &str| req.body_field(key).or_else(|| n.body_field(key));
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut add = |name: &str, value: Option<String>| {
        if let Some(v) = value {
            headers.push((name.to_string(), v));
        }
    };
    add(
        "content-type",
        Some(recorded("content-type").unwrap_or_else(|| "application/json".into())),
    );
    add("user-agent", recorded("user-agent"));
    add(
        "metorial-notification-id",
        Some(recorded("metorial-notification-id").unwrap_or_else(|| n.id.clone())),
    );
    add(
        "metorial-event-id",
        recorded("metorial-event-id").or_else(|| from_body("eventId")),
    );
    add(
        "metorial-callback-id",
        recorded("metorial-callback-id").or_else(|| from_body("callbackId")),
    );
    add(
        "metorial-version",
        Some(recorded("metorial-version").unwrap_or_else(|| DELIVERY_VERSION.into())),
    );
    for (k, v) in &headers {
        if reqwest::header::HeaderValue::from_str(v).is_err() {
            return Err(ReplayError::BadHeader(k.clone()));
        }
    }
    if let Some(s) = &signing
        && reqwest::header::HeaderValue::from_str(&s.host).is_err()
    {
        return Err(ReplayError::BadHeader("metorial-signature".into()));
    }
    Ok(ReplayPlan {
        notification_id: n.id.clone(),
        attempt_index,
        target,
        method: "POST",
        body,
        headers,
        destination: destination.map(|d| DestinationRef {
            id: d.id.clone(),
            name: d.name.clone(),
        }),
        signing,
    })
}

/// The whole preparation through the API, for a caller that holds no destinations: finds the
/// destination whose secret signs (unless `unsigned`), then [`plan`]s. The console, which may
/// already hold the destinations, can instead use [`matching`], [`choose_destination`],
/// [`Signing::for_destination`] with [`signing_host`], and [`plan`].
///
/// # Errors
/// Nothing to replay, no single signing destination, or the lookup's API error.
pub async fn prepare(
    client: &super::Client,
    n: &Notification,
    index: Option<i64>,
    target: url::Url,
    unsigned: bool,
) -> Result<ReplayPlan, ReplayError> {
    let (_, recorded) = recorded_request(n, index)?;
    if unsigned {
        // No secret is needed, but the destination is still named when it can be told; a
        // failed lookup does not stop an unsigned replay.
        let d = destination_for(client, n, recorded).await.ok();
        return plan(n, index, target, None, d.as_ref());
    }
    let d = destination_for(client, n, recorded).await?;
    let host = signing_host(recorded, client.base_url()).unwrap_or_default();
    plan(
        n,
        index,
        target,
        Signing::for_destination(&d, &host),
        Some(&d),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_http_or_https_with_a_host() {
        assert!(parse_target("http://localhost:3000/webhooks").is_ok());
        assert!(parse_target(" https://hooks.example/in ").is_ok());
        for bad in [
            "ftp://x/",
            "file:///etc/passwd",
            "localhost:3000",
            "http://",
            "",
            "http://u:p@localhost/",
        ] {
            assert!(parse_target(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn masking_follows_who_wrote_the_headers() {
        let pairs = vec![
            ("content-type".to_string(), "text/plain".to_string()),
            ("x-receiver".to_string(), "mine".to_string()),
        ];
        assert!(any_masked(&pairs), "x-receiver is unknown: masked");
        let own = AnswerHeaders {
            origin: HeaderOrigin::OwnReceiver,
            list: pairs.clone(),
        };
        assert!(!any_masked(&own), "an own receiver's shows whole");
        assert_eq!(masked_headers(&own), pairs);
        let mut with_cookie = own.clone();
        with_cookie.list.push(("set-cookie".into(), "s=1".into()));
        assert!(any_masked(&with_cookie));
    }

    #[test]
    fn loopback_is_literal() {
        let yes = |s: &str| is_loopback(&url::Url::parse(s).expect("url"));
        assert!(yes("http://localhost/"));
        assert!(yes("http://LOCALHOST:1/"));
        // Names the resolver decides are not literal.
        assert!(!yes("http://app.localhost/"));
        assert!(!yes("http://localhost.:1/"));
        assert!(!yes("http://localhost.localdomain/"));
        assert!(yes("http://127.0.0.1:9/"));
        assert!(yes("http://127.1.2.3/"));
        assert!(yes("http://[::1]:8080/"));
        assert!(!yes("http://localhost.example/"));
        assert!(!yes("http://10.0.0.1/"));
        assert!(!yes("http://0.0.0.0/"));
        assert!(!yes("https://hooks.example/"));
    }

    #[test]
    fn api_host_keeps_an_explicit_port() {
        assert_eq!(
            api_host("http://127.0.0.1:8080").as_deref(),
            Some("127.0.0.1:8080")
        );
        assert_eq!(
            api_host("https://api.metorial.com/").as_deref(),
            Some("api.metorial.com")
        );
        assert_eq!(api_host("nope"), None);
    }

    fn notification(body: &str, headers: &[(&str, &str)]) -> Notification {
        let v = serde_json::json!({
            "id": "cbn_1", "type": "webhook_http", "status": "failed", "url": "http://r/in",
            "created_at": "2026-01-01T00:00:00.000Z",
            "attempts": [
                {"id": "cbna_0", "status": "failed", "index": 0, "created_at": "2026-01-01T00:00:00.000Z",
                 "webhook_request": null},
                {"id": "cbna_1", "status": "failed", "index": 1, "created_at": "2026-01-01T00:00:00.000Z",
                 "webhook_request": {
                    "id": "cbnwr_1", "url": "http://r/in", "request_method": "POST",
                    "request_body": body,
                    "request_headers": headers.iter().map(|(k, v)| ((*k).to_string(), serde_json::Value::String((*v).to_string()))).collect::<serde_json::Map<_, _>>(),
                    "response_status": 500, "duration": 3, "created_at": "2026-01-01T00:00:00.000Z"}}
            ]
        });
        serde_json::from_value(v).expect("notification")
    }

    fn target() -> url::Url {
        url::Url::parse("http://127.0.0.1:3000/webhooks").expect("url")
    }

    #[test]
    fn plan_keeps_the_body_and_takes_headers_from_the_recording() {
        let body = r#"{"eventId":"cbe_9","callbackId":"clb_9","type":"x"}"#;
        let n = notification(
            body,
            &[
                ("Metorial-Event-Id", "cbe_rec"),
                ("metorial-version", "2025-01-01"),
                ("metorial-signature", "i=api.example,t=1,v1=00"),
            ],
        );
        let signing = Signing {
            secret: Secret::new("clb_sec_test"),
            host: "api.example".into(),
        };
        let p = plan(&n, None, target(), Some(signing), None).expect("plan");
        assert_eq!(p.attempt_index, 1);
        assert_eq!(p.body, body);
        let h = p.headers_at(1_700_000_000);
        let get = |k: &str| h.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("content-type"), Some("application/json"));
        assert_eq!(get("metorial-notification-id"), Some("cbn_1"));
        assert_eq!(get("metorial-event-id"), Some("cbe_rec"));
        assert_eq!(get("metorial-callback-id"), Some("clb_9"));
        assert_eq!(get("metorial-version"), Some("2025-01-01"));
        assert_eq!(
            signature::verify("clb_sec_test", get("metorial-signature"), Some(body)),
            Ok(())
        );
        assert!(
            get("metorial-signature").is_some_and(|s| s.starts_with("i=api.example,t=1700000000,"))
        );
        let unsigned = plan(&n, Some(1), target(), None, None).expect("plan");
        assert!(
            unsigned
                .headers_at(1)
                .iter()
                .all(|(k, _)| k != "metorial-signature")
        );
    }

    #[test]
    fn attempts_without_a_request_cannot_be_replayed() {
        let n = notification("{}", &[]);
        assert!(matches!(
            plan(&n, Some(0), target(), None, None),
            Err(ReplayError::NothingRecorded(_))
        ));
        assert!(matches!(
            plan(&n, Some(7), target(), None, None),
            Err(ReplayError::NoSuchAttempt { index: 7, .. })
        ));
        let bad = notification("{}", &[("metorial-event-id", "a\nb")]);
        assert!(matches!(
            plan(&bad, None, target(), None, None),
            Err(ReplayError::BadHeader(_))
        ));
    }

    #[test]
    fn signing_host_prefers_the_recorded_one() {
        let n = notification(
            "{}",
            &[("metorial-signature", "i=api.metorial.com,t=1,v1=ab")],
        );
        let r = recorded_request(&n, None).expect("recorded").1;
        assert_eq!(
            signing_host(r, "http://127.0.0.1:1").as_deref(),
            Some("api.metorial.com")
        );
        let odd = notification("{}", &[("metorial-signature", "i=a b,t=1,v1=ab")]);
        let r = recorded_request(&odd, None).expect("recorded").1;
        assert_eq!(
            signing_host(r, "http://127.0.0.1:1").as_deref(),
            Some("127.0.0.1:1")
        );
    }
}
