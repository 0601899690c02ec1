//! The five resource tabs and what each needs from the API.
/// One tab of the console, one per listable resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tab {
    /// `/organization/teams`.
    Teams,
    /// `/provider-oauth/token-imports`.
    Imports,
    /// `/callbacks`.
    Callbacks,
    /// `/callbacks-destinations`.
    Destinations,
    /// `/callbacks-notifications`.
    Notifications,
}

impl Tab {
    /// Every tab in header order.
    pub const ALL: [Tab; 5] = [
        Tab::Teams,
        Tab::Imports,
        Tab::Callbacks,
        Tab::Destinations,
        Tab::Notifications,
    ];

    /// Position in [`Tab::ALL`].
    pub fn index(self) -> usize {
        match self {
            Tab::Teams => 0,
            Tab::Imports => 1,
            Tab::Callbacks => 2,
            Tab::Destinations => 3,
            Tab::Notifications => 4,
        }
    }

    /// The tab at a position, wrapping around.
    pub(crate) fn from_index(i: usize) -> Tab {
        Tab::ALL[i % Tab::ALL.len()]
    }

    /// The next tab to the right, wrapping.
    pub(crate) fn next(self) -> Tab {
        Tab::from_index(self.index() + 1)
    }

    /// The next tab to the left, wrapping.
    pub(crate) fn prev(self) -> Tab {
        Tab::from_index(self.index() + Tab::ALL.len() - 1)
    }

    /// Title in the header.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Teams => "Teams",
            Tab::Imports => "Imports",
            Tab::Callbacks => "Callbacks",
            Tab::Destinations => "Destinations",
            Tab::Notifications => "Notifications",
        }
    }

    /// Plural noun for messages ("no teams on this page").
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Tab::Teams => "teams",
            Tab::Imports => "token imports",
            Tab::Callbacks => "callbacks",
            Tab::Destinations => "destinations",
            Tab::Notifications => "notifications",
        }
    }

    /// Which key the tab's paths need, for 401/403 messages.
    pub(crate) fn needed_key(self) -> &'static str {
        match self {
            Tab::Teams => "the organization key",
            _ => "the instance secret key",
        }
    }
}
