//! The action palette (`Ctrl-P`) and the help's filter (`?` then `/`), by keys on the rendered
//! screen: the palette lists what is available where you stand with its key and whether it
//! writes, narrows as you type, and runs the chosen action; the help keeps only the rows that
//! hold what is typed, `Esc` clears the filter, a second `Esc` closes the help.
use crossterm::event::KeyCode;
use switchboard::console::{ApiCmd, Tab};

use crate::common::*;

#[test]
fn the_palette_lists_narrows_and_runs_what_is_available_here() {
    let mut app = started_app(120, 40);
    answer_all(&mut app);
    app.apply(ctrl('p'));
    let s = screen(&app);
    assert!(s.contains("Actions here"), "{s}");
    // Its keys and whether it writes.
    assert!(s.contains("reload") && s.contains("· writes"), "{s}");
    let lines = |s: &str| {
        s.lines()
            .filter(|l| l.contains("· writes"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert!(
        lines(&s).iter().any(|l| l.contains("create")),
        "create writes: {s}"
    );

    typed(&mut app, "relo");
    let s = screen(&app);
    assert!(s.contains("> relo"), "{s}");
    assert!(s.contains("Actions here · 1 of"), "{s}");
    assert!(lines(&s).is_empty(), "narrowed to reload: {s}");

    // Enter runs it: the list is asked for again, and the palette is gone.
    let _ = app.take_requests();
    app.apply(key(KeyCode::Enter));
    let asked = app.take_requests();
    assert!(
        asked.iter().any(|r| matches!(
            &r.cmd,
            ApiCmd::List {
                tab: Tab::Teams,
                ..
            }
        )),
        "{asked:?}"
    );
    assert!(!screen(&app).contains("Actions here"));

    // Esc closes it without running anything; nothing matches says so.
    app.apply(ctrl('p'));
    typed(&mut app, "zzzq");
    let s = screen(&app);
    assert!(s.contains("no action matches"), "{s}");
    let _ = app.take_requests();
    app.apply(key(KeyCode::Esc));
    assert!(!screen(&app).contains("Actions here"));
    assert!(app.take_requests().is_empty());
}

#[test]
fn help_filters_its_rows_as_you_type() {
    let mut app = started_app(120, 40);
    answer_all(&mut app);
    app.apply(ch('?'));
    let all = screen(&app);
    assert!(
        all.contains("first row") && all.contains("/ filters"),
        "{all}"
    );
    app.apply(ch('/'));
    typed(&mut app, "reload");
    let s = screen(&app);
    assert!(s.contains("Filter /reload"), "{s}");
    assert!(s.contains("reload") && !s.contains("first row"), "{s}");
    // Typed keys are the filter's, not the list's: `q` did not quit.
    typed(&mut app, "q");
    assert!(!app.should_quit());
    let s = screen(&app);
    assert!(s.contains("No match /reloadq"), "{s}");
    // Esc clears the filter, a second one closes the help.
    app.apply(key(KeyCode::Esc));
    let s = screen(&app);
    assert!(!s.contains("Filter /") && s.contains("first row"), "{s}");
    app.apply(key(KeyCode::Esc));
    assert!(!screen(&app).contains("first row"));
}
