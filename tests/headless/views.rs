//! `--view NAME` on `list` (issue 38) as a process against the embedded service on 127.0.0.1:
//! the shipped `failed` view keeps only failed deliveries (as `--status failed` does), a view
//! saved in the profile's section of the config applies its status and columns, a flag given
//! wins over the view, and a view of another resource or of no such name is exit 2. `--view`
//! before the subcommand is the same `--view` on a list, and refused (exit 2) before a command
//! that lists nothing, or beside a different one after it.
use crate::common;

use std::path::Path;

use common::service::demo;
use serde_json::Value;

async fn run(
    home: &Path,
    config: &Path,
    base_url: &str,
    key: &str,
    args: &[&str],
) -> (i32, String, String) {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("SWITCHBOARD_CONFIG", config)
        .env("SWITCHBOARD_API_KEY", key)
        .args(["--profile", "work", "--base-url", base_url])
        .args(args)
        .output()
        .await
        .expect("switchboard runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn statuses(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("NDJSON"))
        .map(|v| v["status"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_view_applies_the_status_filter_and_columns() {
    let t = demo().await;
    let key = t.svc.api_key.expose().to_string();
    let home = tempfile::tempdir().expect("home");
    let config = home.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[profiles.work]\nbase_url = \"{}\"\n\n[profiles.work.views.ok]\nstatus = \"succeeded\"\ncolumns = [\"id\", \"status\"]\n",
            t.svc.base_url
        ),
    )
    .expect("config");
    let list = |extra: &'static [&'static str]| {
        let mut a = vec!["notifications", "list", "--all", "-o", "ndjson"];
        a.extend_from_slice(extra);
        a
    };

    let (code, by_flag, err) = run(
        home.path(),
        &config,
        &t.svc.base_url,
        &key,
        &list(&["--status", "failed"]),
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let (code, by_view, err) = run(
        home.path(),
        &config,
        &t.svc.base_url,
        &key,
        &list(&["--view", "failed"]),
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert!(
        !statuses(&by_view).is_empty(),
        "the demo has failed deliveries"
    );
    assert!(
        statuses(&by_view).iter().all(|s| s == "failed"),
        "{by_view}"
    );
    // The view's order is newest first; the same failed deliveries as the flag's, at most one
    // more or less (the demo keeps delivering).
    let (a, b) = (statuses(&by_view).len(), statuses(&by_flag).len());
    assert!(a.abs_diff(b) <= 1, "{a} by the view, {b} by the flag");

    // A flag given wins over the view's status.
    let (code, won, err) = run(
        home.path(),
        &config,
        &t.svc.base_url,
        &key,
        &list(&["--view", "failed", "--status", "succeeded"]),
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert!(statuses(&won).iter().all(|s| s == "succeeded"), "{won}");

    // The profile's own view: its status, and its columns as --fields on a table.
    let (code, table, err) = run(
        home.path(),
        &config,
        &t.svc.base_url,
        &key,
        &["notifications", "list", "--view", "ok", "-o", "table"],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let head = table.lines().next().unwrap_or_default().to_lowercase();
    assert!(
        head.contains("id") && head.contains("status") && !head.contains("url"),
        "{table}"
    );
    assert!(
        table.lines().skip(1).all(|l| l.contains("succeeded")),
        "{table}"
    );

    for bad in [
        &["teams", "list", "--view", "failed"][..],
        &["notifications", "list", "--view", "nosuch"][..],
    ] {
        let (code, _, err) = run(home.path(), &config, &t.svc.base_url, &key, bad).await;
        assert_eq!(code, 2, "{bad:?}: {err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn view_before_the_subcommand_applies_to_a_list_and_is_refused_elsewhere() {
    let t = demo().await;
    let key = t.svc.api_key.expose().to_string();
    let home = tempfile::tempdir().expect("home");
    let config = home.path().join("config.toml");
    std::fs::write(
        &config,
        format!("[profiles.work]\nbase_url = \"{}\"\n", t.svc.base_url),
    )
    .expect("config");
    let (code, out, err) = run(
        home.path(),
        &config,
        &t.svc.base_url,
        &key,
        &[
            "--view",
            "failed",
            "notifications",
            "list",
            "--all",
            "-o",
            "ndjson",
        ],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let st = statuses(&out);
    assert!(!st.is_empty(), "the demo has failed deliveries");
    assert!(st.iter().all(|s| s == "failed"), "{out}");

    for bad in [
        &["--view", "failed", "info"][..],
        &["--view", "failed", "alerts", "check"][..],
        &["--view", "failed", "teams", "list"][..],
        &["--view", "failed", "notifications", "get", "ntf_x"][..],
        &[
            "--view",
            "failed",
            "notifications",
            "list",
            "--view",
            "retrying",
        ][..],
    ] {
        let (code, _, err) = run(home.path(), &config, &t.svc.base_url, &key, bad).await;
        assert_eq!(code, 2, "{bad:?}: {err}");
        assert!(err.contains("view"), "{bad:?}: {err}");
    }
}
