//! `replay_locally` on `callback-destinations` (`generations.md` §6): the notification's embedded
//! request sent again to one of the operator's receivers, signed `t=…,v1=…` with its
//! destination's secret as headless `notifications replay` and the console do
//! ([`crate::api::callback_gen::plan_replay`]); unsigned, said in one sentence, where the
//! platform gives no secret.
use serde_json::{Value, json};
use url::Url;

use super::envelope::Answer;
use super::tools::{Args, ToolError, need, usage};
use crate::api::Client;
use crate::api::callback_gen as cg;
use crate::api::replay::{self, SendOptions};

/// `replay_locally` here: refused before anything is read or sent unless `to` is one of
/// `allowed`; `attempt` does not apply (a notification keeps one request).
///
/// # Errors
/// A target not named by the operator, an attempt asked for, no such notification or nothing
/// embedded to send, or the API's error.
pub async fn replay_locally(
    client: &Client,
    a: &Args,
    allowed: &[Url],
) -> Result<Answer, ToolError> {
    let target = super::targets::allowed_target(need(a.to.as_deref(), "to")?, allowed)?;
    if a.index()?.is_some() {
        return Err(usage(
            "replay_locally on callback-destinations takes no attempt: a notification keeps one request",
        ));
    }
    let id = a.notification()?;
    crate::api::request::check_segment(id)?;
    let (plan, unsigned) = cg::plan_replay(client, id, None, target, a.unsigned)
        .await?
        .map_err(usage)?;
    let result = replay::send(
        &plan,
        &SendOptions {
            timeout: replay::TIMEOUT,
        },
    )
    .await;
    let mut report: Value = crate::headless::replay_report(&plan, &result);
    report["signed"] = json!(cg::signed_in_headers(&plan.headers));
    // The sentence is this server's own (it names nothing the platform wrote).
    Ok(Answer::with_own(json!({ "unsigned": unsigned }), report))
}
