//! Callbacks of the `event-destinations` generation: tied to integration providers, with the
//! dashboard's sync state (nothing is delivered until `synced`).
use super::teams::dash;
use super::width::Width;
use super::{Column, Description, SortKey, Tone, absolute, field, or_dash};
use crate::api::generation::Generation;
use crate::api::model::{IntegrationCallback, SyncStatus};
use crate::api::newer_requests::IntegrationCallbackFilter;
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

type C = Column<IntegrationCallback>;

/// The sync state's word (`-` when the server does not say).
fn sync(c: &IntegrationCallback) -> String {
    c.sync
        .as_ref()
        .map_or_else(|| "-".into(), |s| s.status.to_string())
}

fn sync_tone(c: &IntegrationCallback) -> Tone {
    match c.sync.as_ref().map(|s| &s.status) {
        Some(SyncStatus::Synced) => Tone::Good,
        Some(SyncStatus::Pending) => Tone::Waiting,
        Some(SyncStatus::Failed) => Tone::Bad,
        _ => Tone::Unknown,
    }
}

/// Integration callbacks.
pub static INTEGRATION_CALLBACKS: Description<IntegrationCallback> = Description {
    name: "callbacks",
    aliases: &["callbacks", "callback", "cb", "cbk"],
    id_prefix: "cbk_",
    columns: &[
        C::new("Name", Width::identifying(8, 40), |c, _| {
            c.name
                .clone()
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| c.id.clone())
        })
        .sort(|c, _| SortKey::text(c.name.as_deref().unwrap_or(&c.id))),
        C::new("Status", Width::fixed(9), |c, _| c.status.to_string())
            .sort(|c, _| SortKey::text(c.status.as_str())),
        C::new("Sync", Width::fixed(9), |c, _| sync(c))
            .sort(|c, _| SortKey::text(&sync(c)))
            .tone(sync_tone),
        C::new("Provider", Width::flexible(8, 30).optional(2), |c, _| {
            or_dash(c.provider.as_ref().and_then(|p| p.name.as_deref()))
        })
        .sort(|c, _| {
            SortKey::text(
                c.provider
                    .as_ref()
                    .and_then(|p| p.name.as_deref())
                    .unwrap_or_default(),
            )
        }),
        C::new("Created", Width::fixed(11), |c, x| x.when(&c.created_at))
            .sort(|c, _| SortKey::Time(c.created_at))
            .also(|c, _| absolute(&c.created_at)),
        C::new("ID", Width::flexible(10, 32).optional(1), |c, _| {
            c.id.clone()
        })
        .sort(|c, _| SortKey::text(&c.id))
        .muted(),
    ],
    fields: &[
        field("ID", |c| vec![c.id.clone()]),
        field("Name", |c| vec![dash(c.name.as_deref())]),
        field("Description", |c| vec![dash(c.description.as_deref())]),
        field("Status", |c| vec![c.status.to_string()]),
        field("Sync", |c| {
            vec![match c.sync.as_ref() {
                Some(s) if s.status == SyncStatus::Synced => "synced".into(),
                Some(s) => format!("{} (nothing is delivered until synced)", s.status),
                None => "-".into(),
            }]
        }),
        field("Provider", |c| {
            vec![c.provider.as_ref().map_or_else(
                || "-".into(),
                |p| format!("{} ({})", p.name.as_deref().unwrap_or("-"), p.id),
            )]
        }),
        field("Integration", |c| vec![dash(c.integration_id.as_deref())]),
        field("Integration provider", |c| {
            vec![dash(c.integration_provider_id.as_deref())]
        }),
        field("Created", |c| vec![absolute(&c.created_at)]),
    ],
};

/// Headless columns of a callback's instances (not a tab: read with `callbacks instances`).
pub const INSTANCE_WIRE_COLUMNS: &[(&str, &str)] = &[
    ("id", "id"),
    ("status", "status"),
    ("callback", "callback_id"),
    ("created", "created_at"),
];

/// The integration callbacks in the registry.
pub struct IntegrationCallbacks;

impl super::Resource for IntegrationCallbacks {
    type Item = IntegrationCallback;
    const KIND: super::Kind = super::Kind::IntegrationCallbacks;
    const NOUN: &'static str = "callbacks";
    const GENERATIONS: &'static [Generation] = &[Generation::EventDestinations];
    const WIRE_COLUMNS: &'static [(&'static str, &'static str)] = &[
        ("id", "id"),
        ("name", "name"),
        ("status", "status"),
        ("provider", "provider.name"),
        ("created", "created_at"),
    ];

    fn description() -> &'static Description<IntegrationCallback> {
        &INTEGRATION_CALLBACKS
    }

    fn id(t: &IntegrationCallback) -> &str {
        &t.id
    }

    fn name(t: &IntegrationCallback) -> String {
        t.name.clone().unwrap_or_default()
    }

    fn heading(t: &IntegrationCallback) -> String {
        format!("Callback {}", t.name.as_deref().unwrap_or(&t.id))
    }

    fn list(q: &ListQuery, _filter: &NotificationFilter) -> ApiRequest {
        ApiRequest::list_integration_callbacks(q, &IntegrationCallbackFilter::default())
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_callback(id)
    }
}
