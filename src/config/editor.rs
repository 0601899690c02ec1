//! The operator's editor (`$VISUAL`, else `$EDITOR`) and editing a text in it through a private
//! temporary file: shared by `notifications replay --edit` and the console's `E`, which restores
//! the terminal around it.
use std::io::Read;
use std::path::Path;

use super::private_file;

/// The longest edited text read back.
pub const MAX_EDITED_BYTES: u64 = 16 * 1024 * 1024;

/// Why an edit gave no text.
#[derive(Debug, thiserror::Error)]
pub enum EditorError {
    /// Neither variable is set.
    #[error("no editor: set $VISUAL or $EDITOR")]
    NoEditor,
    /// The editor could not be started.
    #[error("cannot start the editor: {0}")]
    Start(std::io::Error),
    /// The editor exited with a failure.
    #[error("the editor exited with {0}")]
    Failed(std::process::ExitStatus),
    /// The temporary file could not be written or read back.
    #[error("the edited file: {0}")]
    File(std::io::Error),
    /// What was left is too long.
    #[error("the edited text is larger than {MAX_EDITED_BYTES} bytes")]
    TooLarge,
    /// What was left is not UTF-8.
    #[error("the edited text is not UTF-8")]
    NotUtf8,
}

/// `$VISUAL`, else `$EDITOR`, when set and not empty.
#[must_use]
pub fn editor() -> Option<String> {
    ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.trim().is_empty())
}

/// Reads a text file of at most [`MAX_EDITED_BYTES`], as UTF-8.
///
/// # Errors
/// [`EditorError::File`], [`EditorError::TooLarge`] or [`EditorError::NotUtf8`].
pub fn read_text(f: &Path) -> Result<String, EditorError> {
    let file = std::fs::File::open(f).map_err(EditorError::File)?;
    let mut bytes = Vec::new();
    file.take(MAX_EDITED_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(EditorError::File)?;
    if bytes.len() as u64 > MAX_EDITED_BYTES {
        return Err(EditorError::TooLarge);
    }
    String::from_utf8(bytes).map_err(|_| EditorError::NotUtf8)
}

/// Opens `text` in the editor and returns what it left: a `0600` file (`name`) in a fresh `0700`
/// folder, both removed after. Blocks until the editor exits; the caller gives it the terminal.
///
/// # Errors
/// See [`EditorError`].
pub fn edit_text(text: &str, name: &str) -> Result<String, EditorError> {
    let editor = editor().ok_or(EditorError::NoEditor)?;
    // `tempfile` makes the folder 0700 with an unpredictable name; removed when dropped.
    let dir = tempfile::Builder::new()
        .prefix("switchboard-edit-")
        .tempdir()
        .map_err(EditorError::File)?;
    let path = dir.path().join(name);
    private_file::write(&path, text.as_bytes()).map_err(EditorError::File)?;
    // As git runs its editor: through the shell, so `code --wait` works, the path as an argument.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(&path)
        .status()
        .map_err(EditorError::Start)?;
    if !status.success() {
        return Err(EditorError::Failed(status));
    }
    let edited = read_text(&path);
    drop(dir);
    edited
}

/// Whether `edited` may replace `recorded`: JSON when `recorded` was.
///
/// # Errors
/// The JSON error, as a sentence.
pub fn json_kept(recorded: &str, edited: &str) -> Result<(), String> {
    if serde_json::from_str::<serde::de::IgnoredAny>(recorded).is_ok()
        && let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(edited)
    {
        return Err(format!(
            "the edited body is not JSON ({e}) and the recorded one was: nothing sent"
        ));
    }
    Ok(())
}
