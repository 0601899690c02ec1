//! A view's `since` (`:view today`) on event-destinations' Deliveries, whose platform list has no
//! time filter: the worker reads the list newest first and stops at the first delivery created
//! before the window ([`crate::api::window`], as headless `list --view` does), the platform's
//! status filter kept; the list's title says the window as pulsar's Notifications does.
use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::api::window::{self, within};
use crate::api::{Client, Error, ListQuery, NotificationFilter, Order, Page, Pagination};
use crate::console::record::{PageData, decode_item};
use crate::console::state::{Core, PAGE_SIZE};
use crate::console::tab::Tab;

/// The window's start on `tab`'s list, when a view opened one there.
pub(crate) fn since(cx: &Core, tab: Tab) -> Option<DateTime<Utc>> {
    tab.windowed_on_client().then_some(cx.window).flatten()
}

/// The title chip: `since 2026-11-26 00:00` (local time), as on pulsar's Notifications.
pub(crate) fn chip(cx: &Core, tab: Tab) -> Option<String> {
    since(cx, tab).map(|t| format!("since {}", cx.clock.local(&t)))
}

/// One page of `tab`'s list within the window: from `query.after` (or the newest), read newest
/// first up to the first older item, at most `query.limit` rows. A page toward newer items
/// (`before`) or an oldest-first list is read as asked, older items left out.
///
/// # Errors
/// The API's; [`Error::TooManyPages`] past the walk budget.
pub(crate) async fn page(
    client: &Client,
    tab: Tab,
    query: &ListQuery,
    filter: &NotificationFilter,
    since: DateTime<Utc>,
) -> Result<PageData, Error> {
    let build = |q: &ListQuery| tab.list_request(q, filter);
    let decode = |items: Vec<Value>| {
        items
            .into_iter()
            .map(|raw| decode_item(tab, raw, 200))
            .collect::<Result<Vec<_>, _>>()
    };
    if query.before.is_some() || query.order == Some(Order::Asc) {
        let raw = client.send(&build(query)).await?;
        let mut page: Page<Value> = crate::api::client::decode(raw.status, &raw.body)?;
        page.items.retain(|v| within(v, since));
        return Ok(PageData {
            records: decode(page.items)?,
            pagination: page.pagination,
        });
    }
    let limit = query.limit.unwrap_or(PAGE_SIZE) as usize;
    let mut items = Vec::new();
    let walked = window::walk(client, query.after.clone(), build, since, limit, |page| {
        items.extend(page);
        true
    })
    .await?;
    Ok(PageData {
        records: decode(items)?,
        pagination: Pagination {
            has_more_before: query.after.is_some(),
            has_more_after: walked.more,
        },
    })
}
