//! `notifications forward --to URL` on `callback-destinations` (`generations.md` §6): there is
//! no global notification list, so each callback's notifications are followed with a cursor of
//! its own (the platform's `after`, oldest first; `--callback` names them, else every callback,
//! read again each round so a new one is followed too), and each new notification's embedded
//! request is sent to a receiver on this machine, signed `t=…,v1=…` with its destination's
//! secret (unsigned, and said so once, where the platform omits it; `--unsigned` sends none).
//!
//! Exactly once, as on the other generations: the following, the journal and the cursor files
//! are [`crate::api::callback_forward`]'s (the console's forward room runs the same); this is the
//! command's checks; its output is [`super::forward_lines`]'s.
use std::io::IsTerminal;

use chrono::Utc;

use super::HeadlessError;
use super::forward::{Context, ForwardArgs, usage};
use super::forward_lines::{Items, Lines};
use super::output::OutputFormat;
use crate::api::Client;
use crate::api::callback_forward::{self as cf, Follow, Start};

/// Forwards until Ctrl-C.
///
/// # Errors
/// Usage (target, interval, start), a cursor or journal that cannot be written, the API's.
pub async fn run(
    client: &Client,
    format: OutputFormat,
    args: ForwardArgs,
    ctx: &Context,
) -> Result<(), HeadlessError> {
    if args.secret_env.is_some() {
        return Err(usage(
            "notifications forward on callback-destinations: --secret-env is event-destinations'; here the destination's secret is read from the platform.",
        ));
    }
    let (target, interval) = super::forward::target_and_interval(&args, ctx)?;
    let start = match (&args.since, args.resume) {
        (Some(t), _) => Start::Since(
            crate::api::selection::parse_time(t, Utc::now())
                .map_err(|e| usage(format!("--since: {e}")))?,
        ),
        (None, true) => Start::Resume,
        (None, false) => Start::Now,
    };
    for id in args.callbacks.iter().chain(&args.destinations) {
        crate::api::request::check_segment(id)?;
    }
    let Some(dir) = ctx.data_dir.clone() else {
        return Err(usage(
            "forward keeps its cursors and journal in the data directory: none is known here",
        ));
    };
    let follow = Follow {
        target,
        callbacks: args.callbacks.clone(),
        destinations: args.destinations.clone(),
        event_types: args.event_types.clone(),
        unsigned: args.unsigned,
        interval,
        send: crate::api::replay::SendOptions {
            timeout: super::replay::timeout(),
        },
        start,
        profile: ctx.profile.clone(),
        data_dir: dir,
    };
    let mut out = Lines {
        json_out: format != OutputFormat::Table || !std::io::stdout().is_terminal(),
        target: follow.target.to_string(),
        signed: !follow.unsigned,
        items: Items::Notifications,
    };
    let mut interrupt = super::interrupt::Interrupt::listen();
    let stop = async move { interrupt.recv().await };
    cf::run(client, &follow, &mut out, stop).await
}
