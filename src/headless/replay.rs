//! `notifications replay ID --to URL`: sends a recorded delivery again to the receiver being
//! fixed, signed as the platform signs ([`crate::api::replay`]), and prints what was sent (masked)
//! and the answer (sanitised). Exit 0 on a whole 2xx answer, 3 on any other answer, 4 on no
//! answer or an answer cut short (a 2xx whose body was reset or stalled included).
use std::io::{BufRead, IsTerminal, Write};
use std::time::Duration;

use clap::Args;

use super::HeadlessError;
use super::output::{self, Output};
use super::replay_report::request_lines;
pub use super::replay_report::{to_json, to_table};
use crate::api::Client;
use crate::api::replay::{self, ReplayError, ReplayPlan, ReplayResult, SendOptions};
use crate::text::sanitize::line;

/// For tests only: a replay timeout in milliseconds, shorter than the 10 s default (longer
/// values are ignored), so a receiver that never answers does not hold a test for 10 s.
pub const TIMEOUT_ENV: &str = "SWITCHBOARD_REPLAY_TIMEOUT_MS";

/// `notifications replay`.
#[derive(Args, Debug, Clone)]
pub struct ReplayArgs {
    /// Notification id (`cbn_…`).
    pub id: String,
    /// Where to send it: an http(s) URL, e.g. `http://localhost:3000/webhooks`.
    #[arg(long, value_name = "URL")]
    pub to: String,
    /// The attempt to replay, counted from 1 as shown (#1 is the first delivery); default the
    /// latest with a recorded request.
    #[arg(long, value_name = "N")]
    pub attempt: Option<i64>,
    /// The notification's callback (callback-destinations: without it the callbacks are
    /// looked through).
    #[arg(long, value_name = "ID")]
    pub callback: Option<String>,
    /// Send without a `Metorial-Signature` (the destination is still named when it can be told).
    #[arg(long)]
    pub unsigned: bool,
    /// Send to a host that is not this machine without asking; needed when not on a terminal.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Edit the recorded body in `$VISUAL` or `$EDITOR` first; the answer is then compared with
    /// the recorded one.
    #[arg(long, conflicts_with = "body_file")]
    pub edit: bool,
    /// Send this file's bytes in place of the recorded body (validated as JSON when the recorded
    /// body was); the answer is then compared with the recorded one.
    #[arg(long, value_name = "F")]
    pub body_file: Option<std::path::PathBuf>,
    /// On event-destinations: the variable holding the destination's signing secret (the
    /// platform shows it only on create and rotate), to sign the request afresh.
    #[arg(long, value_name = "VAR")]
    pub secret_env: Option<String>,
}

/// Runs a replay and prints it; the error carries the exit code of a non-2xx or missing answer.
///
/// # Errors
/// Usage (bad target, read-only profile, nothing to replay), the API's error, a refused
/// confirmation, or the replay's own outcome (exit 3 or 4).
pub async fn run(
    client: &Client,
    out: &Output,
    args: ReplayArgs,
    read_only: bool,
) -> Result<(), HeadlessError> {
    run_logged(client, out, args, read_only, None).await
}

/// [`run`], keeping the answer in the profile's answers' log (for `diff --with-replay`) when
/// one is given.
///
/// # Errors
/// As [`run`].
pub async fn run_logged(
    client: &Client,
    out: &Output,
    args: ReplayArgs,
    read_only: bool,
    log: Option<&crate::api::forward::AnswerLog>,
) -> Result<(), HeadlessError> {
    if args.secret_env.is_some() {
        return Err(HeadlessError::Usage(
            "--secret-env is for event-destinations: pulsar's replay signs with the destination's secret the API gives.".into(),
        ));
    }
    let target = replay::parse_target(&args.to).map_err(usage)?;
    let local = replay::is_loopback(&target);
    check_target(&target, read_only, args.yes)?;
    // Shown counted from 1; the API's index counts from 0.
    let index = match args.attempt {
        Some(n) if n < 1 => {
            return Err(HeadlessError::Usage(format!(
                "--attempt counts from 1 (#1 is the first delivery, as `notifications get` shows), not {n}"
            )));
        }
        n => n.map(|n| n - 1),
    };
    let n = client.get_notification(&args.id).await?;
    let mut plan = replay::prepare(client, &n, index, target, args.unsigned)
        .await
        .map_err(usage)?;
    let edited = args.edit || args.body_file.is_some();
    if edited {
        // Validated before anything is sent: an invalid edit sends nothing.
        plan.body = super::edit::new_body(&plan.body, args.body_file.as_deref())?;
    }
    if !local && !args.yes {
        confirm_remote(&plan)?;
    }
    let result = replay::send(&plan, &SendOptions { timeout: timeout() }).await;
    if let Some(log) = log
        && let Err(e) = log.append_sent(
            if edited { "edited" } else { "replayed" },
            &plan.notification_id,
            plan.attempt_index,
            &result,
            &plan.target,
            edited.then_some(plan.body.as_str()),
        )
    {
        // The replay happened; only the comparison later lacks it.
        tracing::warn!("the answer is not kept for diff --with-replay: {e}");
    }
    if edited {
        super::edit::print(out, &n, &plan, &result)?;
    } else if out.table() {
        let text = to_table(&plan, &result);
        output::emit(|w| output::write_raw(w, &text, false))?;
    } else {
        out.document(&format!("{:#}", to_json(&plan, &result)))?;
    }
    outcome(&result)
}

/// Refuses a target beyond this machine from a read-only profile, or without `--yes` when not
/// on a terminal (where no confirmation can be typed).
pub(super) fn check_target(
    target: &url::Url,
    read_only: bool,
    yes: bool,
) -> Result<(), HeadlessError> {
    let local = replay::is_loopback(target);
    if read_only && !local {
        return Err(HeadlessError::Usage(format!(
            "refused: a read-only profile replays only to this machine (localhost, 127.0.0.1, [::1]), not to {}",
            line(target.host_str().unwrap_or_default())
        )));
    }
    if !local && !yes && !on_terminal() {
        return Err(HeadlessError::Usage(format!(
            "refusing to replay to {}, which is not this machine, without --yes when not on a terminal",
            line(target.host_str().unwrap_or_default())
        )));
    }
    Ok(())
}

fn usage(e: ReplayError) -> HeadlessError {
    match e {
        ReplayError::Lookup(e) => HeadlessError::Api(e),
        other => HeadlessError::Usage(line(&other.to_string()).into_owned()),
    }
}

fn on_terminal() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// The timeout: 10 s, or shorter when [`TIMEOUT_ENV`] asks (tests).
pub(super) fn timeout() -> Duration {
    std::env::var(TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(replay::TIMEOUT, |ms| {
            Duration::from_millis(ms).min(replay::TIMEOUT)
        })
}

/// The exit code: 0 on a whole 2xx answer, 3 on another answer, 4 on none or on a 2xx cut short
/// (the delivery engine counts that attempt failed too).
pub(super) fn outcome(r: &ReplayResult) -> Result<(), HeadlessError> {
    match (r.status, &r.error) {
        _ if r.is_success() => Ok(()),
        (Some(s), Some(e)) if r.is_2xx() => Err(HeadlessError::Replay {
            code: 4,
            message: format!("the receiver answered HTTP {s} but the answer failed: {e}"),
        }),
        (Some(s), _) => Err(HeadlessError::Replay {
            code: 3,
            message: format!("the receiver answered HTTP {s}"),
        }),
        (None, e) => Err(HeadlessError::Replay {
            code: 4,
            message: e
                .as_ref()
                .map_or_else(|| "no answer".into(), ToString::to_string),
        }),
    }
}

/// Shows what will be sent and asks for the target's host to be typed back.
pub(super) fn confirm_remote(plan: &ReplayPlan) -> Result<(), HeadlessError> {
    let host = plan.target.host_str().unwrap_or_default().to_string();
    let mut err = std::io::stderr().lock();
    let preview = format!(
        "{}\nThis sends to {host}, which is not this machine.\n{}Type the host name to send: ",
        request_lines(plan, &plan.preview_headers()).join("\n"),
        if super::replay_report::signed(plan) {
            "It is signed with the destination's real signing secret: whoever receives it could \
             relay it to the real destination, which accepts it while the signature's timestamp \
             is within its tolerance. Prefer --unsigned for hosts you do not control.\n"
        } else {
            ""
        },
    );
    err.write_all(crate::text::multiline(&preview).as_bytes())
        .and_then(|()| err.flush())
        .map_err(HeadlessError::Io)?;
    drop(err);
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(HeadlessError::Io)?;
    if answer.trim().eq_ignore_ascii_case(&host) {
        Ok(())
    } else {
        Err(HeadlessError::Cancelled)
    }
}
