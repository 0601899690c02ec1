//! Error rules of api.md §2–3 over real HTTP: auth, routes, order of checks, bodies, queries,
//! rate limits and the headers every reply carries.
use crate::common::service as support_service;

use std::time::Duration;

use reqwest::Method;
use serde_json::json;
use support_service::{demo, start_with};
use switchboard::service::ServiceConfig;

/// An empty world: enough for rules that need no data.
async fn bare() -> support_service::TestService {
    start_with(ServiceConfig::ephemeral()).await
}

#[tokio::test]
async fn auth_failures_have_their_messages() {
    let t = bare().await;
    let cases = [
        (None, "Missing Authorization header"),
        (Some("Basic abc"), "Malformed Authorization header"),
        (Some("Bearer"), "Malformed Authorization header"),
        (Some("Bearer wrong_key"), "Invalid API key"),
    ];
    for (header, message) in cases {
        let r = t.raw(Method::GET, "/callbacks", None, Some(header)).await;
        assert_eq!(r.status, 401, "{header:?}");
        assert_eq!(r.body["code"], "unauthorized");
        assert_eq!(r.body["message"], message);
    }
    let key = t.svc.api_key.expose().to_string();
    let r = t
        .raw(
            Method::GET,
            &format!("/callbacks?key={key}"),
            None,
            Some(None),
        )
        .await;
    assert_eq!(r.status, 200, "?key= is read too");
    t.svc.shutdown().await;
}

#[tokio::test]
async fn unknown_routes_are_404_endpoint_after_auth() {
    let t = bare().await;
    let r = t.get("/nothing/here").await;
    assert_eq!(
        (r.status, r.body["entity"].clone()),
        (404, json!("endpoint"))
    );
    let r = t.raw(Method::PUT, "/callbacks", None, None).await;
    assert_eq!(r.status, 404, "a wrong method is an unknown endpoint");
    let r = t.raw(Method::GET, "/nothing/here", None, Some(None)).await;
    assert_eq!(r.status, 401, "auth is checked first");
    t.svc.shutdown().await;
}

#[tokio::test]
async fn validation_comes_before_lookup() {
    let t = bare().await;
    let r = t
        .raw(
            Method::PATCH,
            "/callbacks-destinations/cld_missing",
            Some(r#"{"name":5}"#),
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.body["code"].clone()),
        (400, json!("invalid_data"))
    );
    assert_eq!(r.body["entity"], "body");
    let r = t
        .raw(
            Method::PATCH,
            "/callbacks-destinations/cld_missing",
            Some(r#"{"name":"ok"}"#),
            None,
        )
        .await;
    assert_eq!(r.status, 404);
    t.svc.shutdown().await;
}

#[tokio::test]
async fn bad_bodies_are_400_not_crashes() {
    let t = bare().await;
    let r = t
        .raw(Method::POST, "/organization/teams", Some("{not json"), None)
        .await;
    assert_eq!(
        (r.status, r.body["reason"].clone()),
        (400, json!("invalid_json_body"))
    );
    let r = t
        .raw(Method::POST, "/organization/teams", Some("[1,2]"), None)
        .await;
    assert_eq!(
        (r.status, r.body["code"].clone()),
        (400, json!("invalid_data"))
    );
    let huge = format!(r#"{{"name":"{}"}}"#, "a".repeat(1024 * 1024 + 10));
    let r = t
        .raw(Method::POST, "/organization/teams", Some(&huge), None)
        .await;
    assert_eq!(
        (r.status, r.body["code"].clone()),
        (400, json!("bad_request"))
    );
    let long = format!(r#"{{"name":"{}"}}"#, "a".repeat(100_001));
    let r = t
        .raw(Method::POST, "/organization/teams", Some(&long), None)
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body["errors"][0]["code"], "max_length");
    let http = support_service::http();
    let r = http
        .post(format!("{}/organization/teams", t.svc.base_url))
        .bearer_auth(t.svc.api_key.expose())
        .header("content-type", "text/plain")
        .body("name=x")
        .send()
        .await
        .expect("send");
    // api.md §6: a body that is not declared JSON is 415, so a web page cannot send one.
    assert_eq!(r.status(), 415);
    t.svc.shutdown().await;
}

#[tokio::test]
async fn list_query_rules() {
    let t = demo().await;
    for q in ["limit=0", "limit=101", "limit=abc", "order=up"] {
        let r = t.get(&format!("/organization/teams?{q}")).await;
        assert_eq!(r.status, 400, "{q}");
        assert_eq!(r.body["code"], "invalid_data", "{q}");
        assert_eq!(r.body["entity"], "query", "{q}");
    }
    for q in ["cursor=abc", "cursor=cur_%21%21"] {
        let r = t.get(&format!("/organization/teams?{q}")).await;
        assert_eq!(
            (r.status, r.body["message"].clone()),
            (400, json!("Invalid cursor format"))
        );
    }
    let r = t.get("/organization/teams").await;
    assert_eq!(
        r.body["items"].as_array().map(Vec::len),
        Some(20),
        "default limit"
    );
    assert_eq!(
        r.body["pagination"],
        json!({"has_more_before": false, "has_more_after": true})
    );
    let r = t.get("/organization/teams?after=tm_unknown").await;
    assert_eq!(r.body["items"], json!([]));
    assert_eq!(
        r.body["pagination"],
        json!({"has_more_before": false, "has_more_after": false})
    );
    let r = t.get("/organization/teams?limit=5&order=desc").await;
    let ids: Vec<String> = r.body["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["id"].as_str().unwrap_or("").to_string())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    sorted.reverse();
    assert_eq!(ids, sorted);
    // `after` beats `before` beats `cursor`.
    let first = ids[0].clone();
    let r = t
        .get(&format!(
            "/organization/teams?order=desc&limit=2&after={first}&before={first}&cursor=junk"
        ))
        .await;
    assert_eq!(r.body["items"][0]["id"], json!(ids[1]));
    t.svc.shutdown().await;
}

#[tokio::test]
async fn every_reply_carries_request_id_and_rate_limit_headers() {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.rate_limit = Some((3, Duration::from_secs(60)));
    let t = start_with(cfg).await;
    for path in ["/callbacks", "/nope", "/callbacks", "/callbacks"] {
        let r = t.get(path).await;
        for h in [
            "metorial-req-id",
            "ratelimit-limit",
            "ratelimit-remaining",
            "ratelimit-reset",
        ] {
            assert!(r.headers.contains_key(h), "{h} missing on {path}");
        }
        assert!(
            r.headers["metorial-req-id"]
                .to_str()
                .unwrap_or("")
                .starts_with("req_")
        );
    }
    let r = t.get("/callbacks").await;
    assert_eq!(r.status, 429);
    assert_eq!(r.body["code"], "rate_limit_exceeded");
    let wait: u64 = r.headers["retry-after"]
        .to_str()
        .unwrap_or("0")
        .parse()
        .unwrap_or(0);
    assert!((1..=60).contains(&wait), "Retry-After {wait}");
    assert_eq!(r.headers["ratelimit-remaining"], "0");
    let r = t.raw(Method::GET, "/callbacks", None, Some(None)).await;
    assert_eq!(r.status, 401, "auth comes before the rate limit");
    assert!(r.headers.contains_key("metorial-req-id"));
    t.svc.shutdown().await;
}
