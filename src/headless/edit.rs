//! `notifications replay ID --to URL (--edit | --body-file F)` (issue 39): the body to send in
//! place of the recorded one, from the operator's editor or a file, validated as JSON when the
//! recorded body was; and the answer printed beside the recorded answer
//! ([`crate::api::compare`], as `notifications diff`).
use std::path::Path;

use serde_json::Value;

use super::HeadlessError;
use super::output::{self, Output};
use crate::api::compare::{self, Answer};
use crate::api::model::Notification;
use crate::api::replay::{ReplayPlan, ReplayResult};
use crate::config::editor::{self, EditorError};
use crate::text::sanitize::line;

/// The body to send: `body_file`'s bytes, or what the editor leaves of `recorded`; checked to
/// be JSON when `recorded` is.
///
/// # Errors
/// Usage (exit 2) for a file or an edit that cannot be read, is not UTF-8 or not JSON; no
/// editor set; the editor failing.
pub(super) fn new_body(recorded: &str, body_file: Option<&Path>) -> Result<String, HeadlessError> {
    let body = match body_file {
        Some(f) => editor::read_text(f)
            .map_err(|e| usage(format!("--body-file {}: {}", f.display(), file_error(&e))))?,
        None => edit(recorded)?,
    };
    editor::json_kept(recorded, &body).map_err(HeadlessError::Usage)?;
    Ok(body)
}

fn usage(what: String) -> HeadlessError {
    HeadlessError::Usage(line(&what).into_owned())
}

/// A file's error as `--body-file` said it before the editor module was shared.
fn file_error(e: &EditorError) -> String {
    match e {
        EditorError::File(e) => e.to_string(),
        EditorError::TooLarge => format!("larger than {} bytes", editor::MAX_EDITED_BYTES),
        EditorError::NotUtf8 => "not UTF-8 text".into(),
        other => other.to_string(),
    }
}

/// Opens `recorded` in the editor ([`editor::edit_text`]).
fn edit(recorded: &str) -> Result<String, HeadlessError> {
    editor::edit_text(recorded, "body.json").map_err(|e| match e {
        EditorError::NoEditor => {
            usage("--edit needs $VISUAL or $EDITOR (or give the body with --body-file F)".into())
        }
        EditorError::Failed(status) => {
            usage(format!("the editor exited with {status}: nothing sent"))
        }
        EditorError::File(e) => HeadlessError::Io(e),
        other => usage(other.to_string()),
    })
}

/// The answer to an edited replay, then its comparison with the recorded answer of the attempt
/// replayed: one JSON document (the replay's, with `edited` and `diff`), or the replay's table
/// followed by the diff's.
///
/// # Errors
/// The output cannot be written.
pub(super) fn print(
    out: &Output,
    n: &Notification,
    plan: &ReplayPlan,
    result: &ReplayResult,
) -> Result<(), HeadlessError> {
    let recorded = n
        .attempts
        .iter()
        .find(|a| a.index == plan.attempt_index)
        .and_then(Answer::from_attempt);
    let new = Answer::from_replay(
        format!("edited replay (to {})", line(plan.target.as_str())),
        result,
    );
    let c = recorded.as_ref().map(|r| compare::compare(r, &new));
    if out.table() {
        let mut text = super::replay_report::to_table(plan, result);
        text.push_str("\n\n");
        match &c {
            Some(c) => text.push_str(&super::diff::table(&n.id, c)),
            None => text.push_str("DIFF   the replayed attempt recorded no answer to compare with"),
        }
        output::emit(|w| output::write_raw(w, &text, false))
    } else {
        let mut v = super::replay_report::to_json(plan, result);
        v["edited"] = Value::Bool(true);
        v["diff"] = match &c {
            Some(c) => serde_json::to_value(c).map_err(|e| HeadlessError::Io(e.into()))?,
            None => Value::Null,
        };
        out.document(&format!("{v:#}"))
    }
}
