//! Snapshots of every tab's list and detail at 120×40 and 80×24, fed from the golden fixtures
//! through the real `update()`, on a fixed clock.
use crate::common;

use common::*;
use crossterm::event::KeyCode;
use switchboard::api::{ApiError, Error};
use switchboard::console::{App, Msg, Tab};

/// An app of the given size on `tab`, its list loaded from the fixture.
fn app_on(tab: Tab, w: u16, h: u16) -> App {
    let mut app = started_app(w, h);
    answer_all(&mut app);
    let digit = char::from_digit(tab.index() as u32 + 1, 10).expect("digit");
    app.apply(ch(digit));
    answer_all(&mut app);
    app
}

/// Pulsar's tabs (the snapshots are theirs; the newer generations' are tested on their service).
fn pulsar_tabs() -> Vec<Tab> {
    switchboard::console::tab::shown_for(switchboard::api::generation::Generation::Pulsar)
}

fn snap_tab(tab: Tab, w: u16, h: u16) {
    let mut app = app_on(tab, w, h);
    let name = tab.title().to_lowercase();
    let list = screen(&app);
    assert!(list.contains(tab.title()), "tab title on screen");
    insta::assert_snapshot!(format!("{name}_list_{w}x{h}"), list);
    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    insta::assert_snapshot!(format!("{name}_detail_{w}x{h}"), screen(&app));
}

#[test]
fn every_tab_wide() {
    for tab in pulsar_tabs() {
        snap_tab(tab, 120, 40);
    }
}

#[test]
fn every_tab_narrow() {
    for tab in pulsar_tabs() {
        snap_tab(tab, 80, 24);
    }
}

#[test]
fn destination_secret_is_masked() {
    let fixture_text = fixture("destination.json");
    let v: serde_json::Value = serde_json::from_str(&fixture_text).expect("json");
    let secret = v["webhook_destination"]["signing_secret"]
        .as_str()
        .expect("secret in fixture")
        .to_string();
    for (w, h) in [(120, 40), (80, 24)] {
        let mut app = app_on(Tab::Destinations, w, h);
        app.apply(key(KeyCode::Enter));
        answer_all(&mut app);
        let s = screen(&app);
        assert!(s.contains("Signing secret"), "{s}");
        assert!(!s.contains(&secret[..12]), "secret leaked:\n{s}");
    }
}

#[test]
fn callback_hook_key_is_masked_in_preview_raw_view_and_copy() {
    let v: serde_json::Value = serde_json::from_str(&fixture("callback-list.json")).expect("json");
    let (row, url) = v["items"]
        .as_array()
        .expect("items")
        .iter()
        .enumerate()
        .find_map(|(i, c)| c["url"].as_str().map(|u| (i, u.to_string())))
        .expect("a webhook_manual callback in the fixture");
    let hook_key = url.rsplit('/').next().expect("key segment");
    // Wide enough for the preview beside the list (issue 37 item 12).
    let wide = crate::console::layout::preview_from(Tab::Callbacks);
    let mut app = app_on(Tab::Callbacks, wide, 40);
    for _ in 0..row {
        app.apply(ch('j'));
    }
    let s = screen(&app);
    assert!(s.contains("Webhook URL"), "{s}");
    assert!(
        s.contains(&url[..url.len() - hook_key.len()]),
        "address shown:\n{s}"
    );
    assert!(!s.contains(&hook_key[..8]), "hook key leaked:\n{s}");
    app.apply(ch('v'));
    let raw = screen(&app);
    assert!(raw.contains("\"url\""), "{raw}");
    assert!(
        !raw.contains(&hook_key[..8]),
        "hook key leaked in the raw view:\n{raw}"
    );
    // The filter matches the address as shown, never the hidden key.
    app.apply(key(KeyCode::Esc));
    app.apply(ch('/'));
    for c in hook_key[6..14].chars() {
        app.apply(ch(c));
    }
    let s = screen(&app);
    assert!(s.contains("0 of"), "the key is not searchable:\n{s}");
}

#[test]
fn error_help_and_too_small() {
    let mut app = started_app(80, 24);
    let loading = screen(&app);
    assert!(loading.contains("1 request"), "{loading}");
    insta::assert_snapshot!("teams_loading_80x24", loading);
    let reqs = app.take_requests();
    let e: ApiError =
        serde_json::from_str(&fixture("error-unauthorized.json")).expect("error fixture");
    app.apply(Msg::Api {
        req_id: reqs[0].req_id,
        pane: reqs[0].pane,
        result: Err(Error::Api(Box::new(e))),
    });
    let s = screen(&app);
    assert!(s.contains("rejected the key"), "{s}");
    insta::assert_snapshot!("teams_unauthorized_80x24", s);

    app.apply(ch('?'));
    insta::assert_snapshot!("help_80x24", screen(&app));

    app.apply(Msg::Resize(39, 24));
    let s = screen(&app);
    assert!(s.contains("terminal too small"), "{s}");
    app.apply(Msg::Resize(80, 11));
    assert!(screen(&app).contains("terminal too small"));
}

#[test]
fn unknown_enum_values_show_as_text() {
    let mut v: serde_json::Value =
        serde_json::from_str(&fixture("notification-list.json")).expect("json");
    v["items"][0]["status"] = serde_json::json!("bouncing");
    let page =
        switchboard::console::record::decode_page_body(Tab::Notifications, 200, &v.to_string())
            .expect("unknown values decode");
    let mut app = app_on(Tab::Notifications, 80, 24);
    app.apply(ch('r'));
    let reqs = app.take_requests();
    // The list's request (a names lookup may be under way beside it).
    let list = reqs
        .iter()
        .find(|r| matches!(r.cmd, switchboard::console::ApiCmd::List { .. }))
        .expect("a list request");
    app.apply(Msg::Api {
        req_id: list.req_id,
        pane: list.pane,
        result: Ok(switchboard::console::ApiReply::Page(page)),
    });
    let s = screen(&app);
    assert!(s.contains("? bouncing"), "{s}");
}

#[test]
fn an_import_id_token_is_masked() {
    let body = fixture("import-created.json");
    let v: serde_json::Value = serde_json::from_str(&body).expect("json");
    let token = v["id_token"].as_str().expect("fixture has an id token");
    let mut app = app_on(Tab::Imports, 120, 40);
    app.apply(key(KeyCode::Enter));
    let reqs = app.take_requests();
    let record =
        switchboard::console::record::decode_item_body(Tab::Imports, 200, &body).expect("decodes");
    app.apply(Msg::Api {
        req_id: reqs[0].req_id,
        pane: reqs[0].pane,
        result: Ok(switchboard::console::ApiReply::Item(record)),
    });
    let s = screen(&app);
    assert!(s.contains("ID token"), "{s}");
    assert!(
        !s.contains(&token[..token.len().min(12)]),
        "id token leaked:\n{s}"
    );
}

#[test]
fn a_malformed_body_is_an_error_not_a_panic() {
    for body in ["", "{", "[]", r#"{"items":[{"id":1}]}"#, r#"{"items":"x"}"#] {
        for tab in Tab::ALL {
            assert!(
                switchboard::console::record::decode_page_body(tab, 200, body).is_err(),
                "{tab:?} {body}"
            );
        }
    }
}
