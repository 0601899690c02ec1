//! Saved views and alerts in the console (issue 38) on `serve --generation event-destinations`
//! and `--generation callback-destinations` over real HTTP, one test for each: the shipped
//! `failed` view opens the generation's list (Deliveries, Notifications) filtered by status on
//! the server; `:view save` keeps that status and a restart on the same config applies it with
//! `:view NAME`; a failing rule over every destination shows `⚠ N alerts` in the header and `!`
//! lists it.
use crossterm::event::KeyCode;
use switchboard::api::generation::Generation;
use switchboard::console::power::PowerSetup;
use switchboard::console::{App, ConsoleSetup, Msg, Tab};

use super::search_generations::{client, sent, service};
use crate::common::deliveries::settle;
use crate::common::{ch, key, screen, shown_ids, typed};

fn command(app: &mut App, line: &str) {
    app.apply(ch(':'));
    typed(app, line);
    app.apply(key(KeyCode::Enter));
}

async fn console(
    c: &switchboard::api::Client,
    g: Generation,
    config: &std::path::Path,
    alerts: Vec<switchboard::alerts::Rule>,
) -> App {
    let setup = ConsoleSetup {
        client: c.clone(),
        profile: "work".into(),
        read_only: false,
        power: PowerSetup {
            profiles: vec!["work".into()],
            config_path: Some(config.to_path_buf()),
            alerts,
            ..PowerSetup::default()
        },
    };
    let mut app = setup.app();
    app.show_generation(g);
    app.apply(Msg::Resize(200, 40));
    app.start();
    settle(&mut app).await;
    app
}

fn rules(text: &str) -> Vec<switchboard::alerts::Rule> {
    let table: toml::Table = toml::from_str(text).expect("rule");
    let env = switchboard::config::Env::from_pairs::<&str, &str>([]);
    switchboard::alerts::parse_rules(&[table], "[[alerts]]", None, &env).expect("rules")
}

async fn views_and_alerts(g: Generation) {
    let svc = service(g, 0).await;
    let c = client(&svc, 200);
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "[profiles.work]\n").expect("config");
    let list = if g == Generation::CallbackDestinations {
        Tab::CallbackNotifications
    } else {
        Tab::Deliveries
    };

    // The shipped view: the generation's list, failed only, filtered by the platform.
    let mut app = console(&c, g, &path, Vec::new()).await;
    command(&mut app, "view failed");
    settle(&mut app).await;
    assert_eq!(app.state.tab, list, "{g}\n{}", screen(&app));
    let all = sent(&c, g).await;
    let failed = shown_ids(&app);
    assert!(
        !failed.is_empty(),
        "{g}: the demo has failed items\n{}",
        screen(&app)
    );
    for id in &failed {
        let st = all
            .iter()
            .find(|(i, _, _)| i == id)
            .map(|(_, s, _)| s.as_str());
        assert_eq!(st, Some("failed"), "{g}: {id}");
    }
    // Kept, and applied again after a restart on the same config.
    command(&mut app, "view save broken");
    settle(&mut app).await;
    let text = std::fs::read_to_string(&path).expect("config");
    assert!(
        text.contains("[profiles.work.views.broken]") && text.contains("status = \"failed\""),
        "{g}: {text}"
    );
    let mut again = console(&c, g, &path, Vec::new()).await;
    command(&mut again, "view broken");
    settle(&mut again).await;
    assert_eq!(again.state.tab, list, "{g}");
    let mut a = shown_ids(&again);
    let mut b = failed.clone();
    a.sort();
    b.sort();
    assert!(a.len().abs_diff(b.len()) <= 1, "{g}: {a:?} vs {b:?}");

    // Alerts: every destination with a failed item fails the rule.
    let failing = rules(
        "name = \"any down\"\nrule = \"consecutive_failures\"\ndestination = \"*\"\ncount = 1\n",
    );
    let mut alerting = console(&c, g, &path, failing).await;
    let s = screen(&alerting);
    let header = s.lines().take(3).collect::<Vec<_>>().join("\n");
    assert!(header.contains("⚠") && header.contains("alert"), "{g}\n{s}");
    alerting.apply(ch('!'));
    settle(&mut alerting).await;
    let s = screen(&alerting);
    assert!(
        s.contains("Active alerts") && s.contains("any down"),
        "{g}\n{s}"
    );
    svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_and_alerts_on_event_destinations() {
    Box::pin(views_and_alerts(Generation::EventDestinations)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_and_alerts_on_callback_destinations() {
    Box::pin(views_and_alerts(Generation::CallbackDestinations)).await;
}
