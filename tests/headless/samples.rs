//! Issue 39 headless: `notifications keep` → `samples list|show|send|rm` against the embedded
//! service on 127.0.0.1 and a receiver of our own that checks signatures with its own HMAC; a
//! link planted at the library refused; `notifications replay --edit | --body-file` sends the
//! edited body signed afresh and compares the answers; an invalid edit sends nothing;
//! `serve --samples DIR` posts the kept samples as hook events.
use crate::common;

use std::path::Path;
use std::time::Duration;

use common::replay::{Log, got, receiver, verify_independently, world};
use common::service::{ServeChild, TestService, client_for, eventually};
use serde_json::Value;
use switchboard::api::{ListQuery, NotificationFilter, Order, Secret};

#[derive(Debug)]
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs the binary against the service with `home` as its whole environment, no terminal.
async fn run(t: &TestService, home: &Path, args: &[&str], env: &[(&str, &str)]) -> Out {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("SWITCHBOARD_BASE_URL", &t.svc.base_url)
        .env("SWITCHBOARD_API_KEY", t.svc.api_key.expose())
        .args(args)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = tokio::time::timeout(Duration::from_mins(1), cmd.output())
        .await
        .expect("the binary finishes")
        .expect("spawn switchboard");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn json(out: &Out) -> Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("json ({e}): {out:?}"))
}

fn library(home: &Path) -> std::path::PathBuf {
    home.join("data/switchboard/samples/default")
}

fn count(log: &Log, path: &str) -> usize {
    got(log, path).len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_sample_lists_shows_masked_sends_signed_and_is_removed() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let home = tempfile::tempdir().expect("home");
    let recorded = w.n.attempts[0]
        .webhook_request
        .clone()
        .expect("recorded request");
    let body = recorded.request_body.clone().expect("recorded body");

    let kept = run(
        &w.t,
        home.path(),
        &[
            "notifications",
            "keep",
            &w.n.id,
            "--name",
            "build-42",
            "-o",
            "json",
        ],
        &[],
    )
    .await;
    assert_eq!(kept.code, 0, "{kept:?}");
    let file = library(home.path()).join("build-42.json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file)
            .expect("sample file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "the sample is the owner's only");
        let dir = std::fs::metadata(library(home.path()))
            .expect("folder")
            .permissions()
            .mode();
        assert_eq!(dir & 0o777, 0o700, "its folder too");
    }
    let on_disk = std::fs::read_to_string(&file).expect("read sample");
    assert!(!on_disk.contains(&w.secret), "no secret on disk");
    // Through the redaction policy, which shows the signature (it proves the body, reveals
    // nothing of the secret); a header it hides is masked (the library's unit test).
    let recorded_sig = recorded
        .request_headers
        .get("metorial-signature")
        .expect("recorded signature");

    // A second keep under the same name needs --force.
    let again = run(
        &w.t,
        home.path(),
        &["notifications", "keep", &w.n.id, "--name", "build-42"],
        &[],
    )
    .await;
    assert_eq!(again.code, 2, "{again:?}");
    assert!(again.stderr.contains("--force"), "{again:?}");
    let bad = run(
        &w.t,
        home.path(),
        &["notifications", "keep", &w.n.id, "--name", "../escape"],
        &[],
    )
    .await;
    assert_eq!(bad.code, 2, "{bad:?}");

    let list = run(&w.t, home.path(), &["samples", "list", "-o", "json"], &[]).await;
    assert_eq!(list.code, 0, "{list:?}");
    let items = json(&list);
    assert_eq!(items.as_array().map(Vec::len), Some(1), "{items}");
    assert_eq!(items[0]["name"], "build-42");
    assert_eq!(items[0]["event_type"], "build.failed");
    assert_eq!(items[0]["destination"]["name"], "Receiver under repair");
    assert_eq!(items[0]["callback"]["id"], w.callback.as_str());

    let show = run(
        &w.t,
        home.path(),
        &["samples", "show", "build-42", "-o", "json"],
        &[],
    )
    .await;
    assert_eq!(show.code, 0, "{show:?}");
    let s = json(&show);
    assert_eq!(s["body"], body.as_str(), "the body as recorded");
    let sig = s["request_headers"]
        .as_array()
        .and_then(|hs| {
            hs.iter().find(|h| {
                h[0].as_str()
                    .is_some_and(|k| k.eq_ignore_ascii_case("metorial-signature"))
            })
        })
        .expect("the signature header is kept");
    assert_eq!(sig[1].as_str(), Some(recorded_sig.as_str()), "{sig}");
    let table = run(
        &w.t,
        home.path(),
        &["samples", "show", "build-42", "-o", "table"],
        &[],
    )
    .await;
    assert_eq!(table.code, 0, "{table:?}");
    assert!(table.stdout.contains("SAMPLE        build-42"), "{table:?}");
    assert!(
        table.stdout.contains("metorial-notification-id"),
        "{table:?}"
    );

    let before = chrono::Utc::now().timestamp();
    let to = format!("{rx}/ok-sample");
    let sent = run(
        &w.t,
        home.path(),
        &["samples", "send", "build-42", "--to", &to, "-o", "json"],
        &[],
    )
    .await;
    assert_eq!(sent.code, 0, "{sent:?}");
    let got = got(&log, "ok-sample");
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].body, body.as_bytes(), "body byte for byte");
    let t_sent = verify_independently(&w.secret, &got[0].headers, &got[0].body);
    assert!(t_sent >= before, "a fresh signature");
    let v = json(&sent);
    assert_eq!(v["sample"], "build-42");
    assert_eq!(v["signed"], true);
    assert_eq!(v["response"]["status"], 200);
    assert!(!sent.stdout.contains(&w.secret));

    // Not this machine: refused before anything is sent.
    let remote = run(
        &w.t,
        home.path(),
        &["samples", "send", "build-42", "--to", "http://192.0.2.1/in"],
        &[],
    )
    .await;
    assert_eq!(remote.code, 2, "{remote:?}");

    // Once the destination is gone, the sample still sends, unsigned, and says so.
    w.t.client
        .delete_destination(&w.dest)
        .await
        .expect("delete");
    let unsigned = run(
        &w.t,
        home.path(),
        &[
            "samples",
            "send",
            "build-42",
            "--to",
            &format!("{rx}/ok-gone"),
        ],
        &[],
    )
    .await;
    assert_eq!(unsigned.code, 0, "{unsigned:?}");
    assert!(unsigned.stderr.contains("unsigned"), "{unsigned:?}");
    let g = got_one(&log, "ok-gone");
    assert!(g.headers.get("metorial-signature").is_none());
    assert_eq!(g.body, body.as_bytes());

    let rm = run(
        &w.t,
        home.path(),
        &["samples", "rm", "build-42", "--yes"],
        &[],
    )
    .await;
    assert_eq!(rm.code, 0, "{rm:?}");
    assert!(!file.exists());
    let gone = run(&w.t, home.path(), &["samples", "show", "build-42"], &[]).await;
    assert_eq!(gone.code, 2, "{gone:?}");
}

fn got_one(log: &Log, path: &str) -> common::replay::Got {
    let g = got(log, path);
    assert_eq!(g.len(), 1, "{g:?}");
    g.into_iter().next().expect("one")
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_planted_at_the_library_is_refused() {
    let (rx, _log) = receiver().await;
    let w = world(&rx).await;
    let home = tempfile::tempdir().expect("home");
    let elsewhere = tempfile::tempdir().expect("elsewhere");
    let lib = library(home.path());
    std::fs::create_dir_all(lib.parent().expect("parent")).expect("mkdir");
    std::os::unix::fs::symlink(elsewhere.path(), &lib).expect("plant the folder link");
    let out = run(
        &w.t,
        home.path(),
        &["notifications", "keep", &w.n.id, "--name", "x"],
        &[],
    )
    .await;
    assert_ne!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("refusing"), "{out:?}");
    assert_eq!(
        std::fs::read_dir(elsewhere.path()).expect("read").count(),
        0,
        "nothing written through the link"
    );

    // A link in a sample's place: not replaced, not followed.
    std::fs::remove_file(&lib).expect("unlink");
    std::fs::create_dir_all(&lib).expect("mkdir");
    let target = elsewhere.path().join("victim");
    std::fs::write(&target, "keep me").expect("victim");
    std::os::unix::fs::symlink(&target, lib.join("x.json")).expect("plant the file link");
    let out = run(
        &w.t,
        home.path(),
        &["notifications", "keep", &w.n.id, "--name", "x", "--force"],
        &[],
    )
    .await;
    assert_ne!(out.code, 0, "{out:?}");
    assert_eq!(std::fs::read_to_string(&target).expect("victim"), "keep me");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edited_replay_sends_the_edit_signed_afresh_and_compares_the_answers() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let home = tempfile::tempdir().expect("home");
    // An editor that changes one field in place.
    let editor = home.path().join("edit.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nsed -i 's/\"build\":42/\"build\":43/' \"$1\"\n",
    )
    .expect("editor");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let editor = editor.to_string_lossy().into_owned();
    let recorded = w.n.attempts[0]
        .webhook_request
        .clone()
        .and_then(|r| r.request_body)
        .expect("recorded body");
    assert!(recorded.contains("\"build\":42"), "{recorded}");
    let before = chrono::Utc::now().timestamp();
    let to = format!("{rx}/fail");
    let out = run(
        &w.t,
        home.path(),
        &[
            "notifications",
            "replay",
            &w.n.id,
            "--to",
            &to,
            "--edit",
            "-o",
            "json",
        ],
        &[("EDITOR", &editor)],
    )
    .await;
    assert_eq!(out.code, 3, "the receiver answers 500: {out:?}");
    let g = got_one(&log, "fail");
    let edited = recorded.replace("\"build\":42", "\"build\":43");
    assert_eq!(g.body, edited.as_bytes(), "the edited body, byte for byte");
    assert!(verify_independently(&w.secret, &g.headers, &g.body) >= before);
    let v = json(&out);
    assert_eq!(v["edited"], true);
    assert_eq!(v["request"]["body"], edited.as_str());
    assert_eq!(v["diff"]["status_changed"], true, "{v}");
    // The edited body is kept with the answer for `diff --with-replay`.
    let answers = std::fs::read_dir(home.path().join("data/switchboard/forward"))
        .expect("forward folder")
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().ends_with(".ndjson"))
        .expect("answers log");
    let text = std::fs::read_to_string(answers.path()).expect("answers");
    assert!(text.contains("\"sent_body\""), "{text}");
    assert!(text.contains("\"kind\":\"edited\""), "{text}");

    // The table shows the answer, then the comparison.
    let file = home.path().join("body.json");
    std::fs::write(&file, edited.replace("43", "44")).expect("body file");
    let file = file.to_string_lossy().into_owned();
    let out = run(
        &w.t,
        home.path(),
        &[
            "notifications",
            "replay",
            &w.n.id,
            "--to",
            &format!("{rx}/ok-file"),
            "--body-file",
            &file,
            "-o",
            "table",
        ],
        &[],
    )
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("REPLAYED LOCALLY"), "{out:?}");
    assert!(out.stdout.contains("DIFF   "), "{out:?}");
    let g = got_one(&log, "ok-file");
    assert!(String::from_utf8_lossy(&g.body).contains("\"build\":44"));
    verify_independently(&w.secret, &g.headers, &g.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_that_is_not_json_or_not_local_sends_nothing() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let home = tempfile::tempdir().expect("home");
    let file = home.path().join("broken.json");
    std::fs::write(&file, "{\"build\": 43,").expect("body");
    let file = file.to_string_lossy().into_owned();
    let out = run(
        &w.t,
        home.path(),
        &[
            "notifications",
            "replay",
            &w.n.id,
            "--to",
            &format!("{rx}/ok-broken"),
            "--body-file",
            &file,
        ],
        &[],
    )
    .await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("not JSON"), "{out:?}");
    // An editor that breaks the JSON.
    let out = run(
        &w.t,
        home.path(),
        &[
            "notifications",
            "replay",
            &w.n.id,
            "--to",
            &format!("{rx}/ok-broken"),
            "--edit",
        ],
        &[("EDITOR", "sh -c 'printf x >> \"$0\"'")],
    )
    .await;
    assert_eq!(out.code, 2, "{out:?}");
    assert_eq!(count(&log, "ok-broken"), 0, "nothing sent");
    // No editor: refused, nothing sent.
    let out = run(
        &w.t,
        home.path(),
        &[
            "notifications",
            "replay",
            &w.n.id,
            "--to",
            &format!("{rx}/ok-broken"),
            "--edit",
        ],
        &[],
    )
    .await;
    assert_eq!(out.code, 2, "{out:?}");
    let out = run(
        &w.t,
        home.path(),
        &[
            "notifications",
            "replay",
            &w.n.id,
            "--to",
            "http://192.0.2.1/in",
            "--body-file",
            &file,
        ],
        &[],
    )
    .await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("not this machine"), "{out:?}");
    assert_eq!(count(&log, "ok-broken"), 0, "nothing sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_posts_the_samples_of_a_folder_as_hook_events() {
    let (rx, _log) = receiver().await;
    let w = world(&rx).await;
    let home = tempfile::tempdir().expect("home");
    let kept = run(
        &w.t,
        home.path(),
        &["notifications", "keep", &w.n.id, "--name", "replay-me"],
        &[],
    )
    .await;
    assert_eq!(kept.code, 0, "{kept:?}");
    let dir = library(home.path());
    let key = "serve-samples-key";
    let child = ServeChild::start(
        &[
            "--db",
            ":memory:",
            "--seed",
            "demo",
            "--samples",
            &dir.to_string_lossy(),
        ],
        key,
    );
    let client = client_for(&child.base_url, &Secret::new(key.to_string()));
    let cb = common::service::manual_callback(&client).await;
    // The posted sample is an event of the manual callback with the recorded event type.
    eventually(Duration::from_secs(30), || {
        let client = client.clone();
        let cb = cb.id.clone();
        async move {
            let f = NotificationFilter {
                callback_ids: vec![cb],
                ..Default::default()
            };
            let page = client
                .list_notifications(
                    &ListQuery {
                        limit: Some(100),
                        order: Some(Order::Desc),
                        ..ListQuery::default()
                    },
                    &f,
                )
                .await
                .ok()?;
            page.items
                .iter()
                .any(|n| {
                    n.attempts.iter().any(|a| {
                        a.webhook_request
                            .as_ref()
                            .and_then(|r| r.request_body.as_deref())
                            .is_some_and(|b| {
                                b.contains("build.failed") && b.contains("\"build\":42")
                            })
                    })
                })
                .then_some(())
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_holds_the_deliveries_with_fresh_secrets_and_no_hook_keys() {
    let (rx, _log) = receiver().await;
    let w = world(&rx).await;
    let home = tempfile::tempdir().expect("home");
    let cb = common::service::manual_callback(&w.t.client).await;
    let hook = cb.url.clone().expect("hook url");
    let file = home.path().join("incident.ndjson");
    let out = run(
        &w.t,
        home.path(),
        &[
            "notifications",
            "export",
            "--destination",
            &w.dest,
            "--out",
            &file.to_string_lossy(),
            "-o",
            "json",
        ],
        &[],
    )
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file)
            .expect("bundle")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let text = std::fs::read_to_string(&file).expect("bundle");
    assert!(!text.contains(&w.secret), "the real secret never leaves");
    let key = hook.rsplit('/').next().expect("key");
    assert!(!text.contains(key), "no hook key");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines[0]["kind"], "manifest");
    assert_eq!(lines[0]["format"], 1);
    assert_eq!(lines[0]["counts"]["notifications"], 1, "{}", lines[0]);
    let notes: Vec<&Value> = lines
        .iter()
        .filter(|l| l["kind"] == "notification")
        .collect();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["id"], w.n.id.as_str());
    assert_eq!(
        notes[0]["attempts"].as_array().map(Vec::len),
        Some(w.n.attempts.len())
    );
    let dest = lines
        .iter()
        .find(|l| l["kind"] == "destination" && l["id"] == w.dest.as_str())
        .expect("the destination");
    let fresh = dest["webhook_destination"]["signing_secret"]
        .as_str()
        .expect("a secret");
    assert!(fresh.starts_with("clb_sec_") && fresh != w.secret);
    assert!(
        lines
            .iter()
            .any(|l| l["kind"] == "callback" && l["id"] == w.callback.as_str())
    );
}
