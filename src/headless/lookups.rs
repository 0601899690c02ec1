//! Headless commands that need a lookup first: members named by email or name, a team's members,
//! and a destination's detail with its status and callback names.
use std::fmt::Write as _;

use serde_json::Value;

use super::HeadlessError;
use super::columns::{self, write_fields};
use super::output::emit;
use super::output::{self, OutputFormat, clean};
use crate::api::client::decode;
use crate::api::health::destination_stats;
use crate::api::lookup::{all_members, destination_is_active, list_all};
use crate::api::members::{
    MemberLookupError, is_actor_id, member_label, non_members, resolve_member, team_members,
};
use crate::api::model::{Callback, Destination, Member, SelectionType, Team};
use crate::api::{ApiRequest, Client, Error, NameCache, Order};
use crate::resource::destinations::{
    DESTINATION_DETAIL, DestinationDetail, STATS_FIELDS, StatsView,
};
use crate::resource::teams::{TEAM_DETAIL, TeamDetail};

/// The window a destination's detail counts its health over.
const HEALTH_WINDOW: chrono::TimeDelta = chrono::TimeDelta::hours(24);

/// At most this many candidates are listed when a name matches several members.
const MAX_LISTED: usize = 20;

/// Which way a membership change goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// `teams add-member`: picked among those not yet on the team.
    Add,
    /// `teams remove-member`: picked among the team's members.
    Remove,
}

/// What a membership command acts on: the actor id, and how to name the member afterwards.
pub struct Picked {
    /// `oac_…`.
    pub actor_id: String,
    /// `Name <email> (oac_…)` when a lookup was made.
    pub label: Option<String>,
    /// The team's name, when it was read.
    pub team: Option<String>,
}

/// Every member, each decoded and as received.
async fn members_raw(client: &Client) -> Result<Vec<(Member, Value)>, HeadlessError> {
    let raw: Vec<Value> = list_all(client, ApiRequest::list_members).await?;
    raw.into_iter()
        .map(|v| {
            serde_json::from_value::<Member>(v.clone())
                .map(|m| (m, v))
                .map_err(|e| {
                    HeadlessError::Api(Error::Decode {
                        status: 200,
                        detail: e.to_string(),
                    })
                })
        })
        .collect()
}

/// Turns what was typed for a member into an actor id. An `oac_…` id is used as given (the server
/// judges it); an email or a name fragment is looked up among the members that can take part in
/// this change, and must match exactly one.
pub async fn pick_member(
    client: &Client,
    team_key: &str,
    query: &str,
    change: Change,
) -> Result<Picked, HeadlessError> {
    if is_actor_id(query) {
        return Ok(Picked {
            actor_id: query.trim().to_string(),
            label: None,
            team: None,
        });
    }
    let team = client.get_team(team_key).await?;
    let members: Vec<Member> = members_raw(client)
        .await?
        .into_iter()
        .map(|(m, _)| m)
        .collect();
    // A server that does not list teams on members cannot narrow the choice: the server decides.
    let knows_teams = members.iter().any(|m| m.actor.is_some());
    let scope: Vec<Member> = match (knows_teams, change) {
        (false, _) => members.clone(),
        (true, Change::Add) => non_members(&members, &team.id)
            .into_iter()
            .cloned()
            .collect(),
        (true, Change::Remove) => team_members(&members, &team.id)
            .into_iter()
            .cloned()
            .collect(),
    };
    let team_name = clean(&team.name);
    match resolve_member(&scope, query) {
        Ok(m) => Ok(Picked {
            actor_id: m.actor_id.clone(),
            label: Some(clean(&member_label(m))),
            team: Some(team_name),
        }),
        Err(MemberLookupError::NotFound { query }) => {
            // Say why when the name is fine but the member is on the wrong side of the change.
            let elsewhere = resolve_member(&members, &query).ok();
            Err(HeadlessError::Usage(match (elsewhere, change) {
                (Some(m), Change::Add) => format!(
                    "{} is already a member of team {team_name}",
                    clean(&member_label(m))
                ),
                (Some(m), Change::Remove) => format!(
                    "{} is not a member of team {team_name}",
                    clean(&member_label(m))
                ),
                (None, Change::Add) => format!(
                    "no member matches {:?}; give an actor id (oac_…), an email or part of a \
                     name (see `switchboard members list`)",
                    clean(&query)
                ),
                (None, Change::Remove) => format!(
                    "no member of team {team_name} matches {:?} (see `switchboard members list \
                     --team {}`)",
                    clean(&query),
                    clean(&team.slug)
                ),
            }))
        }
        Err(MemberLookupError::Ambiguous { query, candidates }) => {
            Err(HeadlessError::Usage(ambiguous(&query, &candidates)))
        }
        Err(e @ MemberLookupError::Empty) => Err(HeadlessError::Usage(e.to_string())),
    }
}

/// The error text for several matches: each candidate's name, email and actor id on a line.
fn ambiguous(query: &str, candidates: &[Member]) -> String {
    let mut out = format!(
        "{} members match {:?}; give one's actor id or email:",
        candidates.len(),
        clean(query)
    );
    for m in candidates.iter().take(MAX_LISTED) {
        out.push_str("\n  ");
        out.push_str(&clean(&member_label(m)));
    }
    if candidates.len() > MAX_LISTED {
        let _ = write!(out, "\n  … and {} more", candidates.len() - MAX_LISTED);
    }
    out
}

/// `members list --team T`: the members whose `actor.teams[]` hold the team (id or slug).
pub async fn list_team_members(
    client: &Client,
    output: &output::Output,
    team_key: &str,
    order: Option<Order>,
) -> Result<(), HeadlessError> {
    let team: Team = client.get_team(team_key).await?;
    let mut members = members_raw(client).await?;
    if !members.is_empty() && members.iter().all(|(m, _)| m.actor.is_none()) {
        return Err(HeadlessError::Usage(
            "this server does not say who is on a team (its members carry no actor.teams)".into(),
        ));
    }
    members.retain(|(m, _)| m.in_team(&team.id));
    if order == Some(Order::Desc) {
        members.reverse();
    }
    match output.format {
        OutputFormat::Json | OutputFormat::Ndjson => {
            let raw: Vec<Value> = members.into_iter().map(|(_, v)| v).collect();
            output.items(&raw)
        }
        OutputFormat::Table if output.fields.is_some() => {
            let raw: Vec<Value> = members.into_iter().map(|(_, v)| v).collect();
            output.field_table(output.fields.as_deref().unwrap_or_default(), &raw)
        }
        OutputFormat::Table => {
            let typed: Vec<Member> = members.into_iter().map(|(m, _)| m).collect();
            emit(|out| columns::write_table(out, &typed))?;
            eprintln!(
                "team {} ({}): {} member{}",
                clean(&team.name),
                clean(&team.id),
                typed.len(),
                if typed.len() == 1 { "" } else { "s" }
            );
            Ok(())
        }
    }
}

/// Whether a destination is active, as far as can be told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// The reply itself says (a create or update succeeded: active; a delete: deleted).
    Active(bool),
    /// Ask the active list.
    Check,
}

/// A destination's detail table: the reply of `req`, whether it is deleted, and its callbacks by
/// name. Lookups that fail only leave the status `unknown` and the callbacks as ids.
pub async fn show_destination(
    client: &Client,
    req: &ApiRequest,
    known: Known,
) -> Result<(), HeadlessError> {
    let raw = client.send(req).await?;
    let destination: Destination = decode(raw.status, &raw.body)?;
    let status = match known {
        Known::Active(true) => "active",
        Known::Active(false) => "deleted",
        Known::Check => match destination_is_active(client, &destination.id).await {
            Ok(true) => "active",
            Ok(false) => "deleted",
            Err(_) => "unknown",
        },
    };
    let mut names = NameCache::new();
    if destination.callbacks.kind == SelectionType::Selected
        && let Ok(callbacks) = list_all::<Callback>(client, ApiRequest::list_callbacks).await
    {
        names.learn_callbacks(&callbacks);
    }
    // Health is worth a look when reading a destination, not right after changing it.
    let health = if known == Known::Check {
        destination_stats(client, &destination.id, HEALTH_WINDOW, now())
            .await
            .ok()
    } else {
        None
    };
    let view = DestinationDetail {
        destination,
        status,
        names,
        health,
    };
    emit(|out| write_fields(out, DESTINATION_DETAIL, &view))
}

/// A team's detail table: the reply of `req` and, with `read_members`, the team's members (a
/// failed or unsupported lookup shows them as not known rather than failing the command).
pub async fn show_team(
    client: &Client,
    req: &ApiRequest,
    read_members: bool,
) -> Result<(), HeadlessError> {
    let raw = client.send(req).await?;
    let team: Team = decode(raw.status, &raw.body)?;
    let members = if read_members {
        match all_members(client).await {
            Ok(ms) if ms.is_empty() || ms.iter().any(|m| m.actor.is_some()) => Some(
                ms.into_iter()
                    .filter(|m| m.in_team(&team.id))
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        }
    } else {
        Some(Vec::new())
    };
    let view = TeamDetail { team, members };
    emit(|out| write_fields(out, TEAM_DETAIL, &view))
}

/// `destinations stats ID --window W`: the destination's delivery health over the window, as a
/// JSON document or a detail table (the same numbers as its detail's HEALTH row).
pub async fn show_stats(
    client: &Client,
    out: &output::Output,
    id: &str,
    window: chrono::TimeDelta,
) -> Result<(), HeadlessError> {
    let destination = client.get_destination(id).await?;
    let stats = destination_stats(client, &destination.id, window, now()).await?;
    let view = StatsView {
        destination,
        window,
        stats,
    };
    if out.table() {
        return emit(|o| write_fields(o, STATS_FIELDS, &view));
    }
    let text = serde_json::to_string_pretty(&view.json())
        .map_err(|e| HeadlessError::Io(std::io::Error::other(e)))?;
    out.document(&text)
}

/// Now, rounded up to the second: a window's ends print without a fraction, and what was
/// created this very second is still inside it.
fn now() -> chrono::DateTime<chrono::Utc> {
    use chrono::SubsecRound as _;
    let t = chrono::Utc::now();
    let s = t.trunc_subsecs(0);
    if s < t {
        s + chrono::TimeDelta::seconds(1)
    } else {
        s
    }
}
