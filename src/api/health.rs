//! A destination's health from its recent notifications: one entry per delivery (outcome and
//! duration, for a sparkline), the counts, the success rate and the time window they cover.
use std::fmt::Write as _;

use chrono::{DateTime, Utc};

use super::client::Client;
use super::error::Error;
use super::model::{Notification, NotificationStatus};
use super::page::{ListQuery, Order};
use super::request::NotificationFilter;

/// How one delivery ended, as far as it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Delivered.
    Succeeded,
    /// Gave up, or failed and will retry.
    Failed,
    /// Not tried yet (or a status this version does not know).
    Pending,
}

/// One recent delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// `cbn_…`.
    pub id: String,
    /// How it ended.
    pub outcome: Outcome,
    /// Milliseconds of its last attempt's request, when one was made.
    pub duration_ms: Option<i64>,
    /// How many attempts it took so far.
    pub attempts: usize,
    /// When the notification was created.
    pub at: DateTime<Utc>,
}

/// Health over the deliveries that were loaded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Health {
    /// Oldest first, so a sparkline reads left to right in time.
    pub deliveries: Vec<Delivery>,
}

impl Health {
    /// Health over these notifications (any order).
    #[must_use]
    pub fn from_notifications(notifications: &[Notification]) -> Self {
        let mut deliveries: Vec<Delivery> = notifications
            .iter()
            .map(|n| Delivery {
                id: n.id.clone(),
                outcome: match n.status {
                    NotificationStatus::Succeeded => Outcome::Succeeded,
                    NotificationStatus::Failed | NotificationStatus::Retrying => Outcome::Failed,
                    NotificationStatus::Pending | NotificationStatus::Other(_) => Outcome::Pending,
                },
                duration_ms: n
                    .last_attempt()
                    .and_then(|a| a.webhook_request.as_ref())
                    .map(|r| r.duration),
                attempts: n.attempts.len(),
                at: n.created_at,
            })
            .collect();
        deliveries.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.id.cmp(&b.id)));
        Self { deliveries }
    }

    /// How many deliveries ended this way.
    #[must_use]
    pub fn count(&self, outcome: Outcome) -> usize {
        self.deliveries
            .iter()
            .filter(|d| d.outcome == outcome)
            .count()
    }

    /// How many deliveries needed more than one attempt.
    #[must_use]
    pub fn retried(&self) -> usize {
        self.deliveries.iter().filter(|d| d.attempts > 1).count()
    }

    /// Succeeded over finished (succeeded or failed) deliveries, 0–100; `None` before any finished.
    #[must_use]
    pub fn success_percent(&self) -> Option<u32> {
        let ok = self.count(Outcome::Succeeded);
        let finished = ok + self.count(Outcome::Failed);
        if finished == 0 {
            return None;
        }
        // Rounded to the nearest percent in integers (no float casts).
        u32::try_from((ok * 200 + finished) / (finished * 2)).ok()
    }

    /// The first and last delivery times covered.
    #[must_use]
    pub fn window(&self) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
        Some((self.deliveries.first()?.at, self.deliveries.last()?.at))
    }

    /// One line: `12 deliveries: 10 succeeded, 2 failed (83%)`.
    #[must_use]
    pub fn summary(&self) -> String {
        let n = self.deliveries.len();
        if n == 0 {
            return "no deliveries".into();
        }
        let mut s = format!(
            "{n} deliver{}: {} succeeded, {} failed",
            if n == 1 { "y" } else { "ies" },
            self.count(Outcome::Succeeded),
            self.count(Outcome::Failed)
        );
        let pending = self.count(Outcome::Pending);
        if pending > 0 {
            let _ = write!(s, ", {pending} pending");
        }
        let retried = self.retried();
        if retried > 0 {
            let _ = write!(s, ", {retried} retried");
        }
        if let Some(p) = self.success_percent() {
            let _ = write!(s, " ({p}% succeeded)");
        }
        s
    }
}

/// The health of a destination over its `recent` newest notifications (1–100).
///
/// # Errors
/// The list call's error.
pub async fn destination_health(client: &Client, id: &str, recent: u32) -> Result<Health, Error> {
    let page = client
        .list_notifications(
            &ListQuery {
                limit: Some(recent.clamp(1, 100)),
                order: Some(Order::Desc),
                ..ListQuery::default()
            },
            &NotificationFilter {
                destination_ids: vec![id.to_string()],
                ..NotificationFilter::default()
            },
        )
        .await?;
    Ok(Health::from_notifications(&page.items))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(id: &str, status: &str, at: &str, duration: Option<i64>) -> Notification {
        let attempts = duration.map_or_else(Vec::new, |d| {
            vec![serde_json::json!({
                "id": "cbna_1", "status": "failed", "index": 0, "created_at": at,
                "webhook_request": {
                    "id": "r", "url": "http://x", "request_method": "POST",
                    "response_status": 500, "duration": d, "created_at": at,
                },
            })]
        });
        serde_json::from_value(serde_json::json!({
            "id": id, "type": "webhook_http", "status": status, "url": "http://x",
            "attempts": attempts, "created_at": at,
        }))
        .expect("notification")
    }

    #[test]
    fn counts_rate_window_and_order() {
        let h = Health::from_notifications(&[
            n("cbn_3", "failed", "2026-01-03T00:00:00Z", Some(30)),
            n("cbn_1", "succeeded", "2026-01-01T00:00:00Z", Some(10)),
            n("cbn_2", "succeeded", "2026-01-02T00:00:00Z", Some(20)),
            n("cbn_4", "pending", "2026-01-04T00:00:00Z", None),
            n("cbn_5", "retrying", "2026-01-05T00:00:00Z", Some(50)),
        ]);
        let ids: Vec<&str> = h.deliveries.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["cbn_1", "cbn_2", "cbn_3", "cbn_4", "cbn_5"]);
        assert_eq!(h.deliveries[0].duration_ms, Some(10));
        assert_eq!(h.deliveries[3].duration_ms, None);
        assert_eq!(h.success_percent(), Some(50));
        assert_eq!(
            h.summary(),
            "5 deliveries: 2 succeeded, 2 failed, 1 pending (50% succeeded)"
        );
        let (from, to) = h.window().expect("window");
        assert!(from < to);
        assert_eq!(Health::default().summary(), "no deliveries");
        assert_eq!(Health::default().success_percent(), None);
        let two_of_three = Health::from_notifications(&[
            n("a", "succeeded", "2026-01-01T00:00:00Z", None),
            n("b", "succeeded", "2026-01-01T00:00:00Z", None),
            n("c", "failed", "2026-01-01T00:00:00Z", None),
        ]);
        assert_eq!(two_of_three.success_percent(), Some(67));
        let mut twice = n("cbn_6", "succeeded", "2026-01-06T00:00:00Z", Some(5));
        let mut again = twice.attempts[0].clone();
        again.index = 1;
        twice.attempts.push(again);
        assert_eq!(
            Health::from_notifications(&[twice]).summary(),
            "1 delivery: 1 succeeded, 0 failed, 1 retried (100% succeeded)"
        );
    }
}
