//! `switchboard mcp` driven by the official MCP client from the Python package index (`mcp`,
//! pinned): the client spawns the binary over stdio against the embedded service on 127.0.0.1,
//! lists the tools and calls them. Results are masked and sanitised, replays go to this machine
//! only, and write tools exist only with `--allow-writes` on a profile that allows writes.
//!
//! Needs `python3` with `mcp` installed (`.ci/run` installs it). Without it the test says so and
//! passes on a developer machine, but fails when `CI=true`.
mod common;

use std::process::Stdio;
use std::time::Duration;

use common::replay::{Log, got, receiver, world};
use serde_json::{Value, json};
use switchboard::api::model::CreateTeam;

/// The pinned version; `.ci/run` installs the same.
const MCP: &str = "2.3.0";

/// Spawns the server with the official client, lists its tools, makes the calls in order and
/// prints one JSON object: the tools and each call's result as the protocol carries them.
const CLIENT: &str = r#"
import asyncio, json, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    plan = json.loads(sys.stdin.read())
    params = StdioServerParameters(command=plan["command"], args=plan["args"], env=plan["env"])
    dump = lambda m: m.model_dump(mode="json", by_alias=True, exclude_none=True)
    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            out["server"] = dump(await session.initialize())
            out["tools"] = [dump(t) for t in (await session.list_tools()).tools]
            out["calls"] = [dump(await session.call_tool(n, a)) for n, a in plan["calls"]]
    print(json.dumps(out))

asyncio.run(main())
"#;

fn installed_version() -> Option<String> {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('mcp'))",
        ])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Whether the pinned client is there; says why not (and fails in CI) when it is not.
fn client_available() -> bool {
    match installed_version() {
        Some(v) if v == MCP => true,
        found => {
            let msg = format!(
                "the Python MCP client mcp=={MCP} is needed (found: {found:?}); \
                 install it with: python3 -m pip install mcp=={MCP}"
            );
            assert!(!in_ci(), "{msg}");
            eprintln!("SKIPPED: {msg}");
            false
        }
    }
}

/// What the client saw: the tools and each call's result.
struct Session {
    raw: String,
    tools: Vec<String>,
    calls: Vec<Value>,
}

/// Runs the client against `switchboard [extra…] mcp [args…]` on the service.
async fn session(base_url: &str, key: &str, args: &[&str], calls: &[(&str, Value)]) -> Session {
    let home = tempfile::tempdir().expect("home");
    let plan = json!({
        "command": env!("CARGO_BIN_EXE_switchboard"),
        "args": args,
        "env": {
            "PATH": std::env::var("PATH").unwrap_or_default(),
            "HOME": home.path(),
            "XDG_CONFIG_HOME": home.path().join("config"),
            "SWITCHBOARD_BASE_URL": base_url,
            "SWITCHBOARD_API_KEY": key,
        },
        "calls": calls.iter().map(|(n, a)| json!([n, a])).collect::<Vec<_>>(),
    });
    let mut child = tokio::process::Command::new("python3")
        .args(["-c", CLIENT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("python3");
    let mut stdin = child.stdin.take().expect("stdin");
    tokio::io::AsyncWriteExt::write_all(&mut stdin, plan.to_string().as_bytes())
        .await
        .expect("plan");
    drop(stdin);
    let out = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("the client finishes")
        .expect("client output");
    let raw = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "client failed: {}\n{raw}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(&raw).expect("the client's report");
    let tools = v["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_string())
        .collect();
    let calls = v["calls"].as_array().expect("calls").clone();
    Session { raw, tools, calls }
}

/// The structured result of a call that succeeded.
fn ok(call: &Value) -> &Value {
    assert_ne!(call["isError"], true, "tool failed: {call}");
    &call["structuredContent"]
}

/// The error object of a call that failed.
fn failed(call: &Value) -> &Value {
    assert_eq!(call["isError"], true, "tool should fail: {call}");
    &call["structuredContent"]["error"]
}

const WRITES: [&str; 5] = [
    "create_team",
    "update_team",
    "create_destination",
    "update_destination",
    "delete_destination",
];

fn received(log: &Log) -> usize {
    got(log, "ok").len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_tools_answer_masked_sanitised_and_replay_only_here() {
    if !client_available() {
        return;
    }
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let base = w.t.svc.base_url.clone();
    let key = w.t.svc.api_key.expose().to_string();
    // A server string that would act on a terminal.
    let hostile =
        w.t.client
            .create_team(&CreateTeam {
                name: "Ops\u{1b}]52;c;cHduZWQ=\u{7}".into(),
                description: None,
            })
            .await
            .expect("team");
    let before = received(&log);
    let s = session(
        &base,
        &key,
        &["mcp"],
        &[
            ("list_destinations", json!({"callback_ids": [w.callback]})),
            ("get_notification", json!({"id": w.n.id})),
            (
                "get_attempt",
                json!({"notification_id": w.n.id, "attempt": 1}),
            ),
            ("verify_signature", json!({"notification_id": w.n.id})),
            ("destination_stats", json!({"destination_id": w.dest})),
            (
                "replay_locally",
                json!({"notification_id": w.n.id, "to": format!("{rx}/ok")}),
            ),
            (
                "replay_locally",
                json!({"notification_id": w.n.id, "to": "http://example.com/ok"}),
            ),
            ("create_team", json!({"name": "Not allowed"})),
            ("get_team", json!({"id": "tm_missing"})),
            ("get_team", json!({"id": hostile.id})),
            ("get_callback", json!({"id": w.callback})),
            ("list_teams", json!({"limit": 1, "bogus": true})),
            (
                "list_notifications",
                json!({"destination_ids": [w.dest], "limit": 5}),
            ),
        ],
    )
    .await;

    for t in WRITES {
        assert!(!s.tools.contains(&t.to_string()), "{t} listed read-only");
    }
    for t in ["list_notifications", "verify_signature", "replay_locally"] {
        assert!(s.tools.contains(&t.to_string()), "{t} missing");
    }
    // The one redaction policy: no signing secret anywhere, masked where it stood.
    assert!(
        !s.raw.contains(&w.secret),
        "a signing secret reached the agent"
    );
    let dests = ok(&s.calls[0]);
    let mine = dests["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|d| d["id"] == w.dest.as_str())
        .expect("the test destination");
    let shown = mine["webhook_destination"]["signing_secret"]
        .as_str()
        .expect("secret field");
    assert!(shown.ends_with('…') && shown.len() < 12, "{shown}");

    assert_eq!(ok(&s.calls[1])["id"], w.n.id.as_str());
    let attempt = ok(&s.calls[2]);
    assert_eq!(attempt["attempt"], 1);
    assert!(
        attempt["attempt_detail"]["webhook_request"].is_object(),
        "{attempt}"
    );

    let verified = ok(&s.calls[3]);
    assert_eq!(verified["verified"], true, "{verified}");
    assert_eq!(verified["destination_id"], w.dest.as_str());

    let stats = ok(&s.calls[4]);
    // The one health module: the numbers `destinations stats` gives.
    assert!(stats["notifications"].as_u64() >= Some(1), "{stats}");
    assert_eq!(stats["window"], "24h", "{stats}");

    // Replay: to this machine it is sent; anywhere else it is refused before anything is sent.
    let replay = ok(&s.calls[5]);
    assert_eq!(replay["response"]["ok"], true, "{replay}");
    assert_eq!(
        received(&log),
        before + 1,
        "one replay reached the receiver"
    );
    let refused = failed(&s.calls[6]);
    assert!(
        refused["message"]
            .as_str()
            .unwrap_or_default()
            .contains("this machine only"),
        "{refused}"
    );

    let refused = failed(&s.calls[7]);
    assert!(
        refused["message"]
            .as_str()
            .unwrap_or_default()
            .contains("--allow-writes"),
        "{refused}"
    );
    let missing = failed(&s.calls[8]);
    assert_eq!(
        (missing["status"].as_u64(), missing["code"].as_str()),
        (Some(404), Some("not_found"))
    );

    // The one sanitizer: the escape sequence arrives as visible markers, never as ESC or BEL.
    let name = ok(&s.calls[9])["name"].as_str().expect("name").to_string();
    assert!(
        !name.contains('\u{1b}') && !name.contains('\u{7}'),
        "{name:?}"
    );
    assert!(name.contains("⟨U+001B⟩"), "{name}");

    // A callback's hook key is masked.
    let hook = ok(&s.calls[10])["url"].as_str().expect("url").to_string();
    assert!(hook.ends_with('…'), "{hook}");

    let bogus = failed(&s.calls[11]);
    assert_eq!(bogus["code"], "usage");

    let list = ok(&s.calls[12]);
    assert_eq!(list["items"][0]["id"], w.n.id.as_str(), "{list}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_tools_need_allow_writes_and_a_profile_that_allows_writes() {
    if !client_available() {
        return;
    }
    let (rx, _log) = receiver().await;
    let w = world(&rx).await;
    let base = w.t.svc.base_url.clone();
    let key = w.t.svc.api_key.expose().to_string();
    let s = session(
        &base,
        &key,
        &["mcp", "--allow-writes"],
        &[
            (
                "create_team",
                json!({"name": "Agents", "description": "made over MCP"}),
            ),
            (
                "update_destination",
                json!({"id": w.dest, "name": "Renamed by an agent"}),
            ),
            ("delete_destination", json!({"id": w.dest})),
        ],
    )
    .await;
    for t in WRITES {
        assert!(s.tools.contains(&t.to_string()), "{t} not listed");
    }
    let team = ok(&s.calls[0]);
    let id = team["id"].as_str().expect("team id");
    let stored = w.t.client.get_team(id).await.expect("the team exists");
    assert_eq!(stored.name, "Agents");
    assert_eq!(ok(&s.calls[1])["name"], "Renamed by an agent");
    ok(&s.calls[2]);
    let active =
        w.t.client
            .list_destinations(&Default::default(), &[])
            .await
            .expect("destinations");
    assert!(active.items.iter().all(|d| d.id != w.dest), "still active");

    // A read-only profile never serves writes, whatever the flag says.
    let home = tempfile::tempdir().expect("home");
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["--read-only", "mcp", "--allow-writes"])
        .env_clear()
        .env("HOME", home.path())
        .env("SWITCHBOARD_BASE_URL", &base)
        .env("SWITCHBOARD_API_KEY", &key)
        .stdin(Stdio::null())
        .output()
        .await
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("read-only"));
}
