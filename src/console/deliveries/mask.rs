//! Header masking, fail closed: a value is shown only when its header is known to be harmless.

/// What replaces a masked value.
pub const MASKED: &str = "••••••••";

/// Headers whose values are shown as they are (lower case).
const SAFE: &[&str] = &[
    "accept",
    "accept-encoding",
    "cache-control",
    "connection",
    "content-encoding",
    "content-length",
    "content-type",
    "date",
    "host",
    "metorial-signature",
    "metorial-version",
    "server",
    "transfer-encoding",
    "user-agent",
    "vary",
];

/// Words that make a header secret whatever else it says.
const SECRET_WORDS: &[&str] = &[
    "auth",
    "cookie",
    "token",
    "secret",
    "key",
    "password",
    "session",
    "credential",
];

/// Whether a header's value may be shown. Names are compared case-insensitively; anything not on
/// the safe list (or naming a secret) is masked.
pub fn is_safe(name: &str) -> bool {
    let n = name.trim().to_ascii_lowercase();
    if n == "metorial-signature" {
        // The signature proves the body; it reveals nothing of the secret.
        return true;
    }
    if SECRET_WORDS.iter().any(|w| n.contains(w)) {
        return false;
    }
    if SAFE.contains(&n.as_str()) {
        return true;
    }
    // `metorial-<thing>-id` headers carry resource ids.
    n.strip_prefix("metorial-")
        .and_then(|rest| rest.strip_suffix("-id"))
        .is_some_and(|mid| !mid.is_empty() && mid.chars().all(|c| c.is_ascii_lowercase()))
}

/// The value to show for a header: as it is when safe or revealed, masked otherwise.
pub fn shown<'a>(name: &str, value: &'a str, revealed: bool) -> &'a str {
    if revealed || is_safe(name) {
        value
    } else {
        MASKED
    }
}

/// Whether any of these headers would be masked (so that revealing means something).
pub(crate) fn any_masked<'a>(names: impl IntoIterator<Item = &'a String>) -> bool {
    names.into_iter().any(|n| !is_safe(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_list_is_case_insensitive() {
        assert!(is_safe("Content-Type"));
        assert!(is_safe("USER-AGENT"));
        assert!(is_safe("Metorial-Notification-Id"));
        assert!(is_safe("metorial-version"));
        assert!(is_safe("Metorial-Signature"));
    }

    #[test]
    fn secrets_and_unknowns_are_masked() {
        for h in [
            "Authorization",
            "proxy-authorization",
            "Cookie",
            "set-cookie",
            "X-Api-Key",
            "x-access-token",
            "x-client-secret",
            "metorial-key-id",
            "x-custom",
            "",
        ] {
            assert!(!is_safe(h), "{h} must be masked");
            assert_eq!(shown(h, "value", false), MASKED);
            assert_eq!(shown(h, "value", true), "value");
        }
    }
}
