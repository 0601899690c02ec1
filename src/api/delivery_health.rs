//! Delivery health of an `event-destinations` destination, in the one meaning of
//! [`super::health::Stats`] (pulsar's `destinations stats`): its deliveries created in a window
//! counted by status (`delivered` is succeeded; `cancelled`, which pulsar lacks, is neither tried
//! nor succeeded: `other`), those that needed more than one attempt, and their attempts (listed
//! apart: a list of deliveries carries none) with the success rate and latency percentiles.
use std::collections::HashSet;

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::Value;

use super::health::{Latency, MAX_COUNTED, Stats, percentile};
use super::model::time;
use super::newer_requests::{AttemptFilter, DeliveryFilter};
use super::{ApiRequest, Client, Error, ListQuery, Order};

fn created(v: &Value) -> Option<DateTime<Utc>> {
    v.get("created_at")
        .and_then(Value::as_str)
        .and_then(time::parse)
}

/// Reads a list newest first until an item older than `from` (at most `most` kept); whether it
/// stopped at the cap.
pub(crate) async fn newest_since(
    client: &Client,
    from: DateTime<Utc>,
    now: DateTime<Utc>,
    most: usize,
    build: impl Fn(&ListQuery) -> ApiRequest,
) -> Result<(Vec<Value>, bool), Error> {
    let mut kept = Vec::new();
    let mut capped = false;
    let q = ListQuery {
        limit: Some(100),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    super::lookup::walk(client, q, build, |page: Vec<Value>| {
        for v in page {
            match created(&v) {
                Some(c) if c < from => return false,
                Some(c) if c > now => continue,
                _ => {}
            }
            if kept.len() >= most {
                capped = true;
                return false;
            }
            kept.push(v);
        }
        true
    })
    .await?;
    Ok((kept, capped))
}

/// The [`Stats`] of deliveries and their attempts (any order).
#[must_use]
pub fn stats_of(deliveries: &[Value], attempts: &[Value]) -> Stats {
    let mut s = Stats::default();
    let mut ids = HashSet::new();
    for d in deliveries {
        s.notifications += 1;
        match d.get("status").and_then(Value::as_str).unwrap_or_default() {
            "delivered" => s.succeeded += 1,
            "failed" => s.failed += 1,
            "retrying" => s.retrying += 1,
            "pending" => s.pending += 1,
            _ => s.other += 1,
        }
        if d.get("attempt_count").and_then(Value::as_u64).unwrap_or(0) > 1 {
            s.retried += 1;
        }
        if let Some(id) = d.get("id").and_then(Value::as_str) {
            ids.insert(id.to_string());
        }
    }
    let mut durations = Vec::new();
    for a in attempts.iter().filter(|a| {
        a.get("event_delivery_id")
            .and_then(Value::as_str)
            .is_some_and(|d| ids.contains(d))
    }) {
        s.attempts += 1;
        if a.get("status").and_then(Value::as_str) == Some("succeeded") {
            s.attempts_succeeded += 1;
        }
        if let Some(ms) = a.get("duration_ms").and_then(Value::as_i64) {
            durations.push(ms);
        }
    }
    durations.sort_unstable();
    s.latency_ms = Latency {
        samples: durations.len(),
        p50: percentile(&durations, 50),
        p95: percentile(&durations, 95),
        p99: percentile(&durations, 99),
    };
    s
}

/// Destination `id`'s [`Stats`] over the deliveries created in the `window` before `now`.
///
/// # Errors
/// A list call's error, the walk's budget.
pub async fn destination_stats(
    client: &Client,
    id: &str,
    window: TimeDelta,
    now: DateTime<Utc>,
) -> Result<Stats, Error> {
    let from = now - window;
    let df = DeliveryFilter {
        event_destination_ids: vec![id.to_string()],
        ..DeliveryFilter::default()
    };
    let (deliveries, capped) = newest_since(client, from, now, MAX_COUNTED, |q| {
        ApiRequest::list_deliveries(q, &df)
    })
    .await?;
    let af = AttemptFilter {
        event_destination_ids: vec![id.to_string()],
        ..AttemptFilter::default()
    };
    // Attempts are made after their delivery was created: none older than the window counts.
    let (attempts, _) = newest_since(client, from, now + TimeDelta::days(1), MAX_COUNTED, |q| {
        ApiRequest::list_delivery_attempts(q, &af)
    })
    .await?;
    let mut s = stats_of(&deliveries, &attempts);
    s.from = Some(from);
    s.to = Some(now);
    s.truncated = capped;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn delivered_is_succeeded_and_cancelled_is_not_tried() {
        let ds = [
            json!({"id": "evdi_1", "status": "delivered", "attempt_count": 2}),
            json!({"id": "evdi_2", "status": "failed", "attempt_count": 1}),
            json!({"id": "evdi_3", "status": "cancelled", "attempt_count": 0}),
        ];
        let attempts = [
            json!({"event_delivery_id": "evdi_1", "status": "failed", "duration_ms": 30}),
            json!({"event_delivery_id": "evdi_1", "status": "succeeded", "duration_ms": 10}),
            json!({"event_delivery_id": "evdi_2", "status": "failed", "duration_ms": 20}),
            json!({"event_delivery_id": "evdi_9", "status": "succeeded", "duration_ms": 1}),
        ];
        let s = stats_of(&ds, &attempts);
        assert_eq!((s.succeeded, s.failed, s.other, s.retried), (1, 1, 1, 1));
        assert_eq!((s.attempts, s.attempts_succeeded), (3, 1));
        assert_eq!(s.tried(), 2);
        assert_eq!(s.success_percent(), Some(50.0));
        assert_eq!(s.latency_ms.p50, Some(20));
    }
}
