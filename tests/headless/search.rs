//! `notifications search EXPR` as a process against the embedded service on 127.0.0.1 with a
//! seeded history of over 10,000 deliveries: it finds the one delivery whose body names a
//! notification on page 30, walking every page, and stops at its bound (`--max-pages`) with exit 3
//! and where to continue; a bad EXPR is exit 2 before any request.
use crate::common;

use std::path::Path;
use std::time::Duration;

use common::fake::FakeServer;
use common::service::{TestService, start_with};
use serde_json::Value;
use switchboard::api::model::Notification;
use switchboard::api::{ApiRequest, ListQuery, NotificationFilter, Order, Page};
use switchboard::service::ServiceConfig;

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// The binary against `base_url`, piped, with `home` as its home.
async fn search(base_url: &str, key: &str, home: &Path, args: &[&str]) -> Out {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("SWITCHBOARD_BASE_URL", base_url)
        .env("SWITCHBOARD_API_KEY", key)
        .args(["notifications", "search"])
        .args(args)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let out = tokio::time::timeout(Duration::from_mins(3), cmd.output())
        .await
        .expect("the search finishes")
        .expect("switchboard runs");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Every page of the list, newest first, as the search walks it.
async fn pages(t: &TestService) -> Vec<Vec<Notification>> {
    let mut out = Vec::new();
    let mut after = None;
    loop {
        let q = ListQuery {
            limit: Some(100),
            after: after.clone(),
            order: Some(Order::Desc),
            ..ListQuery::default()
        };
        let raw = t
            .client
            .send(&ApiRequest::list_notifications(
                &q,
                &NotificationFilter::default(),
            ))
            .await
            .expect("a page");
        let page: Page<Notification> = serde_json::from_str(&raw.body).expect("page");
        after = page.items.last().map(|n| n.id.clone());
        let more = page.pagination.has_more_after;
        out.push(page.items);
        if !more {
            return out;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_finds_a_match_on_page_30_and_stops_at_its_bound() {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.history = 3_900;
    let t = start_with(cfg).await;
    let key = t.svc.api_key.expose().to_string();
    let home = tempfile::tempdir().expect("home");
    let all = pages(&t).await;
    let total: usize = all.iter().map(Vec::len).sum();
    assert!(total >= 10_000, "{total} deliveries");
    let needle = all[29][50].id.clone();
    let expr = format!(r#".notificationId == "{needle}""#);

    // Every page is read (within the default budget of 200): the one match, exit 0.
    let found = search(&t.svc.base_url, &key, home.path(), &[&expr]).await;
    assert_eq!(found.code, 0, "{}", found.stderr);
    let lines: Vec<Value> = found
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("NDJSON"))
        .collect();
    assert_eq!(lines.len(), 1, "{}", found.stdout);
    assert_eq!(lines[0]["id"], needle.as_str());
    assert_eq!(lines[0]["object"], "callback.notification");
    assert!(
        found
            .stderr
            .contains(&format!("examined {total}, matched 1, back to ")),
        "{}",
        found.stderr
    );

    // A bound of 30 pages: the match is found on its last page, then the walk stops there.
    let bounded = search(
        &t.svc.base_url,
        &key,
        home.path(),
        &[&expr, "--max-pages", "30", "-o", "json"],
    )
    .await;
    assert_eq!(bounded.code, 3, "{}", bounded.stderr);
    assert!(bounded.stdout.contains(&needle), "{}", bounded.stdout);
    let last = all[29].last().map(|n| n.id.clone()).expect("page 30");
    assert!(
        bounded
            .stderr
            .contains("examined 3000, matched 1, back to ")
            && bounded.stderr.contains(&last),
        "stops after page 30, naming where to continue: {}",
        bounded.stderr
    );

    // 29 pages: not found, and said how far it looked.
    let short = search(
        &t.svc.base_url,
        &key,
        home.path(),
        &[&expr, "--max-pages", "29"],
    )
    .await;
    assert_eq!(short.code, 3, "{}", short.stderr);
    assert!(short.stdout.is_empty(), "{}", short.stdout);
    assert!(
        short.stderr.contains("examined 2900, matched 0"),
        "{}",
        short.stderr
    );
    t.svc.shutdown().await;
}

#[test]
fn a_bad_expression_is_a_usage_error_before_any_request() {
    let server = FakeServer::start();
    let home = tempfile::tempdir().expect("home");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    for bad in [
        ".notificationId ==",
        "$undefined_variable",
        "nosuchfilter(1)",
    ] {
        let out = rt.block_on(search(
            &server.base_url,
            common::fake::KEY,
            home.path(),
            &[bad, "--since", "1h"],
        ));
        assert_eq!(out.code, 2, "{bad}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{}", out.stdout);
    }
    assert!(
        server.requests().is_empty() && server.introspections().is_empty(),
        "no request was sent"
    );
}
