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
    let out = run(
        cmd,
        &["--jq", "range(1e12)", "teams", "list"],
        dev_null(),
    );
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
        &["notifications", "diff", "cbn_1", "--attempt", "0", "--with-attempt", "1"],
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
