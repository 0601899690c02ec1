//! Power tools against real local services over loopback HTTP: `:goto` for every id prefix, and
//! `:profile NAME` switching at runtime with the old profile's request in flight ignored.

use crate::common::*;
use crossterm::event::KeyCode;
use switchboard::api::{ListQuery, NotificationFilter};
use switchboard::console::power::{ConfirmMode, ProfileInfo, ProfileSwitcher};
use switchboard::console::state::LoadState;
use switchboard::console::{App, Msg, State, Tab};

fn command(app: &mut App, line: &str) {
    app.apply(ch(':'));
    for c in line.chars() {
        app.apply(ch(c));
    }
    app.apply(key(KeyCode::Enter));
}

fn toasted(app: &App, text: &str) -> bool {
    app.state.toasts.iter().any(|t| t.text.contains(text))
}

/// A profile named `name` on `client`, read-only.
fn info(name: &str, url: &str) -> ProfileInfo {
    ProfileInfo {
        profile: name.into(),
        base_url: url.into(),
        read_only: true,
        confirm: ConfirmMode::Ask,
    }
}

/// Applies worker replies until `done` holds (bounded by the deadline of `next_reply`).
async fn until(app: &mut App, done: impl Fn(&App) -> bool) {
    while !done(app) {
        let m = next_reply(app).await;
        app.apply(m);
    }
}

#[tokio::test]
async fn goto_opens_every_kind_of_id_from_the_local_service() {
    let t = crate::common::service::demo().await;
    let q = ListQuery::default();
    let c = &t.client;
    let first = |ids: Vec<String>| ids.into_iter().next().expect("the demo has one");
    let cases = [
        (
            first(
                c.list_teams(&q)
                    .await
                    .expect("teams")
                    .items
                    .into_iter()
                    .map(|x| x.id)
                    .collect(),
            ),
            Tab::Teams,
        ),
        (
            first(
                c.list_imports(&q)
                    .await
                    .expect("imports")
                    .items
                    .into_iter()
                    .map(|x| x.id)
                    .collect(),
            ),
            Tab::Imports,
        ),
        (
            first(
                c.list_callbacks(&q)
                    .await
                    .expect("callbacks")
                    .items
                    .into_iter()
                    .map(|x| x.id)
                    .collect(),
            ),
            Tab::Callbacks,
        ),
        (
            first(
                c.list_destinations(&q, &[])
                    .await
                    .expect("destinations")
                    .items
                    .into_iter()
                    .map(|x| x.id)
                    .collect(),
            ),
            Tab::Destinations,
        ),
        (
            first(
                c.list_notifications(&q, &NotificationFilter::default())
                    .await
                    .expect("notifications")
                    .items
                    .into_iter()
                    .map(|x| x.id)
                    .collect(),
            ),
            Tab::Notifications,
        ),
    ];
    let mut app = App::with_client(
        State::new("demo", t.svc.base_url.clone(), fixed_clock()),
        t.client.clone(),
    );
    app.apply(Msg::Resize(120, 40));
    app.start();
    for (id, tab) in cases {
        command(&mut app, &format!("goto {id}"));
        assert_eq!(app.state.tab, tab);
        until(&mut app, |a| {
            a.state.tab_state(tab).detail.as_ref().is_some_and(|d| {
                d.load == LoadState::Loaded && d.record.as_ref().is_some_and(|r| r.id() == id)
            })
        })
        .await;
        assert!(screen(&app).contains(&id), "{id} on screen");
    }
}

#[tokio::test]
async fn profile_switch_drops_the_old_state_and_ignores_its_request_in_flight() {
    let mut held = start_server().await;
    let demo = crate::common::service::demo().await;
    let demo_url = demo.svc.base_url.clone();
    let demo_client = demo.client.clone();
    let url = demo_url.clone();
    let switcher = ProfileSwitcher::new(move |name| match name {
        "audit" => Ok((
            demo_client.clone(),
            ProfileInfo {
                profile: "audit".into(),
                base_url: url.clone(),
                read_only: true,
                confirm: ConfirmMode::TypeName,
            },
        )),
        other => Err(format!("profile {other:?} is not defined")),
    });
    let mut app = app_for(&held);
    // A pane of 20 rows: pages of 20, as the demo's list below is read.
    app.apply(Msg::Resize(120, 26));
    app.switcher = Some(switcher);
    app.start();
    // The held server has the teams request and will not answer until the gate opens.
    arrived(&mut held).await;
    assert_eq!(app.state.in_flight(), 1);

    command(&mut app, "profile nosuch");
    until(&mut app, |a| toasted(a, "is not defined")).await;
    assert!(screen(&app).contains("is not defined"));
    assert_eq!(app.state.profile, "test");

    command(&mut app, "profile audit");
    until(&mut app, |a| a.state.profile == "audit").await;
    assert!(app.state.read_only);
    assert_eq!(app.state.power.confirm, ConfirmMode::TypeName);
    until(&mut app, |a| {
        a.state.current().list.load == LoadState::Loaded
    })
    .await;
    let demo_ids: Vec<String> = demo
        .client
        .list_teams(&ListQuery {
            limit: Some(20),
            order: Some(app.state.current().list.order),
            ..ListQuery::default()
        })
        .await
        .expect("teams")
        .items
        .into_iter()
        .map(|t| t.id)
        .collect();
    let shown = row_ids;
    assert_eq!(shown(&app), demo_ids);
    let s = screen(&app);
    assert!(
        s.contains("profile audit") && s.contains(&demo_url) && s.contains("read-only"),
        "{s}"
    );

    // The old server may answer now: its reply has nowhere to go. A reload from the new
    // profile is the next (and only) thing to arrive.
    held.gate.send(true).expect("gate");
    app.apply(ch('r'));
    let m = next_reply(&mut app).await;
    app.apply(m);
    assert_eq!(app.state.current().list.load, LoadState::Loaded);
    assert_eq!(shown(&app), demo_ids);
    assert!(app.try_reply().is_none());
}

/// A switcher whose `slow` profile resolves only when the test says so (as a password manager
/// waiting for its user would), every other name at once; both on `client`.
fn gated_switcher(
    client: switchboard::api::Client,
    url: String,
) -> (ProfileSwitcher, std::sync::mpsc::Sender<()>) {
    let (open, gate) = std::sync::mpsc::channel::<()>();
    let gate = std::sync::Mutex::new(gate);
    let switcher = ProfileSwitcher::new(move |name| {
        if name == "slow" {
            let gate = gate.lock().map_err(|_| "gate poisoned".to_string())?;
            gate.recv_timeout(DEADLINE)
                .map_err(|_| "the gate never opened".to_string())?;
        }
        Ok((client.clone(), info(name, &url)))
    });
    (switcher, open)
}

/// An app on a seeded local service, started, whose `slow` profile resolves only when the
/// returned sender says so.
async fn gated_app() -> (
    crate::common::service::TestService,
    App,
    std::sync::mpsc::Sender<()>,
) {
    let demo = crate::common::service::demo().await;
    let (switcher, open) = gated_switcher(demo.client.clone(), demo.svc.base_url.clone());
    let mut app = App::with_client(
        State::new("test", &demo.svc.base_url, fixed_clock()),
        demo.client.clone(),
    );
    app.switcher = Some(switcher);
    app.apply(Msg::Resize(120, 40));
    app.start();
    (demo, app, open)
}

async fn team_count(demo: &crate::common::service::TestService) -> usize {
    let page = demo.client.list_teams(&ListQuery::default()).await;
    page.expect("teams").items.len()
}

#[tokio::test]
async fn keys_keep_working_while_a_profile_resolves() {
    let (_demo, mut app, open) = gated_app().await;

    // Resolving `slow` waits on the gate; the console must not.
    command(&mut app, "profile slow");
    assert!(screen(&app).contains("Switching to profile slow"));
    app.apply(ch('2'));
    assert_eq!(app.state.tab, Tab::Imports, "keys still handled");
    assert_eq!(app.state.profile, "test", "not switched yet");

    open.send(()).expect("gate");
    until(&mut app, |a| a.state.profile == "slow").await;
    until(&mut app, |a| {
        a.state.current().list.load == LoadState::Loaded
    })
    .await;
    assert!(screen(&app).contains("profile slow"));
}

#[tokio::test]
async fn the_newest_profile_switch_wins() {
    let (_demo, mut app, open) = gated_app().await;

    command(&mut app, "profile slow");
    command(&mut app, "profile quick");
    until(&mut app, |a| a.state.profile == "quick").await;
    // `slow` resolves after `quick` was asked for: it must not take over.
    open.send(()).expect("gate");
    app.apply(ch('r'));
    until(&mut app, |a| {
        a.state.current().list.load == LoadState::Loaded
    })
    .await;
    // Take in the stale result (the app drains it among the replies), then check it was ignored.
    crate::common::settle(&mut app).await;
    assert_eq!(app.state.profile, "quick");
    assert!(
        !toasted(&app, "Profile slow"),
        "no switch to slow announced"
    );
    assert!(screen(&app).contains("profile quick"));
}

#[tokio::test]
async fn switching_back_drops_the_pending_switch_and_writes_wait_for_it() {
    let (demo, mut app, open) = gated_app().await;
    until(&mut app, |a| {
        a.state.current().list.load == LoadState::Loaded
    })
    .await;
    let teams = team_count(&demo).await;

    command(&mut app, "profile slow");
    // A write while the switch resolves is held back, with what was typed kept.
    app.apply(ch('c'));
    for c in "Held back".chars() {
        app.apply(ch(c));
    }
    app.apply(Msg::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('s'),
        crossterm::event::KeyModifiers::CONTROL,
    )));
    let d = app
        .state
        .forms
        .dialog
        .as_ref()
        .expect("the form stays open");
    assert!(
        d.message
            .as_deref()
            .is_some_and(|m| m.contains("Switching to profile slow")),
        "{:?}",
        d.message
    );
    assert_eq!(d.text("name"), "Held back");
    app.apply(key(KeyCode::Esc));
    app.apply(ch('y'));
    assert!(app.state.forms.dialog.is_none());

    // Back to the profile in use: the pending switch is dropped.
    command(&mut app, "profile test");
    assert!(toasted(&app, "Staying on profile test"));
    open.send(()).expect("gate");
    crate::common::settle(&mut app).await;
    assert_eq!(app.state.profile, "test");
    assert!(!toasted(&app, "Profile slow"));
    assert_eq!(team_count(&demo).await, teams, "nothing was created");
}
