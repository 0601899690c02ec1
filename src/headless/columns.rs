//! The key columns of each resource in tables, and the fields of its detail view.
use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;

use super::output::{Cell, Column};
use crate::api::NameCache;
use crate::api::health::Health;
use crate::api::model::*;
use crate::api::secret::{mask, mask_url_key};
use crate::text::redact::mask_url;

/// A resource that can be shown as a table row and as a detail view.
pub trait Tabular: DeserializeOwned {
    /// Columns of a list.
    fn columns() -> Vec<Column<Self>>;
    /// Fields of a single item; the list columns unless a resource has more to show.
    fn details() -> Vec<Column<Self>> {
        Self::columns()
    }
}

fn when(t: &DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%SZ").to_string()
}

fn when_opt(t: &Option<DateTime<Utc>>) -> String {
    t.as_ref().map(when).unwrap_or_else(|| "-".into())
}

fn opt(s: &Option<String>) -> String {
    s.as_deref()
        .filter(|s| !s.is_empty())
        .unwrap_or("-")
        .to_string()
}

fn col<T>(header: &'static str, cell: fn(&T) -> String) -> Column<T> {
    Column {
        header,
        cell: Cell::One(cell),
    }
}

/// A column of one value per line; each value is cleaned on its own (see [`Cell::Lines`]).
fn col_lines<T>(header: &'static str, cell: fn(&T) -> Vec<String>) -> Column<T> {
    Column {
        header,
        cell: Cell::Lines(cell),
    }
}

/// `pieces`, or a single `-` when there are none.
fn or_dash(pieces: Vec<String>) -> Vec<String> {
    if pieces.is_empty() {
        vec!["-".into()]
    } else {
        pieces
    }
}

fn team_projects(t: &Team) -> Vec<String> {
    let projects = t
        .projects
        .iter()
        .map(|p| {
            let roles: Vec<&str> = p.roles.iter().map(|r| r.role.slug.as_str()).collect();
            format!("{} ({})", p.project.slug, roles.join(", "))
        })
        .collect();
    or_dash(projects)
}

impl Tabular for Team {
    fn columns() -> Vec<Column<Self>> {
        vec![
            col("ID", |t| t.id.clone()),
            col("NAME", |t| t.name.clone()),
            col("SLUG", |t| t.slug.clone()),
            col("PROJECTS", |t| t.projects.len().to_string()),
            col("CREATED", |t| when(&t.created_at)),
        ]
    }
    fn details() -> Vec<Column<Self>> {
        vec![
            col("ID", |t| t.id.clone()),
            col("NAME", |t| t.name.clone()),
            col("SLUG", |t| t.slug.clone()),
            col("DESCRIPTION", |t| opt(&t.description)),
            col_lines("PROJECTS", team_projects),
            col("CREATED", |t| when(&t.created_at)),
            col("UPDATED", |t| when(&t.updated_at)),
        ]
    }
}

/// A team with its members (read from each member's `actor.teams[]`), for the detail view.
pub struct TeamDetail {
    /// The API's reply.
    pub team: Team,
    /// The team's members; `None` when they could not be read or the server does not say.
    pub members: Option<Vec<Member>>,
}

/// Fields of a team's detail view: the team's own, and its members.
pub fn team_detail() -> Vec<Column<TeamDetail>> {
    vec![
        col("ID", |v| v.team.id.clone()),
        col("NAME", |v| v.team.name.clone()),
        col("SLUG", |v| v.team.slug.clone()),
        col("DESCRIPTION", |v| opt(&v.team.description)),
        col_lines("PROJECTS", |v| team_projects(&v.team)),
        col_lines("MEMBERS", |v| match &v.members {
            None => vec!["? (not known)".into()],
            Some(ms) if ms.is_empty() => vec!["-".into()],
            Some(ms) => ms
                .iter()
                .map(|m| {
                    let who = match m.contact_email() {
                        Some(e) => format!("{} <{e}>", m.display_name()),
                        None => m.display_name().to_string(),
                    };
                    format!("{who} {} ({})", m.role, m.actor_id)
                })
                .collect(),
        }),
        col("CREATED", |v| when(&v.team.created_at)),
        col("UPDATED", |v| when(&v.team.updated_at)),
    ]
}

/// A member's team names, as many as fit a list cell and then `+N`; `-` for none, `?` when the
/// server does not say (no `actor`).
fn member_teams(m: &Member) -> String {
    const ROOM: usize = 44;
    if m.actor.is_none() {
        return "?".into();
    }
    let teams = m.teams();
    let mut out = String::new();
    for (i, t) in teams.iter().enumerate() {
        let sep = if out.is_empty() { "" } else { ", " };
        if !out.is_empty() && out.chars().count() + sep.len() + t.name.chars().count() > ROOM {
            let _ = write!(out, ", +{}", teams.len() - i);
            return out;
        }
        out.push_str(sep);
        out.push_str(&t.name);
    }
    if out.is_empty() { "-".into() } else { out }
}

impl Tabular for Member {
    fn columns() -> Vec<Column<Self>> {
        vec![
            col("ID", |m| m.id.clone()),
            col("ACTOR", |m| m.actor_id.clone()),
            col("NAME", |m| m.display_name().to_string()),
            col("EMAIL", |m| m.contact_email().unwrap_or("-").to_string()),
            col("ROLE", |m| m.role.to_string()),
            col("TEAMS", member_teams),
            col("LAST ACTIVE", |m| when_opt(&m.last_active_at)),
        ]
    }
}

impl Tabular for Project {
    fn columns() -> Vec<Column<Self>> {
        vec![
            col("ID", |p| p.id.clone()),
            col("NAME", |p| p.name.clone()),
            col("SLUG", |p| p.slug.clone()),
            col("STATUS", |p| p.status.to_string()),
            col("CREATED", |p| when(&p.created_at)),
        ]
    }
}

impl Tabular for TeamRole {
    fn columns() -> Vec<Column<Self>> {
        vec![
            col("ID", |r| r.id.clone()),
            col("NAME", |r| r.name.clone()),
            col("SLUG", |r| r.slug.clone()),
            col("PERMISSIONS", |r| r.permissions.join(", ")),
        ]
    }
}

impl Tabular for ProviderOauthImport {
    fn columns() -> Vec<Column<Self>> {
        vec![
            col("ID", |i| i.id.clone()),
            col("STATUS", |i| i.status.to_string()),
            col("CONNECTION", |i| opt(&i.connection_id)),
            col("NOTE", |i| opt(&i.note)),
            col("EXPIRES", |i| when_opt(&i.expires_at)),
            col("CREATED", |i| when(&i.created_at)),
        ]
    }
    fn details() -> Vec<Column<Self>> {
        let mut d = Self::columns();
        d.extend([
            col("SCOPE", |i: &Self| opt(&i.scope)),
            col("TOKEN TYPE", |i: &Self| opt(&i.token_type)),
            col("IDENTIFIER", |i: &Self| opt(&i.identifier)),
            col_lines("METADATA", |i: &Self| {
                let kv = i
                    .metadata
                    .iter()
                    .map(|(k, v)| match v {
                        serde_json::Value::String(s) => format!("{k}={s}"),
                        other => format!("{k}={other}"),
                    })
                    .collect();
                or_dash(kv)
            }),
        ]);
        d
    }
}

impl Tabular for Callback {
    fn columns() -> Vec<Column<Self>> {
        vec![
            col("ID", |c| c.id.clone()),
            col("TYPE", |c| c.kind.to_string()),
            col("NAME", |c| opt(&c.name)),
            // The last segment is the hook's key: masked; `-o json` gives it in full.
            col("URL", |c| {
                c.url.as_deref().map(mask_url_key).unwrap_or_default()
            }),
            col("INTERVAL", |c| format!("{}s", c.schedule.interval_seconds)),
            col("CREATED", |c| when(&c.created_at)),
        ]
    }
    fn details() -> Vec<Column<Self>> {
        let mut d = Self::columns();
        d.extend([
            col("DESCRIPTION", |c: &Self| opt(&c.description)),
            col("NEXT RUN", |c: &Self| when_opt(&c.schedule.next_run_at)),
            col("UPDATED", |c: &Self| when(&c.updated_at)),
        ]);
        d
    }
}

fn selection(c: &CallbackSelection) -> String {
    match (&c.kind, &c.callback_ids) {
        (SelectionType::All, _) => "all".into(),
        (_, Some(ids)) => ids.join(", "),
        (kind, None) => kind.to_string(),
    }
}

impl Tabular for Destination {
    fn columns() -> Vec<Column<Self>> {
        vec![
            col("ID", |d| d.id.clone()),
            col("NAME", |d| d.name.clone()),
            col("URL", |d| {
                d.webhook_destination
                    .as_ref()
                    .map(|w| mask_url(&w.url))
                    .unwrap_or_else(|| "-".into())
            }),
            col("CALLBACKS", |d| selection(&d.callbacks)),
            col("CREATED", |d| when(&d.created_at)),
        ]
    }
    fn details() -> Vec<Column<Self>> {
        let mut d = Self::columns();
        d.extend([
            col("TYPE", |d: &Self| d.kind.to_string()),
            col("DESCRIPTION", |d: &Self| opt(&Some(d.description.clone()))),
            col("SIGNING SECRET", |d: &Self| signing_secret(d)),
        ]);
        d
    }
}

/// The signing secret masked, saying how to get it: `-o json` gives the API's reply in full.
fn signing_secret(d: &Destination) -> String {
    d.webhook_destination.as_ref().map_or_else(
        || "-".into(),
        |w| format!("{} (masked; -o json shows it)", mask(&w.signing_secret)),
    )
}

/// A destination with what its detail view adds: whether it is deleted (the contract has no
/// status field) and the names of the callbacks it selects.
pub struct DestinationDetail {
    /// The API's reply.
    pub destination: Destination,
    /// `active`, `deleted`, or `unknown` when it could not be told.
    pub status: &'static str,
    /// Callback names by id, as far as known.
    pub names: NameCache,
    /// Its recent deliveries, when they were read.
    pub health: Option<Health>,
}

/// Fields of a destination's detail view.
pub fn destination_detail() -> Vec<Column<DestinationDetail>> {
    vec![
        col("ID", |v| v.destination.id.clone()),
        col("NAME", |v| v.destination.name.clone()),
        col("STATUS", |v| v.status.to_string()),
        col("URL", |v| {
            v.destination
                .webhook_destination
                .as_ref()
                .map_or_else(|| "-".into(), |w| mask_url(&w.url))
        }),
        col_lines("CALLBACKS", |v| match &v.destination.callbacks {
            CallbackSelection {
                kind: SelectionType::Selected,
                callback_ids: Some(ids),
            } if !ids.is_empty() => ids.iter().map(|id| v.names.label_with_id(id)).collect(),
            other => vec![selection(other)],
        }),
        col("CREATED", |v| when(&v.destination.created_at)),
        col("TYPE", |v| v.destination.kind.to_string()),
        col("DESCRIPTION", |v| {
            opt(&Some(v.destination.description.clone()))
        }),
        col("SIGNING SECRET", |v| signing_secret(&v.destination)),
        col_lines("HEALTH", |v| match &v.health {
            None => vec!["-".into()],
            Some(h) => match h.window() {
                Some((from, to)) => {
                    vec![
                        h.summary(),
                        format!("from {} to {}", when(&from), when(&to)),
                    ]
                }
                None => vec![h.summary()],
            },
        }),
    ]
}

fn last_response(n: &Notification) -> String {
    let Some(a) = n.last_attempt() else {
        return "-".into();
    };
    match &a.webhook_request {
        Some(r) if r.response_status >= 0 => format!("{} ({} ms)", r.response_status, r.duration),
        Some(r) => opt(&r.request_error),
        None => a.status.to_string(),
    }
}

impl Tabular for Notification {
    fn columns() -> Vec<Column<Self>> {
        vec![
            col("ID", |n| n.id.clone()),
            col("STATUS", |n| n.status.to_string()),
            col("EVENT", |n| n.event_type().unwrap_or_else(|| "-".into())),
            col("ATTEMPTS", |n| n.attempts.len().to_string()),
            col("LAST RESPONSE", last_response),
            col("CREATED", |n| when(&n.created_at)),
        ]
    }
    fn details() -> Vec<Column<Self>> {
        let mut d = Self::columns();
        d.insert(
            3,
            col("URL", |n: &Self| opt(&n.url.as_deref().map(mask_url))),
        );
        d.push(col_lines("HISTORY", |n: &Self| {
            let lines = n
                .attempts
                .iter()
                .map(|a| {
                    let detail = match &a.webhook_request {
                        Some(r) if r.response_status >= 0 => {
                            format!("HTTP {} in {} ms", r.response_status, r.duration)
                        }
                        Some(r) => opt(&r.request_error),
                        None => "no request".into(),
                    };
                    format!(
                        "#{} {} {} {}",
                        a.number(),
                        when(&a.created_at),
                        a.status,
                        detail
                    )
                })
                .collect();
            or_dash(lines)
        }));
        d
    }
}
