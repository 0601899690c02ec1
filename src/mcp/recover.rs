//! `plan_recover` and `run_recover`: a bulk recover as count → token → run. A plan walks the
//! selection (`api::selection`, at most [`MAX_SELECTED`] notifications in [`MAX_PAGES`] pages)
//! and counts it with `api::recover::plan`; the token it answers names exactly the notifications
//! counted, lives [`TOKEN_TTL`], and is spent by the one run that takes it. A run plans those
//! notifications again on the journal (what succeeded since is not sent twice) and sends them
//! with `api::recover::run`, stopping new sends after [`RUN_LIMIT`].
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::envelope::Answer;
use super::tools::{Args, ToolError, need, usage};
use crate::api::Client;
use crate::api::identity::ServiceIdentity;
use crate::api::journal::{Journal, Outcome};
use crate::api::model::{NotificationStatus, time};
use crate::api::recover::{self, Delivery, RecoverPlan, RunOptions, SkipReason};
use crate::api::replay::{self, SendOptions};
use crate::api::selection::{Selection, parse_time};

/// How long a token may be run.
pub const TOKEN_TTL: Duration = Duration::from_secs(600);
/// For tests only: a shorter token lifetime in milliseconds (longer values are ignored).
pub const TTL_ENV: &str = "SWITCHBOARD_MCP_TOKEN_TTL_MS";
/// The most notifications one plan may hold: more belongs to `notifications recover`.
pub const MAX_SELECTED: usize = 500;
/// Pages a plan's walk reads at most (100 notifications each).
pub const MAX_PAGES: usize = 200;
/// Tokens held at once; the oldest goes first.
pub const MAX_PLANS: usize = 64;
/// After this long a run starts no new delivery (those in flight finish).
pub const RUN_LIMIT: Duration = Duration::from_secs(300);

/// A selection as an agent writes it.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct SelectionInput {
    destination_ids: Vec<String>,
    callback_ids: Vec<String>,
    event_ids: Vec<String>,
    notification_ids: Vec<String>,
    event_types: Vec<String>,
    statuses: Vec<String>,
    retried: bool,
    since: Option<String>,
    until: Option<String>,
}

impl SelectionInput {
    pub(super) fn selection(self, now: DateTime<Utc>) -> Result<Selection, ToolError> {
        let when = |s: Option<String>| {
            s.map(|t| parse_time(&t, now).map_err(|e| usage(e.to_string())))
                .transpose()
        };
        let mut statuses = Vec::new();
        for s in &self.statuses {
            match NotificationStatus::from(s.trim()) {
                NotificationStatus::Other(_) => {
                    return Err(usage(format!(
                        "{:?} is not a status: succeeded, failed, retrying or pending",
                        crate::text::line(s)
                    )));
                }
                known => statuses.push(known),
            }
        }
        let selection = Selection {
            destinations: self.destination_ids,
            callbacks: self.callback_ids,
            events: self.event_ids,
            event_types: self.event_types,
            statuses,
            retried: self.retried,
            since: when(self.since)?,
            until: when(self.until)?,
            notifications: self.notification_ids,
        };
        selection.validate().map_err(|e| usage(e.to_string()))?;
        Ok(selection)
    }
}

/// What a token stands for.
#[derive(Debug)]
pub(super) struct Planned {
    /// The notifications to send, as counted.
    pub(super) ids: Vec<String>,
    pub(super) expires: Instant,
}

/// The plans handed out, by token (shared by the server's clones).
#[derive(Debug, Clone, Default)]
pub struct Plans(Arc<Mutex<HashMap<String, Planned>>>);

/// A token's lifetime: [`TOKEN_TTL`], or shorter for a test.
pub(super) fn ttl() -> Duration {
    std::env::var(TTL_ENV)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map(Duration::from_millis)
        .filter(|d| *d < TOKEN_TTL)
        .unwrap_or(TOKEN_TTL)
}

/// The ids of a selection, walked newest first within the bounds.
async fn selected_ids(client: &Client, selection: &Selection) -> Result<Vec<String>, ToolError> {
    let mut walk = selection.walk(client);
    let mut ids = Vec::new();
    while let Some(batch) = walk.next_page().await? {
        ids.extend(batch.into_iter().map(|n| n.id));
        if ids.len() > MAX_SELECTED {
            return Err(usage(format!(
                "refused: the selection holds more than {MAX_SELECTED} notifications; narrow it \
                 (a destination, statuses, a shorter window) or use `switchboard notifications recover`"
            )));
        }
        // Bounded: past the last page allowed, one more page (one the walk would read) refuses.
        if walk.stats().pages >= MAX_PAGES && walk.next_page().await?.is_some() {
            return Err(usage(format!(
                "refused: read {MAX_PAGES} pages ({} notifications) without reaching the \
                 selection's end; give a window (since) or a destination",
                walk.stats().seen
            )));
        }
    }
    Ok(ids)
}

/// The plan of exactly `ids` on the journal (what succeeded to its target already is skipped).
async fn plan_of(
    client: &Client,
    ids: Vec<String>,
    journal: &Journal,
) -> Result<RecoverPlan, ToolError> {
    if ids.is_empty() {
        return Ok(RecoverPlan::default());
    }
    let exactly = Selection {
        notifications: ids,
        ..Selection::default()
    };
    Ok(recover::plan(client, &exactly, None, journal, &[]).await?)
}

/// The service's recover journal, as `notifications recover` keeps it (one per base URL and
/// instance; `profile` is recorded on each line).
///
/// # Errors
/// No data directory; the journal cannot be opened.
pub(super) fn open_journal(client: &Client, profile: &str) -> Result<Journal, ToolError> {
    let dir = crate::config::Paths::with_config(None)
        .data_dir
        .ok_or_else(|| {
            usage("no data directory for the recover journal (set HOME or XDG_DATA_HOME)")
        })?;
    Journal::open_for(&dir, &ServiceIdentity::of(client), profile)
        .map_err(|e| usage(format!("the recover journal: {e}")))
}

impl Plans {
    /// `plan_recover`.
    ///
    /// # Errors
    /// Bad arguments, a selection past the bounds, the API's or the journal's error.
    pub async fn plan(
        &self,
        client: &Client,
        a: &Args,
        profile: &str,
    ) -> Result<Answer, ToolError> {
        let input: SelectionInput = match &a.selection {
            Some(v @ Value::Object(_)) => {
                serde_json::from_value(v.clone()).map_err(|e| usage(format!("selection: {e}")))?
            }
            _ => return Err(usage("selection is an object")),
        };
        let selection = input.selection(Utc::now())?;
        let ids = selected_ids(client, &selection).await?;
        let journal = open_journal(client, profile)?;
        let plan = plan_of(client, ids, &journal).await?;
        Ok(self.answer_plan(&plan))
    }

    /// A counted plan's answer, its token kept for `run_recover` (every generation that sends
    /// from this machine answers the same).
    pub(super) fn answer_plan(&self, plan: &RecoverPlan) -> Answer {
        let ttl = ttl();
        let expires_at = Utc::now() + chrono::TimeDelta::from_std(ttl).unwrap_or_default();
        let token = format!("rcv_{}", hex::encode(rand::random::<[u8; 16]>()));
        let span = plan
            .span
            .map(|(a, b)| json!({ "from": time::format(&a), "to": time::format(&b) }));
        let own = json!({
            "count": plan.items.len(),
            "span": span,
            "token": token,
            "expires_at": time::format(&expires_at),
            "selected": plan.selected,
            "already_succeeded": plan.skipped_for(|r| *r == SkipReason::AlreadySucceeded),
            "in_doubt": plan.skipped_for(|r| matches!(r, SkipReason::InDoubt { .. })),
        });
        let platform = json!({
            "hosts": plan.hosts(),
            "not_this_machine": plan.remote_hosts(),
            "first": plan.items.iter().take(recover::FIRST_FEW).map(|i| json!({
                "notification": i.notification_id,
                "status": i.status.as_str(),
                "created_at": time::format(&i.created_at),
                "target": crate::text::redact::mask_url(i.target.as_str()),
            })).collect::<Vec<_>>(),
            "unplannable": plan.skipped.iter().filter_map(|s| match &s.reason {
                SkipReason::Unplannable(why) => Some(json!({"notification": s.notification, "why": why})),
                _ => None,
            }).collect::<Vec<_>>(),
        });
        let ids = plan
            .items
            .iter()
            .map(|i| i.notification_id.clone())
            .collect();
        self.keep(
            token,
            Planned {
                ids,
                expires: Instant::now() + ttl,
            },
        );
        Answer::with_own(own, platform)
    }

    pub(super) fn keep(&self, token: String, planned: Planned) {
        let mut plans = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = Instant::now();
        plans.retain(|_, p| p.expires > now);
        while plans.len() >= MAX_PLANS {
            let Some(oldest) = plans
                .iter()
                .min_by_key(|(_, p)| p.expires)
                .map(|(t, _)| t.clone())
            else {
                break;
            };
            plans.remove(&oldest);
        }
        plans.insert(token, planned);
    }

    /// The notifications `token` stands for, spending it.
    pub(super) fn take(&self, token: &str) -> Result<Vec<String>, ToolError> {
        let mut plans = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match plans.remove(token) {
            None => Err(usage(
                "refused: unknown token (each plan_recover token runs once); plan again",
            )),
            Some(p) if p.expires <= Instant::now() => Err(usage(
                "refused: the token has expired (a token lives 10 minutes); plan again",
            )),
            Some(p) => Ok(p.ids),
        }
    }

    /// `run_recover`.
    ///
    /// # Errors
    /// An unknown, spent or expired token; the API's or the journal's error.
    pub async fn run(&self, client: &Client, a: &Args, profile: &str) -> Result<Answer, ToolError> {
        let ids = self.take(need(a.token.as_deref(), "token")?)?;
        let mut journal = open_journal(client, profile)?;
        let plan = plan_of(client, ids, &journal).await?;
        let opts = RunOptions {
            send: SendOptions {
                timeout: replay::TIMEOUT,
            },
            ..RunOptions::default()
        };
        let already = plan.skipped_for(|r| *r == SkipReason::AlreadySucceeded);
        let mut deliveries = Vec::new();
        let summary = recover::run(
            client,
            &plan.destinations,
            plan.items,
            &opts,
            &mut journal,
            tokio::time::sleep(RUN_LIMIT),
            |d| deliveries.push(delivery_json(d)),
        )
        .await
        .map_err(|e| usage(format!("the recover journal: {e}")))?;
        let own = json!({
            "sent": summary.sent(),
            "succeeded": summary.succeeded,
            "failed": summary.failed,
            "unreachable": summary.unreachable,
            "already_succeeded": already,
            "claimed_elsewhere": summary.claimed_elsewhere,
            "stopped": summary.stopped,
            "left": summary.left,
        });
        Ok(Answer::with_own(own, json!({ "deliveries": deliveries })))
    }
}

/// One delivery of a run: what `notifications recover` prints for it.
pub(super) fn delivery_json(d: &Delivery) -> Value {
    json!({
        "notification": d.notification,
        "target": crate::text::redact::mask_url(d.target.as_str()),
        "status": d.result.status,
        "duration_ms": u64::try_from(d.result.duration.as_millis()).unwrap_or(u64::MAX),
        "outcome": match d.outcome {
            Outcome::Succeeded => "succeeded",
            Outcome::Failed => "failed",
            Outcome::Unreachable => "unreachable",
            Outcome::Sending => "sending",
        },
        "error": d.result.error.as_ref().map(ToString::to_string),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_runs_once_and_not_after_it_expires() {
        let plans = Plans::default();
        let ids = vec!["cbn_1".to_string()];
        plans.keep(
            "live".into(),
            Planned {
                ids: ids.clone(),
                expires: Instant::now() + TOKEN_TTL,
            },
        );
        plans.keep(
            "old".into(),
            Planned {
                ids: ids.clone(),
                expires: Instant::now() + Duration::from_millis(1),
            },
        );
        assert_eq!(plans.take("live").expect("live"), ids);
        assert!(plans.take("live").is_err(), "spent");
        assert!(plans.take("nope").is_err(), "unknown");
        let expired = Plans::default();
        expired.0.lock().expect("lock").insert(
            "gone".into(),
            Planned {
                ids,
                expires: Instant::now(),
            },
        );
        let e = expired.take("gone").expect_err("expired");
        assert!(e.to_string().contains("expired"), "{e}");
    }

    #[test]
    fn a_selection_is_held_to_its_fields() {
        let bad: Result<SelectionInput, _> =
            serde_json::from_value(json!({"destination_ids": ["cld_1"], "path": "/admin"}));
        assert!(bad.is_err());
        let ok: SelectionInput =
            serde_json::from_value(json!({"statuses": ["failed"], "since": "2h"})).expect("ok");
        let sel = ok.selection(Utc::now()).expect("selection");
        assert_eq!(sel.statuses, [NotificationStatus::Failed]);
        assert!(sel.since.is_some());
        let wrong: SelectionInput =
            serde_json::from_value(json!({"statuses": ["done"]})).expect("parses");
        assert!(wrong.selection(Utc::now()).is_err());
    }
}
