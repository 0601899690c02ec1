//! Runs one parsed command: builds the request, sends it, prints the reply.
use std::io::IsTerminal;

use serde_json::Value;

use super::HeadlessError;
use super::args::*;
use super::columns::Tabular;
use super::input::{confirm, secret_from_env, secret_from_stdin};
use super::lookups::{self, Change, Known};
use super::output::{self, OutputFormat, emit};
use crate::api::client::decode;
use crate::api::model::*;
use crate::api::{ApiRequest, Client, Error, ListQuery, NotificationFilter, Page};

/// Runs a headless command against the API and prints the result on standard output.
pub async fn run(
    client: &Client,
    format: OutputFormat,
    cmd: Resource,
    read_only: bool,
) -> Result<(), HeadlessError> {
    if read_only && cmd.is_write() {
        return Err(HeadlessError::Usage(
            "refused: read-only mode (--read-only or the profile's read_only)".into(),
        ));
    }
    let p = Printer {
        client,
        format,
        terminal: std::io::stdout().is_terminal(),
    };
    match cmd {
        Resource::Teams(c) => teams(&p, c).await,
        Resource::Imports(c) => imports(&p, c).await,
        Resource::Callbacks(CallbacksCmd::List(l)) => {
            p.list::<Callback>(&l, ApiRequest::list_callbacks).await
        }
        Resource::Callbacks(CallbacksCmd::Get { id }) => {
            p.one::<Callback>(&ApiRequest::get_callback(&id)).await
        }
        Resource::Destinations(c) => destinations(&p, c).await,
        Resource::Notifications(NotificationsCmd::List {
            list,
            callbacks,
            events,
            destinations,
        }) => {
            let f = NotificationFilter {
                callback_ids: callbacks,
                event_ids: events,
                destination_ids: destinations,
            };
            p.list::<Notification>(&list, |q| ApiRequest::list_notifications(q, &f))
                .await
        }
        Resource::Notifications(NotificationsCmd::Replay(a)) => {
            super::replay::run(client, format, a, read_only).await
        }
        Resource::Notifications(NotificationsCmd::Diff(a)) => {
            super::diff::run(client, format, a, &[]).await
        }
        Resource::Notifications(NotificationsCmd::Forward(a)) => {
            super::forward::run(client, format, a, &super::forward::Context::default()).await
        }
        Resource::Notifications(NotificationsCmd::Get { id }) => {
            p.one::<Notification>(&ApiRequest::get_notification(&id))
                .await
        }
        Resource::Members(MembersCmd::List { list, team: None }) => {
            p.list::<Member>(&list, ApiRequest::list_members).await
        }
        Resource::Members(MembersCmd::List {
            list,
            team: Some(team),
        }) => lookups::list_team_members(client, format, &team, list.order).await,
        Resource::Projects(LookupCmd::List(l)) => {
            p.list::<Project>(&l, ApiRequest::list_projects).await
        }
        Resource::TeamRoles(LookupCmd::List(l)) => {
            p.list::<TeamRole>(&l, ApiRequest::list_team_roles).await
        }
    }
}

async fn teams(p: &Printer<'_>, c: TeamsCmd) -> Result<(), HeadlessError> {
    let req = match c {
        TeamsCmd::List(l) => return p.list::<Team>(&l, ApiRequest::list_teams).await,
        TeamsCmd::Get { id } => ApiRequest::get_team(&id),
        TeamsCmd::Create { name, description } => {
            // A new team has no members: no need to look.
            let req = ApiRequest::create_team(&CreateTeam { name, description });
            return show_team(p, &req, false).await;
        }
        TeamsCmd::Update {
            id,
            name,
            description,
        } => ApiRequest::update_team(&id, &UpdateTeam { name, description }),
        TeamsCmd::SetProject { id, project, roles } => ApiRequest::set_team_project(
            &id,
            &SetTeamProject {
                project_id: project,
                team_role_ids: roles,
            },
        ),
        TeamsCmd::RemoveProject { id, project } => ApiRequest::remove_team_project(&id, &project),
        TeamsCmd::AddMember { id, member } => {
            return member_change(p, &id, &member, Change::Add).await;
        }
        TeamsCmd::RemoveMember { id, member } => {
            return member_change(p, &id, &member, Change::Remove).await;
        }
    };
    show_team(p, &req, true).await
}

/// One team: the API's reply as JSON, or a detail table with its members.
async fn show_team(p: &Printer<'_>, req: &ApiRequest, members: bool) -> Result<(), HeadlessError> {
    match p.format {
        OutputFormat::Json => p.one::<Team>(req).await,
        OutputFormat::Table => lookups::show_team(p.client, req, members).await,
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
        Change::Add => ApiRequest::add_team_member(team, &picked.actor_id),
        Change::Remove => ApiRequest::remove_team_member(team, &picked.actor_id),
    };
    show_team(p, &req, true).await?;
    if p.format == OutputFormat::Table
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
        } => {
            let access_token = token.read()?.ok_or_else(|| {
                HeadlessError::Usage(
                    "give the token with --access-token-stdin or --access-token-env".into(),
                )
            })?;
            ApiRequest::create_import(&CreateImport {
                access_token,
                server_deployment_id: server_deployment,
                connection_id: connection,
                id_token: fields.id_token()?,
                metadata: fields.metadata(),
                note: fields.note,
                expires_at: fields.expires_at,
                scope: fields.scope,
                token_type: fields.token_type,
            })
        }
        ImportsCmd::Update { id, token, fields } => ApiRequest::update_import(
            &id,
            &UpdateImport {
                access_token: token.read()?,
                id_token: fields.id_token()?,
                metadata: fields.metadata(),
                note: fields.note,
                expires_at: fields.expires_at,
                scope: fields.scope,
                token_type: fields.token_type,
            },
        ),
    };
    p.one::<ProviderOauthImport>(&req).await
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
        DestinationsCmd::Update {
            id,
            name,
            description,
            clear_description,
        } => {
            let description = if clear_description {
                Some(None)
            } else {
                description.map(Some)
            };
            ApiRequest::update_destination(&id, &UpdateDestination { name, description })
        }
        DestinationsCmd::Create {
            name,
            url,
            description,
            all_callbacks,
            callbacks,
        } => ApiRequest::create_destination(&CreateDestination {
            name,
            description,
            url,
            callbacks: if all_callbacks {
                CallbacksInput::all()
            } else {
                CallbacksInput::selected(callbacks)
            },
        }),
        DestinationsCmd::Delete { id, yes } => {
            if !yes && !confirm(&format!("Delete destination {}?", output::clean(&id)))? {
                return Err(HeadlessError::Cancelled);
            }
            return destination(
                p,
                &ApiRequest::delete_destination(&id),
                Known::Active(false),
            )
            .await;
        }
    };
    // A create or an update succeeds only on an active destination.
    destination(p, &req, Known::Active(true)).await
}

/// One destination: the API's reply as JSON, or a detail table that says whether it is deleted.
async fn destination(p: &Printer<'_>, req: &ApiRequest, known: Known) -> Result<(), HeadlessError> {
    match p.format {
        OutputFormat::Json => p.one::<Destination>(req).await,
        OutputFormat::Table => lookups::show_destination(p.client, req, known).await,
    }
}

/// Sends requests and prints replies in the chosen format.
struct Printer<'a> {
    client: &'a Client,
    format: OutputFormat,
    /// Standard output is a terminal: JSON is escaped for it (see [`output::write_raw`]).
    terminal: bool,
}

impl Printer<'_> {
    /// A single resource: the raw JSON, or a detail view.
    async fn one<T: Tabular>(&self, req: &ApiRequest) -> Result<(), HeadlessError> {
        let raw = self.client.send(req).await?;
        match self.format {
            OutputFormat::Json => {
                // Printed unchanged, but only if it is JSON at all.
                decode::<Value>(raw.status, &raw.body)?;
                emit(|out| output::write_raw(out, &raw.body, self.terminal))
            }
            OutputFormat::Table => {
                let item: T = decode(raw.status, &raw.body)?;
                emit(|out| output::write_detail(out, &T::details(), &item))
            }
        }
    }

    /// A list: one page (the envelope as received), or with `--all` every item.
    async fn list<T: Tabular>(
        &self,
        args: &ListArgs,
        build: impl Fn(&ListQuery) -> ApiRequest,
    ) -> Result<(), HeadlessError> {
        if args.all {
            let items = fetch_all(self.client, args.query(), build).await?;
            return match self.format {
                OutputFormat::Json => emit(|out| output::write_array(out, &items, self.terminal)),
                OutputFormat::Table => {
                    let typed = items
                        .into_iter()
                        .map(|v| serde_json::from_value::<T>(v).map_err(decode_error))
                        .collect::<Result<Vec<T>, Error>>()?;
                    emit(|out| output::write_table(out, &T::columns(), &typed))
                }
            };
        }
        let raw = self.client.send(&build(&args.query())).await?;
        match self.format {
            OutputFormat::Json => {
                decode::<Page<Value>>(raw.status, &raw.body)?;
                emit(|out| output::write_raw(out, &raw.body, self.terminal))
            }
            OutputFormat::Table => {
                let page: Page<T> = decode(raw.status, &raw.body)?;
                emit(|out| output::write_table(out, &T::columns(), &page.items))?;
                if page.pagination.has_more_after
                    && let Some(last) = last_id(&raw.body)
                {
                    eprintln!("(more: --after {} or --all)", output::clean(&last));
                }
                Ok(())
            }
        }
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

/// Follows `has_more_after` from the first page to the end, `after=<last id>` each time.
async fn fetch_all(
    client: &Client,
    mut q: ListQuery,
    build: impl Fn(&ListQuery) -> ApiRequest,
) -> Result<Vec<Value>, Error> {
    // The largest page the API allows, unless the user asked for another size.
    q.limit = q.limit.or(Some(100));
    let mut items = Vec::new();
    loop {
        let raw = client.send(&build(&q)).await?;
        let page: Page<Value> = decode(raw.status, &raw.body)?;
        let last = page.items.last().and_then(item_id);
        items.extend(page.items);
        match last {
            // A server repeating the same page must not make us loop forever.
            Some(id) if page.pagination.has_more_after && q.after.as_deref() != Some(&id) => {
                q.after = Some(id);
                q.before = None;
                q.cursor = None;
            }
            _ => return Ok(items),
        }
    }
}
