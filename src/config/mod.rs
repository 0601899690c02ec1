//! Profiles, key sources and paths (owned by the core/headless work).
