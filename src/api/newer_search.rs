//! A search by content (issue 38) on the newer generations, shared by `notifications search` and
//! the console's `Ctrl-F`: what the jq expression sees of a delivery (`event-destinations`: its
//! latest attempt read by id, since a list embeds attempts with `request: null`) or of a
//! notification (`callback-destinations`: the sent request read by id, since lists embed none;
//! this generation keeps no answer, so `$response` is `null`), and the walk over their lists
//! newest first within the client's walk budget, the platform's filters applied on the server.
//! A callback-destinations walk merges every callback's pages newest first.
use std::collections::{HashSet, VecDeque};

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::budget::Meter;
use super::jq::Doc;
use super::model::{CallbackNotification, DeliveryAttempt, EventDelivery, HeaderPair};
use super::newer_requests::{CallbackNotificationFilter, DeliveryFilter};
use super::selection::PAGE;
use super::{ApiRequest, Client, Error, ListQuery, Order, Page};
use crate::text::redact;

/// Headers as EXPR sees them: an object, values through the one redaction policy.
fn masked(h: &[HeaderPair]) -> Value {
    Value::Object(
        h.iter()
            .map(|p| {
                (
                    p.key.clone(),
                    json!(redact::header_value(&p.key, &p.value, false)),
                )
            })
            .collect(),
    )
}

/// The latest attempt of a delivery that recorded a request.
#[must_use]
pub fn latest(d: &EventDelivery) -> Option<&DeliveryAttempt> {
    d.attempts
        .iter()
        .filter(|a| a.request.is_some())
        .max_by_key(|a| a.attempt_number)
}

/// What EXPR sees of a delivery: its latest attempt with a recorded request (`.` its body,
/// `$headers` masked, `$response` `{status, headers, body}`), as pulsar's search.
#[must_use]
pub fn delivery_doc(d: &EventDelivery) -> Option<Doc> {
    let a = latest(d)?;
    let r = a.request.as_ref()?;
    let response = match &a.response {
        Some(resp) => json!({
            "status": resp.status_code,
            "headers": masked(resp.headers.as_deref().unwrap_or_default()),
            "body": resp.body,
        }),
        None => json!({"status": null, "headers": {}, "body": null}),
    };
    Some(Doc {
        input: r.body.clone().unwrap_or_else(|| "null".into()),
        vars: vec![masked(&r.headers).to_string(), response.to_string()],
    })
}

/// What EXPR sees of a callback-destinations notification: the sent request's body and headers
/// (masked); `$response` is `null`, as this generation keeps no receiver's answer.
#[must_use]
pub fn callback_doc(n: &CallbackNotification) -> Option<Doc> {
    let sent = n.event.as_ref()?.request.as_ref()?;
    Some(Doc {
        input: sent.body.clone().unwrap_or_else(|| "null".into()),
        vars: vec![masked(&sent.headers).to_string(), "null".into()],
    })
}

/// One JSON document of the API.
async fn get(client: &Client, req: &ApiRequest) -> Result<Value, Error> {
    let raw = client.send(req).await?;
    super::client::decode::<Value>(raw.status, &raw.body)
}

/// Delivery `d` with its attempts read whole by id (a delivery embeds them without their
/// request): every one, or only the latest. An attempt gone since stays as embedded.
///
/// # Errors
/// The API's.
pub async fn whole_delivery(
    client: &Client,
    mut d: Value,
    only_latest: bool,
) -> Result<Value, Error> {
    // A list's delivery may leave its attempts out: read it by id.
    let listed = d
        .get("attempts")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let counted = d.get("attempt_count").and_then(Value::as_u64).unwrap_or(0);
    if (listed as u64) < counted
        && let Some(id) = d.get("id").and_then(Value::as_str).map(str::to_string)
    {
        d = get(client, &ApiRequest::get_delivery(&id)).await?;
    }
    let Some(attempts) = d.get_mut("attempts").and_then(Value::as_array_mut) else {
        return Ok(d);
    };
    let latest = attempts
        .iter()
        .filter_map(|a| a.get("attempt_number").and_then(Value::as_u64))
        .max();
    for a in attempts.iter_mut() {
        let number = a.get("attempt_number").and_then(Value::as_u64);
        if only_latest && number != latest {
            continue;
        }
        let Some(id) = a.get("id").and_then(Value::as_str).map(str::to_string) else {
            continue;
        };
        match get(client, &ApiRequest::get_delivery_attempt(&id)).await {
            Ok(full) => *a = full,
            Err(Error::Api(e)) if e.status == 404 => {}
            Err(e) => return Err(e),
        }
    }
    Ok(d)
}

/// Which list a search walks.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Source {
    /// `event-destinations`' deliveries, under these server filters.
    #[default]
    Deliveries,
    /// `callback-destinations`' notifications of these callbacks (every callback when none).
    Callbacks(Vec<String>),
}

/// One item listed, and the callback it is under (callback-destinations).
#[derive(Debug, Clone)]
pub struct Listed {
    /// The callback (callback-destinations only).
    pub callback: Option<String>,
    /// The item as the list gave it.
    pub item: Value,
}

impl Listed {
    /// Its creation time.
    #[must_use]
    pub fn created(&self) -> Option<DateTime<Utc>> {
        created(&self.item)
    }
}

fn created(v: &Value) -> Option<DateTime<Utc>> {
    v.get("created_at")
        .and_then(Value::as_str)
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
}

fn id_of(v: &Value) -> Option<String> {
    v.get("id").and_then(Value::as_str).map(str::to_string)
}

/// One callback's list as the merge reads it.
#[derive(Debug)]
struct Head {
    callback: String,
    buffered: VecDeque<Value>,
    after: Option<String>,
    more: bool,
    cursors: HashSet<String>,
}

/// A walk over a newer generation's list, newest first, within the client's walk budget (each
/// request counts as a page).
#[derive(Debug)]
pub struct Walk {
    source: Source,
    deliveries: DeliveryFilter,
    notifications: CallbackNotificationFilter,
    meter: Meter,
    after: Option<String>,
    cursors: HashSet<String>,
    ended: bool,
    heads: Option<Vec<Head>>,
}

impl Walk {
    /// A walk of `source`; the deliveries' or the notifications' server filters apply.
    #[must_use]
    pub fn new(
        client: &Client,
        source: Source,
        deliveries: DeliveryFilter,
        notifications: CallbackNotificationFilter,
    ) -> Self {
        Self {
            source,
            deliveries,
            notifications,
            meter: client.budget().meter(),
            after: None,
            cursors: HashSet::new(),
            ended: false,
            heads: None,
        }
    }

    /// Pages read so far.
    #[must_use]
    pub fn pages(&self) -> usize {
        self.meter.pages
    }

    /// The next items, newest first; empty at the end.
    ///
    /// # Errors
    /// The API's; [`Error::TooManyPages`] when the budget is spent (naming where to continue).
    pub async fn next(&mut self, client: &Client) -> Result<Vec<Listed>, Error> {
        match &self.source {
            Source::Deliveries => self.next_deliveries(client).await,
            Source::Callbacks(_) => self.next_merged(client).await,
        }
    }

    async fn next_deliveries(&mut self, client: &Client) -> Result<Vec<Listed>, Error> {
        if self.ended {
            return Ok(Vec::new());
        }
        if self.meter.pages > 0 {
            self.meter.next(self.after.as_deref())?;
        }
        let q = ListQuery {
            limit: Some(PAGE),
            order: Some(Order::Desc),
            after: self.after.clone(),
            ..ListQuery::default()
        };
        let raw = client
            .send(&ApiRequest::list_deliveries(&q, &self.deliveries))
            .await?;
        let page: Page<Value> = super::client::decode(raw.status, &raw.body)?;
        self.meter.count(page.items.len(), raw.body.len());
        match page.items.last().and_then(id_of) {
            Some(id) if page.pagination.has_more_after && self.cursors.insert(id.clone()) => {
                self.after = Some(id);
            }
            _ => self.ended = true,
        }
        Ok(page
            .items
            .into_iter()
            .map(|item| Listed {
                callback: None,
                item,
            })
            .collect())
    }

    /// Reads one page of `head`'s callback.
    async fn fill(&mut self, client: &Client, i: usize) -> Result<(), Error> {
        let Some(head) = self.heads.as_mut().and_then(|h| h.get_mut(i)) else {
            return Ok(());
        };
        if self.meter.pages > 0 {
            self.meter.next(head.after.as_deref())?;
        }
        let q = ListQuery {
            limit: Some(PAGE),
            order: Some(Order::Desc),
            after: head.after.clone(),
            ..ListQuery::default()
        };
        let raw = client
            .send(&ApiRequest::list_callback_notifications(
                &q,
                &head.callback,
                &self.notifications,
            ))
            .await?;
        let page: Page<Value> = super::client::decode(raw.status, &raw.body)?;
        self.meter.count(page.items.len(), raw.body.len());
        match page.items.last().and_then(id_of) {
            Some(id) if page.pagination.has_more_after && head.cursors.insert(id.clone()) => {
                head.after = Some(id);
                head.more = true;
            }
            _ => head.more = false,
        }
        head.buffered.extend(page.items);
        Ok(())
    }

    /// Up to a page of every callback's notifications merged newest first: each callback's list
    /// is read a page at a time as the merge reaches its end.
    async fn next_merged(&mut self, client: &Client) -> Result<Vec<Listed>, Error> {
        if self.heads.is_none() {
            let ids = match &self.source {
                Source::Callbacks(ids) if !ids.is_empty() => ids.clone(),
                _ => super::callback_gen::callback_ids(client).await?,
            };
            self.heads = Some(
                ids.into_iter()
                    .map(|callback| Head {
                        callback,
                        buffered: VecDeque::new(),
                        after: None,
                        more: true,
                        cursors: HashSet::new(),
                    })
                    .collect(),
            );
        }
        let mut out = Vec::new();
        let n = usize::try_from(PAGE).unwrap_or(100);
        while out.len() < n {
            // Every callback with more to read shows its next item before one is chosen.
            let count = self.heads.as_ref().map_or(0, Vec::len);
            for i in 0..count {
                let empty = self
                    .heads
                    .as_ref()
                    .and_then(|h| h.get(i))
                    .is_some_and(|h| h.buffered.is_empty() && h.more);
                if empty {
                    // What was merged so far is returned first; the budget's error follows.
                    if let Err(e) = self.fill(client, i).await {
                        if out.is_empty() {
                            return Err(e);
                        }
                        return Ok(out);
                    }
                }
            }
            let Some(heads) = self.heads.as_mut() else {
                break;
            };
            let newest = heads
                .iter()
                .enumerate()
                .filter_map(|(i, h)| h.buffered.front().map(|v| (i, created(v))))
                .max_by_key(|(_, t)| *t)
                .map(|(i, _)| i);
            let Some(i) = newest else {
                break;
            };
            let Some(head) = heads.get_mut(i) else {
                break;
            };
            if let Some(item) = head.buffered.pop_front() {
                out.push(Listed {
                    callback: Some(head.callback.clone()),
                    item,
                });
            }
        }
        Ok(out)
    }
}

/// Reads `listed` whole (a delivery's latest attempt, a notification's sent request, by id) and
/// what EXPR sees of it; `None` when it recorded no request (not yet attempted) or is of a
/// shape the model does not read.
///
/// # Errors
/// The API's (an item gone since is `None`).
pub async fn read(client: &Client, listed: Listed) -> Result<Option<(Value, Doc)>, Error> {
    match listed.callback {
        None => {
            // Not yet attempted: nothing to read.
            let attempted = listed
                .item
                .get("attempt_count")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                > 0;
            if !attempted {
                return Ok(None);
            }
            let v = match whole_delivery(client, listed.item, true).await {
                Ok(v) => v,
                Err(Error::Api(e)) if e.status == 404 => return Ok(None),
                Err(e) => return Err(e),
            };
            let doc = serde_json::from_value::<EventDelivery>(v.clone())
                .ok()
                .as_ref()
                .and_then(delivery_doc);
            Ok(doc.map(|d| (v, d)))
        }
        Some(cb) => {
            let Some(id) = id_of(&listed.item) else {
                return Ok(None);
            };
            let v = match get(client, &ApiRequest::get_callback_notification(&cb, &id)).await {
                Ok(v) => v,
                Err(Error::Api(e)) if e.status == 404 => return Ok(None),
                Err(e) => return Err(e),
            };
            let doc = serde_json::from_value::<CallbackNotification>(v.clone())
                .ok()
                .as_ref()
                .and_then(callback_doc);
            Ok(doc.map(|d| (v, d)))
        }
    }
}

/// Reads at once, at most.
const READS: usize = 8;

/// [`read`] of each of `page`, a few at a time, in the page's order.
pub async fn read_all(
    client: &Client,
    page: Vec<Listed>,
) -> Vec<Result<Option<(Value, Doc)>, Error>> {
    use futures::StreamExt;
    futures::stream::iter(page)
        .map(|l| read(client, l))
        .buffered(READS)
        .collect()
        .await
}
