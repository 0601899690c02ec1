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
    // And nothing else but the document itself: the demo's hook intake and receiver are set
    // apart under `x-internal-paths`, marked `x-internal`, their deliberate failures described.
    let authenticated: Vec<_> = listed
        .iter()
        .filter(|(m, p)| doc["paths"][p][m]["security"] != Value::Array(vec![]))
        .collect();
    assert_eq!(authenticated.len(), ops.len(), "{authenticated:?}");
    assert_eq!(listed.len(), ops.len() + 1, "{listed:?}");
    for (path, status) in [("/hooks/{key}", "400"), ("/_receiver/{mode}", "503")] {
        let op = &doc["x-internal-paths"][path]["post"];
        assert_eq!(op["x-internal"], true, "{path}");
        assert!(
            op["responses"][status].is_object(),
            "{path} documents {status}"
        );
        assert!(
            op["description"]
                .as_str()
                .is_some_and(|d| d.contains("Internal")),
            "{path}"
        );
    }

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
async fn request_bodies_and_parameters_state_what_the_service_enforces() {
    let svc = start(ServiceConfig::ephemeral()).await.expect("service");
    let doc = fetch_doc(&svc).await;
    let schema = |name: &str| doc["components"]["schemas"][name].clone();

    // Required fields and lengths.
    let team = schema("CreateTeam");
    assert_eq!(team["required"], serde_json::json!(["name"]));
    assert_eq!(team["properties"]["name"]["minLength"], 1);
    // An update refuses null for the team's description, the destination's allows it.
    assert_eq!(
        schema("UpdateTeam")["properties"]["description"]["type"],
        "string"
    );
    assert_eq!(
        schema("UpdateDestination")["properties"]["description"]["type"],
        serde_json::json!(["string", "null"])
    );
    // The destination URL: a URI, http(s) only.
    let url = &schema("CreateDestination")["properties"]["url"];
    assert_eq!(url["format"], "uri");
    assert!(
        url["pattern"]
            .as_str()
            .is_some_and(|p| p.contains("[Hh][Tt][Tt][Pp][Ss]?://"))
    );
    // The exactly-one rule of the import's deployment and connection.
    let import = schema("CreateImport");
    let branches = import["oneOf"].as_array().expect("oneOf");
    assert_eq!(branches.len(), 2);
    for (b, key, other) in [
        (&branches[0], "server_deployment_id", "connection_id"),
        (&branches[1], "connection_id", "server_deployment_id"),
    ] {
        assert!(
            b["required"]
                .as_array()
                .is_some_and(|r| r.contains(&Value::from(key)))
        );
        assert_eq!(b["properties"][other], false);
    }
    // Paging: limit 1–100, order an enum.
    let params = doc["paths"]["/organization/teams"]["get"]["parameters"]
        .as_array()
        .expect("parameters");
    let param = |n: &str| {
        params
            .iter()
            .find(|p| p["name"] == n)
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(param("limit")["schema"]["minimum"], 1);
    assert_eq!(param("limit")["schema"]["maximum"], 100);
    let order = serde_json::to_string(&param("order")).expect("json");
    assert!(order.contains("asc") && order.contains("desc"), "{order}");

    // Links from each create to what uses its id.
    for (path, links) in [
        ("/organization/teams", &["get_team", "update_team"][..]),
        (
            "/provider-oauth/token-imports",
            &["get_import", "update_import"][..],
        ),
        (
            "/callbacks-destinations",
            &[
                "get_destination",
                "update_destination",
                "delete_destination",
            ][..],
        ),
    ] {
        let found = &doc["paths"][path]["post"]["responses"]["200"]["links"];
        for op in links {
            let link = found
                .as_object()
                .and_then(|m| m.values().find(|l| l["operationId"] == *op))
                .unwrap_or_else(|| panic!("{path} has no link to {op}: {found}"));
            let params = link["parameters"].as_object().expect("parameters");
            assert!(params.values().any(|v| v == "$response.body#/id"), "{link}");
        }
    }
    // Every authenticated operation documents its 4xx replies with the error body.
    for (method, path) in documented(&doc) {
        let op = &doc["paths"][&path][&method];
        if op["security"] == Value::Array(vec![]) {
            continue;
        }
        for status in ["400", "401", "404"] {
            assert_eq!(
                op["responses"][status]["content"]["application/json"]["schema"]["$ref"],
                "#/components/schemas/ApiError",
                "{method} {path} {status}"
            );
        }
    }
    svc.shutdown().await;
}

#[tokio::test]
async fn empty_limit_and_order_are_refused_like_other_bad_values() {
    let svc = start(ServiceConfig::ephemeral()).await.expect("service");
    let http = reqwest::Client::new();
    for q in ["limit=", "order=", "order=up", "limit=0"] {
        let r = http
            .get(format!("{}/organization/teams?{q}", svc.base_url))
            .bearer_auth(svc.api_key.expose())
            .send()
            .await
            .expect("request");
        assert_eq!(r.status(), 400, "{q}");
        let body: Value = r.json().await.expect("json");
        assert_eq!(body["code"], "invalid_data", "{q}: {body}");
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
