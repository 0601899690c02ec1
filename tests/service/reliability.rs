//! Hostile receivers and clients on loopback: a header flood is recorded within bounds, twenty
//! receivers that never answer do not starve a healthy one, a body that trickles past the
//! timeout is a failed attempt, slow headers are cut off, and odd requests get JSON errors.
use crate::common::service as support_service;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support_service::{TestService, eventually, start_with};
use switchboard::api::ListQuery;
use switchboard::api::model::{AttemptStatus, CallbacksInput, CreateDestination, Notification};
use switchboard::service::delivery::{
    MAX_RECORDED_HEADER_BYTES, MAX_RECORDED_HEADERS, TRUNCATED_HEADER,
};
use switchboard::service::{HttpLimits, Seed, ServiceConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

fn config(timeout: Duration) -> ServiceConfig {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    cfg.retry_base = Duration::from_secs(3600);
    cfg.delivery_timeout = timeout;
    cfg
}

/// A raw receiver: for each connection, reads the request head, then runs `answer`.
/// Every accepted connection is reported on the channel.
async fn raw_receiver<F, Fut>(answer: F) -> (String, mpsc::UnboundedReceiver<()>)
where
    F: Fn(TcpStream) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let _ = tx.send(());
            let mut buf = vec![0u8; 64 * 1024];
            let mut head = Vec::new();
            // Reads until the end of the request head (the body may follow; it is ignored).
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            tokio::spawn(answer(s));
        }
    });
    (format!("http://{addr}/in"), rx)
}

/// The first `webhook_manual` callback: its id and hook URL.
async fn manual_callback(t: &TestService) -> (String, String) {
    let cb = support_service::manual_callback(&t.client).await;
    (cb.id, cb.url.expect("hook url"))
}

async fn destination(t: &TestService, callback: &str, url: &str) -> String {
    t.client
        .create_destination(&CreateDestination {
            name: "Hostile".into(),
            description: None,
            url: url.into(),
            callbacks: CallbacksInput::selected(vec![callback.to_string()]),
        })
        .await
        .expect("destination")
        .id
}

/// Posts an event to the hook; returns the event id.
async fn fire(hook: &str) -> String {
    let r = support_service::http()
        .post(hook)
        .json(&json!({"type": "build.failed"}))
        .send()
        .await
        .expect("hook");
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.expect("json");
    body["event_id"].as_str().expect("event").to_string()
}

/// The notification of `dest` once it has at least one attempt.
async fn first_attempt(t: &TestService, dest: &str) -> Notification {
    eventually(Duration::from_secs(15), || async {
        let page = t
            .client
            .list_notifications(
                &ListQuery::default(),
                &switchboard::api::NotificationFilter {
                    destination_ids: vec![dest.to_string()],
                    ..Default::default()
                },
            )
            .await
            .ok()?;
        page.items.into_iter().find(|n| !n.attempts.is_empty())
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_header_flood_is_recorded_within_bounds() {
    let t = start_with(config(Duration::from_secs(5))).await;
    let (url, _seen) = raw_receiver(|mut s| async move {
        let mut reply = String::from("HTTP/1.1 500 Internal Server Error\r\n");
        let filler = "x".repeat(4000);
        for i in 0..90 {
            reply.push_str(&format!("x-flood-{i}: {filler}\r\n"));
        }
        reply.push_str("content-length: 2\r\nconnection: close\r\n\r\nno");
        let _ = s.write_all(reply.as_bytes()).await;
    })
    .await;
    let (cb, hook) = manual_callback(&t).await;
    let dest = destination(&t, &cb, &url).await;
    fire(&hook).await;
    let n = first_attempt(&t, &dest).await;
    let req = n.attempts[0].webhook_request.as_ref().expect("request");
    assert_eq!(req.response_status, 500);
    assert_eq!(n.attempts[0].status, AttemptStatus::Failed);
    let headers = &req.response_headers;
    assert!(headers.len() <= MAX_RECORDED_HEADERS, "{}", headers.len());
    let bytes: usize = headers
        .iter()
        .filter(|(k, _)| k.as_str() != TRUNCATED_HEADER)
        .map(|(k, v)| k.len() + v.len())
        .sum();
    assert!(bytes <= MAX_RECORDED_HEADER_BYTES, "{bytes}");
    assert!(
        headers.contains_key(TRUNCATED_HEADER),
        "the record says it was truncated"
    );
    // A 100-item page of such records stays small.
    let page = t.get("/callbacks-notifications?limit=100").await;
    assert!(page.body.to_string().len() < 8 * 1024 * 1024);
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_receivers_that_never_answer_do_not_starve_a_healthy_one() {
    // The delivery timeout is far longer than the wait below: a healthy delivery that queued
    // behind hanging ones would miss it.
    let t = start_with(config(Duration::from_secs(60))).await;
    let (cb, hook) = manual_callback(&t).await;
    let (hang_tx, mut hanging) = mpsc::unbounded_channel::<TcpStream>();
    let mut hang_seen = Vec::new();
    for _ in 0..20 {
        let tx = hang_tx.clone();
        let (url, seen) = raw_receiver(move |s| {
            let tx = tx.clone();
            async move {
                // Keeps the connection open without answering.
                let _ = tx.send(s);
            }
        })
        .await;
        destination(&t, &cb, &url).await;
        hang_seen.push(seen);
    }
    let (healthy_url, mut healthy) = raw_receiver(|mut s| async move {
        let _ = s
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")
            .await;
    })
    .await;
    // Several events so that every hanging destination has a backlog.
    for _ in 0..4 {
        fire(&hook).await;
    }
    let healthy_dest = destination(&t, &cb, &healthy_url).await;
    // Every hanging receiver is busy before the healthy destination gets its event.
    for seen in &mut hang_seen {
        tokio::time::timeout(Duration::from_secs(10), seen.recv())
            .await
            .expect("each hanging receiver is attempted")
            .expect("open");
    }
    let started = Instant::now();
    fire(&hook).await;
    tokio::time::timeout(Duration::from_secs(10), healthy.recv())
        .await
        .expect("the healthy receiver is attempted while twenty others hang")
        .expect("open");
    let n = first_attempt(&t, &healthy_dest).await;
    assert_eq!(n.attempts[0].status, AttemptStatus::Succeeded);
    eprintln!("healthy attempted after {:?}", started.elapsed());
    // Closing the hanging connections ends their attempts, so shutdown is quick.
    hanging.close();
    while hanging.recv().await.is_some() {}
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_trickles_past_the_timeout_is_a_failed_attempt() {
    let t = start_with(config(Duration::from_millis(800))).await;
    let (url, _seen) = raw_receiver(|mut s| async move {
        let _ = s
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 100000\r\n\r\n{\"partial\":")
            .await;
        // Never sends the rest; holds the connection until the client gives up.
        let mut buf = [0u8; 1024];
        while matches!(s.read(&mut buf).await, Ok(n) if n > 0) {}
    })
    .await;
    let (cb, hook) = manual_callback(&t).await;
    let dest = destination(&t, &cb, &url).await;
    fire(&hook).await;
    let n = first_attempt(&t, &dest).await;
    let a = &n.attempts[0];
    let req = a.webhook_request.as_ref().expect("request");
    assert_eq!(req.response_status, 200);
    assert_eq!(a.status, AttemptStatus::Failed, "not succeeded: {req:?}");
    assert!(req.request_error.is_some(), "the error is recorded");
    assert_ne!(
        n.status,
        switchboard::api::model::NotificationStatus::Succeeded
    );
    t.svc.shutdown().await;
}

/// Whether the server closes `s` (EOF or reset) while we keep dripping bytes, within `limit`.
async fn closed_while_dripping(mut s: TcpStream, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    let mut buf = [0u8; 4096];
    while Instant::now() < deadline {
        if s.write_all(b"x").await.is_err() {
            return true;
        }
        // The read doubles as the pacing of the drip: it waits for the server's answer.
        match tokio::time::timeout(Duration::from_millis(100), s.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {
                // A 408/400 answer is fine too; the connection must then end.
            }
            Err(_) => {}
        }
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_headers_are_cut_off_and_free_their_slot() {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.limits = HttpLimits {
        connections: 8,
        header_read: Duration::from_millis(500),
        ..HttpLimits::default()
    };
    let t = start_with(cfg).await;
    let addr = t.svc.base_url.trim_start_matches("http://").to_string();
    let mut drips = Vec::new();
    for _ in 0..8 {
        let mut s = TcpStream::connect(&addr).await.expect("connect");
        s.write_all(b"GET /organization/teams HTTP/1.1\r\nx-slow: ")
            .await
            .expect("write");
        drips.push(tokio::spawn(closed_while_dripping(
            s,
            Duration::from_secs(10),
        )));
    }
    for d in drips {
        assert!(d.await.expect("task"), "a dripping connection was closed");
    }
    // Every slot is free again: a normal request is served.
    let r = t.get("/organization/teams").await;
    assert_eq!(r.status, 200);
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn odd_requests_get_json_errors() {
    let t = start_with(ServiceConfig::ephemeral()).await;
    let long = format!("/organization/teams?x={}", "a".repeat(9000));
    let r = t.get(&long).await;
    assert_eq!(r.status, 414);
    assert_eq!(r.body["status"], 414, "{}", r.body);
    let r = support_service::http()
        .get(format!("{}/organization/teams", t.svc.base_url))
        .bearer_auth(t.svc.api_key.expose())
        .header("x-big", "b".repeat(40 * 1024))
        .send()
        .await
        .expect("request");
    assert_eq!(r.status(), 431);
    let body: Value = r.json().await.expect("json body");
    assert_eq!(body["status"], 431);
    let r = t.get("/callbacks/%FF%FE").await;
    assert!((400..500).contains(&r.status), "{}", r.status);
    assert_eq!(r.body["status"], r.status, "{}", r.body);
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_kept_alive_connection_is_closed() {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.limits = HttpLimits {
        idle: Duration::from_millis(300),
        ..HttpLimits::default()
    };
    let t = start_with(cfg).await;
    let addr = t.svc.base_url.trim_start_matches("http://").to_string();
    let mut s = TcpStream::connect(&addr).await.expect("connect");
    s.write_all(b"GET /openapi.json HTTP/1.1\r\nhost: localhost\r\n\r\n")
        .await
        .expect("write");
    // Reads the answer, then nothing more arrives until the server closes the connection.
    let mut buf = vec![0u8; 64 * 1024];
    let mut got = Vec::new();
    // Well under the 10 s header-read timeout, which would also end it.
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "the idle connection was closed");
    assert!(
        got.starts_with(b"HTTP/1.1 200"),
        "the request was answered first"
    );
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_body_that_drips_gets_a_json_408() {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.limits = HttpLimits {
        body_read: Duration::from_millis(300),
        ..HttpLimits::default()
    };
    let t = start_with(cfg).await;
    let addr = t.svc.base_url.trim_start_matches("http://").to_string();
    let mut s = TcpStream::connect(&addr).await.expect("connect");
    let head = format!(
        "POST /organization/teams HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer {}\r\n\
         content-type: application/json\r\ncontent-length: 100\r\n\r\n{{\"name\":",
        t.svc.api_key.expose()
    );
    s.write_all(head.as_bytes()).await.expect("write");
    // The rest of the body never comes; the answer must, well within the header timeout.
    let mut got = Vec::new();
    let mut buf = vec![0u8; 16 * 1024];
    let answered = tokio::time::timeout(Duration::from_secs(5), async {
        while !got.windows(4).any(|w| w == b"\r\n\r\n") || !got.ends_with(b"}") {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(answered.is_ok(), "answered in time");
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    let body = text.split("\r\n\r\n").nth(1).unwrap_or_default();
    let json: Value = serde_json::from_str(body).expect("a JSON error body");
    assert_eq!(json["status"], 408);
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_of_twenty_notifications_from_a_hostile_receiver_stays_under_two_mib() {
    let mut cfg = config(Duration::from_secs(5));
    // Twenty attempts each within a couple of seconds (backoff is base × 2^n, capped at 1,800).
    cfg.retry_base = Duration::from_micros(100);
    let t = start_with(cfg).await;
    // Fails every attempt with one header of 8 KiB, 60 headers of 250 characters that each take
    // two bytes once stored, and a 16 KiB body of control characters (six bytes each).
    let (url, _seen) = raw_receiver(|mut s| async move {
        let mut reply = String::from("HTTP/1.1 500 Internal Server Error\r\n");
        reply.push_str(&format!("set-cookie: {}\r\n", "c".repeat(8 * 1024)));
        let quoted = "\"\\".repeat(125);
        for i in 0..60 {
            reply.push_str(&format!("x-hostile-{i:02}: {quoted}\r\n"));
        }
        let body = "\u{1}".repeat(16 * 1024);
        reply.push_str(&format!(
            "content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        ));
        let _ = s.write_all(reply.as_bytes()).await;
    })
    .await;
    let (cb, hook) = manual_callback(&t).await;
    let dest = destination(&t, &cb, &url).await;
    for _ in 0..20 {
        fire(&hook).await;
    }
    let page = || async {
        support_service::http()
            .get(format!(
                "{}/callbacks-notifications?limit=20&destination_id={dest}",
                t.svc.base_url
            ))
            .bearer_auth(t.svc.api_key.expose())
            .send()
            .await
            .expect("page")
            .bytes()
            .await
            .expect("bytes")
    };
    // Until all twenty have their last attempt (index 19), counted in the raw page.
    let last = format!(
        "\"index\":{}",
        switchboard::service::delivery::MAX_ATTEMPTS - 1
    );
    let page = eventually(Duration::from_secs(120), || async {
        let page = page().await;
        let text = String::from_utf8_lossy(&page);
        (text.matches(&last).count() == 20).then_some(page)
    })
    .await;
    eprintln!(
        "a page of 20 notifications × 20 attempts: {} bytes",
        page.len()
    );
    assert!(page.len() < 2 * 1024 * 1024, "{} bytes", page.len());
    // Each record says what it left out: the newest attempt keeps its capped headers and body,
    // the older ones keep at least their markers.
    let page: Value = serde_json::from_slice(&page).expect("json");
    for n in page["items"].as_array().expect("items") {
        let attempts = n["attempts"].as_array().expect("attempts");
        let newest = &attempts.last().expect("an attempt")["webhook_request"];
        let headers = newest["response_headers"].as_object().expect("headers");
        assert!(headers.len() <= MAX_RECORDED_HEADERS);
        assert!(headers.contains_key(TRUNCATED_HEADER), "{headers:?}");
        assert!(
            headers.values().any(|v| v
                .as_str()
                .is_some_and(|v| v.ends_with(" bytes not recorded]"))),
            "a cut value says so: {headers:?}"
        );
        let body = newest["response_body"].as_str().expect("body");
        assert!(body.contains(" bytes not recorded]"), "{body}");
        for a in attempts {
            let r = &a["webhook_request"];
            assert!(
                r["response_headers"]
                    .as_object()
                    .is_some_and(|h| h.contains_key(TRUNCATED_HEADER))
            );
            assert!(
                r["response_body"]
                    .as_str()
                    .is_some_and(|b| b.contains("bytes not recorded]"))
            );
        }
    }
    t.svc.shutdown().await;
}
