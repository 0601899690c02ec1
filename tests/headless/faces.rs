//! The machine faces under faults (issue 36): `--jq` within bounds and blind to the
//! environment, a reader that closes the pipe, usage errors before any request.
use crate::common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::fake::{FakeServer, KEY, Reply};
use serde_json::Value;

/// What a run left behind.
#[derive(Debug)]
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// The binary pointed at `s` with the usual key, in a clean environment and a private home.
fn sb(s: &FakeServer, home: &tempfile::TempDir) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("SWITCHBOARD_BASE_URL", &s.base_url)
        .env("SWITCHBOARD_API_KEY", KEY)
        .stdin(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

fn run(mut cmd: Command, args: &[&str], stdout: Stdio) -> Out {
    let out = cmd
        .args(args)
        .stdout(stdout)
        .output()
        .expect("run switchboard");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn error_of(out: &Out) -> Value {
    let line = out.stderr.lines().last().unwrap_or_default();
    serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {out:?}"))["error"].clone()
}

/// A pipe whose reader is gone, as after `| head` read what it wanted.
fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    Stdio::from(writer)
}

fn dev_null() -> Stdio {
    Stdio::from(
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/null")
            .expect("/dev/null"),
    )
}

#[test]
fn a_closed_pipe_ends_quietly_with_exit_0() {
    let s = FakeServer::start();
    let home = tempfile::tempdir().expect("home");
    for args in [
        &["teams", "list"][..],
        &["-o", "table", "teams", "list"],
        &["-o", "ndjson", "teams", "list", "--all"],
        &["--jq", ".items[].id", "teams", "list"],
        &["info", "-o", "json"],
        &["-o", "json", "profile", "list"],
        &["completion", "bash"],
    ] {
        let out = run(sb(&s, &home), args, closed_pipe());
        assert_eq!(
            (out.code, out.stderr.as_str()),
            (0, ""),
            "closed pipe, {args:?}"
        );
    }
    // An endless filter ends at the reader's close: its results are written as they come.
    let started = Instant::now();
    let out = run(
        sb(&s, &home),
        &["--jq", "range(1e12)", "teams", "list"],
        closed_pipe(),
    );
    assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{out:?}");
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn jq_is_bounded_in_time_memory_and_depth_with_a_clear_error() {
    let s = FakeServer::start();
    let home = tempfile::tempdir().expect("home");
    for (expr, said) in [
        // A result kept whole (an array of 10^12 numbers) and a recursion without end: both
        // stopped by the memory bound, before the allocator or the stack would abort.
        ("[range(1e12)] | length", "memory"),
        ("def f: [f]; f", "memory"),
        ("def f: 1 + f; f", "memory"),
    ] {
        let out = run(sb(&s, &home), &["--jq", expr, "teams", "list"], dev_null());
        assert_eq!(out.code, 2, "{expr}: {out:?}");
        let e = error_of(&out);
        assert_eq!(e["code"], "usage", "{expr}: {out:?}");
        let m = e["message"].as_str().unwrap_or_default();
        assert!(m.starts_with("--jq: ") && m.contains(said), "{expr}: {m}");
    }
    // Endless output to a reader that keeps up: stopped by the time bound.
    let mut cmd = sb(&s, &home);
    cmd.env("SWITCHBOARD_JQ_TIME_MS", "1500");
    let out = run(cmd, &["--jq", "range(1e12)", "teams", "list"], dev_null());
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        error_of(&out)["message"]
            .as_str()
            .is_some_and(|m| m.contains("stopped after")),
        "{out:?}"
    );
}

#[test]
fn jq_sees_no_environment() {
    let s = FakeServer::start();
    let home = tempfile::tempdir().expect("home");
    let out = run(
        sb(&s, &home),
        &[
            "--jq",
            "env, $ENV, env.SWITCHBOARD_API_KEY, $ENV.HOME",
            "teams",
            "list",
        ],
        Stdio::piped(),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "{}\n{}\nnull\nnull\n");
    assert!(!out.stdout.contains(KEY) && !out.stderr.contains(KEY));
    // `stderr` and `debug` pass their input on and print nothing of it.
    let out = run(
        sb(&s, &home),
        &["--jq", "\"marker\" | stderr | debug", "teams", "list"],
        Stdio::piped(),
    );
    assert_eq!((out.code, out.stdout.as_str()), (0, "marker\n"), "{out:?}");
    assert!(!out.stderr.contains("marker"), "{out:?}");
}

#[test]
fn a_jq_error_names_the_kind_never_the_data() {
    let s = FakeServer::start();
    let home = tempfile::tempdir().expect("home");
    let secret = "x".repeat(30 * 1024);
    let page = serde_json::json!({
        "object": "list",
        "items": [{"object": "organization.team", "id": "tm_1", "name": "A", "note": secret}],
        "pagination": {"has_more_before": false, "has_more_after": false}
    });
    s.push(Reply::text(200, page.to_string()));
    let out = run(
        sb(&s, &home),
        &["--jq", ".items.name", "teams", "list"],
        Stdio::piped(),
    );
    assert_eq!(out.code, 2, "{out:?}");
    let m = error_of(&out)["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(m.len() < 200, "{} bytes: {m:.300}", m.len());
    assert!(!m.contains("xxxx"), "{m:.300}");
    assert!(m.contains("cannot index an array"), "{m}");
}

#[test]
fn a_dot_dot_id_is_refused_before_any_request() {
    let s = FakeServer::start();
    let home = tempfile::tempdir().expect("home");
    for args in [
        &["teams", "get", ".."][..],
        &["notifications", "get", ".."],
        &["destinations", "update", ".", "--name", "x"],
        &[
            "notifications",
            "diff",
            "cbn_1",
            "--attempt",
            "0",
            "--with-attempt",
            "1",
        ],
        &["notifications", "diff", "cbn_1", "--with-replay", "0"],
    ] {
        let out = run(sb(&s, &home), args, Stdio::piped());
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
    }
    assert!(s.requests().is_empty(), "{:#?}", s.requests());
    assert!(
        s.introspections().is_empty(),
        "the versions were asked for a usage error"
    );
}

/// A loopback TCP proxy on a fixed port in front of a service: stopping it refuses and cuts
/// every connection, as a service restarting does; starting it again takes the same port.
struct Restarting {
    port: u16,
    to: std::net::SocketAddr,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Restarting {
    async fn start(to: &str) -> Self {
        let to = to
            .trim_start_matches("http://")
            .parse()
            .expect("service address");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let mut p = Self {
            port,
            to,
            task: None,
        };
        p.serve(listener);
        p
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn serve(&mut self, listener: tokio::net::TcpListener) {
        let to = self.to;
        self.task = Some(tokio::spawn(async move {
            let mut conns = tokio::task::JoinSet::new();
            while let Ok((mut inbound, _)) = listener.accept().await {
                conns.spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(to).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
            }
        }));
    }

    /// Down: the listener closed and every open connection cut.
    async fn stop(&mut self) {
        if let Some(t) = self.task.take() {
            t.abort();
            let _ = t.await;
        }
    }

    /// Up again on the same port.
    async fn restart(&mut self) {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", self.port))
            .await
            .expect("the same port again");
        self.serve(listener);
    }
}

/// A destination receiving a manual callback on the demo service, and its hook URL.
async fn watched(t: &common::service::TestService) -> (String, String) {
    use switchboard::api::model::{CallbacksInput, CreateDestination};
    let cb = common::service::manual_callback(&t.client).await;
    let dest = t
        .client
        .create_destination(&CreateDestination {
            name: "Watched".into(),
            description: None,
            url: format!("{}/in", common::fake::closed_port_url()),
            callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
        })
        .await
        .expect("destination")
        .id;
    (dest, cb.url.expect("hook url"))
}

async fn post_event(hook: &str, n: u32) {
    let r = common::service::http()
        .post(hook)
        .json(&serde_json::json!({"type": "order.created", "order": n}))
        .send()
        .await
        .expect("hook");
    assert_eq!(r.status(), 200);
}

/// Reads standard error until a line says `want`, within a bound.
async fn said(
    err: &mut tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStderr>>,
    want: &str,
) -> String {
    loop {
        let line = tokio::time::timeout(Duration::from_secs(30), err.next_line())
            .await
            .unwrap_or_else(|_| panic!("{want:?} said in time"))
            .expect("stderr")
            .unwrap_or_else(|| panic!("ended before saying {want:?}"));
        if line.contains(want) {
            return line;
        }
    }
}

#[tokio::test]
async fn watch_survives_the_service_restarting() {
    use tokio::io::{AsyncBufReadExt, BufReader};
    let t = common::service::demo().await;
    let (dest, hook) = watched(&t).await;
    let mut proxy = Restarting::start(&t.svc.base_url).await;
    let home = tempfile::tempdir().expect("home");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args([
            "notifications",
            "list",
            "--destination",
            &dest,
            "--watch",
            "--interval",
            "100ms",
        ])
        .env_clear()
        .env("HOME", home.path())
        .env("SWITCHBOARD_BASE_URL", proxy.url())
        .env("SWITCHBOARD_API_KEY", t.svc.api_key.expose())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn watch");
    let mut out = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut err = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let limit = Duration::from_secs(30);
    said(&mut err, "watching").await;

    proxy.stop().await;
    let line = said(&mut err, "reconnecting").await;
    assert!(line.contains("next try in"), "{line}");
    assert!(
        child.try_wait().expect("try_wait").is_none(),
        "watch ended when the service went away"
    );
    proxy.restart().await;
    said(&mut err, "reconnected").await;
    post_event(&hook, 1).await;
    let line = tokio::time::timeout(limit, out.next_line())
        .await
        .expect("the new notification, after the restart")
        .expect("stdout")
        .expect("still running");
    let v: Value = serde_json::from_str(&line).expect("NDJSON");
    assert_eq!(v["object"], "callback.notification", "{v}");
    child.kill().await.expect("kill");
}

#[test]
fn watch_pauses_between_polls_even_when_an_empty_page_says_more() {
    let s = FakeServer::start();
    let home = tempfile::tempdir().expect("home");
    let empty_more = serde_json::json!({
        "object": "list",
        "items": [],
        "pagination": {"has_more_before": false, "has_more_after": true}
    })
    .to_string();
    // The newest notification first (where the watch starts), then pages saying "more" forever.
    s.push(Reply::fixture(200, "notification-list.json"));
    for _ in 0..500 {
        s.push(Reply::text(200, empty_more.clone()));
    }
    let mut child = sb(&s, &home)
        .args(["notifications", "list", "--watch", "--interval", "500ms"])
        .stdout(Stdio::null())
        .spawn()
        .expect("spawn watch");
    // Once it polls (bounded wait), a measurement over a fixed span: how often it asked then.
    let deadline = Instant::now() + Duration::from_secs(30);
    while s.requests().len() < 2 {
        assert!(Instant::now() < deadline, "the watch never polled");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (before, started) = (s.requests().len(), Instant::now());
    std::thread::sleep(Duration::from_millis(1600));
    let asked = s.requests().len() - before;
    let took = started.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    let most = 2 + usize::try_from(took.as_millis() / 500).unwrap_or(0);
    assert!(
        asked <= most,
        "{asked} requests in {took:?} at a 500ms interval"
    );
}

/// A notification from the golden fixture with its id, status and delivered event type changed.
fn notification(id: &str, status: &str, event_type: &str) -> Value {
    let mut n: Value =
        serde_json::from_str(&common::fake::fixture("notification.json")).expect("fixture");
    n["id"] = id.into();
    n["status"] = status.into();
    for a in n["attempts"].as_array_mut().expect("attempts") {
        let w = &mut a["webhook_request"];
        if let Some(body) = w["request_body"].as_str() {
            let mut b: Value = serde_json::from_str(body).expect("body");
            b["type"] = event_type.into();
            w["request_body"] = b.to_string().into();
        }
    }
    n
}

fn page(items: Vec<Value>, more: bool) -> Reply {
    Reply::text(
        200,
        serde_json::json!({
            "object": "list",
            "items": items,
            "pagination": {"has_more_before": false, "has_more_after": more}
        })
        .to_string(),
    )
}

fn three_pages(s: &FakeServer) {
    s.push(page(
        vec![
            notification("cbn_4", "failed", "build.failed"),
            notification("cbn_3", "succeeded", "build.failed"),
        ],
        true,
    ));
    s.push(page(
        vec![notification("cbn_2", "failed", "deploy.done")],
        true,
    ));
    s.push(page(
        vec![notification("cbn_1", "failed", "build.failed")],
        false,
    ));
}

fn ids(v: &Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(|n| n["id"].as_str()).collect())
        .unwrap_or_default()
}

#[test]
fn notifications_list_filters_status_and_event_type_and_counts() {
    let s = FakeServer::start();
    let home = tempfile::tempdir().expect("home");
    let filters = ["--status", "failed", "--event-type", "build.*"];

    three_pages(&s);
    let args = [&["notifications", "list", "-o", "json"][..], &filters].concat();
    let out = run(sb(&s, &home), &args, Stdio::piped());
    assert_eq!(out.code, 0, "{out:?}");
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(ids(&v["items"]), ["cbn_4", "cbn_1"], "{v}");
    assert_eq!(v["pagination"]["has_more_after"], false);
    assert_eq!(s.take().len(), 3);

    // `--limit` counts the matches printed: the first page holds one, so one page is read.
    three_pages(&s);
    let args = [
        &["notifications", "list", "--limit", "1", "-o", "json"][..],
        &filters,
    ]
    .concat();
    let out = run(sb(&s, &home), &args, Stdio::piped());
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(ids(&v["items"]), ["cbn_4"], "{v}");
    assert_eq!(v["pagination"]["has_more_after"], true);
    assert_eq!(s.take().len(), 1);
    s.clear_script();

    three_pages(&s);
    let args = [&["notifications", "list", "--count"][..], &filters].concat();
    let out = run(sb(&s, &home), &args, Stdio::piped());
    assert_eq!(out.code, 0, "{out:?}");
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(
        v,
        serde_json::json!({"count": 2, "examined": 4, "complete": true})
    );
    s.take();

    three_pages(&s);
    let out = run(
        sb(&s, &home),
        &[
            "notifications",
            "list",
            "--status",
            "failed",
            "-o",
            "ndjson",
            "--all",
        ],
        Stdio::piped(),
    );
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("NDJSON"))
        .collect();
    assert_eq!(
        lines
            .iter()
            .filter_map(|n| n["id"].as_str())
            .collect::<Vec<_>>(),
        ["cbn_4", "cbn_2", "cbn_1"]
    );
}

#[test]
fn a_filtered_list_of_a_pager_without_end_stops_at_the_budget_and_says_so() {
    let s = FakeServer::start();
    let home = tempfile::tempdir().expect("home");
    let endless = |s: &FakeServer| {
        for i in 0..400 {
            s.push(page(
                vec![notification(
                    &format!("cbn_{:05}", 99_999 - i),
                    "failed",
                    "a",
                )],
                true,
            ));
        }
    };
    endless(&s);
    let out = run(
        sb(&s, &home),
        &["notifications", "list", "--status", "failed", "--count"],
        Stdio::piped(),
    );
    assert_eq!(out.code, 0, "{out:?}");
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(v["complete"], false, "{v}");
    let examined = v["examined"].as_u64().expect("examined");
    assert_eq!(v["count"].as_u64(), Some(examined));
    let asked = s.take().len();
    assert!(
        asked < 400 && examined as usize == asked,
        "{asked} pages, {v}"
    );
    s.clear_script();

    endless(&s);
    let out = run(
        sb(&s, &home),
        &[
            "notifications",
            "list",
            "--status",
            "failed",
            "--all",
            "-o",
            "ndjson",
        ],
        Stdio::piped(),
    );
    assert_eq!(out.code, 3, "{out:?}");
    assert_eq!(
        out.stdout.lines().count(),
        asked,
        "the matches found are printed"
    );
    let e = error_of(&out);
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|m| m.contains("--after cbn_")),
        "{e}"
    );
}

/// A notification whose recorded bodies hold a lone surrogate escape and a NUL, as JSON text.
fn hostile_notification() -> String {
    let mut n = notification("cbn_hostile", "failed", "build.failed");
    for a in n["attempts"].as_array_mut().expect("attempts") {
        let w = &mut a["webhook_request"];
        w["request_body"] = r#"{"type":"build.failed","note":"@S@ and @N@"}"#.into();
        w["response_body"] = "@S@@N@ gone".into();
    }
    n.to_string()
        .replace("@S@", "\\ud800")
        .replace("@N@", "\\u0000")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_with_a_lone_surrogate_or_a_nul_is_shown_and_replayed() {
    let s = FakeServer::start();
    let home = tempfile::tempdir().expect("home");
    let n = hostile_notification();
    assert!(n.contains(r"\ud800") && n.contains(r"\u0000"));
    let (rx, log) = common::replay::receiver().await;
    let list = format!(
        r#"{{"object":"list","items":[{n}],"pagination":{{"has_more_before":false,"has_more_after":false}}}}"#
    );
    let to = format!("{rx}/ok");
    for (args, reply) in [
        (
            vec!["notifications", "get", "cbn_hostile", "-o", "table"],
            n.clone(),
        ),
        (
            vec!["notifications", "get", "cbn_hostile", "-o", "json"],
            n.clone(),
        ),
        (vec!["notifications", "list", "-o", "table"], list.clone()),
        (vec!["notifications", "list", "-o", "ndjson"], list.clone()),
        (
            vec![
                "notifications",
                "replay",
                "cbn_hostile",
                "--to",
                &to,
                "--unsigned",
            ],
            n.clone(),
        ),
    ] {
        s.push(Reply::text(200, reply));
        let cmd = sb(&s, &home);
        let argv: Vec<String> = args.iter().map(ToString::to_string).collect();
        let out = tokio::task::spawn_blocking(move || {
            let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
            run(cmd, &argv, Stdio::piped())
        })
        .await
        .expect("run");
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        assert!(
            !out.stdout.contains('\0'),
            "{args:?}: a NUL reached the output"
        );
        s.clear_script();
    }
    assert_eq!(common::replay::got(&log, "ok").len(), 1, "replayed once");
}
