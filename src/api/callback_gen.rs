//! What the faces of `callback-destinations` share (`generations.md` §6): there is no global
//! notification list or get, so a notification is found under its callback (or looked for
//! through the callbacks within the walk's budget), the callbacks' newest pages are merged, and
//! a replay sends the embedded `event.request` signed `t=…,v1=…` with the destination's secret.
use chrono::{DateTime, Utc};
use serde_json::Value;

use super::model::{CallbackDestination, CallbackNotification, DeploymentCallback};
use super::newer_requests::{CallbackNotificationFilter, DeploymentCallbackFilter};
use super::{ApiRequest, Client, Error, ListQuery, Order, Secret};

/// `Metorial-Version` of this generation's deliveries (§6).
pub const DELIVERY_VERSION: &str = "2025-01-01";
/// `User-Agent` of this generation's deliveries (§6).
pub const USER_AGENT: &str = "Metorial (https://metorial.com)";

/// Every callback, within the client's walk budget.
///
/// # Errors
/// The API's; [`Error::TooManyPages`] past the budget.
pub async fn callbacks(client: &Client) -> Result<Vec<Value>, Error> {
    let f = DeploymentCallbackFilter::default();
    super::lookup::list_all_from(client, ListQuery::default(), |q| {
        ApiRequest::list_deployment_callbacks(q, &f)
    })
    .await
}

fn id_of(v: &Value) -> Option<&str> {
    v.get("id").and_then(Value::as_str)
}

/// A notification found by its id.
#[derive(Debug, Clone)]
pub struct Found {
    /// The callback it is under.
    pub callback_id: String,
    /// The notification as received.
    pub notification: Value,
    /// How many callbacks were asked (1 when the callback was given).
    pub asked: usize,
}

/// Notification `id`: under `callback` when given, else looked for under every callback, within
/// the client's walk budget (each callback asked counts as a page). `None` when no callback has it.
///
/// # Errors
/// The API's (other than a callback's 404); [`Error::TooManyPages`] when the budget ran out
/// before it was found.
pub async fn find_notification(
    client: &Client,
    id: &str,
    callback: Option<&str>,
) -> Result<Option<Found>, Error> {
    if let Some(cb) = callback {
        let raw = client
            .send(&ApiRequest::get_callback_notification(cb, id))
            .await?;
        let notification = super::client::decode::<Value>(raw.status, &raw.body)?;
        return Ok(Some(Found {
            callback_id: cb.to_string(),
            notification,
            asked: 1,
        }));
    }
    let all = callbacks(client).await?;
    let mut meter = client.budget().meter();
    for (n, cb) in all.iter().filter_map(id_of).enumerate() {
        // No `--after` to continue from here: only a larger budget looks further.
        meter.next(None)?;
        let asked = n + 1;
        match client
            .send(&ApiRequest::get_callback_notification(cb, id))
            .await
        {
            Ok(raw) => {
                let notification = super::client::decode::<Value>(raw.status, &raw.body)?;
                return Ok(Some(Found {
                    callback_id: cb.to_string(),
                    notification,
                    asked,
                }));
            }
            Err(Error::Api(e)) if e.status == 404 => meter.count(0, 0),
            Err(e) => return Err(e),
        }
    }
    Ok(None)
}

/// The newest notifications of every callback merged, newest first: each callback's newest
/// page of `limit` (as filtered), within the walk's budget, cut to `limit` in all. `more` says
/// whether any callback had more than its page.
#[derive(Debug, Clone, Default)]
pub struct Merged {
    /// At most `limit`, newest first.
    pub items: Vec<Value>,
    /// Callbacks asked.
    pub callbacks: usize,
    /// Some callback had more than the page read.
    pub more: bool,
}

/// Reads [`Merged`] over `only` these callbacks, or every callback.
///
/// # Errors
/// The API's; [`Error::TooManyPages`] past the budget.
pub async fn merged_notifications(
    client: &Client,
    limit: u32,
    only: Option<&[String]>,
    f: &CallbackNotificationFilter,
) -> Result<Merged, Error> {
    let all = match only {
        Some(ids) => ids
            .iter()
            .map(|id| serde_json::json!({ "id": id }))
            .collect(),
        None => callbacks(client).await?,
    };
    let mut meter = client.budget().meter();
    let mut out = Merged::default();
    let q = ListQuery {
        limit: Some(limit),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let mut last = None;
    for cb in all.iter().filter_map(id_of) {
        meter.next(last)?;
        let raw = client
            .send(&ApiRequest::list_callback_notifications(&q, cb, f))
            .await?;
        let page: super::Page<Value> = super::client::decode(raw.status, &raw.body)?;
        meter.count(page.items.len(), raw.body.len());
        out.callbacks += 1;
        out.more |= page.pagination.has_more_after;
        out.items.extend(page.items);
        last = Some(cb);
    }
    out.items.sort_by_key(|v| std::cmp::Reverse(created(v)));
    let n = usize::try_from(limit).unwrap_or(usize::MAX);
    out.more |= out.items.len() > n;
    out.items.truncate(n);
    Ok(out)
}

/// The ids of every callback, within the client's walk budget.
///
/// # Errors
/// As [`callbacks`].
pub async fn callback_ids(client: &Client) -> Result<Vec<String>, Error> {
    Ok(callbacks(client)
        .await?
        .iter()
        .filter_map(|c| id_of(c).map(str::to_string))
        .collect())
}

/// What a wait looks for: `count` notifications in `state` (this generation's word), created
/// within the window (the server's clock).
#[derive(Debug, Clone)]
pub struct WaitFor {
    /// pending, delivered, retrying or failed.
    pub state: String,
    /// How many.
    pub count: usize,
    /// Created at or after.
    pub since: Option<DateTime<Utc>>,
    /// Created at or before.
    pub until: Option<DateTime<Utc>>,
}

/// What one look kept: at most `count` in the wanted state (and how many in all), at most
/// `count` failed ones, and how many notifications were read.
#[derive(Debug, Default)]
pub struct Looked {
    /// In the wanted state, newest first per callback.
    pub reached: Vec<Value>,
    /// How many are in the wanted state.
    pub reached_total: usize,
    /// Failed ones (when another state is wanted).
    pub failed: Vec<Value>,
    /// Notifications read.
    pub examined: usize,
}

impl Looked {
    fn keep(&mut self, n: Value, want: &WaitFor) {
        let status = n.get("status").and_then(Value::as_str).unwrap_or_default();
        if status == want.state {
            self.reached_total += 1;
            if self.reached.len() < want.count {
                self.reached.push(n);
            }
        } else if status == "failed" && self.failed.len() < want.count {
            self.failed.push(n);
        }
    }
}

/// One look of a wait: each of `callbacks`' notifications newest first to the window's start,
/// each callback's walk within the client's budget.
///
/// # Errors
/// The API's; [`Error::TooManyPages`] past a walk's budget.
pub async fn look(
    client: &Client,
    callbacks: &[String],
    f: &CallbackNotificationFilter,
    want: &WaitFor,
) -> Result<Looked, Error> {
    let mut kept = Looked::default();
    for cb in callbacks {
        let q = ListQuery {
            order: Some(Order::Desc),
            ..ListQuery::default()
        };
        super::lookup::walk(
            client,
            q,
            |q| ApiRequest::list_callback_notifications(q, cb, f),
            |items: Vec<Value>| {
                for n in items {
                    kept.examined += 1;
                    let t = created(&n);
                    if let (Some(since), Some(t)) = (want.since, t)
                        && t < since
                    {
                        // Newest first: nothing further is in the window.
                        return false;
                    }
                    if let (Some(until), Some(t)) = (want.until, t)
                        && t > until
                    {
                        continue;
                    }
                    kept.keep(n, want);
                }
                true
            },
        )
        .await?;
    }
    Ok(kept)
}

fn created(v: &Value) -> Option<DateTime<Utc>> {
    v.get("created_at")
        .and_then(Value::as_str)
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
}

/// Whether callback destination `d` is the one a notification's destination preview names: by
/// id, then by the webhook's URL, then by name (§6: the preview's id may be the delivery
/// service's `sed_…`).
#[must_use]
pub fn names_destination(n: &CallbackNotification, d: &CallbackDestination) -> bool {
    let Some(p) = &n.destination else {
        return false;
    };
    p.id == d.id
        || p.webhook.as_ref().is_some_and(|w| w.url == d.url)
        || p.name.as_deref() == Some(d.name.as_str())
}

/// The destination that sent notification `n` (under `callback_id`), with its signing secret
/// when the platform gives it. `None` when none of the callback's destinations is named.
///
/// # Errors
/// The API's.
pub async fn sender(
    client: &Client,
    callback_id: &str,
    n: &CallbackNotification,
) -> Result<Option<CallbackDestination>, Error> {
    let cb: DeploymentCallback = get(client, &ApiRequest::get_callback(callback_id)).await?;
    // The most certain match first: the id, then the URL, then the name.
    let chosen = cb
        .destinations
        .iter()
        .find(|d| n.destination.as_ref().is_some_and(|p| p.id == d.id))
        .or_else(|| cb.destinations.iter().find(|d| names_destination(n, d)));
    let Some(d) = chosen else {
        return Ok(None);
    };
    // Lists and previews never carry the secret: the detailed get does, when available.
    let whole: CallbackDestination =
        get(client, &ApiRequest::get_callback_destination(&d.id)).await?;
    Ok(Some(whole))
}

async fn get<T: serde::de::DeserializeOwned>(
    client: &Client,
    req: &ApiRequest,
) -> Result<T, Error> {
    let raw = client.send(req).await?;
    super::client::decode(raw.status, &raw.body)
}

/// The request a replay of `n` sends, unsigned: the embedded body and the platform's headers
/// (§6) with the event's own. `None` when nothing was embedded (lists embed nothing).
#[must_use]
pub fn replay_request(n: &CallbackNotification) -> Option<(String, Vec<(String, String)>)> {
    let event = n.event.as_ref()?;
    let sent = event.request.as_ref()?;
    let body = sent.body.clone()?;
    let mut headers: Vec<(String, String)> = vec![
        ("Content-Type".into(), "application/json".into()),
        ("User-Agent".into(), USER_AGENT.into()),
    ];
    if let Some(w) = n.destination.as_ref().and_then(|d| d.webhook.as_ref()) {
        headers.push(("Metorial-Webhook-Id".into(), w.id.clone()));
    }
    headers.push(("Metorial-Notification-Id".into(), n.id.clone()));
    headers.push(("Metorial-Event-Id".into(), event.id.clone()));
    headers.push(("Metorial-Version".into(), DELIVERY_VERSION.into()));
    headers.push((
        "Metorial-Delivery-Attempt".into(),
        n.attempt_count.saturating_add(1).to_string(),
    ));
    for h in &sent.headers {
        // The platform's own headers are set above; the event's are passed on.
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(&h.key)) {
            headers.push((h.key.clone(), h.value.clone()));
        }
    }
    Some((body, headers))
}

/// A replay of notification `id` (under `callback`, else looked for through the callbacks) to
/// `target`: its embedded request, signed now `t=…,v1=…` with its destination's secret unless
/// `unsigned`. Beside the plan, the one sentence saying why it goes unsigned when the platform
/// gave no secret; `Ok(Err(why))` when there is nothing to replay.
///
/// # Errors
/// The API's.
pub async fn plan_replay(
    client: &Client,
    id: &str,
    callback: Option<&str>,
    target: url::Url,
    unsigned: bool,
) -> Result<Result<(super::replay::ReplayPlan, Option<String>), String>, Error> {
    let Some(found) = find_notification(client, id, callback).await? else {
        return Ok(Err(format!(
            "no callback has notification {id} (every callback looked through)"
        )));
    };
    let n: CallbackNotification =
        serde_json::from_value(found.notification).map_err(|e| Error::Decode {
            status: 200,
            detail: e.to_string(),
        })?;
    let Some((body, mut headers)) = replay_request(&n) else {
        return Ok(Err(format!(
            "notification {id} has no embedded request to replay"
        )));
    };
    let sender = sender(client, &found.callback_id, &n).await?;
    let mut note = None;
    if !unsigned {
        match sender.as_ref().and_then(|d| d.signing_secret.as_ref()) {
            Some(secret) => sign(&mut headers, secret, chrono::Utc::now().timestamp(), &body),
            None if sender.is_some() => {
                note = Some(
                    "The platform gave no signing secret for this destination, so the replay is sent unsigned."
                        .to_string(),
                );
            }
            None => {
                note = Some(
                    "No destination of the callback matches the notification's, so its secret is unknown and the replay is sent unsigned."
                        .to_string(),
                );
            }
        }
    }
    Ok(Ok((
        super::replay::ReplayPlan {
            notification_id: n.id.clone(),
            attempt_index: i64::from(n.attempt_count.saturating_sub(1)),
            target,
            method: "POST",
            body,
            headers,
            signing: None,
            destination: sender.map(|d| super::replay::DestinationRef {
                id: d.id,
                name: d.name,
            }),
        },
        note,
    )))
}

/// Whether a plan's headers carry a signature made when it was planned (this generation's
/// plans sign then, `t=…,v1=…`, rather than through [`super::replay::Signing`]).
#[must_use]
pub fn signed_in_headers(headers: &[(String, String)]) -> bool {
    headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("Metorial-Signature"))
}

/// Adds `Metorial-Signature: t=<t>,v1=<hex HMAC-SHA256(secret, "t.body")>` (§6, no `i=`).
pub fn sign(headers: &mut Vec<(String, String)>, secret: &Secret, t: i64, body: &str) {
    headers.retain(|(k, _)| !k.eq_ignore_ascii_case("Metorial-Signature"));
    headers.push((
        "Metorial-Signature".into(),
        super::signature::signature_newer(secret.expose(), t, body),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> CallbackNotification {
        let text = include_str!(
            "../../tests/fixtures/generations/callback-destinations/notification.json"
        );
        serde_json::from_str(text).unwrap_or_else(|e| panic!("fixture: {e}"))
    }

    #[test]
    fn a_replay_is_signed_t_v1_over_t_dot_body_with_the_platform_headers() {
        let n = fixture();
        let secret = Secret::new("whsec_test");
        let Some((body, mut headers)) = replay_request(&n) else {
            panic!("the fixture embeds a request");
        };
        sign(&mut headers, &secret, 1_775_826_093, &body);
        let get = |k: &str| {
            headers
                .iter()
                .find(|(h, _)| h.eq_ignore_ascii_case(k))
                .map(|(_, v)| v.as_str())
        };
        let sig = get("Metorial-Signature").unwrap_or_default();
        assert!(sig.starts_with("t=1775826093,v1="), "{sig}");
        assert_eq!(
            crate::api::signature::verify("whsec_test", Some(sig), Some(&body)),
            Ok(())
        );
        assert_eq!(
            sig,
            crate::api::signature::signature_newer("whsec_test", 1_775_826_093, &body)
        );
        assert_eq!(get("Metorial-Notification-Id"), Some(n.id.as_str()));
        assert_eq!(get("Metorial-Event-Id"), Some("sev_0mnswzi6gvdr0UwfMpf5rg"));
        assert_eq!(
            get("Metorial-Webhook-Id"),
            Some("sdw_0mnhb6c5o7wOojmCUuBRoe")
        );
        assert_eq!(get("Metorial-Version"), Some("2025-01-01"));
        assert_eq!(get("Metorial-Delivery-Attempt"), Some("3"));
        assert_eq!(get("metorial-trigger-event-type"), Some("issues.opened"));
        let unsigned = replay_request(&n).map(|(_, h)| h).unwrap_or_default();
        assert!(
            !unsigned
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("Metorial-Signature"))
        );
    }

    #[test]
    fn a_list_item_without_an_embedded_request_has_nothing_to_replay() {
        let mut n = fixture();
        if let Some(e) = n.event.as_mut() {
            e.request = None;
        }
        assert!(replay_request(&n).is_none());
    }
}
