//! The tools on a deployment serving `callback-destinations` (`generations.md` §6): the write
//! tools of its callbacks (`create_callback`, `update_callback`, `delete_callback`), the read
//! tools under the names the other generations use, and one sentence for a tool it lacks.
//! Teams and access policies go on to `current`, as that generation shares them.
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::def::{ToolDef, ToolError, check, usage};
use crate::api::callback_gen as cg;
use crate::api::generation::Generation;
use crate::api::model::{
    CreateCallbackDestination, CreateDeploymentCallback, TriggerInput, UpdateCallbackDestination,
    UpdateDeploymentCallback,
};
use crate::api::newer_requests::{CallbackNotificationFilter, DeploymentCallbackFilter};
use crate::api::{ApiRequest, Client, ListQuery};

fn ids(what: &str) -> Value {
    json!({ "type": "array", "items": { "type": "string" }, "description": what })
}

fn callback_create() -> Value {
    json!({
        "provider_deployment_id": { "type": "string", "description": "The provider deployment (pde_…)." },
        "name": { "type": "string", "description": "The callback's name." },
        "description": { "type": "string", "description": "Free text." },
        "destination_ids": ids("Callback destinations (cbd_…) it delivers to."),
        "triggers": {
            "type": "array",
            "description": "Provider triggers, each with the event types taken from it (all when omitted).",
            "items": {
                "type": "object",
                "properties": {
                    "provider_trigger_id": { "type": "string" },
                    "event_types": { "type": "array", "items": { "type": "string" } }
                },
                "required": ["provider_trigger_id"],
                "additionalProperties": false
            }
        }
    })
}

fn callback_update() -> Value {
    json!({
        "id": { "type": "string", "description": "The callback (cbk_…)." },
        "name": { "type": "string", "description": "New name." },
        "description": { "type": "string", "description": "New description." },
        "destination_ids": ids("Replaces the set of destinations ([] detaches every one).")
    })
}

fn id_only() -> Value {
    json!({ "id": { "type": "string", "description": "The callback (cbk_…)." } })
}

/// The tools only `callback-destinations` serves.
pub const TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "create_callback",
        description: "Create a callback on a provider deployment, with its destinations and triggers (callback-destinations; only with writes allowed).",
        write: true,
        properties: callback_create,
        required: &["provider_deployment_id", "name"],
    },
    ToolDef {
        name: "update_callback",
        description: "Change a callback's name, description or destinations (the set is replaced) (callback-destinations; only with writes allowed).",
        write: true,
        properties: callback_update,
        required: &["id"],
    },
    ToolDef {
        name: "delete_callback",
        description: "Archive a callback: it stops taking events (callback-destinations; only with writes allowed).",
        write: true,
        properties: id_only,
        required: &["id"],
    },
];

/// The arguments any tool here reads (held to the tool's schema first).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Args {
    id: Option<String>,
    limit: Option<u32>,
    after: Option<String>,
    before: Option<String>,
    order: Option<String>,
    name: Option<String>,
    url: Option<String>,
    description: Option<String>,
    provider_deployment_id: Option<String>,
    all_callbacks: Option<bool>,
    callback_ids: Vec<String>,
    destination_ids: Option<Vec<String>>,
    destination_id: Option<String>,
    window: Option<String>,
    event_ids: Vec<String>,
    event_types: Vec<String>,
    statuses: Vec<String>,
    triggers: Vec<Trigger>,
}

#[derive(Debug, Deserialize)]
struct Trigger {
    provider_trigger_id: String,
    #[serde(default)]
    event_types: Option<Vec<String>>,
}

impl Args {
    fn query(&self) -> Result<ListQuery, ToolError> {
        super::current::list_query(self.limit, &self.after, &self.before, self.order.as_deref())
    }

    fn need<'a>(v: &'a Option<String>, name: &str) -> Result<&'a str, ToolError> {
        super::current::need(v, name)
    }

    fn id(&self) -> Result<&str, ToolError> {
        Self::need(&self.id, "id")
    }
}

/// How a call goes: `None` leaves it to `current` or pulsar's tools; otherwise the answer on
/// `callback-destinations`, or this module's tools refused elsewhere in one sentence.
pub async fn route(
    client: &Client,
    def: &ToolDef,
    args: &Map<String, Value>,
) -> Option<Result<Value, ToolError>> {
    let own = TOOLS.iter().any(|t| t.name == def.name);
    if let Err(e) = check(def, args) {
        return own.then_some(Err(e));
    }
    let g = client.served().await.and_then(|c| c.generation);
    match g {
        Some(Generation::CallbackDestinations) if !super::current::teams_area(def.name) => {
            Some(run(client, def, args).await)
        }
        _ if own => Some(Err(usage(format!(
            "{} needs a deployment of callback-destinations; this one serves {}.",
            def.name,
            g.map_or_else(|| "pulsar".to_string(), |g| g.to_string())
        )))),
        _ => None,
    }
}

/// One sentence for a tool this generation cannot serve.
fn lacking(name: &str) -> Option<&'static str> {
    Some(match name {
        "get_attempt" | "verify_signature" => {
            "this generation keeps no attempts (only a count per notification); get_notification shows the request it sent"
        }
        "duplicate_destination" | "ping_destination" | "archive_destination" => {
            "Switchboard does not offer this on callback destinations (delete_destination archives one)"
        }
        "rotate_destination_secret" => {
            "rotating a callback destination's secret needs a browser session; keys are refused"
        }
        "retry_delivery" => "this generation has no server-side retry",
        _ => {
            "it belongs to another generation; this deployment serves callbacks on provider deployments with callback destinations"
        }
    })
}

async fn run(
    client: &Client,
    def: &ToolDef,
    args: &Map<String, Value>,
) -> Result<Value, ToolError> {
    let a: Args = serde_json::from_value(Value::Object(args.clone()))
        .map_err(|e| usage(format!("arguments: {e}")))?;
    let req = match def.name {
        "list_imports" => ApiRequest::list_auth_imports(
            &a.query()?,
            &crate::api::model::AuthImportFilter::default(),
        ),
        "get_import" => ApiRequest::get_auth_import(a.id()?),
        "list_callbacks" => {
            ApiRequest::list_deployment_callbacks(&a.query()?, &DeploymentCallbackFilter::default())
        }
        "get_callback" => ApiRequest::get_callback(a.id()?),
        "list_callback_events" => {
            if !a.statuses.is_empty() {
                return Err(usage(
                    "list_callback_events on callback-destinations filters by event_types, not statuses",
                ));
            }
            let [cb] = a.callback_ids.as_slice() else {
                return Err(usage(
                    "list_callback_events on callback-destinations lists one callback's events: give exactly one callback_ids entry",
                ));
            };
            ApiRequest::list_deployment_callback_events(&a.query()?, cb, &a.event_types)
        }
        "create_callback" => ApiRequest::create_deployment_callback(&CreateDeploymentCallback {
            provider_deployment_id: Args::need(
                &a.provider_deployment_id,
                "provider_deployment_id",
            )?
            .to_string(),
            name: Args::need(&a.name, "name")?.to_string(),
            description: a.description.clone(),
            metadata: None,
            poll_interval_seconds_override: None,
            destination_ids: a.destination_ids.clone().filter(|d| !d.is_empty()),
            triggers: (!a.triggers.is_empty()).then(|| {
                a.triggers
                    .iter()
                    .map(|t| TriggerInput {
                        provider_trigger_id: t.provider_trigger_id.clone(),
                        event_types: t.event_types.clone(),
                    })
                    .collect()
            }),
        }),
        "update_callback" => {
            if a.name.is_none() && a.description.is_none() && a.destination_ids.is_none() {
                return Err(usage("give name, description or destination_ids"));
            }
            ApiRequest::update_deployment_callback(
                a.id()?,
                &UpdateDeploymentCallback {
                    name: a.name.clone(),
                    description: a.description.clone(),
                    metadata: None,
                    poll_interval_seconds_override: None,
                    destination_ids: a.destination_ids.clone(),
                    triggers: None,
                },
            )
        }
        "delete_callback" => ApiRequest::delete_callback(a.id()?),
        "list_destinations" => ApiRequest::list_callback_destinations(&a.query()?, &a.callback_ids),
        "get_destination" => ApiRequest::get_callback_destination(a.id()?),
        "create_destination" => {
            if a.all_callbacks == Some(true) || !a.callback_ids.is_empty() {
                return Err(usage(
                    "create_destination on callback-destinations takes no callbacks: attach it from the callback (update_callback with destination_ids)",
                ));
            }
            ApiRequest::create_callback_destination(&CreateCallbackDestination {
                name: Args::need(&a.name, "name")?.to_string(),
                url: Args::need(&a.url, "url")?.to_string(),
                description: a.description.clone(),
                metadata: None,
            })
        }
        "update_destination" => ApiRequest::update_callback_destination(
            a.id()?,
            &UpdateCallbackDestination {
                name: a.name.clone(),
                description: a.description.clone(),
                metadata: None,
                url: a.url.clone(),
            },
        ),
        "delete_destination" => ApiRequest::delete_callback_destination(a.id()?),
        "list_notifications" => return notifications(client, &a).await,
        "destination_stats" => return stats(client, &a).await,
        "get_notification" => {
            let id = a.id()?;
            crate::api::request::check_segment(id)?;
            return match cg::find_notification(client, id, None).await? {
                Some(found) => Ok(found.notification),
                None => Err(usage(format!(
                    "no callback has notification {} (every callback looked through; this generation has no global notification get)",
                    crate::text::line(id)
                ))),
            };
        }
        other => {
            return Err(usage(format!(
                "{other} is not offered on callback-destinations: {}.",
                lacking(other).unwrap_or("not offered")
            )));
        }
    };
    let raw = client.send(&req).await?;
    Ok(crate::api::client::decode::<Value>(raw.status, &raw.body)?)
}

/// `destination_stats`: the numbers `destinations stats` gives here, from each notification's
/// `attempt_count` under every callback (this generation keeps no attempts: no latencies).
async fn stats(client: &Client, a: &Args) -> Result<Value, ToolError> {
    let id = Args::need(&a.destination_id, "destination_id")?;
    crate::api::request::check_segment(id)?;
    // The destination must exist: its absence is an error, not empty statistics.
    let raw = client
        .send(&ApiRequest::get_callback_destination(id))
        .await?;
    let d = crate::api::client::decode::<Value>(raw.status, &raw.body)?;
    let window = match a.window.as_deref() {
        Some(w) => crate::api::health::parse_window(w).map_err(usage)?,
        None => chrono::TimeDelta::hours(24),
    };
    let s = crate::api::callback_health::destination_stats(client, id, window, chrono::Utc::now())
        .await?;
    let name = d.get("name").and_then(Value::as_str).unwrap_or_default();
    Ok(crate::api::health::stats_document(id, name, &s, window))
}

/// `list_notifications`: one callback's page, or the newest of every (or the named) callbacks
/// merged newest first, `limit` in all.
async fn notifications(client: &Client, a: &Args) -> Result<Value, ToolError> {
    if !a.event_ids.is_empty() {
        return Err(usage(
            "this generation filters notifications by callback and destination, not by event",
        ));
    }
    let f = CallbackNotificationFilter {
        destination_ids: a.destination_ids.clone().unwrap_or_default(),
        statuses: Vec::new(),
    };
    if let [cb] = a.callback_ids.as_slice() {
        let req = ApiRequest::list_callback_notifications(&a.query()?, cb, &f);
        let raw = client.send(&req).await?;
        return Ok(crate::api::client::decode::<Value>(raw.status, &raw.body)?);
    }
    if a.after.is_some() || a.before.is_some() || a.order.is_some() {
        return Err(usage(
            "after, before and order need exactly one callback_ids entry; without it the callbacks' newest are merged",
        ));
    }
    for cb in &a.callback_ids {
        crate::api::request::check_segment(cb)?;
    }
    let m = cg::merged_notifications(
        client,
        a.limit.unwrap_or(20),
        (!a.callback_ids.is_empty()).then_some(a.callback_ids.as_slice()),
        &f,
    )
    .await?;
    Ok(json!({
        "object": "list",
        "items": m.items,
        "pagination": { "has_more_after": m.more, "has_more_before": false },
        "merged_callbacks": m.callbacks,
    }))
}

/// Whether the deployment serves `callback-destinations`.
pub async fn serves(client: &Client) -> bool {
    client.served().await.and_then(|c| c.generation) == Some(Generation::CallbackDestinations)
}

/// `wait_for_notifications` arguments.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WaitArgs {
    callback_ids: Vec<String>,
    destination_ids: Vec<String>,
    status: Option<String>,
    count: Option<u64>,
    timeout_s: Option<f64>,
}

/// `wait_for_notifications` on `callback-destinations`: the callbacks' (the named ones', or
/// every one's) notifications looked at every half second until `count` are in `status`
/// (`succeeded` is `delivered` here) or `timeout_s` has passed; the answer as on pulsar.
///
/// # Errors
/// Bad arguments, or the API's error during a look.
pub async fn wait(
    client: &Client,
    def: &ToolDef,
    args: &Map<String, Value>,
) -> Result<super::envelope::Answer, ToolError> {
    use super::wait::{DEFAULT_TIMEOUT_S, INTERVAL, MAX_COUNT, MAX_TIMEOUT_S};
    use tokio::time::Instant;
    check(def, args)?;
    let a: WaitArgs = serde_json::from_value(Value::Object(args.clone()))
        .map_err(|e| usage(format!("arguments: {e}")))?;
    let state = match a.status.as_deref().map(str::trim) {
        None | Some("succeeded" | "delivered") => "delivered",
        Some(s @ ("failed" | "retrying" | "pending")) => s,
        Some(other) => {
            return Err(usage(format!(
                "{:?} is not a status: succeeded (delivered), failed, retrying or pending",
                crate::text::line(other)
            )));
        }
    };
    let count = a.count.unwrap_or(1);
    if !(1..=MAX_COUNT).contains(&count) {
        return Err(usage(format!("count is 1–{MAX_COUNT}")));
    }
    let timeout = a.timeout_s.unwrap_or(DEFAULT_TIMEOUT_S);
    if !(0.0..=MAX_TIMEOUT_S).contains(&timeout) {
        return Err(usage(format!("timeout_s is 0–{MAX_TIMEOUT_S}")));
    }
    for id in a.callback_ids.iter().chain(&a.destination_ids) {
        crate::api::request::check_segment(id)?;
    }
    let want = cg::WaitFor {
        state: state.to_string(),
        count: usize::try_from(count).unwrap_or(1),
        since: None,
        until: None,
    };
    let started = Instant::now();
    let deadline = started + std::time::Duration::from_secs_f64(timeout);
    let callbacks = if a.callback_ids.is_empty() {
        cg::callback_ids(client).await?
    } else {
        a.callback_ids.clone()
    };
    let f = CallbackNotificationFilter {
        destination_ids: a.destination_ids.clone(),
        statuses: Vec::new(),
    };
    let mut last = cg::Looked::default();
    loop {
        match tokio::time::timeout_at(deadline, cg::look(client, &callbacks, &f, &want)).await {
            Err(_) => break,
            Ok(found) => last = found?,
        }
        if last.reached_total >= want.count || Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep_until((Instant::now() + INTERVAL).min(deadline)).await;
    }
    let reached = last.reached_total >= want.count;
    let own = json!({
        "reached": reached,
        "timed_out": !reached,
        "status": state,
        "count": want.count,
        "found": last.reached.len(),
        "examined": last.examined,
        "waited_ms": u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    });
    Ok(super::envelope::Answer::with_own(
        own,
        json!({ "notifications": last.reached }),
    ))
}
