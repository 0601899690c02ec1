//! Power tools driven by keys on an offline app fed from the golden fixtures: filter, sort, raw
//! JSON, copy (OSC 52 bytes), command line with history, rebound keys, read-only, mouse, themes.
use crate::common;

use std::sync::{Arc, Mutex};

use base64::Engine;
use common::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::style::Color;
use switchboard::console::clipboard::{Clipboard, SystemClipboard, osc52};
use switchboard::console::keymap::Action;
use switchboard::console::power::{PowerMsg, PowerSetup};
use switchboard::console::{ApiCmd, App, Msg, State, Tab};

/// An offline app configured through `PowerSetup` (keys, console table), on `tab`, loaded.
fn configured(setup: &PowerSetup, tab: Tab, w: u16, h: u16) -> App {
    let mut state = State::new("test", "http://127.0.0.1:9", fixed_clock());
    setup.configure(&mut state);
    let mut app = App::offline(state);
    app.apply(Msg::Resize(w, h));
    app.start();
    answer_all(&mut app);
    if tab != Tab::Teams {
        app.state.tab = tab;
        app.apply(Msg::Key(KeyEvent::new(
            KeyCode::Char('r'),
            KeyModifiers::NONE,
        )));
        answer_all(&mut app);
    }
    app
}

fn loaded(tab: Tab, w: u16, h: u16) -> App {
    configured(&PowerSetup::default(), tab, w, h)
}

fn keys_table(text: &str) -> toml::Table {
    toml::from_str(text).expect("toml")
}

#[test]
fn filter_narrows_highlights_counts_is_kept_per_tab_and_esc_clears() {
    let mut app = loaded(Tab::Teams, 80, 24);
    assert_eq!(shown_ids(&app).len(), 2);
    app.apply(ch('/'));
    typed(&mut app, "supp");
    assert_eq!(shown_ids(&app), vec!["tm_0mh50kkb0s0obMN9YQLNsw"]);
    let s = screen(&app);
    assert!(s.contains("filter /supp"), "prompt in footer:\n{s}");
    assert!(s.contains("1 of 2 on this page"), "count:\n{s}");
    app.apply(key(KeyCode::Enter));
    insta::assert_snapshot!("console_power_filter_80x24", screen(&app));
    // Matched characters are bold and underlined (visible without colour).
    let buf = buffer(&app);
    let marked = buf
        .content()
        .iter()
        .filter(|c| {
            c.modifier
                .contains(ratatui::style::Modifier::UNDERLINED | ratatui::style::Modifier::BOLD)
        })
        .count();
    assert!(marked >= 4, "four matched characters marked, got {marked}");
    // Kept per tab.
    app.apply(ch('2'));
    answer_all(&mut app);
    assert_eq!(shown_ids(&app).len(), 2, "imports are not filtered");
    app.apply(ch('1'));
    assert_eq!(shown_ids(&app).len(), 1, "the teams filter is still there");
    // The selected row is the filtered one: Enter opens it.
    app.apply(key(KeyCode::Enter));
    let reqs = app.take_requests();
    let gets: Vec<_> = reqs
        .iter()
        .filter(|r| !matches!(r.cmd, ApiCmd::Members))
        .collect();
    assert!(
        matches!(&gets[..], [r] if matches!(&r.cmd, ApiCmd::Get { id, .. } if id == "tm_0mh50kkb0s0obMN9YQLNsw"))
    );
    app.apply(key(KeyCode::Esc)); // close the detail
    app.apply(key(KeyCode::Esc)); // clear the filter
    assert_eq!(shown_ids(&app).len(), 2);
    assert!(!screen(&app).contains("on this page"));
}

#[test]
fn filter_survives_a_reload_and_paging_uses_server_order() {
    let mut app = loaded(Tab::Callbacks, 120, 40);
    app.apply(ch('/'));
    typed(&mut app, "calendar");
    app.apply(key(KeyCode::Enter));
    assert_eq!(shown_ids(&app).len(), 1);
    app.apply(ch('r'));
    answer_all(&mut app);
    assert_eq!(
        shown_ids(&app).len(),
        1,
        "filter re-applied to the reloaded page"
    );
    assert!(screen(&app).contains("1 of 3 on this page"));
}

#[test]
fn filtered_rows_follow_every_change_of_the_page_beneath() {
    use switchboard::console::ApiReply;
    use switchboard::console::record::decode_page_body;
    let mut app = loaded(Tab::Teams, 120, 40);
    app.apply(ch('/'));
    typed(&mut app, "supp");
    app.apply(key(KeyCode::Enter));
    app.apply(ch('s'));
    assert_eq!(shown_ids(&app), vec!["tm_0mh50kkb0s0obMN9YQLNsw"]);
    // Messages that change nothing keep the view as it is.
    app.apply(Msg::Resize(120, 40));
    assert_eq!(shown_ids(&app), vec!["tm_0mh50kkb0s0obMN9YQLNsw"]);
    // A reload brings a page where the other team matches: the view follows it.
    app.apply(ch('r'));
    let renamed = fixture("team-list.json")
        .replace("\"Support\"", "\"Helpdesk\"")
        .replace("\"support\"", "\"helpdesk\"")
        .replace("\"Platform\"", "\"Support platform\"");
    for r in app.take_requests() {
        if let ApiCmd::List { tab, .. } = r.cmd {
            let page = decode_page_body(tab, 200, &renamed).expect("page");
            app.apply(Msg::Api {
                req_id: r.req_id,
                pane: r.pane,
                result: Ok(ApiReply::Page(page)),
            });
        }
    }
    let s = screen(&app);
    assert!(s.contains("Support platform"), "{s}");
    assert!(!s.contains("Helpdesk"), "{s}");
    assert_eq!(shown_ids(&app), vec!["tm_0mh50j7p0FfQzjnqvJ7a7X"]);
}

#[test]
fn sort_cycles_columns_flips_and_shows_in_the_header() {
    let mut app = loaded(Tab::Callbacks, 120, 40);
    let server = shown_ids(&app);
    app.apply(ch('s'));
    let s = screen(&app);
    assert!(s.contains("sort name ↑ asc"), "{s}");
    // What the Name column shows sorts: a name, or the id where there is none.
    let names: Vec<String> = app
        .state
        .current()
        .list
        .shown()
        .map(|r| {
            r.raw["name"]
                .as_str()
                .or(r.raw["id"].as_str())
                .unwrap_or_default()
                .to_lowercase()
        })
        .collect();
    let mut expected = names.clone();
    expected.sort();
    assert_eq!(names, expected, "ascending by the name shown");
    assert_eq!(row_ids(&app), server, "the rows stay in server order");
    app.apply(ch('S'));
    assert!(screen(&app).contains("sort name ↓ desc"));
    insta::assert_snapshot!("console_power_sort_desc_120x40", screen(&app));
    // j moves through the sorted order.
    let first = shown_ids(&app)[0].clone();
    app.apply(ch('j'));
    assert_ne!(
        app.state
            .current()
            .list
            .selected()
            .map(|r| r.id().to_string()),
        Some(first)
    );
    // Cycling past the last column returns to server order.
    for _ in 0..10 {
        app.apply(ch('s'));
        if !screen(&app).contains("sort ") {
            break;
        }
    }
    assert_eq!(shown_ids(&app), server);
    assert!(!screen(&app).contains("sort "));
}

#[test]
fn raw_json_view_scrolls_searches_and_masks_secrets() {
    let mut app = loaded(Tab::Destinations, 80, 24);
    // The names lookup the list started in the background is not the view's.
    app.take_requests();
    app.apply(ch('v'));
    let s = screen(&app);
    assert!(s.contains("JSON cld_0mh50v0ukkBavFIgqp9hLj"), "{s}");
    assert!(s.contains("\"webhook_destination\""), "{s}");
    let secret = app.state.current().list.rows[0].raw["webhook_destination"]["signing_secret"]
        .as_str()
        .expect("fixture has a secret")
        .to_string();
    assert!(!s.contains(&secret), "secret never on screen");
    insta::assert_snapshot!("console_power_raw_json_80x24", s);
    app.apply(ch('/'));
    typed(&mut app, "created");
    app.apply(key(KeyCode::Enter));
    let s = screen(&app);
    assert!(s.contains("match 1 of 1 for \"created\""), "{s}");
    // Below the header (whose active tab is reversed too).
    let buf = buffer(&app);
    let reversed = (2..24u16)
        .flat_map(|y| (0..80u16).map(move |x| (x, y)))
        .filter_map(|p| buf.cell(p))
        .filter(|c| c.modifier.contains(ratatui::style::Modifier::REVERSED))
        .count();
    assert_eq!(reversed, "created".len(), "the match is marked");
    app.apply(key(KeyCode::Esc));
    assert!(app.state.power.raw.is_none());
    assert!(
        app.take_requests().is_empty(),
        "the view asks nothing of the server"
    );
    // A long item scrolls; n jumps between matches.
    let mut app = loaded(Tab::Notifications, 80, 24);
    app.apply(ch('v'));
    app.apply(ch('j'));
    app.apply(ch('j'));
    assert_eq!(app.state.power.raw.as_ref().map(|v| v.scroll), Some(2));
    app.apply(ch('/'));
    typed(&mut app, "status");
    app.apply(key(KeyCode::Enter));
    app.apply(ch('n'));
    let s = screen(&app);
    assert!(s.contains("match 2 of"), "{s}");
}

#[test]
fn copy_sends_osc52_with_the_id_and_the_json_and_says_so() {
    let mut app = loaded(Tab::Teams, 80, 24);
    let out = Arc::new(Mutex::new(Vec::new()));
    app.clipboard = Clipboard::to_buffer(out.clone());
    app.apply(ch('y'));
    let id = "tm_0mh50j7p0FfQzjnqvJ7a7X";
    assert_eq!(*out.lock().expect("lock"), osc52(id));
    assert!(screen(&app).contains(&format!("Copied id {id}")));
    out.lock().expect("lock").clear();
    app.apply(ch('Y'));
    let bytes = out.lock().expect("lock").clone();
    let text = String::from_utf8(bytes).expect("ascii");
    let b64 = text
        .strip_prefix("\x1b]52;c;")
        .and_then(|t| t.strip_suffix('\x07'))
        .expect("OSC 52 framing");
    let json = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("base64");
    let v: serde_json::Value = serde_json::from_slice(&json).expect("copied JSON parses");
    assert_eq!(v["id"], id);
    assert!(screen(&app).contains(&format!("Copied JSON of {id}")));
}

/// A system clipboard that records what it was given, or refuses.
#[derive(Clone)]
struct Desktop {
    got: Arc<Mutex<Vec<String>>>,
    works: bool,
}

impl SystemClipboard for Desktop {
    fn set_text(&mut self, text: &str) -> Result<(), String> {
        if !self.works {
            return Err("no display".into());
        }
        self.got
            .lock()
            .map_err(|e| e.to_string())?
            .push(text.into());
        Ok(())
    }
}

/// A terminal that cannot be written to.
struct Closed;

impl std::io::Write for Closed {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::Error::other("terminal closed"))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn copy_also_sets_the_system_clipboard_and_falls_back_to_it() {
    let id = "tm_0mh50j7p0FfQzjnqvJ7a7X";
    let got = Arc::new(Mutex::new(Vec::new()));
    let desktop = Desktop {
        got: got.clone(),
        works: true,
    };
    // Both ways take it, and the toast says so.
    let mut app = loaded(Tab::Teams, 120, 30);
    let out = Arc::new(Mutex::new(Vec::new()));
    app.clipboard = Clipboard::to_buffer(out.clone()).with_system(desktop.clone());
    app.apply(ch('y'));
    assert_eq!(*out.lock().expect("lock"), osc52(id));
    assert_eq!(*got.lock().expect("lock"), vec![id.to_string()]);
    let s = screen(&app);
    assert!(s.contains("(OSC 52 + system clipboard)"), "{s}");

    // The terminal refuses the sequence: the system clipboard still has it.
    let mut app = loaded(Tab::Teams, 120, 30);
    app.clipboard = Clipboard::to_writer(Closed).with_system(desktop);
    app.apply(ch('y'));
    assert_eq!(got.lock().expect("lock").len(), 2);
    let s = screen(&app);
    assert!(
        s.contains(&format!(
            "Copied id {id} (system clipboard; failed: terminal"
        )),
        "{s}"
    );

    // The system clipboard refuses: the copy went by OSC 52, and the toast says what failed.
    let mut app = loaded(Tab::Teams, 120, 30);
    app.clipboard = Clipboard::to_buffer(Arc::new(Mutex::new(Vec::new()))).with_system(Desktop {
        got: got.clone(),
        works: false,
    });
    app.apply(ch('y'));
    let s = screen(&app);
    assert!(
        s.contains("(OSC 52; failed: system clipboard: no display)"),
        "{s}"
    );

    // Neither takes it: an error naming both reasons, nothing claimed.
    let mut app = loaded(Tab::Teams, 120, 30);
    app.clipboard = Clipboard::to_writer(Closed).with_system(Desktop {
        got: got.clone(),
        works: false,
    });
    app.apply(ch('y'));
    let s = screen(&app);
    assert!(s.contains("Copy failed") && s.contains("no display"), "{s}");
    assert!(!s.contains("Copied"), "{s}");
}

#[test]
fn command_line_switches_tabs_completes_and_keeps_history_between_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let setup = PowerSetup {
        data_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    let mut app = configured(&setup, Tab::Teams, 80, 24);
    app.apply(ch(':'));
    typed(&mut app, "ns");
    assert!(screen(&app).contains(":ns▏"));
    app.apply(key(KeyCode::Enter));
    assert_eq!(app.state.tab, Tab::Notifications);
    // Completion.
    app.apply(ch(':'));
    typed(&mut app, "cal");
    app.apply(key(KeyCode::Tab));
    assert_eq!(
        app.state.power.command.as_ref().map(|c| c.input.value()),
        Some("callbacks")
    );
    app.apply(key(KeyCode::Enter));
    assert_eq!(app.state.tab, Tab::Callbacks);
    // Unknown commands say so.
    app.apply(ch(':'));
    typed(&mut app, "frob");
    app.apply(key(KeyCode::Enter));
    assert!(screen(&app).contains("unknown command :frob"));
    // A new run reads the history: ↑ brings back the newest first.
    let mut again = configured(&setup, Tab::Teams, 80, 24);
    again.apply(ch(':'));
    again.apply(key(KeyCode::Up));
    assert_eq!(
        again.state.power.command.as_ref().map(|c| c.input.value()),
        Some("frob")
    );
    again.apply(key(KeyCode::Up));
    assert_eq!(
        again.state.power.command.as_ref().map(|c| c.input.value()),
        Some("callbacks")
    );
    again.apply(key(KeyCode::Esc));
    again.apply(ch(':'));
    typed(&mut again, "q");
    again.apply(key(KeyCode::Enter));
    assert!(again.should_quit());
}

#[test]
fn goto_opens_each_kind_of_id_from_its_prefix() {
    let cases = [
        ("tm_0mh50kkb0s0obMN9YQLNsw", Tab::Teams),
        ("poti_0mh50psksbLz3co1d9aNyn", Tab::Imports),
        ("clb_0mh50sepoOqY4Qix6OlcBM", Tab::Callbacks),
        ("cld_0mh50wbx0SNIzGFIzhrGrH", Tab::Destinations),
        ("cbn_0mh50yy1wbMmpuUzZHKdaE", Tab::Notifications),
    ];
    for (id, tab) in cases {
        let mut app = started_app(120, 40);
        answer_all(&mut app);
        app.apply(ch(':'));
        typed(&mut app, &format!("goto {id}"));
        app.apply(key(KeyCode::Enter));
        assert_eq!(app.state.tab, tab);
        let reqs = app.take_requests();
        assert!(
            reqs.iter()
                .any(|r| matches!(&r.cmd, ApiCmd::Get { tab: t, id: i } if *t == tab && i == id)),
            "{id}: a get of the item, got {reqs:?}"
        );
        assert_eq!(
            app.state.current().detail.as_ref().map(|d| d.id.as_str()),
            Some(id)
        );
    }
    let mut app = started_app(80, 24);
    app.apply(ch(':'));
    typed(&mut app, "goto xyz_1");
    app.apply(key(KeyCode::Enter));
    assert!(screen(&app).contains("unknown id"));
}

#[test]
fn rebound_keys_change_behaviour_help_and_footer() {
    let setup = PowerSetup {
        keys: Some(keys_table(
            "reload = \"x\"\nfilter = [\"f\", \"F5\"]\ndown = [\"Ctrl-n\", \"Down\"]\n",
        )),
        ..Default::default()
    };
    let mut app = configured(&setup, Tab::Teams, 80, 24);
    app.apply(ch('r'));
    assert!(app.take_requests().is_empty(), "r no longer reloads");
    app.apply(ch('x'));
    assert_eq!(app.take_requests().len(), 1, "x reloads");
    app.apply(ch('x'));
    answer_all(&mut app);
    app.apply(Msg::Key(KeyEvent::new(
        KeyCode::Char('n'),
        KeyModifiers::CONTROL,
    )));
    assert_eq!(app.state.current().list.cursor, 1, "Ctrl-n moves down");
    // The footer puts the tab's keys first; at 120 columns the general ones fit too.
    app.apply(Msg::Resize(120, 40));
    assert!(
        screen(&app).contains("x reload"),
        "footer shows the new key"
    );
    app.apply(Msg::Resize(80, 24));
    app.apply(ch('f'));
    assert!(app.state.power.filters[0].editing, "f filters");
    app.apply(key(KeyCode::Esc));
    app.apply(ch('?'));
    let help = screen(&app);
    assert!(
        help.contains("f/F5"),
        "help lists the new filter keys:\n{help}"
    );
    assert!(help.contains("Ctrl-n/↓"), "{help}");
    insta::assert_snapshot!("console_power_rebound_help_80x24", help);
}

#[test]
fn an_invalid_keys_table_falls_back_to_defaults_with_a_toast() {
    let setup = PowerSetup {
        keys: Some(keys_table("reload = \"z\"\nfrobnicate = \"Z\"\n")),
        console: Some(keys_table("theme = \"sepia\"\n")),
        ..Default::default()
    };
    // Both warnings side by side beside `? help` and `q quit` (#37: toasts never push them out).
    let mut app = configured(&setup, Tab::Teams, 140, 40);
    let s = screen(&app);
    assert!(s.contains("unknown action \"frobnicate\""), "{s}");
    assert!(s.contains("theme \"sepia\" is unknown"), "{s}");
    app.apply(ch('z'));
    assert!(app.take_requests().is_empty(), "z is not bound");
    app.apply(ch('r'));
    assert_eq!(app.take_requests().len(), 1, "the default r reloads");
}

#[test]
fn read_only_refuses_every_write_and_hides_it() {
    let mut state = State::new("audit", "http://127.0.0.1:9", fixed_clock());
    state.read_only = true;
    PowerSetup::default().configure(&mut state);
    let mut app = App::offline(state);
    app.apply(Msg::Resize(120, 40));
    app.start();
    answer_all(&mut app);
    assert!(screen(&app).contains("read-only"), "header says so");
    // Every write action is refused by `update`, with a message.
    let writes: Vec<_> = Action::all().into_iter().filter(|a| a.is_write()).collect();
    assert!(writes.len() >= 7, "the form actions are writes: {writes:?}");
    for a in writes {
        let toasts = app.state.toasts.len();
        let effects = switchboard::console::update::on_action(&mut app.state, a);
        assert!(effects.is_empty(), "{a:?} refused");
        assert!(app.state.toasts.len() > toasts || app.state.toasts.len() == 3);
        assert!(
            !switchboard::console::layers::Layer::help(&app.state)
                .iter()
                .flat_map(|(_, rows)| rows)
                .any(|(_, d)| d.contains(a.describe())),
            "{a:?} hidden from help"
        );
    }
    // Whatever key is pressed, nothing but reads reaches the server.
    let bound: Vec<KeyEvent> = Action::all()
        .into_iter()
        .flat_map(|a| app.state.settings.keymap.keys_for(a))
        .filter(|k| !matches!(k.code, KeyCode::Char('q')))
        .map(|k| KeyEvent::new(k.code, k.mods))
        .collect();
    for tab in Tab::ALL {
        app.state.tab = tab;
        for k in &bound {
            app.apply(Msg::Key(*k));
            app.apply(key(KeyCode::Esc));
            for r in app.take_requests() {
                let reply = match &r.cmd {
                    ApiCmd::List { tab, .. }
                    | ApiCmd::ListSince { tab, .. }
                    | ApiCmd::ListAround { tab, .. } => page_reply(*tab, fixtures_of(*tab).0),
                    ApiCmd::Get { tab, .. } => item_reply(*tab, fixtures_of(*tab).1),
                    ApiCmd::Write(_) => panic!("a write in read-only mode: {r:?}"),
                    // Other reads (lookups) are left unanswered.
                    ApiCmd::Lookup(_)
                    | ApiCmd::Members
                    | ApiCmd::Known
                    | ApiCmd::Active(_)
                    | ApiCmd::Glance(_)
                    | ApiCmd::Stats { .. }
                    | ApiCmd::Replay(_)
                    | ApiCmd::Recover(_)
                    | ApiCmd::Forward(_)
                    | ApiCmd::Compare(_)
                    | ApiCmd::Search(_)
                    | ApiCmd::Samples(_)
                    | ApiCmd::Alerts(_)
                    | ApiCmd::Follow(_) => continue,
                };
                app.apply(Msg::Api {
                    req_id: r.req_id,
                    pane: r.pane,
                    result: Ok(reply),
                });
            }
        }
    }
    assert_eq!(app.state.power.confirm, Default::default());
}

fn mouse(kind: MouseEventKind, column: u16, row: u16) -> Msg {
    Msg::Power(PowerMsg::Mouse(MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    }))
}

#[test]
fn a_click_on_a_short_tab_label_selects_that_tab() {
    // Below the width where every title fits, the other tabs show only their number.
    let mut app = loaded(Tab::Teams, 60, 24);
    let top = screen(&app).lines().next().unwrap_or_default().to_string();
    let third = app.state.shown[2];
    let at = top
        .find(&format!(" {} ", third.index() + 1))
        .expect("label")
        + 1;
    app.apply(mouse(
        MouseEventKind::Down(MouseButton::Left),
        u16::try_from(at).expect("column"),
        0,
    ));
    assert_eq!(app.state.tab, third, "{top}");
}

#[test]
fn mouse_clicks_tabs_and_rows_and_the_wheel_scrolls_unless_turned_off() {
    let mut app = loaded(Tab::Teams, 80, 24);
    // " 1 Teams  2 Imports  3 Callbacks": column 24 is inside "3 Callbacks".
    app.apply(mouse(MouseEventKind::Down(MouseButton::Left), 24, 0));
    assert_eq!(app.state.tab, Tab::Callbacks);
    answer_all(&mut app);
    // Rows start below the border (y 2) and the column header (y 3): y 6 is the third row.
    app.apply(mouse(MouseEventKind::Down(MouseButton::Left), 10, 6));
    assert_eq!(app.state.current().list.cursor, 2);
    app.apply(mouse(MouseEventKind::ScrollUp, 10, 5));
    assert_eq!(app.state.current().list.cursor, 1);
    // A second click on the selected row opens it.
    app.apply(mouse(MouseEventKind::Down(MouseButton::Left), 10, 5));
    assert!(app.state.current().detail.is_some());

    let off = PowerSetup {
        console: Some(keys_table("mouse = false\n")),
        ..Default::default()
    };
    let mut app = configured(&off, Tab::Teams, 80, 24);
    app.apply(mouse(MouseEventKind::Down(MouseButton::Left), 24, 0));
    assert_eq!(app.state.tab, Tab::Teams, "mouse off: clicks ignored");
}

/// On Notifications with `[console] watch_interval = secs`, watching turned on: its toast.
fn watching_every(secs: &str) -> (App, Vec<String>) {
    let setup = PowerSetup {
        console: Some(keys_table(&format!("watch_interval = {secs}\n"))),
        ..Default::default()
    };
    let mut app = configured(&setup, Tab::Notifications, 80, 24);
    app.state.toasts.clear();
    app.apply(ch('w'));
    let toasts = app.state.toasts.iter().map(|t| t.text.clone()).collect();
    (app, toasts)
}

#[test]
fn the_watch_toast_and_help_say_the_configured_interval() {
    let (app, toasts) = watching_every("10");
    assert_eq!(toasts, vec!["Watching: every 10 s"]);
    let help: Vec<String> = switchboard::console::layers::Layer::help(&app.state)
        .into_iter()
        .flat_map(|(_, rows)| rows.into_iter().map(|(_, d)| d))
        .collect();
    assert!(
        help.iter()
            .any(|d| d == "watch: refresh notifications every 10 s"),
        "{help:?}"
    );
    assert!(!help.iter().any(|d| d.contains("every 2 s")), "{help:?}");
    let (_, toasts) = watching_every("0.5");
    assert_eq!(toasts, vec!["Watching: every 0.4 s"], "whole ticks");
}

#[test]
fn console_settings_of_the_wrong_kind_keep_the_defaults_and_say_why() {
    let defaults = configured(&PowerSetup::default(), Tab::Teams, 80, 24)
        .state
        .core
        .settings;
    for (line, said) in [
        ("theme = 1", "[console] theme must be \"dark\" or \"light\""),
        (
            "mouse = \"yes\"",
            "[console] mouse must be true or false; mouse on",
        ),
        (
            "watch_interval = 0.1",
            "[console] watch_interval must be seconds between 0.2 and 3600; 2 s in use",
        ),
        (
            "notifications_order = \"up\"",
            "[console] notifications_order must be \"desc\" or \"asc\"; newest first in use",
        ),
        (
            "clipboard = 3",
            "[console] clipboard must be a string; auto in use",
        ),
        ("speed = 9", "[console] unknown setting \"speed\" (ignored)"),
    ] {
        let setup = PowerSetup {
            console: Some(keys_table(&format!("{line}\n"))),
            ..Default::default()
        };
        let app = configured(&setup, Tab::Teams, 80, 24);
        let toasts: Vec<&str> = app.state.toasts.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(toasts, vec![said], "{line}");
        assert_eq!(app.state.settings, defaults, "{line}");
    }
}

#[test]
fn watch_interval_comes_from_the_config() {
    let default = configured(&PowerSetup::default(), Tab::Notifications, 80, 24);
    let every_default = default.state.settings.watch_every_ticks;
    let slow = PowerSetup {
        console: Some(keys_table("watch_interval = 10\n")),
        ..Default::default()
    };
    let app = configured(&slow, Tab::Notifications, 80, 24);
    assert_eq!(
        app.state.settings.watch_every_ticks,
        every_default * 5,
        "10 s is 5x the 2 s default"
    );
    let bad = PowerSetup {
        console: Some(keys_table("watch_interval = \"fast\"\n")),
        ..Default::default()
    };
    let app = configured(&bad, Tab::Notifications, 80, 24);
    assert_eq!(
        app.state.settings.watch_every_ticks, every_default,
        "a bad value keeps the default"
    );
    assert!(
        app.state
            .toasts
            .iter()
            .any(|t| t.text.contains("watch_interval")),
        "and says why"
    );
}

#[test]
fn clipboard_mode_comes_from_the_config() {
    use switchboard::console::clipboard::ClipboardMode;
    let app = configured(&PowerSetup::default(), Tab::Teams, 80, 24);
    assert_eq!(app.state.settings.clipboard, ClipboardMode::Auto);
    let osc = PowerSetup {
        console: Some(keys_table("clipboard = \"osc52\"\n")),
        ..Default::default()
    };
    let app = configured(&osc, Tab::Teams, 80, 24);
    assert_eq!(app.state.settings.clipboard, ClipboardMode::Osc52);
    let bad = PowerSetup {
        console: Some(keys_table("clipboard = \"xclip\"\n")),
        ..Default::default()
    };
    let app = configured(&bad, Tab::Teams, 80, 24);
    assert_eq!(app.state.settings.clipboard, ClipboardMode::Auto);
    assert!(
        app.state
            .toasts
            .iter()
            .any(|t| t.text.contains("clipboard")),
        "says why"
    );
}

#[test]
fn themes_light_and_no_color() {
    let light = PowerSetup {
        console: Some(keys_table("theme = \"light\"\n")),
        ..Default::default()
    };
    let app = configured(&light, Tab::Notifications, 120, 40);
    assert_eq!(
        app.state.settings.theme,
        switchboard::console::theme::Theme::light()
    );
    let no_color = PowerSetup {
        console: Some(keys_table("theme = \"light\"\n")),
        no_color: true,
        ..Default::default()
    };
    let app = configured(&no_color, Tab::Notifications, 120, 40);
    let buf = buffer(&app);
    assert!(
        buf.content()
            .iter()
            .all(|c| c.fg == Color::Reset && c.bg == Color::Reset),
        "NO_COLOR: no colour anywhere"
    );
    // Status stays readable without colour: a symbol and a word.
    let s = screen(&app);
    assert!(s.contains("✓ succeeded"), "{s}");
    insta::assert_snapshot!("console_power_no_color_notifications_120x40", s);
}

#[test]
fn profile_confirm_type_name_read_only_and_console_tables_reach_the_console() {
    use switchboard::config::{Env, Flags, Settings};
    use switchboard::console::power::ConfirmMode;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    std::fs::write(
        &path,
        "default_profile = \"audit\"\n\
         [console]\ntheme = \"light\"\nmouse = false\n\
         [keys]\nreload = \"x\"\n\
         [profiles.audit]\nbase_url = \"http://127.0.0.1:9\"\napi_key_env = \"K\"\n\
         read_only = true\nconfirm = \"type-name\"\n\
         [profiles.work]\nbase_url = \"http://127.0.0.1:9\"\napi_key_env = \"K\"\nconfirm = false\n",
    )
    .expect("write config");
    let flags = |profile: &str| Flags {
        config: Some(path.clone()),
        profile: Some(profile.into()),
        ..Flags::default()
    };
    let env = Env::from_pairs([("K", "sk_test_power_0123456789")]);
    let audit = Settings::load(&flags("audit"), &env).expect("loads");
    assert!(audit.read_only && audit.confirm_type_name);
    assert!(audit.warnings.is_empty(), "{:?}", audit.warnings);
    assert_eq!(
        ConfirmMode::from_settings(audit.confirm, audit.confirm_type_name),
        ConfirmMode::TypeName
    );
    let work = Settings::load(&flags("work"), &env).expect("loads");
    assert_eq!(
        ConfirmMode::from_settings(work.confirm, work.confirm_type_name),
        ConfirmMode::Off
    );
    let setup = PowerSetup {
        keys: audit.keys.clone(),
        console: audit.console.clone(),
        ..Default::default()
    };
    let mut state = State::new("audit", "http://127.0.0.1:9", fixed_clock());
    setup.configure(&mut state);
    assert_eq!(
        state.settings.theme,
        switchboard::console::theme::Theme::light()
    );
    assert!(!state.settings.mouse);
    assert!(state.toasts.is_empty(), "a valid config says nothing");
}
