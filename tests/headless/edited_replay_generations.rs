//! Issue 39 on `serve --generation event-destinations`, over real HTTP: `notifications replay ID
//! --to URL --body-file F | --edit` sends the new body, signed `t=…,v1=…` over the edited bytes
//! with the destination's secret (checked here with our own HMAC), and prints the recorded answer
//! beside the new one; a loopback receiver that echoes what it gets makes the changed field show
//! in that diff. A non-JSON edit of a JSON body sends nothing (exit 2).
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use axum::routing::post;
use serde_json::Value;
use switchboard::api::Secret;
use switchboard::api::generation::Generation;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::replay::{Got, Log, got, hmac_hex};

const ORG_KEY: &str = "sk_org_headless_edited_replay_0123456789";
const INSTANCE_KEY: &str = "sk_instance_headless_edited_replay_0123456789";
/// What the platform's ping event carries, and what the edits change it to.
const PINGED: &str = "A test event from Metorial";
const FROM_FILE: &str = "An edited test event";
const FROM_EDITOR: &str = "Changed by the editor";

#[derive(Debug)]
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Out {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {self:?}"))
    }
}

/// Every path answers 200 with the request's body as JSON: the answer follows the body.
async fn echo(
    State(log): State<Log>,
    UrlPath(path): UrlPath<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> axum::response::Response {
    log.lock().expect("log").push(Got {
        path,
        headers,
        body: body.to_vec(),
    });
    ([("content-type", "application/json")], body).into_response()
}

/// An echoing receiver on 127.0.0.1:0: its base URL and its log.
async fn echo_receiver() -> (String, Log) {
    let log: Log = Arc::default();
    let app = Router::new()
        .route("/{path}", post(echo))
        .with_state(log.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), log)
}

struct Rig {
    svc: RunningService,
    instance: String,
    home: tempfile::TempDir,
    rx_url: String,
    rx: Log,
}

async fn rig() -> Rig {
    let svc = start(ServiceConfig {
        seed: Seed::Demo,
        generation: Generation::EventDestinations,
        api_key: Some(Secret::new(ORG_KEY)),
        instance_key: Some(Secret::new(INSTANCE_KEY)),
        ..ServiceConfig::ephemeral()
    })
    .await
    .expect("service starts");
    let instance = svc.instance_id.clone().unwrap_or_default();
    let home = tempfile::tempdir().expect("home");
    let conf = home.path().join("config/switchboard");
    std::fs::create_dir_all(&conf).expect("config dir");
    std::fs::write(
        conf.join("config.toml"),
        "[profiles.default]\norganization_key_env = \"SB_TEST_ORG_KEY\"\n",
    )
    .expect("config");
    let (rx_url, rx) = echo_receiver().await;
    Rig {
        svc,
        instance,
        home,
        rx_url,
        rx,
    }
}

impl Rig {
    /// Runs the binary with `env` added to a clean environment, no terminal.
    async fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Out {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path().join("config"))
            .env("XDG_DATA_HOME", self.home.path().join("data"))
            .env("SWITCHBOARD_BASE_URL", &self.svc.base_url)
            .env("SWITCHBOARD_API_KEY", INSTANCE_KEY)
            .env("SWITCHBOARD_INSTANCE_ID", &self.instance)
            .env("SB_TEST_ORG_KEY", ORG_KEY)
            .args(args)
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = tokio::time::timeout(Duration::from_mins(1), cmd.output())
            .await
            .expect("the binary finishes")
            .expect("run switchboard");
        Out {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// A destination delivering to the receiver's `/recorded`, and its signing secret (shown on
    /// create only).
    async fn destination(&self) -> (String, String) {
        let url = format!("{}/recorded", self.rx_url);
        let out = self
            .run(
                &[
                    "-o",
                    "json",
                    "destinations",
                    "create",
                    "--name",
                    "edited-replay-rx",
                    "--url",
                    &url,
                ],
                &[],
            )
            .await;
        assert_eq!(out.code, 0, "{out:?}");
        let d = out.json();
        let id = d["id"].as_str().expect("id").to_string();
        let secret = d["webhook"]["signing_secret"]
            .as_str()
            .expect("the secret, shown on create")
            .to_string();
        (id, secret)
    }

    /// A ping of `dest` once its one attempt was answered: the delivery's id.
    async fn delivered_ping(&self, dest: &str) -> String {
        let out = self
            .run(
                &[
                    "-o",
                    "json",
                    "destinations",
                    "ping",
                    dest,
                    "--timeout",
                    "30s",
                ],
                &[],
            )
            .await;
        assert_eq!(out.code, 0, "{out:?}");
        let d = out.json();
        assert_eq!(d["status"], "delivered", "{d}");
        d["id"].as_str().expect("id").to_string()
    }
}

/// Checks `metorial-signature: t=…,v1=…` as a receiver of this generation would (§7), without
/// the library: HMAC-SHA256 of `t.body` with `secret`, `t` also in `metorial-timestamp`.
fn verify(secret: &str, g: &Got) -> i64 {
    let header = |k: &str| {
        g.headers
            .get(k)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_else(|| panic!("{k} in {:?}", g.headers))
            .to_string()
    };
    let sig = header("metorial-signature");
    let t = header("metorial-timestamp");
    let mut message = format!("{t}.").into_bytes();
    message.extend_from_slice(&g.body);
    assert_eq!(
        sig,
        format!("t={t},v1={}", hmac_hex(secret, &message)),
        "signed over the bytes received"
    );
    t.parse().expect("t is a number")
}

/// The JSON body rows of a printed comparison that differ.
fn changed_rows(diff: &Value) -> Vec<Value> {
    assert_eq!(diff["body"]["mode"], "json", "{diff}");
    diff["body"]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["change"] != "same")
        .cloned()
        .collect()
}

/// Every line of the profile's answers' log under `data` (found by name: its place is the
/// library's business).
fn kept_lines(data: &Path) -> Vec<Value> {
    let mut found = Vec::new();
    let mut dirs = vec![data.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if d.ends_with("forward") && p.extension().is_some_and(|x| x == "ndjson") {
                found.push(p);
            }
        }
    }
    assert_eq!(found.len(), 1, "one answers' log: {found:?}");
    std::fs::read_to_string(&found[0])
        .expect("read")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn write_file(dir: &Path, name: &str, text: &str) -> String {
    let f = dir.join(name);
    std::fs::write(&f, text).expect("write");
    f.to_string_lossy().into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edited_delivery_replays_signed_over_the_edit_and_its_answer_is_compared() {
    let r = rig().await;
    let (dest, secret) = r.destination().await;
    let id = r.delivered_ping(&dest).await;
    let recorded = got(&r.rx, "recorded");
    assert_eq!(recorded.len(), 1, "the platform's one attempt");
    let original = String::from_utf8(recorded[0].body.clone()).expect("utf-8");
    assert!(original.contains(PINGED), "{original}");
    let secret_env = [("SB_TEST_SECRET", secret.as_str())];

    // --body-file: the file's bytes, signed over them; the diff shows the changed field.
    let edited = original.replace(PINGED, FROM_FILE);
    let file = write_file(r.home.path(), "edited.json", &edited);
    let to = format!("{}/from-file", r.rx_url);
    let before = chrono::Utc::now().timestamp();
    let out = r
        .run(
            &[
                "-o",
                "json",
                "notifications",
                "replay",
                &id,
                "--to",
                &to,
                "--body-file",
                &file,
                "--secret-env",
                "SB_TEST_SECRET",
            ],
            &secret_env,
        )
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let sent = got(&r.rx, "from-file");
    assert_eq!(sent.len(), 1, "sent once");
    assert_eq!(
        sent[0].body,
        edited.as_bytes(),
        "the edited bytes, as given"
    );
    assert!(verify(&secret, &sent[0]) >= before, "signed now");
    let v = out.json();
    assert_eq!(v["object"], "switchboard.replay", "{v}");
    assert_eq!(v["edited"], true, "{v}");
    assert_eq!(v["signed"], true, "{v}");
    assert_eq!(v["notification_id"], id.as_str(), "{v}");
    assert_eq!(v["request"]["body"], edited.as_str(), "{v}");
    assert_eq!(v["response"]["status"], 200, "{v}");
    let diff = &v["diff"];
    assert_eq!(diff["left"]["label"], "attempt #1", "{diff}");
    assert_eq!(diff["status_changed"], false, "{diff}");
    let rows = changed_rows(diff);
    assert_eq!(rows.len(), 1, "only the edited field differs: {rows:?}");
    assert!(
        rows[0]["path"]
            .as_str()
            .is_some_and(|p| p.ends_with(".message")),
        "{rows:?}"
    );
    assert_eq!(rows[0]["change"], "changed", "{rows:?}");
    assert_eq!(rows[0]["left"], format!("\"{PINGED}\""), "{rows:?}");
    assert_eq!(rows[0]["right"], format!("\"{FROM_FILE}\""), "{rows:?}");

    // The answer is kept with the body sent: `diff --with-replay 1` compares it with attempt #1.
    let kept = kept_lines(&r.home.path().join("data"));
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0]["kind"], "edited", "{kept:?}");
    assert_eq!(kept[0]["notification_id"], id.as_str(), "{kept:?}");
    assert_eq!(kept[0]["sent_body"], edited.as_str(), "{kept:?}");
    let out = r
        .run(
            &[
                "-o",
                "json",
                "notifications",
                "diff",
                &id,
                "--attempt",
                "1",
                "--with-replay",
                "1",
            ],
            &[],
        )
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let d = out.json();
    assert_eq!(d["object"], "switchboard.diff", "{d}");
    assert_eq!(d["left"]["label"], "attempt #1", "{d}");
    assert!(
        d["right"]["label"]
            .as_str()
            .is_some_and(|l| l.starts_with("edited ")),
        "{d}"
    );
    assert_eq!(d["status_changed"], false, "{d}");
    let rows = changed_rows(&d);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["right"], format!("\"{FROM_FILE}\""), "{rows:?}");
    let out = r
        .run(
            &[
                "-o",
                "table",
                "notifications",
                "diff",
                &id,
                "--with-replay",
                "1",
            ],
            &[],
        )
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("~ ") && l.contains(&format!("\"{PINGED}\" → \"{FROM_FILE}\""))),
        "{}",
        out.stdout
    );
    // Only one is kept: the second newest is a usage error naming how many there are.
    let out = r
        .run(&["notifications", "diff", &id, "--with-replay", "2"], &[])
        .await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("keeps 1 "), "{out:?}");

    // The table: the replay (signed, with the destination named), then the diff's row.
    let to = format!("{}/as-table", r.rx_url);
    let out = r
        .run(
            &[
                "-o",
                "table",
                "notifications",
                "replay",
                &id,
                "--to",
                &to,
                "--body-file",
                &file,
                "--secret-env",
                "SB_TEST_SECRET",
            ],
            &secret_env,
        )
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains(&format!(
            "SIGNATURE         signed with the signing secret of {dest}"
        )),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(&format!("DIFF   {id}")),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.lines().any(|l| l.starts_with("~ ")
            && l.contains(".message: ")
            && l.contains(&format!("\"{PINGED}\" → \"{FROM_FILE}\""))),
        "{}",
        out.stdout
    );
    verify(&secret, &got(&r.rx, "as-table")[0]);

    // --edit: what the editor (a script of ours) leaves, signed over it.
    let script = write_file(
        r.home.path(),
        "edit.sh",
        &format!("#!/bin/sh\nsed -i 's/{PINGED}/{FROM_EDITOR}/' \"$1\"\n"),
    );
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let to = format!("{}/from-editor", r.rx_url);
    let out = r
        .run(
            &[
                "-o",
                "json",
                "notifications",
                "replay",
                &id,
                "--to",
                &to,
                "--edit",
                "--secret-env",
                "SB_TEST_SECRET",
            ],
            &[("SB_TEST_SECRET", secret.as_str()), ("EDITOR", &script)],
        )
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let sent = got(&r.rx, "from-editor");
    assert_eq!(sent.len(), 1, "sent once");
    assert_eq!(
        sent[0].body,
        original.replace(PINGED, FROM_EDITOR).as_bytes(),
        "what the editor left"
    );
    verify(&secret, &sent[0]);
    let rows = changed_rows(&out.json()["diff"]);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["right"], format!("\"{FROM_EDITOR}\""), "{rows:?}");

    // --unsigned: the edit sent with no signature.
    let to = format!("{}/unsigned", r.rx_url);
    let out = r
        .run(
            &[
                "notifications",
                "replay",
                &id,
                "--to",
                &to,
                "--body-file",
                &file,
                "--unsigned",
            ],
            &[],
        )
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let sent = got(&r.rx, "unsigned");
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].body, edited.as_bytes());
    assert!(sent[0].headers.get("metorial-signature").is_none());

    // A plain replay is kept too (no body: the recorded one was sent), newest first.
    let to = format!("{}/plain", r.rx_url);
    let out = r
        .run(
            &["notifications", "replay", &id, "--to", &to, "--unsigned"],
            &[],
        )
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let kept = kept_lines(&r.home.path().join("data"));
    let last = kept.last().expect("kept");
    assert_eq!(last["kind"], "replayed", "{kept:?}");
    assert!(last.get("sent_body").is_none_or(Value::is_null), "{kept:?}");
    let out = r
        .run(
            &[
                "-o",
                "json",
                "notifications",
                "diff",
                &id,
                "--with-replay",
                "1",
            ],
            &[],
        )
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let d = out.json();
    assert!(
        d["right"]["label"]
            .as_str()
            .is_some_and(|l| l.starts_with("replayed ")),
        "{d}"
    );
    assert!(
        changed_rows(&d).is_empty(),
        "the recorded body, echoed: {d}"
    );
    r.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_that_is_not_json_sends_nothing() {
    let r = rig().await;
    let (dest, secret) = r.destination().await;
    let id = r.delivered_ping(&dest).await;
    let secret_env = ("SB_TEST_SECRET", secret.as_str());
    let to = format!("{}/broken", r.rx_url);
    let file = write_file(r.home.path(), "broken.json", "{\"message\": ");
    let out = r
        .run(
            &[
                "notifications",
                "replay",
                &id,
                "--to",
                &to,
                "--body-file",
                &file,
                "--secret-env",
                "SB_TEST_SECRET",
            ],
            &[secret_env],
        )
        .await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("not JSON"), "{out:?}");
    // An editor that breaks the JSON.
    let out = r
        .run(
            &[
                "notifications",
                "replay",
                &id,
                "--to",
                &to,
                "--edit",
                "--secret-env",
                "SB_TEST_SECRET",
            ],
            &[secret_env, ("EDITOR", "sh -c 'printf x >> \"$0\"'")],
        )
        .await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("not JSON"), "{out:?}");
    // No editor set: one sentence, before anything is asked.
    let out = r
        .run(
            &[
                "notifications",
                "replay",
                &id,
                "--to",
                &to,
                "--edit",
                "--secret-env",
                "SB_TEST_SECRET",
            ],
            &[secret_env],
        )
        .await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("$VISUAL or $EDITOR"), "{out:?}");
    // A host that is not this machine, without --yes and no terminal: refused.
    let file = write_file(r.home.path(), "fine.json", "{\"message\": \"fine\"}");
    let out = r
        .run(
            &[
                "notifications",
                "replay",
                &id,
                "--to",
                "http://192.0.2.1/in",
                "--body-file",
                &file,
                "--secret-env",
                "SB_TEST_SECRET",
            ],
            &[secret_env],
        )
        .await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("not this machine"), "{out:?}");
    assert!(got(&r.rx, "broken").is_empty(), "nothing sent");
    r.svc.shutdown().await;
}
