//! Recover on `callback-destinations` (`generations.md` §6, §8): the generation has no retry, so
//! each selected notification's embedded request is sent again from this machine, signed
//! `t=…,v1=…` with its destination's `signing_secret` (unsigned, and said so, where the platform
//! omits it), on [`crate::api::recover`]'s plan, journal and bounded run. [`plan`] walks the named
//! callbacks (or every callback) newest first within the walk's budget and keeps ids, targets and
//! times; [`prepare`] reads a notification whole when its turn comes.
use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::callback_gen as cg;
use super::journal::{Journal, State};
use super::model::{CallbackDestination, CallbackNotification, NotificationStatus};
use super::newer_requests::CallbackNotificationFilter;
use super::recover::{Item, RecoverPlan, SkipReason, Skipped};
use super::replay::{self, DestinationRef, ReplayPlan};
use super::selection::WalkStats;
use super::{ApiRequest, Client, Error, ListQuery, Order, Secret};

/// Which notifications of this generation a recover sends.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallbackSelection {
    /// Only under these callbacks (`cbk_…`); none: every callback.
    pub callbacks: Vec<String>,
    /// Only to these destinations (`cbd_…`, the platform's filter).
    pub destinations: Vec<String>,
    /// Only in these states (this generation's words, the platform's filter).
    pub statuses: Vec<String>,
    /// Only of these event types; a trailing `*` matches a prefix.
    pub event_types: Vec<String>,
    /// Only those that needed more than one attempt.
    pub retried: bool,
    /// Created at or after (the server's clock).
    pub since: Option<DateTime<Utc>>,
    /// Created at or before.
    pub until: Option<DateTime<Utc>>,
    /// Exactly these notifications (`sdi_…`), found under their callbacks; the rest is not walked.
    pub notifications: Vec<String>,
}

impl CallbackSelection {
    /// Pulsar's selection in this generation's words (`succeeded` is `delivered`), or why it
    /// cannot be (the platform does not filter notifications by event).
    ///
    /// # Errors
    /// A selection naming events.
    pub fn from_selection(sel: &super::selection::Selection) -> Result<Self, String> {
        if !sel.events.is_empty() {
            return Err(
                "this generation does not filter notifications by event; a callback, a destination, statuses and the window select"
                    .into(),
            );
        }
        Ok(Self {
            callbacks: sel.callbacks.clone(),
            destinations: sel.destinations.clone(),
            statuses: sel
                .statuses
                .iter()
                .map(|s| match s.as_str() {
                    "succeeded" => "delivered".to_string(),
                    other => other.to_string(),
                })
                .collect(),
            event_types: sel.event_types.clone(),
            retried: sel.retried,
            since: sel.since,
            until: sel.until,
            notifications: sel.notifications.clone(),
        })
    }

    /// Whether a listed notification matches what the platform did not filter.
    fn matches(&self, n: &Value) -> bool {
        let kind = n
            .pointer("/event/type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let types_ok = self.event_types.is_empty()
            || self.event_types.iter().any(|t| match t.strip_suffix('*') {
                Some(prefix) => kind.starts_with(prefix),
                None => kind == t,
            });
        let t = created(n);
        let window_ok = match t {
            Some(c) => self.since.is_none_or(|s| c >= s) && self.until.is_none_or(|u| c <= u),
            None => self.since.is_none() && self.until.is_none(),
        };
        let retried_ok = !self.retried || attempts(n) > 1;
        types_ok && window_ok && retried_ok
    }
}

fn created(n: &Value) -> Option<DateTime<Utc>> {
    n.get("created_at")
        .and_then(Value::as_str)
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
}

fn attempts(n: &Value) -> u64 {
    n.get("attempt_count").and_then(Value::as_u64).unwrap_or(0)
}

fn text<'a>(n: &'a Value, k: &str) -> &'a str {
    n.get(k).and_then(Value::as_str).unwrap_or_default()
}

/// What sends a planned notification: the callback it is under and its destination's secret.
#[derive(Clone, Default, PartialEq)]
pub struct CallbackSends {
    /// Notification id → the callback it is under.
    callbacks: HashMap<String, String>,
    /// Destination id (`cbd_…`) → its name and signing secret (`None`: the platform gave none).
    destinations: HashMap<String, (String, Option<Secret>)>,
}

// Holds signing secrets: Debug shows counts only.
impl std::fmt::Debug for CallbackSends {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallbackSends")
            .field("notifications", &self.callbacks.len())
            .field("destinations", &self.destinations.len())
            .finish()
    }
}

impl CallbackSends {
    /// The destinations (`cbd_…`, name) the plan's items go out for whose secret the platform
    /// did not give: those are sent unsigned.
    #[must_use]
    pub fn unsigned(&self, plan: &RecoverPlan) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = Vec::new();
        for item in &plan.items {
            let named = self.destinations.get(&item.destination);
            let label = match named {
                Some((_, Some(_))) => continue,
                Some((name, None)) => format!("{name} ({})", item.destination),
                None => "an unknown destination".to_string(),
            };
            match out.iter_mut().find(|(l, _)| *l == label) {
                Some((_, n)) => *n += 1,
                None => out.push((label, 1)),
            }
        }
        out
    }
}

/// The sentence said when some deliveries go unsigned (none when every one is signed).
#[must_use]
pub fn unsigned_sentence(sends: &CallbackSends, plan: &RecoverPlan) -> Option<String> {
    let unsigned = sends.unsigned(plan);
    if unsigned.is_empty() {
        return None;
    }
    let n: usize = unsigned.iter().map(|(_, n)| n).sum();
    let names: Vec<&str> = unsigned.iter().map(|(l, _)| l.as_str()).collect();
    Some(format!(
        "The platform gave no signing secret for {}, so {n} of these deliver{} sent unsigned.",
        names.join(", "),
        if n == 1 { "y is" } else { "ies are" }
    ))
}

/// The notifications `sel` selects, each with the callback it is under, in the order the walk
/// read them (each callback newest first), and what the walk read; within the walk's budget.
/// Recover plans on it, `notifications export` bundles it.
///
/// # Errors
/// The API's; [`Error::TooManyPages`] past the walk's budget.
pub async fn selected(
    client: &Client,
    sel: &CallbackSelection,
) -> Result<(Vec<(String, Value)>, WalkStats), Error> {
    let mut listed: Vec<(String, Value)> = Vec::new();
    let mut walk = WalkStats::default();
    if sel.notifications.is_empty() {
        let callbacks = if sel.callbacks.is_empty() {
            cg::callback_ids(client).await?
        } else {
            sel.callbacks.clone()
        };
        let f = CallbackNotificationFilter {
            destination_ids: sel.destinations.clone(),
            statuses: sel.statuses.clone(),
        };
        for cb in &callbacks {
            super::request::check_segment(cb)?;
            let q = ListQuery {
                order: Some(Order::Desc),
                ..ListQuery::default()
            };
            super::lookup::walk(
                client,
                q,
                |q| ApiRequest::list_callback_notifications(q, cb, &f),
                |items: Vec<Value>| {
                    walk.pages += 1;
                    for n in items {
                        walk.seen += 1;
                        if let (Some(since), Some(t)) = (sel.since, created(&n))
                            && t < since
                        {
                            // Newest first: nothing further is in the window.
                            return false;
                        }
                        if sel.matches(&n) {
                            listed.push((cb.clone(), n));
                        }
                    }
                    true
                },
            )
            .await?;
        }
    } else {
        for id in &sel.notifications {
            super::request::check_segment(id)?;
            if let Some(found) = cg::find_notification(client, id, None).await? {
                walk.pages += found.asked;
                walk.seen += 1;
                listed.push((found.callback_id, found.notification));
            }
        }
    }
    Ok((listed, walk))
}

/// Plans a recover of `sel` (what sends it in [`RecoverPlan::callbacks`]): each selected notification's embedded request to `to`, or without it
/// to its destination's URL. What the journal says already succeeded, or is in doubt, is left
/// out unless its id is in `again`.
///
/// # Errors
/// The API's while reading callbacks, destinations or notifications; [`Error::TooManyPages`]
/// past the walk's budget.
pub async fn plan(
    client: &Client,
    sel: &CallbackSelection,
    to: Option<&url::Url>,
    journal: &Journal,
    again: &[String],
) -> Result<RecoverPlan, Error> {
    // Every destination once (lists include archived ones): the notification's preview names one.
    let all: Vec<CallbackDestination> =
        super::lookup::list_all_from(client, ListQuery::default(), |q| {
            ApiRequest::list_callback_destinations(q, &[])
        })
        .await?
        .into_iter()
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect();
    let (mut listed, mut walk) = selected(client, sel).await?;
    walk.selected = listed.len();
    // Sent in the order they first happened.
    listed.sort_by_key(|(_, n)| created(n));
    let mut out = RecoverPlan::default();
    let mut sends = CallbackSends::default();
    for (cb, n) in listed {
        let id = text(&n, "id").to_string();
        let Some(created_at) = created(&n) else {
            continue;
        };
        out.selected += 1;
        out.span = Some(match out.span {
            None => (created_at, created_at),
            Some((a, b)) => (a.min(created_at), b.max(created_at)),
        });
        let typed: Option<CallbackNotification> = serde_json::from_value(n.clone()).ok();
        let dest = typed.as_ref().and_then(|t| {
            all.iter()
                .find(|d| t.destination.as_ref().is_some_and(|p| p.id == d.id))
                .or_else(|| all.iter().find(|d| cg::names_destination(t, d)))
        });
        let target = match (to, dest) {
            (Some(t), _) => Ok(t.clone()),
            (None, Some(d)) => replay::parse_target(&d.url).map_err(|e| e.to_string()),
            (None, None) => Err(
                "no callback destination matches its destination, so there is no URL to send it to (--to URL sends it there)"
                    .to_string(),
            ),
        };
        let target = match target {
            Ok(t) => t,
            Err(why) => {
                out.skipped.push(Skipped {
                    notification: id,
                    reason: SkipReason::Unplannable(why),
                });
                continue;
            }
        };
        let reason = match journal.state(&id, target.as_str()) {
            _ if again.contains(&id) => None,
            Some(State::Succeeded) => Some(SkipReason::AlreadySucceeded),
            Some(State::InDoubt) => Some(SkipReason::InDoubt {
                target: target.as_str().to_string(),
                checked: None,
            }),
            Some(State::NotDelivered) | None => None,
        };
        if let Some(reason) = reason {
            out.skipped.push(Skipped {
                notification: id,
                reason,
            });
            continue;
        }
        if let Some(d) = dest
            && !sends.destinations.contains_key(&d.id)
        {
            // Lists never carry the secret: the detailed get does, when the platform gives it.
            let raw = client
                .send(&ApiRequest::get_callback_destination(&d.id))
                .await?;
            let whole: CallbackDestination = super::client::decode(raw.status, &raw.body)?;
            sends
                .destinations
                .insert(d.id.clone(), (whole.name.clone(), whole.signing_secret));
        }
        sends.callbacks.insert(id.clone(), cb);
        out.items.push(Item {
            notification_id: id,
            target,
            attempt_index: i64::try_from(attempts(&n)).unwrap_or(1).saturating_sub(1),
            destination: dest.map(|d| d.id.clone()).unwrap_or_default(),
            status: NotificationStatus::from(text(&n, "status")),
            created_at,
        });
    }
    out.walk = walk;
    out.callbacks = Some(sends);
    Ok(out)
}

/// What is sent for `item`: its notification read whole under its callback, the embedded request
/// with the platform's headers, signed now with its destination's secret when there is one.
///
/// # Errors
/// Why it cannot be sent (not read, or nothing embedded).
pub async fn prepare(
    client: &Client,
    sends: &CallbackSends,
    item: &Item,
) -> Result<ReplayPlan, String> {
    let cb = sends
        .callbacks
        .get(&item.notification_id)
        .ok_or_else(|| "the plan does not know the callback it is under".to_string())?;
    let found = cg::find_notification(client, &item.notification_id, Some(cb))
        .await
        .map_err(|e| format!("could not read the notification: {e}"))?
        .ok_or_else(|| "the notification is gone".to_string())?;
    let n: CallbackNotification = serde_json::from_value(found.notification)
        .map_err(|e| format!("could not read the notification: {e}"))?;
    let (body, mut headers) = cg::replay_request(&n)
        .ok_or_else(|| "the platform embedded no request to send again".to_string())?;
    let known = sends.destinations.get(&item.destination);
    if let Some((_, Some(secret))) = known {
        cg::sign(&mut headers, secret, Utc::now().timestamp(), &body);
    }
    Ok(ReplayPlan {
        notification_id: n.id.clone(),
        attempt_index: item.attempt_index,
        target: item.target.clone(),
        method: "POST",
        body,
        headers,
        signing: None,
        destination: known.map(|(name, _)| DestinationRef {
            id: item.destination.clone(),
            name: name.clone(),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_local_match_takes_type_prefixes_the_window_and_retried() {
        let n = json!({"created_at": "2026-04-10T13:01:01.000Z", "attempt_count": 2,
                       "event": {"type": "issues.opened"}});
        let at = |s: &str| {
            DateTime::parse_from_rfc3339(s)
                .map(|t| t.with_timezone(&Utc))
                .ok()
        };
        let mut s = CallbackSelection {
            event_types: vec!["issues.*".into()],
            retried: true,
            since: at("2026-04-10T13:00:00Z"),
            ..CallbackSelection::default()
        };
        assert!(s.matches(&n));
        s.event_types = vec!["issues.closed".into()];
        assert!(!s.matches(&n));
        s.event_types.clear();
        s.until = at("2026-04-10T13:01:00Z");
        assert!(!s.matches(&n));
    }
}
