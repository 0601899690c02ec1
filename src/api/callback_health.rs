//! Delivery health of a `callback-destinations` destination, in the one meaning of
//! [`super::health::Stats`] (pulsar's `destinations stats`): its notifications created in a
//! window, under every callback (there is no global list; the `destination_id` filter takes the
//! `cbd_` id), counted by status (`delivered` is succeeded), those that needed more than one
//! attempt, and their attempts from each `attempt_count` (a delivered one's last attempt
//! succeeded). This generation keeps no attempts, so there are no latencies (0 samples).
use chrono::{DateTime, TimeDelta, Utc};
use serde_json::Value;

use super::health::{MAX_COUNTED, Stats};
use super::newer_requests::CallbackNotificationFilter;
use super::{ApiRequest, Client, Error};

/// The [`Stats`] of these notifications (any order); the window is the caller's to state.
#[must_use]
pub fn stats_of(notifications: &[Value]) -> Stats {
    let mut s = Stats::default();
    for n in notifications {
        s.notifications += 1;
        let status = n.get("status").and_then(Value::as_str).unwrap_or_default();
        match status {
            "delivered" => s.succeeded += 1,
            "failed" => s.failed += 1,
            "retrying" => s.retrying += 1,
            "pending" => s.pending += 1,
            _ => s.other += 1,
        }
        let tries = n
            .get("attempt_count")
            .and_then(Value::as_u64)
            .and_then(|c| usize::try_from(c).ok())
            .unwrap_or(0);
        if tries > 1 {
            s.retried += 1;
        }
        s.attempts = s.attempts.saturating_add(tries);
        if status == "delivered" && tries > 0 {
            s.attempts_succeeded += 1;
        }
    }
    s
}

/// Destination `id`'s [`Stats`] over the notifications created in the `window` before `now`,
/// read newest first under each callback within the client's walk budget (at most
/// [`MAX_COUNTED`] kept; `truncated` says so).
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
    let f = CallbackNotificationFilter {
        destination_ids: vec![id.to_string()],
        statuses: Vec::new(),
    };
    let mut kept: Vec<Value> = Vec::new();
    let mut capped = false;
    for cb in super::callback_gen::callback_ids(client).await? {
        if capped {
            break;
        }
        let (page, cut) = super::delivery_health::newest_since(
            client,
            from,
            now,
            MAX_COUNTED - kept.len(),
            |q| ApiRequest::list_callback_notifications(q, &cb, &f),
        )
        .await?;
        kept.extend(page);
        capped = cut;
    }
    let mut s = stats_of(&kept);
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
    fn delivered_is_succeeded_and_attempts_come_from_the_count() {
        let s = stats_of(&[
            json!({"status": "delivered", "attempt_count": 3}),
            json!({"status": "failed", "attempt_count": 5}),
            json!({"status": "retrying", "attempt_count": 1}),
            json!({"status": "pending", "attempt_count": 0}),
        ]);
        assert_eq!(
            (
                s.notifications,
                s.succeeded,
                s.failed,
                s.retrying,
                s.pending
            ),
            (4, 1, 1, 1, 1)
        );
        assert_eq!(s.retried, 2);
        assert_eq!((s.attempts, s.attempts_succeeded), (9, 1));
        assert_eq!(s.success_percent(), Some(33.3));
        assert_eq!(s.latency_ms.samples, 0);
    }
}
