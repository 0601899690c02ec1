//! Create/edit dialogs on the newer generations, driven by keys against `serve --generation …`
//! over loopback HTTP: the rendered dialog, its problems beside the fields (what was typed kept),
//! the server's message on a refused write, and the server's state after each write.
use crossterm::event::KeyCode;
use serde_json::Value;
use switchboard::api::generation::Generation;
use switchboard::api::{ApiRequest, Client, ListQuery};
use switchboard::console::Tab;
use switchboard::console::harness::Harness;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::fixed_clock;

async fn serve(g: Generation) -> (RunningService, Client) {
    let cfg = ServiceConfig {
        seed: Seed::Demo,
        generation: g,
        ..ServiceConfig::ephemeral()
    };
    let svc = start(cfg).await.expect("service starts");
    let client = Client::new(svc.client_options()).expect("client");
    (svc, client)
}

async fn console(client: &Client, g: Generation) -> Harness {
    let mut app = Harness::with_client("newer", client.clone(), fixed_clock(), (160, 50));
    app.show_generation(g);
    app.settle().await.expect("idle");
    app
}

/// To `tab` by its `:` word.
async fn go(app: &mut Harness, tab: Tab) {
    app.ch(':').type_text(tab.aliases()[0]).key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), tab, "{}", app.screen());
}

/// Every item of a list the server answers (one page of 100).
async fn items(client: &Client, req: ApiRequest) -> Vec<Value> {
    let raw = client.send(&req).await.expect("list");
    let page: switchboard::api::Page<Value> = serde_json::from_str(&raw.body).expect("a page");
    page.items
}

fn q() -> ListQuery {
    ListQuery {
        limit: Some(100),
        ..ListQuery::default()
    }
}

async fn event_destinations(client: &Client) -> Vec<Value> {
    items(
        client,
        ApiRequest::list_event_destinations(&q(), &Default::default()),
    )
    .await
}

fn footer(app: &Harness) -> String {
    app.screen().lines().last().unwrap_or_default().to_string()
}

fn dialog_open(app: &Harness) -> bool {
    app.screen().contains("Ctrl-S save")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_destination_is_created_with_its_retry_policy_and_edited() {
    let (svc, client) = serve(Generation::EventDestinations).await;
    let mut app = console(&client, Generation::EventDestinations).await;
    go(&mut app, Tab::EventDestinations).await;
    let f = footer(&app);
    assert!(f.contains("c new") && f.contains("e edit"), "{f}");
    let before = event_destinations(&client).await.len();

    // Wrong input: marked beside its field, nothing sent, what was typed kept.
    app.ch('c').type_text("Pager relay");
    app.key(KeyCode::Tab).type_text("ftp://example.test/hook");
    app.key(KeyCode::Tab).type_text("pages the on-call");
    app.key(KeyCode::Tab).ch(' ').ch(' '); // linear
    app.key(KeyCode::Tab).type_text("40");
    app.key(KeyCode::Tab).type_text("30s");
    app.key(KeyCode::Tab).type_text("1h");
    app.ctrl('s');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(dialog_open(&app), "{s}");
    assert!(s.contains("must be http or https, not ftp"), "{s}");
    assert!(s.contains("a whole number from 1 to 25"), "{s}");
    assert!(
        s.contains("ftp://example.test/hook") && s.contains("→ 30 s"),
        "{s}"
    );
    assert_eq!(
        event_destinations(&client).await.len(),
        before,
        "nothing sent"
    );

    // Fixed, it is created with the policy typed; the detail keeps create's answer (the secret,
    // masked).
    // The focus went to the first marked field, the URL.
    app.ctrl('u').type_text("http://127.0.0.1:9/pager");
    for _ in 0..3 {
        app.key(KeyCode::Tab);
    }
    app.ctrl('u').type_text("5");
    app.ctrl('s');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(!dialog_open(&app), "{s}");
    assert!(s.contains("Pager relay: created"), "{s}");
    let line = s
        .lines()
        .find(|l| l.contains("shown in this answer only"))
        .unwrap_or_else(|| panic!("the secret's line: {s}"))
        .to_string();
    assert!(line.contains('…'), "masked: {line}");
    let all = event_destinations(&client).await;
    assert_eq!(all.len(), before + 1);
    let d = all
        .iter()
        .find(|d| d["name"] == "Pager relay")
        .expect("created");
    assert_eq!(d["webhook"]["url"], "http://127.0.0.1:9/pager");
    assert_eq!(d["description"], "pages the on-call");
    assert_eq!(d["retry"]["strategy"], "linear");
    assert_eq!(d["retry"]["max_attempts"], 5);
    assert_eq!(d["retry"]["base_delay_seconds"], 30);
    assert_eq!(d["retry"]["max_delay_seconds"], 3600);
    let id = d["id"].as_str().expect("id").to_string();
    assert_eq!(
        app.selected_id().as_deref(),
        Some(id.as_str()),
        "landed on it"
    );

    // Edit: name, URL (empty keeps it: shown masked beside), retry strategy.
    app.key(KeyCode::Esc);
    app.settle().await.expect("idle");
    app.ch('e');
    let s = app.screen();
    assert!(s.contains("Edit destination Pager relay"), "{s}");
    assert!(s.contains("empty keeps"), "{s}");
    app.ctrl('u').type_text("Pager relay 2");
    app.key(KeyCode::Tab).key(KeyCode::Tab);
    app.type_text("https://127.0.0.1:9/pager2");
    app.key(KeyCode::Tab).ch(' '); // linear → fixed
    app.ctrl('s');
    app.settle().await.expect("idle");
    assert!(!dialog_open(&app), "{}", app.screen());
    let all = event_destinations(&client).await;
    let d = all
        .iter()
        .find(|d| d["id"] == id.as_str())
        .expect("still there");
    assert_eq!(d["name"], "Pager relay 2");
    assert_eq!(d["description"], "pages the on-call", "unchanged");
    assert_eq!(d["webhook"]["url"], "https://127.0.0.1:9/pager2");
    assert_eq!(d["retry"]["strategy"], "fixed");
    assert_eq!(d["retry"]["max_attempts"], 5, "kept");
    svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_event_destination_write_shows_the_servers_message_and_keeps_the_screen() {
    let (svc, client) = serve(Generation::EventDestinations).await;
    let mut app = console(&client, Generation::EventDestinations).await;
    go(&mut app, Tab::EventDestinations).await;
    let rows = app.row_ids();
    assert!(!rows.is_empty());
    let before = event_destinations(&client).await.len();
    // Two days: a duration we take, longer than the platform's 24 h.
    app.ch('c').type_text("Too patient");
    app.key(KeyCode::Tab).type_text("https://127.0.0.1:9/slow");
    for _ in 0..3 {
        app.key(KeyCode::Tab);
    }
    app.key(KeyCode::Tab).type_text("2d");
    app.ctrl('s');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(dialog_open(&app), "{s}");
    assert!(s.contains("Must be an integer from 1 to 86400"), "{s}");
    assert!(
        s.contains("Too patient") && s.contains("2d"),
        "typed kept: {s}"
    );
    assert_eq!(event_destinations(&client).await.len(), before);
    // Esc asks before dropping what was typed; the list under it is as it was.
    app.key(KeyCode::Esc).ch('y');
    app.settle().await.expect("idle");
    assert!(!dialog_open(&app));
    assert_eq!(app.row_ids(), rows, "the screen's data stays");
    svc.shutdown().await;
}

async fn callback_destinations(client: &Client) -> Vec<Value> {
    items(client, ApiRequest::list_callback_destinations(&q(), &[])).await
}

async fn deployment_callback(client: &Client, id: &str) -> Value {
    let raw = client
        .send(&ApiRequest::get_callback(id))
        .await
        .expect("get");
    serde_json::from_str(&raw.body).expect("a callback")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callback_destinations_callbacks_and_destinations_are_created_edited_and_archived() {
    let (svc, client) = serve(Generation::CallbackDestinations).await;
    let mut app = console(&client, Generation::CallbackDestinations).await;

    // A destination: created, then its name and URL changed.
    go(&mut app, Tab::CallbackDestinations).await;
    let f = footer(&app);
    assert!(f.contains("c new") && f.contains("e edit"), "{f}");
    app.ch('c').type_text("Audit sink");
    app.key(KeyCode::Tab).type_text("not a url");
    app.ctrl('s');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(dialog_open(&app) && s.contains("not a URL"), "{s}");
    assert!(s.contains("not a url"), "typed kept: {s}");
    app.ctrl('u').type_text("http://127.0.0.1:9/audit");
    app.key(KeyCode::Tab).type_text("keeps everything");
    app.ctrl('s');
    app.settle().await.expect("idle");
    assert!(!dialog_open(&app), "{}", app.screen());
    assert!(
        app.screen().contains("Audit sink: created"),
        "{}",
        app.screen()
    );
    let dest = callback_destinations(&client)
        .await
        .into_iter()
        .find(|d| d["name"] == "Audit sink")
        .expect("created");
    let dest_id = dest["id"].as_str().expect("id").to_string();
    assert_eq!(dest["url"], "http://127.0.0.1:9/audit");
    assert_eq!(dest["description"], "keeps everything");
    app.key(KeyCode::Esc);
    app.settle().await.expect("idle");
    app.ch('e');
    assert!(app.screen().contains("empty keeps"), "{}", app.screen());
    app.ctrl('u').type_text("Audit sink 2");
    app.key(KeyCode::Tab).key(KeyCode::Tab);
    app.type_text("https://127.0.0.1:9/audit2");
    app.ctrl('s');
    app.settle().await.expect("idle");
    assert!(!dialog_open(&app), "{}", app.screen());
    let dest = callback_destinations(&client)
        .await
        .into_iter()
        .find(|d| d["id"] == dest_id.as_str())
        .expect("still there");
    assert_eq!(dest["name"], "Audit sink 2");
    assert_eq!(dest["url"], "https://127.0.0.1:9/audit2");
    assert_eq!(dest["description"], "keeps everything", "unchanged");

    // A callback on a deployment in use, attached to that destination.
    go(&mut app, Tab::DeploymentCallbacks).await;
    let f = footer(&app);
    assert!(f.contains("c new") && f.contains("d delete"), "{f}");
    app.ch('c');
    app.settle().await.expect("lookups");
    let s = app.screen();
    assert!(s.contains("used by"), "deployments offered: {s}");
    app.key(KeyCode::Tab).type_text("Audit feed");
    app.key(KeyCode::Tab)
        .key(KeyCode::Tab)
        .type_text("Audit")
        .ch(' ');
    app.key(KeyCode::Tab).type_text("=issues");
    app.ctrl('s');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(dialog_open(&app), "{s}");
    assert!(s.contains("line 1: a provider trigger id"), "{s}");
    app.ctrl('u');
    app.ctrl('s');
    app.settle().await.expect("idle");
    assert!(!dialog_open(&app), "{}", app.screen());
    assert!(
        app.screen().contains("Audit feed: created"),
        "{}",
        app.screen()
    );
    let id = app.selected_id().expect("landed on it");
    let cb = deployment_callback(&client, &id).await;
    assert_eq!(cb["name"], "Audit feed");
    let attached: Vec<&str> = cb["destinations"]
        .as_array()
        .expect("destinations")
        .iter()
        .filter_map(|d| d["id"].as_str())
        .collect();
    assert_eq!(attached, vec![dest_id.as_str()]);
    assert!(cb["provider_deployment"]["id"].as_str().is_some());

    // Edit: the set is replaced (the one destination unchosen: none).
    app.key(KeyCode::Esc);
    app.settle().await.expect("idle");
    app.ch('e');
    app.settle().await.expect("lookups");
    app.key(KeyCode::Tab)
        .key(KeyCode::Tab)
        .type_text("Audit")
        .ch(' ');
    app.ctrl('s');
    app.settle().await.expect("idle");
    assert!(!dialog_open(&app), "{}", app.screen());
    let cb = deployment_callback(&client, &id).await;
    assert_eq!(cb["destinations"].as_array().map(Vec::len), Some(0), "{cb}");
    assert_eq!(cb["name"], "Audit feed", "unchanged");

    // Delete archives, after a question that names it.
    app.key(KeyCode::Esc);
    app.settle().await.expect("idle");
    app.ch('d');
    let s = app.screen();
    assert!(s.contains("Archive callback “Audit feed”"), "{s}");
    app.ch('y');
    app.settle().await.expect("idle");
    assert!(
        app.screen().contains("Audit feed: archived"),
        "{}",
        app.screen()
    );
    let cb = deployment_callback(&client, &id).await;
    assert_eq!(cb["status"], "archived");
    svc.shutdown().await;
}

async fn get(client: &Client, req: ApiRequest) -> Result<Value, switchboard::api::Error> {
    let raw = client.send(&req).await?;
    Ok(serde_json::from_str(&raw.body).expect("json"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listeners_are_created_edited_and_deleted_from_dialogs() {
    let (svc, client) = serve(Generation::EventDestinations).await;
    let dest = event_destinations(&client)
        .await
        .into_iter()
        .find(|d| d["status"] == "active")
        .expect("an active destination");
    let dest_id = dest["id"].as_str().expect("id").to_string();
    let types: Vec<String> = get(&client, ApiRequest::list_event_types())
        .await
        .expect("event types")["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    assert!(types.len() >= 3, "{types:?}");
    let mut app = console(&client, Generation::EventDestinations).await;
    go(&mut app, Tab::Listeners).await;
    let f = footer(&app);
    assert!(f.contains("c new") && f.contains("d delete"), "{f}");
    // Help and the palette list them too.
    app.ch('?');
    let s = app.screen();
    assert!(s.contains("create") && s.contains("delete"), "help: {s}");
    app.key(KeyCode::Esc).ctrl('p').type_text("dele");
    let s = app.screen();
    assert!(s.contains("delete") && s.contains("writes"), "palette: {s}");
    app.key(KeyCode::Esc);
    app.ch('c');
    app.settle().await.expect("lookups");
    app.type_text(&dest_id);
    app.key(KeyCode::Tab); // the instance in use, under the cursor
    app.key(KeyCode::Tab); // binds: event types
    app.ctrl('s');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(
        dialog_open(&app) && s.contains("name at least one event type"),
        "{s}"
    );
    // The focus went to the marked field.
    app.type_text(&types[0]);
    app.ctrl('s');
    app.settle().await.expect("idle");
    assert!(!dialog_open(&app), "{}", app.screen());
    let id = app.selected_id().expect("landed on it");
    let l = get(&client, ApiRequest::get_listener(&id))
        .await
        .expect("get");
    assert_eq!(l["event_destination_id"], dest_id.as_str());
    assert_eq!(l["type"], "event");
    assert_eq!(l["event_types"], serde_json::json!([types[0]]));

    app.key(KeyCode::Esc);
    app.settle().await.expect("idle");
    app.ch('e').ctrl('u');
    app.type_text(&format!("{}, {}", types[1], types[2]));
    app.ctrl('s');
    app.settle().await.expect("idle");
    assert!(!dialog_open(&app), "{}", app.screen());
    let l = get(&client, ApiRequest::get_listener(&id))
        .await
        .expect("get");
    assert_eq!(l["event_types"], serde_json::json!([types[1], types[2]]));

    app.key(KeyCode::Esc);
    app.settle().await.expect("idle");
    app.ch('d');
    assert!(app.screen().contains("Delete listener"), "{}", app.screen());
    app.ch('y');
    app.settle().await.expect("idle");
    assert!(
        app.toasts().iter().any(|t| t.contains("deleted")),
        "{:?}",
        app.toasts()
    );
    let gone = get(&client, ApiRequest::get_listener(&id)).await;
    assert_eq!(gone.err().and_then(|e| e.status()), Some(404));
    svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn integration_callbacks_are_created_edited_and_deleted_and_a_refusal_is_shown() {
    let (svc, client) = serve(Generation::EventDestinations).await;
    let seeded = items(
        &client,
        ApiRequest::list_integration_callbacks(&q(), &Default::default()),
    )
    .await;
    let cb = seeded.first().expect("a seeded callback");
    let integration = cb["integration_id"]
        .as_str()
        .expect("integration")
        .to_string();
    let provider = cb["integration_provider_id"]
        .as_str()
        .expect("provider")
        .to_string();
    let mut app = console(&client, Generation::EventDestinations).await;
    go(&mut app, Tab::IntegrationCallbacks).await;
    let f = footer(&app);
    assert!(f.contains("c new") && f.contains("e edit"), "{f}");
    app.ch('c');
    app.settle().await.expect("lookups");
    assert!(app.screen().contains("used by"), "{}", app.screen());
    app.type_text(&integration);
    app.key(KeyCode::Tab).type_text("ip_nosuch");
    app.key(KeyCode::Tab).type_text("Ops hook");
    app.ctrl('s');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(dialog_open(&app), "{s}");
    assert!(s.contains("404 not_found"), "the server's message: {s}");
    assert!(
        s.contains("Ops hook") && s.contains("ip_nosuch"),
        "typed kept: {s}"
    );
    assert_eq!(
        items(
            &client,
            ApiRequest::list_integration_callbacks(&q(), &Default::default())
        )
        .await
        .len(),
        seeded.len()
    );
    // The focus went to the field the refusal names.
    app.ctrl('u').type_text(&provider);
    app.ctrl('s');
    app.settle().await.expect("idle");
    assert!(!dialog_open(&app), "{}", app.screen());
    let id = app.selected_id().expect("landed on it");
    let got = get(&client, ApiRequest::get_callback(&id))
        .await
        .expect("get");
    assert_eq!(got["name"], "Ops hook");
    assert_eq!(got["integration_provider_id"], provider.as_str());

    app.key(KeyCode::Esc);
    app.settle().await.expect("idle");
    app.ch('e').ctrl('u').type_text("Ops hook 2");
    app.ctrl('s');
    app.settle().await.expect("idle");
    assert!(!dialog_open(&app), "{}", app.screen());
    let got = get(&client, ApiRequest::get_callback(&id))
        .await
        .expect("get");
    assert_eq!(got["name"], "Ops hook 2");

    app.key(KeyCode::Esc);
    app.settle().await.expect("idle");
    app.ch('d').ch('y');
    app.settle().await.expect("idle");
    let got = get(&client, ApiRequest::get_callback(&id))
        .await
        .expect("get");
    assert_eq!(got["status"], "deleted");
    svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_auth_import_is_created_with_its_value_masked_and_never_edited() {
    let (svc, client) = serve(Generation::EventDestinations).await;
    let list = |c: &Client| {
        let c = c.clone();
        async move { items(&c, ApiRequest::list_auth_imports(&q(), &Default::default())).await }
    };
    let before = list(&client).await.len();
    let mut app = console(&client, Generation::EventDestinations).await;
    go(&mut app, Tab::AuthImports).await;
    let f = footer(&app);
    assert!(f.contains("c new") && !f.contains("e edit"), "{f}");
    app.ch('e');
    assert!(
        app.toasts().iter().any(|t| t.contains("import again")),
        "{:?}",
        app.toasts()
    );
    const SECRET: &str = "tok_console_secret_0123456789";
    app.ch('c').type_text("rotated by ops");
    app.key(KeyCode::Tab).type_text("access_token=oops");
    app.ctrl('s');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(dialog_open(&app) && s.contains("not a JSON object"), "{s}");
    assert!(!s.contains("oops"), "the value is masked: {s}");
    app.ctrl('u')
        .type_text(&format!("{{\"access_token\": \"{SECRET}\"}}"));
    app.key(KeyCode::Tab).type_text("pro_nosuch");
    app.ctrl('s');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(dialog_open(&app), "{s}");
    assert!(s.contains("keys: access_token"), "{s}");
    assert!(
        s.contains("404 not_found") && s.contains("pro_nosuch"),
        "{s}"
    );
    assert!(!s.contains(SECRET), "never shown: {s}");
    assert_eq!(list(&client).await.len(), before, "nothing imported");
    app.ctrl('u');
    app.ctrl('s');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(!dialog_open(&app), "{s}");
    assert!(!s.contains(SECRET), "never shown: {s}");
    let after = list(&client).await;
    assert_eq!(after.len(), before + 1);
    assert!(after.iter().any(|i| i["note"] == "rotated by ops"));
    assert!(!app.state_debug().contains(SECRET), "not kept in the state");
    svc.shutdown().await;
}
