//! `plan_recover` and `run_recover` on `callback-destinations`: the same count → token → run as
//! on pulsar, on `api::callback_recover`'s plan (the generation has no retry: each notification's
//! embedded request is sent again from this machine, signed `t=…,v1=…` with its destination's
//! secret where the platform gives it) and `api::recover::run_for`, as `notifications recover`
//! does there.
use chrono::Utc;
use serde_json::{Value, json};

use super::envelope::Answer;
use super::recover::{MAX_SELECTED, Plans, RUN_LIMIT, SelectionInput, delivery_json, open_journal};
use super::tools::{Args, ToolError, need, usage};
use crate::api::Client;
use crate::api::callback_recover::{self as cr, CallbackSelection};
use crate::api::recover::{self, RecoverPlan, RunOptions, SkipReason};
use crate::api::replay::{self, SendOptions};

fn selection(a: &Args) -> Result<CallbackSelection, ToolError> {
    let input: SelectionInput = match &a.selection {
        Some(v @ Value::Object(_)) => {
            serde_json::from_value(v.clone()).map_err(|e| usage(format!("selection: {e}")))?
        }
        _ => return Err(usage("selection is an object")),
    };
    let sel = input.selection(Utc::now())?;
    CallbackSelection::from_selection(&sel).map_err(|why| usage(format!("selection: {why}")))
}

/// `plan_recover`: counts what would be sent (at most [`MAX_SELECTED`] selected).
///
/// # Errors
/// Bad arguments, a selection past the bound, the API's or the journal's error.
pub async fn plan(
    plans: &Plans,
    client: &Client,
    a: &Args,
    profile: &str,
) -> Result<Answer, ToolError> {
    let mut sel = selection(a)?;
    for id in sel.callbacks.iter().chain(&sel.destinations) {
        crate::api::request::check_segment(id)?;
    }
    // The window was read on this machine's clock; `created_at` is the server's.
    let offset = client.clock_offset().await;
    sel.since = sel.since.map(|t| t + offset);
    sel.until = sel.until.map(|t| t + offset);
    let journal = open_journal(client, profile)?;
    let plan = cr::plan(client, &sel, None, &journal, &[]).await?;
    if plan.selected > MAX_SELECTED {
        return Err(usage(format!(
            "refused: the selection holds more than {MAX_SELECTED} notifications; narrow it \
             (a callback, a destination, statuses, a shorter window) or use `switchboard notifications recover`"
        )));
    }
    let mut answer = plans.answer_plan(&plan);
    // Names destinations (platform text): beside the platform's data, not the tool's own fields.
    if let (Some(sends), Some(Value::Object(p))) = (&plan.callbacks, answer.platform.as_mut()) {
        p.insert(
            "unsigned".into(),
            cr::unsigned_sentence(sends, &plan).map_or(Value::Null, Value::from),
        );
    }
    Ok(answer)
}

/// `run_recover`: sends exactly what the token counted (what the journal says succeeded since is
/// not sent twice), stopping new sends after [`RUN_LIMIT`].
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
    let mut journal = open_journal(client, profile)?;
    let mut plan = if ids.is_empty() {
        RecoverPlan::default()
    } else {
        let exactly = CallbackSelection {
            notifications: ids,
            ..CallbackSelection::default()
        };
        cr::plan(client, &exactly, None, &journal, &[]).await?
    };
    let opts = RunOptions {
        send: SendOptions {
            timeout: replay::TIMEOUT,
        },
        ..RunOptions::default()
    };
    let already = plan.skipped_for(|r| *r == SkipReason::AlreadySucceeded);
    let items = std::mem::take(&mut plan.items);
    let mut deliveries = Vec::new();
    let summary = recover::run_for(
        client,
        plan.senders(),
        items,
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
