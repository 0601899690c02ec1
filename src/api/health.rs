//! Delivery health, one meaning for every face: [`Stats`] over a stated window (counts, retried,
//! success rates, latency percentiles) for a destination's detail and `destinations stats`, and
//! [`Health`], one entry per recent delivery (outcome and duration) for a list's sparkline. Both
//! count a *retrying* notification as not succeeded.
use std::fmt::Write as _;

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;

use super::client::Client;
use super::error::Error;
use super::model::{AttemptStatus, Notification, NotificationStatus};
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

/// The one meaning of a destination's delivery health, over the notifications created in a
/// window: how many ended each way, how many needed more than one attempt, the success rates and
/// the attempts' latency. A *retrying* notification has not succeeded: it counts against the
/// success rate, as a failed one does.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Start of the window (notifications created at or after it).
    pub from: Option<DateTime<Utc>>,
    /// End of the window.
    pub to: Option<DateTime<Utc>>,
    /// Notifications counted.
    pub notifications: usize,
    /// Delivered.
    pub succeeded: usize,
    /// Gave up.
    pub failed: usize,
    /// Failed so far and will be tried again.
    pub retrying: usize,
    /// Not tried yet.
    pub pending: usize,
    /// A status this version does not know.
    pub other: usize,
    /// Needed more than one attempt (whatever their status now).
    pub retried: usize,
    /// Attempts made.
    pub attempts: usize,
    /// Attempts that succeeded.
    pub attempts_succeeded: usize,
    /// Latency of the attempts that sent a request, in milliseconds.
    pub latency_ms: Latency,
    /// Stopped reading before the window's start (more notifications than [`MAX_COUNTED`]).
    pub truncated: bool,
}

/// Nearest-rank percentiles of attempt durations.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Latency {
    /// Durations counted.
    pub samples: usize,
    /// Median.
    pub p50: Option<i64>,
    /// 95th percentile.
    pub p95: Option<i64>,
    /// 99th percentile.
    pub p99: Option<i64>,
}

/// The most notifications one window reads (100 pages of 100).
pub const MAX_COUNTED: usize = 10_000;

/// Nearest-rank percentile `p` (0–100) of sorted values.
pub fn percentile(sorted: &[i64], p: usize) -> Option<i64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank.min(sorted.len()) - 1).copied()
}

/// `part` of `whole` in percent with one decimal; `None` when `whole` is 0.
fn percent(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| (part as f64 * 1000.0 / whole as f64).round() / 10.0)
}

impl Stats {
    /// Counts these notifications (any order); the window is the caller's to state.
    pub fn of(notifications: &[Notification]) -> Self {
        let mut s = Self::default();
        let mut durations = Vec::new();
        for n in notifications {
            s.notifications += 1;
            match n.status {
                NotificationStatus::Succeeded => s.succeeded += 1,
                NotificationStatus::Failed => s.failed += 1,
                NotificationStatus::Retrying => s.retrying += 1,
                NotificationStatus::Pending => s.pending += 1,
                NotificationStatus::Other(_) => s.other += 1,
            }
            if n.attempts.len() > 1 {
                s.retried += 1;
            }
            for a in &n.attempts {
                s.attempts += 1;
                if a.status == AttemptStatus::Succeeded {
                    s.attempts_succeeded += 1;
                }
                if let Some(r) = &a.webhook_request {
                    durations.push(r.duration);
                }
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

    /// Notifications tried at least once and not in an unknown state: succeeded, failed or
    /// retrying. The success rate is over these.
    pub fn tried(&self) -> usize {
        self.succeeded + self.failed + self.retrying
    }

    /// Succeeded out of [`Stats::tried`], in percent (one decimal).
    pub fn success_percent(&self) -> Option<f64> {
        percent(self.succeeded, self.tried())
    }

    /// Succeeded attempts out of all attempts, in percent (one decimal).
    pub fn attempt_success_percent(&self) -> Option<f64> {
        percent(self.attempts_succeeded, self.attempts)
    }

    /// The window's length, when both ends are known.
    pub fn window(&self) -> Option<TimeDelta> {
        Some(self.to? - self.from?)
    }

    /// Lines for a detail view: the counts, the rates, the latency and the window.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        let over = match (self.window(), self.from, self.to) {
            (Some(w), Some(from), Some(to)) => format!(
                "over {} ({} to {})",
                window_text(w),
                from.format("%Y-%m-%d %H:%M:%SZ"),
                to.format("%Y-%m-%d %H:%M:%SZ")
            ),
            _ => "over the notifications read".into(),
        };
        if self.notifications == 0 {
            out.push(format!("no deliveries {over}"));
            return out;
        }
        let mut counts = format!(
            "{} notification{}: {} succeeded, {} failed, {} retrying, {} pending",
            self.notifications,
            if self.notifications == 1 { "" } else { "s" },
            self.succeeded,
            self.failed,
            self.retrying,
            self.pending,
        );
        if self.other > 0 {
            let _ = write!(counts, ", {} other", self.other);
        }
        let _ = write!(counts, "; {} retried", self.retried);
        out.push(counts);
        let rate = |p: Option<f64>| p.map_or_else(|| "-".to_string(), |p| format!("{p:.1}%"));
        out.push(format!(
            "success {} of tried · attempts {} of {}",
            rate(self.success_percent()),
            rate(self.attempt_success_percent()),
            self.attempts
        ));
        let ms = |v: Option<i64>| v.map_or_else(|| "-".to_string(), |v| format!("{v} ms"));
        out.push(format!(
            "latency p50 {} · p95 {} · p99 {} ({} attempts)",
            ms(self.latency_ms.p50),
            ms(self.latency_ms.p95),
            ms(self.latency_ms.p99),
            self.latency_ms.samples
        ));
        out.push(if self.truncated {
            format!("{over}; only the newest {MAX_COUNTED} read")
        } else {
            over
        });
        out
    }
}

/// The document `destinations stats -o json` prints on the newer generations (and MCP's
/// `destination_stats` there): the [`Stats`] fields, the rates, the window, and the cancelled
/// ones the rates leave out.
#[must_use]
pub fn stats_document(id: &str, name: &str, s: &Stats, window: TimeDelta) -> serde_json::Value {
    let mut doc = serde_json::json!({
        "object": "switchboard.destination_stats",
        "destination_id": id,
        "destination_name": name,
        "window": window_text(window),
        "window_seconds": window.num_seconds(),
        "success_percent": s.success_percent(),
        "attempt_success_percent": s.attempt_success_percent(),
        "cancelled": s.other,
    });
    if let (Some(o), Ok(serde_json::Value::Object(m))) =
        (doc.as_object_mut(), serde_json::to_value(s))
    {
        o.extend(m);
    }
    doc
}

/// `24h`, `90m`, `7d`, `30s`: the largest unit that divides the window (hours up to 48).
pub fn window_text(w: TimeDelta) -> String {
    let s = w.num_seconds();
    if s > 2 * 86_400 && s % 86_400 == 0 {
        format!("{}d", s / 86_400)
    } else if s > 0 && s % 3600 == 0 {
        format!("{}h", s / 3600)
    } else if s > 0 && s % 60 == 0 {
        format!("{}m", s / 60)
    } else {
        format!("{s}s")
    }
}

/// Parses a window: a number and a unit, `s`, `m`, `h` or `d` (`24h`, `90m`, `7d`).
pub fn parse_window(s: &str) -> Result<TimeDelta, String> {
    let s = s.trim();
    let digits = s.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &s[digits.len()..];
    let n: i64 = digits
        .parse()
        .map_err(|_| format!("{s:?}: give a number and a unit, e.g. 24h, 90m, 7d"))?;
    let secs = match unit {
        "s" => Some(n),
        "m" => n.checked_mul(60),
        "h" | "" => n.checked_mul(3600),
        "d" => n.checked_mul(86_400),
        other => return Err(format!("unknown unit {other:?} (s, m, h or d)")),
    };
    match secs {
        Some(secs) if secs > 0 && secs <= 366 * 86_400 => Ok(TimeDelta::seconds(secs)),
        _ => Err(format!("{s:?}: the window is from 1s to 366d")),
    }
}

/// A destination's [`Stats`] over the notifications created in the `window` before `now`,
/// read newest first until the window's start (at most [`MAX_COUNTED`] counted), within the
/// client's walk [`Budget`](super::budget::Budget).
///
/// # Errors
/// A list call's error; [`Error::TooManyPages`] past the budget.
pub async fn destination_stats(
    client: &Client,
    id: &str,
    window: TimeDelta,
    now: DateTime<Utc>,
) -> Result<Stats, Error> {
    let from = now - window;
    let filter = NotificationFilter {
        destination_ids: vec![id.to_string()],
        ..NotificationFilter::default()
    };
    let mut q = ListQuery {
        limit: Some(100),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let mut counted = Vec::new();
    let mut truncated = false;
    let mut meter = client.budget().meter();
    // Every cursor followed: a server cycling through pages must not keep us reading.
    let mut cursors = std::collections::HashSet::new();
    loop {
        let raw = client
            .send(&super::request::ApiRequest::list_notifications(&q, &filter))
            .await?;
        let page: super::page::Page<Notification> = super::client::decode(raw.status, &raw.body)?;
        meter.count(page.items.len(), raw.body.len());
        drop(raw);
        let done = !page.pagination.has_more_after
            || page.items.last().is_none_or(|n| n.created_at < from);
        let last = page.items.last().map(|n| n.id.clone());
        counted.extend(
            page.items
                .into_iter()
                .filter(|n| n.created_at >= from && n.created_at <= now),
        );
        if counted.len() >= MAX_COUNTED {
            truncated = !done;
            counted.truncate(MAX_COUNTED);
            break;
        }
        match last {
            Some(id) if !done && cursors.insert(id.clone()) => {
                meter.next(Some(&id))?;
                q.after = Some(id);
            }
            _ => break,
        }
    }
    let mut s = Stats::of(&counted);
    s.from = Some(from);
    s.to = Some(now);
    s.truncated = truncated;
    Ok(s)
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
        let (from, to) = h.window().expect("window");
        assert!(from < to);
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
        assert_eq!(Health::from_notifications(&[twice]).retried(), 1);
    }

    #[test]
    fn stats_count_retrying_as_not_succeeded_and_retried_by_attempts() {
        let mut twice = n("cbn_6", "succeeded", "2026-01-06T00:00:00Z", Some(5));
        let mut again = twice.attempts[0].clone();
        again.index = 1;
        again.status = crate::api::model::AttemptStatus::Succeeded;
        twice.attempts.push(again);
        let s = Stats::of(&[
            n("cbn_1", "succeeded", "2026-01-01T00:00:00Z", Some(10)),
            n("cbn_2", "retrying", "2026-01-02T00:00:00Z", Some(20)),
            n("cbn_3", "failed", "2026-01-03T00:00:00Z", Some(30)),
            n("cbn_4", "pending", "2026-01-04T00:00:00Z", None),
            twice,
        ]);
        assert_eq!(
            (
                s.notifications,
                s.succeeded,
                s.failed,
                s.retrying,
                s.pending,
                s.retried
            ),
            (5, 2, 1, 1, 1, 1)
        );
        // Retrying counts against the rate, pending does not: 2 of 4 tried.
        assert_eq!(s.tried(), 4);
        assert_eq!(s.success_percent(), Some(50.0));
        // Attempts: 5 made (the fixture's first attempts failed), 1 succeeded.
        assert_eq!((s.attempts, s.attempts_succeeded), (5, 1));
        assert_eq!(s.attempt_success_percent(), Some(20.0));
        assert_eq!(s.latency_ms.samples, 5);
        assert_eq!(
            (s.latency_ms.p50, s.latency_ms.p95, s.latency_ms.p99),
            (Some(10), Some(30), Some(30))
        );
        // The glance's rate means the same: retrying is not succeeded.
        let h = Health::from_notifications(&[
            n("a", "succeeded", "2026-01-01T00:00:00Z", None),
            n("b", "retrying", "2026-01-01T00:00:00Z", None),
        ]);
        assert_eq!(h.success_percent(), Some(50));
        assert_eq!(Stats::default().success_percent(), None);
        assert!(Stats::default().lines()[0].starts_with("no deliveries"));
    }

    #[test]
    fn percentiles_and_windows() {
        let v: Vec<i64> = (1..=100).collect();
        assert_eq!(percentile(&v, 50), Some(50));
        assert_eq!(percentile(&v, 99), Some(99));
        assert_eq!(percentile(&[7], 99), Some(7));
        assert_eq!(percentile(&[], 50), None);
        assert_eq!(parse_window("24h"), Ok(TimeDelta::hours(24)));
        assert_eq!(parse_window("90m"), Ok(TimeDelta::minutes(90)));
        assert_eq!(parse_window("7d"), Ok(TimeDelta::days(7)));
        assert!(parse_window("0h").is_err());
        assert!(parse_window("5w").is_err());
        assert!(parse_window("h").is_err());
        assert!(parse_window("999999999999999999d").is_err());
        assert_eq!(window_text(TimeDelta::hours(24)), "24h");
        assert_eq!(window_text(TimeDelta::days(7)), "7d");
        assert_eq!(window_text(TimeDelta::minutes(90)), "90m");
    }
}
