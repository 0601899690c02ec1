//! Forms end to end: keys drive the console against a real local service (demo seed), then the
//! service's state is checked through the client.

use crate::common::service::{TestService, client_for, demo};
use crate::common::{ch, ctrl, fixed_clock, key, settle, typed};
use crossterm::event::KeyCode;
use switchboard::api::model::SelectionType;
use switchboard::api::{ListQuery, Order};
use switchboard::console::record::Item;
use switchboard::console::{App, Msg, State};

/// Presses a key and waits for what it started.
async fn press(app: &mut App, msg: Msg) {
    app.apply(msg);
    settle(app).await;
}

async fn setup() -> (TestService, App) {
    let ts = demo().await;
    let client = client_for(&ts.svc.base_url, &ts.svc.api_key);
    let mut app = App::with_client(
        State::new("test", ts.svc.base_url.clone(), fixed_clock()),
        client,
    );
    app.apply(Msg::Resize(120, 40));
    app.start();
    settle(&mut app).await;
    (ts, app)
}

fn selected_id(app: &App) -> String {
    app.state
        .current()
        .list
        .selected()
        .map(|r| r.id().to_string())
        .expect("a selected row")
}

fn no_dialog(app: &App) {
    let d = app.state.forms.dialog.as_ref();
    assert!(d.is_none(), "dialog still open: {d:?}");
}

fn all() -> ListQuery {
    ListQuery {
        limit: Some(100),
        order: Some(Order::Desc),
        ..ListQuery::default()
    }
}

#[tokio::test]
async fn teams_create_edit_and_assignments() {
    let (ts, mut app) = setup().await;
    // Newest first, so the new team is on the first page.
    press(&mut app, ch('o')).await;
    app.apply(ch('c'));
    typed(&mut app, "Night Shift");
    app.apply(key(KeyCode::Tab));
    typed(&mut app, "Pager rota");
    press(&mut app, ctrl('s')).await;
    no_dialog(&app);
    let id = selected_id(&app);
    let team = ts.client.get_team(&id).await.expect("created team");
    assert_eq!(
        team.name, "Night Shift",
        "the cursor landed on the new team"
    );
    assert_eq!(team.description.as_deref(), Some("Pager rota"));
    assert!(app.state.toasts.iter().any(|t| t.text.contains("created")));

    app.apply(ch('e'));
    app.apply(ctrl('u'));
    typed(&mut app, "Night Watch");
    press(&mut app, ctrl('s')).await;
    no_dialog(&app);
    assert_eq!(selected_id(&app), id);
    let team = ts.client.get_team(&id).await.expect("team");
    assert_eq!(team.name, "Night Watch");
    assert_eq!(team.description.as_deref(), Some("Pager rota"));

    // Set a project's roles from the team's detail.
    press(&mut app, key(KeyCode::Enter)).await;
    press(&mut app, ch('p')).await;
    let d = app.state.forms.dialog.as_ref().expect("set-project dialog");
    let project = d.fields[0]
        .picker_ref()
        .and_then(|p| p.value())
        .expect("projects listed");
    app.apply(key(KeyCode::Tab));
    app.apply(ch(' '));
    press(&mut app, ctrl('s')).await;
    no_dialog(&app);
    let team = ts.client.get_team(&id).await.expect("team");
    let tp = team
        .projects
        .iter()
        .find(|p| p.project.id == project)
        .expect("project assigned");
    assert_eq!(tp.roles.len(), 1);

    // Remove it again: pick, confirm.
    app.apply(ch('x'));
    app.apply(ctrl('s'));
    let s = app
        .state
        .forms
        .dialog
        .as_ref()
        .expect("confirm")
        .confirm
        .clone();
    assert!(s.contains(&project), "{s}");
    press(&mut app, ch('y')).await;
    no_dialog(&app);
    let team = ts.client.get_team(&id).await.expect("team");
    assert!(team.projects.is_empty());

    // Add a member found by searching their name.
    press(&mut app, ch('m')).await;
    let d = app.state.forms.dialog.as_ref().expect("member dialog");
    let items = match &d.fields[0].picker_ref().expect("picker").items {
        switchboard::console::forms::picker::Items::Ready(items) => items.clone(),
        other => panic!("members not listed: {other:?}"),
    };
    let member = items.last().expect("a member").clone();
    typed(&mut app, &member.label);
    press(&mut app, ctrl('s')).await;
    // Adding asks first.
    press(&mut app, ch('y')).await;
    no_dialog(&app);
    let again = ts.client.add_team_member(&id, &member.id).await;
    assert_eq!(
        again.expect_err("already a member").status(),
        Some(400),
        "the console sent the member's actor_id"
    );

    // Remove them by typing the actor id.
    press(&mut app, ch('M')).await;
    typed(&mut app, &member.id);
    app.apply(ctrl('s'));
    press(&mut app, ch('y')).await;
    no_dialog(&app);
    let again = ts.client.remove_team_member(&id, &member.id).await;
    assert_eq!(again.expect_err("not a member").status(), Some(400));
    ts.svc.shutdown().await;
}

#[tokio::test]
async fn imports_create_and_edit_keep_tokens_out_of_sight() {
    let (ts, mut app) = setup().await;
    let existing = ts.client.list_imports(&all()).await.expect("imports");
    let conn = existing
        .items
        .iter()
        .find_map(|i| i.connection_id.clone())
        .expect("a connection id in the demo");
    press(&mut app, ch('2')).await;
    press(&mut app, ch('o')).await;

    // An unknown connection: the 404 goes beside the id field, nothing typed is lost.
    app.apply(ch('c'));
    app.apply(key(KeyCode::Tab));
    typed(&mut app, "poc_doesnotexist");
    app.apply(key(KeyCode::Tab));
    typed(&mut app, "tok-e2e-SECRET-1");
    app.apply(key(KeyCode::Tab));
    app.apply(key(KeyCode::Tab));
    typed(&mut app, "e2e note");
    app.apply(key(KeyCode::Tab));
    typed(&mut app, "env=test");
    app.apply(key(KeyCode::Tab));
    typed(&mut app, "+90d");
    press(&mut app, ctrl('s')).await;
    let d = app.state.forms.dialog.as_ref().expect("stays open");
    let id_field = d.field("connection_id").expect("id field");
    assert!(id_field.error.is_some(), "404 mapped to the id: {d:?}");
    assert_eq!(d.text("access_token"), "tok-e2e-SECRET-1");
    assert_eq!(d.text("note"), "e2e note");
    assert_eq!(d.focus, 1, "focus on the field to fix");

    app.apply(ctrl('u'));
    typed(&mut app, &conn);
    press(&mut app, ctrl('s')).await;
    no_dialog(&app);
    let id = selected_id(&app);
    let created = ts.client.get_import(&id).await.expect("created import");
    assert_eq!(created.note.as_deref(), Some("e2e note"));
    assert_eq!(created.connection_id.as_deref(), Some(conn.as_str()));
    assert_eq!(
        created.metadata.get("env"),
        Some(&serde_json::json!("test"))
    );
    let expires = created.expires_at.expect("expiry");
    let days = (expires - chrono::Utc::now()).num_days();
    assert!((89..=90).contains(&days), "+90d resolved: {days}");
    let ident = created.identifier.clone().expect("identifier");

    // Edit with the token fields empty: the token is unchanged.
    app.apply(ch('e'));
    app.apply(key(KeyCode::Tab));
    app.apply(key(KeyCode::Tab));
    app.apply(ctrl('u'));
    typed(&mut app, "edited");
    press(&mut app, ctrl('s')).await;
    no_dialog(&app);
    let edited = ts.client.get_import(&id).await.expect("import");
    assert_eq!(edited.note.as_deref(), Some("edited"));
    assert_eq!(edited.identifier.as_deref(), Some(ident.as_str()));
    assert_eq!(edited.metadata.get("env"), Some(&serde_json::json!("test")));

    // A new token changes the identifier.
    app.apply(ch('e'));
    typed(&mut app, "tok-e2e-SECRET-2");
    press(&mut app, ctrl('s')).await;
    no_dialog(&app);
    let rotated = ts.client.get_import(&id).await.expect("import");
    assert_ne!(rotated.identifier.as_deref(), Some(ident.as_str()));
    assert!(!format!("{:?}", app.state).contains("SECRET"));
    ts.svc.shutdown().await;
}

#[tokio::test]
async fn destinations_create_edit_delete() {
    let (ts, mut app) = setup().await;
    press(&mut app, ch('4')).await;
    press(&mut app, ch('o')).await;
    press(&mut app, ch('c')).await;
    typed(&mut app, "E2E hook");
    app.apply(key(KeyCode::Tab));
    typed(&mut app, "first");
    app.apply(key(KeyCode::Tab));
    typed(&mut app, "http://127.0.0.1:9/hook");
    app.apply(key(KeyCode::Tab));
    app.apply(ch(' '));
    app.apply(key(KeyCode::Tab));
    app.apply(ch(' '));
    let callback = app.state.forms.dialog.as_ref().expect("open").fields[4]
        .picker_ref()
        .map(|p| p.chosen.clone())
        .expect("picker");
    assert_eq!(callback.len(), 1, "a callback chosen from the lookup");
    press(&mut app, ctrl('s')).await;
    no_dialog(&app);
    let id = selected_id(&app);
    let dest = ts.client.get_destination(&id).await.expect("created");
    assert_eq!(dest.name, "E2E hook");
    assert_eq!(dest.description, "first");
    assert_eq!(dest.callbacks.kind, SelectionType::Selected);
    assert_eq!(dest.callbacks.callback_ids, Some(callback));

    app.apply(ch('e'));
    app.apply(key(KeyCode::Tab));
    app.apply(ctrl('u'));
    press(&mut app, ctrl('s')).await;
    no_dialog(&app);
    let dest = ts.client.get_destination(&id).await.expect("edited");
    assert_eq!(dest.description, "", "clearing sent null");
    assert_eq!(dest.name, "E2E hook");

    app.apply(ch('d'));
    press(&mut app, ch('y')).await;
    no_dialog(&app);
    let listed = ts
        .client
        .list_destinations(&all(), &[])
        .await
        .expect("list");
    assert!(listed.items.iter().all(|d| d.id != id), "deleted");
    assert!(
        app.state
            .current()
            .list
            .rows
            .iter()
            .all(|r| !matches!(&r.item, Item::Destination(d) if d.id == id)),
        "the list reloaded"
    );
    ts.svc.shutdown().await;
}
