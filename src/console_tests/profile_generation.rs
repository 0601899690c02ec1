//! `:profile NAME` onto another deployment: the console detects that deployment's generation
//! again and shows its tabs (a pulsar profile and an `event-destinations` one, both served over
//! loopback HTTP).
use crossterm::event::KeyCode;
use switchboard::api::generation::Generation;
use switchboard::api::{Client, ClientOptions};
use switchboard::console::harness::Harness;
use switchboard::console::power::{ConfirmMode, ProfileInfo, ProfileSwitcher};
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::fixed_clock;

async fn service(generation: Generation) -> RunningService {
    let cfg = ServiceConfig {
        seed: Seed::Demo,
        generation,
        ..ServiceConfig::ephemeral()
    };
    start(cfg).await.expect("service starts")
}

fn client(svc: &RunningService) -> Client {
    Client::new(ClientOptions {
        max_retries: 0,
        ..svc.client_options()
    })
    .expect("client")
}

fn header(app: &Harness) -> String {
    app.screen().lines().next().unwrap_or_default().to_string()
}

fn shows_tabs_of(app: &Harness, g: Generation) {
    let head = header(app);
    for (i, t) in switchboard::console::tab::shown_for(g)
        .iter()
        .enumerate()
        .take(5)
    {
        assert!(
            head.contains(&format!(" {} {} ", i + 1, t.title())),
            "{g:?} {t:?}: {head}"
        );
    }
    assert!(app.list_error().is_none(), "{g:?}: {:?}", app.list_error());
    assert!(!app.row_ids().is_empty(), "{g:?}: rows\n{}", app.screen());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_switch_shows_the_new_deployments_generation() {
    let pulsar = service(Generation::Pulsar).await;
    let newest = service(Generation::EventDestinations).await;
    let (p, e) = (client(&pulsar), client(&newest));
    let switcher = ProfileSwitcher::new(move |name| {
        let c = match name {
            "pulsar" => p.clone(),
            "newest" => e.clone(),
            other => return Err(format!("profile {other:?} is not defined")),
        };
        let info = ProfileInfo {
            profile: name.into(),
            base_url: c.base_url().to_string(),
            read_only: false,
            confirm: ConfirmMode::Ask,
        };
        Ok((c, info))
    });
    let mut app = Harness::with_client("pulsar", client(&pulsar), fixed_clock(), (200, 40));
    app.set_switcher(switcher);
    app.settle().await.expect("idle");
    shows_tabs_of(&app, Generation::Pulsar);
    assert!(header(&app).contains("Notifications"), "{}", header(&app));

    app.ch(':').type_text("profile newest").key(KeyCode::Enter);
    app.settle().await.expect("idle");
    shows_tabs_of(&app, Generation::EventDestinations);
    assert!(!header(&app).contains("Notifications"), "{}", header(&app));
    // The digits follow the new order: the last shown digit reaches its tab.
    let shown = switchboard::console::tab::shown_for(Generation::EventDestinations);
    app.ch('2');
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), shown[1], "{}", app.screen());
    assert!(app.list_error().is_none(), "{:?}", app.list_error());

    app.ch(':').type_text("profile pulsar").key(KeyCode::Enter);
    app.settle().await.expect("idle");
    shows_tabs_of(&app, Generation::Pulsar);
    assert!(header(&app).contains("Notifications"), "{}", header(&app));
}

/// The header's line with the address: the generation beside it follows a `:profile` switch
/// onto a deployment of another generation (#34), and back.
fn address_line(app: &Harness, base: &str) -> String {
    app.screen()
        .lines()
        .take(3)
        .find(|l| l.contains(base))
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_headers_generation_follows_a_profile_switch() {
    let pulsar = service(Generation::Pulsar).await;
    let middle = service(Generation::CallbackDestinations).await;
    let (p, m) = (client(&pulsar), client(&middle));
    let switcher = ProfileSwitcher::new(move |name| {
        let c = match name {
            "pulsar" => p.clone(),
            "middle" => m.clone(),
            other => return Err(format!("profile {other:?} is not defined")),
        };
        let info = ProfileInfo {
            profile: name.into(),
            base_url: c.base_url().to_string(),
            read_only: false,
            confirm: ConfirmMode::Ask,
        };
        Ok((c, info))
    });
    let mut app = Harness::with_client("pulsar", client(&pulsar), fixed_clock(), (200, 40));
    app.set_switcher(switcher);
    app.settle().await.expect("idle");
    let pulsar_url = pulsar.base_url.trim_end_matches('/').to_string();
    let middle_url = middle.base_url.trim_end_matches('/').to_string();
    assert!(
        !address_line(&app, &pulsar_url).contains("callback-destinations"),
        "{}",
        app.screen()
    );

    app.ch(':').type_text("profile middle").key(KeyCode::Enter);
    app.settle().await.expect("idle");
    shows_tabs_of(&app, Generation::CallbackDestinations);
    let line = address_line(&app, &middle_url);
    assert!(
        line.contains(&format!("{middle_url} · callback-destinations")),
        "{line:?}\n{}",
        app.screen()
    );

    app.ch(':').type_text("profile pulsar").key(KeyCode::Enter);
    app.settle().await.expect("idle");
    shows_tabs_of(&app, Generation::Pulsar);
    let line = address_line(&app, &pulsar_url);
    assert!(
        line.contains(&format!("{pulsar_url} · pulsar")),
        "{line:?}\n{}",
        app.screen()
    );
    assert!(!line.contains("callback-destinations"), "{line:?}");
}
