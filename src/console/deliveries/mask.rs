//! Header masking for the attempt view: the one policy of [`crate::text::redact`], under the
//! names the console uses.

/// Whether a header's value may be shown (see [`crate::text::redact::header_is_safe`]).
#[must_use]
pub(crate) fn is_safe(name: &str) -> bool {
    crate::text::redact::header_is_safe(name)
}

/// The value to show for a header: as it is when safe or revealed, masked otherwise.
#[must_use]
pub(crate) fn shown<'a>(name: &str, value: &'a str, revealed: bool) -> &'a str {
    crate::text::redact::header_value(name, value, revealed)
}

/// Whether any of these headers would be masked (so that revealing means something).
pub(crate) fn any_masked<'a>(names: impl IntoIterator<Item = &'a String>) -> bool {
    crate::text::redact::any_header_masked(names)
}
