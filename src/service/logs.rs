//! Error lines rate-limited by their text: a fault that repeats (a full disk, a bad row read by
//! every page) is logged once a minute with a count, not thousands of times a second.
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often the same line is written at most.
const EVERY: Duration = Duration::from_mins(1);
/// Distinct lines remembered; past it the memory starts again.
const REMEMBERED: usize = 1024;

/// When each line was last written and how many were held back since.
static SEEN: Mutex<Option<HashMap<String, (Instant, u64)>>> = Mutex::new(None);

/// What to do with a line: write it (with how many were held back), or hold it back.
fn admit(line: &str, now: Instant) -> Option<u64> {
    let mut guard = SEEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let seen = guard.get_or_insert_with(HashMap::new);
    if let Some((last, held)) = seen.get_mut(line) {
        if now.duration_since(*last) < EVERY {
            *held += 1;
            return None;
        }
        let before = *held;
        *last = now;
        *held = 0;
        return Some(before);
    }
    if seen.len() >= REMEMBERED {
        seen.clear();
    }
    seen.insert(line.to_string(), (now, 0));
    Some(0)
}

/// Logs `line` as an error, at most once a minute per distinct text.
pub fn error_limited(line: &str) {
    match admit(line, Instant::now()) {
        Some(0) => tracing::error!("{line}"),
        Some(held) => tracing::error!("{line} ({held} more like it in the last minute)"),
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_line_is_written_once_a_minute_with_a_count() {
        let t0 = Instant::now();
        let line = "logs test: disk full";
        assert_eq!(admit(line, t0), Some(0));
        for _ in 0..1000 {
            assert_eq!(admit(line, t0 + Duration::from_secs(1)), None);
        }
        assert_eq!(admit("logs test: another", t0), Some(0));
        assert_eq!(admit(line, t0 + Duration::from_secs(61)), Some(1000));
    }
}
