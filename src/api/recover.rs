//! Recover in bulk (issue 26): every notification a [`Selection`] holds, re-delivered once from
//! this machine, on the replay's machinery ([`crate::api::replay`]): each notification's latest
//! recorded request, body byte for byte, freshly signed with its destination's secret, to the
//! destination's own URL or to one target; the replay's timeout and caps, no redirects.
//!
//! [`plan`] walks the selection (within the walk's caps) and decides what would be sent, keeping
//! ids, targets and times only (nothing is sent: a dry run is a plan); [`run`] reads each body when
//! its turn comes and sends it with bounded concurrency per host and overall, claiming each
//! delivery in the [`Journal`] first and recording its outcome after, and stops taking new ones as
//! soon as asked, letting those in flight finish: memory follows what is in flight, not the size
//! of the selection. What an earlier run left in doubt is named ([`RecoverPlan::in_doubt`]), sent
//! only when the user names it (`again`), or resolved from the platform's attempts
//! ([`check_in_doubt`]). The platform's own records never change.
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::future::Future;

use chrono::{DateTime, Utc};
use futures::StreamExt;
use futures::stream::FuturesUnordered;

use super::journal::{Entry, Journal, JournalError, Outcome, State};
use super::model::{Destination, Notification, NotificationStatus, time};
use super::replay::{
    self, ReplayPlan, ReplayResult, SendOptions, Signing, choose_destination, matching,
    recorded_request, signing_host,
};
use super::selection::{Selection, WalkStats};
use super::{Client, Error};

/// Requests in flight to one host at once, by default (as the delivery engine per destination).
pub const PER_HOST: usize = 2;
/// Requests in flight at once over all hosts.
pub const OVERALL: usize = 16;

/// One delivery to send: what it is and where it goes, without its body (read when sent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// `cbn_…`.
    pub notification_id: String,
    /// Where it is sent.
    pub target: url::Url,
    /// The recorded attempt whose request is sent (from 0).
    pub attempt_index: i64,
    /// The destination whose secret signs it (`cld_…`).
    pub destination: String,
    /// The notification's state on the platform.
    pub status: NotificationStatus,
    /// When the notification was created.
    pub created_at: DateTime<Utc>,
}

impl Item {
    /// The target's `host[:port]`: the unit of per-host concurrency and of confirmation.
    #[must_use]
    pub fn host(&self) -> String {
        host_of(&self.target)
    }

    /// `cbn_…  failed  <created>  → <target>`, the target through the redaction policy.
    #[must_use]
    pub fn summary(&self) -> String {
        format!(
            "{}  {}  {}  → {}",
            self.notification_id,
            self.status.as_str(),
            time::format(&self.created_at),
            crate::text::redact::mask_url(self.target.as_str())
        )
    }
}

/// `host[:port]` of a URL (the port only when given).
#[must_use]
pub fn host_of(url: &url::Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    }
}

/// Why a selected notification is not in the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// The journal says it already succeeded to this target (`--again` sends it anyway).
    AlreadySucceeded,
    /// A run was killed while it was in flight (or an unreadable journal line names it):
    /// whether it arrived is unknown (`--check-in-doubt`, `--again ID`).
    InDoubt {
        /// Where it was being sent.
        target: String,
        /// What a check found, once one ran.
        checked: Option<String>,
    },
    /// It cannot be replayed: nothing recorded, no destination to sign for, a bad URL.
    Unplannable(String),
}

/// A selected notification left out of the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// `cbn_…`.
    pub notification: String,
    /// Why.
    pub reason: SkipReason,
}

/// What a recover would send, before anything is sent.
#[derive(Clone, Default, PartialEq)]
pub struct RecoverPlan {
    /// To send, oldest first (the order they first happened).
    pub items: Vec<Item>,
    /// Selected but left out.
    pub skipped: Vec<Skipped>,
    /// Notifications the selection holds (sent or not).
    pub selected: usize,
    /// Oldest and newest creation time of the selected notifications.
    pub span: Option<(DateTime<Utc>, DateTime<Utc>)>,
    /// What the walk read.
    pub walk: WalkStats,
    /// The active destinations, whose secrets sign the deliveries when they are sent.
    pub destinations: Vec<Destination>,
    /// On `callback-destinations`: each notification's callback and its destination's secret
    /// ([`super::callback_recover::plan`]); `None` on pulsar.
    pub callbacks: Option<super::callback_recover::CallbackSends>,
}

// Destinations carry signing secrets: Debug shows counts only.
impl std::fmt::Debug for RecoverPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecoverPlan")
            .field("items", &self.items.len())
            .field("skipped", &self.skipped)
            .field("selected", &self.selected)
            .field("destinations", &self.destinations.len())
            .finish_non_exhaustive()
    }
}

impl RecoverPlan {
    /// Where its items' requests come from and who signs them.
    #[must_use]
    pub fn senders(&self) -> Senders<'_> {
        match &self.callbacks {
            Some(c) => Senders::Callbacks(c),
            None => Senders::Pulsar(&self.destinations),
        }
    }

    /// The targets' hosts (`host[:port]`) with how many deliveries each gets, by name.
    #[must_use]
    pub fn hosts(&self) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for i in &self.items {
            *out.entry(i.host()).or_insert(0) += 1;
        }
        out
    }

    /// The hosts among [`RecoverPlan::hosts`] that are not this machine.
    #[must_use]
    pub fn remote_hosts(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .items
            .iter()
            .filter(|i| !replay::is_loopback(&i.target))
            .map(Item::host)
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// How many were skipped for `reason`'s kind.
    #[must_use]
    pub fn skipped_for(&self, f: impl Fn(&SkipReason) -> bool) -> usize {
        self.skipped.iter().filter(|s| f(&s.reason)).count()
    }

    /// The deliveries left in doubt (not sent): `cbn_…` ids, oldest first.
    #[must_use]
    pub fn in_doubt(&self) -> Vec<&Skipped> {
        self.skipped
            .iter()
            .filter(|s| matches!(s.reason, SkipReason::InDoubt { .. }))
            .collect()
    }
}

/// Plans a recover of `selection`: each selected notification's latest recorded request to `to`,
/// or without it to its destination's own URL, signed with that destination's secret. What the
/// journal says already succeeded, or is in doubt, is left out unless its id is in `again`.
/// Only ids, targets and times are kept: bodies are read when sent ([`run`]). The walk stops at
/// the walk's caps ([`Error::TooManyPages`], naming where to continue).
///
/// # Errors
/// The API's error while reading destinations or the selection.
pub async fn plan(
    client: &Client,
    selection: &Selection,
    to: Option<&url::Url>,
    journal: &Journal,
    again: &[String],
) -> Result<RecoverPlan, Error> {
    // Every active destination once: whose secret signs each delivery is decided locally.
    let destinations = replay::fetch_candidates(client, None).await?;
    let mut out = RecoverPlan::default();
    let mut walk = selection.walk(client);
    while let Some(batch) = walk.next_page().await? {
        for n in batch {
            out.selected += 1;
            out.span = Some(match out.span {
                None => (n.created_at, n.created_at),
                Some((a, b)) => (a.min(n.created_at), b.max(n.created_at)),
            });
            // A body the list page carried cut may hide the callback that picks the destination:
            // that one is read whole, then dropped with the page.
            let planned = match plan_one(client.base_url(), &n, &destinations, to) {
                Err(_) => replay::whole(client, n.clone())
                    .await
                    .map_err(|e| e.to_string())
                    .and_then(|whole| plan_one(client.base_url(), &whole, &destinations, to)),
                ok => ok,
            };
            match planned {
                Err(why) => out.skipped.push(Skipped {
                    notification: n.id.clone(),
                    reason: SkipReason::Unplannable(why),
                }),
                Ok(p) => {
                    let named = again.contains(&p.notification_id);
                    let state = journal.state(&p.notification_id, p.target.as_str());
                    let reason = match state {
                        _ if named => None,
                        Some(State::Succeeded) => Some(SkipReason::AlreadySucceeded),
                        Some(State::InDoubt) => Some(SkipReason::InDoubt {
                            target: p.target.as_str().to_string(),
                            checked: None,
                        }),
                        Some(State::NotDelivered) | None => None,
                    };
                    match reason {
                        Some(reason) => out.skipped.push(Skipped {
                            notification: n.id.clone(),
                            reason,
                        }),
                        None => out.items.push(Item {
                            notification_id: p.notification_id,
                            target: p.target,
                            attempt_index: p.attempt_index,
                            destination: p.destination.map(|d| d.id).unwrap_or_default(),
                            status: n.status.clone(),
                            created_at: n.created_at,
                        }),
                    }
                }
            }
        }
    }
    out.walk = walk.stats();
    out.destinations = destinations;
    // Walked newest first; sent in the order they first happened.
    out.items.reverse();
    out.skipped.reverse();
    Ok(out)
}

/// The replay plan of one notification: its latest recorded request, signed for the destination
/// that sent it, to `to` or to that destination's URL.
fn plan_one(
    base_url: &str,
    n: &Notification,
    destinations: &[Destination],
    to: Option<&url::Url>,
) -> Result<ReplayPlan, String> {
    let (_, recorded) = recorded_request(n, None).map_err(|e| e.to_string())?;
    let callback = recorded
        .body_field("callbackId")
        .or_else(|| n.body_field("callbackId"));
    let found = matching(
        destinations,
        Some(recorded.url.as_str()),
        callback.as_deref(),
    );
    let d = choose_destination(&found, recorded).map_err(|e| e.to_string())?;
    let target = match to {
        Some(t) => t.clone(),
        None => {
            let url = d.webhook_destination.as_ref().map(|w| w.url.as_str());
            replay::parse_target(url.unwrap_or_default()).map_err(|e| e.to_string())?
        }
    };
    let host = signing_host(recorded, base_url).unwrap_or_default();
    replay::plan(n, None, target, Signing::for_destination(d, &host), Some(d))
        .map_err(|e| e.to_string())
}

/// Where a planned item's request comes from and who signs it: pulsar's recorded attempts and
/// destinations, or `callback-destinations`' embedded requests ([`super::callback_recover`]).
#[derive(Debug, Clone, Copy)]
pub enum Senders<'a> {
    /// Pulsar: the active destinations, whose secrets sign.
    Pulsar(&'a [Destination]),
    /// `callback-destinations`: each notification's callback and its destination's secret.
    Callbacks(&'a super::callback_recover::CallbackSends),
}

/// [`prepare`] for either generation.
///
/// # Errors
/// Why it cannot be sent.
pub async fn prepare_for(
    client: &Client,
    senders: Senders<'_>,
    item: &Item,
) -> Result<ReplayPlan, String> {
    match senders {
        Senders::Pulsar(d) => prepare(client, d, item).await,
        Senders::Callbacks(c) => super::callback_recover::prepare(client, c, item).await,
    }
}

/// What is sent for `item`: its notification read again (whole), planned as [`plan`] planned
/// it, to the item's target. Used when the item's turn comes, and by a dry run's listing.
///
/// # Errors
/// Why it cannot be sent (the notification could not be read, or no longer plans).
pub async fn prepare(
    client: &Client,
    destinations: &[Destination],
    item: &Item,
) -> Result<ReplayPlan, String> {
    let n = client
        .get_notification(&item.notification_id)
        .await
        .map_err(|e| format!("could not read the notification: {e}"))?;
    plan_one(client.base_url(), &n, destinations, Some(&item.target))
}

/// What [`check_in_doubt`] decided for one delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    /// The platform's attempts show it delivered to that target: recorded as succeeded.
    Delivered,
    /// The platform cannot tell (no successful attempt to that target, or the generation keeps
    /// no attempts): it stays in doubt, with why.
    Unknown(String),
}

/// Resolves the plan's in-doubt deliveries from the platform's attempts where the generation
/// keeps them (pulsar: the notification's attempts list): one whose attempts hold a success to
/// the same target (normalised) was delivered, and is recorded so in `journal` and counted as
/// already succeeded; any other stays in doubt, with what the check found.
///
/// # Errors
/// The API's error reading a notification, or the journal's.
pub async fn check_in_doubt(
    client: &Client,
    plan: &mut RecoverPlan,
    journal: &mut Journal,
) -> Result<Vec<(String, Checked)>, CheckError> {
    let mut out = Vec::new();
    for s in &mut plan.skipped {
        let SkipReason::InDoubt { target, checked } = &mut s.reason else {
            continue;
        };
        let n = client.get_notification(&s.notification).await?;
        let want = super::journal::normalise_target(target);
        let found = if n.attempts.is_empty() {
            Checked::Unknown("the platform keeps no attempts for it".into())
        } else if n.attempts.iter().any(|a| {
            a.status.as_str() == "succeeded"
                && a.webhook_request
                    .as_ref()
                    .is_some_and(|r| super::journal::normalise_target(&r.url) == want)
        }) {
            Checked::Delivered
        } else {
            Checked::Unknown(format!(
                "the platform's attempts show no success to {}",
                crate::text::redact::mask_url(target)
            ))
        };
        match &found {
            Checked::Delivered => {
                journal.record(&Entry {
                    at: Utc::now(),
                    notification: s.notification.clone(),
                    target: target.clone(),
                    outcome: Outcome::Succeeded,
                    status: None,
                    duration_ms: None,
                })?;
                s.reason = SkipReason::AlreadySucceeded;
            }
            Checked::Unknown(why) => *checked = Some(why.clone()),
        }
        out.push((s.notification.clone(), found));
    }
    Ok(out)
}

/// Why [`check_in_doubt`] could not finish.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// Reading a notification failed.
    #[error(transparent)]
    Api(#[from] Error),
    /// Recording what was found failed.
    #[error(transparent)]
    Journal(#[from] JournalError),
}

/// How many planned deliveries an overview lists.
pub const FIRST_FEW: usize = 5;

/// The count first, before anything is sent: how many the selection holds and their time span,
/// what is left out and why, the targets' hosts with their counts, the first few, and what a run
/// does (or that a dry run sent nothing). `again` names how this face sends the skipped ones anyway
/// (`--again`); the text is the caller's to sanitise when it shows it.
#[must_use]
pub fn overview(plan: &RecoverPlan, dry_run: bool, again: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    let span = plan.span.map_or_else(String::new, |(a, b)| {
        format!(", created {} to {}", time::format(&a), time::format(&b))
    });
    out.push(format!(
        "{} notification{} selected{span} ({} read in {} page{})",
        plan.selected,
        plural(plan.selected),
        plan.walk.seen,
        plan.walk.pages,
        plural(plan.walk.pages),
    ));
    let anyway = |what: &str| again.map_or_else(String::new, |a| format!(" ({a} {what})"));
    let done = plan.skipped_for(|r| *r == SkipReason::AlreadySucceeded);
    if done > 0 {
        out.push(format!(
            "  {done} skipped: already succeeded to that target by an earlier run{}",
            anyway("sends them again")
        ));
    }
    let doubt = plan.in_doubt().len();
    if doubt > 0 {
        out.push(format!(
            "  {doubt} in doubt, not sent: claimed by an earlier run that did not record an outcome (killed in flight, or an unreadable journal line), so whether they arrived is unknown{}",
            again.map_or_else(String::new, |_| {
                " (--check-in-doubt asks the platform; --again ID sends one)".into()
            })
        ));
    }
    for s in &plan.skipped {
        if let SkipReason::Unplannable(why) = &s.reason {
            out.push(format!("  skipped {}: {why}", s.notification));
        }
    }
    let hosts: Vec<String> = plan
        .hosts()
        .into_iter()
        .map(|(h, n)| format!("{h} ({n})"))
        .collect();
    let verb = if dry_run { "would be sent" } else { "to send" };
    out.push(format!(
        "{} {verb}{}{}",
        plan.items.len(),
        if hosts.is_empty() { "" } else { " to " },
        hosts.join(", ")
    ));
    for item in plan.items.iter().take(FIRST_FEW) {
        out.push(format!("  {}", item.summary()));
    }
    if plan.items.len() > FIRST_FEW {
        out.push(format!("  … and {} more", plan.items.len() - FIRST_FEW));
    }
    out.push(if dry_run {
        "Dry run: nothing was sent.".into()
    } else {
        "Each is sent again from this machine, signed as the platform signs; the platform's own \
         records of these notifications do not change."
            .into()
    });
    out
}

/// `s` for a count other than one.
#[must_use]
pub fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Why a read-only profile may not send to `hosts` (they are not this machine).
#[must_use]
pub fn read_only_refusal(hosts: &[String]) -> String {
    format!(
        "refused: a read-only profile recovers only to this machine (localhost, 127.0.0.1, [::1]), not to {}",
        hosts.join(", ")
    )
}

/// What to type to send to hosts that are not this machine: their names and the count.
#[must_use]
pub fn confirmation_prompt(remote: &[String], count: usize) -> String {
    format!(
        "This sends {count} deliveries, signed with the destinations' real signing secrets, to \
         {}, which {} not this machine.\nType the host name{} and the count ({} {count}) to send: ",
        remote.join(", "),
        if remote.len() == 1 { "is" } else { "are" },
        plural(remote.len()),
        remote.join(" "),
    )
}

/// Whether a typed `answer` names every host in `remote` and the count, and nothing else
/// (any order, commas or spaces, case ignored).
#[must_use]
pub fn confirmed(answer: &str, remote: &[String], count: usize) -> bool {
    let mut words: Vec<String> = answer
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    words.sort();
    words.dedup();
    let mut want: Vec<String> = remote.iter().map(|h| h.to_ascii_lowercase()).collect();
    want.push(count.to_string());
    want.sort();
    want.dedup();
    words == want
}

/// How [`run`] sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOptions {
    /// In flight per host (at least 1).
    pub per_host: usize,
    /// In flight over all hosts (at least 1).
    pub overall: usize,
    /// Each request's timeout.
    pub send: SendOptions,
    /// Send even what the journal says succeeded or is in doubt, for these notifications only
    /// (`--again ID …`).
    pub again: Vec<String>,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            per_host: PER_HOST,
            overall: OVERALL,
            send: SendOptions::default(),
            again: Vec::new(),
        }
    }
}

/// One delivery sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// `cbn_…`.
    pub notification: String,
    /// Where it went.
    pub target: url::Url,
    /// What came back (receiver text: sanitise before showing).
    pub result: ReplayResult,
    /// How the journal counts it.
    pub outcome: Outcome,
}

/// The journal's outcome of a replay: a whole 2xx succeeded; another answer failed; no answer,
/// or a 2xx cut short, is unreachable (as `replay` exits 4 for both).
#[must_use]
pub fn outcome_of(r: &ReplayResult) -> Outcome {
    if r.is_success() {
        Outcome::Succeeded
    } else if r.status.is_some() && !(r.is_2xx() && r.error.is_some()) {
        Outcome::Failed
    } else {
        Outcome::Unreachable
    }
}

/// What a run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Whole 2xx answers.
    pub succeeded: usize,
    /// Other answers.
    pub failed: usize,
    /// No (whole) answer.
    pub unreachable: usize,
    /// Not sent: another process had claimed it (or it succeeded) since the plan.
    pub claimed_elsewhere: usize,
    /// Not sent because the run was stopped.
    pub left: usize,
    /// Whether the run was stopped before the end.
    pub stopped: bool,
}

impl Summary {
    /// Deliveries sent.
    #[must_use]
    pub fn sent(&self) -> usize {
        self.succeeded + self.failed + self.unreachable
    }
}

/// Sends `items` with at most `opts.per_host` in flight per host and `opts.overall` in all,
/// hosts taken in turn. Each delivery is claimed in `journal` before it is sent (one another
/// process claimed meanwhile is not sent), its body read when its turn comes ([`prepare`]: only
/// those in flight are in memory), and its outcome recorded after; `each` sees every delivery as
/// it completes. One whose body cannot be read is not sent and counts as getting no answer.
/// When `stop` completes, no new delivery starts; those in flight finish and are recorded, and the
/// rest are counted in [`Summary::left`].
///
/// # Errors
/// The journal cannot be written: no new delivery starts, those in flight are awaited.
pub async fn run(
    client: &Client,
    destinations: &[Destination],
    items: Vec<Item>,
    opts: &RunOptions,
    journal: &mut Journal,
    stop: impl Future<Output = ()>,
    each: impl FnMut(&Delivery),
) -> Result<Summary, JournalError> {
    run_for(
        client,
        Senders::Pulsar(destinations),
        items,
        opts,
        journal,
        stop,
        each,
    )
    .await
}

/// [`run`] for either generation's [`Senders`].
///
/// # Errors
/// As [`run`].
pub async fn run_for(
    client: &Client,
    senders: Senders<'_>,
    items: Vec<Item>,
    opts: &RunOptions,
    journal: &mut Journal,
    stop: impl Future<Output = ()>,
    mut each: impl FnMut(&Delivery),
) -> Result<Summary, JournalError> {
    let per_host = opts.per_host.max(1);
    let overall = opts.overall.max(1);
    // Per host, in plan order; hosts are served round-robin so one slow host cannot starve others.
    let mut hosts: Vec<(String, VecDeque<Item>, usize)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for item in items {
        let h = item.host();
        let at = *index.entry(h.clone()).or_insert_with(|| {
            hosts.push((h, VecDeque::new(), 0));
            hosts.len() - 1
        });
        hosts[at].1.push_back(item);
    }
    let mut summary = Summary::default();
    let mut in_flight = FuturesUnordered::new();
    let mut turn = 0usize;
    let mut failure: Option<JournalError> = None;
    // One client per scheme and host for the run: connections are kept between its requests.
    let mut clients: HashMap<String, reqwest::Client> = HashMap::new();
    let client_api = client;
    let stop = std::pin::pin!(stop);
    let mut stop = stop;
    loop {
        // Start what the limits allow.
        while !summary.stopped && failure.is_none() && in_flight.len() < overall {
            let Some(h) = (0..hosts.len())
                .map(|k| (turn + k) % hosts.len())
                .find(|&h| hosts[h].2 < per_host && !hosts[h].1.is_empty())
            else {
                break;
            };
            turn = h + 1;
            let Some(item) = hosts[h].1.pop_front() else {
                break;
            };
            let target = item.target.as_str().to_string();
            let again = opts.again.contains(&item.notification_id);
            match journal.claim(&item.notification_id, &target, again) {
                Err(e) => {
                    hosts[h].1.push_front(item);
                    failure = Some(e);
                }
                Ok(false) => summary.claimed_elsewhere += 1,
                Ok(true) => {
                    hosts[h].2 += 1;
                    let send = opts.send;
                    let target = &item.target;
                    let key = format!("{}://{}", target.scheme(), hosts[h].0);
                    let client = match clients.get(&key) {
                        Some(c) => Some(c.clone()),
                        None => replay::client_for(target, send.timeout).ok().inspect(|c| {
                            clients.insert(key, c.clone());
                        }),
                    };
                    let api = client_api;
                    in_flight.push(async move {
                        let result = match prepare_for(api, senders, &item).await {
                            Err(why) => not_sent(why),
                            Ok(plan) => match client {
                                Some(c) => replay::send_with(&c, &plan, &send).await,
                                // `send` reports why no client could be built.
                                None => replay::send(&plan, &send).await,
                            },
                        };
                        (h, item, result)
                    });
                }
            }
        }
        if in_flight.is_empty() {
            break;
        }
        // The stop first: once asked, no answer that arrives with it may start another send.
        tokio::select! {
            biased;
            () = &mut stop, if !summary.stopped => summary.stopped = true,
            Some((h, item, result)) = in_flight.next() => {
                hosts[h].2 -= 1;
                let outcome = outcome_of(&result);
                let d = Delivery {
                    notification: item.notification_id,
                    target: item.target,
                    result,
                    outcome,
                };
                match outcome {
                    Outcome::Succeeded => summary.succeeded += 1,
                    Outcome::Failed => summary.failed += 1,
                    _ => summary.unreachable += 1,
                }
                let recorded = journal.record(&Entry {
                    at: Utc::now(),
                    notification: d.notification.clone(),
                    target: d.target.as_str().to_string(),
                    outcome,
                    status: d.result.status,
                    duration_ms: u64::try_from(d.result.duration.as_millis()).ok(),
                });
                if let Err(e) = recorded {
                    failure.get_or_insert(e);
                }
                each(&d);
            }
        }
    }
    summary.left = hosts.iter().map(|h| h.1.len()).sum();
    summary.stopped |= summary.left > 0;
    match failure {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

/// The result of a delivery that was not sent (its notification could not be read again).
fn not_sent(why: String) -> ReplayResult {
    ReplayResult {
        sent_at: Utc::now(),
        sent_headers: Vec::new(),
        status: None,
        headers: Default::default(),
        headers_truncated: false,
        body: None,
        body_truncated: false,
        duration: std::time::Duration::ZERO,
        error: Some(replay::SendError::Network(format!("not sent: {why}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn result(status: Option<u16>, error: Option<replay::SendError>) -> ReplayResult {
        ReplayResult {
            sent_at: Utc::now(),
            sent_headers: Vec::new(),
            status,
            headers: Default::default(),
            headers_truncated: false,
            body: None,
            body_truncated: false,
            duration: Duration::ZERO,
            error,
        }
    }

    #[test]
    fn outcomes_follow_the_replay_exit_codes() {
        let cut = || Some(replay::SendError::Network("reset".into()));
        assert_eq!(outcome_of(&result(Some(204), None)), Outcome::Succeeded);
        assert_eq!(outcome_of(&result(Some(503), None)), Outcome::Failed);
        assert_eq!(outcome_of(&result(Some(500), cut())), Outcome::Failed);
        assert_eq!(outcome_of(&result(Some(200), cut())), Outcome::Unreachable);
        assert_eq!(outcome_of(&result(None, cut())), Outcome::Unreachable);
    }

    #[test]
    fn confirmation_names_every_remote_host_and_the_count() {
        let hosts = ["a.example".to_string(), "b.example:8443".to_string()];
        assert!(confirmed("a.example b.example:8443 12\n", &hosts, 12));
        assert!(confirmed("12, B.example:8443, a.example", &hosts, 12));
        assert!(!confirmed("a.example 12", &hosts, 12));
        assert!(!confirmed("a.example b.example:8443 11", &hosts, 12));
        assert!(!confirmed(
            "a.example b.example:8443 12 c.example",
            &hosts,
            12
        ));
        assert!(!confirmed("", &hosts, 12));
    }

    #[test]
    fn hosts_keep_an_explicit_port() {
        let u = |s: &str| url::Url::parse(s).expect("url");
        assert_eq!(host_of(&u("http://127.0.0.1:8080/x")), "127.0.0.1:8080");
        assert_eq!(host_of(&u("https://hooks.example/x")), "hooks.example");
    }
}
