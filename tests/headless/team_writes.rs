//! `teams create | update | add-member | remove-member` mean the same on pulsar and on both newer
//! generations (contract §4): one scenario, run as processes against `serve --generation G` over
//! real HTTP, each answer the whole refreshed team; project roles stay refused where they are gone.
use std::process::{Command, Stdio};

use serde_json::Value;
use switchboard::api::Secret;
use switchboard::api::generation::Generation;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

const ORG_KEY: &str = "sk_org_headless_team_writes_0123456789";
const INSTANCE_KEY: &str = "sk_instance_headless_team_writes_0123456789";

const GENERATIONS: [Generation; 3] = [
    Generation::Pulsar,
    Generation::CallbackDestinations,
    Generation::EventDestinations,
];

struct Svc {
    svc: RunningService,
    /// Pulsar knows one key, for every path.
    org_key: &'static str,
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
    let newer = generation != Generation::Pulsar;
    let svc = start(ServiceConfig {
        seed: Seed::Demo,
        generation,
        api_key: Some(Secret::new(if newer { ORG_KEY } else { INSTANCE_KEY })),
        instance_key: newer.then(|| Secret::new(INSTANCE_KEY)),
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
        org_key: if newer { ORG_KEY } else { INSTANCE_KEY },
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
            .env("SB_TEST_ORG_KEY", self.org_key)
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

    /// The ids of the teams the member with this email belongs to (from `members list`).
    async fn teams_of(&self, email: &str) -> Vec<String> {
        let out = self
            .run(&["-o", "json", "members", "list", "--limit", "100"])
            .await;
        assert_eq!(out.code, 0, "{out:?}");
        out.json()["items"]
            .as_array()
            .and_then(|a| a.iter().find(|m| m["email"] == email).cloned())
            .and_then(|m| m["actor"]["teams"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|t| t["id"].as_str().map(str::to_string))
            .collect()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn team_writes_mean_the_same_on_every_generation() {
    for g in GENERATIONS {
        let s = service(g).await;
        // Create: the API's object, a new team without members.
        let out = s
            .run(&[
                "-o",
                "json",
                "teams",
                "create",
                "--name",
                "Night shift",
                "--description",
                "Pages at night",
            ])
            .await;
        assert_eq!(out.code, 0, "{g}: {out:?}");
        let team = out.json();
        assert_eq!(team["name"], "Night shift", "{g}: {team}");
        assert_eq!(team["description"], "Pages at night", "{g}: {team}");
        let id = team["id"].as_str().expect("team id").to_string();
        assert!(id.starts_with("tm_"), "{g}: {id}");
        if g != Generation::Pulsar {
            assert_eq!(team["object"], "management.team", "{g}: {team}");
            assert!(team["policies"].is_array(), "{g}: {team}");
        }

        // Update (POST): the refreshed team, by id.
        let out = s
            .run(&["-o", "json", "teams", "update", &id, "--name", "Night owls"])
            .await;
        assert_eq!(out.code, 0, "{g}: {out:?}");
        assert_eq!(out.json()["name"], "Night owls", "{g}: {}", out.stdout);
        assert_eq!(out.json()["id"], id.as_str(), "{g}");
        let got = s.run(&["-o", "json", "teams", "get", &id]).await;
        assert_eq!(got.json()["name"], "Night owls", "{g}: {got:?}");

        // A member named by email joins, shows on the member, and cannot join twice.
        let members = s
            .run(&["-o", "json", "members", "list", "--limit", "100"])
            .await
            .json();
        let email = members["items"]
            .as_array()
            .and_then(|a| {
                a.iter()
                    .filter_map(|m| m["email"].as_str())
                    .find(|e| !e.is_empty())
            })
            .expect("a member with an email")
            .to_string();
        assert!(!s.teams_of(&email).await.contains(&id), "{g}");
        let out = s
            .run(&["-o", "json", "teams", "add-member", &id, &email])
            .await;
        assert_eq!(out.code, 0, "{g}: {out:?}");
        assert_eq!(out.json()["id"], id.as_str(), "{g}: {}", out.stdout);
        assert!(out.stderr.is_empty(), "{g}: JSON alone: {out:?}");
        assert!(s.teams_of(&email).await.contains(&id), "{g}");
        let again = s.run(&["teams", "add-member", &id, &email]).await;
        assert_eq!(again.code, 2, "{g}: {again:?}");
        assert!(
            again.stderr.contains("already a member of team Night owls"),
            "{g}: {again:?}"
        );

        // Removed, with the table's sentence naming who and where.
        let out = s
            .run(&["-o", "table", "teams", "remove-member", &id, &email])
            .await;
        assert_eq!(out.code, 0, "{g}: {out:?}");
        assert!(
            out.stderr.contains("removed from team Night owls"),
            "{g}: {out:?}"
        );
        assert!(out.stdout.contains("Night owls"), "{g}: {out:?}");
        assert!(!s.teams_of(&email).await.contains(&id), "{g}");

        // Project roles: pulsar's alone; the newer generations say why in one sentence.
        if g != Generation::Pulsar {
            let out = s
                .run(&[
                    "teams",
                    "set-project",
                    &id,
                    "--project",
                    "core",
                    "--role",
                    "admin",
                ])
                .await;
            assert_eq!(out.code, 2, "{g}: {out:?}");
            assert_eq!(out.stderr.lines().count(), 1, "{g}: {out:?}");
            assert!(out.stderr.contains("access policies"), "{g}: {out:?}");
        }
        s.svc.shutdown().await;
    }
}

/// A team the server does not know is the API's 404 (exit 3), not a refusal, on the newer
/// generations as on pulsar.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_team_is_the_apis_not_found() {
    for g in GENERATIONS {
        let s = service(g).await;
        let out = s
            .run(&["teams", "update", "tm_nosuchteam000", "--name", "x"])
            .await;
        assert_eq!(out.code, 3, "{g}: {out:?}");
        s.svc.shutdown().await;
    }
}

/// #34: `--generation pulsar` against an event-destinations server is said in one sentence on
/// standard error, and the server's generation runs (its teams, as the API sends them); a pin the
/// server agrees with says nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pin_the_server_contradicts_is_said_in_one_sentence() {
    let s = service(Generation::EventDestinations).await;
    let out = s
        .run(&["--generation", "pulsar", "-o", "json", "teams", "list"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{out:?}");
    assert!(
        lines[0].contains("--generation pins generation pulsar")
            && lines[0].contains("event-destinations"),
        "{}",
        lines[0]
    );
    assert_eq!(
        out.json()["items"][0]["object"],
        "management.team",
        "{out:?}"
    );
    // A pin that agrees says nothing.
    let out = s
        .run(&[
            "--generation",
            "event-destinations",
            "-o",
            "json",
            "teams",
            "list",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
    s.svc.shutdown().await;
}
