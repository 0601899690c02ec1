//! What may be copied: an id only when it looks like an id, JSON only masked and escaped. Both
//! give text that is inert when pasted (no escape can end a bracketed paste early).
use serde_json::Value;

use super::{redact, sanitize};

/// Id prefixes of the API (api.md §1) that no described resource owns, without the underscore;
/// the described ones come from `resource::id_prefixes`.
const OTHER_ID_PREFIXES: &[&str] = &[
    "cbe", "cbnwr", "cur", "ins", "oac", "org", "poc", "svd", "tmp", "tmra", "usr",
];

/// Whether `prefix` (without its underscore) starts the ids of the API.
fn known_prefix(prefix: &str) -> bool {
    OTHER_ID_PREFIXES.contains(&prefix)
        || crate::resource::id_prefixes()
            .iter()
            .any(|p| p.strip_suffix('_') == Some(prefix))
}

/// Longest id accepted for copying.
const MAX_ID: usize = 128;

/// Why an id was not copied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdRefused {
    /// Holds something other than `A-Z a-z 0-9 _ -`.
    #[error("the id holds characters an id never has (only A-Z a-z 0-9 _ - are copied)")]
    Characters,
    /// Does not start with a known prefix such as `tm_`.
    #[error("the id does not start with a known prefix such as tm_ or cbn_")]
    Prefix,
    /// Longer than any id.
    #[error("the id is longer than {MAX_ID} characters")]
    Length,
}

/// The id when it looks like one (a known prefix, `_`, then `A-Z a-z 0-9 _ -`), else why not.
///
/// # Errors
/// Why the text is not copied as an id.
pub fn id(s: &str) -> Result<&str, IdRefused> {
    if !s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(IdRefused::Characters);
    }
    if s.len() > MAX_ID {
        return Err(IdRefused::Length);
    }
    match s.split_once('_') {
        Some((prefix, rest)) if known_prefix(prefix) && !rest.is_empty() => Ok(s),
        _ => Err(IdRefused::Prefix),
    }
}

/// An item's JSON for the clipboard: pretty, every secret masked by [`redact::masked`], and
/// every hazardous character `\u`-escaped, so the only control character left is the line break
/// between JSON tokens.
#[must_use]
pub fn json(v: &Value) -> String {
    let pretty = serde_json::to_string_pretty(&redact::masked(v)).unwrap_or_default();
    sanitize::json_for_terminal(&pretty).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_id_shaped_ids_are_copied() {
        assert_eq!(id("tm_0abc-DEF_9"), Ok("tm_0abc-DEF_9"));
        assert_eq!(
            id("tm_1\u{1b}[201~\ntouch pwned\n"),
            Err(IdRefused::Characters)
        );
        assert_eq!(id("xx_123"), Err(IdRefused::Prefix));
        assert_eq!(id("tm_"), Err(IdRefused::Prefix));
        assert_eq!(
            id(&format!("tm_{}", "a".repeat(200))),
            Err(IdRefused::Length)
        );
    }

    #[test]
    fn every_prefix_of_the_api_is_known() {
        for p in [
            "cbe", "cbn", "cbna", "cbnwr", "clb", "cld", "cur", "ins", "oac", "om", "org", "poc",
            "poti", "prj", "svd", "tm", "tmp", "tmr", "tmra", "usr",
        ] {
            assert_eq!(id(&format!("{p}_1")), Ok(format!("{p}_1").as_str()), "{p}");
        }
    }

    #[test]
    fn json_copies_are_masked_and_inert() {
        let v = serde_json::json!({"id": "tm_1", "name": "a\u{1b}]52;c;x\u{7}\u{9d}\u{202e}",
            "signing_secret": "whsec_0123456789abcdef"});
        let s = json(&v);
        assert!(sanitize::is_inert(&s, true), "{s}");
        assert!(!s.contains("0123456789abcdef"));
        let back: Value = serde_json::from_str(&s).expect("still JSON");
        assert_eq!(back["name"], v["name"]);
    }
}
