//! Landing on what was written: after a create or an edit the list shows the page that holds the
//! item (loaded around it with `before`/`after`), selects it, and the detail shows it; the next
//! write key acts on that item. Keys drive the console against the local service, with more than
//! one page of teams, in both orders. Also: a team's detail lists its members, and the member
//! dialogs offer only the members that apply.

use crate::common::service::{TestService, client_for, demo};
use crate::common::{ch, ctrl, fixed_clock, key, next_reply, settle, typed};
use crossterm::event::KeyCode;
use switchboard::api::model::CreateTeam;
use switchboard::api::{ListQuery, Order};
use switchboard::console::forms::Kind;
use switchboard::console::keymap::Action;
use switchboard::console::tab::Tab;
use switchboard::console::{App, Msg, State};

async fn press(app: &mut App, msg: Msg) {
    app.apply(msg);
    settle(app).await;
}

/// The demo plus 30 more teams: two pages and more (20 a page).
async fn setup() -> (TestService, App) {
    let ts = demo().await;
    for i in 0..30 {
        let body = CreateTeam {
            name: format!("Filler {i:02}"),
            description: None,
        };
        ts.client.create_team(&body).await.expect("filler team");
    }
    let client = client_for(&ts.svc.base_url, &ts.svc.api_key);
    let mut app = App::with_client(
        State::new("test", ts.svc.base_url.clone(), fixed_clock()),
        client,
    );
    // The preview beside the list (issue 37 item 12: only where the list keeps every column).
    let w = crate::console::layout::preview_from(crate::console::tab::Tab::Teams);
    app.apply(Msg::Resize(w, 40));
    app.start();
    press(&mut app, Msg::Resize(w, 40)).await;
    (ts, app)
}

fn selected_id(app: &App) -> String {
    let list = &app.state.current().list;
    list.selected()
        .map(|r| r.id().to_string())
        .expect("a selected row")
}

fn detail_id(app: &App) -> Option<String> {
    app.state.current().detail.as_ref().map(|d| d.id.clone())
}

async fn team_named(ts: &TestService, name: &str) -> String {
    let q = ListQuery {
        limit: Some(100),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let page = ts.client.list_teams(&q).await.expect("teams");
    page.items
        .into_iter()
        .find(|t| t.name == name)
        .map(|t| t.id)
        .unwrap_or_else(|| panic!("no team {name}"))
}

async fn create_team(app: &mut App, name: &str) {
    app.apply(ch('c'));
    typed(app, name);
    press(app, ctrl('s')).await;
    assert!(app.state.forms.dialog.is_none(), "dialog closed");
}

#[tokio::test]
async fn create_oldest_first_lands_on_the_last_page_and_e_edits_it() {
    let (ts, mut app) = setup().await;
    // A pane of 20 rows: pages of 20 (a taller one asks for pages that fill it).
    let w = app.state.size.0;
    press(&mut app, Msg::Resize(w, 26)).await;
    let first_before = selected_id(&app);
    create_team(&mut app, "Flow Crew").await;
    let id = team_named(&ts, "Flow Crew").await;
    let list = &app.state.current().list;
    assert!(
        list.pagination.has_more_before,
        "the new team is not on page 1"
    );
    assert!(!list.pagination.has_more_after, "it is the newest");
    assert_eq!(list.rows.len(), 20, "a full page around it");
    assert_eq!(selected_id(&app), id, "the cursor landed on it");
    assert_eq!(detail_id(&app), Some(id.clone()), "the detail shows it");
    assert!(
        !app.state
            .toasts
            .iter()
            .any(|t| t.text.contains("another page")),
        "{:?}",
        app.state.toasts
    );
    let screen = crate::common::screen(&app);
    assert!(screen.contains("page ?"), "{screen}");

    // `e` edits what was made, not the first row of page 1.
    app.apply(ch('e'));
    let d = app.state.forms.dialog.as_ref().expect("edit dialog");
    assert_eq!((d.resource, d.kind.clone()), edit_of(Tab::Teams, &id));
    app.apply(ctrl('u'));
    typed(&mut app, "Flow Crew 2");
    press(&mut app, ctrl('s')).await;
    assert_eq!(
        ts.client.get_team(&id).await.expect("team").name,
        "Flow Crew 2"
    );
    assert_ne!(
        ts.client.get_team(&first_before).await.expect("team").name,
        "Flow Crew 2"
    );
    assert_eq!(selected_id(&app), id, "still on it after the edit");

    // Esc closes the detail; the row selected is still the one the toast named.
    press(&mut app, key(KeyCode::Esc)).await;
    app.apply(ch('e'));
    let d = app.state.forms.dialog.as_ref().expect("edit dialog");
    assert_eq!((d.resource, d.kind.clone()), edit_of(Tab::Teams, &id));
    app.apply(key(KeyCode::Esc));

    // Paging from a landed page works both ways.
    press(&mut app, ch('[')).await;
    assert!(!app.state.current().list.rows.iter().any(|r| r.id() == id));
    press(&mut app, ch(']')).await;
    assert!(app.state.current().list.rows.iter().any(|r| r.id() == id));
    ts.svc.shutdown().await;
}

#[tokio::test]
async fn create_newest_first_from_a_later_page_lands_on_the_first() {
    let (ts, mut app) = setup().await;
    press(&mut app, ch('o')).await;
    press(&mut app, ch(']')).await;
    assert!(app.state.current().list.pagination.has_more_before);
    create_team(&mut app, "Night Crew").await;
    let id = team_named(&ts, "Night Crew").await;
    let list = &app.state.current().list;
    assert!(!list.pagination.has_more_before, "the newest is on page 1");
    assert_eq!(list.page, 1);
    assert_eq!(
        list.rows.first().map(|r| r.id().to_string()),
        Some(id.clone())
    );
    assert_eq!(selected_id(&app), id);
    assert_eq!(detail_id(&app), Some(id.clone()));
    app.apply(ch('e'));
    let d = app.state.forms.dialog.as_ref().expect("edit dialog");
    assert_eq!((d.resource, d.kind.clone()), edit_of(Tab::Teams, &id));
    ts.svc.shutdown().await;
}

#[tokio::test]
async fn edit_on_a_page_keeps_the_page_and_selects_the_item() {
    let (ts, mut app) = setup().await;
    press(&mut app, ch(']')).await;
    let page_ids: Vec<String> = crate::common::row_ids(&app);
    press(&mut app, ch('j')).await;
    press(&mut app, ch('j')).await;
    let id = selected_id(&app);
    app.apply(ch('e'));
    app.apply(ctrl('u'));
    typed(&mut app, "Renamed");
    press(&mut app, ctrl('s')).await;
    assert_eq!(crate::common::row_ids(&app), page_ids, "the same page");
    assert_eq!(selected_id(&app), id);
    assert_eq!(detail_id(&app), Some(id.clone()));
    assert_eq!(ts.client.get_team(&id).await.expect("team").name, "Renamed");
    ts.svc.shutdown().await;
}

fn offered(app: &App) -> Vec<String> {
    let d = app.state.forms.dialog.as_ref().expect("member dialog");
    match &d.fields[0].picker_ref().expect("picker").items {
        switchboard::console::forms::picker::Items::Ready(items) => {
            items.iter().map(|i| i.id.clone()).collect()
        }
        other => panic!("members not offered: {other:?}"),
    }
}

async fn members_of(ts: &TestService, team: &str) -> (Vec<String>, Vec<String>) {
    let q = ListQuery {
        limit: Some(100),
        ..ListQuery::default()
    };
    let all = ts.client.list_members(&q).await.expect("members").items;
    let (inside, outside): (Vec<_>, Vec<_>) = all.into_iter().partition(|m| m.in_team(team));
    (
        inside.into_iter().map(|m| m.actor_id).collect(),
        outside.into_iter().map(|m| m.actor_id).collect(),
    )
}

#[tokio::test]
async fn team_detail_lists_members_and_dialogs_offer_only_those_that_apply() {
    let (ts, mut app) = setup().await;
    press(&mut app, key(KeyCode::Enter)).await;
    let team = detail_id(&app).expect("detail open");
    let (inside, outside) = members_of(&ts, &team).await;
    assert!(!outside.is_empty(), "the demo has members outside the team");
    let s = crate::common::screen(&app);
    assert!(s.contains(&format!("Members ({})", inside.len())), "{s}");

    app.apply(ch('m'));
    let mut add = offered(&app);
    add.sort();
    let mut want = outside.clone();
    want.sort();
    assert_eq!(add, want, "m offers exactly the non-members");
    // Pick the first offered (the cursor's) and save.
    let chosen = offered(&app)[0].clone();
    press(&mut app, ctrl('s')).await;
    // Adding asks first.
    press(&mut app, ch('y')).await;
    assert!(app.state.forms.dialog.is_none());
    let (now_inside, _) = members_of(&ts, &team).await;
    assert!(now_inside.contains(&chosen), "added on the server");
    let s = crate::common::screen(&app);
    assert!(
        s.contains(&format!("Members ({})", inside.len() + 1)),
        "the detail's members were refreshed: {s}"
    );

    app.apply(ch('M'));
    let mut remove = offered(&app);
    remove.sort();
    let mut want = now_inside.clone();
    want.sort();
    assert_eq!(remove, want, "M offers exactly the members");
    app.apply(key(KeyCode::Esc));
    ts.svc.shutdown().await;
}

#[tokio::test]
async fn import_created_on_a_later_page_is_selected_and_e_edits_it() {
    let (ts, mut app) = setup().await;
    let q = ListQuery {
        limit: Some(100),
        ..ListQuery::default()
    };
    let conn = ts
        .client
        .list_imports(&q)
        .await
        .expect("imports")
        .items
        .into_iter()
        .find_map(|i| i.connection_id)
        .expect("a connection id in the demo");
    for i in 0..25 {
        let body = switchboard::api::model::CreateImport {
            access_token: format!("tok-filler-{i}"),
            connection_id: Some(conn.clone()),
            note: Some(format!("filler {i}")),
            ..Default::default()
        };
        ts.client.create_import(&body).await.expect("filler import");
    }
    press(&mut app, ch('2')).await;
    assert!(
        app.state.current().list.pagination.has_more_after,
        "more than a page"
    );
    app.apply(ch('c'));
    app.apply(key(KeyCode::Tab));
    typed(&mut app, &conn);
    app.apply(key(KeyCode::Tab));
    typed(&mut app, "tok-landing-SECRET");
    press(&mut app, ctrl('s')).await;
    assert!(app.state.forms.dialog.is_none(), "created");
    let id = selected_id(&app);
    assert_eq!(detail_id(&app), Some(id.clone()));
    let list = &app.state.current().list;
    assert!(list.pagination.has_more_before, "not on page 1");
    let newest = ts
        .client
        .list_imports(&ListQuery {
            limit: Some(1),
            order: Some(Order::Desc),
            ..ListQuery::default()
        })
        .await
        .expect("imports")
        .items
        .into_iter()
        .next()
        .expect("newest")
        .id;
    assert_eq!(id, newest, "the cursor is on the created import");
    app.apply(ch('e'));
    let d = app.state.forms.dialog.as_ref().expect("edit dialog");
    assert_eq!((d.resource, d.kind.clone()), edit_of(Tab::Imports, &id));
    ts.svc.shutdown().await;
}

#[tokio::test]
async fn while_the_page_of_a_new_item_loads_write_keys_never_act_on_another_row() {
    let (ts, mut app) = setup().await;
    let first = selected_id(&app);
    app.apply(ch('c'));
    typed(&mut app, "Quick Crew");
    // Save, and only let the write's reply in: the page around the new team is still on its way.
    app.apply(ctrl('s'));
    while app.state.forms.dialog.is_some() {
        let m = next_reply(&mut app).await;
        app.apply(m);
    }
    assert!(
        app.state.current().list.pending.is_some(),
        "page still loading"
    );
    // Close the detail before the page lands: `e` must not edit the old cursor row.
    app.apply(key(KeyCode::Esc));
    app.apply(ch('e'));
    if let Some(d) = app.state.forms.dialog.as_ref() {
        assert_ne!(
            (d.resource, d.kind.clone()),
            edit_of(Tab::Teams, &first),
            "edited another row"
        );
        app.apply(key(KeyCode::Esc));
    }
    press(&mut app, Msg::Resize(120, 40)).await;
    let id = team_named(&ts, "Quick Crew").await;
    assert_eq!(selected_id(&app), id, "landed once the page arrived");
    app.apply(ch('e'));
    let d = app.state.forms.dialog.as_ref().expect("edit dialog");
    assert_eq!((d.resource, d.kind.clone()), edit_of(Tab::Teams, &id));
    ts.svc.shutdown().await;
}

/// Offline: member names and emails are the server's text and reach the screen sanitized.
#[test]
fn hostile_member_names_are_sanitized_in_the_team_detail() {
    use switchboard::console::{ApiCmd, ApiReply};
    let mut app = crate::common::started_app(120, 40);
    crate::common::answer_all(&mut app);
    app.apply(key(KeyCode::Enter));
    let mut page: serde_json::Value =
        serde_json::from_str(&crate::common::fixture("member-list.json")).expect("json");
    page["items"][0]["actor"]["name"] = serde_json::json!("Evil\u{1b}]52;c;aGk=\u{7}Name");
    page["items"][0]["actor"]["email"] = serde_json::json!("e\u{1b}[2Jvil@example.com");
    let members: switchboard::api::Page<switchboard::api::model::Member> =
        serde_json::from_value(page).expect("members");
    for r in app.take_requests() {
        let reply = match r.cmd {
            ApiCmd::Members => ApiReply::Members(members.items.clone()),
            ApiCmd::Get { tab, .. } => {
                crate::common::item_reply(tab, crate::common::fixtures_of(tab).1)
            }
            _ => continue,
        };
        app.apply(Msg::Api {
            req_id: r.req_id,
            pane: r.pane,
            result: Ok(reply),
        });
    }
    let buf = crate::common::buffer(&app);
    let text: String = buf.content().iter().map(|c| c.symbol()).collect();
    assert!(text.contains("Members (1)"), "{text}");
    // Shown as visible markers, the way every server text is.
    assert!(
        text.contains("Evil⟨U+001B⟩]52;c;aGk=⟨U+0007⟩Name"),
        "{text}"
    );
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "no control characters reach the screen"
    );
}

/// The edit dialog of item `id` on `tab`: which dialog (the resource that opened it, its write)
/// and which item.
fn edit_of(tab: Tab, id: &str) -> (Option<Tab>, Kind) {
    (Some(tab), Kind::Write(Action::EDIT, Some(id.to_string())))
}
