//! Fuzz target: any bytes as a request body (POST/PATCH) or query string (GET) sent to a route of
//! one running local service over loopback. The service must always answer, and never with 5xx.
//! Paths carry the seeded world's real ids, and `$TEAM`, `$PROJECT`, `$ROLE`, `$ACTOR`,
//! `$CONNECTION`, `$CALLBACK`, `$IMPORT` and `$DEST` in the input become real ids too, so that
//! inputs (and the seed corpus in `seeds/service_http/`) get past the lookups into validation.
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use switchboard::api::{Client, ClientOptions, ListQuery};
use switchboard::service::{RunningService, Seed, ServiceConfig, start};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::runtime::Runtime;

/// Method and path; `{placeholder}`s are filled from the seeded world.
const ROUTES: [(&str, &str); 16] = [
    ("POST", "/organization/teams"),
    ("POST", "/organization/teams/$TEAM"),
    ("POST", "/organization/teams/$TEAM/projects"),
    ("POST", "/organization/teams/$TEAM/members"),
    ("POST", "/provider-oauth/token-imports"),
    ("PATCH", "/provider-oauth/token-imports/$IMPORT"),
    ("POST", "/callbacks-destinations"),
    ("PATCH", "/callbacks-destinations/$DEST"),
    ("GET", "/callbacks-notifications"),
    ("GET", "/organization/teams"),
    ("GET", "/callbacks-destinations"),
    ("GET", "/provider-oauth/token-imports"),
    ("GET", "/callbacks"),
    ("GET", "/organization/members"),
    ("GET", "/organization/projects"),
    ("POST", "/hooks/x"),
];

/// The running service and the ids of its seeded world, by placeholder.
struct World {
    rt: Runtime,
    svc: RunningService,
    ids: Vec<(&'static str, String)>,
}

fn world() -> &'static World {
    static W: OnceLock<World> = OnceLock::new();
    W.get_or_init(|| {
        let rt = Runtime::new().expect("runtime");
        let svc = rt
            .block_on(start(ServiceConfig {
                seed: Seed::Demo,
                ..ServiceConfig::ephemeral()
            }))
            .expect("service");
        let client = Client::new(ClientOptions {
            base_url: svc.base_url.clone(),
            api_key: svc.api_key.clone(),
            ..ClientOptions::default()
        })
        .expect("client");
        let q = ListQuery::default();
        let ids = rt.block_on(async {
            let first = |v: Vec<String>| v.into_iter().next().expect("the demo seeds one");
            let teams = client.list_teams(&q).await.expect("teams").items;
            let imports = client.list_imports(&q).await.expect("imports").items;
            vec![
                ("$TEAM", first(teams.iter().map(|t| t.id.clone()).collect())),
                (
                    "$PROJECT",
                    first(
                        client
                            .list_projects(&q)
                            .await
                            .expect("projects")
                            .items
                            .into_iter()
                            .map(|p| p.id)
                            .collect(),
                    ),
                ),
                (
                    "$ROLE",
                    first(
                        client
                            .list_team_roles(&q)
                            .await
                            .expect("roles")
                            .items
                            .into_iter()
                            .map(|r| r.id)
                            .collect(),
                    ),
                ),
                (
                    "$ACTOR",
                    first(
                        client
                            .list_members(&q)
                            .await
                            .expect("members")
                            .items
                            .into_iter()
                            .map(|m| m.actor_id)
                            .collect(),
                    ),
                ),
                (
                    "$CONNECTION",
                    first(
                        imports
                            .iter()
                            .filter_map(|i| i.connection_id.clone())
                            .collect(),
                    ),
                ),
                (
                    "$CALLBACK",
                    first(
                        client
                            .list_callbacks(&q)
                            .await
                            .expect("callbacks")
                            .items
                            .into_iter()
                            .map(|c| c.id)
                            .collect(),
                    ),
                ),
                (
                    "$IMPORT",
                    first(imports.iter().map(|i| i.id.clone()).collect()),
                ),
                (
                    "$DEST",
                    first(
                        client
                            .list_destinations(&q, &[])
                            .await
                            .expect("destinations")
                            .items
                            .into_iter()
                            .map(|d| d.id)
                            .collect(),
                    ),
                ),
            ]
        });
        World { rt, svc, ids }
    })
}

/// `bytes` with every placeholder replaced by its real id.
fn filled(bytes: &[u8], ids: &[(&str, String)]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for (name, id) in ids {
        let name = name.as_bytes();
        let mut i = 0;
        while i + name.len() <= out.len() {
            if &out[i..i + name.len()] == name {
                out.splice(i..i + name.len(), id.bytes());
                i += id.len();
            } else {
                i += 1;
            }
        }
    }
    out
}

/// Percent-encodes what a request line cannot carry, keeping `=`, `&`, `[`, `]` and `%` as sent.
fn query_text(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            b'!'..=b'~' if b != b'#' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let (method, path) = ROUTES[usize::from(first) % ROUTES.len()];
    let World { rt, svc, ids } = world();
    let path = String::from_utf8_lossy(&filled(path.as_bytes(), ids)).into_owned();
    let rest = &filled(rest, ids)[..];
    let addr = svc.base_url.trim_start_matches("http://").to_string();
    let key = svc.api_key.expose().to_string();
    let head = if method == "GET" {
        format!(
            "GET {path}?{} HTTP/1.1\r\nhost: {addr}\r\nauthorization: Bearer {key}\r\nconnection: close\r\n\r\n",
            query_text(rest)
        )
    } else {
        format!(
            "{method} {path} HTTP/1.1\r\nhost: {addr}\r\nauthorization: Bearer {key}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            rest.len()
        )
    };
    let reply = rt.block_on(async {
        let mut s = TcpStream::connect(&addr).await.expect("connect");
        s.write_all(head.as_bytes()).await.expect("write head");
        if method != "GET" {
            s.write_all(rest).await.expect("write body");
        }
        let mut out = Vec::new();
        s.read_to_end(&mut out).await.expect("read reply");
        out
    });
    let text = String::from_utf8_lossy(&reply);
    let status: u16 = text
        .get(9..12)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {text:?}"));
    assert!(status < 500, "{method} {path}: {text}");
});
