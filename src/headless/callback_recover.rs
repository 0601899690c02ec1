//! `notifications recover` on `callback-destinations`: the generation has no retry, so each
//! selected notification's embedded request is sent again from this machine, signed `t=…,v1=…`
//! with its destination's secret ([`crate::api::callback_recover`]), then shown, journalled and
//! run as pulsar's recover is ([`super::recover::execute`]).
use super::HeadlessError;
use super::output::OutputFormat;
use super::recover::{RecoverArgs, execute, refused_read_only, say, unreadable_text};
use crate::api::Client;
use crate::api::callback_recover::{self as cr, CallbackSelection};
use crate::api::identity::ServiceIdentity;
use crate::api::journal::Journal;
use crate::api::{recover, replay};
use crate::text::sanitize::line;

fn usage(m: impl Into<String>) -> HeadlessError {
    HeadlessError::Usage(line(&m.into()).into_owned())
}

/// The selection flags in this generation's words (`VERB` names the command in a refusal):
/// the platform filters callbacks, destinations and statuses; event types, the window and
/// `--retried` are read from each notification; `--event` is refused.
///
/// # Errors
/// Usage: `--event`, a status this generation lacks, an empty window.
pub(super) fn selection_of(
    a: &super::selection::SelectionArgs,
    verb: &str,
) -> Result<CallbackSelection, HeadlessError> {
    if !a.events.is_empty() {
        return Err(usage(format!(
            "notifications {verb} on callback-destinations: the platform does not filter notifications by event; --callback, --destination, --status, --event-type and the window select."
        )));
    }
    let statuses = super::callback_gen::statuses(&a.statuses)?;
    if let (Some(s), Some(u)) = (a.since, a.until)
        && u < s
    {
        return Err(usage("--until is before --since"));
    }
    Ok(CallbackSelection {
        callbacks: a.callbacks.clone(),
        destinations: a.destinations.clone(),
        statuses,
        event_types: a.event_types.clone(),
        retried: a.retried,
        since: a.since,
        until: a.until,
        notifications: Vec::new(),
    })
}

/// Plans, shows and (unless `--dry-run`) sends a recover of this generation's notifications.
///
/// # Errors
/// As pulsar's recover: usage, the API's, the journal's, or the run's outcome (3, 4 or 130).
pub async fn run(
    client: &Client,
    format: OutputFormat,
    args: RecoverArgs,
    read_only: bool,
    profile: &str,
) -> Result<(), HeadlessError> {
    if args.wait.is_some() || args.secret_env.is_some() {
        return Err(usage(
            "notifications recover on callback-destinations: --wait and --secret-env are event-destinations'; here the destination's secret is read from the platform and each request is sent from this machine.",
        ));
    }
    if args.check_in_doubt {
        return Err(usage(
            "notifications recover on callback-destinations: --check-in-doubt reads the platform's attempts, which this generation does not keep (only a count); --again ID sends one again.",
        ));
    }
    let mut sel = selection_of(&args.selection, "recover")?;
    if !args.again.is_empty() {
        if let Some(bad) = args.again.iter().find(|id| !id.starts_with("sdi_")) {
            return Err(usage(format!(
                "--again takes this generation's notification ids (sdi_…), not {}",
                line(bad)
            )));
        }
        // Exactly the named ones: the rest of the selection is not walked.
        sel.notifications = args.again.clone();
    }
    let to = args
        .to
        .as_deref()
        .map(replay::parse_target)
        .transpose()
        .map_err(|e| usage(e.to_string()))?;
    if read_only && let Some(t) = to.as_ref().filter(|t| !replay::is_loopback(t)) {
        return Err(refused_read_only(&[recover::host_of(t)]));
    }
    let data_dir = crate::config::Paths::with_config(None)
        .data_dir
        .ok_or_else(|| usage("no data directory for the journal (set HOME or XDG_DATA_HOME)"))?;
    let journal = Journal::open_for(&data_dir, &ServiceIdentity::of(client), profile)
        .map_err(|e| HeadlessError::Io(std::io::Error::other(e.to_string())))?;
    for u in journal.unreadable() {
        say(&unreadable_text(journal.path(), &u))?;
    }
    // `--since`/`--until` were read on this machine's clock; `created_at` is the server's.
    let offset = client.clock_offset().await;
    sel.since = sel.since.map(|t| t + offset);
    sel.until = sel.until.map(|t| t + offset);
    let plan = cr::plan(client, &sel, to.as_ref(), &journal, &args.again).await?;
    execute(client, format, &args, read_only, plan, journal).await
}
