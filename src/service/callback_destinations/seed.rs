//! The generation's seed: the organization, instance, providers (with their triggers) and
//! policies always; with `--seed demo` the newest generation's teams and imports, and callbacks
//! on provider deployments with events, destinations (one archived, a flaky and a dead
//! receiver) and notifications in every status; `--history N` adds N past events.
use chrono::{DateTime, Duration, Utc};
use rand::Rng;
use serde_json::{Value, json};

use super::callbacks::callback;
use super::db::{self, kind};
use super::destinations::{default_retry, destination};
use super::pipeline::{Ingested, ingest, settle};
use super::worker::delay_seconds;
use crate::service::Seed;
use crate::service::event_destinations::destinations::new_secret;
use crate::service::event_destinations::seed::{organization, people};
use crate::service::event_destinations::wire::iso;
use crate::service::ids::new_id;
use crate::service::store::{Db, StoreError};

const ORG_KEY: &str = "callback_destinations_org";
const INSTANCE_KEY: &str = "callback_destinations_instance";

/// A trigger: key, name, event types.
type Trigger = (&'static str, &'static str, &'static [&'static str]);

/// Each seeded provider's triggers.
const TRIGGERS: &[(&str, &[Trigger])] = &[
    (
        "GitHub",
        &[
            ("issues", "Issues", &["issues.opened", "issues.closed"]),
            (
                "pull_request",
                "Pull requests",
                &["pull_request.opened", "pull_request.merged"],
            ),
            ("push", "Pushes", &["push"]),
        ],
    ),
    (
        "Slack",
        &[
            ("message", "Messages", &["message.posted"]),
            ("reaction", "Reactions", &["reaction.added"]),
        ],
    ),
    (
        "Linear",
        &[("issue", "Issues", &["issue.created", "issue.updated"])],
    ),
];

/// Seeds an empty database (once); returns the organization's and the instance's ids.
pub fn bootstrap(
    db: &Db,
    kind: Seed,
    base: &str,
    history: usize,
) -> Result<(String, String), StoreError> {
    if let (Some(org), Some(instance)) = (db.meta(ORG_KEY)?, db.meta(INSTANCE_KEY)?) {
        if history > 0 {
            seed_history(db, history)?;
        }
        return Ok((org, instance));
    }
    let org = new_id("org");
    let instance = new_id("ins");
    db.set_meta(ORG_KEY, &org)?;
    db.set_meta(INSTANCE_KEY, &instance)?;
    let now = Utc::now();
    let (providers, admin, customs) = organization(db, kind, &org, &instance, now)?;
    let at = iso(now - Duration::days(60));
    for (provider, _) in &providers {
        let name = provider["name"].as_str().unwrap_or_default();
        for (_, triggers) in TRIGGERS.iter().filter(|(p, _)| *p == name) {
            for (key, label, types) in *triggers {
                db::put(
                    db,
                    kind::TRIGGER,
                    &json!({
                        "object": "provider.trigger", "id": new_id("ptr"), "key": key,
                        "name": label, "event_types": types, "provider_id": provider["id"],
                        "created_at": at,
                    }),
                )?;
            }
        }
    }
    if let Some((ops, auditors)) = &customs {
        people(db, &org, &providers, &admin, (ops, auditors), now)?;
        demo(db, base, now)?;
    }
    if history > 0 {
        seed_history(db, history)?;
    }
    Ok((org, instance))
}

/// A trigger of a callback, by provider and key.
fn trigger(db: &Db, provider_id: &str, key: &str, at: &str) -> Result<Option<Value>, StoreError> {
    Ok(db::all_with(db, kind::TRIGGER, "provider_id", provider_id)?
        .into_iter()
        .find(|t| t["key"] == key)
        .map(|t| {
            json!({
                "object": "callback.provider_trigger", "id": new_id("cbpt"),
                "provider_trigger": {"object": "provider.trigger#preview", "id": t["id"],
                                     "key": t["key"], "name": t["name"]},
                "event_types": t["event_types"], "created_at": at,
            })
        }))
}

/// One past notification's attempts: the answers (None: unreachable) and where it ends.
struct Past<'a> {
    statuses: &'a [Option<u16>],
    status: &'a str,
    due_in: Option<Duration>,
}

/// Writes the attempts `past` describes onto a notification made at `t`.
fn past(
    db: &Db,
    n: &Value,
    sent: &Value,
    p: &Past<'_>,
    t: DateTime<Utc>,
) -> Result<(), StoreError> {
    let id = n["id"].as_str().unwrap_or_default().to_string();
    let dest = db::get(
        db,
        kind::DESTINATION,
        n["_destination_id"].as_str().unwrap_or_default(),
    )?
    .unwrap_or(Value::Null);
    let mut n = n.clone();
    let mut last = t;
    for (i, answer) in p.statuses.iter().enumerate() {
        let number = u64::try_from(i).unwrap_or(0) + 1;
        if i > 0 {
            last += Duration::seconds(
                i64::try_from(delay_seconds(&dest["_retry"], number - 1)).unwrap_or(30),
            );
        } else {
            last += Duration::milliseconds(400);
        }
        n["attempt_count"] = number.into();
        n["last_attempt_at"] = iso(last).into();
        n["error"] = match answer {
            Some(s) if (200..300).contains(s) => Value::Null,
            Some(s) => {
                json!({"code": "http_error", "message": format!("Destination responded with HTTP {s}")})
            }
            None => {
                json!({"code": "request_error", "message": "connect ECONNREFUSED 203.0.113.10:443"})
            }
        };
    }
    n["status"] = p.status.into();
    n["updated_at"] = iso(last).into();
    match p.due_in {
        Some(wait) => {
            let at = Utc::now() + wait;
            n["next_attempt_at"] = if p.statuses.is_empty() {
                Value::Null
            } else {
                iso(at).into()
            };
            db::set_due(db, &id, Some(at.timestamp_millis()))?;
        }
        None => db::set_due(db, &id, None)?,
    }
    db::put(db, kind::NOTIFICATION, &n)?;
    settle(db, sent["id"].as_str().unwrap_or_default(), &iso(last))
}

/// An event on a callback at `t` whose notifications (in the callback's destination order)
/// end as `ends` says.
fn event(
    db: &Db,
    cb: &Value,
    (trigger, event_type): (&str, &str),
    data: Value,
    t: DateTime<Utc>,
    ends: &[Past<'_>],
) -> Result<Ingested, StoreError> {
    let made = ingest(db, cb, trigger, event_type, data, Some(t))?;
    if let Some(sent) = &made.sent {
        for (n, p) in made.notifications.iter().zip(ends) {
            past(db, n, sent, p, t)?;
        }
    }
    Ok(made)
}

/// The demo world.
fn demo(db: &Db, base: &str, now: DateTime<Utc>) -> Result<(), StoreError> {
    let at = iso(now - Duration::days(30));
    let receiver = |mode: &str| format!("{base}/_receiver/{mode}");
    let mut dests = Vec::new();
    for (name, mode, retry) in [
        ("Ops webhook", "healthy", default_retry()),
        (
            "Flaky relay",
            "flaky",
            json!({"type": "linear", "max_attempts": 5, "delay_seconds": 10}),
        ),
        (
            "Dead endpoint",
            "down",
            json!({"type": "exponential", "max_attempts": 3, "delay_seconds": 10}),
        ),
        ("Staging relay", "healthy", default_retry()),
    ] {
        let mut d = destination(
            name,
            Some(format!("Demo: the {mode} receiver")),
            &receiver(mode),
            retry,
            &at,
        );
        d["metadata"] = json!({"demo": mode});
        db::put(db, kind::DESTINATION, &d)?;
        db::set_secret(db, d["id"].as_str().unwrap_or_default(), &new_secret())?;
        dests.push(d);
    }
    let dest_ids = |ix: &[usize]| {
        ix.iter()
            .map(|i| dests[*i]["id"].clone())
            .collect::<Vec<_>>()
    };
    let deployments = db::all(db, kind::DEPLOYMENT)?;
    let on = |provider_name: &str| {
        deployments
            .iter()
            .find(|d| {
                d["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with(provider_name))
            })
            .cloned()
            .unwrap_or(Value::Null)
    };
    let (github, slack, linear) = (on("GitHub"), on("Slack"), on("Linear"));
    let pid = |d: &Value| d["provider_id"].as_str().unwrap_or_default().to_string();
    let mut gh_triggers = Vec::new();
    for key in ["issues", "pull_request"] {
        gh_triggers.extend(trigger(db, &pid(&github), key, &at)?);
    }
    let mut issues = callback(
        &github,
        "GitHub issues",
        Some("Issue and pull request events for the production org".into()),
        dest_ids(&[0, 1, 3]),
        gh_triggers,
        &at,
    );
    issues["metadata"] = json!({"owner": "platform-team"});
    let slack_cb = callback(
        &slack,
        "Slack mentions",
        None,
        dest_ids(&[2, 1]),
        trigger(db, &pid(&slack), "message", &at)?
            .into_iter()
            .collect(),
        &at,
    );
    let mut old = callback(
        &linear,
        "Old Linear sync",
        Some("Replaced by the GitHub callback".into()),
        Vec::new(),
        trigger(db, &pid(&linear), "issue", &at)?
            .into_iter()
            .collect(),
        &at,
    );
    old["poll_interval_seconds_override"] = 120.into();
    for cb in [&issues, &slack_cb, &old] {
        db::put(db, kind::CALLBACK, cb)?;
    }
    let ago = |m: i64| now - Duration::minutes(m);
    let done = |statuses, status| Past {
        statuses,
        status,
        due_in: None,
    };
    // GitHub: to Ops, Flaky and Staging (archived afterwards).
    event(
        db,
        &issues,
        ("issues", "issues.opened"),
        json!({"action": "opened", "issue": {"number": 1287, "title": "Retry storms on deploy"}}),
        ago(300),
        &[
            done(&[Some(503), Some(200)], "delivered"),
            done(&[Some(200)], "delivered"),
            done(&[Some(200)], "delivered"),
        ],
    )?;
    event(
        db,
        &issues,
        ("issues", "issues.closed"),
        json!({"action": "closed", "issue": {"number": 412, "title": "Flaky login"}}),
        ago(120),
        &[
            done(&[Some(200)], "delivered"),
            done(&[Some(503), Some(200)], "delivered"),
            done(&[Some(200)], "delivered"),
        ],
    )?;
    event(
        db,
        &issues,
        ("pull_request", "pull_request.merged"),
        json!({"action": "merged", "pull_request": {"number": 88}}),
        ago(30),
        &[
            Past {
                statuses: &[],
                status: "pending",
                due_in: Some(Duration::minutes(10)),
            },
            Past {
                statuses: &[Some(503)],
                status: "retrying",
                due_in: Some(Duration::hours(1)),
            },
            done(&[Some(200)], "delivered"),
        ],
    )?;
    // Slack: the dead receiver fails every time, the flaky one got through.
    for (n, text) in ["Deploy is stuck", "Who owns billing?"].iter().enumerate() {
        let minutes = 12 - 2 * i64::try_from(n).unwrap_or(0);
        event(
            db,
            &slack_cb,
            ("message", "message.posted"),
            json!({"channel": "#ops", "text": text}),
            ago(minutes),
            &[
                done(&[Some(503), None, Some(503)], "failed"),
                done(&[Some(200)], "delivered"),
            ],
        )?;
    }
    // The old Linear callback is archived: its last event reached no one.
    event(
        db,
        &old,
        ("issue", "issue.updated"),
        json!({"issue": {"identifier": "ENG-7"}}),
        ago(400),
        &[],
    )?;
    old["status"] = "archived".into();
    old["updated_at"] = iso(ago(200)).into();
    db::put(db, kind::CALLBACK, &old)?;
    // Archive the staging relay last: it stays attached, and shows in lists as archived.
    let mut staging = dests[3].clone();
    staging["status"] = "archived".into();
    staging["description"] = "Retired".into();
    staging["updated_at"] = iso(ago(60)).into();
    db::put(db, kind::DESTINATION, &staging)?;
    Ok(())
}

/// N past events over the last four weeks on the active callbacks with destinations, most
/// delivered at once, some after a retry, a few failed.
fn seed_history(db: &Db, n: usize) -> Result<(), StoreError> {
    let callbacks: Vec<Value> = db::all(db, kind::CALLBACK)?
        .into_iter()
        .filter(|c| c["status"] == "active")
        .collect();
    if callbacks.is_empty() {
        return Ok(());
    }
    let now = Utc::now();
    let span = Duration::days(28).num_milliseconds();
    let mut rng = rand::rng();
    let mut times: Vec<i64> = (0..n).map(|_| rng.random_range(0..span)).collect();
    times.sort_unstable_by(|a, b| b.cmp(a));
    for back in times {
        let t = now - Duration::milliseconds(back) - Duration::hours(1);
        let cb = &callbacks[rng.random_range(0..callbacks.len())];
        let trigger = &cb["provider_triggers"][0];
        let key = trigger["provider_trigger"]["key"]
            .as_str()
            .unwrap_or("webhook");
        let ty = trigger["event_types"][0]
            .as_str()
            .unwrap_or("webhook.received");
        let roll: f64 = rng.random();
        let (statuses, status): (&[Option<u16>], &str) = if roll < 0.8 {
            (&[Some(200)], "delivered")
        } else if roll < 0.95 {
            (&[Some(503), Some(200)], "delivered")
        } else {
            (&[Some(503), Some(503), None], "failed")
        };
        let ends: Vec<Past<'_>> = (0..3)
            .map(|_| Past {
                statuses,
                status,
                due_in: None,
            })
            .collect();
        event(
            db,
            cb,
            (key, ty),
            json!({"number": rng.random_range(1..5000), "history": true}),
            t,
            &ends,
        )?;
    }
    Ok(())
}
