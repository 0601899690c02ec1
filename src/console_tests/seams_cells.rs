//! Issue 37 item 11: a URL cell cut in the middle keeps what tells rows apart (host:port and the
//! path's tail), where a cut at the end showed `http://127.0.0…` on every row; and a starred
//! label keeps a space before its star. The rendered screen is what is checked.
use crate::common::*;
use crossterm::event::KeyCode;
use switchboard::console::record::decode_page_body;
use switchboard::console::{ApiReply, App, Msg, Tab};

/// Destinations on one local service, told apart only by their paths' ends.
fn local_destinations(app: &mut App) {
    let mut v: serde_json::Value =
        serde_json::from_str(&fixture("destination-list.json")).expect("fixture");
    let paths = ["hooks/event-archive", "hooks/issue-triage"];
    if let Some(items) = v["items"].as_array_mut() {
        for (item, path) in items.iter_mut().zip(paths) {
            item["webhook_destination"]["url"] =
                serde_json::json!(format!("http://127.0.0.1:4100/{path}"));
        }
    }
    let page = decode_page_body(Tab::Destinations, 200, &v.to_string()).expect("page");
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
fn a_cut_url_keeps_its_host_and_the_end_of_its_path() {
    for (w, h) in [(80, 24), (120, 40), (200, 55)] {
        let mut app = started_app(w, h);
        answer_all(&mut app);
        app.apply(ch(char::from_digit(
            Tab::Destinations.index() as u32 + 1,
            10,
        )
        .expect("d")));
        answer_all(&mut app);
        local_destinations(&mut app);
        let s = screen(&app);
        // The list's rows only (at 120 and wider the preview beside it shows a URL whole).
        let rows: Vec<&str> = s
            .lines()
            .filter_map(|l| l.split('│').nth(1))
            .filter(|l| l.contains("Ops webhook") || l.contains("Issue triage"))
            .collect();
        assert_eq!(rows.len(), 2, "{w}: {s}");
        if !rows.iter().all(|r| r.contains("127.0.0.1")) {
            // The URL column left out at this width: nothing cut to check.
            assert!(w < 200, "{w}: the URL column shows at 200: {s}");
            continue;
        }
        for (row, end) in rows.iter().zip(["archive", "triage"]) {
            let whole = row.contains("http://127.0.0.1:4100/hooks/");
            assert!(
                whole || row.contains("127.0.0.1:4100…"),
                "{w}: the host is kept: {s}"
            );
            assert!(row.contains(end), "{w}: the path's end tells it apart: {s}");
        }
    }
}

#[test]
fn a_long_starred_label_keeps_a_space_before_its_star() {
    let mut app = started_app(80, 24);
    answer_all(&mut app);
    app.apply(ch(
        char::from_digit(Tab::Imports.index() as u32 + 1, 10).expect("d")
    ));
    answer_all(&mut app);
    app.apply(ch('c'));
    let s = screen(&app);
    assert!(s.contains("Access token *"), "{s}");
    assert!(!s.contains("Access token*"), "{s}");
    app.apply(key(KeyCode::Esc));
}
