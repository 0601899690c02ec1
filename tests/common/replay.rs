//! A replay rig shared by the replay tests: a loopback receiver that records what it got (its
//! paths answer 200, 500 with a cookie and an escape sequence, a flood of headers and body, or
//! never), a receiver whose 2xx answer never arrives whole, a world with one recorded delivery of
//! a `webhook_manual` callback, and a signature check written without the library.
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::post;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use switchboard::api::model::{CallbackType, CallbacksInput, CreateDestination, Notification};
use switchboard::api::{ListQuery, NotificationFilter};
use switchboard::service::{Seed, ServiceConfig};

use super::service::{TestService, eventually, http, start_with};

/// A request the receiver got: its path, headers and the body's exact bytes.
#[derive(Clone, Debug)]
pub struct Got {
    pub path: String,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

pub type Log = Arc<Mutex<Vec<Got>>>;

/// `/ok…` answers 200, `/fail` 500 with a cookie, an `x-receiver` header and an escape sequence, `/big` 200 with 80
/// headers and 100 KiB, `/hang` never answers.
pub async fn receive(
    State(log): State<Log>,
    Path(path): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> axum::response::Response {
    log.lock().expect("log").push(Got {
        path: path.clone(),
        headers,
        body: body.to_vec(),
    });
    match path.as_str() {
        "fail" => (
            StatusCode::INTERNAL_SERVER_ERROR,
            [
                ("set-cookie", "session=RECEIVER_SECRET_42"),
                ("x-receiver", "rx-own-1"),
            ],
            "boom \u{1b}]0;PWNED\u{7} trace",
        )
            .into_response(),
        "big" => {
            let mut r = "x".repeat(100 * 1024).into_response();
            for i in 0..80 {
                r.headers_mut().insert(
                    axum::http::HeaderName::try_from(format!("x-h{i}")).expect("name"),
                    axum::http::HeaderValue::from_static("v"),
                );
            }
            r
        }
        "hang" => {
            std::future::pending::<()>().await;
            StatusCode::OK.into_response()
        }
        _ => (StatusCode::OK, "thanks").into_response(),
    }
}

/// A receiver on 127.0.0.1:0 whose every answer is 200 headers promising 100 bytes, 7 of them,
/// then the connection closed: a 2xx whose body never arrives whole. Written by hand, as a
/// well-behaved HTTP server would not send it. Returns its URL; what it got goes in `log`.
pub async fn short_receiver(log: Log) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let log = log.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                // The whole request first, so that the client is not cut off while sending.
                loop {
                    match s.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
                        continue;
                    };
                    let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
                    let len = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    if buf.len() >= end + 4 + len {
                        log.lock().expect("log").push(Got {
                            path: "short".into(),
                            headers: HeaderMap::new(),
                            body: buf[end + 4..end + 4 + len].to_vec(),
                        });
                        break;
                    }
                }
                let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial";
                if s.write_all(answer).await.is_ok() {
                    let _ = s.shutdown().await;
                }
            });
        }
    });
    format!("http://{addr}/short")
}

/// A receiver on 127.0.0.1:0: its base URL and its log.
pub async fn receiver() -> (String, Log) {
    let log: Log = Arc::default();
    let app = Router::new()
        .route("/{path}", post(receive))
        .with_state(log.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), log)
}

/// A service, a destination delivering to `<rx>/ok`, and a notification of one event once its
/// first attempt is recorded; with the destination's id and secret.
pub struct World {
    pub t: TestService,
    pub n: Notification,
    pub dest: String,
    pub secret: String,
    pub callback: String,
}

pub async fn world(rx: &str) -> World {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    let t = start_with(cfg).await;
    let cb = super::service::manual_callback(&t.client).await;
    let d = t
        .client
        .create_destination(&CreateDestination {
            name: "Receiver under repair".into(),
            description: None,
            url: format!("{rx}/ok"),
            callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
        })
        .await
        .expect("destination");
    let secret = d.webhook_destination.expect("webhook").signing_secret;
    let fired = http()
        .post(cb.url.expect("hook url"))
        .json(&json!({"type": "build.failed", "build": 42, "note": "ünïcode ✓"}))
        .send()
        .await
        .expect("hook");
    assert_eq!(fired.status(), 200);
    let event = fired.json::<Value>().await.expect("json")["event_id"]
        .as_str()
        .expect("event id")
        .to_string();
    let filter = NotificationFilter {
        event_ids: vec![event],
        destination_ids: vec![d.id.clone()],
        ..Default::default()
    };
    let id = t
        .client
        .list_notifications(&ListQuery::default(), &filter)
        .await
        .expect("notifications")
        .items
        .first()
        .expect("one notification")
        .id
        .clone();
    let n = eventually(Duration::from_secs(10), || async {
        let n = t.client.get_notification(&id).await.ok()?;
        (!n.attempts.is_empty()).then_some(n)
    })
    .await;
    World {
        t,
        n,
        dest: d.id,
        secret,
        callback: cb.id,
    }
}

/// What the receiver got on `path`.
pub fn got(log: &Log, path: &str) -> Vec<Got> {
    log.lock()
        .expect("log")
        .iter()
        .filter(|g| g.path == path)
        .cloned()
        .collect()
}

pub fn hmac_hex(secret: &str, message: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("hmac key");
    mac.update(message);
    hex::encode(mac.finalize().into_bytes())
}

/// Checks `Metorial-Signature` as a receiver would, without the library: returns `t`.
pub fn verify_independently(secret: &str, headers: &HeaderMap, body: &[u8]) -> i64 {
    let sig = headers
        .get("metorial-signature")
        .expect("a signature header")
        .to_str()
        .expect("ascii");
    let part = |k: &str| {
        sig.split(',')
            .find_map(|p| p.strip_prefix(&format!("{k}=")))
            .unwrap_or_else(|| panic!("{k}= in {sig}"))
            .to_string()
    };
    let (host, t, v1) = (part("i"), part("t"), part("v1"));
    let mut message = format!("{host}.{t}.").into_bytes();
    message.extend_from_slice(body);
    assert_eq!(
        hmac_hex(secret, &message),
        v1,
        "the signature verifies with the secret"
    );
    t.parse().expect("t is a number")
}
