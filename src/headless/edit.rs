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
use crate::config::private_file;
use crate::text::sanitize::line;

/// The longest edited body accepted: the recorded-body cap of the delivery engine is far below.
const MAX_BODY_BYTES: u64 = 16 * 1024 * 1024;

/// The body to send: `body_file`'s bytes, or what the editor leaves of `recorded`; checked to
/// be JSON when `recorded` is.
///
/// # Errors
/// Usage (exit 2) for a file or an edit that cannot be read, is not UTF-8 or not JSON; no
/// editor set; the editor failing.
pub(super) fn new_body(recorded: &str, body_file: Option<&Path>) -> Result<String, HeadlessError> {
    let body = match body_file {
        Some(f) => read_file(f)?,
        None => edit(recorded)?,
    };
    if serde_json::from_str::<serde::de::IgnoredAny>(recorded).is_ok()
        && let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(&body)
    {
        return Err(HeadlessError::Usage(format!(
            "the edited body is not JSON ({e}) and the recorded one was: nothing sent"
        )));
    }
    Ok(body)
}

fn usage(what: String) -> HeadlessError {
    HeadlessError::Usage(line(&what).into_owned())
}

fn read_file(f: &Path) -> Result<String, HeadlessError> {
    use std::io::Read;
    let file =
        std::fs::File::open(f).map_err(|e| usage(format!("--body-file {}: {e}", f.display())))?;
    let mut bytes = Vec::new();
    file.take(MAX_BODY_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| usage(format!("--body-file {}: {e}", f.display())))?;
    if bytes.len() as u64 > MAX_BODY_BYTES {
        return Err(usage(format!(
            "--body-file {}: larger than {MAX_BODY_BYTES} bytes",
            f.display()
        )));
    }
    String::from_utf8(bytes)
        .map_err(|_| usage(format!("--body-file {}: not UTF-8 text", f.display())))
}

/// `$VISUAL`, else `$EDITOR`, when set and not empty.
fn editor() -> Option<String> {
    ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.trim().is_empty())
}

/// Opens `recorded` in the editor: a `0600` file in a fresh `0700` folder, both removed after.
fn edit(recorded: &str) -> Result<String, HeadlessError> {
    let Some(editor) = editor() else {
        return Err(usage(
            "--edit needs $VISUAL or $EDITOR (or give the body with --body-file F)".into(),
        ));
    };
    let io = |e: std::io::Error| HeadlessError::Io(e);
    // `tempfile` makes the folder 0700 with an unpredictable name; removed when dropped.
    let dir = tempfile::Builder::new()
        .prefix("switchboard-edit-")
        .tempdir()
        .map_err(io)?;
    let path = dir.path().join("body.json");
    private_file::write(&path, recorded.as_bytes()).map_err(io)?;
    // As git runs its editor: through the shell, so `code --wait` works, the path as an argument.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(&path)
        .status()
        .map_err(|e| usage(format!("cannot start the editor: {e}")))?;
    if !status.success() {
        return Err(usage(format!(
            "the editor exited with {status}: nothing sent"
        )));
    }
    let body = read_file(&path);
    drop(dir);
    body
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
