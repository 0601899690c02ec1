//! `teams create | update | add-member | remove-member` on the newer generations (§4: as pulsar,
//! each answer the whole refreshed team): the API's object with `-o json`, the registry's team
//! columns as a table. Members are named as on pulsar (actor id, email or part of a name).
use super::HeadlessError;
use super::args::TeamsCmd;
use super::current::{one, send};
use super::lookups::{self, Change};
use super::output::Output;
use crate::api::{ApiRequest, Client};
use crate::resource::teams;

/// Whether this module runs the verb.
pub(super) fn handles(cmd: &TeamsCmd) -> bool {
    matches!(
        cmd,
        TeamsCmd::Create { .. }
            | TeamsCmd::Update { .. }
            | TeamsCmd::AddMember { .. }
            | TeamsCmd::RemoveMember { .. }
    )
}

/// Runs one of the team writes [`handles`] takes.
///
/// # Errors
/// The API's (a refused key named), a member lookup's usage error.
pub(super) async fn run(client: &Client, out: &Output, cmd: TeamsCmd) -> Result<(), HeadlessError> {
    let (req, said) = match cmd {
        TeamsCmd::Create { name, description } => {
            ((teams::CREATE.request)(name, description), None)
        }
        TeamsCmd::Update {
            id,
            name,
            description,
        } => {
            let req = (teams::UPDATE.request)(&id, name, description).ok_or_else(|| {
                HeadlessError::Usage("give --name or --description to change".into())
            })?;
            (req, None)
        }
        TeamsCmd::AddMember { id, member } => membership(client, &id, &member, Change::Add).await?,
        TeamsCmd::RemoveMember { id, member } => {
            membership(client, &id, &member, Change::Remove).await?
        }
        // `handles` sends no other verb here.
        _ => {
            return Err(HeadlessError::Usage(
                "this team verb is not offered on this generation.".into(),
            ));
        }
    };
    let team = send(client, &req).await?;
    one(out, &team, crate::resource::Kind::OrgTeams.wire_columns())?;
    // The table says who moved, as pulsar's does; JSON stays the API's object alone.
    if out.table()
        && let Some(line) = said
    {
        eprintln!("{line}");
    }
    Ok(())
}

/// The membership request, and the sentence a table prints after it (when a lookup named them).
async fn membership(
    client: &Client,
    team: &str,
    query: &str,
    change: Change,
) -> Result<(ApiRequest, Option<String>), HeadlessError> {
    let picked = lookups::pick_member(client, team, query, change).await?;
    let (req, done) = match change {
        Change::Add => (
            (teams::ADD_MEMBER.request)(team, &picked.actor_id),
            "added to",
        ),
        Change::Remove => (
            (teams::REMOVE_MEMBER.request)(team, &picked.actor_id),
            "removed from",
        ),
    };
    let said = match (picked.label, picked.team) {
        (Some(who), Some(name)) => Some(format!("{who} {done} team {name}")),
        _ => None,
    };
    Ok((req, said))
}
