//! `notifications search` on `serve --generation callback-destinations` over real HTTP (issue
//! 38): every callback's notifications merged newest first (or `--callback`'s), each read by id
//! for its sent request, `.` its body and `$headers` its headers; `$response` is `null` (this
//! generation keeps no answer); `--status` and `--destination` filter on the server.
use std::process::{Command, Stdio};

use serde_json::Value;
use switchboard::api::Secret;
use switchboard::api::generation::Generation;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

const ORG_KEY: &str = "sk_org_headless_search_generations_0123456";
const INSTANCE_KEY: &str = "sk_instance_headless_search_generations_01";

#[derive(Debug)]
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Out {
    fn lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {self:?}")))
            .collect()
    }
}

async fn run(svc: &RunningService, home: &std::path::Path, args: &[&str]) -> Out {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("SWITCHBOARD_BASE_URL", &svc.base_url)
        .env("SWITCHBOARD_API_KEY", INSTANCE_KEY)
        .env(
            "SWITCHBOARD_INSTANCE_ID",
            svc.instance_id.clone().unwrap_or_default(),
        )
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

async fn search(
    svc: &RunningService,
    home: &std::path::Path,
    args: &[&str],
) -> (Vec<Value>, String) {
    let mut all = vec!["-o", "json", "notifications", "search"];
    all.extend_from_slice(args);
    let out = run(svc, home, &all).await;
    assert_eq!(out.code, 0, "{args:?}: {out:?}");
    (out.lines(), out.stderr)
}

fn ids(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|v| v["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test]
async fn search_on_callback_destinations_reads_each_sent_request_merged_newest_first() {
    let svc = start(ServiceConfig {
        seed: Seed::Demo,
        generation: Generation::CallbackDestinations,
        history: 60,
        api_key: Some(Secret::new(ORG_KEY)),
        instance_key: Some(Secret::new(INSTANCE_KEY)),
        ..ServiceConfig::ephemeral()
    })
    .await
    .expect("service starts");
    let home = tempfile::tempdir().expect("home");
    let h = home.path();

    // `true`: every notification that sent something, each with its request read by id,
    // newest first across callbacks.
    let (all, err) = search(&svc, h, &["true"]).await;
    assert!(all.len() > 100, "{}", all.len());
    assert!(
        all.iter()
            .all(|v| v["event"]["request"]["body"].is_string()),
        "each read whole"
    );
    let created: Vec<&str> = all
        .iter()
        .filter_map(|v| v["created_at"].as_str())
        .collect();
    assert!(created.windows(2).all(|w| w[0] >= w[1]), "newest first");
    let mut unique = ids(&all);
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), all.len(), "each once");
    assert!(err.contains(&format!("matched {}", all.len())), "{err}");

    // `.` is the body sent: the oldest one's body finds it (and its event's other
    // destinations').
    let oldest = all.last().expect("one");
    let body: Value = serde_json::from_str(
        oldest["event"]["request"]["body"]
            .as_str()
            .unwrap_or("null"),
    )
    .expect("JSON body");
    let (found, err) = search(&svc, h, &[&format!(". == {body}")]).await;
    assert!(ids(&found).contains(&oldest["id"].as_str().unwrap_or_default().to_string()));
    assert!(
        found
            .iter()
            .all(|v| v["event"]["request"]["body"] == oldest["event"]["request"]["body"]),
        "{found:?}"
    );
    assert!(found.len() < all.len(), "{err}");

    // `$headers`: the event's own headers; `$response` is null here.
    let pair = &oldest["event"]["request"]["headers"][0];
    let (k, v) = (
        pair["key"].as_str().expect("a header"),
        pair["value"].as_str().unwrap_or_default(),
    );
    // As the one redaction policy shows it (fail closed: masked unless known safe).
    let v = switchboard::text::redact::header_value(k, v, false);
    let (headed, _) = search(&svc, h, &[&format!("$headers[{k:?}] == {v:?}")]).await;
    assert!(
        ids(&headed).contains(&oldest["id"].as_str().unwrap_or_default().to_string()),
        "{k}: {v}"
    );
    let (null, _) = search(&svc, h, &["$response == null"]).await;
    assert_eq!(null.len(), all.len());

    // The platform filters by status first.
    let (failed, err) = search(&svc, h, &["true", "--status", "failed"]).await;
    assert!(!failed.is_empty());
    assert!(failed.iter().all(|v| v["status"] == "failed"), "{failed:?}");
    assert!(
        err.contains(&format!("examined {},", failed.len())),
        "{err}"
    );

    // `--callback ID`: that callback's only.
    let cbs = run(&svc, h, &["-o", "json", "callbacks", "list"]).await;
    let cbs: Value = serde_json::from_str(&cbs.stdout).expect("callbacks");
    let cb = cbs["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|c| c["id"].as_str())
        .expect("a callback")
        .to_string();
    let listed = run(
        &svc,
        h,
        &[
            "-o",
            "ndjson",
            "notifications",
            "list",
            "--callback",
            &cb,
            "--all",
        ],
    )
    .await;
    let mut theirs: Vec<String> = ids(&listed.lines());
    let (one, _) = search(&svc, h, &["true", "--callback", &cb]).await;
    let mut got = ids(&one);
    theirs.sort();
    got.sort();
    assert!(
        got.iter().all(|id| theirs.contains(id)),
        "{got:?} ⊆ {theirs:?}"
    );
    assert!(got.len() < all.len());

    // What this generation cannot select by says so in one sentence (exit 2).
    let refused = run(
        &svc,
        h,
        &["notifications", "search", "true", "--event", "sev_x"],
    )
    .await;
    assert_eq!(refused.code, 2, "{refused:?}");
    assert_eq!(refused.stderr.trim().lines().count(), 1, "{refused:?}");
    svc.shutdown().await;
}
