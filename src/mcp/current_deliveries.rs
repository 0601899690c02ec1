//! `wait_for_notifications` and `replay_locally` on `event-destinations`, where notifications are
//! deliveries: the wait looks at the platform's status filter (no client-side scan), the replay
//! sends an attempt's recorded request (read by the attempt's id) freshly signed as the platform
//! signs (generations.md §7), to one of the operator's receivers only.
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::envelope::Answer;
use super::tools::{Args, ToolError, need, usage};
use super::wait::{DEFAULT_TIMEOUT_S, INTERVAL, MAX_COUNT, MAX_TIMEOUT_S};
use crate::api::delivery_replay::{self, RecordedError};
use crate::api::newer_requests::DeliveryFilter;
use crate::api::page::{ListQuery, Order};
use crate::api::replay::{self, SendOptions};
use crate::api::{ApiRequest, Client, Secret};

impl From<RecordedError> for ToolError {
    fn from(e: RecordedError) -> Self {
        match e {
            RecordedError::Api(e) => Self::Api(e),
            RecordedError::Missing(why) => Self::Usage(why),
        }
    }
}

/// A delivery status the wait may ask for (`succeeded` is `delivered` here, as on
/// callback-destinations).
fn status(s: Option<&str>) -> Result<&'static str, ToolError> {
    Ok(match s.map(str::trim) {
        None | Some("succeeded" | "delivered") => "delivered",
        Some("failed") => "failed",
        Some("retrying") => "retrying",
        Some("pending") => "pending",
        Some("cancelled") => "cancelled",
        Some(other) => {
            return Err(usage(format!(
                "{:?} is not a status: succeeded (delivered), failed, retrying, pending or cancelled",
                crate::text::line(other)
            )));
        }
    })
}

/// What a wait asks: the platform's filter, how many, and for how long.
fn request(a: &Args) -> Result<(DeliveryFilter, usize, Duration), ToolError> {
    let state = status(a.status.as_deref())?;
    if !a.callback_ids.is_empty() {
        return Err(usage(
            "on event-destinations deliveries are not filtered by callback: give destination_ids",
        ));
    }
    let count = a.count.unwrap_or(1);
    if !(1..=MAX_COUNT).contains(&count) {
        return Err(usage(format!("count is 1–{MAX_COUNT}")));
    }
    let timeout = a.timeout_s.unwrap_or(DEFAULT_TIMEOUT_S);
    if !(0.0..=MAX_TIMEOUT_S).contains(&timeout) {
        return Err(usage(format!("timeout_s is 0–{MAX_TIMEOUT_S}")));
    }
    for id in &a.destination_ids {
        crate::api::request::check_segment(id)?;
    }
    let filter = DeliveryFilter {
        statuses: vec![state.to_string()],
        event_destination_ids: a.destination_ids.clone(),
        ..DeliveryFilter::default()
    };
    let count = usize::try_from(count).unwrap_or(1);
    Ok((filter, count, Duration::from_secs_f64(timeout)))
}

/// One look: the newest deliveries in the state (one page: the platform filters, and a wait
/// asks for at most [`MAX_COUNT`]).
async fn look(client: &Client, f: &DeliveryFilter, count: usize) -> Result<Vec<Value>, ToolError> {
    let q = ListQuery {
        limit: u32::try_from(count).ok(),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let raw = client.send(&ApiRequest::list_deliveries(&q, f)).await?;
    let page: Value = crate::api::client::decode(raw.status, &raw.body)?;
    Ok(page
        .get("items")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default())
}

/// `wait_for_notifications` on event-destinations: the answer as on the other generations.
///
/// # Errors
/// Bad arguments, or the API's error during a look.
pub async fn wait(client: &Client, a: &Args) -> Result<Answer, ToolError> {
    let (filter, count, timeout) = request(a)?;
    let started = Instant::now();
    let deadline = started + timeout;
    let mut found: Vec<Value> = Vec::new();
    loop {
        match tokio::time::timeout_at(deadline, look(client, &filter, count)).await {
            Err(_) => break,
            Ok(items) => found = items?,
        }
        if found.len() >= count || Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep_until((Instant::now() + INTERVAL).min(deadline)).await;
    }
    let reached = found.len() >= count;
    let own = json!({
        "reached": reached,
        "timed_out": !reached,
        "status": filter.statuses.first(),
        "count": count,
        "found": found.len(),
        "examined": found.len(),
        "waited_ms": u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    });
    Ok(Answer::with_own(own, json!({ "notifications": found })))
}

/// `replay_locally` on event-destinations: the attempt's recorded request to one of `allowed`,
/// signed with the secret the operator gave the server (`mcp --replay-secret-env VAR`; the
/// platform shows it only on create and rotate), or unsigned when asked.
///
/// # Errors
/// A target not named by the operator, no secret and not `unsigned`, nothing recorded, or the
/// API's error.
pub async fn replay_locally(
    client: &Client,
    a: &Args,
    allowed: &[url::Url],
    secret: Option<&Secret>,
) -> Result<Answer, ToolError> {
    // Refused before anything is read or sent.
    let target = super::targets::allowed_target(need(a.to.as_deref(), "to")?, allowed)?;
    let secret = match (secret, a.unsigned) {
        (_, true) => None,
        (Some(s), false) => Some(s),
        (None, false) => {
            return Err(usage(
                "a delivery is signed with its destination's secret, which the platform shows only on create and rotate; this server was given none (mcp --replay-secret-env VAR): ask for unsigned, or the operator restarts it with the secret",
            ));
        }
    };
    let id = a.notification()?;
    crate::api::request::check_segment(id)?;
    let number = a.index()?.map(|i| i + 1);
    let recorded = delivery_replay::recorded(client, id, number).await?;
    let plan = delivery_replay::plan_now(&recorded, target, secret);
    let result = replay::send(
        &plan,
        &SendOptions {
            timeout: replay::TIMEOUT,
        },
    )
    .await;
    let mut report: Value = crate::headless::replay_report(&plan, &result);
    report["signed"] = json!(secret.is_some());
    Ok(Answer::platform(report))
}
