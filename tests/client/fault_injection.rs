//! Fault injection: a raw loopback TCP server that hangs, drops the connection, answers 500, 429
//! (with and without `Retry-After`), truncated JSON, HTML or a 10 MB body. Checked through the
//! client (clear errors, bounded retries, no write retried), the real binary (exit codes 3/4 and a
//! clear message on stderr) and the console (data kept, error shown).
use crate::common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::fixture;
use switchboard::api::model::CreateTeam;
use switchboard::api::{Client, ClientOptions, Error, ListQuery, Secret};
use switchboard::console::harness::Harness;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The key sent by every test here; it must never show up in any output.
const KEY: &str = "sk_test_fault_injection_5ecret";

/// Bound on any wait in these tests; replies normally arrive in milliseconds.
const DEADLINE: Duration = Duration::from_secs(10);

/// What the server does with a request.
#[derive(Debug, Clone)]
enum Fault {
    /// Reads the request and never answers (the socket stays open).
    Hang,
    /// Reads the request and closes the connection without a byte.
    Drop,
    /// Answers with a status, extra headers and a body.
    Reply {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: String,
    },
    /// Announces `Content-Length: len` but sends only `body`, then closes.
    Cut { body: String, len: usize },
}

impl Fault {
    fn json(status: u16, body: impl Into<String>) -> Self {
        Fault::Reply {
            status,
            headers: vec![("content-type", "application/json".into())],
            body: body.into(),
        }
    }

    fn with(mut self, name: &'static str, value: &str) -> Self {
        if let Fault::Reply { headers, .. } = &mut self {
            headers.push((name, value.into()));
        }
        self
    }
}

/// A loopback server playing a script: request n gets `script[n]`, the last entry repeating.
struct FaultServer {
    addr: SocketAddr,
    seen: Arc<AtomicUsize>,
}

impl FaultServer {
    async fn start(script: Vec<Fault>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let seen = Arc::new(AtomicUsize::new(0));
        let counter = seen.clone();
        let script = Arc::new(script);
        tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                let script = script.clone();
                let counter = counter.clone();
                tokio::spawn(serve_conn(sock, script, counter));
            }
        });
        Self { addr, seen }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn requests(&self) -> usize {
        self.seen.load(Ordering::SeqCst)
    }
}

/// Reads one request head (and its body, by `Content-Length`) and returns its request line;
/// `None` when the peer closed.
async fn read_request(sock: &mut TcpStream, buf: &mut Vec<u8>) -> Option<String> {
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
            let len = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                let first = head.lines().next().unwrap_or_default().to_string();
                buf.drain(..end + 4 + len);
                return Some(first);
            }
        }
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

async fn serve_conn(mut sock: TcpStream, script: Arc<Vec<Fault>>, seen: Arc<AtomicUsize>) {
    let mut buf = Vec::new();
    while let Some(line) = read_request(&mut sock, &mut buf).await {
        // A client's one look at the server's API versions is not one of the scripted calls:
        // answered as by a deployment that does not list them.
        if line.contains(" /metorial/introspect/") {
            let body = r#"{"ok":false,"status":404,"code":"not_found","message":"The requested endpoint could not be found.","entity":"endpoint"}"#;
            let head = format!(
                "HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                body.len()
            );
            if sock.write_all(head.as_bytes()).await.is_err()
                || sock.write_all(body.as_bytes()).await.is_err()
            {
                return;
            }
            continue;
        }
        let n = seen.fetch_add(1, Ordering::SeqCst);
        let Some(fault) = script.get(n.min(script.len().saturating_sub(1))) else {
            return;
        };
        match fault {
            Fault::Hang => {
                // Hold the socket until the client gives up and closes it.
                let _ = sock.read(&mut [0u8; 1]).await;
                return;
            }
            Fault::Drop => return,
            Fault::Reply {
                status,
                headers,
                body,
            } => {
                let mut head = format!("HTTP/1.1 {status} X\r\ncontent-length: {}\r\n", body.len());
                for (k, v) in headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                if sock.write_all(head.as_bytes()).await.is_err()
                    || sock.write_all(body.as_bytes()).await.is_err()
                {
                    return;
                }
            }
            Fault::Cut { body, len } => {
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len}\r\n\r\n{body}"
                );
                let _ = sock.write_all(head.as_bytes()).await;
                return;
            }
        }
    }
}

fn options(base_url: &str) -> ClientOptions {
    ClientOptions {
        base_url: base_url.into(),
        api_key: Secret::new(KEY),
        connect_timeout: Duration::from_millis(500),
        request_timeout: Duration::from_millis(400),
        max_retries: 2,
        max_retry_wait: Duration::from_millis(800),
        backoff_base: Duration::from_millis(5),
        ..ClientOptions::default()
    }
}

fn client(s: &FaultServer) -> Client {
    Client::new(options(&s.url())).expect("client")
}

fn html() -> String {
    "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head>\n<body><h1>Bad Gateway</h1></body></html>".into()
}

fn ten_mb() -> String {
    format!("{{\"pad\":\"{}\"}}", "x".repeat(10 * 1024 * 1024))
}

/// Lists teams, checking the call stays well inside the test's bound.
async fn list(c: &Client) -> (Error, Duration) {
    let started = Instant::now();
    let r = tokio::time::timeout(DEADLINE, c.list_teams(&ListQuery::default()))
        .await
        .expect("the client gives up by itself");
    (
        r.expect_err("the fault makes the call fail"),
        started.elapsed(),
    )
}

fn assert_no_key(text: &str) {
    assert!(!text.contains(KEY), "key leaked: {text}");
    assert!(!text.contains(&KEY[8..]), "key tail leaked: {text}");
}

#[tokio::test]
async fn hang_times_out_once_without_retry() {
    let s = FaultServer::start(vec![Fault::Hang]).await;
    let (e, took) = list(&client(&s)).await;
    assert!(matches!(e, Error::Timeout(_)), "{e:?}");
    assert_eq!(e.exit_code(), 4);
    assert!(e.to_string().contains("timed out"), "{e}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    // The request reached the server, so it is not re-sent.
    assert_eq!(s.requests(), 1);
}

#[tokio::test]
async fn dropped_connection_is_a_network_error() {
    let s = FaultServer::start(vec![Fault::Drop]).await;
    let (e, _) = list(&client(&s)).await;
    assert!(matches!(e, Error::Network(_)), "{e:?}");
    assert_eq!(e.exit_code(), 4);
    assert!(e.to_string().starts_with("network error"), "{e}");
    assert_no_key(&e.to_string());
    assert!(s.requests() <= 3, "bounded: {}", s.requests());
}

#[tokio::test]
async fn server_errors_retry_gets_boundedly_and_never_posts() {
    // 500 is not retried at all; 503 on a GET is retried max_retries times.
    for (status, want) in [(500u16, 1usize), (502, 3), (503, 3), (504, 3)] {
        let err500 = fixture("error-bad-request.json").replace("400", &status.to_string());
        let s = FaultServer::start(vec![Fault::json(status, err500.clone())]).await;
        let (e, _) = list(&client(&s)).await;
        assert_eq!(e.status(), Some(status), "{e:?}");
        assert_eq!(e.exit_code(), 3);
        assert_eq!(s.requests(), want, "GET tries on {status}");

        // A write is never re-sent on a 5xx: it may have been applied.
        let s = FaultServer::start(vec![Fault::json(status, err500.clone())]).await;
        let body = CreateTeam {
            name: "Ops".into(),
            description: None,
        };
        let e = client(&s)
            .create_team(&body)
            .await
            .expect_err("5xx fails the write");
        assert_eq!(e.status(), Some(status));
        assert_eq!(s.requests(), 1, "POST tries on {status}");
    }
}

#[tokio::test]
async fn rate_limits_wait_only_within_bounds() {
    let body = fixture("error-rate-limited.json");
    // Retry-After: 0 is honoured up to max_retries.
    let s = FaultServer::start(vec![
        Fault::json(429, body.clone()).with("retry-after", "0"),
    ])
    .await;
    let (e, _) = list(&client(&s)).await;
    assert_eq!(e.status(), Some(429));
    assert_eq!(s.requests(), 3);

    // A wait beyond max_retry_wait is not slept: the error comes at once.
    let s = FaultServer::start(vec![
        Fault::json(429, body.clone()).with("retry-after", "3600"),
    ])
    .await;
    let (e, took) = list(&client(&s)).await;
    assert_eq!(e.status(), Some(429));
    assert_eq!(e.exit_code(), 3);
    assert_eq!(s.requests(), 1);
    assert!(took < Duration::from_millis(500), "{took:?}");

    // Without Retry-After the default wait (1 s) is also beyond the 800 ms budget.
    let s = FaultServer::start(vec![Fault::json(429, body)]).await;
    let (e, took) = list(&client(&s)).await;
    assert_eq!(e.status(), Some(429));
    assert_eq!(s.requests(), 1);
    assert!(took < Duration::from_millis(500), "{took:?}");

    // A 429 then success: the retry gets the page.
    let s = FaultServer::start(vec![
        Fault::json(429, fixture("error-rate-limited.json")).with("retry-after", "0"),
        Fault::json(200, fixture("team-list.json")),
    ])
    .await;
    let page = client(&s)
        .list_teams(&ListQuery::default())
        .await
        .expect("second try succeeds");
    assert_eq!(page.items.len(), 2);
    assert_eq!(s.requests(), 2);
}

#[tokio::test]
async fn malformed_bodies_are_decode_errors() {
    let list_text = fixture("team-list.json");
    let half = list_text[..list_text.len() / 2].to_string();
    let cases = [
        ("truncated json", Fault::json(200, half.clone())),
        (
            "html",
            Fault::Reply {
                status: 200,
                headers: vec![("content-type", "text/html".into())],
                body: html(),
            },
        ),
        ("10 MB", Fault::json(200, ten_mb())),
        ("empty", Fault::json(200, "")),
    ];
    for (name, fault) in cases {
        let s = FaultServer::start(vec![fault]).await;
        let (e, _) = list(&client(&s)).await;
        assert!(
            matches!(e, Error::Decode { status: 200, .. }),
            "{name}: {e:?}"
        );
        assert_eq!(e.exit_code(), 3, "{name}");
        let text = e.to_string();
        assert!(text.contains("unexpected response body"), "{name}: {text}");
        assert!(text.len() < 2_000, "{name}: message stays short");
        assert_eq!(s.requests(), 1, "{name}");
    }
    // The connection breaks mid-body: a network error, not a decode of half a page.
    let s = FaultServer::start(vec![Fault::Cut {
        body: half,
        len: list_text.len(),
    }])
    .await;
    let (e, _) = list(&client(&s)).await;
    assert_eq!(e.exit_code(), 4, "{e:?}");
}

#[tokio::test]
async fn error_statuses_with_odd_bodies_stay_readable() {
    for (status, body) in [(502u16, html()), (500, ten_mb()), (500, String::new())] {
        let s = FaultServer::start(vec![Fault::Reply {
            status,
            headers: vec![("content-type", "text/html".into())],
            body,
        }])
        .await;
        let (e, _) = list(&client(&s)).await;
        let api = e.api().expect("an API error even without an error body");
        assert_eq!(api.status, status);
        assert!(
            api.message.starts_with(&format!("HTTP {status}")),
            "{api:?}"
        );
        assert!(api.message.len() < 400, "the 10 MB body is not copied in");
    }
}

// ---- the real binary ----

/// Runs the binary with the key in the environment only (never in argv) and an isolated config.
fn run_bin(base_url: &str, timeout_s: f64, args: &[&str]) -> Output {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg: PathBuf = dir.path().join("config.toml");
    std::fs::write(
        &cfg,
        format!(
            "default_profile = \"t\"\n[profiles.t]\ntimeout = {timeout_s}\nconnect_timeout = 0.5\nretries = 1\n"
        ),
    )
    .expect("config");
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["--base-url", base_url])
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path())
        .env("SWITCHBOARD_CONFIG", &cfg)
        .env("SWITCHBOARD_API_KEY", KEY)
        .output()
        .expect("run switchboard");
    assert!(started.elapsed() < DEADLINE, "binary gave up in time");
    out
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_exit_codes_and_messages() {
    let rate = fixture("error-rate-limited.json");
    let unauthorized = fixture("error-unauthorized.json");
    let cases: Vec<(&str, Fault, i32, &str)> = vec![
        ("hang", Fault::Hang, 4, "timed out"),
        ("drop", Fault::Drop, 4, "network error"),
        ("500", Fault::json(500, "{}"), 3, "500"),
        ("401", Fault::json(401, unauthorized), 3, "401"),
        (
            "429",
            Fault::json(429, rate).with("retry-after", "3600"),
            3,
            "429",
        ),
        (
            "html",
            Fault::json(200, html()),
            3,
            "unexpected response body",
        ),
        (
            "10 MB",
            Fault::json(200, ten_mb()),
            3,
            "unexpected response body",
        ),
    ];
    // All cases at once: each runs its own server and process.
    let runs = cases
        .into_iter()
        .map(|(name, fault, code, needle)| async move {
            let s = FaultServer::start(vec![fault]).await;
            let url = s.url();
            let out = tokio::task::spawn_blocking(move || {
                run_bin(&url, 0.5, &["teams", "list", "-o", "json"])
            })
            .await
            .expect("join");
            (name, code, needle, out)
        });
    for (name, code, needle, out) in futures::future::join_all(runs).await {
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(code), "{name}: {err}");
        assert!(err.contains(needle), "{name}: {err}");
        assert!(err.lines().count() <= 12, "{name}: short message: {err}");
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout");
        assert_no_key(&err);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_network_error_on_a_closed_port() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let url = format!("http://127.0.0.1:{port}");
    let out = tokio::task::spawn_blocking(move || run_bin(&url, 0.5, &["teams", "list"]))
        .await
        .expect("join");
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("network error"), "{}", stderr(&out));
    assert_no_key(&stderr(&out));
}

// ---- the console ----

/// Loads the teams page, then reloads into each fault: rows stay, the error is on screen.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn console_keeps_its_data_when_a_reload_fails() {
    let faults = [
        Fault::json(500, fixture("error-bad-request.json").replace("400", "500")),
        Fault::Drop,
        Fault::json(200, html()),
        Fault::Hang,
    ];
    let page: serde_json::Value =
        serde_json::from_str(&fixture("team-list.json")).expect("team fixture");
    let team = page["items"][0]["name"]
        .as_str()
        .expect("team name")
        .to_string();
    for fault in faults {
        let name = format!("{fault:?}").chars().take(40).collect::<String>();
        let s = FaultServer::start(vec![Fault::json(200, fixture("team-list.json")), fault]).await;
        let c = Client::new(ClientOptions {
            max_retries: 0,
            ..options(&s.url())
        })
        .expect("client");
        let mut app = Harness::with_client("test", c, common::fixed_clock(), (120, 40));
        app.settle().await.expect("first page");
        let before = app.row_ids();
        assert_eq!(before.len(), 2, "{name}");
        let first_screen = app.screen();

        app.ch('r');
        // Keys are handled at once while the reload is in flight.
        let t = Instant::now();
        app.ch('j');
        assert!(t.elapsed() < Duration::from_millis(50));
        app.settle().await.expect("the reload ends");
        assert_eq!(app.row_ids(), before, "{name}: rows kept");
        let message = app
            .list_error()
            .unwrap_or_else(|| panic!("{name}: expected an error state"));
        let text = app.screen();
        let shown: String = message.chars().take(14).collect();
        assert!(
            text.contains(&shown),
            "{name}: error {shown:?} shown:\n{text}"
        );
        // The loaded rows are still drawn.
        assert!(first_screen.contains(&team), "{name}: {first_screen}");
        assert!(text.contains(&team), "{name}: rows still drawn:\n{text}");
        assert_no_key(&text);
    }
}
