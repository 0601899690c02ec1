//! The tools of a deployment that does not speak pulsar (`event-destinations`, and the teams and
//! access policies `callback-destinations` shares with it): the new tools, the old names run
//! where their meaning is the same, and one sentence for a tool the generation lacks.
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::def::{ToolDef, ToolError, check, usage};
use crate::api::generation::Generation;
use crate::api::model::{CreateListener, ListenerType, UpdateListener};
use crate::api::newer_requests::*;
use crate::api::{ApiRequest, Client, ListQuery, Order};

fn page() -> Value {
    json!({
        "limit": { "type": "integer", "minimum": 1, "maximum": 100, "description": "Items per page (default 20)." },
        "after": { "type": "string", "description": "Items after this id (the next page: the last id seen)." },
        "before": { "type": "string", "description": "Items right before this id." },
        "order": { "type": "string", "enum": ["asc", "desc"], "description": "By creation time." }
    })
}

fn with(extra: Value) -> Value {
    let mut base = page();
    if let (Some(b), Value::Object(e)) = (base.as_object_mut(), extra) {
        b.extend(e);
    }
    base
}

fn ids(what: &str) -> Value {
    json!({ "type": "array", "items": { "type": "string" }, "description": what })
}

fn id_only() -> Value {
    json!({ "id": { "type": "string", "description": "The resource's id." } })
}

fn callback_events() -> Value {
    with(json!({
        "callback_ids": ids("Only these callbacks' events (callback-destinations: exactly one)."),
        "statuses": ids("Only in these states (event-destinations)."),
        "event_types": ids("Only of these event types (callback-destinations).")
    }))
}

fn listener_page() -> Value {
    with(json!({
        "destination_ids": ids("Only these destinations' listeners."),
        "instance_ids": ids("Only these instances' listeners.")
    }))
}

fn event_page() -> Value {
    with(json!({
        "event_types": ids("Only these event types."),
        "callback_ids": ids("Only from these callbacks.")
    }))
}

fn delivery_page() -> Value {
    with(json!({
        "statuses": ids("Only in these states (pending, retrying, delivered, failed, cancelled): filtered by the platform."),
        "destination_ids": ids("Only to these destinations."),
        "event_ids": ids("Only of these events.")
    }))
}

fn attempt_page() -> Value {
    with(json!({
        "delivery_ids": ids("Only these deliveries' attempts."),
        "statuses": ids("Only succeeded or failed ones.")
    }))
}

fn team_policy() -> Value {
    json!({
        "id": { "type": "string", "description": "The team's id." },
        "policy_id": { "type": "string", "description": "The custom access policy's id." }
    })
}

fn listener_create() -> Value {
    json!({
        "destination_id": { "type": "string", "description": "The event destination." },
        "instance_id": { "type": "string", "description": "The instance whose events it hears." },
        "event_types": ids("Event types (a listener of type event)."),
        "callback_id": { "type": "string", "description": "A callback whose triggers it hears." },
        "provider_id": { "type": "string", "description": "A provider whose triggers it hears." },
        "triggers": ids("Trigger keys (with callback_id or provider_id).")
    })
}

fn listener_update() -> Value {
    json!({
        "id": { "type": "string", "description": "The listener's id." },
        "event_types": ids("Event types (replaces the set)."),
        "triggers": ids("Trigger keys (replaces the set).")
    })
}

const fn read(
    name: &'static str,
    description: &'static str,
    properties: fn() -> Value,
    required: &'static [&'static str],
) -> ToolDef {
    ToolDef {
        name,
        description,
        write: false,
        properties,
        required,
    }
}

const fn write(
    name: &'static str,
    description: &'static str,
    properties: fn() -> Value,
    required: &'static [&'static str],
) -> ToolDef {
    ToolDef {
        name,
        description,
        write: true,
        properties,
        required,
    }
}

/// The tools only the newer generations serve.
pub const TOOLS: &[ToolDef] = &[
    read(
        "list_access_policies",
        "List the organization's access policies (event-destinations, callback-destinations).",
        page,
        &[],
    ),
    read(
        "get_access_policy",
        "One access policy by id.",
        id_only,
        &["id"],
    ),
    read(
        "list_callback_events",
        "List the events callbacks received, with their status (event-destinations; on callback-destinations one callback's, by type).",
        callback_events,
        &[],
    ),
    read(
        "list_listeners",
        "List event destination listeners: which deliveries each destination gets (event-destinations).",
        listener_page,
        &[],
    ),
    read("get_listener", "One listener.", id_only, &["id"]),
    read(
        "list_events",
        "List the organization's events (event-destinations).",
        event_page,
        &[],
    ),
    read("get_event", "One event with its payload.", id_only, &["id"]),
    read(
        "list_deliveries",
        "List event deliveries (event-destinations), the status filtered by the platform.",
        delivery_page,
        &[],
    ),
    read(
        "get_delivery",
        "One delivery with its attempts (without bodies).",
        id_only,
        &["id"],
    ),
    read(
        "list_delivery_attempts",
        "List delivery attempts (event-destinations).",
        attempt_page,
        &[],
    ),
    read(
        "get_delivery_attempt",
        "One attempt with the request sent and the response (secret headers masked).",
        id_only,
        &["id"],
    ),
    write(
        "assign_team_policy",
        "Give a team a custom access policy (only with writes allowed).",
        team_policy,
        &["id", "policy_id"],
    ),
    write(
        "remove_team_policy",
        "Take an access policy from a team (only with writes allowed).",
        team_policy,
        &["id", "policy_id"],
    ),
    write(
        "retry_delivery",
        "Ask the platform to deliver a finished delivery again: one attempt at once, then its destination's policy (only with writes allowed).",
        id_only,
        &["id"],
    ),
    write(
        "ping_destination",
        "Send a test event to an event destination through the platform; returns the delivery (only with writes allowed).",
        id_only,
        &["id"],
    ),
    write(
        "rotate_destination_secret",
        "Give an event destination a new signing secret; the old one stops at once and its receiver fails until updated (only with writes allowed; the secret is masked here).",
        id_only,
        &["id"],
    ),
    write(
        "archive_destination",
        "Archive an event destination: its pending and retrying deliveries are cancelled (only with writes allowed).",
        id_only,
        &["id"],
    ),
    write(
        "create_listener",
        "Create a listener binding an event destination to an instance's event types or triggers (only with writes allowed).",
        listener_create,
        &["destination_id", "instance_id"],
    ),
    write(
        "update_listener",
        "Change a listener's event types or triggers (only with writes allowed).",
        listener_update,
        &["id"],
    ),
    write(
        "delete_listener",
        "Delete a listener (only with writes allowed).",
        id_only,
        &["id"],
    ),
];

/// Every argument the new tools take (held to the tool's schema first).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Args {
    id: Option<String>,
    limit: Option<u32>,
    after: Option<String>,
    before: Option<String>,
    order: Option<String>,
    callback_ids: Vec<String>,
    statuses: Vec<String>,
    destination_ids: Vec<String>,
    instance_ids: Vec<String>,
    event_types: Vec<String>,
    event_ids: Vec<String>,
    delivery_ids: Vec<String>,
    policy_id: Option<String>,
    destination_id: Option<String>,
    instance_id: Option<String>,
    callback_id: Option<String>,
    provider_id: Option<String>,
    triggers: Vec<String>,
    name: Option<String>,
    description: Option<String>,
    url: Option<String>,
}

impl Args {
    fn query(&self) -> Result<ListQuery, ToolError> {
        list_query(self.limit, &self.after, &self.before, self.order.as_deref())
    }

    fn need<'a>(v: &'a Option<String>, name: &str) -> Result<&'a str, ToolError> {
        need(v, name)
    }

    fn id(&self) -> Result<&str, ToolError> {
        Self::need(&self.id, "id")
    }
}

/// A list tool's page query from its arguments (`limit` 1–100, `order` as the API spells it),
/// shared by the newer generations' tools.
pub(super) fn list_query(
    limit: Option<u32>,
    after: &Option<String>,
    before: &Option<String>,
    order: Option<&str>,
) -> Result<ListQuery, ToolError> {
    let order = order.map(str::parse::<Order>).transpose().map_err(usage)?;
    if limit.is_some_and(|l| !(1..=100).contains(&l)) {
        return Err(usage("limit is 1–100"));
    }
    Ok(ListQuery {
        limit,
        after: after.clone(),
        before: before.clone(),
        cursor: None,
        order,
    })
}

/// A required, non-empty string argument, or the one sentence saying it is required.
pub(super) fn need<'a>(v: &'a Option<String>, name: &str) -> Result<&'a str, ToolError> {
    v.as_deref()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| usage(format!("{name} is required")))
}

/// Whether a tool's area is teams (served alike by both newer generations).
pub(super) fn teams_area(name: &str) -> bool {
    matches!(
        name,
        "list_teams"
            | "get_team"
            | "list_members"
            | "list_access_policies"
            | "get_access_policy"
            | "assign_team_policy"
            | "remove_team_policy"
            | "create_team"
            | "update_team"
    )
}

/// How a call goes on this deployment: `None` runs the tool as pulsar serves it; otherwise the
/// answer (or the one sentence of a tool the generation lacks). Arguments are held to the
/// schema before anything is asked.
pub async fn route(
    client: &Client,
    def: &ToolDef,
    args: &Map<String, Value>,
) -> Option<Result<Value, ToolError>> {
    let new = TOOLS.iter().any(|t| t.name == def.name);
    if let Err(e) = check(def, args) {
        return new.then_some(Err(e));
    }
    let chosen = client.served().await;
    let g = chosen.as_ref().and_then(|c| c.generation);
    match (g, chosen.is_some()) {
        (None, false) | (Some(Generation::Pulsar), _) => new.then(|| {
            Err(usage(format!(
                "{} needs a deployment of a newer generation (event-destinations); this one serves pulsar.",
                def.name
            )))
        }),
        (Some(Generation::EventDestinations), _) => Some(run(client, def, args).await),
        (Some(g), _) if teams_area(def.name) => {
            let _ = g;
            Some(run(client, def, args).await)
        }
        (Some(g), _) => Some(Err(usage(format!(
            "{} is not offered against {g} yet.",
            def.name
        )))),
        (None, true) => Some(Err(usage(format!(
            "{} is not available: this deployment serves {}.",
            def.name,
            client
                .detection()
                .await
                .map_or_else(|| "no generation Switchboard recognises".into(), |d| crate::api::detect::served(&d))
        )))),
    }
}

async fn run(
    client: &Client,
    def: &ToolDef,
    args: &Map<String, Value>,
) -> Result<Value, ToolError> {
    let a: Args = serde_json::from_value(Value::Object(args.clone()))
        .map_err(|e| usage(format!("arguments: {e}")))?;
    let req = match def.name {
        // The old names, where the meaning is the same.
        "list_teams" => ApiRequest::list_teams(&a.query()?),
        "get_team" => ApiRequest::get_team(a.id()?),
        "list_members" => ApiRequest::list_members(&a.query()?),
        "list_imports" => ApiRequest::list_auth_imports(
            &a.query()?,
            &crate::api::model::AuthImportFilter::default(),
        ),
        "get_import" => ApiRequest::get_auth_import(a.id()?),
        "list_callbacks" => ApiRequest::list_integration_callbacks(
            &a.query()?,
            &IntegrationCallbackFilter::default(),
        ),
        "get_callback" => ApiRequest::get_callback(a.id()?),
        "list_destinations" => ApiRequest::list_event_destinations(
            &a.query()?,
            &EventDestinationFilter {
                callback_ids: a.callback_ids.clone(),
                ..EventDestinationFilter::default()
            },
        ),
        "get_destination" => ApiRequest::get_event_destination(a.id()?),
        "list_notifications" => ApiRequest::list_deliveries(
            &a.query()?,
            &DeliveryFilter {
                event_ids: a.event_ids.clone(),
                event_destination_ids: a.destination_ids.clone(),
                ..DeliveryFilter::default()
            },
        ),
        "get_notification" => ApiRequest::get_delivery(a.id()?),
        // The new tools.
        "list_access_policies" => ApiRequest::list_access_policies(&a.query()?),
        "get_access_policy" => ApiRequest::get_access_policy(a.id()?),
        "list_callback_events" if !a.event_types.is_empty() => {
            return Err(usage(
                "list_callback_events on event-destinations filters by statuses, not event_types",
            ));
        }
        "list_callback_events" => ApiRequest::list_callback_events(
            &a.query()?,
            &CallbackEventFilter {
                callback_ids: a.callback_ids.clone(),
                statuses: a.statuses.clone(),
                ..CallbackEventFilter::default()
            },
        ),
        "list_listeners" => ApiRequest::list_listeners(
            &a.query()?,
            &ListenerFilter {
                event_destination_ids: a.destination_ids.clone(),
                instance_ids: a.instance_ids.clone(),
            },
        ),
        "get_listener" => ApiRequest::get_listener(a.id()?),
        "list_events" => ApiRequest::list_events(
            &a.query()?,
            &EventFilter {
                event_types: a.event_types.clone(),
                callback_ids: a.callback_ids.clone(),
                ..EventFilter::default()
            },
        ),
        "get_event" => ApiRequest::get_event(a.id()?),
        "list_deliveries" => ApiRequest::list_deliveries(
            &a.query()?,
            &DeliveryFilter {
                statuses: a.statuses.clone(),
                event_ids: a.event_ids.clone(),
                event_destination_ids: a.destination_ids.clone(),
                ..DeliveryFilter::default()
            },
        ),
        "get_delivery" => ApiRequest::get_delivery(a.id()?),
        "list_delivery_attempts" => ApiRequest::list_delivery_attempts(
            &a.query()?,
            &AttemptFilter {
                statuses: a.statuses.clone(),
                event_delivery_ids: a.delivery_ids.clone(),
                ..AttemptFilter::default()
            },
        ),
        "get_delivery_attempt" => ApiRequest::get_delivery_attempt(a.id()?),
        // Team writes as pulsar's (§4), the answer the whole refreshed team.
        "create_team" => (crate::resource::teams::CREATE.request)(
            Args::need(&a.name, "name")?.to_string(),
            a.description.clone(),
        ),
        "update_team" => {
            (crate::resource::teams::UPDATE.request)(a.id()?, a.name.clone(), a.description.clone())
                .ok_or_else(|| usage("give a name or a description"))?
        }
        "assign_team_policy" => {
            ApiRequest::assign_team_policy(a.id()?, Args::need(&a.policy_id, "policy_id")?)
        }
        "remove_team_policy" => {
            ApiRequest::remove_team_policy(a.id()?, Args::need(&a.policy_id, "policy_id")?)
        }
        // As `destinations update` here: the URL is the destination's webhook.
        "update_destination" => {
            if a.name.is_none() && a.description.is_none() && a.url.is_none() {
                return Err(usage("give a name, a description or a url"));
            }
            ApiRequest::update_event_destination(
                a.id()?,
                &crate::api::model::UpdateEventDestination {
                    name: a.name.clone(),
                    description: a.description.clone(),
                    webhook: a
                        .url
                        .clone()
                        .map(|url| crate::api::model::WebhookInput { url }),
                    retry: None,
                },
            )
        }
        "retry_delivery" => ApiRequest::retry_delivery(a.id()?),
        "ping_destination" => ApiRequest::ping_event_destination(a.id()?),
        "rotate_destination_secret" => ApiRequest::rotate_event_destination_secret(a.id()?),
        "archive_destination" => ApiRequest::archive_event_destination(a.id()?),
        "create_listener" => {
            let events = !a.event_types.is_empty();
            if !events && a.triggers.is_empty() {
                return Err(usage(
                    "give event_types, or triggers with callback_id or provider_id",
                ));
            }
            ApiRequest::create_listener(&CreateListener {
                instance_id: Args::need(&a.instance_id, "instance_id")?.to_string(),
                event_destination_id: Args::need(&a.destination_id, "destination_id")?.to_string(),
                kind: if events {
                    ListenerType::Event
                } else {
                    ListenerType::Callback
                },
                event_types: events.then(|| a.event_types.clone()),
                callback_id: a.callback_id.clone(),
                provider_id: a.provider_id.clone(),
                triggers: (!a.triggers.is_empty()).then(|| a.triggers.clone()),
                chat_connection_id: None,
            })
        }
        "update_listener" => {
            if a.event_types.is_empty() && a.triggers.is_empty() {
                return Err(usage("give event_types or triggers"));
            }
            ApiRequest::update_listener(
                a.id()?,
                &UpdateListener {
                    event_types: (!a.event_types.is_empty()).then(|| a.event_types.clone()),
                    triggers: (!a.triggers.is_empty()).then(|| a.triggers.clone()),
                },
            )
        }
        "delete_listener" => ApiRequest::delete_listener(a.id()?),
        other => {
            return Err(usage(format!(
                "{other} is not offered against event-destinations yet."
            )));
        }
    };
    let raw = client.send(&req).await?;
    Ok(crate::api::client::decode::<Value>(raw.status, &raw.body)?)
}
