//! Teams of the newer generations: access policies instead of projects with roles; a custom
//! policy is assigned to a team or removed from it.
use super::ops::{Op, OpArgs};
use super::teams::dash;
use super::width::Width;
use super::{AnyItem, Column, Description, Kind, SortKey, absolute, field, lines_or_dash, or_dash};
use crate::api::generation::Generation;
use crate::api::model::PolicyTeam;
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

type C = Column<PolicyTeam>;

/// Its policies' names, joined.
fn policies(t: &PolicyTeam) -> String {
    let names: Vec<&str> = t.policies.iter().map(|p| p.name.as_str()).collect();
    or_dash(Some(&names.join(", ")))
}

/// Teams with their access policies.
pub static ORG_TEAMS: Description<PolicyTeam> = Description {
    name: "teams",
    aliases: &["teams", "team", "tm"],
    id_prefix: "tm_",
    columns: &[
        C::new("Name", Width::identifying(8, 40), |t, _| t.name.clone())
            .sort(|t, _| SortKey::text(&t.name)),
        C::new("Slug", Width::flexible(8, 40), |t, _| t.slug.clone())
            .sort(|t, _| SortKey::text(&t.slug)),
        C::new("Policies", Width::flexible(8, 60), |t, _| policies(t))
            .sort(|t, _| SortKey::Number(t.policies.len() as i64)),
        C::new("Created", Width::fixed(11), |t, c| c.when(&t.created_at))
            .sort(|t, _| SortKey::Time(t.created_at))
            .also(|t, _| absolute(&t.created_at)),
        C::new("ID", Width::flexible(10, 32).optional(1), |t, _| {
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
        field("Policies", |t| {
            lines_or_dash(
                t.policies
                    .iter()
                    .map(|p| format!("{} ({}, {})", p.name, p.kind, p.id))
                    .collect(),
            )
        }),
        field("Projects", |t| {
            lines_or_dash(t.projects.iter().map(|p| p.project.slug.clone()).collect())
        }),
        field("Created", |t| vec![absolute(&t.created_at)]),
        field("Updated", |t| vec![absolute(&t.updated_at)]),
    ],
};

fn team(item: &AnyItem) -> Result<&PolicyTeam, String> {
    match item {
        AnyItem::OrgTeam(t) => Ok(t),
        _ => Err("only a team".into()),
    }
}

/// The policy an operation names (`access_policy_id`: its id).
fn policy(args: &OpArgs) -> Result<&str, String> {
    args.get("access_policy_id")
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .ok_or_else(|| "choose an access policy".to_string())
}

/// `assign-policy`: a custom access policy given to the team (assigning it again changes
/// nothing).
pub static ASSIGN_POLICY: Op = Op {
    resource: Kind::OrgTeams,
    verb: "assign-policy",
    label: "assign an access policy (a custom one) to the team",
    hint: "assign policy",
    key: 'a',
    writes: true,
    done: "policy assigned",
    title: "Assign access policy",
    question: |item| match team(item) {
        Ok(t) => format!("Give team “{}” the chosen access policy?", t.name),
        Err(_) => String::new(),
    },
    request: |item, args| {
        Ok(ApiRequest::assign_team_policy(
            &team(item)?.id,
            policy(args)?,
        ))
    },
    tool: None,
};

/// `remove-policy`: one of the team's policies taken away.
pub static REMOVE_POLICY: Op = Op {
    resource: Kind::OrgTeams,
    verb: "remove-policy",
    label: "remove an access policy from the team",
    hint: "remove policy",
    key: 'X',
    writes: true,
    done: "policy removed",
    title: "Remove access policy",
    question: |item| match team(item) {
        Ok(t) => format!(
            "Take the chosen access policy away from team “{}”? Its members lose what it grants.",
            t.name
        ),
        Err(_) => String::new(),
    },
    request: |item, args| {
        Ok(ApiRequest::remove_team_policy(
            &team(item)?.id,
            policy(args)?,
        ))
    },
    tool: None,
};

/// The teams of the newer generations in the registry.
pub struct OrgTeams;

impl super::Resource for OrgTeams {
    type Item = PolicyTeam;
    const KIND: super::Kind = super::Kind::OrgTeams;
    const LISTS_MEMBERS: bool = true;
    const NOUN: &'static str = "teams";
    const NEEDED_KEY: &'static str = "the organization key";
    const GENERATIONS: &'static [Generation] = &[
        Generation::EventDestinations,
        Generation::CallbackDestinations,
    ];
    const OPS: &'static [&'static Op] = &[&ASSIGN_POLICY, &REMOVE_POLICY];
    // The same writes as pulsar's teams, without projects.
    const WRITES: &'static [super::ops::Verb] = &[
        super::teams::CREATE.verb,
        super::teams::UPDATE.verb,
        super::teams::ADD_MEMBER.verb,
        super::teams::REMOVE_MEMBER.verb,
    ];
    const WIRE_COLUMNS: &'static [(&'static str, &'static str)] = &[
        ("id", "id"),
        ("name", "name"),
        ("slug", "slug"),
        ("policies", "policies[].name"),
    ];

    fn description() -> &'static Description<PolicyTeam> {
        &ORG_TEAMS
    }

    fn id(t: &PolicyTeam) -> &str {
        &t.id
    }

    fn name(t: &PolicyTeam) -> String {
        t.name.clone()
    }

    fn heading(t: &PolicyTeam) -> String {
        format!("Team {}", t.name)
    }

    fn list(q: &ListQuery, _filter: &NotificationFilter) -> ApiRequest {
        ApiRequest::list_teams(q)
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_team(id)
    }
}
