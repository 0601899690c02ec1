//! Callbacks (read-only): type, schedule, webhook URL (its key masked).
use super::teams::dash;
use super::width::Width;
use super::{Column, DASH, Description, Headless, SortKey, absolute, field};
use crate::api::generation::Generation;
use crate::api::model::Callback;
use crate::api::secret::mask_url_key;
use crate::api::{ApiRequest, ListQuery, NotificationFilter};

/// A column of this resource.
type C = Column<Callback>;

/// `every 30 s`, `every 5 min`, `every 2 h`, without the `every`.
pub fn interval(secs: i64) -> String {
    if secs > 0 && secs % 3600 == 0 {
        format!("{} h", secs / 3600)
    } else if secs > 0 && secs % 60 == 0 {
        format!("{} min", secs / 60)
    } else {
        format!("{secs} s")
    }
}

/// The hook URL with its key (the last segment) masked: anyone holding it can post events.
fn url(c: &Callback) -> String {
    c.url.as_deref().map(mask_url_key).unwrap_or_default()
}

/// Callbacks.
pub static CALLBACKS: Description<Callback> = Description {
    name: "callbacks",
    aliases: &["callbacks", "callback", "cb", "clb"],
    id_prefix: "clb_",
    columns: &[
        // Without a name the id names it.
        C::new("Name", Width::identifying(8, 40), |c, _| {
            c.name
                .clone()
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| c.id.clone())
        })
        .sort(|c, _| SortKey::text(c.name.as_deref().filter(|n| !n.is_empty()).unwrap_or(&c.id)))
        .headless(Headless::Text(|c, _| dash(c.name.as_deref()))),
        C::new("Type", Width::fixed(15), |c, _| c.kind.to_string())
            .sort(|c, _| SortKey::text(c.kind.as_str())),
        C::new("Every", Width::fixed(7), |c, _| {
            interval(c.schedule.interval_seconds)
        })
        .sort(|c, _| SortKey::Number(c.schedule.interval_seconds))
        .headless(Headless::Text(|c, _| {
            format!("{}s", c.schedule.interval_seconds)
        })),
        C::new("Next run", Width::fixed(11), |c, x| {
            c.schedule.next_run_at.as_ref().map_or_else(
                || DASH.into(),
                |t| {
                    let when = x.when(t);
                    // A time gone by is not a future run: the console says so (its detail
                    // explains); headless prints the time itself.
                    if x.relative.is_some() && when.ends_with(" ago") {
                        "overdue".into()
                    } else {
                        when
                    }
                },
            )
        })
        .sort(|c, _| {
            c.schedule
                .next_run_at
                .map_or(SortKey::Missing, SortKey::Time)
        })
        .also(|c, _| {
            c.schedule
                .next_run_at
                .as_ref()
                .map(absolute)
                .unwrap_or_default()
        })
        .headless(Headless::Hidden),
        C::new("URL", Width::flexible(10, 60).optional(3), |c, _| {
            let u = url(c);
            if u.is_empty() { DASH.into() } else { u }
        })
        .sort(|c, _| SortKey::text(&url(c)))
        .headless(Headless::Text(|c, _| url(c))),
        C::new("Created", Width::fixed(11).optional(1), |c, x| {
            x.when(&c.created_at)
        })
        .sort(|c, _| SortKey::Time(c.created_at))
        .also(|c, _| absolute(&c.created_at)),
        C::new("ID", Width::flexible(10, 32).optional(2), |c, _| {
            c.id.clone()
        })
        .sort(|c, _| SortKey::text(&c.id))
        .muted(),
    ],
    fields: &[
        field("ID", |c| vec![c.id.clone()]),
        field("Type", |c| vec![c.kind.to_string()]),
        field("Name", |c| vec![dash(c.name.as_deref())]),
        field("URL", |c| vec![url(c)]),
        field("Interval", |c| {
            vec![format!("{}s", c.schedule.interval_seconds)]
        }),
        field("Created", |c| vec![absolute(&c.created_at)]),
        field("Description", |c| vec![dash(c.description.as_deref())]),
        field("Next run", |c| {
            vec![
                c.schedule
                    .next_run_at
                    .as_ref()
                    .map_or_else(|| "-".into(), absolute),
            ]
        }),
        field("Updated", |c| vec![absolute(&c.updated_at)]),
    ],
};

/// The callbacks resource in the registry.
pub struct Callbacks;

impl super::Resource for Callbacks {
    type Item = Callback;
    const KIND: super::Kind = super::Kind::Callbacks;
    const NOUN: &'static str = "callbacks";
    const GENERATIONS: &'static [Generation] = &[Generation::Pulsar];

    fn description() -> &'static Description<Callback> {
        &CALLBACKS
    }

    fn id(t: &Callback) -> &str {
        &t.id
    }

    fn name(t: &Callback) -> String {
        t.name.clone().unwrap_or_default()
    }

    fn heading(t: &Callback) -> String {
        format!("Callback {}", t.name.as_deref().unwrap_or(&t.id))
    }

    fn list(q: &ListQuery, _filter: &NotificationFilter) -> ApiRequest {
        ApiRequest::list_callbacks(q)
    }

    fn get(id: &str) -> ApiRequest {
        ApiRequest::get_callback(id)
    }
}
