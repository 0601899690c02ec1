//! `notifications export [selection flags] --out FILE` (issue 39): the selected deliveries, their
//! callbacks and destinations as one NDJSON bundle ([`crate::api::export`]; on
//! `callback-destinations` [`crate::api::callback_export`]), written `0600` and atomically;
//! progress on standard error when it is a terminal.
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use super::HeadlessError;
use super::output::{self, Output};
use super::selection::SelectionArgs;
use crate::api::Client;
use crate::api::export::Bundle;
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

/// Says `read N <noun>` over itself on standard error, when it is a terminal.
pub(super) fn progress(terminal: bool, noun: &'static str) -> impl FnMut(usize) {
    move |n| {
        if terminal {
            let mut e = std::io::stderr().lock();
            // Progress only: a failed write to the terminal changes nothing.
            let _ = write!(e, "\rread {n} {noun}");
            let _ = e.flush();
        }
    }
}

/// Exports and says what was written.
///
/// # Errors
/// Usage (a bad selection), the API's error, or the file's.
pub async fn run(client: &Client, out: &Output, args: ExportArgs) -> Result<(), HeadlessError> {
    let selection = args.selection.selection()?;
    let terminal = std::io::stderr().is_terminal();
    let bundle =
        crate::api::export::export(client, &selection, progress(terminal, "notifications")).await?;
    if terminal {
        eprintln!();
    }
    write_bundle(out, &args, &bundle, "notifications")
}

/// `notifications export` on `callback-destinations`: recover's selection
/// ([`super::callback_recover::selection_of`]), the window on the server's clock.
///
/// # Errors
/// Usage (a bad selection or status), the API's error, or the file's.
pub async fn run_callbacks(
    client: &Client,
    out: &Output,
    args: ExportArgs,
) -> Result<(), HeadlessError> {
    let mut sel = super::callback_recover::selection_of(&args.selection, "export")?;
    for cb in &sel.callbacks {
        crate::api::request::check_segment(cb)?;
    }
    // `--since`/`--until` were read on this machine's clock; `created_at` is the server's.
    let offset = client.clock_offset().await;
    sel.since = sel.since.map(|t| t + offset);
    sel.until = sel.until.map(|t| t + offset);
    let terminal = std::io::stderr().is_terminal();
    let bundle =
        crate::api::callback_export::export(client, &sel, progress(terminal, "notifications"))
            .await?;
    if terminal {
        eprintln!();
    }
    write_bundle(out, &args, &bundle, "notifications")
}

/// Writes the bundle (`0600`, atomically) and says what was written.
pub(super) fn write_bundle(
    out: &Output,
    args: &ExportArgs,
    bundle: &Bundle,
    noun: &str,
) -> Result<(), HeadlessError> {
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
            "EXPORTED  {} {noun} to {}\n{}",
            bundle.notifications,
            line(&args.out.display().to_string()),
            line(&bundle.manifest["counts"].to_string())
        );
        output::emit(|w| output::write_raw(w, &text, false))
    } else {
        out.document(&format!("{summary:#}"))
    }
}
