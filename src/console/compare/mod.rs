//! Compare (`=`): on an attempt (pulsar's, or an `event-destinations` delivery's), a replayed
//! answer (the replay room's) or a forwarded one (the forward room's), choose another answer of
//! the same notification or delivery (another attempt, the recorded attempt, an entry of this
//! session's replay history, an answer replayed or forwarded from this machine) and see the two
//! side by side, as [`crate::api::compare`] compares them.
//! `mod` holds the model and the worker's part, `update` its keys, `view` its drawing.
pub(crate) mod update;
pub(crate) mod view;

use std::path::PathBuf;

use crate::api::compare::{Answer, Comparison};
use crate::api::{Client, Error};

/// What the worker is asked: the notification (its attempts) and the answers this machine kept.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CompareCmd {
    /// `cbn_…`, or `evdi_…` with `deliveries`.
    pub(crate) notification_id: String,
    /// `event-destinations`: a delivery, its attempts read one by one.
    pub(crate) deliveries: bool,
    /// The profile (its answers' log).
    pub(crate) profile: String,
    /// The data directory; `None`: no log to read.
    pub(crate) data_dir: Option<PathBuf>,
}

/// What the worker found.
#[derive(Clone, PartialEq)]
pub(crate) struct Found {
    /// `cbn_…` or `evdi_…`.
    pub(crate) id: String,
    /// The recorded attempts' answers with their index (from 0), in the API's order.
    pub(crate) recorded: Vec<(i64, Answer)>,
    /// Answers replayed or forwarded from this machine, newest first.
    pub(crate) kept: Vec<Answer>,
}

// Answers may carry secrets: Debug shows counts only.
impl std::fmt::Debug for Found {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Found({}, {} recorded, {} kept)",
            self.id,
            self.recorded.len(),
            self.kept.len()
        )
    }
}

/// Runs the lookup on the worker. An unreadable log leaves its answers out.
pub(crate) async fn execute(client: &Client, cmd: &CompareCmd) -> Result<Found, Error> {
    let recorded = if cmd.deliveries {
        crate::api::delivery_compare::recorded_answers(client, &cmd.notification_id).await?
    } else {
        let n = client.get_notification(&cmd.notification_id).await?;
        n.attempts
            .iter()
            .filter_map(|a| Answer::from_attempt(a).map(|x| (a.index, x)))
            .collect()
    };
    let kept = cmd
        .data_dir
        .as_ref()
        .and_then(|dir| {
            crate::api::forward::AnswerLog::new(dir, &cmd.profile)
                .answers_of(&cmd.notification_id)
                .ok()
        })
        .unwrap_or_default();
    Ok(Found {
        id: cmd.notification_id.clone(),
        recorded,
        kept,
    })
}

/// The open overlay.
#[derive(Clone, PartialEq)]
pub(crate) struct Overlay {
    /// The profile it was opened in.
    pub(crate) profile: String,
    /// `cbn_…`.
    pub(crate) notification_id: String,
    /// The answer `=` was pressed on.
    pub(crate) left: Answer,
    /// What it can be compared with.
    pub(crate) candidates: Vec<Answer>,
    /// The lookup awaited.
    pub(crate) pending: Option<u64>,
    /// Why the lookup failed.
    pub(crate) message: Option<String>,
    /// Selected candidate.
    pub(crate) cursor: usize,
    /// The comparison shown, once a candidate is chosen.
    pub(crate) shown: Option<Box<Comparison>>,
    /// Lines scrolled in the comparison.
    pub(crate) scroll: u16,
    /// `E`: the recorded attempt (its index) shown beside `left` as soon as it is found.
    pub(crate) against: Option<i64>,
}

// The overlay holds receivers' answers: Debug shows where it is only.
impl std::fmt::Debug for Overlay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Overlay")
            .field("notification_id", &self.notification_id)
            .field("candidates", &self.candidates.len())
            .finish_non_exhaustive()
    }
}

/// Everything compare remembers.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct CompareState {
    /// The open overlay.
    pub(crate) overlay: Option<Overlay>,
}

impl CompareState {
    /// The open overlay, when it belongs to `profile`.
    pub(crate) fn overlay_of(&self, profile: &str) -> Option<&Overlay> {
        self.overlay.as_ref().filter(|o| o.profile == profile)
    }
}
