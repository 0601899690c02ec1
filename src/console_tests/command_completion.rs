//! `:` completion driven by keys: command names, profile names and loaded ids (prefix, cycling
//! when several); `:profile` alone lists the profiles and marks the active one.

use crate::common::*;
use crossterm::event::KeyCode;
use switchboard::console::App;

fn input(app: &App) -> String {
    app.state
        .power
        .command
        .as_ref()
        .map(|c| c.input.value().to_string())
        .expect("command line open")
}

fn loaded() -> App {
    let mut app = started_app(120, 40);
    answer_all(&mut app);
    app.state.settings.profiles = vec!["test".into(), "work".into(), "audit".into()];
    app
}

#[test]
fn tab_completes_commands_profiles_and_ids() {
    let mut app = loaded();
    app.apply(ch(':'));
    typed(&mut app, "not");
    app.apply(key(KeyCode::Tab));
    assert_eq!(input(&app), "notifications");
    app.apply(key(KeyCode::Esc));

    app.apply(ch(':'));
    typed(&mut app, "pro");
    app.apply(key(KeyCode::Tab));
    assert_eq!(input(&app), "profile ");
    app.apply(key(KeyCode::Tab));
    assert_eq!(input(&app), "profile test");
    app.apply(key(KeyCode::Tab));
    assert_eq!(input(&app), "profile work");
    let s = screen(&app);
    assert!(
        s.contains("profile audit"),
        "the candidates are listed:\n{s}"
    );
    app.apply(key(KeyCode::Esc));

    // Ids of the loaded rows, after `goto ` or on their own.
    let ids = row_ids(&app);
    assert!(ids.len() > 1);
    app.apply(ch(':'));
    typed(&mut app, "go");
    app.apply(key(KeyCode::Tab));
    assert_eq!(input(&app), "goto ");
    typed(&mut app, "tm_");
    app.apply(key(KeyCode::Tab));
    assert_eq!(input(&app), format!("goto {}", ids[0]));
    app.apply(key(KeyCode::Tab));
    assert_eq!(input(&app), format!("goto {}", ids[1]));
    app.apply(key(KeyCode::Enter));
    let detail = app.state.current().detail.as_ref().map(|d| d.id.clone());
    assert_eq!(detail.as_deref(), Some(ids[1].as_str()), "goto opened it");
    app.apply(key(KeyCode::Esc));

    // A unique prefix completes at once; a bare id opens it.
    let last = ids.last().expect("an id").clone();
    app.apply(ch(':'));
    typed(&mut app, &last[..last.len() - 1]);
    app.apply(key(KeyCode::Tab));
    assert_eq!(input(&app), last);
    app.apply(key(KeyCode::Enter));
    let detail = app.state.current().detail.as_ref().map(|d| d.id.clone());
    assert_eq!(detail, Some(last));
}

#[test]
fn profile_alone_lists_profiles_and_marks_the_active_one() {
    let mut app = loaded();
    app.apply(ch(':'));
    typed(&mut app, "profile");
    app.apply(key(KeyCode::Enter));
    let toast = app
        .state
        .toasts
        .last()
        .map(|t| t.text.clone())
        .unwrap_or_default();
    assert!(toast.contains("● test (active)"), "{toast}");
    assert!(toast.contains("work") && toast.contains("audit"), "{toast}");
    assert!(app.state.power.switching.is_none(), "no switch");
}

/// The words `:` takes (moved from `power/command.rs`, so that no console file names a kind
/// only for a test).
#[test]
fn aliases_and_arguments_parse() {
    use switchboard::console::Tab;
    use switchboard::console::power::command::{Command, parse};
    assert_eq!(parse("ns"), Ok(Command::Tab(Tab::Notifications)));
    assert_eq!(parse("  dest "), Ok(Command::Tab(Tab::Destinations)));
    assert_eq!(parse("q"), Ok(Command::Quit));
    assert_eq!(parse("profile work"), Ok(Command::Profile("work".into())));
    assert_eq!(parse("goto clb_1"), Ok(Command::Goto("clb_1".into())));
    assert!(parse("goto").is_err() && parse("frobnicate").is_err());
}
