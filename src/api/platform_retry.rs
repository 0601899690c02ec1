//! Recover on `event-destinations` (issue 34): the platform itself delivers again. Each finished
//! delivery a selection matches is asked to be retried (`POST …/event-deliveries/{id}/retry`: one
//! attempt due at once, then the destination's policy with a fresh budget); nothing is sent from
//! this machine.
//!
//! [`plan`] walks the selection (the platform filters status, destination, event and exact event
//! types; prefixes, the window and `retried` are matched here) and leaves out what the platform is
//! still delivering and what the [`Journal`] says was retried already (or is in doubt). [`run`]
//! claims each delivery in the journal under the target [`TARGET`] before asking, records
//! `succeeded` once the platform accepted the retry (so a rerun does not ask again unless named
//! with `again`), and stops taking new ones as soon as asked. [`follow`] watches the accepted
//! ones until their new attempt lands, within a bound.
use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde_json::Value;

use super::journal::{Entry, Journal, JournalError, Outcome, State};
use super::model::time;
use super::newer_requests::DeliveryFilter;
use super::{ApiRequest, Client, Error, ListQuery};

/// The journal's target for a retry the platform accepted: not a receiver, the platform itself.
pub const TARGET: &str = "platform:retry";
/// The statuses of a finished delivery: the only ones the platform retries.
pub const FINISHED: [&str; 3] = ["delivered", "failed", "cancelled"];
/// What a recover selects without `--status`: finished and not delivered (as Stripe and Svix
/// resend failed ones by default); `--status delivered` asks for the delivered ones too.
pub const NOT_DELIVERED: [&str; 2] = ["failed", "cancelled"];
/// Retries asked at once, by default.
pub const CONCURRENCY: usize = 2;
/// The first few of a plan shown before it runs.
pub const FIRST_FEW: usize = 5;

/// Which deliveries a recover asks the platform to retry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RetrySelection {
    /// Only to these destinations (`evtd_…`).
    pub destinations: Vec<String>,
    /// Only of these events (`evnt_…`).
    pub events: Vec<String>,
    /// Only of these event types; a trailing `*` matches a prefix.
    pub event_types: Vec<String>,
    /// Only in these states (the platform's names); none: every finished one.
    pub statuses: Vec<String>,
    /// Only those that needed more than one attempt.
    pub retried: bool,
    /// Created at or after.
    pub since: Option<DateTime<Utc>>,
    /// Created at or before.
    pub until: Option<DateTime<Utc>>,
    /// Exactly these deliveries (`evdi_…`), read by id; the filters above are not asked.
    pub deliveries: Vec<String>,
}

impl RetrySelection {
    /// Whether a delivery as listed matches what the platform did not filter.
    #[must_use]
    pub fn matches(&self, d: &Value) -> bool {
        let text = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or_default();
        let types_ok = self.event_types.is_empty()
            || self.event_types.iter().any(|t| match t.strip_suffix('*') {
                Some(prefix) => text("event_type").starts_with(prefix),
                None => text("event_type") == t,
            });
        let created = time::parse(text("created_at"));
        let window_ok = match created {
            Some(c) => self.since.is_none_or(|s| c >= s) && self.until.is_none_or(|u| c <= u),
            None => self.since.is_none() && self.until.is_none(),
        };
        let retried_ok = !self.retried || attempts_of(d) > 1;
        types_ok && window_ok && retried_ok
    }

    /// The part the platform filters.
    #[must_use]
    pub fn filter(&self) -> DeliveryFilter {
        let prefixes = self.event_types.iter().any(|t| t.ends_with('*'));
        DeliveryFilter {
            statuses: if self.statuses.is_empty() {
                NOT_DELIVERED.iter().map(|s| (*s).to_string()).collect()
            } else {
                self.statuses.clone()
            },
            event_ids: self.events.clone(),
            // A prefix is matched here: the platform's filter is exact.
            event_types: if prefixes {
                Vec::new()
            } else {
                self.event_types.clone()
            },
            event_destination_ids: self.destinations.clone(),
            ..DeliveryFilter::default()
        }
    }
}

fn attempts_of(d: &Value) -> u64 {
    d.get("attempt_count").and_then(Value::as_u64).unwrap_or(0)
}

/// One delivery to retry, as planned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// `evdi_…`.
    pub delivery: String,
    /// Its state when planned.
    pub status: String,
    /// Its event's type.
    pub event_type: String,
    /// Its destination (`evtd_…`).
    pub destination: String,
    /// When it was created (as the platform wrote it).
    pub created_at: String,
    /// Attempts made so far.
    pub attempts: u64,
}

impl Item {
    /// An item of a delivery as the platform answered it (`None` without an id).
    #[must_use]
    pub fn of(d: &Value) -> Option<Self> {
        let text = |k: &str| {
            d.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let id = text("id");
        (!id.is_empty()).then(|| Self {
            delivery: id,
            status: text("status"),
            event_type: text("event_type"),
            destination: text("event_destination_id"),
            created_at: text("created_at"),
            attempts: attempts_of(d),
        })
    }

    /// `evdi_…  failed  <created>  <event type>  → evtd_…`.
    #[must_use]
    pub fn summary(&self) -> String {
        format!(
            "{}  {}  {}  {}  → {}",
            self.delivery, self.status, self.created_at, self.event_type, self.destination
        )
    }

    /// Whether the platform retries it (it finished).
    #[must_use]
    pub fn finished(&self) -> bool {
        FINISHED.contains(&self.status.as_str())
    }
}

/// What a recover would ask, and what it leaves out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RetryPlan {
    /// To retry, in the order walked.
    pub items: Vec<Item>,
    /// Deliveries the selection matched.
    pub selected: usize,
    /// Left out: the journal says the platform accepted a retry of them already.
    pub already: Vec<String>,
    /// Left out: claimed by a run that left no outcome (killed, or running now).
    pub in_doubt: Vec<String>,
    /// Left out: the platform is still delivering them (pending, retrying).
    pub unfinished: Vec<String>,
}

impl RetryPlan {
    /// The oldest and newest creation times of what is to be retried.
    #[must_use]
    pub fn span(&self) -> Option<(String, String)> {
        let mut times: Vec<&str> = self.items.iter().map(|i| i.created_at.as_str()).collect();
        times.sort_unstable();
        Some(((*times.first()?).to_string(), (*times.last()?).to_string()))
    }

    /// The count, the span, what is left out and why, and the first few: lines for stderr.
    #[must_use]
    pub fn overview(&self, dry_run: bool) -> Vec<String> {
        let n = self.items.len();
        let mut out = vec![match (self.span(), dry_run) {
            (Some((a, b)), false) => format!(
                "asking the platform to retry {n} deliver{} created {a} … {b}",
                plural(n)
            ),
            (Some((a, b)), true) => format!(
                "would ask the platform to retry {n} deliver{} created {a} … {b} (dry run: nothing asked)",
                plural(n)
            ),
            (None, _) => "nothing to retry".into(),
        }];
        if !self.already.is_empty() {
            out.push(format!(
                "{} skipped: already retried by an earlier run (--again ID asks again)",
                self.already.len()
            ));
        }
        if !self.unfinished.is_empty() {
            out.push(format!(
                "{} skipped: the platform is still delivering them (pending or retrying)",
                self.unfinished.len()
            ));
        }
        // Only a plan of named deliveries ([`plan_marked`]) asks unfinished ones: say so first.
        let asked_unfinished = self.items.iter().filter(|i| !i.finished()).count();
        if asked_unfinished > 0 {
            out.push(format!(
                "{asked_unfinished} of them not finished (pending or retrying): the platform refuses those"
            ));
        }
        for i in self.items.iter().take(FIRST_FEW) {
            out.push(format!("  {}", i.summary()));
        }
        if n > FIRST_FEW {
            out.push(format!("  … and {} more", n - FIRST_FEW));
        }
        out
    }
}

/// `y` or `ies`.
#[must_use]
pub fn plural(n: usize) -> &'static str {
    if n == 1 { "y" } else { "ies" }
}

/// Walks the selection and decides what to retry: finished deliveries the journal has not seen
/// retried (those named in `again` whatever it says).
///
/// # Errors
/// The API's (a walk past its caps included).
pub async fn plan(
    client: &Client,
    sel: &RetrySelection,
    journal: &Journal,
    again: &[String],
) -> Result<RetryPlan, Error> {
    let mut found: Vec<Value> = Vec::new();
    if sel.deliveries.is_empty() {
        let f = sel.filter();
        super::lookup::walk(
            client,
            ListQuery::default(),
            |q| ApiRequest::list_deliveries(q, &f),
            |page: Vec<Value>| {
                found.extend(page.into_iter().filter(|d| sel.matches(d)));
                true
            },
        )
        .await?;
    } else {
        for id in &sel.deliveries {
            let raw = client.send(&ApiRequest::get_delivery(id)).await?;
            found.push(super::client::decode(raw.status, &raw.body)?);
        }
    }
    let mut plan = RetryPlan::default();
    let mut seen: HashSet<String> = HashSet::new();
    for item in found.iter().filter_map(Item::of) {
        if !seen.insert(item.delivery.clone()) {
            continue;
        }
        plan.selected += 1;
        if !item.finished() {
            plan.unfinished.push(item.delivery);
            continue;
        }
        if again.contains(&item.delivery) {
            plan.items.push(item);
            continue;
        }
        match journal.state(&item.delivery, TARGET) {
            Some(State::Succeeded) => plan.already.push(item.delivery),
            Some(State::InDoubt) => plan.in_doubt.push(item.delivery),
            _ => plan.items.push(item),
        }
    }
    Ok(plan)
}

/// Plans exactly the deliveries named (`evdi_…`, as the console's marks name them), each read
/// by id: what the journal says was retried already (or is in doubt) is left out unless named in
/// `again`; an unfinished one is kept, so the platform's refusal reports it rather than a
/// silent skip.
///
/// # Errors
/// The API's, for a delivery that cannot be read.
pub async fn plan_marked(
    client: &Client,
    ids: &[String],
    journal: &Journal,
    again: &[String],
) -> Result<RetryPlan, Error> {
    let mut plan = RetryPlan::default();
    let mut seen: HashSet<&str> = HashSet::new();
    let wanted: Vec<String> = ids
        .iter()
        .filter(|id| seen.insert(id.as_str()))
        .cloned()
        .collect();
    // Collected first: a lazy map of borrowing closures trips the worker's `Send` bound.
    let reads: Vec<_> = wanted
        .into_iter()
        .map(|id| async move {
            let raw = client.send(&ApiRequest::get_delivery(&id)).await?;
            super::client::decode::<Value>(raw.status, &raw.body)
        })
        .collect();
    let found: Vec<Result<Value, Error>> = futures::stream::iter(reads)
        .buffered(CONCURRENCY.max(4))
        .collect()
        .await;
    for d in found {
        let Some(item) = Item::of(&d?) else {
            continue;
        };
        plan.selected += 1;
        if again.contains(&item.delivery) {
            plan.items.push(item);
            continue;
        }
        match journal.state(&item.delivery, TARGET) {
            Some(State::Succeeded) => plan.already.push(item.delivery),
            Some(State::InDoubt) => plan.in_doubt.push(item.delivery),
            _ => plan.items.push(item),
        }
    }
    Ok(plan)
}

/// What the platform answered one retry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Accepted: the delivery as it now is (pending, its new attempt due at once).
    Accepted {
        /// Attempts made before the retry (the new one is numbered after them).
        attempts: u64,
    },
    /// Refused with this status and message (an unfinished delivery, an archived destination).
    Refused {
        /// HTTP status.
        status: u16,
        /// The platform's message (hostile text: sanitise before showing).
        message: String,
    },
    /// No answer could be had (the platform was not reached, or answered 5xx).
    Unreachable(String),
}

/// One retry asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retried {
    /// What was planned.
    pub item: Item,
    /// What the platform said.
    pub answer: Answer,
}

impl Retried {
    /// The journal's outcome: accepted is `succeeded`, refused `failed`, no answer `unreachable`.
    #[must_use]
    pub fn outcome(&self) -> Outcome {
        match self.answer {
            Answer::Accepted { .. } => Outcome::Succeeded,
            Answer::Refused { .. } => Outcome::Failed,
            Answer::Unreachable(_) => Outcome::Unreachable,
        }
    }
}

/// What a run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunSummary {
    /// Retries the platform accepted.
    pub accepted: usize,
    /// Retries it refused.
    pub refused: usize,
    /// Retries that got no answer.
    pub unreachable: usize,
    /// Not asked: another process had claimed them since the plan.
    pub claimed_elsewhere: usize,
    /// Not asked because the run was stopped.
    pub left: usize,
    /// Whether the run was stopped before the end.
    pub stopped: bool,
}

/// Asks the platform to retry one delivery.
async fn ask(client: &Client, item: &Item) -> Answer {
    match client
        .send(&ApiRequest::retry_delivery(&item.delivery))
        .await
    {
        Ok(raw) => match super::client::decode::<Value>(raw.status, &raw.body) {
            Ok(d) => Answer::Accepted {
                // Counted before the retry: the answer's count, which the retry does not change.
                attempts: attempts_of(&d).max(item.attempts),
            },
            Err(e) => answer_of(e),
        },
        Err(e) => answer_of(e),
    }
}

fn answer_of(e: Error) -> Answer {
    match e {
        Error::Api(a) if a.status < 500 => Answer::Refused {
            status: a.status,
            message: a.message,
        },
        other => Answer::Unreachable(other.to_string()),
    }
}

/// Asks the platform to retry `items`, at most `concurrency` at once (the client waits out a
/// 429 as the platform asks). Each delivery is claimed in `journal` first (one claimed by another
/// process is not asked) and its answer recorded after; `each` sees every answer. When `stop`
/// completes no new retry is asked; those in flight finish and are recorded.
///
/// # Errors
/// The journal cannot be written: no new retry is asked, those in flight are awaited.
pub async fn run(
    client: &Client,
    items: Vec<Item>,
    concurrency: usize,
    again: &[String],
    journal: &mut Journal,
    stop: impl Future<Output = ()>,
    mut each: impl FnMut(&Retried),
) -> Result<RunSummary, JournalError> {
    let mut queue: VecDeque<Item> = items.into();
    let mut summary = RunSummary::default();
    let mut in_flight = FuturesUnordered::new();
    let mut failure: Option<JournalError> = None;
    let mut stop = std::pin::pin!(stop);
    loop {
        while !summary.stopped && failure.is_none() && in_flight.len() < concurrency.max(1) {
            let Some(item) = queue.pop_front() else {
                break;
            };
            match journal.claim(&item.delivery, TARGET, again.contains(&item.delivery)) {
                Err(e) => {
                    queue.push_front(item);
                    failure = Some(e);
                }
                Ok(false) => summary.claimed_elsewhere += 1,
                Ok(true) => in_flight.push(async move {
                    let started = std::time::Instant::now();
                    let answer = ask(client, &item).await;
                    (Retried { item, answer }, started.elapsed())
                }),
            }
        }
        if in_flight.is_empty() {
            break;
        }
        tokio::select! {
            biased;
            () = &mut stop, if !summary.stopped => summary.stopped = true,
            Some((r, took)) = in_flight.next() => {
                let status = match &r.answer {
                    Answer::Accepted { .. } => { summary.accepted += 1; Some(200) }
                    Answer::Refused { status, .. } => { summary.refused += 1; Some(*status) }
                    Answer::Unreachable(_) => { summary.unreachable += 1; None }
                };
                let recorded = journal.record(&Entry {
                    at: Utc::now(),
                    notification: r.item.delivery.clone(),
                    target: TARGET.into(),
                    outcome: r.outcome(),
                    status,
                    duration_ms: u64::try_from(took.as_millis()).ok(),
                });
                if let Err(e) = recorded {
                    failure.get_or_insert(e);
                }
                each(&r);
            }
        }
    }
    summary.left = queue.len();
    summary.stopped |= summary.left > 0;
    match failure {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

/// The new attempt of a retried delivery, once it landed.
#[derive(Debug, Clone, PartialEq)]
pub struct Landed {
    /// `evdi_…`.
    pub delivery: String,
    /// The delivery's status now.
    pub status: String,
    /// The new attempt as the platform lists it (without bodies).
    pub attempt: Value,
}

impl Landed {
    /// `succeeded` or `failed`: the new attempt's own status.
    #[must_use]
    pub fn outcome(&self) -> &str {
        self.attempt
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
    }
}

/// The first attempt numbered after `before`, in a delivery as the platform answered it.
#[must_use]
pub fn new_attempt(d: &Value, before: u64) -> Option<Value> {
    d.get("attempts")?
        .as_array()?
        .iter()
        .filter(|a| a.get("attempt_number").and_then(Value::as_u64).unwrap_or(0) > before)
        .min_by_key(|a| a.get("attempt_number").and_then(Value::as_u64))
        .cloned()
}

/// Watches `accepted` (delivery id, attempts before its retry) until each one's new attempt
/// landed or `within` passed, looking every `every`; `each` sees each as it lands. Returns the
/// ids whose attempt did not land in time. A look that fails is tried again at the next turn.
pub async fn follow(
    client: &Client,
    accepted: Vec<(String, u64)>,
    within: Duration,
    every: Duration,
    mut each: impl FnMut(&Landed),
) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + within;
    let mut waiting = accepted;
    while !waiting.is_empty() {
        let looks: Vec<_> = waiting
            .iter()
            .map(|(id, before)| async move {
                let got = client.send(&ApiRequest::get_delivery(id)).await.ok();
                let d = got.and_then(|r| super::client::decode::<Value>(r.status, &r.body).ok());
                (id.clone(), *before, d)
            })
            .collect();
        let answers: Vec<_> = futures::stream::iter(looks)
            .buffered(CONCURRENCY.max(4))
            .collect()
            .await;
        let mut still = Vec::new();
        for (id, before, d) in answers {
            match d
                .as_ref()
                .and_then(|d| new_attempt(d, before).map(|a| (d, a)))
            {
                // Landed once it has an outcome; one still running is looked at again.
                Some((d, a)) if a.get("status").and_then(Value::as_str).is_some() => {
                    each(&Landed {
                        delivery: id,
                        status: d
                            .get("status")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                        attempt: a,
                    });
                }
                _ => still.push((id, before)),
            }
        }
        waiting = still;
        let now = tokio::time::Instant::now();
        if waiting.is_empty() || now >= deadline {
            break;
        }
        tokio::time::sleep(every.min(deadline - now)).await;
    }
    waiting.into_iter().map(|(id, _)| id).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prefixes_the_window_and_retried_are_matched_here() {
        let d = json!({"id": "evdi_1", "event_type": "build.done", "created_at": "2026-01-02T00:00:00.000Z", "attempt_count": 2});
        let sel = RetrySelection {
            event_types: vec!["build.*".into()],
            retried: true,
            ..RetrySelection::default()
        };
        assert!(sel.matches(&d));
        assert!(sel.filter().event_types.is_empty(), "a prefix is ours");
        assert_eq!(sel.filter().statuses, NOT_DELIVERED.to_vec());
        let later = RetrySelection {
            since: time::parse("2026-01-03T00:00:00Z"),
            ..RetrySelection::default()
        };
        assert!(!later.matches(&d));
        let once = json!({"id": "evdi_2", "attempt_count": 1});
        assert!(!sel.matches(&once));
    }

    #[test]
    fn the_new_attempt_is_the_first_numbered_after_the_retry() {
        let d = json!({"attempts": [
            {"attempt_number": 1, "status": "failed"},
            {"attempt_number": 3, "status": "failed"},
            {"attempt_number": 2, "status": "succeeded"},
        ]});
        assert_eq!(new_attempt(&d, 1).expect("landed")["attempt_number"], 2);
        assert!(new_attempt(&d, 3).is_none());
    }
}
