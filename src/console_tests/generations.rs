//! A tab whose resource the server's API generation does not serve is absent: not in the header,
//! not reached by its digit, by `Tab`/`Shift-Tab`, by a click or by `:`. Driven with a test-only
//! table of generations (today every resource is pulsar's).

use crate::common::{answer_all, ch, key, screen, started_app};
use crossterm::event::KeyCode;
use switchboard::api::generation::Generation;
use switchboard::console::Msg;
use switchboard::console::power::PowerMsg;
use switchboard::console::tab::{self, Tab};

/// Imports only in pulsar; every other of pulsar's resources in every generation (the newer
/// generations' own resources in none: this table is about pulsar's tabs).
fn test_generations(t: Tab) -> &'static [Generation] {
    match t {
        Tab::Imports => &[Generation::Pulsar],
        _ if !t.served_by(Generation::Pulsar) => &[],
        _ => &Generation::ALL,
    }
}

fn header(app: &switchboard::console::App) -> String {
    screen(app).lines().next().unwrap_or_default().to_string()
}

#[test]
fn pulsar_shows_its_five_tabs_and_event_destinations_its_own() {
    assert_eq!(tab::shown_for(Generation::Pulsar), Tab::ALL[..5].to_vec());
    let newest = tab::shown_for(Generation::EventDestinations);
    assert!(newest.len() > 5, "{newest:?}");
    assert!(newest.iter().all(|t| !t.served_by(Generation::Pulsar)));
}

#[test]
fn a_tab_the_generation_does_not_serve_is_absent() {
    let mut app = started_app(120, 30);
    answer_all(&mut app);
    assert!(header(&app).contains("Imports"), "{}", header(&app));

    app.show_tabs(tab::shown_in(
        Generation::CallbackDestinations,
        test_generations,
    ));
    answer_all(&mut app);
    let head = header(&app);
    assert!(!head.contains("Imports"), "{head}");
    assert!(
        head.contains("Teams") && head.contains("Callbacks"),
        "{head}"
    );

    app.apply(ch('2'));
    assert_eq!(app.state.tab, Tab::Teams, "its digit does nothing");
    app.apply(key(KeyCode::Tab));
    answer_all(&mut app);
    assert_eq!(app.state.tab, Tab::Callbacks, "Tab steps over it");
    app.apply(key(KeyCode::BackTab));
    assert_eq!(app.state.tab, Tab::Teams, "and so does Shift-Tab");
    app.apply(key(KeyCode::BackTab));
    answer_all(&mut app);
    assert_eq!(app.state.tab, Tab::Notifications, "wrapping");
    app.state.settings.mouse = true;
    app.apply(Msg::Power(PowerMsg::Mouse(crossterm::event::MouseEvent {
        kind: crossterm::event::MouseEventKind::Down(crossterm::event::MouseButton::Left),
        column: 12,
        row: 0,
        modifiers: crossterm::event::KeyModifiers::NONE,
    })));
    answer_all(&mut app);
    assert_eq!(
        app.state.tab,
        Tab::Callbacks,
        "the second label is now Callbacks: {}",
        header(&app)
    );
    for c in ":imports".chars() {
        app.apply(ch(c));
    }
    app.apply(key(KeyCode::Enter));
    assert_eq!(app.state.tab, Tab::Callbacks, ":imports does not reach it");

    // Back on pulsar, it is there again.
    app.show_tabs(tab::shown_in(Generation::Pulsar, test_generations));
    assert!(header(&app).contains("Imports"), "{}", header(&app));
}

#[test]
fn the_tab_on_screen_gives_way_when_its_generation_does_not_serve_it() {
    let mut app = started_app(120, 30);
    answer_all(&mut app);
    app.apply(ch('2'));
    answer_all(&mut app);
    assert_eq!(app.state.tab, Tab::Imports);
    app.show_tabs(tab::shown_in(
        Generation::EventDestinations,
        test_generations,
    ));
    assert_eq!(app.state.tab, Tab::Teams);
    answer_all(&mut app);
    assert!(!header(&app).contains("Imports"), "{}", header(&app));
}
