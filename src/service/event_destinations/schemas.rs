//! JSON Schemas of the generation's objects and request bodies, for the OpenAPI document. They
//! state what the service enforces (schemathesis checks both directions).
use serde_json::{Map, Value, json};

/// A reference to a component.
pub fn obj(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// The list envelope of a component.
pub fn list_of(name: &str) -> Value {
    json!({
        "type": "object", "required": ["object", "items", "pagination"],
        "properties": {
            "object": {"type": "string", "enum": ["list"]},
            "items": {"type": "array", "items": obj(name)},
            "pagination": {
                "type": "object", "required": ["has_more_after", "has_more_before"],
                "properties": {"has_more_after": {"type": "boolean"}, "has_more_before": {"type": "boolean"}},
            },
        },
    })
}

pub(in crate::service) fn s() -> Value {
    json!({"type": "string"})
}
pub(in crate::service) fn sn() -> Value {
    json!({"type": ["string", "null"]})
}
pub(in crate::service) fn int() -> Value {
    json!({"type": "integer"})
}
pub(in crate::service) fn boolean() -> Value {
    json!({"type": "boolean"})
}
pub(in crate::service) fn any() -> Value {
    json!({})
}
pub(in crate::service) fn nullable(v: Value) -> Value {
    json!({"anyOf": [v, {"type": "null"}]})
}
pub(in crate::service) fn strings() -> Value {
    json!({"type": "array", "items": {"type": "string"}})
}
pub(in crate::service) fn en(values: &[&str]) -> Value {
    json!({"type": "string", "enum": values})
}
/// A required text field as the service checks it: 1–`max` characters, not only spaces.
pub(in crate::service) fn text(max: usize) -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": max, "pattern": "\\S"})
}

/// An object whose every listed property is required (nullable ones say so in their type).
pub(in crate::service) fn object(props: &[(&str, Value)]) -> Value {
    let mut p = Map::new();
    for (k, v) in props {
        p.insert((*k).to_string(), v.clone());
    }
    json!({"type": "object", "required": props.iter().map(|(k, _)| *k).collect::<Vec<_>>(), "properties": p})
}

/// A request body: `required` names, the rest optional.
pub(in crate::service) fn body(required: &[&str], props: &[(&str, Value)]) -> Value {
    let mut p = Map::new();
    for (k, v) in props {
        p.insert((*k).to_string(), v.clone());
    }
    json!({"type": "object", "required": required, "properties": p})
}

fn retry() -> Value {
    object(&[
        ("strategy", en(&["exponential", "linear", "fixed"])),
        ("max_attempts", int()),
        ("base_delay_seconds", int()),
        ("max_delay_seconds", int()),
    ])
}

fn retry_in() -> Value {
    json!({
        "type": "object",
        "properties": {
            "strategy": nullable(en(&["exponential", "linear", "fixed"])),
            "max_attempts": {"type": ["integer", "null"], "minimum": 1, "maximum": 25},
            "base_delay_seconds": {"type": ["integer", "null"], "minimum": 1, "maximum": 86400},
            "max_delay_seconds": {"type": ["integer", "null"], "minimum": 1, "maximum": 86400},
        },
    })
}

fn header_list() -> Value {
    json!({"type": "array", "items": object(&[("key", s()), ("value", s())])})
}

fn attempt() -> Value {
    object(&[
        ("object", en(&["event.delivery_attempt"])),
        ("id", s()),
        ("event_delivery_id", s()),
        ("event_id", s()),
        ("event_destination_id", s()),
        ("status", en(&["succeeded", "failed"])),
        ("attempt_number", int()),
        ("duration_ms", int()),
        ("is_retryable", boolean()),
        (
            "error",
            nullable(object(&[("code", s()), ("message", s())])),
        ),
        (
            "request",
            nullable(object(&[
                ("url", s()),
                ("method", s()),
                ("headers", header_list()),
                ("body", s()),
            ])),
        ),
        (
            "response",
            nullable(object(&[
                ("status_code", int()),
                ("headers", nullable(header_list())),
                ("body", sn()),
                ("is_body_truncated", boolean()),
            ])),
        ),
        ("started_at", s()),
        ("completed_at", s()),
        ("created_at", s()),
    ])
}

fn listener() -> Value {
    object(&[
        ("object", en(&["event.destination_listener"])),
        ("id", s()),
        ("instance_id", s()),
        ("event_destination_id", s()),
        ("type", en(&["event", "callback", "chat"])),
        ("event_types", nullable(strings())),
        ("callback_id", sn()),
        ("triggers", nullable(strings())),
        ("chat_connection_id", sn()),
        ("provider_id", sn()),
        ("created_at", s()),
        ("updated_at", s()),
    ])
}

fn policy_preview() -> Value {
    object(&[
        ("object", en(&["management.access_policy#preview"])),
        ("id", s()),
        ("type", en(&["everyone", "admin", "custom"])),
        ("name", s()),
        ("slug", s()),
    ])
}

fn error() -> Value {
    json!({
        "type": "object", "required": ["object", "ok", "status", "code", "message"],
        "properties": {
            "object": en(&["error"]), "ok": {"type": "boolean"}, "status": int(), "code": s(),
            "message": s(), "hint": s(), "entity": s(), "id": any(),
            "errors": {"type": "array"},
        },
    })
}

/// Every component schema.
pub fn components() -> Value {
    let auth_config = object(&[
        ("object", en(&["provider.auth_config"])),
        ("id", s()),
        ("type", s()),
        ("source", s()),
        ("status", s()),
        ("is_default", boolean()),
        ("provider_id", s()),
        ("name", sn()),
        ("description", sn()),
        ("metadata", any()),
        ("tool_filter", any()),
        ("deployment", any()),
        ("credentials", any()),
        ("auth_method", any()),
        ("created_at", s()),
        ("updated_at", s()),
    ]);
    let provider_preview = object(&[
        ("object", en(&["provider#preview"])),
        ("id", s()),
        ("name", s()),
        ("description", sn()),
        ("slug", s()),
        ("created_at", s()),
        ("updated_at", s()),
    ]);
    let mut callback = object(&[
        ("object", en(&["callback"])),
        ("id", s()),
        ("status", en(&["active", "archived", "deleted"])),
        ("name", sn()),
        ("description", sn()),
        ("metadata", any()),
        ("integration_id", s()),
        ("integration_provider_id", s()),
        ("provider", provider_preview),
        ("created_at", s()),
        ("updated_at", s()),
    ]);
    callback["properties"]["sync"] = object(&[
        ("object", en(&["callback.sync"])),
        ("status", en(&["pending", "synced", "failed"])),
        ("error", sn()),
        ("synced_at", sn()),
    ]);
    json!({
        "Error": error(),
        "Team": object(&[
            ("object", en(&["management.team"])), ("id", s()), ("organization_id", s()),
            ("name", s()), ("slug", s()), ("description", sn()),
            ("policies", json!({"type": "array", "items": policy_preview()})),
            ("projects", json!({"type": "array", "items": object(&[("id", s()), ("created_at", s()), ("updated_at", s()), ("project", json!({"type": "object"}))])})),
            ("created_at", s()), ("updated_at", s()),
        ]),
        "TeamCreate": body(&["name"], &[
            ("name", text(100)), ("description", nullable(text(1000))),
            ("slug", nullable(json!({"type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[a-z0-9-]+$"}))),
        ]),
        "TeamUpdate": body(&[], &[
            ("name", nullable(text(100))), ("description", nullable(text(1000))),
            ("slug", nullable(json!({"type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[a-z0-9-]+$"}))),
        ]),
        "TeamMemberAdd": body(&["actor_id"], &[("actor_id", text(100))]),
        "Member": object(&[
            ("object", en(&["organization.member"])), ("id", s()), ("status", s()), ("role", s()),
            ("user_id", s()), ("organization_id", s()), ("actor_id", s()), ("name", s()),
            ("email", sn()), ("image_url", sn()), ("last_active_at", sn()), ("created_at", s()),
            ("updated_at", s()), ("deleted_at", sn()), ("actor", json!({"type": "object"})),
        ]),
        "TeamPolicyAssign": body(&["access_policy_id"], &[("access_policy_id", text(100))]),
        "AccessPolicy": object(&[
            ("object", en(&["management.access_policy"])), ("id", s()), ("organization_id", s()),
            ("type", en(&["everyone", "admin", "custom"])), ("name", s()), ("slug", s()),
            ("description", sn()), ("document", json!({"type": "object"})), ("roles", json!({"type": "array"})),
            ("projects", json!({"type": "array"})), ("instances", json!({"type": "array"})),
            ("created_at", s()), ("updated_at", s()),
        ]),
        "AuthImport": object(&[
            ("object", en(&["provider.auth_import"])), ("id", s()), ("note", s()), ("ip", sn()),
            ("user_agent", sn()), ("metadata", any()), ("auth_config", auth_config),
            ("provider_id", s()), ("provider_deployment_id", sn()), ("auth_method_id", sn()),
            ("credentials_id", sn()), ("created_at", s()), ("expires_at", sn()),
        ]),
        "AuthImportCreate": body(&["note", "value"], &[
            ("note", text(1000)),
            ("value", json!({"type": "object", "minProperties": 1, "description": "The credential (never echoed or kept), e.g. access_token"})),
            ("metadata", json!({"type": ["object", "null"]})),
            ("provider_id", nullable(text(100))), ("provider_deployment_id", nullable(text(100))),
            ("provider_auth_config_id", nullable(text(100))), ("provider_auth_method_id", nullable(text(100))),
        ]),
        "AuthImportSchema": object(&[
            ("object", en(&["provider.capabilities.auth_config.schema"])), ("schema", json!({"type": "object"})),
            ("visibility", s()), ("specification_id", sn()), ("provider_id", s()),
            ("created_at", s()), ("updated_at", s()),
        ]),
        "Callback": callback,
        "CallbackCreate": body(&["integration_id", "integration_provider_id"], &[
            ("integration_id", text(100)), ("integration_provider_id", text(100)),
            ("name", nullable(text(200))), ("description", nullable(text(1000))),
        ]),
        "CallbackUpdate": body(&[], &[
            ("name", nullable(text(200))), ("description", nullable(text(1000))),
            ("metadata", json!({"type": ["object", "null"]})),
        ]),
        "CallbackEvent": object(&[
            ("object", en(&["callback_event"])), ("id", s()),
            ("status", en(&["pending", "processed", "failed"])), ("source", en(&["webhook", "polling"])),
            ("provider_trigger_key", s()), ("mapped_type", sn()), ("mapped_id", sn()),
            ("callback_id", s()), ("callback_instance_id", s()), ("details", nullable(json!({"type": "object"}))),
            ("occurred_at", s()), ("created_at", s()),
        ]),
        "CallbackInstance": object(&[
            ("object", en(&["callback.instance"])), ("id", s()), ("status", s()), ("callback_id", s()),
            ("integration_instance_id", sn()), ("integration_instance_provider_id", sn()),
            ("created_at", s()), ("updated_at", s()),
        ]),
        "EventDestination": object(&[
            ("object", en(&["event.destination"])), ("id", s()), ("organization_id", s()),
            ("name", s()), ("description", sn()), ("status", en(&["active", "archived"])),
            ("type", en(&["webhook"])),
            ("webhook", object(&[("url", s()), ("method", s()), ("signing_secret", sn())])),
            ("retry", retry()), ("listeners", json!({"type": "array", "items": listener()})),
            ("created_at", s()), ("updated_at", s()), ("archived_at", sn()),
        ]),
        "EventDestinationCreate": body(&["name", "type", "webhook"], &[
            ("name", text(200)), ("description", nullable(text(1000))), ("type", en(&["webhook"])),
            ("webhook", body(&["url"], &[("url", json!({"type": "string", "format": "uri", "pattern": "^https?://[a-z0-9]+(\\.[a-z0-9]+)*(:[0-9]{2,5})?(/[a-z0-9]*)*$", "maxLength": 2048}))])),
            ("retry", nullable(retry_in())),
        ]),
        "EventDestinationUpdate": body(&[], &[
            ("name", nullable(text(200))), ("description", nullable(text(1000))),
            ("webhook", nullable(body(&[], &[("url", nullable(json!({"type": "string", "format": "uri", "pattern": "^https?://[a-z0-9]+(\\.[a-z0-9]+)*(:[0-9]{2,5})?(/[a-z0-9]*)*$", "maxLength": 2048})))]))),
            ("retry", nullable(retry_in())),
        ]),
        "EventDestinationListener": listener(),
        "EventDestinationListenerCreate": body(&["instance_id", "event_destination_id", "type"], &[
            ("instance_id", text(100)), ("event_destination_id", text(100)),
            ("type", en(&["event", "callback", "chat"])),
            ("event_types", nullable(json!({"type": "array", "items": text(100), "minItems": 1, "maxItems": 100}))),
            ("triggers", nullable(json!({"type": "array", "items": text(100), "minItems": 1, "maxItems": 100}))),
            ("callback_id", nullable(text(100))), ("provider_id", nullable(text(100))),
            ("chat_connection_id", nullable(text(100))),
        ]),
        "EventDestinationListenerUpdate": body(&[], &[
            ("event_types", nullable(json!({"type": "array", "items": text(100), "maxItems": 100}))),
            ("triggers", nullable(json!({"type": "array", "items": text(100), "maxItems": 100}))),
        ]),
        "Event": object(&[
            ("object", en(&["event"])), ("id", s()), ("organization_id", s()), ("instance_id", s()),
            ("source", en(&["resource", "callback", "chat", "ping"])), ("event_type", s()),
            ("callback_id", sn()), ("callback_event_id", sn()), ("callback_trigger_key", sn()),
            ("chat_event_id", sn()), ("chat_connection_id", sn()), ("provider_id", sn()),
            ("payload", any()), ("created_at", s()),
        ]),
        "EventDelivery": object(&[
            ("object", en(&["event.delivery"])), ("id", s()), ("organization_id", s()),
            ("instance_id", s()), ("event_id", s()), ("event_type", s()),
            ("event_destination_id", s()), ("type", en(&["webhook"])),
            ("status", en(&["pending", "retrying", "delivered", "failed", "cancelled"])),
            ("attempt_count", int()), ("error", nullable(object(&[("code", s()), ("message", s())]))),
            ("retry", retry()), ("attempts", json!({"type": "array", "items": attempt()})),
            ("last_attempt_at", sn()), ("next_attempt_at", sn()), ("completed_at", sn()),
            ("created_at", s()), ("updated_at", s()),
        ]),
        "EventDeliveryAttempt": attempt(),
        "EventType": object(&[("object", en(&["event.type"])), ("name", s()), ("description", sn())]),
        "VersionList": object(&[("versions", json!({"type": "array", "items": object(&[
            ("version", s()), ("displayVersion", s()), ("isCurrent", boolean()),
        ])}))]),
        "EndpointList": object(&[
            ("version", s()), ("controllers", json!({"type": "array"})), ("endpoints", json!({"type": "array"})),
            ("types", json!({"type": "array"})),
        ]),
    })
}
