//! Output: the API's JSON unchanged, or plain aligned tables safe to print on a terminal.
use std::io::{IsTerminal, Write};

use serde_json::Value;

/// `-o json|table`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// The API's JSON as received.
    Json,
    /// A readable table of the key columns.
    Table,
}

impl OutputFormat {
    /// The format asked for, else table on a terminal and JSON when piped.
    pub fn choose(asked: Option<OutputFormat>) -> Self {
        asked.unwrap_or_else(|| {
            if std::io::stdout().is_terminal() {
                OutputFormat::Table
            } else {
                OutputFormat::Json
            }
        })
    }
}

/// Makes server text safe and one-line: the one sanitizer ([`crate::text::line`]), so escape
/// sequences a hostile server sends become visible `⟨U+001B⟩` markers, line breaks spaces.
pub fn clean(s: &str) -> String {
    crate::text::line(s).into_owned()
}

/// Writes a JSON document exactly as received, ending with a newline. On a terminal
/// (`terminal`), C1 controls, DEL, bidi and invisible characters are written as `\uXXXX`
/// escapes instead: the same JSON value, but nothing a terminal would act on.
pub fn write_raw(out: &mut dyn Write, body: &str, terminal: bool) -> std::io::Result<()> {
    let body = if terminal {
        crate::text::sanitize::json_for_terminal(body)
    } else {
        body.into()
    };
    out.write_all(body.as_bytes())?;
    if !body.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Writes collected items as a pretty JSON array (escaped on a terminal as by [`write_raw`]).
pub fn write_array(out: &mut dyn Write, items: &[Value], terminal: bool) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(items).map_err(std::io::Error::other)?;
    write_raw(out, &text, terminal)
}

/// Writes to locked standard output; a write error (closed pipe) becomes an error, not a panic.
pub(super) fn emit(
    f: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), super::HeadlessError> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    f(&mut out)
        .and_then(|()| out.flush())
        .map_err(super::HeadlessError::Io)
}
