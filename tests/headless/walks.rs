//! One bound for every walk (issue 36): against a server that never stops paging, `--all`,
//! `wait`, `destinations stats` and `forward`'s start and catch-up count stop at the walk budget
//! (200 pages, 20,000 items, 64 MiB; `--max-pages` raises it) with exit 3 and where to continue,
//! and `wait` keeps only what it waits on.
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const KEY: &str = "sk_test_endless_walks";

/// A notification as the endless server lists it: failed once, its request recorded with a body
/// of `pad` bytes, created in 2099 (inside any `--since` window).
fn item(id: &str, pad: usize) -> Value {
    let at = "2099-01-01T00:00:00.000Z";
    let body = json!({"type": "build.failed", "pad": "x".repeat(pad)}).to_string();
    json!({
        "object": "callback.notification", "id": id, "type": "webhook_http", "status": "failed",
        "url": "http://127.0.0.1:9/in", "created_at": at,
        "attempts": [{"id": format!("{id}_a"), "status": "failed", "index": 0, "created_at": at,
            "webhook_request": {"id": format!("{id}_r"), "url": "http://127.0.0.1:9/in",
                "request_method": "POST", "request_body": body, "request_headers": {},
                "response_status": 500, "duration": 1, "created_at": at}}],
    })
}

/// A server whose notification list never ends: every page is full (100 new ids, each `pad`
/// bytes of body) and says there is more. Also answers one destination and one notification by
/// id. Counts the list pages served.
fn endless(pad: usize) -> (String, Arc<AtomicUsize>) {
    let pages = Arc::new(AtomicUsize::new(0));
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = l.local_addr().expect("addr");
    let counter = pages.clone();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            let counter = counter.clone();
            std::thread::spawn(move || {
                let mut s = s;
                let mut r = BufReader::new(s.try_clone().expect("clone"));
                let mut first = String::new();
                let _ = r.read_line(&mut first);
                loop {
                    let mut l = String::new();
                    if r.read_line(&mut l).unwrap_or(0) == 0 || l == "\r\n" {
                        break;
                    }
                }
                let target = first.split_whitespace().nth(1).unwrap_or("/").to_string();
                let path = target.split('?').next().unwrap_or("/");
                let body = if path.ends_with("/callbacks-notifications") {
                    let n = counter.fetch_add(1, Ordering::SeqCst);
                    let items: Vec<Value> = (0..100)
                        .map(|i| item(&format!("cbn_{:09}{i:02}", 999_999_999 - n), pad))
                        .collect();
                    json!({"items": items,
                        "pagination": {"has_more_before": n > 0, "has_more_after": true}})
                } else if path.contains("/callbacks-notifications/") {
                    item(path.rsplit('/').next().unwrap_or("cbn_x"), pad)
                } else if path.contains("/callbacks-destinations/") {
                    let mut d: Value =
                        serde_json::from_str(&crate::common::fake::fixture("destination.json"))
                            .expect("fixture");
                    d["id"] = json!("cld_endless");
                    d
                } else {
                    json!({"object": "error", "status": 404, "code": "not_found",
                        "message": "no such thing", "entity": "endpoint"})
                };
                let body = body.to_string();
                let status = if body.contains("\"not_found\"") {
                    "404 Not Found"
                } else {
                    "200 OK"
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = s.write_all(head.as_bytes());
                let _ = s.write_all(body.as_bytes());
            });
        }
    });
    (format!("http://{addr}"), pages)
}

/// The binary against `url` with `args`, killed if it runs past `limit`: its exit code, stdout,
/// stderr and its peak resident memory (read from /proc while it runs), in KiB.
fn run(url: &str, home: &std::path::Path, args: &[&str], limit: Duration) -> Ran {
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("SWITCHBOARD_BASE_URL", url)
        .env("SWITCHBOARD_API_KEY", KEY)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn switchboard");
    let status_file = format!("/proc/{}/status", child.id());
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let o = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut out, &mut s);
        s
    });
    let e = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut s);
        s
    });
    let deadline = Instant::now() + limit;
    let mut peak_kib = 0u64;
    let code = loop {
        // The kernel's own high-water mark: polled only to read it before the process is gone.
        if let Ok(text) = std::fs::read_to_string(&status_file) {
            let hwm = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
            peak_kib = peak_kib.max(hwm.unwrap_or(0));
        }
        if let Ok(Some(status)) = child.try_wait() {
            break status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} kept going past {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Ran {
        code,
        stdout: o.join().expect("stdout"),
        stderr: e.join().expect("stderr"),
        peak_kib,
    }
}

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    peak_kib: u64,
}

const LIMIT: Duration = Duration::from_secs(120);

#[test]
fn list_all_stops_at_the_budget_and_max_pages_raises_it() {
    let (url, pages) = endless(10);
    let home = tempfile::tempdir().expect("home");
    let r = run(
        &url,
        home.path(),
        &["notifications", "list", "--all", "-o", "ndjson"],
        LIMIT,
    );
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert_eq!(pages.load(Ordering::SeqCst), 200);
    assert!(
        r.stderr.contains("stopped after 200 pages (20000 items)")
            && r.stderr.contains("--after cbn_"),
        "{}",
        r.stderr
    );
    assert_eq!(
        r.stdout.lines().count(),
        20_000,
        "each page printed as it came"
    );

    pages.store(0, Ordering::SeqCst);
    let r = run(
        &url,
        home.path(),
        &[
            "--max-pages",
            "5",
            "notifications",
            "list",
            "--all",
            "-o",
            "json",
        ],
        LIMIT,
    );
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert_eq!(pages.load(Ordering::SeqCst), 5);
    pages.store(0, Ordering::SeqCst);
    let r = run(
        &url,
        home.path(),
        &[
            "--max-pages",
            "250",
            "notifications",
            "list",
            "--all",
            "-o",
            "ndjson",
        ],
        LIMIT,
    );
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert_eq!(pages.load(Ordering::SeqCst), 250);
}

#[test]
fn the_bytes_bind_too_and_wait_keeps_only_what_it_waits_on() {
    // 100 items of ~40 KB a page: 64 MiB is about 17 pages.
    let (url, pages) = endless(40_000);
    let home = tempfile::tempdir().expect("home");
    let wait = [
        "notifications",
        "wait",
        "--since",
        "1h",
        "--for",
        "status=retrying",
        "--timeout",
        "100s",
        "-o",
        "json",
    ];
    let r = run(&url, home.path(), &wait, LIMIT);
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert!(r.stderr.contains("too_many_pages"), "{}", r.stderr);
    let read = pages.load(Ordering::SeqCst);
    assert!(
        (15..=20).contains(&read),
        "stopped by the 64 MiB: {read} pages"
    );

    // A budget of 500 pages lets it read about 168 MB, every item selected (and failed):
    // kept, they would be all of that.
    pages.store(0, Ordering::SeqCst);
    let r = run(
        &url,
        home.path(),
        &[&["--max-pages", "500"][..], &wait[..]].concat(),
        LIMIT,
    );
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    let read = pages.load(Ordering::SeqCst);
    assert!(read >= 35, "{read} pages of about 4 MB read");
    eprintln!(
        "wait read {read} pages of about 4 MB; peak {} KiB",
        r.peak_kib
    );
    assert!(
        r.peak_kib < 120 * 1024,
        "peak {} KiB after reading {read} pages of about 4 MB: wait keeps only what it waits on",
        r.peak_kib
    );
}

#[test]
fn destination_stats_stop_at_the_budget() {
    let (url, pages) = endless(10);
    let home = tempfile::tempdir().expect("home");
    let r = run(
        &url,
        home.path(),
        &["destinations", "stats", "cld_endless", "-o", "json"],
        LIMIT,
    );
    assert_eq!(r.code, Some(3), "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("too_many_pages"), "{}", r.stderr);
    assert_eq!(pages.load(Ordering::SeqCst), 200);
}

#[test]
fn forward_since_and_its_catch_up_count_stop_at_the_budget() {
    let (url, pages) = endless(10);
    let home = tempfile::tempdir().expect("home");
    // The start: newest first until one older than the time, which never comes.
    let r = run(
        &url,
        home.path(),
        &[
            "notifications",
            "forward",
            "--to",
            "http://127.0.0.1:9/in",
            "--since",
            "1h",
            "--unsigned",
        ],
        LIMIT,
    );
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert!(
        r.stderr.contains("stopped after 200 pages") && r.stderr.contains("--max-pages"),
        "{}",
        r.stderr
    );
    assert_eq!(pages.load(Ordering::SeqCst), 200);

    // From now: the catch-up's count is a bounded walk, then the first one is forwarded (to a
    // port where nothing listens: failed, to be tried again).
    pages.store(0, Ordering::SeqCst);
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("SWITCHBOARD_BASE_URL", &url)
        .env("SWITCHBOARD_API_KEY", KEY)
        .args(["notifications", "forward", "--to", "http://127.0.0.1:9/in"])
        .args(["--unsigned", "-o", "json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let v: Value = serde_json::from_str(&line).expect("an NDJSON line");
            if v["event"] == "failed" {
                let _ = tx.send((v, 0));
            }
        }
    });
    let got = rx.recv_timeout(LIMIT);
    let read = pages.load(Ordering::SeqCst);
    let _ = child.kill();
    let _ = child.wait();
    let (first, _) = got.expect("a first forward while the list goes on");
    assert!(first["retry_in_ms"].as_u64().is_some(), "{first}");
    assert!(
        read <= 203,
        "the count read {read} pages before the first forward"
    );
}
