//! What an operator saw go wrong, each driven as they would: settings that a profile switch
//! forgot, footers that missed the keys that matter, a header that ran together, text inputs
//! that ignored the editing keys, a confirmation hint ending in a bare `Enter`.
use crossterm::event::KeyCode;
use switchboard::api::{Client, ClientOptions, Secret};
use switchboard::console::power::{ConfirmMode, PowerSetup, ProfileInfo, ProfileSwitcher};
use switchboard::console::{ApiCmd, App, Msg, State, Tab};

use crate::common::*;

fn command(app: &mut App, line: &str) {
    app.apply(ch(':'));
    typed(app, line);
    app.apply(key(KeyCode::Enter));
}

/// An app configured from a `[console]` table, whose profiles all resolve to an offline client.
fn configured_app(console: &str, w: u16, h: u16) -> App {
    let setup = PowerSetup {
        console: Some(toml::from_str(console).expect("console table")),
        ..PowerSetup::default()
    };
    let mut state = State::new("test", "http://127.0.0.1:9", fixed_clock());
    setup.configure(&mut state);
    let mut app = App::offline(state);
    app.switcher = Some(ProfileSwitcher::new(|name| {
        let client = Client::new(ClientOptions {
            base_url: "http://127.0.0.1:9".into(),
            api_key: Secret::new("sk_test_profile_switch"),
            ..ClientOptions::default()
        })
        .map_err(|e| e.to_string())?;
        let info = ProfileInfo {
            profile: name.to_string(),
            base_url: "http://127.0.0.1:9".into(),
            read_only: false,
            confirm: ConfirmMode::Ask,
        };
        Ok((client, info))
    }));
    app.apply(Msg::Resize(w, h));
    app.start();
    answer_all(&mut app);
    app
}

fn list_requests(app: &mut App, tab: Tab) -> usize {
    app.take_requests()
        .iter()
        .filter(|r| matches!(&r.cmd, ApiCmd::List { tab: t, .. } if *t == tab))
        .count()
}

/// Settings live outside the session: `:profile other` and back keeps the configured order of
/// the Notifications tab and the watch interval.
#[test]
fn settings_survive_a_profile_switch_and_back() {
    let mut app = configured_app(
        "notifications_order = \"asc\"\nwatch_interval = 5\n",
        120,
        40,
    );
    for profile in ["other", "test"] {
        command(&mut app, &format!("profile {profile}"));
        answer_all(&mut app);
        assert_eq!(app.state.profile, profile);
    }
    app.apply(ch('5'));
    answer_all(&mut app);
    let s = screen(&app);
    assert!(s.contains("Notifications · oldest first"), "{s}");

    // Watch every 5 s is 25 ticks of 200 ms, not the default 10.
    app.apply(ch('w'));
    answer_all(&mut app);
    for _ in 0..24 {
        app.apply(Msg::Tick);
    }
    assert_eq!(list_requests(&mut app, Tab::Notifications), 0, "not yet");
    app.apply(Msg::Tick);
    assert_eq!(list_requests(&mut app, Tab::Notifications), 1, "after 5 s");
}

/// The last line of the screen, trimmed.
fn footer(app: &App) -> String {
    let s = screen(app);
    s.lines()
        .last()
        .unwrap_or_default()
        .trim_matches('"')
        .trim_end()
        .to_string()
}

fn on_tab(tab: Tab, w: u16, h: u16) -> App {
    let mut app = started_app(w, h);
    answer_all(&mut app);
    let digit = char::from_digit(tab.index() as u32 + 1, 10).expect("digit");
    app.apply(ch(digit));
    answer_all(&mut app);
    app
}

/// `P` shows wherever it works; a notification's detail shows its own keys, not the list's.
#[test]
fn footer_shows_replay_and_the_detail_keys() {
    let mut app = on_tab(Tab::Notifications, 120, 40);
    let f = footer(&app);
    assert!(f.contains("P replay"), "list: {f}");
    assert!(f.ends_with("? help  q quit"), "{f}");

    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    let f = footer(&app);
    for want in ["Enter attempt", "P replay", "Esc back"] {
        assert!(f.contains(want), "detail: {want} in {f}");
    }
    for list_key in ["w watch", "f filter", "l status"] {
        assert!(!f.contains(list_key), "detail: no {list_key} in {f}");
    }

    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    assert!(app.state.deliveries.attempt.is_some(), "the attempt opened");
    let f = footer(&app);
    assert!(f.contains("P replay"), "attempt: {f}");
    assert!(f.ends_with("? help  q quit"), "{f}");

    // At 80 columns `P` still fits on the list, and help and quit are always there.
    let app = on_tab(Tab::Notifications, 80, 24);
    let f = footer(&app);
    assert!(f.contains("P replay"), "80 cols: {f}");
    assert!(f.ends_with("? help  q quit"), "{f}");
}

/// The second header line: its text and where the status sits.
fn header_info(app: &App) -> String {
    let s = screen(app);
    s.lines()
        .nth(1)
        .unwrap_or_default()
        .trim_matches('"')
        .to_string()
}

/// Callbacks → N: a breadcrumb long enough to reach the status at 80 columns.
fn followed_callback(w: u16) -> App {
    let mut app = on_tab(Tab::Callbacks, w, 24);
    app.apply(ch('N'));
    answer_all(&mut app);
    assert_eq!(app.state.tab, Tab::Notifications);
    assert!(!app.state.nav.is_empty(), "a trail to come back by");
    app
}

#[test]
fn header_breadcrumb_is_cut_before_the_status() {
    let app = followed_callback(80);
    let line = header_info(&app);
    assert!(
        line.trim_end().ends_with(" 0 requests"),
        "status intact: {line:?}"
    );
    let before = line.trim_end().trim_end_matches("0 requests");
    assert!(before.ends_with(' '), "a gap before the status: {line:?}");
    assert!(line.contains('…'), "the breadcrumb cut with …: {line:?}");

    // Wide enough, nothing is cut.
    let app = followed_callback(200);
    let line = header_info(&app);
    assert!(
        line.contains("Callbacks › Notifications of callback:"),
        "{line:?}"
    );
    assert!(!line.contains('…'), "{line:?}");
}

#[test]
fn choosing_a_tab_resets_the_trail_and_esc_stays_on_a_top_level_list() {
    let mut app = followed_callback(120);
    command(&mut app, "teams");
    answer_all(&mut app);
    assert_eq!(app.state.tab, Tab::Teams);
    assert!(!header_info(&app).contains('›'), "{}", header_info(&app));
    app.apply(key(KeyCode::Esc));
    answer_all(&mut app);
    assert_eq!(
        app.state.tab,
        Tab::Teams,
        "Esc on the plain Teams list stays"
    );
    assert!(app.state.current().detail.is_none());

    // The tab the trail had replaced is itself again: the plain Notifications list.
    app.apply(ch('5'));
    answer_all(&mut app);
    let list = &app.state.current().list;
    assert_eq!(
        list.filter,
        Default::default(),
        "no filter left from the trail"
    );

    // A digit resets it as well.
    let mut app = followed_callback(120);
    app.apply(ch('1'));
    answer_all(&mut app);
    app.apply(key(KeyCode::Esc));
    assert_eq!(app.state.tab, Tab::Teams);
    assert!(app.state.nav.is_empty());
}

/// `/` and `:` edit with the same keys as forms: Ctrl-U, Ctrl-W, Ctrl-A, Ctrl-E, Ctrl-K.
#[test]
fn slash_and_colon_take_the_editing_keys() {
    let mut app = on_tab(Tab::Notifications, 120, 40);
    app.apply(ch('/'));
    typed(&mut app, "fileshared");
    app.apply(ctrl('u'));
    typed(&mut app, "retrying");
    let s = screen(&app);
    assert!(s.contains("/retrying"), "{s}");
    assert!(!s.contains("fileshared"), "{s}");
    app.apply(ctrl('w'));
    typed(&mut app, "failed x");
    app.apply(ctrl('a'));
    app.apply(ctrl('k'));
    typed(&mut app, "ok");
    app.apply(ctrl('e'));
    typed(&mut app, "!");
    assert!(screen(&app).contains("/ok!"), "{}", screen(&app));
    app.apply(key(KeyCode::Esc));

    app.apply(ch(':'));
    typed(&mut app, "profile wrong");
    app.apply(ctrl('w'));
    typed(&mut app, "x");
    app.apply(ctrl('a'));
    typed(&mut app, "go ");
    let s = screen(&app);
    assert!(
        s.contains(":go ▏profile x"),
        "the cursor after what was typed at the start: {s}"
    );
    app.apply(ctrl('u'));
    typed(&mut app, "teams");
    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    assert_eq!(app.state.tab, Tab::Teams);
}

/// The line of a yes/no confirmation names what Enter does.
#[test]
fn confirmation_hint_never_ends_in_a_bare_enter() {
    for w in [80, 120, 200] {
        let mut app = on_tab(Tab::Destinations, w, 30);
        app.apply(ch('d'));
        let s = screen(&app);
        let line = s
            .lines()
            .find(|l| l.contains("y yes"))
            .unwrap_or_else(|| panic!("a confirmation at {w}:\n{s}"));
        // The hint, from the buttons to the box's border.
        let start = line.find(" No ").unwrap_or_default();
        let hint = line[start..]
            .split('│')
            .next()
            .unwrap_or_default()
            .trim_end();
        assert!(!hint.ends_with("Enter"), "{w} cols: {hint:?}");
        assert!(hint.contains("Enter "), "{w} cols: {hint:?}");
    }
}

/// The footer shows the keys as bound: a rebound replay key shows where `P` did.
#[test]
fn footer_follows_rebinding() {
    let setup = PowerSetup {
        keys: Some(toml::from_str("replay = \"F6\"\n").expect("keys table")),
        ..PowerSetup::default()
    };
    let mut state = State::new("test", "http://127.0.0.1:9", fixed_clock());
    setup.configure(&mut state);
    let mut app = App::offline(state);
    app.apply(Msg::Resize(120, 40));
    app.start();
    answer_all(&mut app);
    app.apply(ch('5'));
    answer_all(&mut app);
    let f = footer(&app);
    assert!(f.contains("F6 replay") && !f.contains("P replay"), "{f}");
}
