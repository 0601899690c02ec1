//! The headless verbs against `serve --generation callback-destinations` over real HTTP:
//! callbacks on provider deployments (create with destinations and triggers, the set replaced,
//! delete archives, events by type), callback destinations with an editable URL, notifications
//! per callback merged newest first when no callback is named, found without their callback,
//! replayed from the embedded request signed `t=…,v1=…`, and one sentence for each verb the
//! generation lacks.
use std::process::{Command, Stdio};

use serde_json::Value;
use switchboard::api::Secret;
use switchboard::api::generation::Generation;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::replay::{got, hmac_hex, receiver};

const ORG_KEY: &str = "sk_org_headless_callback_gen_0123456789";
const INSTANCE_KEY: &str = "sk_instance_headless_callback_gen_0123456789";

struct Cd {
    svc: RunningService,
    instance: String,
    home: tempfile::TempDir,
}

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

async fn service(generation: Generation) -> Cd {
    let cfg = ServiceConfig {
        seed: Seed::Demo,
        generation,
        api_key: Some(Secret::new(if generation == Generation::Pulsar {
            INSTANCE_KEY
        } else {
            ORG_KEY
        })),
        instance_key: (generation != Generation::Pulsar).then(|| Secret::new(INSTANCE_KEY)),
        ..ServiceConfig::ephemeral()
    };
    let svc = start(cfg).await.expect("service starts");
    let instance = svc.instance_id.clone().unwrap_or_default();
    let home = tempfile::tempdir().expect("home");
    let conf = home.path().join("config/switchboard");
    std::fs::create_dir_all(&conf).expect("config dir");
    std::fs::write(
        conf.join("config.toml"),
        "[profiles.default]\norganization_key_env = \"SB_TEST_ORG_KEY\"\n",
    )
    .expect("config");
    Cd {
        svc,
        instance,
        home,
    }
}

impl Cd {
    async fn run(&self, args: &[&str]) -> Out {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_switchboard"));
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path().join("config"))
            .env("XDG_DATA_HOME", self.home.path().join("data"))
            .env("SWITCHBOARD_BASE_URL", &self.svc.base_url)
            .env("SWITCHBOARD_API_KEY", INSTANCE_KEY)
            .env("SWITCHBOARD_INSTANCE_ID", &self.instance)
            .env("SB_TEST_ORG_KEY", ORG_KEY)
            .stdin(Stdio::null())
            .args(args);
        let out = tokio::task::spawn_blocking(move || cmd.output().expect("run switchboard"))
            .await
            .expect("joined");
        Out {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    async fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["-o", "json"];
        all.extend_from_slice(args);
        let out = self.run(&all).await;
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        out.json()
    }
}

fn items(v: &Value) -> Vec<Value> {
    v["items"].as_array().cloned().unwrap_or_default()
}

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

#[tokio::test]
async fn callbacks_and_destinations_are_read_created_changed_and_archived() {
    let cd = service(Generation::CallbackDestinations).await;
    let callbacks = items(&cd.json(&["callbacks", "list", "--limit", "100"]).await);
    assert!(!callbacks.is_empty());
    assert!(callbacks.iter().all(|c| c["object"] == "callback"));
    let source = callbacks
        .iter()
        .find(|c| {
            c["status"] == "active"
                && !items(&serde_json::json!({"items": c["provider_triggers"]})).is_empty()
        })
        .expect("an active callback with triggers")
        .clone();
    let deployment = s(&source["provider_deployment"]["id"]);
    let trigger = s(&source["provider_triggers"][0]["provider_trigger"]["id"]);
    let types: Vec<String> = source["provider_triggers"][0]["event_types"]
        .as_array()
        .map(|a| a.iter().map(s).collect())
        .unwrap_or_default();
    let dests = items(&cd.json(&["destinations", "list", "--limit", "100"]).await);
    assert!(dests.iter().all(|d| d["object"] == "callback.destination"));
    assert!(
        dests.iter().any(|d| d["status"] == "archived"),
        "lists include archived destinations"
    );
    assert!(
        dests.iter().all(|d| d.get("signing_secret").is_none()),
        "never a secret in a list"
    );
    let active: Vec<String> = dests
        .iter()
        .filter(|d| d["status"] == "active")
        .map(|d| s(&d["id"]))
        .collect();
    assert!(active.len() >= 2, "{dests:?}");

    // Create: on the deployment, with a destination and a trigger narrowed to one type.
    let one_type = types.first().cloned().unwrap_or_default();
    let trig = format!("{trigger}={one_type}");
    let created = cd
        .json(&[
            "callbacks",
            "create",
            "--provider-deployment",
            &deployment,
            "--name",
            "Headless callback",
            "--description",
            "made by a test",
            "--destination",
            &active[0],
            "--trigger",
            &trig,
        ])
        .await;
    let id = s(&created["id"]);
    assert!(id.starts_with("cbk_"), "{created}");
    assert_eq!(created["provider_deployment"]["id"], deployment.as_str());
    assert_eq!(created["destinations"][0]["id"], active[0].as_str());
    assert_eq!(
        created["provider_triggers"][0]["event_types"],
        serde_json::json!([one_type])
    );

    // Update: the set of destinations is replaced, then emptied.
    let replaced = cd
        .json(&[
            "callbacks",
            "update",
            &id,
            "--name",
            "Renamed",
            "--destination",
            &active[1],
        ])
        .await;
    assert_eq!(replaced["name"], "Renamed");
    let now: Vec<String> = replaced["destinations"]
        .as_array()
        .map(|a| a.iter().map(|d| s(&d["id"])).collect())
        .unwrap_or_default();
    assert_eq!(now, vec![active[1].clone()]);
    let emptied = cd
        .json(&["callbacks", "update", &id, "--no-destinations"])
        .await;
    assert_eq!(emptied["destinations"], serde_json::json!([]));
    let both = cd
        .run(&[
            "callbacks",
            "update",
            &id,
            "--destination",
            &active[0],
            "--no-destinations",
        ])
        .await;
    assert_eq!(both.code, 2, "{both:?}");

    // Delete archives, and says so only with --yes when not on a terminal.
    let asked = cd.run(&["callbacks", "delete", &id]).await;
    assert_eq!(asked.code, 2, "{asked:?}");
    assert!(asked.stderr.contains("--yes"), "{asked:?}");
    let archived = cd.json(&["callbacks", "delete", &id, "--yes"]).await;
    assert_eq!(archived["status"], "archived");

    // Events of one callback, by type.
    let src = s(&source["id"]);
    let all_events = items(
        &cd.json(&["callbacks", "events", &src, "--limit", "100"])
            .await,
    );
    assert!(!all_events.is_empty(), "the demo callback received events");
    let a_type = s(&all_events[0]["type"]);
    let typed = items(
        &cd.json(&[
            "callbacks",
            "events",
            &src,
            "--type",
            &a_type,
            "--limit",
            "100",
        ])
        .await,
    );
    assert!(!typed.is_empty());
    assert!(
        typed.iter().all(|e| e["type"] == a_type.as_str()),
        "{typed:?}"
    );
    let no_id = cd.run(&["callbacks", "events"]).await;
    assert_eq!(no_id.code, 2, "{no_id:?}");

    // Destinations: created with a secret on the detailed answer, the URL editable, archived.
    let refused = cd
        .run(&[
            "destinations",
            "create",
            "--name",
            "x",
            "--url",
            "https://example.com/x",
            "--callback",
            &src,
        ])
        .await;
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(
        refused.stderr.contains("attach it from the callback"),
        "{refused:?}"
    );
    let d = cd
        .json(&[
            "destinations",
            "create",
            "--name",
            "Made",
            "--url",
            "http://127.0.0.1:9/in",
        ])
        .await;
    let did = s(&d["id"]);
    assert!(did.starts_with("cbd_"), "{d}");
    assert!(d["signing_secret"].is_string(), "{d}");
    let table = cd.run(&["-o", "table", "destinations", "get", &did]).await;
    assert_eq!(table.code, 0, "{table:?}");
    let moved = cd
        .json(&[
            "destinations",
            "update",
            &did,
            "--url",
            "http://127.0.0.1:9/moved",
            "--name",
            "Moved",
        ])
        .await;
    assert_eq!(moved["url"], "http://127.0.0.1:9/moved");
    assert_eq!(moved["name"], "Moved");
    let gone = cd.json(&["destinations", "delete", &did, "--yes"]).await;
    assert_eq!(gone["status"], "archived");
    cd.svc.shutdown().await;
}

#[tokio::test]
async fn notifications_merge_across_callbacks_and_are_found_without_their_callback() {
    let cd = service(Generation::CallbackDestinations).await;
    let merged = cd.json(&["notifications", "list", "--limit", "4"]).await;
    let got = items(&merged);
    assert_eq!(got.len(), 4, "{merged}");
    let times: Vec<String> = got.iter().map(|n| s(&n["created_at"])).collect();
    let mut sorted = times.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(times, sorted, "newest first");
    assert_eq!(merged["pagination"]["has_more_after"], true, "{merged}");
    // The newest of every callback: the first is the newest notification under any callback.
    let callbacks = items(&cd.json(&["callbacks", "list", "--limit", "100"]).await);
    let mut newest = String::new();
    let mut owner = String::new();
    for c in &callbacks {
        let page = items(
            &cd.json(&[
                "notifications",
                "list",
                "--callback",
                &s(&c["id"]),
                "--order",
                "desc",
                "--limit",
                "1",
            ])
            .await,
        );
        if let Some(n) = page.first()
            && s(&n["created_at"]) > newest
        {
            newest = s(&n["created_at"]);
            owner = s(&c["id"]);
        }
    }
    assert_eq!(times[0], newest);

    // The status filter keeps this generation's words; `succeeded` means `delivered`.
    for word in ["delivered", "succeeded"] {
        let page = items(
            &cd.json(&["notifications", "list", "--status", word, "--limit", "50"])
                .await,
        );
        assert!(!page.is_empty(), "{word}");
        assert!(
            page.iter().all(|n| n["status"] == "delivered"),
            "{word}: {page:?}"
        );
    }
    let failed = items(
        &cd.json(&["notifications", "list", "--status", "failed"])
            .await,
    );
    assert!(failed.iter().all(|n| n["status"] == "failed"));
    assert!(!failed.is_empty());
    let cancelled = cd
        .run(&["notifications", "list", "--status", "cancelled"])
        .await;
    assert_eq!(cancelled.code, 2, "{cancelled:?}");
    let after = cd
        .run(&["notifications", "list", "--after", &s(&got[0]["id"])])
        .await;
    assert_eq!(after.code, 2, "{after:?}");
    assert!(after.stderr.contains("need --callback"), "{after:?}");

    // Found without its callback (and said so), or asked of the callback named.
    let id = s(&got[0]["id"]);
    let found = cd.run(&["-o", "json", "notifications", "get", &id]).await;
    assert_eq!(found.code, 0, "{found:?}");
    assert_eq!(found.json()["id"], id.as_str());
    assert!(found.stderr.contains("found under callback"), "{found:?}");
    assert!(found.stderr.contains(&owner), "{found:?}");
    let direct = cd
        .run(&[
            "-o",
            "json",
            "notifications",
            "get",
            &id,
            "--callback",
            &owner,
        ])
        .await;
    assert_eq!(direct.code, 0, "{direct:?}");
    assert!(!direct.stderr.contains("found under"), "{direct:?}");
    assert!(
        direct.json()["event"]["request"]["body"].is_string(),
        "a get embeds the request"
    );
    let missing = cd
        .run(&["notifications", "get", "sdi_0000000000000nothinghere"])
        .await;
    assert_eq!(missing.code, 3, "{missing:?}");
    let table = cd.run(&["-o", "table", "notifications", "list"]).await;
    assert_eq!(table.code, 0, "{table:?}");
    assert!(
        table
            .stdout
            .lines()
            .next()
            .unwrap_or_default()
            .contains("ATTEMPTS"),
        "{table:?}"
    );
    cd.svc.shutdown().await;
}

#[tokio::test]
async fn replay_sends_the_embedded_request_signed_t_v1_with_the_destinations_secret() {
    let cd = service(Generation::CallbackDestinations).await;
    let (rx, log) = receiver().await;
    let delivered = items(
        &cd.json(&[
            "notifications",
            "list",
            "--status",
            "delivered",
            "--limit",
            "1",
        ])
        .await,
    );
    let id = s(&delivered[0]["id"]);
    let to = format!("{rx}/ok");
    let out = cd
        .run(&["-o", "json", "notifications", "replay", &id, "--to", &to])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let whole = cd.json(&["notifications", "get", &id]).await;
    let body = s(&whole["event"]["request"]["body"]);
    let sent = got(&log, "ok");
    assert_eq!(sent.len(), 1);
    assert_eq!(
        String::from_utf8_lossy(&sent[0].body),
        body,
        "the embedded body, byte for byte"
    );
    let h = &sent[0].headers;
    let header = |k: &str| {
        h.get(k)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(header("metorial-notification-id"), id);
    assert_eq!(header("metorial-version"), "2025-01-01");
    let sig = header("metorial-signature");
    assert!(
        sig.starts_with("t=") && sig.contains(",v1=") && !sig.contains("i="),
        "{sig}"
    );
    // Signed with the secret of the destination that sent it (matched by name or URL).
    let dests = items(&cd.json(&["destinations", "list", "--limit", "100"]).await);
    let dest = dests
        .iter()
        .find(|d| d["name"] == whole["destination"]["name"])
        .expect("the sending destination");
    let detail = cd.json(&["destinations", "get", &s(&dest["id"])]).await;
    let secret = s(&detail["signing_secret"]);
    assert!(!secret.is_empty(), "{detail}");
    // Checked as a receiver would, without the library: HMAC-SHA256(secret, "t.body").
    let t = sig
        .split(',')
        .find_map(|p| p.strip_prefix("t="))
        .unwrap_or_default();
    let v1 = sig
        .split(',')
        .find_map(|p| p.strip_prefix("v1="))
        .unwrap_or_default();
    let mut message = format!("{t}.").into_bytes();
    message.extend_from_slice(&sent[0].body);
    assert_eq!(hmac_hex(&secret, &message), v1, "{sig}");

    let unsigned = cd
        .run(&["notifications", "replay", &id, "--to", &to, "--unsigned"])
        .await;
    assert_eq!(unsigned.code, 0, "{unsigned:?}");
    let sent = got(&log, "ok");
    assert_eq!(sent.len(), 2);
    assert!(sent[1].headers.get("metorial-signature").is_none());
    let attempt = cd
        .run(&[
            "notifications",
            "replay",
            &id,
            "--to",
            &to,
            "--attempt",
            "1",
        ])
        .await;
    assert_eq!(attempt.code, 2, "{attempt:?}");
    assert_eq!(got(&log, "ok").len(), 2, "a refused replay sends nothing");
    cd.svc.shutdown().await;
}

#[tokio::test]
async fn verbs_the_generation_lacks_say_so_in_one_sentence() {
    let cd = service(Generation::CallbackDestinations).await;
    for args in [
        &["notifications", "diff", "sdi_x", "--with-attempt", "1"][..],
        &["notifications", "retry", "sdi_x"],
        &["notifications", "list", "--watch"],
        &["destinations", "ping", "cbd_x"],
        &["destinations", "rotate-secret", "cbd_x", "--yes"],
        &["callbacks", "instances"],
        &["listeners", "list"],
    ] {
        let out = cd.run(args).await;
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        let text = out.stderr.trim();
        assert!(text.contains("callback-destinations"), "{args:?}: {text}");
        assert_eq!(text.lines().count(), 1, "{args:?}: {text}");
    }
    // Teams and imports as on the newest generation.
    let teams = cd.json(&["teams", "list"]).await;
    assert!(!items(&teams).is_empty());
    let imports = cd.run(&["-o", "json", "imports", "list"]).await;
    assert_eq!(imports.code, 0, "{imports:?}");
    cd.svc.shutdown().await;

    // Pulsar: the new verbs and flags are refused before anything changes.
    let p = service(Generation::Pulsar).await;
    for args in [
        &[
            "callbacks",
            "create",
            "--provider-deployment",
            "pde_x",
            "--name",
            "n",
        ][..],
        &["callbacks", "delete", "clb_x", "--yes"],
    ] {
        let out = p.run(args).await;
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(out.stderr.contains("pulsar"), "{args:?}: {out:?}");
    }
    let dests = items(&p.json(&["destinations", "list"]).await);
    let d = s(&dests[0]["id"]);
    let url = p
        .run(&[
            "destinations",
            "update",
            &d,
            "--url",
            "http://127.0.0.1:9/x",
        ])
        .await;
    assert_eq!(url.code, 2, "{url:?}");
    // Pulsar's wait refuses the newer generations' word, as its parser did.
    let word = p
        .run(&[
            "notifications",
            "wait",
            "--for",
            "status=delivered",
            "--timeout",
            "1s",
        ])
        .await;
    assert_eq!(word.code, 2, "{word:?}");
    assert!(word.stderr.contains("not a status"), "{word:?}");
    p.svc.shutdown().await;
}

#[tokio::test]
async fn wait_reads_the_callbacks_notifications_and_a_failure_wins() {
    let cd = service(Generation::CallbackDestinations).await;
    let callbacks = items(&cd.json(&["callbacks", "list", "--limit", "100"]).await);
    let named = |name: &str| {
        callbacks
            .iter()
            .find(|c| c["name"] == name)
            .map(|c| s(&c["id"]))
            .unwrap_or_else(|| panic!("{name} in the demo seed"))
    };
    let (github, slack) = (named("GitHub issues"), named("Slack mentions"));
    // `succeeded` is this generation's `delivered`; what it ended on is printed a line each.
    let ok = cd
        .run(&[
            "-o",
            "json",
            "notifications",
            "wait",
            "--callback",
            &github,
            "--for",
            "status=succeeded",
            "--count",
            "2",
            "--timeout",
            "5s",
        ])
        .await;
    assert_eq!(ok.code, 0, "{ok:?}");
    let lines: Vec<Value> = ok
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(lines.len(), 2, "{ok:?}");
    assert!(lines.iter().all(|n| n["status"] == "delivered"), "{ok:?}");
    // The Slack callback's dead receiver failed: that wins over the count reached.
    let failed = cd
        .run(&[
            "notifications",
            "wait",
            "--callback",
            &slack,
            "--for",
            "status=delivered",
            "--timeout",
            "5s",
        ])
        .await;
    assert_eq!(failed.code, 3, "{failed:?}");
    assert!(failed.stderr.contains("ended failed"), "{failed:?}");
    // Never enough pending: the timeout, exit 5.
    let late = cd
        .run(&[
            "notifications",
            "wait",
            "--callback",
            &github,
            "--for",
            "status=pending",
            "--count",
            "50",
            "--timeout",
            "1s",
            "--interval",
            "200ms",
        ])
        .await;
    assert_eq!(late.code, 5, "{late:?}");
    let event = cd
        .run(&[
            "notifications",
            "wait",
            "--for",
            "status=failed",
            "--event",
            "sev_x",
        ])
        .await;
    assert_eq!(event.code, 2, "{event:?}");
    cd.svc.shutdown().await;
}

/// `destinations stats` on callback-destinations: pulsar's document (the same keys), counting the
/// destination's notifications under every callback (the platform's `destination_id` filter) as
/// the console's destination detail does.
#[tokio::test]
async fn destinations_stats_counts_a_callback_destinations_notifications() {
    let cd = service(Generation::CallbackDestinations).await;
    let callbacks = items(&cd.json(&["callbacks", "list", "--limit", "100"]).await);
    let dests = items(&cd.json(&["destinations", "list", "--limit", "100"]).await);
    // Per destination, its notifications as the platform filters them (every status).
    let mut best: Option<(usize, Value)> = None;
    for d in &dests {
        let id = s(&d["id"]);
        let mut n = Vec::new();
        for c in &callbacks {
            let page = cd
                .json(&[
                    "notifications",
                    "list",
                    "--callback",
                    &s(&c["id"]),
                    "--destination",
                    &id,
                    "--limit",
                    "100",
                ])
                .await;
            n.extend(items(&page));
        }
        if best.as_ref().is_none_or(|(m, _)| n.len() > *m) {
            best = Some((n.len(), serde_json::json!({"id": id, "items": n})));
        }
    }
    let (count, d) = best.expect("a destination");
    assert!(count > 0, "the demo has notifications");
    let id = s(&d["id"]);
    let doc = cd
        .json(&["destinations", "stats", &id, "--window", "7d"])
        .await;
    assert_eq!(doc["object"], "switchboard.destination_stats");
    assert_eq!(doc["destination_id"], id.as_str());
    assert_eq!(doc["window"], "7d");
    assert_eq!(doc["notifications"].as_u64(), Some(count as u64), "{doc}");
    for key in [
        "success_percent",
        "attempt_success_percent",
        "succeeded",
        "failed",
        "retrying",
        "pending",
        "retried",
        "attempts",
        "attempts_succeeded",
        "latency_ms",
        "from",
        "to",
    ] {
        assert!(doc.get(key).is_some(), "{key}: {doc}");
    }
    // Attempts come from each notification's count; this generation records no latencies.
    assert_eq!(doc["latency_ms"]["samples"].as_u64(), Some(0), "{doc}");
    let table = cd.run(&["destinations", "stats", &id]).await;
    assert_eq!(table.code, 0, "{table:?}");
    assert!(table.stdout.contains("succeeded"), "{}", table.stdout);
    // An unknown destination: the platform's 404, not a count of nothing.
    let none = cd.run(&["destinations", "stats", "cbd_nosuch"]).await;
    assert_ne!(none.code, 0, "{none:?}");
    cd.svc.shutdown().await;
}
