//! The client against a recording loopback server: the exact wire form (method, path, query,
//! body, headers) of every operation and every Union filter form.
use crate::common;

use std::time::Duration;

use common::fake::{FakeServer, KEY, Recorded};
use serde_json::{Value, json};
use switchboard::api::model::*;
use switchboard::api::{Client, ClientOptions, ListQuery, NotificationFilter, Order, Secret};

fn client(server: &FakeServer) -> Client {
    Client::new(ClientOptions {
        base_url: server.base_url.clone(),
        api_key: Secret::new(KEY),
        connect_timeout: Duration::from_secs(2),
        request_timeout: Duration::from_secs(5),
        max_retries: 0,
        ..ClientOptions::default()
    })
    .expect("client")
}

/// Asserts method, path, raw query and JSON body of the only request since the last check.
fn expect(server: &FakeServer, method: &str, path: &str, query: Option<&str>, body: Option<Value>) {
    let r: Recorded = server.take_one();
    assert_eq!(r.method, method, "{path}");
    assert_eq!(r.path, path);
    assert_eq!(r.query.as_deref(), query, "{method} {path}");
    match body {
        Some(b) => {
            assert_eq!(r.header("content-type"), Some("application/json"), "{path}");
            assert_eq!(r.json(), b, "{method} {path}");
        }
        None => assert!(r.body.is_empty(), "{method} {path} sent a body"),
    }
}

#[tokio::test]
async fn every_operation_sends_its_exact_request() {
    let s = FakeServer::start();
    let c = client(&s);
    let q = ListQuery {
        limit: Some(5),
        after: Some("x_1".into()),
        before: None,
        cursor: None,
        order: Some(Order::Desc),
    };
    let paged = Some("limit=5&after=x_1&order=desc");

    // Teams (8).
    let page = c.list_teams(&q).await.expect("list teams");
    assert_eq!(page.items.len(), 2);
    expect(&s, "GET", "/organization/teams", paged, None);
    c.get_team("platform").await.expect("get team");
    expect(&s, "GET", "/organization/teams/platform", None, None);
    let create = CreateTeam {
        name: "Ops".into(),
        description: None,
    };
    c.create_team(&create).await.expect("create team");
    expect(
        &s,
        "POST",
        "/organization/teams",
        None,
        Some(json!({"name": "Ops"})),
    );
    let update = UpdateTeam {
        name: Some("Ops 2".into()),
        description: Some("on call".into()),
    };
    c.update_team("tm_1", &update).await.expect("update team");
    expect(
        &s,
        "POST",
        "/organization/teams/tm_1",
        None,
        Some(json!({"name": "Ops 2", "description": "on call"})),
    );
    let set = SetTeamProject {
        project_id: "core".into(),
        team_role_ids: vec!["viewer".into(), "tmr_2".into()],
    };
    c.set_team_project("tm_1", &set).await.expect("set project");
    expect(
        &s,
        "POST",
        "/organization/teams/tm_1/projects",
        None,
        Some(json!({"project_id": "core", "team_role_ids": ["viewer", "tmr_2"]})),
    );
    c.remove_team_project("tm_1", "prj_1")
        .await
        .expect("remove project");
    expect(
        &s,
        "DELETE",
        "/organization/teams/tm_1/projects/prj_1",
        None,
        None,
    );
    c.add_team_member("tm_1", "oac_1")
        .await
        .expect("add member");
    expect(
        &s,
        "POST",
        "/organization/teams/tm_1/members",
        None,
        Some(json!({"actor_id": "oac_1"})),
    );
    c.remove_team_member("tm_1", "oac_1")
        .await
        .expect("remove member");
    expect(
        &s,
        "DELETE",
        "/organization/teams/tm_1/members/oac_1",
        None,
        None,
    );

    // Lookups (3).
    c.list_members(&ListQuery::default())
        .await
        .expect("members");
    expect(&s, "GET", "/organization/members", None, None);
    c.list_projects(&q).await.expect("projects");
    expect(&s, "GET", "/organization/projects", paged, None);
    c.list_team_roles(&q).await.expect("team roles");
    expect(&s, "GET", "/organization/team-roles", paged, None);

    // Imports (4).
    c.list_imports(&q).await.expect("imports");
    expect(&s, "GET", "/provider-oauth/token-imports", paged, None);
    c.get_import("poti_1").await.expect("get import");
    expect(
        &s,
        "GET",
        "/provider-oauth/token-imports/poti_1",
        None,
        None,
    );
    let mut metadata = serde_json::Map::new();
    metadata.insert("team".into(), json!("core"));
    let create = CreateImport {
        access_token: "tok_secret".into(),
        server_deployment_id: Some("svd_1".into()),
        metadata: Some(metadata),
        expires_at: Some("2026-01-01T00:00:00.000Z".into()),
        scope: Some("read".into()),
        ..CreateImport::default()
    };
    let created = c.create_import(&create).await.expect("create import");
    assert!(created.id_token.is_some());
    expect(
        &s,
        "POST",
        "/provider-oauth/token-imports",
        None,
        Some(json!({
            "access_token": "tok_secret",
            "server_deployment_id": "svd_1",
            "metadata": {"team": "core"},
            "expires_at": "2026-01-01T00:00:00.000Z",
            "scope": "read",
        })),
    );
    let update = UpdateImport {
        note: Some("rotated".into()),
        token_type: Some("Bearer".into()),
        ..UpdateImport::default()
    };
    c.update_import("poti_1", &update)
        .await
        .expect("update import");
    expect(
        &s,
        "PATCH",
        "/provider-oauth/token-imports/poti_1",
        None,
        Some(json!({"note": "rotated", "token_type": "Bearer"})),
    );

    // Callbacks (2).
    c.list_callbacks(&q).await.expect("callbacks");
    expect(&s, "GET", "/callbacks", paged, None);
    c.get_callback("clb_1").await.expect("callback");
    expect(&s, "GET", "/callbacks/clb_1", None, None);

    // Destinations (5).
    c.list_destinations(&q, &[]).await.expect("destinations");
    expect(&s, "GET", "/callbacks-destinations", paged, None);
    c.get_destination("cld_1").await.expect("destination");
    expect(&s, "GET", "/callbacks-destinations/cld_1", None, None);
    let create = CreateDestination {
        name: "Hook".into(),
        description: None,
        url: "https://example.com/hook".into(),
        callbacks: CallbacksInput::selected(vec!["clb_1".into(), "clb_2".into()]),
    };
    c.create_destination(&create)
        .await
        .expect("create destination");
    expect(
        &s,
        "POST",
        "/callbacks-destinations",
        None,
        Some(json!({
            "name": "Hook",
            "url": "https://example.com/hook",
            "callbacks": {"type": "selected", "callback_id": ["clb_1", "clb_2"]},
        })),
    );
    let all = CreateDestination {
        callbacks: CallbacksInput::all(),
        ..create
    };
    c.create_destination(&all)
        .await
        .expect("create destination");
    assert_eq!(s.take_one().json()["callbacks"], json!({"type": "all"}));
    let clear = UpdateDestination {
        name: None,
        description: Some(None),
    };
    c.update_destination("cld_1", &clear)
        .await
        .expect("update destination");
    expect(
        &s,
        "PATCH",
        "/callbacks-destinations/cld_1",
        None,
        Some(json!({"description": null})),
    );
    c.delete_destination("cld_1")
        .await
        .expect("delete destination");
    expect(&s, "DELETE", "/callbacks-destinations/cld_1", None, None);

    // Notifications (2).
    c.list_notifications(&q, &NotificationFilter::default())
        .await
        .expect("notifications");
    expect(&s, "GET", "/callbacks-notifications", paged, None);
    c.get_notification("cbn_1").await.expect("notification");
    expect(&s, "GET", "/callbacks-notifications/cbn_1", None, None);
}

#[tokio::test]
async fn ids_and_query_values_are_escaped() {
    let s = FakeServer::start();
    let c = client(&s);
    c.get_team("a b/c?d").await.expect("get team");
    expect(&s, "GET", "/organization/teams/a%20b%2Fc%3Fd", None, None);
    let q = ListQuery {
        cursor: Some("cur_a+b&c=d".into()),
        before: Some("x 1".into()),
        ..ListQuery::default()
    };
    c.list_callbacks(&q).await.expect("list");
    expect(
        &s,
        "GET",
        "/callbacks",
        Some("before=x+1&cursor=cur_a%2Bb%26c%3Dd"),
        None,
    );
}

#[tokio::test]
async fn union_filters_send_one_value_or_repeat_the_key() {
    let s = FakeServer::start();
    let c = client(&s);
    let none = ListQuery::default();
    let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();

    c.list_destinations(&none, &ids(&["clb_a"]))
        .await
        .expect("one");
    expect(
        &s,
        "GET",
        "/callbacks-destinations",
        Some("callback_id=clb_a"),
        None,
    );
    c.list_destinations(&none, &ids(&["clb_a", "", "clb_b", "clb_c"]))
        .await
        .expect("several");
    expect(
        &s,
        "GET",
        "/callbacks-destinations",
        Some("callback_id=clb_a&callback_id=clb_b&callback_id=clb_c"),
        None,
    );
    // A comma is not a separator: it is sent as part of the one value.
    c.list_destinations(&none, &ids(&["a,b"]))
        .await
        .expect("comma");
    expect(
        &s,
        "GET",
        "/callbacks-destinations",
        Some("callback_id=a%2Cb"),
        None,
    );

    let f = NotificationFilter {
        callback_ids: ids(&["clb_a", "clb_b"]),
        event_ids: ids(&["cbe_1"]),
        destination_ids: ids(&["cld_1", "cld_2"]),
        ..NotificationFilter::default()
    };
    let q = ListQuery {
        limit: Some(100),
        order: Some(Order::Asc),
        ..ListQuery::default()
    };
    c.list_notifications(&q, &f).await.expect("notifications");
    expect(
        &s,
        "GET",
        "/callbacks-notifications",
        Some(
            "limit=100&order=asc&callback_id=clb_a&callback_id=clb_b&event_id=cbe_1\
             &destination_id=cld_1&destination_id=cld_2",
        ),
        None,
    );
    let only_events = NotificationFilter {
        event_ids: ids(&["cbe_1", "cbe_2"]),
        ..NotificationFilter::default()
    };
    c.list_notifications(&none, &only_events)
        .await
        .expect("events");
    expect(
        &s,
        "GET",
        "/callbacks-notifications",
        Some("event_id=cbe_1&event_id=cbe_2"),
        None,
    );
}

#[tokio::test]
async fn headers_carry_key_version_instance_and_agent() {
    let s = FakeServer::start();
    let c = client(&s);
    c.list_callbacks(&ListQuery::default()).await.expect("list");
    let r = s.take_one();
    assert_eq!(
        r.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    // The identifier the server lists for pulsar (the rig lists a pulsar-era deployment's).
    assert_eq!(r.header("metorial-version"), Some("mt_2025_01_01_pulsar"));
    assert_eq!(r.header("metorial-instance-id"), None);
    let agent = r.header("user-agent").expect("user agent");
    assert_eq!(agent, format!("switchboard/{}", env!("CARGO_PKG_VERSION")));

    let c = Client::new(ClientOptions {
        base_url: format!("{}/", s.base_url),
        api_key: Secret::new("sk_instance_key_0000000"),
        organization_key: Some(Secret::new("sk_org_key_000000000000")),
        instance_id: Some("ins_0mh3ctbv0d1kcCceVVupdR".into()),
        max_retries: 0,
        ..ClientOptions::default()
    })
    .expect("client");
    c.list_callbacks(&ListQuery::default()).await.expect("list");
    let r = s.take_one();
    assert_eq!(
        r.path, "/callbacks",
        "a trailing slash on the base is not doubled"
    );
    assert_eq!(
        r.header("metorial-instance-id"),
        Some("ins_0mh3ctbv0d1kcCceVVupdR")
    );
    assert_eq!(
        r.header("authorization"),
        Some("Bearer sk_instance_key_0000000")
    );
    c.list_teams(&ListQuery::default()).await.expect("teams");
    let r = s.take_one();
    assert_eq!(
        r.header("authorization"),
        Some("Bearer sk_org_key_000000000000"),
        "organization paths use the organization key"
    );
}

#[tokio::test]
async fn a_base_url_with_a_path_prefix_keeps_it() {
    let s = FakeServer::start();
    let c = Client::new(ClientOptions {
        base_url: format!("{}/api/v1/", s.base_url),
        api_key: Secret::new(KEY),
        max_retries: 0,
        ..ClientOptions::default()
    })
    .expect("client");
    // The fake answers 404 endpoint for the unknown prefix; the path is what matters.
    let _ = c.get_callback("clb_1").await;
    assert_eq!(s.take_one().path, "/api/v1/callbacks/clb_1");
}

#[tokio::test]
async fn versions_are_asked_once_without_a_key_and_the_listed_pulsar_id_is_sent() {
    let s = FakeServer::start();
    let c = client(&s);
    let copy = c.clone();
    c.list_callbacks(&ListQuery::default()).await.expect("list");
    copy.list_teams(&ListQuery::default()).await.expect("list");
    c.get_callback("clb_1").await.expect("get");
    let asked = s.introspections();
    assert_eq!(asked.len(), 1, "one look for the client and its clones");
    assert_eq!(asked[0].method, "GET");
    assert_eq!(asked[0].path, "/metorial/introspect/versions");
    assert_eq!(
        asked[0].header("authorization"),
        None,
        "no key on a public path"
    );
    for r in s.take() {
        assert_eq!(
            r.header("metorial-version"),
            Some("mt_2025_01_01_pulsar"),
            "{}",
            r.path
        );
    }

    // A deployment that does not list its versions gets the contract's default.
    let s = FakeServer::start();
    s.serve_versions(None);
    let c = client(&s);
    c.list_callbacks(&ListQuery::default()).await.expect("list");
    assert_eq!(
        s.take_one().header("metorial-version"),
        Some("2025-01-01-pulsar")
    );
    assert_eq!(
        c.versions().await.expect("remembered"),
        switchboard::api::versions::Discovery::Unlisted
    );
    assert_eq!(s.introspections().len(), 1);
}

/// The local service answers the versions list and each version's endpoints without a key, as
/// a pulsar-era deployment does; the client learns pulsar's identifier from it.
#[tokio::test]
async fn the_local_service_lists_its_versions_and_their_endpoints() {
    use switchboard::api::versions::Discovery;
    let t = common::service::demo().await;
    let Discovery::Listed(list) = t.client.versions().await.expect("versions") else {
        panic!("the local service lists its versions");
    };
    let pulsar = list.pulsar().expect("pulsar served");
    assert_eq!(pulsar.version, "mt_2025_01_01_pulsar");
    assert!(pulsar.is_current);
    assert_eq!(list.versions.len(), 2);
    assert_eq!(
        serde_json::to_value(&list).expect("json"),
        serde_json::from_str::<Value>(&common::fake::fixture("introspect-versions.json"))
            .expect("fixture"),
        "the same document a pulsar-era deployment sends"
    );

    let no_key = Some(None);
    let get = |path: &'static str| t.raw(reqwest::Method::GET, path, None, no_key);
    let r = get("/metorial/introspect/endpoints?version=mt_2025_01_01_pulsar").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let endpoints = r.body["endpoints"].as_array().expect("endpoints").clone();
    // Every endpoint listed is routed (with the key, nothing answers 404 `endpoint`).
    for e in &endpoints {
        let (method, path) = (e["method"].as_str(), e["path"].as_str());
        let (Some(method), Some(path)) = (method, path) else {
            panic!("{e}")
        };
        let path = path.replace(['{', '}'], "");
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let r = t.raw(method, &path, Some("{}"), None).await;
        assert_ne!(
            r.body["entity"], "endpoint",
            "{path} is listed but not routed"
        );
    }
    assert!(endpoints.iter().any(|e| e["path"] == "/callbacks"));
    let r = get("/metorial/introspect/endpoints?version=mt_2025_01_01_dashboard").await;
    assert_eq!(r.status, 200);
    assert!(r.body["endpoints"].as_array().is_some_and(|a| !a.is_empty()
        && a.iter().all(|e| {
            e["path"]
                .as_str()
                .is_some_and(|p| p.starts_with("/organization/"))
        })));
    for unserved in [
        "/metorial/introspect/endpoints?version=mt_2026_01_01_magnetar",
        "/metorial/introspect/endpoints",
    ] {
        let r = get(unserved).await;
        assert_eq!(r.status, 406, "{unserved}: {}", r.body);
        assert_eq!(r.body["code"], "not_acceptable");
    }
}
