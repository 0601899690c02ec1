//! Seed data: the organization every database has, and the demo world from `assets/seed/`.
use std::collections::BTreeMap;

use chrono::{DateTime, TimeDelta, Utc};
use rand::Rng;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::Seed;
use super::delivery::{HeaderIds, MAX_ATTEMPTS, backoff, request_headers};
use super::events::{pending_notification, sample_payload};
use super::ids::{id_at, new_id, random_alnum};
use super::records::{
    CallbackRec, ConnectionRec, DeploymentRec, DestinationRec, RoleAssignmentRec, TeamProjectRec,
    TeamRec, organization_id, slugify, token_identifier,
};
use super::routes::signing_secret;
use super::store::{Db, NotificationKeys, StoreError};
use crate::api::model::{
    Attempt, AttemptStatus, Callback, CallbackSchedule, CallbackSelection, CallbackType,
    Destination, DestinationType, ImportStatus, Member, MemberRole, Notification,
    NotificationStatus, Project, ProjectStatus, ProviderOauthImport, TeamRole, WebhookDestination,
    WebhookRequest,
};

/// Creates the organization (and the demo world) in an empty database, and points the demo
/// destinations at this run's address.
pub fn bootstrap(db: &Db, seed: Seed, base_url: &str) -> Result<(), StoreError> {
    let fresh = db.meta("organization_id")?.is_none();
    if fresh {
        db.transaction(|db| {
            db.set_meta("organization_id", &new_id("org"))?;
            db.set_meta("instance_id", &new_id("ins"))?;
            if seed == Seed::Demo {
                demo(db, base_url)?;
            }
            Ok(())
        })?;
    }
    // Members carry their actor with its teams; this also brings older databases up to date.
    super::membership::refresh_all(db, fresh)?;
    retarget_receivers(db, base_url)
}

/// The demo world as written in `assets/seed/demo.json`.
#[derive(Deserialize)]
struct DemoWorld {
    projects: Vec<(String, String)>,
    roles: Vec<RoleSeed>,
    members: Vec<(String, String, String)>,
    teams: Vec<TeamSeed>,
    connections: Vec<ConnectionSeed>,
    deployments: Vec<DeploymentSeed>,
    callbacks: Vec<CallbackSeed>,
    destinations: Vec<DestinationSeed>,
    import_notes: Vec<Option<String>>,
    scopes: Vec<Option<String>>,
    events: usize,
}

#[derive(Deserialize)]
struct RoleSeed {
    name: String,
    description: Option<String>,
    permissions: Vec<String>,
}

#[derive(Deserialize)]
struct TeamSeed {
    name: String,
    description: Option<String>,
}

#[derive(Deserialize)]
struct ConnectionSeed {
    name: String,
    status: String,
}

#[derive(Deserialize)]
struct DeploymentSeed {
    name: String,
    connection: Option<usize>,
}

#[derive(Deserialize)]
struct CallbackSeed {
    name: String,
    description: Option<String>,
    #[serde(rename = "type")]
    kind: String,
    interval_seconds: i64,
    event_types: Vec<String>,
}

#[derive(Deserialize)]
struct DestinationSeed {
    name: String,
    description: String,
    receiver: String,
    callbacks: Value,
    /// Created this many hours ago (else weeks ago): it only got the events since.
    age_hours: Option<i64>,
}

const DEMO: &str = include_str!("../../assets/seed/demo.json");

/// Spreads `n` creation times evenly over `days` days before `end`.
fn spread(n: usize, days: i64, end: DateTime<Utc>) -> Vec<DateTime<Utc>> {
    let span = TimeDelta::days(days).num_milliseconds();
    let step = span / i64::try_from(n.max(1)).unwrap_or(1);
    (0..n)
        .map(|i| end - TimeDelta::milliseconds(span - step * i64::try_from(i).unwrap_or(0)))
        .collect()
}

fn pick<T>(items: &[T], i: usize) -> Option<&T> {
    items.get(i % items.len().max(1))
}

fn demo(db: &Db, base_url: &str) -> Result<(), StoreError> {
    let world: DemoWorld = serde_json::from_str(DEMO)?;
    let org = organization_id(db).map_err(|e| StoreError::Task(e.0.to_string()))?;
    let now = Utc::now();
    let mut rng = rand::rng();

    let role_times = spread(world.roles.len(), 1, now - TimeDelta::days(90));
    let mut roles = Vec::new();
    for (r, at) in world.roles.iter().zip(role_times) {
        let role = TeamRole {
            object: "management.team.role".into(),
            id: id_at("tmr", at),
            organization_id: org.clone(),
            name: r.name.clone(),
            slug: slugify(&r.name),
            description: r.description.clone(),
            permissions: r.permissions.clone(),
            created_at: at,
            updated_at: at,
        };
        db.save(&role)?;
        roles.push(role);
    }

    let project_times = spread(world.projects.len(), 5, now - TimeDelta::days(85));
    let mut projects = Vec::new();
    for ((name, slug), at) in world.projects.iter().zip(project_times) {
        let p = Project {
            object: "organization.project".into(),
            id: id_at("prj", at),
            status: ProjectStatus::Active,
            slug: slug.clone(),
            name: name.clone(),
            organization_id: org.clone(),
            created_at: at,
            updated_at: at,
        };
        db.save(&p)?;
        projects.push(p);
    }

    let member_times = spread(world.members.len(), 20, now - TimeDelta::days(60));
    let mut actors = Vec::new();
    for ((name, handle, role), at) in world.members.iter().zip(member_times) {
        let m = Member {
            object: "organization.member".into(),
            id: id_at("om", at),
            status: "active".into(),
            role: MemberRole::from(role.as_str()),
            user_id: id_at("usr", at),
            organization_id: Some(org.clone()),
            actor_id: id_at("oac", at),
            name: name.clone(),
            email: format!("{handle}@example.com"),
            image_url: Some(format!("https://avatars.example.com/{handle}.png")),
            created_at: at,
            updated_at: at,
            last_active_at: Some(now - TimeDelta::minutes(rng.random_range(5..60 * 24 * 7))),
            deleted_at: None,
            actor: None,
        };
        actors.push(m.actor_id.clone());
        db.save(&m)?;
    }

    let team_times = spread(world.teams.len(), 30, now - TimeDelta::days(30));
    for (i, (t, at)) in world.teams.iter().zip(team_times).enumerate() {
        let mut team_projects = Vec::new();
        for k in 0..(i % 4) {
            let Some(project) = pick(&projects, i + k * 3) else {
                continue;
            };
            let assigned = at + TimeDelta::hours(1 + i64::try_from(k).unwrap_or(0));
            let role_count = 1 + (i + k) % 2;
            let roles_here = (0..role_count)
                .filter_map(|r| pick(&roles, i + k + r))
                .map(|role| RoleAssignmentRec {
                    id: id_at("tmra", assigned),
                    role_id: role.id.clone(),
                    created_at: assigned,
                })
                .collect();
            team_projects.push(TeamProjectRec {
                id: id_at("tmp", assigned),
                project_id: project.id.clone(),
                roles: roles_here,
                created_at: assigned,
                updated_at: assigned,
            });
        }
        let members = (0..(i % 6))
            .filter_map(|k| pick(&actors, i * 5 + k * 7).cloned())
            .fold(Vec::new(), |mut acc, a| {
                if !acc.contains(&a) {
                    acc.push(a);
                }
                acc
            });
        let team = TeamRec {
            id: id_at("tm", at),
            name: t.name.clone(),
            slug: slugify(&t.name),
            description: t.description.clone(),
            projects: team_projects,
            members,
            created_at: at,
            updated_at: at,
        };
        db.save(&team)?;
    }

    let conn_times = spread(world.connections.len(), 5, now - TimeDelta::days(70));
    let mut connections = Vec::new();
    for (c, at) in world.connections.iter().zip(conn_times) {
        let rec = ConnectionRec {
            id: id_at("poc", at),
            name: c.name.clone(),
            status: c.status.clone(),
        };
        db.save(&rec)?;
        connections.push(rec.id);
    }
    let dep_times = spread(world.deployments.len(), 5, now - TimeDelta::days(65));
    for (d, at) in world.deployments.iter().zip(dep_times) {
        let rec = DeploymentRec {
            id: id_at("svd", at),
            name: d.name.clone(),
            connection_id: d.connection.and_then(|c| connections.get(c).cloned()),
        };
        db.save(&rec)?;
    }

    let import_times = spread(60, 60, now - TimeDelta::hours(2));
    for (i, at) in import_times.into_iter().enumerate() {
        let expires_at = match i % 5 {
            0 => None,
            // Some expired long ago, some just now: the list shows both states.
            1 | 3 => Some(at + TimeDelta::days(7)),
            _ => Some(at + TimeDelta::days(90)),
        };
        let mut metadata = Map::new();
        if i % 3 == 0 {
            metadata.insert("source".into(), "legacy-gw".into());
            metadata.insert("ticket".into(), format!("OPS-{}", 1400 + i).into());
        } else if i % 3 == 1 {
            metadata.insert("owner".into(), "data-team".into());
        }
        let import = ProviderOauthImport {
            object: "provider_oauth.import".into(),
            id: id_at("poti", at),
            status: ImportStatus::Active,
            note: pick(&world.import_notes, i).cloned().flatten(),
            metadata,
            connection_id: pick(&connections, i).cloned(),
            id_token: None,
            scope: pick(&world.scopes, i).cloned().flatten(),
            token_type: Some("Bearer".into()),
            identifier: Some(token_identifier(&format!(
                "demo-token-{i}-{}",
                random_alnum(12)
            ))),
            created_at: at,
            expires_at,
        };
        db.save(&import)?;
    }

    let cb_times = spread(world.callbacks.len(), 3, now - TimeDelta::days(50));
    let mut callbacks = Vec::new();
    for (c, at) in world.callbacks.iter().zip(cb_times) {
        let kind_value = CallbackType::from(c.kind.as_str());
        let rec = CallbackRec {
            hook_key: (kind_value == CallbackType::WebhookManual).then(|| random_alnum(32)),
            callback: Callback {
                object: "callback".into(),
                id: id_at("clb", at),
                url: None,
                name: Some(c.name.clone()),
                description: c.description.clone(),
                kind: kind_value.clone(),
                schedule: CallbackSchedule {
                    object: "callback.schedule".into(),
                    interval_seconds: c.interval_seconds,
                    next_run_at: (kind_value == CallbackType::Polling)
                        .then(|| now + TimeDelta::seconds(c.interval_seconds)),
                },
                created_at: at,
                updated_at: at,
            },
            event_types: c.event_types.clone(),
        };
        db.save(&rec)?;
        callbacks.push(rec);
    }

    let dest_times = spread(world.destinations.len(), 2, now - TimeDelta::days(40));
    let mut destinations = Vec::new();
    for (d, spread_at) in world.destinations.iter().zip(dest_times) {
        let at = d.age_hours.map_or(spread_at, |h| now - TimeDelta::hours(h));
        let selection = match &d.callbacks {
            Value::Array(idx) => CallbackSelection::selected(
                idx.iter()
                    .filter_map(|v| v.as_u64())
                    .filter_map(|i| callbacks.get(usize::try_from(i).unwrap_or(usize::MAX)))
                    .map(|c| c.callback.id.clone())
                    .collect(),
            ),
            _ => CallbackSelection::all(),
        };
        let rec = DestinationRec {
            destination: Destination {
                object: "callback.destination".into(),
                id: id_at("cld", at),
                kind: DestinationType::Webhook,
                name: d.name.clone(),
                description: d.description.clone(),
                webhook_destination: Some(WebhookDestination {
                    url: format!("{base_url}/_receiver/{}", d.receiver),
                    signing_secret: signing_secret(),
                }),
                callbacks: selection,
                created_at: at,
            },
            active: true,
        };
        db.save(&rec)?;
        destinations.push((rec, d.receiver.clone()));
    }

    let host = base_url.trim_start_matches("http://").to_string();
    let event_times = spread(world.events, 2, now - TimeDelta::minutes(1));
    for (i, at) in event_times.into_iter().enumerate() {
        let Some(cb) = pick(&callbacks, i * 7 + i / 3) else {
            continue;
        };
        let event_type = pick(&cb.event_types, i)
            .cloned()
            .unwrap_or_else(|| "event.created".into());
        let payload = sample_payload(&event_type, &mut rng);
        let event_id = id_at("cbe", at);
        for (dest, receiver) in &destinations {
            if at < dest.destination.created_at
                || !dest.destination.callbacks.includes(&cb.callback.id)
            {
                continue;
            }
            let (mut n, keys) = pending_notification(
                dest,
                &event_id,
                &cb.callback.id,
                &event_type,
                &payload,
                at,
                true,
            );
            let secret = dest
                .destination
                .webhook_destination
                .as_ref()
                .map(|w| w.signing_secret.clone())
                .unwrap_or_default();
            let next = history_of(&mut n, &keys, &secret, &host, receiver, now, &mut rng);
            db.save_notification(&n, &keys, next)?;
        }
    }
    Ok(())
}

/// Fills in a plausible attempt history for a receiver's behaviour; returns when the next
/// attempt is due (unix ms) for one still retrying.
fn history_of(
    n: &mut Notification,
    keys: &NotificationKeys,
    secret: &str,
    host: &str,
    receiver: &str,
    now: DateTime<Utc>,
    rng: &mut impl Rng,
) -> Option<i64> {
    let failures_before_success = match receiver {
        "healthy" => usize::from(rng.random_bool(0.08)),
        "flaky" => rng.random_range(0..4),
        _ => MAX_ATTEMPTS,
    };
    let mut at = n.created_at + TimeDelta::milliseconds(rng.random_range(5..40));
    let url = n.url.clone().unwrap_or_default();
    let id = n.id.clone();
    let ids = HeaderIds {
        notification: &id,
        event: &keys.event_id,
        callback: &keys.callback_id,
    };
    for index in 0..MAX_ATTEMPTS {
        if at > now {
            n.status = NotificationStatus::Retrying;
            return Some(at.timestamp_millis());
        }
        let ok = index >= failures_before_success;
        let timeout = !ok && receiver == "healthy";
        let duration = if timeout {
            10_003
        } else {
            rng.random_range(8..180)
        };
        let attempt_id = id_at("cbna", at);
        let mut response_headers = BTreeMap::new();
        if !timeout {
            response_headers.insert("content-type".into(), "application/json".into());
        }
        n.attempts.push(Attempt {
            object: "callback.notification.attempt".into(),
            id: attempt_id.clone(),
            status: if ok {
                AttemptStatus::Succeeded
            } else {
                AttemptStatus::Failed
            },
            index: i64::try_from(index).unwrap_or(0),
            webhook_request: Some(WebhookRequest {
                response_headers,
                response_status: match (ok, timeout) {
                    (true, _) => 200,
                    (false, true) => -1,
                    (false, false) => 503,
                },
                response_body: match (ok, timeout) {
                    (true, _) => Some(r#"{"received":true}"#.into()),
                    (false, true) => None,
                    (false, false) => {
                        Some(r#"{"received":false,"error":"receiver unavailable"}"#.into())
                    }
                },
                request_error: timeout.then(|| "timeout after 10000 ms".to_string()),
                duration,
                ..WebhookRequest::post(
                    attempt_id.replacen("cbna_", "cbnwr_", 1),
                    &url,
                    keys.body.clone(),
                    request_headers(ids, &keys.body, secret, host, at.timestamp()),
                    at,
                )
            }),
            created_at: at,
        });
        if ok {
            n.status = NotificationStatus::Succeeded;
            return None;
        }
        let wait = backoff(index + 1, std::time::Duration::from_secs(1));
        at += TimeDelta::milliseconds(i64::try_from(wait.as_millis()).unwrap_or(0) + duration);
    }
    n.status = NotificationStatus::Failed;
    None
}

/// The built-in receiver follows the service to whatever port it runs on this time.
fn retarget_receivers(db: &Db, base_url: &str) -> Result<(), StoreError> {
    for mut rec in db.load_all::<DestinationRec>()? {
        let Some(w) = rec.destination.webhook_destination.as_mut() else {
            continue;
        };
        let Some(pos) = w.url.find("/_receiver/") else {
            continue;
        };
        let moved = format!("{base_url}{}", w.url.get(pos..).unwrap_or_default());
        if moved != w.url && is_loopback(&w.url) {
            w.url = moved;
            db.save(&rec)?;
        }
    }
    Ok(())
}

fn is_loopback(u: &str) -> bool {
    url::Url::parse(u).is_ok_and(|u| {
        matches!(
            u.host_str(),
            Some("127.0.0.1") | Some("localhost") | Some("[::1]")
        )
    })
}

/// Notifications per transaction while seeding a history: bounds the WAL between checkpoints.
const HISTORY_COMMIT: usize = 50_000;
/// Notifications handed from the generating thread to the writing one at a time.
const HISTORY_CHUNK: usize = 1_000;

/// Seeds `events` synthetic past events, spread over the last four weeks, straight into the
/// store: one notification per selecting active destination, mostly delivered at once, some
/// after retries, a few failed after every attempt. A database with no destination gets the
/// demo world first. One thread builds the rows (JSON, signatures) while this one writes them
/// with a prepared statement in large transactions. Returns how many notifications were written.
pub fn history(
    store: &super::store::Store,
    events: usize,
    base_url: &str,
) -> Result<usize, StoreError> {
    let needs_world = store.with(|db| {
        Ok::<_, StoreError>(db.load_all::<DestinationRec>()?.iter().all(|d| !d.active))
    })?;
    if needs_world {
        store.with(|db| db.transaction(|db| demo(db, base_url)))?;
    }
    let (callbacks, destinations) = store.with(|db| {
        let callbacks = db.load_all::<CallbackRec>()?;
        let destinations: Vec<DestinationRec> = db
            .load_all::<DestinationRec>()?
            .into_iter()
            .filter(|d| d.active)
            .collect();
        Ok::<_, StoreError>((callbacks, destinations))
    })?;
    let host = base_url.trim_start_matches("http://").to_string();
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<HistoryRow>>(8);
    let (callbacks, destinations, host) = (&callbacks, &destinations, host.as_str());
    std::thread::scope(|scope| {
        // The sender moves into the generator, so the writer's loop ends when it does.
        let producer =
            scope.spawn(move || generate_history(callbacks, destinations, events, host, &tx));
        let written = store
            .with(|db| db.bulk_mode(true))
            .and_then(|()| write_history(store, &rx));
        // Dropping the receiver stops a generator still sending after a write error.
        drop(rx);
        let restored = store.with(|db| db.bulk_mode(false));
        let generated = producer
            .join()
            .map_err(|_| StoreError::Task("history generator panicked".into()))?;
        let written = written?;
        generated?;
        restored?;
        Ok(written)
    })
}

/// Writes generated rows in transactions of about [`HISTORY_COMMIT`] notifications.
fn write_history(
    store: &super::store::Store,
    rx: &std::sync::mpsc::Receiver<Vec<HistoryRow>>,
) -> Result<usize, StoreError> {
    let mut written = 0;
    let mut chunks = rx.iter().peekable();
    while chunks.peek().is_some() {
        written += store.with(|db| {
            db.transaction(|db| {
                let mut n = 0;
                for chunk in chunks.by_ref() {
                    for row in &chunk {
                        db.insert_notification_json(
                            &row.keys,
                            &row.id,
                            &row.status,
                            row.next,
                            &row.data,
                        )?;
                    }
                    n += chunk.len();
                    if n >= HISTORY_COMMIT {
                        break;
                    }
                }
                Ok(n)
            })
        })?;
    }
    Ok(written)
}

/// One generated notification row.
struct HistoryRow {
    id: String,
    status: String,
    next: Option<i64>,
    keys: NotificationKeys,
    data: String,
}

fn generate_history(
    callbacks: &[CallbackRec],
    destinations: &[DestinationRec],
    events: usize,
    host: &str,
    tx: &std::sync::mpsc::SyncSender<Vec<HistoryRow>>,
) -> Result<(), StoreError> {
    // Which destinations each callback reaches, worked out once.
    let fan: Vec<Vec<&DestinationRec>> = callbacks
        .iter()
        .map(|cb| {
            destinations
                .iter()
                .filter(|d| d.destination.callbacks.includes(&cb.callback.id))
                .collect()
        })
        .collect();
    let now = Utc::now();
    let span = TimeDelta::days(28).num_milliseconds();
    let step = span / i64::try_from(events.max(1)).unwrap_or(1);
    let start = now - TimeDelta::milliseconds(span);
    let mut rng = rand::rng();
    let mut chunk = Vec::with_capacity(HISTORY_CHUNK);
    for i in 0..events {
        let offset = step * i64::try_from(i).unwrap_or(0);
        let at = start + TimeDelta::milliseconds(offset + rng.random_range(0..step.max(1)));
        let which = (i * 7 + i / 3) % callbacks.len().max(1);
        let (Some(cb), Some(targets)) = (callbacks.get(which), fan.get(which)) else {
            continue;
        };
        let event_type = pick(&cb.event_types, i)
            .cloned()
            .unwrap_or_else(|| "event.created".into());
        let payload = sample_payload(&event_type, &mut rng);
        let event_id = id_at("cbe", at);
        for dest in targets {
            let (mut n, keys) = pending_notification(
                dest,
                &event_id,
                &cb.callback.id,
                &event_type,
                &payload,
                at,
                true,
            );
            let secret = dest
                .destination
                .webhook_destination
                .as_ref()
                .map(|w| w.signing_secret.as_str())
                .unwrap_or_default();
            // Most deliveries land at once; some need retries; a few never do.
            let receiver = match rng.random_range(0..100) {
                0..90 => "healthy",
                90..98 => "flaky",
                _ => "failing",
            };
            let next = history_of(&mut n, &keys, secret, host, receiver, now, &mut rng);
            chunk.push(HistoryRow {
                data: serde_json::to_string(&n)?,
                status: n.status.as_str().to_string(),
                id: n.id,
                next,
                keys,
            });
            if chunk.len() >= HISTORY_CHUNK {
                let full = std::mem::replace(&mut chunk, Vec::with_capacity(HISTORY_CHUNK));
                if tx.send(full).is_err() {
                    // The writer stopped (it failed); its error is the one reported.
                    return Ok(());
                }
            }
        }
    }
    if !chunk.is_empty() {
        let _ = tx.send(chunk);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_demo_without_its_organization_is_a_task_failure_not_a_stored_record() {
        let store = crate::service::store::Store::open(None).expect("in-memory store");
        let err = store
            .with(|db| demo(db, "http://127.0.0.1:9"))
            .expect_err("no organization");
        assert!(matches!(err, StoreError::Task(_)), "{err:?}");
        assert!(!err.to_string().contains("stored record"), "{err}");
    }
}
