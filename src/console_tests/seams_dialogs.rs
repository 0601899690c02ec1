//! Dialogs grow with their text down to 40×12 (#37 item 6): the No/Yes row of a question is
//! always on screen, and a click on Yes answers it where it is drawn.
use crate::common::{answer_all, ch, screen_sized, started_app};
use switchboard::console::power::PowerMsg;
use switchboard::console::{ApiCmd, App, Msg, Tab};

const SIZES: [(u16, u16); 5] = [(40, 12), (60, 16), (80, 24), (120, 30), (200, 40)];

/// A delete question on the Destinations list at this size.
fn asked(w: u16, h: u16) -> App {
    let mut app = started_app(w, h);
    answer_all(&mut app);
    let digit = char::from_digit(Tab::Destinations.index() as u32 + 1, 10).expect("digit");
    app.apply(ch(digit));
    answer_all(&mut app);
    app.apply(ch('d'));
    app
}

/// Where ` Yes ` is drawn: (column, row).
fn yes_at(s: &str) -> Option<(u16, u16)> {
    s.lines().enumerate().find_map(|(row, l)| {
        let l = l.trim_matches('"');
        let byte = l.find(" No    Yes ")?;
        let col = l[..byte].chars().count() + " No   ".chars().count();
        Some((u16::try_from(col).ok()?, u16::try_from(row).ok()?))
    })
}

#[test]
fn a_questions_no_yes_row_shows_at_every_size() {
    for (w, h) in SIZES {
        let app = asked(w, h);
        let s = screen_sized(&app, w, h);
        assert!(yes_at(&s).is_some(), "No/Yes lost at {w}×{h}:\n{s}");
        // The question itself wraps inside the box.
        assert!(s.contains("Delete"), "at {w}×{h}:\n{s}");
    }
}

#[test]
fn a_click_on_yes_answers_where_it_is_drawn() {
    for (w, h) in SIZES {
        let mut app = asked(w, h);
        app.state.settings.mouse = true;
        let s = screen_sized(&app, w, h);
        let (column, row) = yes_at(&s).unwrap_or_else(|| panic!("no Yes at {w}×{h}:\n{s}"));
        app.apply(Msg::Power(PowerMsg::Mouse(crossterm::event::MouseEvent {
            kind: crossterm::event::MouseEventKind::Down(crossterm::event::MouseButton::Left),
            column: column + 1,
            row,
            modifiers: crossterm::event::KeyModifiers::NONE,
        })));
        let writes = app
            .take_requests()
            .iter()
            .filter(|r| matches!(r.cmd, ApiCmd::Write(_)))
            .count();
        assert_eq!(writes, 1, "the click on Yes at {w}×{h} sent nothing:\n{s}");
    }
}
