//! The questions rooms ask the registry instead of naming kinds answer as the kinds they replaced
//! did: a resource that changes its answer changes a room's behaviour, so it fails here first.

use switchboard::console::Tab;
use switchboard::console::deliveries;

fn kinds(pred: impl Fn(Tab) -> bool) -> Vec<Tab> {
    Tab::ALL.into_iter().filter(|t| pred(*t)).collect()
}

#[test]
fn the_deliveries_room_works_on_pulsars_notifications_destinations_and_callbacks() {
    assert_eq!(deliveries::LIST, Tab::Notifications);
    assert_eq!(deliveries::RECEIVERS, Tab::Destinations);
    assert_eq!(deliveries::SENDERS, Tab::Callbacks);
    assert_eq!(kinds(Tab::is_notifications_list), vec![Tab::Notifications]);
}

#[test]
fn deliveries_their_receivers_and_senders_are_each_generations() {
    assert_eq!(
        kinds(Tab::delivers),
        vec![
            Tab::Notifications,
            Tab::Deliveries,
            Tab::CallbackNotifications
        ]
    );
    assert_eq!(
        Tab::CallbackNotifications.receivers(),
        Some(Tab::CallbackDestinations)
    );
    assert_eq!(
        Tab::CallbackNotifications.senders(),
        Some(Tab::DeploymentCallbacks)
    );
    assert_eq!(
        kinds(Tab::receives),
        vec![
            Tab::Destinations,
            Tab::EventDestinations,
            Tab::CallbackDestinations
        ]
    );
}

#[test]
fn health_counts_and_member_lists_stay_where_they_were() {
    assert_eq!(
        kinds(Tab::has_stats),
        vec![Tab::Destinations, Tab::CallbackDestinations]
    );
    assert_eq!(kinds(Tab::lists_members), vec![Tab::Teams, Tab::OrgTeams]);
}

#[test]
fn notifications_their_callbacks_and_destinations_are_the_kinds_recover_named() {
    assert_eq!(
        kinds(Tab::notifies),
        vec![Tab::Notifications, Tab::CallbackNotifications]
    );
    assert_eq!(
        kinds(|t| t.notifications_of().is_some_and(|n| n != t)),
        vec![
            Tab::Callbacks,
            Tab::Destinations,
            Tab::DeploymentCallbacks,
            Tab::CallbackDestinations
        ]
    );
    assert_eq!(
        Tab::Destinations.notifications_of(),
        Some(Tab::Notifications)
    );
    assert_eq!(
        Tab::DeploymentCallbacks.notifications_of(),
        Some(Tab::CallbackNotifications)
    );
    assert_eq!(Tab::EventDestinations.notifications_of(), None);
}

#[test]
fn reads_through_callbacks_one_request_and_listed_attempts_stay_where_they_were() {
    assert_eq!(
        kinds(Tab::through_callbacks),
        vec![Tab::CallbackNotifications, Tab::DeploymentCallbackEvents]
    );
    assert_eq!(Tab::MERGED_NOTIFICATIONS, Tab::CallbackNotifications);
    assert_eq!(kinds(Tab::one_request), vec![Tab::CallbackNotifications]);
    assert_eq!(
        kinds(Tab::lists_attempts),
        vec![Tab::Deliveries, Tab::DeliveryAttempts]
    );
    assert_eq!(Tab::DeliveryAttempts.attempts_of(), Some(Tab::Deliveries));
}
