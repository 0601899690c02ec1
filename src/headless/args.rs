//! The command grammar (clap): `<resource> <verb> …`, exactly as documented in the README.
use clap::{ArgGroup, Args, Subcommand};

use super::input::{parse_expires_at, parse_key_value};
use crate::api::{ListQuery, Order};

/// A resource and what to do with it.
#[derive(Subcommand, Debug, Clone)]
pub enum Resource {
    /// Organization teams and their projects and members.
    #[command(subcommand)]
    Teams(TeamsCmd),
    /// Provider OAuth token imports.
    #[command(subcommand)]
    Imports(ImportsCmd),
    /// Callbacks (read-only).
    #[command(subcommand)]
    Callbacks(CallbacksCmd),
    /// Callback destinations (webhooks).
    #[command(subcommand)]
    Destinations(DestinationsCmd),
    /// Callback notifications, i.e. deliveries (read-only).
    #[command(subcommand)]
    Notifications(NotificationsCmd),
    /// Organization members (lookup), with the teams each belongs to.
    #[command(subcommand)]
    Members(MembersCmd),
    /// Organization projects (lookup).
    #[command(subcommand)]
    Projects(LookupCmd),
    /// Team roles (lookup).
    #[command(subcommand)]
    TeamRoles(LookupCmd),
    /// Access policies a team can be given (event-destinations and callback-destinations).
    #[command(subcommand)]
    Policies(PoliciesCmd),
    /// Which deliveries each event destination gets (event-destinations only).
    #[command(subcommand)]
    Listeners(ListenersCmd),
    /// The organization's events (event-destinations only; read-only).
    #[command(subcommand)]
    Events(EventsCmd),
    /// Named samples kept with `notifications keep` (this machine, per profile).
    #[command(subcommand)]
    Samples(super::samples::SamplesCmd),
    /// The resources read with `list` and `get` only, run from the registry.
    #[command(flatten)]
    Listed(Listed),
}

/// The resources whose only verbs are `list` and `get`: their requests, table and detail come
/// from the registry (`resource::<r>`), so a new one is a variant here and its arm in
/// [`Listed::parts`], and nothing else in `headless`.
#[derive(Subcommand, Debug, Clone)]
pub enum Listed {}

impl Listed {
    /// Its resource in the registry, and the verb.
    pub fn parts(&self) -> (crate::resource::Kind, &ListGetCmd) {
        match *self {}
    }
}

/// `<resource> list | get` of a [`Listed`] resource.
#[derive(Subcommand, Debug, Clone)]
pub enum ListGetCmd {
    /// List them.
    List(ListArgs),
    /// Show one.
    Get {
        /// Its id.
        id: String,
    },
}

impl Resource {
    /// Whether the command changes anything (refused in read-only mode).
    pub fn is_write(&self) -> bool {
        match self {
            Resource::Teams(c) => !matches!(c, TeamsCmd::List(_) | TeamsCmd::Get { .. }),
            Resource::Imports(c) => !matches!(c, ImportsCmd::List(_) | ImportsCmd::Get { .. }),
            // An operation says whether it writes.
            Resource::Destinations(DestinationsCmd::Op(o)) => {
                o.clone().call().op.op().is_none_or(|op| op.writes)
            }
            Resource::Destinations(c) => !matches!(
                c,
                DestinationsCmd::List { .. }
                    | DestinationsCmd::Get { .. }
                    | DestinationsCmd::Stats { .. }
            ),
            Resource::Notifications(NotificationsCmd::Retry { .. }) => true,
            Resource::Listeners(c) => {
                !matches!(c, ListenersCmd::List { .. } | ListenersCmd::Get { .. })
            }
            Resource::Callbacks(c) => matches!(
                c,
                CallbacksCmd::Create { .. }
                    | CallbacksCmd::Update { .. }
                    | CallbacksCmd::Delete { .. }
            ),
            Resource::Notifications(_)
            | Resource::Members(_)
            | Resource::Projects(_)
            | Resource::TeamRoles(_)
            | Resource::Policies(_)
            | Resource::Events(_)
            | Resource::Samples(_)
            | Resource::Listed(_) => false,
        }
    }
}

/// Paging options every `list` takes.
#[derive(Args, Debug, Clone, Default)]
pub struct ListArgs {
    /// Items per page (1–100; the server's default is 20).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub limit: Option<u32>,
    /// Items after this id.
    #[arg(long, value_name = "ID")]
    pub after: Option<String>,
    /// Items right before this id.
    #[arg(long, value_name = "ID")]
    pub before: Option<String>,
    /// An opaque `cur_…` cursor.
    #[arg(long, value_name = "C")]
    pub cursor: Option<String>,
    /// Sort order by creation time.
    #[arg(long, value_name = "asc|desc", value_parser = parse_order)]
    pub order: Option<Order>,
    /// Follow the pages to the end and print every item.
    #[arg(long)]
    pub all: bool,
    /// Apply a saved view (`[profiles.P.views.NAME]`; shipped: failed, retrying, today): its
    /// order, filters, status and columns, where not given here.
    #[arg(long, value_name = "NAME")]
    pub view: Option<String>,
}

impl ListArgs {
    /// The query of the first page.
    pub fn query(&self) -> ListQuery {
        ListQuery {
            limit: self.limit,
            after: self.after.clone(),
            before: self.before.clone(),
            cursor: self.cursor.clone(),
            order: self.order,
        }
    }
}

fn parse_order(s: &str) -> Result<Order, String> {
    s.parse()
}

/// `teams …`.
#[derive(Subcommand, Debug, Clone)]
pub enum TeamsCmd {
    /// List teams.
    List(ListArgs),
    /// Show one team (id or slug).
    Get {
        /// Team id or slug.
        id: String,
    },
    /// Create a team.
    Create {
        /// Name (the slug is derived from it).
        #[arg(long)]
        name: String,
        /// Description.
        #[arg(long)]
        description: Option<String>,
    },
    /// Rename or describe a team.
    #[command(group(ArgGroup::new("fields").required(true).multiple(true).args(["name", "description"])))]
    Update {
        /// Team id or slug.
        id: String,
        /// New name.
        #[arg(long)]
        name: Option<String>,
        /// New description.
        #[arg(long)]
        description: Option<String>,
    },
    /// Give the team a project with exactly these roles (replaces the project's role set).
    SetProject {
        /// Team id or slug.
        id: String,
        /// Project id or slug.
        #[arg(long)]
        project: String,
        /// Team role id or slug (repeat for several).
        #[arg(long = "role", value_name = "R", required = true)]
        roles: Vec<String>,
    },
    /// Take a project away from the team.
    RemoveProject {
        /// Team id or slug.
        id: String,
        /// Project id or slug.
        project: String,
    },
    /// Add an organization member to the team.
    AddMember {
        /// Team id or slug.
        id: String,
        /// Actor id (`oac_…`), email, or part of a name that matches one member.
        member: String,
    },
    /// Remove a member from the team.
    RemoveMember {
        /// Team id or slug.
        id: String,
        /// Actor id (`oac_…`), email, or part of a name that matches one member of the team.
        member: String,
    },
    /// Give the team a custom access policy (event-destinations, callback-destinations).
    AssignPolicy {
        /// Team id.
        id: String,
        /// Access policy id or slug.
        policy: String,
    },
    /// Take an access policy from the team (event-destinations, callback-destinations).
    RemovePolicy {
        /// Team id.
        id: String,
        /// Access policy id or slug.
        policy: String,
    },
}

/// `policies …`.
#[derive(Subcommand, Debug, Clone)]
pub enum PoliciesCmd {
    /// List the organization's access policies.
    List(ListArgs),
    /// Show one access policy.
    Get {
        /// Access policy id (`apl_…`).
        id: String,
    },
}

/// `listeners …`.
#[derive(Subcommand, Debug, Clone)]
pub enum ListenersCmd {
    /// List listeners.
    List {
        /// Paging.
        #[command(flatten)]
        list: ListArgs,
        /// Only this destination's (repeat for several).
        #[arg(long = "destination", value_name = "ID")]
        destinations: Vec<String>,
        /// Only this instance's (repeat for several).
        #[arg(long = "instance", value_name = "ID")]
        instances: Vec<String>,
    },
    /// Show one listener.
    Get {
        /// Listener id.
        id: String,
    },
    /// Create a listener: event types, or a callback's or a provider's triggers.
    #[command(group(ArgGroup::new("what").required(true).args(["event_types", "callback", "provider"])))]
    Create {
        /// The event destination (`evtd_…`).
        #[arg(long, value_name = "ID")]
        destination: String,
        /// The instance (`ins_…`).
        #[arg(long, value_name = "ID")]
        instance: String,
        /// An event type (repeat for several).
        #[arg(long = "event-type", value_name = "T")]
        event_types: Vec<String>,
        /// A callback whose triggers it listens to.
        #[arg(
            long,
            value_name = "ID",
            conflicts_with = "provider",
            requires = "triggers"
        )]
        callback: Option<String>,
        /// A provider whose triggers it listens to.
        #[arg(long, value_name = "ID", requires = "triggers")]
        provider: Option<String>,
        /// A trigger key (repeat for several).
        #[arg(long = "trigger", value_name = "K")]
        triggers: Vec<String>,
    },
    /// Change a listener's event types or triggers.
    #[command(group(ArgGroup::new("changes").required(true).multiple(true).args(["event_types", "triggers"])))]
    Update {
        /// Listener id.
        id: String,
        /// An event type (repeat for several; replaces the set).
        #[arg(long = "event-type", value_name = "T")]
        event_types: Vec<String>,
        /// A trigger key (repeat for several; replaces the set).
        #[arg(long = "trigger", value_name = "K")]
        triggers: Vec<String>,
    },
    /// Delete a listener.
    Delete {
        /// Listener id.
        id: String,
        /// Do not ask; required when not on a terminal.
        #[arg(long, short = 'y')]
        yes: bool,
    },
}

/// `events …`.
#[derive(Subcommand, Debug, Clone)]
pub enum EventsCmd {
    /// List events.
    List {
        /// Paging.
        #[command(flatten)]
        list: ListArgs,
        /// Only of this type (repeat for several).
        #[arg(long = "event-type", value_name = "T")]
        event_types: Vec<String>,
        /// Only from this callback (repeat for several).
        #[arg(long = "callback", value_name = "ID")]
        callbacks: Vec<String>,
        /// Only from this source (repeat for several).
        #[arg(long = "source", value_name = "S")]
        sources: Vec<String>,
    },
    /// Show one event.
    Get {
        /// Event id (`evnt_…`).
        id: String,
    },
}

/// Where an access token comes from: never a plain flag value (shell history, `ps`).
#[derive(Args, Debug, Clone, Default)]
pub struct TokenArgs {
    /// Read the access token from standard input.
    #[arg(long, conflicts_with = "access_token_env")]
    pub access_token_stdin: bool,
    /// Read the access token from this environment variable.
    #[arg(long, value_name = "VAR")]
    pub access_token_env: Option<String>,
}

/// Optional fields of an import (create and update).
#[derive(Args, Debug, Clone, Default)]
pub struct ImportFields {
    /// Read the OpenID id token from this environment variable.
    #[arg(long, value_name = "VAR")]
    pub id_token_env: Option<String>,
    /// A note.
    #[arg(long, value_name = "T")]
    pub note: Option<String>,
    /// Metadata entry (repeat for several).
    #[arg(long, value_name = "k=v", value_parser = parse_key_value)]
    pub metadata: Vec<(String, String)>,
    /// Expiry: ISO 8601 (`2026-01-31T00:00:00Z`) or relative (`+90d`, `+12h`).
    #[arg(long, value_name = "TIME", value_parser = parse_expires_at)]
    pub expires_at: Option<String>,
    /// OAuth scope.
    #[arg(long, value_name = "S")]
    pub scope: Option<String>,
    /// OAuth token type.
    #[arg(long, value_name = "T")]
    pub token_type: Option<String>,
}

/// `imports create` on a newer generation: the value (a JSON object, a secret: never a flag's
/// value) and the ids it is for.
#[derive(Args, Debug, Clone, Default)]
#[group(id = "auth_import", multiple = true, conflicts_with_all = ["target", "token"])]
pub struct AuthImportArgs {
    /// Read the value (a JSON object such as `{"access_token": …}`) from standard input.
    #[arg(long, conflicts_with = "value_env")]
    pub value_stdin: bool,
    /// Read the value (a JSON object) from this environment variable.
    #[arg(long, value_name = "VAR")]
    pub value_env: Option<String>,
    /// Provider id.
    #[arg(long, value_name = "ID")]
    pub provider: Option<String>,
    /// Provider deployment id.
    #[arg(long, value_name = "ID")]
    pub provider_deployment: Option<String>,
    /// Provider auth config id.
    #[arg(long, value_name = "ID")]
    pub auth_config: Option<String>,
    /// Provider auth method id.
    #[arg(long, value_name = "ID")]
    pub auth_method: Option<String>,
}

impl AuthImportArgs {
    /// Whether any of these flags was given (they belong to the newer generations only).
    pub fn given(&self) -> bool {
        self.value_stdin
            || self.value_env.is_some()
            || self.provider.is_some()
            || self.provider_deployment.is_some()
            || self.auth_config.is_some()
            || self.auth_method.is_some()
    }
}

/// `imports …`.
#[derive(Subcommand, Debug, Clone)]
pub enum ImportsCmd {
    /// List imports.
    List(ListArgs),
    /// Show one import.
    Get {
        /// Import id (`poti_…`).
        id: String,
    },
    /// Import a token for a server deployment or a connection (pulsar: a target and the token
    /// are required); on a newer generation, an auth import: --note and --value-stdin or
    /// --value-env.
    // Not clap requirements: the newer generations take other flags; pulsar's path asks for
    // them before any request.
    #[command(
        group(ArgGroup::new("target").args(["server_deployment", "connection"])),
        group(ArgGroup::new("token").args(["access_token_stdin", "access_token_env"]))
    )]
    Create {
        /// Server deployment id (`svd_…`).
        #[arg(long, value_name = "ID")]
        server_deployment: Option<String>,
        /// OAuth connection id (`poc_…`).
        #[arg(long, value_name = "ID")]
        connection: Option<String>,
        /// The token.
        #[command(flatten)]
        token: TokenArgs,
        /// Other fields.
        #[command(flatten)]
        fields: ImportFields,
        /// An auth import's value and what it is for (newer generations).
        #[command(flatten)]
        auth: AuthImportArgs,
    },
    /// Change an import's fields or token.
    #[command(group(ArgGroup::new("changes").required(true).multiple(true).args([
        "access_token_stdin", "access_token_env", "id_token_env", "note", "metadata",
        "expires_at", "scope", "token_type",
    ])))]
    Update {
        /// Import id (`poti_…`).
        id: String,
        /// A new token.
        #[command(flatten)]
        token: TokenArgs,
        /// Fields to change.
        #[command(flatten)]
        fields: ImportFields,
    },
}

/// `callbacks …`.
#[derive(Subcommand, Debug, Clone)]
pub enum CallbacksCmd {
    /// List callbacks.
    List(ListArgs),
    /// Show one callback.
    Get {
        /// Callback id (`clb_…`).
        id: String,
    },
    /// The events callbacks received (event-destinations; on callback-destinations one
    /// callback's, named by its id).
    Events {
        /// The callback (`cbk_…`; callback-destinations).
        id: Option<String>,
        /// Paging.
        #[command(flatten)]
        list: ListArgs,
        /// Only of this event type (repeat for several; callback-destinations).
        #[arg(long = "type", value_name = "T")]
        types: Vec<String>,
        /// Only this callback's (repeat for several).
        #[arg(long = "callback", value_name = "ID")]
        callbacks: Vec<String>,
        /// Only in this state (repeat for several).
        #[arg(long = "status", value_name = "S")]
        statuses: Vec<String>,
    },
    /// The callbacks' instances (event-destinations only).
    Instances {
        /// Paging.
        #[command(flatten)]
        list: ListArgs,
        /// Only this callback's (repeat for several).
        #[arg(long = "callback", value_name = "ID")]
        callbacks: Vec<String>,
    },
    /// Create a callback: on an integration's provider (event-destinations: `--integration`,
    /// `--integration-provider`) or on a provider deployment (callback-destinations:
    /// `--provider-deployment`, `--name`).
    Create {
        /// The provider deployment (`pde_…`; callback-destinations).
        #[arg(long, value_name = "ID")]
        provider_deployment: Option<String>,
        /// The integration (event-destinations).
        #[arg(long, value_name = "ID")]
        integration: Option<String>,
        /// The integration's provider (event-destinations).
        #[arg(long, value_name = "ID")]
        integration_provider: Option<String>,
        /// Name (required on callback-destinations).
        #[arg(long)]
        name: Option<String>,
        /// Description.
        #[arg(long)]
        description: Option<String>,
        /// A callback destination to deliver to (repeat for several; callback-destinations).
        #[arg(long = "destination", value_name = "ID")]
        destinations: Vec<String>,
        /// A provider trigger, with the event types taken from it (repeat for several;
        /// callback-destinations).
        #[arg(long = "trigger", value_name = "ID[=type,type]")]
        triggers: Vec<String>,
    },
    /// Change a callback; `--destination` replaces the set of destinations (that and
    /// `--no-destinations` on callback-destinations only).
    #[command(group(ArgGroup::new("changes").required(true).multiple(true)
        .args(["name", "description", "destinations", "no_destinations"])))]
    Update {
        /// Callback id (`cbk_…`).
        id: String,
        /// New name.
        #[arg(long)]
        name: Option<String>,
        /// New description.
        #[arg(long)]
        description: Option<String>,
        /// A destination (repeat for several; replaces the set).
        #[arg(
            long = "destination",
            value_name = "ID",
            conflicts_with = "no_destinations"
        )]
        destinations: Vec<String>,
        /// Detach every destination.
        #[arg(long)]
        no_destinations: bool,
    },
    /// Delete a callback (archives it on callback-destinations).
    Delete {
        /// Callback id (`cbk_…`).
        id: String,
        /// Do not ask; required when not on a terminal.
        #[arg(long, short = 'y')]
        yes: bool,
    },
}

/// `destinations …`.
#[derive(Subcommand, Debug, Clone)]
pub enum DestinationsCmd {
    /// List active destinations.
    List {
        /// Paging.
        #[command(flatten)]
        list: ListArgs,
        /// Only those receiving this callback (repeat for several).
        #[arg(long = "callback", value_name = "ID")]
        callbacks: Vec<String>,
    },
    /// Show one destination (deleted ones too).
    Get {
        /// Destination id (`cld_…`).
        id: String,
    },
    /// Delivery health over a window: succeeded, failed, retrying, retried (needed more than one
    /// attempt), success rates and latency p50/p95/p99.
    Stats {
        /// Destination id (`cld_…`).
        id: String,
        /// How far back from now: a number and s, m, h or d.
        #[arg(long, value_name = "W", default_value = "24h", value_parser = crate::api::health::parse_window)]
        window: chrono::TimeDelta,
    },
    /// Rename or describe a destination (on pulsar url and callbacks cannot change; on
    /// event-destinations --url moves it).
    #[command(group(ArgGroup::new("fields").required(true).multiple(true)
        .args(["name", "description", "clear_description", "url"])))]
    Update {
        /// Destination id (`cld_…`).
        id: String,
        /// New name.
        #[arg(long)]
        name: Option<String>,
        /// New description.
        #[arg(long, conflicts_with = "clear_description")]
        description: Option<String>,
        /// Remove the description.
        #[arg(long)]
        clear_description: bool,
        /// New URL deliveries are posted to (callback-destinations and event-destinations).
        #[arg(long, value_name = "U")]
        url: Option<String>,
    },
    /// Create a webhook destination (on pulsar: --all-callbacks or --callback is required; on
    /// event-destinations: the retry policy instead, the signing secret shown once).
    // Not a clap requirement: event-destinations takes none; pulsar's path asks for it before
    // any request.
    #[command(group(ArgGroup::new("selection").args(["all_callbacks", "callbacks"])))]
    Create {
        /// Name.
        #[arg(long)]
        name: String,
        /// Absolute http(s) URL deliveries are posted to.
        #[arg(long, value_name = "U")]
        url: String,
        /// Description.
        #[arg(long)]
        description: Option<String>,
        /// Receive every callback.
        #[arg(long)]
        all_callbacks: bool,
        /// Receive this callback (repeat for several).
        #[arg(long = "callback", value_name = "ID")]
        callbacks: Vec<String>,
        /// The retry policy (event-destinations only).
        #[command(flatten)]
        retry: RetryArgs,
    },
    /// Delete a destination (it stops receiving deliveries).
    Delete {
        /// Destination id (`cld_…`).
        id: String,
        /// Do not ask; required when not on a terminal.
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Send a test event and wait for its delivery's first attempt (event-destinations only;
    /// exit 0 once it finished, 5 at the timeout).
    Ping {
        /// Event destination id (`evtd_…`).
        id: String,
        /// How long to wait for the attempt.
        #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_timeout)]
        timeout: std::time::Duration,
    },
    /// Give the destination a new signing secret, printed once; the old one stops at once
    /// (event-destinations only).
    RotateSecret {
        /// Event destination id (`evtd_…`).
        id: String,
        /// Do not ask; required when not on a terminal.
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Archive the destination: its pending and retrying deliveries are cancelled
    /// (event-destinations only).
    Archive {
        /// Event destination id (`evtd_…`).
        id: String,
        /// Do not ask; required when not on a terminal.
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// The destination's operations (`resource::destinations::OPS`), run as typed.
    #[command(flatten)]
    Op(DestinationOp),
}

/// `destinations create`'s retry policy on event-destinations.
#[derive(Args, Debug, Clone, Default)]
pub struct RetryArgs {
    /// How retries are spaced: exponential, linear or fixed (default: exponential when another
    /// retry flag is given, else the platform's).
    #[arg(long, value_name = "STRATEGY", value_parser = ["exponential", "linear", "fixed"],
        conflicts_with_all = ["all_callbacks", "callbacks"])]
    pub retry: Option<String>,
    /// Attempts at most (1 to 25).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=25),
        conflicts_with_all = ["all_callbacks", "callbacks"])]
    pub max_attempts: Option<u32>,
    /// The first retry's delay (`10s`, `2m`).
    #[arg(long, value_name = "DURATION", value_parser = parse_delay,
        conflicts_with_all = ["all_callbacks", "callbacks"])]
    pub base_delay: Option<std::time::Duration>,
    /// The longest delay between retries (`3h`).
    #[arg(long, value_name = "DURATION", value_parser = parse_delay,
        conflicts_with_all = ["all_callbacks", "callbacks"])]
    pub max_delay: Option<std::time::Duration>,
}

impl RetryArgs {
    /// Whether any retry flag was given (they belong to event-destinations only).
    pub fn given(&self) -> bool {
        self.retry.is_some()
            || self.max_attempts.is_some()
            || self.base_delay.is_some()
            || self.max_delay.is_some()
    }
}

/// A retry delay: `10s`, `5m`, `3h` (whole seconds, at least one).
fn parse_delay(s: &str) -> Result<std::time::Duration, String> {
    crate::api::model::parse_retry_delay(s).map(std::time::Duration::from_secs)
}

/// `30s`, `2m`, `500ms` (at most an hour).
fn parse_timeout(s: &str) -> Result<std::time::Duration, String> {
    parse_interval(s)
}

/// A verb of one of the destination's operations: its arguments, mapped onto the operation.
#[derive(Subcommand, Debug, Clone)]
pub enum DestinationOp {
    /// Copy a destination: the same URL, description and callbacks, a new signing secret.
    Duplicate {
        /// Destination id (`cld_…`).
        id: String,
        /// The copy's name (default: `<name> (copy)`).
        #[arg(long)]
        name: Option<String>,
        /// Do not ask; required when not on a terminal.
        #[arg(long, short = 'y')]
        yes: bool,
    },
}

impl DestinationOp {
    /// The operation with its subject and inputs.
    pub fn call(self) -> OpCall {
        match self {
            DestinationOp::Duplicate { id, name, yes } => OpCall {
                op: crate::resource::destinations::DUPLICATE.id(),
                id,
                args: name.map(|n| ("name".to_string(), n)).into_iter().collect(),
                yes,
            },
        }
    }
}

/// A resource operation as the command line gives it: the operation, the subject's id, the
/// named inputs, and whether `--yes` answers its question.
#[derive(Debug, Clone)]
pub struct OpCall {
    /// The operation (`resource::ops`).
    pub op: crate::resource::ops::OpId,
    /// The subject's id.
    pub id: String,
    /// Named inputs (`name` → the copy's name).
    pub args: crate::resource::ops::OpArgs,
    /// Do not ask.
    pub yes: bool,
}

/// `notifications …`.
#[derive(Subcommand, Debug, Clone)]
pub enum NotificationsCmd {
    /// List notifications.
    List {
        /// Paging.
        #[command(flatten)]
        list: ListArgs,
        /// Only for this callback (repeat for several).
        #[arg(long = "callback", value_name = "ID")]
        callbacks: Vec<String>,
        /// Only for this event (repeat for several).
        #[arg(long = "event", value_name = "ID")]
        events: Vec<String>,
        /// Only to this destination (repeat for several).
        #[arg(long = "destination", value_name = "ID")]
        destinations: Vec<String>,
        /// `--status`, `--event-type`, `--count`: looked for by the client.
        #[command(flatten)]
        scan: super::scan::ScanArgs,
        /// Print new notifications as they arrive until interrupted.
        #[command(flatten)]
        watch: WatchArgs,
    },
    /// Show one notification with its attempts.
    Get {
        /// Notification id (`cbn_…`).
        id: String,
        /// The notification's callback (callback-destinations: without it the callbacks are
        /// looked through).
        #[arg(long, value_name = "ID")]
        callback: Option<String>,
    },
    /// Send a recorded delivery again to a receiver, signed afresh (exit 0 on 2xx, 3 on another
    /// answer, 4 on none).
    Replay(super::replay::ReplayArgs),
    /// Send every selected notification's latest recorded request again, signed afresh, to its
    /// destination or `--to` a receiver; the count first, a journal so a rerun sends only the
    /// rest (exit 0 all 2xx, 3 some not, 4 some unanswered, 130 stopped).
    Recover(super::recover::RecoverArgs),
    /// Wait until the selection holds `--count` notifications in the `--for status=S` state
    /// (exit 0, printing them), one ends failed (exit 3), or `--timeout` (exit 5).
    Wait(super::wait::WaitArgs),
    /// Find notifications whose latest recorded attempt makes a jq expression `true` (the
    /// body as `.`, `$headers`, `$response`), newest first, printed as found.
    Search(super::search::SearchArgs),
    /// Compare two answers of a notification: two attempts, or an attempt and a forwarded answer.
    Diff(super::diff::DiffArgs),
    /// Forward new notifications to a receiver on this machine as they happen, signed afresh;
    /// catch up on what arrived while away (`--resume`).
    Forward(super::forward::ForwardArgs),
    /// Ask the platform to deliver a finished delivery again (event-destinations only).
    Retry {
        /// Delivery id (`evdi_…`).
        id: String,
    },
    /// Keep a delivery as a named sample on this machine (headers masked, body as recorded),
    /// to send again with `samples send` after the platform has let it go.
    Keep(super::samples::KeepArgs),
    /// Write the selected deliveries with their attempts, callbacks and destinations (fresh
    /// secrets, no credentials) to one NDJSON bundle.
    Export(super::export::ExportArgs),
}

/// `members …`.
#[derive(Subcommand, Debug, Clone)]
pub enum MembersCmd {
    /// List members; with `--team`, only that team's (every page is read).
    List {
        /// Paging.
        #[command(flatten)]
        list: ListArgs,
        /// Only the members of this team (id or slug).
        #[arg(long, value_name = "TEAM", conflicts_with_all = ["limit", "after", "before", "cursor"])]
        team: Option<String>,
    },
}

/// `projects | team-roles …`.
#[derive(Subcommand, Debug, Clone)]
pub enum LookupCmd {
    /// List them.
    List(ListArgs),
}

/// `--watch [--interval 2s]`.
#[derive(Args, Debug, Clone, Default)]
pub struct WatchArgs {
    /// Keep running and print each new notification as it arrives (a table row on a terminal,
    /// an NDJSON line when piped) until interrupted.
    #[arg(long, short = 'w', conflicts_with_all = ["limit", "after", "before", "cursor", "all", "order"])]
    pub watch: bool,
    /// How often to ask for new ones under --watch: `500ms`, `2s`, `1m`.
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = parse_interval, requires = "watch")]
    pub interval: std::time::Duration,
}

impl WatchArgs {
    /// The polling interval when watching.
    pub fn interval(&self) -> Option<std::time::Duration> {
        self.watch.then_some(self.interval)
    }
}

/// `500ms`, `2s`, `1m` (at least 100 ms, at most an hour).
pub fn parse_interval(s: &str) -> Result<std::time::Duration, String> {
    use std::time::Duration;
    let (n, unit) = s
        .find(|c: char| !c.is_ascii_digit())
        .map_or((s, ""), |i| s.split_at(i));
    let n: u64 = n
        .parse()
        .map_err(|_| format!("{s:?}: a number and a unit, e.g. 500ms, 2s or 1m"))?;
    let d = match unit {
        "ms" => Duration::from_millis(n),
        "s" | "" => Duration::from_secs(n),
        "m" => Duration::from_secs(n.saturating_mul(60)),
        _ => return Err(format!("{s:?}: the unit is ms, s or m")),
    };
    if d < Duration::from_millis(100) || d > Duration::from_secs(3600) {
        return Err(format!("{s:?}: between 100ms and 60m"));
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::parse_interval;
    use std::time::Duration;

    #[test]
    fn intervals_take_ms_s_and_m_within_bounds() {
        assert_eq!(parse_interval("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_interval("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_interval("3"), Ok(Duration::from_secs(3)));
        assert_eq!(parse_interval("1m"), Ok(Duration::from_secs(60)));
        for bad in ["", "s", "10ms", "2h", "-1s", "61m", "1.5s"] {
            assert!(parse_interval(bad).is_err(), "{bad}");
        }
    }
}
