//! Alerts in the console (issue 38), on the local service with a receiver that fails: the
//! profile's rule is judged on the worker when the console opens, the header says how many are
//! failing, `!` lists them (the rule, the destination by name, how many deliveries) and `Esc`
//! closes the list; a rule that holds shows nothing. While the console runs the rules are
//! judged again on its timer (a receiver that recovers leaves the header), and after
//! `:profile NAME` the new profile's rules are the ones judged.
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::post;
use crossterm::event::KeyCode;
use switchboard::api::model::{CallbacksInput, CreateDestination, NotificationStatus};
use switchboard::api::{ListQuery, NotificationFilter};
use switchboard::console::power::{
    AlertsLoader, ConfirmMode, PowerSetup, ProfileInfo, ProfileSwitcher,
};
use switchboard::console::{App, ConsoleSetup, Msg, State};

use crate::common::deliveries::{World, fixed_clock, settle, world};
use crate::common::service::eventually;
use crate::common::{ch, key, screen, typed};

fn rules(text: &str) -> Vec<switchboard::alerts::Rule> {
    let table: toml::Table = toml::from_str(text).expect("rule");
    let env = switchboard::config::Env::from_pairs::<&str, &str>([]);
    switchboard::alerts::parse_rules(&[table], "[[alerts]]", None, &env).expect("rules")
}

async fn app(w: &World, rules: Vec<switchboard::alerts::Rule>) -> App {
    let mut state = State::new("test", w.t.svc.base_url.clone(), fixed_clock());
    PowerSetup {
        alerts: rules,
        ..PowerSetup::default()
    }
    .configure(&mut state);
    let mut app = App::with_client(state, w.t.client.clone());
    app.apply(Msg::Resize(160, 40));
    app.start();
    settle(&mut app).await;
    app
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_rules_show_in_the_header_and_bang_lists_them() {
    let w = world().await;
    w.fire(1).await;
    let failing = rules(&format!(
        "name = \"orders down\"\nrule = \"consecutive_failures\"\ndestination = \"{}\"\ncount = 1\n",
        w.down
    ));
    let mut a = app(&w, failing).await;
    let s = screen(&a);
    let header = s.lines().nth(1).unwrap_or_default();
    assert!(header.contains("⚠ 1 alert · !"), "{s}");

    a.apply(ch('!'));
    settle(&mut a).await;
    let s = screen(&a);
    assert!(s.contains("Active alerts"), "{s}");
    let row = s
        .lines()
        .find(|l| l.contains("orders down"))
        .unwrap_or_else(|| panic!("the rule listed:\n{s}"));
    assert!(
        row.contains("consecutive_failures") && row.contains("1 deliveries"),
        "{row}"
    );
    a.apply(key(KeyCode::Esc));
    assert!(!screen(&a).contains("Active alerts"));

    // The healthy destination: nothing in the header; `!` says none is failing.
    let fine = rules(&format!(
        "name = \"orders ok\"\nrule = \"consecutive_failures\"\ndestination = \"{}\"\ncount = 1\n",
        w.healthy
    ));
    let mut b = app(&w, fine).await;
    assert!(!screen(&b).contains("⚠"), "{}", screen(&b));
    b.apply(ch('!'));
    settle(&mut b).await;
    assert!(screen(&b).contains("No rule is failing."), "{}", screen(&b));

    // Without rules, `!` says where they go.
    let mut c = app(&w, Vec::new()).await;
    c.apply(ch('!'));
    assert!(
        screen(&c).contains("No alert rules for profile test"),
        "{}",
        screen(&c)
    );
}

/// A receiver of the test's own: 503 while `fail` holds, 200 after.
async fn switchable(fail: Arc<AtomicBool>) -> String {
    let app = Router::new().route(
        "/",
        post(move || {
            let fail = fail.clone();
            async move {
                if fail.load(Ordering::SeqCst) {
                    StatusCode::SERVICE_UNAVAILABLE
                } else {
                    StatusCode::OK
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/")
}

/// Fires one event and waits until `dest` has tried it, with the status it should have.
async fn fired(w: &World, dest: &str, n: u32, want: NotificationStatus) {
    let event = w.fire(n).await;
    let f = NotificationFilter {
        event_ids: vec![event],
        destination_ids: vec![dest.to_string()],
        ..Default::default()
    };
    eventually(Duration::from_secs(10), || async {
        let p =
            w.t.client
                .list_notifications(&ListQuery::default(), &f)
                .await
                .ok()?;
        p.items
            .first()
            .filter(|n| !n.attempts.is_empty() && n.status != NotificationStatus::Pending)
            .map(|n| assert_eq!(n.status, want, "{n:?}"))
    })
    .await;
}

fn header(app: &App) -> String {
    screen(app).lines().nth(1).unwrap_or_default().to_string()
}

/// Ticks the console `n` times (its timer's unit), the replies applied after each.
async fn tick(app: &mut App, n: u32) {
    for _ in 0..n {
        app.apply(Msg::Tick);
        settle(app).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_timer_judges_the_rules_again_and_a_recovered_receiver_leaves_the_header() {
    let w = world().await;
    let fail = Arc::new(AtomicBool::new(true));
    let url = switchable(fail.clone()).await;
    let dest =
        w.t.client
            .create_destination(&CreateDestination {
                name: "Partner".into(),
                description: None,
                url,
                callbacks: CallbacksInput::selected(vec![w.callback.clone()]),
            })
            .await
            .expect("destination")
            .id;
    fired(&w, &dest, 1, NotificationStatus::Retrying).await;
    let rule = rules(&format!(
        "name = \"partner down\"\nrule = \"consecutive_failures\"\ndestination = \"{dest}\"\ncount = 1\n"
    ));
    let mut a = app(&w, rule).await;
    assert!(header(&a).contains("⚠ 1 alert · !"), "{}", screen(&a));

    // The receiver recovers; the console learns it on its timer (30 s: 150 ticks of 200 ms).
    fail.store(false, Ordering::SeqCst);
    fired(&w, &dest, 2, NotificationStatus::Succeeded).await;
    tick(&mut a, 149).await;
    assert!(
        header(&a).contains("⚠ 1 alert"),
        "not judged again before the interval:\n{}",
        screen(&a)
    );
    tick(&mut a, 1).await;
    assert!(!header(&a).contains("⚠"), "{}", screen(&a));

    // Failing again: the next interval brings it back.
    fail.store(true, Ordering::SeqCst);
    fired(&w, &dest, 3, NotificationStatus::Retrying).await;
    tick(&mut a, 150).await;
    assert!(header(&a).contains("⚠ 1 alert · !"), "{}", screen(&a));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_switch_judges_the_new_profiles_rules() {
    let w = world().await;
    w.fire(1).await;
    let failing = rules(&format!(
        "name = \"orders down\"\nrule = \"consecutive_failures\"\ndestination = \"{}\"\ncount = 1\n",
        w.down
    ));
    let (client, url) = (w.t.client.clone(), w.t.svc.base_url.clone());
    // Only profile `other` has rules (as its section of the config would).
    let loader = AlertsLoader::new(move |name| {
        Ok(if name == "other" {
            failing.clone()
        } else {
            Vec::new()
        })
    });
    let power = PowerSetup {
        profiles: vec!["test".into(), "other".into()],
        switcher: Some(ProfileSwitcher::new(move |name| {
            let info = ProfileInfo {
                profile: name.to_string(),
                base_url: url.clone(),
                read_only: false,
                confirm: ConfirmMode::Ask,
            };
            Ok((client.clone(), info))
        })),
        alerts_loader: Some(loader),
        ..PowerSetup::default()
    };
    let mut a = ConsoleSetup {
        client: w.t.client.clone(),
        profile: "test".into(),
        read_only: false,
        power,
    }
    .app();
    a.apply(Msg::Resize(160, 40));
    a.start();
    settle(&mut a).await;
    assert!(!header(&a).contains("⚠"), "{}", screen(&a));

    for (profile, failing) in [("other", true), ("test", false)] {
        a.apply(ch(':'));
        typed(&mut a, &format!("profile {profile}"));
        a.apply(key(KeyCode::Enter));
        settle(&mut a).await;
        let h = header(&a);
        assert_eq!(
            h.contains("⚠ 1 alert · !"),
            failing,
            "{profile}: {}",
            screen(&a)
        );
    }
}
