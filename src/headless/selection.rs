//! The selection's flags ([`crate::api::selection::Selection`]), shared by the commands that act
//! on many notifications: `recover`, `wait` (and `forward`).
use chrono::{DateTime, Utc};
use clap::Args;

use super::HeadlessError;
use crate::api::model::NotificationStatus;
use crate::api::selection::{Selection, parse_time};

/// Which notifications: `--destination`, `--callback`, `--event` (the API's filters),
/// `--event-type`, `--status`, `--retried`, `--since`, `--until`.
#[derive(Args, Debug, Clone, Default)]
pub struct SelectionArgs {
    /// Only to this destination (`cld_…`; repeat for several).
    #[arg(long = "destination", value_name = "ID")]
    pub destinations: Vec<String>,
    /// Only for this callback (`clb_…`; repeat for several).
    #[arg(long = "callback", value_name = "ID")]
    pub callbacks: Vec<String>,
    /// Only for this event (`cbe_…`; repeat for several).
    #[arg(long = "event", value_name = "ID")]
    pub events: Vec<String>,
    /// Only of this event type (the delivered body's `type`; `build.*` matches a prefix; repeat
    /// for several).
    #[arg(long = "event-type", value_name = "TYPE")]
    pub event_types: Vec<String>,
    /// Only in this state: failed, retrying, succeeded or pending (repeat for several).
    /// (Deliveries of event-destinations also have delivered and cancelled.)
    #[arg(long = "status", value_name = "S", value_parser = parse_list_status)]
    pub statuses: Vec<NotificationStatus>,
    /// Only those that needed more than one attempt.
    #[arg(long)]
    pub retried: bool,
    /// Created since: a duration ago (`30m`, `2h`, `1d`) or a time (`2026-01-31T12:00:00Z`).
    #[arg(long, value_name = "WHEN", value_parser = parse_when)]
    pub since: Option<DateTime<Utc>>,
    /// Created until: a duration ago or a time.
    #[arg(long, value_name = "WHEN", value_parser = parse_when)]
    pub until: Option<DateTime<Utc>>,
}

impl SelectionArgs {
    /// The selection.
    ///
    /// # Errors
    /// Usage: a window that ends before it starts.
    pub fn selection(&self) -> Result<Selection, HeadlessError> {
        // Only deliveries have these statuses: refused as pulsar's parser always did.
        pulsar_statuses(&self.statuses).map_err(HeadlessError::Usage)?;
        let s = Selection {
            destinations: self.destinations.clone(),
            callbacks: self.callbacks.clone(),
            events: self.events.clone(),
            event_types: self.event_types.clone(),
            statuses: self.statuses.clone(),
            retried: self.retried,
            since: self.since,
            until: self.until,
            ..Selection::default()
        };
        s.validate()
            .map_err(|e| HeadlessError::Usage(e.to_string()))?;
        Ok(s)
    }
}

/// A known notification status.
pub fn parse_status(s: &str) -> Result<NotificationStatus, String> {
    match NotificationStatus::from(s.trim()) {
        NotificationStatus::Other(_) => Err(format!(
            "{s:?} is not a status: failed, retrying, succeeded or pending"
        )),
        known => Ok(known),
    }
}

/// `notifications list --status`: pulsar's four, and the statuses only the deliveries of
/// `event-destinations` have (`delivered`, `cancelled`), kept as they are spelt; pulsar's path
/// refuses those with [`parse_status`]'s sentence ([`pulsar_statuses`]).
pub fn parse_list_status(s: &str) -> Result<NotificationStatus, String> {
    match s.trim() {
        t @ ("delivered" | "cancelled") => Ok(NotificationStatus::Other(t.to_string())),
        _ => parse_status(s),
    }
}

/// Pulsar's refusal of a status only deliveries have, as its parser says it.
///
/// # Errors
/// The first status pulsar does not have.
pub fn pulsar_statuses(statuses: &[NotificationStatus]) -> Result<(), String> {
    statuses.iter().try_for_each(|s| {
        parse_status(s.as_str())
            .map(|_| ())
            .map_err(|e| format!("invalid value '{}' for '--status <S>': {e}", s.as_str()))
    })
}

/// `--since`/`--until`: relative to the moment the command line is read.
fn parse_when(s: &str) -> Result<DateTime<Utc>, String> {
    parse_time(s, Utc::now()).map_err(|e| e.to_string())
}
