//! Checks and parsers of typed field values that any dialog may use (a URL, `key=value` lines).
use serde_json::{Map, Value};

/// The URL must be absolute http or https.
pub(crate) fn check_url(s: &str) -> Result<Option<String>, String> {
    match url::Url::parse(s) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.has_host() => Ok(None),
        Ok(u) => Err(format!("must be http or https, not {}", u.scheme())),
        Err(e) => Err(format!("not a URL: {e}")),
    }
}

/// Metadata: one `key=value` per line.
pub(crate) fn check_metadata(s: &str) -> Result<Option<String>, String> {
    parse_metadata(s).map(|_| None)
}

/// Metadata as typed: one `key=value` per line (blank lines skipped).
pub(crate) fn parse_metadata(s: &str) -> Result<Map<String, Value>, String> {
    let mut map = Map::new();
    for (n, line) in s
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        match line.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                map.insert(k.trim().to_string(), Value::String(v.trim().to_string()));
            }
            _ => return Err(format!("line {}: not key=value", n + 1)),
        }
    }
    Ok(map)
}
