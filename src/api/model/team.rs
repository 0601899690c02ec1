//! `management.team` and its project assignments.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{Project, TeamRole};

/// `management.team`. A team has no members field: membership is written through member operations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Team {
    /// Always `management.team`.
    #[serde(default = "team_object")]
    pub object: String,
    /// `tm_…`.
    pub id: String,
    /// Owning organization.
    pub organization_id: String,
    /// Display name.
    pub name: String,
    /// Derived from the name.
    pub slug: String,
    /// Free text, nullable.
    pub description: Option<String>,
    /// Project assignments with their roles.
    #[serde(default)]
    pub projects: Vec<TeamProject>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(with = "super::time::millis")]
    pub updated_at: DateTime<Utc>,
}

fn team_object() -> String {
    "management.team".into()
}

/// One project a team has access to, with the roles it holds there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TeamProject {
    /// `tmp_…`.
    pub id: String,
    /// The project.
    pub project: Project,
    /// Roles held on the project.
    #[serde(default)]
    pub roles: Vec<TeamRoleAssignment>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(with = "super::time::millis")]
    pub updated_at: DateTime<Utc>,
}

/// A role held by a team on one project.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TeamRoleAssignment {
    /// `tmra_…`.
    pub id: String,
    /// The role.
    pub role: TeamRole,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(with = "super::time::millis")]
    pub updated_at: DateTime<Utc>,
}
