//! Headless commands with `-o json|table` output (owned by the core/headless work).
