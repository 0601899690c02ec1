//! What a pass reads on the newer generations (issue 38): the destinations (event destinations,
//! callback destinations) and each one's deliveries or notifications newest first, through the
//! same walk as the search ([`crate::api::newer_search::Walk`]: the destination filtered on the
//! server; callback-destinations' notifications merged across callbacks), each read as a
//! notification with the meaning of health every face shares (`delivered` is succeeded,
//! `cancelled` counts as neither). The last answer is the item's recorded error: lists carry no
//! receiver's answer. Import expiry is pulsar's: said in one sentence here.
use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::api::generation::Generation;
use crate::api::lookup::list_all_from;
use crate::api::model::Notification;
use crate::api::newer_requests::{
    CallbackNotificationFilter, DeliveryFilter, EventDestinationFilter,
};
use crate::api::newer_search::{Source, Walk};
use crate::api::{ApiRequest, Client, Error, ListQuery};

/// Why an `expiring` rule does not apply on generation `g`.
#[must_use]
pub fn no_expiry(g: Generation) -> String {
    format!("expiring rules watch pulsar's OAuth imports; {g} gives no import expiry to watch")
}

/// Every destination's id.
///
/// # Errors
/// The API's.
pub async fn destinations(client: &Client, g: Generation) -> Result<Vec<String>, Error> {
    let all = if g == Generation::CallbackDestinations {
        list_all_from(client, ListQuery::default(), |q| {
            ApiRequest::list_callback_destinations(q, &[])
        })
        .await?
    } else {
        let f = EventDestinationFilter::default();
        list_all_from(client, ListQuery::default(), |q| {
            ApiRequest::list_event_destinations(q, &f)
        })
        .await?
    };
    Ok(all
        .iter()
        .filter(|d| d.get("status").and_then(Value::as_str) != Some("archived"))
        .filter_map(|d| d.get("id").and_then(Value::as_str).map(str::to_string))
        .collect())
}

/// An item of this generation as a notification: its id, status in pulsar's words, creation,
/// and its error as the last answer.
fn as_notification(v: &Value) -> Option<(Notification, Option<Value>)> {
    let status = match v.get("status").and_then(Value::as_str)? {
        "delivered" | "succeeded" => "succeeded",
        "failed" => "failed",
        "retrying" => "retrying",
        "pending" => "pending",
        other => other,
    };
    let n: Notification = serde_json::from_value(json!({
        "id": v.get("id")?,
        "type": "webhook_http",
        "status": status,
        "url": null,
        "created_at": v.get("created_at")?,
        "attempts": [],
    }))
    .ok()?;
    let answer = v.get("error").filter(|e| !e.is_null()).map(|e| {
        json!({
            "notification": n.id,
            "attempts": v.get("attempt_count"),
            "at": v.get("last_attempt_at"),
            "error": e,
        })
    });
    Some((n, answer))
}

/// Destination `id`'s items newest first, as long as `go_on` says (it sees each); `true` when
/// the walk's bound stopped it first.
///
/// # Errors
/// The API's.
pub async fn walk(
    client: &Client,
    g: Generation,
    id: &str,
    mut go_on: impl FnMut(Notification, Option<Value>) -> bool,
) -> Result<bool, Error> {
    let mut w = if g == Generation::CallbackDestinations {
        Walk::new(
            client,
            Source::Callbacks(Vec::new()),
            DeliveryFilter::default(),
            CallbackNotificationFilter {
                destination_ids: vec![id.to_string()],
                ..CallbackNotificationFilter::default()
            },
        )
    } else {
        Walk::new(
            client,
            Source::Deliveries,
            DeliveryFilter {
                event_destination_ids: vec![id.to_string()],
                ..DeliveryFilter::default()
            },
            CallbackNotificationFilter::default(),
        )
    };
    loop {
        let page = match w.next(client).await {
            Ok(p) if p.is_empty() => return Ok(false),
            Ok(p) => p,
            Err(Error::TooManyPages { .. }) => return Ok(true),
            Err(e) => return Err(e),
        };
        for l in page {
            if let Some((n, answer)) = as_notification(&l.item)
                && !go_on(n, answer)
            {
                return Ok(false);
            }
        }
    }
}

/// Destination `id`'s items created from `from` to `now`, newest first, with their answers;
/// `true` when the walk's bound stopped it before `from`.
///
/// # Errors
/// The API's.
pub async fn window(
    client: &Client,
    g: Generation,
    id: &str,
    from: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<(Vec<(Notification, Option<Value>)>, bool), Error> {
    let mut seen = Vec::new();
    let truncated = walk(client, g, id, |n, a| {
        if n.created_at < from {
            return false;
        }
        if n.created_at <= now {
            seen.push((n, a));
        }
        true
    })
    .await?;
    Ok((seen, truncated))
}
