//! The client against a recording loopback server: error bodies, bounded retries and `429`
//! handling, and replies that are malformed, HTML, truncated or cut off.
use crate::common;

use std::time::{Duration, Instant};

use common::fake::{FakeServer, KEY, Reply, closed_port_url, fixture};
use proptest::prelude::*;
use switchboard::api::client::parse_error_body;
use switchboard::api::model::*;
use switchboard::api::{ApiError, Client, ClientOptions, Error, ListQuery, Secret};

fn options(base_url: &str) -> ClientOptions {
    ClientOptions {
        base_url: base_url.into(),
        api_key: Secret::new(KEY),
        connect_timeout: Duration::from_millis(500),
        request_timeout: Duration::from_secs(2),
        max_retries: 2,
        max_retry_wait: Duration::from_secs(2),
        backoff_base: Duration::from_millis(5),
        ..ClientOptions::default()
    }
}

fn client(server: &FakeServer) -> Client {
    Client::new(options(&server.base_url)).expect("client")
}

fn q() -> ListQuery {
    ListQuery::default()
}

fn team_body() -> CreateTeam {
    CreateTeam {
        name: "Ops".into(),
        description: None,
    }
}

#[tokio::test]
async fn each_error_fixture_maps_to_its_api_error() {
    let s = FakeServer::start();
    let c = client(&s);
    for (status, name) in [
        (400, "error-bad-request.json"),
        (400, "error-invalid-data.json"),
        (404, "error-not-found.json"),
        (401, "error-unauthorized.json"),
        (429, "error-rate-limited.json"),
    ] {
        // 429 is retried: give every try the same answer, with no wait.
        for _ in 0..3 {
            s.push(Reply::fixture(status, name).header("retry-after", "0"));
        }
        let err = c.get_destination("cld_1").await.expect_err(name);
        let want: ApiError = serde_json::from_str(&fixture(name)).expect("fixture decodes");
        assert_eq!(err.api(), Some(&want), "{name}");
        assert_eq!(err.status(), Some(status), "{name}");
        assert_eq!(err.exit_code(), 3, "{name}");
        let tries = s.take().len();
        assert_eq!(tries, if status == 429 { 3 } else { 1 }, "{name}");
        s.clear_script();
    }
    // The details a user needs survive: validation paths, entity and id.
    s.push(Reply::fixture(400, "error-invalid-data.json"));
    let err = c
        .create_import(&CreateImport::default())
        .await
        .expect_err("invalid");
    let api = err.api().expect("api error");
    assert_eq!(api.code, "invalid_data");
    let paths: Vec<String> = api.errors.iter().map(|e| e.path_string()).collect();
    assert_eq!(paths, ["server_deployment_id", "connection_id"]);
    s.push(Reply::fixture(404, "error-not-found.json"));
    let err = c.get_destination("cld_x").await.expect_err("not found");
    let api = err.api().expect("api error");
    assert_eq!(api.entity.as_deref(), Some("callback.destination"));
    assert_eq!(api.id_text().as_deref(), Some("cld_0mh50cocxa3nejPaTHLY7V"));
}

#[tokio::test]
async fn gets_retry_502_503_504_then_succeed() {
    let s = FakeServer::start();
    let c = client(&s);
    s.push(Reply::text(502, "<html>Bad Gateway</html>"));
    s.push(Reply::text(503, ""));
    let page = c.list_callbacks(&q()).await.expect("third try succeeds");
    assert_eq!(page.items.len(), 3);
    let reqs = s.take();
    assert_eq!(reqs.len(), 3);
    assert!(
        reqs.iter()
            .all(|r| r.method == "GET" && r.path == "/callbacks")
    );

    s.push(Reply::text(504, ""));
    c.get_callback("clb_1").await.expect("second try succeeds");
    assert_eq!(s.take().len(), 2);
}

#[tokio::test]
async fn gets_give_up_after_the_retry_budget() {
    let s = FakeServer::start();
    let c = client(&s);
    for _ in 0..10 {
        s.push(Reply::text(503, "upstream down"));
    }
    let err = c.list_teams(&q()).await.expect_err("keeps failing");
    assert_eq!(err.status(), Some(503));
    assert_eq!(
        err.api().map(|e| e.code.as_str()),
        Some("internal_server_error")
    );
    assert_eq!(s.take().len(), 3, "one try plus max_retries (2)");
    s.clear_script();
    c.list_teams(&q()).await.expect("fixture answers again");
}

#[tokio::test]
async fn writes_are_never_retried_on_5xx() {
    let s = FakeServer::start();
    let c = client(&s);
    for status in [502, 503, 504] {
        s.push(Reply::text(status, ""));
        let err = c.create_team(&team_body()).await.expect_err("fails");
        assert_eq!(err.status(), Some(status));
        s.push(Reply::text(status, ""));
        c.delete_destination("cld_1").await.expect_err("fails");
        s.push(Reply::text(status, ""));
        c.update_import("poti_1", &UpdateImport::default())
            .await
            .expect_err("fails");
        let reqs = s.take();
        let methods: Vec<&str> = reqs.iter().map(|r| r.method.as_str()).collect();
        assert_eq!(methods, ["POST", "DELETE", "PATCH"], "status {status}");
    }
}

#[tokio::test]
async fn rate_limit_waits_for_retry_after() {
    let s = FakeServer::start();
    let c = client(&s);
    s.push(Reply::fixture(429, "error-rate-limited.json").header("retry-after", "0.1"));
    let started = Instant::now();
    c.list_callbacks(&q())
        .await
        .expect("succeeds after the wait");
    assert!(
        started.elapsed() >= Duration::from_millis(100),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(s.take().len(), 2);

    // Without Retry-After, RateLimit-Reset says how long.
    s.push(Reply::fixture(429, "error-rate-limited.json").header("ratelimit-reset", "0.05"));
    let started = Instant::now();
    c.get_callback("clb_1")
        .await
        .expect("succeeds after the wait");
    assert!(started.elapsed() >= Duration::from_millis(50));
    assert_eq!(s.take().len(), 2);
}

#[tokio::test]
async fn rate_limit_is_bounded_in_count_and_time() {
    let s = FakeServer::start();
    let c = client(&s);
    for _ in 0..10 {
        s.push(Reply::fixture(429, "error-rate-limited.json").header("retry-after", "0"));
    }
    let err = c.list_callbacks(&q()).await.expect_err("always limited");
    assert_eq!(
        err.api().map(|e| e.code.as_str()),
        Some("rate_limit_exceeded")
    );
    assert_eq!(s.take().len(), 3, "bounded count");
    s.clear_script();

    // A wait beyond the budget is not waited for at all.
    s.push(Reply::fixture(429, "error-rate-limited.json").header("retry-after", "120"));
    let started = Instant::now();
    let err = c.list_callbacks(&q()).await.expect_err("too long to wait");
    assert_eq!(err.status(), Some(429));
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(s.take().len(), 1);
}

#[tokio::test]
async fn connection_refused_is_a_bounded_network_error() {
    let c = Client::new(options(&closed_port_url())).expect("client");
    let started = Instant::now();
    let err = c.list_callbacks(&q()).await.expect_err("nothing listens");
    assert!(matches!(err, Error::Network(_)), "{err:?}");
    assert_eq!(err.exit_code(), 4);
    assert!(started.elapsed() < Duration::from_secs(2));
    // Nothing reached a server, so even a write may be retried: it still fails cleanly.
    let err = c
        .create_team(&team_body())
        .await
        .expect_err("nothing listens");
    assert_eq!(err.exit_code(), 4);
}

#[tokio::test]
async fn a_slow_reply_times_out_and_is_not_retried() {
    let s = FakeServer::start();
    let c = Client::new(ClientOptions {
        request_timeout: Duration::from_millis(200),
        ..options(&s.base_url)
    })
    .expect("client");
    s.push(Reply::fixture(200, "callback.json").delayed(Duration::from_secs(3)));
    let err = c.get_callback("clb_1").await.expect_err("too slow");
    assert!(matches!(err, Error::Timeout(_)), "{err:?}");
    assert_eq!(err.exit_code(), 4);
    assert_eq!(s.take().len(), 1);
}

#[tokio::test]
async fn malformed_bodies_are_errors_not_panics() {
    let s = FakeServer::start();
    let c = client(&s);
    let cases: Vec<(Reply, &str)> = vec![
        (
            Reply::text(200, "<html><body>Welcome</body></html>"),
            "html 200",
        ),
        (
            Reply::text(200, r#"{"items": [{"id": "clb_1""#),
            "truncated json",
        ),
        (
            Reply::text(200, r#"{"items": 5, "pagination": {}}"#),
            "wrong types",
        ),
        (Reply::text(200, ""), "empty 200"),
        (Reply::text(200, "\u{0}\u{ffff}\u{1b}[2J"), "control bytes"),
        (Reply::text(200, "[1,2,3]"), "array"),
    ];
    for (reply, what) in cases {
        s.push(reply);
        let err = c.list_callbacks(&q()).await.expect_err(what);
        assert!(
            matches!(err, Error::Decode { status: 200, .. }),
            "{what}: {err:?}"
        );
        assert_eq!(err.exit_code(), 3, "{what}");
    }

    // Error statuses with bodies that are not the API's: a synthetic error with a snippet.
    s.push(Reply::text(
        500,
        "<html>\n  <h1>Internal   Error</h1>\n</html>",
    ));
    let err = c.get_callback("clb_1").await.expect_err("html 500");
    let api = err.api().expect("synthetic api error");
    assert_eq!(
        (api.status, api.code.as_str()),
        (500, "internal_server_error")
    );
    assert!(
        api.message.contains("<h1>Internal Error</h1>"),
        "{}",
        api.message
    );
    s.push(Reply::text(404, ""));
    let err = c.get_callback("clb_1").await.expect_err("empty 404");
    assert_eq!(err.api().map(|e| e.code.as_str()), Some("not_found"));
    s.push(Reply::text(400, r#"{"unexpected": true}"#));
    let err = c.get_callback("clb_1").await.expect_err("odd json 400");
    assert_eq!(err.api().map(|e| e.status), Some(400));

    // A reply cut off mid-body is a network error.
    s.push(Reply::aborted(200, r#"{"items": [{"id": "#));
    let err = c.list_callbacks(&q()).await.expect_err("cut off");
    assert!(matches!(err, Error::Network(_)), "{err:?}");
    assert_eq!(err.exit_code(), 4);

    // The client still works afterwards.
    c.list_callbacks(&q()).await.expect("healthy again");
}

proptest! {
    #[test]
    fn any_error_body_parses_without_panic(status in 0u16..1000, body in ".{0,300}") {
        let e = parse_error_body(status, &body);
        prop_assert!(!e.code.is_empty());
        if serde_json::from_str::<ApiError>(&body).is_err() {
            prop_assert_eq!(e.status, status);
            prop_assert!(e.message.chars().count() <= 260, "{}", e.message);
        }
    }
}

#[tokio::test]
async fn list_all_stops_when_a_server_cycles_through_cursors() {
    let s = FakeServer::start();
    let page = |id: &str| {
        Reply::text(
            200,
            format!(r#"{{"items":[{{"id":"{id}"}}],"pagination":{{"has_more_after":true}}}}"#),
        )
    };
    // A, B, A, B, …: never the same page twice in a row, never an end.
    for i in 0..40 {
        s.push(page(if i % 2 == 0 { "tm_a" } else { "tm_b" }));
    }
    let items: Vec<serde_json::Value> =
        switchboard::api::list_all(&client(&s), switchboard::api::ApiRequest::list_teams)
            .await
            .expect("list");
    let asked = s.take().len();
    assert_eq!(asked, 3, "stops at the first cursor seen again");
    assert_eq!(items.len(), 3);
}

/// A newer deployment (dashboard and magnetar only): the instance paths answer 404 `endpoint`,
/// which the client turns into one sentence naming the versions served; organization paths
/// still work.
#[tokio::test]
async fn a_server_without_pulsar_says_so_instead_of_not_found() {
    let s = FakeServer::start();
    s.serve_versions(Some(common::fake::NEWER));
    let c = client(&s);
    let endpoint = || Reply::fixture(404, "error-endpoint-not-found.json");
    s.push(endpoint());
    let err = c.list_callbacks(&q()).await.expect_err("no callbacks here");
    let Error::UnsupportedVersion(served) = &err else {
        panic!("expected UnsupportedVersion, got {err:?}");
    };
    assert_eq!(served.versions.len(), 2);
    let text = err.to_string();
    assert_eq!(
        text,
        "This server does not serve API version pulsar (2025-01-01), which Switchboard speaks; \
         it serves mt_2025_01_01_dashboard (current) and mt_2026_01_01_magnetar."
    );
    assert_eq!(err.exit_code(), 3);
    // Nothing listed for pulsar: the contract's default is sent, and teams still answer.
    assert_eq!(
        s.take_one().header("metorial-version"),
        Some("2025-01-01-pulsar")
    );
    assert!(c.list_teams(&q()).await.is_ok());
    // A missing item is still a missing item, not a version problem.
    s.push(Reply::fixture(404, "error-not-found.json"));
    let err = c.get_team("tm_gone").await.expect_err("gone");
    assert_eq!(err.api().map(|a| a.code.as_str()), Some("not_found"));
    assert_eq!(s.introspections().len(), 1);

    // On a pulsar-era deployment a 404 `endpoint` stays what it is.
    let s = FakeServer::start();
    let c = client(&s);
    s.push(endpoint());
    let err = c.list_callbacks(&q()).await.expect_err("404");
    assert_eq!(
        err.api().and_then(|a| a.entity.as_deref()),
        Some("endpoint")
    );
}

/// A versions list that fails (5xx) is not remembered: the call goes on with the default
/// version and the next call asks again. One that is garbage counts as not listed.
#[tokio::test]
async fn a_failing_or_garbage_versions_list_never_stops_a_call() {
    let s = FakeServer::start();
    s.serve_versions(Some("error-bad-request.json"));
    let c = client(&s);
    c.list_callbacks(&q())
        .await
        .expect("garbage list: not listed");
    assert_eq!(
        c.versions().await.expect("remembered"),
        switchboard::api::versions::Discovery::Unlisted
    );

    // A 5xx from the versions path, then the newer deployment's list.
    let s = FakeServer::start();
    s.serve_versions(Some(common::fake::NEWER));
    let c = client(&s);
    s.push_versions(Reply::text(503, "down"));
    c.list_teams(&q()).await.expect("the call itself succeeds");
    s.push(Reply::fixture(404, "error-endpoint-not-found.json"));
    let err = c.list_callbacks(&q()).await.expect_err("asked again");
    assert!(matches!(err, Error::UnsupportedVersion(_)), "{err:?}");
    assert_eq!(s.introspections().len(), 2);
}
