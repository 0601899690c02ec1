//! Marks are the Notifications list's (#37 item 5): other tabs' titles and rows do not carry
//! them, `Esc` clears them with a count, `*` over marked rows clears every mark (also rows the
//! filter hides), and a recover over marks says how many of them the filter hides.
use crossterm::event::KeyCode;

use crate::common::{answer_all, ch, key, screen, started_app, typed};
use switchboard::console::App;

/// The screen's rows that carry the mark glyph.
fn marked_rows(s: &str) -> usize {
    s.lines().filter(|l| l.contains('●')).count()
}

/// An offline app on the Notifications list (the fixture's page: two notifications), both marked.
fn both_marked() -> App {
    let mut app = started_app(120, 40);
    answer_all(&mut app);
    app.apply(ch('5'));
    answer_all(&mut app);
    app.apply(ch('*'));
    let s = screen(&app);
    assert!(s.contains("2 marked"), "{s}");
    app
}

/// Hides the second row of the fixture's page with the `/` filter.
fn filter_to_first(app: &mut App) {
    app.apply(ch('/'));
    typed(app, "0mh50xmzg");
    app.apply(key(KeyCode::Enter));
    let s = screen(app);
    assert!(
        !s.contains("0mh50yy1w"),
        "the filter hides the second row: {s}"
    );
}

#[test]
fn marks_show_on_the_notifications_list_only() {
    let mut app = both_marked();
    app.apply(ch('1'));
    answer_all(&mut app);
    let s = screen(&app);
    assert!(s.contains("Teams"), "{s}");
    assert!(
        !s.contains("marked"),
        "another tab's title names no marks: {s}"
    );
    assert_eq!(marked_rows(&s), 0, "another tab has no marks gutter: {s}");
    app.apply(ch('5'));
    answer_all(&mut app);
    assert!(screen(&app).contains("2 marked"), "{}", screen(&app));
}

#[test]
fn esc_clears_the_marks_with_a_count() {
    let mut app = both_marked();
    app.apply(key(KeyCode::Esc));
    let s = screen(&app);
    assert!(s.contains("Cleared 2 marks"), "{s}");
    assert!(!s.contains("2 marked"), "{s}");
    assert_eq!(marked_rows(&s), 0, "{s}");
}

#[test]
fn star_clears_every_mark_also_those_the_filter_hides() {
    let mut app = both_marked();
    filter_to_first(&mut app);
    app.apply(ch('*'));
    let s = screen(&app);
    assert!(!s.contains("1 marked"), "a hidden row's mark stayed: {s}");
    assert!(s.contains("Cleared 2 marks"), "{s}");
    app.apply(key(KeyCode::Esc));
    assert_eq!(marked_rows(&screen(&app)), 0, "{}", screen(&app));
}

#[test]
fn a_recover_over_marks_says_how_many_the_filter_hides() {
    let mut app = both_marked();
    filter_to_first(&mut app);
    app.apply(ch('b'));
    let s = screen(&app);
    assert!(
        s.contains("2 marked notifications (1 hidden by the filter)"),
        "{s}"
    );
}
