//! The OpenAPI document of the generation, built from the route table: what is served is what
//! is described.
use axum::Json;
use axum::extract::State;
use serde_json::{Map, Value, json};

use super::route::Route;
use super::{Flavor, Gen};

/// The parameters in a path (`{name}`), in order.
fn path_params(path: &str) -> Vec<&str> {
    path.split('/')
        .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .collect()
}

fn error_response(what: &str) -> Value {
    json!({"description": what, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}})
}

/// Links from a create (POST on a collection) to the operations on the item it made.
fn links(route: &Route, all: &[Route]) -> Value {
    let mut out = Map::new();
    if route.method != axum::http::Method::POST || !path_params(route.path).is_empty() {
        return Value::Object(out);
    }
    for other in all {
        let Some(rest) = other.path.strip_prefix(route.path) else {
            continue;
        };
        let params = path_params(rest);
        // Only the item itself (`/{id}`), not its sub-resources.
        if params.len() != 1 || !rest.starts_with("/{") || rest[1..].contains('/') {
            continue;
        }
        out.insert(
            other.op.to_string(),
            json!({"operationId": other.op, "parameters": {params[0]: "$response.body#/id"}}),
        );
    }
    Value::Object(out)
}

fn operation(route: &Route, all: &[Route]) -> Value {
    let mut params: Vec<Value> = path_params(route.path)
        .into_iter()
        .map(|p| {
            json!({"name": p, "in": "path", "required": true,
                        "schema": {"type": "string", "minLength": 1}})
        })
        .collect();
    if route.paged {
        params.extend([
            json!({"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}}),
            json!({"name": "after", "in": "query", "schema": {"type": "string"}}),
            json!({"name": "before", "in": "query", "schema": {"type": "string"}}),
            json!({"name": "cursor", "in": "query", "schema": {"type": "string"},
                   "description": "An opaque cursor; an undecodable one is 400"}),
            json!({"name": "order", "in": "query", "schema": {"type": "string", "enum": ["asc", "desc"]}}),
        ]);
    }
    for (name, ty, description) in route.query {
        // `string!`: a required, non-empty parameter.
        let (ty, required) = ty.strip_suffix('!').map_or((*ty, false), |t| (t, true));
        let schema = if name.ends_with(']') {
            json!({"type": ty, "format": "date-time"})
        } else if ty == "version" {
            json!({"type": "string", "enum": [super::wire::DASHBOARD, super::wire::MAGNETAR]})
        } else if required {
            json!({"type": ty, "minLength": 1})
        } else {
            json!({"type": ty})
        };
        params.push(json!({"name": name, "in": "query", "required": required,
                           "description": description, "schema": schema}));
    }
    let public = route.path.starts_with("/metorial/introspect/");
    let mut responses = json!({
        "200": {"description": "OK", "content": {"application/json": {"schema": (route.output)()}},
                "links": links(route, all)},
        "400": error_response("Invalid data or a business rule"),
        "404": error_response("Not found (`entity` names what)"),
    });
    if public {
        responses["406"] = error_response("A version not served");
    } else {
        responses["401"] = error_response("No valid key");
        responses["403"] = error_response("The key may not use this endpoint");
        responses["406"] = error_response("A version the key may not use");
        responses["429"] = error_response("Rate limited");
    }
    let mut op = json!({
        "operationId": route.op, "tags": [route.area], "summary": route.summary,
        "parameters": params, "responses": responses,
    });
    if let Some(body) = route.body {
        op["requestBody"] =
            json!({"required": true, "content": {"application/json": {"schema": body()}}});
    }
    if public {
        op["security"] = json!([]);
    } else if !super::frame::is_organization(route.path) {
        op["description"] = "An instance path: an instance key, or the organization key with \
                             the `metorial-instance-id` header."
            .into();
    }
    op
}

/// The document of a generation.
pub fn document_value(flavor: &Flavor) -> Value {
    let all = (flavor.routes)();
    let mut paths = Map::new();
    for r in &all {
        let entry = paths.entry(r.path.to_string()).or_insert_with(|| json!({}));
        entry[r.method.as_str().to_ascii_lowercase()] = operation(r, &all);
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": flavor.title,
            "version": "mt_2025_01_01_dashboard",
            "description": flavor.description,
        },
        "servers": [{"url": "/"}],
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {
            "schemas": (flavor.components)(),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    })
}

/// `GET /openapi.json`.
pub async fn document(State(g): State<Gen>) -> Json<Value> {
    Json(document_value(g.0.flavor))
}
