//! Teams of the dashboard version (`callback-destinations`, `event-destinations`): access policies
//! instead of projects with roles (`generations.md` §4).
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{Project, open_enum};

open_enum!(
    /// Kind of access policy; only `custom` ones can be assigned to a team.
    PolicyType { Everyone => "everyone", Admin => "admin", Custom => "custom" }
);

/// `management.team` of the dashboard version: policies, and projects without roles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PolicyTeam {
    /// `management.team` (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `tm_…`.
    pub id: String,
    /// Owning organization.
    #[serde(default)]
    pub organization_id: Option<String>,
    /// Display name.
    pub name: String,
    /// Derived from the name.
    pub slug: String,
    /// Free text, nullable.
    #[serde(default)]
    pub description: Option<String>,
    /// The access policies assigned.
    #[serde(default)]
    pub policies: Vec<PolicyPreview>,
    /// Projects the team reaches (no roles, and no way to change them here).
    #[serde(default)]
    pub projects: Vec<PolicyTeamProject>,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(with = "super::time::millis")]
    pub updated_at: DateTime<Utc>,
}

/// `management.access_policy#preview`: a policy as a team lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PolicyPreview {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `apl_…` (a prefix is never checked).
    pub id: String,
    /// everyone, admin or custom.
    #[serde(rename = "type")]
    pub kind: PolicyType,
    /// Display name.
    pub name: String,
    /// URL-safe name.
    #[serde(default)]
    pub slug: Option<String>,
}

/// One project a team reaches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PolicyTeamProject {
    /// `tmp_…`.
    pub id: String,
    /// The project.
    pub project: Project,
    /// Creation time.
    #[serde(with = "super::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(with = "super::time::millis")]
    pub updated_at: DateTime<Utc>,
}

/// `management.access_policy`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccessPolicy {
    /// Marker (ignored when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// `apl_…`.
    pub id: String,
    /// Owning organization.
    #[serde(default)]
    pub organization_id: Option<String>,
    /// everyone, admin or custom.
    #[serde(rename = "type")]
    pub kind: PolicyType,
    /// Display name.
    pub name: String,
    /// URL-safe name.
    #[serde(default)]
    pub slug: Option<String>,
    /// Free text, nullable.
    #[serde(default)]
    pub description: Option<String>,
    /// What it grants (`{access: [{target, scopes}]}`), kept as sent.
    #[serde(default)]
    pub document: serde_json::Value,
    /// Roles it grants, as sent.
    #[serde(default)]
    pub roles: Vec<serde_json::Value>,
    /// Projects it covers, as sent.
    #[serde(default)]
    pub projects: Vec<serde_json::Value>,
    /// Instances it covers.
    #[serde(default)]
    pub instances: Vec<InstancePreview>,
    /// Creation time.
    #[serde(default, with = "super::time::millis_opt")]
    pub created_at: Option<DateTime<Utc>>,
    /// Last change.
    #[serde(default, with = "super::time::millis_opt")]
    pub updated_at: Option<DateTime<Utc>>,
}

/// An instance named by id and name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstancePreview {
    /// `ins_…`.
    pub id: String,
    /// Display name.
    #[serde(default)]
    pub name: Option<String>,
}

/// `POST /organization/teams/{id}/policies`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssignPolicy {
    /// The policy (a custom one).
    pub access_policy_id: String,
}
