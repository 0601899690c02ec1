//! Issue 39 on the newest generation (`serve --generation event-destinations`, over real HTTP):
//! `notifications keep` keeps a delivery's attempt as a sample, `notifications export` writes its
//! deliveries with their attempts and the event destinations they involve (fresh secrets), and
//! `notifications search` runs jq over each latest attempt.
use std::process::{Command, Stdio};

use serde_json::Value;
use switchboard::api::Secret;
use switchboard::api::generation::Generation;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

const ORG_KEY: &str = "sk_org_headless_repro_0123456789";
const INSTANCE_KEY: &str = "sk_instance_headless_repro_0123456789";

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

async fn run(svc: &RunningService, instance: &str, home: &std::path::Path, args: &[&str]) -> Out {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("SWITCHBOARD_BASE_URL", &svc.base_url)
        .env("SWITCHBOARD_API_KEY", INSTANCE_KEY)
        .env("SWITCHBOARD_INSTANCE_ID", instance)
        .env("SB_TEST_ORG_KEY", ORG_KEY)
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

#[tokio::test]
async fn deliveries_are_kept_exported_and_searched() {
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
    let h = home.path();
    let dests = run(
        &svc,
        &instance,
        h,
        &["-o", "json", "destinations", "list", "--limit", "100"],
    )
    .await
    .json();
    let dest = dests["items"]
        .as_array()
        .and_then(|a| a.iter().find(|d| d["status"] == "active"))
        .and_then(|d| d["id"].as_str())
        .map(str::to_string)
        .expect("an active destination");
    // A delivery with one attempt recorded.
    let ping = run(
        &svc,
        &instance,
        h,
        &[
            "-o",
            "json",
            "destinations",
            "ping",
            &dest,
            "--timeout",
            "60s",
        ],
    )
    .await;
    assert_eq!(ping.code, 0, "{ping:?}");
    let delivery = ping.json()["id"]
        .as_str()
        .expect("a delivery id")
        .to_string();
    // The delivery embeds its attempt without the request; the attempt itself holds it.
    let attempt = ping.json()["attempts"][0]["id"]
        .as_str()
        .expect("an attempt")
        .to_string();
    let got = run(
        &svc,
        &instance,
        h,
        &["-o", "json", "notifications", "get", &delivery],
    )
    .await;
    assert_eq!(got.code, 0, "{got:?}");
    let svc_client = switchboard::api::Client::new(switchboard::api::ClientOptions {
        base_url: svc.base_url.clone(),
        api_key: Secret::new(ORG_KEY),
        ..switchboard::api::ClientOptions::default()
    })
    .expect("client");
    let raw = svc_client
        .send(&switchboard::api::ApiRequest::get_delivery_attempt(
            &attempt,
        ))
        .await
        .expect("the attempt");
    let full: Value = serde_json::from_str(&raw.body).expect("json");
    let body = full["request"]["body"]
        .as_str()
        .unwrap_or_else(|| panic!("a recorded body: {full}"))
        .to_string();

    let kept = run(
        &svc,
        &instance,
        h,
        &[
            "-o",
            "json",
            "notifications",
            "keep",
            &delivery,
            "--name",
            "ping-1",
        ],
    )
    .await;
    assert_eq!(kept.code, 0, "{kept:?}");
    assert_eq!(kept.json()["destination"]["id"], dest.as_str());
    let file = h.join("data/switchboard/samples/default/ping-1.json");
    let sample: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("the sample")).expect("json");
    assert_eq!(sample["body"], body.as_str());
    assert_eq!(sample["notification_id"], delivery.as_str());
    let again = run(
        &svc,
        &instance,
        h,
        &["notifications", "keep", &delivery, "--name", "ping-1"],
    )
    .await;
    assert_eq!(again.code, 2, "an existing name needs --force: {again:?}");

    let bundle = h.join("incident.ndjson");
    let exported = run(
        &svc,
        &instance,
        h,
        &[
            "-o",
            "json",
            "notifications",
            "export",
            "--destination",
            &dest,
            "--out",
            &bundle.to_string_lossy(),
        ],
    )
    .await;
    assert_eq!(exported.code, 0, "{exported:?}");
    let lines: Vec<Value> = std::fs::read_to_string(&bundle)
        .expect("bundle")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines[0]["kind"], "manifest");
    assert_eq!(lines[0]["generation"], "event-destinations");
    let d = lines
        .iter()
        .find(|l| l["kind"] == "delivery" && l["id"] == delivery.as_str())
        .expect("the delivery");
    assert_eq!(d["attempts"][0]["request"]["body"], body.as_str());
    let exported_dest = lines
        .iter()
        .find(|l| l["kind"] == "destination" && l["id"] == dest.as_str())
        .expect("its destination");
    let secret = exported_dest["webhook"]["signing_secret"]
        .as_str()
        .unwrap_or_default();
    assert!(
        secret.starts_with("clb_sec_"),
        "a fresh secret: {exported_dest}"
    );
    assert_eq!(
        lines[0]["counts"]["deliveries"].as_u64(),
        Some(lines.iter().filter(|l| l["kind"] == "delivery").count() as u64)
    );

    let found = run(
        &svc,
        &instance,
        h,
        &[
            "-o",
            "json",
            "notifications",
            "search",
            "true",
            "--destination",
            &dest,
        ],
    )
    .await;
    assert_eq!(found.code, 0, "{found:?}");
    assert!(found.stdout.contains(&delivery), "{found:?}");
    let none = run(
        &svc,
        &instance,
        h,
        &[
            "-o",
            "json",
            "notifications",
            "search",
            "false",
            "--destination",
            &dest,
        ],
    )
    .await;
    assert_eq!(none.code, 0, "{none:?}");
    assert!(none.stdout.trim().is_empty(), "{none:?}");
    assert!(none.stderr.contains("matched 0"), "{none:?}");
    svc.shutdown().await;
}
