//! Webhook signatures (api.md §5, generations.md §6–§7): `Metorial-Signature` is made here for the
//! service's deliveries and checked here for the console's attempt view, so both sides agree by
//! construction. One verifier serves every generation: with an `i=` part the signed string is
//! `i.t.body` (pulsar), else `t.body` (the newer generations).
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// `Metorial-Signature`: `i=<host>,t=<unix s>,v1=<hex HMAC-SHA256(secret, "<host>.<t>.<body>")>`.
pub fn signature(secret: &str, host: &str, t: i64, body: &str) -> String {
    format!("i={host},t={t},v1={}", sign_hex(secret, host, t, body))
}

/// The `v1` part of a signature.
pub fn sign_hex(secret: &str, host: &str, t: i64, body: &str) -> String {
    let mut mac = match Hmac::<Sha256>::new_from_slice(secret.as_bytes()) {
        Ok(m) => m,
        // HMAC takes keys of any length; this branch cannot be reached.
        Err(_) => return String::new(),
    };
    mac.update(format!("{host}.{t}.{body}").as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// `metorial-signature` of the newer generations: `t=<unix s>,v1=<hex HMAC-SHA256(secret,
/// "<t>.<body>")>`.
pub fn signature_newer(secret: &str, t: i64, body: &str) -> String {
    format!("t={t},v1={}", hmac_hex(secret, &format!("{t}.{body}")))
}

fn hmac_hex(secret: &str, signed: &str) -> String {
    let mut mac = match Hmac::<Sha256>::new_from_slice(secret.as_bytes()) {
        Ok(m) => m,
        // HMAC takes keys of any length; this branch cannot be reached.
        Err(_) => return String::new(),
    };
    mac.update(signed.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// The parts of a signature header of any generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnyParts<'a> {
    /// `i`: the API host (pulsar only).
    pub host: Option<&'a str>,
    /// `t`: unix seconds.
    pub t: i64,
    /// `v1`: hex HMAC.
    pub v1: &'a str,
}

impl AnyParts<'_> {
    /// The string the HMAC covers: `i.t.body` with an `i=` part, else `t.body`.
    #[must_use]
    pub fn signed_string(&self, body: &str) -> String {
        match self.host {
            Some(h) => format!("{h}.{}.{body}", self.t),
            None => format!("{}.{body}", self.t),
        }
    }
}

/// Splits `[i=<host>,]t=<unix s>,v1=<hex>`.
pub fn parse_any(header: &str) -> Result<AnyParts<'_>, SigError> {
    let (mut host, mut t, mut v1) = (None, None, None);
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("i", v)) => host = Some(v),
            Some(("t", v)) => t = Some(v.parse::<i64>().map_err(|_| SigError::Malformed("t"))?),
            Some(("v1", v)) => v1 = Some(v),
            _ => {}
        }
    }
    Ok(AnyParts {
        host,
        t: t.ok_or(SigError::Malformed("no t="))?,
        v1: v1.ok_or(SigError::Malformed("no v1="))?,
    })
}

/// Why a signature does not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SigError {
    /// The request carried no signature header.
    #[error("no Metorial-Signature header was sent")]
    Missing,
    /// The header does not have the `i=…,t=…,v1=…` shape.
    #[error("signature header is malformed: {0}")]
    Malformed(&'static str),
    /// No body was recorded.
    #[error("no request body was recorded")]
    NoBody,
    /// The HMAC differs: another secret, or the body changed.
    #[error("HMAC mismatch: the body or the secret differs")]
    Mismatch,
}

/// The parts of a signature header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigParts<'a> {
    /// `i`: the API host.
    pub host: &'a str,
    /// `t`: unix seconds.
    pub t: i64,
    /// `v1`: hex HMAC.
    pub v1: &'a str,
}

/// Splits `i=<host>,t=<unix s>,v1=<hex>`.
pub fn parse(header: &str) -> Result<SigParts<'_>, SigError> {
    let (mut host, mut t, mut v1) = (None, None, None);
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("i", v)) => host = Some(v),
            Some(("t", v)) => t = Some(v.parse::<i64>().map_err(|_| SigError::Malformed("t"))?),
            Some(("v1", v)) => v1 = Some(v),
            _ => {}
        }
    }
    Ok(SigParts {
        host: host.ok_or(SigError::Malformed("no i="))?,
        t: t.ok_or(SigError::Malformed("no t="))?,
        v1: v1.ok_or(SigError::Malformed("no v1="))?,
    })
}

/// The signature header among recorded headers (any case).
pub fn header_of<'a>(
    headers: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> Option<&'a str> {
    headers
        .into_iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("metorial-signature"))
        .map(|(_, v)| v.as_str())
}

/// Verifies a signature header of any generation over a body with a secret: with an `i=` part
/// the signed string is `i.t.body`, else `t.body`.
pub fn verify(secret: &str, header: Option<&str>, body: Option<&str>) -> Result<(), SigError> {
    let parts = parse_any(header.ok_or(SigError::Missing)?)?;
    let body = body.ok_or(SigError::NoBody)?;
    let expected = hmac_hex(secret, &parts.signed_string(body));
    if bool::from(expected.as_bytes().ct_eq(parts.v1.as_bytes())) {
        Ok(())
    } else {
        Err(SigError::Mismatch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verifies_what_the_service_signs() {
        let h = signature("clb_sec_x", "127.0.0.1:80", 1_700_000_000, "{}");
        assert_eq!(verify("clb_sec_x", Some(&h), Some("{}")), Ok(()));
        assert_eq!(
            verify("clb_sec_x", Some(&h), Some("{ }")),
            Err(SigError::Mismatch)
        );
        assert_eq!(
            verify("other", Some(&h), Some("{}")),
            Err(SigError::Mismatch)
        );
        assert_eq!(verify("s", None, Some("{}")), Err(SigError::Missing));
        assert!(matches!(
            verify("s", Some("garbage"), Some("{}")),
            Err(SigError::Malformed(_))
        ));
    }

    #[test]
    fn one_verifier_takes_both_forms() {
        let newer = signature_newer("whsec_x", 1_700_000_000, "{}");
        assert!(!newer.contains("i="), "{newer}");
        assert_eq!(verify("whsec_x", Some(&newer), Some("{}")), Ok(()));
        assert_eq!(
            verify("whsec_x", Some(&newer), Some("{ }")),
            Err(SigError::Mismatch)
        );
        // A newer header carried over to pulsar's form (an `i=` added) no longer verifies.
        let moved = format!("i=h,{newer}");
        assert_eq!(
            verify("whsec_x", Some(&moved), Some("{}")),
            Err(SigError::Mismatch)
        );
        assert!(parse("t=1,v1=ab").is_err(), "pulsar's parse still wants i=");
    }

    #[test]
    fn signature_matches_a_known_hmac() {
        // HMAC-SHA256("key", "h.1.{}") computed independently with openssl.
        let sig = signature("key", "h", 1, "{}");
        assert_eq!(
            sig,
            "i=h,t=1,v1=ac965bfcd504912aece9bf008be4e873ebfb8f8e0d08d022ceff54f1eb8f80ca"
        );
    }
}
