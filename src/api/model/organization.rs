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
    /// `oac_…`: the id team membership operations take.
    pub actor_id: String,
    /// Display name.
    pub name: String,
    /// Email address.
    pub email: String,
    /// Avatar.
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
}

fn member_object() -> String {
    "organization.member".into()
}
