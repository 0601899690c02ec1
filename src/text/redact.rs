//! The one redaction policy: which header values and which JSON fields are secret, and how a
//! secret is shown. Every rendering of an item uses it: the console's detail, attempt and raw
//! views and copies, headless tables, and logs. `R` in the console is the only way past it.
use serde_json::{Map, Value};

/// What replaces a masked header value.
pub const MASKED: &str = "••••••••";

/// Headers whose values are shown as they are (lower case).
const SAFE_HEADERS: &[&str] = &[
    "accept",
    "accept-encoding",
    "cache-control",
    "connection",
    "content-encoding",
    "content-length",
    "content-type",
    "date",
    "host",
    "metorial-signature",
    "metorial-version",
    "retry-after",
    "server",
    "transfer-encoding",
    "user-agent",
    "vary",
];

/// Words that make a header or field secret whatever else it says.
const SECRET_WORDS: &[&str] = &[
    "auth",
    "cookie",
    "token",
    "secret",
    "key",
    "password",
    "passwd",
    "session",
    "credential",
];

/// JSON keys holding recorded HTTP headers (a delivery attempt's request and response).
const HEADER_OBJECTS: &[&str] = &["request_headers", "response_headers", "headers"];

/// Whether a header's value may be shown, fail closed: only names on the safe list (compared
/// case-insensitively), rate-limit headers (`ratelimit-*`, `x-ratelimit-*`, `retry-after`) and
/// `metorial-<word>-id`; anything naming a secret, and anything unknown, is masked. Every view
/// (attempt view, `v`, `y`/`Y`, headless) asks this one function, so a header is shown the same
/// way everywhere.
#[must_use]
pub fn header_is_safe(name: &str) -> bool {
    let n = name.trim().to_ascii_lowercase();
    if n == "metorial-signature" {
        // The signature proves the body; it reveals nothing of the secret.
        return true;
    }
    if names_a_secret(&n) {
        return false;
    }
    if SAFE_HEADERS.contains(&n.as_str()) {
        return true;
    }
    // Rate-limit state (`ratelimit-limit`, `x-ratelimit-remaining`, …) is counts and seconds.
    if ["ratelimit-", "x-ratelimit-"]
        .iter()
        .any(|p| n.strip_prefix(p).is_some_and(|rest| !rest.is_empty()))
    {
        return true;
    }
    n.strip_prefix("metorial-")
        .and_then(|rest| rest.strip_suffix("-id"))
        .is_some_and(|mid| !mid.is_empty() && mid.chars().all(|c| c.is_ascii_lowercase()))
}

/// Whether a (lower-case) header name says it holds a secret: auth, cookie, token, key, ….
fn names_a_secret(n: &str) -> bool {
    n != "metorial-signature" && SECRET_WORDS.iter().any(|w| n.contains(w))
}

/// The value to show for a header: as it is when safe or revealed, [`MASKED`] otherwise.
#[must_use]
pub fn header_value<'a>(name: &str, value: &'a str, revealed: bool) -> &'a str {
    if revealed || header_is_safe(name) {
        value
    } else {
        MASKED
    }
}

/// Who wrote a set of headers: it decides how much the policy hides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeaderOrigin {
    /// Recorded by the platform, or answered by a receiver elsewhere: fail closed.
    #[default]
    Elsewhere,
    /// The answer of a receiver on this machine (a replay to a literal loopback target): the
    /// operator's own receiver, whose headers are theirs to see, except those named as secrets.
    OwnReceiver,
}

/// Whether the policy hides the value of header `name` written by `origin`. An own receiver's
/// headers show unless their name says secret (`set-cookie`, `authorization`, `x-api-key`, …:
/// a screen or a shared terminal still must not carry them); anything else is hidden unless
/// [`header_is_safe`].
#[must_use]
pub fn header_hidden(origin: HeaderOrigin, name: &str) -> bool {
    match origin {
        HeaderOrigin::OwnReceiver => names_a_secret(&name.trim().to_ascii_lowercase()),
        HeaderOrigin::Elsewhere => !header_is_safe(name),
    }
}

/// The value to show for a header written by `origin`: as it is unless [`header_hidden`] and not
/// revealed, else [`MASKED`].
#[must_use]
pub fn header_value_from<'a>(
    origin: HeaderOrigin,
    name: &str,
    value: &'a str,
    revealed: bool,
) -> &'a str {
    if revealed || !header_hidden(origin, name) {
        value
    } else {
        MASKED
    }
}

/// Whether any of these headers would be masked (so that revealing means something).
#[must_use]
pub fn any_header_masked<'a>(names: impl IntoIterator<Item = &'a String>) -> bool {
    names.into_iter().any(|n| !header_is_safe(n))
}

/// Whether a JSON field holds a secret: signing secrets, passwords, tokens (not `token_type`),
/// API keys, credentials, cookies, authorization values.
#[must_use]
pub fn is_secret_field(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    let named = [
        "secret",
        "password",
        "passwd",
        "credential",
        "authorization",
        "cookie",
        "api_key",
        "apikey",
        "private_key",
    ];
    named.iter().any(|w| k.contains(w)) || (k.ends_with("token") && k != "token_type")
}

/// Masks any secret text: at most 5 leading characters, and none of a short one.
#[must_use]
pub fn mask(s: &str) -> String {
    let n = s.chars().count();
    if n == 0 {
        return "(empty)".into();
    }
    let keep = if n >= 16 {
        5
    } else if n >= 8 {
        2
    } else {
        0
    };
    let prefix: String = s.chars().take(keep).collect();
    format!("{prefix}…")
}

/// A hook address whose last path segment is its key (a callback's `url`): that segment masked,
/// the host and path kept so the address can still be recognised.
#[must_use]
pub fn mask_url_key(url: &str) -> String {
    match url.trim_end_matches('/').rsplit_once('/') {
        Some((base, key)) if !key.is_empty() && !base.ends_with('/') => {
            format!("{base}/{}", mask(key))
        }
        _ => mask(url),
    }
}

/// Words that make a URL query (or fragment) parameter secret, compared with each word of its
/// name (split at anything not a letter or digit), case-insensitively.
const SECRET_PARAMS: &[&str] = &[
    "token",
    "key",
    "apikey",
    "secret",
    "sig",
    "signature",
    "password",
    "passwd",
    "pwd",
    "pass",
    "auth",
    "authorization",
    "credential",
    "credentials",
    "session",
    "code",
    "jwt",
];

/// Whether a URL parameter's name says its value is secret: one of its words is in
/// [`SECRET_PARAMS`] or ends in `token`, `secret` or `password` (`api_key`, `access_token`,
/// `X-Amz-Signature`, `sig`, `accesstoken`).
#[must_use]
pub fn is_secret_param(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .any(|w| {
            SECRET_PARAMS.contains(&w)
                || ["token", "secret", "password"]
                    .iter()
                    .any(|e| w.ends_with(e))
        })
}

/// A URL as it may be shown: the userinfo's password and the values of secret-looking query
/// and fragment parameters ([`is_secret_param`]) replaced by [`MASKED`]; everything else kept
/// byte for byte (no re-serialisation), so the address stays recognisable. Text that is not a
/// URL comes back unchanged. The one rule for destination and notification URLs in tables,
/// `notifications get`, the raw view and copies (`-o json` alone prints them whole).
#[must_use]
pub fn mask_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return mask_params(url);
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{user}:{MASKED}@{host}"),
            None => authority.to_string(),
        },
        None => authority.to_string(),
    };
    format!("{scheme}://{authority}{}", mask_params(tail))
}

/// The path kept; each `name=value` of the query and the fragment with a secret name masked.
fn mask_params(tail: &str) -> String {
    let (before_fragment, fragment) = match tail.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (tail, None),
    };
    let (path, query) = match before_fragment.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (before_fragment, None),
    };
    let pairs = |q: &str| {
        q.split('&')
            .map(|pair| match pair.split_once('=') {
                Some((k, v)) if !v.is_empty() && is_secret_param(k) => format!("{k}={MASKED}"),
                _ => pair.to_string(),
            })
            .collect::<Vec<_>>()
            .join("&")
    };
    let mut out = path.to_string();
    if let Some(q) = query {
        out.push('?');
        out.push_str(&pairs(q));
    }
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(&pairs(f));
    }
    out
}

/// How string field `key` of object `o` may be shown: masked when it holds a secret (a
/// secret-named field, a callback's url, which ends in its hook key, or any other url's
/// credentials by [`mask_url`]), else as it is.
#[must_use]
pub fn field_value<'a>(o: &Map<String, Value>, key: &str, s: &'a str) -> std::borrow::Cow<'a, str> {
    if is_secret_field(key) {
        mask(s).into()
    } else if key == "url" && o.get("object").and_then(Value::as_str) == Some("callback") {
        mask_url_key(s).into()
    } else if key == "url" {
        mask_url(s).into()
    } else {
        s.into()
    }
}

/// Recorded headers with every value the header rules hide replaced by [`MASKED`].
fn masked_headers(h: &Map<String, Value>) -> Value {
    Value::Object(
        h.iter()
            .map(|(name, v)| {
                let v = if header_is_safe(name) {
                    masked(v)
                } else {
                    Value::String(MASKED.into())
                };
                (name.clone(), v)
            })
            .collect(),
    )
}

/// The value with every secret masked: secret fields (by [`is_secret_field`]), callback hook
/// keys, and every value of recorded headers objects that the header rules hide.
#[must_use]
pub fn masked(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| {
                    let x = match x {
                        Value::String(s) => Value::String(field_value(o, k, s).into_owned()),
                        Value::Object(h) if HEADER_OBJECTS.contains(&k.as_str()) => {
                            masked_headers(h)
                        }
                        other if is_secret_field(k) && !other.is_null() => {
                            Value::String(MASKED.into())
                        }
                        other => masked(other),
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(masked).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn safe_list_is_case_insensitive() {
        for h in [
            "Content-Type",
            "USER-AGENT",
            "Metorial-Notification-Id",
            "metorial-version",
            "Metorial-Signature",
        ] {
            assert!(header_is_safe(h), "{h}");
        }
    }

    #[test]
    fn secrets_and_unknown_headers_are_masked() {
        for h in [
            "Authorization",
            "proxy-authorization",
            "Cookie",
            "set-cookie",
            "X-Api-Key",
            "x-access-token",
            "x-client-secret",
            "metorial-key-id",
            "x-custom",
            "",
        ] {
            assert!(!header_is_safe(h), "{h} must be masked");
            assert_eq!(header_value(h, "value", false), MASKED);
            assert_eq!(header_value(h, "value", true), "value");
        }
    }

    #[test]
    fn one_rule_per_header_in_every_rendering() {
        // The attempt view and headless ask `header_value`; `v`, `Y` and `-o json` copies go
        // through `masked`: the same header gets the same answer in both.
        let names = [
            "ratelimit-limit",
            "RateLimit-Remaining",
            "ratelimit-reset",
            "x-ratelimit-limit",
            "retry-after",
            "ratelimit-",
            "set-cookie",
            "x-receiver",
            "content-type",
            "metorial-signature",
            "authorization",
            "x-api-key",
        ];
        for n in names {
            let v = json!({"response_headers": {n: "1000"}, "request_headers": {n: "1000"}});
            let m = masked(&v);
            for k in ["response_headers", "request_headers"] {
                assert_eq!(m[k][n], header_value(n, "1000", false), "{n} in {k}");
            }
        }
        for n in [
            "ratelimit-limit",
            "RateLimit-Remaining",
            "x-ratelimit-reset",
            "retry-after",
        ] {
            assert!(header_is_safe(n), "{n}: counts and seconds");
        }
        assert!(!header_is_safe("ratelimit-"), "no name after the prefix");
        assert!(!header_is_safe("ratelimit-token"), "secret words still win");
    }

    #[test]
    fn an_own_receivers_headers_show_except_secret_named_ones() {
        let own = HeaderOrigin::OwnReceiver;
        assert_eq!(header_value_from(own, "x-receiver", "mine", false), "mine");
        assert_eq!(header_value_from(own, "X-Custom-Trace", "t1", false), "t1");
        for secret in ["set-cookie", "Authorization", "x-api-key", "x-session"] {
            assert_eq!(
                header_value_from(own, secret, "s", false),
                MASKED,
                "{secret}"
            );
            assert_eq!(header_value_from(own, secret, "s", true), "s");
        }
        let elsewhere = HeaderOrigin::Elsewhere;
        assert_eq!(
            header_value_from(elsewhere, "x-receiver", "v", false),
            MASKED
        );
    }

    #[test]
    fn urls_lose_passwords_and_secret_parameters_only() {
        for (raw, shown) in [
            (
                "http://alice:PASSWORD@host:8080/p?api_key=K1&x=1",
                "http://alice:••••••••@host:8080/p?api_key=••••••••&x=1",
            ),
            (
                "https://h.example/in?token=T&sig=S&X-Amz-Signature=A&page=2#access_token=F",
                "https://h.example/in?token=••••••••&sig=••••••••&X-Amz-Signature=••••••••&page=2#access_token=••••••••",
            ),
            (
                "https://h.example/a@b/c?keyword=rust&monkey=1",
                "https://h.example/a@b/c?keyword=rust&monkey=1",
            ),
            ("https://bob@h.example/", "https://bob@h.example/"),
            (
                "https://h.example/?password=&secret=s",
                "https://h.example/?password=&secret=••••••••",
            ),
            ("not a url", "not a url"),
        ] {
            assert_eq!(mask_url(raw), shown, "{raw}");
        }
        let v = json!({"object": "callback.destination", "webhook_destination": {
            "url": "http://u:PW_42@h/p?client_secret=CS_42"}});
        let text = masked(&v).to_string();
        assert!(!text.contains("PW_42") && !text.contains("CS_42"), "{text}");
    }

    #[test]
    fn json_masks_fields_hook_keys_and_recorded_headers() {
        let v = json!({
            "object": "callback",
            "url": "https://h.example/hooks/ABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
            "signing_secret": "whsec_0123456789abcdef",
            "token_type": "Bearer",
            "attempts": [{"response_headers": {
                "content-type": "text/plain",
                "set-cookie": "session=1",
                "x-unknown": "v",
                "authorization": "Bearer abc"
            }}]
        });
        let m = masked(&v);
        let text = m.to_string();
        for leak in ["KLMNOP", "0123456789", "session=1", "\"v\"", "Bearer abc"] {
            assert!(!text.contains(leak), "{leak} leaked: {text}");
        }
        assert_eq!(m["token_type"], "Bearer");
        assert_eq!(
            m["attempts"][0]["response_headers"]["content-type"],
            "text/plain"
        );
        assert_eq!(m["attempts"][0]["response_headers"]["x-unknown"], MASKED);
    }
}
