//! The generation's seed: the organization and instance always (with the providers callbacks
//! and imports name), and with `--seed demo` a world showing every area and every delivery
//! status; `--history N` adds N past events with their deliveries.
use crate::service::event_destinations::stored::Stored;
use chrono::{DateTime, Duration, Utc};
use rand::Rng;
use serde_json::{Value, json};

use super::db;
use super::destinations::{destination, new_secret};
use super::listeners::listener;
use super::pipeline::{self, TRIGGERS};
use super::wire::iso;
use super::worker::sign;
use crate::service::Seed;
use crate::service::ids::{id_at, new_id};
use crate::service::store::{Db, StoreError};

const ORG_KEY: &str = "event_destinations_org";
const INSTANCE_KEY: &str = "event_destinations_instance";

/// Seeds an empty database (once); returns the organization's and the instance's ids.
pub fn bootstrap(
    db: &Db,
    kind: Seed,
    base: &str,
    history: usize,
) -> Result<(String, String), StoreError> {
    if let (Some(org), Some(instance)) = (db.meta(ORG_KEY)?, db.meta(INSTANCE_KEY)?) {
        if history > 0 {
            seed_history(db, &org, &instance, history)?;
        }
        return Ok((org, instance));
    }
    let org = new_id("org");
    let instance = new_id("ins");
    db.set_meta(ORG_KEY, &org)?;
    db.set_meta(INSTANCE_KEY, &instance)?;
    let now = Utc::now();
    let (providers, admin, customs) = organization(db, kind, &org, &instance, now)?;
    if let Some((ops, auditors)) = &customs {
        demo(
            db,
            &org,
            &instance,
            base,
            &providers,
            &admin,
            (ops, auditors),
            now,
        )?;
    }
    if history > 0 {
        seed_history(db, &org, &instance, history)?;
    }
    Ok((org, instance))
}

/// The organization's providers and policies (the demo's custom ones too): what every newer
/// generation's seed starts with. Returns the providers, the admin policy and the custom ones.
#[allow(clippy::type_complexity)]
pub(in crate::service) fn organization(
    db: &Db,
    kind: Seed,
    org: &str,
    instance: &str,
    now: DateTime<Utc>,
) -> Result<(Vec<(Value, Value)>, Value, Option<(Value, Value)>), StoreError> {
    let at = iso(now - Duration::days(60));
    let providers = providers(db, &at)?;
    let customs = if kind == Seed::Demo {
        Some(custom_policies(db, org, instance, &at)?)
    } else {
        None
    };
    let everyone = super::teams::policy(
        org,
        "everyone",
        "Everyone",
        "Every member",
        instance,
        &["instance:read"],
        &at,
    );
    let admin = super::teams::policy(
        org,
        "admin",
        "Admin",
        "Everything",
        instance,
        &["organization:admin"],
        &at,
    );
    db::put(db, Stored::Policy, &everyone)?;
    db::put(db, Stored::Policy, &admin)?;
    Ok((providers, admin, customs))
}

/// GitHub, Slack and Linear: each with an auth method, a deployment, an integration and its
/// integration provider.
fn providers(db: &Db, at: &str) -> Result<Vec<(Value, Value)>, StoreError> {
    let mut out = Vec::new();
    for (name, slug) in [
        ("GitHub", "github"),
        ("Slack", "slack"),
        ("Linear", "linear"),
    ] {
        let id = new_id("pro");
        let provider = json!({
            "object": "provider", "id": id, "name": name, "description": null, "slug": slug,
            "created_at": at, "updated_at": at,
            "_auth_method": {
                "object": "provider.capabilities.auth_method", "id": new_id("pam"), "type": "token",
                "key": "api_token", "name": "API token", "description": null, "capabilities": {},
                "input_schema": null, "output_schema": null, "scopes": null, "provider_id": id,
                "provider_specification_id": new_id("psp"), "created_at": at, "updated_at": at,
            },
        });
        let deployment = json!({
            "object": "provider.deployment#preview", "id": new_id("pde"), "is_default": true,
            "name": format!("{name} (production)"), "description": null, "metadata": null,
            "provider_id": id, "created_at": at, "updated_at": at,
        });
        let integration = new_id("int");
        let ip = json!({
            "id": new_id("inp"), "integration_id": integration, "provider_id": id,
            "_integration_instance_id": new_id("ini"), "_instance_provider_id": new_id("iip"),
        });
        db::put(db, Stored::Provider, &provider)?;
        db::put(db, Stored::Deployment, &deployment)?;
        db::put(db, Stored::IntegrationProvider, &ip)?;
        out.push((provider, ip));
        let _ = deployment;
    }
    Ok(out)
}

/// One past delivery of `event` to `dest` whose attempts answered `statuses` (None: timeout),
/// ending in `status`; a `retrying` or `pending` one is scheduled `due_in` from now.
#[allow(clippy::too_many_arguments)]
fn past_delivery(
    db: &Db,
    event: &Value,
    dest: &Value,
    secret: &str,
    statuses: &[Option<u16>],
    status: &str,
    t: DateTime<Utc>,
    due_in: Option<Duration>,
) -> Result<Value, StoreError> {
    let mut d = pipeline::delivery(event, dest, &iso(t));
    d["id"] = id_at("evdi", t).into();
    let id = d["id"].as_str().unwrap_or_default().to_string();
    let body = pipeline::webhook_body(event);
    let url = dest["webhook"]["url"].as_str().unwrap_or_default();
    let mut at = t;
    for (n, code) in statuses.iter().enumerate() {
        at += Duration::seconds(10 * (1 << n.min(10)));
        let ts = at.timestamp();
        let ok = code.is_some_and(|c| (200..300).contains(&c));
        let attempt = json!({
            "object": "event.delivery_attempt", "id": id_at("evda", at), "event_delivery_id": id,
            "event_id": event["id"], "event_destination_id": dest["id"],
            "status": if ok { "succeeded" } else { "failed" }, "attempt_number": n + 1,
            "duration_ms": if code.is_some() { 120 } else { 20_000 },
            "is_retryable": !ok && code.is_none_or(super::worker::retryable),
            "error": match code {
                Some(c) if ok => { let _ = c; Value::Null }
                Some(c) => json!({"code": format!("http_{c}"), "message": format!("Destination responded with HTTP {c}")}),
                None => json!({"code": "timeout", "message": "Destination did not respond within 20000ms"}),
            },
            "request": {"url": url, "method": "POST", "headers": [
                {"key": "content-type", "value": "application/json"},
                {"key": "metorial-signature", "value": format!("t={ts},v1={}", sign(secret, ts, &body))},
                {"key": "metorial-timestamp", "value": ts.to_string()},
                {"key": "metorial-event-id", "value": event["id"]},
                {"key": "metorial-delivery-id", "value": id},
                {"key": "metorial-delivery-attempt", "value": (n + 1).to_string()},
            ], "body": body},
            "response": code.map(|c| json!({
                "status_code": c, "headers": [{"key": "content-type", "value": "application/json"}],
                "body": if ok { "{\"received\":true}" } else { "{\"received\":false,\"error\":\"receiver unavailable\"}" },
                "is_body_truncated": false,
            })),
            "started_at": iso(at), "completed_at": iso(at), "created_at": iso(at),
        });
        db::put(db, Stored::Attempt, &attempt)?;
        d["error"] = attempt["error"].clone();
        d["last_attempt_at"] = iso(at).into();
    }
    d["attempt_count"] = statuses.len().into();
    d["status"] = status.into();
    d["updated_at"] = iso(at).into();
    match due_in {
        Some(wait) => {
            let due = Utc::now() + wait;
            d["next_attempt_at"] = iso(due).into();
            db::set_due(db, &id, Some(due.timestamp_millis()))?;
        }
        None => {
            d["next_attempt_at"] = Value::Null;
            d["completed_at"] = iso(at).into();
        }
    }
    db::put(db, Stored::Delivery, &d)?;
    Ok(d)
}

/// A past event (a callback event on `cb` when given, else `session.created`).
fn past_event(
    db: &Db,
    org: &str,
    instance: &str,
    cb: Option<(&Value, &Value)>,
    trigger: &str,
    t: DateTime<Utc>,
) -> Result<Value, StoreError> {
    let at = iso(t);
    let mut e = match cb {
        Some((cb, cbi)) => {
            let cbe = json!({
                "object": "callback_event", "id": id_at("cbe", t), "status": "processed",
                "source": "polling", "provider_trigger_key": trigger, "mapped_type": null,
                "mapped_id": null, "callback_id": cb["id"], "callback_instance_id": cbi["id"],
                "details": {"object": "callback_event.details", "status": "succeeded",
                            "payload": {"type": trigger}, "attempt_count": 1, "error": null, "webhook": null},
                "occurred_at": at, "created_at": at,
            });
            db::put(db, Stored::CallbackEvent, &cbe)?;
            pipeline::event(
                org,
                instance,
                "callback",
                &format!("callback.{trigger}"),
                Some((cb, cbe["id"].as_str().unwrap_or_default(), trigger)),
                json!({"type": trigger}),
                &at,
            )
        }
        None => pipeline::event(
            org,
            instance,
            "resource",
            "session.created",
            None,
            json!({"object": "session", "id": id_at("ses", t)}),
            &at,
        ),
    };
    e["id"] = id_at("evnt", t).into();
    db::put(db, Stored::Event, &e)?;
    Ok(e)
}

/// The demo's custom policies, stored before the default ones so that lists show them first.
fn custom_policies(
    db: &Db,
    org: &str,
    instance: &str,
    at: &str,
) -> Result<(Value, Value), StoreError> {
    let ops_policy = super::teams::policy(
        org,
        "custom",
        "Callback operators",
        "Read and write callbacks in production",
        instance,
        &["instance.callback:read", "instance.callback:write"],
        at,
    );
    let auditors = super::teams::policy(
        org,
        "custom",
        "Read-only auditors",
        "Read everything, change nothing",
        instance,
        &["instance:read"],
        at,
    );
    db::put(db, Stored::Policy, &ops_policy)?;
    db::put(db, Stored::Policy, &auditors)?;
    Ok((ops_policy, auditors))
}

/// The demo's teams (with and without policies), members and auth imports: shared by the
/// newer generations' demo seeds.
pub(in crate::service) fn people(
    db: &Db,
    org: &str,
    providers: &[(Value, Value)],
    admin: &Value,
    (ops_policy, auditors): (&Value, &Value),
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let at = iso(now - Duration::days(30));
    let project = |name: &str| {
        json!({
            "id": new_id("tmp"), "created_at": at, "updated_at": at,
            "project": {"object": "organization.project", "id": new_id("prj"), "status": "active",
                        "slug": super::teams::slugify(name), "name": name, "organization_id": org,
                        "created_at": at, "updated_at": at},
        })
    };
    let teams = [
        super::teams::team(
            org,
            "Platform",
            Some("Owns callbacks and provider auth"),
            &[ops_policy],
            &[project("Core")],
            &at,
        ),
        super::teams::team(org, "Support", None, &[], &[], &at),
        super::teams::team(
            org,
            "Security",
            Some("Audits access"),
            &[admin, auditors],
            &[project("Edge")],
            &at,
        ),
    ];
    for t in &teams {
        db::put(db, Stored::Team, t)?;
    }
    for (name, email, role, of) in [
        (
            "Ada Lovelace",
            "ada@example.com",
            "admin",
            vec![&teams[0], &teams[2]],
        ),
        (
            "Grace Hopper",
            "grace@example.com",
            "member",
            vec![&teams[0]],
        ),
        ("Alan Turing", "alan@example.com", "member", vec![]),
    ] {
        db::put(
            db,
            Stored::Member,
            &super::teams::member(org, name, email, role, &of, &at),
        )?;
    }
    // Imports: GitHub through its deployment, Slack without.
    let deployments = db::all(db, Stored::Deployment)?;
    for ((provider, _), note) in providers
        .iter()
        .zip(["Migrated from legacy GitHub app", "Bulk import batch 2"])
    {
        let dep = deployments
            .iter()
            .find(|d| d["provider_id"] == provider["id"] && note.starts_with("Migrated"));
        let (config, import) = super::imports::seeded(provider, dep, note, &at);
        db::put(db, Stored::AuthConfig, &config)?;
        db::put(db, Stored::Import, &import)?;
    }
    Ok(())
}

/// The demo world.
#[allow(clippy::too_many_arguments)]
fn demo(
    db: &Db,
    org: &str,
    instance: &str,
    base: &str,
    providers: &[(Value, Value)],
    admin: &Value,
    (ops_policy, auditors): (&Value, &Value),
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    people(db, org, providers, admin, (ops_policy, auditors), now)?;
    let at = iso(now - Duration::days(30));
    // Callbacks: GitHub and Slack synced, Linear not yet (held pending).
    let mut callbacks = Vec::new();
    for (i, (provider, ip)) in providers.iter().enumerate() {
        let synced = i < 2;
        let mut cb = super::callbacks::callback(
            ip["integration_id"].as_str().unwrap_or_default(),
            ip,
            provider,
            None,
            None,
            &at,
            if synced { "synced" } else { "pending" },
        );
        if !synced {
            cb["_hold"] = true.into();
        }
        let cbi = super::callbacks::instance(&cb, ip);
        db::put(db, Stored::Callback, &cb)?;
        db::put(db, Stored::CallbackInstance, &cbi)?;
        callbacks.push((cb, cbi));
    }
    // Destinations: one per retry strategy on the demo receivers, and one archived.
    let receiver = |mode: &str| format!("{base}/_receiver/{mode}");
    let retry = |strategy: &str, max: u64, base_s: u64, max_s: u64| {
        json!({
            "strategy": strategy, "max_attempts": max, "base_delay_seconds": base_s, "max_delay_seconds": max_s,
        })
    };
    let mut dests = Vec::new();
    for (name, mode, policy) in [
        (
            "Ops webhook",
            "healthy",
            retry("exponential", 8, 10, 10_800),
        ),
        ("Flaky relay", "flaky", retry("linear", 5, 5, 300)),
        ("Dead endpoint", "down", retry("fixed", 3, 30, 30)),
        ("Old relay", "healthy", retry("linear", 5, 30, 3600)),
    ] {
        let d = destination(
            org,
            name,
            Some(format!("Demo: the {mode} receiver")),
            &receiver(mode),
            policy,
            &at,
        );
        let secret = new_secret();
        db::put(db, Stored::Destination, &d)?;
        db::set_secret(db, d["id"].as_str().unwrap_or_default(), &secret)?;
        dests.push((d, secret));
    }
    let id = |i: usize| dests[i].0["id"].as_str().unwrap_or_default().to_string();
    let cb_id = |i: usize| callbacks[i].0["id"].as_str().map(String::from);
    let strings = |v: &[&str]| Some(v.iter().map(|s| (*s).to_string()).collect::<Vec<_>>());
    for l in [
        listener(
            instance,
            &id(0),
            "callback",
            None,
            cb_id(0),
            strings(&["issues.opened", "issues.closed", "pull_request.merged"]),
            None,
            None,
            &at,
        ),
        listener(
            instance,
            &id(0),
            "event",
            strings(&["callback.created", "callback.updated", "callback.deleted"]),
            None,
            None,
            None,
            None,
            &at,
        ),
        listener(
            instance,
            &id(1),
            "event",
            strings(&["session.created", "callback.created"]),
            None,
            None,
            None,
            None,
            &at,
        ),
        listener(
            instance,
            &id(1),
            "callback",
            None,
            None,
            strings(&["push"]),
            None,
            None,
            &at,
        ),
        listener(
            instance,
            &id(2),
            "callback",
            None,
            None,
            strings(&["issues.opened", "push"]),
            None,
            providers[1].0["id"].as_str().map(String::from),
            &at,
        ),
        listener(
            instance,
            &id(2),
            "chat",
            strings(&["chat.message.created"]),
            None,
            None,
            None,
            None,
            &at,
        ),
    ] {
        db::put(db, Stored::Listener, &l)?;
    }
    // Deliveries in every status, the failed ones newest.
    let github = (&callbacks[0].0, &callbacks[0].1);
    let slack = (&callbacks[1].0, &callbacks[1].1);
    let ago = |m: i64| now - Duration::minutes(m);
    let e = past_event(db, org, instance, Some(github), "issues.opened", ago(300))?;
    past_delivery(
        db,
        &e,
        &dests[0].0,
        &dests[0].1,
        &[Some(503), Some(200)],
        "delivered",
        ago(300),
        None,
    )?;
    past_delivery(
        db,
        &e,
        &dests[3].0,
        &dests[3].1,
        &[Some(503)],
        "cancelled",
        ago(300),
        None,
    )?;
    let e = past_event(db, org, instance, None, "", ago(240))?;
    past_delivery(
        db,
        &e,
        &dests[1].0,
        &dests[1].1,
        &[Some(200)],
        "delivered",
        ago(240),
        None,
    )?;
    let e = past_event(db, org, instance, Some(github), "issues.closed", ago(120))?;
    past_delivery(
        db,
        &e,
        &dests[0].0,
        &dests[0].1,
        &[Some(200)],
        "delivered",
        ago(120),
        None,
    )?;
    let e = past_event(db, org, instance, None, "", ago(30))?;
    past_delivery(
        db,
        &e,
        &dests[1].0,
        &dests[1].1,
        &[],
        "pending",
        ago(30),
        Some(Duration::minutes(10)),
    )?;
    let e = past_event(db, org, instance, Some(slack), "push", ago(20))?;
    past_delivery(
        db,
        &e,
        &dests[1].0,
        &dests[1].1,
        &[Some(503)],
        "retrying",
        ago(20),
        Some(Duration::hours(1)),
    )?;
    for (n, trigger) in ["issues.opened", "push"].iter().enumerate() {
        let e = past_event(
            db,
            org,
            instance,
            Some(slack),
            trigger,
            ago(10 - i64::try_from(n).unwrap_or(0)),
        )?;
        past_delivery(
            db,
            &e,
            &dests[2].0,
            &dests[2].1,
            &[Some(503), None, Some(503)],
            "failed",
            ago(10 - i64::try_from(n).unwrap_or(0)),
            None,
        )?;
    }
    // The not-yet-synced callback has received events that wait for its sync.
    let (linear, linear_i) = (&callbacks[2].0, &callbacks[2].1);
    for trigger in ["issues.opened", "issues.closed"] {
        pipeline::ingest(
            db,
            org,
            linear,
            linear_i,
            trigger,
            json!({"type": trigger}),
            "webhook",
            base,
            &iso(ago(5)),
        )?;
    }
    // Archive the old relay last: its open deliveries were cancelled above.
    let mut old = dests[3].0.clone();
    old["status"] = "archived".into();
    old["archived_at"] = iso(ago(60)).into();
    old["updated_at"] = old["archived_at"].clone();
    db::put(db, Stored::Destination, &old)?;
    Ok(())
}

/// N past events over the last four weeks, each delivered to the first active destination a
/// listener picks (or the first active one), most delivered, some after a retry, a few failed.
fn seed_history(db: &Db, org: &str, instance: &str, n: usize) -> Result<(), StoreError> {
    let dests: Vec<Value> = db::all(db, Stored::Destination)?
        .into_iter()
        .filter(|d| d["status"] == "active")
        .collect();
    let Some(dest) = dests.first() else {
        return Ok(());
    };
    let secret = db::secret(db, dest["id"].as_str().unwrap_or_default())?.unwrap_or_default();
    let callbacks: Vec<(Value, Value)> = db::all(db, Stored::Callback)?
        .into_iter()
        .filter(|c| c["sync"]["status"] == "synced")
        .filter_map(|c| {
            let i = db::all_with(
                db,
                Stored::CallbackInstance,
                "callback_id",
                c["id"].as_str().unwrap_or_default(),
            )
            .ok()?
            .into_iter()
            .next()?;
            Some((c, i))
        })
        .collect();
    let now = Utc::now();
    let span = Duration::days(28).num_milliseconds();
    let mut rng = rand::rng();
    let mut times: Vec<i64> = (0..n).map(|_| rng.random_range(0..span)).collect();
    times.sort_unstable_by(|a, b| b.cmp(a));
    for back in times {
        let t = now - Duration::milliseconds(back) - Duration::hours(1);
        let cb = (!callbacks.is_empty() && rng.random_bool(0.7))
            .then(|| &callbacks[rng.random_range(0..callbacks.len())]);
        let trigger = TRIGGERS[rng.random_range(0..TRIGGERS.len())];
        let e = past_event(db, org, instance, cb.map(|(c, i)| (c, i)), trigger, t)?;
        let roll: f64 = rng.random();
        let (statuses, status): (&[Option<u16>], &str) = if roll < 0.8 {
            (&[Some(200)], "delivered")
        } else if roll < 0.95 {
            (&[Some(503), Some(200)], "delivered")
        } else {
            (&[Some(503), Some(503), None], "failed")
        };
        past_delivery(db, &e, dest, &secret, statuses, status, t, None)?;
    }
    Ok(())
}
