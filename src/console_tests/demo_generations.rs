//! `demo --generation event-destinations|callback-destinations`: the console the demo opens holds
//! the keys and the instance id the service made, so every tab of the generation reads (it was
//! given the organization key alone, and every instance path answered 400).
use switchboard::api::Client;
use switchboard::api::generation::Generation;
use switchboard::console::harness::Harness;
use switchboard::service::{ServiceConfig, start};

use crate::common::fixed_clock;

/// The demo's service and console as `switchboard demo --generation G` builds them.
async fn every_tab_reads(generation: Generation, rows_everywhere: bool) {
    let cfg = ServiceConfig {
        generation,
        simulate_events: None,
        ..ServiceConfig::demo(None)
    };
    let svc = start(cfg).await.expect("service starts");
    let client = Client::new(svc.client_options()).expect("client");
    let detected = client.served().await.and_then(|c| c.generation);
    assert_eq!(detected, Some(generation), "detected");
    let mut app = Harness::with_client("demo", client, fixed_clock(), (200, 40));
    app.show_generation(generation);
    app.settle().await.expect("idle");
    for t in switchboard::console::tab::shown_for(generation) {
        app.ch(':')
            .type_text(t.aliases()[0])
            .key(crossterm::event::KeyCode::Enter);
        app.settle().await.expect("idle");
        assert_eq!(app.tab(), t, "{}", app.screen());
        let s = app.screen();
        assert!(
            app.list_error().is_none(),
            "{t:?}: {:?}\n{s}",
            app.list_error()
        );
        assert!(!s.contains("metorial-instance-id"), "{t:?}: {s}");
        if rows_everywhere {
            assert!(!app.row_ids().is_empty(), "{t:?}: rows\n{s}");
        }
    }
    svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_destinations_demo_console_reads_every_tab() {
    every_tab_reads(Generation::EventDestinations, true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_callback_destinations_demo_console_reads_every_tab() {
    every_tab_reads(Generation::CallbackDestinations, false).await;
}
