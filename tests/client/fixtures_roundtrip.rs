//! Every golden fixture decodes into the typed model, and re-encoding keeps every key it had.
use std::path::PathBuf;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use switchboard::api::model::*;
use switchboard::api::{ApiError, Page};

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every key path of `original` must be present, with an equal value, in `reencoded`.
fn assert_keeps_keys(original: &Value, reencoded: &Value, at: &str) {
    match (original, reencoded) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                if k == "__typename" {
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
fn resources_roundtrip() {
    let team: Team = roundtrip("team.json");
    assert_eq!(team.projects.len(), 2);
    assert_eq!(team.projects[0].roles[1].role.slug, "editor");
    let imp: ProviderOauthImport = roundtrip("import.json");
    assert_eq!(imp.status, ImportStatus::Active);
    let created: ProviderOauthImport = roundtrip("import-created.json");
    assert!(created.id_token.is_some());
    let cb: Callback = roundtrip("callback.json");
    assert_eq!(cb.kind, CallbackType::WebhookManaged);
    let d: Destination = roundtrip("destination.json");
    assert!(d.callbacks.includes("clb_0mh50tps4lvHAdMkez5U6s"));
    assert!(!d.callbacks.includes("clb_other"));
    let n: Notification = roundtrip("notification.json");
    assert_eq!(n.attempts.len(), 2);
    assert_eq!(n.event_type().as_deref(), Some("issues.opened"));
    assert_eq!(n.last_attempt().map(|a| a.index), Some(1));
}

#[test]
fn lists_roundtrip() {
    let p: Page<Team> = roundtrip("team-list.json");
    assert!(p.pagination.has_more_after);
    let p: Page<ProviderOauthImport> = roundtrip("import-list.json");
    assert_eq!(p.items[1].status, ImportStatus::Expired);
    let p: Page<Callback> = roundtrip("callback-list.json");
    assert_eq!(p.items[2].kind, CallbackType::WebhookManual);
    let p: Page<Destination> = roundtrip("destination-list.json");
    assert_eq!(p.items[0].callbacks.kind, SelectionType::All);
    let p: Page<Notification> = roundtrip("notification-list.json");
    assert_eq!(p.items[1].status, NotificationStatus::Pending);
    let p: Page<Member> = roundtrip("member-list.json");
    assert_eq!(p.items[0].actor_id, "oac_0mh50lvdgOEHdkMux2rdQM");
    assert_eq!(p.items[0].teams()[0].slug, "platform");
    assert!(p.items[0].in_team("tm_0mh50j7p0FfQzjnqvJ7a7X"));
    assert!(p.items[1].teams().is_empty());
    assert_eq!(p.items[1].display_name(), "Grace Hopper");
    let p: Page<Project> = roundtrip("project-list.json");
    assert_eq!(p.items.len(), 2);
    let p: Page<TeamRole> = roundtrip("team-role-list.json");
    assert_eq!(p.items[0].permissions.len(), 2);
}

#[test]
fn lists_are_written_with_the_list_typename() {
    let p: Page<Team> = serde_json::from_value(fixture("team-list.json")).expect("decode");
    let v = serde_json::to_value(&p).expect("encode");
    assert_eq!(v["__typename"], "list");
    assert_eq!(v, fixture("team-list.json"));
}

#[test]
fn errors_decode() {
    let e: ApiError = roundtrip("error-invalid-data.json");
    assert_eq!(e.errors.len(), 2);
    assert_eq!(e.errors[0].field(), Some("server_deployment_id"));
    let e: ApiError = roundtrip("error-not-found.json");
    assert_eq!(e.id_text().as_deref(), Some("cld_0mh50cocxa3nejPaTHLY7V"));
    for f in [
        "error-bad-request.json",
        "error-rate-limited.json",
        "error-unauthorized.json",
    ] {
        let e: ApiError = roundtrip(f);
        assert!(e.status >= 400, "{f}");
    }
    let e: ApiError = roundtrip("error-endpoint-not-found.json");
    assert_eq!(e.entity.as_deref(), Some("endpoint"));
}

#[test]
fn version_lists_roundtrip_and_tell_the_eras_apart() {
    use switchboard::api::versions::{Discovery, VersionList};
    let pulsar_era: VersionList = roundtrip("introspect-versions.json");
    assert_eq!(
        Discovery::Listed(pulsar_era).header_value(),
        "mt_2025_01_01_pulsar"
    );
    let newer: VersionList = roundtrip("introspect-versions-newer.json");
    assert_eq!(newer.versions.len(), 2);
    assert!(Discovery::Listed(newer).without_pulsar().is_some());
}

#[test]
fn unknown_enum_values_and_keys_survive() {
    let mut v = fixture("notification.json");
    v["status"] = Value::String("quarantined".into());
    v["brand_new_key"] = Value::Bool(true);
    v["attempts"][0]["status"] = Value::String("skipped".into());
    let n: Notification = serde_json::from_value(v).expect("tolerant decode");
    assert_eq!(n.status, NotificationStatus::Other("quarantined".into()));
    assert_eq!(n.status.to_string(), "quarantined");
    assert_eq!(n.attempts[0].status.as_str(), "skipped");
    let back = serde_json::to_value(&n).expect("encode");
    assert_eq!(back["status"], "quarantined");
}

#[test]
fn members_without_actor_or_top_level_names_still_decode() {
    let mut v = fixture("member-list.json");
    // An older server: no actor, so no teams; names from the top level.
    v["items"][0]
        .as_object_mut()
        .expect("member")
        .remove("actor");
    // The platform itself: names only on the actor, a machine actor without email.
    let second = v["items"][1].as_object_mut().expect("member");
    second.remove("name");
    second.insert("email".into(), Value::Null);
    second["actor"]["email"] = Value::Null;
    second["actor"]["type"] = Value::String("machine_access".into());
    second["actor"]["name"] = Value::String("CI key".into());
    let p: Page<Member> = serde_json::from_value(v).expect("tolerant decode");
    assert!(p.items[0].actor.is_none());
    assert!(p.items[0].teams().is_empty());
    assert_eq!(p.items[0].display_name(), "Ada Lovelace");
    assert_eq!(p.items[0].contact_email(), Some("ada@example.com"));
    assert_eq!(p.items[1].display_name(), "CI key");
    assert_eq!(p.items[1].contact_email(), None);
    let actor = p.items[1].actor.as_ref().expect("actor");
    assert_eq!(actor.kind, ActorType::MachineAccess);
}

#[test]
fn timestamps_keep_milliseconds() {
    let cb: Callback = serde_json::from_value(fixture("callback.json")).expect("decode");
    let back = serde_json::to_value(&cb).expect("encode");
    assert_eq!(back["created_at"], "2025-10-24T15:41:45.140Z");
}

#[test]
fn debug_output_masks_secrets() {
    let d: Destination = serde_json::from_value(fixture("destination.json")).expect("decode");
    let secret = d
        .webhook_destination
        .as_ref()
        .expect("webhook")
        .signing_secret
        .clone();
    assert!(
        !format!("{d:?}").contains(&secret),
        "signing secret in Debug output"
    );
    let i: ProviderOauthImport =
        serde_json::from_value(fixture("import-created.json")).expect("decode");
    let token = i.id_token.clone().expect("id token");
    assert!(
        !format!("{i:?}").contains(&token),
        "id token in Debug output"
    );
    let body = CreateImport {
        access_token: "tok_supersecret_value".into(),
        ..Default::default()
    };
    assert!(!format!("{body:?}").contains("supersecret"));
}
