//! The local service under the faults it promises to survive (api.md §6), each injected here: a
//! second service on the same file, a writer that fails mid-way (a trigger raising inside the
//! transaction), a store that refuses to record or to claim, a bad row, a big hook post, a
//! browser's Host and Content-Type, a database file deleted while serving, the real binary killed
//! (SIGKILL) in the middle of a fan-out.
use crate::common::service as support_service;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use serde_json::{Value, json};
use support_service::{TestService, eventually, http, start_with};
use switchboard::api::model::{CallbacksInput, CreateDestination, NotificationStatus};
use switchboard::api::{ListQuery, NotificationFilter};
use switchboard::service::{DbLocation, Seed, ServiceConfig};

/// A receiver on 127.0.0.1:0 that counts requests and answers `status`.
async fn receiver(status: u16) -> (String, Arc<AtomicUsize>) {
    let count = Arc::new(AtomicUsize::new(0));
    async fn receive(State((n, status)): State<(Arc<AtomicUsize>, u16)>) -> StatusCode {
        n.fetch_add(1, Ordering::SeqCst);
        StatusCode::from_u16(status).unwrap_or(StatusCode::OK)
    }
    let app = Router::new()
        .route("/in", post(receive))
        .with_state((count.clone(), status));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/in"), count)
}

fn file_config(dir: &Path) -> ServiceConfig {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    cfg.retry_base = Duration::from_millis(5);
    cfg.db = DbLocation::Path(dir.join("service.db"));
    cfg
}

fn db_path(t: &TestService) -> PathBuf {
    t.svc.db_path.clone().expect("file database")
}

/// A second connection on the service's file, to inject faults (triggers) and read rows.
fn sql(t: &TestService) -> rusqlite::Connection {
    let c = rusqlite::Connection::open(db_path(t)).expect("open db");
    c.busy_timeout(Duration::from_secs(5)).expect("busy");
    c
}

/// The manual callback's hook URL, after pointing a new destination of it at `url`; returns
/// (hook url, destination id).
async fn destination(t: &TestService, url: &str) -> (String, String) {
    let cb = support_service::manual_callback(&t.client).await;
    let d = t
        .client
        .create_destination(&CreateDestination {
            name: "Durability receiver".into(),
            description: None,
            url: url.into(),
            callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
        })
        .await
        .expect("destination");
    (cb.url.expect("hook url"), d.id)
}

async fn post_hook(hook: &str, body: &Value) -> (u16, Value) {
    let r = http()
        .post(hook)
        .json(body)
        .send()
        .await
        .unwrap_or_else(|e| panic!("hook {hook}: {e:?}"));
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// The notification of `event` for `dest`.
async fn notification_of(t: &TestService, event: &str, dest: &str) -> String {
    let f = NotificationFilter {
        event_ids: vec![event.into()],
        destination_ids: vec![dest.into()],
        ..Default::default()
    };
    let page = t
        .client
        .list_notifications(&ListQuery::default(), &f)
        .await
        .expect("notifications");
    page.items.first().expect("one notification").id.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_service_on_the_same_database_is_refused_naming_the_holder() {
    let dir = tempfile::tempdir().expect("dir");
    let first = start_with(file_config(dir.path())).await;
    let err = switchboard::service::start(file_config(dir.path()))
        .await
        .expect_err("second start refused")
        .to_string();
    assert!(
        err.contains(&format!("pid {}", std::process::id())),
        "{err}"
    );
    assert!(err.contains(&first.svc.base_url), "{err}");
    // Another process too, through the binary with the default options otherwise.
    let db = db_path(&first);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(&db)
        .output()
        .expect("run the binary");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains(&first.svc.base_url), "{stderr}");
    first.svc.shutdown().await;
    // Released at shutdown: the file can be served again.
    let again = start_with(file_config(dir.path())).await;
    again.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_is_fanned_out_to_all_its_destinations_or_to_none() {
    let dir = tempfile::tempdir().expect("dir");
    let t = start_with(file_config(dir.path())).await;
    let (url, _) = receiver(200).await;
    let (hook, _) = destination(&t, &url).await;
    let (_, second) = destination(&t, &url).await;
    let total = |c: &rusqlite::Connection| -> i64 {
        c.query_row("SELECT COUNT(*) FROM notifications", [], |r| r.get(0))
            .expect("count")
    };
    let c = sql(&t);
    let before = total(&c);
    // The writer fails at the second destination's notification.
    c.execute_batch(&format!(
        "CREATE TRIGGER inject_fault BEFORE INSERT ON notifications
         WHEN new.destination_id = '{second}'
         BEGIN SELECT RAISE(ABORT, 'injected fault'); END;"
    ))
    .expect("trigger");
    let (status, _) = post_hook(&hook, &json!({"type": "x.y"})).await;
    assert_eq!(status, 500);
    assert_eq!(total(&c), before, "nothing of the event was written");
    let events: i64 = c
        .query_row("SELECT COUNT(*) FROM events", [], |r| r.get(0))
        .expect("events");
    assert_eq!(events, 0);
    c.execute_batch("DROP TRIGGER inject_fault").expect("drop");
    let (status, body) = post_hook(&hook, &json!({"type": "x.y"})).await;
    assert_eq!(status, 200);
    assert!(body["notification_ids"].as_array().expect("ids").len() >= 2);
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rename_that_fails_leaves_every_member_naming_the_old_name() {
    let dir = tempfile::tempdir().expect("dir");
    let t = start_with(file_config(dir.path())).await;
    let teams = t
        .client
        .list_teams(&ListQuery::default())
        .await
        .expect("teams");
    let team = teams.items.first().expect("a team").clone();
    let c = sql(&t);
    // The members are rewritten first; the team's own write fails.
    c.execute_batch(
        "CREATE TRIGGER inject_fault BEFORE UPDATE ON records WHEN new.kind = 'team'
         BEGIN SELECT RAISE(ABORT, 'injected fault'); END;",
    )
    .expect("trigger");
    let r = t
        .raw(
            reqwest::Method::POST,
            &format!("/organization/teams/{}", team.id),
            Some(r#"{"name":"Renamed Under Fault"}"#),
            None,
        )
        .await;
    assert_eq!(r.status, 500);
    let renamed: i64 = c
        .query_row(
            "SELECT COUNT(*) FROM records WHERE kind = 'member' AND data LIKE '%Renamed Under Fault%'",
            [],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(renamed, 0, "no member names the new name");
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attempt_that_cannot_be_recorded_is_not_sent_again() {
    let dir = tempfile::tempdir().expect("dir");
    let t = start_with(file_config(dir.path())).await;
    let (url, count) = receiver(200).await;
    let (hook, dest) = destination(&t, &url).await;
    let c = sql(&t);
    // The claim (a due-time change) is written; recording the attempt (its JSON) is not.
    c.execute_batch(
        "CREATE TRIGGER inject_fault BEFORE UPDATE OF data ON notifications
         BEGIN SELECT RAISE(ABORT, 'injected: disk full'); END;",
    )
    .expect("trigger");
    let (_, body) = post_hook(&hook, &json!({"type": "x.y"})).await;
    let event = body["event_id"].as_str().expect("event").to_string();
    let id = notification_of(&t, &event, &dest).await;
    eventually(Duration::from_secs(10), || async {
        (count.load(Ordering::SeqCst) >= 1).then_some(())
    })
    .await;
    // The storm this guards against resent within milliseconds; a second is plenty to see one.
    let quiet = tokio::time::timeout(
        Duration::from_secs(1),
        eventually(Duration::from_secs(2), || async {
            (count.load(Ordering::SeqCst) > 1).then_some(())
        }),
    )
    .await;
    assert!(
        quiet.is_err(),
        "sent again: {}",
        count.load(Ordering::SeqCst)
    );
    c.execute_batch("DROP TRIGGER inject_fault").expect("drop");
    let n = eventually(Duration::from_secs(10), || async {
        let n = t.client.get_notification(&id).await.ok()?;
        (n.status == NotificationStatus::Succeeded).then_some(n)
    })
    .await;
    assert_eq!(n.attempts.len(), 1);
    assert_eq!(count.load(Ordering::SeqCst), 1, "sent once");
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_that_cannot_be_written_sends_nothing() {
    let dir = tempfile::tempdir().expect("dir");
    let t = start_with(file_config(dir.path())).await;
    let (url, count) = receiver(200).await;
    let (hook, dest) = destination(&t, &url).await;
    let c = sql(&t);
    c.execute_batch(
        "CREATE TRIGGER inject_fault BEFORE UPDATE ON notifications
         BEGIN SELECT RAISE(ABORT, 'injected: disk full'); END;",
    )
    .expect("trigger");
    let (_, body) = post_hook(&hook, &json!({"type": "x.y"})).await;
    let event = body["event_id"].as_str().expect("event").to_string();
    let id = notification_of(&t, &event, &dest).await;
    let sent = tokio::time::timeout(
        Duration::from_secs(1),
        eventually(Duration::from_secs(2), || async {
            (count.load(Ordering::SeqCst) > 0).then_some(())
        }),
    )
    .await;
    assert!(sent.is_err(), "sent without a claim");
    c.execute_batch("DROP TRIGGER inject_fault").expect("drop");
    // The worker pauses after a failed claim and then carries on.
    eventually(Duration::from_secs(15), || async {
        let n = t.client.get_notification(&id).await.ok()?;
        (n.status == NotificationStatus::Succeeded).then_some(())
    })
    .await;
    assert_eq!(count.load(Ordering::SeqCst), 1);
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_row_fails_only_itself() {
    let dir = tempfile::tempdir().expect("dir");
    let t = start_with(file_config(dir.path())).await;
    let (url, count) = receiver(200).await;
    let (hook, dest) = destination(&t, &url).await;
    let c = sql(&t);
    // A due notification whose JSON does not decode, and a team of the wrong shape.
    c.execute(
        "INSERT INTO notifications
         (id, event_id, callback_id, destination_id, status, next_attempt_at, body, data)
         VALUES ('cbn_000000000badrowbadrowba', 'cbe_x', 'clb_x', ?1, 'pending', 0, '{}', '{oops')",
        [&dest],
    )
    .expect("bad notification");
    c.execute(
        "INSERT INTO records (kind, id, data) VALUES ('team', 'tm_000000000badteambadteam', '{\"id\":1}')",
        [],
    )
    .expect("bad team");
    // A good event wakes the worker; it is delivered, the bad row is marked failed.
    let (status, _) = post_hook(&hook, &json!({"type": "x.y"})).await;
    assert_eq!(status, 200);
    eventually(Duration::from_secs(10), || async {
        let status: String = sql(&t)
            .query_row(
                "SELECT status FROM notifications WHERE id = 'cbn_000000000badrowbadrowba'
                 AND next_attempt_at IS NULL",
                [],
                |r| r.get(0),
            )
            .ok()?;
        (status == "failed").then_some(())
    })
    .await;
    eventually(Duration::from_secs(10), || async {
        (count.load(Ordering::SeqCst) == 1).then_some(())
    })
    .await;
    // The notifications list still answers, without the bad row.
    let page = t.get("/callbacks-notifications?limit=100").await;
    assert_eq!(page.status, 200);
    assert!(page.body["items"].as_array().is_some_and(|i| !i.is_empty()));
    assert!(!page.body.to_string().contains("badrow"));
    // The teams list still answers, without the bad team; the team itself is a 500.
    let teams = t.get("/organization/teams?limit=100").await;
    assert_eq!(teams.status, 200, "{}", teams.body);
    assert!(!teams.body.to_string().contains("badteam"));
    let one = t
        .get("/organization/teams/tm_000000000badteambadteam")
        .await;
    assert_eq!(one.status, 500);
    t.svc.shutdown().await;
    // And a restart over the bad rows works.
    let again = start_with(file_config(dir.path())).await;
    assert_eq!(again.get("/organization/teams").await.status, 200);
    again.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_big_hook_post_stores_its_body_once_and_pages_stay_small() {
    let dir = tempfile::tempdir().expect("dir");
    let mut cfg = file_config(dir.path());
    cfg.rate_limit = Some((40, Duration::from_secs(60)));
    let t = start_with(cfg).await;
    let (ok_url, _) = receiver(200).await;
    let (bad_url, bad) = receiver(503).await;
    let (hook, _) = destination(&t, &ok_url).await;
    for _ in 0..3 {
        destination(&t, &bad_url).await;
    }
    let c = sql(&t);
    // The file after a checkpoint: the WAL's frames are copies of pages on their way into it.
    let size = |p: &Path| -> u64 {
        c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .expect("checkpoint");
        std::fs::metadata(p).map_or(0, |m| m.len())
    };
    let db = db_path(&t);
    // 0.46 MiB of JSON, quoted characters included.
    let text: String = "ab\"c\\d".repeat(60_000);
    let payload = json!({"type": "big.event", "text": text});
    let payload_len = payload.to_string().len() as u64;
    let before = size(&db);
    let (status, body) = post_hook(&hook, &payload).await;
    assert_eq!(status, 200);
    let fanned = body["notification_ids"].as_array().expect("ids").len();
    assert!(fanned >= 4, "{body}");
    // Three failing destinations, several attempts each.
    eventually(Duration::from_secs(20), || async {
        (bad.load(Ordering::SeqCst) >= 12).then_some(())
    })
    .await;
    let grown = size(&db).saturating_sub(before);
    let bound = 2 * payload_len + 20 * 1024 * fanned as u64;
    eprintln!("payload {payload_len} B, database grew {grown} B (bound {bound} B)");
    assert!(
        grown <= bound,
        "grew {grown} bytes for a {payload_len}-byte post"
    );
    let page = http()
        .get(format!(
            "{}/callbacks-notifications?limit=20&order=desc",
            t.svc.base_url
        ))
        .bearer_auth(t.svc.api_key.expose())
        .send()
        .await
        .expect("page")
        .bytes()
        .await
        .expect("bytes");
    eprintln!("a page of 20 notifications: {} B", page.len());
    assert!(page.len() < 256 * 1024, "{} bytes", page.len());
    // Pages carry each attempt's body capped with a marker; one notification carries it whole.
    let page: Value = serde_json::from_slice(&page).expect("page json");
    let capped = page["items"]
        .as_array()
        .expect("items")
        .iter()
        .find_map(|n| n["attempts"][0]["webhook_request"]["request_body"].as_str())
        .expect("a recorded body");
    assert!(
        capped.len() < 4096 && capped.contains("bytes not recorded]"),
        "{capped}"
    );
    let id = body["notification_ids"][0].as_str().expect("id");
    let whole = eventually(Duration::from_secs(10), || async {
        let n = t.client.get_notification(id).await.ok()?;
        n.attempts
            .first()?
            .webhook_request
            .as_ref()?
            .request_body
            .clone()
    })
    .await;
    let sent: Value = serde_json::from_str(&whole).expect("the whole body");
    assert_eq!(sent["payload"], payload);
    // Above the intake cap: 413 with the error body.
    let huge = json!({"text": "x".repeat(1024 * 1024 + 1)});
    let (status, err) = post_hook(&hook, &huge).await;
    assert_eq!(status, 413, "{err}");
    assert_eq!(err["code"], "payload_too_large");
    // Hooks count against --rate-limit per key.
    let mut limited = false;
    for _ in 0..45 {
        let (status, _) = post_hook(&hook, &json!({"n": 1})).await;
        if status == 429 {
            limited = true;
            break;
        }
    }
    assert!(limited, "hooks were never rate-limited");
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browsers_cannot_reach_it_by_another_name_or_without_json() {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    cfg.allowed_hosts = vec!["switchboard.test".into()];
    let t = start_with(cfg).await;
    let port = t.svc.base_url.rsplit(':').next().expect("port").to_string();
    let send = |host: String, ctype: Option<&'static str>, body: Option<&'static str>| {
        let mut rb = http()
            .post(format!("{}/organization/teams", t.svc.base_url))
            .bearer_auth(t.svc.api_key.expose())
            .header("host", host);
        if let Some(ct) = ctype {
            rb = rb.header("content-type", ct);
        }
        if let Some(b) = body {
            rb = rb.body(b);
        }
        async move {
            let r = rb.send().await.expect("request");
            let status = r.status().as_u16();
            (status, r.json::<Value>().await.unwrap_or(Value::Null))
        }
    };
    let body = Some(r#"{"name":"Browser"}"#);
    let json_type = Some("application/json");
    let (s, e) = send(format!("evil.example:{port}"), json_type, body).await;
    assert_eq!(s, 421, "{e}");
    assert_eq!(e["code"], "misdirected_request");
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        "switchboard.test".to_string(),
    ] {
        let (s, e) = send(host.clone(), json_type, body).await;
        assert_eq!(s, 200, "{host}: {e}");
    }
    let (s, e) = send(format!("127.0.0.1:{port}"), None, body).await;
    assert_eq!(s, 415, "{e}");
    assert_eq!(e["code"], "unsupported_media_type");
    let (s, _) = send(format!("127.0.0.1:{port}"), Some("text/plain"), body).await;
    assert_eq!(s, 415);
    let (s, _) = send(
        format!("127.0.0.1:{port}"),
        Some("application/json; charset=utf-8"),
        body,
    )
    .await;
    assert_eq!(s, 200);
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_deleted_while_serving_stops_the_service_and_refuses_writes() {
    let dir = tempfile::tempdir().expect("dir");
    let t = start_with(file_config(dir.path())).await;
    std::fs::remove_file(db_path(&t)).expect("delete the database");
    let r = t
        .raw(
            reqwest::Method::POST,
            "/organization/teams",
            Some(r#"{"name":"Lost"}"#),
            None,
        )
        .await;
    assert_eq!(
        r.status, 500,
        "a write into a deleted file is not acknowledged"
    );
    let why = tokio::time::timeout(Duration::from_secs(10), t.svc.failed())
        .await
        .expect("the service stops on its own");
    assert!(why.contains("deleted or replaced"), "{why}");
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_due_time_beyond_the_longest_backoff_is_due_now() {
    let dir = tempfile::tempdir().expect("dir");
    let t = start_with(file_config(dir.path())).await;
    let (url, count) = receiver(200).await;
    let (hook, dest) = destination(&t, &url).await;
    let c = sql(&t);
    // Stamped by a clock that has since stepped back ten hours.
    c.execute_batch(
        "CREATE TRIGGER clock_step AFTER INSERT ON notifications
         BEGIN UPDATE notifications SET next_attempt_at = next_attempt_at + 36000000
               WHERE id = new.id; END;",
    )
    .expect("trigger");
    let (_, body) = post_hook(&hook, &json!({"type": "x.y"})).await;
    c.execute_batch("DROP TRIGGER clock_step").expect("drop");
    let event = body["event_id"].as_str().expect("event").to_string();
    let id = notification_of(&t, &event, &dest).await;
    eventually(Duration::from_secs(10), || async {
        let n = t.client.get_notification(&id).await.ok()?;
        (n.status == NotificationStatus::Succeeded).then_some(())
    })
    .await;
    assert!(count.load(Ordering::SeqCst) >= 1);
    t.svc.shutdown().await;
}

/// Deliveries as a receiver saw them: (the destination's path, `Metorial-Event-Id`).
type Seen = Arc<std::sync::Mutex<Vec<(String, String)>>>;

/// A receiver on 127.0.0.1:0 answering 200 on `/d/{n}` and noting each delivery.
async fn noting_receiver() -> (String, Seen) {
    use axum::extract::Path as UrlPath;
    use axum::http::HeaderMap;
    let seen: Seen = Arc::default();
    async fn receive(
        State(seen): State<Seen>,
        UrlPath(n): UrlPath<String>,
        headers: HeaderMap,
    ) -> StatusCode {
        let event = headers
            .get("metorial-event-id")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        seen.lock().expect("seen").push((n, event));
        StatusCode::OK
    }
    let app = Router::new()
        .route("/d/{n}", post(receive))
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/d"), seen)
}

/// Destinations on the kill test's callback.
const FAN_OUT: usize = 160;
/// Bytes the kill test's writer writes beside each notification (see the test).
const BALLAST: usize = 256 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_killed_mid_fan_out_delivers_the_event_to_all_or_none_and_never_twice() {
    use support_service::ServeChild;
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("service.db");
    let db_arg = db.to_str().expect("utf-8 path").to_string();
    let key = "sk_test_kill_mid_fan_out_0123456789";
    let args = [
        "--db",
        db_arg.as_str(),
        "--seed",
        "demo",
        "--retry-base-ms",
        "5",
    ];
    let (recv, seen) = noting_receiver().await;
    // First run: one callback with FAN_OUT destinations, each its own path at the receiver.
    let mut serve = ServeChild::start(&args, key);
    let client = support_service::client_for(&serve.base_url, &switchboard::api::Secret::new(key));
    let cb = support_service::manual_callback(&client).await;
    let hook = cb.url.clone().expect("hook url");
    for i in 0..FAN_OUT {
        client
            .create_destination(&CreateDestination {
                name: format!("Fan-out {i}"),
                description: None,
                url: format!("{recv}/{i}"),
                callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
            })
            .await
            .expect("destination");
    }
    serve.terminate();
    let c = rusqlite::Connection::open(&db).expect("open db");
    c.busy_timeout(Duration::from_secs(5)).expect("busy");
    // With the service stopped: the demo's own deliveries are put out of the way (so the only
    // write of the next run is the fan-out), and each notification the writer inserts also
    // writes BALLAST bytes (and spends a few milliseconds). The transaction then outgrows
    // SQLite's page cache, which spills into the WAL before the commit: the WAL's size shows
    // how far the fan-out has gone from outside, committed or not.
    c.execute_batch(&format!(
        "UPDATE notifications SET next_attempt_at = NULL WHERE next_attempt_at IS NOT NULL;
         CREATE TABLE ballast (b BLOB);
         CREATE TRIGGER ballast AFTER INSERT ON notifications
         BEGIN INSERT INTO ballast VALUES (zeroblob({BALLAST}));
               SELECT length(hex(zeroblob(1000000))); END;"
    ))
    .expect("prepare the database");
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .expect("checkpoint");
    let count = |c: &rusqlite::Connection, sql: &str| -> i64 {
        c.query_row(sql, [], |r| r.get(0)).expect("count")
    };
    let before = count(&c, "SELECT COUNT(*) FROM notifications");
    let wal = dir.path().join("service.db-wal");
    let wal_size = || std::fs::metadata(&wal).map_or(0, |m| m.len());
    // Half the fan-out's ballast, less a generous allowance for what the cache holds back.
    let halfway = (FAN_OUT / 2 * BALLAST) as u64 - 4 * 1024 * 1024;
    let mut serve = ServeChild::start(&args, key);
    let hook_url = hook.replace(hook.split("/hooks/").next().expect("base"), &serve.base_url);
    let post = {
        let hook_url = hook_url.clone();
        tokio::spawn(async move {
            http()
                .post(&hook_url)
                .json(&json!({"type": "kill.test", "n": 1}))
                .send()
                .await
                .map(|r| r.status().as_u16())
        })
    };
    // Killed once the fan-out is about half way (seen in the WAL, or in committed rows were it
    // not one transaction) and its answer has not come.
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    let half_committed = before + i64::try_from(FAN_OUT / 2).expect("count");
    while wal_size() < halfway && count(&c, "SELECT COUNT(*) FROM notifications") < half_committed {
        assert!(
            !post.is_finished(),
            "the hook was answered before its fan-out was half way ({} bytes of WAL)",
            wal_size()
        );
        assert!(std::time::Instant::now() < deadline, "no fan-out seen");
        tokio::task::yield_now().await;
    }
    serve.kill();
    let answer = post.await.expect("task");
    assert!(answer.is_err(), "the killed hook was answered: {answer:?}");
    let after = count(&c, "SELECT COUNT(*) FROM notifications") - before;
    let events = count(&c, "SELECT COUNT(*) FROM events WHERE type = 'kill.test'");
    eprintln!("after the kill: {after} notifications, {events} events");
    c.execute_batch("DROP TRIGGER ballast; DROP TABLE ballast;")
        .expect("drop");
    // Restarted on the same file; the sender, seeing no answer, posts again.
    let serve = ServeChild::start(&args, key);
    let hook_url = hook.replace(hook.split("/hooks/").next().expect("base"), &serve.base_url);
    let (status, body) = post_hook(&hook_url, &json!({"type": "kill.test", "n": 1})).await;
    assert_eq!(status, 200, "{body}");
    // The demo's destinations selecting every callback get it too.
    let fanned = body["notification_ids"].as_array().expect("ids").len();
    assert!(fanned >= FAN_OUT, "{fanned}");
    assert!(
        (after == 0 && events == 0) || (after == fanned as i64 && events == 1),
        "half fanned out: {after} of {fanned} notifications, {events} events"
    );
    // Every event of the test, to every destination at the receiver, succeeded.
    let expected = FAN_OUT * usize::try_from(events + 1).expect("count");
    eventually(Duration::from_secs(120), || async {
        let done: i64 = c
            .query_row(
                "SELECT COUNT(*) FROM notifications n
                 JOIN events e ON e.id = n.event_id
                 JOIN records r ON r.kind = 'destination' AND r.id = n.destination_id
                 WHERE e.type = 'kill.test' AND n.status = 'succeeded'
                     AND instr(r.data, ?1) > 0",
                [&recv],
                |r| r.get(0),
            )
            .expect("count");
        (done == expected as i64).then_some(())
    })
    .await;
    let seen = seen.lock().expect("seen").clone();
    let mut per: std::collections::HashMap<(String, String), usize> = Default::default();
    for k in seen {
        *per.entry(k).or_default() += 1;
    }
    assert_eq!(per.len(), expected, "every destination got every event");
    let twice: Vec<_> = per.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "delivered twice: {twice:?}");
    drop(serve);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_creates_of_one_name_get_one_slug_each_and_the_index_has_the_last_word() {
    let dir = tempfile::tempdir().expect("dir");
    let t = start_with(file_config(dir.path())).await;
    let create = |name: &'static str| {
        let client = t.client.clone();
        tokio::spawn(async move {
            client
                .create_team(&switchboard::api::model::CreateTeam {
                    name: name.into(),
                    description: None,
                })
                .await
        })
    };
    let tasks: Vec<_> = (0..8).map(|_| create("Same Name")).collect();
    let mut slugs = Vec::new();
    for task in tasks {
        slugs.push(task.await.expect("task").expect("create").slug);
    }
    slugs.sort();
    assert_eq!(
        slugs.iter().filter(|s| *s == "same-name").count(),
        1,
        "exactly one wins the slug: {slugs:?}"
    );
    let distinct: std::collections::BTreeSet<_> = slugs.iter().collect();
    assert_eq!(distinct.len(), slugs.len(), "{slugs:?}");
    // A writer the slug probe does not see (a trigger taking the slug inside the same write):
    // the unique index refuses it, and the answer is the API's 400, not a 500.
    let c = sql(&t);
    c.execute_batch(
        "CREATE TRIGGER inject_fault AFTER INSERT ON records
         WHEN new.kind = 'team' AND json_extract(new.data, '$.name') = 'Collide'
         BEGIN INSERT INTO records (kind, id, data)
               VALUES ('team', 'tm_0mzzzzzzmInjectedCollision', json_object('slug', 'collide'));
         END;",
    )
    .expect("trigger");
    let r = t
        .raw(
            reqwest::Method::POST,
            "/organization/teams",
            Some(r#"{"name":"Collide"}"#),
            None,
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.body["code"], "bad_request");
    assert!(
        r.body["message"]
            .as_str()
            .is_some_and(|m| m.contains("collide")),
        "{}",
        r.body
    );
    let teams: i64 = c
        .query_row(
            "SELECT COUNT(*) FROM records WHERE kind = 'team' AND data LIKE '%ollide%'",
            [],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(teams, 0, "nothing of the refused create was written");
    c.execute_batch("DROP TRIGGER inject_fault").expect("drop");
    // A rename onto a slug the probe cannot see is refused the same way.
    let team = t
        .client
        .create_team(&switchboard::api::model::CreateTeam {
            name: "Renamed Later".into(),
            description: None,
        })
        .await
        .expect("team");
    c.execute_batch(
        "CREATE TRIGGER inject_fault AFTER UPDATE ON records
         WHEN new.kind = 'team' AND json_extract(new.data, '$.name') = 'Collide'
         BEGIN INSERT INTO records (kind, id, data)
               VALUES ('team', 'tm_0mzzzzzzmInjectedCollision', json_object('slug', 'collide'));
         END;",
    )
    .expect("trigger");
    let r = t
        .raw(
            reqwest::Method::POST,
            &format!("/organization/teams/{}", team.id),
            Some(r#"{"name":"Collide"}"#),
            None,
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.body);
    let kept = t.client.get_team(&team.id).await.expect("team");
    assert_eq!(kept.slug, "renamed-later");
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_that_will_not_decode_is_failed_once_and_logged_once() {
    use support_service::ServeChild;
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("service.db");
    let log = dir.path().join("serve.log");
    let db_arg = db.to_str().expect("utf-8 path").to_string();
    let args = [
        "--db",
        db_arg.as_str(),
        "--seed",
        "demo",
        "--retry-base-ms",
        "5",
    ];
    let key = "sk_test_bad_row_logged_once_0123456789";
    let mut serve = ServeChild::start_logged(&args, key, Some(&log));
    let client = support_service::client_for(&serve.base_url, &switchboard::api::Secret::new(key));
    let (url, count) = receiver(200).await;
    let cb = support_service::manual_callback(&client).await;
    let hook = cb.url.clone().expect("hook url");
    let dest = client
        .create_destination(&CreateDestination {
            name: "Logged once".into(),
            description: None,
            url,
            callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
        })
        .await
        .expect("destination")
        .id;
    let c = rusqlite::Connection::open(&db).expect("open db");
    c.busy_timeout(Duration::from_secs(5)).expect("busy");
    let bad = "cbn_000000000badrowloggedonce";
    c.execute(
        "INSERT INTO notifications
         (id, event_id, callback_id, destination_id, status, next_attempt_at, body, data)
         VALUES (?1, 'cbe_x', 'clb_x', ?2, 'pending', 0, '{}', '{oops')",
        [bad, dest.as_str()],
    )
    .expect("bad notification");
    // Events wake the worker, which plans again after each: the bad row is met once.
    for n in 1..=4 {
        let (status, _) = post_hook(&hook, &json!({"type": "x.y", "n": n})).await;
        assert_eq!(status, 200);
        eventually(Duration::from_secs(20), || async {
            (count.load(Ordering::SeqCst) >= n).then_some(())
        })
        .await;
    }
    let status: String = c
        .query_row(
            "SELECT status FROM notifications WHERE id = ?1 AND next_attempt_at IS NULL",
            [bad],
            |r| r.get(0),
        )
        .expect("the bad row is off the schedule");
    assert_eq!(status, "failed");
    serve.terminate();
    let text = std::fs::read_to_string(&log).expect("log");
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(bad)).collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(
        lines[0].contains("notification"),
        "named by kind: {}",
        lines[0]
    );
}
