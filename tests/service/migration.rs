//! A database written at schema version 1 (tests/fixtures/db/service-v1.db) opens with the
//! current code, migrates, and serves everything it held: every notification with its stored
//! JSON, the active destinations under their callback filters, every team, in both orders, and
//! the hook keys of its callbacks (through the index schema 3 adds).
use crate::common::service as support_service;

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;
use switchboard::service::{DbLocation, Seed, ServiceConfig};

/// What the fixture holds, read with plain SQL before the service touches it.
struct Stored {
    /// id → (callback id, destination id, status, JSON).
    notifications: BTreeMap<String, (String, String, String, Value)>,
    /// kind → id → JSON.
    records: BTreeMap<String, BTreeMap<String, Value>>,
}

fn read_stored(path: &Path) -> Stored {
    let conn = rusqlite::Connection::open(path).expect("open fixture");
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .expect("version");
    assert_eq!(version, 1, "the fixture is a schema-1 database");
    let mut notifications = BTreeMap::new();
    let mut stmt = conn
        .prepare("SELECT id, callback_id, destination_id, status, data FROM notifications")
        .expect("prepare");
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
            ))
        })
        .expect("query");
    for row in rows {
        let (id, cb, dest, status, data) = row.expect("row");
        let json: Value = serde_json::from_str(&data).expect("stored json");
        notifications.insert(id, (cb, dest, status, json));
    }
    let mut records: BTreeMap<String, BTreeMap<String, Value>> = BTreeMap::new();
    let mut stmt = conn
        .prepare("SELECT kind, id, data FROM records")
        .expect("prepare");
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })
        .expect("query");
    for row in rows {
        let (kind, id, data) = row.expect("row");
        let json: Value = serde_json::from_str(&data).expect("stored json");
        records.entry(kind).or_default().insert(id, json);
    }
    Stored {
        notifications,
        records,
    }
}

/// Copies the fixture into a fresh directory (the original stays untouched).
fn fixture_copy(dir: &Path) -> PathBuf {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/db/service-v1.db");
    let dst = dir.join("service.db");
    std::fs::copy(&src, &dst).expect("copy fixture");
    std::fs::set_permissions(&dst, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    dst
}

/// Every item of a list, walking forward with `after` in pages of `limit`.
async fn walk(
    t: &support_service::TestService,
    path: &str,
    limit: usize,
    order: &str,
) -> Vec<Value> {
    let sep = if path.contains('?') { '&' } else { '?' };
    let mut items: Vec<Value> = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let mut url = format!("{path}{sep}limit={limit}&order={order}");
        if let Some(a) = &after {
            url.push_str(&format!("&after={a}"));
        }
        let page = t.get(&url).await;
        assert_eq!(page.status, 200, "{url}: {}", page.body);
        let got = page.body["items"].as_array().expect("items").clone();
        assert!(got.len() <= limit);
        let more = page.body["pagination"]["has_more_after"] == Value::Bool(true);
        assert_eq!(
            page.body["pagination"]["has_more_before"],
            Value::Bool(after.is_some()),
            "{url}"
        );
        after = got
            .last()
            .and_then(|v| v["id"].as_str())
            .map(str::to_string);
        items.extend(got);
        if !more {
            return items;
        }
    }
}

fn ids(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .filter_map(|v| v["id"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_1_database_migrates_with_nothing_lost() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = fixture_copy(dir.path());
    let stored = read_stored(&path);
    assert!(stored.notifications.len() > 300);

    let mut cfg = ServiceConfig::ephemeral();
    cfg.db = DbLocation::Path(path.clone());
    cfg.seed = Seed::None;
    // Keeps the retrying notifications from being attempted again while we compare.
    cfg.retry_base = std::time::Duration::from_secs(3600);
    let t = support_service::start_with(cfg).await;

    // Every notification, in both orders; finished ones exactly as stored.
    let asc = walk(&t, "/callbacks-notifications", 100, "asc").await;
    let want: Vec<String> = stored.notifications.keys().cloned().collect();
    assert_eq!(ids(&asc), want);
    let desc = walk(&t, "/callbacks-notifications", 37, "desc").await;
    let mut reversed = want.clone();
    reversed.reverse();
    assert_eq!(ids(&desc), reversed);
    for n in &asc {
        let id = n["id"].as_str().expect("id");
        let (_, _, status, json) = &stored.notifications[id];
        if status != "retrying" && status != "pending" {
            assert_eq!(n, json, "{id}");
        }
    }

    // `before` walks back: the page right before an item, in the asked order.
    let mid = &want[150];
    let back = t
        .get(&format!("/callbacks-notifications?before={mid}&limit=10"))
        .await;
    assert_eq!(
        ids(back.body["items"].as_array().expect("items")),
        want[140..150]
    );
    assert_eq!(back.body["pagination"]["has_more_before"], true);
    assert_eq!(back.body["pagination"]["has_more_after"], true);
    let back = t
        .get(&format!(
            "/callbacks-notifications?before={mid}&limit=10&order=desc"
        ))
        .await;
    let mut expect: Vec<String> = want[151..161].to_vec();
    expect.reverse();
    assert_eq!(ids(back.body["items"].as_array().expect("items")), expect);
    // An anchor that is not in the (filtered) list gives an empty page, as the API does.
    for q in [
        "after=cbn_missing",
        "before=cbn_missing",
        &format!("after={mid}&callback_id=clb_none"),
    ] {
        let p = t.get(&format!("/callbacks-notifications?{q}")).await;
        assert_eq!(p.status, 200);
        assert_eq!(p.body["items"], Value::Array(Vec::new()), "{q}");
        assert_eq!(p.body["pagination"]["has_more_after"], false, "{q}");
    }

    // The Union filters in SQL agree with the stored columns.
    let (cb, dest) = {
        let first = stored.notifications.values().next().expect("one");
        (first.0.clone(), first.1.clone())
    };
    let by_cb = walk(
        &t,
        &format!("/callbacks-notifications?callback_id={cb}"),
        50,
        "asc",
    )
    .await;
    let want_cb: Vec<String> = stored
        .notifications
        .iter()
        .filter(|(_, v)| v.0 == cb)
        .map(|(k, _)| k.clone())
        .collect();
    assert_eq!(ids(&by_cb), want_cb);
    let both = walk(
        &t,
        &format!("/callbacks-notifications?callback_id[]={cb}&destination_id[0]={dest}"),
        20,
        "desc",
    )
    .await;
    let mut want_both: Vec<String> = stored
        .notifications
        .iter()
        .filter(|(_, v)| v.0 == cb && v.1 == dest)
        .map(|(k, _)| k.clone())
        .collect();
    want_both.reverse();
    assert_eq!(ids(&both), want_both);

    // Destinations: the active ones; with callback_id, those selecting it (or all).
    let dests = &stored.records["destination"];
    let active: Vec<String> = dests
        .iter()
        .filter(|(_, v)| v["active"] == Value::Bool(true))
        .map(|(k, _)| k.clone())
        .collect();
    assert!(active.len() < dests.len(), "the fixture has a deleted one");
    assert_eq!(
        ids(&walk(&t, "/callbacks-destinations", 2, "asc").await),
        active
    );
    let selecting = |callback: &str| -> Vec<String> {
        dests
            .iter()
            .filter(|(_, v)| v["active"] == Value::Bool(true))
            .filter(|(_, v)| {
                let sel = &v["destination"]["callbacks"];
                sel["type"] == "all"
                    || sel["callback_ids"]
                        .as_array()
                        .is_some_and(|a| a.iter().any(|c| c == callback))
            })
            .map(|(k, _)| k.clone())
            .collect()
    };
    for callback in stored.records["callback"].keys() {
        let selecting = selecting(callback);
        let got = walk(
            &t,
            &format!("/callbacks-destinations?callback_id={callback}"),
            100,
            "asc",
        )
        .await;
        assert_eq!(ids(&got), selecting, "{callback}");
    }

    // Teams and the other record kinds are all still there.
    let teams: BTreeSet<String> = stored.records["team"].keys().cloned().collect();
    let got: BTreeSet<String> = ids(&walk(&t, "/organization/teams", 7, "desc").await)
        .into_iter()
        .collect();
    assert_eq!(got, teams);
    let imports = walk(&t, "/provider-oauth/token-imports", 100, "asc").await;
    assert_eq!(imports.len(), stored.records["import"].len());

    hooks_find_their_callback(&t, &stored, &selecting).await;

    // Every stored team is found by its slug through the index version 4 added.
    for (id, team) in &stored.records["team"] {
        let slug = team["slug"].as_str().expect("slug");
        let got = t.get(&format!("/organization/teams/{slug}")).await;
        assert_eq!(got.status, 200, "{slug}");
        assert_eq!(got.body["id"].as_str(), Some(id.as_str()), "{slug}");
    }

    t.svc.shutdown().await;
    let conn = rusqlite::Connection::open(&path).expect("reopen");
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .expect("version");
    assert_eq!(version, 5);
    // Version 4: events stored once, the per-destination due index, the team slug index.
    for (kind, name) in [
        ("table", "events"),
        ("index", "notifications_destination_due"),
        ("index", "records_team_slug"),
    ] {
        let found: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = ?1 AND name = ?2",
                [kind, name],
                |r| r.get(0),
            )
            .expect("schema");
        assert_eq!(found, 1, "{kind} {name} after migrating");
    }
    // Version 3 added the index incoming hooks find their callback by.
    let index: Option<String> = conn
        .query_row(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'records_hook_key'",
            [],
            |r| r.get(0),
        )
        .ok();
    let index = index.expect("records_hook_key exists after migrating");
    assert!(index.contains("$.hook_key"), "{index}");
    let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the database holds secrets");
}

/// Every `webhook_manual` callback of the migrated database answers its hook key (among several
/// callbacks) and fans out to exactly the destinations selecting it; any other key is the same
/// 404 and creates nothing.
async fn hooks_find_their_callback(
    t: &support_service::TestService,
    stored: &Stored,
    selecting: &dyn Fn(&str) -> Vec<String>,
) {
    let callbacks = &stored.records["callback"];
    let manual: Vec<(String, String)> = callbacks
        .iter()
        .filter(|(_, v)| v["callback"]["type"] == "webhook_manual")
        .filter_map(|(id, v)| Some((id.clone(), v["hook_key"].as_str()?.to_string())))
        .collect();
    assert!(
        manual.len() >= 2,
        "the fixture has several manual callbacks"
    );
    assert!(
        callbacks.len() > manual.len(),
        "and other callbacks beside them"
    );
    let post = |key: String| async move {
        t.raw(
            reqwest::Method::POST,
            &format!("/hooks/{key}"),
            Some(r#"{"type":"build.failed","build":7}"#),
            Some(None),
        )
        .await
    };
    for (callback, key) in &manual {
        let r = post(key.clone()).await;
        assert_eq!(r.status, 200, "{callback}: {}", r.body);
        let event = r.body["event_id"].as_str().expect("event id").to_string();
        let mut sent: Vec<String> = r.body["notification_ids"]
            .as_array()
            .expect("notification ids")
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        sent.sort();
        let want = selecting(callback);
        assert!(!want.is_empty(), "{callback} has a destination");
        assert_eq!(sent.len(), want.len(), "{callback}");
        let of_callback = walk(
            t,
            &format!("/callbacks-notifications?event_id={event}&callback_id={callback}"),
            100,
            "asc",
        )
        .await;
        assert_eq!(ids(&of_callback), sent, "{callback}");
        for dest in &want {
            let one = walk(
                t,
                &format!("/callbacks-notifications?event_id={event}&destination_id={dest}"),
                100,
                "asc",
            )
            .await;
            assert_eq!(one.len(), 1, "{callback} → {dest}");
        }
    }

    let before = walk(t, "/callbacks-notifications", 100, "asc").await.len();
    let (_, key) = &manual[0];
    let mut wrong_last = key.clone();
    let last = wrong_last.pop().expect("a key");
    wrong_last.push(if last == 'a' { 'b' } else { 'a' });
    for unknown in [
        "not-a-key".to_string(),
        key[..key.len() - 1].to_string(),
        format!("{key}x"),
        key.to_ascii_lowercase(),
        wrong_last,
    ] {
        if unknown == *key {
            continue;
        }
        let r = post(unknown.clone()).await;
        assert_eq!(r.status, 404, "{unknown}");
        assert_eq!(r.body["code"], "not_found", "{unknown}: {}", r.body);
        assert_eq!(r.body["entity"], "endpoint", "{unknown}");
        assert_eq!(r.body["id"], "/hooks", "{unknown}");
    }
    let after = walk(t, "/callbacks-notifications", 100, "asc").await.len();
    assert_eq!(after, before, "an unknown key creates nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_database_and_its_wal_are_private() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("new.db");
    let mut cfg = ServiceConfig::ephemeral();
    cfg.db = DbLocation::Path(path.clone());
    cfg.seed = Seed::Demo;
    let t = support_service::start_with(cfg).await;
    // A write leaves a -wal (and -shm) beside the database while it is open.
    let created = t
        .raw(
            reqwest::Method::POST,
            "/organization/teams",
            Some(r#"{"name":"Private"}"#),
            None,
        )
        .await;
    assert_eq!(created.status, 200);
    for suffix in ["", "-wal", "-shm"] {
        let p = PathBuf::from(format!("{}{suffix}", path.display()));
        let mode = std::fs::metadata(&p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600, "{}", p.display());
    }
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_seeds_past_events_straight_into_the_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("history.db");
    let mut cfg = ServiceConfig::ephemeral();
    cfg.db = DbLocation::Path(path.clone());
    cfg.history = 600;
    let t = support_service::start_with(cfg).await;
    let all = walk(&t, "/callbacks-notifications", 100, "asc").await;
    // The demo world comes first (there was no destination), then about three per event.
    assert!(all.len() > 600 + 300, "{}", all.len());
    let statuses: BTreeSet<&str> = all.iter().filter_map(|n| n["status"].as_str()).collect();
    assert!(
        statuses.contains("succeeded") && statuses.contains("failed"),
        "{statuses:?}"
    );
    let retried = all.iter().any(|n| {
        n["status"] == "succeeded" && n["attempts"].as_array().is_some_and(|a| a.len() > 1)
    });
    assert!(retried, "some were delivered after retries");
    let oldest: chrono::DateTime<chrono::Utc> = all[0]["created_at"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("created_at");
    assert!(
        chrono::Utc::now() - oldest > chrono::TimeDelta::weeks(3),
        "spread over the past weeks"
    );
    t.svc.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn teams_sharing_a_slug_in_an_old_file_are_renamed_once_and_the_index_holds_after() {
    let dir = tempfile::tempdir().expect("dir");
    let path = fixture_copy(dir.path());
    let copy = "tm_0mzzzzzzmDuplicateSlugXX";
    {
        // An older file holding two teams with the slug `billing` (the copy is the newer id), the
        // copy's member naming it in `actor.teams[]`.
        let c = rusqlite::Connection::open(&path).expect("open fixture");
        let (original, member): (String, String) = c
            .query_row(
                "SELECT id, json_extract(data, '$.members[0]') FROM records
                 WHERE kind = 'team' AND json_extract(data, '$.slug') = 'billing'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .expect("the billing team");
        c.execute(
            "INSERT INTO records (kind, id, data) SELECT 'team', ?1,
                 json_set(data, '$.id', ?1, '$.name', 'Billing copy')
             FROM records WHERE kind = 'team' AND id = ?2",
            [copy, original.as_str()],
        )
        .expect("duplicate team");
        let changed = c
            .execute(
                "UPDATE records SET data = json_set(data, '$.actor', json_object('teams',
                     json_array(json_object('id', ?1, 'name', 'Billing copy', 'slug', 'billing'))))
                 WHERE kind = 'member' AND json_extract(data, '$.actor_id') = ?2",
                [copy, member.as_str()],
            )
            .expect("member");
        assert_eq!(changed, 1);
    }
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::None;
    cfg.db = DbLocation::Path(path.clone());
    let t = support_service::start_with(cfg).await;
    let billing = t.get("/organization/teams/billing").await;
    assert_eq!(billing.status, 200);
    assert_ne!(billing.body["id"], copy, "the oldest keeps the slug");
    let renamed = t.get("/organization/teams/billing-2").await;
    assert_eq!(renamed.body["id"], copy, "{}", renamed.body);
    t.svc.shutdown().await;
    let c = rusqlite::Connection::open(&path).expect("reopen");
    let entry: String = c
        .query_row(
            "SELECT j.value FROM records, json_each(data, '$.actor.teams') j
             WHERE kind = 'member' AND json_extract(j.value, '$.id') = ?1",
            [copy],
            |r| r.get(0),
        )
        .expect("the member's entry");
    assert!(entry.contains(r#""slug":"billing-2""#), "{entry}");
    // The unique index refuses a duplicate however it is written.
    let err = c
        .execute(
            "INSERT INTO records (kind, id, data)
             VALUES ('team', 'tm_0mzzzzzzmAnotherDuplicat', '{\"slug\":\"billing\"}')",
            [],
        )
        .expect_err("a second `billing` is refused");
    assert!(err.to_string().contains("UNIQUE"), "{err}");
}
