//! The console's reads of `callback-destinations`' notifications, which have no global list or
//! get (`generations.md` §6): with a callback chosen its own list; otherwise every callback's
//! newest page merged newest first (bounded by the walk budget), and a notification looked for
//! through the callbacks.
use super::record::{PageData, decode_item};
use super::tab::Tab;
use serde_json::Value;

use crate::api::callback_gen::{callback_ids, find_notification, merged_notifications};
use crate::api::newer_requests::CallbackNotificationFilter;
use crate::api::{
    ApiRequest, Client, Error, ListQuery, NotificationFilter, Order, Page, Pagination,
};

/// Page size when the console asks for none.
const PAGE: u32 = 20;

/// Whether `tab`'s list is read here rather than by one request: the notifications with no
/// callback chosen.
pub(crate) fn merges(tab: Tab, filter: &NotificationFilter) -> bool {
    tab.through_callbacks() && filter.callback_ids.is_empty()
}

/// Every callback's newest notifications merged: one page, newest first, no cursor to follow
/// (a cursor belongs to one callback's list).
pub(crate) async fn merged_page(
    client: &Client,
    tab: Tab,
    query: &ListQuery,
    filter: &NotificationFilter,
) -> Result<PageData, Error> {
    if tab == Tab::DeploymentCallbackEvents {
        return merged_events(client, query.limit.unwrap_or(PAGE)).await;
    }
    let f = CallbackNotificationFilter {
        destination_ids: filter.destination_ids.clone(),
        statuses: filter.statuses.clone(),
    };
    let merged = merged_notifications(client, query.limit.unwrap_or(PAGE), None, &f).await?;
    let records = merged
        .items
        .into_iter()
        .map(|raw| decode_item(Tab::CallbackNotifications, raw, 200))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(PageData {
        records,
        pagination: Pagination::default(),
    })
}

/// One of `tab`'s items (a notification with its embedded request, or a callback event),
/// looked for through the callbacks.
pub(crate) async fn get(
    client: &Client,
    tab: Tab,
    id: &str,
) -> Result<super::record::Record, Error> {
    if tab == Tab::DeploymentCallbackEvents {
        return get_event(client, id).await;
    }
    match find_notification(client, id, None).await? {
        Some(found) => decode_item(Tab::CallbackNotifications, found.notification, 200),
        None => Err(Error::Invalid(format!(
            "no callback has notification {id} (looked through every callback)"
        ))),
    }
}

/// Every callback's newest events merged newest first (`callbacks events ID`'s request per
/// callback, within the walk budget): one page, no cursor to follow.
async fn merged_events(client: &Client, limit: u32) -> Result<PageData, Error> {
    let q = ListQuery {
        limit: Some(limit),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let mut meter = client.budget().meter();
    let mut items: Vec<Value> = Vec::new();
    let mut last: Option<String> = None;
    for cb in callback_ids(client).await? {
        meter.next(last.as_deref())?;
        let raw = client
            .send(&ApiRequest::list_deployment_callback_events(&q, &cb, &[]))
            .await?;
        let page: Page<Value> = crate::api::client::decode(raw.status, &raw.body)?;
        meter.count(page.items.len(), raw.body.len());
        items.extend(page.items);
        last = Some(cb);
    }
    // Newest first; an unreadable time sorts last.
    items.sort_by_key(|v| std::cmp::Reverse(created(v)));
    items.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let records = items
        .into_iter()
        .map(|raw| decode_item(Tab::DeploymentCallbackEvents, raw, 200))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(PageData {
        records,
        pagination: Pagination::default(),
    })
}

fn created(v: &Value) -> Option<chrono::DateTime<chrono::Utc>> {
    v.get("created_at")
        .and_then(Value::as_str)
        .and_then(crate::api::model::time::parse)
}

/// One callback event, asked under each callback in turn (there is no global get) within the
/// walk budget.
async fn get_event(client: &Client, id: &str) -> Result<super::record::Record, Error> {
    let mut meter = client.budget().meter();
    for cb in callback_ids(client).await? {
        meter.next(None)?;
        match client
            .send(&ApiRequest::get_deployment_callback_event(&cb, id))
            .await
        {
            Ok(raw) => {
                return super::record::decode_item_body(
                    Tab::DeploymentCallbackEvents,
                    raw.status,
                    &raw.body,
                );
            }
            Err(Error::Api(e)) if e.status == 404 => meter.count(0, 0),
            Err(e) => return Err(e),
        }
    }
    Err(Error::Invalid(format!(
        "no callback has event {id} (looked through every callback)"
    )))
}

/// What a notification key cannot do on this generation's tabs, in one sentence: compare needs
/// what this generation does not keep (a receiver's answer); edit-and-replay works on a
/// notification (its new answer shown alone).
pub(crate) fn refusal(tab: Tab, action: super::keymap::Action) -> Option<&'static str> {
    use super::keymap::Action;
    let ours = tab.notifications_of().is_some_and(Tab::through_callbacks);
    if !ours {
        return None;
    }
    Some(match action {
        Action::EditReplay if tab.one_request() => return None,
        Action::EditReplay => {
            "E edits and replays a notification's embedded request: select one on the Notifications tab."
        }
        Action::Compare => {
            "This generation keeps no receiver's answer (only an attempt count), so there is nothing to compare."
        }
        _ => return None,
    })
}
