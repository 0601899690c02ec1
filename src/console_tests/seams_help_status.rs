//! Issue 37 item 1: help's text for `l` says what `l` does on the tab it is asked on: on the
//! newest generation's deliveries the platform filters by status (nothing scanned here).
use std::time::Duration;

use switchboard::api::generation::Generation;
use switchboard::api::{Client, ClientOptions, Secret};
use switchboard::console::harness::Harness;
use switchboard::service::{Seed, ServiceConfig, start};

use crate::common::fixed_clock;

const ORG_KEY: &str = "sk_org_console_seams_help_status_0123456789";
const INSTANCE_KEY: &str = "sk_instance_console_seams_help_status_01234";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_says_l_is_the_servers_status_filter_on_the_newest_generation() {
    let cfg = ServiceConfig {
        seed: Seed::Demo,
        generation: Generation::EventDestinations,
        api_key: Some(Secret::new(ORG_KEY)),
        instance_key: Some(Secret::new(INSTANCE_KEY)),
        ..ServiceConfig::ephemeral()
    };
    let svc = start(cfg).await.expect("service starts");
    let client = Client::new(ClientOptions {
        base_url: svc.base_url.clone(),
        api_key: Secret::new(INSTANCE_KEY),
        organization_key: Some(Secret::new(ORG_KEY)),
        instance_id: svc.instance_id.clone(),
        max_retries: 0,
        request_timeout: Duration::from_secs(15),
        ..ClientOptions::default()
    })
    .expect("client");
    let mut app = Harness::with_client("ed", client.clone(), fixed_clock(), (200, 50));
    app.show_generation(Generation::EventDestinations);
    app.settle().await.expect("idle");
    let tab = switchboard::console::Tab::Deliveries;
    app.ch(':')
        .type_text(tab.aliases()[0])
        .key(crossterm::event::KeyCode::Enter);
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), tab, "{}", app.screen());
    app.ch('?');
    let help = app.screen();
    assert!(
        help.contains("keep one status, filtered by the server"),
        "{help}"
    );
    assert!(
        !help.contains("looked for from the top of the list"),
        "{help}"
    );
}
