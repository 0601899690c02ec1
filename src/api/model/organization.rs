//! Organization-level lookups: projects, team roles and members.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::open_enum;

open_enum!(
    /// Status of an organization project.
    ProjectStatus { Active => "active", Deleted => "deleted" }
);

open_enum!(
    /// Role of an organization member.
    MemberRole { Admin => "admin", Member => "member" }
);

/// `organization.project`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Project {
    /// Always `organization.project`.
    #[serde(default = "project_object")]
    pub object: String,
    /// `prj_…`.
    pub id: String,
    /// Active or deleted.
    pub status: ProjectStatus,
    /// URL-safe name.
    pub slug: String,
    /// Display name.
    pub name: String,
    /// Owning organization.
    pub organization_id: String,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(with = "super::time::millis")]
    pub updated_at: DateTime<Utc>,
}

fn project_object() -> String {
    "organization.project".into()
}

/// `management.team.role`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TeamRole {
    /// Always `management.team.role`.
    #[serde(default = "role_object")]
    pub object: String,
    /// `tmr_…`.
    pub id: String,
    /// Owning organization.
    pub organization_id: String,
    /// Display name.
    pub name: String,
    /// URL-safe name.
    pub slug: String,
    /// Free text, nullable.
    pub description: Option<String>,
    /// Scope strings such as `instance.callback:read`.
    #[serde(default)]
    pub permissions: Vec<String>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(with = "super::time::millis")]
    pub updated_at: DateTime<Utc>,
}

fn role_object() -> String {
    "management.team.role".into()
}

/// `organization.member`: a person in the organization; `actor_id` is what team membership takes.
///
/// Read names and emails through [`Member::display_name`] and [`Member::contact_email`]: the
/// platform puts them on the embedded `actor`; the top-level copies are a compatibility extra.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Member {
    /// Always `organization.member`.
    #[serde(default = "member_object")]
    pub object: String,
    /// Member id.
    pub id: String,
    /// Usually `active`.
    pub status: String,
    /// Admin or member.
    pub role: MemberRole,
    /// The user behind the membership.
    pub user_id: String,
    /// Owning organization (absent from older servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organization_id: Option<String>,
    /// `oac_…`: the id team membership operations take.
    pub actor_id: String,
    /// Display name (top-level copy; empty when the server sends none).
    #[serde(
        default,
        deserialize_with = "null_as_empty",
        skip_serializing_if = "String::is_empty"
    )]
    pub name: String,
    /// Email address (top-level copy; empty when the server sends none).
    #[serde(
        default,
        deserialize_with = "null_as_empty",
        skip_serializing_if = "String::is_empty"
    )]
    pub email: String,
    /// Avatar.
    #[serde(default)]
    pub image_url: Option<String>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(with = "super::time::millis")]
    pub updated_at: DateTime<Utc>,
    /// Last activity, nullable.
    #[serde(with = "super::time::millis_opt", default)]
    pub last_active_at: Option<DateTime<Utc>>,
    /// When the membership ended, nullable.
    #[serde(with = "super::time::millis_opt", default)]
    pub deleted_at: Option<DateTime<Utc>>,
    /// The actor behind the member, with its teams; absent from older servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<Actor>,
}

fn member_object() -> String {
    "organization.member".into()
}

/// Reads a string that may be null or missing as empty text.
fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

impl Member {
    /// The name to show: the actor's, else the top-level copy.
    #[must_use]
    pub fn display_name(&self) -> &str {
        self.actor
            .as_ref()
            .map(|a| a.name.as_str())
            .filter(|n| !n.is_empty())
            .unwrap_or(&self.name)
    }

    /// The email, if any: the actor's, else the top-level copy.
    #[must_use]
    pub fn contact_email(&self) -> Option<&str> {
        self.actor
            .as_ref()
            .and_then(|a| a.email.as_deref())
            .filter(|e| !e.is_empty())
            .or(Some(self.email.as_str()).filter(|e| !e.is_empty()))
    }

    /// The teams this member belongs to (empty when the server does not say).
    #[must_use]
    pub fn teams(&self) -> &[ActorTeam] {
        self.actor.as_ref().map_or(&[], |a| a.teams.as_slice())
    }

    /// Whether the member belongs to the team with this id or slug.
    #[must_use]
    pub fn in_team(&self, id_or_slug: &str) -> bool {
        self.teams()
            .iter()
            .any(|t| t.id == id_or_slug || (!t.slug.is_empty() && t.slug == id_or_slug))
    }
}

open_enum!(
    /// Kind of organization actor.
    ActorType { Member => "member", MachineAccess => "machine_access" }
);

/// `organization.actor`: who acts in the organization (a person or a machine key), with the teams
/// it belongs to. This is where the platform shows team membership.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Actor {
    /// Always `organization.actor`.
    #[serde(default = "actor_object")]
    pub object: String,
    /// `oac_…` (equals the member's `actor_id`).
    pub id: String,
    /// Person or machine.
    #[serde(rename = "type", default = "actor_type")]
    pub kind: ActorType,
    /// Owning organization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organization_id: Option<String>,
    /// Display name.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub name: String,
    /// Email address, nullable (machine actors have none).
    #[serde(default)]
    pub email: Option<String>,
    /// Avatar.
    #[serde(default)]
    pub image_url: Option<String>,
    /// The teams the actor belongs to.
    #[serde(default)]
    pub teams: Vec<ActorTeam>,
    /// Creation time.
    #[serde(with = "super::time::millis_opt", default)]
    pub created_at: Option<DateTime<Utc>>,
    /// Last change.
    #[serde(with = "super::time::millis_opt", default)]
    pub updated_at: Option<DateTime<Utc>>,
}

fn actor_object() -> String {
    "organization.actor".into()
}

fn actor_type() -> ActorType {
    ActorType::Member
}

/// One team on an actor's `teams[]`: the team and the assignment that put the actor in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ActorTeam {
    /// `tm_…`.
    pub id: String,
    /// Team name.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub name: String,
    /// Team slug.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub slug: String,
    /// `tmm_…`: the membership assignment.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub assignment_id: String,
    /// When the actor joined the team.
    #[serde(with = "super::time::millis_opt", default)]
    pub created_at: Option<DateTime<Utc>>,
    /// Last change of the assignment.
    #[serde(with = "super::time::millis_opt", default)]
    pub updated_at: Option<DateTime<Utc>>,
}
