//! Alerts in the console (issue 38): the profile's alert rules (`[[profiles.P.alerts]]`, as
//! `alerts check` reads them) judged on the worker by `crate::alerts::evaluate` when the
//! console opens, on `!` and every [`INTERVAL`] (counted in the console's ticks), never on the
//! UI's thread; after `:profile NAME` the new profile's rules are read and judged; the failing ones show in the header
//! (`⚠ 2 alerts · !`) and `!` lists them. The console sends nothing to the rules' sinks (that is
//! `alerts watch`'s); it reads `alerts watch`'s remembered state (`<data dir>/switchboard/alerts/`)
//! for when each failure began.
pub(crate) mod update;
pub(crate) mod view;

use std::path::PathBuf;
use std::sync::Arc;

use crate::alerts::{Finding, Rule, StateFile};
use crate::api::identity::ServiceIdentity;
use crate::api::{Client, Error};

/// How often the rules are judged again while the console runs: `alerts watch`'s default.
pub(crate) const INTERVAL: std::time::Duration = std::time::Duration::from_secs(30);

/// The rules of one profile (shared, compared by identity: they hold sinks' settings, never
/// printed).
#[derive(Clone)]
pub(crate) struct Rules {
    /// The profile they belong to.
    pub(crate) profile: String,
    /// The rules.
    pub(crate) rules: Arc<Vec<Rule>>,
}

impl PartialEq for Rules {
    fn eq(&self, other: &Self) -> bool {
        self.profile == other.profile && Arc::ptr_eq(&self.rules, &other.rules)
    }
}

impl std::fmt::Debug for Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rules")
            .field("profile", &self.profile)
            .field("rules", &self.rules.len())
            .finish()
    }
}

/// What the worker is asked: judge these rules once.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AlertsCmd {
    /// The rules.
    pub(crate) rules: Rules,
    /// Where `alerts watch` remembers what failed since when.
    pub(crate) data_dir: Option<PathBuf>,
}

/// The failing rules, each with when it began (remembered, else as far as the deliveries show).
pub(crate) type Active = Vec<Finding>;

/// The console's alerts.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct AlertsState {
    /// The last judgement: the failing findings; `None` before the first.
    pub(crate) active: Option<Active>,
    /// The check in flight.
    pub(crate) pending: Option<u64>,
    /// Why the last check failed.
    pub(crate) error: Option<String>,
    /// The list (`!`) is open.
    pub(crate) shown: bool,
    /// Ticks since the last check was asked for.
    pub(crate) ticks: u32,
}

/// The worker's part: one pass of every rule, the failing ones kept, each `since` the one
/// `alerts watch` remembered when it did.
pub(crate) async fn execute(client: &Client, cmd: &AlertsCmd) -> Result<Active, Error> {
    let findings = crate::alerts::evaluate(client, &cmd.rules.rules, chrono::Utc::now()).await?;
    let memory = cmd
        .data_dir
        .as_deref()
        .map(|d| StateFile::new(d, &ServiceIdentity::of(client)))
        .and_then(|f| f.load().ok());
    Ok(findings
        .into_iter()
        .filter(|f| f.failing)
        .map(|mut f| {
            if let Some(m) = memory.as_ref().and_then(|m| m.get(&f.rule, f.subject.id())) {
                f.since = Some(m.since);
            }
            f
        })
        .collect())
}
