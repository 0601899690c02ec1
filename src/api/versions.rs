//! The API versions a deployment serves (`GET /metorial/introspect/versions`, asked without a
//! key) and the one this client speaks: pulsar. Newer deployments serve only other versions,
//! where this client's instance paths answer 404 `endpoint`; the list tells the two apart.
use serde::{Deserialize, Serialize};

use super::API_VERSION;

/// The path of the versions list, as segments.
pub const VERSIONS_PATH: [&str; 3] = ["metorial", "introspect", "versions"];

/// The version family this client's paths belong to.
pub const FAMILY: &str = "pulsar";

/// At most this many versions are named in a message (a server's list is its own text).
const MAX_NAMED: usize = 8;

/// `{"versions":[…]}`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct VersionList {
    /// The versions served, as listed.
    pub versions: Vec<ServedVersion>,
}

/// One version a deployment serves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServedVersion {
    /// The identifier to send as `Metorial-Version`, e.g. `mt_2025_01_01_pulsar`.
    pub version: String,
    /// The date form, e.g. `2025-01-01`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_version: Option<String>,
    /// Whether keys default to it.
    #[serde(default)]
    pub is_current: bool,
}

impl VersionList {
    /// The listed version of this client's family, if served.
    #[must_use]
    pub fn pulsar(&self) -> Option<&ServedVersion> {
        self.versions
            .iter()
            .find(|v| v.version.to_ascii_lowercase().contains(FAMILY))
    }

    /// The identifiers, cleaned and joined for a sentence: `a, b and c`; at most a few.
    #[must_use]
    pub fn named(&self) -> String {
        let mut names: Vec<String> = self
            .versions
            .iter()
            .take(MAX_NAMED)
            .map(|v| {
                let id: String = crate::text::line(&v.version).chars().take(60).collect();
                if v.is_current {
                    format!("{id} (current)")
                } else {
                    id
                }
            })
            .collect();
        if self.versions.len() > MAX_NAMED {
            names.push(format!("{} more", self.versions.len() - MAX_NAMED));
        }
        match names.split_last() {
            None => "none it lists".into(),
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        }
    }
}

/// What the client learnt about the server's versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Discovery {
    /// The server lists its versions.
    Listed(VersionList),
    /// The server does not list them (an older deployment, a proxy): assume it speaks pulsar.
    Unlisted,
}

impl Discovery {
    /// The `Metorial-Version` to send: the identifier the server lists for pulsar, else the
    /// contract's default.
    #[must_use]
    pub fn header_value(&self) -> &str {
        match self {
            Discovery::Listed(l) => l.pulsar().map_or(API_VERSION, |v| v.version.as_str()),
            Discovery::Unlisted => API_VERSION,
        }
    }

    /// The server's list when it does not serve pulsar.
    #[must_use]
    pub fn without_pulsar(&self) -> Option<&VersionList> {
        match self {
            Discovery::Listed(l) if l.pulsar().is_none() => Some(l),
            _ => None,
        }
    }

    /// One line for `info`: what the server serves and what is sent.
    #[must_use]
    pub fn summary(&self) -> String {
        match self {
            Discovery::Unlisted => {
                format!("not listed by the server (sending {API_VERSION})")
            }
            Discovery::Listed(l) => match l.pulsar() {
                Some(p) => format!("{} (sending {})", l.named(), crate::text::line(&p.version)),
                None => format!("{} (no {FAMILY}: {})", l.named(), unsupported_sentence(l)),
            },
        }
    }
}

/// The one sentence shown instead of not-found errors on a server without pulsar.
#[must_use]
pub fn unsupported_sentence(served: &VersionList) -> String {
    format!(
        "This server does not serve API version {FAMILY} (2025-01-01), which Switchboard speaks; \
         it serves {}.",
        served.named()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(ids: &[&str]) -> VersionList {
        VersionList {
            versions: ids
                .iter()
                .enumerate()
                .map(|(i, v)| ServedVersion {
                    version: (*v).to_string(),
                    display_version: None,
                    is_current: i == 0,
                })
                .collect(),
        }
    }

    #[test]
    fn the_listed_pulsar_identifier_is_sent() {
        let d = Discovery::Listed(list(&["mt_2025_01_01_dashboard", "mt_2025_01_01_PULSAR"]));
        assert_eq!(d.header_value(), "mt_2025_01_01_PULSAR");
        assert!(d.without_pulsar().is_none());
        assert_eq!(Discovery::Unlisted.header_value(), API_VERSION);
    }

    #[test]
    fn a_server_without_pulsar_is_one_sentence_naming_what_it_serves() {
        let d = Discovery::Listed(list(&["mt_2025_01_01_dashboard", "mt_2026_01_01_magnetar"]));
        let l = d.without_pulsar().expect("no pulsar");
        let s = unsupported_sentence(l);
        assert_eq!(
            s,
            "This server does not serve API version pulsar (2025-01-01), which Switchboard \
             speaks; it serves mt_2025_01_01_dashboard (current) and mt_2026_01_01_magnetar."
        );
        assert_eq!(s.matches(". ").count(), 0, "one sentence: {s}");
    }

    #[test]
    fn hostile_or_huge_lists_are_cleaned_and_capped() {
        let many: Vec<String> = (0..50).map(|i| format!("v{i}\u{1b}[2J")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        let s = unsupported_sentence(&list(&refs));
        assert!(!s.contains('\u{1b}'), "{s}");
        assert!(s.contains("42 more"), "{s}");
        assert!(unsupported_sentence(&list(&[])).contains("none it lists"));
    }
}
