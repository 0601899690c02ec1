//! `GET /openapi.json` over real HTTP: a 3.1 document that lists every operation the client makes
//! and that the router serves, with the wire model's schemas.
use serde_json::Value;
use switchboard::api::model::{
    CallbacksInput, CreateDestination, CreateImport, CreateTeam, SetTeamProject, UpdateDestination,
    UpdateImport, UpdateTeam,
};
use switchboard::api::request::ApiRequest;
use switchboard::api::{ListQuery, NotificationFilter};
use switchboard::service::{RunningService, ServiceConfig, start};

const METHODS: &[&str] = &["get", "post", "put", "patch", "delete"];

fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("fixture json")
}

/// One request per operation of the contract, built by the client's own constructors.
fn every_operation() -> Vec<ApiRequest> {
    let q = ListQuery::default();
    let dest = CreateDestination {
        name: "n".into(),
        description: None,
        url: "http://127.0.0.1/".into(),
        callbacks: CallbacksInput::all(),
    };
    vec![
        ApiRequest::list_teams(&q),
        ApiRequest::get_team("a"),
        ApiRequest::create_team(&CreateTeam::default()),
        ApiRequest::update_team("a", &UpdateTeam::default()),
        ApiRequest::set_team_project("a", &SetTeamProject::default()),
        ApiRequest::remove_team_project("a", "b"),
        ApiRequest::add_team_member("a", "b"),
        ApiRequest::remove_team_member("a", "b"),
        ApiRequest::list_members(&q),
        ApiRequest::list_projects(&q),
        ApiRequest::list_team_roles(&q),
        ApiRequest::list_imports(&q),
        ApiRequest::get_import("a"),
        ApiRequest::create_import(&CreateImport::default()),
        ApiRequest::update_import("a", &UpdateImport::default()),
        ApiRequest::list_callbacks(&q),
        ApiRequest::get_callback("a"),
        ApiRequest::list_destinations(&q, &[]),
        ApiRequest::get_destination("a"),
        ApiRequest::create_destination(&dest),
        ApiRequest::update_destination("a", &UpdateDestination::default()),
        ApiRequest::delete_destination("a"),
        ApiRequest::list_notifications(&q, &NotificationFilter::default()),
        ApiRequest::get_notification("a"),
    ]
}

/// Whether a templated document path (`/a/{id}`) matches concrete segments.
fn matches(template: &str, segments: &[String]) -> bool {
    let parts: Vec<&str> = template.trim_start_matches('/').split('/').collect();
    parts.len() == segments.len()
        && parts
            .iter()
            .zip(segments)
            .all(|(p, s)| (p.starts_with('{') && p.ends_with('}')) || p == s)
}

/// Every `(method, path)` the document lists.
fn documented(doc: &Value) -> Vec<(String, String)> {
    let paths = doc["paths"].as_object().expect("paths object");
    let mut out = Vec::new();
    for (path, item) in paths {
        for m in METHODS {
            if item.get(*m).is_some() {
                out.push((m.to_string(), path.clone()));
            }
        }
    }
    out
}

/// Follows a `#/components/schemas/…` reference.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(r) => {
            let name = r
                .strip_prefix("#/components/schemas/")
                .expect("a component ref");
            &doc["components"]["schemas"][name]
        }
        None => schema,
    }
}

fn sorted_keys(v: &Value) -> Vec<String> {
    let mut keys: Vec<String> = v
        .as_object()
        .expect("an object")
        .keys()
        .filter(|k| *k != "__typename")
        .cloned()
        .collect();
    keys.sort();
    keys
}

async fn fetch_doc(svc: &RunningService) -> Value {
    // No key: the document is public.
    let r = reqwest::get(format!("{}/openapi.json", svc.base_url))
        .await
        .expect("GET /openapi.json");
    assert_eq!(r.status(), 200);
    r.json().await.expect("the document is JSON")
}

#[tokio::test]
async fn document_lists_every_operation_with_the_model_schemas() {
    let svc = start(ServiceConfig::ephemeral()).await.expect("service");
    let doc = fetch_doc(&svc).await;

    assert!(
        doc["openapi"]
            .as_str()
            .expect("openapi")
            .starts_with("3.1."),
        "{}",
        doc["openapi"]
    );
    assert_eq!(doc["info"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        doc["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );

    // Every operation the client makes is documented under the right method and path.
    let listed = documented(&doc);
    let ops = every_operation();
    for op in &ops {
        let method = op.method.as_str().to_ascii_lowercase();
        assert!(
            listed
                .iter()
                .any(|(m, p)| *m == method && matches(p, &op.segments)),
            "{method} {} is not in the document",
            op.path()
        );
    }
    // And nothing else but the public extras (the document itself, hooks and the receiver).
    let authenticated: Vec<_> = listed
        .iter()
        .filter(|(m, p)| doc["paths"][p][m]["security"] != Value::Array(vec![]))
        .collect();
    assert_eq!(authenticated.len(), ops.len(), "{authenticated:?}");
    assert_eq!(listed.len(), ops.len() + 3, "{listed:?}");

    // The team reply's schema has exactly the fixture's keys.
    let team_op = &doc["paths"]["/organization/teams/{team_id}"]["get"];
    let team = resolve(
        &doc,
        &team_op["responses"]["200"]["content"]["application/json"]["schema"],
    );
    assert_eq!(
        sorted_keys(&team["properties"]),
        sorted_keys(&fixture("team.json"))
    );
    // Errors carry the ApiError body, which has every key of the fixture.
    let err = resolve(
        &doc,
        &team_op["responses"]["404"]["content"]["application/json"]["schema"],
    );
    let err_keys = sorted_keys(&err["properties"]);
    for k in sorted_keys(&fixture("error-not-found.json")) {
        assert!(err_keys.contains(&k), "error schema lacks {k}");
    }
    // List operations document the paging parameters and their Union filters.
    let params: Vec<&str> = doc["paths"]["/callbacks-notifications"]["get"]["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    for p in [
        "limit",
        "after",
        "before",
        "cursor",
        "order",
        "callback_id",
        "event_id",
        "destination_id",
    ] {
        assert!(params.contains(&p), "missing {p} in {params:?}");
    }
    svc.shutdown().await;
}

#[tokio::test]
async fn the_router_serves_every_documented_operation() {
    let svc = start(ServiceConfig::ephemeral()).await.expect("service");
    let doc = fetch_doc(&svc).await;
    let http = reqwest::Client::new();
    for (method, path) in documented(&doc) {
        let concrete: String = path
            .split('/')
            .map(|s| if s.starts_with('{') { "x" } else { s })
            .collect::<Vec<_>>()
            .join("/");
        let m =
            reqwest::Method::from_bytes(method.to_ascii_uppercase().as_bytes()).expect("method");
        let r = http
            .request(m, format!("{}{concrete}", svc.base_url))
            .bearer_auth(svc.api_key.expose())
            .json(&serde_json::json!({}))
            .send()
            .await
            .expect("request");
        let status = r.status().as_u16();
        let body: Value = r.json().await.unwrap_or(Value::Null);
        // The router's fallback answers 404 `endpoint` with the whole path as id.
        let unrouted = body["entity"] == "endpoint" && body["id"] == concrete.as_str();
        assert!(
            status != 405 && !unrouted,
            "{method} {path} is documented but not served: {status} {body}"
        );
    }
    svc.shutdown().await;
}
