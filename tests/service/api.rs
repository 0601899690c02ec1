//! Every operation of the local service over real HTTP, with the fixture shapes.
use crate::common::service as support_service;

use serde_json::{Value, json};
use support_service::{TestService, demo};
use switchboard::api::model::{
    CallbackType, CallbacksInput, CreateDestination, CreateImport, CreateTeam, ImportStatus,
    SetTeamProject, UpdateDestination, UpdateImport, UpdateTeam,
};
use switchboard::api::{Error, ListQuery, NotificationFilter};

fn all() -> ListQuery {
    ListQuery {
        limit: Some(100),
        ..Default::default()
    }
}

fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("fixture json")
}

/// Asserts that `got` has exactly the keys of `want`, recursively (non-null values only).
fn same_shape(got: &Value, want: &Value, at: &str) {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => {
            // `__typename` is compared too: lists and errors carry it as the real service sends it.
            let gk: Vec<_> = g.keys().collect();
            let wk: Vec<_> = w.keys().collect();
            let (mut gs, mut ws) = (gk.clone(), wk.clone());
            gs.sort();
            ws.sort();
            // Free-form maps (metadata, headers) may hold any keys.
            if !["metadata", "request_headers", "response_headers"]
                .iter()
                .any(|m| at.ends_with(m))
            {
                assert_eq!(gs, ws, "keys differ at {at}");
            }
            for k in wk {
                if let (Some(a), Some(b)) = (g.get(k), w.get(k)) {
                    same_shape(a, b, &format!("{at}.{k}"));
                }
            }
        }
        (Value::Array(g), Value::Array(w)) => {
            if let (Some(a), Some(b)) = (g.first(), w.first()) {
                same_shape(a, b, &format!("{at}[0]"));
            }
        }
        (Value::Null, _) | (_, Value::Null) => {}
        (g, w) => assert_eq!(
            std::mem::discriminant(g),
            std::mem::discriminant(w),
            "type differs at {at}: {g} vs {w}"
        ),
    }
}

fn api_err(e: Error) -> switchboard::api::ApiError {
    e.api().cloned().expect("an API error body")
}

async fn shape(t: &TestService, path: &str, fixture_name: &str) {
    let r = t.get(path).await;
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    same_shape(&r.body, &fixture(fixture_name), path);
}

#[tokio::test]
async fn every_read_matches_its_fixture_shape() {
    let t = demo().await;
    let teams = t.client.list_teams(&all()).await.expect("teams");
    let team = teams
        .items
        .iter()
        .find(|t| t.projects.len() >= 2)
        .expect("a team with projects");
    shape(&t, "/organization/teams", "team-list.json").await;
    shape(&t, &format!("/organization/teams/{}", team.id), "team.json").await;
    shape(&t, "/organization/projects", "project-list.json").await;
    shape(&t, "/organization/team-roles", "team-role-list.json").await;
    shape(&t, "/organization/members", "member-list.json").await;
    shape(&t, "/provider-oauth/token-imports", "import-list.json").await;
    shape(&t, "/callbacks", "callback-list.json").await;
    shape(&t, "/callbacks-destinations", "destination-list.json").await;
    let n = t
        .client
        .list_notifications(&all(), &NotificationFilter::default())
        .await
        .expect("notifications");
    let with_two = n
        .items
        .iter()
        .find(|n| n.attempts.len() >= 2)
        .expect("a notification with retries");
    shape(
        &t,
        &format!("/callbacks-notifications/{}", with_two.id),
        "notification.json",
    )
    .await;
    shape(&t, "/callbacks-notifications", "notification-list.json").await;
    t.svc.shutdown().await;
}

#[tokio::test]
async fn demo_world_has_the_promised_size() {
    let t = demo().await;
    let c = &t.client;
    assert_eq!(c.list_projects(&all()).await.expect("p").items.len(), 8);
    assert_eq!(c.list_team_roles(&all()).await.expect("r").items.len(), 4);
    assert_eq!(c.list_members(&all()).await.expect("m").items.len(), 12);
    let teams = c.list_teams(&all()).await.expect("t").items;
    assert!(teams.len() > 40, "{} teams", teams.len());
    let imports = c.list_imports(&all()).await.expect("i").items;
    assert_eq!(imports.len(), 60);
    assert!(imports.iter().any(|i| i.status == ImportStatus::Expired));
    assert!(imports.iter().any(|i| i.status == ImportStatus::Active));
    let callbacks = c.list_callbacks(&all()).await.expect("c").items;
    for k in CallbackType::KNOWN {
        assert!(callbacks.iter().any(|c| &c.kind == k), "no {k} callback");
    }
    assert!(
        callbacks
            .iter()
            .all(|c| c.url.is_some() == (c.kind == CallbackType::WebhookManual))
    );
    assert_eq!(
        c.list_destinations(&all(), &[])
            .await
            .expect("d")
            .items
            .len(),
        5
    );
    t.svc.shutdown().await;
}

#[tokio::test]
async fn teams_create_get_by_slug_and_update() {
    let t = demo().await;
    let c = &t.client;
    let created = c
        .create_team(&CreateTeam {
            name: "Night Shift Ops".into(),
            description: Some("Pager".into()),
        })
        .await
        .expect("create");
    assert!(created.id.starts_with("tm_") && created.id.len() == 25);
    assert_eq!(created.slug, "night-shift-ops");
    assert_eq!(
        c.get_team("night-shift-ops").await.expect("by slug").id,
        created.id
    );
    let dup = c
        .create_team(&CreateTeam {
            name: "Night shift ops".into(),
            description: None,
        })
        .await
        .expect("dup");
    assert_ne!(dup.slug, created.slug, "slugs stay unique");
    let updated = c
        .update_team(
            &created.id,
            &UpdateTeam {
                name: Some("Day Shift".into()),
                description: None,
            },
        )
        .await
        .expect("update");
    assert_eq!(
        (updated.name.as_str(), updated.slug.as_str()),
        ("Day Shift", "day-shift")
    );
    assert_eq!(updated.description.as_deref(), Some("Pager"));
    let null = t
        .raw(
            reqwest::Method::POST,
            &format!("/organization/teams/{}", created.id),
            Some(r#"{"name":null}"#),
            None,
        )
        .await;
    assert_eq!(null.status, 400);
    assert_eq!(null.body["code"], "invalid_data");
    assert_eq!(null.body["errors"][0]["path"], json!(["name"]));
    let missing = c
        .create_team(&CreateTeam::default())
        .await
        .expect_err("empty name");
    assert_eq!(api_err(missing).errors[0].path, vec![json!("name")]);
    let nf = api_err(c.get_team("tm_nope").await.expect_err("404"));
    assert_eq!((nf.status, nf.entity.as_deref()), (404, Some("team")));
    t.svc.shutdown().await;
}

#[tokio::test]
async fn team_projects_upsert_and_remove() {
    let t = demo().await;
    let c = &t.client;
    let team = c
        .create_team(&CreateTeam {
            name: "Proj".into(),
            description: None,
        })
        .await
        .expect("team");
    let set = |roles: &[&str]| SetTeamProject {
        project_id: "core".into(),
        team_role_ids: roles.iter().map(|s| s.to_string()).collect(),
    };
    let after = c
        .set_team_project(&team.id, &set(&["viewer", "editor"]))
        .await
        .expect("set");
    assert_eq!(after.projects.len(), 1);
    assert_eq!(after.projects[0].project.slug, "core");
    assert_eq!(after.projects[0].roles.len(), 2);
    let again = c
        .set_team_project(&team.id, &set(&["admin"]))
        .await
        .expect("upsert");
    assert_eq!(again.projects.len(), 1, "an upsert, not a second entry");
    assert_eq!(again.projects[0].id, after.projects[0].id);
    let slugs: Vec<_> = again.projects[0]
        .roles
        .iter()
        .map(|r| r.role.slug.as_str())
        .collect();
    assert_eq!(slugs, ["admin"]);
    let e = api_err(
        c.set_team_project(
            &team.id,
            &SetTeamProject {
                project_id: "nope".into(),
                team_role_ids: vec![],
            },
        )
        .await
        .expect_err("unknown project"),
    );
    assert_eq!((e.status, e.entity.as_deref()), (404, Some("project")));
    let e = api_err(
        c.set_team_project(&team.id, &set(&["viewer", "ghost", "phantom"]))
            .await
            .expect_err("unknown roles"),
    );
    assert_eq!(e.entity.as_deref(), Some("team-roles"));
    assert_eq!(e.id, Some(json!(["ghost", "phantom"])));
    let removed = c
        .remove_team_project(&team.id, &again.projects[0].project.id)
        .await
        .expect("remove");
    assert!(removed.projects.is_empty());
    let e = api_err(
        c.remove_team_project(&team.id, "core")
            .await
            .expect_err("not assigned"),
    );
    assert_eq!(e.code, "bad_request");
    assert_eq!(
        e.message,
        "The team does not have access to the specified project"
    );
    t.svc.shutdown().await;
}

#[tokio::test]
async fn team_members_add_and_remove() {
    let t = demo().await;
    let c = &t.client;
    let team = c
        .create_team(&CreateTeam {
            name: "Members".into(),
            description: None,
        })
        .await
        .expect("team");
    let actor = c.list_members(&all()).await.expect("members").items[0]
        .actor_id
        .clone();
    c.add_team_member(&team.id, &actor).await.expect("add");
    let e = api_err(
        c.add_team_member(&team.id, &actor)
            .await
            .expect_err("twice"),
    );
    assert_eq!(
        e.message,
        "The actor is already a member of the specified team"
    );
    c.remove_team_member(&team.id, &actor)
        .await
        .expect("remove");
    let e = api_err(
        c.remove_team_member(&team.id, &actor)
            .await
            .expect_err("gone"),
    );
    assert_eq!(e.message, "The actor is not a member of the specified team");
    let e = api_err(
        c.add_team_member(&team.id, "oac_nobody")
            .await
            .expect_err("unknown"),
    );
    assert_eq!(
        (e.status, e.entity.as_deref()),
        (404, Some("organization-actor"))
    );
    t.svc.shutdown().await;
}

async fn connection_id(t: &TestService) -> String {
    t.client.list_imports(&all()).await.expect("imports").items[0]
        .connection_id
        .clone()
        .expect("connection")
}

#[tokio::test]
async fn imports_hide_the_token_and_show_id_token_only_on_create() {
    let t = demo().await;
    let c = &t.client;
    let create = CreateImport {
        access_token: "ghp_secret_value".into(),
        connection_id: Some(connection_id(&t).await),
        note: Some("n".into()),
        id_token: Some("idt".into()),
        expires_at: Some("2020-01-01T00:00:00Z".into()),
        ..Default::default()
    };
    let raw = t
        .raw(
            reqwest::Method::POST,
            "/provider-oauth/token-imports",
            Some(&serde_json::to_string(&create).expect("json")),
            None,
        )
        .await;
    assert_eq!(raw.status, 200);
    assert!(!raw.body.to_string().contains("ghp_secret_value"));
    assert_eq!(raw.body["id_token"], "idt");
    assert_eq!(raw.body["status"], "expired");
    assert_eq!(raw.body["metadata"], json!({}));
    let id = raw.body["id"].as_str().expect("id").to_string();
    let ident = raw.body["identifier"]
        .as_str()
        .expect("identifier")
        .to_string();
    assert!(ident.starts_with("tkin*") && ident.len() == 5 + 128);
    let got = c.get_import(&id).await.expect("get");
    assert_eq!(got.id_token, None);
    let patched = c
        .update_import(
            &id,
            &UpdateImport {
                access_token: Some("another".into()),
                expires_at: Some("2999-01-01T00:00:00Z".into()),
                ..Default::default()
            },
        )
        .await
        .expect("patch");
    assert_ne!(patched.identifier.as_deref(), Some(ident.as_str()));
    assert_eq!(patched.status, ImportStatus::Active);
    assert_eq!(patched.note.as_deref(), Some("n"));
    let e = api_err(c.get_import("poti_missing").await.expect_err("404"));
    assert_eq!((e.status, e.entity.as_deref()), (404, Some("connection")));
    t.svc.shutdown().await;
}

#[tokio::test]
async fn import_create_rules() {
    let t = demo().await;
    let post = |body: Value| {
        let t = &t;
        async move {
            t.raw(
                reqwest::Method::POST,
                "/provider-oauth/token-imports",
                Some(&body.to_string()),
                None,
            )
            .await
        }
    };
    let neither = post(json!({"access_token": "x"})).await;
    assert_eq!(neither.status, 400);
    assert_eq!(neither.body["code"], "invalid_data");
    let paths: Vec<_> = neither.body["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| e["path"].clone())
        .collect();
    assert_eq!(
        paths,
        [json!(["server_deployment_id"]), json!(["connection_id"])]
    );
    let conn = connection_id(&t).await;
    let both =
        post(json!({"access_token": "x", "connection_id": conn, "server_deployment_id": "svd_x"}))
            .await;
    assert_eq!(
        (both.status, both.body["code"].as_str()),
        (400, Some("invalid_data"))
    );
    let unknown = post(json!({"access_token": "x", "server_deployment_id": "svd_x"})).await;
    assert_eq!(
        (unknown.status, unknown.body["entity"].as_str()),
        (404, Some("server-deployment"))
    );
    let unknown = post(json!({"access_token": "x", "connection_id": "poc_x"})).await;
    assert_eq!(
        (unknown.status, unknown.body["entity"].as_str()),
        (404, Some("connection"))
    );
    t.svc.shutdown().await;
}

#[tokio::test]
async fn callbacks_read() {
    let t = demo().await;
    let list = t.client.list_callbacks(&all()).await.expect("list");
    assert_eq!(list.items.len(), 6);
    let one = t.client.get_callback(&list.items[2].id).await.expect("get");
    assert_eq!(one, list.items[2]);
    let e = api_err(t.client.get_callback("clb_nope").await.expect_err("404"));
    assert_eq!(
        (e.entity.as_deref(), e.message.as_str()),
        (
            Some("callback"),
            "The requested callback could not be found."
        )
    );
    t.svc.shutdown().await;
}

#[tokio::test]
async fn destinations_lifecycle() {
    let t = demo().await;
    let c = &t.client;
    let cbs = c.list_callbacks(&all()).await.expect("callbacks").items;
    let picked = vec![cbs[0].id.clone(), cbs[0].id.clone(), cbs[1].id.clone()];
    let d = c
        .create_destination(&CreateDestination {
            name: "Mine".into(),
            description: Some("desc".into()),
            url: "https://example.com/hook".into(),
            callbacks: CallbacksInput::selected(picked),
        })
        .await
        .expect("create");
    let secret = &d
        .webhook_destination
        .as_ref()
        .expect("webhook")
        .signing_secret;
    assert!(secret.starts_with("clb_sec_") && secret.len() == 58);
    assert_eq!(d.callbacks.callback_ids.as_ref().expect("ids").len(), 2);
    let filtered = c
        .list_destinations(&all(), std::slice::from_ref(&cbs[1].id))
        .await
        .expect("filter");
    assert!(filtered.items.iter().any(|x| x.id == d.id));
    assert!(
        filtered
            .items
            .iter()
            .all(|x| x.callbacks.includes(&cbs[1].id))
    );
    let p = c
        .update_destination(
            &d.id,
            &UpdateDestination {
                name: Some("Renamed".into()),
                description: Some(None),
            },
        )
        .await
        .expect("patch");
    assert_eq!((p.name.as_str(), p.description.as_str()), ("Renamed", ""));
    let deleted = c.delete_destination(&d.id).await.expect("delete");
    assert_eq!(deleted.id, d.id);
    assert_eq!(
        c.get_destination(&d.id).await.expect("still readable").id,
        d.id
    );
    let listed = c.list_destinations(&all(), &[]).await.expect("list").items;
    assert!(!listed.iter().any(|x| x.id == d.id));
    let e = api_err(c.delete_destination(&d.id).await.expect_err("twice"));
    assert_eq!(e.message, "Callback destination is already inactive");
    let e = api_err(
        c.update_destination(&d.id, &UpdateDestination::default())
            .await
            .expect_err("inactive"),
    );
    assert_eq!(e.message, "Cannot update an inactive callback destination");
    let e = api_err(c.get_destination("cld_nope").await.expect_err("404"));
    assert_eq!(e.entity.as_deref(), Some("callback.destination"));
    t.svc.shutdown().await;
}

#[tokio::test]
async fn destination_create_rules() {
    let t = demo().await;
    let post = |body: Value| {
        let t = &t;
        async move {
            t.raw(
                reqwest::Method::POST,
                "/callbacks-destinations",
                Some(&body.to_string()),
                None,
            )
            .await
        }
    };
    let r = post(json!({"name": "x", "url": "https://e.com", "callbacks": {"type": "selected", "callback_id": ["clb_nope"]}})).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body["message"], "One or more callback IDs are invalid");
    let r = post(json!({"name": "x", "url": "ftp://e.com", "callbacks": {"type": "all"}})).await;
    assert_eq!(
        (r.status, r.body["errors"][0]["path"].clone()),
        (400, json!(["url"]))
    );
    let r = post(json!({"name": "x", "url": "https://e.com", "callbacks": {"type": "some"}})).await;
    assert_eq!(r.body["errors"][0]["code"], "invalid_enum");
    assert_eq!(r.body["errors"][0]["path"], json!(["callbacks", "type"]));
    let cb = t.client.list_callbacks(&all()).await.expect("cb").items[0]
        .id
        .clone();
    let r = post(json!({"name": "x", "url": "https://e.com", "callbacks": {"type": "selected", "callback_ids": [cb]}})).await;
    assert_eq!(
        r.status, 200,
        "the reply spelling is accepted too: {}",
        r.body
    );
    t.svc.shutdown().await;
}

/// How many notifications a filter selects, walking every page with `after`.
async fn count(t: &TestService, filter: &str) -> usize {
    let mut n = 0;
    let mut after = String::new();
    loop {
        let r = t
            .get(&format!(
                "/callbacks-notifications?limit=100&{filter}{after}"
            ))
            .await;
        let items = r.body["items"].as_array().expect("items");
        n += items.len();
        match items.last() {
            Some(last) if r.body["pagination"]["has_more_after"] == json!(true) => {
                after = format!("&after={}", last["id"].as_str().expect("id"));
            }
            _ => return n,
        }
    }
}

#[tokio::test]
async fn notifications_filter_with_every_union_form() {
    let t = demo().await;
    let everything = t
        .client
        .list_notifications(&all(), &NotificationFilter::default())
        .await
        .expect("all");
    let first = &everything.items[0];
    let cb = first.body_field("callbackId").expect("callback id");
    let ev = first.body_field("eventId").expect("event id");
    let other = everything
        .items
        .iter()
        .find_map(|n| n.body_field("callbackId").filter(|c| *c != cb))
        .expect("another callback");
    for q in [
        format!("callback_id={cb}"),
        format!("callback_id[]={cb}"),
        format!("callback_id[0]={cb}&callback_id[1]=clb_none"),
        format!("callback_id={cb}&callback_id="),
    ] {
        let r = t
            .get(&format!("/callbacks-notifications?limit=100&{q}"))
            .await;
        let items = r.body["items"].as_array().expect("items");
        assert!(!items.is_empty(), "{q}");
        for n in items {
            let body = n["attempts"][0]["webhook_request"]["request_body"]
                .as_str()
                .unwrap_or("{}");
            let v: Value = serde_json::from_str(body).expect("body");
            assert_eq!(v["callbackId"], json!(cb), "{q}");
        }
    }
    let both = count(&t, &format!("callback_id={cb}&callback_id={other}")).await;
    let one = count(&t, &format!("callback_id={cb}")).await;
    let two = count(&t, &format!("callback_id={other}")).await;
    assert_eq!(both, one + two, "several values of one filter are OR-ed");
    let comma = t
        .get(&format!(
            "/callbacks-notifications?callback_id={cb},{other}"
        ))
        .await;
    assert_eq!(comma.body["items"], json!([]), "a comma is not a separator");
    let and = t
        .get(&format!(
            "/callbacks-notifications?limit=100&callback_id={cb}&event_id={ev}"
        ))
        .await;
    let ids: Vec<_> = and.body["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|n| n["id"].clone())
        .collect();
    assert!(ids.contains(&json!(first.id)));
    let got = t.client.get_notification(&first.id).await.expect("get");
    assert_eq!(&got, first);
    let e = api_err(t.client.get_notification("cbn_x").await.expect_err("404"));
    assert_eq!(e.entity.as_deref(), Some("callback.notification"));
    t.svc.shutdown().await;
}

/// Team pages are served from a cache of rendered teams: every write still shows in the very next
/// page, and a listed team is exactly what `GET` answers.
#[tokio::test]
async fn team_pages_show_every_write_at_once() {
    let t = demo().await;
    let c = &t.client;
    let first = c.list_teams(&all()).await.expect("teams").items;
    let id = first.first().expect("a team").id.clone();
    // Listed twice: the second page comes from the cache and must be the same.
    assert_eq!(c.list_teams(&all()).await.expect("again").items, first);

    let renamed = c
        .update_team(
            &id,
            &UpdateTeam {
                name: Some("Renamed at once".into()),
                description: None,
            },
        )
        .await
        .expect("rename");
    let project = c.list_projects(&all()).await.expect("projects").items[0]
        .id
        .clone();
    let role = c.list_team_roles(&all()).await.expect("roles").items[0]
        .id
        .clone();
    let with_project = c
        .set_team_project(
            &id,
            &SetTeamProject {
                project_id: project.clone(),
                team_role_ids: vec![role],
            },
        )
        .await
        .expect("set project");
    assert_eq!(renamed.name, "Renamed at once");
    let listed = c.list_teams(&all()).await.expect("after").items;
    let team = listed.iter().find(|x| x.id == id).expect("listed");
    assert_eq!(team.name, "Renamed at once");
    assert!(team.projects.iter().any(|p| p.project.id == project));
    assert_eq!(team, &with_project);
    assert_eq!(team, &c.get_team(&id).await.expect("get"));
}
