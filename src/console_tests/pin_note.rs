//! #34: a pin the server contradicts is reported, not obeyed blindly. `--generation pulsar`
//! against `serve --generation event-destinations` over real HTTP: the console shows the
//! server's tabs, and its header and a toast say the pin is not what the server serves; a pin
//! that agrees says nothing.
use std::time::Duration;

use switchboard::api::detect::{Pin, PinSource};
use switchboard::api::generation::Generation;
use switchboard::api::{Client, ClientOptions, Secret};
use switchboard::console::harness::Harness;
use switchboard::console::{ConsoleSetup, Tab};
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

const ORG_KEY: &str = "sk_org_console_pin_note_0123456789";
const INSTANCE_KEY: &str = "sk_instance_console_pin_note_0123";

async fn service() -> RunningService {
    start(ServiceConfig {
        seed: Seed::Demo,
        generation: Generation::EventDestinations,
        api_key: Some(Secret::new(ORG_KEY)),
        instance_key: Some(Secret::new(INSTANCE_KEY)),
        ..ServiceConfig::ephemeral()
    })
    .await
    .expect("service starts")
}

fn setup(svc: &RunningService, pinned: Generation) -> ConsoleSetup {
    let client = Client::new(ClientOptions {
        base_url: svc.base_url.clone(),
        api_key: Secret::new(INSTANCE_KEY),
        organization_key: Some(Secret::new(ORG_KEY)),
        instance_id: svc.instance_id.clone(),
        max_retries: 0,
        request_timeout: Duration::from_secs(15),
        pin: Some(Pin {
            generation: pinned,
            source: PinSource::Flag,
        }),
        ..ClientOptions::default()
    })
    .expect("client");
    ConsoleSetup {
        client,
        profile: "pin".into(),
        read_only: false,
        power: Default::default(),
    }
}

/// The header's second line (profile and place).
fn place(app: &Harness) -> String {
    app.screen().lines().nth(1).unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pin_the_server_contradicts_is_said_in_the_header() {
    let svc = service().await;
    let mut app = Harness::from_setup(&setup(&svc, Generation::Pulsar), (160, 40)).await;
    app.settle().await.expect("idle");
    // The server's generation is used: its tabs, its teams.
    assert_eq!(app.tab(), Tab::OrgTeams, "{}", app.screen());
    assert!(app.list_error().is_none(), "{:?}", app.list_error());
    let head = place(&app);
    assert!(
        head.contains("event-destinations (pinned pulsar, not served)"),
        "{head}"
    );
    let toasts = app.toasts();
    assert!(
        toasts
            .iter()
            .any(|t| t.contains("--generation pins generation pulsar")
                && t.contains("event-destinations")),
        "{toasts:?}"
    );

    // A pin the server agrees with says nothing.
    let mut app = Harness::from_setup(&setup(&svc, Generation::EventDestinations), (160, 40)).await;
    app.settle().await.expect("idle");
    assert!(!place(&app).contains("pinned"), "{}", place(&app));
    assert!(
        app.toasts().iter().all(|t| !t.contains("pins")),
        "{:?}",
        app.toasts()
    );
    svc.shutdown().await;
}
