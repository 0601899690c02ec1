//! One pass over the rules: each rule judged for each thing it watches, from the API's lists
//! read through [`crate::api::lookup::walk`] (so within its bounds), with the meaning of health
//! that every face shares ([`crate::api::health::Stats`]: a retrying delivery has not succeeded).
use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{Value, json};

use super::rule::{Kind, Rule, Target};
use crate::api::generation::Generation;
use crate::api::health::{Stats, window_text};
use crate::api::lookup::{list_all, walk};
use crate::api::model::{Destination, Notification, NotificationStatus, ProviderOauthImport};
use crate::api::{ApiRequest, Client, Error, ListQuery, NotificationFilter, Order};

/// The most failing deliveries' ids an alert lists (newest first).
pub const MAX_LISTED: usize = 20;
/// The most of a receiver's answer body an alert carries.
pub const MAX_ANSWER_BODY: usize = 2048;

/// What a rule watches, one at a time.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Subject {
    /// `cld_…`.
    Destination(String),
    /// `poti_…`.
    Import(String),
}

impl Subject {
    /// The id.
    #[must_use]
    pub fn id(&self) -> &str {
        match self {
            Subject::Destination(id) | Subject::Import(id) => id,
        }
    }
}

/// A rule judged for one subject.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The rule's name.
    pub rule: String,
    /// Its `rule` word.
    pub kind: &'static str,
    /// What was judged.
    pub subject: Subject,
    /// Whether the rule is failing for it.
    pub failing: bool,
    /// When the failure began, as far as the deliveries read show (the oldest of those that
    /// make it fail); `None` when not failing.
    pub since: Option<DateTime<Utc>>,
    /// The failing deliveries' ids, newest first (at most [`MAX_LISTED`]).
    pub notifications: Vec<String>,
    /// The newest failing delivery's last answer (status, headers, body, error), unmasked
    /// here: [`super::alert`] masks it.
    pub last_answer: Option<Value>,
    /// What was measured (`failure_rate`, `tried`, `window`, `expires_at`, …).
    pub value: Value,
}

/// Judges every rule at `now`. The destinations of `"*"` rules are listed once per pass.
///
/// # Errors
/// The first failing list call (the pass is then judged again at the next one).
pub async fn evaluate(
    client: &Client,
    rules: &[Rule],
    now: DateTime<Utc>,
) -> Result<Vec<Finding>, Error> {
    let mut destinations: Option<Vec<String>> = None;
    let mut imports: Option<Vec<ProviderOauthImport>> = None;
    let mut out = Vec::new();
    // The newer generations' deliveries are read from their own lists (`super::newer`).
    let newer = match client.served().await.and_then(|c| c.generation) {
        Some(g @ (Generation::EventDestinations | Generation::CallbackDestinations)) => Some(g),
        _ => None,
    };
    for rule in rules {
        match &rule.target {
            Target::Destination(id) => out.push(destination(client, rule, id, now, newer).await?),
            Target::AllDestinations if newer.is_some() && destinations.is_none() => {
                if let Some(g) = newer {
                    destinations = Some(super::newer::destinations(client, g).await?);
                }
                for id in destinations.iter().flatten() {
                    out.push(destination(client, rule, id, now, newer).await?);
                }
            }
            Target::Imports(_) if newer.is_some() => {
                if let Some(g) = newer {
                    return Err(Error::Invalid(format!(
                        "alert {:?}: {}",
                        crate::text::line(&rule.name),
                        super::newer::no_expiry(g)
                    )));
                }
            }
            Target::AllDestinations => {
                if destinations.is_none() {
                    let all: Vec<Destination> =
                        list_all(client, |q| ApiRequest::list_destinations(q, &[])).await?;
                    destinations = Some(all.into_iter().map(|d| d.id).collect());
                }
                for id in destinations.iter().flatten() {
                    out.push(destination(client, rule, id, now, newer).await?);
                }
            }
            Target::Imports(only) => {
                if imports.is_none() {
                    imports = Some(list_all(client, ApiRequest::list_imports).await?);
                }
                let Kind::Expiring { days } = rule.kind else {
                    continue;
                };
                for i in imports.iter().flatten() {
                    if only.as_ref().is_none_or(|id| *id == i.id) {
                        out.push(expiring(rule, i, days, now));
                    }
                }
            }
        }
    }
    Ok(out)
}

fn not_succeeded(n: &Notification) -> bool {
    matches!(
        n.status,
        NotificationStatus::Failed | NotificationStatus::Retrying
    )
}

async fn destination(
    client: &Client,
    rule: &Rule,
    id: &str,
    now: DateTime<Utc>,
    newer: Option<Generation>,
) -> Result<Finding, Error> {
    // A newer generation's answers, by item id (its lists carry the error, not the answer).
    let mut answers: std::collections::HashMap<String, Value> = std::collections::HashMap::new();
    let mut f = Finding {
        rule: rule.name.clone(),
        kind: rule.kind.word(),
        subject: Subject::Destination(id.to_string()),
        failing: false,
        since: None,
        notifications: Vec::new(),
        last_answer: None,
        value: Value::Null,
    };
    // The deliveries that make it fail, newest first.
    let failed: Vec<Notification> = match rule.kind {
        Kind::FailureRate {
            threshold,
            window,
            min_deliveries,
        } => {
            let (seen, truncated) =
                window_any(client, newer, id, now - window, now, &mut answers).await?;
            let s = Stats::of(&seen);
            let (failing, rate) = failure_rate(&s, threshold, min_deliveries);
            f.failing = failing;
            f.value = json!({
                "failure_rate": rate.map(|r| (r * 1000.0).round() / 1000.0),
                "threshold": threshold,
                "failed": s.failed + s.retrying,
                "tried": s.tried(),
                "window": window_text(window),
                "truncated": truncated,
            });
            seen.into_iter().filter(not_succeeded).collect()
        }
        Kind::NoSuccess { window } => {
            let (seen, truncated) =
                window_any(client, newer, id, now - window, now, &mut answers).await?;
            let s = Stats::of(&seen);
            f.failing = s.tried() > 0 && s.succeeded == 0;
            f.value = json!({
                "succeeded": s.succeeded,
                "tried": s.tried(),
                "window": window_text(window),
                "truncated": truncated,
            });
            seen.into_iter().filter(not_succeeded).collect()
        }
        Kind::ConsecutiveFailures { count } => {
            let run = match newer {
                Some(g) => newer_run(client, g, id, count, &mut answers).await?,
                None => failing_run(client, id, count).await?,
            };
            f.failing = run.len() >= count;
            f.value = json!({"consecutive": run.len(), "count": count});
            run
        }
        Kind::Expiring { .. } => Vec::new(),
    };
    if f.failing {
        f.since = failed.iter().map(|n| n.created_at).min();
        f.notifications = failed
            .iter()
            .take(MAX_LISTED)
            .map(|n| n.id.clone())
            .collect();
        f.last_answer = failed
            .first()
            .and_then(|n| answers.get(&n.id).cloned().or_else(|| last_answer(n)));
    }
    Ok(f)
}

/// Whether `threshold` or more of the tried deliveries did not succeed (failed or retrying),
/// once at least `min` were tried; and the share that did not.
fn failure_rate(s: &Stats, threshold: f64, min: usize) -> (bool, Option<f64>) {
    let tried = s.tried();
    let rate = (tried > 0).then(|| (s.failed + s.retrying) as f64 / tried as f64);
    (tried >= min && rate.is_some_and(|r| r >= threshold), rate)
}

/// The destination's deliveries created from `from` to `now`, newest first; `true` when the
/// walk's bound stopped it before `from`.
async fn window_of(
    client: &Client,
    id: &str,
    from: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<(Vec<Notification>, bool), Error> {
    let filter = NotificationFilter {
        destination_ids: vec![id.to_string()],
        ..NotificationFilter::default()
    };
    let q = ListQuery {
        limit: Some(100),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let mut seen = Vec::new();
    let walked = walk(
        client,
        q,
        |q| ApiRequest::list_notifications(q, &filter),
        |items: Vec<Notification>| {
            let past = items.last().is_none_or(|n| n.created_at < from);
            seen.extend(
                items
                    .into_iter()
                    .filter(|n| n.created_at >= from && n.created_at <= now),
            );
            !past
        },
    )
    .await;
    match walked {
        Ok(()) => Ok((seen, false)),
        // The bound read what it may: judge those, and say so.
        Err(Error::TooManyPages { .. }) => Ok((seen, true)),
        Err(e) => Err(e),
    }
}

/// [`window_of`], or on a newer generation its own list (answers kept in `answers`).
async fn window_any(
    client: &Client,
    newer: Option<Generation>,
    id: &str,
    from: DateTime<Utc>,
    now: DateTime<Utc>,
    answers: &mut std::collections::HashMap<String, Value>,
) -> Result<(Vec<Notification>, bool), Error> {
    let Some(g) = newer else {
        return window_of(client, id, from, now).await;
    };
    let (seen, truncated) = super::newer::window(client, g, id, from, now).await?;
    let mut out = Vec::with_capacity(seen.len());
    for (n, a) in seen {
        if let Some(a) = a {
            answers.insert(n.id.clone(), a);
        }
        out.push(n);
    }
    Ok((out, truncated))
}

/// [`failing_run`] on a newer generation's list.
async fn newer_run(
    client: &Client,
    g: Generation,
    id: &str,
    count: usize,
    answers: &mut std::collections::HashMap<String, Value>,
) -> Result<Vec<Notification>, Error> {
    let mut run = Vec::new();
    super::newer::walk(client, g, id, |n, a| {
        match n.status {
            NotificationStatus::Succeeded => return false,
            NotificationStatus::Failed | NotificationStatus::Retrying => {
                if let Some(a) = a {
                    answers.insert(n.id.clone(), a);
                }
                run.push(n);
            }
            NotificationStatus::Pending | NotificationStatus::Other(_) => {}
        }
        run.len() < count
    })
    .await?;
    Ok(run)
}

/// The newest finished deliveries that did not succeed, up to `count`, newest first, stopping
/// at the first one that succeeded (pending ones are skipped).
async fn failing_run(client: &Client, id: &str, count: usize) -> Result<Vec<Notification>, Error> {
    let filter = NotificationFilter {
        destination_ids: vec![id.to_string()],
        ..NotificationFilter::default()
    };
    let q = ListQuery {
        limit: Some(u32::try_from(count.saturating_add(5).min(100)).unwrap_or(100)),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let mut run = Vec::new();
    let mut ended = false;
    let walked = walk(
        client,
        q,
        |q| ApiRequest::list_notifications(q, &filter),
        |items: Vec<Notification>| {
            for n in items {
                match n.status {
                    NotificationStatus::Succeeded => ended = true,
                    NotificationStatus::Failed | NotificationStatus::Retrying => run.push(n),
                    NotificationStatus::Pending | NotificationStatus::Other(_) => {}
                }
                if ended || run.len() >= count {
                    return false;
                }
            }
            true
        },
    )
    .await;
    match walked {
        Ok(()) | Err(Error::TooManyPages { .. }) => Ok(run),
        Err(e) => Err(e),
    }
}

/// The last attempt's answer of a delivery, its body cut to [`MAX_ANSWER_BODY`].
fn last_answer(n: &Notification) -> Option<Value> {
    let a = n.last_attempt()?;
    let r = a.webhook_request.as_ref()?;
    let body = r.response_body.as_deref().map(|b| {
        let cut: String = b.chars().take(MAX_ANSWER_BODY).collect();
        cut
    });
    Some(json!({
        "notification": n.id,
        "attempt": a.number(),
        "at": a.created_at,
        "status": (r.response_status >= 0).then_some(r.response_status),
        "error": r.request_error,
        "duration_ms": r.duration,
        "headers": r.response_headers,
        "body": body,
        "body_truncated": r.response_body.as_ref().is_some_and(|b| b.chars().count() > MAX_ANSWER_BODY),
    }))
}

fn expiring(rule: &Rule, i: &ProviderOauthImport, days: i64, now: DateTime<Utc>) -> Finding {
    let within = TimeDelta::days(days);
    let failing = i.expires_at.is_some_and(|t| t <= now + within);
    Finding {
        rule: rule.name.clone(),
        kind: rule.kind.word(),
        subject: Subject::Import(i.id.clone()),
        failing,
        since: failing
            .then(|| i.expires_at.map(|t| (t - within).max(i.created_at)))
            .flatten(),
        notifications: Vec::new(),
        last_answer: None,
        value: json!({"expires_at": i.expires_at, "days": days}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_counts_retrying_as_failed_and_waits_for_enough_deliveries() {
        let s = Stats {
            succeeded: 2,
            failed: 1,
            retrying: 1,
            pending: 5,
            ..Stats::default()
        };
        assert_eq!(failure_rate(&s, 0.5, 1), (true, Some(0.5)));
        assert_eq!(failure_rate(&s, 0.6, 1), (false, Some(0.5)));
        assert_eq!(
            failure_rate(&s, 0.5, 5),
            (false, Some(0.5)),
            "4 tried, 5 needed"
        );
        assert_eq!(failure_rate(&Stats::default(), 0.1, 1), (false, None));
    }
}
