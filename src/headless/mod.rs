//! Headless commands: every operation as `switchboard <resource> <verb> …` with `-o json|table`,
//! built on [`crate::api::Client`]. Exit codes: 0 ok, 1 cancelled or other failure, 2 usage, 3 API
//! error, 4 network or timeout, 5 wait timed out, 6 output failed.
mod alerts;
mod args;
mod callback_forward;
mod callback_gen;
mod callback_keep;
mod callback_recover;
mod callback_wait;
mod columns;
mod current;
mod current_deliveries;
mod current_forward;
mod current_list;
mod current_replay;
mod delivery_repro;
mod diff;
mod edit;
mod export;
mod forward;
mod forward_lines;
mod input;
mod interrupt;
use crate::api::jq;
mod lookups;
mod newer_search;
mod output;
mod recover;
mod replay;
mod replay_report;
mod run;
mod samples;
mod scan;
mod search;
mod selection;
mod team_writes;
mod views;
mod wait;

pub use alerts::{AlertsCmd, Context as AlertsContext, run as run_alerts};
pub use args::{
    CallbacksCmd, DestinationsCmd, EventsCmd, ImportFields, ImportsCmd, ListArgs, ListenersCmd,
    LookupCmd, MembersCmd, NotificationsCmd, PoliciesCmd, Resource, TeamsCmd, TokenArgs,
};
pub use diff::DiffArgs;
pub use forward::{Context as ForwardContext, ForwardArgs};
pub use input::{confirm, parse_expires_at, secret_from_stdin};
pub use output::{Output, OutputFormat, api_error_parts, error_json, output_error, stdout_open};
pub use recover::RecoverArgs;
pub use replay::{ReplayArgs, TIMEOUT_ENV as REPLAY_TIMEOUT_ENV, to_json as replay_report};
pub use run::run;
pub use samples::{KeepArgs, SamplesCmd};
pub use scan::ScanArgs;
pub use selection::{SelectionArgs, parse_status};
pub use views::{apply as apply_view, view_name};
pub use wait::WaitArgs;

/// [`run`], with what `notifications forward` and `diff` keep per profile (the cursor, the
/// journal and the forwarded answers) in `ctx`.
///
/// # Errors
/// As [`run`].
pub async fn run_in_profile(
    client: &api::Client,
    out: &Output,
    cmd: Resource,
    ctx: &ForwardContext,
) -> Result<(), HeadlessError> {
    if ctx.read_only && cmd.is_write() {
        return Err(HeadlessError::Usage(
            "refused: read-only mode (--read-only or the profile's read_only)".into(),
        ));
    }
    // The deployment's generation chooses the verbs (no request when the ids are unusable).
    let route = current::route(client, &cmd).await?;
    // The library is local; a send signs as the deployment's generation signs.
    if let Resource::Samples(c) = cmd {
        return samples::run(client, out, c, &library(ctx)?, ctx.read_only).await;
    }
    match route {
        current::Route::Current => {
            // Keeping a delivery needs the profile's library, which `current::run` does not know.
            if let Resource::Notifications(NotificationsCmd::Keep(a)) = cmd {
                return delivery_repro::keep(client, out, a, &library(ctx)?).await;
            }
            return current_deliveries::run(client, out, cmd, ctx).await;
        }
        current::Route::CallbackGen => {
            if let Resource::Notifications(NotificationsCmd::Keep(a)) = cmd {
                return callback_keep::keep(client, out, a, &library(ctx)?).await;
            }
            return callback_gen::run(client, out, cmd, ctx).await;
        }
        current::Route::Pulsar => {}
    }
    match cmd {
        Resource::Notifications(NotificationsCmd::Forward(a)) => {
            forward::run(client, out.format, a, ctx).await
        }
        Resource::Notifications(NotificationsCmd::Replay(a)) => {
            let log = ctx
                .data_dir
                .as_ref()
                .map(|dir| api::forward::AnswerLog::new(dir, &ctx.profile));
            replay::run_logged(client, out, a, ctx.read_only, log.as_ref()).await
        }
        Resource::Notifications(NotificationsCmd::Diff(a)) => {
            let answers = match (&ctx.data_dir, a.with_replay) {
                (Some(dir), Some(_)) => api::forward::AnswerLog::new(dir, &ctx.profile)
                    .answers_of(&a.id)
                    .map_err(|e| HeadlessError::Io(std::io::Error::other(e.to_string())))?,
                _ => Vec::new(),
            };
            diff::run(client, out.format, a, &answers).await
        }
        Resource::Notifications(NotificationsCmd::Keep(a)) => {
            samples::keep(client, out, a, &library(ctx)?).await
        }
        other => run(client, out, other, ctx.read_only, &ctx.profile).await,
    }
}

use crate::api;

/// The profile's samples library; a usage error without a data directory.
fn library(ctx: &ForwardContext) -> Result<api::samples::Library, HeadlessError> {
    let dir = ctx.data_dir.as_ref().ok_or_else(|| {
        HeadlessError::Usage("samples need a data directory (none is known here)".into())
    })?;
    api::samples::Library::for_profile(dir, &ctx.profile)
        .map_err(|e| HeadlessError::Usage(e.to_string()))
}

/// Exit code when the output could not be written (standard output closed, disk full): a
/// script must not take lost output for success (0) or for a cancel (1).
pub const OUTPUT_FAILED: i32 = 6;

/// Why a headless command failed.
#[derive(Debug, thiserror::Error)]
pub enum HeadlessError {
    /// Bad input or a refused action (exit 2).
    #[error("{0}")]
    Usage(String),
    /// The API call failed (exit 3 or 4).
    #[error(transparent)]
    Api(#[from] api::Error),
    /// The user answered no (exit 1).
    #[error("cancelled")]
    Cancelled,
    /// Reading the terminal failed (exit 1).
    #[error("{0}")]
    Io(std::io::Error),
    /// Writing the output failed: standard output closed or full (exit 6, never 0 or 1).
    #[error("cannot write the output: {0}")]
    Output(std::io::Error),
    /// The reader of standard output went away (`| head`): exit 0, nothing said.
    #[error("the reader of the output closed it")]
    ReaderClosed,
    /// A replay's receiver answered other than 2xx (exit 3) or not at all (exit 4).
    #[error("{message}")]
    Replay {
        /// The exit code.
        code: i32,
        /// What happened.
        message: String,
    },
    /// A command ran to its end with a result other than success: `recover` (exit 3, 4, 130),
    /// `wait` (exit 3, 5).
    #[error("{message}")]
    Outcome {
        /// The exit code.
        code: i32,
        /// What happened.
        message: String,
    },
}

impl HeadlessError {
    /// The process exit code.
    pub fn exit_code(&self) -> i32 {
        match self {
            HeadlessError::Usage(_) => 2,
            HeadlessError::Api(e) => e.exit_code(),
            HeadlessError::Cancelled | HeadlessError::Io(_) => 1,
            HeadlessError::Output(_) => OUTPUT_FAILED,
            HeadlessError::ReaderClosed => 0,
            HeadlessError::Replay { code, .. } | HeadlessError::Outcome { code, .. } => *code,
        }
    }

    /// The text for standard error: for an API error, the server's code and message, then its
    /// hint, the entity and id concerned and each validation problem on lines of their own. The
    /// whole report goes through the one sanitizer line by line, so no field can be forgotten.
    pub fn report(&self) -> String {
        crate::text::sanitize::multiline(&self.unsanitised_report())
    }

    fn unsanitised_report(&self) -> String {
        use std::fmt::Write as _;
        let HeadlessError::Api(api::Error::Api(e)) = self else {
            return format!("error: {self}");
        };
        // Each server string is made one-line first, so it cannot fake a report line.
        let one = |s: &str| crate::text::line(s).into_owned();
        let mut out = format!(
            "error: {} (HTTP {}): {}",
            one(&e.code),
            e.status,
            one(&e.message)
        );
        if let Some(entity) = &e.entity {
            let _ = write!(out, "\n  entity: {}", one(entity));
        }
        if let Some(id) = e.id_text() {
            let _ = write!(out, "\n  id: {}", one(&id));
        }
        for issue in &e.errors {
            let path = issue.path_string();
            let at = if path.is_empty() { "-" } else { path.as_str() };
            let _ = write!(
                out,
                "\n  {}: {} ({})",
                one(at),
                one(&issue.message),
                one(&issue.code)
            );
        }
        if let Some(hint) = &e.hint {
            let _ = write!(out, "\n  hint: {}", one(hint));
        }
        out
    }
}
