//! The kinds of record the newer generations keep in `gen_records`, named once: the store's
//! functions take one of these, never a string, so a misspelt kind cannot compile. The `kind`
//! column keeps the same text as before (`as_str`), so existing databases read unchanged.

/// A kind of stored record of the newer generations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stored {
    /// An access policy (`management.policy`).
    Policy,
    /// A team of the newest generation.
    Team,
    /// An organization member.
    Member,
    /// An OAuth provider.
    Provider,
    /// A provider deployment (seeded by the newer generations' common seed).
    Deployment,
    /// An integration provider.
    IntegrationProvider,
    /// An auth configuration.
    AuthConfig,
    /// A provider auth import.
    Import,
    /// An integration callback.
    Callback,
    /// A callback's instance.
    CallbackInstance,
    /// A callback event (what the provider sent).
    CallbackEvent,
    /// An event destination.
    Destination,
    /// A destination's listener.
    Listener,
    /// An event (what is delivered).
    Event,
    /// A delivery (one event to one destination).
    Delivery,
    /// One attempt of a delivery.
    Attempt,
    /// callback-destinations: a callback.
    CbCallback,
    /// callback-destinations: a callback destination.
    CbDestination,
    /// callback-destinations: a callback event (what the provider sent).
    CbEvent,
    /// callback-destinations: a notification's event (what is sent, `sev_`).
    CbSentEvent,
    /// callback-destinations: a notification (one event to one destination).
    CbNotification,
    /// callback-destinations: a provider's trigger.
    CbTrigger,
}

impl Stored {
    /// The `kind` column's text.
    pub const fn as_str(self) -> &'static str {
        match self {
            Stored::Policy => "policy",
            Stored::Team => "team",
            Stored::Member => "member",
            Stored::Provider => "provider",
            Stored::Deployment => "deployment",
            Stored::IntegrationProvider => "integration_provider",
            Stored::AuthConfig => "auth_config",
            Stored::Import => "import",
            Stored::Callback => "callback",
            Stored::CallbackInstance => "callback_instance",
            Stored::CallbackEvent => "callback_event",
            Stored::Destination => "destination",
            Stored::Listener => "listener",
            Stored::Event => "event",
            Stored::Delivery => "delivery",
            Stored::Attempt => "attempt",
            Stored::CbCallback => "cb.callback",
            Stored::CbDestination => "cb.destination",
            Stored::CbEvent => "cb.event",
            Stored::CbSentEvent => "cb.sent_event",
            Stored::CbNotification => "cb.notification",
            Stored::CbTrigger => "cb.trigger",
        }
    }
}

impl std::fmt::Display for Stored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Stored;

    /// The `kind` texts databases written before this enum hold: a renamed variant must keep
    /// its text, or those records would vanish from every list.
    const WRITTEN: [(Stored, &str); 22] = [
        (Stored::Policy, "policy"),
        (Stored::Team, "team"),
        (Stored::Member, "member"),
        (Stored::Provider, "provider"),
        (Stored::Deployment, "deployment"),
        (Stored::IntegrationProvider, "integration_provider"),
        (Stored::AuthConfig, "auth_config"),
        (Stored::Import, "import"),
        (Stored::Callback, "callback"),
        (Stored::CallbackInstance, "callback_instance"),
        (Stored::CallbackEvent, "callback_event"),
        (Stored::Destination, "destination"),
        (Stored::Listener, "listener"),
        (Stored::Event, "event"),
        (Stored::Delivery, "delivery"),
        (Stored::Attempt, "attempt"),
        (Stored::CbCallback, "cb.callback"),
        (Stored::CbDestination, "cb.destination"),
        (Stored::CbEvent, "cb.event"),
        (Stored::CbSentEvent, "cb.sent_event"),
        (Stored::CbNotification, "cb.notification"),
        (Stored::CbTrigger, "cb.trigger"),
    ];

    #[test]
    fn every_kind_keeps_the_text_its_records_were_written_under_and_no_two_share_one() {
        let mut seen = std::collections::HashSet::new();
        for (kind, text) in WRITTEN {
            assert_eq!(kind.as_str(), text, "{kind:?}");
            assert!(seen.insert(text), "{text} named twice");
        }
    }
}
