//! The recover room: marks on the Notifications list (and on the lists whose resource takes
//! marks for the platform's retry), and *recover…* on a destination, a callback or the
//! (filtered or marked) Notifications list: the selection as a form (window,
//! statuses, target), the count first, a typed confirmation for hosts that are not this
//! machine (asked through the console's one confirmation), progress with `Esc` to stop, then each delivery's outcome and answer. `mod` holds
//! the model and the worker's part, `update` the keys and replies, `view` the drawing; the
//! selection, planning, sending and journal are `crate::api`'s (`selection`, `recover`,
//! `journal`), run on the worker.
pub(crate) mod platform;
pub(crate) mod update;
pub(crate) mod view;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::api::callback_recover::{CallbackSelection, CallbackSends};
use crate::api::identity::ServiceIdentity;
use crate::api::journal::Journal;
use crate::api::model::Destination;
use crate::api::platform_retry::{self as retry, Answer, RetrySelection};
use crate::api::recover::{self, Delivery, Item, RecoverPlan, RunOptions, Summary};
use crate::api::selection::Selection;
use crate::api::{Client, Error};
use crate::console::input::TextInput as Text;

/// Whether marks belong to `tab`'s rows: the Notifications list of pulsar or of
/// `callback-destinations` (merged across callbacks), or a list whose resource's console module
/// takes marks for the platform's retry ([`crate::console::views::marked_retry`]).
pub(crate) fn marks_tab(tab: crate::console::tab::Tab) -> bool {
    tab.notifies() || crate::console::views::marked_retry(tab, &[]).is_some()
}

/// Rows marked on the Notifications list, by id: kept across pages, reloads and sorts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Marks {
    /// The marked notifications.
    pub(crate) ids: BTreeSet<String>,
    /// The row last toggled: where a range starts.
    pub(crate) anchor: Option<String>,
}

/// Asks a run to stop: no new delivery starts, those in flight finish and are journaled.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stop(Arc<tokio::sync::Notify>);

impl Stop {
    /// Stops the run (also when it has not started waiting yet: the permit is kept).
    pub(crate) fn stop(&self) {
        self.0.notify_one();
    }

    async fn asked(&self) {
        self.0.notified().await;
    }
}

impl PartialEq for Stop {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// What the worker is asked to do for the room.
#[derive(Clone, PartialEq)]
pub(crate) enum RecoverCmd {
    /// Walk the selection and plan ([`recover::plan`]): nothing is sent.
    Plan {
        /// Which notifications.
        selection: Box<Selection>,
        /// One target for all, or each destination's own URL.
        to: Option<url::Url>,
        /// The data folder holding the journal.
        journal: PathBuf,
        /// The profile (kept on the journal's lines).
        profile: String,
    },
    /// `callback-destinations`: walk its callbacks' notifications and plan
    /// ([`crate::api::callback_recover::plan`]): nothing is sent.
    PlanCallbacks {
        /// Which notifications.
        selection: Box<CallbackSelection>,
        /// One target for all, or each destination's own URL.
        to: Option<url::Url>,
        /// The data folder holding the journal.
        journal: PathBuf,
        /// The profile (kept on the journal's lines).
        profile: String,
    },
    /// Send the plan ([`recover::run_for`]): one reply per delivery, then the summary.
    Run {
        /// What to send.
        items: Vec<Item>,
        /// Whose secrets sign them.
        destinations: Vec<Destination>,
        /// On `callback-destinations`: the callbacks and secrets the plan found.
        callbacks: Option<CallbackSends>,
        /// The data folder holding the journal.
        journal: PathBuf,
        /// The profile (kept on the journal's lines).
        profile: String,
        /// Stops the run.
        stop: Stop,
    },
    /// Walk the selection and plan the platform's retries ([`retry_plan`]).
    RetryPlan {
        /// Which deliveries.
        selection: Box<crate::api::platform_retry::RetrySelection>,
        /// Exactly the marked deliveries named in the selection, unfinished ones kept for the
        /// platform to refuse ([`retry::plan_marked`]).
        marked: bool,
        /// Asked again whatever the journal says.
        again: Vec<String>,
        /// The data folder holding the journal.
        journal: PathBuf,
        /// The profile (kept on the journal's lines).
        profile: String,
    },
    /// Ask the platform to retry, then follow the new attempts ([`retry_run`]).
    RetryRun {
        /// What to ask.
        items: Vec<crate::api::platform_retry::Item>,
        /// Asked again whatever the journal says.
        again: Vec<String>,
        /// The data folder holding the journal.
        journal: PathBuf,
        /// The profile (kept on the journal's lines).
        profile: String,
        /// Stops the run.
        stop: Stop,
    },
}

// Plans carry recorded bodies: Debug shows counts only.
impl std::fmt::Debug for RecoverCmd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Plan { selection, .. } => f
                .debug_struct("Plan")
                .field("notifications", &selection.notifications.len())
                .finish_non_exhaustive(),
            Self::PlanCallbacks { selection, .. } => f
                .debug_struct("PlanCallbacks")
                .field("notifications", &selection.notifications.len())
                .finish_non_exhaustive(),
            Self::Run { items, .. } => f
                .debug_struct("Run")
                .field("items", &items.len())
                .finish_non_exhaustive(),
            Self::RetryPlan { .. } => f.debug_struct("RetryPlan").finish_non_exhaustive(),
            Self::RetryRun { items, .. } => f
                .debug_struct("RetryRun")
                .field("items", &items.len())
                .finish_non_exhaustive(),
        }
    }
}

/// What the worker answers (a run answers many times, all to the same request).
#[derive(Clone, PartialEq)]
pub(crate) enum RecoverReply {
    /// The plan: the count first.
    Planned(Box<RecoverPlan>),
    /// One delivery sent, with its answer.
    Delivered(Box<Delivery>),
    /// The run ended (stopped or not).
    Finished(Summary),
    /// The journal could not be opened or written (nothing new is sent).
    Failed(String),
    /// The platform's retry plan: the count first.
    RetryPlanned(Box<crate::api::platform_retry::RetryPlan>),
    /// One retry asked, with the platform's answer.
    Retried(Box<crate::api::platform_retry::Retried>),
    /// Every retry asked (or the run stopped); the new attempts are followed next.
    RetryRan(crate::api::platform_retry::RunSummary),
    /// A retried delivery's new attempt landed.
    Landed(Box<crate::api::platform_retry::Landed>),
    /// The follow ended: the accepted retries whose attempt did not land in time.
    Followed(Vec<String>),
}

// Receivers' answers may carry secrets: Debug shows the outcome only.
impl std::fmt::Debug for RecoverReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Planned(p) => write!(f, "Planned({})", p.items.len()),
            Self::Delivered(d) => write!(f, "Delivered({}, {:?})", d.notification, d.outcome),
            Self::Finished(s) => write!(f, "Finished({s:?})"),
            Self::Failed(why) => write!(f, "Failed({why})"),
            Self::RetryPlanned(p) => write!(f, "RetryPlanned({})", p.items.len()),
            Self::Retried(r) => write!(f, "Retried({})", r.item.delivery),
            Self::RetryRan(s) => write!(f, "RetryRan({s:?})"),
            Self::Landed(l) => write!(f, "Landed({}, {})", l.delivery, l.outcome()),
            Self::Followed(left) => write!(f, "Followed({} left)", left.len()),
        }
    }
}

/// Runs a room command on the worker, handing every reply to `reply` as it comes.
pub(crate) async fn execute(
    client: &Client,
    cmd: &RecoverCmd,
    mut reply: impl FnMut(Result<RecoverReply, Error>),
) {
    let answer = Ok;
    match cmd {
        RecoverCmd::Plan {
            selection,
            to,
            journal,
            profile,
        } => {
            let journal = match Journal::open_for(journal, &ServiceIdentity::of(client), profile) {
                Ok(j) => j,
                Err(e) => return reply(answer(RecoverReply::Failed(e.to_string()))),
            };
            reply(
                recover::plan(client, selection, to.as_ref(), &journal, &[])
                    .await
                    .map(|p| RecoverReply::Planned(Box::new(p))),
            );
        }
        RecoverCmd::PlanCallbacks {
            selection,
            to,
            journal,
            profile,
        } => {
            let journal = match Journal::open_for(journal, &ServiceIdentity::of(client), profile) {
                Ok(j) => j,
                Err(e) => return reply(answer(RecoverReply::Failed(e.to_string()))),
            };
            reply(
                crate::api::callback_recover::plan(client, selection, to.as_ref(), &journal, &[])
                    .await
                    .map(|p| RecoverReply::Planned(Box::new(p))),
            );
        }
        RecoverCmd::Run {
            items,
            destinations,
            callbacks,
            journal,
            profile,
            stop,
        } => {
            let mut journal =
                match Journal::open_for(journal, &ServiceIdentity::of(client), profile) {
                    Ok(j) => j,
                    Err(e) => return reply(answer(RecoverReply::Failed(e.to_string()))),
                };
            let senders = match callbacks {
                Some(c) => recover::Senders::Callbacks(c),
                None => recover::Senders::Pulsar(destinations),
            };
            let done = recover::run_for(
                client,
                senders,
                items.clone(),
                &RunOptions::default(),
                &mut journal,
                stop.asked(),
                |d| reply(answer(RecoverReply::Delivered(Box::new(d.clone())))),
            )
            .await;
            reply(answer(match done {
                Ok(s) => RecoverReply::Finished(s),
                Err(e) => RecoverReply::Failed(e.to_string()),
            }));
        }
        RecoverCmd::RetryPlan {
            selection,
            marked,
            again,
            journal,
            profile,
        } => {
            let asked = Asked {
                marked: *marked,
                again,
            };
            reply(retry_plan(client, selection, asked, journal, profile).await);
        }
        RecoverCmd::RetryRun {
            items,
            again,
            journal,
            profile,
            stop,
        } => retry_run(client, items, again, journal, profile, stop, reply).await,
    }
}

/// How long the new attempts are waited on once the platform accepted the retries.
pub(crate) const WAIT: Duration = Duration::from_secs(30);
/// How often they are looked at meanwhile.
const EVERY: Duration = Duration::from_millis(250);

/// The platform's side of an open room: what it selects and what came back.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Platform {
    /// The selection before the form's fields.
    pub(crate) base: RetrySelection,
    /// One line per delivery asked, in the order answered; its outcome added when it lands.
    pub(crate) rows: Vec<Row>,
    /// The run's counts, once it ended.
    pub(crate) summary: Option<retry::RunSummary>,
    /// Whether the new attempts are still being waited on.
    pub(crate) following: bool,
    /// Accepted retries whose new attempt did not land within [`WAIT`].
    pub(crate) not_landed: Vec<String>,
    /// Whether the selection is the list's marks (`base.deliveries`).
    pub(crate) marked: bool,
    /// Deliveries the user chose to ask again although the journal says they were retried.
    pub(crate) again: Vec<String>,
}

/// How a plan treats what it names: the marks as they are, and the ids asked again.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Asked<'a> {
    /// The marked deliveries, each read by id (unfinished ones kept for the platform to refuse).
    pub(crate) marked: bool,
    /// Asked again whatever the journal says.
    pub(crate) again: &'a [String],
}

/// One delivery asked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    /// `evdi_…`.
    pub(crate) delivery: String,
    /// What the platform said: `accepted`, `refused: …`, `unreachable: …`.
    pub(crate) answer: String,
    /// Whether it accepted.
    pub(crate) accepted: bool,
    /// The new attempt's outcome, once it landed (`succeeded · HTTP 200 · 12 ms`).
    pub(crate) outcome: Option<(bool, String)>,
}

/// The worker's part of the platform's retry: the plan.
pub(crate) async fn retry_plan(
    client: &Client,
    selection: &RetrySelection,
    asked: Asked<'_>,
    journal: &Path,
    profile: &str,
) -> Result<RecoverReply, Error> {
    let journal = match Journal::open_for(journal, &ServiceIdentity::of(client), profile) {
        Ok(j) => j,
        Err(e) => return Ok(RecoverReply::Failed(e.to_string())),
    };
    let plan = if asked.marked {
        retry::plan_marked(client, &selection.deliveries, &journal, asked.again).await
    } else {
        retry::plan(client, selection, &journal, asked.again).await
    };
    plan.map(|p| RecoverReply::RetryPlanned(Box::new(p)))
}

/// The worker's part of the platform's retry: ask the platform to retry `items` (one reply each), then follow the
/// accepted ones until their new attempt landed (one reply each), within [`WAIT`].
pub(crate) async fn retry_run(
    client: &Client,
    items: &[retry::Item],
    again: &[String],
    journal: &Path,
    profile: &str,
    stop: &Stop,
    mut reply: impl FnMut(Result<RecoverReply, Error>),
) {
    let mut journal = match Journal::open_for(journal, &ServiceIdentity::of(client), profile) {
        Ok(j) => j,
        Err(e) => return reply(Ok(RecoverReply::Failed(e.to_string()))),
    };
    let mut accepted = Vec::new();
    let done = retry::run(
        client,
        items.to_vec(),
        retry::CONCURRENCY,
        again,
        &mut journal,
        stop.asked(),
        |r| {
            if let Answer::Accepted { attempts } = r.answer {
                accepted.push((r.item.delivery.clone(), attempts));
            }
            reply(Ok(RecoverReply::Retried(Box::new(r.clone()))));
        },
    )
    .await;
    match done {
        Ok(s) => reply(Ok(RecoverReply::RetryRan(s))),
        Err(e) => return reply(Ok(RecoverReply::Failed(e.to_string()))),
    }
    let left = retry::follow(client, accepted, WAIT, EVERY, |l| {
        reply(Ok(RecoverReply::Landed(Box::new(l.clone()))));
    })
    .await;
    reply(Ok(RecoverReply::Followed(left)));
}

/// Which field of the form has the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    /// Created since (a duration ago or a time; empty: no start).
    Since,
    /// Statuses (comma separated; empty: any).
    Statuses,
    /// The target URL (empty: each destination's own URL).
    Target,
}

impl Field {
    /// The fields in order.
    pub(crate) const ALL: [Field; 3] = [Field::Since, Field::Statuses, Field::Target];
}

/// Where the room is.
#[derive(Clone, PartialEq)]
pub(crate) enum Stage {
    /// The form.
    Editing,
    /// The selection is walked and planned on the worker.
    Planning,
    /// The count first: what would be sent.
    Planned(Box<RecoverPlan>),
    /// Hosts that are not this machine: the confirmation layer asks for their names and the
    /// count (`Subject::Recover`); the plan waits here for its answer.
    Confirm(Box<RecoverPlan>),
    /// Sending; `Esc` stops.
    Running {
        /// Deliveries planned.
        total: usize,
        /// Stops the run.
        stop: Stop,
        /// Whether a stop was asked.
        stopping: bool,
    },
    /// The run ended.
    Done(Summary),
    /// The platform's retry plan: the count first.
    RetryPlanned(Box<crate::api::platform_retry::RetryPlan>),
    /// The confirmation layer asks before the platform is asked; the plan waits here.
    RetryConfirm(Box<crate::api::platform_retry::RetryPlan>),
}

/// The open room.
#[derive(Clone, PartialEq)]
pub(crate) struct Room {
    /// The profile it was opened in.
    pub(crate) profile: String,
    /// What the selection starts from, in words (`destination “ops” (cld_…)`, `3 marked`).
    pub(crate) scope: String,
    /// The selection before the form's fields (destinations, callbacks, filters or marks).
    pub(crate) base: Selection,
    /// Created since.
    pub(crate) since: Text,
    /// Statuses.
    pub(crate) statuses: Text,
    /// Target URL.
    pub(crate) target: Text,
    /// The focused field.
    pub(crate) focus: Field,
    /// Why the form or the last step did not work.
    pub(crate) message: Option<String>,
    /// Where the room is.
    pub(crate) stage: Stage,
    /// The request awaited (a run's replies all carry it).
    pub(crate) pending: Option<u64>,
    /// The deliveries sent so far, in the order they completed.
    pub(crate) deliveries: Vec<Delivery>,
    /// The attempt each planned notification replays (for the answer's title).
    pub(crate) attempts: HashMap<String, i64>,
    /// Selected row of the results.
    pub(crate) cursor: usize,
    /// The delivery whose answer is open.
    pub(crate) open: Option<usize>,
    /// Lines scrolled in an open answer.
    pub(crate) scroll: u16,
    /// The data folder, where the service's journal lives.
    pub(crate) journal: Option<PathBuf>,
    /// Where the generation retries on the server: the platform's side of the room.
    pub(crate) platform: Option<Box<Platform>>,
}

// The room holds receivers' answers: Debug shows where it is only.
impl std::fmt::Debug for Room {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Room")
            .field("scope", &self.scope)
            .field("deliveries", &self.deliveries.len())
            .field("pending", &self.pending)
            .finish_non_exhaustive()
    }
}

impl Room {
    /// The text of a field.
    pub(crate) fn field(&self, f: Field) -> &Text {
        match f {
            Field::Since => &self.since,
            Field::Statuses => &self.statuses,
            Field::Target => &self.target,
        }
    }

    /// The text of a field, to edit.
    pub(crate) fn field_mut(&mut self, f: Field) -> &mut Text {
        match f {
            Field::Since => &mut self.since,
            Field::Statuses => &mut self.statuses,
            Field::Target => &mut self.target,
        }
    }
}

/// The marks and the open room.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct RecoverState {
    /// Marked notifications.
    pub(crate) marks: Marks,
    /// The open room.
    pub(crate) room: Option<Box<Room>>,
}

impl RecoverState {
    /// The open room, when it belongs to `profile`.
    pub(crate) fn room_of(&self, profile: &str) -> Option<&Room> {
        self.room.as_deref().filter(|r| r.profile == profile)
    }

    /// Requests of the room awaiting a reply (for the spinner).
    pub(crate) fn in_flight(&self, profile: &str) -> usize {
        usize::from(self.room_of(profile).is_some_and(|r| r.pending.is_some()))
    }
}
