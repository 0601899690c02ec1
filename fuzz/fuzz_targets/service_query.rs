//! Fuzz target: any bytes as a list query string, read the way the local service reads it (pairs,
//! every Union form, limit/order/after/before/cursor). Nothing may panic; a valid query's limit
//! is 1–100.
#![no_main]
use libfuzzer_sys::fuzz_target;
use switchboard::service::paging::{ListParams, parse_pairs, union};

fuzz_target!(|data: &[u8]| {
    let raw = String::from_utf8_lossy(data);
    let pairs = parse_pairs(Some(&raw));
    for key in [
        "status",
        "callback_id",
        "event_type",
        "destination_id",
        "limit",
    ] {
        for v in union(&pairs, key) {
            assert!(!v.is_empty(), "empty Union values are dropped");
        }
    }
    if let Ok(p) = ListParams::from_pairs(&pairs) {
        assert!((1..=100).contains(&p.limit));
    }
});
