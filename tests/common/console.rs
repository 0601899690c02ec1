//! Shared helpers of the tests that drive the console through its public face: golden
//! fixtures and a fixed clock. The crate's own console tests add the rest
//! (`src/console_tests/common`).
use std::path::PathBuf;

use chrono::FixedOffset;
use switchboard::console::{Clock, Tab};

/// The text of a golden fixture.
pub fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The list and single-item fixtures of a tab.
pub fn fixtures_of(tab: Tab) -> (&'static str, &'static str) {
    match tab {
        Tab::Teams => ("team-list.json", "team.json"),
        Tab::Imports => ("import-list.json", "import.json"),
        Tab::Callbacks => ("callback-list.json", "callback.json"),
        Tab::Destinations => ("destination-list.json", "destination.json"),
        Tab::Notifications => ("notification-list.json", "notification.json"),
    }
}

/// 2025-10-24 16:05 UTC, shown at +02:00: half an hour after the fixtures were made.
pub fn fixed_clock() -> Clock {
    Clock::Fixed {
        now: switchboard::api::model::time::parse("2025-10-24T16:05:00Z").expect("time"),
        offset: FixedOffset::east_opt(2 * 3600).expect("offset"),
    }
}
