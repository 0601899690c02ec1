//! The verbs of a deployment that does not speak pulsar: `event-destinations` (and the teams,
//! access policies and auth imports `callback-destinations` shares with it), chosen by the
//! generation the client detected or was pinned to. A verb its generation lacks exits 2 with one
//! sentence, before anything is asked of a path the detection said is absent.
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::HeadlessError;
use super::args::*;
use super::output::{Output, OutputFormat};
use crate::api::detect::{self, TeamsKind};
use crate::api::generation::Generation;
use crate::api::model::{
    CreateAuthImport, CreateEventDestination, CreateIntegrationCallback, CreateListener,
    ListenerType, RetryPolicy, UpdateIntegrationCallback, UpdateListener,
};
use crate::api::newer_requests::*;
use crate::api::{ApiRequest, Client, Error, ListQuery, Page};

/// How a command is run against the deployment.
pub enum Route {
    /// As pulsar serves it (the verbs as they always were).
    Pulsar,
    /// Through this module, for a deployment of this generation.
    Current,
    /// Through `callback_gen`, for a deployment of `callback-destinations`.
    CallbackGen,
}

/// The areas a command belongs to, as the generations differ.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Area {
    /// Teams, access policies (pulsar's projects, the newer generations' policies).
    Teams,
    /// Token or auth imports.
    Imports,
    /// Callbacks, destinations, notifications or deliveries, listeners, events.
    Webhooks,
    /// Members and projects: the same on every generation.
    Shared,
}

fn area(cmd: &Resource) -> Area {
    match cmd {
        Resource::Teams(_) | Resource::Policies(_) | Resource::TeamRoles(_) => Area::Teams,
        Resource::Imports(_) => Area::Imports,
        Resource::Members(_) | Resource::Projects(_) => Area::Shared,
        _ => Area::Webhooks,
    }
}

/// The verb as the user typed it (`destinations ping`), for sentences.
pub(super) fn verb(cmd: &Resource) -> &'static str {
    match cmd {
        Resource::Teams(TeamsCmd::AssignPolicy { .. }) => "teams assign-policy",
        Resource::Teams(TeamsCmd::RemovePolicy { .. }) => "teams remove-policy",
        Resource::Teams(TeamsCmd::SetProject { .. }) => "teams set-project",
        Resource::Teams(TeamsCmd::RemoveProject { .. }) => "teams remove-project",
        Resource::Teams(TeamsCmd::Create { .. }) => "teams create",
        Resource::Teams(TeamsCmd::Update { .. }) => "teams update",
        Resource::Teams(TeamsCmd::AddMember { .. }) => "teams add-member",
        Resource::Teams(TeamsCmd::RemoveMember { .. }) => "teams remove-member",
        Resource::Teams(_) => "teams",
        Resource::Policies(_) => "policies",
        Resource::TeamRoles(_) => "team-roles",
        Resource::Imports(ImportsCmd::Create { .. }) => "imports create",
        Resource::Imports(ImportsCmd::Update { .. }) => "imports update",
        Resource::Imports(_) => "imports",
        Resource::Callbacks(CallbacksCmd::Events { .. }) => "callbacks events",
        Resource::Callbacks(CallbacksCmd::Instances { .. }) => "callbacks instances",
        Resource::Callbacks(CallbacksCmd::Create { .. }) => "callbacks create",
        Resource::Callbacks(CallbacksCmd::Update { .. }) => "callbacks update",
        Resource::Callbacks(CallbacksCmd::Delete { .. }) => "callbacks delete",
        Resource::Callbacks(_) => "callbacks",
        Resource::Destinations(DestinationsCmd::Ping { .. }) => "destinations ping",
        Resource::Destinations(DestinationsCmd::RotateSecret { .. }) => {
            "destinations rotate-secret"
        }
        Resource::Destinations(DestinationsCmd::Archive { .. }) => "destinations archive",
        Resource::Destinations(DestinationsCmd::Create { .. }) => "destinations create",
        Resource::Destinations(DestinationsCmd::Update { .. }) => "destinations update",
        Resource::Destinations(DestinationsCmd::Delete { .. }) => "destinations delete",
        Resource::Destinations(DestinationsCmd::Stats { .. }) => "destinations stats",
        Resource::Destinations(DestinationsCmd::Op(_)) => "destinations duplicate",
        Resource::Destinations(_) => "destinations",
        Resource::Notifications(NotificationsCmd::Retry { .. }) => "notifications retry",
        Resource::Notifications(NotificationsCmd::Replay(_)) => "notifications replay",
        Resource::Notifications(NotificationsCmd::Recover(_)) => "notifications recover",
        Resource::Notifications(NotificationsCmd::Wait(_)) => "notifications wait",
        Resource::Notifications(NotificationsCmd::Diff(_)) => "notifications diff",
        Resource::Notifications(NotificationsCmd::Forward(_)) => "notifications forward",
        Resource::Notifications(NotificationsCmd::List { .. }) => "notifications list",
        Resource::Notifications(NotificationsCmd::Keep(_)) => "notifications keep",
        Resource::Notifications(_) => "notifications",
        Resource::Listeners(_) => "listeners",
        Resource::Events(_) => "events",
        Resource::Members(_) => "members",
        Resource::Projects(_) => "projects",
        Resource::Samples(_) => "samples",
        Resource::Listed(l) => l.parts().0.name(),
    }
}

/// The refusal of a verb pulsar does not serve, when it reaches pulsar's code.
pub fn not_on_pulsar(cmd: &Resource) -> HeadlessError {
    HeadlessError::Usage(format!(
        "{} needs a deployment of a newer generation (event-destinations); this one serves pulsar.",
        verb(cmd)
    ))
}

/// Whether pulsar serves the verb.
fn on_pulsar(cmd: &Resource) -> bool {
    if let Resource::Listed(l) = cmd {
        return l.parts().0.served_by(Generation::Pulsar);
    }
    !matches!(
        cmd,
        Resource::Teams(TeamsCmd::AssignPolicy { .. } | TeamsCmd::RemovePolicy { .. })
            | Resource::Policies(_)
            | Resource::Listeners(_)
            | Resource::Events(_)
            | Resource::Callbacks(
                CallbacksCmd::Events { .. }
                    | CallbacksCmd::Instances { .. }
                    | CallbacksCmd::Create { .. }
                    | CallbacksCmd::Update { .. }
                    | CallbacksCmd::Delete { .. }
            )
            | Resource::Destinations(
                DestinationsCmd::Ping { .. }
                    | DestinationsCmd::RotateSecret { .. }
                    | DestinationsCmd::Archive { .. }
            )
            | Resource::Notifications(NotificationsCmd::Retry { .. })
    )
}

/// Why `event-destinations` does not run the verb (one sentence), or nothing when it does.
fn lacking_on_current(cmd: &Resource) -> Option<&'static str> {
    Some(match cmd {
        Resource::Teams(TeamsCmd::SetProject { .. } | TeamsCmd::RemoveProject { .. })
        | Resource::TeamRoles(_) => {
            "this generation gives teams access policies, not project roles: use teams assign-policy or remove-policy"
        }
        Resource::Imports(ImportsCmd::Update { .. }) => {
            "an import cannot be changed here; import again"
        }
        Resource::Destinations(DestinationsCmd::Delete { .. }) => {
            "an event destination is not deleted: use archive"
        }
        Resource::Projects(_) => {
            "the platform lists no projects in this generation (a team's projects show in teams get)"
        }
        _ => return None,
    })
}

/// The ids a command names, checked before the deployment is asked anything (a usage error
/// makes no request, not even for the versions).
fn check_ids(cmd: &Resource) -> Result<(), HeadlessError> {
    let ids: Vec<&str> = match cmd {
        Resource::Teams(
            TeamsCmd::Get { id }
            | TeamsCmd::Update { id, .. }
            | TeamsCmd::SetProject { id, .. }
            | TeamsCmd::RemoveProject { id, .. }
            | TeamsCmd::AddMember { id, .. }
            | TeamsCmd::RemoveMember { id, .. },
        )
        | Resource::Policies(PoliciesCmd::Get { id })
        | Resource::Imports(ImportsCmd::Get { id } | ImportsCmd::Update { id, .. })
        | Resource::Callbacks(CallbacksCmd::Get { id })
        | Resource::Destinations(
            DestinationsCmd::Get { id }
            | DestinationsCmd::Stats { id, .. }
            | DestinationsCmd::Update { id, .. }
            | DestinationsCmd::Delete { id, .. }
            | DestinationsCmd::Ping { id, .. }
            | DestinationsCmd::RotateSecret { id, .. }
            | DestinationsCmd::Archive { id, .. },
        )
        | Resource::Callbacks(CallbacksCmd::Update { id, .. } | CallbacksCmd::Delete { id, .. })
        | Resource::Notifications(
            NotificationsCmd::Get { id, .. } | NotificationsCmd::Retry { id },
        )
        | Resource::Listeners(
            ListenersCmd::Get { id }
            | ListenersCmd::Update { id, .. }
            | ListenersCmd::Delete { id, .. },
        )
        | Resource::Events(EventsCmd::Get { id }) => vec![id],
        Resource::Teams(
            TeamsCmd::AssignPolicy { id, policy } | TeamsCmd::RemovePolicy { id, policy },
        ) => {
            vec![id, policy]
        }
        Resource::Destinations(DestinationsCmd::Op(o)) => match o {
            DestinationOp::Duplicate { id, .. } => vec![id],
        },
        Resource::Listed(l) => match l.parts().1 {
            ListGetCmd::Get { id } => vec![id],
            ListGetCmd::List(_) => Vec::new(),
        },
        Resource::Notifications(NotificationsCmd::Diff(a)) => {
            // diff says its own usage errors first; asking nothing before them.
            if a.attempt.is_some_and(|n| n < 1)
                || a.with_attempt.is_some_and(|n| n < 1)
                || a.with_replay == Some(0)
            {
                return Err(HeadlessError::Usage(String::new()));
            }
            vec![&a.id]
        }
        _ => Vec::new(),
    };
    ids.into_iter()
        .try_for_each(crate::api::request::check_segment)
        .map_err(HeadlessError::Api)
}

/// How the command is run: pulsar's verbs, this module's, or refused with one sentence naming
/// what the deployment serves. Nothing is asked when the command's own ids are unusable (its
/// usage error comes first, as before detection).
///
/// # Errors
/// [`HeadlessError::Usage`] when the deployment's generation lacks the verb.
pub async fn route(client: &Client, cmd: &Resource) -> Result<Route, HeadlessError> {
    if let Err(e) = check_ids(cmd) {
        // Pulsar's verbs say their own usage errors, as before detection.
        return if on_pulsar(cmd) {
            Ok(Route::Pulsar)
        } else {
            Err(e)
        };
    }
    let area = area(cmd);
    // Projects are pulsar's: the newer generations list none (said, not a 404).
    if area == Area::Shared && on_pulsar(cmd) && !matches!(cmd, Resource::Projects(_)) {
        return Ok(Route::Pulsar);
    }
    let chosen = client.served().await;
    // A pin the server contradicts is said, not obeyed blindly (the server's generation runs).
    if let Some(note) = chosen.as_ref().and_then(detect::Chosen::contradiction) {
        eprintln!("{}", crate::text::line(note));
    }
    let generation = chosen.as_ref().and_then(|c| c.generation);
    let detection = client.detection().await;
    let served = || match (&chosen, &detection) {
        (Some(c), _) if c.generation.is_some() => {
            c.generation.map(|g| g.to_string()).unwrap_or_default()
        }
        (_, Some(d)) => crate::api::detect::served(d),
        _ => "pulsar".into(),
    };
    let refuse = |why: String| Err(HeadlessError::Usage(why));
    // A registry-run resource goes where its generations say (nothing learnt: pulsar).
    if let Resource::Listed(l) = cmd {
        let g = match (generation, chosen.is_some()) {
            (None, false) => Some(Generation::Pulsar),
            (g, _) => g,
        };
        return match g {
            Some(Generation::Pulsar) if on_pulsar(cmd) => Ok(Route::Pulsar),
            Some(g) if l.parts().0.served_by(g) => Ok(Route::Current),
            _ => refuse(format!(
                "{} is not available: this deployment serves {}.",
                verb(cmd),
                served()
            )),
        };
    }
    match (generation, chosen.is_some()) {
        // Nothing learnt: pulsar, as before detection.
        (None, false) | (Some(Generation::Pulsar), _) => {
            if on_pulsar(cmd) {
                Ok(Route::Pulsar)
            } else {
                Err(not_on_pulsar(cmd))
            }
        }
        (Some(g @ Generation::EventDestinations), _) => match lacking_on_current(cmd) {
            Some(why) => refuse(format!("{} on {g}: {why}.", verb(cmd))),
            None => Ok(Route::Current),
        },
        (Some(g @ Generation::CallbackDestinations), _) => match (area, lacking_on_current(cmd)) {
            (Area::Teams | Area::Imports, None) => Ok(Route::Current),
            (Area::Teams | Area::Imports, Some(why)) => {
                refuse(format!("{} on {g}: {why}.", verb(cmd)))
            }
            _ => match super::callback_gen::lacking(cmd) {
                Some(why) => refuse(format!("{} on {g}: {why}.", verb(cmd))),
                None => Ok(Route::CallbackGen),
            },
        },
        // Webhooks Switchboard does not recognise: teams and imports where their paths are.
        (None, true) => {
            let teams = detection.as_ref().map(|d| d.teams);
            match (area, teams) {
                (Area::Teams | Area::Imports, Some(TeamsKind::Policies)) => {
                    match lacking_on_current(cmd) {
                        Some(why) => refuse(format!("{}: {why}.", verb(cmd))),
                        None => Ok(Route::Current),
                    }
                }
                (Area::Teams | Area::Imports, Some(TeamsKind::Projects)) if on_pulsar(cmd) => {
                    Ok(Route::Pulsar)
                }
                _ => refuse(format!(
                    "{} is not available: this deployment serves {}.",
                    verb(cmd),
                    served()
                )),
            }
        }
    }
}

/// A table's columns: the header, and where its cell is read (`a.b`, `list[].name` joins a
/// list's names, `#list` counts it).
pub(super) type Columns = &'static [(&'static str, &'static str)];

// Each resource's table is its registry entry's (`Resource::WIRE_COLUMNS`).
use crate::resource::Kind;
const TEAMS: Columns = Kind::OrgTeams.wire_columns();
const POLICIES: Columns = Kind::AccessPolicies.wire_columns();
const IMPORTS: Columns = Kind::AuthImports.wire_columns();
const CALLBACKS: Columns = Kind::IntegrationCallbacks.wire_columns();
const CALLBACK_EVENTS: Columns = Kind::CallbackEvents.wire_columns();
const CALLBACK_INSTANCES: Columns = crate::resource::integration_callbacks::INSTANCE_WIRE_COLUMNS;
const DESTINATIONS: Columns = Kind::EventDestinations.wire_columns();
const LISTENERS: Columns = Kind::Listeners.wire_columns();
const EVENTS: Columns = Kind::Events.wire_columns();
pub(super) const DELIVERIES: Columns = Kind::Deliveries.wire_columns();
const ATTEMPTS: Columns = Kind::DeliveryAttempts.wire_columns();

/// The value a column shows.
pub(super) fn pick(item: &Value, path: &str) -> Value {
    if let Some(list) = path.strip_prefix('#') {
        return super::output::at_path(item, list)
            .and_then(Value::as_array)
            .map_or(Value::Null, |a| json!(a.len()));
    }
    if let Some((list, field)) = path.split_once("[].") {
        return super::output::at_path(item, list)
            .and_then(Value::as_array)
            .map_or(Value::Null, |a| {
                Value::Array(
                    a.iter()
                        .filter_map(|x| super::output::at_path(x, field).cloned())
                        .collect(),
                )
            });
    }
    super::output::at_path(item, path)
        .cloned()
        .unwrap_or(Value::Null)
}

/// Items as the columns show them (objects keyed by the headers).
fn project(cols: Columns, items: &[Value]) -> (Vec<String>, Vec<Value>) {
    let headers = cols.iter().map(|(h, _)| (*h).to_string()).collect();
    let rows = items
        .iter()
        .map(|it| {
            let m: Map<String, Value> = cols
                .iter()
                .map(|(h, p)| ((*h).to_string(), pick(it, p)))
                .collect();
            Value::Object(m)
        })
        .collect();
    (headers, rows)
}

/// Sends a request; a refused key gets a hint saying which key the area needs.
pub(super) async fn send(client: &Client, req: &ApiRequest) -> Result<Value, HeadlessError> {
    let raw = client.send(req).await.map_err(|e| keyed(client, req, e))?;
    Ok(crate::api::client::decode::<Value>(raw.status, &raw.body)?)
}

/// The hint for a refused key: organization paths need the organization key; the others the
/// instance key (or the organization key with the instance id).
pub(super) fn keyed(client: &Client, req: &ApiRequest, e: Error) -> HeadlessError {
    let Error::Api(mut a) = e else {
        return HeadlessError::Api(e);
    };
    let refused = matches!(a.status, 401 | 403)
        || (a.status == 400 && a.code == "bad_request" && !req.is_organization());
    if refused && a.hint.is_none() {
        let opts = client.options();
        a.hint = Some(if req.is_organization() {
            if opts.organization_key.is_some() {
                "This area needs the organization key; the one given was refused.".into()
            } else {
                "This area needs the organization key: set organization_key_env (or organization_key_cmd) in the profile; the instance key is refused here.".into()
            }
        } else if opts.instance_id.is_none() {
            "This area needs the instance key, or the organization key with an instance id (SWITCHBOARD_INSTANCE_ID).".into()
        } else {
            "This area needs the instance key (SWITCHBOARD_API_KEY) or the organization key with the instance id.".into()
        });
    }
    HeadlessError::Api(Error::Api(a))
}

/// A list: one page (the envelope as received), or with `--all` every item; a table of `cols`.
pub(super) async fn list(
    client: &Client,
    out: &Output,
    args: &ListArgs,
    cols: Columns,
    build: impl Fn(&ListQuery) -> ApiRequest,
) -> Result<(), HeadlessError> {
    let ndjson = out.format == OutputFormat::Ndjson;
    let mut items: Vec<Value> = Vec::new();
    let mut more = None;
    if args.all {
        let mut failed = None;
        crate::api::lookup::walk(client, args.query(), &build, |page: Vec<Value>| {
            if ndjson {
                if let Err(e) = out.items(&page) {
                    failed = Some(e);
                    return false;
                }
            } else {
                items.extend(page);
            }
            true
        })
        .await
        .map_err(|e| keyed(client, &build(&args.query()), e))?;
        if let Some(e) = failed {
            return Err(e);
        }
        if ndjson {
            return Ok(());
        }
        if !out.table() {
            return out.items(&items);
        }
    } else {
        let req = build(&args.query());
        let raw = client
            .send(&req)
            .await
            .map_err(|e| keyed(client, &req, e))?;
        let page: Page<Value> = crate::api::client::decode(raw.status, &raw.body)?;
        if !out.table() {
            return if ndjson {
                out.items(&page.items)
            } else {
                out.document(&raw.body)
            };
        }
        if page.pagination.has_more_after {
            more = page
                .items
                .last()
                .and_then(|v| v.get("id"))
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        items = page.items;
    }
    table(out, cols, &items)?;
    if let Some(last) = more {
        eprintln!("(more: --after {} or --all)", super::output::clean(&last));
    }
    Ok(())
}

pub(super) fn table(out: &Output, cols: Columns, items: &[Value]) -> Result<(), HeadlessError> {
    if let Some(fields) = &out.fields {
        return out.field_table(fields, items);
    }
    let (headers, rows) = project(cols, items);
    out.field_table(&headers, &rows)
}

/// One object: as received, or its columns' `HEADER  value` lines.
pub(super) fn one(out: &Output, item: &Value, cols: Columns) -> Result<(), HeadlessError> {
    if !out.table() {
        let text = serde_json::to_string_pretty(item).unwrap_or_default();
        return out.document(&text);
    }
    if let Some(fields) = &out.fields {
        return out.field_detail(fields, item);
    }
    let (headers, rows) = project(cols, std::slice::from_ref(item));
    match rows.first() {
        Some(row) => out.field_detail(&headers, row),
        None => Ok(()),
    }
}

/// Asks before a change that cannot be taken back, unless `--yes`.
pub(super) fn ask(yes: bool, what: &str, question: &str) -> Result<(), HeadlessError> {
    use std::io::IsTerminal;
    if yes {
        return Ok(());
    }
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Err(HeadlessError::Usage(format!(
            "refusing to {what} without --yes when not on a terminal"
        )));
    }
    if super::input::confirm(question)? {
        Ok(())
    } else {
        Err(HeadlessError::Cancelled)
    }
}

/// An access policy named by id or slug: its id (a slug is looked up in the policies list).
async fn policy_id(client: &Client, policy: &str) -> Result<String, HeadlessError> {
    if policy.starts_with("apl_") {
        return Ok(policy.to_string());
    }
    let all: Vec<Value> =
        crate::api::list_all::<Value>(client, ApiRequest::list_access_policies).await?;
    all.iter()
        .find(|p| p.get("slug").and_then(Value::as_str) == Some(policy))
        .and_then(|p| p.get("id").and_then(Value::as_str))
        .map(str::to_string)
        .ok_or_else(|| {
            HeadlessError::Usage(format!(
                "no access policy has the id or slug {:?} (policies list shows them)",
                super::output::clean(policy)
            ))
        })
}

/// A delivery status as the platform names it (`succeeded` is `delivered` here).
fn delivery_status(s: &crate::api::model::NotificationStatus) -> String {
    match s.as_str() {
        "succeeded" => "delivered".into(),
        other => other.to_string(),
    }
}

/// Runs a command routed to a newer generation.
///
/// # Errors
/// The API's, usage errors, [`HeadlessError::Outcome`] exit 5 for a ping past its timeout.
pub async fn run(client: &Client, out: &Output, cmd: Resource) -> Result<(), HeadlessError> {
    match cmd {
        // A registry-run resource: its requests and its table are its registry entry's.
        Resource::Listed(l) => {
            let (kind, c) = l.parts();
            match c {
                ListGetCmd::List(a) => {
                    let f = crate::api::NotificationFilter::default();
                    list(client, out, a, kind.wire_columns(), |q| {
                        kind.list_request(q, &f)
                    })
                    .await
                }
                ListGetCmd::Get { id } => one(
                    out,
                    &send(client, &kind.get_request(id)).await?,
                    kind.wire_columns(),
                ),
            }
        }
        Resource::Teams(TeamsCmd::List(l)) => {
            list(client, out, &l, TEAMS, ApiRequest::list_teams).await
        }
        Resource::Teams(TeamsCmd::Get { id }) => {
            one(out, &send(client, &ApiRequest::get_team(&id)).await?, TEAMS)
        }
        Resource::Teams(c) if super::team_writes::handles(&c) => {
            super::team_writes::run(client, out, c).await
        }
        Resource::Teams(TeamsCmd::AssignPolicy { id, policy }) => {
            let policy = policy_id(client, &policy).await?;
            let team = send(client, &ApiRequest::assign_team_policy(&id, &policy)).await?;
            one(out, &team, TEAMS)
        }
        Resource::Teams(TeamsCmd::RemovePolicy { id, policy }) => {
            let policy = policy_id(client, &policy).await?;
            let team = send(client, &ApiRequest::remove_team_policy(&id, &policy)).await?;
            one(out, &team, TEAMS)
        }
        Resource::Policies(PoliciesCmd::List(l)) => {
            list(client, out, &l, POLICIES, ApiRequest::list_access_policies).await
        }
        Resource::Policies(PoliciesCmd::Get { id }) => {
            let policy = policy_id(client, &id).await?;
            one(
                out,
                &send(client, &ApiRequest::get_access_policy(&policy)).await?,
                POLICIES,
            )
        }
        Resource::Imports(ImportsCmd::List(l)) => {
            let f = crate::api::model::AuthImportFilter::default();
            list(client, out, &l, IMPORTS, |q| {
                ApiRequest::list_auth_imports(q, &f)
            })
            .await
        }
        Resource::Imports(ImportsCmd::Get { id }) => one(
            out,
            &send(client, &ApiRequest::get_auth_import(&id)).await?,
            IMPORTS,
        ),
        Resource::Imports(ImportsCmd::Create {
            server_deployment,
            connection,
            token,
            fields,
            auth,
        }) => {
            let pulsars = server_deployment.is_some()
                || connection.is_some()
                || token.access_token_stdin
                || token.access_token_env.is_some()
                || fields.id_token_env.is_some()
                || fields.expires_at.is_some()
                || fields.scope.is_some()
                || fields.token_type.is_some();
            if pulsars {
                return Err(HeadlessError::Usage(
                    "imports create here: --server-deployment, --connection, --access-token-*, --id-token-env, --expires-at, --scope and --token-type are pulsar's; an auth import takes --note, --value-stdin or --value-env, and the ids it is for.".into(),
                ));
            }
            let Some(note) = fields.note.clone() else {
                return Err(HeadlessError::Usage(
                    "imports create here needs --note.".into(),
                ));
            };
            let value = import_value(&auth)?;
            let metadata = (!fields.metadata.is_empty()).then(|| {
                fields
                    .metadata
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                    .collect()
            });
            let b = CreateAuthImport {
                note,
                value,
                metadata,
                provider_id: auth.provider,
                provider_deployment_id: auth.provider_deployment,
                provider_auth_config_id: auth.auth_config,
                provider_auth_method_id: auth.auth_method,
            };
            one(
                out,
                &send(client, &ApiRequest::create_auth_import(&b)).await?,
                IMPORTS,
            )
        }
        Resource::Callbacks(CallbacksCmd::List(l)) => {
            let f = IntegrationCallbackFilter::default();
            list(client, out, &l, CALLBACKS, |q| {
                ApiRequest::list_integration_callbacks(q, &f)
            })
            .await
        }
        Resource::Callbacks(CallbacksCmd::Get { id }) => one(
            out,
            &send(client, &ApiRequest::get_callback(&id)).await?,
            CALLBACKS,
        ),
        Resource::Callbacks(CallbacksCmd::Create {
            provider_deployment,
            integration,
            integration_provider,
            name,
            description,
            destinations,
            triggers,
        }) => {
            if provider_deployment.is_some() || !destinations.is_empty() || !triggers.is_empty() {
                return Err(HeadlessError::Usage(
                    "callbacks create on event-destinations: --provider-deployment, --destination and --trigger are callback-destinations'; a callback here is created with --integration and --integration-provider (listeners choose where its events go).".into(),
                ));
            }
            let (Some(integration_id), Some(integration_provider_id)) =
                (integration, integration_provider)
            else {
                return Err(HeadlessError::Usage(
                    "callbacks create on event-destinations needs --integration and --integration-provider.".into(),
                ));
            };
            let b = CreateIntegrationCallback {
                integration_id,
                integration_provider_id,
                name,
                description,
            };
            one(
                out,
                &send(client, &ApiRequest::create_integration_callback(&b)).await?,
                CALLBACKS,
            )
        }
        Resource::Callbacks(CallbacksCmd::Update {
            id,
            name,
            description,
            destinations,
            no_destinations,
        }) => {
            if no_destinations || !destinations.is_empty() {
                return Err(HeadlessError::Usage(
                    "callbacks update on event-destinations: --destination and --no-destinations are callback-destinations'; listeners choose where a callback's events go.".into(),
                ));
            }
            let b = UpdateIntegrationCallback {
                name,
                description,
                metadata: None,
            };
            one(
                out,
                &send(client, &ApiRequest::update_integration_callback(&id, &b)).await?,
                CALLBACKS,
            )
        }
        Resource::Callbacks(CallbacksCmd::Delete { id, yes }) => {
            ask(
                yes,
                "delete",
                &format!(
                    "Delete callback {}? Listeners bound to it get nothing more from it.",
                    super::output::clean(&id)
                ),
            )?;
            one(
                out,
                &send(client, &ApiRequest::delete_callback(&id)).await?,
                CALLBACKS,
            )
        }
        Resource::Callbacks(CallbacksCmd::Events {
            id,
            list: l,
            types,
            mut callbacks,
            statuses,
        }) => {
            if !types.is_empty() {
                return Err(HeadlessError::Usage(
                    "callbacks events on event-destinations: --type is callback-destinations'; use --status or --callback.".into(),
                ));
            }
            callbacks.extend(id);
            let f = CallbackEventFilter {
                callback_ids: callbacks,
                statuses,
                ..CallbackEventFilter::default()
            };
            list(client, out, &l, CALLBACK_EVENTS, |q| {
                ApiRequest::list_callback_events(q, &f)
            })
            .await
        }
        Resource::Callbacks(CallbacksCmd::Instances { list: l, callbacks }) => {
            list(client, out, &l, CALLBACK_INSTANCES, |q| {
                ApiRequest::list_callback_instances(q, &callbacks)
            })
            .await
        }
        Resource::Destinations(DestinationsCmd::List { list: l, callbacks }) => {
            let f = EventDestinationFilter {
                callback_ids: callbacks,
                ..EventDestinationFilter::default()
            };
            list(client, out, &l, DESTINATIONS, |q| {
                ApiRequest::list_event_destinations(q, &f)
            })
            .await
        }
        Resource::Destinations(DestinationsCmd::Get { id }) => one(
            out,
            &send(client, &ApiRequest::get_event_destination(&id)).await?,
            DESTINATIONS,
        ),
        Resource::Destinations(DestinationsCmd::Create {
            name,
            url,
            description,
            all_callbacks,
            callbacks,
            retry,
        }) => {
            if all_callbacks || !callbacks.is_empty() {
                return Err(HeadlessError::Usage(
                    "destinations create on event-destinations: --all-callbacks and --callback are pulsar's; listeners choose what a destination receives (listeners create).".into(),
                ));
            }
            let mut b = CreateEventDestination::webhook(name, url);
            b.description = description;
            if retry.given() {
                b.retry = Some(RetryPolicy::from_input(
                    retry.retry.as_deref(),
                    retry.max_attempts,
                    retry.base_delay.map(|d| d.as_secs()),
                    retry.max_delay.map(|d| d.as_secs()),
                ));
            }
            let d = send(client, &ApiRequest::create_event_destination(&b)).await?;
            created(out, &d)
        }
        Resource::Destinations(DestinationsCmd::Archive { id, yes }) => {
            ask(
                yes,
                "archive a destination",
                &format!(
                    "Archive destination {}? Its pending and retrying deliveries are cancelled.",
                    super::output::clean(&id)
                ),
            )?;
            let d = send(client, &ApiRequest::archive_event_destination(&id)).await?;
            one(out, &d, DESTINATIONS)
        }
        Resource::Destinations(DestinationsCmd::RotateSecret { id, yes }) => {
            ask(
                yes,
                "rotate a signing secret",
                &format!(
                    "Rotate the signing secret of {}? The old one stops at once: its receiver fails until it has the new one.",
                    super::output::clean(&id)
                ),
            )?;
            let d = send(client, &ApiRequest::rotate_event_destination_secret(&id)).await?;
            rotated(out, &d)
        }
        Resource::Destinations(DestinationsCmd::Ping { id, timeout }) => {
            ping(client, out, &id, timeout).await
        }
        Resource::Notifications(NotificationsCmd::List {
            list: l,
            destinations,
            events,
            scan,
            watch,
            ..
        }) => {
            let f = DeliveryFilter {
                statuses: scan.statuses.iter().map(delivery_status).collect(),
                event_ids: events,
                event_types: super::current_list::event_types(scan.event_types.clone())?,
                event_destination_ids: destinations,
                ..DeliveryFilter::default()
            };
            // The platform's deliveries list has no time filter: a view's window is read here
            // (a watch lists only what comes after it anyway).
            if let Some(since) = scan.since
                && watch.interval().is_none()
            {
                return super::current_list::window(client, out, &l, &f, since, scan.count).await;
            }
            if scan.count {
                return super::current_list::count(client, out, &f).await;
            }
            if let Some(every) = watch.interval() {
                return super::current_list::watch(client, out, &f, every).await;
            }
            list(client, out, &l, DELIVERIES, |q| {
                ApiRequest::list_deliveries(q, &f)
            })
            .await
        }
        Resource::Notifications(NotificationsCmd::Get { id, .. }) => {
            let d = send(client, &ApiRequest::get_delivery(&id)).await?;
            delivery(out, &d)
        }
        Resource::Notifications(NotificationsCmd::Retry { id }) => {
            let d = send(client, &ApiRequest::retry_delivery(&id)).await?;
            one(out, &d, DELIVERIES)
        }
        Resource::Notifications(NotificationsCmd::Search(a)) => {
            super::delivery_repro::search(client, out, a).await
        }
        Resource::Notifications(NotificationsCmd::Export(a)) => {
            super::delivery_repro::export(client, out, a).await
        }
        Resource::Listeners(ListenersCmd::List {
            list: l,
            destinations,
            instances,
        }) => {
            let f = ListenerFilter {
                event_destination_ids: destinations,
                instance_ids: instances,
            };
            list(client, out, &l, LISTENERS, |q| {
                ApiRequest::list_listeners(q, &f)
            })
            .await
        }
        Resource::Listeners(ListenersCmd::Get { id }) => one(
            out,
            &send(client, &ApiRequest::get_listener(&id)).await?,
            LISTENERS,
        ),
        Resource::Listeners(ListenersCmd::Create {
            destination,
            instance,
            event_types,
            callback,
            provider,
            triggers,
        }) => {
            let events = !event_types.is_empty();
            let b = CreateListener {
                instance_id: instance,
                event_destination_id: destination,
                kind: if events {
                    ListenerType::Event
                } else {
                    ListenerType::Callback
                },
                event_types: events.then_some(event_types),
                callback_id: callback,
                provider_id: provider,
                triggers: (!triggers.is_empty()).then_some(triggers),
                chat_connection_id: None,
            };
            one(
                out,
                &send(client, &ApiRequest::create_listener(&b)).await?,
                LISTENERS,
            )
        }
        Resource::Listeners(ListenersCmd::Update {
            id,
            event_types,
            triggers,
        }) => {
            let b = UpdateListener {
                event_types: (!event_types.is_empty()).then_some(event_types),
                triggers: (!triggers.is_empty()).then_some(triggers),
            };
            one(
                out,
                &send(client, &ApiRequest::update_listener(&id, &b)).await?,
                LISTENERS,
            )
        }
        Resource::Listeners(ListenersCmd::Delete { id, yes }) => {
            ask(
                yes,
                "delete",
                &format!("Delete listener {}?", super::output::clean(&id)),
            )?;
            one(
                out,
                &send(client, &ApiRequest::delete_listener(&id)).await?,
                LISTENERS,
            )
        }
        Resource::Events(EventsCmd::List {
            list: l,
            event_types,
            callbacks,
            sources,
        }) => {
            let f = EventFilter {
                event_types,
                callback_ids: callbacks,
                sources,
                ..EventFilter::default()
            };
            list(client, out, &l, EVENTS, |q| ApiRequest::list_events(q, &f)).await
        }
        Resource::Events(EventsCmd::Get { id }) => one(
            out,
            &send(client, &ApiRequest::get_event(&id)).await?,
            EVENTS,
        ),
        // `route` sends no other command here.
        other => Err(HeadlessError::Usage(format!(
            "{} is not offered on this generation.",
            verb(&other)
        ))),
    }
}

/// An auth import's value: a JSON object from standard input or the named variable. It is a
/// secret: no message says any of it, only that it is not an object.
fn import_value(
    auth: &super::args::AuthImportArgs,
) -> Result<crate::api::model::CredentialValue, HeadlessError> {
    const WHAT: &str = "the import's value";
    let text = if auth.value_stdin {
        super::input::secret_from_stdin(WHAT)?
    } else if let Some(var) = auth.value_env.as_deref() {
        super::input::secret_from_env(var, WHAT)?
    } else {
        return Err(HeadlessError::Usage(
            "imports create here needs its value: --value-stdin or --value-env VAR.".into(),
        ));
    };
    crate::api::model::CredentialValue::parse(&text)
        .map_err(|why| HeadlessError::Usage(format!("{WHAT} is {why}.")))
}

/// A delivery with its attempts: the object as received, or its lines and an attempts table.
fn delivery(out: &Output, d: &Value) -> Result<(), HeadlessError> {
    one(out, d, DELIVERIES)?;
    if out.table() && out.fields.is_none() {
        let attempts = d
            .get("attempts")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        super::output::emit(|w| writeln!(w))?;
        table(out, ATTEMPTS, &attempts)?;
    }
    Ok(())
}

/// The rotated destination: the new secret is shown this once (a table says so beside it).
fn rotated(out: &Output, d: &Value) -> Result<(), HeadlessError> {
    if !out.table() {
        return one(out, d, DESTINATIONS);
    }
    one(out, d, DESTINATIONS)?;
    let secret = pick(d, "webhook.signing_secret");
    if let Some(s) = secret.as_str() {
        // Printed once, on purpose: the platform shows it only in this answer.
        super::output::emit(|w| {
            writeln!(
                w,
                "signing secret (shown once): {}",
                super::output::clean(s)
            )
        })?;
    }
    Ok(())
}

/// The created destination: as received under `-o json`; in a table its signing secret is
/// masked by the one policy, as every secret in a table is.
fn created(out: &Output, d: &Value) -> Result<(), HeadlessError> {
    one(out, d, DESTINATIONS)?;
    if out.table()
        && out.fields.is_none()
        && let Some(s) = pick(d, "webhook.signing_secret").as_str()
    {
        super::output::emit(|w| {
            writeln!(
                w,
                "signing secret: {} (shown once by the platform: -o json prints it whole)",
                super::output::clean(&crate::text::redact::mask(s))
            )
        })?;
    }
    Ok(())
}

/// `destinations ping`: the test delivery, followed until its first attempt finished.
async fn ping(
    client: &Client,
    out: &Output,
    id: &str,
    timeout: Duration,
) -> Result<(), HeadlessError> {
    let started = Instant::now();
    let first = send(client, &ApiRequest::ping_event_destination(id)).await?;
    let Some(delivery_id) = first.get("id").and_then(Value::as_str).map(str::to_string) else {
        return Err(HeadlessError::Api(Error::Decode {
            status: 200,
            detail: "the ping's answer names no delivery".into(),
        }));
    };
    let mut d = first;
    loop {
        let attempted = d.get("attempt_count").and_then(Value::as_u64).unwrap_or(0) > 0
            || d.get("attempts")
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty());
        let finished = matches!(
            d.get("status").and_then(Value::as_str),
            Some("delivered" | "failed" | "cancelled")
        );
        if attempted || finished {
            return delivery(out, &d);
        }
        if started.elapsed() >= timeout {
            return Err(HeadlessError::Outcome {
                code: 5,
                message: format!(
                    "timed out: delivery {} had no attempt after {} s",
                    super::output::clean(&delivery_id),
                    timeout.as_secs()
                ),
            });
        }
        // Polled within the timeout: the platform offers no way to be told.
        tokio::time::sleep(
            Duration::from_millis(250).min(timeout.saturating_sub(started.elapsed())),
        )
        .await;
        d = send(client, &ApiRequest::get_delivery(&delivery_id)).await?;
    }
}
