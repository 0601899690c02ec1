//! The Teams tab's writes mean the same on pulsar and both newer generations (contract §4):
//! `c` creates, `e` edits, `m` adds a member and `M` removes one, with the same dialogs, over
//! real HTTP to `serve --generation G`; the newer generations offer no project-role key.
use std::time::Duration;

use crossterm::event::KeyCode;
use serde_json::Value;
use switchboard::api::generation::Generation;
use switchboard::api::{ApiRequest, Client, ClientOptions, ListQuery, Secret};
use switchboard::console::Tab;
use switchboard::console::harness::Harness;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::fixed_clock;

const ORG_KEY: &str = "sk_org_console_team_writes_0123456789";
const INSTANCE_KEY: &str = "sk_instance_console_team_writes_0123";

async fn service(g: Generation) -> (RunningService, Client) {
    let newer = g != Generation::Pulsar;
    let svc = start(ServiceConfig {
        seed: Seed::Demo,
        generation: g,
        api_key: Some(Secret::new(if newer { ORG_KEY } else { INSTANCE_KEY })),
        instance_key: newer.then(|| Secret::new(INSTANCE_KEY)),
        ..ServiceConfig::ephemeral()
    })
    .await
    .expect("service starts");
    let client = Client::new(ClientOptions {
        base_url: svc.base_url.clone(),
        api_key: Secret::new(INSTANCE_KEY),
        organization_key: newer.then(|| Secret::new(ORG_KEY)),
        instance_id: svc.instance_id.clone(),
        max_retries: 0,
        request_timeout: Duration::from_secs(15),
        ..ClientOptions::default()
    })
    .expect("client");
    (svc, client)
}

async fn get(client: &Client, req: &ApiRequest) -> Value {
    let raw = client.send(req).await.expect("answered");
    serde_json::from_str(&raw.body).expect("JSON")
}

/// The team ids the member belongs to, as the members list says.
async fn teams_of(client: &Client, actor: &str) -> Vec<String> {
    let q = ListQuery {
        limit: Some(100),
        ..ListQuery::default()
    };
    let all = get(client, &ApiRequest::list_members(&q)).await;
    all["items"]
        .as_array()
        .and_then(|a| a.iter().find(|m| m["actor_id"] == actor).cloned())
        .and_then(|m| m["actor"]["teams"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|t| t["id"].as_str().map(str::to_string))
        .collect()
}

fn footer(app: &Harness) -> String {
    app.screen().lines().last().unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_teams_tab_creates_edits_and_changes_members_on_every_generation() {
    for g in [
        Generation::Pulsar,
        Generation::CallbackDestinations,
        Generation::EventDestinations,
    ] {
        let (svc, client) = service(g).await;
        let mut app = Harness::with_client("tw", client.clone(), fixed_clock(), (160, 45));
        app.show_generation(g);
        app.settle().await.expect("idle");
        let tab = if g == Generation::Pulsar {
            Tab::Teams
        } else {
            Tab::OrgTeams
        };
        assert_eq!(app.tab(), tab, "{g}");
        assert!(footer(&app).contains("c new"), "{g}: {}", footer(&app));

        // Create: the dialog's name and description reach the platform.
        app.ch('c').type_text("Night Shift").key(KeyCode::Tab);
        app.type_text("Pager rota").ctrl('s');
        app.settle().await.expect("idle");
        assert!(
            app.toasts().iter().any(|t| t.contains("created")),
            "{g}: {:?}\n{}",
            app.toasts(),
            app.screen()
        );
        let id = app.selected_id().expect("the new team selected");
        let team = get(&client, &ApiRequest::get_team(&id)).await;
        assert_eq!(team["name"], "Night Shift", "{g}: {team}");
        assert_eq!(team["description"], "Pager rota", "{g}: {team}");

        // Edit: only the name changes.
        app.ch('e').ctrl('u').type_text("Night Watch").ctrl('s');
        app.settle().await.expect("idle");
        let team = get(&client, &ApiRequest::get_team(&id)).await;
        assert_eq!(team["name"], "Night Watch", "{g}: {team}");
        assert_eq!(team["description"], "Pager rota", "{g}: {team}");
        assert_eq!(app.selected_id().as_deref(), Some(id.as_str()), "{g}");

        // In the detail: members, and project roles only where they exist.
        app.key(KeyCode::Enter);
        app.settle().await.expect("idle");
        let f = footer(&app);
        assert!(f.contains("member"), "{g}: {f}");
        assert_eq!(f.contains("project"), g == Generation::Pulsar, "{g}: {f}");
        assert!(
            app.screen().contains("Members (0)"),
            "{g}: {}",
            app.screen()
        );
        // Help and the palette offer the same keys as the footer.
        app.ch('?');
        app.settle().await.expect("idle");
        let help = app.screen();
        assert!(help.contains("add a member"), "{g}: {help}");
        assert_eq!(
            help.contains("project"),
            g == Generation::Pulsar,
            "{g}: {help}"
        );
        app.key(KeyCode::Esc).ctrl('p');
        app.settle().await.expect("idle");
        app.type_text("member");
        let palette = app.screen();
        assert!(palette.contains("remove a member"), "{g}: {palette}");
        assert!(palette.contains("writes"), "{g}: {palette}");
        app.key(KeyCode::Esc);
        app.settle().await.expect("idle");

        // Add a member found by name: asked, sent, and shown in the detail.
        let q = ListQuery {
            limit: Some(100),
            ..ListQuery::default()
        };
        let members = get(&client, &ApiRequest::list_members(&q)).await;
        let m = members["items"]
            .as_array()
            .and_then(|a| a.last().cloned())
            .expect("a member");
        let (actor, name) = (
            m["actor_id"].as_str().unwrap_or_default().to_string(),
            m["name"].as_str().unwrap_or_default().to_string(),
        );
        app.ch('m');
        app.settle().await.expect("idle");
        assert!(
            app.screen().contains("Add a member"),
            "{g}: {}",
            app.screen()
        );
        app.type_text(&name).ctrl('s');
        app.settle().await.expect("idle");
        assert!(app.screen().contains(&name), "{g}: {}", app.screen());
        app.ch('y');
        app.settle().await.expect("idle");
        assert!(
            teams_of(&client, &actor).await.contains(&id),
            "{g}: not added\n{}",
            app.screen()
        );
        assert!(
            app.screen().contains("Members (1)"),
            "{g}: {}",
            app.screen()
        );

        // Remove them from the picker of the team's members.
        app.ch('M');
        app.settle().await.expect("idle");
        assert!(app.screen().contains(&name), "{g}: {}", app.screen());
        app.ctrl('s');
        app.settle().await.expect("idle");
        app.ch('y');
        app.settle().await.expect("idle");
        assert!(
            !teams_of(&client, &actor).await.contains(&id),
            "{g}: not removed\n{}",
            app.screen()
        );
        assert!(
            app.screen().contains("Members (0)"),
            "{g}: {}",
            app.screen()
        );

        // No project-role key where roles are gone: `p` opens nothing.
        if g != Generation::Pulsar {
            app.ch('p');
            app.settle().await.expect("idle");
            assert!(
                !app.screen().contains("Set project roles"),
                "{g}: {}",
                app.screen()
            );
        }
        svc.shutdown().await;
    }
}
