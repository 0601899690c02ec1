//! The headless verbs against `serve --generation event-destinations` over real HTTP: the faces
//! choose their verbs by the deployment's generation (detected, or pinned), the reads print the
//! API's objects and tables, the writes reach the platform's operations, a verb a generation
//! lacks exits 2 with one sentence, and a refused key is named.
use std::process::{Command, Stdio};

use serde_json::Value;
use switchboard::api::Secret;
use switchboard::api::generation::Generation;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

const ORG_KEY: &str = "sk_org_headless_generations_0123456789";
const INSTANCE_KEY: &str = "sk_instance_headless_generations_0123456789";

struct Ed {
    svc: RunningService,
    instance: String,
    home: tempfile::TempDir,
}

async fn service(generation: Generation) -> Ed {
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
    // The organization key through the profile, as an operator gives it.
    std::fs::write(
        conf.join("config.toml"),
        "[profiles.default]\norganization_key_env = \"SB_TEST_ORG_KEY\"\n",
    )
    .expect("config");
    Ed {
        svc,
        instance,
        home,
    }
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

impl Ed {
    fn cmd(&self, org_key: bool) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_switchboard"));
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path().join("config"))
            .env("XDG_DATA_HOME", self.home.path().join("data"))
            .env("SWITCHBOARD_BASE_URL", &self.svc.base_url)
            .env("SWITCHBOARD_API_KEY", INSTANCE_KEY)
            .env("SWITCHBOARD_INSTANCE_ID", &self.instance)
            .stdin(Stdio::null());
        if org_key {
            cmd.env("SB_TEST_ORG_KEY", ORG_KEY);
        } else {
            // The profile names the variable; left empty, it is no key.
            cmd.env("SB_TEST_ORG_KEY", INSTANCE_KEY);
        }
        cmd
    }

    async fn run_with(&self, org_key: bool, args: &[&str]) -> Out {
        let mut cmd = self.cmd(org_key);
        cmd.args(args);
        let out = tokio::task::spawn_blocking(move || cmd.output().expect("run switchboard"))
            .await
            .expect("joined");
        Out {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Run with one more variable and standard input given.
    async fn run_fed(&self, args: &[&str], var: (&str, &str), stdin: &str) -> Out {
        use std::io::Write as _;
        let mut cmd = self.cmd(true);
        cmd.args(args).env(var.0, var.1).stdin(Stdio::piped());
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let input = stdin.to_string();
        let out = tokio::task::spawn_blocking(move || {
            let mut child = cmd.spawn().expect("run switchboard");
            if let Some(mut w) = child.stdin.take() {
                // The command may refuse before reading: a closed pipe is its answer.
                let _ = w.write_all(input.as_bytes());
            }
            child.wait_with_output().expect("output")
        })
        .await
        .expect("joined");
        Out {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    async fn run(&self, args: &[&str]) -> Out {
        self.run_with(true, args).await
    }
}

fn ids(v: &Value) -> Vec<String> {
    v["items"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x["id"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn reads_print_the_platforms_objects_and_tables() {
    let ed = service(Generation::EventDestinations).await;
    for (args, object, prefix) in [
        (
            &["-o", "json", "teams", "list"][..],
            "management.team",
            "tm",
        ),
        (
            &["-o", "json", "policies", "list"],
            "management.access_policy",
            "apl_",
        ),
        (
            &["-o", "json", "imports", "list"],
            "provider.auth_import",
            "paci_",
        ),
        (&["-o", "json", "callbacks", "list"], "callback", "cbk_"),
        (
            &["-o", "json", "callbacks", "events"],
            "callback_event",
            "cbe_",
        ),
        (
            &["-o", "json", "destinations", "list"],
            "event.destination",
            "evtd_",
        ),
        (&["-o", "json", "listeners", "list"], "", ""),
        (&["-o", "json", "events", "list"], "event", "evnt_"),
        (
            &["-o", "json", "notifications", "list"],
            "event.delivery",
            "evdi_",
        ),
    ] {
        let out = ed.run(args).await;
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        let page = out.json();
        let items = page["items"].as_array().cloned().unwrap_or_default();
        assert!(
            !items.is_empty(),
            "{args:?}: the demo seed has some: {page}"
        );
        if !object.is_empty() {
            assert_eq!(items[0]["object"], object, "{args:?}");
            assert!(
                items[0]["id"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with(prefix),
                "{args:?}: {}",
                items[0]["id"]
            );
        }
    }
    // A get prints the object, and a table its columns.
    let deliveries = ed
        .run(&["-o", "json", "notifications", "list"])
        .await
        .json();
    let first = ids(&deliveries).first().cloned().expect("a delivery");
    let one = ed
        .run(&["-o", "json", "notifications", "get", &first])
        .await;
    assert_eq!(one.code, 0, "{one:?}");
    assert_eq!(one.json()["id"], first.as_str());
    let table = ed.run(&["-o", "table", "destinations", "list"]).await;
    assert_eq!(table.code, 0, "{table:?}");
    let header = table.stdout.lines().next().unwrap_or_default();
    for col in ["ID", "NAME", "STATUS", "URL", "RETRY", "LISTENERS"] {
        assert!(header.contains(col), "{header}");
    }
    assert!(table.stdout.contains("evtd_"), "{}", table.stdout);
    let teams = ed.run(&["-o", "table", "teams", "list"]).await;
    assert!(
        teams
            .stdout
            .lines()
            .next()
            .unwrap_or_default()
            .contains("POLICIES"),
        "{teams:?}"
    );
    ed.svc.shutdown().await;
}

#[tokio::test]
async fn the_status_filter_is_the_platforms() {
    let ed = service(Generation::EventDestinations).await;
    let out = ed
        .run(&[
            "-o",
            "json",
            "notifications",
            "list",
            "--status",
            "failed",
            "--limit",
            "100",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let page = out.json();
    let items = page["items"].as_array().cloned().unwrap_or_default();
    assert!(
        !items.is_empty(),
        "the seed has failed deliveries among the newest"
    );
    assert!(items.iter().all(|d| d["status"] == "failed"), "{page}");
    ed.svc.shutdown().await;
}

#[tokio::test]
async fn every_delivery_status_filters_and_pulsar_refuses_those_it_lacks() {
    let ed = service(Generation::EventDestinations).await;
    for status in ["pending", "retrying", "delivered", "failed", "cancelled"] {
        let out = ed
            .run(&[
                "-o",
                "json",
                "notifications",
                "list",
                "--status",
                status,
                "--all",
            ])
            .await;
        assert_eq!(out.code, 0, "{status}: {out:?}");
        let page = out.json();
        // `--all` prints the whole list as one array.
        let items = page.as_array().cloned().unwrap_or_default();
        assert!(
            !items.is_empty(),
            "the seed has {status} deliveries: {page}"
        );
        assert!(items.iter().all(|d| d["status"] == status), "{page}");
    }
    // Two at once: the platform's filter takes both.
    let out = ed
        .run(&[
            "-o",
            "json",
            "notifications",
            "list",
            "--status",
            "delivered",
            "--status",
            "cancelled",
            "--all",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let page = out.json();
    let items = page.as_array().cloned().unwrap_or_default();
    assert!(items.iter().any(|d| d["status"] == "delivered"), "{page}");
    assert!(items.iter().any(|d| d["status"] == "cancelled"), "{page}");
    assert!(
        items
            .iter()
            .all(|d| d["status"] == "delivered" || d["status"] == "cancelled"),
        "{page}"
    );
    ed.svc.shutdown().await;

    // Pulsar has four statuses: the others are refused as its parser always did, and an unknown
    // word is refused on both.
    let pulsar = service(Generation::Pulsar).await;
    for status in ["delivered", "cancelled", "bogus"] {
        let out = pulsar
            .run(&["notifications", "list", "--status", status])
            .await;
        assert_eq!(out.code, 2, "{status}: {out:?}");
        assert!(out.stdout.is_empty(), "{out:?}");
        assert!(
            out.stderr
                .contains("is not a status: failed, retrying, succeeded or pending"),
            "{out:?}"
        );
    }
    let out = pulsar
        .run(&[
            "-o",
            "json",
            "notifications",
            "list",
            "--status",
            "succeeded",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    pulsar.svc.shutdown().await;
}

#[tokio::test]
async fn destinations_create_takes_the_retry_policy_and_masks_the_secret_in_tables() {
    let ed = service(Generation::EventDestinations).await;
    let url = "http://127.0.0.1:9/hook";
    let out = ed
        .run(&[
            "-o",
            "json",
            "destinations",
            "create",
            "--name",
            "made here",
            "--url",
            url,
            "--description",
            "d",
            "--retry",
            "linear",
            "--max-attempts",
            "4",
            "--base-delay",
            "10s",
            "--max-delay",
            "3h",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let d = out.json();
    assert_eq!(d["object"], "event.destination", "{d}");
    assert_eq!(d["name"], "made here");
    assert_eq!(d["description"], "d");
    assert_eq!(d["webhook"]["url"], url);
    assert_eq!(d["retry"]["strategy"], "linear", "{d}");
    assert_eq!(d["retry"]["max_attempts"], 4);
    assert_eq!(d["retry"]["base_delay_seconds"], 10);
    assert_eq!(d["retry"]["max_delay_seconds"], 10_800);
    // The API's object as received: the secret whole, this once.
    let secret = d["webhook"]["signing_secret"].as_str().unwrap_or_default();
    assert!(secret.len() > 8, "{d}");
    let id = d["id"].as_str().unwrap_or_default();
    let got = ed.run(&["-o", "json", "destinations", "get", id]).await;
    assert_eq!(got.code, 0, "{got:?}");

    // A table masks it (pinned here, as an operator may).
    let out = ed
        .run(&[
            "-o",
            "table",
            "--generation",
            "event-destinations",
            "destinations",
            "create",
            "--name",
            "plain",
            "--url",
            url,
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("signing secret:"))
        .unwrap_or_else(|| panic!("no secret line: {out:?}"));
    let shown = line
        .trim_start_matches("signing secret:")
        .split_whitespace()
        .next()
        .unwrap_or_default();
    assert!(shown.ends_with('…') && shown.chars().count() <= 6, "{line}");
    assert!(out.stdout.contains("plain"), "{out:?}");

    // Unpinned, the plain create is the deployment's too; pulsar's flags are refused here in
    // one sentence, making nothing.
    let out = ed
        .run(&[
            "-o",
            "json",
            "destinations",
            "create",
            "--name",
            "unpinned",
            "--url",
            url,
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["name"], "unpinned", "{out:?}");
    let before = ed
        .run(&["-o", "json", "destinations", "list", "--all"])
        .await
        .json();
    let out = ed
        .run(&[
            "--generation",
            "event-destinations",
            "destinations",
            "create",
            "--name",
            "n",
            "--url",
            url,
            "--all-callbacks",
        ])
        .await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("listeners create"), "{out:?}");
    let out = ed
        .run(&[
            "destinations",
            "create",
            "--name",
            "n",
            "--url",
            url,
            "--callback",
            "cbk_x",
            "--retry",
            "fixed",
        ])
        .await;
    assert_eq!(out.code, 2, "{out:?}");
    let after = ed
        .run(&["-o", "json", "destinations", "list", "--all"])
        .await
        .json();
    assert_eq!(before, after, "a refused create made a destination");
    ed.svc.shutdown().await;

    // Pulsar: its callbacks still required, the retry flags refused, its create unchanged.
    let pulsar = service(Generation::Pulsar).await;
    let out = pulsar
        .run(&["destinations", "create", "--name", "n", "--url", url])
        .await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("--all-callbacks"), "{out:?}");
    let out = pulsar
        .run(&[
            "destinations",
            "create",
            "--name",
            "n",
            "--url",
            url,
            "--retry",
            "linear",
        ])
        .await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("for event-destinations"), "{out:?}");
    let out = pulsar
        .run(&[
            "-o",
            "json",
            "destinations",
            "create",
            "--name",
            "n",
            "--url",
            "https://hooks.example.com/x",
            "--all-callbacks",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["name"], "n");
    pulsar.svc.shutdown().await;
}

#[tokio::test]
async fn imports_create_takes_the_value_from_stdin_or_a_variable_never_saying_it() {
    let ed = service(Generation::EventDestinations).await;
    let token = "tok_import_secret_value_0123456789";
    let value = format!("{{\"access_token\": \"{token}\"}}");
    let listed = ed
        .run(&["-o", "json", "imports", "list", "--limit", "100"])
        .await
        .json();
    let provider = listed["items"][0]["provider_id"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_default();
    let before = ids(&listed).len();
    let out = ed
        .run_fed(
            &[
                "-o",
                "json",
                "imports",
                "create",
                "--note",
                "made here",
                "--value-env",
                "SB_IMPORT_VALUE",
                "--provider",
                &provider,
                "--metadata",
                "team=ops",
            ],
            ("SB_IMPORT_VALUE", &value),
            "",
        )
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let made = out.json();
    assert_eq!(made["object"], "provider.auth_import", "{made}");
    assert_eq!(made["note"], "made here");
    assert_eq!(made["provider_id"], provider.as_str(), "{made}");
    assert!(!out.stdout.contains(token) && !out.stderr.contains(token));

    let out = ed
        .run_fed(
            &[
                "-o",
                "table",
                "imports",
                "create",
                "--note",
                "piped",
                "--value-stdin",
            ],
            ("UNUSED", ""),
            &value,
        )
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("piped"), "{out:?}");
    assert!(!out.stdout.contains(token) && !out.stderr.contains(token));
    let listed = ed
        .run(&["-o", "json", "imports", "list", "--limit", "100"])
        .await
        .json();
    assert_eq!(ids(&listed).len(), before + 2, "{listed}");

    // Refusals, each before a request and never quoting the value.
    let not_object = "[\"tok_not_an_object_0123456789\"]";
    for (args, var, said) in [
        (
            &["imports", "create", "--note", "n", "--value-env", "V"][..],
            not_object,
            "not a JSON object",
        ),
        (
            &["imports", "create", "--note", "n", "--value-env", "V"],
            "",
            "V is not set",
        ),
        (
            &["imports", "create", "--value-env", "V"],
            &value,
            "needs --note",
        ),
        (
            &["imports", "create", "--note", "n"],
            &value,
            "--value-stdin",
        ),
        (
            &[
                "imports",
                "create",
                "--note",
                "n",
                "--access-token-env",
                "V",
            ],
            &value,
            "pulsar's",
        ),
    ] {
        let out = ed.run_fed(args, ("V", var), "").await;
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(out.stderr.contains(said), "{args:?}: {out:?}");
        assert!(!out.stderr.contains("tok_"), "{out:?}");
    }
    let listed = ed
        .run(&["-o", "json", "imports", "list", "--limit", "100"])
        .await
        .json();
    assert_eq!(ids(&listed).len(), before + 2, "a refusal made an import");
    // A value flag beside pulsar's target is refused by the parser.
    let out = ed
        .run_fed(
            &[
                "imports",
                "create",
                "--connection",
                "poc_1",
                "--value-env",
                "V",
            ],
            ("V", &value),
            "",
        )
        .await;
    assert_eq!(out.code, 2, "{out:?}");
    ed.svc.shutdown().await;

    // Pulsar: the auth import's flags are refused, its own requirements as before.
    let pulsar = service(Generation::Pulsar).await;
    let out = pulsar
        .run_fed(
            &["imports", "create", "--note", "n", "--value-env", "V"],
            ("V", &value),
            "",
        )
        .await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("serves pulsar"), "{out:?}");
    let out = pulsar
        .run(&["imports", "create", "--connection", "poc_1"])
        .await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("--access-token-stdin"), "{out:?}");
    pulsar.svc.shutdown().await;
}

#[tokio::test]
async fn verbs_a_generation_lacks_exit_2_with_one_sentence() {
    let ed = service(Generation::EventDestinations).await;
    for (args, said) in [
        (
            &[
                "teams",
                "set-project",
                "tm_x",
                "--project",
                "p",
                "--role",
                "r",
            ][..],
            "access policies",
        ),
        (
            &["imports", "update", "paci_x", "--note", "n"],
            "import again",
        ),
        (
            &["destinations", "delete", "evtd_x", "--yes"],
            "use archive",
        ),
    ] {
        let out = ed.run(args).await;
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        let lines: Vec<&str> = out.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {out:?}");
        assert!(lines[0].contains(said), "{args:?}: {}", lines[0]);
    }
    ed.svc.shutdown().await;

    // And the newer verbs on pulsar, before anything is asked of their paths.
    let p = service(Generation::Pulsar).await;
    for args in [
        &["listeners", "list"][..],
        &["policies", "list"],
        &["destinations", "ping", "cld_x"],
        &["notifications", "retry", "cbn_x"],
        &["teams", "assign-policy", "tm_x", "apl_x"],
    ] {
        let out = p.run(args).await;
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(
            out.stderr.contains("this one serves pulsar"),
            "{args:?}: {}",
            out.stderr
        );
    }
    // Pulsar's own verbs are unchanged.
    let out = p.run(&["-o", "json", "destinations", "list"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(ids(&out.json()).iter().all(|i| i.starts_with("cld_")));
    p.svc.shutdown().await;
}

#[tokio::test]
async fn a_pin_chooses_the_verbs_and_help_asks_nothing() {
    let ed = service(Generation::EventDestinations).await;
    let out = ed
        .run(&[
            "--generation",
            "event-destinations",
            "-o",
            "json",
            "listeners",
            "list",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let help = ed.run(&["listeners", "--help"]).await;
    assert_eq!(help.code, 0, "{help:?}");
    assert!(help.stdout.contains("create"), "{}", help.stdout);
    ed.svc.shutdown().await;
}

#[tokio::test]
async fn writes_reach_the_platforms_operations() {
    let ed = service(Generation::EventDestinations).await;
    // A policy assigned and removed, by slug.
    let teams = ed.run(&["-o", "json", "teams", "list"]).await.json();
    let team = ids(&teams).first().cloned().expect("a team");
    let policies = ed.run(&["-o", "json", "policies", "list"]).await.json();
    let custom = policies["items"]
        .as_array()
        .and_then(|a| a.iter().find(|p| p["type"] == "custom"))
        .cloned()
        .expect("a custom policy");
    let slug = custom["slug"].as_str().unwrap_or_default();
    let id = custom["id"].as_str().unwrap_or_default();
    let out = ed
        .run(&["-o", "json", "teams", "assign-policy", &team, slug])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let has = |v: &Value| {
        v["policies"]
            .as_array()
            .is_some_and(|a| a.iter().any(|p| p["id"] == id))
    };
    assert!(has(&out.json()), "{}", out.stdout);
    let out = ed
        .run(&["-o", "json", "teams", "remove-policy", &team, id])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!has(&out.json()), "{}", out.stdout);

    // A listener created, updated and deleted.
    let dests = ed
        .run(&["-o", "json", "destinations", "list", "--limit", "100"])
        .await
        .json();
    let active: Vec<String> = dests["items"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|d| d["status"] == "active")
                .filter_map(|d| d["id"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let dest = active.first().cloned().expect("an active destination");
    let out = ed
        .run(&[
            "-o",
            "json",
            "listeners",
            "create",
            "--destination",
            &dest,
            "--instance",
            &ed.instance,
            "--event-type",
            "ping",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let listener = out.json()["id"].as_str().unwrap_or_default().to_string();
    let out = ed
        .run(&[
            "-o",
            "json",
            "listeners",
            "update",
            &listener,
            "--event-type",
            "x.y",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["event_types"][0], "x.y");
    let out = ed.run(&["listeners", "delete", &listener]).await;
    assert_eq!(out.code, 2, "no --yes off a terminal: {out:?}");
    let out = ed
        .run(&["-o", "json", "listeners", "delete", &listener, "--yes"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");

    // Rotation prints the new secret once; archive needs --yes and then archives.
    let out = ed
        .run(&[
            "-o",
            "json",
            "destinations",
            "rotate-secret",
            &dest,
            "--yes",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let secret = out.json()["webhook"]["signing_secret"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(!secret.is_empty(), "{}", out.stdout);
    let again = ed.run(&["-o", "json", "destinations", "get", &dest]).await;
    assert!(!again.stdout.contains(&secret), "the secret is shown once");
    let out = ed.run(&["destinations", "archive", &dest]).await;
    assert_eq!(out.code, 2, "{out:?}");
    let out = ed
        .run(&["-o", "json", "destinations", "archive", &dest, "--yes"])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["status"], "archived");

    // Retry: a finished delivery is accepted, an unfinished one is the platform's 400.
    let failed = ed
        .run(&["-o", "json", "notifications", "list", "--status", "failed"])
        .await
        .json();
    let f = ids(&failed).first().cloned().expect("a failed delivery");
    let out = ed.run(&["-o", "json", "notifications", "retry", &f]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let pending = ed
        .run(&["-o", "json", "notifications", "list", "--status", "pending"])
        .await
        .json();
    if let Some(p) = ids(&pending).first() {
        let out = ed.run(&["notifications", "retry", p]).await;
        assert_eq!(out.code, 3, "{out:?}");
    }
    ed.svc.shutdown().await;
}

#[tokio::test]
async fn ping_waits_for_the_first_attempt() {
    let ed = service(Generation::EventDestinations).await;
    let dests = ed
        .run(&["-o", "json", "destinations", "list", "--limit", "100"])
        .await
        .json();
    let dest = dests["items"]
        .as_array()
        .and_then(|a| a.iter().find(|d| d["status"] == "active"))
        .and_then(|d| d["id"].as_str())
        .map(str::to_string)
        .expect("an active destination");
    let out = ed
        .run(&[
            "-o",
            "json",
            "destinations",
            "ping",
            &dest,
            "--timeout",
            "60s",
        ])
        .await;
    assert_eq!(out.code, 0, "{out:?}");
    let d = out.json();
    assert!(
        d["id"].as_str().unwrap_or_default().starts_with("evdi_"),
        "{d}"
    );
    assert!(
        d["attempt_count"].as_u64().unwrap_or(0) >= 1 || d["status"] != "pending",
        "{d}"
    );
    ed.svc.shutdown().await;
}

#[tokio::test]
async fn a_refused_key_is_named() {
    let ed = service(Generation::EventDestinations).await;
    // The instance key where the organization key is needed: the platform's 403 and our hint.
    let out = ed.run_with(false, &["destinations", "list"]).await;
    assert_eq!(out.code, 3, "{out:?}");
    assert!(out.stderr.contains("403"), "{}", out.stderr);
    assert!(out.stderr.contains("organization key"), "{}", out.stderr);
    ed.svc.shutdown().await;
}

#[test]
fn an_unusable_id_of_a_newer_verb_asks_nothing() {
    use crate::common::fake::{FakeServer, KEY};
    let s = FakeServer::start();
    let home = tempfile::tempdir().expect("home");
    for args in [
        &["listeners", "get", ".."][..],
        &["destinations", "archive", ".", "--yes"],
        &["teams", "assign-policy", "..", "apl_1"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_switchboard"))
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env("XDG_DATA_HOME", home.path().join("data"))
            .env("SWITCHBOARD_BASE_URL", &s.base_url)
            .env("SWITCHBOARD_API_KEY", KEY)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run switchboard");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("not an id"),
            "{args:?}: {out:?}"
        );
    }
    assert!(s.requests().is_empty(), "{:#?}", s.requests());
    assert!(s.introspections().is_empty(), "the versions were asked");
}
