//! Access policies (the newer generations' teams get them instead of project roles): what each
//! grants; only custom ones can be assigned to a team.
use super::teams::dash;
use super::width::Width;
use super::{Column, Description, SortKey, Tone, absolute, field, lines_or_dash};
use crate::api::generation::Generation;
use crate::api::model::{AccessPolicy, PolicyType};
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

type C = Column<AccessPolicy>;

fn tone(p: &AccessPolicy) -> Tone {
    match p.kind {
        PolicyType::Custom => Tone::Good,
        PolicyType::Other(_) => Tone::Unknown,
        _ => Tone::Off,
    }
}

/// `target: scope, scope` per entry of the policy's document.
fn grants(p: &AccessPolicy) -> Vec<String> {
    let access = p.document.get("access").and_then(|a| a.as_array());
    lines_or_dash(
        access
            .into_iter()
            .flatten()
            .map(|e| {
                let target = e.get("target").and_then(|t| t.as_str()).unwrap_or("-");
                let scopes: Vec<&str> = e
                    .get("scopes")
                    .and_then(|s| s.as_array())
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s.as_str())
                    .collect();
                format!("{target}: {}", scopes.join(", "))
            })
            .collect(),
    )
}

/// Access policies.
pub static ACCESS_POLICIES: Description<AccessPolicy> = Description {
    name: "policies",
    aliases: &["policies", "policy", "access-policies", "apl"],
    id_prefix: "apl_",
    columns: &[
        C::new("Name", Width::identifying(8, 40), |p, _| p.name.clone())
            .sort(|p, _| SortKey::text(&p.name)),
        C::new("Type", Width::fixed(10), |p, _| p.kind.to_string())
            .sort(|p, _| SortKey::text(p.kind.as_str()))
            .tone(tone),
        C::new("Slug", Width::flexible(8, 40), |p, _| {
            dash(p.slug.as_deref())
        })
        .sort(|p, _| SortKey::text(p.slug.as_deref().unwrap_or_default())),
        C::new("Instances", Width::fixed(9).optional(2), |p, _| {
            p.instances.len().to_string()
        })
        .sort(|p, _| SortKey::Number(p.instances.len() as i64)),
        C::new("ID", Width::flexible(10, 32).optional(1), |p, _| {
            p.id.clone()
        })
        .sort(|p, _| SortKey::text(&p.id))
        .muted(),
    ],
    fields: &[
        field("ID", |p| vec![p.id.clone()]),
        field("Name", |p| vec![p.name.clone()]),
        field("Slug", |p| vec![dash(p.slug.as_deref())]),
        field("Type", |p| {
            vec![match p.kind {
                PolicyType::Custom => "custom (can be assigned to a team)".into(),
                ref k => k.to_string(),
            }]
        }),
        field("Description", |p| vec![dash(p.description.as_deref())]),
        field("Grants", grants),
        field("Instances", |p| {
            lines_or_dash(
                p.instances
                    .iter()
                    .map(|i| format!("{} ({})", i.name.as_deref().unwrap_or("-"), i.id))
                    .collect(),
            )
        }),
        field("Created", |p| {
            vec![p.created_at.as_ref().map_or_else(|| "-".into(), absolute)]
        }),
    ],
};

/// The access policies in the registry.
pub struct AccessPolicies;

impl super::Resource for AccessPolicies {
    type Item = AccessPolicy;
    const KIND: super::Kind = super::Kind::AccessPolicies;
    const NOUN: &'static str = "access policies";
    const NEEDED_KEY: &'static str = "the organization key";
    const GENERATIONS: &'static [Generation] = &[
        Generation::EventDestinations,
        Generation::CallbackDestinations,
    ];
    const WIRE_COLUMNS: &'static [(&'static str, &'static str)] = &[
        ("id", "id"),
        ("name", "name"),
        ("slug", "slug"),
        ("type", "type"),
    ];

    fn description() -> &'static Description<AccessPolicy> {
        &ACCESS_POLICIES
    }

    fn id(t: &AccessPolicy) -> &str {
        &t.id
    }

    fn name(t: &AccessPolicy) -> String {
        t.name.clone()
    }

    fn heading(t: &AccessPolicy) -> String {
        format!("Policy {}", t.name)
    }

    fn list(q: &ListQuery, _filter: &NotificationFilter) -> ApiRequest {
        ApiRequest::list_access_policies(q)
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_access_policy(id)
    }
}
