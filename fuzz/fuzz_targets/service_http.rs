//! Fuzz target: any bytes as a request body (POST/PATCH) or query string (GET) sent to a route of
//! one running local service over loopback. The service must always answer, and never with 5xx.
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::runtime::Runtime;

const ROUTES: [(&str, &str); 12] = [
    ("POST", "/organization/teams"),
    ("POST", "/organization/teams/tem_demo_platform"),
    ("POST", "/organization/teams/tem_demo_platform/projects"),
    ("POST", "/organization/teams/tem_demo_platform/members"),
    ("POST", "/provider-oauth/token-imports"),
    ("PATCH", "/provider-oauth/token-imports/oai_x"),
    ("POST", "/callbacks-destinations"),
    ("PATCH", "/callbacks-destinations/cld_x"),
    ("GET", "/callbacks-notifications"),
    ("GET", "/organization/teams"),
    ("GET", "/callbacks-destinations"),
    ("GET", "/provider-oauth/token-imports"),
];

fn service() -> &'static (Runtime, RunningService) {
    static S: OnceLock<(Runtime, RunningService)> = OnceLock::new();
    S.get_or_init(|| {
        let rt = Runtime::new().expect("runtime");
        let svc = rt
            .block_on(start(ServiceConfig {
                seed: Seed::Demo,
                ..ServiceConfig::ephemeral()
            }))
            .expect("service");
        (rt, svc)
    })
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
    let (rt, svc) = service();
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
