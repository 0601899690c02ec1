//! `s` cycles only through the columns on screen (#37 item 11): at every width and on every
//! list, the column the title says it sorts by is one the table draws.
use crate::common::{answer_all, ch, screen_sized, started_app};
use switchboard::console::Tab;

#[test]
fn s_sorts_only_by_a_column_on_screen() {
    for w in [40u16, 60, 80, 120, 200] {
        for tab in [
            Tab::Teams,
            Tab::Imports,
            Tab::Callbacks,
            Tab::Destinations,
            Tab::Notifications,
        ] {
            let mut app = started_app(w, 30);
            answer_all(&mut app);
            let digit = char::from_digit(tab.index() as u32 + 1, 10).expect("digit");
            app.apply(ch(digit));
            answer_all(&mut app);
            let mut seen = 0;
            for _ in 0..12 {
                app.apply(ch('s'));
                let Some(label) = app.state.power.sorts[tab.index()].label(tab) else {
                    break;
                };
                seen += 1;
                let column = label
                    .trim_start_matches("sort ")
                    .rsplit_once(' ')
                    .and_then(|(l, _)| l.rsplit_once(' '))
                    .map_or(label.clone(), |(l, _)| l.to_string());
                let s = screen_sized(&app, w, 30);
                // The table's header: the line under the list's top border.
                let header = s
                    .lines()
                    .skip_while(|l| !l.contains('┌'))
                    .nth(1)
                    .unwrap_or_default()
                    .to_lowercase();
                // A narrow column's title is cut: its first letters name it.
                let start: String = column.chars().take(5).collect();
                assert!(
                    header.contains(&start),
                    "{tab:?} at {w}: sorted by {column:?}, not on screen:\n{s}"
                );
            }
            assert!(seen > 0 || w < 60, "{tab:?} at {w}: nothing to sort by");
        }
    }
}
