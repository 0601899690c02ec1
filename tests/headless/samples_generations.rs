//! Issue 39's samples on the newer generations (`serve --generation event-destinations` and
//! `callback-destinations`, over real HTTP): `notifications keep` keeps a delivery's attempt (read
//! by the attempt's id) or a notification's embedded request, `samples list|show|rm` read the
//! profile's library, and `samples send` signs `t=…,v1=…` over `t.body` as the generation signs,
//! checked by a loopback receiver without the library.
use std::process::{Command, Stdio};

use serde_json::Value;
use switchboard::api::Secret;
use switchboard::api::generation::Generation;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

use crate::common::replay::{Got, got, hmac_hex, receiver};

const ORG_KEY: &str = "sk_org_headless_samples_gen_0123456789";
const INSTANCE_KEY: &str = "sk_instance_headless_samples_gen_0123456789";

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

struct Rig {
    svc: RunningService,
    instance: String,
    home: tempfile::TempDir,
}

async fn rig(generation: Generation) -> Rig {
    let svc = start(ServiceConfig {
        seed: Seed::Demo,
        generation,
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
    Rig {
        svc,
        instance,
        home,
    }
}

impl Rig {
    async fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Out {
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
            .envs(env.iter().copied())
            .args(args)
            .stdin(Stdio::null());
        let out = tokio::task::spawn_blocking(move || cmd.output().expect("run switchboard"))
            .await
            .expect("joined");
        Out {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    async fn run(&self, args: &[&str]) -> Out {
        self.run_env(args, &[]).await
    }

    async fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["-o", "json"];
        all.extend_from_slice(args);
        let out = self.run(&all).await;
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        out.json()
    }
}

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

fn header(g: &Got, k: &str) -> String {
    g.headers
        .get(k)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// Checks `t=…,v1=…` over `t.body` with `secret`, as a receiver would: no `i=` part.
fn verify_newer(secret: &str, g: &Got) {
    let sig = header(g, "metorial-signature");
    assert!(
        sig.starts_with("t=") && !sig.contains("i="),
        "the newer form: {sig}"
    );
    let part = |k: &str| {
        sig.split(',')
            .find_map(|p| p.strip_prefix(&format!("{k}=")))
            .unwrap_or_default()
            .to_string()
    };
    let mut message = format!("{}.", part("t")).into_bytes();
    message.extend_from_slice(&g.body);
    assert_eq!(hmac_hex(secret, &message), part("v1"), "{sig}");
}

/// Lists, shows and removes `name` through the library, as on pulsar.
async fn list_show_rm(r: &Rig, name: &str, id: &str, body: &str) {
    let list = r.json(&["samples", "list"]).await;
    let row = list
        .as_array()
        .and_then(|a| a.iter().find(|s| s["name"] == name))
        .unwrap_or_else(|| panic!("{name} listed: {list}"));
    assert_eq!(row["notification_id"], id);
    let shown = r.json(&["samples", "show", name]).await;
    assert_eq!(shown["body"], body);
    let table = r.run(&["samples", "show", name, "-o", "table"]).await;
    assert_eq!(table.code, 0, "{table:?}");
    assert!(table.stdout.contains("BODY"), "{table:?}");
    let rm = r.run(&["samples", "rm", name, "--yes"]).await;
    assert_eq!(rm.code, 0, "{rm:?}");
    let gone = r.run(&["samples", "show", name]).await;
    assert_eq!(gone.code, 2, "{gone:?}");
}

#[tokio::test]
async fn an_event_destinations_delivery_is_kept_listed_sent_signed_and_removed() {
    let r = rig(Generation::EventDestinations).await;
    let (rx, log) = receiver().await;
    let dests = r.json(&["destinations", "list", "--limit", "100"]).await;
    let dest = dests["items"]
        .as_array()
        .and_then(|a| a.iter().find(|d| d["status"] == "active"))
        .map(|d| s(&d["id"]))
        .expect("an active destination");
    let ping = r
        .json(&["destinations", "ping", &dest, "--timeout", "60s"])
        .await;
    let delivery = s(&ping["id"]);
    let kept = r
        .json(&["notifications", "keep", &delivery, "--name", "ping-1"])
        .await;
    assert_eq!(kept["destination"]["id"], dest.as_str());
    let file = r
        .home
        .path()
        .join("data/switchboard/samples/default/ping-1.json");
    let sample: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("the sample")).expect("json");
    let body = s(&sample["body"]);
    assert!(!body.is_empty(), "{sample}");

    let to = format!("{rx}/ok");
    // The platform shows the secret only on create and rotate: one sentence, nothing sent.
    let needs = r.run(&["samples", "send", "ping-1", "--to", &to]).await;
    assert_eq!(needs.code, 2, "{needs:?}");
    assert_eq!(needs.stderr.trim().lines().count(), 1, "{needs:?}");
    assert!(needs.stderr.contains("--secret-env"), "{needs:?}");
    assert!(got(&log, "ok").is_empty());

    let secret = "whsec_receiver_under_repair_0123";
    let sent = r
        .run_env(
            &[
                "-o",
                "json",
                "samples",
                "send",
                "ping-1",
                "--to",
                &to,
                "--secret-env",
                "SB_TEST_SECRET",
            ],
            &[("SB_TEST_SECRET", secret)],
        )
        .await;
    assert_eq!(sent.code, 0, "{sent:?}");
    assert_eq!(sent.json()["sample"], "ping-1");
    let g = got(&log, "ok");
    assert_eq!(g.len(), 1);
    assert_eq!(String::from_utf8_lossy(&g[0].body), body, "byte for byte");
    verify_newer(secret, &g[0]);
    // §7: the timestamp header is the signature's `t`.
    let sig = header(&g[0], "metorial-signature");
    assert!(
        sig.starts_with(&format!("t={},", header(&g[0], "metorial-timestamp"))),
        "{sig}"
    );

    let unsigned = r
        .run(&["samples", "send", "ping-1", "--to", &to, "--unsigned"])
        .await;
    assert_eq!(unsigned.code, 0, "{unsigned:?}");
    let g = got(&log, "ok");
    assert_eq!(g.len(), 2);
    assert!(g[1].headers.get("metorial-signature").is_none());
    assert_eq!(String::from_utf8_lossy(&g[1].body), body);

    // Its destination archived: sent unsigned, and said.
    let archived = r.run(&["destinations", "archive", &dest, "--yes"]).await;
    assert_eq!(archived.code, 0, "{archived:?}");
    let gone = r.run(&["samples", "send", "ping-1", "--to", &to]).await;
    assert_eq!(gone.code, 0, "{gone:?}");
    assert!(gone.stderr.contains("sending unsigned"), "{gone:?}");
    assert!(
        got(&log, "ok")[2]
            .headers
            .get("metorial-signature")
            .is_none()
    );

    list_show_rm(&r, "ping-1", &delivery, &body).await;
    r.svc.shutdown().await;
}

#[tokio::test]
async fn a_callback_destinations_notification_is_kept_listed_sent_signed_and_removed() {
    let r = rig(Generation::CallbackDestinations).await;
    let (rx, log) = receiver().await;
    let delivered = r
        .json(&[
            "notifications",
            "list",
            "--status",
            "delivered",
            "--limit",
            "1",
        ])
        .await;
    let id = s(&delivered["items"][0]["id"]);
    let whole = r.json(&["notifications", "get", &id]).await;
    let body = s(&whole["event"]["request"]["body"]);
    assert!(!body.is_empty(), "{whole}");
    let kept = r
        .json(&["notifications", "keep", &id, "--name", "cb-1"])
        .await;
    assert_eq!(kept["notification_id"], id.as_str());
    let dest_id = s(&kept["destination"]["id"]);
    assert!(!dest_id.is_empty(), "the sending destination: {kept}");
    let attempt = r
        .run(&[
            "notifications",
            "keep",
            &id,
            "--name",
            "cb-2",
            "--attempt",
            "1",
        ])
        .await;
    assert_eq!(attempt.code, 2, "{attempt:?}");

    let to = format!("{rx}/ok");
    let sent = r
        .run(&["-o", "json", "samples", "send", "cb-1", "--to", &to])
        .await;
    assert_eq!(sent.code, 0, "{sent:?}");
    let g = got(&log, "ok");
    assert_eq!(g.len(), 1);
    assert_eq!(String::from_utf8_lossy(&g[0].body), body, "byte for byte");
    assert_eq!(header(&g[0], "metorial-notification-id"), id);
    // Signed with the secret the platform gives for the sending destination (§6).
    let detail = r.json(&["destinations", "get", &dest_id]).await;
    let secret = s(&detail["signing_secret"]);
    assert!(!secret.is_empty(), "{detail}");
    verify_newer(&secret, &g[0]);
    assert!(
        g[0].headers.get("metorial-timestamp").is_none(),
        "§6 has no timestamp header"
    );

    list_show_rm(&r, "cb-1", &id, &body).await;
    r.svc.shutdown().await;
}
