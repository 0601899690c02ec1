//! The one confirmation layer (yes/no, a typed name, a typed host), the one text input with
//! paste in every input, and `?` generated from what the room under it declares.
use crossterm::event::KeyCode;
use switchboard::console::power::{ConfirmMode, PowerSetup};
use switchboard::console::{ApiCmd, App, Msg, State, Tab};

use crate::common::*;

fn paste(app: &mut App, text: &str) {
    app.apply(Msg::Paste(text.into()));
}

/// An offline app set up as given, on `tab` with its fixtures loaded.
fn app_with(setup: PowerSetup, read_only: bool, tab: Tab) -> App {
    let mut state = State::new("test", "http://127.0.0.1:9", fixed_clock());
    state.read_only = read_only;
    setup.configure(&mut state);
    let mut app = App::offline(state);
    app.apply(Msg::Resize(120, 40));
    app.start();
    answer_all(&mut app);
    let digit = char::from_digit(tab.index() as u32 + 1, 10).expect("digit");
    app.apply(ch(digit));
    answer_all(&mut app);
    app
}

fn on_tab(tab: Tab) -> App {
    app_with(PowerSetup::default(), false, tab)
}

fn footer(app: &App) -> String {
    let s = screen(app);
    let last = s.lines().last().unwrap_or_default();
    last.trim_matches('"').trim().to_string()
}

/// The form writes asked of the worker.
fn writes(app: &mut App) -> usize {
    app.take_requests()
        .iter()
        .filter(|r| matches!(r.cmd, ApiCmd::Write(_)))
        .count()
}

/// Every `Enter` in the footer names what it does.
fn no_bare_enter(f: &str) {
    let words: Vec<&str> = f.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        if *w == "Enter" {
            assert!(i + 1 < words.len(), "a bare Enter ends {f:?}");
        }
    }
}

#[test]
fn a_yes_no_question_is_the_confirmation_layer() {
    let mut app = on_tab(Tab::Destinations);
    app.apply(ch('d'));
    let f = footer(&app);
    assert_eq!(f, "y yes  n/Esc no  ←/→ pick  Enter answer");
    no_bare_enter(&f);
    // Other keys neither answer nor reach the list behind.
    app.apply(ch('j'));
    app.apply(ch('2'));
    assert!(screen(&app).contains("Enter answer"), "still asked");
    app.apply(ch('n'));
    assert!(!screen(&app).contains("Enter answer"), "no closes it");
    assert_eq!(writes(&mut app), 0);
    // Enter answers the highlighted button: No, then Yes once chosen.
    app.apply(ch('d'));
    app.apply(key(KeyCode::Enter));
    assert_eq!(writes(&mut app), 0);
    app.apply(ch('d'));
    app.apply(key(KeyCode::Right));
    app.apply(key(KeyCode::Enter));
    assert_eq!(writes(&mut app), 1, "yes sends the delete");
}

#[test]
fn a_typed_name_is_one_text_input_with_paste() {
    let setup = PowerSetup {
        confirm: ConfirmMode::TypeName,
        ..PowerSetup::default()
    };
    let mut app = app_with(setup, false, Tab::Destinations);
    app.apply(ch('d'));
    let s = screen(&app);
    let name = s
        .split("Type “")
        .nth(1)
        .and_then(|r| r.split('”').next())
        .expect("asks for the name")
        .to_string();
    let f = footer(&app);
    assert!(f.starts_with("Enter confirm  Esc cancel"), "{f}");
    no_bare_enter(&f);
    typed(&mut app, "wrong words");
    app.apply(ctrl('w'));
    app.apply(ctrl('a'));
    typed(&mut app, "X");
    assert!(screen(&app).contains("X▏wrong "), "{}", screen(&app));
    app.apply(ctrl('u'));
    // A paste is text, its line break never answers.
    paste(&mut app, &format!("{name}\n"));
    assert_eq!(writes(&mut app), 0);
    assert!(screen(&app).contains(&format!("{name}▏")));
    app.apply(key(KeyCode::Enter));
    assert_eq!(writes(&mut app), 1, "the exact name sends");
}

#[test]
fn reveal_questions_are_the_same_layer() {
    // A destination's signing secret (the fixture attempt masks nothing, so it asks nothing).
    let mut app = on_tab(Tab::Destinations);
    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    app.apply(ch('R'));
    assert!(
        screen(&app).contains("Reveal signing secret"),
        "{}",
        screen(&app)
    );
    let f = footer(&app);
    assert_eq!(f, "y yes  n/Esc no  ←/→ pick  Enter answer");
    // A yes/no question takes no paste.
    paste(&mut app, "y");
    assert!(screen(&app).contains("Reveal signing secret"));
    app.apply(key(KeyCode::Esc));
    let s = screen(&app);
    assert!(!s.contains("Reveal signing secret"), "{s}");
    assert!(
        s.contains("Signing secret"),
        "the destination is still open: {s}"
    );
}

#[test]
fn paste_reaches_every_kind_of_input() {
    // `:` — the command line; the line break does not run it.
    let mut app = on_tab(Tab::Notifications);
    app.apply(ch(':'));
    paste(&mut app, "tea\nms");
    assert!(screen(&app).contains(":teams▏"), "{}", screen(&app));
    app.apply(key(KeyCode::Esc));
    // `/` — the rows filter.
    app.apply(ch('/'));
    paste(&mut app, "ab\tc");
    assert!(screen(&app).contains("/abc"), "{}", screen(&app));
    app.apply(key(KeyCode::Esc));
    // The filter dialog's event ids.
    app.apply(ch('f'));
    app.apply(key(KeyCode::Tab));
    paste(&mut app, "evt_one, evt_two");
    assert!(
        screen(&app).contains("evt_one, evt_two"),
        "{}",
        screen(&app)
    );
    app.apply(key(KeyCode::Esc));
    // The replay target.
    app.apply(ch('P'));
    app.apply(ctrl('u'));
    paste(&mut app, "http://127.0.0.1:9/pasted\r\n");
    assert!(
        screen(&app).contains("http://127.0.0.1:9/pasted"),
        "{}",
        screen(&app)
    );
    assert!(app.take_requests().is_empty(), "a paste submits nothing");
    app.apply(key(KeyCode::Esc));
    // A list has no text input: nothing happens.
    let before = screen(&app);
    paste(&mut app, "jjj");
    assert_eq!(screen(&app), before);

    // A form's focused field.
    let mut app = on_tab(Tab::Teams);
    app.apply(ch('c'));
    paste(&mut app, "Pasted\u{1b}[31m team");
    assert!(screen(&app).contains("Pasted[31m team"), "{}", screen(&app));
}

/// The same editing keys in `:`, `/`, a form field and the replay target.
#[test]
fn the_editing_keys_behave_the_same_in_every_input() {
    let edit = |app: &mut App, what: &str| {
        typed(app, "abc def");
        app.apply(ctrl('w'));
        app.apply(ctrl('a'));
        typed(app, "X");
        app.apply(ctrl('e'));
        typed(app, "Y");
        let s = screen(app);
        assert!(s.contains("Xabc Y"), "{what}: Ctrl-W, Ctrl-A, Ctrl-E: {s}");
        app.apply(ctrl('a'));
        app.apply(ctrl('k'));
        typed(app, "Zq9");
        let s = screen(app);
        assert!(s.contains("Zq9") && !s.contains("Xabc"), "{what}: {s}");
        app.apply(ctrl('u'));
        assert!(!screen(app).contains("Zq9"), "{what}: Ctrl-U clears");
    };
    let mut app = on_tab(Tab::Notifications);
    app.apply(ch(':'));
    edit(&mut app, ":");
    app.apply(key(KeyCode::Esc));
    app.apply(ch('/'));
    edit(&mut app, "/");
    app.apply(key(KeyCode::Esc));
    app.apply(ch('P'));
    app.apply(ctrl('u'));
    edit(&mut app, "replay target");
    let mut app = on_tab(Tab::Teams);
    app.apply(ch('c'));
    edit(&mut app, "form field");
}

#[test]
fn help_lists_what_the_room_takes() {
    let mut app = on_tab(Tab::Notifications);
    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    app.apply(ch('?'));
    let s = screen(&app);
    assert!(s.contains("Notifications: this item"), "{s}");
    let row = |s: &str, keys: &str, desc: &str| {
        s.lines().any(|l| {
            l.split('│')
                .any(|cell| cell.contains(&format!("{keys} ")) && cell.contains(desc))
        }) || s.contains(&format!("{keys}  {desc}"))
    };
    assert!(row(&s, "Enter", "attempt"), "{s}");
    assert!(row(&s, "P", "replay a delivery"), "{s}");
    assert!(!s.contains("create, edit"), "no list writes here: {s}");
}

#[test]
fn help_respects_read_only_and_rebinding() {
    let mut app = on_tab(Tab::Destinations);
    app.apply(ch('?'));
    assert!(screen(&app).contains("create"), "{}", screen(&app));
    let mut app = app_with(PowerSetup::default(), true, Tab::Destinations);
    app.apply(ch('?'));
    let s = screen(&app);
    assert!(!s.contains("create") && !s.contains("delete"), "{s}");

    let setup = PowerSetup {
        keys: Some(toml::from_str("replay = \"F6\"\n").expect("keys table")),
        ..PowerSetup::default()
    };
    let mut app = app_with(setup, false, Tab::Notifications);
    app.apply(ch('?'));
    let s = screen(&app);
    assert!(s.contains("F6"), "{s}");
    assert!(
        s.lines()
            .any(|l| l.contains("F6") && l.contains("replay a delivery")),
        "{s}"
    );
}
