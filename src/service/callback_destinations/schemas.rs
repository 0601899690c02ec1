//! JSON Schemas of the generation's objects and request bodies for its OpenAPI document: the
//! shared ones (errors, teams, policies, imports, introspection) and this generation's webhook
//! areas. They state what the service enforces (schemathesis checks both directions).
use serde_json::{Value, json};

use crate::service::event_destinations::schemas::{
    any, body, components as newest, en, int, nullable, object, s, sn, text,
};

/// The components this generation shares with the newest one.
const SHARED: &[&str] = &[
    "Error",
    "Team",
    "TeamCreate",
    "TeamUpdate",
    "TeamMemberAdd",
    "Member",
    "TeamPolicyAssign",
    "AccessPolicy",
    "AuthImport",
    "AuthImportCreate",
    "AuthImportSchema",
    "VersionList",
    "EndpointList",
];

fn url() -> Value {
    // What generated "valid" URLs look like; the service takes any absolute http(s) URL.
    json!({"type": "string", "format": "uri", "maxLength": 2048,
           "pattern": "^https?://[a-z0-9]+(\\.[a-z0-9]+)*(:[0-9]{2,5})?(/[a-z0-9]*)*$"})
}

fn deployment(object_name: &str) -> Value {
    object(&[
        ("object", en(&[object_name])),
        ("id", s()),
        ("is_default", json!({"type": "boolean"})),
        ("name", sn()),
        ("description", sn()),
        ("metadata", any()),
        ("provider_id", s()),
        ("created_at", s()),
        ("updated_at", s()),
    ])
}

fn destination(detailed: bool) -> Value {
    let mut d = object(&[
        ("object", en(&["callback.destination"])),
        ("id", s()),
        ("status", en(&["active", "archived"])),
        ("name", s()),
        ("description", sn()),
        ("metadata", any()),
        ("url", s()),
        ("method", s()),
        ("created_at", s()),
        ("updated_at", s()),
    ]);
    if detailed {
        d["properties"]["signing_secret"] = s();
    }
    d
}

fn trigger() -> Value {
    object(&[
        ("object", en(&["callback.provider_trigger"])),
        ("id", s()),
        (
            "provider_trigger",
            object(&[
                ("object", en(&["provider.trigger#preview"])),
                ("id", s()),
                ("key", s()),
                ("name", s()),
            ]),
        ),
        ("event_types", json!({"type": "array", "items": s()})),
        ("created_at", s()),
    ])
}

fn triggers_in() -> Value {
    nullable(
        json!({"type": "array", "maxItems": 50, "items": body(&["provider_trigger_id"], &[
            ("provider_trigger_id", text(100)),
            ("event_types", nullable(json!({"type": "array", "maxItems": 100, "items": text(100)}))),
        ])}),
    )
}

fn ids_in() -> Value {
    nullable(json!({"type": "array", "maxItems": 100, "items": text(100)}))
}

fn poll_in() -> Value {
    nullable(json!({"type": "integer", "minimum": 10, "maximum": 86400}))
}

fn notification() -> Value {
    let event = object(&[
        ("object", en(&["callback.notification.event"])),
        ("id", s()),
        ("type", s()),
        ("topics", json!({"type": "array", "items": s()})),
        ("status", s()),
        ("destination_count", int()),
        ("success_count", int()),
        ("failure_count", int()),
        (
            "request",
            nullable(object(&[
                ("body", s()),
                (
                    "headers",
                    json!({"type": "array", "items": object(&[("key", s()), ("value", s())])}),
                ),
            ])),
        ),
        ("created_at", s()),
        ("updated_at", s()),
    ]);
    let destination = object(&[
        ("object", en(&["callback.notification.destination"])),
        ("id", s()),
        ("name", s()),
        ("description", sn()),
        ("type", s()),
        ("event_types", any()),
        (
            "retry",
            object(&[
                ("type", en(&["linear", "exponential"])),
                ("max_attempts", int()),
                ("delay_seconds", int()),
            ]),
        ),
        (
            "webhook",
            nullable(object(&[
                ("id", s()),
                ("url", s()),
                ("method", s()),
                ("created_at", s()),
            ])),
        ),
        ("created_at", s()),
        ("updated_at", s()),
    ]);
    object(&[
        ("object", en(&["callback.notification"])),
        ("id", s()),
        (
            "status",
            en(&["pending", "delivered", "retrying", "failed"]),
        ),
        (
            "error",
            nullable(object(&[("code", s()), ("message", s())])),
        ),
        ("attempt_count", int()),
        ("event", event),
        ("destination", nullable(destination)),
        ("created_at", s()),
        ("updated_at", s()),
        ("last_attempt_at", sn()),
        ("next_attempt_at", sn()),
    ])
}

/// Every component schema.
pub fn components() -> Value {
    let all = newest();
    let mut out = serde_json::Map::new();
    for name in SHARED {
        out.insert((*name).to_string(), all[*name].clone());
    }
    let mine = json!({
        "ProviderDeployment": deployment("provider.deployment"),
        "Callback": object(&[
            ("object", en(&["callback"])), ("id", s()),
            ("status", en(&["active", "archived", "deleted"])), ("name", sn()),
            ("description", sn()), ("metadata", any()),
            ("poll_interval_seconds_override", nullable(int())),
            ("provider_deployment", deployment("provider.deployment#preview")),
            ("destinations", json!({"type": "array", "items": destination(false)})),
            ("provider_triggers", json!({"type": "array", "items": trigger()})),
            ("created_at", s()), ("updated_at", s()),
        ]),
        "CallbackCreate": body(&["provider_deployment_id", "name"], &[
            ("provider_deployment_id", text(100)), ("name", text(200)),
            ("description", nullable(text(1000))), ("metadata", json!({"type": ["object", "null"]})),
            ("poll_interval_seconds_override", poll_in()), ("destination_ids", ids_in()),
            ("triggers", triggers_in()),
        ]),
        "CallbackUpdate": body(&[], &[
            ("name", nullable(text(200))), ("description", nullable(text(1000))),
            ("metadata", json!({"type": ["object", "null"]})),
            ("poll_interval_seconds_override", poll_in()), ("destination_ids", ids_in()),
            ("triggers", triggers_in()),
        ]),
        "CallbackEvent": object(&[
            ("object", en(&["callback.event"])), ("id", s()), ("type", s()), ("source_id", sn()),
            ("trigger_key", s()), ("input", any()), ("output", any()),
            ("delivery_status", en(&["pending", "sent", "failed", "skipped"])),
            ("callback_id", s()), ("callback_instance_id", sn()), ("created_at", s()),
        ]),
        "CallbackDestination": destination(false),
        "CallbackDestinationDetailed": destination(true),
        "CallbackDestinationCreate": body(&["name", "url"], &[
            ("name", text(200)), ("url", url()), ("description", nullable(text(1000))),
            ("metadata", json!({"type": ["object", "null"]})),
        ]),
        "CallbackDestinationUpdate": body(&[], &[
            ("name", nullable(text(200))), ("url", nullable(url())),
            ("description", nullable(text(1000))), ("metadata", json!({"type": ["object", "null"]})),
        ]),
        "CallbackNotification": notification(),
    });
    if let Value::Object(m) = mine {
        out.extend(m);
    }
    Value::Object(out)
}
