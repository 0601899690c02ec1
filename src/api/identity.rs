//! Which service a file on disk belongs to: the base URL and the instance, hashed into one file
//! name. The journal and the detection cache key by it (never by a profile's name, which two users
//! of one service spell differently, or one user changes).
use sha2::{Digest, Sha256};

/// The service a client talks to: its base URL and the instance its requests carry, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceIdentity {
    base_url: String,
    instance: Option<String>,
}

impl ServiceIdentity {
    /// The identity of `base_url` (scheme and host lower-cased, trailing slashes dropped) with
    /// `instance` (an empty one is none).
    #[must_use]
    pub fn new(base_url: &str, instance: Option<&str>) -> Self {
        let trimmed = base_url.trim().trim_end_matches('/');
        let base_url = match trimmed.split_once("://") {
            Some((scheme, rest)) => {
                let (host, path) = rest.split_once('/').map_or((rest, ""), |(h, p)| (h, p));
                let mut s = format!(
                    "{}://{}",
                    scheme.to_ascii_lowercase(),
                    host.to_ascii_lowercase()
                );
                if !path.is_empty() {
                    s.push('/');
                    s.push_str(path);
                }
                s
            }
            None => trimmed.to_string(),
        };
        let instance = instance
            .map(str::trim)
            .filter(|i| !i.is_empty())
            .map(str::to_string);
        Self { base_url, instance }
    }

    /// The identity of the service `client` talks to.
    #[must_use]
    pub fn of(client: &super::Client) -> Self {
        Self::new(client.base_url(), client.options().instance_id.as_deref())
    }

    /// A file-name-safe key: 32 hex characters of SHA-256 over the base URL and the instance.
    #[must_use]
    pub fn key(&self) -> String {
        let mut h = Sha256::new();
        h.update(self.base_url.as_bytes());
        h.update([0u8]);
        h.update(self.instance.as_deref().unwrap_or("").as_bytes());
        hex::encode(h.finalize())[..32].to_string()
    }

    /// The base URL as normalised.
    #[must_use]
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The instance, if any.
    #[must_use]
    pub fn instance(&self) -> Option<&str> {
        self.instance.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_service_spelled_two_ways_has_one_key_and_instances_differ() {
        let a = ServiceIdentity::new("HTTP://LocalHost:8080/", Some("inst_1"));
        let b = ServiceIdentity::new("http://localhost:8080", Some(" inst_1 "));
        assert_eq!(a.key(), b.key());
        assert_eq!(a.key().len(), 32);
        let c = ServiceIdentity::new("http://localhost:8080", Some("inst_2"));
        assert_ne!(a.key(), c.key());
        let d = ServiceIdentity::new("http://localhost:8080", None);
        assert_ne!(a.key(), d.key());
        assert_eq!(d.instance(), None);
        assert_eq!(
            ServiceIdentity::new("http://h/", Some("")),
            ServiceIdentity::new("http://h", None)
        );
    }
}
