//! What headless commands read from the user: times, `k=v` pairs, tokens and confirmations.
use std::io::{BufRead, IsTerminal, Read, Write};

use super::HeadlessError;

/// `--expires-at`: ISO 8601 or `+90d`; the parsing is the wire model's, shared with the console.
pub use crate::api::model::time::parse_expires_at;

/// `--metadata k=v`.
pub fn parse_key_value(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err(format!("{s:?} is not key=value")),
    }
}

/// A secret from an environment variable named on the command line.
pub fn secret_from_env(var: &str, what: &str) -> Result<String, HeadlessError> {
    match std::env::var(var) {
        Ok(v) if !v.trim().is_empty() => Ok(v.trim().to_string()),
        _ => Err(HeadlessError::Usage(format!(
            "{what}: environment variable {var} is not set or empty"
        ))),
    }
}

/// A secret from standard input: all of a pipe, or one unechoed line typed on a terminal.
pub fn secret_from_stdin(what: &str) -> Result<String, HeadlessError> {
    let text = if std::io::stdin().is_terminal() {
        eprint!("{what} (input hidden): ");
        let line = read_hidden_line();
        eprintln!();
        line?
    } else {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).map_err(|e| {
            HeadlessError::Usage(format!("{what}: cannot read standard input: {e}"))
        })?;
        s
    };
    let text = text.trim();
    if text.is_empty() {
        return Err(HeadlessError::Usage(format!(
            "{what}: nothing on standard input"
        )));
    }
    Ok(text.to_string())
}

/// Reads one line from the terminal with echo off (raw mode), restoring the terminal after.
fn read_hidden_line() -> Result<String, HeadlessError> {
    crossterm::terminal::enable_raw_mode().map_err(HeadlessError::Io)?;
    let mut out = Vec::new();
    let mut byte = [0u8; 1];
    let result = loop {
        match std::io::stdin().read(&mut byte) {
            Ok(0) => break Ok(()),
            Ok(_) => match byte[0] {
                b'\r' | b'\n' => break Ok(()),
                // Ctrl-C and Ctrl-D: raw mode turns them into bytes.
                3 | 4 => break Err(HeadlessError::Cancelled),
                8 | 127 => {
                    out.pop();
                }
                b => out.push(b),
            },
            Err(e) => break Err(HeadlessError::Io(e)),
        }
    };
    let restored = crossterm::terminal::disable_raw_mode().map_err(HeadlessError::Io);
    result?;
    restored?;
    String::from_utf8(out).map_err(|_| HeadlessError::Usage("input is not UTF-8".into()))
}

/// Asks a yes/no question on the terminal; refuses when there is no terminal to ask on.
pub fn confirm(question: &str) -> Result<bool, HeadlessError> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Err(HeadlessError::Usage(
            "refusing to delete without --yes when not on a terminal".into(),
        ));
    }
    eprint!("{question} [y/N] ");
    std::io::stderr().flush().map_err(HeadlessError::Io)?;
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(HeadlessError::Io)?;
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_values() {
        assert_eq!(
            parse_key_value("team=core=x"),
            Ok(("team".into(), "core=x".into()))
        );
        assert!(parse_key_value("novalue").is_err());
        assert!(parse_key_value("=v").is_err());
    }
}
