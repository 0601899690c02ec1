//! Teams (with their projects and members), and the two lookups a team's projects name:
//! projects and team roles.
use super::ops::{self, Verb, Write};
use super::width::Width;
use super::{Column, DASH, Description, Field, SortKey, absolute, field, lines_or_dash, or_dash};
use crate::api::generation::Generation;
use crate::api::model::{CreateTeam, Member, Project, SetTeamProject, Team, TeamRole, UpdateTeam};
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

type Ct = Column<Team>;
type Cp = Column<Project>;
type Cr = Column<TeamRole>;

/// Teams.
pub static TEAMS: Description<Team> = Description {
    name: "teams",
    aliases: &["teams", "team", "tm"],
    id_prefix: "tm_",
    columns: &[
        Ct::new("Name", Width::identifying(8, 40), |t, _| t.name.clone())
            .sort(|t, _| SortKey::text(&t.name)),
        Ct::new("Slug", Width::flexible(8, 40), |t, _| t.slug.clone())
            .sort(|t, _| SortKey::text(&t.slug)),
        Ct::new("Projects", Width::fixed(8), |t, _| {
            t.projects.len().to_string()
        })
        .sort(|t, _| SortKey::Number(t.projects.len() as i64)),
        Ct::new(
            "Description",
            Width::flexible(12, 60).optional(2),
            |t, _| or_dash(t.description.as_deref()),
        )
        .sort(|t, _| SortKey::text(t.description.as_deref().unwrap_or_default())),
        Ct::new("Created", Width::fixed(11), |t, c| c.when(&t.created_at))
            .sort(|t, _| SortKey::Time(t.created_at))
            .also(|t, _| absolute(&t.created_at)),
        Ct::new("ID", Width::flexible(10, 32).optional(1), |t, _| {
            t.id.clone()
        })
        .sort(|t, _| SortKey::text(&t.id))
        .muted(),
    ],
    fields: &[
        field("ID", |t| vec![t.id.clone()]),
        field("Name", |t| vec![t.name.clone()]),
        field("Slug", |t| vec![t.slug.clone()]),
        field("Description", |t| vec![dash(t.description.as_deref())]),
        field("Projects", projects),
        field("Created", |t| vec![absolute(&t.created_at)]),
        field("Updated", |t| vec![absolute(&t.updated_at)]),
    ],
};

/// The teams resource in the registry.
pub struct Teams;

impl super::Resource for Teams {
    type Item = Team;
    const KIND: super::Kind = super::Kind::Teams;
    const LISTS_MEMBERS: bool = true;
    const NOUN: &'static str = "teams";
    const NEEDED_KEY: &'static str = "the organization key";
    const GENERATIONS: &'static [Generation] = &[Generation::Pulsar];
    const WRITES: &'static [Verb] = &[
        CREATE.verb,
        UPDATE.verb,
        SET_PROJECT.verb,
        REMOVE_PROJECT.verb,
        ADD_MEMBER.verb,
        REMOVE_MEMBER.verb,
    ];

    fn description() -> &'static Description<Team> {
        &TEAMS
    }

    fn id(t: &Team) -> &str {
        &t.id
    }

    fn name(t: &Team) -> String {
        t.name.clone()
    }

    fn heading(t: &Team) -> String {
        format!("Team {}", t.name)
    }

    fn list(q: &ListQuery, _filter: &NotificationFilter) -> ApiRequest {
        ApiRequest::list_teams(q)
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_team(id)
    }
}

/// `-` for nothing, as headless detail views print it.
pub(super) fn dash(s: Option<&str>) -> String {
    match s {
        Some(s) if !s.is_empty() => s.to_string(),
        _ => "-".into(),
    }
}

/// Each project with its roles: `slug (role, role)`.
fn projects(t: &Team) -> Vec<String> {
    lines_or_dash(
        t.projects
            .iter()
            .map(|p| {
                let roles: Vec<&str> = p.roles.iter().map(|r| r.role.slug.as_str()).collect();
                format!("{} ({})", p.project.slug, roles.join(", "))
            })
            .collect(),
    )
}

/// A team with its members (read from each member's `actor.teams[]`), for the detail view.
pub struct TeamDetail {
    /// The API's reply.
    pub team: Team,
    /// The team's members; `None` when they could not be read or the server does not say.
    pub members: Option<Vec<Member>>,
}

/// Fields of a team's detail view: the team's own, and its members.
pub static TEAM_DETAIL: &[Field<TeamDetail>] = &[
    field("ID", |v| vec![v.team.id.clone()]),
    field("Name", |v| vec![v.team.name.clone()]),
    field("Slug", |v| vec![v.team.slug.clone()]),
    field("Description", |v| vec![dash(v.team.description.as_deref())]),
    field("Projects", |v| projects(&v.team)),
    field("Members", |v| match &v.members {
        None => vec!["? (not known)".into()],
        Some(ms) => lines_or_dash(ms.iter().map(member_line).collect()),
    }),
    field("Created", |v| vec![absolute(&v.team.created_at)]),
    field("Updated", |v| vec![absolute(&v.team.updated_at)]),
];

/// `Name <email> role (oac_…)`.
fn member_line(m: &Member) -> String {
    let who = match m.contact_email() {
        Some(e) => format!("{} <{e}>", m.display_name()),
        None => m.display_name().to_string(),
    };
    format!("{who} {} ({})", m.role, m.actor_id)
}

/// Projects (a lookup).
pub static PROJECTS: Description<Project> = Description {
    name: "projects",
    aliases: &["projects", "project"],
    id_prefix: "prj_",
    columns: &[
        Cp::new("Name", Width::identifying(8, 40), |p, _| p.name.clone())
            .sort(|p, _| SortKey::text(&p.name)),
        Cp::new("Slug", Width::flexible(8, 40), |p, _| p.slug.clone())
            .sort(|p, _| SortKey::text(&p.slug)),
        Cp::new("Status", Width::fixed(9), |p, _| p.status.to_string())
            .sort(|p, _| SortKey::text(p.status.as_str())),
        Cp::new("Created", Width::fixed(11), |p, c| c.when(&p.created_at))
            .sort(|p, _| SortKey::Time(p.created_at))
            .also(|p, _| absolute(&p.created_at)),
        Cp::new("ID", Width::flexible(10, 32).optional(1), |p, _| {
            p.id.clone()
        })
        .sort(|p, _| SortKey::text(&p.id))
        .muted(),
    ],
    fields: &[],
};

/// Team roles (a lookup).
pub static TEAM_ROLES: Description<TeamRole> = Description {
    name: "team-roles",
    aliases: &["team-roles", "roles"],
    id_prefix: "tmr_",
    columns: &[
        Cr::new("Name", Width::identifying(8, 40), |r, _| r.name.clone())
            .sort(|r, _| SortKey::text(&r.name)),
        Cr::new("Slug", Width::flexible(8, 40), |r, _| r.slug.clone())
            .sort(|r, _| SortKey::text(&r.slug)),
        Cr::new("Permissions", Width::flexible(12, 80), |r, _| {
            if r.permissions.is_empty() {
                DASH.into()
            } else {
                r.permissions.join(", ")
            }
        })
        .sort(|r, _| SortKey::text(&r.permissions.join(", "))),
        Cr::new("ID", Width::flexible(10, 32).optional(1), |r, _| {
            r.id.clone()
        })
        .sort(|r, _| SortKey::text(&r.id))
        .muted(),
    ],
    fields: &[],
};

// Writes: each operation's request from its typed inputs, once, for the console's dialogs,
// headless and the MCP server (the newer generations' teams take the same requests), and each
// as a typed value (its verb, its question, its request).

/// A team's sub-operation on one thing it names (a project, a member).
type OnOne = fn(&str, &str) -> ApiRequest;
/// [`update`]'s signature.
type Update = fn(&str, Option<String>, Option<String>) -> Option<ApiRequest>;
/// [`set_project`]'s signature.
type SetProject = fn(&str, String, Vec<String>) -> Option<ApiRequest>;

/// `c`: a new team.
pub const CREATE: Write<fn(String, Option<String>) -> ApiRequest> = Write {
    verb: ops::CREATE,
    resource: super::Kind::Teams,
    question: None,
    request: create,
};

/// `e`: the team's name and description.
pub const UPDATE: Write<Update> = Write {
    verb: ops::UPDATE,
    resource: super::Kind::Teams,
    question: None,
    request: update,
};

/// `p`: a project's roles.
pub const SET_PROJECT: Write<SetProject> = Write {
    verb: Verb {
        name: "set_project",
        label: "team: set a project's roles",
        hint: "project",
        key: 'p',
        writes: true,
        done: "project roles set",
    },
    resource: super::Kind::Teams,
    question: None,
    request: set_project,
};

/// `x`: a project removed.
pub const REMOVE_PROJECT: Write<OnOne> = Write {
    verb: Verb {
        name: "remove_project",
        label: "team: remove a project",
        hint: "project",
        key: 'x',
        writes: true,
        done: "project removed",
    },
    resource: super::Kind::Teams,
    question: Some(|p| format!("Remove project {p} from this team?")),
    request: remove_project,
};

/// `m`: a member added.
pub const ADD_MEMBER: Write<OnOne> = Write {
    verb: Verb {
        name: "add_member",
        label: "team: add a member",
        hint: "member",
        key: 'm',
        writes: true,
        done: "member added",
    },
    resource: super::Kind::Teams,
    question: Some(|m| format!("Add member {m} to this team?")),
    request: add_member,
};

/// `M`: a member removed.
pub const REMOVE_MEMBER: Write<OnOne> = Write {
    verb: Verb {
        name: "remove_member",
        label: "team: remove a member",
        hint: "member",
        key: 'M',
        writes: true,
        done: "member removed",
    },
    resource: super::Kind::Teams,
    question: Some(|m| format!("Remove member {m} from this team?")),
    request: remove_member,
};

/// `create`: a new team.
pub fn create(name: String, description: Option<String>) -> ApiRequest {
    ApiRequest::create_team(&CreateTeam { name, description })
}

/// `update`: what changes (`None` keeps it; the API refuses null, so an empty description
/// clears it), or `None` when nothing would change.
pub fn update(id: &str, name: Option<String>, description: Option<String>) -> Option<ApiRequest> {
    let body = UpdateTeam { name, description };
    (body != UpdateTeam::default()).then(|| ApiRequest::update_team(id, &body))
}

/// `set-project`: the team gets the project with exactly these roles (the set replaces the
/// current one), or `None` without a role (a project with no roles gives the team nothing).
pub fn set_project(id: &str, project_id: String, roles: Vec<String>) -> Option<ApiRequest> {
    (!roles.is_empty()).then(|| {
        ApiRequest::set_team_project(
            id,
            &SetTeamProject {
                project_id,
                team_role_ids: roles,
            },
        )
    })
}

/// `remove-project`: the team loses the project.
pub fn remove_project(id: &str, project_id: &str) -> ApiRequest {
    ApiRequest::remove_team_project(id, project_id)
}

/// `add-member`: the actor joins the team.
pub fn add_member(id: &str, actor_id: &str) -> ApiRequest {
    ApiRequest::add_team_member(id, actor_id)
}

/// `remove-member`: the actor leaves the team.
pub fn remove_member(id: &str, actor_id: &str) -> ApiRequest {
    ApiRequest::remove_team_member(id, actor_id)
}
