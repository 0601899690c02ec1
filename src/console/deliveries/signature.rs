//! Checks a recorded `Metorial-Signature` against the recorded body and the destination's secret
//! (api.md §5), reusing the service's signing function so both sides agree by construction.
use subtle::ConstantTimeEq;

use crate::service::delivery::sign_hex;

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

/// Verifies a signature header over a body with a secret.
pub fn verify(secret: &str, header: Option<&str>, body: Option<&str>) -> Result<(), SigError> {
    let parts = parse(header.ok_or(SigError::Missing)?)?;
    let body = body.ok_or(SigError::NoBody)?;
    let expected = sign_hex(secret, parts.host, parts.t, body);
    if bool::from(expected.as_bytes().ct_eq(parts.v1.as_bytes())) {
        Ok(())
    } else {
        Err(SigError::Mismatch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::delivery::signature;

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
}
