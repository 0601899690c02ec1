//! A team's members are in columns (#37 item 11): every member's email and role start in
//! the same column, whatever the names' lengths.
use crossterm::event::KeyCode;

use crate::common::{answer_all, key, screen_sized, started_app};
use switchboard::api::model::Member;
use switchboard::console::App;

/// The rows of the members section on screen.
fn member_rows(s: &str) -> Vec<String> {
    s.lines()
        .skip_while(|l| !l.contains("Members ("))
        .skip(1)
        .take_while(|l| l.contains('@'))
        .map(|l| l.trim_matches('"').to_string())
        .collect()
}

fn team_detail(w: u16, h: u16) -> App {
    let mut app = started_app(w, h);
    answer_all(&mut app);
    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    app
}

#[test]
fn members_are_in_columns() {
    for (w, h) in [(80, 40), (120, 40), (200, 50)] {
        let mut app = team_detail(w, h);
        // Another member of the team, with a name of another length.
        let mut members: Vec<Member> = app.state.members.members.clone().unwrap_or_default();
        assert!(!members.is_empty(), "the fixture's members");
        let mut other = members[0].clone();
        other.id = format!("{}x", other.id);
        other.name = "Al".into();
        other.email = "al.longer.address@example.com".into();
        if let Some(a) = other.actor.as_mut() {
            a.name = "Al".into();
            a.email = Some("al.longer.address@example.com".into());
        }
        members.push(other);
        app.state.members.members = Some(members);
        let s = screen_sized(&app, w, h);
        let rows = member_rows(&s);
        assert!(rows.len() >= 2, "at {w}:\n{s}");
        let starts: Vec<usize> = rows
            .iter()
            .filter_map(|r| {
                let at = r.find('@')?;
                let before = &r[..at];
                let start = before.rfind(' ')? + 1;
                Some(before[..start].chars().count())
            })
            .collect();
        assert!(
            starts.windows(2).all(|p| p[0] == p[1]),
            "emails start in one column at {w}: {starts:?}\n{s}"
        );
    }
}
