//! `plan_recover` and `run_recover` on `event-destinations`: the same count → token → run, but
//! the run asks the platform to retry each delivery counted
//! ([`crate::api::platform_retry`]), journalled as `notifications recover` journals it (a retry
//! accepted once is not asked again by a later plan).
use chrono::Utc;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::envelope::Answer;
use super::recover::{MAX_SELECTED, Planned, Plans, RUN_LIMIT, ttl};
use super::tools::{Args, ToolError, need, usage};
use crate::api::Client;
use crate::api::generation::Generation;
use crate::api::identity::ServiceIdentity;
use crate::api::journal::Journal;
use crate::api::platform_retry::{self as retry, Answer as Retry, RetrySelection};
use crate::api::selection::parse_time;

/// Whether the deployment serves `event-destinations` (then recover is the platform's retry).
pub async fn applies(client: &Client) -> bool {
    client
        .served()
        .await
        .and_then(|c| c.generation)
        .is_some_and(|g| g == Generation::EventDestinations)
}

/// A selection as an agent writes it (the schema's fields).
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct SelectionInput {
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

fn selection(a: &Args) -> Result<RetrySelection, ToolError> {
    let input: SelectionInput = match &a.selection {
        Some(v @ Value::Object(_)) => {
            serde_json::from_value(v.clone()).map_err(|e| usage(format!("selection: {e}")))?
        }
        _ => return Err(usage("selection is an object")),
    };
    if !input.callback_ids.is_empty() {
        return Err(usage(
            "callback_ids: deliveries of event-destinations are selected by destination, event, event type and status",
        ));
    }
    let now = Utc::now();
    let when = |s: Option<String>| {
        s.map(|t| parse_time(&t, now).map_err(|e| usage(e.to_string())))
            .transpose()
    };
    let sel = RetrySelection {
        destinations: input.destination_ids,
        events: input.event_ids,
        event_types: input.event_types,
        statuses: input
            .statuses
            .iter()
            .map(|s| match s.as_str() {
                "succeeded" => "delivered".to_string(),
                other => other.to_string(),
            })
            .collect(),
        retried: input.retried,
        since: when(input.since)?,
        until: when(input.until)?,
        deliveries: input.notification_ids,
    };
    if let (Some(s), Some(u)) = (sel.since, sel.until)
        && u < s
    {
        return Err(usage("until is before since: the window is empty"));
    }
    Ok(sel)
}

fn journal(client: &Client, profile: &str) -> Result<Journal, ToolError> {
    let dir = crate::config::Paths::with_config(None)
        .data_dir
        .ok_or_else(|| {
            usage("no data directory for the recover journal (set HOME or XDG_DATA_HOME)")
        })?;
    Journal::open_for(&dir, &ServiceIdentity::of(client), profile)
        .map_err(|e| usage(format!("the recover journal: {e}")))
}

/// `plan_recover`: counts what the platform would be asked to retry.
///
/// # Errors
/// Bad arguments, a selection past the bound, the API's or the journal's error.
pub async fn plan(
    plans: &Plans,
    client: &Client,
    a: &Args,
    profile: &str,
) -> Result<Answer, ToolError> {
    let sel = selection(a)?;
    let journal = journal(client, profile)?;
    let plan = retry::plan(client, &sel, &journal, &[]).await?;
    if plan.items.len() > MAX_SELECTED {
        return Err(usage(format!(
            "refused: the selection holds more than {MAX_SELECTED} deliveries to retry; narrow it or use `switchboard notifications recover`"
        )));
    }
    let ttl = ttl();
    let expires_at = Utc::now() + chrono::TimeDelta::from_std(ttl).unwrap_or_default();
    let token = format!("rcv_{}", hex::encode(rand::random::<[u8; 16]>()));
    let span = plan.span().map(|(a, b)| json!({ "from": a, "to": b }));
    let own = json!({
        "count": plan.items.len(),
        "span": span,
        "token": token,
        "expires_at": crate::api::model::time::format(&expires_at),
        "selected": plan.selected,
        "already_retried": plan.already.len(),
        "in_doubt": plan.in_doubt.len(),
        "unfinished": plan.unfinished.len(),
        "retried_by": "the platform",
    });
    let platform = json!({
        "first": plan.items.iter().take(retry::FIRST_FEW).map(|i| json!({
            "delivery": i.delivery,
            "status": i.status,
            "event_type": i.event_type,
            "destination": i.destination,
            "created_at": i.created_at,
        })).collect::<Vec<_>>(),
    });
    plans.keep(
        token,
        Planned {
            ids: plan.items.into_iter().map(|i| i.delivery).collect(),
            expires: Instant::now() + ttl,
        },
    );
    Ok(Answer::with_own(own, platform))
}

/// `run_recover`: asks the platform to retry exactly what the token counted (what the journal
/// says was retried since is not asked again).
///
/// # Errors
/// An unknown, spent or expired token; the API's or the journal's error.
pub async fn run(
    plans: &Plans,
    client: &Client,
    a: &Args,
    profile: &str,
) -> Result<Answer, ToolError> {
    let ids = plans.take(need(a.token.as_deref(), "token")?)?;
    let mut journal = journal(client, profile)?;
    let sel = RetrySelection {
        deliveries: ids,
        ..RetrySelection::default()
    };
    let plan = if sel.deliveries.is_empty() {
        retry::RetryPlan::default()
    } else {
        retry::plan(client, &sel, &journal, &[]).await?
    };
    let mut retries = Vec::new();
    let summary = retry::run(
        client,
        plan.items,
        retry::CONCURRENCY,
        &[],
        &mut journal,
        tokio::time::sleep(RUN_LIMIT),
        |r| {
            retries.push(json!({
                "delivery": r.item.delivery,
                "retry": match &r.answer {
                    Retry::Accepted { .. } => "accepted",
                    Retry::Refused { .. } => "refused",
                    Retry::Unreachable(_) => "unreachable",
                },
                "error": match &r.answer {
                    Retry::Accepted { .. } => None,
                    Retry::Refused { message, .. } => Some(message.clone()),
                    Retry::Unreachable(why) => Some(why.clone()),
                },
            }));
        },
    )
    .await
    .map_err(|e| usage(format!("the recover journal: {e}")))?;
    let own = json!({
        "accepted": summary.accepted,
        "refused": summary.refused,
        "unreachable": summary.unreachable,
        "already_retried": plan.already.len(),
        "in_doubt": plan.in_doubt.len(),
        "claimed_elsewhere": summary.claimed_elsewhere,
        "stopped": summary.stopped,
        "left": summary.left,
    });
    Ok(Answer::with_own(own, json!({ "retries": retries })))
}
