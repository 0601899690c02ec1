//! What headless commands read from the user: times, `k=v` pairs, tokens and confirmations.
use std::io::{BufRead, IsTerminal, Read, Write};

use chrono::{DateTime, Datelike, Duration, Utc};

use super::HeadlessError;
use crate::api::model::time;

/// `--expires-at`: ISO 8601, or `+N` with a unit `m`, `h`, `d` or `w` from now; returns ISO 8601.
pub fn parse_expires_at(s: &str) -> Result<String, String> {
    expires_at_from(s, Utc::now())
}

fn expires_at_from(s: &str, now: DateTime<Utc>) -> Result<String, String> {
    let s = s.trim();
    let bad = || {
        format!("{s:?} is neither ISO 8601 (2026-01-31T00:00:00Z) nor relative (+90d, +12h, +30m)")
    };
    let Some(rel) = s.strip_prefix('+') else {
        return time::parse(s).map(|t| time::format(&t)).ok_or_else(bad);
    };
    let (unit_at, _) = rel.char_indices().last().ok_or_else(bad)?;
    let (n, unit) = rel.split_at(unit_at);
    let n: i64 = n.parse().ok().filter(|n| *n >= 0).ok_or_else(bad)?;
    let d = match unit {
        "m" => Duration::try_minutes(n),
        "h" => Duration::try_hours(n),
        "d" => Duration::try_days(n),
        "w" => Duration::try_weeks(n),
        _ => None,
    }
    .ok_or_else(bad)?;
    let t = now.checked_add_signed(d).ok_or_else(bad)?;
    // ISO 8601 has four-digit years; later ones would not read back anywhere.
    if t.year() > 9999 {
        return Err(format!("{s:?} lands after the year 9999"));
    }
    Ok(time::format(&t))
}

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
    fn expiry_forms() {
        let now = time::parse("2026-01-01T00:00:00Z").expect("time");
        assert_eq!(
            expires_at_from("+90d", now).as_deref(),
            Ok("2026-04-01T00:00:00.000Z")
        );
        assert_eq!(
            expires_at_from("+12h", now).as_deref(),
            Ok("2026-01-01T12:00:00.000Z")
        );
        assert_eq!(
            expires_at_from("2026-03-04T05:06:07+02:00", now).as_deref(),
            Ok("2026-03-04T03:06:07.000Z")
        );
        assert_eq!(
            expires_at_from("2026-03-04", now).as_deref(),
            Ok("2026-03-04T00:00:00.000Z")
        );
        for bad in [
            "+",
            "+d",
            "+5y",
            "+99999999999999d",
            "tomorrow",
            "+-",
            "+-5d",
            "+5é",
        ] {
            assert!(expires_at_from(bad, now).is_err(), "{bad}");
        }
    }

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
