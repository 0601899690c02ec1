//! `callbacks create|update|delete` against `serve --generation event-destinations` over real
//! HTTP: a callback created on an integration's provider, renamed and deleted, the server's state
//! read back after each; the other generation's flags and a missing required flag exit 2 with one
//! sentence on both newer generations, before anything is written.
use std::process::{Command, Stdio};

use serde_json::Value;
use switchboard::api::Secret;
use switchboard::api::generation::Generation;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

const ORG_KEY: &str = "sk_org_headless_callback_writes_0123456789";
const INSTANCE_KEY: &str = "sk_instance_headless_callback_writes_0123456789";

struct Svc {
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

async fn service(generation: Generation) -> Svc {
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
    Svc {
        svc,
        instance,
        home,
    }
}

impl Svc {
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

    /// The callbacks the server holds now, as `callbacks list --all` reads them.
    async fn callbacks(&self) -> Vec<Value> {
        let out = self
            .run(&["-o", "json", "callbacks", "list", "--all"])
            .await;
        assert_eq!(out.code, 0, "{out:?}");
        let v = out.json();
        v.as_array()
            .or_else(|| v["items"].as_array())
            .cloned()
            .unwrap_or_default()
    }
}

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// One line on stderr, exit 2, saying `said`.
fn one_sentence(out: &Out, said: &str) {
    assert_eq!(out.code, 2, "{out:?}");
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{out:?}");
    assert!(lines[0].contains(said), "{}", lines[0]);
}

#[tokio::test]
async fn event_destinations_callbacks_are_created_changed_and_deleted() {
    let ed = service(Generation::EventDestinations).await;
    let before = ed.callbacks().await;
    let source = before.first().cloned().expect("a seeded callback");
    let integration = s(&source["integration_id"]);
    let provider = s(&source["integration_provider_id"]);
    assert!(!integration.is_empty() && !provider.is_empty(), "{source}");

    // Created on the integration's provider: -o json is the API's object.
    let out = ed
        .run(&[
            "-o",
            "json",
            "callbacks",
            "create",
            "--integration",
            &integration,
            "--integration-provider",
            &provider,
            "--name",
            "Made headless",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let created = out.json();
    assert_eq!(created["object"], "callback", "{created}");
    assert_eq!(created["name"], "Made headless");
    assert_eq!(created["integration_provider_id"], provider.as_str());
    let id = s(&created["id"]);
    let held = ed.callbacks().await;
    assert_eq!(held.len(), before.len() + 1, "the server holds one more");
    assert!(held.iter().any(|c| c["id"] == id.as_str()), "{held:?}");

    // Renamed and described; the server's copy says so.
    let out = ed
        .run(&[
            "-o",
            "json",
            "callbacks",
            "update",
            &id,
            "--name",
            "Renamed",
            "--description",
            "from a script",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["name"], "Renamed");
    let got = ed.run(&["-o", "json", "callbacks", "get", &id]).await;
    assert_eq!(got.code, 0, "{got:?}");
    assert_eq!(got.json()["name"], "Renamed");
    assert_eq!(got.json()["description"], "from a script");

    // Delete asks; off a terminal it needs --yes and changes nothing without it.
    let out = ed.run(&["callbacks", "delete", &id]).await;
    one_sentence(&out, "--yes");
    let got = ed.run(&["-o", "json", "callbacks", "get", &id]).await;
    assert_eq!(got.json()["status"], "active", "{got:?}");
    let out = ed
        .run(&["-o", "json", "callbacks", "delete", &id, "--yes"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["status"], "deleted");
    let got = ed.run(&["-o", "json", "callbacks", "get", &id]).await;
    assert_eq!(got.json()["status"], "deleted", "{got:?}");

    // The other generation's flags and a missing required flag: one sentence, nothing made.
    let count = ed.callbacks().await.len();
    let out = ed
        .run(&[
            "callbacks",
            "create",
            "--provider-deployment",
            "pde_x",
            "--name",
            "n",
        ])
        .await;
    one_sentence(&out, "--integration");
    let out = ed
        .run(&["callbacks", "create", "--integration", &integration])
        .await;
    one_sentence(&out, "--integration-provider");
    let out = ed
        .run(&["callbacks", "update", &id, "--no-destinations"])
        .await;
    one_sentence(&out, "listeners");
    assert_eq!(ed.callbacks().await.len(), count, "nothing was created");
    ed.svc.shutdown().await;
}

#[tokio::test]
async fn callback_destinations_create_says_which_flags_it_needs() {
    let cd = service(Generation::CallbackDestinations).await;
    let out = cd
        .run(&[
            "callbacks",
            "create",
            "--integration",
            "int_x",
            "--integration-provider",
            "inp_x",
        ])
        .await;
    one_sentence(&out, "--provider-deployment");
    let out = cd
        .run(&["callbacks", "create", "--provider-deployment", "pde_x"])
        .await;
    one_sentence(&out, "--name");
    cd.svc.shutdown().await;
}
