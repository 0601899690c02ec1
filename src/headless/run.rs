//! Runs one parsed command: builds the request, sends it, prints the reply.
use std::time::Duration;

use serde_json::Value;

use super::HeadlessError;
use super::args::*;
use super::columns::{self, Tabular};
use super::input::{confirm, secret_from_env, secret_from_stdin};
use super::lookups::{self, Change, Known};
use super::output::{self, Output, emit};
use crate::api::client::decode;
use crate::api::model::*;
use crate::api::{ApiRequest, Client, Error, ListQuery, NotificationFilter, Order, Page};
use crate::resource::imports::{ImportDetails, ImportTarget};

/// Runs a headless command against the API and prints the result on standard output.
pub async fn run(
    client: &Client,
    out: &Output,
    cmd: Resource,
    read_only: bool,
    profile: &str,
) -> Result<(), HeadlessError> {
    if read_only && cmd.is_write() {
        return Err(HeadlessError::Usage(
            "refused: read-only mode (--read-only or the profile's read_only)".into(),
        ));
    }
    let p = Printer { client, out };
    let refused = super::current::not_on_pulsar(&cmd);
    match cmd {
        Resource::Teams(
            c @ (TeamsCmd::List(_)
            | TeamsCmd::Get { .. }
            | TeamsCmd::Create { .. }
            | TeamsCmd::Update { .. }
            | TeamsCmd::SetProject { .. }
            | TeamsCmd::RemoveProject { .. }
            | TeamsCmd::AddMember { .. }
            | TeamsCmd::RemoveMember { .. }),
        ) => teams(&p, c).await,
        Resource::Imports(c) => imports(&p, c).await,
        // Pulsar's callbacks are read only: their list and get are the registry's.
        Resource::Callbacks(CallbacksCmd::List(l)) => {
            p.listed::<crate::resource::callbacks::Callbacks>(&ListGetCmd::List(l))
                .await
        }
        Resource::Callbacks(CallbacksCmd::Get { id }) => {
            p.listed::<crate::resource::callbacks::Callbacks>(&ListGetCmd::Get { id })
                .await
        }
        Resource::Destinations(
            c @ (DestinationsCmd::List { .. }
            | DestinationsCmd::Get { .. }
            | DestinationsCmd::Stats { .. }
            | DestinationsCmd::Update { .. }
            | DestinationsCmd::Create { .. }
            | DestinationsCmd::Delete { .. }
            | DestinationsCmd::Op(_)),
        ) => destinations(&p, c).await,
        Resource::Notifications(NotificationsCmd::List {
            list,
            callbacks,
            events,
            destinations,
            scan,
            watch,
        }) => {
            let f = NotificationFilter {
                callback_ids: callbacks,
                event_ids: events,
                destination_ids: destinations,
                ..NotificationFilter::default()
            };
            // Only deliveries have these statuses: refused as pulsar's parser always did.
            super::selection::pulsar_statuses(&scan.statuses).map_err(HeadlessError::Usage)?;
            if let Some(every) = watch.interval() {
                return p.watch(&f, every).await;
            }
            if scan.wanted() {
                return super::scan::run(client, out, list.query(), list.all, &f, &scan).await;
            }
            p.list::<Notification>(&list, |q| ApiRequest::list_notifications(q, &f))
                .await
        }
        Resource::Notifications(NotificationsCmd::Replay(a)) => {
            super::replay::run(client, out, a, read_only).await
        }
        Resource::Notifications(NotificationsCmd::Recover(a)) => {
            super::recover::run(client, out.format, a, read_only, profile).await
        }
        Resource::Notifications(NotificationsCmd::Wait(a)) => {
            super::wait::run(client, out.format, a).await
        }
        Resource::Notifications(NotificationsCmd::Search(a)) => {
            super::search::run(client, out, a).await
        }
        Resource::Notifications(NotificationsCmd::Diff(a)) => {
            super::diff::run(client, out.format, a, &[]).await
        }
        Resource::Notifications(NotificationsCmd::Forward(a)) => {
            super::forward::run(client, out.format, a, &super::forward::Context::default()).await
        }
        Resource::Notifications(NotificationsCmd::Export(a)) => {
            super::export::run(client, out, a).await
        }
        Resource::Notifications(NotificationsCmd::Keep(_)) | Resource::Samples(_) => Err(
            HeadlessError::Usage("samples are kept per profile: run through the CLI".into()),
        ),
        Resource::Notifications(NotificationsCmd::Get { id, .. }) => {
            p.one::<Notification>(&ApiRequest::get_notification(&id))
                .await
        }
        Resource::Members(MembersCmd::List { list, team: None }) => {
            p.list::<Member>(&list, ApiRequest::list_members).await
        }
        Resource::Members(MembersCmd::List {
            list,
            team: Some(team),
        }) => lookups::list_team_members(client, out, &team, list.order).await,
        Resource::Projects(LookupCmd::List(l)) => {
            p.list::<Project>(&l, ApiRequest::list_projects).await
        }
        Resource::TeamRoles(LookupCmd::List(l)) => {
            p.list::<TeamRole>(&l, ApiRequest::list_team_roles).await
        }
        // Verbs of the newer generations: `current::route` refuses them on pulsar first.
        Resource::Policies(_)
        | Resource::Listeners(_)
        | Resource::Events(_)
        | Resource::Teams(TeamsCmd::AssignPolicy { .. } | TeamsCmd::RemovePolicy { .. })
        | Resource::Callbacks(
            CallbacksCmd::Events { .. }
            | CallbacksCmd::Instances { .. }
            | CallbacksCmd::Create { .. }
            | CallbacksCmd::Update { .. }
            | CallbacksCmd::Delete { .. },
        )
        | Resource::Destinations(
            DestinationsCmd::Ping { .. }
            | DestinationsCmd::RotateSecret { .. }
            | DestinationsCmd::Archive { .. },
        )
        | Resource::Notifications(NotificationsCmd::Retry { .. }) => Err(refused),
        Resource::Listed(l) => {
            let (kind, c) = l.parts();
            crate::resource::with_kind!(kind, R => p.listed::<R>(c).await)
        }
    }
}

async fn teams(p: &Printer<'_>, c: TeamsCmd) -> Result<(), HeadlessError> {
    let req = match c {
        TeamsCmd::List(l) => return p.list::<Team>(&l, ApiRequest::list_teams).await,
        TeamsCmd::Get { id } => ApiRequest::get_team(&id),
        TeamsCmd::Create { name, description } => {
            // A new team has no members: no need to look.
            let req = (crate::resource::teams::CREATE.request)(name, description);
            return show_team(p, &req, false).await;
        }
        TeamsCmd::Update {
            id,
            name,
            description,
        } => (crate::resource::teams::UPDATE.request)(&id, name, description)
            .ok_or_else(nothing_changes)?,
        TeamsCmd::SetProject { id, project, roles } => {
            let req = (crate::resource::teams::SET_PROJECT.request)(&id, project, roles)
                .ok_or_else(|| {
                    HeadlessError::Usage("give the project's roles with --role".into())
                })?;
            return match show_team(p, &req, true).await {
                Err(HeadlessError::Api(Error::Api(e))) if names_a_role(&e) => {
                    Err(with_valid_roles(p.client, *e).await)
                }
                other => other,
            };
        }
        TeamsCmd::RemoveProject { id, project } => {
            (crate::resource::teams::REMOVE_PROJECT.request)(&id, &project)
        }
        TeamsCmd::AddMember { id, member } => {
            return member_change(p, &id, &member, Change::Add).await;
        }
        TeamsCmd::RemoveMember { id, member } => {
            return member_change(p, &id, &member, Change::Remove).await;
        }
        c @ (TeamsCmd::AssignPolicy { .. } | TeamsCmd::RemovePolicy { .. }) => {
            return Err(super::current::not_on_pulsar(&Resource::Teams(c)));
        }
    };
    show_team(p, &req, true).await
}

/// Whether a 404 is about a team role (the server's entity is `team-roles` here, may differ).
fn names_a_role(e: &crate::api::ApiError) -> bool {
    e.status == 404 && e.entity.as_deref().is_some_and(|x| x.contains("role"))
}

/// The role error with the valid roles as its hint, so a mistyped name needs no second command.
/// When the roles cannot be listed, the server's error stands as it was.
async fn with_valid_roles(client: &Client, mut e: crate::api::ApiError) -> HeadlessError {
    if let Ok(roles) = crate::api::list_all::<TeamRole>(client, ApiRequest::list_team_roles).await {
        const SHOWN: usize = 20;
        let mut valid: Vec<String> = roles
            .iter()
            .take(SHOWN)
            .map(|r| format!("{} ({})", r.slug, r.id))
            .collect();
        if roles.len() > SHOWN {
            valid.push(format!("{} more: `team-roles list`", roles.len() - SHOWN));
        }
        e.hint = Some(if valid.is_empty() {
            "This organization has no team roles.".into()
        } else {
            format!("Valid roles (slug or id): {}.", valid.join(", "))
        });
    }
    HeadlessError::Api(Error::Api(Box::new(e)))
}

/// One team: the API's reply as JSON, or a detail table with its members.
async fn show_team(p: &Printer<'_>, req: &ApiRequest, members: bool) -> Result<(), HeadlessError> {
    if p.out.table() && p.out.fields.is_none() {
        lookups::show_team(p.client, req, members).await
    } else {
        p.one::<Team>(req).await
    }
}

/// `teams add-member | remove-member`: the member may be named by id, email or name.
async fn member_change(
    p: &Printer<'_>,
    team: &str,
    member: &str,
    change: Change,
) -> Result<(), HeadlessError> {
    let picked = lookups::pick_member(p.client, team, member, change).await?;
    let req = match change {
        Change::Add => (crate::resource::teams::ADD_MEMBER.request)(team, &picked.actor_id),
        Change::Remove => (crate::resource::teams::REMOVE_MEMBER.request)(team, &picked.actor_id),
    };
    show_team(p, &req, true).await?;
    if p.out.table()
        && let (Some(who), Some(team)) = (picked.label, picked.team)
    {
        let done = if change == Change::Add {
            "added to"
        } else {
            "removed from"
        };
        eprintln!("{who} {done} team {team}");
    }
    Ok(())
}

impl TokenArgs {
    /// The access token from standard input or the named variable, if either was asked for.
    fn read(&self) -> Result<Option<String>, HeadlessError> {
        const WHAT: &str = "access token";
        if self.access_token_stdin {
            return secret_from_stdin(WHAT).map(Some);
        }
        self.access_token_env
            .as_deref()
            .map(|v| secret_from_env(v, WHAT))
            .transpose()
    }
}

impl ImportFields {
    fn metadata(&self) -> Option<serde_json::Map<String, Value>> {
        (!self.metadata.is_empty()).then(|| {
            self.metadata
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect()
        })
    }

    fn id_token(&self) -> Result<Option<String>, HeadlessError> {
        self.id_token_env
            .as_deref()
            .map(|v| secret_from_env(v, "id token"))
            .transpose()
    }

    /// The flags as the resource's typed inputs (the id token read from its variable).
    fn details(self) -> Result<ImportDetails, HeadlessError> {
        Ok(ImportDetails {
            id_token: self.id_token()?,
            metadata: self.metadata(),
            note: self.note,
            expires_at: self.expires_at,
            scope: self.scope,
            token_type: self.token_type,
        })
    }
}

/// A write that would change nothing (clap's groups ask for a change; said should one be empty).
fn nothing_changes() -> HeadlessError {
    HeadlessError::Usage("nothing to change: give a field to change".into())
}

/// Pulsar's `imports create` needs a target and the token and takes no auth import's flags:
/// said before any request, as clap said it when they were clap's requirements.
fn pulsar_import_flags(
    target: bool,
    token: &TokenArgs,
    auth: &super::args::AuthImportArgs,
) -> Result<(), HeadlessError> {
    if auth.given() {
        return Err(HeadlessError::Usage(
            "--value-stdin, --value-env, --provider, --provider-deployment, --auth-config and --auth-method are for a newer generation's auth imports; this deployment serves pulsar.".into(),
        ));
    }
    let mut missing = Vec::new();
    if !target {
        missing.push("<--server-deployment <ID>|--connection <ID>>");
    }
    if !token.access_token_stdin && token.access_token_env.is_none() {
        missing.push("<--access-token-stdin|--access-token-env <VAR>>");
    }
    if missing.is_empty() {
        return Ok(());
    }
    Err(HeadlessError::Usage(format!(
        "the following required arguments were not provided: {}",
        missing.join(" ")
    )))
}

async fn imports(p: &Printer<'_>, c: ImportsCmd) -> Result<(), HeadlessError> {
    let req = match c {
        ImportsCmd::List(l) => {
            return p
                .list::<ProviderOauthImport>(&l, ApiRequest::list_imports)
                .await;
        }
        ImportsCmd::Get { id } => ApiRequest::get_import(&id),
        ImportsCmd::Create {
            server_deployment,
            connection,
            token,
            fields,
            auth,
        } => {
            pulsar_import_flags(
                server_deployment.is_some() || connection.is_some(),
                &token,
                &auth,
            )?;
            let access_token = token.read()?.ok_or_else(|| {
                HeadlessError::Usage(
                    "give the token with --access-token-stdin or --access-token-env".into(),
                )
            })?;
            let target = match (server_deployment, connection) {
                (Some(id), _) => ImportTarget::Deployment(id),
                (None, Some(id)) => ImportTarget::Connection(id),
                // `pulsar_import_flags` asked for one.
                (None, None) => {
                    return Err(HeadlessError::Usage(
                        "give --server-deployment or --connection".into(),
                    ));
                }
            };
            (crate::resource::imports::CREATE.request)(target, access_token, fields.details()?)
        }
        ImportsCmd::Update { id, token, fields } => {
            (crate::resource::imports::UPDATE.request)(&id, token.read()?, fields.details()?)
                .ok_or_else(nothing_changes)?
        }
    };
    p.one::<ProviderOauthImport>(&req).await
}

/// Pulsar's `destinations create` needs its callbacks named and takes no retry policy: said
/// before any request, as clap said it when it was clap's requirement.
///
/// # Errors
/// The usage error.
pub fn pulsar_create_selection(
    all_callbacks: bool,
    callbacks: &[String],
    retry: &super::args::RetryArgs,
) -> Result<(), HeadlessError> {
    if retry.given() {
        return Err(HeadlessError::Usage(
            "--retry, --max-attempts, --base-delay and --max-delay are for event-destinations; this deployment serves pulsar.".into(),
        ));
    }
    if !all_callbacks && callbacks.is_empty() {
        return Err(HeadlessError::Usage(
            "the following required arguments were not provided: <--all-callbacks|--callback <ID>>"
                .into(),
        ));
    }
    Ok(())
}

async fn destinations(p: &Printer<'_>, c: DestinationsCmd) -> Result<(), HeadlessError> {
    let req = match c {
        DestinationsCmd::List { list, callbacks } => {
            return p
                .list::<Destination>(&list, |q| ApiRequest::list_destinations(q, &callbacks))
                .await;
        }
        DestinationsCmd::Get { id } => {
            return destination(p, &ApiRequest::get_destination(&id), Known::Check).await;
        }
        DestinationsCmd::Stats { id, window } => {
            return lookups::show_stats(p.client, p.out, &id, window).await;
        }
        DestinationsCmd::Update {
            id,
            name,
            description,
            clear_description,
            url,
        } => {
            if url.is_some() {
                return Err(HeadlessError::Usage(
                    "destinations update --url: pulsar does not change a destination's URL; create another destination.".into(),
                ));
            }
            let description = if clear_description {
                Some(None)
            } else {
                description.map(Some)
            };
            (crate::resource::destinations::UPDATE.request)(&id, name, description)
                .ok_or_else(nothing_changes)?
        }
        DestinationsCmd::Create {
            name,
            url,
            description,
            all_callbacks,
            callbacks,
            retry,
        } => {
            pulsar_create_selection(all_callbacks, &callbacks, &retry)?;
            let callbacks = if all_callbacks {
                CallbacksInput::all()
            } else {
                CallbacksInput::selected(callbacks)
            };
            (crate::resource::destinations::CREATE.request)(name, description, url, callbacks)
        }
        DestinationsCmd::Op(op) => return run_op(p, op.call()).await,
        c @ (DestinationsCmd::Ping { .. }
        | DestinationsCmd::RotateSecret { .. }
        | DestinationsCmd::Archive { .. }) => {
            return Err(super::current::not_on_pulsar(&Resource::Destinations(c)));
        }
        DestinationsCmd::Delete { id, yes } => {
            if !yes && !confirm(&format!("Delete destination {}?", output::clean(&id)))? {
                return Err(HeadlessError::Cancelled);
            }
            return destination(
                p,
                &(crate::resource::destinations::DELETE.request)(&id),
                Known::Active(false),
            )
            .await;
        }
    };
    // A create or an update succeeds only on an active destination.
    destination(p, &req, Known::Active(true)).await
}

/// A resource's operation (`resource::ops`): its subject fetched, its question asked on a
/// terminal (elsewhere `--yes` is needed: exit 2), its request sent, and the item it answers
/// printed as that resource's writes print it.
async fn run_op(p: &Printer<'_>, call: OpCall) -> Result<(), HeadlessError> {
    use crate::resource::{AnyItem, Kind, Resource, with_kind};
    use std::io::IsTerminal;
    let Some(op) = call.op.op() else {
        return Err(HeadlessError::Usage(format!(
            "no operation {}",
            call.op.verb
        )));
    };
    let raw = p.client.send(&op.resource.get_request(&call.id)).await?;
    let value: Value = decode(raw.status, &raw.body)?;
    let item = AnyItem::decode(op.resource, &value).map_err(|e| Error::Decode {
        status: raw.status,
        detail: e.to_string(),
    })?;
    if !call.yes {
        if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
            return Err(HeadlessError::Usage(format!(
                "refusing to {} without --yes when not on a terminal",
                op.verb
            )));
        }
        if !confirm(&output::clean(&(op.question)(&item)))? {
            return Err(HeadlessError::Cancelled);
        }
    }
    let req = (op.request)(&item, &call.args).map_err(HeadlessError::Usage)?;
    match op.resource {
        // As `destinations create` prints it: a write succeeds only on an active destination.
        Kind::Destinations => destination(p, &req, Known::Active(true)).await,
        kind => with_kind!(kind, R => p.one::<<R as Resource>::Item>(&req).await),
    }
}

/// One destination: the API's reply as JSON, or a detail table that says whether it is deleted.
async fn destination(p: &Printer<'_>, req: &ApiRequest, known: Known) -> Result<(), HeadlessError> {
    if p.out.table() && p.out.fields.is_none() {
        lookups::show_destination(p.client, req, known).await
    } else {
        p.one::<Destination>(req).await
    }
}

/// Sends requests and prints replies in the chosen format.
struct Printer<'a> {
    client: &'a Client,
    out: &'a Output,
}

impl Printer<'_> {
    /// A single resource: the raw JSON, or a detail view.
    async fn one<T: Tabular>(&self, req: &ApiRequest) -> Result<(), HeadlessError> {
        let raw = self.client.send(req).await?;
        if !self.out.table() {
            // Printed unchanged, but only if it is JSON at all.
            decode::<Value>(raw.status, &raw.body)?;
            return self.out.document(&raw.body);
        }
        if let Some(fields) = &self.out.fields {
            let item: Value = decode(raw.status, &raw.body)?;
            return self.out.field_detail(fields, &item);
        }
        let item: T = decode(raw.status, &raw.body)?;
        emit(|out| columns::write_detail(out, &item))
    }

    /// `list` or `get` of a resource the registry runs: its requests, its columns and its
    /// detail are its module's (`R`), printed as every other list and item.
    async fn listed<R: crate::resource::Resource>(
        &self,
        c: &ListGetCmd,
    ) -> Result<(), HeadlessError> {
        match c {
            ListGetCmd::List(a) => {
                let f = NotificationFilter::default();
                self.list_named::<R::Item>(a, |q| R::list(q, &f), R::NOUN)
                    .await
            }
            ListGetCmd::Get { id } => self.one::<R::Item>(&R::get(id)).await,
        }
    }

    /// A list: one page (the envelope as received; its items under `-o ndjson`), or with
    /// `--all` every item (under `-o ndjson` each page's items as soon as the page arrives).
    async fn list<T: Tabular>(
        &self,
        args: &ListArgs,
        build: impl Fn(&ListQuery) -> ApiRequest,
    ) -> Result<(), HeadlessError> {
        let noun = noun(&build(&args.query()));
        self.list_named::<T>(args, build, noun).await
    }

    /// [`Self::list`], its empty table saying `(no <noun>)`.
    async fn list_named<T: Tabular>(
        &self,
        args: &ListArgs,
        build: impl Fn(&ListQuery) -> ApiRequest,
        noun: &str,
    ) -> Result<(), HeadlessError> {
        let ndjson = self.out.format == output::OutputFormat::Ndjson;
        if args.all {
            let mut items = Vec::new();
            fetch_all(self.client, args.query(), build, |page| {
                if ndjson {
                    self.out.items(&page)
                } else {
                    items.extend(page);
                    Ok(())
                }
            })
            .await?;
            if ndjson {
                return Ok(());
            }
            return if self.out.table() {
                self.table::<T>(items, noun).await
            } else {
                self.out.items(&items)
            };
        }
        let raw = self.client.send(&build(&args.query())).await?;
        if !self.out.table() {
            let page = decode::<Page<Value>>(raw.status, &raw.body)?;
            return if ndjson {
                self.out.items(&page.items)
            } else {
                self.out.document(&raw.body)
            };
        }
        let page: Page<Value> = decode(raw.status, &raw.body)?;
        let more = page.pagination.has_more_after;
        self.table::<T>(page.items, noun).await?;
        if more && let Some(last) = last_id(&raw.body) {
            eprintln!("(more: --after {} or --all)", output::clean(&last));
        }
        Ok(())
    }

    /// Items as a table: the resource's columns (names looked up where the console shows
    /// names), or the `--fields` paths; an empty one says so under its header.
    async fn table<T: Tabular>(&self, items: Vec<Value>, noun: &str) -> Result<(), HeadlessError> {
        if let Some(fields) = &self.out.fields {
            return self.out.field_table(fields, &items);
        }
        let typed = items
            .into_iter()
            .map(|v| serde_json::from_value::<T>(v).map_err(decode_error))
            .collect::<Result<Vec<T>, Error>>()?;
        let mut typed = typed;
        labelled(&mut typed, self.client).await;
        emit(|out| {
            columns::write_table(out, &typed)?;
            if typed.is_empty() {
                writeln!(out, "(no {noun})")?;
            }
            Ok(())
        })
    }

    /// `notifications list --watch`: the notifications created from now on, oldest first, as
    /// they arrive (asking for those `after` the newest seen, in ascending order, every
    /// `every`), until interrupted. A table row each on a terminal, an NDJSON line piped.
    async fn watch(&self, f: &NotificationFilter, every: Duration) -> Result<(), HeadlessError> {
        let newest = ListQuery {
            limit: Some(1),
            order: Some(Order::Desc),
            ..ListQuery::default()
        };
        let raw = self
            .client
            .send(&ApiRequest::list_notifications(&newest, f))
            .await?;
        let page: Page<Value> = decode(raw.status, &raw.body)?;
        let mut after = page.items.first().and_then(item_id);
        // Said once the starting point is known: what arrives from now on is printed.
        eprintln!(
            "watching for new notifications every {} (Ctrl-C to stop)",
            humane(every)
        );
        // A stream is never one JSON document: JSON output becomes a line per notification.
        let mut lines = self.out.clone();
        if lines.format == output::OutputFormat::Json {
            lines.format = output::OutputFormat::Ndjson;
        }
        let mut header = true;
        let mut retry: Option<Duration> = None;
        loop {
            let q = ListQuery {
                limit: Some(100),
                after: after.clone(),
                order: Some(Order::Asc),
                ..ListQuery::default()
            };
            let page = match self
                .client
                .send(&ApiRequest::list_notifications(&q, f))
                .await
            {
                Ok(raw) => decode::<Page<Value>>(raw.status, &raw.body),
                Err(e) => Err(e),
            };
            let page = match page {
                Ok(page) => page,
                // The service restarting (refused, reset, 5xx): wait, growing, and ask again.
                Err(e) if passing(&e) => {
                    let wait = retry.map_or(RETRY_FIRST, |d| (d * 2).min(RETRY_MAX));
                    retry = Some(wait);
                    eprintln!(
                        "reconnecting: {}; next try in {}",
                        output::clean(&e.to_string()),
                        humane(wait)
                    );
                    tokio::time::sleep(wait).await;
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            if retry.take().is_some() {
                eprintln!("reconnected: watching again");
            }
            let more = page.pagination.has_more_after;
            let last = page.items.last().and_then(item_id);
            // Straight on only for a page that moved the cursor and says more: an empty page
            // that says "more", or one ending where the last did, waits like any other.
            let moved = last.is_some() && last != after;
            if let Some(last) = last {
                after = Some(last);
                if self.out.table() && self.out.fields.is_none() {
                    let typed = page
                        .items
                        .into_iter()
                        .map(|v| serde_json::from_value::<Notification>(v).map_err(decode_error))
                        .collect::<Result<Vec<_>, Error>>()?;
                    emit(|out| columns::write_batch(out, &typed, header))?;
                    header = false;
                } else if self.out.table() {
                    self.table::<Notification>(page.items, "notifications")
                        .await?;
                } else {
                    lines.items(&page.items)?;
                }
            }
            if !(more && moved) {
                tokio::time::sleep(every).await;
            }
        }
    }
}

/// The first pause of `--watch` after a failed poll; it doubles up to [`RETRY_MAX`].
const RETRY_FIRST: Duration = Duration::from_millis(500);
/// The longest pause of `--watch` between polls that fail.
const RETRY_MAX: Duration = Duration::from_secs(30);

/// Whether `--watch` waits out a failure: no answer, a cut answer or a server error (a restart),
/// rather than an answer that will not change (bad key, bad filter).
fn passing(e: &Error) -> bool {
    match e {
        Error::Network(_) | Error::Timeout(_) => true,
        Error::Api(a) => a.status >= 500 || a.status == 429,
        Error::Decode { status, .. } => *status >= 500,
        _ => false,
    }
}

/// `500ms`, `2s`, `1m`: as the `--interval` flag takes it.
fn humane(d: Duration) -> String {
    match d.as_millis() {
        ms if ms % 60_000 == 0 => format!("{}m", ms / 60_000),
        ms if ms % 1000 == 0 => format!("{}s", ms / 1000),
        ms => format!("{ms}ms"),
    }
}

/// What a list table looks up before it is shown: names where the console shows names. Only
/// destinations look anything up (their callbacks' names); every other list, a registry-run
/// one included, shows its items as they came, with nothing to declare.
// A `Vec`, not a slice: `Any` downcasts a sized type only.
#[allow(clippy::ptr_arg)]
async fn labelled<T: Tabular>(items: &mut Vec<T>, client: &Client) {
    if let Some(d) = (items as &mut dyn std::any::Any).downcast_mut::<Vec<Destination>>() {
        destination_callbacks(d, client).await;
    }
}

/// The callbacks a destination selects by name (the id where none is known), as the console
/// lists them. Names are a convenience: when they cannot be read, ids stay.
async fn destination_callbacks(items: &mut [Destination], client: &Client) {
    let selects = |d: &Destination| {
        d.callbacks
            .callback_ids
            .as_ref()
            .is_some_and(|c| !c.is_empty())
    };
    if !items.iter().any(selects) {
        return;
    }
    let Ok(callbacks) = crate::api::list_all::<Callback>(client, ApiRequest::list_callbacks).await
    else {
        return;
    };
    let mut names = crate::api::NameCache::new();
    names.learn_callbacks(&callbacks);
    for id in items
        .iter_mut()
        .filter_map(|d| d.callbacks.callback_ids.as_mut())
        .flatten()
    {
        *id = names.label(id).to_string();
    }
}

/// What a list request lists, for the empty-table line.
fn noun(req: &ApiRequest) -> &'static str {
    match req.segments.last().map(String::as_str) {
        Some("teams") => "teams",
        Some("members") => "members",
        Some("projects") => "projects",
        Some("team-roles") => "team roles",
        Some("token-imports") => "token imports",
        Some("callbacks") => "callbacks",
        Some("callbacks-destinations") => "destinations",
        Some("callbacks-notifications") => "notifications",
        _ => "items",
    }
}

fn decode_error(e: serde_json::Error) -> Error {
    Error::Decode {
        status: 200,
        detail: e.to_string(),
    }
}

/// The id of the last item of a list body.
fn last_id(body: &str) -> Option<String> {
    let page: Page<Value> = serde_json::from_str(body).ok()?;
    item_id(page.items.last()?)
}

fn item_id(v: &Value) -> Option<String> {
    v.get("id").and_then(Value::as_str).map(str::to_string)
}

/// Follows `has_more_after` from the first page to the end, `after=<last id>` each time, within
/// the walk's caps (`api::lookup::MAX_PAGES` pages, `MAX_ITEMS` items), handing each page's
/// items to `each` as it arrives.
async fn fetch_all(
    client: &Client,
    q: ListQuery,
    build: impl Fn(&ListQuery) -> ApiRequest,
    mut each: impl FnMut(Vec<Value>) -> Result<(), HeadlessError>,
) -> Result<(), HeadlessError> {
    let mut failed = None;
    crate::api::lookup::walk(client, q, build, |items: Vec<Value>| match each(items) {
        Ok(()) => true,
        Err(e) => {
            failed = Some(e);
            false
        }
    })
    .await?;
    failed.map_or(Ok(()), Err)
}
