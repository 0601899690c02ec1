//! The platform's API generations (`shared/spec/generations.md` §1): what a deployment serves for
//! webhooks, which is where the generations differ most. Every face names a generation by these values.
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One API generation, by Switchboard's name for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Generation {
    /// `mt_2025_01_01_pulsar`: the seed document's API (`api.md`).
    Pulsar,
    /// From 2026-03-26: callbacks on provider deployments, `/callback-destinations`.
    CallbackDestinations,
    /// The newest: organization event destinations, listeners, events, deliveries, attempts.
    EventDestinations,
}

impl Generation {
    /// Every generation, oldest first.
    pub const ALL: [Self; 3] = [
        Self::Pulsar,
        Self::CallbackDestinations,
        Self::EventDestinations,
    ];

    /// The name users type (`--generation`, `generation = "…"`, `SWITCHBOARD_GENERATION`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Pulsar => "pulsar",
            Self::CallbackDestinations => "callback-destinations",
            Self::EventDestinations => "event-destinations",
        }
    }
}

impl fmt::Display for Generation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a generation's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown generation {0:?}: expected pulsar, callback-destinations or event-destinations")]
pub struct UnknownGeneration(pub String);

impl FromStr for Generation {
    type Err = UnknownGeneration;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|g| g.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownGeneration(crate::text::line(s).chars().take(60).collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for g in Generation::ALL {
            assert_eq!(g.as_str().parse::<Generation>(), Ok(g));
            let json = serde_json::to_string(&g).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", g.as_str()));
        }
        assert!("magnetar".parse::<Generation>().is_err());
    }
}
