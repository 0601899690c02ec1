//! The one list of routes against what is served, documented and introspected: a route served
//! without its document entry, or documented without being served, fails here.
use std::collections::BTreeSet;

use serde_json::Value;

use crate::service::app::is_public;
use crate::service::openapi::{document, routes};
use crate::service::route::{Shown, method_name};
use crate::service::{ServiceConfig, start};

/// Every `(METHOD, path)` under one of the document's path maps.
fn listed(doc: &Value, key: &str) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (path, item) in doc[key].as_object().into_iter().flatten() {
        for method in item.as_object().into_iter().flatten().map(|(m, _)| m) {
            out.insert((method.to_ascii_uppercase(), path.clone()));
        }
    }
    out
}

/// Every `(METHOD, path)` of the routes shown this way.
fn declared(shown: &[Shown]) -> BTreeSet<(String, String)> {
    routes()
        .iter()
        .filter(|r| shown.contains(&r.shown))
        .flat_map(|r| {
            r.methods
                .iter()
                .map(|m| (method_name(m).to_string(), r.path.clone()))
        })
        .collect()
}

#[test]
fn every_route_is_documented_but_introspection_and_every_documented_operation_is_a_route() {
    let all = routes();
    let pairs: Vec<_> = all
        .iter()
        .flat_map(|r| r.methods.iter().map(|m| (method_name(m), r.path.as_str())))
        .collect();
    let unique: BTreeSet<_> = pairs.iter().collect();
    assert_eq!(
        unique.len(),
        pairs.len(),
        "a route is declared twice: {pairs:?}"
    );

    let doc = document();
    assert_eq!(
        listed(doc, "paths"),
        declared(&[Shown::Api, Shown::Meta]),
        "the document's paths and the API's routes differ"
    );
    assert_eq!(
        listed(doc, "x-internal-paths"),
        declared(&[Shown::Internal]),
        "the document's internal paths and the internal routes differ"
    );
    for r in &all {
        // Only the platform's introspection is served without a document entry.
        assert_eq!(
            r.doc.is_none(),
            r.shown == Shown::Introspection,
            "{}",
            r.path
        );
        if r.shown == Shown::Introspection {
            assert!(r.path.starts_with("/metorial/introspect/"), "{}", r.path);
        }
        // The frame asks a key of exactly the API's routes.
        assert_eq!(is_public(&r.path), r.shown != Shown::Api, "{}", r.path);
    }
    assert_eq!(
        declared(&[Shown::Meta]),
        BTreeSet::from([("GET".to_string(), "/openapi.json".to_string())])
    );
}

#[tokio::test]
async fn the_service_answers_every_declared_route_and_introspection_lists_the_api_ones() {
    let svc = start(ServiceConfig::ephemeral()).await.expect("service");
    let http = reqwest::Client::new();
    for r in routes() {
        let concrete: String = r
            .path
            .split('/')
            .map(|s| if s.starts_with('{') { "x" } else { s })
            .collect::<Vec<_>>()
            .join("/");
        for m in &r.methods {
            let method = reqwest::Method::from_bytes(method_name(m).as_bytes()).expect("method");
            let reply = http
                .request(method, format!("{}{concrete}", svc.base_url))
                .bearer_auth(svc.api_key.expose())
                .json(&serde_json::json!({}))
                .send()
                .await
                .expect("request");
            let status = reply.status().as_u16();
            let body: Value = reply.json().await.unwrap_or(Value::Null);
            // The router's fallback answers 404 `endpoint` with the whole path as id.
            let unrouted = body["entity"] == "endpoint" && body["id"] == concrete.as_str();
            assert!(
                status != 405 && !unrouted,
                "{} {} is declared but not served: {status} {body}",
                method_name(m),
                r.path
            );
        }
    }

    let api: Vec<(String, String)> = routes()
        .iter()
        .filter(|r| r.shown == Shown::Api)
        .flat_map(|r| {
            r.methods
                .iter()
                .map(|m| (method_name(m).to_string(), r.path.clone()))
        })
        .collect();
    for (version, expected) in [
        ("mt_2025_01_01_pulsar", api.clone()),
        (
            "mt_2025_01_01_dashboard",
            api.iter()
                .filter(|(_, p)| p.starts_with("/organization/"))
                .cloned()
                .collect(),
        ),
    ] {
        let body: Value = http
            .get(format!(
                "{}/metorial/introspect/endpoints?version={version}",
                svc.base_url
            ))
            .send()
            .await
            .expect("introspection")
            .json()
            .await
            .expect("json");
        let got: Vec<(String, String)> = body["endpoints"]
            .as_array()
            .expect("endpoints")
            .iter()
            .map(|e| {
                (
                    e["method"].as_str().unwrap_or_default().to_string(),
                    e["path"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        assert_eq!(got, expected, "{version}");
    }
    svc.shutdown().await;
}
