//! `notifications export [selection flags] --out FILE` (issue 39): the selected deliveries, their
//! callbacks and destinations as one NDJSON bundle ([`crate::api::export`]), written `0600` and
//! atomically; progress on standard error when it is a terminal.
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use super::HeadlessError;
use super::output::{self, Output};
use super::selection::SelectionArgs;
use crate::api::Client;
use crate::config::private_file;
use crate::text::sanitize::line;

/// `notifications export`.
#[derive(Args, Debug, Clone)]
pub struct ExportArgs {
    /// Which notifications.
    #[command(flatten)]
    pub selection: SelectionArgs,
    /// The bundle to write (NDJSON; replaced atomically, `0600`).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// Exports and says what was written.
///
/// # Errors
/// Usage (a bad selection), the API's error, or the file's.
pub async fn run(client: &Client, out: &Output, args: ExportArgs) -> Result<(), HeadlessError> {
    let selection = args.selection.selection()?;
    let terminal = std::io::stderr().is_terminal();
    let bundle = crate::api::export::export(client, &selection, |n| {
        if terminal {
            let mut e = std::io::stderr().lock();
            // Progress only: a failed write to the terminal changes nothing.
            let _ = write!(e, "\rread {n} notifications");
            let _ = e.flush();
        }
    })
    .await?;
    if terminal {
        eprintln!();
    }
    let mut text = Vec::new();
    for l in &bundle.lines {
        serde_json::to_writer(&mut text, l).map_err(|e| HeadlessError::Io(e.into()))?;
        text.push(b'\n');
    }
    private_file::replace(&args.out, &text).map_err(|e| {
        HeadlessError::Io(std::io::Error::other(format!(
            "{}: {e}",
            args.out.display()
        )))
    })?;
    let summary = json!({
        "object": "switchboard.export",
        "out": args.out.display().to_string(),
        "manifest": bundle.manifest,
    });
    if out.table() {
        let text = format!(
            "EXPORTED  {} notifications to {}\n{}",
            bundle.notifications,
            line(&args.out.display().to_string()),
            line(&bundle.manifest["counts"].to_string())
        );
        output::emit(|w| output::write_raw(w, &text, false))
    } else {
        out.document(&format!("{summary:#}"))
    }
}
