//! `callback.notification`: one delivery to a destination, with its attempts (read-only).
use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::open_enum;

open_enum!(
    /// Kind of notification.
    NotificationType { WebhookHttp => "webhook_http" }
);

open_enum!(
    /// Delivery state.
    NotificationStatus {
        Pending => "pending",
        Succeeded => "succeeded",
        Retrying => "retrying",
        Failed => "failed",
    }
);

open_enum!(
    /// Outcome of one attempt.
    AttemptStatus { Succeeded => "succeeded", Failed => "failed" }
);

/// `callback.notification`. It holds no event, callback or destination id: those are in the body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Notification {
    /// Always `callback.notification`.
    #[serde(default = "notification_object")]
    pub object: String,
    /// `cbn_…`.
    pub id: String,
    /// Kind of notification.
    #[serde(rename = "type")]
    pub kind: NotificationType,
    /// Delivery state.
    pub status: NotificationStatus,
    /// Target URL, nullable.
    pub url: Option<String>,
    /// Attempts by index.
    #[serde(default)]
    pub attempts: Vec<Attempt>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
}

fn notification_object() -> String {
    "callback.notification".into()
}

impl Notification {
    /// The most recent attempt, if any.
    pub fn last_attempt(&self) -> Option<&Attempt> {
        self.attempts.iter().max_by_key(|a| a.index)
    }

    /// The event type read from the delivered body (`type` of the first attempt's request body).
    pub fn event_type(&self) -> Option<String> {
        self.attempts
            .iter()
            .filter_map(|a| a.webhook_request.as_ref())
            .find_map(|r| r.body_field("type"))
    }

    /// A string field of the delivered body (e.g. `eventId`, `callbackId`).
    pub fn body_field(&self, key: &str) -> Option<String> {
        self.attempts
            .iter()
            .filter_map(|a| a.webhook_request.as_ref())
            .find_map(|r| r.body_field(key))
    }
}

/// `callback.notification.attempt`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Attempt {
    /// Always `callback.notification.attempt`.
    #[serde(default = "attempt_object")]
    pub object: String,
    /// `cbna_…`.
    pub id: String,
    /// Outcome.
    pub status: AttemptStatus,
    /// From 0.
    pub index: i64,
    /// The recorded HTTP exchange; null when there was no url.
    pub webhook_request: Option<WebhookRequest>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
}

fn attempt_object() -> String {
    "callback.notification.attempt".into()
}

impl Attempt {
    /// The attempt's number as shown to people: counted from 1 (the wire `index` counts from 0).
    #[must_use]
    pub fn number(&self) -> i64 {
        self.index.saturating_add(1)
    }
}

/// `callback.notification.attempt.webhook_request`: the exact request sent and what came back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WebhookRequest {
    /// Always `callback.notification.attempt.webhook_request`.
    #[serde(default = "request_object")]
    pub object: String,
    /// Request id.
    pub id: String,
    /// Target URL.
    pub url: String,
    /// Usually `POST`.
    pub request_method: String,
    /// The exact JSON sent, as a string.
    #[serde(default)]
    pub request_body: Option<String>,
    /// Headers sent.
    #[serde(default)]
    pub request_headers: BTreeMap<String, String>,
    /// Headers received.
    #[serde(default)]
    pub response_headers: BTreeMap<String, String>,
    /// HTTP status; `-1` when no response came.
    pub response_status: i64,
    /// Body received, nullable.
    #[serde(default)]
    pub response_body: Option<String>,
    /// Transport error when there was no response.
    #[serde(default)]
    pub request_error: Option<String>,
    /// Milliseconds.
    pub duration: i64,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
}

fn request_object() -> String {
    "callback.notification.attempt.webhook_request".into()
}

impl WebhookRequest {
    /// A `POST` of `body` to `url` with `headers`, made at `at`, before any answer (status
    /// `-1`, nothing received, no error yet): the recorders fill in what came back.
    pub fn post<K: ToString>(
        id: String,
        url: &str,
        body: String,
        headers: impl IntoIterator<Item = (K, String)>,
        at: DateTime<Utc>,
    ) -> Self {
        Self {
            object: request_object(),
            id,
            url: url.into(),
            request_method: "POST".into(),
            request_body: Some(body),
            request_headers: headers
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            response_headers: BTreeMap::new(),
            response_status: -1,
            response_body: None,
            request_error: None,
            duration: 0,
            created_at: at,
        }
    }

    /// A string field at the top level of the request body, when it is JSON.
    pub fn body_field(&self, key: &str) -> Option<String> {
        top_level_str(self.request_body.as_deref()?, key)
    }

    /// Whether a response arrived.
    pub fn has_response(&self) -> bool {
        self.response_status >= 0
    }
}

/// The string at `key` of a JSON object, `None` when `body` is not one or `key` is not a string
/// there (a repeated key: its last value, as in the parsed document). Only that value is built:
/// the rest is skipped, so a list reading each row's event type does not build every body.
fn top_level_str(body: &str, key: &str) -> Option<String> {
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
    use std::fmt;

    /// Whether an object key is `key`, without allocating it.
    struct IsKey<'k>(&'k str);
    impl<'de> DeserializeSeed<'de> for IsKey<'_> {
        type Value = bool;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
            d.deserialize_str(self)
        }
    }
    impl Visitor<'_> for IsKey<'_> {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object key")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<bool, E> {
            Ok(v == self.0)
        }
    }

    /// The object's string at the key.
    struct Find<'k>(&'k str);
    impl<'de> Visitor<'de> for Find<'_> {
        type Value = Option<String>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            while let Some(is_key) = map.next_key_seed(IsKey(self.0))? {
                if is_key {
                    found = map
                        .next_value::<serde_json::Value>()?
                        .as_str()
                        .map(str::to_string);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }

    let mut de = serde_json::Deserializer::from_str(body);
    let found = de.deserialize_map(Find(key)).ok()?;
    de.end().ok()?;
    found
}

#[cfg(test)]
mod tests {
    use super::top_level_str;

    /// What the field read by parsing the whole document gives.
    fn parsed(body: &str, key: &str) -> Option<String> {
        let v: serde_json::Value = serde_json::from_str(body).ok()?;
        v.get(key)?.as_str().map(str::to_string)
    }

    #[test]
    fn reads_what_the_parsed_document_holds() {
        for body in [
            r#"{"eventId":"cbe_1","type":"issues.opened","payload":{"type":"inner","a":[1,{"b":null}]}}"#,
            r#"{"payload":{"type":"inner"}}"#,
            r#"{"type":1}"#,
            r#"{"type":"first","type":"last"}"#,
            r#"{"type":"x","type":2}"#,
            r#"{"ty\u0070e":"escaped key","other":"o"}"#,
            r#"{"type":"line\nbreak \u00e9"}"#,
            r#"  {"type" : "spaced"}  "#,
            r#"["type","x"]"#,
            r#""type""#,
            r#"{"type":"x"} trailing"#,
            r#"{"type":"x""#,
            r#"{"type":"x",}"#,
            "",
            "not json",
        ] {
            assert_eq!(top_level_str(body, "type"), parsed(body, "type"), "{body}");
        }
    }

    #[test]
    fn a_deeply_nested_sibling_is_skipped_without_recursion() {
        let deep = format!(
            r#"{{"a":{}{},"type":"x"}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert_eq!(top_level_str(&deep, "type").as_deref(), Some("x"));
    }
}
