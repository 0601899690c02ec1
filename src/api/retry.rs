//! When a delivery is tried next and when it gives up (issue 38), for every face: the console's
//! notification detail and `notifications get`'s table.
//!
//! Pulsar does not say when its next attempt is due; its rule is known (api.md §5: after `n`
//! failed attempts the next waits `min(30 min, 2^n s)` from the end of the last one, at most 20
//! attempts, then `failed`), so the times are estimates. The newer generations' deliveries carry
//! `next_attempt_at` (exact) and a retry policy (the give-up time is still an estimate).
use chrono::{DateTime, TimeDelta, Utc};

use super::model::{
    DeliveryStatus, EventDelivery, Notification, NotificationStatus, RetryPolicy, RetryStrategy,
};

/// Pulsar's attempts before a notification is `failed`.
pub const PULSAR_MAX_ATTEMPTS: u32 = 20;
/// Pulsar's longest wait between attempts, in seconds.
const PULSAR_MAX_WAIT: i64 = 30 * 60;

/// Pulsar's wait after `failed` failed attempts: `min(30 min, 2^failed s)`.
#[must_use]
pub fn pulsar_wait(failed: u32) -> TimeDelta {
    let secs = 1i64
        .checked_shl(failed)
        .filter(|s| *s > 0)
        .map_or(PULSAR_MAX_WAIT, |s| s.min(PULSAR_MAX_WAIT));
    TimeDelta::seconds(secs)
}

/// A point in time and whether it is computed from a rule (an estimate) or told by the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct When {
    /// The time.
    pub at: DateTime<Utc>,
    /// Computed from the retry rule rather than told by the server.
    pub estimate: bool,
}

/// Where a delivery stands in its retry schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Timeline {
    /// Delivered on attempt `on`.
    Delivered {
        /// The attempt that succeeded (from 1).
        on: u32,
    },
    /// No attempt is left: the platform gave up (or the delivery was cancelled).
    GaveUp {
        /// Attempts made.
        attempts: u32,
    },
    /// Another attempt will be made.
    Next {
        /// The attempt to come (from 1).
        attempt: u32,
        /// Attempts at most, when known.
        of: Option<u32>,
        /// When it is due.
        next: When,
        /// When the last attempt would fail, when known.
        gives_up: Option<When>,
    },
    /// A state this client does not know.
    Unknown,
}

impl Timeline {
    /// A pulsar notification's schedule by the platform's rule; `now` stands in for a due time
    /// already past (the platform is about to try).
    #[must_use]
    pub fn of_notification(n: &Notification, now: DateTime<Utc>) -> Self {
        let made = u32::try_from(n.attempts.len()).unwrap_or(u32::MAX);
        match n.status {
            NotificationStatus::Succeeded => Self::Delivered {
                on: n
                    .last_attempt()
                    .map_or(made, |a| u32::try_from(a.number()).unwrap_or(made)),
            },
            NotificationStatus::Failed => Self::GaveUp { attempts: made },
            NotificationStatus::Pending | NotificationStatus::Retrying
                if made < PULSAR_MAX_ATTEMPTS =>
            {
                // The wait runs from the end of the last attempt (the service stamps the due time
                // when it records the outcome).
                let ended = n.last_attempt().map(|a| {
                    let took = a.webhook_request.as_ref().map_or(0, |r| r.duration.max(0));
                    a.created_at + TimeDelta::milliseconds(took)
                });
                let next = ended.map_or(now, |e| (e + pulsar_wait(made)).max(now));
                let later: TimeDelta = (made + 1..PULSAR_MAX_ATTEMPTS).map(pulsar_wait).sum();
                Self::Next {
                    attempt: made + 1,
                    of: Some(PULSAR_MAX_ATTEMPTS),
                    next: When {
                        at: next,
                        estimate: true,
                    },
                    gives_up: Some(When {
                        at: next + later,
                        estimate: true,
                    }),
                }
            }
            NotificationStatus::Pending | NotificationStatus::Retrying => {
                Self::GaveUp { attempts: made }
            }
            NotificationStatus::Other(_) => Self::Unknown,
        }
    }

    /// A newer generation's delivery: its `next_attempt_at` as told, the give-up time from its
    /// retry policy (an estimate) when the policy says how many attempts.
    #[must_use]
    pub fn of_delivery(d: &EventDelivery, now: DateTime<Utc>) -> Self {
        match d.status {
            DeliveryStatus::Delivered => Self::Delivered {
                on: d.attempt_count,
            },
            DeliveryStatus::Failed | DeliveryStatus::Cancelled => Self::GaveUp {
                attempts: d.attempt_count,
            },
            DeliveryStatus::Pending | DeliveryStatus::Retrying => {
                let next = d.next_attempt_at.map_or(
                    When {
                        at: now,
                        estimate: true,
                    },
                    |at| When {
                        at,
                        estimate: false,
                    },
                );
                let attempt = d.attempt_count.saturating_add(1);
                let of = d.retry.as_ref().and_then(|p| p.max_attempts);
                let gives_up = d.retry.as_ref().zip(of).map(|(p, max)| {
                    let later: TimeDelta = (attempt..max).map(|n| policy_wait(p, n)).sum();
                    When {
                        at: next.at + later,
                        estimate: true,
                    }
                });
                Self::Next {
                    attempt,
                    of,
                    next,
                    gives_up,
                }
            }
            DeliveryStatus::Other(_) => Self::Unknown,
        }
    }

    /// One line for people: `attempt 6 of 20, next ≈ 14:32, gives up ≈ 19:02 (estimated from the
    /// retry rule)`, times written by `when`.
    #[must_use]
    pub fn text(&self, when: impl Fn(&DateTime<Utc>) -> String) -> String {
        let mark = |w: &When| if w.estimate { "≈ " } else { "at " };
        match self {
            Self::Delivered { on } => format!("delivered on attempt {on}"),
            Self::GaveUp { attempts } => format!("gave up after {attempts} attempts"),
            Self::Next {
                attempt,
                of,
                next,
                gives_up,
            } => {
                let mut s = match of {
                    Some(of) => format!("attempt {attempt} of {of}"),
                    None => format!("attempt {attempt}"),
                };
                s.push_str(&format!(", next {}{}", mark(next), when(&next.at)));
                if let Some(g) = gives_up {
                    s.push_str(&format!(", gives up {}{}", mark(g), when(&g.at)));
                }
                if next.estimate || gives_up.is_some_and(|g| g.estimate) {
                    s.push_str(" (≈: estimated from the retry rule)");
                }
                s
            }
            Self::Unknown => "unknown state".into(),
        }
    }
}

/// A newer generation's wait before attempt `n + 1` after `n` attempts (generations.md §7):
/// exponential base × 2^(n−1), linear base × n, fixed base; clamped to [base, max] and 1 s – 24 h.
fn policy_wait(p: &RetryPolicy, n: u32) -> TimeDelta {
    let base = i64::try_from(p.base_delay_seconds.unwrap_or(1)).unwrap_or(i64::MAX);
    let max = p
        .max_delay_seconds
        .and_then(|m| i64::try_from(m).ok())
        .unwrap_or(86_400);
    let n = i64::from(n.max(1));
    let raw = match p.strategy {
        RetryStrategy::Linear => base.saturating_mul(n),
        RetryStrategy::Fixed => base,
        _ => base.saturating_mul(
            1i64.checked_shl(u32::try_from(n - 1).unwrap_or(u32::MAX))
                .filter(|m| *m > 0)
                .unwrap_or(i64::MAX),
        ),
    };
    TimeDelta::seconds(raw.min(max).max(base).clamp(1, 86_400))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::time;

    fn n(status: &str, attempts: usize, last: &str) -> Notification {
        let attempts: Vec<_> = (0..attempts)
            .map(|i| {
                serde_json::json!({"id": format!("cbna_{i}"), "status": "failed", "index": i,
                    "created_at": last,
                    "webhook_request": {"id": "r", "url": "http://r/in", "request_method": "POST",
                        "request_body": "{}", "request_headers": {}, "response_status": 500,
                        "duration": 2000, "created_at": last}})
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "id": "cbn_1", "type": "webhook_http", "status": status, "url": "http://r/in",
            "created_at": last, "attempts": attempts,
        }))
        .expect("notification")
    }

    #[test]
    fn pulsar_waits_double_to_half_an_hour() {
        assert_eq!(pulsar_wait(1), TimeDelta::seconds(2));
        assert_eq!(pulsar_wait(5), TimeDelta::seconds(32));
        assert_eq!(pulsar_wait(11), TimeDelta::seconds(1800));
        assert_eq!(pulsar_wait(99), TimeDelta::seconds(1800));
    }

    #[test]
    fn a_retrying_notification_is_due_after_its_wait_and_gives_up_after_twenty() {
        let at = |s: &str| time::parse(s).expect("time");
        let now = at("2026-01-01T12:00:00Z");
        // Five failed attempts, the last ending at 12:00:02: the sixth waits 32 s.
        let t = Timeline::of_notification(&n("retrying", 5, "2026-01-01T12:00:00Z"), now);
        let Timeline::Next {
            attempt,
            of,
            next,
            gives_up,
        } = t.clone()
        else {
            panic!("{t:?}")
        };
        assert_eq!((attempt, of), (6, Some(20)));
        assert_eq!(next.at, at("2026-01-01T12:00:34Z"));
        // Then 64+…+1024 (2^6..2^10 = 1984 s) and nine waits of 1800 s before attempt 20.
        assert_eq!(
            gives_up.map(|g| g.at),
            Some(next.at + TimeDelta::seconds(1984 + 9 * 1800))
        );
        let text = t.text(|d| d.format("%H:%M:%S").to_string());
        assert_eq!(
            text,
            "attempt 6 of 20, next ≈ 12:00:34, gives up ≈ 17:03:38 (≈: estimated from the retry rule)"
        );
        // A due time already past is now.
        let late = Timeline::of_notification(
            &n("retrying", 5, "2026-01-01T10:00:00Z"),
            at("2026-01-01T12:00:00Z"),
        );
        assert!(matches!(late, Timeline::Next { next, .. } if next.at == now));
        assert_eq!(
            Timeline::of_notification(&n("failed", 20, "2026-01-01T10:00:00Z"), now)
                .text(|_| String::new()),
            "gave up after 20 attempts"
        );
        assert!(matches!(
            Timeline::of_notification(&n("pending", 0, "2026-01-01T10:00:00Z"), now),
            Timeline::Next { attempt: 1, next, .. } if next.at == now
        ));
    }

    #[test]
    fn a_newer_delivery_tells_its_next_attempt() {
        let d: EventDelivery = serde_json::from_value(serde_json::json!({
            "id": "evdi_1", "event_id": "evnt_1", "event_destination_id": "sed_1",
            "status": "retrying", "attempt_count": 2,
            "retry": {"strategy": "linear", "max_attempts": 4, "base_delay_seconds": 10},
            "next_attempt_at": "2026-01-01T12:00:00Z", "created_at": "2026-01-01T11:00:00Z",
        }))
        .expect("delivery");
        let now = time::parse("2026-01-01T11:59:00Z").expect("now");
        let t = Timeline::of_delivery(&d, now);
        // Attempt 3 at 12:00:00 exactly; then attempt 4 after 3 × 10 s.
        assert_eq!(
            t.text(|d| d.format("%H:%M:%S").to_string()),
            "attempt 3 of 4, next at 12:00:00, gives up ≈ 12:00:30 (≈: estimated from the retry rule)"
        );
    }
}
