//! The newer generations' golden fixtures (`tests/fixtures/generations/`) decode into the typed
//! model and re-encode with every key they had (the `object`/`__typename` markers aside, which
//! are ignored); the one signature verifier against the worked examples; the request builders'
//! wire form.
use std::path::PathBuf;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use switchboard::api::model::*;
use switchboard::api::newer_requests::*;
use switchboard::api::signature::{SigError, verify};
use switchboard::api::{ApiError, ApiRequest, ListQuery, Page};

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/generations")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every key of `original` is in `reencoded` with an equal value; the envelope markers are
/// the only keys that may go.
fn assert_keeps_keys(original: &Value, reencoded: &Value, at: &str) {
    match (original, reencoded) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                if k == "__typename" || (k == "object" && v == "list") {
                    continue;
                }
                let Some(w) = b.get(k) else {
                    panic!("{at}.{k} lost on re-encode")
                };
                assert_keeps_keys(v, w, &format!("{at}.{k}"));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len(), "{at}: array length");
            for (i, (v, w)) in a.iter().zip(b).enumerate() {
                assert_keeps_keys(v, w, &format!("{at}[{i}]"));
            }
        }
        (a, b) => assert_eq!(a, b, "{at}: value changed"),
    }
}

fn roundtrip<T: DeserializeOwned + Serialize>(name: &str) -> T {
    let original = fixture(name);
    let typed: T =
        serde_json::from_value(original.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let reencoded = serde_json::to_value(&typed).expect("re-encode");
    assert_keeps_keys(&original, &reencoded, name);
    typed
}

#[test]
fn dashboard_teams_and_access_policies_roundtrip() {
    let t: PolicyTeam = roundtrip("dashboard/team.json");
    assert_eq!(t.policies[0].kind, PolicyType::Custom);
    assert_eq!(t.projects[0].project.slug, "core");
    let p: Page<PolicyTeam> = roundtrip("dashboard/team-list.json");
    assert!(p.items[1].policies.is_empty());
    assert_eq!(p.items[1].description, None);
    let a: AccessPolicy = roundtrip("dashboard/access-policy.json");
    assert_eq!(a.slug.as_deref(), Some("callback-operators"));
    assert_eq!(a.instances[0].name.as_deref(), Some("Production"));
}

#[test]
fn auth_imports_and_their_schema_roundtrip() {
    let i: AuthImport = roundtrip("auth-import.json");
    let config = i.auth_config.expect("auth config");
    assert_eq!(
        config.deployment.map(|d| d.id).as_deref(),
        Some("pde_0mnfr9q80RtZHjQMhuOzE9")
    );
    let l: Page<AuthImport> = roundtrip("auth-import-list.json");
    assert!(l.pagination.has_more_after);
    assert_eq!(l.items[0].provider_deployment_id, None);
    let s: AuthImportSchema = roundtrip("auth-import-schema.json");
    let fields = s.fields();
    assert!(
        fields.contains(&("access_token".to_string(), true)),
        "{fields:?}"
    );
    assert!(fields.contains(&("scope".to_string(), false)), "{fields:?}");
}

#[test]
fn callback_destinations_shapes_roundtrip() {
    let c: DeploymentCallback = roundtrip("callback-destinations/callback.json");
    assert_eq!(c.status, ResourceStatus::Active);
    assert_eq!(c.destinations[0].url, "https://hooks.example.com/metorial");
    assert_eq!(
        c.provider_triggers[0].event_types,
        ["issues.opened", "issues.closed"]
    );
    let l: Page<DeploymentCallback> = roundtrip("callback-destinations/callback-list.json");
    assert_eq!(l.items[0].status, ResourceStatus::Archived);
    let d: CallbackDestination = roundtrip("callback-destinations/destination.json");
    assert!(d.signing_secret.is_none(), "absent here: may be absent");
    let dl: Page<CallbackDestination> = roundtrip("callback-destinations/destination-list.json");
    assert_eq!(dl.items[1].status, ResourceStatus::Archived);
    let n: CallbackNotification = roundtrip("callback-destinations/notification.json");
    assert_eq!(n.status, CallbackNotificationStatus::Retrying);
    assert_eq!(n.attempt_count, 2);
    let sent = n.event.and_then(|e| e.request).expect("embedded request");
    assert!(sent.body.is_some_and(|b| b.contains("tev_1287")));
    let nl: Page<CallbackNotification> = roundtrip("callback-destinations/notification-list.json");
    assert!(
        nl.items[0]
            .event
            .as_ref()
            .is_some_and(|e| e.request.is_none())
    );
    let e: DeploymentCallbackEvent = roundtrip("callback-destinations/callback-event.json");
    assert_eq!(e.delivery_status, EventDeliveryStatus::Sent);
}

#[test]
fn event_destinations_shapes_roundtrip() {
    let c: IntegrationCallback = roundtrip("event-destinations/callback.json");
    assert!(c.sync.is_none(), "magnetar has no sync");
    let l: Page<IntegrationCallback> = roundtrip("event-destinations/callback-list-dashboard.json");
    assert_eq!(
        l.items[0].sync.as_ref().map(|s| &s.status),
        Some(&SyncStatus::Synced)
    );
    let e: CallbackEvent = roundtrip("event-destinations/callback-event.json");
    let webhook = e.details.and_then(|d| d.webhook).expect("received webhook");
    assert_eq!(
        webhook.request.and_then(|r| r.body).map(|b| b.encoding),
        Some("base64".into())
    );
    let el: Page<CallbackEvent> = roundtrip("event-destinations/callback-event-list.json");
    assert_eq!(el.items[0].status, CallbackEventStatus::Failed);
    let i: CallbackInstance = roundtrip("event-destinations/callback-instance.json");
    assert_eq!(i.status.as_deref(), Some("active"));

    let created: EventDestination = roundtrip("event-destinations/destination-created.json");
    let secret = created
        .webhook
        .as_ref()
        .and_then(|w| w.signing_secret.clone())
        .expect("the create answer shows the secret");
    assert!(
        !format!("{created:?}").contains(secret.expose()),
        "Debug never shows the secret"
    );
    assert_eq!(created.listeners[0].kind, ListenerType::Callback);
    let dl: Page<EventDestination> = roundtrip("event-destinations/destination-list.json");
    assert!(
        dl.items[0]
            .webhook
            .as_ref()
            .is_some_and(|w| w.signing_secret.is_none())
    );
    assert_eq!(
        dl.items[0].retry.as_ref().map(|r| &r.strategy),
        Some(&RetryStrategy::Linear)
    );

    let ev: Event = roundtrip("event-destinations/event.json");
    assert_eq!(ev.source, Some(EventSource::Callback));
    let d: EventDelivery = roundtrip("event-destinations/delivery.json");
    assert_eq!(d.status, DeliveryStatus::Delivered);
    assert!(d.status.is_finished());
    assert_eq!(d.attempts.len(), 2);
    let dl: Page<EventDelivery> = roundtrip("event-destinations/delivery-list.json");
    assert!(!dl.items[0].status.is_finished());
    let a: DeliveryAttempt = roundtrip("event-destinations/delivery-attempt.json");
    let req = a.request.as_ref().expect("request on get");
    assert!(req.header("Metorial-Signature").is_some());
    let resp = a.response.as_ref().expect("response on get");
    assert_eq!(resp.status_code, Some(200));
    assert!(!resp.is_body_truncated);
    let types: Page<EventType> = roundtrip("event-destinations/event-type-list.json");
    assert_eq!(types.items[0].name, "session.created");
    let body: Value = fixture("event-destinations/webhook-body.json");
    assert_eq!(body["event_type"], "callback.issues.opened");
}

#[test]
fn newer_errors_and_envelopes_decode() {
    for f in [
        "error-endpoint-not-found.json",
        "error-invalid-data.json",
        "error-payment-required.json",
        "error-version-not-allowed-406.json",
        "event-destinations/error-callback-not-active.json",
    ] {
        let e: ApiError = serde_json::from_value(fixture(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(e.status >= 400, "{f}");
    }
    let empty: Page<EventDelivery> = roundtrip("list-empty.json");
    assert!(empty.items.is_empty());
}

#[test]
fn unknown_keys_absent_nullables_and_unknown_values_are_tolerated() {
    let mut v = fixture("event-destinations/delivery.json");
    let obj = v.as_object_mut().expect("object");
    obj.insert("brand_new".into(), Value::Bool(true));
    obj.remove("object");
    obj.remove("next_attempt_at");
    obj.remove("error");
    obj.insert("status".into(), Value::String("quarantined".into()));
    let d: EventDelivery = serde_json::from_value(v).expect("tolerant");
    assert_eq!(d.status, DeliveryStatus::Other("quarantined".into()));
    assert!(!d.status.is_finished());
    assert_eq!(d.next_attempt_at, None);
}

#[test]
fn one_verifier_checks_every_generations_signature() {
    let ex = fixture("signature-examples.json");
    for form in ["newer", "pulsar"] {
        let e = &ex[form];
        let (secret, header, body) = (
            e["secret"].as_str().expect("secret"),
            e["header"].as_str().expect("header"),
            e["body"].as_str().expect("body"),
        );
        assert_eq!(verify(secret, Some(header), Some(body)), Ok(()), "{form}");
        let tampered = body.replace("closed", "opened");
        assert_eq!(
            verify(secret, Some(header), Some(&tampered)),
            Err(SigError::Mismatch),
            "{form}"
        );
        assert_eq!(
            verify("whsec_other", Some(header), Some(body)),
            Err(SigError::Mismatch),
            "{form}"
        );
        let parts = switchboard::api::signature::parse_any(header).expect("parses");
        assert_eq!(parts.signed_string(body), e["signed_string"], "{form}");
    }
    let newer = &ex["newer"];
    assert_eq!(
        switchboard::api::signature::signature_newer(
            newer["secret"].as_str().expect("secret"),
            newer["timestamp"].as_i64().expect("t"),
            newer["body"].as_str().expect("body"),
        ),
        newer["header"]
    );
}

fn query(r: &ApiRequest) -> Vec<(&str, &str)> {
    r.query
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

#[test]
fn request_builders_have_the_contracts_paths_filters_and_bodies() {
    let base = url::Url::parse("http://h/").expect("url");
    let r = ApiRequest::assign_team_policy("tm_1", "apl_1");
    assert_eq!(
        (r.method.as_str(), r.path().as_str()),
        ("POST", "/organization/teams/tm_1/policies")
    );
    assert_eq!(
        r.body,
        Some(serde_json::json!({"access_policy_id": "apl_1"}))
    );
    let r = ApiRequest::remove_team_policy("tm_1", "apl_1");
    assert_eq!(
        (r.method.as_str(), r.path().as_str()),
        ("DELETE", "/organization/teams/tm_1/policies/apl_1")
    );

    let f = DeliveryFilter {
        statuses: vec!["failed".into(), "cancelled".into()],
        event_destination_ids: vec!["evtd_1".into()],
        ..DeliveryFilter::default()
    };
    let q = ListQuery {
        limit: Some(100),
        ..ListQuery::default()
    };
    let r = ApiRequest::list_deliveries(&q, &f);
    assert_eq!(r.path(), "/organization/event-deliveries");
    assert_eq!(
        query(&r),
        [
            ("limit", "100"),
            ("status[]", "failed"),
            ("status[]", "cancelled"),
            ("event_destination_id", "evtd_1")
        ]
    );
    assert_eq!(
        r.url(&base).expect("url").query(),
        Some("limit=100&status%5B%5D=failed&status%5B%5D=cancelled&event_destination_id=evtd_1")
    );
    for (r, method, path) in [
        (
            ApiRequest::retry_delivery("evdi_1"),
            "POST",
            "/organization/event-deliveries/evdi_1/retry",
        ),
        (
            ApiRequest::ping_event_destination("evtd_1"),
            "POST",
            "/organization/event-destinations/evtd_1/ping",
        ),
        (
            ApiRequest::archive_event_destination("evtd_1"),
            "POST",
            "/organization/event-destinations/evtd_1/archive",
        ),
        (
            ApiRequest::rotate_event_destination_secret("evtd_1"),
            "POST",
            "/organization/event-destinations/evtd_1/rotate-webhook-secret",
        ),
        (
            ApiRequest::get_delivery_attempt("evda_1"),
            "GET",
            "/organization/event-delivery-attempts/evda_1",
        ),
        (
            ApiRequest::delete_listener("evtl_1"),
            "DELETE",
            "/organization/event-destination-listeners/evtl_1",
        ),
        (
            ApiRequest::list_event_types(),
            "GET",
            "/organization/webhook-events",
        ),
        (
            ApiRequest::get_callback_notification("cbk_1", "sdi_1"),
            "GET",
            "/callbacks/cbk_1/notifications/sdi_1",
        ),
        (
            ApiRequest::delete_callback_destination("cbd_1"),
            "DELETE",
            "/callback-destinations/cbd_1",
        ),
        (
            ApiRequest::get_callback_event("cbe_1"),
            "GET",
            "/callback-events/cbe_1",
        ),
        (
            ApiRequest::auth_import_schema(Some("pro_1"), None),
            "GET",
            "/provider-auth-config-imports/schema",
        ),
    ] {
        assert_eq!((r.method.as_str(), r.path().as_str()), (method, path));
    }
    let mut create = CreateEventDestination::webhook("Ops", "https://hooks.example.com/in");
    create.retry = Some(RetryPolicy {
        strategy: RetryStrategy::Fixed,
        max_attempts: Some(5),
        base_delay_seconds: Some(10),
        max_delay_seconds: None,
    });
    let r = ApiRequest::create_event_destination(&create);
    assert_eq!(
        r.body,
        Some(serde_json::json!({
            "name": "Ops", "type": "webhook", "webhook": {"url": "https://hooks.example.com/in"},
            "retry": {"strategy": "fixed", "max_attempts": 5, "base_delay_seconds": 10}
        }))
    );
    let listener = CreateListener {
        instance_id: "ins_1".into(),
        event_destination_id: "evtd_1".into(),
        kind: ListenerType::Callback,
        event_types: None,
        callback_id: Some("cbk_1".into()),
        provider_id: None,
        triggers: Some(vec!["issues.opened".into()]),
        chat_connection_id: None,
    };
    assert_eq!(
        ApiRequest::create_listener(&listener).body,
        Some(serde_json::json!({
            "instance_id": "ins_1", "event_destination_id": "evtd_1", "type": "callback",
            "callback_id": "cbk_1", "triggers": ["issues.opened"]
        }))
    );
    let update = UpdateDeploymentCallback {
        destination_ids: Some(Vec::new()),
        ..UpdateDeploymentCallback::default()
    };
    let r = ApiRequest::update_deployment_callback("cbk_1", &update);
    assert_eq!(r.method.as_str(), "PATCH");
    assert_eq!(
        r.body,
        Some(serde_json::json!({"destination_ids": []})),
        "an empty set detaches all"
    );
    let events = CallbackEventFilter {
        callback_ids: vec!["cbk_1".into()],
        occurred_after: Some("2026-06-01T00:00:00.000Z".into()),
        ..CallbackEventFilter::default()
    };
    assert_eq!(
        query(&ApiRequest::list_callback_events(
            &ListQuery::default(),
            &events
        )),
        [
            ("callback_id", "cbk_1"),
            ("occurred_at[gt]", "2026-06-01T00:00:00.000Z")
        ]
    );
}

#[test]
fn an_imports_credential_is_sent_but_never_shown() {
    let mut value = serde_json::Map::new();
    value.insert(
        "access_token".into(),
        Value::String("gho_secret_token_123".into()),
    );
    let b = CreateAuthImport {
        note: "n".into(),
        value: CredentialValue::new(value),
        metadata: None,
        provider_id: Some("pro_1".into()),
        provider_deployment_id: None,
        provider_auth_config_id: None,
        provider_auth_method_id: None,
    };
    assert!(!format!("{b:?}").contains("gho_secret"), "{b:?}");
    let r = ApiRequest::create_auth_import(&b);
    assert_eq!(r.path(), "/provider-auth-config-imports");
    assert_eq!(
        r.body,
        Some(
            serde_json::json!({"note": "n", "value": {"access_token": "gho_secret_token_123"}, "provider_id": "pro_1"})
        )
    );
}

/// The team writes' answers on the newer generations (§4: each the whole refreshed team) read
/// as the typed team the faces show, and as pulsar's `Team`, which the member lookup of `teams
/// add-member | remove-member` reads (no `roles` on a project: none, not an error).
#[test]
fn dashboard_teams_read_as_the_team_writes_read_them() {
    let t: PolicyTeam = roundtrip("dashboard/team.json");
    let raw = fixture("dashboard/team.json");
    let as_pulsar: Team = serde_json::from_value(raw).expect("read as pulsar's team");
    assert_eq!(as_pulsar.id, t.id);
    assert_eq!(as_pulsar.name, "Platform");
    assert_eq!(as_pulsar.slug, "platform");
    assert!(as_pulsar.projects[0].roles.is_empty());
    let list: Page<Team> =
        serde_json::from_value(fixture("dashboard/team-list.json")).expect("a page of teams");
    assert_eq!(list.items.len(), 2);
    assert_eq!(list.items[1].description, None);
    // The bodies the writes send are pulsar's.
    let create = ApiRequest::create_team(&CreateTeam {
        name: "Night shift".into(),
        description: None,
    });
    assert_eq!(
        (create.method.as_str(), create.path().as_str()),
        ("POST", "/organization/teams")
    );
    let update = ApiRequest::update_team("tm_1", &UpdateTeam::default());
    assert_eq!(
        (update.method.as_str(), update.path().as_str()),
        ("POST", "/organization/teams/tm_1")
    );
}
