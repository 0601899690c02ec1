//! Form dialogs driven by keys on an offline app: snapshots (empty, filled, with errors), the
//! writes they ask for, and bad input (nothing typed is lost, nothing bad is sent).
use crate::common;

use common::*;
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use switchboard::api::{ApiError, Error};
use switchboard::console::forms::Phase;
use switchboard::console::forms::ops::Lookup;
use switchboard::console::forms::picker::PickItem;
use switchboard::console::{ApiCmd, ApiReply, App, Msg, Tab};

const W: u16 = 100;
const H: u16 = 30;

/// An app on `tab` with its list loaded from the fixtures.
fn app_on(tab: Tab) -> App {
    let mut app = started_app(W, H);
    answer_all(&mut app);
    let digit = char::from_digit(tab.index() as u32 + 1, 10).expect("digit");
    app.apply(ch(digit));
    answer_all(&mut app);
    app
}

/// The writes asked for since the last call.
fn writes(app: &mut App) -> Vec<(u64, Sent)> {
    app.take_requests()
        .into_iter()
        .filter_map(|r| match r.cmd {
            ApiCmd::Write(op) => Some((r.req_id, sent(&op))),
            _ => None,
        })
        .collect()
}

/// Answers the pending lookups with these items.
fn answer_lookups(app: &mut App, answer: impl Fn(Lookup) -> Result<Vec<PickItem>, Error>) {
    for r in app.take_requests() {
        if let ApiCmd::Lookup(what) = r.cmd {
            app.apply(Msg::Api {
                req_id: r.req_id,
                pane: r.pane,
                result: answer(what).map(ApiReply::Options),
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

fn api_error(body: serde_json::Value) -> Error {
    Error::Api(Box::new(
        serde_json::from_value::<ApiError>(body).expect("error body"),
    ))
}

fn dialog_open(app: &App) -> bool {
    app.state.forms.dialog.is_some()
}

#[test]
fn team_create_empty_errors_filled_and_sent() {
    let mut app = app_on(Tab::Teams);
    app.apply(ch('c'));
    insta::assert_snapshot!("team_create_empty", screen(&app));
    app.apply(ctrl('s'));
    assert!(writes(&mut app).is_empty(), "nothing sent without a name");
    let s = screen(&app);
    assert!(s.contains("required"), "{s}");
    insta::assert_snapshot!("team_create_errors", s);
    // Shortcut keys are text in a field: q, ?, digits, j, Tab-less letters.
    typed(&mut app, "Ops q?12 jk");
    app.apply(key(KeyCode::Tab));
    typed(&mut app, "On call");
    assert!(!app.state.quit && !app.state.help && app.state.tab == Tab::Teams);
    insta::assert_snapshot!("team_create_filled", screen(&app));
    app.apply(ctrl('s'));
    let sent = writes(&mut app);
    let [(_, Sent::CreateTeam(body))] = sent.as_slice() else {
        panic!("one create expected: {sent:?}");
    };
    assert_eq!(body.name, "Ops q?12 jk");
    assert_eq!(body.description.as_deref(), Some("On call"));
}

#[test]
fn esc_asks_before_discarding_typed_text() {
    let mut app = app_on(Tab::Teams);
    app.apply(ch('c'));
    app.apply(key(KeyCode::Esc));
    assert!(!dialog_open(&app), "nothing typed: Esc closes at once");
    app.apply(ch('c'));
    typed(&mut app, "Keep me");
    app.apply(key(KeyCode::Esc));
    let d = app.state.forms.dialog.as_ref().expect("still open");
    assert_eq!(d.phase, Phase::Discard);
    insta::assert_snapshot!("discard_question", screen(&app));
    app.apply(ch('n'));
    let d = app.state.forms.dialog.as_ref().expect("still open");
    assert_eq!(d.phase, Phase::Editing);
    assert_eq!(d.text("name"), "Keep me", "nothing typed is lost");
    app.apply(key(KeyCode::Esc));
    app.apply(ch('y'));
    assert!(!dialog_open(&app));
}

#[test]
fn read_only_refuses_write_keys() {
    let mut app = app_on(Tab::Destinations);
    app.state.read_only = true;
    for c in ['c', 'e', 'd'] {
        app.apply(ch(c));
        assert!(!dialog_open(&app));
    }
    assert!(
        screen(&app).to_lowercase().contains("read-only"),
        "a message says why"
    );
}

/// Fills the import form: deployment chosen, tokens, metadata lines, an ISO expiry.
fn fill_import(app: &mut App) {
    while app.state.forms.dialog.as_ref().expect("open").focus != 0 {
        app.apply(key(KeyCode::BackTab));
    }
    app.apply(ch(' ')); // Belongs to: server deployment
    app.apply(key(KeyCode::Tab));
    typed(app, "svd_demo1");
    app.apply(key(KeyCode::Tab));
    typed(app, "tok-SECRET-123");
    app.apply(key(KeyCode::Tab));
    typed(app, "idt-SECRET-456");
    app.apply(key(KeyCode::Tab));
    typed(app, "rotated by ops");
    app.apply(key(KeyCode::Tab));
    typed(app, "source=vault");
    app.apply(key(KeyCode::Enter));
    typed(app, "ticket=OPS-7");
    app.apply(key(KeyCode::Tab));
    typed(app, "2027-01-31T00:00:00Z");
    app.apply(key(KeyCode::Tab));
    typed(app, "read write");
    app.apply(key(KeyCode::Tab));
    typed(app, "Bearer");
}

#[test]
fn import_create_masks_tokens_and_sends_exactly_one_target() {
    let mut app = app_on(Tab::Imports);
    app.apply(ch('c'));
    insta::assert_snapshot!("import_create_empty", screen(&app));
    app.apply(ctrl('s'));
    assert!(writes(&mut app).is_empty());
    insta::assert_snapshot!("import_create_errors", screen(&app));
    fill_import(&mut app);
    let s = screen(&app);
    assert!(!s.contains("SECRET"), "tokens never on screen:\n{s}");
    assert!(
        !format!("{:?}", app.state).contains("SECRET"),
        "nor in Debug"
    );
    insta::assert_snapshot!("import_create_filled", s);
    app.apply(ctrl('s'));
    let sent = writes(&mut app);
    let [(req_id, Sent::CreateImport(body))] = sent.as_slice() else {
        panic!("one create expected");
    };
    assert!(
        !format!("{sent:?}").contains("SECRET"),
        "the command's Debug hides tokens"
    );
    assert_eq!(body.server_deployment_id.as_deref(), Some("svd_demo1"));
    assert_eq!(body.connection_id, None);
    assert_eq!(body.access_token, "tok-SECRET-123");
    assert_eq!(body.id_token.as_deref(), Some("idt-SECRET-456"));
    let md = body.metadata.as_ref().expect("metadata");
    assert_eq!(md.get("source"), Some(&json!("vault")));
    assert_eq!(md.get("ticket"), Some(&json!("OPS-7")));
    let expires = body
        .expires_at
        .as_deref()
        .and_then(switchboard::api::model::time::parse);
    assert_eq!(
        expires,
        switchboard::api::model::time::parse("2027-01-31T00:00:00Z")
    );

    // The server refuses a field: its message goes beside it; everything typed stays.
    let err = api_error(json!({
        "ok": false, "status": 400, "code": "invalid_data", "message": "Invalid body",
        "entity": "body",
        "errors": [{"code": "invalid_enum", "message": "Unknown token type", "path": ["token_type"]}]
    }));
    app.apply(Msg::Api {
        req_id: *req_id,
        pane: switchboard::console::Pane::Form(0),
        result: Err(err),
    });
    let d = app.state.forms.dialog.as_ref().expect("stays open");
    assert_eq!(d.phase, Phase::Editing);
    let tt = d.field("token_type").expect("field");
    assert_eq!(tt.error.as_deref(), Some("Unknown token type"));
    assert_eq!(d.text("access_token"), "tok-SECRET-123");
    assert_eq!(d.text("note"), "rotated by ops");
    let s = screen(&app);
    assert!(s.contains("Unknown token type") && s.contains("400 invalid_data"));
    insta::assert_snapshot!("import_create_server_error", s);
}

#[test]
fn import_neither_both_and_bad_date_are_refused() {
    let mut app = app_on(Tab::Imports);
    app.apply(ch('c'));
    // Neither: the id is required whatever is chosen.
    app.apply(key(KeyCode::Tab));
    app.apply(key(KeyCode::Tab));
    typed(&mut app, "tok");
    app.apply(ctrl('s'));
    assert!(writes(&mut app).is_empty());
    let d = app.state.forms.dialog.as_ref().expect("open");
    assert_eq!(
        d.field("connection_id").and_then(|f| f.error.as_deref()),
        Some("required")
    );
    // Both: a deployment id while "connection" is chosen is refused, not sent as a connection.
    // (The failed submit put the focus on the id field.)
    typed(&mut app, "svd_x");
    app.apply(ctrl('s'));
    assert!(writes(&mut app).is_empty());
    let d = app.state.forms.dialog.as_ref().expect("open");
    let e = d
        .field("connection_id")
        .and_then(|f| f.error.clone())
        .unwrap_or_default();
    assert!(e.contains("server deployment"), "{e}");
    // A bad date shows inline at once and blocks sending.
    for _ in 0..5 {
        app.apply(key(KeyCode::Tab));
    }
    typed(&mut app, "+90x");
    let d = app.state.forms.dialog.as_ref().expect("open");
    assert!(
        d.field("expires_at")
            .and_then(|f| f.error.as_ref())
            .is_some()
    );
    // `+90d` resolves and shows the time.
    app.apply(key(KeyCode::Backspace));
    app.apply(ch('d'));
    let d = app.state.forms.dialog.as_ref().expect("open");
    let f = d.field("expires_at").expect("field");
    assert!(f.error.is_none());
    assert!(
        f.note.as_deref().unwrap_or_default().starts_with("→ 20"),
        "{f:?}"
    );
    // Fixing the target sends a deployment only.
    for _ in 0..6 {
        app.apply(key(KeyCode::BackTab));
    }
    app.apply(ch(' '));
    app.apply(ctrl('s'));
    let sent = writes(&mut app);
    let [(_, Sent::CreateImport(body))] = sent.as_slice() else {
        panic!("one create expected");
    };
    assert_eq!(body.server_deployment_id.as_deref(), Some("svd_x"));
    assert!(body.connection_id.is_none() && body.expires_at.is_some());
}

fn callbacks_answer(what: Lookup) -> Result<Vec<PickItem>, Error> {
    assert_eq!(what, Lookup::Callbacks);
    Ok(vec![
        item("clb_1", "Orders webhook", "order events"),
        item("clb_2", "Nightly poll", "polling"),
    ])
}

#[test]
fn destination_create_checks_url_and_selection() {
    let mut app = app_on(Tab::Destinations);
    app.apply(ch('c'));
    answer_lookups(&mut app, callbacks_answer);
    insta::assert_snapshot!("destination_create_empty", screen(&app));
    typed(&mut app, "Ops hook");
    app.apply(key(KeyCode::Tab));
    app.apply(key(KeyCode::Tab));
    typed(&mut app, "ftp://example.com/in");
    app.apply(key(KeyCode::Tab));
    app.apply(ch(' ')); // selected
    app.apply(ctrl('s'));
    assert!(
        writes(&mut app).is_empty(),
        "bad URL and empty selection are refused"
    );
    insta::assert_snapshot!("destination_create_errors", screen(&app));
    let d = app.state.forms.dialog.as_ref().expect("open");
    assert!(d.field("url").and_then(|f| f.error.as_ref()).is_some());
    assert!(
        d.field("callback_id")
            .and_then(|f| f.error.as_ref())
            .is_some()
    );
    // Fix the URL (the focus went to it), pick the second callback.
    app.apply(ctrl('u'));
    typed(&mut app, "https://hooks.example.com/in");
    app.apply(key(KeyCode::Tab));
    app.apply(key(KeyCode::Tab));
    app.apply(key(KeyCode::Down));
    app.apply(ch(' '));
    insta::assert_snapshot!("destination_create_filled", screen(&app));
    app.apply(key(KeyCode::Enter)); // Enter on the last field submits
    let sent = writes(&mut app);
    let [(_, Sent::CreateDestination(body))] = sent.as_slice() else {
        panic!("one create expected");
    };
    assert_eq!(body.url, "https://hooks.example.com/in");
    assert_eq!(body.callbacks.kind, "selected");
    assert_eq!(body.callbacks.callback_id, Some(vec!["clb_2".to_string()]));
}

#[test]
fn destination_delete_confirmation_defaults_to_no() {
    let mut app = app_on(Tab::Destinations);
    let (id, name) = match app.state.current().list.selected().map(|r| &r.item) {
        Some(switchboard::console::record::Item::Destination(d)) => (d.id.clone(), d.name.clone()),
        _ => panic!("a destination row"),
    };
    app.apply(ch('d'));
    let s = screen(&app);
    assert!(
        s.contains(&name) && s.contains(&id),
        "names the destination"
    );
    insta::assert_snapshot!("destination_delete_confirm", s);
    app.apply(key(KeyCode::Enter));
    assert!(!dialog_open(&app), "Enter on the default (No) cancels");
    assert!(writes(&mut app).is_empty());
    app.apply(ch('d'));
    app.apply(ch('y'));
    assert_eq!(
        writes(&mut app)
            .into_iter()
            .map(|w| w.1)
            .collect::<Vec<_>>(),
        vec![Sent::DeleteDestination(id)]
    );
}

/// A left click at the first cell of `label` on screen (as the user sees it).
fn click_on(app: &mut App, label: &str) {
    let (w, h) = app.state.size;
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
    term.draw(|f| app.render(f)).expect("draw");
    let buf = term.backend().buffer().clone();
    let chars: Vec<char> = label.chars().collect();
    for y in 0..h {
        for x in 0..w.saturating_sub(chars.len() as u16) {
            if chars
                .iter()
                .enumerate()
                .all(|(i, c)| buf[(x + i as u16, y)].symbol() == c.to_string())
            {
                app.apply(Msg::Power(switchboard::console::power::PowerMsg::Mouse(
                    crossterm::event::MouseEvent {
                        kind: crossterm::event::MouseEventKind::Down(
                            crossterm::event::MouseButton::Left,
                        ),
                        column: x,
                        row: y,
                        modifiers: crossterm::event::KeyModifiers::NONE,
                    },
                )));
                return;
            }
        }
    }
    panic!("{label:?} not on screen");
}

#[test]
fn confirmation_buttons_answer_mouse_clicks() {
    let mut app = app_on(Tab::Destinations);
    app.state.settings.mouse = true; // as configured by default; the offline app starts bare
    app.apply(ch('d'));
    click_on(&mut app, " No ");
    assert!(!dialog_open(&app), "No closes the confirmation");
    assert!(writes(&mut app).is_empty());
    app.apply(ch('d'));
    click_on(&mut app, " Yes ");
    assert_eq!(writes(&mut app).len(), 1, "Yes sends the delete");
}

#[test]
fn type_name_confirmation_needs_the_exact_name() {
    let mut app = app_on(Tab::Destinations);
    app.state.power.confirm = switchboard::console::power::ConfirmMode::TypeName;
    let (id, name) = match app.state.current().list.selected().map(|r| &r.item) {
        Some(switchboard::console::record::Item::Destination(d)) => (d.id.clone(), d.name.clone()),
        _ => panic!("a destination row"),
    };
    app.apply(ch('d'));
    assert!(screen(&app).contains(&format!("Type “{name}” to confirm")));
    app.apply(ch('y'));
    app.apply(key(KeyCode::Enter));
    assert!(
        writes(&mut app).is_empty(),
        "y is text here, not yes; a wrong name sends nothing"
    );
    assert!(screen(&app).contains("exactly to confirm"), "says why");
    app.apply(key(KeyCode::Backspace));
    typed(&mut app, &name);
    app.apply(key(KeyCode::Enter));
    assert_eq!(
        writes(&mut app)
            .into_iter()
            .map(|w| w.1)
            .collect::<Vec<_>>(),
        vec![Sent::DeleteDestination(id)]
    );
}

#[test]
fn destination_edit_clearing_description_sends_null() {
    let mut app = app_on(Tab::Destinations);
    app.apply(ch('j')); // the second one has a description
    app.apply(ch('e'));
    app.apply(key(KeyCode::Tab));
    app.apply(ctrl('u'));
    app.apply(ctrl('s'));
    let sent = writes(&mut app);
    let [(_, Sent::UpdateDestination(_, body))] = sent.as_slice() else {
        panic!("one update expected");
    };
    assert_eq!(body.name, None, "unchanged name is not sent");
    assert_eq!(body.description, Some(None));
    let wire = serde_json::to_value(body).expect("json");
    assert_eq!(wire, json!({"description": null}));
}

#[test]
fn set_project_preselects_roles_and_shows_permissions() {
    let mut app = app_on(Tab::Teams);
    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    let team = match app
        .state
        .current()
        .detail
        .as_ref()
        .and_then(|d| d.record.as_ref())
    {
        Some(r) => match &r.item {
            switchboard::console::record::Item::Team(t) => t.as_ref().clone(),
            _ => panic!("a team"),
        },
        None => panic!("detail open"),
    };
    let assigned = team.projects.first().expect("fixture team has a project");
    let roles: Vec<String> = assigned.roles.iter().map(|r| r.role.id.clone()).collect();
    app.apply(ch('p'));
    let project = assigned.project.clone();
    let role_items: Vec<PickItem> = assigned
        .roles
        .iter()
        .map(|r| item(&r.role.id, &r.role.name, &r.role.permissions.join(", ")))
        .chain([item("tmr_other", "Auditor", "instance.callback:read")])
        .collect();
    answer_lookups(&mut app, |what| match what {
        Lookup::Projects => Ok(vec![
            item(&project.id, &project.name, &project.slug),
            item("prj_new", "Fresh", "fresh"),
        ]),
        Lookup::TeamRoles => Ok(role_items.clone()),
        other => panic!("unexpected lookup {other:?}"),
    });
    let d = app.state.forms.dialog.as_ref().expect("open");
    let chosen = d.fields[1].picker_ref().expect("picker").chosen.clone();
    assert_eq!(
        chosen, roles,
        "the team's roles on that project are pre-selected"
    );
    assert!(!d.is_dirty(), "pre-selection is not typing");
    app.apply(key(KeyCode::Tab));
    let s = screen(&app);
    assert!(s.contains("instance.callback:read"), "permissions visible");
    insta::assert_snapshot!("team_set_project", s);
    // Another project: nothing pre-selected; search by typing picks it.
    app.apply(key(KeyCode::BackTab));
    typed(&mut app, "fres");
    let d = app.state.forms.dialog.as_ref().expect("open");
    assert!(d.fields[1].picker_ref().expect("picker").chosen.is_empty());
    app.apply(key(KeyCode::Tab));
    app.apply(ch(' '));
    app.apply(ctrl('s'));
    let sent = writes(&mut app);
    let [(_, Sent::SetProject(team_id, body))] = sent.as_slice() else {
        panic!("one set-project expected");
    };
    assert_eq!(team_id, &team.id);
    assert_eq!(body.project_id, "prj_new");
    assert_eq!(body.team_role_ids.len(), 1);
}

/// Answers lists and gets with fixtures, and refuses every members request (403).
fn answer_refusing_members(app: &mut App) {
    loop {
        let reqs = app.take_requests();
        let mut answered = false;
        for r in reqs {
            let result = match r.cmd {
                ApiCmd::List { tab, .. } => Ok(page_reply(tab, fixtures_of(tab).0)),
                ApiCmd::Get { tab, .. } => Ok(item_reply(tab, fixtures_of(tab).1)),
                ApiCmd::Members => Err(api_error(json!({
                    "ok": false, "status": 403, "code": "forbidden", "message": "Missing scope"
                }))),
                _ => continue,
            };
            answered = true;
            app.apply(Msg::Api {
                req_id: r.req_id,
                pane: r.pane,
                result,
            });
        }
        if !answered {
            return;
        }
    }
}

#[test]
fn member_lookup_refused_falls_back_to_typing_the_id() {
    let mut app = started_app(W, H);
    answer_refusing_members(&mut app);
    app.apply(key(KeyCode::Enter));
    answer_refusing_members(&mut app);
    let s = screen(&app);
    assert!(s.contains("Members") && s.contains("not listed"), "{s}");
    app.apply(ch('M'));
    answer_refusing_members(&mut app);
    let s = screen(&app);
    assert!(s.contains("type the id"), "{s}");
    typed(&mut app, "oac_typed1");
    app.apply(ctrl('s'));
    assert!(writes(&mut app).is_empty(), "asks first");
    let s = screen(&app);
    assert!(s.contains("oac_typed1"));
    insta::assert_snapshot!("team_remove_member_confirm", s);
    app.apply(key(KeyCode::Right));
    app.apply(key(KeyCode::Enter));
    let sent = writes(&mut app);
    assert!(
        matches!(sent.as_slice(), [(_, Sent::RemoveMember(_, a))] if a == "oac_typed1"),
        "{sent:?}"
    );
}

#[test]
fn edit_forms_prefilled_and_with_errors() {
    // Teams: the name is required even when editing.
    let mut app = app_on(Tab::Teams);
    app.apply(ch('e'));
    insta::assert_snapshot!("team_edit_filled", screen(&app));
    app.apply(ctrl('u'));
    app.apply(ctrl('s'));
    assert!(writes(&mut app).is_empty());
    insta::assert_snapshot!("team_edit_errors", screen(&app));

    // Destinations: name and description only.
    let mut app = app_on(Tab::Destinations);
    app.apply(ch('e'));
    insta::assert_snapshot!("destination_edit_filled", screen(&app));
    app.apply(ctrl('s'));
    assert!(writes(&mut app).is_empty(), "nothing changed, nothing sent");
    assert!(screen(&app).contains("Nothing changed"));
}

#[test]
fn import_edit_sends_only_changes_and_keeps_tokens_unless_typed() {
    let mut app = app_on(Tab::Imports);
    app.apply(ch('e'));
    let s = screen(&app);
    assert!(s.contains("empty keeps the current token"));
    insta::assert_snapshot!("import_edit_filled", s);
    // Fields: access token, id token, note, metadata, expires, scope, token type.
    for _ in 0..4 {
        app.apply(key(KeyCode::Tab));
    }
    app.apply(ctrl('u'));
    app.apply(ctrl('s'));
    assert!(writes(&mut app).is_empty(), "an expiry cannot be removed");
    insta::assert_snapshot!("import_edit_errors", screen(&app));
    typed(&mut app, "+30d");
    app.apply(ctrl('s'));
    let sent = writes(&mut app);
    let [(_, Sent::UpdateImport(_, body))] = sent.as_slice() else {
        panic!("one update expected");
    };
    assert!(body.expires_at.is_some());
    assert!(
        body.access_token.is_none() && body.id_token.is_none(),
        "tokens unchanged"
    );
    assert!(
        body.note.is_none() && body.metadata.is_none(),
        "untouched fields not sent"
    );
}

#[test]
fn add_member_and_remove_project_forms() {
    let mut app = app_on(Tab::Teams);
    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    let s = screen(&app);
    assert!(
        s.contains("Members (1)") && s.contains("Ada Lovelace"),
        "{s}"
    );
    app.apply(ch('m'));
    // Only the non-members are offered: Grace, not Ada (already on the team).
    let d = app.state.forms.dialog.as_ref().expect("member dialog");
    let offered: Vec<String> = match &d.fields[0].picker_ref().expect("picker").items {
        switchboard::console::forms::picker::Items::Ready(items) => {
            items.iter().map(|i| i.label.clone()).collect()
        }
        other => panic!("members not offered: {other:?}"),
    };
    assert_eq!(offered, ["Grace Hopper"]);
    insta::assert_snapshot!("team_add_member_empty", screen(&app));
    typed(&mut app, "grace");
    insta::assert_snapshot!("team_add_member_filled", screen(&app));
    app.apply(key(KeyCode::Enter));
    // Adding asks first: nothing is sent before the answer.
    assert!(writes(&mut app).is_empty(), "sent before the question");
    assert!(screen(&app).contains("Add member Grace Hopper"));
    app.apply(ch('y'));
    let sent = writes(&mut app);
    assert!(
        matches!(sent.as_slice(), [(_, Sent::AddMember(_, a))] if a == "oac_0mh50n6fwL9QaofLrr8Lgc"),
        "{sent:?}"
    );
    // A second add of the same actor: the server's 400 message stays in the dialog.
    let (req_id, _) = sent.into_iter().next().expect("sent");
    let err = api_error(json!({
        "ok": false, "status": 400, "code": "bad_request",
        "message": "The actor is already a member of the specified team"
    }));
    app.apply(Msg::Api {
        req_id,
        pane: switchboard::console::Pane::Form(0),
        result: Err(err),
    });
    let s = screen(&app);
    assert!(s.contains("already a member") && s.contains("grace"));
    insta::assert_snapshot!("team_add_member_server_error", s);
    app.apply(key(KeyCode::Esc));
    app.apply(ch('y'));

    app.apply(ch('x'));
    insta::assert_snapshot!("team_remove_project_empty", screen(&app));
    app.apply(ctrl('s'));
    let s = screen(&app);
    assert!(s.contains("Remove project"));
    insta::assert_snapshot!("team_remove_project_confirm", s);
}

#[test]
fn import_form_fits_the_smallest_terminal() {
    let mut app = app_on(Tab::Imports);
    app.apply(Msg::Resize(80, 24));
    app.apply(ch('c'));
    fill_import(&mut app);
    let s = screen(&app);
    for label in [
        "Belongs to",
        "Access token",
        "Metadata",
        "Token type",
        "Ctrl-S",
    ] {
        assert!(s.contains(label), "{label} visible at 80x24:\n{s}");
    }
    insta::assert_snapshot!("import_create_filled_80x24", s);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Whatever is typed as a destination URL: a valid http(s) address is sent as typed, anything
    /// else is refused beside the field, nothing is sent, and the text stays in the field.
    #[test]
    fn destination_url_validation_keeps_what_was_typed(
        typed_url in "(https?|ftp|HTTP|)(:|://)?[a-zA-Z0-9.:/?#@%_ -]{0,30}",
    ) {
        let mut app = app_on(Tab::Destinations);
        app.apply(ch('c'));
        answer_lookups(&mut app, callbacks_answer);
        typed(&mut app, "Prop hook");
        app.apply(key(KeyCode::Tab));
        app.apply(key(KeyCode::Tab));
        typed(&mut app, &typed_url);
        app.apply(ctrl('s'));
        let expect_ok = url::Url::parse(typed_url.trim())
            .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.has_host());
        let sent = writes(&mut app);
        if expect_ok {
            let [(_, Sent::CreateDestination(body))] = sent.as_slice() else {
                panic!("one create expected for {typed_url:?}, got {sent:?}");
            };
            proptest::prop_assert_eq!(body.url.as_str(), typed_url.trim());
        } else {
            proptest::prop_assert!(sent.is_empty(), "{typed_url:?} was sent");
            let d = app.state.forms.dialog.as_ref().expect("the form stays open");
            let url_field = d.field("url").expect("url field");
            proptest::prop_assert!(url_field.error.is_some(), "no error for {typed_url:?}");
            proptest::prop_assert_eq!(url_field.value(), typed_url.trim().to_string());
            proptest::prop_assert_eq!(
                d.field("name").map(|f| f.value()),
                Some("Prop hook".to_string())
            );
        }
    }
}

#[test]
fn mouse_focuses_fields_picks_options_saves_and_cancels_a_form() {
    let mut app = app_on(Tab::Destinations);
    app.state.settings.mouse = true; // as configured by default; the offline app starts bare
    app.apply(ch('c'));
    answer_lookups(&mut app, callbacks_answer);
    let focus = |app: &App| app.state.forms.dialog.as_ref().map(|d| d.focus);
    assert_eq!(focus(&app), Some(0));
    // A click on a label focuses its field; typing goes there.
    click_on(&mut app, "URL         *");
    assert_eq!(focus(&app), Some(2));
    typed(&mut app, "https://hooks.example.com/m");
    // A click on an option picks it.
    click_on(&mut app, "( ) selected");
    assert_eq!(focus(&app), Some(3));
    assert!(screen(&app).contains("(•) selected"));
    // Save: the empty name and selection are refused beside their fields, nothing is sent.
    click_on(&mut app, "Ctrl-S save");
    assert!(writes(&mut app).is_empty());
    let d = app.state.forms.dialog.as_ref().expect("still open");
    assert!(d.field("name").and_then(|f| f.error.as_ref()).is_some());
    assert_eq!(
        d.field("url").map(|f| f.value()),
        Some("https://hooks.example.com/m".into()),
        "what was typed stays"
    );
    // Name it, go back to "all", save: one create.
    click_on(&mut app, "Name        *");
    typed(&mut app, "Mouse hook");
    click_on(&mut app, "( ) all");
    click_on(&mut app, "Ctrl-S save");
    let sent = writes(&mut app);
    let [(_, Sent::CreateDestination(body))] = sent.as_slice() else {
        panic!("one create expected, got {sent:?}");
    };
    assert_eq!(body.name, "Mouse hook");
    assert_eq!(body.callbacks.kind, "all");

    // Cancel on a form with typing asks first, as Esc does.
    let mut app = app_on(Tab::Teams);
    app.state.settings.mouse = true;
    app.apply(ch('c'));
    typed(&mut app, "Half typed");
    click_on(&mut app, "Esc cancel");
    assert!(screen(&app).contains("Discard what you typed?"));
}

#[test]
fn a_long_server_message_beside_a_field_wraps_and_keeps_its_end() {
    let mut app = app_on(Tab::Teams);
    app.apply(ch('c'));
    typed(&mut app, "Platform");
    app.apply(ctrl('s'));
    let sent = writes(&mut app);
    let [(req_id, _)] = sent.as_slice() else {
        panic!("one create expected, got {sent:?}");
    };
    let long = "A team with this name already exists in the organization; team names must be \
                unique across every project, so choose another one or rename the old team";
    app.apply(Msg::Api {
        req_id: *req_id,
        pane: switchboard::console::Pane::Form(0),
        result: Err(api_error(json!({
            "ok": false, "status": 400, "code": "invalid_data", "message": "Invalid body",
            "errors": [{"code": "taken", "message": long, "path": ["name"]}]
        }))),
    });
    let s = screen(&app);
    assert!(s.contains("old team"), "the end of the message shows:\n{s}");
    assert!(s.contains("A team with this name"), "{s}");
    assert_eq!(
        app.state.forms.dialog.as_ref().map(|d| d.text("name")),
        Some("Platform".to_string())
    );
}

/// Creates a team that is not on the loaded page; returns the app waiting for the page around it.
fn created_elsewhere() -> (App, switchboard::console::Request) {
    let mut app = app_on(Tab::Teams);
    app.apply(ch('c'));
    typed(&mut app, "Ops");
    app.apply(ctrl('s'));
    let sent = writes(&mut app);
    let [(req_id, Sent::CreateTeam(_))] = sent.as_slice() else {
        panic!("one create expected: {sent:?}");
    };
    let mut team: serde_json::Value = serde_json::from_str(&fixture("team.json")).expect("json");
    team["id"] = json!("tm_elsewhere");
    let record = switchboard::console::record::decode_item_body(Tab::Teams, 200, &team.to_string())
        .expect("item");
    app.apply(Msg::Api {
        req_id: *req_id,
        pane: switchboard::console::Pane::Form(0),
        result: Ok(ApiReply::Item(record)),
    });
    let around = app
        .take_requests()
        .into_iter()
        .find(|r| matches!(r.cmd, ApiCmd::ListAround { .. }))
        .expect("the page around the new team is asked for");
    (app, around)
}

#[test]
fn landing_ends_when_the_page_around_a_written_item_fails_or_is_empty() {
    let empty =
        r#"{"items": [], "pagination": {"has_more_before": true, "has_more_after": false}}"#;
    let replies = [
        Err(Error::Invalid("connection reset".into())),
        Ok(ApiReply::Page(
            switchboard::console::record::decode_page_body(Tab::Teams, 200, empty).expect("page"),
        )),
    ];
    for (i, result) in replies.into_iter().enumerate() {
        let (mut app, around) = created_elsewhere();
        app.apply(Msg::Api {
            req_id: around.req_id,
            pane: around.pane,
            result,
        });
        if i == 1 {
            let s = screen(&app);
            assert!(
                s.contains("tm_elsewhere is no longer"),
                "fitting message:\n{s}"
            );
            assert!(!s.contains("No more items that way"), "{s}");
        }
        // Close the detail the write opened: write keys act on the list's selection again.
        app.apply(key(KeyCode::Esc));
        app.apply(ch('e'));
        let s = screen(&app);
        assert!(
            !s.contains("Loading the page that holds"),
            "case {i}: stuck landing:\n{s}"
        );
    }
}
