//! The `switchboard` binary against the real local service: members named by email or name in
//! `teams add-member | remove-member`, `members list --team`, and destinations that say whether
//! they are deleted and how to see their signing secret.
use crate::common::service as support_service;

use std::process::{Command, Stdio};

use serde_json::Value;
use std::time::Duration;

use support_service::{TestService, demo, eventually, http, manual_callback, start_with};
use switchboard::api::lookup::all_members;
use switchboard::api::model::{
    AttemptStatus, CallbacksInput, CreateDestination, CreateTeam, Member, Notification,
    NotificationStatus,
};
use switchboard::api::{ApiRequest, ListQuery, NotificationFilter, list_all};
use switchboard::service::{Seed, ServiceConfig};

/// What a run of the binary left behind.
#[derive(Debug)]
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs the binary against the service in a clean environment (key through the environment).
async fn sb(t: &TestService, args: &[&str]) -> Out {
    let home = tempfile::tempdir().expect("home");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_STATE_HOME", home.path().join("state"))
        .env("SWITCHBOARD_BASE_URL", &t.svc.base_url)
        .env("SWITCHBOARD_API_KEY", t.svc.api_key.expose())
        .args(args)
        .stdin(Stdio::null());
    let out = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .expect("join")
        .expect("run switchboard");
    drop(home);
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The `KEY  value` line of a detail table.
fn line(text: &str, key: &str) -> String {
    text.lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_default()
        .to_string()
}

async fn new_team(t: &TestService, name: &str) -> switchboard::api::model::Team {
    t.client
        .create_team(&CreateTeam {
            name: name.into(),
            description: None,
        })
        .await
        .expect("team")
}

async fn on_team(t: &TestService, team_id: &str) -> Vec<String> {
    all_members(&t.client)
        .await
        .expect("members")
        .into_iter()
        .filter(|m| m.in_team(team_id))
        .map(|m| m.actor_id)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn members_are_named_by_email_or_name_fragment() {
    let t = demo().await;
    let team = new_team(&t, "Flow Crew").await;
    let members = all_members(&t.client).await.expect("members");
    let grace = members
        .iter()
        .find(|m| m.display_name() == "Grace Hopper")
        .expect("grace");

    // An email, in any case.
    let out = sb(
        &t,
        &[
            "-o",
            "table",
            "teams",
            "add-member",
            "flow-crew",
            "GRACE@example.com",
        ],
    )
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("Flow Crew"), "{}", out.stdout);
    // The team's table lists its members, the new one included.
    assert!(
        line(&out.stdout, "MEMBERS").contains("Grace Hopper <grace@example.com> member (oac_"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains("Grace Hopper <grace@example.com>")
            && out.stderr.contains("added to team Flow Crew"),
        "{}",
        out.stderr
    );
    assert_eq!(on_team(&t, &team.id).await, [grace.actor_id.as_str()]);

    // A name fragment that matches one member.
    let out = sb(&t, &["teams", "add-member", &team.id, "dijk"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let team_json: Value = serde_json::from_str(&out.stdout).expect("the API's team");
    assert_eq!(team_json["id"], team.id.as_str());
    assert_eq!(on_team(&t, &team.id).await.len(), 2);

    // Several matches: a clear error listing them, exit 2, nothing changed.
    let out = sb(&t, &["teams", "add-member", &team.id, "al"]).await;
    assert_eq!(out.code, 2, "{out:?}");
    for who in [
        "Alan Turing <alan@example.com> (oac_",
        "Frances Allen <frances@example.com> (oac_",
    ] {
        assert!(out.stderr.contains(who), "{who} not listed: {}", out.stderr);
    }
    assert!(
        out.stderr.contains("members match \"al\""),
        "{}",
        out.stderr
    );
    assert_eq!(on_team(&t, &team.id).await.len(), 2);

    // No match: a clear error, exit 2.
    let out = sb(&t, &["teams", "add-member", &team.id, "nobody-here"]).await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("no member matches \"nobody-here\""),
        "{}",
        out.stderr
    );

    // Adding someone already there names them and says so.
    let out = sb(&t, &["teams", "add-member", &team.id, "grace"]).await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("Grace Hopper <grace@example.com>"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("already a member of team Flow Crew"),
        "{}",
        out.stderr
    );

    // Removing picks among the team's members only.
    let out = sb(&t, &["teams", "remove-member", "flow-crew", "hopper"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(on_team(&t, &team.id).await.len(), 1);
    let out = sb(&t, &["teams", "remove-member", "flow-crew", "turing"]).await;
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("Alan Turing"), "{}", out.stderr);
    assert!(
        out.stderr.contains("not a member of team Flow Crew"),
        "{}",
        out.stderr
    );
    // "e" matches almost everyone, but only Edsger is left on the team.
    let out = sb(&t, &["teams", "remove-member", "flow-crew", "e"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(on_team(&t, &team.id).await.is_empty());

    // An actor id is used as given.
    let out = sb(&t, &["teams", "add-member", &team.id, &grace.actor_id]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let out = sb(&t, &["teams", "add-member", &team.id, "oac_unknown1"]).await;
    assert_eq!(out.code, 3, "the server's 404: {out:?}");
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn members_list_by_team_reads_actor_teams() {
    let t = demo().await;
    let team = new_team(&t, "Night Shift").await;
    let members = all_members(&t.client).await.expect("members");
    let picked: Vec<&Member> = members.iter().take(3).collect();
    for m in &picked {
        t.client
            .add_team_member(&team.id, &m.actor_id)
            .await
            .expect("add");
    }

    let out = sb(&t, &["members", "list", "--team", "night-shift"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let got: Value = serde_json::from_str(&out.stdout).expect("a JSON array");
    let ids: Vec<&str> = got
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|m| m["actor_id"].as_str())
        .collect();
    let want: Vec<&str> = picked.iter().map(|m| m.actor_id.as_str()).collect();
    assert_eq!(ids, want);
    // Each item is the API's member as received, actor and teams included.
    assert!(
        got[0]["actor"]["teams"]
            .as_array()
            .expect("teams")
            .iter()
            .any(|x| x["slug"] == "night-shift")
    );

    let out = sb(&t, &["-o", "table", "members", "list", "--team", &team.id]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let mut lines = out.stdout.lines();
    let header = lines.next().expect("header");
    for col in ["NAME", "EMAIL", "ROLE", "TEAMS"] {
        assert!(header.contains(col), "{header}");
    }
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 3, "{}", out.stdout);
    for (row, m) in rows.iter().zip(&picked) {
        assert!(row.contains(m.display_name()), "{row}");
        assert!(row.contains(m.contact_email().unwrap_or("?")), "{row}");
        assert!(row.contains(m.role.as_str()), "{row}");
        // Team names, or as many as fit and a count of the rest.
        let more = m.teams().len() > 1 && row.contains(", +");
        assert!(row.contains("Night Shift") || more, "{row}");
    }
    assert!(out.stderr.contains("3 members"), "{}", out.stderr);

    let out = sb(&t, &["-o", "table", "teams", "get", "night-shift"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let listed: Vec<&str> = out
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("MEMBERS"))
        .take_while(|l| !l.starts_with("CREATED"))
        .collect();
    assert_eq!(listed.len(), 3, "{}", out.stdout);
    for (l, m) in listed.iter().zip(&picked) {
        assert!(
            l.contains(m.display_name()) && l.contains(&m.actor_id),
            "{l}"
        );
    }

    let out = sb(&t, &["members", "list", "--team", "no-such-team"]).await;
    assert_eq!(out.code, 3, "{out:?}");
    let out = sb(&t, &["members", "list", "--team", "x", "--after", "om_1"]).await;
    assert_eq!(out.code, 2, "paging does not apply: {out:?}");
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn destinations_say_deleted_and_how_to_see_the_secret() {
    let t = demo().await;
    let callbacks: Vec<switchboard::api::model::Callback> =
        list_all(&t.client, ApiRequest::list_callbacks)
            .await
            .expect("callbacks");
    let cb = callbacks
        .iter()
        .find(|c| c.name.is_some())
        .expect("a named callback");
    let cb_name = cb.name.clone().unwrap_or_default();
    let out = sb(
        &t,
        &[
            "-o",
            "table",
            "destinations",
            "create",
            "--name",
            "Pager",
            "--url",
            "http://127.0.0.1:9/hook",
            "--callback",
            &cb.id,
        ],
    )
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        line(&out.stdout, "STATUS").ends_with("active"),
        "{}",
        out.stdout
    );
    assert!(
        line(&out.stdout, "SIGNING SECRET").contains("(masked; -o json shows it)"),
        "{}",
        out.stdout
    );
    assert!(
        line(&out.stdout, "CALLBACKS").contains(&format!("{cb_name} ({})", cb.id)),
        "callbacks by name: {}",
        out.stdout
    );
    let id = line(&out.stdout, "ID")
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_string();
    assert!(id.starts_with("cld_"), "{}", out.stdout);

    let out = sb(&t, &["-o", "table", "destinations", "get", &id]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        line(&out.stdout, "STATUS").ends_with("active"),
        "{}",
        out.stdout
    );

    let out = sb(&t, &["-o", "table", "destinations", "delete", &id, "--yes"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        line(&out.stdout, "STATUS").ends_with("deleted"),
        "{}",
        out.stdout
    );

    let out = sb(&t, &["-o", "table", "destinations", "get", &id]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        line(&out.stdout, "STATUS").ends_with("deleted"),
        "{}",
        out.stdout
    );
    let secret = t
        .client
        .get_destination(&id)
        .await
        .expect("get")
        .webhook_destination
        .expect("webhook")
        .signing_secret;
    assert!(!out.stdout.contains(&secret), "secret printed in full");

    // JSON stays the API's reply, unchanged: it has no status and holds the secret.
    let out = sb(&t, &["-o", "json", "destinations", "get", &id]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let raw = t.get(&format!("/callbacks-destinations/{id}")).await;
    let got: Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(got, raw.body);
    assert!(got.get("status").is_none());
    assert!(out.stdout.contains(&secret));

    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destination_for_every_callback_reads_all() {
    let t = demo().await;
    let all = t
        .client
        .create_destination(&switchboard::api::model::CreateDestination {
            name: "Everything".into(),
            description: None,
            url: "http://127.0.0.1:9/all".into(),
            callbacks: CallbacksInput::all(),
        })
        .await
        .expect("create");
    let out = sb(&t, &["-o", "table", "destinations", "get", &all.id]).await;
    assert!(
        line(&out.stdout, "CALLBACKS").ends_with("all"),
        "{}",
        out.stdout
    );
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attempts_are_counted_from_one() {
    let t = demo().await;
    let page = t
        .client
        .list_notifications(
            &ListQuery {
                limit: Some(100),
                ..ListQuery::default()
            },
            &switchboard::api::NotificationFilter::default(),
        )
        .await
        .expect("notifications");
    let n = page
        .items
        .iter()
        .find(|n| n.attempts.len() >= 2)
        .expect("a notification tried twice");
    let out = sb(&t, &["-o", "table", "notifications", "get", &n.id]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let history: Vec<&str> = out
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("HISTORY"))
        .collect();
    assert!(history[0].contains("#1 "), "{}", out.stdout);
    assert!(history[1].contains("#2 "), "{}", out.stdout);
    assert!(!out.stdout.contains("#0 "), "{}", out.stdout);
    t.svc.shutdown().await;
}

/// Every notification of a destination, counted straight from the API.
async fn all_notifications_of(t: &TestService, id: &str) -> Vec<Notification> {
    let f = NotificationFilter {
        destination_ids: vec![id.to_string()],
        ..Default::default()
    };
    list_all(&t.client, |q| ApiRequest::list_notifications(q, &f))
        .await
        .expect("notifications")
}

/// A service whose retries wait 20 minutes, so a notification that failed once stays
/// `retrying` while the test counts.
async fn slow_retries() -> TestService {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    cfg.retry_base = Duration::from_secs(600);
    start_with(cfg).await
}

/// A destination of the demo's manual callback posting to `url`, and `n` events through its
/// hook; returns when each of them has been tried once.
async fn delivered(t: &TestService, name: &str, url: &str, n: usize) -> String {
    let cb = manual_callback(&t.client).await;
    let dest = t
        .client
        .create_destination(&CreateDestination {
            name: name.into(),
            description: None,
            url: url.into(),
            callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
        })
        .await
        .expect("destination");
    let hook = cb.url.expect("hook url");
    for i in 0..n {
        let r = http()
            .post(&hook)
            .json(&serde_json::json!({"type": "file.shared", "n": i}))
            .send()
            .await
            .expect("hook");
        assert_eq!(r.status(), 200);
    }
    eventually(Duration::from_secs(20), || async {
        let all = all_notifications_of(t, &dest.id).await;
        (all.len() == n
            && all
                .iter()
                .all(|x| !x.attempts.is_empty() && x.status != NotificationStatus::Pending))
        .then_some(())
    })
    .await;
    dest.id
}

/// The numbers of `destinations stats` are a direct count of the destination's notifications
/// under a receiver that answers 503 about half the time; a retrying one is not succeeded, in
/// the stats, their table and the destination's HEALTH row alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn destination_stats_equal_a_direct_count_under_a_flaky_receiver() {
    let t = slow_retries().await;
    let url = format!("{}/_receiver/flaky", t.svc.base_url);
    let id = delivered(&t, "Flaky test receiver", &url, 16).await;
    let all = all_notifications_of(&t, &id).await;
    let count = |s: NotificationStatus| all.iter().filter(|n| n.status == s).count();
    let (ok, failed, retrying) = (
        count(NotificationStatus::Succeeded),
        count(NotificationStatus::Failed),
        count(NotificationStatus::Retrying),
    );
    assert!(
        ok > 0 && retrying > 0,
        "a flaky receiver: {ok} ok, {retrying} retrying"
    );
    let attempts: Vec<_> = all.iter().flat_map(|n| &n.attempts).collect();
    let mut durations: Vec<i64> = attempts
        .iter()
        .filter_map(|a| a.webhook_request.as_ref().map(|r| r.duration))
        .collect();
    durations.sort_unstable();
    let nearest = |p: usize| durations[(p * durations.len()).div_ceil(100).max(1) - 1];

    let out = sb(
        &t,
        &[
            "destinations",
            "stats",
            &id,
            "--window",
            "24h",
            "-o",
            "json",
        ],
    )
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    let s: Value = serde_json::from_str(&out.stdout).expect("json");
    let n = |k: &str| s[k].as_u64().unwrap_or(u64::MAX) as usize;
    assert_eq!(n("notifications"), all.len(), "{s}");
    assert_eq!(
        (n("succeeded"), n("failed"), n("retrying"), n("pending")),
        (ok, failed, retrying, 0),
        "{s}"
    );
    assert_eq!(
        n("retried"),
        all.iter().filter(|n| n.attempts.len() > 1).count()
    );
    assert_eq!(n("attempts"), attempts.len());
    let ok_attempts = attempts
        .iter()
        .filter(|a| a.status == AttemptStatus::Succeeded)
        .count();
    assert_eq!(n("attempts_succeeded"), ok_attempts);
    let rate = (ok as f64 * 1000.0 / (ok + failed + retrying) as f64).round() / 10.0;
    assert_eq!(s["success_percent"].as_f64(), Some(rate), "{s}");
    assert!(rate < 100.0, "retrying counts against the rate: {s}");
    assert_eq!(s["window"], "24h");
    for (k, p) in [("p50", 50), ("p95", 95), ("p99", 99)] {
        assert_eq!(s["latency_ms"][k].as_i64(), Some(nearest(p)), "{k}: {s}");
    }

    let out = sb(&t, &["destinations", "stats", &id, "-o", "table"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        line(&out.stdout, "RETRYING").ends_with(&format!(" {retrying}")),
        "{}",
        out.stdout
    );
    assert!(
        line(&out.stdout, "SUCCESS RATE").contains(&format!("{rate:.1}%")),
        "{}",
        out.stdout
    );

    let out = sb(&t, &["-o", "table", "destinations", "get", &id]).await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        line(&out.stdout, "HEALTH").contains(&format!(
            "{} notifications: {ok} succeeded, {failed} failed, {retrying} retrying, 0 pending",
            all.len()
        )),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(&format!("success {rate:.1}% of tried")),
        "{}",
        out.stdout
    );

    let out = sb(&t, &["destinations", "stats", "cld_nope", "-o", "json"]).await;
    assert_eq!(
        out.code, 3,
        "an unknown destination is an API error: {out:?}"
    );
    t.svc.shutdown().await;
}

/// A loopback receiver answering 418 with a secret header, a plain one and a body holding an
/// escape sequence.
async fn teapot() -> String {
    let app = axum::Router::new().route(
        "/tea",
        axum::routing::post(|| async {
            (
                axum::http::StatusCode::IM_A_TEAPOT,
                [
                    ("x-api-key", "rk_live_never_printed"),
                    ("content-type", "text/plain"),
                ],
                "short and stout\n\u{1b}[2Jhere is my handle",
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/tea")
}

/// `notifications get -o table` says what the receiver answered last: the status, its headers
/// through the redaction policy, and the start of its body through the sanitizer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notification_shows_what_the_receiver_answered() {
    let t = slow_retries().await;
    let id = delivered(&t, "Teapot", &teapot().await, 1).await;
    let n = all_notifications_of(&t, &id).await.remove(0);
    let out = sb(&t, &["-o", "table", "notifications", "get", &n.id]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let text = &out.stdout;
    assert!(line(text, "LAST RESPONSE").contains("HTTP 418"), "{text}");
    // Still retrying: which attempt comes, and when by pulsar's rule (estimates, marked).
    assert!(
        line(text, "RETRIES").contains("attempt 2 of 20, next ≈ ")
            && line(text, "RETRIES").contains(", gives up ≈ "),
        "{text}"
    );
    assert!(text.contains("content-type: text/plain"), "{text}");
    assert!(text.contains("x-api-key: ••••••••"), "{text}");
    assert!(!text.contains("rk_live_never_printed"), "{text}");
    // One line: a line break in the receiver's body cannot make a line of its own.
    assert!(
        line(text, "RESPONSE BODY").contains("short and stout ⟨U+001B⟩[2Jhere is my handle"),
        "{text}"
    );
    assert!(!text.contains('\u{1b}'), "no escape reaches the terminal");
    let rows = sb(
        &t,
        &["-o", "table", "notifications", "list", "--destination", &id],
    )
    .await;
    assert!(
        rows.stdout
            .lines()
            .next()
            .unwrap_or_default()
            .contains("RESP"),
        "{rows:?}"
    );
    assert!(
        rows.stdout.contains("418") && rows.stdout.contains("file.shared"),
        "{rows:?}"
    );
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_destination_has_no_deliveries_yet() {
    let t = demo().await;
    let out = sb(
        &t,
        &[
            "-o",
            "table",
            "destinations",
            "create",
            "--name",
            "New",
            "--url",
            "http://127.0.0.1:9/n",
            "--all-callbacks",
        ],
    )
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    let id = line(&out.stdout, "ID")
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_string();
    let out = sb(&t, &["-o", "table", "destinations", "get", &id]).await;
    assert!(
        line(&out.stdout, "HEALTH").contains("no deliveries over 24h"),
        "{}",
        out.stdout
    );
    t.svc.shutdown().await;
}

/// `teams list -o table` lines up rows whose names are wide (CJK) or carry combining marks,
/// and cuts a long wide name to at most 60 terminal columns with `…`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_pad_and_cut_by_display_width() {
    use unicode_width::UnicodeWidthStr;
    let t = demo().await;
    let long = "東京データ基盤チーム".repeat(8);
    for name in [
        "東京チーム",
        "e\u{301}quipe\u{301} de\u{301}mo",
        long.as_str(),
    ] {
        new_team(&t, name).await;
    }
    let out = sb(&t, &["-o", "table", "teams", "list", "--all"]).await;
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    // Where the SLUG column starts, in terminal columns, on the header and on every row.
    let slug_at = |l: &str, slug: &str| l.find(slug).map(|i| l[..i].width());
    let header = slug_at(lines[0], "SLUG").expect("a SLUG header");
    for l in &lines[1..] {
        let id_end = l.find(' ').unwrap_or(0);
        let rest = &l[id_end..];
        let name_start = id_end + rest.len() - rest.trim_start().len();
        let after_name = l[name_start..]
            .find("  ")
            .map(|i| name_start + i)
            .unwrap_or(l.len());
        let slug_col =
            l[..after_name].width() + l[after_name..].len() - l[after_name..].trim_start().len();
        assert_eq!(slug_col, header, "misaligned row:\n{}", out.stdout);
        let name = l[name_start..after_name].trim_end();
        assert!(name.width() <= 60, "{name} spans {}", name.width());
    }
    assert!(
        lines
            .iter()
            .any(|l| l.contains("東京データ基盤チーム") && l.contains('…')),
        "{}",
        out.stdout
    );
    t.svc.shutdown().await;
}
