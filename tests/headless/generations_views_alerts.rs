//! Saved views and `alerts check` (issue 38) on `serve --generation event-destinations` and
//! `--generation callback-destinations` over real HTTP, the same test for each: the shipped
//! `failed` view keeps only failed items (the platform filters by status), a profile's own view
//! applies its status; `alerts check` judges the generation's destinations from its own lists
//! (exit 3 with a failing alert naming one of them and the failing items), holds for a
//! destination without failures (exit 0), and an `expiring` rule, which watches pulsar's
//! imports, says in one sentence that it does not apply here.
use std::path::Path;
use std::process::Stdio;

use serde_json::Value;
use switchboard::api::Secret;
use switchboard::api::generation::Generation;
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

const ORG_KEY: &str = "sk_org_headless_views_alerts_0123456789";
const INSTANCE_KEY: &str = "sk_instance_headless_views_alerts_0123456";

fn config(g: Generation) -> ServiceConfig {
    ServiceConfig {
        seed: Seed::Demo,
        generation: g,
        api_key: Some(Secret::new(ORG_KEY)),
        instance_key: Some(Secret::new(INSTANCE_KEY)),
        ..ServiceConfig::ephemeral()
    }
}

async fn service(g: Generation) -> RunningService {
    start(config(g)).await.expect("service starts")
}

async fn run(
    svc: &RunningService,
    home: &Path,
    config: &str,
    args: &[&str],
) -> (i32, String, String) {
    let path = home.join("config.toml");
    std::fs::write(&path, config).expect("config");
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("SWITCHBOARD_CONFIG", &path)
        .env("SWITCHBOARD_BASE_URL", &svc.base_url)
        .env("SWITCHBOARD_API_KEY", INSTANCE_KEY)
        .env(
            "SWITCHBOARD_INSTANCE_ID",
            svc.instance_id.clone().unwrap_or_default(),
        )
        .env("SB_TEST_ORG_KEY", ORG_KEY)
        .args(["--profile", "work"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .await
        .expect("switchboard runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn statuses(stdout: &str) -> Vec<String> {
    lines(stdout)
        .iter()
        .map(|v| v["status"].as_str().unwrap_or_default().to_string())
        .collect()
}

const PROFILE: &str = "[profiles.work]\norganization_key_env = \"SB_TEST_ORG_KEY\"\n";

async fn views_and_alerts(g: Generation) {
    let svc = service(g).await;
    let home = tempfile::tempdir().expect("home");
    let h = home.path();
    let config = format!("{PROFILE}\n[profiles.work.views.done]\nstatus = \"delivered\"\n");

    // The shipped `failed` view: the same failed items as `--status failed`.
    let (code, by_flag, err) = run(
        &svc,
        h,
        &config,
        &[
            "notifications",
            "list",
            "--status",
            "failed",
            "-o",
            "ndjson",
        ],
    )
    .await;
    assert_eq!(code, 0, "{g}: {err}");
    let (code, by_view, err) = run(
        &svc,
        h,
        &config,
        &["notifications", "list", "--view", "failed", "-o", "ndjson"],
    )
    .await;
    assert_eq!(code, 0, "{g}: {err}");
    let st = statuses(&by_view);
    assert!(!st.is_empty(), "{g}: the demo has failed items");
    assert!(st.iter().all(|s| s == "failed"), "{g}: {by_view}");
    assert!(st.len().abs_diff(statuses(&by_flag).len()) <= 1, "{g}");
    // The profile's own view, and `--view` before the subcommand.
    let (code, done, err) = run(
        &svc,
        h,
        &config,
        &["--view", "done", "notifications", "list", "-o", "ndjson"],
    )
    .await;
    assert_eq!(code, 0, "{g}: {err}");
    assert!(!statuses(&done).is_empty(), "{g}");
    assert!(
        statuses(&done).iter().all(|s| s == "delivered"),
        "{g}: {done}"
    );

    // Alerts: one failed item is enough for every destination that has one.
    let failing = format!(
        "{PROFILE}\n[[profiles.work.alerts]]\nname = \"any down\"\ndestination = \"*\"\nrule = \"consecutive_failures\"\ncount = 1\n"
    );
    let (code, out, err) = run(&svc, h, &failing, &["alerts", "check"]).await;
    assert_eq!(code, 3, "{g}: {out} {err}");
    let alerts = lines(&out);
    let down: Vec<&Value> = alerts.iter().filter(|a| a["state"] == "failing").collect();
    assert!(!down.is_empty(), "{g}: {out}");
    let failed_ids: Vec<String> = lines(&by_flag)
        .iter()
        .filter_map(|v| v["id"].as_str().map(str::to_string))
        .collect();
    assert!(
        down.iter()
            .all(|a| a["notifications"].as_array().is_some_and(|n| !n.is_empty())),
        "{g}: {out}"
    );
    assert!(
        down.iter()
            .flat_map(|a| a["notifications"].as_array().into_iter().flatten())
            .any(|n| failed_ids.iter().any(|f| n == f.as_str())),
        "{g}: a failed item named: {out}"
    );

    // A destination with no deliveries at all does not fail.
    let quiet = if g == Generation::CallbackDestinations {
        "cbd_nosuch"
    } else {
        "evtd_nosuch"
    };
    let holds = format!(
        "{PROFILE}\n[[profiles.work.alerts]]\nname = \"quiet\"\ndestination = \"{quiet}\"\nrule = \"consecutive_failures\"\ncount = 1\n"
    );
    let (code, out, err) = run(&svc, h, &holds, &["alerts", "check"]).await;
    assert_eq!(code, 0, "{g}: {out} {err}");

    // Expiry is pulsar's: one sentence, not a silent pass.
    let expiring = format!(
        "{PROFILE}\n[[profiles.work.alerts]]\nname = \"tokens\"\nrule = \"expiring\"\ndays = 7\n"
    );
    let (code, out, err) = run(&svc, h, &expiring, &["alerts", "check"]).await;
    assert_ne!(code, 0, "{g}: {out}");
    assert!(
        err.contains("expiring") && err.contains(&g.to_string()),
        "{g}: {err}"
    );
    svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_and_alerts_on_event_destinations() {
    views_and_alerts(Generation::EventDestinations).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_and_alerts_on_callback_destinations() {
    views_and_alerts(Generation::CallbackDestinations).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_views_window_bounds_callback_destinations_merged_list() {
    // The merged list has no server-side time filter: a view's `since` (as `today` gives) used
    // to be dropped without a word, listing older notifications under the view's name.
    views_window(Generation::CallbackDestinations).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_views_window_bounds_event_destinations_deliveries() {
    // The deliveries list has no time filter: a view's `since` was refused in one sentence; it
    // is read newest first up to the first delivery created before it. Four weeks of history
    // put most deliveries before the window.
    let svc = start(ServiceConfig {
        history: 150,
        ..config(Generation::EventDestinations)
    })
    .await
    .expect("service starts");
    let home = tempfile::tempdir().expect("home");
    let h = home.path();
    let list = |extra: &[&str]| {
        let mut a = vec!["notifications", "list"];
        a.extend_from_slice(extra);
        a.iter().map(|s| (*s).to_string()).collect::<Vec<_>>()
    };
    let (code, all, err) = run(
        &svc,
        h,
        PROFILE,
        &["notifications", "list", "--all", "-o", "ndjson"],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    // The list's default order is oldest first; a window is read newest first (ids follow time).
    let mut all = lines(&all);
    all.sort_by(|a, b| b["id"].as_str().cmp(&a["id"].as_str()));
    assert!(all.len() > 150, "demo and history: {}", all.len());
    let at = |v: &Value| -> chrono::DateTime<chrono::Utc> {
        v["created_at"]
            .as_str()
            .and_then(|t| t.parse().ok())
            .expect("created_at")
    };
    let id = |v: &Value| v["id"].as_str().unwrap_or_default().to_string();
    // A cut strictly between two deliveries' times, some of the history inside.
    let mut times: Vec<_> = all.iter().map(at).collect();
    times.sort_unstable_by(|a, b| b.cmp(a));
    let k = (40..times.len())
        .find(|&k| times[k - 1] > times[k])
        .expect("distinct times");
    let cut = times[k] + (times[k - 1] - times[k]) / 2;
    let since = cut.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let cut: chrono::DateTime<chrono::Utc> = since.parse().expect("since");
    let inside: Vec<String> = all.iter().filter(|v| at(v) >= cut).map(id).collect();
    assert!(
        inside.len() >= 40 && inside.len() < all.len(),
        "{}",
        inside.len()
    );
    let config = format!(
        "{PROFILE}\n[profiles.work.views.recent.filters]\nsince = \"{since}\"\n\
         [profiles.work.views.recent_failed]\nstatus = \"failed\"\n\
         [profiles.work.views.recent_failed.filters]\nsince = \"{since}\"\n\
         [profiles.work.views.month.filters]\nsince = \"60d\"\n"
    );
    let go = |args: Vec<String>| {
        let config = config.clone();
        let svc = &svc;
        async move {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            run(svc, h, &config, &a).await
        }
    };

    // Exactly the deliveries created since, newest first; `--limit`'s default counts the printed.
    let (code, out, err) = go(list(&["--view", "recent", "--all", "-o", "ndjson"])).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(lines(&out).iter().map(id).collect::<Vec<_>>(), inside);
    // The walk ends at the first older delivery: one page holds the window, so one page does.
    let (code, out, err) = go(list(&[
        "--view",
        "recent",
        "--all",
        "--max-pages",
        "1",
        "-o",
        "ndjson",
    ]))
    .await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(lines(&out).iter().map(id).collect::<Vec<_>>(), inside);
    let (code, out, err) = go(list(&["--view", "recent", "-o", "ndjson"])).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(lines(&out).iter().map(id).collect::<Vec<_>>(), inside[..20]);
    let (code, out, err) = go(list(&["--view", "recent", "--count"])).await;
    assert_eq!(code, 0, "{err}");
    let counted: Value = serde_json::from_str(out.trim()).expect("count");
    assert_eq!(counted["count"], inside.len(), "{out}");
    assert_eq!(counted["complete"], true, "{out}");

    // The status the platform filters is kept beside the window.
    let failed: Vec<String> = all
        .iter()
        .filter(|v| at(v) >= cut && v["status"] == "failed")
        .map(id)
        .collect();
    assert!(
        !failed.is_empty(),
        "the demo's failed deliveries are the newest"
    );
    let (code, out, err) = go(list(&["--view", "recent_failed", "--all", "-o", "ndjson"])).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(lines(&out).iter().map(id).collect::<Vec<_>>(), failed);

    // Past the walk's budget: what was read is printed, then exit 3 naming where to go on.
    let (code, out, err) = go(list(&[
        "--view",
        "month",
        "--all",
        "--max-pages",
        "1",
        "-o",
        "ndjson",
    ]))
    .await;
    assert_eq!(code, 3, "{out}{err}");
    let first: Vec<String> = lines(&out).iter().map(id).collect();
    let newest: Vec<String> = all.iter().take(100).map(id).collect();
    assert_eq!(first, newest);
    assert!(err.contains(&format!("--after {}", newest[99])), "{err}");

    // The shipped `today`: what was created since midnight UTC (unless the run spans midnight).
    let midnight = |t: chrono::DateTime<chrono::Utc>| {
        t.date_naive()
            .and_hms_opt(0, 0, 0)
            .expect("midnight")
            .and_utc()
    };
    let before = midnight(chrono::Utc::now());
    let (code, out, err) = go(list(&["--view", "today", "--all", "-o", "ndjson"])).await;
    assert_eq!(code, 0, "{out}{err}");
    if midnight(chrono::Utc::now()) == before {
        let today: Vec<String> = all.iter().filter(|v| at(v) >= before).map(id).collect();
        assert_eq!(lines(&out).iter().map(id).collect::<Vec<_>>(), today);
    }
}

async fn views_window(g: Generation) {
    let svc = service(g).await;
    let home = tempfile::tempdir().expect("home");
    let h = home.path();
    let (code, all, err) = run(
        &svc,
        h,
        PROFILE,
        &["notifications", "list", "--limit", "100", "-o", "ndjson"],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let created: Vec<chrono::DateTime<chrono::Utc>> = lines(&all)
        .iter()
        .filter_map(|v| v["created_at"].as_str()?.parse().ok())
        .collect();
    assert!(created.len() > 4, "the demo has notifications: {all}");
    let mut sorted = created.clone();
    sorted.sort();
    // A window that keeps the newer half: between two seeded times.
    let cut = sorted[sorted.len() / 2];
    let ago = (chrono::Utc::now() - cut).num_seconds() + 1;
    let expected = created
        .iter()
        .filter(|c| chrono::Utc::now() - **c <= chrono::TimeDelta::seconds(ago))
        .count();
    let config = format!("{PROFILE}\n[profiles.work.views.recent.filters]\nsince = \"{ago}s\"\n");
    let (code, recent, err) = run(
        &svc,
        h,
        &config,
        &[
            "notifications",
            "list",
            "--view",
            "recent",
            "--limit",
            "100",
            "-o",
            "ndjson",
        ],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let kept = lines(&recent);
    assert!(!kept.is_empty() && kept.len() < created.len(), "{recent}");
    assert!(
        kept.len().abs_diff(expected) <= 1,
        "{} vs {expected}",
        kept.len()
    );
    for v in &kept {
        let c: chrono::DateTime<chrono::Utc> = v["created_at"]
            .as_str()
            .and_then(|t| t.parse().ok())
            .expect("created_at");
        assert!(c >= cut - chrono::TimeDelta::seconds(2), "{v}");
    }
}
