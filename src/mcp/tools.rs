//! The tools `switchboard mcp` serves: names, descriptions and input schemas (README "For
//! agents" documents the same list), and what each does with the API.
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::api::model::CallbacksInput;
use crate::api::replay;
use crate::api::signature;
use crate::api::{ApiRequest, Client, Error, ListQuery, NotificationFilter, Order};
use crate::resource::{destinations, teams};

// Shared with `current`; re-exported so the other tool modules keep naming them here.
pub use super::def::{ToolDef, ToolError};
pub(super) use super::def::{check, usage};

fn id_only() -> Value {
    json!({ "id": { "type": "string", "description": "The resource's id." } })
}

fn page() -> Value {
    json!({
        "limit": { "type": "integer", "minimum": 1, "maximum": 100, "description": "Items per page (default 20)." },
        "after": { "type": "string", "description": "Items after this id (the next page: the last id seen)." },
        "before": { "type": "string", "description": "Items right before this id." },
        "order": { "type": "string", "enum": ["asc", "desc"], "description": "By creation time." }
    })
}

fn with(mut base: Value, extra: Value) -> Value {
    if let (Some(b), Value::Object(e)) = (base.as_object_mut(), extra) {
        b.extend(e);
    }
    base
}

fn ids(what: &str) -> Value {
    json!({ "type": "array", "items": { "type": "string" }, "description": what })
}

fn destination_page() -> Value {
    with(
        page(),
        json!({ "callback_ids": ids("Only destinations receiving one of these callbacks.") }),
    )
}

fn notification_page() -> Value {
    with(
        page(),
        json!({
            "callback_ids": ids("Only notifications of these callbacks."),
            "event_ids": ids("Only notifications of these events."),
            "destination_ids": ids("Only notifications to these destinations.")
        }),
    )
}

fn attempt_of() -> Value {
    json!({
        "notification_id": { "type": "string", "description": "The notification (cbn_…)." },
        "attempt": { "type": "integer", "minimum": 1, "description": "Counted from 1 (#1 is the first delivery); default the latest with a recorded request." }
    })
}

fn stats() -> Value {
    json!({
        "destination_id": { "type": "string", "description": "The destination (cld_…)." },
        "window": { "type": "string", "description": "The window before now to count, as 30m, 24h or 7d (default 24h)." }
    })
}

fn replay_props() -> Value {
    with(
        attempt_of(),
        json!({
            "to": { "type": "string", "description": "An http(s) URL on this machine: localhost, 127.0.0.0/8 or [::1]." },
            "unsigned": { "type": "boolean", "description": "Send without a Metorial-Signature." }
        }),
    )
}

fn wait_props() -> Value {
    json!({
        "callback_ids": ids("Only notifications of these callbacks."),
        "destination_ids": ids("Only notifications to these destinations."),
        "status": { "type": "string", "enum": ["succeeded", "failed", "retrying", "pending"], "description": "The state to wait for (default succeeded)." },
        "count": { "type": "integer", "minimum": 1, "maximum": 100, "description": "How many must be in that state (default 1)." },
        "timeout_s": { "type": "number", "minimum": 0, "maximum": 300, "description": "Give up after this many seconds (default 30, at most 300)." }
    })
}

fn plan_props() -> Value {
    json!({
        "selection": {
            "type": "object",
            "description": "Which notifications; every field narrows, several values of one field widen. At most 500 notifications.",
            "properties": {
                "destination_ids": ids("Only to these destinations (cld_…)."),
                "callback_ids": ids("Only of these callbacks (clb_…)."),
                "event_ids": ids("Only of these events (cbe_…)."),
                "notification_ids": ids("Only these notifications (cbn_…)."),
                "event_types": ids("Only of these event types (the delivered body's `type`; `build.*` a prefix)."),
                "statuses": { "type": "array", "items": { "type": "string", "enum": ["succeeded", "failed", "retrying", "pending", "delivered", "cancelled"] }, "description": "Only in these states (delivered and cancelled: deliveries of event-destinations)." },
                "retried": { "type": "boolean", "description": "Only those that needed more than one attempt." },
                "since": { "type": "string", "description": "Created at or after: a duration ago (30m, 2h, 1d) or a time (2026-01-31T12:00:00Z)." },
                "until": { "type": "string", "description": "Created at or before: a duration ago or a time." }
            },
            "additionalProperties": false
        }
    })
}

fn run_props() -> Value {
    json!({ "token": { "type": "string", "description": "The token plan_recover answered." } })
}

fn team_fields() -> Value {
    json!({
        "name": { "type": "string", "description": "The team's name." },
        "description": { "type": "string", "description": "Its description." }
    })
}

fn team_update() -> Value {
    with(id_only(), team_fields())
}

fn destination_create() -> Value {
    json!({
        "name": { "type": "string", "description": "The destination's name." },
        "url": { "type": "string", "description": "Absolute http(s) URL deliveries are posted to." },
        "description": { "type": "string", "description": "Its description." },
        "all_callbacks": { "type": "boolean", "description": "Receive every callback." },
        "callback_ids": ids("Receive these callbacks (when not all_callbacks).")
    })
}

fn destination_update() -> Value {
    json!({
        "id": { "type": "string", "description": "The destination (cld_…)." },
        "name": { "type": "string", "description": "A new name." },
        "description": { "type": "string", "description": "A new description." },
        "url": { "type": "string", "description": "A new absolute http(s) URL deliveries are posted to (the newer generations; pulsar keeps a destination's URL)." }
    })
}

/// Every tool, read-only ones first.
pub const TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "list_teams",
        description: "List the organization's teams (one page).",
        write: false,
        properties: page,
        required: &[],
    },
    ToolDef {
        name: "get_team",
        description: "One team by id or slug, with its projects and roles.",
        write: false,
        properties: id_only,
        required: &["id"],
    },
    ToolDef {
        name: "list_members",
        description: "List organization members (one page), each with the teams it belongs to.",
        write: false,
        properties: page,
        required: &[],
    },
    ToolDef {
        name: "list_imports",
        description: "List provider OAuth token imports (one page); tokens are never returned.",
        write: false,
        properties: page,
        required: &[],
    },
    ToolDef {
        name: "get_import",
        description: "One provider OAuth token import.",
        write: false,
        properties: id_only,
        required: &["id"],
    },
    ToolDef {
        name: "list_callbacks",
        description: "List callbacks (one page); hook keys are masked.",
        write: false,
        properties: page,
        required: &[],
    },
    ToolDef {
        name: "get_callback",
        description: "One callback; its hook key is masked.",
        write: false,
        properties: id_only,
        required: &["id"],
    },
    ToolDef {
        name: "list_destinations",
        description: "List active callback destinations (one page); signing secrets are masked.",
        write: false,
        properties: destination_page,
        required: &[],
    },
    ToolDef {
        name: "get_destination",
        description: "One callback destination (deleted ones too); its signing secret is masked.",
        write: false,
        properties: id_only,
        required: &["id"],
    },
    ToolDef {
        name: "list_notifications",
        description: "List callback notifications (deliveries) with their attempts (one page), filtered by callbacks, events and destinations.",
        write: false,
        properties: notification_page,
        required: &[],
    },
    ToolDef {
        name: "get_notification",
        description: "One notification with every attempt.",
        write: false,
        properties: id_only,
        required: &["id"],
    },
    ToolDef {
        name: "get_attempt",
        description: "One delivery attempt of a notification: the request sent and the receiver's answer (secret headers masked).",
        write: false,
        properties: attempt_of,
        required: &["notification_id"],
    },
    ToolDef {
        name: "destination_stats",
        description: "A destination's health over its newest notifications: succeeded, failed, pending, retried, success rate and the time span.",
        write: false,
        properties: stats,
        required: &["destination_id"],
    },
    ToolDef {
        name: "verify_signature",
        description: "Check the Metorial-Signature of a recorded attempt against the signing secret of the destination that delivered it.",
        write: false,
        properties: attempt_of,
        required: &["notification_id"],
    },
    ToolDef {
        name: "replay_locally",
        description: "Send a recorded delivery again, signed afresh, to one of the receivers the operator named for this server (nothing is recorded on the platform); returns what was sent and the answer. Sends a signed request: only with writes allowed.",
        write: true,
        properties: replay_props,
        required: &["notification_id", "to"],
    },
    ToolDef {
        name: "wait_for_notifications",
        description: "Wait until the notifications of these callbacks or destinations (newest first) hold `count` in `status` (default 1 succeeded), looking every half second for at most `timeout_s` seconds (default 30, at most 300); returns those found, or how many there were when time ran out.",
        write: false,
        properties: wait_props,
        required: &[],
    },
    ToolDef {
        name: "plan_recover",
        description: "Count what a bulk recover of this selection would send (each notification's latest recorded request, signed afresh, to its destination's own URL): the count, the time span, the hosts, and a token that run_recover takes within 10 minutes to send exactly these. Sends nothing; only with writes allowed.",
        write: true,
        properties: plan_props,
        required: &["selection"],
    },
    ToolDef {
        name: "run_recover",
        description: "Send exactly what plan_recover counted for this token (once; a token lives 10 minutes): each delivery signed with its destination's real secret to its own URL. Only with writes allowed.",
        write: true,
        properties: run_props,
        required: &["token"],
    },
    ToolDef {
        name: "create_team",
        description: "Create a team (only with writes allowed).",
        write: true,
        properties: team_fields,
        required: &["name"],
    },
    ToolDef {
        name: "update_team",
        description: "Rename or describe a team (only with writes allowed).",
        write: true,
        properties: team_update,
        required: &["id"],
    },
    ToolDef {
        name: "create_destination",
        description: "Create a webhook destination for all callbacks or the listed ones (only with writes allowed).",
        write: true,
        properties: destination_create,
        required: &["name", "url"],
    },
    ToolDef {
        name: "update_destination",
        description: "Rename or describe a destination, or on the newer generations change its URL (only with writes allowed).",
        write: true,
        properties: destination_update,
        required: &["id"],
    },
    ToolDef {
        name: "delete_destination",
        description: "Delete a destination: it stops receiving deliveries (only with writes allowed).",
        write: true,
        properties: id_only,
        required: &["id"],
    },
];

/// The tools of the resources' operations (`resource::ops`), each from its operation's
/// [`crate::resource::ops::ToolSpec`].
static OP_TOOLS: std::sync::LazyLock<Vec<ToolDef>> = std::sync::LazyLock::new(|| {
    crate::resource::ops::all()
        .filter_map(|op| {
            op.tool.as_ref().map(|t| ToolDef {
                name: t.name,
                description: t.description,
                write: op.writes,
                properties: t.properties,
                required: t.required,
            })
        })
        .collect()
});

/// Every tool: [`TOOLS`], then those of the resources' operations, then those only the newer
/// generations serve.
pub fn all() -> impl Iterator<Item = &'static ToolDef> {
    TOOLS
        .iter()
        .chain(OP_TOOLS.iter())
        .chain(super::current::TOOLS.iter())
        .chain(super::callback_gen::TOOLS.iter())
}

/// Runs a resource's operation (`resource::ops`): its subject fetched by `id`, its request
/// built from the operation's typed value with the other (text) arguments as its inputs.
async fn run_op(
    client: &Client,
    op: &crate::resource::ops::Op,
    args: Map<String, Value>,
) -> Result<Value, ToolError> {
    let id = need(args.get("id").and_then(Value::as_str), "id")?.to_string();
    let mut inputs = crate::resource::ops::OpArgs::new();
    for (k, v) in args {
        match v {
            _ if k == "id" => {}
            Value::String(s) => {
                inputs.insert(k, s);
            }
            Value::Null => {}
            _ => return Err(usage(format!("{} must be a string", crate::text::line(&k)))),
        }
    }
    let raw = client.send(&op.resource.get_request(&id)).await?;
    let value: Value = crate::api::client::decode(raw.status, &raw.body)?;
    let item = crate::resource::AnyItem::decode(op.resource, &value).map_err(|e| {
        ToolError::Api(Error::Decode {
            status: raw.status,
            detail: e.to_string(),
        })
    })?;
    let req = (op.request)(&item, &inputs).map_err(usage)?;
    let raw = client.send(&req).await?;
    Ok(crate::api::client::decode::<Value>(raw.status, &raw.body)?)
}

/// Every argument any tool takes; [`check`] has already held them to the tool's schema.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Args {
    id: Option<String>,
    limit: Option<u32>,
    after: Option<String>,
    before: Option<String>,
    order: Option<String>,
    pub(super) callback_ids: Vec<String>,
    event_ids: Vec<String>,
    pub(super) destination_ids: Vec<String>,
    notification_id: Option<String>,
    attempt: Option<i64>,
    destination_id: Option<String>,
    window: Option<String>,
    pub(super) to: Option<String>,
    pub(super) unsigned: bool,
    name: Option<String>,
    description: Option<String>,
    url: Option<String>,
    all_callbacks: bool,
    pub(super) status: Option<String>,
    pub(super) count: Option<u64>,
    pub(super) timeout_s: Option<f64>,
    pub(super) selection: Option<Value>,
    pub(super) token: Option<String>,
}

impl Args {
    fn query(&self) -> Result<ListQuery, ToolError> {
        let order = self
            .order
            .as_deref()
            .map(str::parse::<Order>)
            .transpose()
            .map_err(usage)?;
        if self.limit.is_some_and(|l| !(1..=100).contains(&l)) {
            return Err(usage("limit is 1–100"));
        }
        Ok(ListQuery {
            limit: self.limit,
            after: self.after.clone(),
            before: self.before.clone(),
            cursor: None,
            order,
        })
    }

    fn id(&self) -> Result<&str, ToolError> {
        need(self.id.as_deref(), "id")
    }

    pub(super) fn notification(&self) -> Result<&str, ToolError> {
        need(self.notification_id.as_deref(), "notification_id")
    }

    /// The API's attempt index (from 0) of the 1-based `attempt`.
    pub(super) fn index(&self) -> Result<Option<i64>, ToolError> {
        match self.attempt {
            Some(n) if n < 1 => Err(usage("attempt counts from 1")),
            n => Ok(n.map(|n| n - 1)),
        }
    }
}

pub(super) fn need<'a>(v: Option<&'a str>, name: &str) -> Result<&'a str, ToolError> {
    v.filter(|s| !s.is_empty())
        .ok_or_else(|| usage(format!("{name} is required")))
}

/// The arguments of a call to `def`, held to its schema.
pub(super) fn args_of(def: &ToolDef, args: Map<String, Value>) -> Result<Args, ToolError> {
    check(def, &args)?;
    serde_json::from_value(Value::Object(args)).map_err(|e| usage(format!("arguments: {e}")))
}

/// Runs tool `def` against the API; the result is the API's JSON (or the tool's own report),
/// not yet masked or sanitised: the caller does both, once, for every tool.
pub async fn call(
    client: &Client,
    def: &ToolDef,
    args: Map<String, Value>,
) -> Result<Value, ToolError> {
    // The deployment's generation chooses what a tool asks (pulsar's tools run below).
    if let Some(answer) = super::callback_gen::route(client, def, &args).await {
        return answer;
    }
    if let Some(answer) = super::current::route(client, def, &args).await {
        return answer;
    }
    if let Some(op) = crate::resource::ops::by_tool(def.name) {
        check(def, &args)?;
        return run_op(client, op, args).await;
    }
    let a = args_of(def, args)?;
    let req = match def.name {
        "list_teams" => ApiRequest::list_teams(&a.query()?),
        "get_team" => ApiRequest::get_team(a.id()?),
        "list_members" => ApiRequest::list_members(&a.query()?),
        "list_imports" => ApiRequest::list_imports(&a.query()?),
        "get_import" => ApiRequest::get_import(a.id()?),
        "list_callbacks" => ApiRequest::list_callbacks(&a.query()?),
        "get_callback" => ApiRequest::get_callback(a.id()?),
        "list_destinations" => ApiRequest::list_destinations(&a.query()?, &a.callback_ids),
        "get_destination" => ApiRequest::get_destination(a.id()?),
        "list_notifications" => ApiRequest::list_notifications(
            &a.query()?,
            &NotificationFilter {
                callback_ids: a.callback_ids.clone(),
                event_ids: a.event_ids.clone(),
                destination_ids: a.destination_ids.clone(),
                ..NotificationFilter::default()
            },
        ),
        "get_notification" => ApiRequest::get_notification(a.id()?),
        "get_attempt" => return attempt(client, &a).await,
        "destination_stats" => return destination_stats(client, &a).await,
        "verify_signature" => return verify(client, &a).await,
        "create_team" => (teams::CREATE.request)(
            need(a.name.as_deref(), "name")?.to_string(),
            a.description.clone(),
        ),
        "update_team" => (teams::UPDATE.request)(a.id()?, a.name.clone(), a.description.clone())
            .ok_or_else(|| usage("give a name or a description"))?,
        "create_destination" => {
            let name = need(a.name.as_deref(), "name")?.to_string();
            let url = need(a.url.as_deref(), "url")?.to_string();
            let callbacks = match (a.all_callbacks, a.callback_ids.is_empty()) {
                (true, true) => CallbacksInput::all(),
                (false, false) => CallbacksInput::selected(a.callback_ids.clone()),
                _ => return Err(usage("give all_callbacks: true or callback_ids, not both")),
            };
            (destinations::CREATE.request)(name, a.description.clone(), url, callbacks)
        }
        "update_destination" => {
            if a.url.is_some() {
                return Err(usage(
                    "update_destination: pulsar does not change a destination's URL; create another destination.",
                ));
            }
            (destinations::UPDATE.request)(a.id()?, a.name.clone(), a.description.clone().map(Some))
                .ok_or_else(|| usage("give a name or a description"))?
        }
        "delete_destination" => (destinations::DELETE.request)(a.id()?),
        other => return Err(usage(format!("no tool {other:?}"))),
    };
    let raw = client.send(&req).await?;
    Ok(crate::api::client::decode::<Value>(raw.status, &raw.body)?)
}

/// The notification as the API sent it (every field kept) and typed.
pub(super) async fn notification(
    client: &Client,
    id: &str,
) -> Result<(Value, crate::api::model::Notification), ToolError> {
    let raw = client.send(&ApiRequest::get_notification(id)).await?;
    let v: Value = crate::api::client::decode(raw.status, &raw.body)?;
    let n = crate::api::client::decode(raw.status, &raw.body)?;
    Ok((v, n))
}

async fn attempt(client: &Client, a: &Args) -> Result<Value, ToolError> {
    let (v, n) = notification(client, a.notification()?).await?;
    let index = match a.index()? {
        Some(i) => i,
        None => replay::recorded_request(&n, None)?.0,
    };
    let found = v["attempts"]
        .as_array()
        .and_then(|all| all.iter().find(|x| x["index"].as_i64() == Some(index)))
        .cloned()
        .ok_or_else(|| usage(format!("no attempt #{} of {}", index + 1, n.id)))?;
    Ok(json!({
        "notification_id": n.id,
        "notification_status": v["status"],
        "attempt": index + 1,
        "attempt_detail": found,
    }))
}

async fn destination_stats(client: &Client, a: &Args) -> Result<Value, ToolError> {
    let id = need(a.destination_id.as_deref(), "destination_id")?;
    // The destination must exist: its absence is an error, not empty statistics.
    let destination = client.get_destination(id).await?;
    let window = match a.window.as_deref() {
        Some(w) => crate::api::health::parse_window(w).map_err(usage)?,
        None => chrono::TimeDelta::hours(24),
    };
    // The one health module: the same numbers as `destinations stats` and `destinations get`.
    let stats =
        crate::api::health::destination_stats(client, id, window, chrono::Utc::now()).await?;
    Ok(crate::resource::destinations::StatsView {
        destination,
        window,
        stats,
    }
    .json())
}

async fn verify(client: &Client, a: &Args) -> Result<Value, ToolError> {
    let (_, n) = notification(client, a.notification()?).await?;
    let (index, recorded) = replay::recorded_request(&n, a.index()?)?;
    let header = signature::header_of(&recorded.request_headers);
    let d = replay::destination_for(client, &n, recorded).await?;
    let Some(w) = &d.webhook_destination else {
        return Err(usage(format!("destination {} has no signing secret", d.id)));
    };
    let checked = signature::verify(&w.signing_secret, header, recorded.request_body.as_deref());
    let parts = header.and_then(|h| signature::parse(h).ok());
    Ok(json!({
        "notification_id": n.id,
        "attempt": index + 1,
        "destination_id": d.id,
        "signature_present": header.is_some(),
        "verified": checked.is_ok(),
        "reason": checked.err().map(|e| e.to_string()),
        "signed_host": parts.as_ref().map(|p| p.host),
        "signed_at": parts.as_ref().map(|p| p.t),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_documented_in_the_readme() {
        let readme = include_str!("../../README.md");
        let section = readme
            .split("## For agents")
            .nth(1)
            .expect("README has a \"For agents\" section");
        for t in all() {
            assert!(
                section.contains(&format!("`{}`", t.name)),
                "{} not in README",
                t.name
            );
        }
    }

    /// Each tool's row in the README's table names every property its input takes (`paging`
    /// stands for `limit`, `after`, `before` and `order`).
    #[test]
    fn every_tools_readme_row_names_its_inputs() {
        let readme = include_str!("../../README.md");
        for t in all() {
            let head = format!("| `{}` |", t.name);
            let Some(row) = readme.lines().find(|l| l.starts_with(&head)) else {
                panic!("{} has no row in the README's table", t.name);
            };
            let schema = t.input_schema();
            let props = schema["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            for p in props.keys() {
                let paging = matches!(p.as_str(), "limit" | "after" | "before" | "order");
                assert!(
                    row.contains(&format!("`{p}`"))
                        || row.contains(&format!("`{p}[]`"))
                        || (paging && row.contains("paging")),
                    "{}: the README's row does not name `{p}`",
                    t.name
                );
            }
        }
    }

    #[test]
    fn arguments_are_held_to_the_schema() {
        let def = TOOLS.iter().find(|t| t.name == "get_team").expect("tool");
        let mut args = Map::new();
        assert!(check(def, &args).is_err(), "id is required");
        args.insert("id".into(), json!("tm_1"));
        assert!(check(def, &args).is_ok());
        args.insert("limit".into(), json!(5));
        assert!(check(def, &args).is_err(), "get_team takes no limit");
    }

    #[test]
    fn schemas_are_objects_without_extra_properties() {
        for t in all() {
            let s = t.input_schema();
            assert_eq!(s["type"], "object", "{}", t.name);
            assert_eq!(s["additionalProperties"], false);
            for r in t.required {
                assert!(s["properties"].get(*r).is_some(), "{}: {r}", t.name);
            }
        }
    }

    /// Every resource operation's tool, on the local service: listed only with writes when it
    /// writes, and run from its typed value on an item of its resource, answering such an item.
    #[tokio::test]
    async fn every_operation_tool_runs_its_operation_and_hides_without_writes() {
        let t = crate::common::service::demo().await;
        for op in crate::resource::ops::all() {
            let Some(spec) = &op.tool else { continue };
            let def = all().find(|d| d.name == spec.name).expect("listed");
            assert_eq!(def.write, op.writes, "{}", spec.name);
            let read_only = crate::mcp::Server::new(t.client.clone(), false);
            assert_eq!(
                read_only.tools().any(|d| d.name == spec.name),
                !op.writes,
                "{}",
                spec.name
            );
            let writer = crate::mcp::Server::new(t.client.clone(), true);
            assert!(writer.tools().any(|d| d.name == spec.name), "{}", spec.name);

            let q = ListQuery::default();
            let raw = t
                .client
                .send(&op.resource.list_request(&q, &Default::default()))
                .await
                .expect("list");
            let page: Value = crate::api::client::decode(raw.status, &raw.body).expect("page");
            let id = page["items"][0]["id"]
                .as_str()
                .expect("an item")
                .to_string();
            let mut args = Map::new();
            args.insert("id".into(), json!(id));
            let out = call(&t.client, def, args.clone()).await.expect("runs");
            assert!(
                crate::resource::AnyItem::decode(op.resource, &out).is_ok(),
                "{}: {out}",
                spec.name
            );
            args.insert("unknown".into(), json!("x"));
            assert!(
                call(&t.client, def, args).await.is_err(),
                "held to its schema"
            );
        }
    }
}
