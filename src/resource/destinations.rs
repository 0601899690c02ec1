//! Callback destinations: webhook URL, callback selection, recent deliveries; the signing secret
//! only masked.
use super::width::Width;
use super::{Column, Ctx, DASH, Description, Field, Headless, Kind, SortKey, absolute, field};
use crate::api::NameCache;
use chrono::TimeDelta;

use super::AnyItem;
use super::ops::{self, Op, OpArgs, ToolSpec, Verb, Write};
use crate::api::generation::Generation;
use crate::api::health::{Health, MAX_COUNTED, Stats, window_text};
use crate::api::model::{CallbackSelection, Destination, SelectionType};
use crate::api::model::{CallbacksInput, CreateDestination, UpdateDestination};
use crate::api::secret::mask;
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

/// A column of this resource.
type C = Column<Destination>;

/// `all` or `3 selected`.
fn selection(s: &CallbackSelection) -> String {
    match s.kind {
        SelectionType::All => "all".into(),
        SelectionType::Selected => {
            format!("{} selected", s.callback_ids.as_ref().map_or(0, Vec::len))
        }
        SelectionType::Other(ref o) => o.clone(),
    }
}

/// `all`, or the selected callbacks' ids.
fn selection_ids(c: &CallbackSelection) -> String {
    match (&c.kind, &c.callback_ids) {
        (SelectionType::All, _) => "all".into(),
        (_, Some(ids)) => ids.join(", "),
        (kind, None) => kind.to_string(),
    }
}

/// The destination's URL through the redaction policy (a userinfo password and secret-looking
/// query values masked): every face shows it this way.
fn url(d: &Destination) -> Option<String> {
    d.webhook_destination
        .as_ref()
        .map(|w| crate::text::redact::mask_url(&w.url))
}

/// The recent deliveries the face loaded for a destination, when it did.
fn recent<'a>(d: &Destination, c: &Ctx<'a>) -> Option<&'a Health> {
    c.health?.get(&d.id)
}

/// The glance's text: the success rate over the recent deliveries and how many there were.
pub fn glance(h: &Health) -> String {
    match (h.deliveries.len(), h.success_percent()) {
        (0, _) => "no deliveries".into(),
        (n, Some(p)) => format!("{p}% of {n}"),
        (n, None) => format!("{n} pending"),
    }
}

/// Destinations.
pub static DESTINATIONS: Description<Destination> = Description {
    name: "destinations",
    aliases: &["destinations", "destination", "dest", "ds", "cld"],
    id_prefix: "cld_",
    columns: &[
        C::new("Name", Width::identifying(8, 40), |d, c| {
            if c.deleted.is_some_and(|x| x.contains(&d.id)) {
                format!("{} (deleted)", d.name)
            } else {
                d.name.clone()
            }
        })
        .sort(|d, _| SortKey::text(&d.name)),
        C::new("URL", Width::flexible(10, 60).optional(3), |d, _| {
            url(d).unwrap_or_else(|| DASH.into())
        })
        .sort(|d, _| SortKey::text(&url(d).unwrap_or_default()))
        .headless(Headless::Text(|d, _| url(d).unwrap_or_else(|| "-".into()))),
        C::new("Callbacks", Width::fixed(10), |d, _| {
            selection(&d.callbacks)
        })
        .sort(|d, _| SortKey::text(&selection(&d.callbacks)))
        .headless(Headless::Text(|d, _| selection_ids(&d.callbacks))),
        C::new("Recent deliveries", Width::fixed(17), |d, c| {
            recent(d, c).map_or_else(|| DASH.into(), glance)
        })
        .sort(|d, c| {
            recent(d, c)
                .and_then(Health::success_percent)
                .map_or(SortKey::Missing, |p| SortKey::Number(i64::from(p)))
        })
        .headless(Headless::Hidden),
        C::new("Created", Width::fixed(11), |d, c| c.when(&d.created_at))
            .sort(|d, _| SortKey::Time(d.created_at))
            .also(|d, _| absolute(&d.created_at)),
        C::new("ID", Width::flexible(10, 32).optional(1), |d, _| {
            d.id.clone()
        })
        .sort(|d, _| SortKey::text(&d.id))
        .muted(),
    ],
    fields: &[],
};

/// The destinations resource in the registry.
pub struct Destinations;

impl super::Resource for Destinations {
    type Item = Destination;
    const KIND: super::Kind = super::Kind::Destinations;
    const STATS: bool = true;
    const NOUN: &'static str = "destinations";
    const GENERATIONS: &'static [Generation] = &[Generation::Pulsar];
    const OPS: &'static [&'static Op] = &[&DUPLICATE];
    const WRITES: &'static [Verb] = &[CREATE.verb, UPDATE.verb, DELETE.verb];

    fn description() -> &'static Description<Destination> {
        &DESTINATIONS
    }

    fn id(t: &Destination) -> &str {
        &t.id
    }

    fn name(t: &Destination) -> String {
        t.name.clone()
    }

    fn heading(t: &Destination) -> String {
        format!("Destination {}", t.name)
    }

    fn list(q: &ListQuery, filter: &NotificationFilter) -> ApiRequest {
        ApiRequest::list_destinations(q, &filter.callback_ids)
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_destination(id)
    }
}

/// `duplicate`: a new destination with the original's URL, description and callback selection,
/// named `<name> (copy)` unless a name is given; the API gives it a new signing secret.
pub static DUPLICATE: Op = Op {
    resource: Kind::Destinations,
    verb: "duplicate",
    label: "duplicate the destination (a new signing secret)",
    hint: "duplicate",
    key: 'C',
    writes: true,
    done: "duplicated",
    title: "Duplicate destination",
    question: |item| match item {
        AnyItem::Destination(d) => format!(
            "Duplicate destination “{}” ({}) as “{}”? The copy gets the same URL, description \
             and callbacks, and a new signing secret.",
            d.name,
            d.id,
            copy_name(&d.name)
        ),
        _ => String::new(),
    },
    request: duplicate,
    tool: Some(ToolSpec {
        name: "duplicate_destination",
        description: "Duplicate a destination: the same URL, description and callbacks, a new signing secret; named \"<name> (copy)\" unless name is given (only with writes allowed).",
        properties: || {
            serde_json::json!({
                "id": { "type": "string", "description": "The destination to copy (cld_…)." },
                "name": { "type": "string", "description": "The copy's name (default: \"<name> (copy)\")." }
            })
        },
        required: &["id"],
    }),
};

/// The default name of a copy.
fn copy_name(name: &str) -> String {
    format!("{name} (copy)")
}

/// The create request a copy of the destination makes.
fn duplicate(item: &AnyItem, args: &OpArgs) -> Result<ApiRequest, String> {
    let AnyItem::Destination(d) = item else {
        return Err("only a destination can be duplicated".into());
    };
    let Some(hook) = &d.webhook_destination else {
        return Err(format!("{} has no webhook URL to copy", d.id));
    };
    let name = match args.get("name").map(|n| n.trim()) {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => copy_name(&d.name),
    };
    let callbacks = match d.callbacks.kind {
        SelectionType::All => CallbacksInput::all(),
        _ => CallbacksInput::selected(d.callbacks.callback_ids.clone().unwrap_or_default()),
    };
    let description = (!d.description.is_empty()).then(|| d.description.clone());
    Ok(create(name, description, hook.url.clone(), callbacks))
}

// Writes: each operation's request from its typed inputs, once, for the console's dialogs,
// headless and the MCP server, and each as a typed value (its verb, its question, its request).

/// [`create`]'s signature.
type Create = fn(String, Option<String>, String, CallbacksInput) -> ApiRequest;
/// [`update`]'s signature.
type Update = fn(&str, Option<String>, Option<Option<String>>) -> Option<ApiRequest>;

/// `c`: a new destination.
pub const CREATE: Write<Create> = Write {
    verb: ops::CREATE,
    resource: Kind::Destinations,
    question: None,
    request: create,
};

/// `e`: the destination's name and description.
pub const UPDATE: Write<Update> = Write {
    verb: ops::UPDATE,
    resource: Kind::Destinations,
    question: None,
    request: update,
};

/// `d`: the destination deleted, asked about by its name and id (`“Ops” (dst_1)`).
pub const DELETE: Write<fn(&str) -> ApiRequest> = Write {
    verb: ops::DELETE,
    resource: Kind::Destinations,
    question: Some(|d| format!("Delete destination {d}? It stops receiving deliveries.")),
    request: delete,
};

/// `create`: a new destination posting these callbacks (all, or the selected ids) to `url`.
pub fn create(
    name: String,
    description: Option<String>,
    url: String,
    callbacks: CallbacksInput,
) -> ApiRequest {
    ApiRequest::create_destination(&CreateDestination {
        name,
        description,
        url,
        callbacks,
    })
}

/// `update`: a new name, a new description (`Some(None)` clears it), or `None` when nothing
/// would change (the URL and the callbacks cannot change on pulsar).
pub fn update(
    id: &str,
    name: Option<String>,
    description: Option<Option<String>>,
) -> Option<ApiRequest> {
    let body = UpdateDestination { name, description };
    (body != UpdateDestination::default()).then(|| ApiRequest::update_destination(id, &body))
}

/// `delete`: the destination stops receiving deliveries.
pub fn delete(id: &str) -> ApiRequest {
    ApiRequest::delete_destination(id)
}

/// The signing secret masked, saying how to get it: `-o json` gives the API's reply in full.
fn signing_secret(d: &Destination) -> String {
    d.webhook_destination.as_ref().map_or_else(
        || "-".into(),
        |w| format!("{} (masked; -o json shows it)", mask(&w.signing_secret)),
    )
}

/// A destination with what its detail view adds: whether it is deleted (the contract has no
/// status field), the names of the callbacks it selects, and its delivery health.
pub struct DestinationDetail {
    /// The API's reply.
    pub destination: Destination,
    /// `active`, `deleted`, or `unknown` when it could not be told.
    pub status: &'static str,
    /// Callback names by id, as far as known.
    pub names: NameCache,
    /// Its delivery health over a window, when it was read.
    pub health: Option<Stats>,
}

/// Fields of a destination's detail view.
pub static DESTINATION_DETAIL: &[Field<DestinationDetail>] = &[
    field("ID", |v| vec![v.destination.id.clone()]),
    field("Name", |v| vec![v.destination.name.clone()]),
    field("Status", |v| vec![v.status.to_string()]),
    field("URL", |v| {
        vec![url(&v.destination).unwrap_or_else(|| "-".into())]
    }),
    field("Callbacks", |v| match &v.destination.callbacks {
        CallbackSelection {
            kind: SelectionType::Selected,
            callback_ids: Some(ids),
        } if !ids.is_empty() => ids.iter().map(|id| v.names.label_with_id(id)).collect(),
        other => vec![selection_ids(other)],
    }),
    field("Created", |v| vec![absolute(&v.destination.created_at)]),
    field("Type", |v| vec![v.destination.kind.to_string()]),
    field("Description", |v| {
        vec![super::teams::dash(Some(&v.destination.description))]
    }),
    field("Signing secret", |v| vec![signing_secret(&v.destination)]),
    field("Health", |v| {
        v.health
            .as_ref()
            .map_or_else(|| vec!["-".into()], Stats::lines)
    }),
];

/// A destination's delivery health over a window, for `destinations stats`.
pub struct StatsView {
    /// The destination.
    pub destination: Destination,
    /// The window asked for.
    pub window: TimeDelta,
    /// Its numbers.
    pub stats: Stats,
}

impl StatsView {
    /// The JSON document `destinations stats -o json` prints: the [`Stats`] fields, the rates
    /// and the window, with the destination's id and name.
    pub fn json(&self) -> serde_json::Value {
        let mut doc = serde_json::json!({
            "object": "switchboard.destination_stats",
            "destination_id": self.destination.id,
            "destination_name": self.destination.name,
            "window": window_text(self.window),
            "window_seconds": self.window.num_seconds(),
            "success_percent": self.stats.success_percent(),
            "attempt_success_percent": self.stats.attempt_success_percent(),
        });
        if let (Some(o), Ok(serde_json::Value::Object(s))) =
            (doc.as_object_mut(), serde_json::to_value(&self.stats))
        {
            o.extend(s);
        }
        doc
    }
}

/// `12` or `-`.
fn num(v: Option<impl std::fmt::Display>) -> String {
    v.map_or_else(|| "-".into(), |v| v.to_string())
}

/// Fields of `destinations stats -o table`.
pub static STATS_FIELDS: &[Field<StatsView>] = &[
    field("Destination", |v| {
        vec![format!("{} ({})", v.destination.name, v.destination.id)]
    }),
    field("Window", |v| {
        let s = &v.stats;
        let ends = match (s.from, s.to) {
            (Some(f), Some(t)) => format!(" ({} to {})", absolute(&f), absolute(&t)),
            _ => String::new(),
        };
        vec![format!("{}{ends}", window_text(v.window))]
    }),
    field("Notifications", |v| vec![v.stats.notifications.to_string()]),
    field("Succeeded", |v| vec![v.stats.succeeded.to_string()]),
    field("Failed", |v| vec![v.stats.failed.to_string()]),
    field("Retrying", |v| vec![v.stats.retrying.to_string()]),
    field("Pending", |v| vec![v.stats.pending.to_string()]),
    field("Retried", |v| {
        vec![format!(
            "{} (needed more than one attempt)",
            v.stats.retried
        )]
    }),
    field("Success rate", |v| {
        vec![format!(
            "{} (succeeded of succeeded + failed + retrying)",
            num(v.stats.success_percent().map(|p| format!("{p:.1}%")))
        )]
    }),
    field("Attempts", |v| {
        vec![format!(
            "{} ({} succeeded, {})",
            v.stats.attempts,
            v.stats.attempts_succeeded,
            num(v
                .stats
                .attempt_success_percent()
                .map(|p| format!("{p:.1}%")))
        )]
    }),
    field("Latency p50", |v| vec![ms(v.stats.latency_ms.p50)]),
    field("Latency p95", |v| vec![ms(v.stats.latency_ms.p95)]),
    field("Latency p99", |v| vec![ms(v.stats.latency_ms.p99)]),
    field("Truncated", |v| {
        vec![if v.stats.truncated {
            format!("yes: only the newest {MAX_COUNTED} notifications were read")
        } else {
            "no".into()
        }]
    }),
];

fn ms(v: Option<i64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v} ms"))
}
