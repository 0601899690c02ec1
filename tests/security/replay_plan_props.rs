//! Property: whatever body an attempt recorded (any Unicode, control characters, not JSON at all)
//! and whichever attempt is chosen, the replay's body is that recorded body byte for byte, and its
//! fresh signature verifies over exactly those bytes (checked with an HMAC written here).
use std::collections::BTreeMap;

use chrono::{TimeZone, Utc};
use hmac::{Hmac, KeyInit, Mac};
use proptest::prelude::*;
use sha2::Sha256;
use switchboard::api::Secret;
use switchboard::api::model::{
    Attempt, AttemptStatus, Notification, NotificationStatus, NotificationType, WebhookRequest,
};
use switchboard::api::replay::{Signing, plan};

fn attempt(index: i64, body: String) -> Attempt {
    let at = Utc
        .timestamp_opt(1_700_000_000 + index, 0)
        .single()
        .unwrap_or_default();
    let mut headers = BTreeMap::new();
    headers.insert("content-type".into(), "application/json".into());
    headers.insert("metorial-notification-id".into(), "cbn_p".into());
    Attempt {
        object: "callback.notification.attempt".into(),
        id: format!("cbna_{index}"),
        status: AttemptStatus::Failed,
        index,
        webhook_request: Some(WebhookRequest {
            object: "callback.notification.attempt.webhook_request".into(),
            id: format!("cbnwr_{index}"),
            url: "http://127.0.0.1:9/in".into(),
            request_method: "POST".into(),
            request_body: Some(body),
            request_headers: headers,
            response_headers: BTreeMap::new(),
            response_status: 500,
            response_body: None,
            request_error: None,
            duration: 1,
            created_at: at,
        }),
        created_at: at,
    }
}

fn hmac_hex(secret: &str, message: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("hmac key");
    mac.update(message);
    hex::encode(mac.finalize().into_bytes())
}

proptest! {
    #[test]
    fn a_replayed_body_is_the_recorded_one(
        bodies in prop::collection::vec(any::<String>(), 1..4),
        pick in any::<prop::sample::Index>(),
        t in 0i64..4_000_000_000,
    ) {
        let n = Notification {
            object: "callback.notification".into(),
            id: "cbn_p".into(),
            kind: NotificationType::WebhookHttp,
            status: NotificationStatus::Retrying,
            url: Some("http://127.0.0.1:9/in".into()),
            attempts: bodies
                .iter()
                .enumerate()
                .map(|(i, b)| attempt(i64::try_from(i).unwrap_or(0), b.clone()))
                .collect(),
            created_at: Utc::now(),
        };
        let i = pick.index(bodies.len());
        let target = url::Url::parse("http://localhost:3000/webhooks").expect("url");
        let signing = Signing { secret: Secret::new("clb_sec_prop"), host: "api.test".into() };
        let chosen = plan(
            &n,
            Some(i64::try_from(i).unwrap_or(0)),
            target.clone(),
            Some(signing.clone()),
            None,
        )
        .expect("plan");
        prop_assert_eq!(chosen.body.as_bytes(), bodies[i].as_bytes());
        let latest = plan(&n, None, target, Some(signing), None).expect("plan");
        prop_assert_eq!(latest.body.as_bytes(), bodies[bodies.len() - 1].as_bytes());

        let headers = chosen.headers_at(t);
        let sig = headers
            .iter()
            .find(|(k, _)| k == "metorial-signature")
            .map(|(_, v)| v.clone())
            .expect("signed");
        let mut message = format!("api.test.{t}.").into_bytes();
        message.extend_from_slice(bodies[i].as_bytes());
        prop_assert_eq!(sig, format!("i=api.test,t={t},v1={}", hmac_hex("clb_sec_prop", &message)));
    }
}
