//! A secret string (API key, token) that never prints itself.
use std::fmt;

/// Holds a key or token; `Debug` and `Display` show only a masked form.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(s: impl Into<String>) -> Self {
        Secret(s.into())
    }

    /// The value itself, for the `Authorization` header and nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// A short prefix and an ellipsis: `sk_li…`; never the whole key.
    pub fn masked(&self) -> String {
        mask(&self.0)
    }
}

/// Masks any secret text: at most 5 leading characters, and none of a short one.
pub fn mask(s: &str) -> String {
    let n = s.chars().count();
    if n == 0 {
        return "(empty)".into();
    }
    let keep = if n >= 16 {
        5
    } else if n >= 8 {
        2
    } else {
        0
    };
    let prefix: String = s.chars().take(keep).collect();
    format!("{prefix}…")
}

/// A hook address whose last path segment is its key (a callback's `url`): that segment masked,
/// the host and path kept so the address can still be recognised.
pub fn mask_url_key(url: &str) -> String {
    match url.trim_end_matches('/').rsplit_once('/') {
        Some((base, key)) if !key.is_empty() && !base.ends_with('/') => {
            format!("{base}/{}", mask(key))
        }
        _ => mask(url),
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secret({})", self.masked())
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.masked())
    }
}
