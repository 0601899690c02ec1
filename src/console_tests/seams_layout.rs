//! The frame on small terminals (down to 40×12, then a message), forms that use their width and
//! scroll, a project's roles, errors wrapped with their cause, toasts in the footer line and the
//! header's own activity: keys drive the app, the rendered screen is what is checked.
use crate::common::*;
use crossterm::event::KeyCode;
use switchboard::api::{ApiError, Client, ClientOptions, Error, Secret};
use switchboard::console::forms::ops::Lookup;
use switchboard::console::forms::picker::PickItem;
use switchboard::console::record::decode_page_body;
use switchboard::console::{ApiCmd, ApiReply, App, Msg, State, Tab};

/// An app of this size on `tab`, its list loaded from the fixtures.
fn on_tab(tab: Tab, w: u16, h: u16) -> App {
    let mut app = started_app(w, h);
    answer_all(&mut app);
    let digit = char::from_digit(tab.index() as u32 + 1, 10).expect("digit");
    app.apply(ch(digit));
    answer_all(&mut app);
    app
}

/// The screen's rows (the test backend quotes each).
fn lines(s: &str) -> Vec<&str> {
    s.lines().map(|l| l.trim_matches('"')).collect()
}

/// Answers the pending lookups with these items.
fn answer_lookups(app: &mut App, answer: impl Fn(Lookup) -> Vec<PickItem>) {
    for r in app.take_requests() {
        if let ApiCmd::Lookup(what) = r.cmd {
            app.apply(Msg::Api {
                req_id: r.req_id,
                pane: r.pane,
                result: Ok(ApiReply::Options(answer(what))),
            });
        }
    }
}

fn item(id: &str, label: &str, detail: &str) -> PickItem {
    PickItem {
        id: id.into(),
        label: label.into(),
        detail: detail.into(),
    }
}

fn writes(app: &mut App) -> Vec<Sent> {
    app.take_requests()
        .into_iter()
        .filter_map(|r| match r.cmd {
            ApiCmd::Write(op) => Some(sent(&op)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_console_degrades_down_to_40x12_and_only_then_says_too_small() {
    for (w, h) in [(80, 23), (60, 20), (40, 12)] {
        let mut app = on_tab(Tab::Teams, w, h);
        let s = screen(&app);
        assert!(!s.contains("too small"), "{w}×{h}:\n{s}");
        let rows = lines(&s);
        // The header fits: the active tab by name, the list with its first row, the footer.
        assert!(rows[0].contains("1 Teams"), "{w}×{h}:\n{s}");
        assert!(s.contains("Platform"), "a row at {w}×{h}:\n{s}");
        assert!(
            rows[2].starts_with('┌'),
            "the list's top border at {w}×{h}:\n{s}"
        );
        assert!(
            rows[usize::from(h) - 2].starts_with('└'),
            "the list's bottom border at {w}×{h}:\n{s}"
        );
        assert!(rows[usize::from(h) - 1].contains("help"), "{w}×{h}:\n{s}");
        // No preview beside the list below 120 columns: Enter opens the detail in its place.
        assert_eq!(rows[3].matches('│').count(), 2, "one pane at {w}×{h}:\n{s}");
        app.apply(key(KeyCode::Enter));
        answer_all(&mut app);
        let s = screen(&app);
        assert!(s.contains("platform"), "the team's detail at {w}×{h}:\n{s}");
        assert!(
            !s.contains("oldest first"),
            "the list gives way at {w}×{h}:\n{s}"
        );
        // Every tab, its detail, and help draw at this size.
        for tab in ['2', '3', '4', '5'] {
            app.apply(ch(tab));
            answer_all(&mut app);
            app.apply(key(KeyCode::Enter));
            answer_all(&mut app);
            let s = screen(&app);
            assert!(!s.contains("too small"), "tab {tab} at {w}×{h}:\n{s}");
        }
        app.apply(ch('?'));
        let _ = screen(&app);
    }
    for (w, h) in [(39, 11), (39, 12), (40, 11)] {
        let app = on_tab(Tab::Teams, w, h);
        let s = screen(&app);
        assert!(s.contains("too small"), "{w}×{h}:\n{s}");
        assert!(s.contains("40×12"), "says what is needed at {w}×{h}:\n{s}");
    }
}

#[test]
fn on_a_narrow_terminal_the_header_fits_and_names_the_active_tab() {
    let app = on_tab(Tab::Destinations, 40, 12);
    let s = screen(&app);
    let rows = lines(&s);
    assert!(rows[0].contains("4 Destinations"), "{s}");
    for n in ["1", "2", "3", "5"] {
        assert!(
            rows[0].contains(&format!(" {n} ")),
            "tab {n} by number:\n{s}"
        );
    }
    // The profile first, then the address cut with `…`, the activity intact at the end.
    assert!(rows[1].starts_with(" test · http://127"), "{s}");
    assert!(rows[1].trim_end().ends_with("0 requests"), "{s}");
}

#[test]
fn the_activity_indicator_is_the_consoles_own_requests() {
    let mut app = started_app(80, 24);
    let s = screen(&app);
    let header = lines(&s)[1];
    assert!(header.contains("1 request"), "{header:?}");
    assert!(!header.contains("in flight"), "{header:?}");
    answer_all(&mut app);
    let s = screen(&app);
    let header = lines(&s)[1];
    assert!(header.trim_end().ends_with("0 requests"), "{header:?}");
    assert!(
        !header.contains("idle"),
        "not the service's state: {header:?}"
    );
}

#[test]
fn a_team_project_needs_a_role() {
    let mut app = on_tab(Tab::Teams, 100, 30);
    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    app.apply(ch('p'));
    answer_lookups(&mut app, |what| match what {
        Lookup::Projects => vec![item("prj_new", "Fresh", "fresh")],
        Lookup::TeamRoles => vec![item("tmr_view", "Viewer", "instance:read")],
        other => panic!("unexpected lookup {other:?}"),
    });
    // A project the team does not have: nothing pre-selected; save at once.
    app.apply(ctrl('s'));
    assert!(writes(&mut app).is_empty(), "no write without a role");
    let s = screen(&app);
    assert!(s.contains("choose at least one role"), "{s}");
    // The focus is on the roles: one chosen, the write goes.
    app.apply(ch(' '));
    app.apply(ctrl('s'));
    let sent = writes(&mut app);
    let [Sent::SetProject(_, body)] = sent.as_slice() else {
        panic!("one set-project expected, got {sent:?}");
    };
    assert_eq!(body.team_role_ids, vec!["tmr_view".to_string()]);
}

/// Teams whose first team has this description.
fn teams_with_description(app: &mut App, description: &str) {
    let mut v: serde_json::Value =
        serde_json::from_str(&fixture("team-list.json")).expect("fixture");
    v["items"][0]["description"] = serde_json::json!(description);
    let page = decode_page_body(Tab::Teams, 200, &v.to_string()).expect("page");
    app.apply(ch('r'));
    for r in app.take_requests() {
        app.apply(Msg::Api {
            req_id: r.req_id,
            pane: r.pane,
            result: Ok(ApiReply::Page(page.clone())),
        });
    }
}

#[test]
fn text_fields_use_the_forms_width_and_show_the_start_of_a_value() {
    let long = "Begins here and runs on well past thirty characters, to the very end";
    for (w, h) in [(80, 24), (40, 12)] {
        let mut app = on_tab(Tab::Teams, w, h);
        teams_with_description(&mut app, long);
        app.apply(ch('e'));
        let s = screen(&app);
        assert!(
            s.contains("Begins here"),
            "start of the value at {w}×{h}:\n{s}"
        );
        if w == 80 {
            // 74 columns inside: the value takes what the label leaves, not 30 columns.
            assert!(
                s.contains("Begins here and runs on well past thirty char"),
                "{s}"
            );
        }
        // Focused, a long value opens on its start too.
        app.apply(key(KeyCode::Tab));
        let s = screen(&app);
        assert!(s.contains("Begins here"), "focused at {w}×{h}:\n{s}");
    }
}

#[test]
fn a_form_scrolls_when_the_terminal_is_short() {
    let mut app = on_tab(Tab::Imports, 40, 12);
    app.apply(ch('c'));
    answer_lookups(&mut app, |_| Vec::new());
    let first = screen(&app);
    assert!(first.contains("↓ more"), "more below:\n{first}");
    // A choice's options that do not fit on the row go under it.
    assert!(first.contains("( ) server deployment"), "{first}");
    // Through every field to the last: each shows when focused, the keys at the end.
    for _ in 0..12 {
        app.apply(key(KeyCode::Tab));
        let s = screen(&app);
        assert!(!s.contains("too small"), "{s}");
        if s.contains("Ctrl-S") {
            assert!(s.contains("↑ more"), "scrolled:\n{s}");
            return;
        }
    }
    panic!("the form's keys never showed:\n{}", screen(&app));
}

#[test]
fn a_narrow_forms_keys_fit_its_width() {
    let mut app = on_tab(Tab::Teams, 40, 12);
    app.apply(ch('c'));
    let s = screen(&app);
    assert!(s.contains("Ctrl-S save"), "{s}");
    assert!(s.contains("Esc cancel"), "{s}");
}

/// A port on loopback with nothing listening: connecting to it is refused. The socket stays
/// bound (not listening) until the process ends, so no other test's server gets the port.
fn refused_port() -> u16 {
    use std::os::fd::IntoRawFd;
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind(std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
        .expect("bind");
    let port = socket.local_addr().expect("addr").port();
    let _fd = socket.into_raw_fd();
    port
}

#[tokio::test]
async fn a_network_error_wraps_in_its_pane_and_shows_its_cause() {
    let base = format!("http://127.0.0.1:{}", refused_port());
    for (w, h) in [(80, 24), (40, 12), (130, 30)] {
        let client = Client::new(ClientOptions {
            base_url: base.clone(),
            api_key: Secret::new("sk_test_refused"),
            max_retries: 0,
            ..ClientOptions::default()
        })
        .expect("client");
        let mut app = App::with_client(State::new("test", base.clone(), fixed_clock()), client);
        app.apply(Msg::Resize(w, h));
        app.start();
        let reply = next_reply(&mut app).await;
        app.apply(reply);
        let s = screen(&app);
        assert!(s.contains("network error"), "{w}×{h}:\n{s}");
        assert!(
            s.replace(['│', '\n'], " ").contains("refused"),
            "the cause at {w}×{h}:\n{s}"
        );
        // Wrapped inside the pane: every row keeps its border.
        for row in lines(&s).iter().skip(3).take(usize::from(h) - 5) {
            assert!(row.starts_with('│'), "{w}×{h}:\n{s}");
        }
    }
}

#[test]
fn an_api_error_with_a_hint_wraps_message_and_hint() {
    let mut app = started_app(40, 12);
    let reqs = app.take_requests();
    let e: ApiError =
        serde_json::from_str(&fixture("error-unauthorized.json")).expect("error fixture");
    app.apply(Msg::Api {
        req_id: reqs[0].req_id,
        pane: reqs[0].pane,
        result: Err(Error::Api(Box::new(e))),
    });
    let s = screen(&app);
    assert!(s.contains("✗ 401"), "{s}");
    assert!(s.replace(['│', '\n'], " ").contains("organization"), "{s}");
}

#[test]
fn toasts_sit_in_the_footer_line_and_are_not_stacked() {
    let mut app = on_tab(Tab::Teams, 80, 24);
    let before = screen(&app);
    app.apply(ch('['));
    app.apply(ch('['));
    let s = screen(&app);
    assert_eq!(s.matches("This is the first page").count(), 1, "{s}");
    let rows = lines(&s);
    assert!(rows[23].contains("This is the first page"), "{s}");
    // The rows and the border above are as they were.
    assert_eq!(lines(&before)[..23], rows[..23], "{s}");
    // Two messages side by side, the newest rightmost.
    app.apply(ch('o'));
    let s = screen(&app);
    let footer = lines(&s)[23];
    assert!(footer.contains("This is the first page"), "{s}");
    assert!(footer.trim_end().ends_with("Order: newest first"), "{s}");
    // On a narrow footer the older one is counted instead.
    app.apply(Msg::Resize(40, 12));
    let s = screen(&app);
    let footer = lines(&s)[11];
    assert!(footer.contains("+1"), "{s}");
    // (#37) `? help` and `q quit` keep their place: the newest is cut to leave room for the count.
    assert!(footer.contains("q quit"), "{s}");
    assert!(footer.contains("Order: newest"), "{s}");
}

#[test]
fn toasts_expire_on_the_tick_and_then_nothing_ticks() {
    let mut app = on_tab(Tab::Teams, 80, 24);
    app.apply(ch('['));
    assert!(screen(&app).contains("This is the first page"));
    let mut ticks = 0;
    while app.state.animating() {
        app.apply(Msg::Tick);
        ticks += 1;
        assert!(ticks < 1000, "the toast never expired");
    }
    assert!(!screen(&app).contains("This is the first page"));
}

/// A trail from a callback to its notifications, on a terminal `w` wide.
fn followed_callback(w: u16) -> App {
    let mut app = on_tab(Tab::Callbacks, w, 24);
    app.apply(ch('N'));
    answer_all(&mut app);
    app
}

#[test]
fn the_breadcrumb_is_cut_before_the_activity_at_40_columns() {
    let app = followed_callback(40);
    let s = screen(&app);
    let line = lines(&s)[1];
    assert!(line.contains("Callbacks ›"), "the trail shows: {line:?}");
    assert!(line.contains('…'), "cut with …: {line:?}");
    assert!(line.trim_end().ends_with("0 requests"), "{line:?}");
}

#[test]
fn every_overlay_draws_at_the_smallest_size() {
    // Each key opens something of its own on the notifications tab; Esc closes it again.
    let keys: &[&[Msg]] = &[
        &[ch('v')],
        &[ch(':'), ch('t')],
        &[ch('/'), ch('x')],
        &[ch('s')],
        &[ch('f')],
        &[ch('P')],
        &[key(KeyCode::Enter), key(KeyCode::Enter)],
        &[ch('w')],
        &[ch('H')],
        &[ch('?')],
    ];
    for (w, h) in [(40, 12), (41, 13), (60, 20)] {
        for opened in keys {
            let mut app = on_tab(Tab::Notifications, w, h);
            for m in opened.iter() {
                app.apply(m.clone());
                answer_all(&mut app);
                let s = screen(&app);
                assert!(!s.contains("too small"), "{w}×{h}:\n{s}");
            }
        }
    }
}
