//! `notifications forward --to URL` on `event-destinations` (issue 34): follows new deliveries
//! (oldest first, the platform's `after` cursor; `--destination` and `--event-type` narrow) and
//! sends each one's latest recorded request to a receiver on this machine, freshly signed as the
//! platform signs (with `--secret-env VAR`, or `--unsigned`).
//!
//! Exactly once, as pulsar's forward: each delivery is claimed in the service's journal before it
//! is sent and its outcome written after, and the cursor is saved (0600, atomically) after each
//! one, so neither a restart (`--resume`) nor a kill between sending and saving sends anything
//! twice. A delivery not yet attempted holds the ones after it (order) until it is, or for
//! [`delivery_forward::PENDING_GRACE`]. A send the receiver did not take is sent again while the run lives (0.5 s,
//! doubling to 30 s, as pulsar's forward), and kept open in the cursor file for `--resume`: never
//! lost. One JSON event a line (`ready`, `forwarded`, `failed`, `skipped`,
//! `caught_up`) when piped, lines on a terminal. Ctrl-C stops it (exit 0). The following is
//! [`crate::api::delivery_forward`]'s (the loop shared with callback-destinations); this is the
//! command's checks.
use std::io::IsTerminal;

use super::HeadlessError;
use super::forward::{Context, ForwardArgs, usage};
use super::forward_lines::{Items, Lines};
use super::output::OutputFormat;
use crate::api::delivery_forward::{self, DeliveryFollow};
use crate::api::follow::Start;
use crate::api::replay::SendOptions;
use crate::api::{Client, Secret};

/// Forwards until Ctrl-C.
///
/// # Errors
/// Usage (target, interval, start, secret), a cursor or journal that cannot be written, the API's.
pub async fn run(
    client: &Client,
    format: OutputFormat,
    args: ForwardArgs,
    ctx: &Context,
) -> Result<(), HeadlessError> {
    if !args.callbacks.is_empty() {
        return Err(usage(
            "--callback is pulsar's: deliveries are followed by --destination and --event-type here.",
        ));
    }
    let secret = match (&args.secret_env, args.unsigned) {
        (Some(_), true) => {
            return Err(usage(
                "--secret-env signs and --unsigned does not: give one.",
            ));
        }
        (Some(v), false) => Some(Secret::new(super::input::secret_from_env(
            v,
            "the destination's signing secret",
        )?)),
        (None, true) => None,
        (None, false) => {
            return Err(usage(
                "a delivery is signed with its destination's secret, which the platform shows only on create and rotate: give it with --secret-env VAR, or forward --unsigned.",
            ));
        }
    };
    let (target, interval) = super::forward::target_and_interval(&args, ctx)?;
    let since = args
        .since
        .as_deref()
        .map(|t| crate::api::selection::parse_time(t, chrono::Utc::now()))
        .transpose()
        .map_err(|e| usage(format!("--since: {e}")))?;
    let Some(dir) = &ctx.data_dir else {
        return Err(usage(
            "forward keeps its cursor and journal in the data directory: none is known here",
        ));
    };
    let start = match (since, args.resume) {
        (Some(t), _) => Start::Since(t),
        (None, true) => Start::Resume,
        (None, false) => Start::Now,
    };
    let follow = DeliveryFollow {
        target,
        destinations: args.destinations.clone(),
        event_types: args.event_types.clone(),
        secret,
        interval,
        send: SendOptions {
            timeout: super::replay::timeout(),
        },
        start,
        profile: ctx.profile.clone(),
        data_dir: dir.clone(),
    };
    let mut out = Lines {
        json_out: format != OutputFormat::Table || !std::io::stdout().is_terminal(),
        target: follow.target.to_string(),
        signed: follow.secret.is_some(),
        items: Items::Deliveries,
    };
    let mut interrupt = super::interrupt::Interrupt::listen();
    let stop = async move { interrupt.recv().await };
    delivery_forward::run(client, &follow, &mut out, stop).await
}
