//! The console's header shows the generation the detection cache holds for the profile's
//! service, beside the address; nothing when nothing was detected.
use switchboard::api::detect::{Detection, Detector, Routes};
use switchboard::api::identity::ServiceIdentity;
use switchboard::api::{Client, ClientOptions};
use switchboard::console::ConsoleSetup;

fn setup(dir: &std::path::Path) -> ConsoleSetup {
    let base = "http://127.0.0.1:9";
    let client = Client::new(ClientOptions {
        base_url: base.into(),
        ..ClientOptions::default()
    })
    .expect("client")
    .with_detector(Detector::new(dir, ServiceIdentity::new(base, None)));
    ConsoleSetup {
        client,
        profile: "p".into(),
        read_only: false,
        power: Default::default(),
    }
}

#[test]
fn the_header_shows_the_cached_generation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = setup(dir.path());
    assert_eq!(s.initial_state().base_url, "http://127.0.0.1:9");
    let routes = Routes {
        dashboard: ["organization/event-destinations".to_string()].into(),
        magnetar: Default::default(),
    };
    let d = Detection::from_routes("http://127.0.0.1:9", None, routes, chrono::Utc::now());
    s.client
        .detector()
        .expect("detector")
        .store(&d)
        .expect("store");
    assert_eq!(
        s.initial_state().base_url,
        "http://127.0.0.1:9 · event-destinations"
    );
}
