//! Toasts (#37 item 8): one of a kind (a toggle's second toast replaces its first), never
//! pushing `? help` / `q quit` out of the footer at any width, gone on a tab change, a hidden
//! count in words ("+1 more"); `:profile nosuch` says one thing.
use crossterm::event::KeyCode;

use crate::common::{answer_all, ch, key, screen_sized, started_app, typed};
use switchboard::console::{App, Msg, Tab};

fn on_tab(tab: Tab, w: u16, h: u16) -> App {
    let mut app = started_app(w, h);
    answer_all(&mut app);
    let digit = char::from_digit(tab.index() as u32 + 1, 10).expect("digit");
    app.apply(ch(digit));
    answer_all(&mut app);
    app
}

/// The footer line as drawn at this size.
fn footer(app: &App, w: u16, h: u16) -> String {
    let s = screen_sized(app, w, h);
    s.lines()
        .last()
        .unwrap_or_default()
        .trim_matches('"')
        .to_string()
}

#[test]
fn a_toggles_second_toast_replaces_its_first() {
    let mut app = on_tab(Tab::Notifications, 200, 30);
    app.apply(ch('w'));
    assert!(footer(&app, 200, 30).contains("Watching"));
    app.apply(ch('w'));
    let f = footer(&app, 200, 30);
    assert!(f.contains("Watch off"), "{f}");
    assert!(
        !f.contains("Watching"),
        "both toasts of one toggle show: {f}"
    );
    assert!(!f.contains("more"), "{f}");
}

#[test]
fn toasts_never_push_help_and_quit_out_and_count_the_hidden_in_words() {
    for w in [40, 60, 80, 120, 200] {
        let mut app = on_tab(Tab::Teams, w, 24);
        app.apply(ch('['));
        app.apply(ch('o'));
        app.apply(Msg::Resize(w, 24));
        let f = footer(&app, w, 24);
        assert!(f.contains("? help"), "at {w}: {f}");
        assert!(f.contains("q quit"), "at {w}: {f}");
        assert!(f.contains("Order:"), "the newest shows at {w}: {f}");
        if w <= 60 {
            assert!(f.contains("+1 more"), "the hidden one counted at {w}: {f}");
        } else {
            assert!(f.contains("first page"), "both fit at {w}: {f}");
        }
    }
}

#[test]
fn a_long_toast_is_cut_not_the_help_and_quit_keys() {
    for w in [40, 60, 80, 120, 200] {
        let mut app = on_tab(Tab::Teams, w, 24);
        app.apply(ch(':'));
        typed(&mut app, "goto nosuch_id_that_is_long");
        app.apply(key(KeyCode::Enter));
        let f = footer(&app, w, 24);
        assert!(f.contains("nosuch_id"), "at {w}: {f}");
        assert!(f.contains("? help"), "at {w}: {f}");
        assert!(f.contains("q quit"), "at {w}: {f}");
    }
}

#[test]
fn a_toast_expires_on_a_tab_change() {
    let mut app = on_tab(Tab::Teams, 120, 24);
    app.apply(ch('['));
    assert!(footer(&app, 120, 24).contains("This is the first page"));
    app.apply(ch('2'));
    answer_all(&mut app);
    let f = footer(&app, 120, 24);
    assert!(
        !f.contains("first page"),
        "the Teams toast outlived the tab: {f}"
    );
}

#[test]
fn profile_nosuch_says_one_thing() {
    let mut app = on_tab(Tab::Teams, 200, 24);
    app.state.settings.profiles = vec!["test".into(), "prod".into()];
    app.apply(ch(':'));
    typed(&mut app, "profile nosuch");
    app.apply(key(KeyCode::Enter));
    let f = footer(&app, 200, 24);
    assert!(f.contains("No profile nosuch"), "{f}");
    assert!(
        !f.contains("Switching"),
        "it says it switches and that it cannot: {f}"
    );
    assert_eq!(app.state.profile, "test");
}
