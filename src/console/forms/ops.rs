//! The calls forms make: writes (answered with the changed item) and lookups for pickers.
use serde::de::DeserializeOwned;

use super::picker::PickItem;
use crate::api::model::{Callback, Project, TeamRole};
use crate::api::{ApiRequest, Client, Error, ListQuery, Page};
use crate::console::record::{Record, decode_item_body};
use crate::console::tab::Tab;

/// One write of the API: the request its resource built (`resource::<r>`'s writes or a typed
/// operation), answered with an item of that resource.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum WriteOp {
    /// The resource whose item the reply is, and the request.
    Op(Tab, ApiRequest),
}

impl WriteOp {
    /// The tab whose resource the reply is.
    pub(crate) fn tab(&self) -> Tab {
        match self {
            WriteOp::Op(tab, _) => *tab,
        }
    }

    /// The HTTP request.
    pub(crate) fn request(&self) -> ApiRequest {
        match self {
            WriteOp::Op(_, req) => req.clone(),
        }
    }
}

/// A list a picker is filled from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Lookup {
    /// `/organization/projects`.
    Projects,
    /// `/organization/team-roles`.
    TeamRoles,
    /// `/callbacks`.
    Callbacks,
    /// The connections the token imports name (`/provider-oauth/token-imports`): the API lists
    /// no connections, so the known ones are those imports already use.
    Connections,
    /// The provider deployments the callbacks of `callback-destinations` use (the client reads
    /// no deployments list; another id is typed).
    Deployments,
    /// The instances the listeners name (no instances list is read here; another id is typed).
    Instances,
    /// The integrations the callbacks of `event-destinations` belong to.
    Integrations,
    /// The integration providers those callbacks belong to.
    IntegrationProviders,
    /// One page of a registered resource's list, as its console module offers them
    /// (`DetailView::pick`).
    Items(Tab),
}

/// Items fetched per lookup (the API's largest page).
const LOOKUP_LIMIT: u32 = 100;

fn page<T: DeserializeOwned>(raw: &crate::api::client::RawResponse) -> Result<Vec<T>, Error> {
    crate::api::client::decode::<Page<T>>(raw.status, &raw.body).map(|p| p.items)
}

/// The connections named by these imports, one picker row each: the id, with how many imports
/// use it and the first one's note.
fn connections(imports: Vec<crate::api::model::ProviderOauthImport>) -> Vec<PickItem> {
    let mut out: Vec<(String, usize, String)> = Vec::new();
    for i in imports {
        let Some(id) = i.connection_id.filter(|c| !c.is_empty()) else {
            continue;
        };
        match out.iter_mut().find(|(c, _, _)| *c == id) {
            Some((_, n, _)) => *n += 1,
            None => out.push((id, 1, i.note.unwrap_or_default())),
        }
    }
    out.into_iter()
        .map(|(id, n, note)| PickItem {
            label: id.clone(),
            detail: match (n, note.is_empty()) {
                (1, true) => "used by 1 import".into(),
                (1, false) => format!("used by 1 import · {note}"),
                (n, true) => format!("used by {n} imports"),
                (n, false) => format!("used by {n} imports · {note}"),
            },
            id,
        })
        .collect()
}

/// The deployments these callbacks use, once each: the name (or id), with how many callbacks.
fn deployments(callbacks: Vec<crate::api::model::DeploymentCallback>) -> Vec<PickItem> {
    let mut out: Vec<(PickItem, usize)> = Vec::new();
    for d in callbacks.into_iter().filter_map(|c| c.provider_deployment) {
        match out.iter_mut().find(|(p, _)| p.id == d.id) {
            Some((_, n)) => *n += 1,
            None => out.push((
                PickItem {
                    label: d.name.clone().unwrap_or_else(|| d.id.clone()),
                    detail: String::new(),
                    id: d.id,
                },
                1,
            )),
        }
    }
    out.into_iter()
        .map(|(mut p, n)| {
            p.detail = format!(
                "{} · used by {n} callback{}",
                p.id,
                if n == 1 { "" } else { "s" }
            );
            p
        })
        .collect()
}

/// Ids in use, once each, with a label (or the id) and how many `noun`s use them.
fn in_use(ids: impl Iterator<Item = (String, String)>, noun: &str) -> Vec<PickItem> {
    let mut out: Vec<(String, String, usize)> = Vec::new();
    for (id, label) in ids.filter(|(i, _)| !i.is_empty()) {
        match out.iter_mut().find(|(i, _, _)| *i == id) {
            Some((_, _, n)) => *n += 1,
            None => out.push((id, label, 1)),
        }
    }
    out.into_iter()
        .map(|(id, label, n)| PickItem {
            label: if label.is_empty() { id.clone() } else { label },
            detail: format!("{id} · used by {n} {noun}{}", if n == 1 { "" } else { "s" }),
            id,
        })
        .collect()
}

/// Runs a write; the reply is the changed item.
pub(crate) async fn execute_write(client: &Client, op: &WriteOp) -> Result<Record, Error> {
    let raw = client.send(&op.request()).await?;
    let tab = op.tab();
    decode_item_body(tab, raw.status, &raw.body).or_else(|e| {
        // An operation may answer with another resource's item (a ping, its delivery): the
        // reply is the resource its id names.
        let other = serde_json::from_str::<serde_json::Value>(&raw.body)
            .ok()
            .and_then(|v| v.get("id").and_then(|i| i.as_str()).and_then(Tab::of_id))
            .filter(|k| *k != tab);
        match other {
            Some(k) => decode_item_body(k, raw.status, &raw.body),
            None => Err(e),
        }
    })
}

/// Runs a lookup; the reply is the picker's items.
pub(crate) async fn execute_lookup(
    client: &Client,
    what: Lookup,
    pick: fn(&Record) -> Option<PickItem>,
) -> Result<Vec<PickItem>, Error> {
    let q = ListQuery {
        limit: Some(LOOKUP_LIMIT),
        ..ListQuery::default()
    };
    let items = match what {
        Lookup::Projects => {
            let raw = client.send(&ApiRequest::list_projects(&q)).await?;
            page::<Project>(&raw)?
                .into_iter()
                .map(|p| PickItem {
                    label: p.name,
                    detail: p.slug,
                    id: p.id,
                })
                .collect()
        }
        Lookup::TeamRoles => {
            let raw = client.send(&ApiRequest::list_team_roles(&q)).await?;
            page::<TeamRole>(&raw)?
                .into_iter()
                .map(|r| PickItem {
                    label: r.name,
                    detail: r.permissions.join(", "),
                    id: r.id,
                })
                .collect()
        }
        Lookup::Callbacks => {
            let raw = client.send(&ApiRequest::list_callbacks(&q)).await?;
            page::<Callback>(&raw)?
                .into_iter()
                .map(|c| PickItem {
                    label: c.name.unwrap_or_else(|| c.id.clone()),
                    detail: c.description.unwrap_or_default(),
                    id: c.id,
                })
                .collect()
        }
        Lookup::Connections => {
            let raw = client.send(&ApiRequest::list_imports(&q)).await?;
            connections(page::<crate::api::model::ProviderOauthImport>(&raw)?)
        }
        Lookup::Deployments => {
            let f = crate::api::newer_requests::DeploymentCallbackFilter::default();
            let raw = client
                .send(&ApiRequest::list_deployment_callbacks(&q, &f))
                .await?;
            deployments(page::<crate::api::model::DeploymentCallback>(&raw)?)
        }
        Lookup::Instances => {
            let f = crate::api::newer_requests::ListenerFilter::default();
            let raw = client.send(&ApiRequest::list_listeners(&q, &f)).await?;
            let ids = page::<crate::api::model::Listener>(&raw)?
                .into_iter()
                .filter_map(|l| l.instance_id);
            in_use(ids.map(|i| (i, String::new())), "listener")
        }
        Lookup::Integrations | Lookup::IntegrationProviders => {
            let f = crate::api::newer_requests::IntegrationCallbackFilter::default();
            let raw = client
                .send(&ApiRequest::list_integration_callbacks(&q, &f))
                .await?;
            let callbacks = page::<crate::api::model::IntegrationCallback>(&raw)?;
            let pairs = callbacks.into_iter().filter_map(|c| {
                let provider = c.provider.and_then(|p| p.name).unwrap_or_default();
                if what == Lookup::Integrations {
                    c.integration_id.map(|i| (i, provider))
                } else {
                    c.integration_provider_id.map(|i| (i, provider))
                }
            });
            in_use(pairs, "callback")
        }
        Lookup::Items(tab) => {
            let raw = client
                .send(&tab.list_request(&q, &Default::default()))
                .await?;
            crate::console::record::decode_page_body(tab, raw.status, &raw.body)?
                .records
                .iter()
                .filter_map(pick)
                .collect()
        }
    };
    Ok(items)
}
