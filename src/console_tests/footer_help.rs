//! The footer follows the context (tab, pane, selection; rebinding respected; cut to the width)
//! and `?` fits the smallest terminal with nothing cut.
use crate::common;

use common::*;
use crossterm::event::KeyCode;
use switchboard::console::{App, Tab};

fn app_on(tab: Tab, w: u16, h: u16) -> App {
    let mut app = started_app(w, h);
    answer_all(&mut app);
    let digit = char::from_digit(tab.index() as u32 + 1, 10).expect("digit");
    app.apply(ch(digit));
    answer_all(&mut app);
    app
}

/// The last line of the screen: the footer.
fn footer(app: &App) -> String {
    let s = screen(app);
    let line = s
        .lines()
        .last()
        .unwrap_or_default()
        .trim_matches('"')
        .to_string();
    line.trim_end().to_string()
}

#[test]
fn help_fits_80x24_with_nothing_cut() {
    let mut app = app_on(Tab::Teams, 80, 24);
    app.apply(ch('?'));
    let s = screen(&app);
    let flat: String = s
        .lines()
        .map(|l| l.trim_matches('"'))
        .collect::<Vec<_>>()
        .join(" ");
    let words: Vec<&str> = flat.split([' ', '│']).filter(|w| !w.is_empty()).collect();
    let rows = switchboard::console::layers::Layer::help(&app.state);
    for (keys, desc) in rows.into_iter().flat_map(|(_, rows)| rows) {
        assert!(flat.contains(&keys), "keys {keys} shown:\n{s}");
        for w in desc.split(' ') {
            assert!(words.contains(&w), "“{w}” of “{desc}” shown whole:\n{s}");
        }
    }
    insta::assert_snapshot!("help_80x24", s);
}

#[test]
fn help_taller_than_the_screen_scrolls_with_nothing_cut() {
    // The Notifications list offers the most keys: at 80×24 they do not fit in any columns.
    let mut app = app_on(Tab::Notifications, 80, 24);
    app.apply(ch('?'));
    let first = screen(&app);
    let (a, b, n) = scroll_range(&first).unwrap_or_else(|| panic!("scrolls:\n{first}"));
    assert_eq!((a, b), (1, 22), "{first}");
    // Every screenful from the top to the bottom, as words.
    let mut seen = first.clone();
    let mut at_end = b == n;
    let mut guard = 0;
    while !at_end {
        app.apply(ch('j'));
        let s = screen(&app);
        let (_, b, _) = scroll_range(&s).expect("still scrolls");
        at_end = b == n;
        seen.push_str(&s);
        guard += 1;
        assert!(guard <= n, "j reaches the end");
    }
    let flat: String = seen
        .lines()
        .map(|l| l.trim_matches('"'))
        .collect::<Vec<_>>()
        .join(" ");
    let words: Vec<&str> = flat.split([' ', '│']).filter(|w| !w.is_empty()).collect();
    let rows: Vec<(String, String)> = switchboard::console::layers::Layer::help(&app.state)
        .into_iter()
        .flat_map(|(_, rows)| rows)
        .collect();
    for (keys, desc) in &rows {
        assert!(flat.contains(keys.as_str()), "keys {keys} shown:\n{seen}");
        for w in desc.split(' ') {
            assert!(words.contains(&w), "“{w}” of “{desc}” shown whole:\n{seen}");
        }
    }
    // n/N says what it does here, and s and S are told apart.
    let said = |k: &str| {
        rows.iter()
            .find(|(keys, _)| keys == k)
            .map(|(_, d)| d.as_str())
    };
    assert_eq!(
        said("n/N"),
        Some("next / previous failed delivery, across pages")
    );
    assert_eq!(said("s"), Some("sort by the next column"));
    assert_eq!(said("S"), Some("flip the sort direction"));
    // Keys whose footer word is short say in full what they do.
    assert_eq!(
        said("f"),
        Some("filter notifications by callback, event, destination")
    );
    assert!(
        said("V/*").is_some_and(|d| d.contains("mark all loaded rows")),
        "{rows:?}"
    );
    // At the end, one `k` moves one line up at once; `g` goes back to the top.
    app.apply(ch('G'));
    let (_, b, n) = scroll_range(&screen(&app)).expect("scrolls");
    assert_eq!(b, n);
    app.apply(ch('k'));
    let (_, b2, _) = scroll_range(&screen(&app)).expect("scrolls");
    assert_eq!(b2, n - 1);
    app.apply(ch('g'));
    assert_eq!(scroll_range(&screen(&app)).map(|r| r.0), Some(1));
    // Closed and opened again, it starts at the top.
    app.apply(ch('G'));
    app.apply(ch('?'));
    app.apply(ch('?'));
    assert_eq!(scroll_range(&screen(&app)).map(|r| r.0), Some(1));
}

#[test]
fn footer_shows_the_open_dialogs_keys_not_the_list_behind_it() {
    let mut app = app_on(Tab::Teams, 100, 30);
    assert!(footer(&app).contains("c new"), "{}", footer(&app));
    app.apply(ch('c'));
    let f = footer(&app);
    assert!(f.contains("Ctrl-S save") && f.contains("Esc cancel"), "{f}");
    assert!(!f.contains("c new") && !f.contains("? help"), "{f}");
    // Typed text, then Esc: the discard question's keys.
    app.apply(ch('x'));
    app.apply(key(KeyCode::Esc));
    let f = footer(&app);
    assert!(f.contains("y discard"), "{f}");
    app.apply(ch('y'));
    assert!(footer(&app).contains("c new"));

    let mut app = app_on(Tab::Notifications, 100, 30);
    app.apply(ch('f'));
    let f = footer(&app);
    assert!(
        f.contains("Enter apply") && f.contains("Space choose"),
        "{f}"
    );
    assert!(!f.contains("P replay"), "{f}");
    // The dialog is as tall as its lines: its last line sits on its bottom border.
    let s = screen(&app);
    let lines: Vec<&str> = s.lines().collect();
    let bottom = lines
        .iter()
        .position(|l| l.trim_matches('"').starts_with('│') && l.contains("└─"))
        .unwrap_or_else(|| panic!("the dialog's bottom border:\n{s}"));
    assert!(lines[bottom - 1].contains("commas or spaces."), "{s}");
}

#[test]
fn footer_follows_tab_pane_and_selection() {
    let mut app = app_on(Tab::Teams, 120, 40);
    let f = footer(&app);
    for hint in ["Enter open", "c new", "e edit", "m/M member", "p/x project"] {
        assert!(f.contains(hint), "teams list: {hint} in {f}");
    }
    assert!(!f.contains("D destinations"), "{f}");
    assert!(f.ends_with("? help  q quit"), "{f}");
    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    let detail = footer(&app);
    assert!(
        detail.contains("e edit") && detail.contains("Esc back"),
        "{detail}"
    );
    assert!(
        !detail.contains("c new") && !detail.contains("Enter open"),
        "{detail}"
    );
    app.apply(key(KeyCode::Esc));

    let app = app_on(Tab::Callbacks, 120, 40);
    let f = footer(&app);
    assert!(
        f.contains("D destinations") && f.contains("N notifications"),
        "{f}"
    );
    assert!(
        !f.contains("e edit") && !f.contains("c new"),
        "callbacks are read-only: {f}"
    );
    let app = app_on(Tab::Notifications, 120, 40);
    let f = footer(&app);
    assert!(f.contains("f filter") && f.contains("w watch"), "{f}");
    insta::assert_snapshot!("footers_120", {
        let mut all = Vec::new();
        for tab in
            switchboard::console::tab::shown_for(switchboard::api::generation::Generation::Pulsar)
        {
            let app = app_on(tab, 120, 40);
            all.push(format!("{:<13} {}", tab.title(), footer(&app)));
        }
        all.join("\n")
    });
}

#[test]
fn footer_is_cut_to_the_width_most_useful_first() {
    let app = app_on(Tab::Teams, 80, 24);
    let f = footer(&app);
    assert!(f.chars().count() <= 80, "{f}");
    assert!(f.starts_with(" Enter open  c new  e edit"), "{f}");
    assert!(f.ends_with("? help  q quit"), "help always fits: {f}");
    let wide = footer(&app_on(Tab::Teams, 160, 40));
    assert!(wide.len() > f.len(), "more hints when wider:\n{f}\n{wide}");
}

#[test]
fn footer_shows_rebound_keys_and_hides_unbound_ones() {
    let mut app = app_on(Tab::Teams, 120, 40);
    app.state.settings.keymap.bind(
        switchboard::console::keymap::KeySpec::ch('E'),
        switchboard::console::keymap::Action::EDIT,
    );
    app.state.settings.keymap.bind(
        switchboard::console::keymap::KeySpec::ch('e'),
        switchboard::console::keymap::Action::Reload,
    );
    app.apply(key(KeyCode::Down));
    let f = footer(&app);
    assert!(f.contains("E edit"), "{f}");
    assert!(f.contains("e reload"), "{f}");
}
