//! The console's reads of `callback-destinations`' notifications, which have no global list or
//! get (`generations.md` §6): with a callback chosen its own list; otherwise every callback's
//! newest page merged newest first (bounded by the walk budget), and a notification looked for
//! through the callbacks.
use super::record::{PageData, decode_item};
use super::tab::Tab;
use crate::api::callback_gen::{find_notification, merged_notifications};
use crate::api::newer_requests::CallbackNotificationFilter;
use crate::api::{Client, Error, ListQuery, NotificationFilter, Pagination};

/// Page size when the console asks for none.
const PAGE: u32 = 20;

/// Whether `tab`'s list is read here rather than by one request: the notifications with no
/// callback chosen.
pub(crate) fn merges(tab: Tab, filter: &NotificationFilter) -> bool {
    tab == Tab::CallbackNotifications && filter.callback_ids.is_empty()
}

/// Every callback's newest notifications merged: one page, newest first, no cursor to follow
/// (a cursor belongs to one callback's list).
pub(crate) async fn merged_page(
    client: &Client,
    query: &ListQuery,
    filter: &NotificationFilter,
) -> Result<PageData, Error> {
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

/// One notification with its embedded request, looked for through the callbacks.
pub(crate) async fn get(client: &Client, id: &str) -> Result<super::record::Record, Error> {
    match find_notification(client, id, None).await? {
        Some(found) => decode_item(Tab::CallbackNotifications, found.notification, 200),
        None => Err(Error::Invalid(format!(
            "no callback has notification {id} (looked through every callback)"
        ))),
    }
}

/// What a notification key cannot do on this generation's tabs, in one sentence: the console's
/// replay, marks, recover, forward and compare follow pulsar's notifications (a global list,
/// attempts with the receiver's answer), which this generation does not keep.
pub(crate) fn refusal(tab: Tab, action: super::keymap::Action) -> Option<&'static str> {
    use super::keymap::Action;
    let ours = matches!(
        tab,
        Tab::DeploymentCallbacks | Tab::CallbackDestinations | Tab::CallbackNotifications
    );
    if !ours {
        return None;
    }
    Some(match action {
        Action::EditReplay => {
            "E compares an edited replay's answer with the recorded one, and this generation keeps no receiver's answer; P replays the embedded request."
        }
        Action::Forward => "Switchboard does not forward callback-destinations' notifications yet.",
        Action::Compare => {
            "This generation keeps no receiver's answer (only an attempt count), so there is nothing to compare."
        }
        _ => return None,
    })
}
