//! The delivery actions the keymap binds (`Action::Deliver`): a core list the deliveries room
//! handles, kept here so the keymap names no room.

/// A delivery-related action, wrapped in `keymap::Action::Deliver`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) enum DeliveryKey {
    /// On a callback: the destinations that receive it.
    #[default]
    Destinations,
    /// On a callback or destination: its notifications.
    Notifications,
    /// The notification filter dialog.
    Filter,
    /// Toggle auto-refresh of the notifications list.
    Watch,
    /// Reveal masked headers of the open attempt (asks first).
    Reveal,
    /// Cycle the local status filter of the loaded notifications.
    LocalStatus,
    /// Drop every server-side filter of the notifications list.
    ClearFilters,
    /// On a callback of `callback-destinations`: the events it received.
    Events,
}

impl DeliveryKey {
    /// One line for the help screen.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            DeliveryKey::Destinations => "callback → its destinations",
            DeliveryKey::Notifications => "callback / destination → its notifications",
            DeliveryKey::Filter => "filter notifications by callback, event, destination",
            DeliveryKey::Watch => "watch: refresh notifications",
            DeliveryKey::Reveal => "reveal masked headers / a destination's signing secret",
            DeliveryKey::LocalStatus => "keep one status, looked for from the top of the list",
            DeliveryKey::ClearFilters => "clear every server filter of notifications",
            DeliveryKey::Events => "callback → the events it received",
        }
    }

    /// A word for the footer.
    pub(crate) fn hint(self) -> &'static str {
        match self {
            DeliveryKey::Destinations => "destinations",
            DeliveryKey::Notifications => "notifications",
            DeliveryKey::Filter => "filter by…",
            DeliveryKey::Watch => "watch",
            DeliveryKey::Reveal => "reveal",
            DeliveryKey::LocalStatus => "status",
            DeliveryKey::ClearFilters => "clear filters",
            DeliveryKey::Events => "events",
        }
    }

    /// The name used in the `[keys]` table of the config.
    pub(crate) fn config_name(self) -> &'static str {
        match self {
            DeliveryKey::Destinations => "follow_destinations",
            DeliveryKey::Notifications => "follow_notifications",
            DeliveryKey::Filter => "notification_filter",
            DeliveryKey::Watch => "watch",
            DeliveryKey::Reveal => "reveal",
            DeliveryKey::LocalStatus => "local_status",
            DeliveryKey::ClearFilters => "clear_filters",
            DeliveryKey::Events => "follow_events",
        }
    }

    /// The default key.
    pub(crate) fn default_char(self) -> char {
        match self {
            DeliveryKey::Destinations => 'D',
            DeliveryKey::Notifications => 'N',
            DeliveryKey::Filter => 'f',
            DeliveryKey::Watch => 'w',
            DeliveryKey::Reveal => 'R',
            DeliveryKey::LocalStatus => 'l',
            DeliveryKey::ClearFilters => 'F',
            DeliveryKey::Events => 'i',
        }
    }

    /// Every action, in help order.
    pub(crate) const ALL: [DeliveryKey; 8] = [
        DeliveryKey::Destinations,
        DeliveryKey::Notifications,
        DeliveryKey::Filter,
        DeliveryKey::Watch,
        DeliveryKey::Reveal,
        DeliveryKey::LocalStatus,
        DeliveryKey::ClearFilters,
        DeliveryKey::Events,
    ];
}
