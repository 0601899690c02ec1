//! `notifications wait` on `callback-destinations`: the same promise as pulsar's (`--count`
//! notifications in the `--for` state: exit 0 printing them; one ended `failed`: exit 3; the
//! timeout: exit 5), each look reading the named callbacks' (or every callback's) notifications
//! newest first to the window's start, within the walk's budget. `succeeded` means `delivered`.
use serde_json::Value;
use tokio::time::Instant;

use super::HeadlessError;
use super::output::{self, Output};
use super::wait::{FAILED, TIMED_OUT, WaitArgs};
use crate::api::Client;
use crate::api::callback_gen::{self as cg, WaitFor};
use crate::api::newer_requests::CallbackNotificationFilter;

/// Waits as asked and prints the notifications it ended on (one JSON object a line, or a table).
///
/// # Errors
/// Usage for a selection this generation cannot filter; the API's; exit 3 on a failed one; exit
/// 5 at the timeout.
pub async fn run(client: &Client, out: &Output, a: WaitArgs) -> Result<(), HeadlessError> {
    let sel = &a.selection;
    if !sel.events.is_empty()
        || !sel.event_types.is_empty()
        || sel.retried
        || !sel.statuses.is_empty()
    {
        return Err(HeadlessError::Usage(
            "notifications wait on callback-destinations takes --callback, --destination, --since and --until; this generation filters no events, event types or retries.".into(),
        ));
    }
    for id in sel.callbacks.iter().chain(&sel.destinations) {
        crate::api::request::check_segment(id)?;
    }
    // `--since`/`--until` were read on this machine's clock; `created_at` is the server's.
    let offset = client.clock_offset().await;
    let state = match a.state.as_str() {
        "succeeded" => "delivered",
        s @ ("delivered" | "failed" | "retrying" | "pending") => s,
        other => {
            return Err(HeadlessError::Usage(format!(
                "--for status={}: this generation's notifications are pending, delivered, retrying or failed.",
                output::clean(other)
            )));
        }
    };
    let want = WaitFor {
        state: state.to_string(),
        count: a.count,
        since: sel.since.map(|t| t + offset),
        until: sel.until.map(|t| t + offset),
    };
    let callbacks: Vec<String> = if sel.callbacks.is_empty() {
        cg::callback_ids(client).await?
    } else {
        sel.callbacks.clone()
    };
    let f = CallbackNotificationFilter {
        destination_ids: sel.destinations.clone(),
        statuses: Vec::new(),
    };
    let deadline = Instant::now() + a.timeout;
    let plural = if a.count == 1 { "" } else { "s" };
    let timed_out = |seen: usize| HeadlessError::Outcome {
        code: TIMED_OUT,
        message: format!(
            "timed out after {} ms: {seen} of {} notification{plural} {}",
            a.timeout.as_millis(),
            a.count,
            want.state
        ),
    };
    let mut said = false;
    let mut seen = 0;
    loop {
        let kept = match tokio::time::timeout_at(deadline, cg::look(client, &callbacks, &f, &want))
            .await
        {
            Err(_) => return Err(timed_out(seen)),
            Ok(k) => k?,
        };
        // A failure is what a CI job most needs to hear about: it wins over a count reached.
        if !kept.failed.is_empty() && want.state != "failed" {
            print(out, &kept.failed)?;
            return Err(HeadlessError::Outcome {
                code: FAILED,
                message: format!(
                    "{} ended failed",
                    kept.failed
                        .iter()
                        .filter_map(|n| n.get("id").and_then(Value::as_str))
                        .map(output::clean)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        if kept.reached_total >= want.count {
            return print(out, &kept.reached);
        }
        seen = kept.reached_total;
        if !said {
            eprintln!(
                "waiting up to {} ms for {} notification{plural} {} ({seen} so far)",
                a.timeout.as_millis(),
                a.count,
                want.state
            );
            said = true;
        }
        if Instant::now() + a.interval >= deadline {
            return Err(timed_out(seen));
        }
        tokio::time::sleep(a.interval).await;
    }
}

fn print(out: &Output, ns: &[Value]) -> Result<(), HeadlessError> {
    if out.table() {
        return super::current::table(out, super::callback_gen::NOTIFICATIONS, ns);
    }
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    output::emit(|w| {
        for n in ns {
            output::write_raw(w, &n.to_string(), terminal)?;
        }
        Ok(())
    })
}
