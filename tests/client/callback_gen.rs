//! `callback-destinations` from the client's side against its golden fixtures
//! (`tests/fixtures/generations/callback-destinations/`): a replay of the embedded request carries
//! the headers the platform's deliveries carry (`webhook-headers.json`), signed `t=…,v1=…` as the
//! one verifier checks, and a notification's destination preview is matched to the callback's
//! destination by id, then URL, then name.
use std::path::PathBuf;

use serde_json::Value;
use switchboard::api::Secret;
use switchboard::api::callback_gen::{names_destination, replay_request, sign};
use switchboard::api::model::{CallbackDestination, CallbackNotification, DeploymentCallback};
use switchboard::api::signature::{SigError, verify};

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/generations/callback-destinations")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn notification() -> CallbackNotification {
    serde_json::from_value(fixture("notification.json")).expect("notification fixture decodes")
}

#[test]
fn a_replay_carries_the_platforms_delivery_headers_and_a_t_v1_signature() {
    let n = notification();
    let (body, mut headers) = replay_request(&n).expect("the fixture embeds its request");
    sign(
        &mut headers,
        &Secret::new("whsec_fixture"),
        1_775_826_093,
        &body,
    );
    let recorded = fixture("webhook-headers.json");
    let recorded = recorded.as_object().expect("an object of headers");
    let get = |k: &str| {
        headers
            .iter()
            .find(|(h, _)| h.eq_ignore_ascii_case(k))
            .map(|(_, v)| v.clone())
    };
    // Every header the platform sends is sent again, with the same value where it names the
    // same thing (the signature and attempt are made afresh; the sender is the platform's own).
    for (k, v) in recorded {
        if k == "Metorial-Sender" {
            continue;
        }
        let sent = get(k).unwrap_or_else(|| panic!("{k} not sent: {headers:?}"));
        match k.as_str() {
            "Metorial-Signature" => assert!(sent.starts_with("t=1775826093,v1="), "{sent}"),
            "Metorial-Delivery-Attempt" => assert_eq!(sent, "3", "one past the attempts made"),
            _ => assert_eq!(Some(sent.as_str()), v.as_str(), "{k}"),
        }
    }
    let sig = get("Metorial-Signature").unwrap_or_default();
    assert_eq!(verify("whsec_fixture", Some(&sig), Some(&body)), Ok(()));
    assert_eq!(
        verify("whsec_other", Some(&sig), Some(&body)),
        Err(SigError::Mismatch)
    );
    assert!(!sig.contains("i="), "this generation signs no host: {sig}");
}

#[test]
fn a_listed_notification_embeds_no_request_so_nothing_is_replayed_from_it() {
    let list = fixture("notification-list.json");
    let item = list["items"][0].clone();
    let n: CallbackNotification = serde_json::from_value(item).expect("list item decodes");
    assert!(replay_request(&n).is_none());
}

#[test]
fn the_sending_destination_is_matched_by_id_then_url_then_name() {
    let n = notification();
    let callback: DeploymentCallback =
        serde_json::from_value(fixture("callback.json")).expect("callback decodes");
    let d = callback
        .destinations
        .first()
        .expect("a destination")
        .clone();
    // The preview's id is the delivery service's `sed_…`: the URL matches.
    assert_ne!(
        n.destination.as_ref().map(|p| p.id.as_str()),
        Some(d.id.as_str())
    );
    assert!(names_destination(&n, &d));
    let mut other: CallbackDestination = d.clone();
    other.url = "https://elsewhere.example.com/in".into();
    assert!(names_destination(&n, &other), "still the same name");
    other.name = "Someone else".into();
    assert!(!names_destination(&n, &other));
    let mut by_id = other.clone();
    by_id.id = n
        .destination
        .as_ref()
        .map(|p| p.id.clone())
        .unwrap_or_default();
    assert!(names_destination(&n, &by_id));
}
