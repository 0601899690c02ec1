//! Untrusted text: the one sanitizer every server or receiver string passes through before it
//! reaches a terminal, a clipboard or a log, and the one redaction policy for secrets.
//!
//! Nothing here depends on the console, the headless commands or the service: each of them calls
//! in, so a rule changed here changes everywhere at once.
pub mod clip;
pub mod log;
pub mod redact;
pub mod sanitize;
pub mod tui;

pub use sanitize::{is_hazard, line, multiline};
