//! The demo's `export` line is inside the console while the demo runs (#37 item 10): `?` shows
//! it at every width, so a script's line is at hand before the session file is gone.
use crossterm::event::KeyCode;

use crate::common::{answer_all, ch, fixed_clock, key, screen_sized};
use switchboard::console::power::PowerSetup;
use switchboard::console::{App, Msg, State};

const LINE: &str = "export SWITCHBOARD_CONFIG=/tmp/sb/demo.toml";

fn demo_console(w: u16, h: u16) -> App {
    let mut state = State::new("demo", "http://127.0.0.1:9", fixed_clock());
    PowerSetup {
        session_line: Some(LINE.into()),
        ..PowerSetup::default()
    }
    .configure(&mut state);
    let mut app = App::offline(state);
    app.apply(Msg::Resize(w, h));
    app.start();
    answer_all(&mut app);
    app
}

#[test]
fn help_shows_the_demos_export_line_at_every_width() {
    for (w, h) in [(40, 12), (60, 16), (80, 24), (120, 30), (200, 40)] {
        let mut app = demo_console(w, h);
        app.apply(ch('?'));
        // The group is the last: the end of the help.
        app.apply(key(KeyCode::Char('G')));
        let s = screen_sized(&app, w, h);
        assert!(s.contains("While the demo runs"), "at {w}×{h}:\n{s}");
        assert!(s.contains("export"), "at {w}×{h}:\n{s}");
        // Narrow columns wrap the path; from 120 it is one piece to copy.
        if w >= 120 {
            assert!(s.contains(LINE), "at {w}×{h}:\n{s}");
        } else if w >= 80 {
            assert!(s.contains("SWITCHBOARD_CONFIG="), "at {w}×{h}:\n{s}");
        }
    }
}

#[test]
fn a_console_not_of_the_demo_shows_no_export_line() {
    let mut app = demo_console(120, 30);
    app.state.settings.session_line = None;
    app.apply(ch('?'));
    let s = screen_sized(&app, 120, 30);
    assert!(!s.contains("While the demo runs"), "{s}");
}
