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

pub use crate::text::redact::{mask, mask_url_key};

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
