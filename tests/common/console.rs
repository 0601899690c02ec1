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
        Tab::OrgTeams => (
            "generations/dashboard/team-list.json",
            "generations/dashboard/team.json",
        ),
        Tab::AccessPolicies => (
            "generations/dashboard/access-policy-list.json",
            "generations/dashboard/access-policy.json",
        ),
        Tab::AuthImports => (
            "generations/auth-import-list.json",
            "generations/auth-import.json",
        ),
        Tab::IntegrationCallbacks => (
            "generations/event-destinations/callback-list-dashboard.json",
            "generations/event-destinations/callback.json",
        ),
        Tab::CallbackEvents => (
            "generations/event-destinations/callback-event-list.json",
            "generations/event-destinations/callback-event.json",
        ),
        Tab::EventDestinations => (
            "generations/event-destinations/destination-list.json",
            "generations/event-destinations/destination-created.json",
        ),
        Tab::Listeners => (
            "generations/event-destinations/listener-list.json",
            "generations/event-destinations/listener.json",
        ),
        Tab::Events => (
            "generations/event-destinations/event-list.json",
            "generations/event-destinations/event.json",
        ),
        Tab::DeliveryAttempts => (
            "generations/event-destinations/attempt-list.json",
            "generations/event-destinations/delivery-attempt.json",
        ),
        Tab::Deliveries => (
            "generations/event-destinations/delivery-list.json",
            "generations/event-destinations/delivery.json",
        ),
        Tab::DeploymentCallbacks => (
            "generations/callback-destinations/callback-list.json",
            "generations/callback-destinations/callback.json",
        ),
        Tab::CallbackDestinations => (
            "generations/callback-destinations/destination-list.json",
            "generations/callback-destinations/destination.json",
        ),
        Tab::CallbackNotifications => (
            "generations/callback-destinations/notification-list.json",
            "generations/callback-destinations/notification.json",
        ),
        Tab::ProviderDeployments => (
            "generations/callback-destinations/provider-deployment-list.json",
            "generations/callback-destinations/provider-deployment.json",
        ),
        Tab::DeploymentCallbackEvents => (
            "generations/callback-destinations/callback-event-list.json",
            "generations/callback-destinations/callback-event.json",
        ),
    }
}

/// 2025-10-24 16:05 UTC, shown at +02:00: half an hour after the fixtures were made.
pub fn fixed_clock() -> Clock {
    Clock::Fixed {
        now: switchboard::api::model::time::parse("2025-10-24T16:05:00Z").expect("time"),
        offset: FixedOffset::east_opt(2 * 3600).expect("offset"),
    }
}
