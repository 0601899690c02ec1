//! Issue 37 item 12: a wider terminal never shows less of a cell. The detail pane goes beside a
//! list only once the list still gets the width at which every one of its columns reaches its
//! cap (read from the column table), so no column narrows as the terminal widens, on any tab.
use crate::common::service::demo;
use crate::common::{ch, fixed_clock, next_reply, screen};
use switchboard::console::{App, Msg, State};

use crate::console::layout;
use crate::console::layout::full_width;
use crate::console::tab::Tab;
use crate::console::views;
use crate::resource::width::{allocate, allocate_stable};

const HEIGHT: u16 = 40;

/// Applies replies until nothing is awaited.
async fn settle(app: &mut App) {
    while !app.is_idle() {
        let m = next_reply(app).await;
        app.apply(m);
    }
}

async fn press(app: &mut App, msg: Msg) {
    app.apply(msg);
    settle(app).await;
}

/// The demo world's console, `width` columns wide, on its `n`th tab.
async fn console(width: u16) -> (crate::common::service::TestService, App) {
    let t = demo().await;
    let mut app = App::with_client(
        State::new("demo", t.svc.base_url.clone(), fixed_clock()),
        t.client.clone(),
    );
    app.apply(Msg::Resize(width, HEIGHT));
    app.start();
    settle(&mut app).await;
    (t, app)
}

/// The key of a shown tab.
fn tab_key(app: &App, tab: Tab) -> char {
    let pos = app
        .state
        .shown
        .iter()
        .position(|t| *t == tab)
        .expect("tab shown");
    char::from_digit(u32::try_from(pos + 1).expect("few tabs"), 10).expect("a digit")
}

/// Every tab of every generation, from the column tables alone: from 40 to 220 columns each
/// column's width (as the list's allocation gives it inside the list pane the layout leaves) only
/// grows, whatever the rows hold (no text, every cell at its cap, every cell at its minimum).
#[test]
fn no_column_narrows_as_the_terminal_widens_on_any_tab() {
    for tab in Tab::ALL {
        let columns = views::columns(tab);
        let rules: Vec<_> = columns.iter().map(|c| c.width).collect();
        let contents: [Vec<u16>; 3] = [
            vec![0; rules.len()],
            rules.iter().map(|r| r.natural).collect(),
            rules.iter().map(|r| r.min).collect(),
        ];
        for content in &contents {
            let mut before: Option<Vec<u16>> = None;
            for width in 40..=220u16 {
                let screen = ratatui::layout::Rect::new(0, 0, width, HEIGHT);
                let list = layout::areas(screen, tab, false)
                    .list
                    .expect("a list without a detail open");
                // As the table draws: inside the borders, less the marks gutter on Notifications
                // (while marks are on) and the selection mark.
                let marks = if tab == Tab::Notifications { 2 } else { 0 };
                let room = list.width.saturating_sub(2 + marks + 2);
                let now = if crate::console::widgets::paged_table::stable_for(tab) {
                    allocate_stable(&rules, room, 1)
                } else {
                    allocate(&rules, content, room, 1)
                };
                if let Some(before) = &before {
                    for (i, (a, b)) in before.iter().zip(&now).enumerate() {
                        assert!(
                            b >= a,
                            "{tab:?}: column {} narrowed {a} → {b} at {width} columns",
                            columns[i].title
                        );
                    }
                }
                before = Some(now);
            }
        }
        // Where the detail pane goes beside the list, every column has reached its cap.
        let from = layout::preview_from(tab);
        let screen = ratatui::layout::Rect::new(0, 0, from, HEIGHT);
        let list = layout::areas(screen, tab, false).list.expect("a list");
        assert_eq!(list.width, full_width(tab), "{tab:?}");
        let room = list.width - 2 - if tab == Tab::Notifications { 4 } else { 2 };
        let caps: Vec<u16> = rules.iter().map(|r| r.natural.max(r.min)).collect();
        assert_eq!(allocate_stable(&rules, room, 1), caps, "{tab:?} at {from}");
        assert!(
            layout::areas(screen, tab, false).detail.is_some(),
            "{tab:?}: the preview shows from {from}"
        );
    }
}

/// The demo world's tabs as drawn, rows loaded: from 40 to 220 columns no drawn column narrows.
#[tokio::test]
async fn no_drawn_column_narrows_from_40_to_220_columns() {
    let (_t, mut app) = console(80).await;
    let tabs = app.state.shown.clone();
    for tab in tabs {
        let key = tab_key(&app, tab);
        press(&mut app, ch(key)).await;
        assert_eq!(app.state.tab, tab);
        assert!(
            !app.state.current().list.rows.is_empty(),
            "{tab:?} has rows in the demo"
        );
        let mut before: Option<Vec<u16>> = None;
        for width in 40..=220u16 {
            press(&mut app, Msg::Resize(width, HEIGHT)).await;
            let now = crate::console::shown_columns::widths(&app.state).expect("the list is drawn");
            if let Some(before) = &before {
                for (i, (a, b)) in before.iter().zip(&now).enumerate() {
                    assert!(
                        b >= a,
                        "{tab:?}: column {i} narrowed {a} → {b} at {width} columns:\n{}",
                        screen(&app)
                    );
                }
            }
            before = Some(now);
        }
    }
}

/// The example: `Flaky partner endpoint` whole in the Notifications list at 80, 120 and
/// 200 columns (at 120 it was cut to 20 characters beside the preview).
#[tokio::test]
async fn a_destination_name_is_whole_at_80_120_and_200_columns() {
    let (_t, mut app) = console(80).await;
    let key = tab_key(&app, Tab::Notifications);
    press(&mut app, ch(key)).await;
    for width in [80, 120, 200] {
        press(&mut app, Msg::Resize(width, HEIGHT)).await;
        let s = screen(&app);
        // The list pane's part of each line (a preview beside it would name it whole too).
        let list: Vec<&str> = s.lines().filter_map(|l| l.split('│').nth(1)).collect();
        assert!(
            list.iter().any(|l| l.contains("Flaky partner endpoint")),
            "whole in the list at {width}:\n{s}"
        );
        assert!(
            !list
                .iter()
                .any(|l| l.contains("Flaky partner endp…") || l.contains("Flaky partner endpo…")),
            "not cut at {width}:\n{s}"
        );
    }
}
