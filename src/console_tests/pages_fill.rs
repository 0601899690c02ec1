//! A page fills a tall pane on every tab of every generation (issue 37, item 11): each list asks
//! for as many rows as its pane shows, at least 20 and at most the API's 100, and with enough
//! items the pane's last row holds one. Offline for what each tab asks; on a real local service
//! for what the pane then shows.
use std::time::Duration;

use crossterm::event::KeyCode;
use ratatui::layout::Rect;
use switchboard::api::generation::Generation;
use switchboard::api::model::CreateTeam;
use switchboard::api::{Client, Secret};
use switchboard::console::{ApiCmd, App, Msg, State, Tab};
use switchboard::service::{RunningService, Seed, ServiceConfig};

use crate::common::deliveries::{fixed_clock, settle};
use crate::common::service::{TestService, start_with};
use crate::common::{ch, key, typed};

/// Every generation the console speaks.
const GENERATIONS: [Generation; 3] = [
    Generation::Pulsar,
    Generation::EventDestinations,
    Generation::CallbackDestinations,
];

/// Rows a page holds at this terminal height, from the frame's fixed parts: two header lines and
/// a footer line, the list's two borders and its column header; never under 20, never over 100.
fn expected_rows(h: u16) -> u32 {
    u32::from(h - 3 - 3).clamp(20, 100)
}

/// Opens `tab` with `:` and its first alias.
fn open(app: &mut App, tab: Tab) {
    app.apply(ch(':'));
    typed(app, tab.aliases()[0]);
    app.apply(key(KeyCode::Enter));
}

#[test]
fn every_tab_on_every_generation_asks_for_the_rows_its_pane_shows() {
    for g in GENERATIONS {
        for (w, h) in [(80u16, 24u16), (120, 40), (200, 55)] {
            let mut app = App::offline(State::new("pages", "http://127.0.0.1:9", fixed_clock()));
            app.preset_generation(g);
            app.apply(Msg::Resize(w, h));
            app.start();
            let shown = app.state.shown.clone();
            for tab in shown {
                if app.state.tab != tab {
                    open(&mut app, tab);
                }
                assert_eq!(app.state.tab, tab, "{g:?} {w}×{h}: on {tab:?}");
                let limits: Vec<Option<u32>> = app
                    .take_requests()
                    .into_iter()
                    .filter_map(|r| match r.cmd {
                        ApiCmd::List { tab: t, query, .. } if t == tab => Some(query.limit),
                        _ => None,
                    })
                    .collect();
                assert_eq!(
                    limits,
                    [Some(expected_rows(h))],
                    "{g:?} {w}×{h}: {tab:?} asks for a page of its pane's rows"
                );
                assert!(expected_rows(h) >= 20);
            }
        }
    }
}

/// The list pane's rectangle on screen (no detail open).
fn list_area(app: &App) -> Rect {
    let (w, h) = app.state.size;
    switchboard::console::layout::areas(Rect::new(0, 0, w, h), app.state.tab, false)
        .list
        .expect("a list pane")
}

/// The text of one screen row within `area`'s borders.
fn inner_row(app: &App, area: Rect, y: u16) -> String {
    let buf = crate::common::buffer(app);
    (area.x + 1..area.x + area.width - 1)
        .map(|x| buf[(x, y)].symbol().to_string())
        .collect()
}

/// What the current tab's pane shows: rows asked for, rows loaded, whether the pane's last row
/// holds an item, and the page line on its bottom border.
fn pane(app: &App) -> (u32, usize, bool, String) {
    let area = list_area(app);
    let list = &app.state.current().list;
    let last = inner_row(app, area, area.y + area.height - 2);
    let bottom = inner_row(app, area, area.y + area.height - 1);
    (list.limit, list.rows.len(), !last.trim().is_empty(), bottom)
}

/// A console of `w`×`h` on `client`, showing `g`'s tabs, settled.
async fn console(client: Client, g: Generation, w: u16, h: u16) -> App {
    let mut app = App::with_client(
        State::new("pages", client.base_url().to_string(), fixed_clock()),
        client,
    );
    app.preset_generation(g);
    app.apply(Msg::Resize(w, h));
    app.start();
    settle(&mut app).await;
    app
}

#[tokio::test]
async fn teams_fill_a_tall_pane_and_ask_twenty_on_a_small_one() {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    let t: TestService = start_with(cfg).await;
    for i in 0..60 {
        t.client
            .create_team(&CreateTeam {
                name: format!("Team {i:02}"),
                description: None,
            })
            .await
            .expect("team created");
    }
    for (w, h) in [(80u16, 24u16), (120, 40), (200, 55)] {
        let mut app = console(t.client.clone(), Generation::Pulsar, w, h).await;
        if app.state.tab != Tab::Teams {
            open(&mut app, Tab::Teams);
            settle(&mut app).await;
        }
        let (limit, rows, last_filled, bottom) = pane(&app);
        let n = expected_rows(h);
        // The server answered with as many as were asked: the request carried `limit=n`.
        assert_eq!((limit, rows), (n, n as usize), "{w}×{h}");
        assert!(
            bottom.contains(&format!("{n} per page")),
            "{w}×{h}: {bottom}"
        );
        if h > 24 {
            assert!(last_filled, "{w}×{h}: the pane's last row holds a team");
        }
    }
}

/// The demo of `g` with a history, with the keys the newer generations need.
async fn history(g: Generation) -> (RunningService, Client) {
    const ORG: &str = "sk_org_console_pages_fill_0123456789abcdef";
    const INSTANCE: &str = "sk_instance_console_pages_fill_0123456789";
    let cfg = ServiceConfig {
        seed: Seed::Demo,
        generation: g,
        history: 150,
        api_key: Some(Secret::new(ORG)),
        instance_key: Some(Secret::new(INSTANCE)),
        ..ServiceConfig::ephemeral()
    };
    let svc = switchboard::service::start(cfg).await.expect("service");
    let client = Client::new(switchboard::api::ClientOptions {
        base_url: svc.base_url.clone(),
        api_key: Secret::new(INSTANCE),
        organization_key: Some(Secret::new(ORG)),
        instance_id: svc.instance_id.clone(),
        max_retries: 0,
        request_timeout: Duration::from_secs(15),
        ..switchboard::api::ClientOptions::default()
    })
    .expect("client");
    (svc, client)
}

#[tokio::test]
async fn every_tab_of_the_newer_generations_fills_its_pane_when_it_has_the_items() {
    for g in [
        Generation::EventDestinations,
        Generation::CallbackDestinations,
    ] {
        let (_svc, client) = history(g).await;
        for (w, h) in [(120u16, 40u16), (200, 55)] {
            let mut app = console(client.clone(), g, w, h).await;
            let n = expected_rows(h);
            let mut filled = Vec::new();
            for tab in app.state.shown.clone() {
                if app.state.tab != tab {
                    open(&mut app, tab);
                    settle(&mut app).await;
                }
                let (limit, rows, last_filled, _) = pane(&app);
                let more = app.state.current().list.pagination.has_more_after;
                assert_eq!(limit, n, "{g:?} {w}×{h}: {tab:?} asked for its pane");
                // A pane is short of items only when the list has no more.
                assert!(
                    rows == n as usize || !more,
                    "{g:?} {w}×{h}: {tab:?} {rows} rows with more after"
                );
                if rows == n as usize {
                    assert!(last_filled, "{g:?} {w}×{h}: {tab:?}'s last row");
                    filled.push(tab);
                }
            }
            assert!(
                !filled.is_empty(),
                "{g:?} {w}×{h}: some tab of the history fills its pane"
            );
        }
    }
}
