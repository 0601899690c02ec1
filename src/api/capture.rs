//! What is kept of a webhook receiver's answer: the one set of caps and the one way to apply
//! them, shared by the delivery engine (recorded attempts) and replay (answers shown locally),
//! so a hostile receiver cannot bloat either.
use std::collections::BTreeMap;

/// Response headers kept per answer; the rest are dropped and the capture says so.
pub const MAX_HEADERS: usize = 64;
/// Bytes of response header names and values kept per answer.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;
/// Bytes of response body kept per answer; the rest is not read.
pub const MAX_BODY: usize = 64 * 1024;
/// The header entry that says how many headers were dropped from a capture.
pub const TRUNCATED_HEADER: &str = "x-switchboard-truncated";

/// The response headers as kept: at most [`MAX_HEADERS`] entries and [`MAX_HEADER_BYTES`] of
/// names and values; what was dropped is counted in one [`TRUNCATED_HEADER`] entry. Repeated
/// names are joined with `, `.
#[must_use]
pub fn capped_headers(headers: &reqwest::header::HeaderMap) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let (mut bytes, mut dropped, mut dropped_bytes) = (0usize, 0usize, 0usize);
    for (k, v) in headers {
        let value = String::from_utf8_lossy(v.as_bytes());
        let cost = k.as_str().len() + value.len();
        let fits = bytes + cost <= MAX_HEADER_BYTES
            && (out.contains_key(k.as_str()) || out.len() < MAX_HEADERS);
        if !fits {
            dropped += 1;
            dropped_bytes += cost;
            continue;
        }
        bytes += cost;
        out.entry(k.as_str().to_string())
            .and_modify(|e| {
                e.push_str(", ");
                e.push_str(&value);
            })
            .or_insert_with(|| value.into_owned());
    }
    if dropped > 0 {
        // Keeps room for the marker itself within the entry cap.
        if out.len() >= MAX_HEADERS
            && let Some(last) = out.keys().next_back().cloned()
        {
            out.remove(&last);
            dropped += 1;
        }
        out.insert(
            TRUNCATED_HEADER.into(),
            format!("{dropped} headers ({dropped_bytes} bytes) not recorded"),
        );
    }
    out
}

/// A body read up to [`MAX_BODY`] bytes.
#[derive(Debug)]
pub struct CappedBody {
    /// What arrived, as lossy UTF-8.
    pub text: String,
    /// Whether the body went on past the cap (the rest was not read).
    pub truncated: bool,
    /// Why reading stopped early (a timeout, a reset), if it did.
    pub error: Option<reqwest::Error>,
}

/// Reads the body up to [`MAX_BODY`] bytes; never more is held in memory.
pub async fn read_capped(mut resp: reqwest::Response) -> CappedBody {
    let mut buf: Vec<u8> = Vec::new();
    let (mut truncated, mut error) = (false, None);
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                let room = MAX_BODY.saturating_sub(buf.len());
                if chunk.len() > room {
                    buf.extend_from_slice(chunk.get(..room).unwrap_or_default());
                    truncated = true;
                    break;
                }
                buf.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    CappedBody {
        text: String::from_utf8_lossy(&buf).into_owned(),
        truncated,
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

    #[test]
    fn headers_are_capped_and_say_so() {
        let mut h = HeaderMap::new();
        let filler = HeaderValue::from_str(&"x".repeat(4000)).expect("value");
        for i in 0..90 {
            let name = HeaderName::from_bytes(format!("x-flood-{i:02}").as_bytes()).expect("name");
            h.insert(name, filler.clone());
        }
        let kept = capped_headers(&h);
        assert!(kept.len() <= MAX_HEADERS);
        let bytes: usize = kept
            .iter()
            .filter(|(k, _)| k.as_str() != TRUNCATED_HEADER)
            .map(|(k, v)| k.len() + v.len())
            .sum();
        assert!(bytes <= MAX_HEADER_BYTES, "{bytes}");
        assert!(kept[TRUNCATED_HEADER].starts_with("86 headers"), "{kept:?}");
        let mut small = HeaderMap::new();
        small.insert("content-type", HeaderValue::from_static("text/plain"));
        assert_eq!(capped_headers(&small).len(), 1);
    }
}
